//! What `learnsync capture` tells an agent, driven like its hooks drive it:
//! `SessionStart` answers with the session's learnings, `UserPromptSubmit`
//! with a confident match for the prompt (and nothing otherwise), and the
//! `PreToolUse` warning — all for the agent the learnings apply to.

use crate::common;

use common::Sandbox;
use common::capture::{added_context, capture, claude_bash};
use common::fixtures::search_corpus;
use serde_json::{Value, json};
use std::process::Output;

fn session_start(cwd: &str) -> Value {
    json!({
        "session_id": "9f2c1a4e-5b6d-4c3e-8f7a-1b2c3d4e5f60",
        "transcript_path": "/home/dev/.claude/projects/x.jsonl",
        "cwd": cwd,
        "hook_event_name": "SessionStart",
        "source": "startup",
    })
}

fn codex_session_start(cwd: &str) -> Value {
    json!({
        "session_id": "019a7c3e-1f2d-7b4a-9c8e-5d6f7a8b9c0d",
        "cwd": cwd, "hook_event_name": "SessionStart", "model": "gpt-5-codex", "source": "startup",
    })
}

fn prompt(text: &str) -> Value {
    json!({
        "session_id": "9f2c1a4e-5b6d-4c3e-8f7a-1b2c3d4e5f60",
        "cwd": "/home/dev/shop",
        "hook_event_name": "UserPromptSubmit",
        "prompt": text,
    })
}

fn codex_prompt(text: &str) -> Value {
    json!({
        "session_id": "019a7c3e-1f2d-7b4a-9c8e-5d6f7a8b9c0d", "turn_id": "3",
        "cwd": "/home/dev/shop", "hook_event_name": "UserPromptSubmit", "model": "gpt-5-codex",
        "prompt": text,
    })
}

fn pre_tool(command: &str) -> Value {
    claude_bash("s", "PreToolUse", command)
}

fn codex_pre_tool(command: &str) -> Value {
    json!({
        "session_id": "c", "turn_id": "1", "cwd": "/home/dev/shop", "hook_event_name": "PreToolUse",
        "model": "gpt-5-codex", "tool_name": "Bash", "tool_input": {"command": command},
    })
}

/// A learning file as a person or another clone would have committed it.
struct Written<'a> {
    id: &'a str,
    title: &'a str,
    command: Option<&'a str>,
    correction: Option<&'a str>,
    applicable: &'a [&'a str],
    project: &'a str,
}

fn write_learning(sb: &Sandbox, l: &Written<'_>) {
    let yaml = |s: Option<&str>| s.map_or("null".to_string(), |s| json!(s).to_string());
    let applicable: Vec<String> = l.applicable.iter().map(|a| a.to_string()).collect();
    // Written now: a learning with no event for 90 days is stale (§9.1)
    // and leaves the session block and prompt suggestions.
    let now = learnsync::timestamp::Timestamp::now();
    let text = format!(
        "---\nid: {id}\ntitle: {title}\nagent_id: laptop\ncaptured_at: {now}\n\
         updated_at: {now}\npromoted_at: null\ntrust_level: L1\nsource: manual\n\
         applicable_agents: [{applicable}]\nkeywords: []\nverify_pattern: null\nquality:\n  \
         applied_count: 0\n  effective_count: 0\n  agent_count: 0\n  agent_names: []\n  \
         last_applied_at: null\n  success_rate: null\noriginal_command: {command}\n\
         error_context: null\ncorrection: {correction}\nwiki_page_name: null\n\
         suggestion_status: pending\nkind: correction\nproject: {project}\n---\n\n{title}.\n",
        id = l.id,
        title = json!(l.title),
        applicable = applicable.join(", "),
        command = yaml(l.command),
        correction = yaml(l.correction),
        project = l.project,
    );
    let folder = sb.dir().join("laptop");
    std::fs::create_dir_all(&folder).expect("mkdir");
    std::fs::write(folder.join(format!("{}.md", l.id)), text).expect("write learning");
}

