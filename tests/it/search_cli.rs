//! `suggest`, `query`, `context` and `kg check` through the real binary, on
//! a real learnings dir holding the retrieval corpus (tests/fixtures/search)
//! or a few learnings of the test's own, synced with real git.

use crate::common;

use common::fixtures::{copy_tree, search_corpus};
use common::git::commit_all_as;
use common::learnings::{ids, l2_files, learning_files, never_stale, review_on_hub};
use common::{Sandbox, json};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

/// `add` of a learning nothing in the corpus is about.
const FROBNICATOR: [&str; 7] = [
    "add",
    "--title",
    "Frobnicator daemon will not start after an upgrade",
    "--correction",
    "delete /var/cache/frobnicator and restart it",
    "--keyword",
    "frobnicator",
];

fn ids_with_trust(sb: &Sandbox, level: &str) -> BTreeSet<String> {
    ids(&json(&sb.ok(&["list", "--trust", level, "--json"])))
        .into_iter()
        .collect()
}

fn title_of(sb: &Sandbox, id: &str) -> String {
    sb.show(id)["title"].as_str().expect("title").to_string()
}

#[test]
fn suggest_finds_a_recurring_error_and_says_why_in_the_json_contract() {
    let sb = search_corpus("claude");
    let out = json(&sb.ok(&[
        "suggest",
        "--json",
        "Got permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock: dial unix /var/run/docker.sock: connect: permission denied",
    ]));
    let hits = out.as_array().expect("array");
    assert!(!hits.is_empty() && hits.len() <= 3, "{out}");
    let top = &hits[0];
    let keys: BTreeSet<&str> = top
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        ["correction", "id", "score", "title", "trust", "why"].into()
    );
    let why: BTreeSet<&str> = top["why"]
        .as_object()
        .expect("why")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        why,
        [
            "admitted_by",
            "agreement",
            "concepts",
            "coverage",
            "error_words",
            "failure_line",
            "missing",
            "outcomes",
            "relevance",
            "signature",
            "terms",
            "units"
        ]
        .into()
    );
    assert!(
        top["title"].as_str().unwrap_or("").contains("docker ps"),
        "{top}"
    );
    assert!(
        top["correction"].as_str().unwrap_or("").contains("usermod"),
        "{top}"
    );
    assert!(
        top["why"]["terms"]
            .as_array()
            .expect("terms")
            .iter()
            .any(|t| t == "socket")
    );
    assert!(top["score"].as_f64().expect("score") > 0.0);
    // The chmod 666 twin matches the same text; its outcomes keep it behind.
    let twin = hits
        .iter()
        .position(|h| h["correction"].as_str().unwrap_or("").contains("chmod 666"));
    assert!(twin.is_none_or(|p| p > 0), "{out}");
}

#[test]
fn a_text_nothing_fits_gets_an_empty_list_and_exit_0() {
    let sb = search_corpus("claude");
    for text in [
        "how do I bake sourdough bread",
        "what is the capital of australia",
    ] {
        let out = sb.run(&["suggest", "--json", text]);
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(
            json(&String::from_utf8_lossy(&out.stdout)),
            Value::Array(Vec::new())
        );
        let human = sb.run(&["suggest", text]);
        assert_eq!(human.status.code(), Some(0));
        assert!(
            human.stdout.is_empty(),
            "{}",
            String::from_utf8_lossy(&human.stdout)
        );
    }
}

#[test]
fn a_long_paraphrase_naming_a_rare_concept_is_answered_and_says_so() {
    let sb = search_corpus("claude");
    // Shares no word with the Storybook learning; "component explorer" is
    // a synonym of the `storybook` concept, which one learning holds.
    let text = "the component explorer our designers use shows a blank white page after I bumped every frontend package this morning";
    let out = json(&sb.ok(&["suggest", "--json", text]));
    let top = &out[0];
    assert!(
        top["title"].as_str().unwrap_or("").contains("Storybook"),
        "{out}"
    );
    assert_eq!(top["why"]["admitted_by"], "concepts", "{top}");
    assert!(
        top["why"]["relevance"].as_f64().unwrap_or(1.0) < 0.3,
        "under the threshold, admitted by the concept: {top}"
    );
}

#[test]
fn text_starting_with_a_dash_is_text() {
    let sb = search_corpus("claude");
    for args in [
        vec!["suggest", "--json", "--", "-bash: jq: command not found"],
        vec!["suggest", "--json", "-bash: jq: command not found"],
        vec!["query", "--json", "-bash: jq: command not found"],
    ] {
        let hits = json(&sb.ok(&args));
        let first = ids(&hits).into_iter().next().expect("a hit");
        assert!(title_of(&sb, &first).contains("jq"), "{args:?}: {hits}");
    }
}

