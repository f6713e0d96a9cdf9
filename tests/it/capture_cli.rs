//! `learnsync capture` driven like an agent's hook drives it: fixture payloads
//! of every format on stdin (or argv), into a real learnings dir, then `sync`
//! and `list --json` to see what became of them.

use crate::common;

use common::capture::{capture_raw, claude_bash};
use common::fixtures;
use common::learnings::events_text;
use common::{Sandbox, json};
use serde_json::Value;
use std::io::Write;
use std::path::PathBuf;
use std::process::Output;

/// A capture that must succeed silently: exit 0, nothing on stdout or stderr.
fn capture_quiet(sb: &Sandbox, stdin: &[u8]) {
    let out = capture_raw(sb, &[], &[], stdin);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "stderr");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "", "stdout");
}

fn init(sb: &Sandbox) {
    sb.ok(&["init", "--agent", "laptop"]);
}

fn by_command<'a>(items: &'a [Value], command: &str) -> &'a Value {
    items
        .iter()
        .find(|l| l["original_command"] == command)
        .unwrap_or_else(|| panic!("no learning for {command:?} in {items:#?}"))
}

fn inbox_files(sb: &Sandbox) -> Vec<PathBuf> {
    let dir = sb.dir().join(".git/learnsync/inbox");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    files
}

/// A Claude Code payload for a Bash call.
fn claude(session: &str, event: &str, command: &str, extra: Value) -> Vec<u8> {
    let mut v = claude_bash(session, event, command);
    if let (Value::Object(m), Value::Object(e)) = (&mut v, extra) {
        m.extend(e);
    }
    serde_json::to_vec(&v).expect("json")
}

#[test]
fn failures_from_every_agent_become_l0_learnings_with_their_context() {
    let sb = Sandbox::new();
    init(&sb);
    for name in [
        "claude_post_tool_use_failure.json",
        "opencode_failure.json",
        "terraphim_tool_result_failure.json",
        "codex_post_tool_use_exit_header.json",
    ] {
        capture_quiet(&sb, &fixtures::payload(name));
    }
    assert_eq!(inbox_files(&sb).len(), 4);
    sb.sync_offline();
    let items = sb.list();
    assert_eq!(items.len(), 4, "{items:#?}");
    for l in &items {
        assert_eq!(l["trust_level"], "L0");
        assert_eq!(l["source"], "bash_hook");
        assert_eq!(l["agent_id"], "laptop");
        assert_eq!(l["correction"], Value::Null);
    }
    let push = by_command(&items, "git push -f origin main");
    assert_eq!(push["session_id"], "9f2c1a4e-5b6d-4c3e-8f7a-1b2c3d4e5f60");
    assert_eq!(push["project"], "shop");
    assert_eq!(push["capture_agent"], "claude");
    let err = push["error_context"].as_str().expect("error_context");
    assert!(err.contains("protected branch hook declined"), "{err}");
    assert!(
        !err.contains("Exit code"),
        "the exit line is not error text: {err}"
    );
    assert!(
        push["title"]
            .as_str()
            .is_some_and(|t| t.starts_with("`git push -f origin main` failed: ")),
        "{push:#?}"
    );
    let docker = by_command(&items, "docker compose up -d db");
    assert_eq!(docker["capture_agent"], "opencode");
    assert!(
        docker["error_context"]
            .as_str()
            .is_some_and(|e| e.contains("port is already allocated"))
    );
    let npm = by_command(&items, "npm install --legacy-peer-deps");
    assert!(
        npm["error_context"]
            .as_str()
            .is_some_and(|e| e.contains("ERESOLVE"))
    );
    let cargo = by_command(&items, "cargo build --locked");
    assert_eq!(cargo["capture_agent"], "codex");
    common::git::assert_clean_and_sound(sb.dir(), sb.home());
}

#[test]
fn a_failing_chain_names_the_part_that_failed() {
    let sb = Sandbox::new();
    init(&sb);
    let payload = claude(
        "chain",
        "PostToolUseFailure",
        "cd web && npm run biuld",
        serde_json::json!({"error": "Exit code 1\nnpm ERR! Missing script: \"biuld\""}),
    );
    capture_quiet(&sb, &payload);
    sb.sync_offline();
    let items = sb.list();
    let l = by_command(&items, "cd web && npm run biuld");
    assert_eq!(l["failing_subcommand"], "npm run biuld");
}