const FOR_ALL: &str = "learning-0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a-1780000000001";
const FOR_CODEX: &str = "learning-0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b-1780000000002";
const RAW: &str = "learning-0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c-1780000000003";
const ELSEWHERE: &str = "learning-0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d-1780000000004";

/// A dir with, for project `shop`: one learning for every agent, one for
/// codex only, one raw failure (L0); and one learning of another project.
fn shop() -> Sandbox {
    let sb = Sandbox::new();
    sb.ok(&["init", "--agent", "laptop"]);
    for l in [
        Written {
            id: FOR_ALL,
            title: "`make deploy` skips the migrations",
            command: Some("make deploy"),
            correction: Some("make migrate deploy"),
            applicable: &[],
            project: "shop",
        },
        Written {
            id: FOR_CODEX,
            title: "`terraform apply -auto-approve` is refused in the sandbox",
            command: Some("terraform apply -auto-approve"),
            correction: Some("terraform plan -out tf.plan && terraform apply tf.plan"),
            applicable: &["codex"],
            project: "shop",
        },
        Written {
            id: RAW,
            title: "`npm run biuld` failed",
            command: Some("npm run biuld"),
            correction: None,
            applicable: &[],
            project: "shop",
        },
        Written {
            id: ELSEWHERE,
            title: "`cargo xtask dist` needs the musl target",
            command: Some("cargo xtask dist"),
            correction: Some("rustup target add x86_64-unknown-linux-musl"),
            applicable: &[],
            project: "billing",
        },
    ] {
        write_learning(&sb, &l);
    }
    sb.sync_offline();
    sb
}

#[test]
fn session_start_gives_each_agent_the_learnings_that_apply_to_it() {
    let sb = shop();
    let claude = capture(
        &sb,
        &[],
        &["--format", "claude"],
        &session_start("/home/dev/shop"),
    );
    let block = added_context(&claude, "SessionStart").expect("a context block");
    assert!(
        block.starts_with("## Learnings for this session (claude, project shop)"),
        "{block}"
    );
    assert!(
        block.contains(FOR_ALL) && block.contains("make migrate deploy"),
        "{block}"
    );
    assert!(!block.contains(FOR_CODEX), "codex only: {block}");
    assert!(!block.contains(RAW), "never L0: {block}");
    assert!(!block.contains(ELSEWHERE), "another project's L1: {block}");

    let codex = capture(
        &sb,
        &[],
        &["--format", "codex"],
        &codex_session_start("/home/dev/shop"),
    );
    let block = added_context(&codex, "SessionStart").expect("a context block");
    assert!(
        block.contains(FOR_ALL) && block.contains(FOR_CODEX),
        "{block}"
    );
    // `--agent` names the agent when the hook says who it is.
    let named = capture(
        &sb,
        &["--agent", "codex"],
        &["--format", "claude"],
        &session_start("/home/dev/shop"),
    );
    let block = added_context(&named, "SessionStart").expect("a context block");
    assert!(block.contains(FOR_CODEX), "{block}");
    // Nothing was recorded: a session start writes no event and no learning.
    assert!(
        std::fs::read_dir(sb.dir().join(".git/learnsync/inbox"))
            .map(|d| d.count())
            .unwrap_or(0)
            == 0
    );
}

