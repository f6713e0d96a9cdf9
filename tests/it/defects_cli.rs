//! Defects a new user and an adversary found in the command line (issue 29),
//! each through the real binary: a closed or full stdout, flags after free
//! text, blank titles, `--dir` naming a file, `config`'s defaults, long
//! bodies from a file, and `review` on a machine with no git identity.

use crate::common::gitea_server::{BOT_TOKEN, GiteaServer, MAINTAINER, Protection};
use crate::common::learnings::{l2_files, never_stale};
use crate::common::{Sandbox, json, scrub, stderr, with_stdin};
use std::io::{BufRead, BufReader, Read};
use std::process::{Output, Stdio};

// Item 2: writing to a closed or full stdout.

/// What every crash of the old writer said: Rust's panic on a failed `println!`.
fn assert_no_panic(out: &Output) {
    let err = stderr(out);
    assert!(
        !err.contains("panicked") && !err.contains("failed printing"),
        "{err}"
    );
    assert_ne!(out.status.code(), Some(101), "{err}");
}

/// Runs `args` with stdout a pipe whose reader takes the first `keep`
/// bytes and goes away, as `| head -c` does.
fn run_into_closed_pipe(s: &Sandbox, args: &[&str], keep: usize) -> (Vec<u8>, Output) {
    let mut child = s
        .cmd(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut read = vec![0u8; keep];
    {
        let mut pipe = child.stdout.take().expect("stdout");
        pipe.read_exact(&mut read)
            .unwrap_or_else(|e| panic!("{args:?}: the first {keep} bytes: {e}"));
    }
    (read, child.wait_with_output().expect("wait"))
}

#[test]
fn a_reader_that_goes_away_ends_the_output_quietly_with_exit_0() {
    let s = Sandbox::new();
    s.ok(&["init", "--agent", "claude"]);
    never_stale(&s);
    // Far more than a pipe holds (64 KiB), so the writes outlive the reader.
    l2_files(s.dir(), "claude", 1500);
    s.sync_offline();

    // `learnsync list | head -1`
    let mut child = s
        .cmd(&["list"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut first = String::new();
    {
        let mut lines = BufReader::new(child.stdout.take().expect("stdout"));
        lines.read_line(&mut first).expect("one line");
    }
    let out = child.wait_with_output().expect("wait");
    assert!(first.starts_with("learning-"), "{first}");
    assert_no_panic(&out);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("error"), "{}", stderr(&out));

    // `learnsync --json list | head -c 10`, and every printing command.
    for args in [
        &["--json", "list"][..],
        &["list", "--trust", "L2"],
        &["context", "--max-chars", "1000000"],
        &["man"],
    ] {
        let (head, out) = run_into_closed_pipe(&s, args, 10);
        assert_eq!(head.len(), 10);
        assert_no_panic(&out);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn a_full_stdout_fails_with_exit_1_and_names_the_learning_that_was_recorded() {
    let s = Sandbox::new();
    s.ok(&["init", "--agent", "claude"]);
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full")
    };
    // `learnsync add … > /dev/full`
    let out = s
        .cmd(&["add", "--title", "Use rsync -a", "--correction", "rsync -a"])
        .stdout(full())
        .output()
        .expect("run");
    assert_no_panic(&out);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("cannot write to stdout") && err.contains("No space left"),
        "{err}"
    );
    // The learning was written, and the message says which one it is.
    let listed = json(&s.ok(&["--json", "list"]));
    let id = listed[0]["id"].as_str().expect("the learning was recorded");
    assert_eq!(listed[0]["title"], "Use rsync -a");
    assert!(err.contains(id), "{err}");

    for args in [&["list"][..], &["--json", "show", id], &["config"]] {
        let out = s.cmd(args).stdout(full()).output().expect("run");
        assert_no_panic(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("cannot write to stdout"), "{args:?}");
    }
}

// Item 3: flags after free text.

#[test]
fn flags_after_the_text_of_query_and_suggest_are_flags() {
    let s = Sandbox::new();
    s.ok(&["init", "--agent", "claude"]);
    let unverified = s.add_learning(
        "raft snapshot install fails on a large state machine",
        "raise the snapshot chunk size",
    );
    let trusted = s.add_learning(
        "raft snapshot install fails after a leader change",
        "retry the snapshot install from the new leader",
    );
    s.add_learning("docker volume permission denied", "chown the volume");
    s.effective_from(&trusted, &["a", "b", "a"]);
    s.sync_offline();
    let ids = |v: serde_json::Value| -> Vec<String> {
        v.as_array()
            .expect("array")
            .iter()
            .map(|h| h["id"].as_str().expect("id").to_string())
            .collect()
    };
    let both = ids(json(
        &s.ok(&["query", "--json", "raft", "snapshot", "install"]),
    ));
    assert_eq!(both.len(), 2, "{both:?}");
    assert!(both.contains(&unverified) && both.contains(&trusted));
    // Before, after and between the words: the same answer.
    for args in [
        &["query", "--json", "--trust", "L2", "raft snapshot install"][..],
        &["query", "raft snapshot install", "--trust", "L2", "--json"],
        &[
            "query", "raft", "snapshot", "install", "--json", "--trust", "L2",
        ],
        &[
            "--json", "query", "raft", "snapshot", "--trust", "L2", "install",
        ],
    ] {
        assert_eq!(ids(json(&s.ok(args))), vec![trusted.clone()], "{args:?}");
    }
    for args in [
        &["suggest", "--json", "--limit", "1", "raft snapshot install"][..],
        &[
            "suggest", "raft", "snapshot", "install", "--limit", "1", "--json",
        ],
        &[
            "suggest", "raft", "snapshot", "--json", "install", "--limit", "1",
        ],
    ] {
        assert_eq!(ids(json(&s.ok(args))), vec![trusted.clone()], "{args:?}");
    }
    // Several words still need no quotes, and the first may start with `-`.
    let hits = ids(json(
        &s.ok(&["suggest", "--json", "raft", "snapshot", "install"]),
    ));
    assert_eq!(hits.len(), 2, "{hits:?}");
    let hits = ids(json(&s.ok(&["query", "-raft snapshot install", "--json"])));
    assert_eq!(hits.len(), 2, "{hits:?}");
    // A later word starting with `-` goes after `--`; before it, a usage
    // error says so.
    let out = s.run(&["query", "raft", "--bogus"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("-- --bogus"), "{}", stderr(&out));
    let hits =
        ids(json(&s.ok(&[
            "query", "--json", "raft", "snapshot", "--", "-install",
        ])));
    assert_eq!(hits.len(), 2, "{hits:?}");
}

// Item 6: blank titles and corrections.

/// The titles `list` shows: what was written.
fn titles(s: &Sandbox) -> Vec<String> {
    json(&s.ok(&["--json", "list"]))
        .as_array()
        .expect("array")
        .iter()
        .map(|l| l["title"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn a_blank_title_or_correction_is_refused_with_exit_2_naming_the_flag() {
    let s = Sandbox::new();
    s.ok(&["init", "--agent", "claude"]);
    for (title, correction, flag) in [
        ("", "use x", "--title"),
        ("   \t", "use x", "--title"),
        ("a title", "", "--correction"),
        ("a title", " \n ", "--correction"),
    ] {
        let out = s.run(&["add", "--title", title, "--correction", correction]);
        assert_eq!(out.status.code(), Some(2), "{title:?} {correction:?}");
        let err = stderr(&out);
        assert!(err.contains(flag) && err.contains("blank"), "{err}");
    }
    assert!(titles(&s).is_empty(), "nothing was written");
}

// Item 12: `--dir` naming a file; `config` showing the defaults in force.

#[test]
fn a_dir_that_is_a_file_is_a_usage_error_naming_it() {
    let s = Sandbox::new();
    let file = s.root().join("notes.md");
    std::fs::write(&file, "not a dir\n").expect("write");
    let shown = file.display().to_string();
    for args in [
        vec!["--dir", shown.as_str(), "list"],
        vec!["--dir", shown.as_str(), "init"],
        vec!["--dir", shown.as_str(), "config"],
    ] {
        let out = s.run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.contains(&shown) && err.contains("is a file, not a directory"),
            "{err}"
        );
        assert!(
            err.contains("--dir") && !err.contains("config.yaml"),
            "{err}"
        );
    }
    let out = s
        .cmd(&["list"])
        .env("LEARNSYNC_DIR", &file)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("LEARNSYNC_DIR"), "{}", stderr(&out));
    // A dir below a file can never be made: the file is named.
    let below = format!("{shown}/learnings");
    let out = s.run(&["--dir", &below, "init"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains(&format!("{shown} is a file")), "{err}");
    assert!(std::fs::read_to_string(&file).expect("read") == "not a dir\n");
}

#[test]
fn config_shows_the_defaults_in_force_and_null_only_for_what_is_unset() {
    let s = Sandbox::new();
    s.ok(&["init", "--agent", "claude"]);
    let cfg = json(&s.ok(&["config", "--json"]));
    let row = |key: &str| (cfg[key]["value"].clone(), cfg[key]["source"].clone());
    assert_eq!(row("author.name"), ("claude".into(), "default".into()));
    assert_eq!(
        row("author.email"),
        ("claude@learnsync.invalid".into(), "default".into())
    );
    assert_eq!(row("lock_wait_secs").0, "30");
    assert_eq!(row("wiki.branch").0, "(the wiki remote's HEAD)");
    for unset in ["gitea.url", "gitea.token", "hub", "daemon.listen"] {
        assert!(row(unset).0.is_null(), "{unset}: {:?}", row(unset));
    }
    assert!(!s.ok(&["config", "--json"]).contains("(unset)"));
    let text = s.ok(&["config"]);
    let line = |key: &str| {
        text.lines()
            .find(|l| l.split_whitespace().next() == Some(key))
            .unwrap_or_else(|| panic!("{key} in {text}"))
            .to_string()
    };
    assert!(line("author.name").contains("claude  (default)"), "{text}");
    assert!(line("gitea.url").ends_with("(unset)"), "{text}");
    // The identity shown is the one commits carry.
    s.ok(&["add", "--title", "t", "--correction", "c"]);
    s.sync_offline();
    assert_eq!(
        s.git(&["log", "-1", "--format=%an <%ae>"]).trim(),
        "claude <claude@learnsync.invalid>"
    );
}

// Item 14: long bodies from a file or stdin.

/// A body longer than one argument may be (128 KiB), with a token in it.
fn long_body() -> (String, String) {
    let token = "ghp_Z3x9Qm2Lk7Vb4Nc8Rt1Yw6Pa5Sd0Fg3Hj7Kq";
    let mut body = String::from("# Why\n\n");
    while body.len() < 300 * 1024 {
        body.push_str("The migration locks the table; run it in batches of 1000 rows.\n");
    }
    body.push_str(&format!("export GH_TOKEN={token}\n"));
    (body, token.to_string())
}

#[test]
fn add_reads_a_long_body_from_a_file_or_stdin_and_redacts_it() {
    let s = Sandbox::new();
    s.ok(&["init", "--agent", "claude"]);
    let (body, token) = long_body();
    let file = s.root().join("body.md");
    std::fs::write(&file, &body).expect("write");
    let from_file = s.ok(&[
        "add",
        "--title",
        "Batch big migrations",
        "--correction",
        "migrate in batches",
        "--body-file",
        &file.display().to_string(),
    ]);
    let from_stdin = with_stdin(
        s.cmd(&[
            "add",
            "--title",
            "Batch big migrations (stdin)",
            "--correction",
            "migrate in batches",
            "--body-file",
            "-",
        ]),
        body.as_bytes(),
    );
    assert!(from_stdin.status.success());
    for id in [
        from_file.trim().to_string(),
        String::from_utf8_lossy(&from_stdin.stdout)
            .trim()
            .to_string(),
    ] {
        let shown = json(&s.ok(&["--json", "show", &id]));
        let got = shown["body"].as_str().expect("body");
        assert!(got.len() > 300 * 1024, "{}", got.len());
        assert!(got.starts_with("# Why\n\nThe migration locks the table"));
        assert!(
            !got.contains(&token) && got.contains("[REDACTED:"),
            "redacted"
        );
    }
}

#[test]
fn a_body_file_that_cannot_be_used_is_a_clear_error_and_nothing_is_written() {
    let s = Sandbox::new();
    s.ok(&["init", "--agent", "claude"]);
    let missing = s.root().join("no-such-body.md");
    let huge = s.root().join("huge.md");
    std::fs::write(&huge, "x".repeat(1024 * 1024 + 10)).expect("write");
    // Under the file limit alone, over it with the frontmatter.
    let nearly = s.root().join("nearly.md");
    std::fs::write(&nearly, "y".repeat(1024 * 1024 - 20)).expect("write");
    let add_with = |path: &std::path::Path| {
        s.run(&[
            "add",
            "--title",
            "t",
            "--correction",
            "c",
            "--body-file",
            &path.display().to_string(),
        ])
    };
    let out = add_with(&missing);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains(&missing.display().to_string()) && err.contains("No such file"),
        "{err}"
    );
    for path in [&huge, &nearly] {
        let out = add_with(path);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains("1048576 byte limit") && err.contains("nothing was written"),
            "{err}"
        );
    }
    let out = s.run(&[
        "add",
        "--title",
        "t",
        "--correction",
        "c",
        "--body",
        "b",
        "--body-file",
        &huge.display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("cannot be used with"),
        "{}",
        stderr(&out)
    );
    assert!(titles(&s).is_empty(), "nothing was written");
    let inbox = s.dir().join(".git/learnsync/inbox");
    let queued = std::fs::read_dir(&inbox).map_or(0, |d| d.count());
    assert_eq!(queued, 0, "the inbox is empty");
}

// Item 15: `review` on a machine with no git identity.

#[test]
fn review_without_a_git_identity_fetches_the_hub_as_sync_does() {
    let s = Sandbox::new();
    let server = GiteaServer::start();
    s.init_with_hub("a", server.repo_git_path().display());
    l2_files(s.dir(), "a", 1);
    s.ok(&["sync"]);
    let sha = server.branch_sha("agents/a").expect("pushed");
    server.hub_git(&["update-ref", "refs/heads/main", &sha]);
    server.protect(Protection::new("main").merge_whitelist(&[MAINTAINER]));
    let config = s.dir().join(".git/learnsync/config.yaml");
    let mut text = std::fs::read_to_string(&config).expect("config");
    text.push_str(&format!(
        "gitea:\n  url: {}\n  repo: {}\n",
        server.url(),
        server.repo_ref()
    ));
    std::fs::write(&config, text).expect("write config");
    // The Sandbox has no git identity (GIT_CONFIG_GLOBAL names no file).
    let mut git = std::process::Command::new("git");
    git.current_dir(s.dir()).args(["config", "user.email"]);
    scrub(&mut git, s.home());
    assert!(!git.output().expect("git").status.success());
    let out = s
        .cmd(&["review"])
        .env("GITEA_TOKEN", BOT_TOKEN)
        .output()
        .expect("review");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        !err.contains("committer") && !err.contains("could not fetch"),
        "{err}"
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Proposed"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