#[test]
fn successes_ignored_test_runners_and_other_tools_write_nothing() {
    let sb = Sandbox::new();
    init(&sb);
    for name in [
        "claude_post_tool_use_success.json",
        "opencode_success.json",
        "claude_failure_ignored_test.json",
        "claude_non_bash_tool.json",
        "opencode_non_bash.json",
        "codex_post_tool_use.json",
        "claude_pre_tool_use.json",
        "codex_pre_tool_use.json",
    ] {
        capture_quiet(&sb, &fixtures::payload(name));
    }
    for runner in [
        "pytest -x tests/",
        "go test ./...",
        "npm test",
        "yarn test --watch=false",
    ] {
        capture_quiet(
            &sb,
            &claude(
                "s",
                "PostToolUseFailure",
                runner,
                serde_json::json!({"error": "Exit code 1\nFAILED"}),
            ),
        );
    }
    // A command the user interrupted is not a mistake.
    capture_quiet(
        &sb,
        &claude(
            "s",
            "PostToolUseFailure",
            "npm run dev",
            serde_json::json!({"error": "Exit code 130\n^C", "is_interrupt": true}),
        ),
    );
    assert_eq!(inbox_files(&sb), Vec::<PathBuf>::new());
    assert!(!sb.dir().join(".git/learnsync/sessions").exists());
}

#[test]
fn configured_ignore_patterns_replace_the_defaults() {
    let sb = Sandbox::new();
    init(&sb);
    let config = sb.dir().join(".git/learnsync/config.yaml");
    let mut text = std::fs::read_to_string(&config).expect("config");
    text.push_str("capture:\n  ignore: [\"make lint*\"]\n");
    std::fs::write(&config, text).expect("write config");
    let fail = |cmd: &str| {
        claude(
            "s",
            "PostToolUseFailure",
            cmd,
            serde_json::json!({"error": "Exit code 2\nerror: x"}),
        )
    };
    capture_quiet(&sb, &fail("make lint"));
    assert_eq!(inbox_files(&sb).len(), 0);
    capture_quiet(&sb, &fail("cargo test"));
    assert_eq!(inbox_files(&sb).len(), 1, "cargo test is no longer ignored");
}

const GITHUB_TOKEN: &str = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
const AWS_SECRET: &str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYq7Z2m9KLpT";
const GITEA_TOKEN: &str = "3f9a1c0e5b7d2f4a6c8e0b1d3f5a7c9e1b2d4f6a";

#[test]
fn secrets_in_command_and_output_never_reach_the_inbox_the_commit_or_the_log() {
    let sb = Sandbox::new();
    init(&sb);
    capture_quiet(&sb, &fixtures::payload("claude_failure_secrets.json"));
    let command = format!(
        "git clone https://deploy:{GITHUB_TOKEN}@github.com/team/shop.git && AWS_SECRET_ACCESS_KEY={AWS_SECRET} make deploy"
    );
    let payload = claude(
        "secrets",
        "PostToolUseFailure",
        &command,
        serde_json::json!({"error": format!(
            "Exit code 2\nusing token {GITHUB_TOKEN}\naws_secret_access_key = {AWS_SECRET}\nerror: deploy failed"
        )}),
    );
    capture_quiet(&sb, &payload);
    let files = inbox_files(&sb);
    assert_eq!(files.len(), 2);
    let secrets = [GITHUB_TOKEN, AWS_SECRET, GITEA_TOKEN];
    for f in &files {
        let text = std::fs::read_to_string(f).expect("inbox file");
        for s in secrets {
            assert!(!text.contains(s), "{s} in {}:\n{text}", f.display());
        }
        assert!(text.contains("[REDACTED:"), "{text}");
    }
    // Nor in the per-session memory or the index.
    for dir in ["sessions", ""] {
        let d = sb.dir().join(".git/learnsync").join(dir);
        for f in std::fs::read_dir(d).expect("state").flatten() {
            if f.path().is_file() {
                let text = std::fs::read_to_string(f.path()).unwrap_or_default();
                for s in secrets {
                    assert!(!text.contains(s), "{s} in {}", f.path().display());
                }
            }
        }
    }
    sb.sync_offline();
    let log = sb.git(&["log", "-p", "--all"]);
    let list = sb.ok(&["list", "--json"]);
    for s in secrets {
        assert!(!log.contains(s), "{s} in git log -p");
        assert!(!list.contains(s), "{s} in list --json");
    }
    assert!(log.contains("[REDACTED:"));
}

