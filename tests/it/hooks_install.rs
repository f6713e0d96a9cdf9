//! `hooks install` / `hooks uninstall` against real config files in a temp
//! HOME: idempotent, other settings untouched, uninstall restores the original.

use std::fs;
use std::path::{Path, PathBuf};

use learnsync::hook_install::{HookAgent, Scope, apply, plan_install, plan_uninstall, target_path};
use serde_json::Value;

const BIN: &str = "/opt/learnsync/bin/learnsync";

struct Env {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
}

fn env() -> Env {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    let project = tmp.path().join("project");
    fs::create_dir_all(&home).expect("home");
    fs::create_dir_all(&project).expect("project");
    Env {
        _tmp: tmp,
        home,
        project,
    }
}

fn install(e: &Env, agent: HookAgent, scope: Scope) -> learnsync::hook_install::HookPlan {
    let plan = plan_install(agent, scope, &e.home, &e.project, Path::new(BIN)).expect("plan");
    apply(&plan).expect("apply");
    plan
}

const CLAUDE_SETTINGS: &str = r#"{
  "model": "opus",
  "permissions": {
    "allow": [
      "Bash(git status:*)"
    ],
    "deny": []
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/usr/local/bin/guard.sh",
            "timeout": 5
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done"
          }
        ]
      }
    ]
  },
  "statusLine": {
    "type": "command",
    "command": "~/.claude/statusline.sh"
  }
}
"#;

#[test]
fn claude_install_is_idempotent_and_keeps_other_settings_and_hooks() {
    let e = env();
    let path = e.home.join(".claude/settings.json");
    fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    fs::write(&path, CLAUDE_SETTINGS).expect("write");

    let plan = install(&e, HookAgent::Claude, Scope::User);
    assert_eq!(plan.path, path);
    assert!(plan.changes());
    assert!(
        plan.diff.contains("+") && plan.diff.contains("capture --format claude"),
        "{}",
        plan.diff
    );
    assert!(
        path.with_file_name("settings.json.learnsync.bak").exists(),
        "backup written"
    );

    let after = fs::read_to_string(&path).expect("read");
    let v: Value = serde_json::from_str(&after).expect("valid JSON");
    // Other settings and other hooks are intact, in their order.
    let keys: Vec<&str> = v
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["model", "permissions", "hooks", "statusLine"]);
    assert_eq!(v["permissions"]["allow"][0], "Bash(git status:*)");
    assert_eq!(
        v["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "/usr/local/bin/guard.sh"
    );
    assert_eq!(
        v["hooks"]["Stop"][0]["hooks"][0]["command"],
        "notify-send done"
    );
    // Ours, one per event, with the absolute path.
    let ours = format!("{BIN} capture --format claude");
    for (event, matcher) in [
        ("PreToolUse", Some("Bash")),
        ("PostToolUse", Some("Bash")),
        ("PostToolUseFailure", Some("Bash")),
        ("UserPromptSubmit", None),
        ("SessionStart", None),
    ] {
        let groups = v["hooks"][event].as_array().expect(event);
        let mine: Vec<&Value> = groups
            .iter()
            .filter(|g| g["hooks"][0]["command"] == ours.as_str())
            .collect();
        assert_eq!(mine.len(), 1, "{event}");
        assert_eq!(
            mine[0].get("matcher").and_then(Value::as_str),
            matcher,
            "{event}"
        );
        assert_eq!(mine[0]["hooks"][0]["type"], "command");
    }
    assert!(
        after.contains("\n  \"model\": \"opus\",\n"),
        "2-space indentation"
    );

    // Second run: nothing to do.
    let again = plan_install(
        HookAgent::Claude,
        Scope::User,
        &e.home,
        &e.project,
        Path::new(BIN),
    )
    .expect("plan");
    assert!(!again.changes());
    assert!(again.diff.is_empty());
    assert_eq!(apply(&again).expect("apply"), None);
    assert_eq!(fs::read_to_string(&path).expect("read"), after);

    // Uninstall restores the original semantics.
    let un = plan_uninstall(HookAgent::Claude, Scope::User, &e.home, &e.project).expect("plan");
    apply(&un).expect("apply");
    let restored: Value =
        serde_json::from_str(&fs::read_to_string(&path).expect("read")).expect("json");
    let original: Value = serde_json::from_str(CLAUDE_SETTINGS).expect("json");
    assert_eq!(restored, original);
    assert_eq!(
        fs::read_to_string(&path).expect("read"),
        CLAUDE_SETTINGS,
        "byte-identical here"
    );
    // Uninstalling again changes nothing.
    let un = plan_uninstall(HookAgent::Claude, Scope::User, &e.home, &e.project).expect("plan");
    assert!(!un.changes());
}

