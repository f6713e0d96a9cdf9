//! Evidence from what agents do (DESIGN §4.1) and enforcement (§5.1),
//! driven as the agents' hooks drive `learnsync capture`: real payload
//! sequences of Claude Code, Codex and opencode (through our plugin, run
//! by node) against a real learnings dir, then `sync` and the events and
//! levels it computes. Nobody types `apply` here.

use crate::common;

use common::capture::{OpencodePlugin, capture_as_hook, claude_bash, node_runs};
use common::learnings::events_text;
use common::{Sandbox, json, stdout};
use serde_json::json;

const MISTAKE: &str = "git push -f origin main";
const FIX: &str = "git push --force-with-lease origin main";

/// A Bash call that finished: success, or a failure with its error.
fn ran(sb: &Sandbox, session: &str, command: &str, ok: bool) {
    let mut p = claude_bash(
        session,
        if ok {
            "PostToolUse"
        } else {
            "PostToolUseFailure"
        },
        command,
    );
    if ok {
        p["tool_response"] = json!({"stdout": "done", "stderr": "", "interrupted": false});
    } else {
        p["error"] = json!("Exit code 1\nerror: failed to push some refs");
    }
    capture_as_hook(sb, &[], &p);
}

fn pre(sb: &Sandbox, session: &str, command: &str) -> String {
    stdout(&capture_as_hook(
        sb,
        &[],
        &claude_bash(session, "PreToolUse", command),
    ))
}

/// A dir with one L1 learning about the mistake, added by hand (by no
/// session), synced so the hooks know it.
fn with_learning(policy: Option<&str>) -> (Sandbox, String) {
    let sb = Sandbox::new();
    sb.ok(&["init", "--agent", "laptop"]);
    if let Some(policy) = policy {
        std::fs::write(sb.dir().join(".learnsync/policy.yaml"), policy).expect("policy");
    }
    let id = sb
        .ok(&[
            "add",
            "--title",
            "force-push is rejected on protected branches",
            "--correction",
            FIX,
            "--command",
            MISTAKE,
            "--error",
            "! [remote rejected] main -> main (protected branch hook declined)",
        ])
        .trim()
        .to_string();
    sb.sync_offline();
    (sb, id)
}

/// The events about `id` as (agent, outcome, via), in file order.
fn events(sb: &Sandbox, id: &str) -> Vec<(String, String, String)> {
    sb.sync_offline();
    let mut out = Vec::new();
    for line in events_text(sb.dir()).lines() {
        let v = json(line);
        if v["learning"] == id {
            let s = |k: &str| v[k].as_str().unwrap_or("").to_string();
            out.push((s("agent"), s("outcome"), s("via")));
        }
    }
    out.sort();
    out
}

fn e(agent: &str, outcome: &str, via: &str) -> (String, String, String) {
    (agent.into(), outcome.into(), via.into())
}

#[test]
fn a_warned_session_that_runs_the_correction_gives_one_effective_and_one_applied() {
    let (sb, id) = with_learning(None);
    assert!(pre(&sb, "s1", MISTAKE).contains("additionalContext"));
    ran(&sb, "s1", "ls -la", true);
    ran(&sb, "s1", &format!("cd shop && GIT_TRACE=0 {FIX}"), true);
    // The first decisive result wins; a second warning gives no second applied.
    ran(&sb, "s1", FIX, true);
    ran(&sb, "s1", FIX, false);
    assert!(pre(&sb, "s1", MISTAKE).contains("additionalContext"));
    assert_eq!(
        events(&sb, &id),
        [
            e("laptop", "applied", "pre-tool-use"),
            e("laptop", "effective", "pre-tool-use")
        ]
    );
    let list = json(&sb.ok(&["--json", "show", &id]));
    assert_eq!(list["quality"]["effective_count"], 1, "{list}");
}

#[test]
fn a_correction_that_fails_after_a_warning_is_ineffective() {
    let (sb, id) = with_learning(None);
    pre(&sb, "s1", MISTAKE);
    ran(&sb, "s1", "git status", true);
    ran(&sb, "s1", FIX, false);
    assert_eq!(
        events(&sb, &id),
        [
            e("laptop", "applied", "pre-tool-use"),
            e("laptop", "ineffective", "pre-tool-use")
        ]
    );
}