#[test]
fn a_fix_in_the_same_session_makes_the_failure_an_l1_learning() {
    let sb = Sandbox::new();
    init(&sb);
    capture_quiet(&sb, &fixtures::payload("claude_post_tool_use_failure.json"));
    // An unrelated success in between changes nothing.
    capture_quiet(
        &sb,
        &claude(
            "9f2c1a4e-5b6d-4c3e-8f7a-1b2c3d4e5f60",
            "PostToolUse",
            "git status",
            serde_json::json!({"tool_response": {"stdout": "", "stderr": ""}}),
        ),
    );
    capture_quiet(&sb, &fixtures::payload("claude_post_tool_use_success.json"));
    capture_quiet(&sb, &fixtures::payload("opencode_failure.json"));
    capture_quiet(&sb, &fixtures::payload("opencode_success.json"));
    sb.sync_offline();
    let items = sb.list();
    assert_eq!(items.len(), 2, "{items:#?}");
    let push = by_command(&items, "git push -f origin main");
    assert_eq!(push["trust_level"], "L1");
    assert_eq!(push["source"], "auto_extract");
    assert_eq!(
        push["correction"],
        "git push --force-with-lease origin main"
    );
    assert!(push["updated_at"].as_str() > push["captured_at"].as_str());
    let docker = by_command(&items, "docker compose up -d db");
    assert_eq!(docker["trust_level"], "L1");
    assert_eq!(
        docker["correction"],
        "docker compose up -d --remove-orphans db"
    );
}

#[test]
fn a_fix_after_a_sync_still_finds_its_failure() {
    let sb = Sandbox::new();
    init(&sb);
    capture_quiet(&sb, &fixtures::payload("claude_post_tool_use_failure.json"));
    sb.sync_offline();
    capture_quiet(&sb, &fixtures::payload("claude_post_tool_use_success.json"));
    sb.sync_offline();
    let items = sb.list();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["trust_level"], "L1");
    assert_eq!(
        items[0]["correction"],
        "git push --force-with-lease origin main"
    );
}

#[test]
fn the_same_command_succeeding_on_a_retry_is_no_correction() {
    let sb = Sandbox::new();
    init(&sb);
    capture_quiet(&sb, &fixtures::payload("claude_post_tool_use_failure.json"));
    capture_quiet(
        &sb,
        &claude(
            "9f2c1a4e-5b6d-4c3e-8f7a-1b2c3d4e5f60",
            "PostToolUse",
            "git push -f origin main",
            serde_json::json!({"tool_response": {"stdout": "", "stderr": ""}}),
        ),
    );
    sb.sync_offline();
    let items = sb.list();
    assert_eq!(items[0]["trust_level"], "L0");
}

#[test]
fn a_repeated_failure_records_recurred_instead_of_a_duplicate() {
    let sb = Sandbox::new();
    init(&sb);
    let first = fixtures::payload("claude_post_tool_use_failure.json");
    capture_quiet(&sb, &first);
    // Before a sync: the index capture keeps finds it.
    capture_quiet(&sb, &first);
    sb.sync_offline();
    // After a sync, from another session: the index sync rebuilt finds it.
    let again = String::from_utf8(first)
        .expect("utf-8")
        .replace("9f2c1a4e-5b6d-4c3e-8f7a-1b2c3d4e5f60", "another-session");
    capture_quiet(&sb, again.as_bytes());
    sb.sync_offline();
    let items = sb.list();
    assert_eq!(items.len(), 1, "{items:#?}");
    let id = items[0]["id"].as_str().expect("id");
    let events = events_text(sb.dir());
    let recurred: Vec<&str> = events
        .lines()
        .filter(|l| l.contains(id) && l.contains("\"outcome\":\"recurred\""))
        .collect();
    assert_eq!(recurred.len(), 2, "{events}");
}

