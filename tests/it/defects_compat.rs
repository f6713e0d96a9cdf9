//! Compatibility with terraphim's conventions and with Codex's hooks, as a
//! user meets them: a terraphim `verify_pattern` regex, `wiki_page_name`
//! after publishing trust, terraphim's knowledge-graph metadata lines, an
//! existing terraphim store at `init`, and Codex's output header in a
//! captured failure.

use crate::common;

use common::capture::{capture_raw, claude_bash};
use common::fixtures;
use common::learnings::events_text;
use common::{Sandbox, json};
use std::process::Output;

/// Runs `learnsync capture` with `stdin` piped in, as a hook does.
fn capture(sb: &Sandbox, stdin: impl AsRef<[u8]>) -> Output {
    let out = capture_raw(sb, &[], &[], stdin.as_ref());
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    out
}

#[test]
fn a_repeated_codex_failure_is_recognised_as_the_same_one() {
    let sb = Sandbox::new();
    sb.ok(&["init", "--agent", "laptop"]);
    let first = String::from_utf8(fixtures::payload("codex_post_tool_use_unified_exec.json"))
        .expect("UTF-8 payload");
    capture(&sb, &first);
    sb.sync_offline();
    // The same failure a turn later: Codex gives it another chunk id and
    // wall time.
    let again = first
        .replace("Chunk ID: 61b1", "Chunk ID: 7c02")
        .replace("Wall time: 0.4127", "Wall time: 0.3981")
        .replace("\"turn_id\": \"12\"", "\"turn_id\": \"13\"");
    assert_ne!(again, first);
    capture(&sb, &again);
    sb.sync_offline();

    let items = sb.list();
    assert_eq!(items.len(), 1, "a repeat is not a new learning: {items:#?}");
    let l = &items[0];
    assert_eq!(
        l["title"], "`npm run deploy` failed: npm error Missing script: \"deploy\"",
        "{l:#?}"
    );
    let error = l["error_context"].as_str().expect("error_context");
    assert!(error.starts_with("npm error Missing script"), "{error}");
    for header in [
        "Chunk ID",
        "Wall time",
        "Process exited",
        "Original token count",
        "Output:",
    ] {
        assert!(!error.contains(header), "{header} kept in {error:?}");
    }
    assert_eq!(l["exit_code"], 1);
    let id = l["id"].as_str().expect("id");
    let events = events_text(sb.dir());
    assert!(
        events.contains(id) && events.contains("\"outcome\":\"recurred\""),
        "the repeat is recorded as a recurrence: {events}"
    );
}

#[test]
fn codex_exec_tool_failures_lose_their_header_too() {
    let sb = Sandbox::new();
    sb.ok(&["init", "--agent", "laptop"]);
    capture(
        &sb,
        fixtures::payload("codex_post_tool_use_exit_header.json"),
    );
    sb.sync_offline();
    let items = sb.list();
    assert_eq!(items.len(), 1, "{items:#?}");
    let error = items[0]["error_context"].as_str().expect("error_context");
    assert!(error.starts_with("error: the lock file"), "{error}");
    assert_eq!(items[0]["exit_code"], 101);
}

/// A Claude Code PreToolUse payload for a Bash command.
fn pre_tool_use(command: &str) -> String {
    claude_bash("s-verify", "PreToolUse", command).to_string()
}

/// The warning a PreToolUse capture printed, if any.
fn warning(out: &Output) -> Option<String> {
    let stdout = String::from_utf8_lossy(&out.stdout);
    if stdout.trim().is_empty() {
        return None;
    }
    let v = json(&stdout);
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .map(str::to_string)
}

/// A learning file as terraphim_agent writes it, with its `verify_pattern`.
fn terraphim_learning(id: &str, command: &str, pattern: &str, correction: &str) -> String {
    format!(
        "---\nid: {id}\ntitle: Do not force-push\nagent_id: laptop\ncaptured_at: 2026-08-15T12:00:00+00:00\nupdated_at: 2026-08-15T12:00:00+00:00\ntrust_level: L1\nsource: BashHook\nkeywords: [git]\nverify_pattern: '{pattern}'\noriginal_command: {command}\ncorrection: {correction}\nwiki_page_name: null\n---\n\nForce-pushing rewrites shared history.\n"
    )
}