#[test]
fn session_start_says_nothing_when_nothing_is_worth_saying() {
    let sb = Sandbox::new();
    sb.ok(&["init", "--agent", "laptop"]);
    sb.sync_offline();
    let empty = capture(
        &sb,
        &[],
        &["--format", "claude"],
        &session_start("/home/dev/shop"),
    );
    assert_eq!(added_context(&empty, "SessionStart"), None);
    // Only a raw failure, and another project's L1: still nothing for shop.
    let sb = shop();
    for id in [FOR_ALL, FOR_CODEX] {
        std::fs::remove_file(sb.dir().join("laptop").join(format!("{id}.md"))).expect("rm");
    }
    sb.sync_offline();
    let out = capture(
        &sb,
        &[],
        &["--format", "claude"],
        &session_start("/home/dev/shop"),
    );
    assert_eq!(added_context(&out, "SessionStart"), None);
    let billing = capture(
        &sb,
        &[],
        &["--format", "claude"],
        &session_start("/srv/billing"),
    );
    assert!(
        added_context(&billing, "SessionStart").is_some_and(|b| b.contains(ELSEWHERE)),
        "billing's own L1 is worth saying there"
    );
}

#[test]
fn a_prompt_gets_a_confident_suggestion_and_an_unrelated_one_nothing() {
    let sb = search_corpus("laptop");
    let out = capture(
        &sb,
        &[],
        &["--format", "claude"],
        &prompt(
            "pip fails with error: externally-managed-environment, this environment is externally managed",
        ),
    );
    let said = added_context(&out, "UserPromptSubmit").expect("a confident match");
    assert!(
        said.contains("venv") && said.contains("Correction:"),
        "{said}"
    );
    for unrelated in [
        "how do I bake sourdough bread",
        "what is the capital of australia",
        "   ",
    ] {
        let out = capture(&sb, &[], &["--format", "claude"], &prompt(unrelated));
        assert_eq!(
            added_context(&out, "UserPromptSubmit"),
            None,
            "{unrelated:?}"
        );
    }
    // Codex reads the same JSON.
    let out = capture(
        &sb,
        &[],
        &["--format", "codex"],
        &codex_prompt("error: externally-managed-environment when I pip install requests"),
    );
    assert!(added_context(&out, "UserPromptSubmit").is_some_and(|s| s.contains("venv")));
}

#[test]
fn a_prompt_suggestion_is_only_for_the_agents_its_learning_names() {
    let sb = search_corpus("laptop");
    let text = "no network inside the Codex sandbox: vendor dependencies first";
    let codex = capture(&sb, &[], &["--format", "codex"], &codex_prompt(text));
    let said = added_context(&codex, "UserPromptSubmit").expect("codex is told");
    assert!(said.contains("Codex sandbox"), "{said}");
    let claude = capture(&sb, &[], &["--format", "claude"], &prompt(text));
    assert!(
        added_context(&claude, "UserPromptSubmit").is_none_or(|s| !s.contains("Codex sandbox")),
        "a learning for codex is not suggested to claude"
    );
}

#[test]
fn a_prompt_that_gives_a_correction_is_recorded_and_still_told_what_is_known() {
    let sb = search_corpus("laptop");
    let out = capture(
        &sb,
        &[],
        &["--format", "claude"],
        &prompt(
            "Use `git push --force-with-lease` instead of `git push -f`: the protected branch rejected the push",
        ),
    );
    let said = added_context(&out, "UserPromptSubmit").expect("a known learning");
    assert!(said.contains("force-with-lease"), "{said}");
    sb.sync_offline();
    let new: Vec<Value> = match common::json(&sb.ok(&["list", "--from", "laptop", "--json"])) {
        Value::Array(items) => items,
        other => panic!("{other}"),
    };
    let recorded = new
        .iter()
        .find(|l| l["title"] == "Use `git push --force-with-lease` instead of `git push -f`")
        .unwrap_or_else(|| panic!("the prompt's correction became a learning: {new:#?}"));
    assert_eq!(recorded["source"], "auto_extract");
}

