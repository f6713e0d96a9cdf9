//! `learnsync hooks install|uninstall` through the real binary, against a temp
//! HOME holding an agent config with other settings in it.

use crate::common;

use common::{Sandbox, json};
use serde_json::Value;
use std::fs;

const SETTINGS: &str = r#"{
  "model": "opus",
  "permissions": {
    "allow": ["Bash(git status:*)"]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [{ "type": "command", "command": "/usr/local/bin/guard.sh", "timeout": 5 }]
      }
    ]
  },
  "statusLine": { "type": "command", "command": "~/.claude/statusline.sh" }
}
"#;

fn settings_path(sb: &Sandbox) -> std::path::PathBuf {
    sb.home().join(".claude/settings.json")
}

fn with_settings() -> Sandbox {
    let sb = Sandbox::new();
    let path = settings_path(&sb);
    fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    fs::write(&path, SETTINGS).expect("write settings");
    sb
}

fn commands(settings: &Value, event: &str) -> Vec<String> {
    settings["hooks"][event]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|g| g["hooks"].as_array().into_iter().flatten())
        .filter_map(|h| h["command"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn installing_twice_registers_capture_once_and_keeps_every_other_setting() {
    let sb = with_settings();
    let first = sb.ok(&["hooks", "install", "claude"]);
    assert!(first.contains("Installed in"), "{first}");
    assert!(first.contains("Backup of the previous file"), "{first}");
    let after_first = fs::read_to_string(settings_path(&sb)).expect("settings");
    let backup = sb.home().join(".claude/settings.json.learnsync.bak");
    assert_eq!(fs::read_to_string(&backup).expect("backup"), SETTINGS);

    let second = sb.ok(&["hooks", "install", "claude"]);
    assert!(
        second.contains("already installed; nothing to change"),
        "{second}"
    );
    assert_eq!(
        fs::read_to_string(settings_path(&sb)).expect("settings"),
        after_first
    );

    let v = json(&after_first);
    assert_eq!(v["model"], "opus");
    assert_eq!(v["permissions"]["allow"][0], "Bash(git status:*)");
    assert_eq!(v["statusLine"]["command"], "~/.claude/statusline.sh");
    let pre = commands(&v, "PreToolUse");
    assert!(
        pre.contains(&"/usr/local/bin/guard.sh".to_string()),
        "{pre:?}"
    );
    for event in [
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "UserPromptSubmit",
    ] {
        let ours: Vec<String> = commands(&v, event)
            .into_iter()
            .filter(|c| c.contains("capture --format claude"))
            .collect();
        assert_eq!(ours.len(), 1, "{event}: {ours:?}");
        assert!(
            ours[0].starts_with('/'),
            "absolute path to learnsync: {}",
            ours[0]
        );
    }
}

#[test]
fn dry_run_prints_the_diff_and_writes_nothing() {
    let sb = with_settings();
    let out = sb.ok(&["hooks", "install", "claude", "--dry-run"]);
    assert!(out.contains("+++ "), "{out}");
    assert!(out.contains("capture --format claude"), "{out}");
    assert!(out.contains("dry run"), "{out}");
    assert_eq!(
        fs::read_to_string(settings_path(&sb)).expect("settings"),
        SETTINGS
    );
    assert!(
        !sb.home()
            .join(".claude/settings.json.learnsync.bak")
            .exists()
    );
}

#[test]
fn uninstall_gives_back_the_original_settings() {
    let sb = with_settings();
    sb.ok(&["hooks", "install", "claude"]);
    let out = sb.ok(&["--json", "hooks", "uninstall", "claude"]);
    let report = json(&out);
    assert_eq!(report["changed"], true);
    assert_eq!(report["action"], "uninstall");
    let now: Value = json(&fs::read_to_string(settings_path(&sb)).expect("settings"));
    let original: Value = json(SETTINGS);
    assert_eq!(now, original);
    let again = json(&sb.ok(&["--json", "hooks", "uninstall", "claude"]));
    assert_eq!(again["changed"], false);
}

#[test]
fn codex_and_opencode_install_where_their_environment_points() {
    let sb = Sandbox::new();
    let codex_home = sb.tmp.path().join("codex-home");
    let xdg = sb.tmp.path().join("xdg");
    let run = |args: &[&str]| {
        let out = sb
            .cmd(args)
            .env("CODEX_HOME", &codex_home)
            .env("XDG_CONFIG_HOME", &xdg)
            .output()
            .expect("run");
        assert!(out.status.success(), "{out:?}");
        json(&String::from_utf8_lossy(&out.stdout))
    };
    let report = run(&["--json", "hooks", "install", "codex"]);
    assert_eq!(report["changed"], true);
    let config = fs::read_to_string(codex_home.join("config.toml")).expect("codex config");
    assert!(config.contains("capture --format codex"), "{config}");
    assert_eq!(
        run(&["--json", "hooks", "install", "codex"])["changed"],
        false
    );

    run(&["--json", "hooks", "install", "opencode"]);
    let plugin = fs::read_to_string(xdg.join("opencode/plugins/learnsync.js")).expect("plugin");
    assert!(plugin.contains("learnsync"), "{plugin}");
    run(&["--json", "hooks", "uninstall", "opencode"]);
    assert!(!xdg.join("opencode/plugins/learnsync.js").exists());
}

#[test]
fn project_install_writes_the_project_settings() {
    let sb = Sandbox::new();
    let project = sb.tmp.path().join("project");
    fs::create_dir_all(&project).expect("project");
    let out = sb
        .cmd(&["hooks", "install", "claude", "--project"])
        .current_dir(&project)
        .output()
        .expect("run");
    assert!(out.status.success(), "{out:?}");
    let text = fs::read_to_string(project.join(".claude/settings.json")).expect("settings");
    assert!(text.contains("capture --format claude"));
    assert!(
        !settings_path(&sb).exists(),
        "the user's settings are untouched"
    );
}