#[test]
fn a_terraphim_verify_pattern_is_read_as_a_regex_and_a_bad_one_is_reported() {
    let sb = Sandbox::new();
    sb.ok(&["init", "--agent", "laptop"]);
    let regex_id = "learning-00000000000000000000000000000a11-1780000000000";
    let broken_id = "learning-00000000000000000000000000000b22-1780000000000";
    let folder = sb.dir().join("laptop");
    std::fs::create_dir_all(&folder).expect("mkdir");
    std::fs::write(
        folder.join(format!("{regex_id}.md")),
        terraphim_learning(
            regex_id,
            "git push -f origin release",
            "^git push (-f|--force) .*",
            "git push --force-with-lease",
        ),
    )
    .expect("write");
    std::fs::write(
        folder.join(format!("{broken_id}.md")),
        terraphim_learning(
            broken_id,
            "npm publish",
            "^npm (publish",
            "npm publish --otp $CODE",
        ),
    )
    .expect("write");
    sb.sync_offline();

    // Not its original command, but what its regex describes.
    let out = capture(&sb, pre_tool_use("git push --force origin main"));
    let said = warning(&out).expect("a warning from the regex");
    assert!(said.contains("git push --force-with-lease"), "{said}");
    assert!(said.contains(regex_id), "{said}");
    // The correction itself is not warned about, nor an unrelated command.
    let out = capture(&sb, pre_tool_use("git push --force-with-lease origin main"));
    assert_eq!(warning(&out), None);
    let out = capture(&sb, pre_tool_use("echo git push -f x"));
    assert_eq!(warning(&out), None, "the regex is anchored");

    // A pattern that is not a regex: the learning still warns on its own
    // command, and doctor names the file and the pattern.
    let out = capture(&sb, pre_tool_use("npm publish"));
    let said = warning(&out).expect("a warning from the command");
    assert!(said.contains(broken_id), "{said}");
    let doctor = sb.run(&["doctor"]);
    assert_eq!(doctor.status.code(), Some(1));
    let report = String::from_utf8_lossy(&doctor.stdout);
    assert!(
        report.contains(&format!(
            "laptop/{broken_id}.md: verify_pattern \"^npm (publish\" is not a regex"
        )),
        "{report}"
    );
    assert!(
        !report.contains(regex_id),
        "a good regex is no problem: {report}"
    );
}

#[test]
fn a_learning_names_its_wiki_page_while_it_is_published() {
    let sb = Sandbox::new();
    sb.ok(&["init", "--agent", "a"]);
    let wiki = sb.root().join("docs.wiki.git");
    std::fs::create_dir_all(&wiki).expect("mkdir");
    common::git::git_in(
        &wiki,
        sb.home(),
        &["init", "--quiet", "--bare", "--initial-branch=main"],
    );
    std::fs::write(
        sb.dir().join(".git/learnsync/config.yaml"),
        format!("agent: a\nwiki:\n  git_url: {}\n", wiki.display()),
    )
    .expect("config");
    let id = sb.add_learning("Use --force-with-lease", "git push --force-with-lease");
    sb.sync_offline();
    let file = || std::fs::read_to_string(sb.dir().join(format!("a/{id}.md"))).expect("file");
    assert!(file().contains("\nwiki_page_name: null\n"), "{}", file());

    sb.effective_from(&id, &["a", "b", "a"]);
    sb.sync_offline();
    let name = "Learning%3A+Use+--force-with-lease.-";
    assert!(
        file().contains(&format!("\nwiki_page_name: \"{name}\"\n")),
        "{}",
        file()
    );
    assert!(file().contains("\ntrust_level: L2\n"));
    // The name is the one the page is published under.
    let report = json(&sb.ok(&["publish", "--target", "git-wiki", "--json"]));
    let page = report["pages"]
        .as_array()
        .expect("pages")
        .iter()
        .find(|p| p["key"] == id.as_str())
        .unwrap_or_else(|| panic!("no page for {id}: {report:#}"));
    assert_eq!(page["sub_url"], name);
    assert_eq!(
        json(&sb.ok(&["show", &id, "--json"]))["wiki_page_name"],
        name
    );

    // Demoted: no longer published, no page name.
    for _ in 0..8 {
        sb.ok(&["--agent", "b", "apply", &id, "--outcome", "ineffective"]);
    }
    sb.sync_offline();
    assert!(file().contains("\ntrust_level: L1\n"), "{}", file());
    assert!(file().contains("\nwiki_page_name: null\n"), "{}", file());
    common::git::assert_clean_and_sound(sb.dir(), sb.home());
}

/// A concept file as terraphim documents them.
const CONSENSUS: &str = "# Consensus\n\nsynonyms:: consensus algorithm, leader election\nType: Concept\nDomain: distributed systems\nRelated: raft, paxos\n";