#[test]
fn claude_install_creates_project_settings_and_updates_a_moved_binary() {
    let e = env();
    let plan = install(&e, HookAgent::Claude, Scope::Project);
    assert_eq!(plan.path, e.project.join(".claude/settings.json"));
    assert_eq!(plan.old, None);
    let text = fs::read_to_string(&plan.path).expect("read");
    assert!(text.ends_with("}\n"));

    let moved = plan_install(
        HookAgent::Claude,
        Scope::Project,
        &e.home,
        &e.project,
        Path::new("/home/me/.cargo/bin/learnsync"),
    )
    .expect("plan");
    assert!(moved.changes());
    apply(&moved).expect("apply");
    let text = fs::read_to_string(&plan.path).expect("read");
    assert!(!text.contains(BIN));
    assert_eq!(
        text.matches("/home/me/.cargo/bin/learnsync capture")
            .count(),
        5
    );

    // Removing everything learnsync added leaves an empty object.
    let un = plan_uninstall(HookAgent::Claude, Scope::Project, &e.home, &e.project).expect("plan");
    apply(&un).expect("apply");
    let v: Value =
        serde_json::from_str(&fs::read_to_string(&plan.path).expect("read")).expect("json");
    assert_eq!(v, serde_json::json!({}));
}

#[test]
fn claude_install_refuses_broken_json_and_leaves_it() {
    let e = env();
    let path = e.home.join(".claude/settings.json");
    fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    fs::write(&path, "{ \"model\": ").expect("write");
    let err = plan_install(
        HookAgent::Claude,
        Scope::User,
        &e.home,
        &e.project,
        Path::new(BIN),
    )
    .expect_err("broken JSON");
    assert!(err.to_string().contains("not valid JSON"), "{err}");
    assert_eq!(fs::read_to_string(&path).expect("read"), "{ \"model\": ");
}

#[test]
fn a_path_with_spaces_is_quoted_and_still_recognised() {
    let e = env();
    let bin = "/Users/Jane Doe/bin/learnsync";
    let plan = plan_install(
        HookAgent::Claude,
        Scope::User,
        &e.home,
        &e.project,
        Path::new(bin),
    )
    .expect("plan");
    apply(&plan).expect("apply");
    let text = fs::read_to_string(&plan.path).expect("read");
    assert!(
        text.contains("'/Users/Jane Doe/bin/learnsync' capture --format claude"),
        "{text}"
    );
    let again = plan_install(
        HookAgent::Claude,
        Scope::User,
        &e.home,
        &e.project,
        Path::new(bin),
    )
    .expect("plan");
    assert!(!again.changes());
}

const CODEX_CONFIG: &str = r#"# My Codex settings
model = "gpt-5-codex" # the default model
approval_policy = "on-request"

[features]
# keep web search on
web_search_request = true

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]

# A guard of my own
[[hooks.PreToolUse]]
matcher = "Bash"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "/usr/local/bin/guard.sh"
"#;

#[test]
fn codex_install_is_idempotent_keeps_comments_and_uninstalls_cleanly() {
    let e = env();
    let path = e.home.join(".codex/config.toml");
    fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    fs::write(&path, CODEX_CONFIG).expect("write");

    let plan = install(&e, HookAgent::Codex, Scope::User);
    assert_eq!(plan.path, path);
    assert!(
        plan.notes.iter().any(|n| n.contains("trust")),
        "{:?}",
        plan.notes
    );
    let after = fs::read_to_string(&path).expect("read");
    for kept in [
        "# My Codex settings",
        "model = \"gpt-5-codex\" # the default model",
        "# keep web search on",
        "[mcp_servers.docs]",
        "# A guard of my own",
        "command = \"/usr/local/bin/guard.sh\"",
    ] {
        assert!(after.contains(kept), "lost {kept:?} in:\n{after}");
    }
    let doc: toml_edit::DocumentMut = after.parse().expect("valid TOML");
    let ours = format!("{BIN} capture --format codex");
    for event in [
        "PreToolUse",
        "PostToolUse",
        "UserPromptSubmit",
        "SessionStart",
    ] {
        let groups = doc["hooks"][event].as_array_of_tables().expect(event);
        let n = groups
            .iter()
            .filter(|g| {
                g["hooks"]
                    .as_array_of_tables()
                    .is_some_and(|h| h.iter().any(|h| h["command"].as_str() == Some(&ours)))
            })
            .count();
        assert_eq!(n, 1, "{event}");
    }
    let notify: Vec<&str> = doc["notify"]
        .as_array()
        .expect("notify")
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert_eq!(notify, [BIN, "capture", "--format", "codex"]);
    // `notify` is a root key: it must come before the first table.
    let notify_at = after.find("notify =").expect("notify line");
    assert!(
        notify_at < after.find("[features]").expect("features"),
        "{after}"
    );

    let again = plan_install(
        HookAgent::Codex,
        Scope::User,
        &e.home,
        &e.project,
        Path::new(BIN),
    )
    .expect("plan");
    assert!(
        !again.changes(),
        "second install changes nothing:\n{}",
        again.diff
    );

    let un = plan_uninstall(HookAgent::Codex, Scope::User, &e.home, &e.project).expect("plan");
    apply(&un).expect("apply");
    let restored = fs::read_to_string(&path).expect("read");
    assert_eq!(
        restored, CODEX_CONFIG,
        "uninstall gives the original file back"
    );
    assert!(restored.contains("# A guard of my own"));
}