#[test]
fn pre_tool_warnings_follow_applicable_agents_and_open_problem_reports() {
    let sb = shop();
    let warned = |out: &Output| added_context(out, "PreToolUse");
    let tf = "terraform apply -auto-approve";
    assert_eq!(
        warned(&capture(&sb, &[], &["--format", "claude"], &pre_tool(tf))),
        None,
        "a learning for codex does not warn claude"
    );
    let codex = warned(&capture(
        &sb,
        &[],
        &["--format", "codex"],
        &codex_pre_tool(tf),
    ))
    .expect("codex is warned");
    assert!(codex.contains(FOR_CODEX), "{codex}");
    assert!(
        warned(&capture(
            &sb,
            &["--agent", "codex"],
            &["--format", "claude"],
            &pre_tool(tf)
        ))
        .is_some(),
        "--agent names the agent"
    );
    let deploy = warned(&capture(
        &sb,
        &[],
        &["--format", "claude"],
        &pre_tool("make deploy"),
    ))
    .expect("a learning for every agent warns claude");
    assert!(deploy.contains(FOR_ALL), "{deploy}");
    // An open problem report pulls it: no more warnings.
    let pulled = sb.dir().join(".learnsync/pulled");
    std::fs::create_dir_all(&pulled).expect("mkdir");
    std::fs::write(
        pulled.join(format!("{FOR_ALL}.12.yaml")),
        format!("learning: {FOR_ALL}\nissue: 12\n"),
    )
    .expect("pulled record");
    assert_eq!(
        warned(&capture(
            &sb,
            &[],
            &["--format", "claude"],
            &pre_tool("make deploy")
        )),
        None
    );
}

#[test]
fn a_capture_index_from_before_applicability_is_rebuilt_by_the_next_sync() {
    let sb = shop();
    let state = sb.dir().join(".git/learnsync");
    // What an older learnsync left: version 2, advice with no applicability.
    std::fs::write(
        state.join("capture-advice.json"),
        json!({"version": 2, "warnings": {"terraform apply -auto-approve": {
            "id": FOR_CODEX, "title": "old", "correction": "terraform plan"}}, "patterns": []})
        .to_string(),
    )
    .expect("old advice");
    std::fs::write(
        state.join("capture-index.json"),
        json!({"version": 2, "failures": {}}).to_string(),
    )
    .expect("old index");
    let _ = std::fs::remove_file(state.join("capture-log.jsonl"));
    let tf = "terraform apply -auto-approve";
    assert_eq!(
        added_context(
            &capture(&sb, &[], &["--format", "claude"], &pre_tool(tf)),
            "PreToolUse"
        ),
        None,
        "the old snapshot is not read"
    );
    // A sync with nothing to commit still rebuilds it.
    sb.sync_offline();
    let advice = std::fs::read_to_string(state.join("capture-advice.json")).expect("advice");
    assert!(advice.starts_with("{\"version\":7"), "{advice}");
    assert_eq!(
        added_context(
            &capture(&sb, &[], &["--format", "claude"], &pre_tool(tf)),
            "PreToolUse"
        ),
        None
    );
    assert!(
        added_context(
            &capture(&sb, &[], &["--format", "codex"], &codex_pre_tool(tf)),
            "PreToolUse"
        )
        .is_some_and(|w| w.contains("terraform plan -out tf.plan"))
    );
}

#[test]
fn opencode_is_told_in_plain_text_for_its_plugin_to_add() {
    let sb = shop();
    let payload = json!({"source": "opencode", "hook": "session.start", "cwd": "/home/dev/shop",
        "input": {"sessionID": "ses_1"}});
    let out = capture(&sb, &[], &["--format", "opencode"], &payload);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("## Learnings for this session (opencode, project shop)"),
        "{text}"
    );
    assert!(
        text.contains(FOR_ALL) && !text.contains(FOR_CODEX),
        "{text}"
    );
}

#[test]
fn a_session_start_without_a_learnings_dir_costs_one_line_not_the_agent() {
    let sb = Sandbox::new();
    let out = capture(
        &sb,
        &[],
        &["--format", "claude"],
        &session_start("/home/dev/shop"),
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("learnsync: capture: ") && stderr.contains("learnings dir"),
        "{stderr}"
    );
}
