//! The day-one story, driven through the real binary: init, add, apply,
//! sync, list and show, checked with the real git CLI; terraphim adoption;
//! bad input reported, never deleted or rewritten.

use crate::common;

use common::fixtures::{self, copy_tree};
use common::git::assert_clean_and_sound;
use common::{Sandbox, json};

#[test]
fn init_add_apply_sync_list_show_with_real_git() {
    let s = Sandbox::new();
    s.ok(&["init", "--agent", "claude"]);
    let id = s
        .ok(&[
            "add",
            "--title",
            "Use --force-with-lease instead of --force",
            "--correction",
            "git push --force-with-lease",
            "--command",
            "git push -f",
            "--error",
            "remote: rejected",
            "--keyword",
            "git",
        ])
        .trim()
        .to_string();
    assert!(id.starts_with("learning-") && id.len() > 40, "{id}");

    // Before sync the learning is in the inbox and already listed.
    let listed = json(&s.ok(&["list", "--json"]));
    assert_eq!(listed[0]["id"], id.as_str());
    assert_eq!(listed[0]["in_inbox"], true);
    assert_eq!(listed[0]["trust_level"], "L1");

    s.ok(&["apply", &id, "--outcome", "effective"]);
    s.ok(&["--agent", "codex", "apply", &id, "--outcome", "effective"]);
    s.ok(&["apply", &id, "--outcome", "effective"]);
    let report = json(&s.ok(&["sync", "--json"]));
    assert_eq!(report["inbox_learnings"], 1);
    assert_eq!(report["inbox_events"], 3);
    assert_eq!(report["promoted"][0]["to"], "L2");

    // What git sees: a commit on agents/claude by the agent, clean and sound.
    assert_clean_and_sound(s.dir(), s.home());
    assert_eq!(
        s.git(&["rev-parse", "--abbrev-ref", "HEAD"]).trim(),
        "agents/claude"
    );
    let author = s.git(&["log", "-1", "--format=%an <%ae>|%cn <%ce>"]);
    assert_eq!(
        author.trim(),
        "claude <claude@learnsync.invalid>|claude <claude@learnsync.invalid>"
    );
    let files = s.git(&["ls-files"]);
    assert!(files.contains(&format!("claude/{id}.md")), "{files}");
    assert!(
        files.contains("events/claude/") && files.contains("events/codex/"),
        "{files}"
    );
    assert!(files.contains(".learnsync/policy.yaml"));
    let committed = s.git(&["show", &format!("HEAD:claude/{id}.md")]);
    assert!(committed.contains("trust_level: L2\n"), "{committed}");
    assert!(committed.contains("  effective_count: 3\n"));
    assert!(committed.contains("  agent_names: [claude, codex]\n"));

    let shown = json(&s.ok(&["show", &id, "--json"]));
    assert_eq!(shown["path"], format!("claude/{id}.md").as_str());
    assert_eq!(shown["quality"]["success_rate"], 1.0);
    assert_eq!(shown["error_context"], "remote: rejected");
    let human = s.ok(&["show", &id]);
    assert!(human.contains("correction: git push --force-with-lease"));

    // A second sync with nothing new makes no commit.
    let before = s.git(&["rev-parse", "HEAD"]);
    let report = json(&s.ok(&["sync", "--json"]));
    assert!(report["commit"].is_null());
    assert_eq!(s.git(&["rev-parse", "HEAD"]), before);

    let l2 = json(&s.ok(&["list", "--trust", "L2", "--json"]));
    assert_eq!(l2.as_array().map(Vec::len), Some(1));
    let l0 = json(&s.ok(&["list", "--trust", "L0", "--json"]));
    assert_eq!(l0.as_array().map(Vec::len), Some(0));
    let from_codex = json(&s.ok(&["list", "--from", "codex", "--json"]));
    assert_eq!(from_codex.as_array().map(Vec::len), Some(0));
}

