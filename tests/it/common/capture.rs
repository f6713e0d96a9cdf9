//! `learnsync capture` driven as an agent's hook drives it: a payload on
//! stdin, the hook's contract (exit 0, nothing on stderr), the context a
//! Claude or Codex hook answers with, and the opencode plugin run by node
//! as opencode loads it. What each payload becomes is the `capture_*`
//! tests' business.

use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::{Value, json};

use super::sandbox::{Sandbox, json as parse_json, scrub, with_stdin};

/// Runs `learnsync [pre…] capture [args…]` with `stdin` piped in.
pub fn capture_raw(sb: &Sandbox, pre: &[&str], args: &[&str], stdin: &[u8]) -> Output {
    let mut all: Vec<&str> = pre.to_vec();
    all.push("capture");
    all.extend_from_slice(args);
    with_stdin(sb.cmd(&all), stdin)
}

/// Runs `learnsync [pre…] capture [args…]` with the JSON `payload` on stdin.
pub fn capture(sb: &Sandbox, pre: &[&str], args: &[&str], payload: &Value) -> Output {
    capture_raw(sb, pre, args, &serde_json::to_vec(payload).expect("json"))
}

/// `learnsync [pre…] capture` with `payload`, insisting on what a hook
/// must do: exit 0 and nothing on stderr.
pub fn capture_as_hook(sb: &Sandbox, pre: &[&str], payload: &Value) -> Output {
    let out = capture(sb, pre, &[], payload);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "",
        "stderr of {payload}"
    );
    out
}

/// A Claude Code hook payload: `event` of `session` for a Bash call of
/// `command` in `/home/dev/shop`.
pub fn claude_bash(session: &str, event: &str, command: &str) -> Value {
    json!({
        "session_id": session,
        "transcript_path": "/home/dev/.claude/projects/x.jsonl",
        "cwd": "/home/dev/shop",
        "hook_event_name": event,
        "tool_name": "Bash",
        "tool_input": {"command": command},
    })
}

/// The added context a Claude/Codex hook printed for `event`, or `None`
/// when it printed nothing; insists on exit 0 and a quiet stderr.
pub fn added_context(out: &Output, event: &str) -> Option<String> {
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "stderr");
    let stdout = String::from_utf8_lossy(&out.stdout);
    if stdout.is_empty() {
        return None;
    }
    assert_eq!(stdout.lines().count(), 1, "one JSON line: {stdout}");
    let v: Value = serde_json::from_str(&stdout).expect("stdout is JSON");
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], event, "{v}");
    Some(
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .expect("additionalContext")
            .to_string(),
    )
}

/// Whether `node` runs here: the opencode plugin's tests skip without it.
pub fn node_runs() -> bool {
    let runs = Command::new("node").arg("--version").output().is_ok();
    if !runs {
        eprintln!("node is not installed; the opencode plugin is not run");
    }
    runs
}

/// The plugin `hooks install opencode` writes, loaded by a node script as
/// opencode loads it.
pub struct OpencodePlugin<'a> {
    sb: &'a Sandbox,
    host: PathBuf,
    plugin: PathBuf,
}

impl<'a> OpencodePlugin<'a> {
    /// Installs the plugin in `sb` and writes `host`, the node script
    /// that loads it (its first argument is the plugin's path).
    pub fn install(sb: &'a Sandbox, host: &str) -> OpencodePlugin<'a> {
        sb.ok(&["hooks", "install", "opencode"]);
        // opencode loads plugins as ES modules; plain node wants the extension.
        let plugin = sb.root().join("learnsync.mjs");
        std::fs::copy(
            sb.home().join(".config/opencode/plugins/learnsync.js"),
            &plugin,
        )
        .expect("copy plugin");
        let script = sb.root().join("host.mjs");
        std::fs::write(&script, host).expect("host");
        OpencodePlugin {
            sb,
            host: script,
            plugin,
        }
    }

    /// Runs the host script with `arg` in the sandbox's environment; what
    /// it printed, as JSON.
    pub fn run(&self, arg: impl AsRef<OsStr>) -> Value {
        let mut node = Command::new("node");
        node.arg(&self.host).arg(&self.plugin).arg(arg);
        scrub(&mut node, self.sb.home());
        node.env("LEARNSYNC_DIR", self.sb.dir());
        let out = node.output().expect("run node");
        assert!(
            out.status.success(),
            "node: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        parse_json(&String::from_utf8_lossy(&out.stdout))
    }
}