#[test]
fn codex_leaves_someone_elses_notify_alone() {
    let e = env();
    let path = e.project.join(".codex/config.toml");
    fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    let original = "notify = [\"python3\", \"/home/me/notify.py\"]\n";
    fs::write(&path, original).expect("write");
    let plan = install(&e, HookAgent::Codex, Scope::Project);
    assert!(
        plan.notes.iter().any(|n| n.contains("notify")),
        "{:?}",
        plan.notes
    );
    let after = fs::read_to_string(&path).expect("read");
    assert!(after.starts_with(original), "{after}");
    let un = plan_uninstall(HookAgent::Codex, Scope::Project, &e.home, &e.project).expect("plan");
    apply(&un).expect("apply");
    assert_eq!(fs::read_to_string(&path).expect("read"), original);
}

#[test]
fn opencode_plugin_is_written_once_and_removed_on_uninstall() {
    let e = env();
    let plan = install(&e, HookAgent::Opencode, Scope::User);
    let path = e.home.join(".config/opencode/plugins/learnsync.js");
    assert_eq!(plan.path, path);
    assert_eq!(
        target_path(HookAgent::Opencode, Scope::Project, &e.home, &e.project),
        e.project.join(".opencode/plugins/learnsync.js")
    );
    let js = fs::read_to_string(&path).expect("plugin written");
    assert!(
        js.contains(&format!("const LEARNSYNC_BIN = \"{BIN}\";")),
        "{js}"
    );
    assert!(js.contains("\"tool.execute.after\""));
    assert!(js.contains("\"--format\", \"opencode\""));
    assert!(!js.contains("__LEARNSYNC_BIN__"));

    let again = plan_install(
        HookAgent::Opencode,
        Scope::User,
        &e.home,
        &e.project,
        Path::new(BIN),
    )
    .expect("plan");
    assert!(!again.changes());

    let un = plan_uninstall(HookAgent::Opencode, Scope::User, &e.home, &e.project).expect("plan");
    assert_eq!(un.new, None);
    apply(&un).expect("apply");
    assert!(!path.exists());
}

#[test]
fn opencode_uninstall_keeps_a_plugin_learnsync_did_not_write() {
    let e = env();
    let path = e.project.join(".opencode/plugins/learnsync.js");
    fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    fs::write(&path, "export const Mine = async () => ({})\n").expect("write");
    let un =
        plan_uninstall(HookAgent::Opencode, Scope::Project, &e.home, &e.project).expect("plan");
    assert!(!un.changes());
    assert!(!un.notes.is_empty());
}

#[test]
fn apply_refuses_a_file_changed_after_planning() {
    let e = env();
    let plan = plan_install(
        HookAgent::Claude,
        Scope::User,
        &e.home,
        &e.project,
        Path::new(BIN),
    )
    .expect("plan");
    let path = e.home.join(".claude/settings.json");
    fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    fs::write(&path, "{}\n").expect("write");
    assert!(apply(&plan).is_err());
    assert_eq!(fs::read_to_string(&path).expect("read"), "{}\n");
}

/// What `hooks install claude` wrote before the context hooks: capture on
/// the three tool events only, beside the user's own guard.
const CLAUDE_OLD_INSTALL: &str = r#"{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/usr/local/bin/guard.sh"
          }
        ]
      },
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/opt/learnsync/bin/learnsync capture --format claude",
            "timeout": 10
          }
        ]
      }
    ],
    "PostToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/opt/learnsync/bin/learnsync capture --format claude",
            "timeout": 10
          }
        ]
      }
    ],
    "PostToolUseFailure": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/opt/learnsync/bin/learnsync capture --format claude",
            "timeout": 10
          }
        ]
      }
    ]
  }
}
"#;