#[test]
fn a_hand_edit_is_committed_and_a_forged_trust_level_recomputed_away() {
    let s = Sandbox::new();
    s.ok(&["init", "--agent", "claude"]);
    let id = s.add_learning("t", "c");
    s.ok(&["sync"]);
    let path = s.dir().join("claude").join(format!("{id}.md"));
    let text = std::fs::read_to_string(&path).expect("read");
    let forged = text
        .replace("trust_level: L1", "trust_level: L3")
        .replace("  applied_count: 0", "  applied_count: 500")
        .replace("title: t\n", "title: a better title\n")
        .replace(
            "updated_at: ",
            "updated_at: 2099-01-01T00:00:00Z\nx_old_updated_at: ",
        );
    std::fs::write(&path, forged).expect("write");
    s.ok(&["sync"]);
    assert_clean_and_sound(s.dir(), s.home());
    let committed = s.git(&["show", &format!("HEAD:claude/{id}.md")]);
    assert!(committed.contains("title: a better title"), "{committed}");
    assert!(committed.contains("trust_level: L1"), "{committed}");
    assert!(committed.contains("  applied_count: 0"), "{committed}");
    assert!(
        committed.contains("updated_at: 2099-01-01T00:00:00Z"),
        "hand edit kept its updated_at"
    );
}

#[test]
fn a_large_directory_is_adopted_as_one_pack_not_a_loose_file_per_learning() {
    // One loose object (and one compressor) per blob made adopting 100,000
    // learnings take 24 GB of heap before the kernel killed it.
    let s = Sandbox::new();
    copy_tree(&fixtures::path("search/learnings"), s.dir());
    let files: usize = std::fs::read_dir(s.dir())
        .expect("dir")
        .flatten()
        .filter_map(|agent| std::fs::read_dir(agent.path()).ok())
        .map(|d| d.flatten().count())
        .sum();
    assert!(files >= 300, "the corpus has {files} learnings");
    s.ok(&["init", "--agent", "claude"]);
    let counts = s.git(&["count-objects", "-v"]);
    let field = |name: &str| -> usize {
        counts
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{name}: ")))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("{name} in {counts}"))
    };
    assert_eq!(field("count"), 0, "no loose objects: {counts}");
    assert!(field("in-pack") > files, "{counts}");
    let tracked = s.git(&["ls-files"]).lines().count();
    assert!(tracked > files, "every learning is committed: {tracked}");
    assert_clean_and_sound(s.dir(), s.home());
}

#[test]
fn terraphim_directory_is_adopted_and_listed_unchanged() {
    let s = Sandbox::new();
    copy_tree(&fixtures::path("terraphim"), s.dir());
    let out = s.run(&["init", "--agent", "claude", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("learning-broken.md"),
        "the broken file is reported: {stderr}"
    );

    // Every file is committed byte for byte.
    for rel in [
        "claude/learning-5f3e0c1d9a2b4c6d8e0f1a2b3c4d5e6f-1717432000123.md",
        "claude/learning-0a1b2c3d.md",
        "claude/learning-broken.md",
        "codex/learning-77aa.md",
        "shared/claude-learning-0a1b2c3d.md",
        "shared/codex-learning-shared-only.md",
    ] {
        let original = std::fs::read(fixtures::path("terraphim").join(rel)).expect("fixture");
        let on_disk = std::fs::read(s.dir().join(rel)).expect("adopted file");
        assert_eq!(on_disk, original, "{rel} rewritten");
        let committed = s.git(&["show", &format!("HEAD:{rel}")]);
        assert_eq!(
            committed.as_bytes(),
            original.as_slice(),
            "{rel} committed differently"
        );
    }
    assert_clean_and_sound(s.dir(), s.home());

    let listed = json(&s.ok(&["list", "--json"]));
    let ids: Vec<&str> = listed
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|l| l["id"].as_str())
        .collect();
    assert_eq!(
        ids,
        [
            "learning-0a1b2c3d",
            "learning-5f3e0c1d9a2b4c6d8e0f1a2b3c4d5e6f-1717432000123",
            "learning-77aa",
            "learning-shared-only"
        ]
    );
    let by_id = |id: &str| {
        listed
            .as_array()
            .and_then(|a| a.iter().find(|l| l["id"] == id))
            .cloned()
            .expect(id)
    };
    let sparse = by_id("learning-0a1b2c3d");
    assert_eq!(
        sparse["title"],
        "npm ci needs a lockfile: run npm install first"
    );
    assert_eq!(sparse["source"], "bash_hook");
    assert_eq!(sparse["trust_level"], "L0");
    assert_eq!(
        sparse["path"], "claude/learning-0a1b2c3d.md",
        "own copy wins over shared/"
    );
    let crlf = by_id("learning-77aa");
    assert_eq!(
        crlf["original_command"],
        "find . -name *.rs\n---\necho done"
    );
    assert_eq!(crlf["updated_at"], "2025-11-21T08:30:00Z");
    assert_eq!(crlf["future_field"], "kept");
    assert_eq!(crlf["keywords"], serde_json::json!(["find", "shell"]));
    assert_eq!(
        by_id("learning-shared-only")["path"],
        "shared/codex-learning-shared-only.md"
    );

    let doctor = s.run(&["doctor"]);
    assert_eq!(doctor.status.code(), Some(1));
    let report = String::from_utf8_lossy(&doctor.stdout);
    assert!(
        report.contains("claude/learning-broken.md") && report.contains("not valid YAML"),
        "{report}"
    );
}