#[test]
fn a_recurrence_in_another_session_is_fixed_there_before_any_sync() {
    let sb = Sandbox::new();
    init(&sb);
    let first = fixtures::payload("claude_post_tool_use_failure.json");
    capture_quiet(&sb, &first);
    let state = sb.dir().join(".git/learnsync");
    let log = state.join("capture-log.jsonl");
    assert_eq!(
        std::fs::read_to_string(&log)
            .expect("capture log")
            .lines()
            .count(),
        1,
        "one line per learning captured"
    );
    // A crash mid-append leaves a torn line: readers skip it.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&log)
        .expect("open log");
    f.write_all(b"{\"version\":2,\"failures\":{\"git")
        .expect("torn line");
    drop(f);
    // The same failure in a second session: a recurrence, found through the
    // log, whose session never saw the capture's inbox file...
    let other = |payload: &[u8]| {
        String::from_utf8(payload.to_vec())
            .expect("utf-8")
            .replace("9f2c1a4e-5b6d-4c3e-8f7a-1b2c3d4e5f60", "second-session")
    };
    capture_quiet(&sb, other(&first).as_bytes());
    // ...and still finds it waiting in the inbox when the fix comes.
    capture_quiet(
        &sb,
        other(&fixtures::payload("claude_post_tool_use_success.json")).as_bytes(),
    );
    sb.sync_offline();
    let items = sb.list();
    assert_eq!(items.len(), 1, "{items:#?}");
    assert_eq!(items[0]["trust_level"], "L1");
    assert_eq!(
        items[0]["correction"],
        "git push --force-with-lease origin main"
    );
    // The sync folded the log into the snapshot.
    assert!(!log.exists() || std::fs::read(&log).expect("log").is_empty());
    let snapshot = std::fs::read_to_string(state.join("capture-index.json")).expect("index");
    assert!(snapshot.contains(items[0]["id"].as_str().expect("id")));
}

#[test]
fn a_prompt_correction_attaches_to_the_failure_it_names() {
    let sb = Sandbox::new();
    init(&sb);
    capture_quiet(&sb, &fixtures::payload("claude_post_tool_use_failure.json"));
    capture_quiet(&sb, &fixtures::payload("claude_user_prompt_submit.json"));
    sb.sync_offline();
    let items = sb.list();
    assert_eq!(items.len(), 1, "{items:#?}");
    assert_eq!(items[0]["trust_level"], "L1");
    assert_eq!(items[0]["source"], "auto_extract");
    assert_eq!(items[0]["correction"], "git push --force-with-lease");
}

#[test]
fn a_prompt_correction_without_a_failure_becomes_its_own_learning() {
    let sb = Sandbox::new();
    init(&sb);
    // Codex's native PostToolUse cannot show a failure, so only the prompt says it.
    capture_quiet(&sb, &fixtures::payload("codex_post_tool_use.json"));
    capture_quiet(&sb, &fixtures::payload("codex_user_prompt_submit.json"));
    // A style preference is not a command.
    capture_quiet(
        &sb,
        br#"{"session_id":"s","hook_event_name":"UserPromptSubmit","prompt":"use tabs instead of spaces"}"#,
    );
    sb.sync_offline();
    let items = sb.list();
    assert_eq!(items.len(), 1, "{items:#?}");
    let l = by_command(&items, "pnpm run lint");
    assert_eq!(l["trust_level"], "L1");
    // The sentence's full stop ends the correction.
    assert_eq!(l["correction"], "pnpm exec eslint");
    assert_eq!(l["source"], "auto_extract");
}

fn warning(out: &Output) -> Option<String> {
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    if stdout.trim().is_empty() {
        return None;
    }
    let v = json(&stdout);
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    Some(
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .expect("additionalContext")
            .to_string(),
    )
}

