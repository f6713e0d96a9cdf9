//! `learnsync hooks install|uninstall` through the real binary, against a temp
//! HOME holding an agent config with other settings in it.

use crate::common;

use common::capture::{OpencodePlugin, node_runs};
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
        "SessionStart",
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
    let codex_home = sb.root().join("codex-home");
    let xdg = sb.root().join("xdg");
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
    let project = sb.root().join("project");
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

/// The plugin as `hooks install opencode` wrote it, loaded by node the way
/// opencode loads it, with opencode's hook arguments: what it forwards,
/// and what it adds to the session's system prompt.
const OPENCODE_HOST: &str = r#"
import { pathToFileURL } from "node:url";
import { existsSync, readdirSync } from "node:fs";
const [plugin, inbox] = process.argv.slice(2);
const { LearnsyncPlugin } = await import(pathToFileURL(plugin).href);
const hooks = await LearnsyncPlugin({ directory: "/", worktree: "/" });
const said = [];
async function turn(text) {
  await hooks["chat.message"](
    { sessionID: "ses_1", agent: "build" },
    { message: { sessionID: "ses_1" }, parts: [{ type: "text", text }] },
  );
  const out = { system: ["You are opencode."] };
  await hooks["experimental.chat.system.transform"]({ sessionID: "ses_1", model: {} }, out);
  said.push(out.system);
}
await turn("docker compose up -d db says Bind for 0.0.0.0:5432 failed: port is already allocated");
await turn("thanks, now write the README");
const other = { system: [] };
await hooks["experimental.chat.system.transform"]({ sessionID: "ses_other", model: {} }, other);
said.push(other.system);
await hooks["tool.execute.after"](
  { tool: "bash", sessionID: "ses_1", callID: "call_1", args: { command: "make biuld" } },
  { title: "make", output: "make: *** No rule to make target 'biuld'.  Stop.", metadata: { exit: 2 } },
);
const deadline = Date.now() + 10000;
while (Date.now() < deadline && !(existsSync(inbox) && readdirSync(inbox).some((f) => f.endsWith(".md")))) {
  await new Promise((r) => setTimeout(r, 50));
}
said.push(existsSync(inbox) ? readdirSync(inbox).filter((f) => f.endsWith(".md")).length : 0);
console.log(JSON.stringify(said));
"#;

#[test]
fn the_opencode_plugin_adds_the_session_context_and_a_confident_match_to_the_system_prompt() {
    if !node_runs() {
        return;
    }
    let sb = Sandbox::new();
    sb.ok(&["init", "--agent", "laptop"]);
    sb.ok(&[
        "add",
        "--title",
        "docker compose up fails: port 5432 is already allocated",
        "--correction",
        "stop the local postgres first: sudo systemctl stop postgresql",
        "--command",
        "docker compose up -d db",
        "--error",
        "Bind for 0.0.0.0:5432 failed: port is already allocated",
    ]);
    sb.sync_offline();
    let plugin = OpencodePlugin::install(&sb, OPENCODE_HOST);
    let said = plugin.run(sb.dir().join(".git/learnsync/inbox"));
    let first: Vec<&str> = said[0]
        .as_array()
        .expect("system")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(first[0], "You are opencode.");
    assert_eq!(first.len(), 3, "{first:?}");
    assert!(
        first[1].starts_with("## Learnings for this session (opencode)"),
        "{first:?}"
    );
    assert!(
        first[2].starts_with("learnsync: a learning matches")
            && first[2].contains("systemctl stop postgresql"),
        "{first:?}"
    );
    // The next message matches nothing: the context stays, the match goes.
    let second = said[1].as_array().expect("system");
    assert_eq!(second.len(), 2, "{second:?}");
    assert_eq!(second[1], first[1]);
    // Another session the plugin was not told about: nothing added.
    assert_eq!(said[2], serde_json::json!([]));
    // A failed bash call is still captured.
    assert_eq!(said[3], 1, "the failure reached the inbox");
}