#[test]
fn l0_learnings_are_never_returned_even_on_their_exact_text() {
    let sb = search_corpus("claude");
    let l0 = ids_with_trust(&sb, "L0");
    assert!(l0.len() >= 30, "the corpus holds raw failures");
    for text in [
        "make: *** No rule to make target 'test'.  Stop.",
        "error: You must be logged in to the server (Unauthorized)",
        "error: src refspec main does not match any",
    ] {
        let found = ids(&json(&sb.ok(&["query", "--json", "--limit", "50", text])));
        assert!(found.iter().all(|id| !l0.contains(id)), "{text}: {found:?}");
    }
    let out = sb.run(&["query", "--trust", "L0", "anything"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("never returned"));
}

#[test]
fn query_filters_by_trust_source_agent_and_kind() {
    let sb = search_corpus("claude");
    let l2 = ids_with_trust(&sb, "L2");
    assert!(!l2.is_empty(), "the corpus's proven learnings reach L2");
    let text = "permission denied while trying to connect to the Docker daemon socket";
    let only_l2 =
        ids(&json(&sb.ok(&[
            "query", "--json", "--trust", "L2", "--limit", "20", text,
        ])));
    assert!(!only_l2.is_empty());
    assert!(only_l2.iter().all(|id| l2.contains(id)), "{only_l2:?}");

    let codex = json(&sb.ok(&["list", "--from", "codex", "--trust", "L1", "--json"]));
    let title = codex[0]["title"].as_str().expect("codex wrote learnings");
    let from_codex = json(&sb.ok(&["query", "--json", "--from", "codex", "--limit", "20", title]));
    assert!(!ids(&from_codex).is_empty());
    for id in ids(&from_codex) {
        assert_eq!(json(&sb.ok(&["show", &id, "--json"]))["agent_id"], "codex");
    }
    let conventions = ids(&json(&sb.ok(&[
        "query",
        "--json",
        "--kind",
        "convention",
        "what format should a commit message have",
    ])));
    assert!(!conventions.is_empty());
    for id in conventions {
        assert_eq!(json(&sb.ok(&["show", &id, "--json"]))["kind"], "convention");
    }
    assert_eq!(
        sb.run(&["query", "--trust", "L9", "x"]).status.code(),
        Some(2)
    );
    // A kind that does not exist is a usage error naming the ones that do,
    // not an empty answer that reads as "nothing fits".
    let bogus = sb.run(&["query", "--kind", "conventions", "commit message"]);
    assert_eq!(bogus.status.code(), Some(2));
    let said = String::from_utf8_lossy(&bogus.stderr);
    assert!(
        said.contains("conventions") && said.contains("debugging_pattern"),
        "{said}"
    );
    assert!(bogus.stdout.is_empty());
}

#[test]
fn a_learning_for_another_agent_is_not_suggested_to_this_one() {
    let sb = search_corpus("claude");
    let text = "no network inside the Codex sandbox: vendor dependencies first";
    let for_codex = ids(&json(
        &sb.ok(&["--agent", "codex", "suggest", "--json", text]),
    ));
    let first = for_codex.first().expect("codex is told");
    assert!(title_of(&sb, first).contains("Codex sandbox"));
    let for_claude = ids(&json(
        &sb.ok(&["--agent", "claude", "suggest", "--json", text]),
    ));
    assert!(!for_claude.contains(first), "{for_claude:?}");
    // A person querying sees it.
    assert!(ids(&json(&sb.ok(&["query", "--json", text]))).contains(first));
}

#[test]
fn the_same_project_comes_first() {
    let sb = search_corpus("claude");
    let text = "make: *** No rule to make target 'test'.  Stop.";
    for (project, fix) in [("shop", "test-unit"), ("billing-api", "make check")] {
        let hits = json(&sb.ok(&["suggest", "--json", "--project", project, text]));
        assert!(
            hits[0]["correction"].as_str().unwrap_or("").contains(fix),
            "{project}: {hits}"
        );
    }
}

#[test]
fn context_respects_its_cap_and_cuts_between_learnings() {
    let sb = search_corpus("claude");
    let block = json(&sb.ok(&[
        "context",
        "--json",
        "--project",
        "shop",
        "--max-chars",
        "1000",
    ]));
    let md = block["markdown"].as_str().expect("markdown");
    assert!(md.chars().count() <= 1000, "{}", md.chars().count());
    let shown = block["shown"].as_array().expect("shown");
    let more = block["more"].as_u64().expect("more");
    assert!(!shown.is_empty() && more > 0, "{block}");
    assert!(
        md.contains(&format!("{more} more learning(s) not shown")),
        "{md}"
    );
    for s in shown {
        let id = s["id"].as_str().expect("id");
        assert!(
            md.contains(&format!("- learning {id} (")),
            "whole entries only: {md}"
        );
        assert!(
            md.contains(
                s["correction"]
                    .as_str()
                    .expect("c")
                    .chars()
                    .take(40)
                    .collect::<String>()
                    .as_str()
            )
        );
    }
    // L2 learnings open the block (the corpus has no L3).
    let l2 = ids_with_trust(&sb, "L2");
    assert!(l2.contains(shown[0]["id"].as_str().expect("id")), "{block}");

    let big = sb.ok(&["context", "--project", "shop"]);
    assert!(
        big.chars().count() <= 4000 && big.starts_with("## Learnings for this session"),
        "{big}"
    );
    assert!(big.matches("Correction:").count() > shown.len());
}

#[test]
fn kg_check_names_the_broken_file_and_line() {
    let sb = search_corpus("claude");
    let out = sb.run(&["kg", "check"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    std::fs::write(
        sb.dir().join("kg/broken.md"),
        "# broken\n\nsynonyms: one, two\n",
    )
    .expect("write");
    std::fs::write(sb.dir().join("kg/empty.md"), "synonyms::\n").expect("write");
    let out = sb.run(&["kg", "check"]);
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("kg/broken.md:3:") && said.contains("two colons"),
        "{said}"
    );
    assert!(said.contains("kg/empty.md:1:"), "{said}");
    let j = json(&String::from_utf8_lossy(
        &sb.run(&["kg", "check", "--json"]).stdout,
    ));
    assert_eq!(j["problems"].as_array().map(Vec::len), Some(2));
}

#[test]
fn the_index_is_rebuilt_when_deleted_or_corrupted() {
    let sb = search_corpus("claude");
    let folder = sb.dir().join(".git/learnsync/search");
    assert!(
        folder.join("segment.bin").is_file(),
        "the sync built the index"
    );
    let text = "fatal: refusing to merge unrelated histories";
    let before = sb.ok(&["suggest", "--json", text]);
    assert!(!ids(&json(&before)).is_empty());

    std::fs::remove_dir_all(&folder).expect("delete");
    assert_eq!(sb.ok(&["suggest", "--json", text]), before);
    assert!(folder.join("segment.bin").is_file(), "rebuilt");

    for garbage in [b"not an index".to_vec(), {
        let mut b = std::fs::read(folder.join("segment.bin")).expect("read");
        b.truncate(b.len() / 2);
        b
    }] {
        std::fs::write(folder.join("segment.bin"), garbage).expect("corrupt");
        let out = sb.run(&["suggest", "--json", text]);
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(String::from_utf8_lossy(&out.stdout), before);
        assert!(String::from_utf8_lossy(&out.stderr).contains("rebuilding"));
    }
    std::fs::write(folder.join("delta.json"), b"{not json").expect("corrupt the delta");
    assert_eq!(sb.ok(&["suggest", "--json", text]), before);
}

#[test]
fn a_learning_added_is_found_from_the_inbox_and_after_the_sync() {
    let sb = search_corpus("claude");
    let text = "the frobnicator daemon refuses to start after the upgrade";
    assert_eq!(
        json(&sb.ok(&["suggest", "--json", text])),
        Value::Array(Vec::new())
    );
    let id = sb.ok(&FROBNICATOR).trim().to_string();
    let found = ids(&json(&sb.ok(&["suggest", "--json", text])));
    assert_eq!(found.first(), Some(&id), "from the inbox, before any sync");

    let segment = sb.dir().join(".git/learnsync/search/segment.bin");
    let bytes_before = std::fs::read(&segment).expect("segment");
    sb.sync_offline();
    assert_eq!(
        ids(&json(&sb.ok(&["suggest", "--json", text]))).first(),
        Some(&id)
    );
    assert_eq!(
        std::fs::read(&segment).expect("segment"),
        bytes_before,
        "updated, not rebuilt"
    );
    assert!(sb.dir().join(".git/learnsync/search/delta.json").is_file());
}

#[test]
fn a_commit_made_by_hand_is_seen_by_the_next_query() {
    let sb = search_corpus("claude");
    let list = json(&sb.ok(&["list", "--trust", "L1", "--json"]));
    let first = &list.as_array().expect("array")[0];
    let path = first["path"].as_str().expect("path");
    let file = sb.dir().join(path);
    let text = std::fs::read_to_string(&file).expect("read");
    let old = first["correction"].as_str().expect("correction");
    let edited = text.replace(
        &format!(
            "correction: {}",
            serde_json::to_string(old).expect("quoted")
        ),
        "correction: \"rotate the quuxinator keys\"",
    );
    let edited = if edited == text {
        text.replace(old, "rotate the quuxinator keys")
    } else {
        edited
    };
    std::fs::write(&file, edited).expect("edit");
    commit_by_hand(&sb, "edit by hand");
    let hits = json(&sb.ok(&["query", "--json", "rotate the quuxinator keys"]));
    assert_eq!(
        ids(&hits).first().map(String::as_str),
        first["id"].as_str(),
        "{hits}"
    );
}

/// Commits the whole work tree with git itself, as a person would.
fn commit_by_hand(sb: &Sandbox, message: &str) {
    commit_all_as(sb.dir(), sb.home(), "t", "t@x", message);
}

#[test]
fn rejected_learnings_leave_suggestions_and_l3_leads_the_context() {
    let sb = Sandbox::new();
    let hub = sb.root().join("hub.git");
    common::git::bare(&hub);
    sb.init_with_hub("claude", hub.display());
    let add = |title: &str, correction: &str| {
        sb.ok(&[
            "add",
            "--title",
            title,
            "--correction",
            correction,
            "--error",
            "widget: spline reticulation failed",
            "--keyword",
            "widget",
        ])
        .trim()
        .to_string()
    };
    let rejected = add(
        "Widget spline reticulation: disable the checks",
        "export WIDGET_NO_CHECKS=1",
    );
    let approved = add(
        "Widget spline reticulation: pin the spline library",
        "pin libspline 2.3 in widget.toml",
    );
    let plain = add(
        "Widget spline reticulation fails on ARM",
        "build widget with --no-simd on arm64",
    );
    sb.ok(&["sync"]);
    review_on_hub(
        &sb,
        &hub,
        &[(&rejected, "rejected"), (&approved, "approved")],
    );
    sb.ok(&["sync"]);
    assert_eq!(
        json(&sb.ok(&["show", &approved, "--json"]))["trust_level"],
        "L3"
    );
    assert_eq!(
        json(&sb.ok(&["show", &rejected, "--json"]))["suggestion_status"],
        "rejected"
    );

    let text = "widget: spline reticulation failed";
    for args in [
        vec!["suggest", "--json", "--limit", "10", text],
        vec!["query", "--json", text],
    ] {
        let found = ids(&json(&sb.ok(&args)));
        assert!(!found.contains(&rejected), "{args:?}: {found:?}");
        assert_eq!(found.first(), Some(&approved), "L3 first: {found:?}");
        assert!(found.contains(&plain));
    }
    let block = json(&sb.ok(&["context", "--json"]));
    let shown = ids(&block["shown"]);
    assert_eq!(shown.first(), Some(&approved), "{block}");
    assert!(!shown.contains(&rejected));
    assert_eq!(block["shown"][0]["trust"], "L3");
}

#[test]
fn the_hook_helpers_answer_confidently_or_not_at_all() {
    let sb = search_corpus("claude");
    let dir = learnsync::store::LearningsDir::new(sb.dir());
    let block = learnsync::search::suggest_for_hook(
        &dir,
        "error: externally-managed-environment × This environment is externally managed",
        Some("claude"),
        None,
    )
    .expect("a confident match")
    .0;
    assert!(
        block.contains("venv") && block.contains("Correction:"),
        "{block}"
    );
    assert!(
        learnsync::search::suggest_for_hook(
            &dir,
            "how do I bake sourdough bread",
            Some("claude"),
            None
        )
        .is_none()
    );
    let ctx = learnsync::search::context_block(
        &dir,
        None,
        Some("claude"),
        Some("shop"),
        1000,
        learnsync::search::Freshness::CatchUp,
    )
    .expect("context");
    assert!(ctx.markdown.chars().count() <= 1000 && !ctx.shown.is_empty());
}

#[test]
fn a_rebuilt_index_is_heads_and_never_takes_an_uncommitted_claim_of_trust() {
    let sb = Sandbox::new();
    sb.ok(&["init", "--agent", "claude"]);
    let id = sb.ok(&FROBNICATOR).trim().to_string();
    sb.sync_offline();
    let text = "the frobnicator daemon refuses to start after the upgrade";
    let top = |sb: &Sandbox| json(&sb.ok(&["suggest", "--json", text]))[0].clone();
    let before = top(&sb);
    assert_eq!(before["id"], id.as_str());
    assert_eq!(before["trust"], "L1");

    // Edited in the work tree, not committed: a claim of L3 and another fix.
    let list = json(&sb.ok(&["list", "--json"]));
    let path = list
        .as_array()
        .expect("array")
        .iter()
        .find(|l| l["id"] == id.as_str())
        .and_then(|l| l["path"].as_str())
        .expect("path")
        .to_string();
    let file = sb.dir().join(&path);
    let text_before = std::fs::read_to_string(&file).expect("read");
    let forged = text_before
        .replace("trust_level: L1", "trust_level: L3")
        .replace("delete /var/cache/frobnicator", "reinstall the frobnicator");
    assert_ne!(forged, text_before, "the edit applies");
    std::fs::write(&file, forged).expect("edit");
    std::fs::remove_dir_all(sb.dir().join(".git/learnsync/search")).expect("drop the index");
    let rebuilt = top(&sb);
    assert_eq!(rebuilt["trust"], "L1", "{rebuilt}");
    assert_eq!(rebuilt["correction"], before["correction"], "HEAD's text");

    // Committed by a sync, the edit counts; its trust is derived again.
    sb.sync_offline();
    let synced = top(&sb);
    assert_eq!(synced["trust"], "L1", "{synced}");
    assert!(
        synced["correction"]
            .as_str()
            .is_some_and(|c| c.contains("reinstall the frobnicator")),
        "{synced}"
    );
}

#[test]
fn after_a_sync_that_pushed_the_index_already_holds_what_it_merged() {
    use common::Sandbox;
    use common::git::bare;
    let tmp = tempfile::tempdir().expect("tmp");
    let hub = tmp.path().join("hub.git");
    bare(&hub);
    let (a, b) = (
        Sandbox::machine(tmp.path(), "a"),
        Sandbox::machine(tmp.path(), "b"),
    );
    for (m, agent) in [(&a, "claude"), (&b, "codex")] {
        m.ok(&["init", "--agent", agent]);
        m.git(&["remote", "add", "origin", &hub.display().to_string()]);
        m.ok(&["sync"]);
    }
    let id = a.ok(&FROBNICATOR).trim().to_string();
    a.ok(&["sync"]);
    // `suggest` would catch the index up first; a hook never does.
    let hook = |m: &Sandbox| {
        let mut child = m
            .cmd(&["capture", "--format", "claude"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn capture");
        let payload = serde_json::json!({
            "session_id": "s1", "cwd": "/home/dev/shop",
            "hook_event_name": "UserPromptSubmit",
            "prompt": "the frobnicator daemon will not start after an upgrade",
        });
        std::io::Write::write_all(
            &mut child.stdin.take().expect("stdin"),
            payload.to_string().as_bytes(),
        )
        .expect("payload");
        let out = child.wait_with_output().expect("wait");
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert_eq!(hook(&b), "", "b has not synced a's learning yet");
    b.ok(&["add", "--title", "b's own", "--correction", "b's fix"]);
    b.ok(&["sync"]);
    let head = b.git(&["rev-parse", "HEAD"]);
    let pushed = common::git::git_in(&hub, b.home(), &["rev-parse", "agents/codex"]);
    assert_eq!(head, pushed, "b pushed its merge");
    let said = hook(&b);
    assert!(said.contains(&id), "the hook knows a's learning: {said}");
}

#[test]
fn a_terraphim_shared_copy_is_found_as_the_view_derives_it() {
    let sb = Sandbox::new();
    sb.ok(&["init", "--agent", "claude"]);
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/terraphim/shared");
    copy_tree(&fixture, &sb.dir().join("shared"));
    sb.sync_offline();
    let found = |sb: &Sandbox| {
        ids(&json(&sb.ok(&[
            "query",
            "--json",
            "only a shared copy exists",
        ])))
    };
    assert!(
        found(&sb).contains(&"learning-shared-only".to_string()),
        "{:?}",
        found(&sb)
    );
    std::fs::remove_dir_all(sb.dir().join(".git/learnsync/search")).expect("drop the index");
    assert!(
        found(&sb).contains(&"learning-shared-only".to_string()),
        "rebuilt"
    );
}

#[test]
fn a_commit_that_changes_most_learnings_is_folded_in_and_ranks_as_a_rebuild() {
    let sb = search_corpus("claude");
    let files = learning_files(sb.dir());
    assert!(files.len() > 300, "{} learnings", files.len());
    // Every learning touched (a new `updated_at`: the blob changes, the
    // text an index weighs does not) and one given a correction nothing
    // else has: more than the delta holds, so the index folds it in.
    let mut target = None;
    for f in &files {
        let text = std::fs::read_to_string(f).expect("read");
        let mut edited: String = text
            .lines()
            .map(|l| {
                if l.starts_with("updated_at: ") {
                    "updated_at: 2026-11-30T08:00:00Z".to_string()
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        edited.push('\n');
        if target.is_none()
            && text.contains("\ntrust_level: L2\n")
            && text.contains("\ncorrection: \"")
        {
            let at = edited.find("\ncorrection: ").expect("a correction");
            let end = at + 1 + edited[at + 1..].find('\n').expect("line end");
            edited.replace_range(at + 1..end, "correction: \"rotate the quuxinator keys\"");
            let id = edited
                .lines()
                .find_map(|l| l.strip_prefix("id: "))
                .expect("id")
                .to_string();
            target = Some(id);
        }
        assert_ne!(edited, text, "{} changed", f.display());
        std::fs::write(f, edited).expect("edit");
    }
    commit_by_hand(&sb, "touch every learning");
    let queries = [
        "rotate the quuxinator keys",
        "cargo build cannot find macro format_description",
        "how do I get past the protected branch",
        "npm ERR! code ERESOLVE unable to resolve dependency tree",
        "permission denied (publickey)",
    ];
    let ask = |q: &str| -> (Value, String) {
        let out = sb
            .cmd(&["query", "--json", "--limit", "5", q])
            .env("LEARNSYNC_LOG", "learnsync::timing=debug")
            .output()
            .expect("runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        (
            json(&String::from_utf8_lossy(&out.stdout)),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (first, log) = ask(queries[0]);
    assert!(
        log.contains("search index: fold"),
        "folded, not rebuilt: {log}"
    );
    assert!(!log.contains("search index: postings"), "no rebuild: {log}");
    assert_eq!(ids(&first).first(), target.as_ref(), "{first}");
    let folded: Vec<Value> = queries.iter().map(|q| ask(q).0).collect();
    let answered = folded.iter().filter(|v| !ids(v).is_empty()).count();
    assert!(
        answered >= 4,
        "most queries find something to compare: {folded:?}"
    );
    assert!(
        !sb.git(&["status", "--porcelain"]).contains(".md"),
        "the work tree is untouched"
    );

    std::fs::remove_dir_all(sb.dir().join(".git/learnsync/search")).expect("drop the index");
    for (i, (q, before)) in queries.iter().zip(&folded).enumerate() {
        let (rebuilt, log) = ask(q);
        assert_eq!(
            log.contains("search index: postings"),
            i == 0,
            "rebuilt once: {log}"
        );
        assert_eq!(ids(&rebuilt), ids(before), "{q}");
        for (a, b) in rebuilt
            .as_array()
            .expect("hits")
            .iter()
            .zip(before.as_array().expect("hits"))
        {
            let (a, b) = (
                a["score"].as_f64().expect("score"),
                b["score"].as_f64().expect("score"),
            );
            assert!(
                (a - b).abs() < 0.02 * a.abs().max(b.abs()),
                "{q}: {a} vs {b}"
            );
        }
    }
}

/// The first hit's id and score for `text`.
fn top(sb: &Sandbox, text: &str) -> Option<(String, f64)> {
    let hits = json(&sb.ok(&["suggest", "--json", text]));
    let first = hits.as_array()?.first()?.clone();
    Some((first["id"].as_str()?.to_string(), first["score"].as_f64()?))
}

#[test]
fn a_new_users_first_learnings_score_from_the_inbox_and_each_sync_as_a_rebuild_scores_them() {
    // A machine that just started: two learnings without an error text are
    // indexed, then one with a long one comes. Weighed against the first
    // two's average lengths (no error at all), its error text would count
    // for almost nothing, and the agent that hits that error again would be
    // told nothing.
    let sb = Sandbox::new();
    sb.ok(&["init", "--agent", "claude"]);
    let error = "Got permission denied while trying to connect to the Docker daemon socket at \
                 unix:///var/run/docker.sock: Get http://%2Fvar%2Frun%2Fdocker.sock/v1.40/containers/json: \
                 dial unix /var/run/docker.sock: connect: permission denied";
    let again = "Got permission denied while trying to connect to the Docker daemon socket at \
                 unix:///var/run/docker.sock";
    let add_docker = [
        "add",
        "--title",
        "docker ps fails: permission denied on the socket",
        "--command",
        "docker ps",
        "--error",
        error,
        "--correction",
        "sudo usermod -aG docker $USER, then log in again",
    ];
    // Before anything is indexed: the inbox over an empty index.
    let first = sb.ok(&add_docker).trim().to_string();
    let from_inbox = top(&sb, again);
    assert_eq!(
        from_inbox.as_ref().map(|t| t.0.as_str()),
        Some(first.as_str())
    );

    sb.sync_offline();
    let synced = top(&sb, again);
    assert_eq!(synced.as_ref().map(|t| t.0.as_str()), Some(first.as_str()));

    // Two short learnings, then the long one's twin (another machine's
    // wording), each sync folding them into the small index.
    for (title, correction) in [
        (
            "git push rejected: protected branch main",
            "push a feature branch and open a pull request",
        ),
        (
            "npm ci wants a lockfile in step",
            "run npm install and commit package-lock.json",
        ),
    ] {
        sb.ok(&["add", "--title", title, "--correction", correction]);
    }
    sb.sync_offline();
    let second = sb
        .ok(&[
            "add",
            "--title",
            "docker compose up: permission denied on docker.sock",
            "--command",
            "docker compose up",
            "--error",
            error,
            "--correction",
            "add the user to the docker group (usermod -aG docker), then start a new login shell",
        ])
        .trim()
        .to_string();
    let texts = [
        again,
        "docker compose up",
        "docker ps",
        "protected branch main",
    ];
    let ask_all = |sb: &Sandbox| -> Vec<Value> {
        texts
            .iter()
            .map(|t| json(&sb.ok(&["suggest", "--json", "--limit", "5", t])))
            .collect()
    };
    let inbox_answers = ask_all(&sb);
    sb.sync_offline();
    let synced_answers = ask_all(&sb);
    std::fs::remove_dir_all(sb.dir().join(".git/learnsync/search")).expect("drop the index");
    let rebuilt_answers = ask_all(&sb);

    let found = ids(&rebuilt_answers[0]);
    assert!(
        found.contains(&first) && found.contains(&second),
        "a rebuild finds both docker learnings for the error: {:?}",
        rebuilt_answers[0]
    );
    // The same learnings, scored as a rebuild scores them: within a few
    // percent once synced; from the inbox, which is a quarter of this dir
    // and weighed with averages that count it while the indexed ones keep
    // theirs until the sync, within a sixth. Two near-twins may swap
    // places: their scores differ by less.
    let scores = |v: &Value| -> std::collections::BTreeMap<String, f64> {
        v.as_array()
            .expect("hits")
            .iter()
            .map(|h| {
                (
                    h["id"].as_str().expect("id").to_string(),
                    h["score"].as_f64().expect("score"),
                )
            })
            .collect()
    };
    for (label, answers, within) in [
        ("inbox", &inbox_answers, 1.0 / 6.0),
        ("synced", &synced_answers, 0.02),
    ] {
        for ((text, got), want) in texts.iter().zip(answers).zip(&rebuilt_answers) {
            let (got, want) = (scores(got), scores(want));
            assert_eq!(
                got.keys().collect::<Vec<_>>(),
                want.keys().collect::<Vec<_>>(),
                "{label}: {text}"
            );
            for (id, b) in &want {
                let a = got[id];
                assert!(
                    (a - b).abs() < within * b.abs(),
                    "{label}: {text}: {id} scores {a} against a rebuild's {b}"
                );
            }
        }
    }
}

#[test]
fn a_pasted_traceback_or_ci_log_finds_the_learning_its_error_is_about() {
    let sb = Sandbox::new();
    sb.ok(&["init", "--agent", "claude"]);
    never_stale(&sb);
    let learnings: [[&str; 3]; 4] = [
        [
            "Google client libraries: default credentials not found",
            "google.auth.exceptions.DefaultCredentialsError: Your default credentials were not found",
            "gcloud auth application-default login",
        ],
        [
            "Docker Hub pull rate limit in CI",
            "toomanyrequests: You have reached your unauthenticated pull rate limit",
            "log in to Docker Hub in the job, or mirror the image",
        ],
        [
            "Runner jobs fail: step script cannot start",
            "ERROR: Job failed: prepare environment: exit status 1",
            "fix the runner's shell profile",
        ],
        [
            "Python module missing in the report job",
            "ModuleNotFoundError: No module named 'zmq'",
            "pip install pyzmq in the job's venv",
        ],
    ];
    for [title, error, correction] in learnings {
        sb.ok(&[
            "add",
            "--title",
            title,
            "--error",
            error,
            "--correction",
            correction,
        ]);
    }
    sb.sync_offline();
    // The error line is reworded (no signature), and the framing around
    // it (frames, runner lines, prefixes) is most of the text.
    let traceback = "Traceback (most recent call last):\n  File \"/srv/app/main.py\", line 137, in <module>\n    main()\n  File \"/srv/app/runner.py\", line 267, in run\n    result = step.execute(ctx)\ngoogle.auth.exceptions.DefaultCredentialsError: Could not automatically determine credentials. Please set GOOGLE_APPLICATION_CREDENTIALS or explicitly create credentials.";
    let ci = "Running with gitlab-runner 17.2.0 (c8b4e241)\nPreparing the \"docker\" executor\nUsing docker image python:3.12 ...\n\u{1b}[31;1mERROR: Job failed: failed to pull image \"python:3.12\": toomanyrequests: rate limit for unauthenticated pulls reached\u{1b}[0;m";
    for (text, want) in [
        (traceback, "Google client libraries"),
        (ci, "Docker Hub pull rate limit"),
    ] {
        let out = json(&sb.ok(&["suggest", "--json", text]));
        let top = out[0]["title"].as_str().unwrap_or("");
        assert!(top.starts_with(want), "{text}\n→ {out}");
    }
}

/// A dir of `n` L2 learnings, one of them about pnpm's lockfile, adopted
/// by `init`: no index of either kind yet.
fn large_adopted(n: usize) -> (Sandbox, String) {
    let sb = Sandbox::new();
    let ids = l2_files(sb.dir(), "claude", n);
    let id = ids[7].clone();
    let mut l = learnsync::learning::Learning::new(
        id.clone(),
        "claude".into(),
        "pnpm install refuses a lockfile written by a newer pnpm".into(),
        learnsync::timestamp::Timestamp::from_unix(1_780_000_007),
    );
    l.correction = Some("pin pnpm with corepack use pnpm@9 before installing".into());
    std::fs::write(sb.dir().join(format!("claude/{id}.md")), l.to_markdown()).expect("write");
    sb.ok(&["init", "--agent", "claude"]);
    let state = sb.dir().join(".git/learnsync");
    assert!(!state.join("search").exists() && !state.join("capture-index.json").exists());
    (sb, id)
}

#[test]
fn a_large_dirs_first_index_build_is_left_to_a_detached_learnsync_index() {
    let (sb, id) = large_adopted(2_100);
    let sync = json(&sb.ok(&["--json", "sync"]));
    assert!(
        sync["problems"].as_array().is_some_and(Vec::is_empty),
        "{sync}"
    );
    // `suggest` waits for the build the sync started, and answers from it.
    let out = json(&sb.ok(&[
        "--json",
        "suggest",
        "ERR_PNPM_LOCKFILE: this lockfile was written by a newer pnpm",
    ]));
    assert_eq!(ids(&out).first(), Some(&id), "{out}");
    // The last holder of the lock was that build, after the sync.
    let lock = std::fs::read_to_string(sb.dir().join(".git/learnsync/lock")).expect("lock");
    assert!(lock.contains("(learnsync index)"), "{lock}");
    let state = sb.dir().join(".git/learnsync");
    assert!(
        state.join("capture-index.json").is_file(),
        "the capture index too"
    );
    // A small dir's first sync builds both itself, as before.
    let small = Sandbox::new();
    l2_files(small.dir(), "claude", 20);
    small.ok(&["init", "--agent", "claude"]);
    small.ok(&["sync"]);
    assert!(small.dir().join(".git/learnsync/search").is_dir());
    let lock = std::fs::read_to_string(small.dir().join(".git/learnsync/lock")).expect("lock");
    assert!(lock.contains("(learnsync sync)"), "{lock}");
}

#[test]
fn while_an_index_build_runs_a_hook_says_nothing_and_a_command_waits_for_it() {
    let (sb, id) = large_adopted(30);
    never_stale(&sb);
    sb.ok(&["sync"]);
    let state = sb.dir().join(".git/learnsync");
    std::fs::remove_dir_all(state.join("search")).expect("no search index");
    std::fs::remove_file(state.join("capture-index.json")).expect("no capture index");
    let dir = learnsync::store::LearningsDir::new(sb.dir());
    let lock_path = sb.dir().join(".git/learnsync/lock");
    let building = learnsync::store::SyncLock::acquire(
        &lock_path,
        std::time::Duration::ZERO,
        learnsync::store::INDEX_BUILD,
    )
    .expect("lock");
    let text = "ERR_PNPM_LOCKFILE: this lockfile was written by a newer pnpm";
    // Neither hook builds an index of its own meanwhile, nor waits.
    let started = std::time::Instant::now();
    assert!(learnsync::search::suggest_for_hook(&dir, text, Some("claude"), None).is_none());
    let ctx = learnsync::search::context_block(
        &dir,
        None,
        Some("claude"),
        None,
        1000,
        learnsync::search::Freshness::CatchUpInHook,
    );
    assert!(ctx.is_err_and(|e| e.contains("being built")));
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert!(!sb.dir().join(".git/learnsync/search").exists());
    // The command waits, and answers once the build is over (here the
    // holder ends without one: the command builds its own).
    let mut child = sb
        .cmd(&["--json", "suggest", text])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("suggest");
    std::thread::sleep(std::time::Duration::from_millis(700));
    assert!(child.try_wait().expect("wait").is_none(), "it waits");
    drop(building);
    let out = child.wait_with_output().expect("suggest");
    assert!(out.status.success());
    let out = json(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(ids(&out).first(), Some(&id), "{out}");
    // The hook answers again from the index the command built.
    assert!(learnsync::search::suggest_for_hook(&dir, text, Some("claude"), None).is_some());
}