#[test]
fn pre_tool_use_warns_about_a_known_l1_command_and_records_it_applied() {
    let sb = Sandbox::new();
    init(&sb);
    // Nothing known yet: silence.
    let pre = claude(
        "s2",
        "PreToolUse",
        "git push -f origin main",
        serde_json::json!({}),
    );
    assert_eq!(warning(&capture_raw(&sb, &[], &[], &pre)), None);
    capture_quiet(&sb, &fixtures::payload("claude_post_tool_use_failure.json"));
    // An L0 failure has no advice to give.
    assert_eq!(warning(&capture_raw(&sb, &[], &[], &pre)), None);
    capture_quiet(&sb, &fixtures::payload("claude_post_tool_use_success.json"));
    sb.sync_offline();
    let items = sb.list();
    let id = items[0]["id"].as_str().expect("id").to_string();

    let message = warning(&capture_raw(&sb, &[], &[], &pre)).expect("a warning");
    assert!(
        message.starts_with("This command failed before (learnsync)")
            && message.contains("Title: `git push -f origin main` failed"),
        "{message}"
    );
    assert!(
        message.contains("Correction: git push --force-with-lease origin main"),
        "{message}"
    );
    assert!(message.contains(&format!("- learning {id} (level L1, owner ")));
    // Codex gets the same JSON, also inside a chain.
    let codex = serde_json::json!({
        "session_id": "c", "turn_id": "1", "hook_event_name": "PreToolUse", "model": "gpt-5-codex",
        "tool_name": "Bash", "tool_input": {"command": "cd shop && git push -f origin main"}
    });
    let codex = serde_json::to_vec(&codex).expect("json");
    assert!(warning(&capture_raw(&sb, &[], &[], &codex)).is_some());
    // The fix itself and unrelated commands: nothing.
    for command in ["git push --force-with-lease origin main", "ls -la"] {
        let other = claude("s2", "PreToolUse", command, serde_json::json!({}));
        assert_eq!(
            warning(&capture_raw(&sb, &[], &[], &other)),
            None,
            "{command}"
        );
    }
    sb.sync_offline();
    let applied = events_text(sb.dir())
        .lines()
        .filter(|l| l.contains(&id) && l.contains("\"outcome\":\"applied\""))
        .count();
    assert_eq!(applied, 2);
    let items = sb.list();
    assert_eq!(items[0]["quality"]["applied_count"], 2);
}

/// Exit 0, nothing on stdout, exactly one line on stderr that mentions `what`.
fn assert_one_line(out: &Output, what: &str) {
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr:?}");
    assert!(stderr.starts_with("learnsync: capture: "), "{stderr:?}");
    assert!(stderr.contains(what), "{stderr:?} should mention {what:?}");
}

#[test]
fn broken_input_exits_zero_with_one_line_on_stderr() {
    let sb = Sandbox::new();
    init(&sb);
    assert_one_line(
        &capture_raw(&sb, &[], &[], &fixtures::payload("broken.json")),
        "not valid JSON",
    );
    assert_one_line(&capture_raw(&sb, &[], &[], b""), "empty payload");
    assert_one_line(&capture_raw(&sb, &[], &[], b"  \n"), "empty payload");
    assert_one_line(
        &capture_raw(&sb, &[], &[], b"\xff\xfe{\"a\":1}"),
        "not valid JSON",
    );
    let mut non_utf8 = claude(
        "s",
        "PostToolUseFailure",
        "make",
        serde_json::json!({"error": "Exit code 2\nX"}),
    );
    let at = non_utf8.iter().position(|&b| b == b'X').expect("X");
    non_utf8[at] = 0xff;
    assert_one_line(&capture_raw(&sb, &[], &[], &non_utf8), "not valid JSON");
    let huge = vec![b' '; 20 * 1024 * 1024];
    assert_one_line(&capture_raw(&sb, &[], &[], &huge), "16 MiB");
    assert_one_line(
        &capture_raw(&sb, &[], &["--format", "yaml"], b"{}"),
        "--format",
    );
    assert_one_line(
        &capture_raw(&sb, &[], &["--event", "Stop"], b"{}"),
        "--event",
    );
    assert_one_line(
        &capture_raw(&sb, &[], &["--no-such-flag"], b"{}"),
        "no-such-flag",
    );
    assert_one_line(
        &capture_raw(&sb, &[], &["--agent", "../x"], b"{}"),
        "--agent",
    );
    assert_eq!(inbox_files(&sb), Vec::<PathBuf>::new());
}

#[test]
fn a_missing_learnings_dir_or_a_broken_config_costs_one_line_not_the_agent() {
    let sb = Sandbox::new();
    // No init: the dir does not exist.
    let out = capture_raw(
        &sb,
        &[],
        &[],
        &fixtures::payload("claude_post_tool_use_failure.json"),
    );
    assert_one_line(&out, "learnsync init");
    init(&sb);
    std::fs::write(
        sb.dir().join(".git/learnsync/config.yaml"),
        "agent: [not, a, name]\n",
    )
    .expect("break the config");
    let out = capture_raw(
        &sb,
        &[],
        &[],
        &fixtures::payload("claude_post_tool_use_failure.json"),
    );
    assert_one_line(&out, "config");
    // A success needs no config at all.
    capture_quiet(&sb, &fixtures::payload("claude_post_tool_use_success.json"));
}