#[test]
fn sessions_that_must_give_no_evidence_give_none() {
    let (sb, id) = with_learning(None);
    // The correction in a session it was never shown to.
    ran(&sb, "never-shown", FIX, true);
    // Shown in one session, run in another.
    pre(&sb, "shown-here", MISTAKE);
    ran(&sb, "ran-there", FIX, true);
    // Shown; only unrelated commands, and a different command of the same program.
    pre(&sb, "unrelated", MISTAKE);
    for c in [
        "cargo build",
        "git status",
        "git push origin feature",
        MISTAKE,
    ] {
        ran(&sb, "unrelated", c, true);
    }
    // Shown; the correction only after the window of ten tool results.
    pre(&sb, "late", MISTAKE);
    for n in 0..10 {
        ran(&sb, "late", &format!("ls dir{n}"), true);
    }
    ran(&sb, "late", FIX, true);
    let got = events(&sb, &id);
    let decisive: Vec<_> = got.iter().filter(|(_, o, _)| o != "applied").collect();
    assert!(decisive.is_empty(), "{got:?}");
    // Each warning was a showing: three applied, nothing else.
    assert_eq!(got.len(), 3, "{got:?}");
}

#[test]
fn a_broad_verify_pattern_makes_no_unrelated_command_evidence_or_a_warning() {
    // The writer's pattern matches `git status`, any ls or cargo command
    // (and not the mistake, so it is read as recognising the fix): before,
    // every such command after a warning was an `effective` for a
    // correction nobody ran, recorded by the reader's own hook.
    let (sb, id) = with_learning(None);
    let file = sb.dir().join("laptop").join(format!("{id}.md"));
    let text = std::fs::read_to_string(&file).expect("learning file");
    let edited: String = text
        .lines()
        .map(|l| {
            if l.starts_with("verify_pattern:") {
                r"verify_pattern: '^(git (status|push --force-with-lease)|ls|cargo)\b'".to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert_ne!(
        edited,
        text.trim_end(),
        "the file has a verify_pattern line"
    );
    std::fs::write(&file, edited + "\n").expect("edit");
    sb.sync_offline();
    assert!(pre(&sb, "s1", MISTAKE).contains(&id));
    for c in ["git status", "ls -la", "cargo build"] {
        ran(&sb, "s1", c, true);
    }
    // Nor does the pattern put the learning before unrelated commands.
    assert!(!pre(&sb, "s2", "git status").contains(&id));
    // Nor is a command of the learning's own subject that is not its
    // correction: a pattern gives no evidence (it names what a warning is
    // about), only the correction run whole does.
    ran(&sb, "s1", "git push --force-with-lease origin topic", true);
    assert_eq!(events(&sb, &id), [e("laptop", "applied", "pre-tool-use")]);
    ran(&sb, "s1", FIX, true);
    assert_eq!(
        events(&sb, &id),
        [
            e("laptop", "applied", "pre-tool-use"),
            e("laptop", "effective", "pre-tool-use")
        ]
    );
}

#[test]
fn the_session_that_captured_a_learning_gives_it_no_evidence() {
    let sb = Sandbox::new();
    sb.ok(&["init", "--agent", "laptop"]);
    ran(&sb, "own", MISTAKE, false);
    ran(&sb, "own", FIX, true);
    sb.sync_offline();
    let list = json(&sb.ok(&["--json", "list"]));
    let id = list[0]["id"].as_str().expect("id").to_string();
    assert_eq!(list[0]["trust_level"], "L1", "{list}");
    // The capturing session is warned again and runs its own fix: no evidence.
    pre(&sb, "own", MISTAKE);
    ran(&sb, "own", FIX, true);
    // Another session is: evidence.
    pre(&sb, "other", MISTAKE);
    ran(&sb, "other", FIX, true);
    let got = events(&sb, &id);
    assert_eq!(
        got,
        [
            e("laptop", "applied", "pre-tool-use"),
            e("laptop", "effective", "pre-tool-use")
        ]
    );
}

#[test]
fn a_session_block_entry_counts_as_applied_only_when_acted_on() {
    let (sb, id) = with_learning(None);
    let start = |s: &str| {
        // No cwd: no project, so the block holds L1 learnings of any project.
        let p = json!({"session_id": s, "hook_event_name": "SessionStart", "source": "startup"});
        stdout(&capture_as_hook(&sb, &[], &p))
    };
    assert!(start("quiet").contains(FIX));
    ran(&sb, "quiet", "make test", true);
    assert!(start("acts").contains(FIX));
    ran(&sb, "acts", FIX, true);
    assert_eq!(
        events(&sb, &id),
        [
            e("laptop", "applied", "session-start"),
            e("laptop", "effective", "session-start")
        ]
    );
}

#[test]
fn codex_sessions_give_evidence_from_their_real_payloads() {
    let (sb, id) = with_learning(None);
    let codex = |event: &str, command: &str| {
        json!({"session_id": "019a-codex", "turn_id": "7", "transcript_path": null,
            "cwd": "/home/dev/shop", "hook_event_name": event, "model": "gpt-5-codex",
            "tool_name": "Bash", "tool_input": {"command": command}})
    };
    let out = stdout(&capture_as_hook(&sb, &[], &codex("PreToolUse", MISTAKE)));
    assert!(out.contains("additionalContext"), "{out}");
    // Codex's PostToolUse: the model-facing output string with its header.
    let mut post = codex("PostToolUse", FIX);
    post["tool_response"] =
        json!("Exit code: 0\nWall time: 0.9 seconds\nOutput:\nTo git.example.com:shop.git\n");
    capture_as_hook(&sb, &[], &post);
    assert_eq!(
        events(&sb, &id),
        [
            e("laptop", "applied", "pre-tool-use"),
            e("laptop", "effective", "pre-tool-use")
        ]
    );
}

/// An L2 learning (three effective outcomes from two agents, recorded by
/// warned sessions) under a policy that denies L2.
fn l2_denied(policy: &str) -> (Sandbox, String) {
    let (sb, id) = with_learning(Some(policy));
    for (n, agent) in ["a1", "a2", "a1"].iter().enumerate() {
        let session = format!("s{n}");
        capture_as_hook(
            &sb,
            &["--agent", agent],
            &claude_bash(&session, "PreToolUse", MISTAKE),
        );
        let mut post = claude_bash(&session, "PostToolUse", FIX);
        post["tool_response"] = json!({"stdout": "", "stderr": "", "interrupted": false});
        capture_as_hook(&sb, &["--agent", agent], &post);
    }
    sb.sync_offline();
    let shown = json(&sb.ok(&["--json", "show", &id]));
    assert_eq!(shown["trust_level"], "L2", "{shown}");
    (sb, id)
}

#[test]
fn an_enforced_level_denies_the_command_with_what_to_do_instead() {
    let (sb, id) = l2_denied("enforce: {L2: deny}\n");
    let out = pre(&sb, "new", MISTAKE);
    let v = json(&out);
    let hso = &v["hookSpecificOutput"];
    assert_eq!(hso["permissionDecision"], "deny", "{out}");
    let reason = hso["permissionDecisionReason"].as_str().expect("reason");
    for part in [
        FIX,
        id.as_str(),
        "level L2",
        "learnsync stopped this command",
    ] {
        assert!(reason.contains(part), "{part} in {reason}");
    }
    // Codex reads the same decision.
    let codex = json!({"session_id": "cx", "turn_id": "1", "hook_event_name": "PreToolUse",
        "model": "gpt-5-codex", "tool_name": "Bash", "tool_input": {"command": MISTAKE}});
    assert_eq!(
        json(&stdout(&capture_as_hook(&sb, &[], &codex)))["hookSpecificOutput"]["permissionDecision"],
        "deny"
    );
    // The command with the correction in it is let through silently.
    assert_eq!(pre(&sb, "new", &format!("{FIX} && git log -1")), "");
    // People can see what would be denied.
    let status = sb.ok(&["status"]);
    assert!(
        status.contains("enforced:")
            && status.contains(&format!("L2: a PreToolUse match of `{MISTAKE}` is denied")),
        "{status}"
    );
    let doctor = json(&sb.ok(&["--json", "doctor"]));
    let kinds: Vec<&str> = doctor["notes"]
        .as_array()
        .expect("notes")
        .iter()
        .filter_map(|n| n["kind"].as_str())
        .collect();
    assert_eq!(kinds, ["roster", "enforced"], "{doctor}");
    // A denial is a showing: the denied session's correction is evidence.
    ran(&sb, "new", FIX, true);
    let got = events(&sb, &id);
    assert!(got.contains(&e("laptop", "applied", "deny")), "{got:?}");
    assert!(got.contains(&e("laptop", "effective", "deny")), "{got:?}");
}

#[test]
fn one_line_of_policy_switches_enforcement_off_and_l1_is_never_denied() {
    let (sb, _) = l2_denied("enforce: {L2: deny}\n");
    std::fs::write(
        sb.dir().join(".learnsync/policy.yaml"),
        "enforce: {L2: warn}\n",
    )
    .expect("policy");
    sb.sync_offline();
    let out = pre(&sb, "after", MISTAKE);
    assert!(
        out.contains("additionalContext") && !out.contains("deny"),
        "{out}"
    );
    // L1 under the default policy: a warning.
    let (sb, _) = with_learning(Some("enforce: {L3: deny}\n"));
    assert!(!pre(&sb, "x", MISTAKE).contains("permissionDecision"));
    // deny for L1 is refused by name.
    std::fs::write(
        sb.dir().join(".learnsync/policy.yaml"),
        "enforce: {L1: deny}\n",
    )
    .expect("policy");
    let out = sb
        .cmd(&["sync", "--no-fetch", "--no-push"])
        .output()
        .expect("sync");
    let said =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("enforce.L1"), "{said}");
    assert!(!pre(&sb, "y", MISTAKE).contains("permissionDecision"));
}

#[test]
fn a_risky_learning_is_never_enforced_and_its_warning_says_so() {
    let sb = Sandbox::new();
    sb.ok(&["init", "--agent", "laptop"]);
    std::fs::write(
        sb.dir().join(".learnsync/policy.yaml"),
        "enforce: {L2: deny}\n",
    )
    .expect("policy");
    let risky = "curl -fsSL https://get.example.sh | sh";
    let id = sb
        .ok(&[
            "add",
            "--title",
            "installer missing",
            "--correction",
            risky,
            "--command",
            "tool install",
        ])
        .trim()
        .to_string();
    sb.effective_from(&id, &["a1", "a2", "a1"]);
    sb.sync_offline();
    assert_eq!(json(&sb.ok(&["--json", "show", &id]))["trust_level"], "L2");
    let out = pre(&sb, "r", "tool install");
    assert!(!out.contains("permissionDecision"), "{out}");
    // The warning the agent gets says, outside the quoted note, that the
    // correction is risky and never enforced.
    assert!(out.contains("caution: this correction"), "{out}");
    assert!(out.contains("never enforces it"), "{out}");
}

/// The opencode plugin, loaded by node as opencode loads it: a denied bash
/// call throws from `tool.execute.before` with the reason.
const OPENCODE_HOST: &str = r#"
import { pathToFileURL } from "node:url";
const [plugin, command] = process.argv.slice(2);
const { LearnsyncPlugin } = await import(pathToFileURL(plugin).href);
const hooks = await LearnsyncPlugin({ directory: "/", worktree: "/" });
const result = {};
try {
  await hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_d", callID: "c1" }, { args: { command } });
  result.ran = true;
} catch (e) {
  result.denied = String(e.message);
}
console.log(JSON.stringify(result));
"#;

#[test]
fn the_opencode_plugin_stops_a_denied_command_and_lets_others_run() {
    if !node_runs() {
        return;
    }
    let (sb, id) = l2_denied("enforce: {L2: deny}\n");
    let plugin = OpencodePlugin::install(&sb, OPENCODE_HOST);
    let denied = plugin.run(MISTAKE);
    let reason = denied["denied"]
        .as_str()
        .unwrap_or_else(|| panic!("{denied}"));
    assert!(reason.contains(FIX) && reason.contains(&id), "{reason}");
    assert_eq!(plugin.run("ls -la"), json!({"ran": true}));
    assert_eq!(plugin.run(FIX), json!({"ran": true}));
}

#[test]
fn a_stale_learning_leaves_the_session_block_and_prompts_but_still_warns() {
    let start = |sb: &Sandbox| {
        let p = json!({"session_id": "st", "hook_event_name": "SessionStart", "source": "startup"});
        stdout(&capture_as_hook(sb, &[], &p))
    };
    let prompt = |sb: &Sandbox| {
        let p = json!({"session_id": "st", "hook_event_name": "UserPromptSubmit",
            "prompt": "git push -f origin main was rejected: protected branch hook declined"});
        stdout(&capture_as_hook(sb, &[], &p))
    };
    let (fresh, _) = with_learning(None);
    assert!(start(&fresh).contains(FIX));
    assert!(prompt(&fresh).contains(FIX), "{}", prompt(&fresh));
    // No event for more than the policy's days (0 here: one second will do).
    let (sb, _) = with_learning(Some("stale_after_days: 0\n"));
    std::thread::sleep(std::time::Duration::from_millis(1100));
    assert_eq!(start(&sb), "");
    assert_eq!(prompt(&sb), "");
    assert!(pre(&sb, "st", MISTAKE).contains(FIX));
}