#[test]
fn bad_files_are_reported_by_name_and_never_touched() {
    let s = Sandbox::new();
    s.ok(&["init", "--agent", "claude"]);
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("claude/bad-yaml.md", b"---\ntitle: [x\n---\n".to_vec(), "not valid YAML"),
        ("claude/no-id.md", b"---\ntitle: t\nagent_id: claude\ncaptured_at: 2026-01-01T00:00:00Z\n---\n".to_vec(), "`id` is missing"),
        ("claude/binary.md", vec![b'-', b'-', b'-', b'\n', 0xff, 0x00, 0xfe], "not valid UTF-8"),
        ("claude/list.md", b"---\n- a\n---\n".to_vec(), "not a mapping"),
        ("claude/escape.md", b"---\nid: ../../etc/passwd\ntitle: t\nagent_id: claude\ncaptured_at: 2026-01-01T00:00:00Z\n---\n".to_vec(), "invalid learning id"),
        ("claude/huge.md", vec![b'x'; 50 * 1024 * 1024], "byte limit"),
    ];
    std::fs::create_dir_all(s.dir().join("claude")).expect("mkdir");
    for (rel, bytes, _) in &cases {
        std::fs::write(s.dir().join(rel), bytes).expect("write");
    }
    let out = s.run(&["list"]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    for (rel, _, why) in &cases {
        assert!(
            stderr.lines().any(|l| l.contains(rel) && l.contains(why)),
            "{rel}: expected {why:?} in:\n{stderr}"
        );
    }
    assert!(!stderr.contains("panicked") && !stderr.contains("RUST_BACKTRACE"));

    let out = s.run(&["sync", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = json(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(
        report["problems"].as_array().map(Vec::len),
        Some(cases.len())
    );
    // Committed as they are, but for the one over the size limit, which
    // stays out of the commit and the push.
    assert_eq!(
        s.git(&["status", "--porcelain", "--untracked-files=all"]),
        "?? claude/huge.md\n"
    );
    for (rel, bytes, _) in &cases {
        let on_disk = std::fs::read(s.dir().join(rel)).expect("still there");
        assert!(on_disk == *bytes, "{rel} was rewritten");
    }
    let doctor = s.run(&["doctor", "--json"]);
    assert_eq!(doctor.status.code(), Some(1));
    let found = json(&String::from_utf8_lossy(&doctor.stdout));
    assert_eq!(
        found["problems"].as_array().map(Vec::len),
        Some(cases.len())
    );
}

#[test]
fn bad_usage_gets_exit_2_and_a_clear_message() {
    let s = Sandbox::new();
    s.ok(&["init", "--agent", "claude"]);
    for (args, want) in [
        (
            vec!["apply", "../x", "--outcome", "applied"],
            "invalid learning id",
        ),
        (vec!["apply", "learning-1", "--outcome", "great"], "great"),
        (vec!["--agent", "a/b", "list"], "invalid agent name"),
        (vec!["list", "--trust", "L7"], "L7"),
        (vec!["frobnicate"], "frobnicate"),
    ] {
        let out = s.run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(want), "{args:?}: {stderr}");
    }
    let out = s.run(&["apply", "learning-unknown", "--outcome", "applied"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no learning with id learning-unknown"));
}

#[test]
fn commands_on_a_missing_dir_say_to_run_init() {
    let s = Sandbox::new();
    let out = s.run(&["list"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("learnsync init"));
}

#[test]
fn config_shows_values_and_sources_and_names_bad_files() {
    let s = Sandbox::new();
    s.ok(&["init", "--agent", "claude"]);
    let user_cfg = s.home().join(".config/learnsync/config.yaml");
    std::fs::create_dir_all(user_cfg.parent().expect("parent")).expect("mkdir");
    std::fs::write(
        &user_cfg,
        "gitea:\n  url: https://gitea.example\n  repo: team/learnings\n",
    )
    .expect("write");
    let cfg = json(&s.ok(&["config", "--json"]));
    assert_eq!(cfg["agent"]["value"], "claude");
    assert_eq!(cfg["agent"]["source"], ".git/learnsync/config.yaml");
    assert_eq!(
        cfg["gitea.url"]["source"],
        "~/.config/learnsync/config.yaml"
    );
    assert_eq!(cfg["dir"]["source"], "env LEARNSYNC_DIR");
    let env_wins = s
        .cmd(&["config", "--json"])
        .env("LEARNSYNC_AGENT", "ci-bot")
        .output()
        .expect("run");
    assert_eq!(
        json(&String::from_utf8_lossy(&env_wins.stdout))["agent"]["value"],
        "ci-bot"
    );

    std::fs::write(&user_cfg, "gitea:\n  url: [1, 2]\n").expect("write");
    let out = s.run(&["config"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("config.yaml") && err.contains("url"), "{err}");
}

#[test]
fn an_interrupted_cycle_is_finished_by_the_next_one() {
    let s = Sandbox::new();
    s.ok(&["init", "--agent", "claude"]);
    let id = s.add_learning("t", "c");
    let out = s
        .cmd(&["sync"])
        .env("LEARNSYNC_FAULT", "commit:after-ref")
        .output()
        .expect("run");
    assert!(
        !out.status.success(),
        "the fault point must abort the cycle"
    );
    // The ref moved, the work tree did not: the next sync completes it.
    assert!(s.git(&["ls-files"]).is_empty() || !s.dir().join(format!("claude/{id}.md")).exists());
    s.ok(&["sync"]);
    assert!(s.dir().join(format!("claude/{id}.md")).exists());
    assert_clean_and_sound(s.dir(), s.home());
    assert_eq!(json(&s.ok(&["list", "--json"]))[0]["id"], id.as_str());
}

#[test]
fn free_text_that_starts_with_a_dash_is_accepted_by_every_text_option() {
    let s = Sandbox::new();
    s.ok(&["init", "--agent", "claude"]);
    let body = "---\nid: learning-x\n- a markdown list item\n";
    let id = s
        .ok(&[
            "add",
            "--title",
            "-x is not a flag here",
            "--correction",
            "- run `hash -r` after installing",
            "--command",
            "-bash -c foo",
            "--error",
            "-bash: foo: command not found",
            "--keyword",
            "-shell",
            "--body",
            body,
        ])
        .trim()
        .to_string();
    let shown = json(&s.ok(&["show", &id, "--json"]));
    assert_eq!(shown["title"], "-x is not a flag here");
    assert_eq!(shown["correction"], "- run `hash -r` after installing");
    assert_eq!(shown["original_command"], "-bash -c foo");
    assert_eq!(shown["error_context"], "-bash: foo: command not found");
    assert_eq!(shown["keywords"][0], "-shell");
    assert_eq!(shown["body"], body);
    // The same values survive a sync into a committed file that parses back.
    s.ok(&["sync"]);
    let shown = json(&s.ok(&["show", &id, "--json"]));
    assert_eq!(shown["body"], body);
    assert_eq!(shown["in_inbox"], false);
    // `--opt=value` works too, as in git.
    let out = s.ok(&["add", "--title=-t", "--correction=-c"]);
    assert!(out.trim().starts_with("learning-"), "{out}");
}

/// What terraphim_agent reads from a file: the `trust_level` its YAML says.
fn claimed_level(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(bytes).replace("\r\n", "\n");
    let front = text.strip_prefix("---\n")?.split("\n---\n").next()?;
    let yaml: serde_norway::Value = serde_norway::from_str(front).ok()?;
    Some(
        yaml.get("trust_level")
            .and_then(|v| v.as_str())
            .unwrap_or("L1")
            .to_string(),
    )
}

/// Every learning file of a commit against what `list` computes.
fn claims_match_the_evidence(s: &Sandbox, rev: &str) {
    let listed = json(&s.ok(&["list", "--json"]));
    let listed = listed.as_array().expect("array");
    let files = s.git(&["ls-tree", "-r", "--name-only", rev]);
    let mut checked = 0;
    for rel in files
        .lines()
        .filter(|p| p.ends_with(".md") && !p.starts_with("shared/"))
    {
        let bytes = s.git(&["show", &format!("{rev}:{rel}")]).into_bytes();
        let Some(claim) = claimed_level(&bytes) else {
            continue; // unreadable: reported, takes no part in trust
        };
        let Some(entry) = listed.iter().find(|l| l["path"] == rel) else {
            continue;
        };
        assert_eq!(
            Some(claim.as_str()),
            entry["trust_level"].as_str(),
            "{rev}:{rel} claims {claim}, the evidence gives {}",
            entry["trust_level"]
        );
        checked += 1;
    }
    assert!(checked > 0, "no learning checked in {rev}");
}

#[test]
fn adopted_learnings_never_keep_a_trust_level_their_evidence_does_not_give() {
    for name in ["terraphim", "terraphim-claims"] {
        let s = Sandbox::new();
        copy_tree(&fixtures::path(name), s.dir());
        s.ok(&["init", "--agent", "claude"]);
        // The first commit that holds the files already tells the truth.
        claims_match_the_evidence(&s, "HEAD");
        assert_eq!(s.git(&["rev-list", "--count", "HEAD"]).trim(), "1");
        s.ok(&["sync"]);
        claims_match_the_evidence(&s, "HEAD");
        assert_clean_and_sound(s.dir(), s.home());
    }

    let s = Sandbox::new();
    let src = fixtures::path("terraphim-claims");
    copy_tree(&src, s.dir());
    s.ok(&["init", "--agent", "claude"]);
    let committed = |rel: &str| s.git(&["show", &format!("HEAD:{rel}")]);
    let original = |rel: &str| std::fs::read_to_string(src.join(rel)).expect("fixture");

    // A forged L3: only the derived fields change, every other line is the author's.
    let rel = "claude/learning-claims-l3.md";
    let now = committed(rel);
    assert!(now.contains("\ntrust_level: L1\n"), "{now}");
    assert!(now.contains("\npromoted_at: null\n"), "{now}");
    assert!(
        now.contains("\n  applied_count: 0\n  effective_count: 0\n"),
        "{now}"
    );
    assert!(now.contains("\nsuggestion_status: pending\n"), "{now}");
    let derived = [
        "promoted_at:",
        "trust_level:",
        "quality:",
        "  ",
        "suggestion_status:",
    ];
    let kept = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| !derived.iter().any(|d| l.starts_with(d)))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(kept(&now), kept(&original(rel)));
    assert!(
        now.contains("captured_at: 2025-05-02T09:15:27.123456+00:00\n"),
        "{now}"
    );

    // A correction makes L1 whatever the file says; evidence makes L2.
    assert!(committed("codex/learning-claims-l0.md").contains("\ntrust_level: L1\n"));
    let earned = committed("claude/learning-earned-l2.md");
    assert!(earned.contains("\ntrust_level: L2\n"), "{earned}");
    assert!(
        earned.contains("\npromoted_at: 2025-05-06T10:00:00Z\n"),
        "{earned}"
    );
    // A file that already tells the truth is committed byte for byte.
    assert_eq!(
        committed("claude/learning-honest.md"),
        original("claude/learning-honest.md")
    );
    // The work tree holds what was committed.
    assert_eq!(
        std::fs::read_to_string(s.dir().join(rel)).expect("file"),
        now
    );
    let shown = json(&s.ok(&["show", "learning-claims-l3", "--json"]));
    assert_eq!(shown["trust_level"], "L1");
    assert_eq!(shown["quality"]["applied_count"], 0);
}

#[test]
fn doctor_checks_a_user_template_dir_renders_as_meant() {
    let s = Sandbox::new();
    s.ok(&["init", "--agent", "claude"]);
    let templates = s.root().join("templates");
    std::fs::create_dir_all(&templates).expect("mkdir");
    let config = s.dir().join(".git/learnsync/config.yaml");
    let mut text = std::fs::read_to_string(&config).expect("config");
    text.push_str(&format!("wiki:\n  template_dir: {}\n", templates.display()));
    std::fs::write(&config, text).expect("write");
    // An override that is fine: doctor is happy.
    std::fs::write(
        templates.join("keyword.md"),
        "# {{ title }}\n\n{% for l in learnings %}\n- [{{ l.title }}]({{ l.link }})\n{% endfor %}\n\n[Home](Home)\n",
    )
    .expect("write");
    let out = s.run(&["doctor"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // One that glues its footer onto the last list item is named, with the fix.
    std::fs::write(
        templates.join("keyword.md"),
        "# {{ title }}\n\n{% for l in learnings %}\n- [{{ l.title }}]({{ l.link }})\n{% endfor %}\n[Home](Home)\n",
    )
    .expect("write");
    let out = s.run(&["doctor"]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!(
            "{}: on the page",
            templates.join("keyword.md").display()
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("put a blank line after the list"),
        "{stdout}"
    );
    // A template that does not compile is named too.
    std::fs::write(templates.join("home.md"), "{% if %}").expect("write");
    let out = s.run(&["doctor"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("home.md"), "{stdout}");
}

/// `sync` runs with the allocator settings that give each phase's freed
/// memory back (it re-executes itself with them); a `GLIBC_TUNABLES` the
/// user set is left as it is, and a short command never re-executes.
#[test]
fn sync_runs_with_the_allocator_settings_and_leaves_a_users_alone() {
    let sb = Sandbox::new();
    sb.ok(&["init", "--agent", "claude"]);
    let stderr = |args: &[&str], tunables: Option<&str>| {
        let mut c = sb.cmd(args);
        c.env("LEARNSYNC_LOG", "learnsync=debug");
        match tunables {
            Some(v) => c.env("GLIBC_TUNABLES", v),
            None => c.env_remove("GLIBC_TUNABLES"),
        };
        let out = c.output().expect("run learnsync");
        assert!(out.status.success(), "{args:?}: {out:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let tuned = "allocator: glibc.malloc.mmap_threshold=1048576:glibc.malloc.arena_max=2";
    let said = stderr(&["sync"], None);
    assert!(said.contains(tuned), "{said}");
    let said = stderr(&["sync"], Some("glibc.malloc.check=0"));
    assert!(said.contains("allocator: glibc's defaults"), "{said}");
    assert!(!said.contains(tuned), "{said}");
    let said = stderr(&["list"], None);
    assert!(!said.contains("allocator:"), "{said}");
}