#[test]
fn a_few_mib_payload_is_captured_with_truncation_markers() {
    let sb = Sandbox::new();
    init(&sb);
    let line = "warning: unused variable `x` in a very long build log line\n";
    let mut error =
        String::from("Exit code 1\nerror[E0425]: cannot find value `y` in this scope\n");
    while error.len() < 3 * 1024 * 1024 {
        error.push_str(line);
    }
    error.push_str("error: could not compile `shop` due to 1 previous error\n");
    let long_command = format!("cargo build --features {}", "a,".repeat(5000));
    let payload = claude(
        "big",
        "PostToolUseFailure",
        &long_command,
        serde_json::json!({"error": error}),
    );
    assert!(payload.len() > 3 * 1024 * 1024);
    capture_quiet(&sb, &payload);
    sb.sync_offline();
    let items = sb.list();
    assert_eq!(items.len(), 1);
    let err = items[0]["error_context"].as_str().expect("error_context");
    assert!(err.len() < 5 * 1024, "{} bytes kept", err.len());
    assert!(err.contains("…[truncated "), "no marker");
    assert!(err.starts_with("error[E0425]"), "head kept");
    assert!(
        err.trim_end().ends_with("due to 1 previous error"),
        "tail kept"
    );
    let cmd = items[0]["original_command"].as_str().expect("command");
    assert!(cmd.len() < 3 * 1024 && cmd.contains("…[truncated "));
}