#[test]
fn an_old_claude_install_gains_the_context_hooks_and_keeps_its_entries() {
    let e = env();
    let path = e.home.join(".claude/settings.json");
    fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    fs::write(&path, CLAUDE_OLD_INSTALL).expect("write");
    let plan = install(&e, HookAgent::Claude, Scope::User);
    assert!(plan.changes());
    // Only additions: the existing entries are not rewritten.
    let removed: Vec<&str> = plan
        .diff
        .lines()
        .filter(|l| l.starts_with('-') && !l.starts_with("---"))
        .collect();
    assert!(
        removed
            .iter()
            .all(|l| l.trim() == "-    ]" || l.trim() == "-  }"),
        "{}",
        plan.diff
    );
    let v: Value = serde_json::from_str(&fs::read_to_string(&path).expect("read")).expect("json");
    let ours = format!("{BIN} capture --format claude");
    let count = |event: &str| {
        v["hooks"][event].as_array().map_or(0, |groups| {
            groups
                .iter()
                .filter(|g| g["hooks"][0]["command"] == ours.as_str())
                .count()
        })
    };
    for event in [
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "UserPromptSubmit",
        "SessionStart",
    ] {
        assert_eq!(count(event), 1, "{event}");
    }
    assert!(v["hooks"]["SessionStart"][0].get("matcher").is_none());
    assert_eq!(
        v["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "/usr/local/bin/guard.sh"
    );
    let again = plan_install(
        HookAgent::Claude,
        Scope::User,
        &e.home,
        &e.project,
        Path::new(BIN),
    )
    .expect("plan");
    assert!(!again.changes(), "{}", again.diff);
    // Uninstall removes exactly learnsync's five entries: the guard stays.
    let un = plan_uninstall(HookAgent::Claude, Scope::User, &e.home, &e.project).expect("plan");
    apply(&un).expect("apply");
    let left: Value =
        serde_json::from_str(&fs::read_to_string(&path).expect("read")).expect("json");
    assert_eq!(
        left,
        serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "/usr/local/bin/guard.sh"}]}]}})
    );
}

/// What `hooks install codex` wrote before the context hooks.
const CODEX_OLD_INSTALL: &str = r#"model = "gpt-5-codex"
notify = ["/opt/learnsync/bin/learnsync", "capture", "--format", "codex"]

[[hooks.PreToolUse]]
matcher = "Bash"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "/opt/learnsync/bin/learnsync capture --format codex"
timeout = 10

[[hooks.PostToolUse]]
matcher = "Bash"

[[hooks.PostToolUse.hooks]]
type = "command"
command = "/opt/learnsync/bin/learnsync capture --format codex"
timeout = 10

[[hooks.Stop]]

[[hooks.Stop.hooks]]
type = "command"
command = "/home/me/bin/on-stop.sh"
"#;

#[test]
fn an_old_codex_install_gains_the_context_hooks_and_uninstalls_to_the_users_own() {
    let e = env();
    let path = e.home.join(".codex/config.toml");
    fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    fs::write(&path, CODEX_OLD_INSTALL).expect("write");
    let plan = install(&e, HookAgent::Codex, Scope::User);
    assert!(plan.changes());
    let after = fs::read_to_string(&path).expect("read");
    assert!(after.starts_with(CODEX_OLD_INSTALL.lines().next().expect("line")));
    let doc: toml_edit::DocumentMut = after.parse().expect("valid TOML");
    let ours = format!("{BIN} capture --format codex");
    for event in [
        "PreToolUse",
        "PostToolUse",
        "UserPromptSubmit",
        "SessionStart",
    ] {
        let n = doc["hooks"][event]
            .as_array_of_tables()
            .map_or(0, |groups| {
                groups
                    .iter()
                    .filter(|g| {
                        g["hooks"]
                            .as_array_of_tables()
                            .is_some_and(|h| h.iter().any(|h| h["command"].as_str() == Some(&ours)))
                    })
                    .count()
            });
        assert_eq!(n, 1, "{event}:\n{after}");
    }
    let again = plan_install(
        HookAgent::Codex,
        Scope::User,
        &e.home,
        &e.project,
        Path::new(BIN),
    )
    .expect("plan");
    assert!(!again.changes(), "{}", again.diff);
    let un = plan_uninstall(HookAgent::Codex, Scope::User, &e.home, &e.project).expect("plan");
    apply(&un).expect("apply");
    let left: toml_edit::DocumentMut = fs::read_to_string(&path)
        .expect("read")
        .parse()
        .expect("toml");
    assert!(left.get("notify").is_none());
    let events: Vec<&str> = left["hooks"]
        .as_table()
        .expect("hooks")
        .iter()
        .map(|(k, _)| k)
        .collect();
    assert_eq!(events, ["Stop"], "{left}");
    assert_eq!(
        left["hooks"]["Stop"][0]["hooks"][0]["command"].as_str(),
        Some("/home/me/bin/on-stop.sh")
    );
}