#[test]
fn terraphim_kg_metadata_passes_kg_check_and_doctor_reports_what_kg_check_does() {
    let sb = Sandbox::new();
    sb.ok(&["init", "--agent", "laptop"]);
    let kg = sb.dir().join("kg");
    std::fs::create_dir_all(&kg).expect("mkdir");
    std::fs::write(kg.join("consensus.md"), CONSENSUS).expect("write");
    std::fs::write(kg.join("raft.md"), "synonyms:: raft log\n").expect("write");
    sb.sync_offline();
    let out = sb.ok(&["kg", "check"]);
    assert_eq!(out, "2 concept(s), 0 problem(s)\n");
    let checked = json(&sb.ok(&["--json", "kg", "check"]));
    assert_eq!(checked["problems"], serde_json::json!([]));
    sb.ok(&["doctor"]);

    // A real mistake: kg check and doctor say the same.
    std::fs::write(kg.join("paxos.md"), "synonyms: multi-paxos\n").expect("write");
    let check = sb.run(&["kg", "check"]);
    assert_eq!(check.status.code(), Some(1));
    let line = "kg/paxos.md:1: `synonyms:` needs two colons: `synonyms:: a, b, c`";
    assert!(
        String::from_utf8_lossy(&check.stdout).contains(line),
        "{check:?}"
    );
    let doctor = sb.run(&["doctor"]);
    assert_eq!(doctor.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&doctor.stdout).contains(line),
        "{doctor:?}"
    );
}

/// A terraphim store holding one learning, at `dir`.
fn terraphim_store(dir: &std::path::Path) {
    let id = "learning-00000000000000000000000000000c33-1780000000000";
    std::fs::create_dir_all(dir.join("claude")).expect("mkdir");
    std::fs::write(
        dir.join(format!("claude/{id}.md")),
        terraphim_learning(
            id,
            "git push -f",
            "git push -f",
            "git push --force-with-lease",
        )
        .replace("agent_id: laptop", "agent_id: claude"),
    )
    .expect("write");
}

#[test]
fn init_names_an_existing_terraphim_store_and_how_to_adopt_it() {
    let sb = Sandbox::new();
    let data = sb.root().join("xdg-data");
    terraphim_store(&data.join("terraphim/learnings"));
    let out = sb
        .cmd(&["init", "--agent", "laptop"])
        .env("XDG_DATA_HOME", &data)
        .env_remove("TERRAPHIM_DEFAULT_DATA_PATH")
        .output()
        .expect("init");
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let store = data.join("terraphim/learnings");
    let command = format!("learnsync --dir {} --agent laptop init", store.display());
    assert!(
        stderr.contains(&format!("{} holds terraphim learnings", store.display()))
            && stderr.contains(&command),
        "{stderr}"
    );
    // The command does what it says.
    let adopted = sb
        .cmd(&[
            "--dir",
            &store.to_string_lossy(),
            "--agent",
            "laptop",
            "init",
        ])
        .env("XDG_DATA_HOME", &data)
        .output()
        .expect("adopt");
    assert!(adopted.status.success(), "{adopted:?}");
    assert!(
        String::from_utf8_lossy(&adopted.stdout).contains("1 learning(s)"),
        "{adopted:?}"
    );

    // `~/.local/share` by default, TERRAPHIM_DEFAULT_DATA_PATH and the
    // project's `.terraphim/learnings` too.
    for case in ["home", "env", "project"] {
        let other = Sandbox::new();
        let project = other.root().join("project");
        std::fs::create_dir_all(&project).expect("mkdir");
        let data_path = other.root().join("terraphim-data");
        let store = match case {
            "home" => other.home().join(".local/share/terraphim/learnings"),
            "env" => data_path.join("learnings"),
            _ => project.join(".terraphim/learnings"),
        };
        terraphim_store(&store);
        let out = other
            .cmd(&["init"])
            .env("TERRAPHIM_DEFAULT_DATA_PATH", &data_path)
            .current_dir(&project)
            .output()
            .expect("init");
        assert!(out.status.success(), "{out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("{} holds terraphim learnings", store.display()))
                && stderr.contains(&format!("learnsync --dir {} init", store.display())),
            "{case}: {stderr}"
        );
    }
}

#[test]
fn init_says_nothing_when_there_is_no_terraphim_store_or_it_adopts_one() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.home().join(".local/share/terraphim/learnings/claude"))
        .expect("an empty store");
    let out = sb
        .cmd(&["init"])
        .env_remove("TERRAPHIM_DEFAULT_DATA_PATH")
        .output()
        .expect("init");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");

    let other = Sandbox::new();
    let store = other.home().join(".local/share/terraphim/learnings");
    terraphim_store(&store);
    let out = other
        .cmd(&["init"])
        .env("TERRAPHIM_LEARNINGS_DIR", &store)
        .env_remove("LEARNSYNC_DIR")
        .env_remove("TERRAPHIM_DEFAULT_DATA_PATH")
        .output()
        .expect("init");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "it adopted it");
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("Adopted"),
        "{out:?}"
    );
}