#[test]
fn codex_notify_passes_its_payload_as_the_last_argument() {
    let sb = Sandbox::new();
    init(&sb);
    let notify = String::from_utf8(fixtures::payload("codex_notify_agent_turn_complete.json"))
        .expect("utf-8");
    let out = sb.run(&["capture", "--format", "codex", notify.trim()]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    // A hook payload given the same way is handled like stdin.
    let failure = String::from_utf8(fixtures::payload("codex_post_tool_use_exit_header.json"))
        .expect("utf-8");
    let out = sb.run(&["capture", "--format", "codex", &failure]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(inbox_files(&sb).len(), 1);
}

#[test]
fn the_event_flag_overrides_what_the_payload_says() {
    let sb = Sandbox::new();
    init(&sb);
    // A terraphim-style payload without hook_event_name, told it is a failure event.
    let payload = br#"{"session_id":"t","cwd":"/w/app","tool_name":"Bash","tool_input":{"command":"make deploy"},"tool_result":{"exit_code":2,"stdout":"","stderr":"make: *** No rule to make target 'deploy'.  Stop."}}"#;
    let out = capture_raw(&sb, &[], &["--event", "post-tool-use-failure"], payload);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(inbox_files(&sb).len(), 1);
}

/// Adds an L1 learning about `npm publish` by hand; returns its id.
fn add_npm_publish(sb: &Sandbox) -> String {
    let out = sb.ok(&[
        "add",
        "--title",
        "npm publish needs the OTP",
        "--command",
        "npm publish",
        "--correction",
        "npm publish --otp $CODE",
    ]);
    out.split_whitespace()
        .find(|w| w.starts_with("learning-"))
        .unwrap_or_else(|| panic!("no id in {out:?}"))
        .trim_end_matches(|c: char| !c.is_ascii_alphanumeric())
        .to_string()
}

#[test]
fn the_warnings_follow_what_each_sync_changed() {
    let sb = Sandbox::new();
    init(&sb);
    sb.sync_offline(); // the first sync writes the capture index snapshot
    let pre = claude("s3", "PreToolUse", "npm publish", serde_json::json!({}));
    assert_eq!(warning(&capture_raw(&sb, &[], &[], &pre)), None);
    let id = add_npm_publish(&sb);
    // The sync after the add updates the snapshot from the paths it changed.
    sb.sync_offline();
    let message = warning(&capture_raw(&sb, &[], &[], &pre)).expect("a warning after the sync");
    assert!(message.contains("npm publish --otp"), "{message}");
    // A learning deleted by hand: the next sync takes its advice away.
    let file = sb.dir().join("laptop").join(format!("{id}.md"));
    std::fs::remove_file(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    sb.sync_offline();
    assert_eq!(warning(&capture_raw(&sb, &[], &[], &pre)), None);
}

#[test]
fn a_sync_appends_to_the_capture_log_and_folds_it_once_it_outgrows_the_snapshot() {
    let sb = Sandbox::new();
    init(&sb);
    sb.sync_offline();
    let state = sb.dir().join(".git/learnsync");
    let log = state.join("capture-log.jsonl");
    let snapshot = std::fs::read(state.join("capture-index.json")).expect("snapshot");
    let id = add_npm_publish(&sb);
    sb.sync_offline();
    // A small change is one log line; the snapshot is not rewritten.
    assert_eq!(
        std::fs::read(state.join("capture-index.json")).expect("snapshot"),
        snapshot
    );
    let logged = std::fs::read_to_string(&log).expect("log");
    assert!(
        logged.contains(&format!("\"forget\":[\"{id}\"]")),
        "{logged}"
    );
    let pre = claude("s4", "PreToolUse", "npm publish", serde_json::json!({}));
    let message = warning(&capture_raw(&sb, &[], &[], &pre)).expect("warned");
    assert!(message.contains("npm publish --otp $CODE"), "{message}");

    // Captures fill the log past 256 KiB (what a busy day of hooks writes).
    let mut padding = String::new();
    for n in 0..3000 {
        padding.push_str(&format!(
            "{{\"version\":7,\"warnings\":{{\"make pad{n}\":[{{\"id\":\"learning-pad{n}\",\"title\":\"pad\",\"correction\":\"make fixed{n}\"}}]}}}}\n"
        ));
    }
    std::fs::OpenOptions::new()
        .append(true)
        .open(&log)
        .and_then(|mut f| std::io::Write::write_all(&mut f, padding.as_bytes()))
        .expect("pad the log");

    // The next change folds everything into a new snapshot.
    let file = sb.dir().join("laptop").join(format!("{id}.md"));
    let text = std::fs::read_to_string(&file).expect("learning");
    std::fs::write(&file, text.replace("--otp $CODE", "--otp $OTP")).expect("edit");
    sb.sync_offline();
    assert!(!log.exists() || std::fs::metadata(&log).expect("log").len() < 1024);
    assert_ne!(
        std::fs::read(state.join("capture-advice.json")).expect("advice"),
        snapshot
    );
    let message = warning(&capture_raw(&sb, &[], &[], &pre)).expect("still warned");
    assert!(message.contains("npm publish --otp $OTP"), "{message}");
    assert!(
        !message.contains("$CODE"),
        "the old correction is forgotten"
    );
    let padded = claude("s4", "PreToolUse", "make pad2999", serde_json::json!({}));
    assert!(
        warning(&capture_raw(&sb, &[], &[], &padded)).is_some(),
        "folded in"
    );

    // And after the fold, a deletion is a log line again.
    std::fs::remove_file(&file).expect("delete");
    sb.sync_offline();
    assert_eq!(warning(&capture_raw(&sb, &[], &[], &pre)), None);
}

#[test]
fn opencode_payloads_spread_into_one_object_are_captured_like_our_plugins() {
    // A user switching from terraphim's opencode integration: its payloads
    // put opencode's two hook arguments side by side in one object.
    let sb = Sandbox::new();
    init(&sb);
    capture_quiet(&sb, &fixtures::payload("opencode_spread_failure.json"));
    capture_quiet(
        &sb,
        &fixtures::payload("opencode_spread_metadata_only.json"),
    );
    for format in [&["--format", "opencode"][..], &[]] {
        let out = capture_raw(
            &sb,
            &[],
            format,
            &fixtures::payload("opencode_spread_before.json"),
        );
        assert!(out.status.success());
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    sb.sync_offline();
    let items = sb.list();
    assert_eq!(items.len(), 2, "{items:#?}");
    let docker = by_command(&items, "docker compose up -d db");
    assert_eq!(docker["capture_agent"], "opencode");
    assert_eq!(docker["trust_level"], "L0");
    assert!(
        docker["error_context"]
            .as_str()
            .is_some_and(|e| e.contains("port is already allocated")),
        "{docker:#}"
    );
    let make = by_command(&items, "make release");
    assert!(
        make["error_context"]
            .as_str()
            .is_some_and(|e| e.contains("No rule to make target"))
    );
}
