//! The sync cycle across machines, with real git: bare hubs by path and
//! `file://`, a `git daemon` on 127.0.0.1, clones fetching from each other,
//! offline remotes, rejected pushes, the lock, forged trust from a peer.

use crate::common;

use common::git::{GitDaemon, assert_clean_and_sound, bare};
use common::learnings::review_on_hub;
use common::{Sandbox, json};
use std::path::Path;

fn add(m: &Sandbox, title: &str) -> String {
    m.add_learning(title, &format!("fix for {title}"))
}

fn ids(m: &Sandbox) -> Vec<String> {
    m.list()
        .iter()
        .filter_map(|l| l["id"].as_str().map(str::to_string))
        .collect()
}

/// A bare hub and two machines (agents `a` and `b`) that sync through it.
fn pair(tmp: &Path, agent_a: &str, agent_b: &str) -> (std::path::PathBuf, Sandbox, Sandbox) {
    let hub = tmp.join("hub.git");
    bare(&hub);
    let (a, b) = pair_at(tmp, &hub.display().to_string(), agent_a, agent_b);
    (hub, a, b)
}

/// Two machines whose remote `hub` is `url`.
fn pair_at(tmp: &Path, url: &str, agent_a: &str, agent_b: &str) -> (Sandbox, Sandbox) {
    let a = Sandbox::machine_on_hub(tmp, "a", agent_a, url);
    let b = Sandbox::machine_on_hub(tmp, "b", agent_b, url);
    (a, b)
}

fn assert_converged(machines: &[&Sandbox]) {
    let first = machines[0].learning_and_event_files();
    assert!(!first.is_empty());
    for m in &machines[1..] {
        let other = m.learning_and_event_files();
        assert_eq!(
            first.keys().collect::<Vec<_>>(),
            other.keys().collect::<Vec<_>>(),
            "{} differs in files",
            m.dir().display()
        );
        for (path, bytes) in &first {
            assert!(
                other.get(path) == Some(bytes),
                "{path} differs on {}",
                m.dir().display()
            );
        }
    }
    for m in machines {
        assert_clean_and_sound(m.dir(), m.home());
    }
}

#[test]
fn sync_merges_two_agents_without_conflict_through_a_bare_hub() {
    let tmp = tempfile::tempdir().expect("tmp");
    let hub = tmp.path().join("hub.git");
    bare(&hub);
    let a = Sandbox::machine(tmp.path(), "a");
    let b = Sandbox::machine(tmp.path(), "b");
    a.init_with_hub("claude", hub.display());
    b.ok(&[
        "init",
        "--agent",
        "codex",
        "--remote",
        &format!("hub=file://{}", hub.display()),
    ]);
    let la = add(&a, "from claude");
    let lb = add(&b, "from codex");
    a.ok(&["sync"]);
    b.ok(&["sync"]);
    // Evidence from both agents on the same learning, written concurrently.
    a.ok(&["apply", &la, "--outcome", "effective"]);
    b.ok(&["apply", &la, "--outcome", "effective"]);
    b.ok(&["apply", &la, "--outcome", "effective"]);
    b.ok(&["sync"]);
    a.ok(&["sync"]);
    b.ok(&["sync"]);
    assert_converged(&[&a, &b]);
    assert_eq!(ids(&a), {
        let mut v = vec![la.clone(), lb];
        v.sort();
        v
    });
    let shown = json(&a.ok(&["show", &la, "--json"]));
    assert_eq!(shown["trust_level"], "L2", "3 effective from 2 agents");
    assert_eq!(
        shown["quality"]["agent_names"],
        serde_json::json!(["claude", "codex"])
    );
    // Real merge commits, no conflict markers anywhere in history.
    let merges = a.git(&["log", "--merges", "--format=%H"]);
    assert!(!merges.trim().is_empty(), "a merge commit was made");
    let history = a.git(&["log", "-p", "--all"]);
    assert!(!history.contains("<<<<<<<") && !history.contains(">>>>>>>"));
    let branches = common::git::git_in(&hub, a.home(), &["branch", "--format=%(refname:short)"]);
    assert_eq!(
        branches.lines().collect::<Vec<_>>(),
        ["agents/claude", "agents/codex"]
    );
}

#[test]
fn three_and_five_clones_sharing_a_hub_and_fetching_from_each_other_converge() {
    for n in [3usize, 5] {
        let tmp = tempfile::tempdir().expect("tmp");
        let hub = tmp.path().join("hub.git");
        bare(&hub);
        let machines: Vec<Sandbox> = (0..n)
            .map(|i| Sandbox::machine(tmp.path(), &format!("m{i}")))
            .collect();
        for (i, m) in machines.iter().enumerate() {
            let next = &machines[(i + 1) % n];
            m.ok(&[
                "init",
                "--agent",
                &format!("agent{i}"),
                "--remote",
                &format!("hub={}", hub.display()),
                "--remote",
                &format!("peer={}", next.dir().display()),
            ]);
        }
        // Peers are reached directly and read-only: only the hub is pushed to.
        for m in &machines {
            std::fs::write(
                m.dir().join(".git/learnsync/config.yaml"),
                format!(
                    "{}remotes:\n  - {{name: hub}}\n  - {{name: peer, push: false}}\n",
                    std::fs::read_to_string(m.dir().join(".git/learnsync/config.yaml"))
                        .expect("config")
                ),
            )
            .expect("config");
        }
        let mut all = Vec::new();
        for (i, m) in machines.iter().enumerate() {
            all.push(add(m, &format!("learning {i}")));
            m.ok(&["sync"]);
        }
        for m in &machines {
            m.ok(&["sync"]);
        }
        for (i, m) in machines.iter().enumerate() {
            m.ok(&["apply", &all[(i + 1) % n], "--outcome", "effective"]);
        }
        for _ in 0..2 {
            for m in &machines {
                m.ok(&["sync"]);
            }
        }
        let refs: Vec<&Sandbox> = machines.iter().collect();
        assert_converged(&refs);
        all.sort();
        assert_eq!(ids(&machines[0]), all, "n = {n}");
    }
}

#[test]
fn sync_over_git_daemon_on_localhost() {
    let tmp = tempfile::tempdir().expect("tmp");
    let served = tmp.path().join("served");
    std::fs::create_dir_all(&served).expect("mkdir");
    bare(&served.join("hub.git"));
    let daemon = GitDaemon::start(&served);
    let url = daemon.url("hub.git");
    let (a, b) = pair_at(tmp.path(), &url, "claude", "codex");
    let la = add(&a, "over git://");
    a.ok(&["sync"]);
    b.ok(&["sync"]);
    assert_eq!(ids(&b), vec![la]);
    let lb = add(&b, "back over git://");
    b.ok(&["sync"]);
    a.ok(&["sync"]);
    assert!(ids(&a).contains(&lb));
    assert_converged(&[&a, &b]);
    drop(daemon);
    // With the daemon gone the remote is unreachable: reported, exit 3, local work still committed.
    add(&a, "while offline");
    let out = a.run(&["sync", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = json(&String::from_utf8_lossy(&out.stdout));
    assert!(
        report["commit"].is_string(),
        "the local commit went through"
    );
    assert!(
        !report["remotes"][0]["errors"]
            .as_array()
            .expect("errors")
            .is_empty()
    );
    assert_clean_and_sound(a.dir(), a.home());
}

#[test]
fn an_unreachable_remote_is_skipped_and_the_others_still_sync() {
    let tmp = tempfile::tempdir().expect("tmp");
    let hub = tmp.path().join("hub.git");
    bare(&hub);
    let a = Sandbox::machine(tmp.path(), "a");
    a.ok(&[
        "init",
        "--agent",
        "claude",
        "--remote",
        "gone=/nonexistent/learnings.git",
        "--remote",
        &format!("hub={}", hub.display()),
        "--hub",
        "hub",
    ]);
    let id = add(&a, "still shared");
    let out = a.run(&["sync", "--json"]);
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("remote gone"), "{stderr}");
    let report = json(&String::from_utf8_lossy(&out.stdout));
    let hub_report = report["remotes"]
        .as_array()
        .expect("remotes")
        .iter()
        .find(|r| r["name"] == "hub")
        .cloned()
        .expect("hub");
    assert_eq!(hub_report["pushed"], true);
    let pushed = common::git::git_in(
        &hub,
        a.home(),
        &["ls-tree", "-r", "--name-only", "agents/claude"],
    );
    assert!(pushed.contains(&id));
}

#[test]
fn a_rejected_push_fetches_merges_and_retries() {
    let tmp = tempfile::tempdir().expect("tmp");
    let hub = tmp.path().join("hub.git");
    bare(&hub);
    // Two machines of the same agent: both push agents/claude.
    let laptop = Sandbox::machine(tmp.path(), "laptop");
    let desktop = Sandbox::machine(tmp.path(), "desktop");
    for m in [&laptop, &desktop] {
        m.init_with_hub("claude", hub.display());
    }
    let l1 = add(&laptop, "from the laptop");
    laptop.ok(&["sync"]);
    let l2 = add(&desktop, "from the desktop");
    let report = json(&desktop.ok(&["sync", "--json"]));
    assert_eq!(report["remotes"][0]["pushed"], true);
    laptop.ok(&["sync"]);
    assert_converged(&[&laptop, &desktop]);
    let mut want = vec![l1, l2];
    want.sort();
    assert_eq!(ids(&laptop), want);
    let on_hub = common::git::git_in(
        &hub,
        laptop.home(),
        &["ls-tree", "-r", "--name-only", "agents/claude"],
    );
    for id in &want {
        assert!(on_hub.contains(id.as_str()));
    }

    // Force a real rejection: the hub moves between our fetch and our push.
    let l3 = add(&laptop, "raced");
    let l4 = add(&desktop, "racing");
    desktop.ok(&["sync"]);
    let out = laptop.run(&["sync", "--no-fetch", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = json(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(report["remotes"][0]["pushed"], true);
    assert_eq!(
        report["remotes"][0]["push_attempts"], 2,
        "first push rejected, second after merge"
    );
    desktop.ok(&["sync"]);
    assert_converged(&[&laptop, &desktop]);
    assert!(ids(&desktop).contains(&l3) && ids(&laptop).contains(&l4));
}

#[test]
fn a_second_sync_waits_then_exits_4_naming_the_holder() {
    let tmp = tempfile::tempdir().expect("tmp");
    let a = Sandbox::machine(tmp.path(), "a");
    a.ok(&["init", "--agent", "claude"]);
    let lock = learnsync::store::SyncLock::acquire(
        &a.dir().join(".git/learnsync/lock"),
        std::time::Duration::from_secs(1),
        "the test",
    )
    .expect("lock");
    let out = a.run(&["sync", "--wait", "1"]);
    assert_eq!(out.status.code(), Some(4));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("pid {}", std::process::id())) && stderr.contains("the test"),
        "{stderr}"
    );
    drop(lock);
    a.ok(&["sync", "--wait", "1"]);
}

#[test]
fn a_forged_promotion_from_a_peer_is_recomputed_away() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (_hub, honest, forger) = pair(tmp.path(), "claude", "mallory");
    let id = add(&forger, "trust me");
    forger.ok(&["sync"]);
    // The forger edits the committed file by hand and pushes with plain git.
    let rel = format!("mallory/{id}.md");
    let path = forger.dir().join(&rel);
    let text = std::fs::read_to_string(&path).expect("read");
    let forged = text
        .replace("trust_level: L1", "trust_level: L3")
        .replace("  effective_count: 0", "  effective_count: 99")
        .replace("suggestion_status: pending", "suggestion_status: approved");
    std::fs::write(&path, forged).expect("write");
    forger.git(&[
        "-c",
        "user.name=m",
        "-c",
        "user.email=m@x",
        "commit",
        "-qam",
        "promote myself",
    ]);
    forger.git(&["push", "-q", "hub", "agents/mallory"]);
    // A forged review on the peer's own branch does not count either.
    honest.ok(&["sync"]);
    let committed = honest.git(&["show", &format!("HEAD:{rel}")]);
    assert!(committed.contains("trust_level: L1"), "{committed}");
    assert!(committed.contains("  effective_count: 0"));
    assert!(committed.contains("suggestion_status: pending"));
    assert_eq!(
        json(&honest.ok(&["show", &id, "--json"]))["trust_level"],
        "L1"
    );
    assert_clean_and_sound(honest.dir(), honest.home());
}

#[test]
fn an_unparseable_version_from_a_peer_is_kept_under_conflicts() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (_hub, a, b) = pair(tmp.path(), "claude", "codex");
    let id = add(&a, "good");
    a.ok(&["sync"]);
    b.ok(&["sync"]);
    let rel = format!("claude/{id}.md");
    std::fs::write(b.dir().join(&rel), "---\ntitle: [broken by hand\n---\n").expect("write");
    b.ok(&["sync"]);
    let good_edit = std::fs::read_to_string(a.dir().join(&rel))
        .expect("read")
        .replace("title: good", "title: better")
        .replace(
            "updated_at: ",
            "updated_at: 2099-01-01T00:00:00Z\nold_updated_at: ",
        );
    std::fs::write(a.dir().join(&rel), good_edit).expect("write");
    a.ok(&["sync"]);
    let kept = a.git(&["ls-files", ".learnsync/conflicts"]);
    assert!(
        kept.contains("claude__"),
        "the broken bytes are kept: {kept:?}"
    );
    let content =
        std::fs::read_to_string(a.dir().join(kept.lines().next().expect("one"))).expect("read");
    assert!(content.contains("broken by hand"));
    assert!(
        std::fs::read_to_string(a.dir().join(&rel))
            .expect("read")
            .contains("title: better")
    );
    assert_clean_and_sound(a.dir(), a.home());
}

#[test]
fn a_process_killed_at_every_step_leaves_a_repository_the_next_sync_completes() {
    let points = [
        "commit:before-ref",
        "commit:after-ref",
        "commit:after-worktree",
        "commit:after-inbox",
        "merge:before-ref",
        "merge:after-ref",
        "merge:after-worktree",
    ];
    for point in points {
        let tmp = tempfile::tempdir().expect("tmp");
        let (_hub, a, b) = pair(tmp.path(), "claude", "codex");
        let from_b = add(&b, "from b");
        b.ok(&["apply", &from_b, "--outcome", "effective"]);
        b.ok(&["sync"]);
        let from_a = add(&a, "from a");
        a.ok(&["apply", &from_a, "--outcome", "applied"]);
        let out = a
            .cmd(&["sync"])
            .env("LEARNSYNC_FAULT", point)
            .output()
            .expect("run");
        assert!(
            !out.status.success(),
            "{point}: the fault must stop the process"
        );
        assert!(String::from_utf8_lossy(&out.stderr).contains(point));
        let out = a.run(&["sync"]);
        assert!(
            out.status.success(),
            "{point}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_clean_and_sound(a.dir(), a.home());
        let mut want = vec![from_a.clone(), from_b.clone()];
        want.sort();
        assert_eq!(ids(&a), want, "{point}: a learning was lost");
        let events = a
            .learning_and_event_files()
            .keys()
            .filter(|k| k.starts_with("events/"))
            .count();
        assert_eq!(events, 2, "{point}: events of both agents present");
        assert!(
            std::fs::read_dir(a.dir().join(".git/learnsync/inbox"))
                .expect("inbox")
                .next()
                .is_none(),
            "{point}: inbox drained"
        );
        b.ok(&["sync"]);
        assert_converged(&[&a, &b]);
    }
}

/// A work-tree write killed between its temp file and the rename leaves
/// `.tmp-<32 hex>-<name>` next to the file: the next sync removes it and
/// never commits it, while a user's own file with a look-alike name is
/// committed as any other file.
#[test]
fn temp_files_left_by_a_killed_work_tree_write_are_removed_not_committed() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (_hub, a, b) = pair(tmp.path(), "claude", "codex");
    let from_b = add(&b, "from b");
    b.ok(&["sync"]);
    a.ok(&["sync"]);
    let theirs = a.dir().join("codex").join(format!("{from_b}.md"));
    let bytes = std::fs::read(&theirs).expect("b's learning on a");
    // What a killed write leaves: a whole copy, and a half-written one.
    let whole = format!(".tmp-{}-{from_b}.md", "0123456789abcdef".repeat(2));
    let half = format!(".tmp-{}-{from_b}.md", "fedcba9876543210".repeat(2));
    std::fs::write(a.dir().join("codex").join(&whole), &bytes).expect("temp");
    std::fs::write(a.dir().join("codex").join(&half), &bytes[..bytes.len() / 2]).expect("temp");
    std::fs::write(a.dir().join(".tmp-notes.md"), "mine\n").expect("user file");
    // In the inbox, which hooks write without the sync lock, only a temp
    // old enough to be a killed hook's goes.
    let inbox = a.dir().join(".git/learnsync/inbox");
    std::fs::create_dir_all(&inbox).expect("inbox");
    let old_temp = inbox.join(format!(".tmp-{}-0001-x.md", "ab".repeat(16)));
    let new_temp = inbox.join(format!(".tmp-{}-0002-x.md", "cd".repeat(16)));
    for p in [&old_temp, &new_temp] {
        std::fs::write(p, "half a capture").expect("inbox temp");
    }
    std::fs::File::options()
        .write(true)
        .open(&old_temp)
        .and_then(|f| {
            f.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(3600))
        })
        .expect("age the temp");
    let report = json(&a.ok(&["sync", "--json"]));
    assert!(!old_temp.exists(), "a killed hook's temp is removed");
    assert!(
        new_temp.exists(),
        "a hook's temp being written is left alone"
    );
    let committed: Vec<&str> = report["committed_files"]
        .as_array()
        .expect("committed_files")
        .iter()
        .filter_map(|f| f.as_str())
        .collect();
    assert_eq!(committed, [".tmp-notes.md"], "{report}");
    for name in [&whole, &half] {
        assert!(
            !a.dir().join("codex").join(name).exists(),
            "{name} is still in the work tree"
        );
    }
    let tree = common::git::git_in(a.dir(), a.home(), &["ls-tree", "-r", "--name-only", "HEAD"]);
    assert!(
        !tree.contains(".tmp-0") && !tree.contains(".tmp-f"),
        "{tree}"
    );
    assert!(tree.contains(".tmp-notes.md"), "{tree}");
    assert_eq!(std::fs::read(&theirs).expect("still there"), bytes);
    assert_clean_and_sound(a.dir(), a.home());
}

/// A cycle that writes many objects writes them as one pack (index last);
/// killed between the two files, nothing is lost and the next sync ends
/// the job: the pack without an index is never read, and is written anew.
#[test]
fn a_sync_killed_between_a_new_pack_and_its_index_loses_nothing() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (_hub, a, b) = pair(tmp.path(), "claude", "codex");
    let now = learnsync::timestamp::Timestamp::from_unix(1_780_000_000);
    let mut made = Vec::new();
    for n in 0..120 {
        let id = format!("learning-{n:032x}-1780000000000");
        let mut l = learnsync::learning::Learning::new(
            id.clone(),
            "codex".into(),
            format!("lesson {n}"),
            now,
        );
        l.correction = Some(format!("do thing {n} instead"));
        let path = b.dir().join("codex").join(format!("{id}.md"));
        std::fs::create_dir_all(path.parent().expect("folder")).expect("mkdir");
        std::fs::write(path, l.to_markdown()).expect("write learning");
        made.push(id);
    }
    let out = b
        .cmd(&["sync"])
        .env("LEARNSYNC_FAULT", "objects:before-index")
        .output()
        .expect("run");
    assert!(!out.status.success(), "the fault must stop the process");
    assert!(String::from_utf8_lossy(&out.stderr).contains("objects:before-index"));
    let packs = b.dir().join(".git/objects/pack");
    let orphan = std::fs::read_dir(&packs)
        .expect("pack dir")
        .filter_map(|e| e.ok())
        .any(|e| e.file_name().to_string_lossy().ends_with(".pack"));
    assert!(orphan, "the kill came after the pack, before its index");
    b.ok(&["sync"]);
    assert_clean_and_sound(b.dir(), b.home());
    let indexed = std::fs::read_dir(&packs)
        .expect("pack dir")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".idx"))
        .count();
    assert!(indexed >= 1, "the second sync wrote its objects as a pack");
    made.sort();
    assert_eq!(ids(&b), made, "every learning committed");
    a.ok(&["sync"]);
    assert_eq!(ids(&a), made, "and pushed");
    assert_converged(&[&a, &b]);
}

#[test]
fn plain_git_remote_add_works_too() {
    let tmp = tempfile::tempdir().expect("tmp");
    let hub = tmp.path().join("hub.git");
    bare(&hub);
    let a = Sandbox::machine(tmp.path(), "a");
    a.ok(&["init", "--agent", "claude"]);
    a.git(&["remote", "add", "origin", &hub.display().to_string()]);
    let id = add(&a, "pushed via a plain git remote");
    a.ok(&["sync"]);
    let pushed = common::git::git_in(
        Path::new(&hub),
        a.home(),
        &["ls-tree", "-r", "--name-only", "agents/claude"],
    );
    assert!(pushed.contains(&id));
}

#[test]
fn sync_over_http_with_a_token_that_never_reaches_disk() {
    let tmp = tempfile::tempdir().expect("tmp");
    let served = tmp.path().join("served");
    std::fs::create_dir_all(&served).expect("mkdir");
    bare(&served.join("hub.git"));
    let token = "tok_9f8e7d6c5b4a39281706f5e4d3c2b1a0";
    let server = common::git_http::GitHttpServer::start(&served, Some(token));
    let url = server.url("hub.git");
    let (a, b) = pair_at(tmp.path(), &url, "claude", "codex");
    let id = add(&a, "over http");
    // Without the token the server refuses: reported, exit 3, nothing leaks.
    let out = a.run(&["sync"]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The token goes to the Gitea server only: here it is that server.
    let gitea = format!("http://127.0.0.1:{}", server.port);
    let with_token = |m: &Sandbox, args: &[&str]| {
        let out = m
            .cmd(args)
            .env("GITEA_TOKEN", token)
            .env("LEARNSYNC_GITEA_URL", &gitea)
            .output()
            .expect("run");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!all.contains(token), "the token was printed");
        assert!(all.contains("plain http"), "no warning about http: {all}");
    };
    with_token(&a, &["sync", "-vv"]);
    with_token(&b, &["sync", "-vv"]);
    assert_eq!(ids(&b), vec![id]);
    assert_converged(&[&a, &b]);
    for m in [&a, &b] {
        let grep = std::process::Command::new("grep")
            .args(["-r", "-l", token])
            .arg(m.dir())
            .output()
            .expect("grep");
        assert!(
            grep.stdout.is_empty(),
            "the token reached {}",
            String::from_utf8_lossy(&grep.stdout)
        );
    }
}

/// A header-logging git server on 127.0.0.1, reached under two names:
/// `127.0.0.1` is the Gitea host, `localhost` is another host. The token
/// reaches the Gitea host only, and no host at all without `gitea.url`.
#[test]
fn the_gitea_token_reaches_only_the_gitea_host() {
    let tmp = tempfile::tempdir().expect("tmp");
    let served = tmp.path().join("served");
    std::fs::create_dir_all(&served).expect("mkdir");
    bare(&served.join("gitea.git"));
    bare(&served.join("other.git"));
    let server = common::git_http::GitHttpServer::start(&served, None);
    let token = "tok_0a1b2c3d4e5f60718293a4b5c6d7e8f9";
    let a = Sandbox::machine(tmp.path(), "a");
    let gitea_remote = format!("gitea=http://127.0.0.1:{}/gitea.git", server.port);
    let other_remote = format!("other=http://localhost:{}/other.git", server.port);
    a.ok(&[
        "init",
        "--agent",
        "claude",
        "--remote",
        &gitea_remote,
        "--remote",
        &other_remote,
    ]);
    add(&a, "travels to two http remotes");
    let sync = |gitea_url: Option<&str>| {
        let mut c = a.cmd(&["sync"]);
        c.env("GITEA_TOKEN", token);
        if let Some(url) = gitea_url {
            c.env("LEARNSYNC_GITEA_URL", url);
        }
        let out = c.output().expect("run");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let with_token = |from: usize, repo: &str| {
        server.seen()[from..]
            .iter()
            .filter(|s| s.path.starts_with(repo))
            .map(|s| s.authorization.clone())
            .collect::<Vec<_>>()
    };

    // No gitea.url: neither host gets it, though both are http.
    sync(None);
    let seen = server.seen();
    assert!(
        seen.iter().any(|s| s.path.starts_with("/gitea.git"))
            && seen.iter().any(|s| s.path.starts_with("/other.git")),
        "both remotes were talked to: {seen:?}"
    );
    assert!(seen.iter().all(|s| s.authorization.is_none()), "{seen:?}");

    // gitea.url names 127.0.0.1: that host gets it (with a warning, it is
    // plain http), localhost on the same port does not.
    let from = server.seen().len();
    add(&a, "a second learning, so both push again");
    let stderr = sync(Some(&format!("http://127.0.0.1:{}", server.port)));
    assert!(stderr.contains("plain http"), "{stderr}");
    assert!(!stderr.contains(token), "{stderr}");
    let to_gitea = with_token(from, "/gitea.git");
    assert!(!to_gitea.is_empty());
    assert!(
        to_gitea
            .iter()
            .all(|a| a.as_deref() == Some(&format!("token {token}")[..])),
        "{to_gitea:?}"
    );
    let to_other = with_token(from, "/other.git");
    assert!(!to_other.is_empty());
    assert!(to_other.iter().all(Option::is_none), "{to_other:?}");

    // An https Gitea URL on the same host and port: never over http.
    let from = server.seen().len();
    add(&a, "a third learning");
    sync(Some(&format!("https://127.0.0.1:{}", server.port)));
    let seen = &server.seen()[from..];
    assert!(!seen.is_empty());
    assert!(seen.iter().all(|s| s.authorization.is_none()), "{seen:?}");
}

#[test]
fn a_missing_git_binary_is_a_clear_error_before_anything_moves() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (_hub, a, _b) = pair(tmp.path(), "claude", "codex");
    add(&a, "waits for git");
    let out = a
        .cmd(&["sync"])
        .env("PATH", tmp.path().join("empty-path"))
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("git binary") && stderr.contains("2.30"),
        "{stderr}"
    );
    // Nothing moved: the capture is still in the inbox, and the next sync does the whole cycle.
    assert!(
        std::fs::read_dir(a.dir().join(".git/learnsync/inbox"))
            .expect("inbox")
            .next()
            .is_some()
    );
    let report = json(&a.ok(&["sync", "--json"]));
    assert_eq!(report["inbox_learnings"], 1);
    assert_eq!(report["remotes"][0]["pushed"], true);
    assert_clean_and_sound(a.dir(), a.home());
}

#[test]
fn an_approval_on_hub_main_makes_l3_and_an_edit_sends_it_back() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (hub, a, _b) = pair(tmp.path(), "claude", "codex");
    let id = add(&a, "approve me");
    a.ok(&["sync"]);
    let rel = format!("claude/{id}.md");
    // A maintainer merges the review into the hub's main (here: plain git).
    review_on_hub(&a, &hub, &[(&id, "approved")]);

    let report = json(&a.ok(&["sync", "--json"]));
    assert_eq!(report["promoted"][0]["to"], "L3", "{report}");
    assert_eq!(json(&a.ok(&["show", &id, "--json"]))["trust_level"], "L3");
    assert!(
        a.git(&["show", &format!("HEAD:{rel}")])
            .contains("trust_level: L3")
    );

    // Editing the learning voids the approval of the old content.
    let edited = std::fs::read_to_string(a.dir().join(&rel))
        .expect("read")
        .replace(
            "correction: fix for approve me",
            "correction: a different fix",
        );
    std::fs::write(a.dir().join(&rel), edited).expect("write");
    a.ok(&["sync"]);
    assert_eq!(json(&a.ok(&["show", &id, "--json"]))["trust_level"], "L1");
    assert_clean_and_sound(a.dir(), a.home());
}

/// A sync that merges several peers adds one commit, whose parents are
/// where it stood and every head it merged: history grows with the syncs
/// that bring something, not with peers × syncs.
#[test]
fn a_sync_merging_many_heads_adds_one_commit() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (hub, a, b) = pair(tmp.path(), "claude", "codex");
    let c = Sandbox::machine_on_hub(tmp.path(), "c", "opencode", hub.display());
    let mine = add(&a, "a's own fix");
    a.ok(&["sync"]);
    let before = a.git(&["rev-parse", "HEAD"]);
    // b and c push without fetching: neither holds the other's head or a's.
    let from_b = add(&b, "b's fix");
    b.ok(&["sync", "--no-fetch"]);
    let from_c = add(&c, "c's fix");
    c.ok(&["sync", "--no-fetch"]);
    a.ok(&["sync"]);
    let parents = a.git(&["log", "-1", "--format=%P", "HEAD"]);
    let parents: Vec<&str> = parents.split_whitespace().collect();
    assert_eq!(
        parents.len(),
        3,
        "where a stood, b's head, c's head: {parents:?}"
    );
    assert_eq!(parents[0], before.trim());
    let new = a.git(&[
        "rev-list",
        "--count",
        &format!("{}..HEAD", before.trim()),
        "--not",
        "hub/agents/codex",
        "hub/agents/opencode",
    ]);
    assert_eq!(new.trim(), "1", "one commit of a's for the whole cycle");
    let listing = a.git(&["ls-tree", "-r", "--name-only", "HEAD"]);
    for id in [&mine, &from_b, &from_c] {
        assert!(listing.contains(id.as_str()), "{id} in a's tree: {listing}");
    }
    assert_eq!(a.git(&["status", "--porcelain"]), "");
}

/// A cycle killed after it merged and recomputed a peer's evidence, just
/// before its ref moved, while the peer's branch moves on: the next cycle
/// counts every event once, and the peer derives the same file.
#[test]
fn a_cycle_killed_after_merging_evidence_loses_none_and_counts_none_twice() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (_hub, a, b) = pair(tmp.path(), "claude", "codex");
    let id = add(&a, "shared fix");
    a.ok(&["sync"]);
    b.ok(&["sync"]);
    b.ok(&["apply", &id, "--outcome", "effective"]);
    b.ok(&["apply", &id, "--outcome", "effective"]);
    b.ok(&["sync"]);
    let out = a
        .cmd(&["sync"])
        .env("LEARNSYNC_FAULT", "merge:before-ref")
        .output()
        .expect("run");
    assert!(!out.status.success(), "the fault stops the cycle");
    assert!(String::from_utf8_lossy(&out.stderr).contains("merge:before-ref"));
    // b's branch moves on before a syncs again: one more effective.
    b.ok(&["apply", &id, "--outcome", "effective"]);
    b.ok(&["sync"]);
    a.ok(&["apply", &id, "--outcome", "effective"]);
    a.ok(&["sync"]);
    let shown = json(&a.ok(&["show", &id, "--json"]));
    assert_eq!(shown["trust_level"], "L2", "{shown}");
    // Each of the four counted once, none lost to the index's state.
    let file = a.git(&["show", &format!("HEAD:claude/{id}.md")]);
    assert!(file.contains("effective_count: 4"), "{file}");
    b.ok(&["sync"]);
    assert_eq!(
        b.git(&["show", &format!("HEAD:claude/{id}.md")]),
        file,
        "b derives the same file"
    );
    assert_clean_and_sound(a.dir(), a.home());
}

#[test]
fn a_cycle_is_one_commit_and_the_events_index_is_only_a_cache() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (_hub, a, b) = pair(tmp.path(), "claude", "codex");
    let id = add(&a, "shared fix");
    a.ok(&["sync"]);
    b.ok(&["sync"]);
    let index = a.dir().join(".git/learnsync/events.redb");
    assert!(index.is_file(), "the first sync keeps the events index");

    // Evidence on both sides; a's index is then broken on disk.
    b.ok(&["apply", &id, "--outcome", "effective"]);
    b.ok(&["apply", &id, "--outcome", "effective"]);
    b.ok(&["sync"]);
    a.ok(&["apply", &id, "--outcome", "effective"]);
    std::fs::write(&index, b"not a database").expect("break the index");
    let out = a.run(&["sync"]);
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("events index"), "said: {stderr}");
    let aside = a.dir().join(".git/learnsync/events.redb.unreadable");
    assert_eq!(
        std::fs::read(&aside).expect("the bad file is kept aside"),
        b"not a database"
    );
    let shown = json(&a.ok(&["show", &id, "--json"]));
    assert_eq!(
        shown["trust_level"], "L2",
        "3 effective from 2 agents, from a rebuilt index"
    );

    // History: one commit for the cycle — a's own event, the merge of b's
    // branch and the recomputed derived state (no separate own, merge or
    // recompute commit); its first parent is where a's branch stood.
    let subject = a.git(&["log", "-1", "--format=%s"]);
    assert_eq!(
        subject.trim(),
        "learnsync: 2 file(s) from claude, merge 1 head(s)"
    );
    let parents = a.git(&["log", "-1", "--format=%P", "HEAD"]);
    let parents: Vec<&str> = parents.split_whitespace().collect();
    assert_eq!(parents.len(), 2, "HEAD is the merge");
    assert_eq!(
        parents[1],
        a.git(&["rev-parse", "hub/agents/codex"]).trim(),
        "b's head is merged"
    );
    assert_eq!(
        a.git(&[
            "rev-list",
            "--count",
            &format!("{}..HEAD", parents[0]),
            "--not",
            "hub/agents/codex"
        ])
        .trim(),
        "1",
        "a's own event and the merge are one commit"
    );
    let mine = a.git(&["show", "--stat", "--format=", "HEAD"]);
    assert!(
        mine.contains("events/claude/"),
        "a's event is in it: {mine}"
    );
    let body = a.git(&["log", "-1", "--format=%b", "HEAD"]);
    assert!(body.contains("hub/agents/codex: "), "{body}");
    assert!(body.contains("Derived state recomputed"), "{body}");
    let merged = a.git(&["show", &format!("HEAD:claude/{id}.md")]);
    assert!(
        merged.contains("trust_level: L2"),
        "the cycle's commit carries the recomputed state"
    );

    // A lost index is rebuilt, and answers what the tree answers.
    std::fs::remove_file(&index).expect("lose the index");
    b.ok(&["apply", &id, "--outcome", "ineffective"]);
    b.ok(&["sync"]);
    a.ok(&["sync"]);
    assert!(index.is_file(), "rebuilt");
    a.ok(&["apply", &id, "--outcome", "effective"]);
    a.ok(&["sync"]);
    b.ok(&["sync"]);
    assert_converged(&[&a, &b]);
    let (on_a, on_b) = (
        json(&a.ok(&["show", &id, "--json"])),
        json(&b.ok(&["show", &id, "--json"])),
    );
    assert_eq!(on_a["quality"], on_b["quality"]);
    // Five outcomes; the counts are written as of the last milestone (§5:
    // the fourth outcome, a power of two, after the level last moved).
    assert_eq!(on_a["quality"]["applied_count"], 4);
}

/// Issue 32: an outcome rewrites a learning file (a new blob every clone
/// pushes) only at a milestone of its evidence: the level changing, or the
/// counted outcomes reaching a power of two. Between them only the events
/// file grows, and both machines still write the same bytes.
#[test]
fn evidence_rewrites_a_learning_file_only_at_its_milestones() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (_hub, a, b) = pair(tmp.path(), "claude", "codex");
    let id = add(&a, "shared fix");
    a.ok(&["sync"]);
    b.ok(&["sync"]);
    let path = format!("claude/{id}.md");
    let versions = |m: &Sandbox| {
        let log = m.git(&["log", "--format=%H", "--", &path]);
        let mut blobs: Vec<String> = log
            .lines()
            .map(|c| {
                m.git(&["rev-parse", &format!("{c}:{path}")])
                    .trim()
                    .to_string()
            })
            .collect();
        // Distinct versions: both machines' commits carry each one (the
        // same bytes), and commits of the same second list in either order.
        blobs.sort_unstable();
        blobs.dedup();
        blobs.len()
    };
    let before = versions(&a);
    // Seven outcomes shown to b's agent, one a cycle: counts 1 … 7.
    let mut written = Vec::new();
    for _ in 0..7 {
        b.ok(&["apply", &id, "--outcome", "applied"]);
        b.ok(&["sync"]);
        a.ok(&["sync"]);
        written.push(versions(&a) - before);
    }
    // Rewritten at 1, 2 and 4; not at 3, 5, 6, 7.
    assert_eq!(written, [1, 2, 2, 3, 3, 3, 3], "versions of {path}");
    let file = a.git(&["show", &format!("HEAD:{path}")]);
    assert!(file.contains("  applied_count: 4\n"), "{file}");
    // A promotion is a milestone of its own: exact counts at the change.
    for m in [&a, &b, &a] {
        m.ok(&["apply", &id, "--outcome", "effective"]);
        m.ok(&["sync"]);
    }
    b.ok(&["sync"]);
    assert_converged(&[&a, &b]);
    let file = a.git(&["show", &format!("HEAD:{path}")]);
    assert!(file.contains("trust_level: L2\n"), "{file}");
    assert!(file.contains("  effective_count: 3\n"), "{file}");
    // The promotion is the third effective outcome in (`at`, `id`) order:
    // all ten outcomes when it sorts last, but events of the same second
    // sort by their random ids, so an applied one may follow it; never
    // fewer than the eight of the power-of-two milestone.
    let applied: u64 = file
        .lines()
        .find_map(|l| l.strip_prefix("  applied_count: "))
        .and_then(|n| n.parse().ok())
        .expect("applied_count");
    assert!((8..=10).contains(&applied), "{file}");
}

/// Issue 32: a scheduled cycle (`--batch-evidence`, as the daemon runs it)
/// leaves outcome events in the inbox until enough wait, and sends them as
/// one commit; meanwhile the machine's own readers see them, a cycle with
/// anything else to commit takes them along, and a plain `sync` sends all.
#[test]
fn scheduled_cycles_send_evidence_in_batches() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (_hub, a, b) = pair(tmp.path(), "claude", "codex");
    let id = add(&a, "shared fix");
    a.ok(&["sync"]);
    b.ok(&["sync"]);
    let config = b.dir().join(".git/learnsync/config.yaml");
    let mut text = std::fs::read_to_string(&config).expect("config");
    text.push_str("daemon:\n  evidence_batch_events: 3\n  evidence_batch_secs: 3600\n");
    std::fs::write(&config, text).expect("write config");
    let commits = |m: &Sandbox| m.git(&["rev-list", "--count", "HEAD"]).trim().to_string();
    let events_on_hub = || {
        a.ok(&["sync"]);
        a.git(&[
            "log",
            "--format=%H",
            "hub/agents/codex",
            "--",
            "events/codex/",
        ])
        .lines()
        .count()
    };
    let waiting = |m: &Sandbox| {
        std::fs::read_dir(m.dir().join(".git/learnsync/inbox"))
            .map(|d| d.count())
            .unwrap_or(0)
    };
    let start = commits(&b);

    b.ok(&["apply", &id, "--outcome", "applied"]);
    let out = json(&b.ok(&["sync", "--batch-evidence", "--json"]));
    assert_eq!(out["held_events"], 1, "{out:#}");
    assert_eq!(out["commit"], serde_json::Value::Null, "{out:#}");
    assert_eq!(commits(&b), start, "nothing committed");
    assert_eq!(waiting(&b), 1, "the event waits in the inbox");
    let shown = json(&b.ok(&["show", &id, "--json"]));
    assert_eq!(
        shown["quality"]["applied_count"], 1,
        "b's own readers see it"
    );
    let said = b.ok(&["sync", "--batch-evidence"]);
    assert!(said.contains("Held 1 outcome event(s)"), "{said}");
    assert_eq!(events_on_hub(), 0, "nothing of b's evidence went out");

    // The third event makes the batch: one commit carries all three.
    b.ok(&["apply", &id, "--outcome", "applied"]);
    b.ok(&["apply", &id, "--outcome", "effective"]);
    let out = json(&b.ok(&["sync", "--batch-evidence", "--json"]));
    assert_eq!(out["held_events"], 0, "{out:#}");
    assert_eq!(out["inbox_events"], 3, "{out:#}");
    assert_eq!(events_on_hub(), 1, "one commit with the three events");
    let files = a.git(&[
        "ls-tree",
        "-r",
        "--name-only",
        "hub/agents/codex",
        "events/codex/",
    ]);
    let file = files.lines().next().expect("codex's events file");
    let lines = a.git(&["show", &format!("hub/agents/codex:{file}")]);
    assert_eq!(lines.lines().count(), 3, "{lines}");

    // A capture commits anyway: the waiting event goes with it.
    b.ok(&["apply", &id, "--outcome", "applied"]);
    add(&b, "b's own fix");
    let out = json(&b.ok(&["sync", "--batch-evidence", "--json"]));
    assert_eq!(out["inbox_events"], 1, "{out:#}");
    assert_eq!(out["held_events"], 0, "{out:#}");

    // A plain sync, as a person runs it, holds nothing.
    b.ok(&["apply", &id, "--outcome", "applied"]);
    let out = json(&b.ok(&["sync", "--json"]));
    assert_eq!(out["inbox_events"], 1, "{out:#}");
    assert_eq!(events_on_hub(), 3);
    assert_eq!(waiting(&b), 0, "the inbox is empty once all went out");
}

/// A cycle that writes thousands of objects (an import, a recompute of
/// every learning) pushes them as a whole pack instead of a thin one
/// (issue 32); the hub must end complete and another machine get it all.
#[test]
fn a_cycle_of_thousands_of_objects_reaches_the_hub_whole() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (hub, a, b) = pair(tmp.path(), "claude", "codex");
    let first = add(&a, "template fix");
    a.ok(&["sync"]);
    let template = std::fs::read_to_string(a.dir().join(format!("claude/{first}.md")))
        .expect("the template learning");
    for k in 0..2_100u32 {
        let id = format!("learning-{k:032x}-1780000000000");
        let text = template
            .replace(&first, &id)
            .replace("template fix", &format!("imported fix {k}"));
        std::fs::write(a.dir().join(format!("claude/{id}.md")), text).expect("write");
    }
    let out = json(&a.ok(&["sync", "--json"]));
    assert_eq!(out["remotes"][0]["pushed"], true, "{:#}", out["remotes"]);
    assert!(
        out["committed_files"].as_array().map_or(0, Vec::len) > 2_000,
        "an import of 2,100 learnings"
    );
    let fsck = std::process::Command::new("git")
        .args(["fsck", "--connectivity-only", "--no-dangling"])
        .current_dir(&hub)
        .output()
        .expect("git fsck");
    assert!(fsck.status.success(), "{fsck:?}");
    b.ok(&["sync"]);
    let listed = b.git(&["ls-tree", "--name-only", "HEAD", "claude/"]);
    assert_eq!(listed.lines().count(), 2_101, "b has every learning");
    assert_clean_and_sound(b.dir(), b.home());
}

/// Runs git in `m`'s dir with `input` on stdin; its trimmed stdout.
fn git_with_input(m: &Sandbox, args: &[&str], input: &str) -> String {
    let mut c = std::process::Command::new("git");
    c.current_dir(m.dir()).args(args);
    common::scrub(&mut c, m.home());
    let out = common::with_stdin(c, input.as_bytes());
    assert!(out.status.success(), "git {args:?} failed");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn a_peer_tree_holding_dot_git_or_dot_dot_never_reaches_our_tree_or_disk() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (_hub, honest, evil) = pair(tmp.path(), "claude", "mallory");
    add(&evil, "first");
    evil.ok(&["sync"]);
    honest.ok(&["sync"]);
    evil.ok(&["sync"]);
    // The next head of mallory contains honest's: merging it would be a
    // fast-forward. On top of a real learning, plain git adds `.git/config`
    // (a command for git to run) and an entry named `..`.
    let id = add(&evil, "looks useful");
    evil.ok(&["sync", "--no-push"]);
    let payload = "[core]\n\tfsmonitor = \"touch pwned\"\n";
    let hash = git_with_input(&evil, &["hash-object", "-w", "--stdin"], payload);
    let mktree = |listing: &str| git_with_input(&evil, &["mktree"], listing);
    let dot_git = mktree(&format!("100644 blob {hash}\tconfig\n"));
    let root = evil.git(&["ls-tree", "HEAD"])
        + &format!("040000 tree {dot_git}\t.git\n100644 blob {hash}\t..\n");
    let tree = mktree(&root);
    let commit = evil
        .git(&[
            "-c",
            "user.name=m",
            "-c",
            "user.email=m@x",
            "commit-tree",
            &tree,
            "-p",
            "HEAD",
            "-m",
            "nothing to see",
        ])
        .trim()
        .to_string();
    evil.git(&[
        "push",
        "-q",
        "hub",
        &format!("{commit}:refs/heads/agents/mallory"),
    ]);

    let config_before = std::fs::read(honest.dir().join(".git/config")).expect("config");
    let out = honest.run(&["sync"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "sync failed: {stderr}");
    assert!(
        stderr.contains("\".git\"") && stderr.contains("\"..\""),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(honest.dir().join(".git/config")).expect("config"),
        config_before,
        "a peer's tree rewrote our git config"
    );
    assert!(!honest.dir().join("pwned").exists());
    // The learning came through; the refused entries did not, and HEAD is a
    // merge of mallory's head, not mallory's head itself.
    assert!(ids(&honest).contains(&id));
    let listing = honest.git(&["ls-tree", "--name-only", "HEAD"]);
    assert!(
        !listing.lines().any(|l| l == ".git" || l == ".."),
        "{listing}"
    );
    assert_ne!(honest.git(&["rev-parse", "HEAD"]).trim(), commit);
    let merged = honest.git(&["log", "--merges", "--format=%P"]);
    assert!(
        merged.lines().any(|parents| parents.contains(&commit)),
        "mallory's head is not merged: {merged}"
    );
    assert_eq!(
        honest.git(&["status", "--porcelain", "--untracked-files=all"]),
        ""
    );
}

#[test]
fn a_lock_file_a_killed_process_left_never_wedges_a_sync() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (hub, a, b) = pair(tmp.path(), "claude", "codex");
    let first = add(&a, "before the crash");
    a.ok(&["sync"]);
    // What a `kill -9` in the middle of a write leaves: every kind of lock.
    let git = a.dir().join(".git");
    std::fs::create_dir_all(git.join("refs/remotes/hub/agents")).expect("mkdir");
    for lock in [
        "index.lock",
        "HEAD.lock",
        "packed-refs.lock",
        "shallow.lock",
        "config.lock",
        "FETCH_HEAD.lock",
        "ORIG_HEAD.lock",
        "refs/heads/agents/claude.lock",
        "refs/remotes/hub/agents/claude.lock",
    ] {
        std::fs::write(git.join(lock), format!("bytes of {lock}")).expect("lock");
    }
    // doctor says what is there and what the next sync does about it.
    let out = a.run(&["doctor"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        said.contains("index.lock: a git lock left by a process that died"),
        "{said}"
    );
    assert!(said.contains("refs/heads/agents/claude.lock"), "{said}");
    let second = add(&a, "after the crash");
    let report = json(&a.ok(&["sync", "--json"]));
    assert_eq!(
        report["stale_locks"].as_array().map(Vec::len),
        Some(9),
        "{report:#}"
    );
    assert_eq!(report["inbox_learnings"], 1);
    assert_clean_and_sound(a.dir(), a.home());
    // Nothing deleted: the bytes are kept aside.
    let kept: Vec<String> = std::fs::read_dir(git.join("learnsync/stale-locks"))
        .expect("stale-locks")
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).expect("read"))
        .collect();
    assert!(
        kept.contains(&"bytes of index.lock".to_string()),
        "{kept:?}"
    );
    assert!(String::from_utf8_lossy(&a.run(&["doctor"]).stdout).contains("No problems found"));
    // The next syncs share as before.
    b.ok(&["sync"]);
    let mut want = vec![first, second];
    want.sort();
    assert_eq!(ids(&b), want);
    let _ = hub;
}

#[test]
fn a_lock_a_running_git_holds_is_waited_for_and_then_named() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (_hub, a, _b) = pair(tmp.path(), "claude", "codex");
    add(&a, "one");
    a.ok(&["sync"]);
    // A git command in the middle of an index write, as a person's git
    // would be: a process named git, working in the repository, the lock
    // file open. (Modern git holds index.lock only for moments, which a
    // test cannot catch reliably, so a stand-in holds it for longer.)
    let bin = tmp.path().join("bin");
    std::fs::create_dir_all(&bin).expect("bin");
    let fake = bin.join("git");
    std::fs::write(
        &fake,
        "#!/bin/sh\n: > .git/index.lock\nexec 3<.git/index.lock\nsleep \"$1\"\nrm -f .git/index.lock\n",
    )
    .expect("script");
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    // Another test's fork can hold the script's write descriptor for a
    // moment (until its exec closes it): Linux then says "text file busy".
    let editor = |secs: u32| {
        let mut tries = 0;
        loop {
            match std::process::Command::new(&fake)
                .arg(secs.to_string())
                .current_dir(a.dir())
                .spawn()
            {
                Err(e) if e.raw_os_error() == Some(26) && tries < 50 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                other => break other.expect("git stand-in"),
            }
        }
    };
    let mut person = editor(30);
    let lock = a.dir().join(".git/index.lock");
    let t0 = std::time::Instant::now();
    while !lock.exists() && t0.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(lock.exists(), "the git stand-in took the index lock");
    add(&a, "two");
    let out = a.run(&["sync", "--wait", "1"]);
    assert_eq!(out.status.code(), Some(4), "busy while git holds the lock");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("{}", lock.display())), "{err}");
    assert!(err.contains(&format!("pid {}", person.id())), "{err}");
    assert!(err.contains("bin/git 30"), "{err}");
    assert!(err.contains("Let that command finish"), "{err}");
    assert!(lock.exists(), "a live lock is left alone");
    let said = String::from_utf8_lossy(&a.run(&["doctor"]).stdout).into_owned();
    assert!(said.contains("working in this repository now"), "{said}");
    let _ = person.kill();
    let _ = person.wait();

    // A short one is waited for, and the sync goes through.
    let mut person = editor(2);
    let t0 = std::time::Instant::now();
    while !lock.exists() && t0.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let report = json(&a.ok(&["sync", "--json", "--wait", "20"]));
    let _ = person.wait();
    assert_eq!(report["inbox_learnings"], 1, "{report:#}");
    assert_eq!(report["stale_locks"].as_array().map(Vec::len), Some(0));
}

/// A machine whose only remote answers each request after `delay`.
fn behind_a_slow_link(
    tmp: &Path,
    delay: std::time::Duration,
) -> (Sandbox, common::git_http::GitHttpServer) {
    let served = tmp.join("served");
    std::fs::create_dir_all(&served).expect("mkdir");
    bare(&served.join("hub.git"));
    let server = common::git_http::GitHttpServer::start_slow(&served, None, delay);
    let a = Sandbox::machine(tmp, "a");
    a.ok(&[
        "init",
        "--agent",
        "claude",
        "--remote",
        &format!("hub={}", server.url("hub.git")),
    ]);
    (a, server)
}

/// Ctrl-C during a slow fetch: the cycle stops at its next safe point, says
/// what it left and that the next sync finishes it (exit 130); the next
/// sync does, and nothing was lost.
#[test]
fn ctrl_c_during_a_slow_fetch_stops_at_a_safe_point_and_the_next_sync_finishes() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (a, server) = behind_a_slow_link(tmp.path(), std::time::Duration::from_millis(1000));
    let id = add(&a, "survives an interrupted sync");
    let child = a
        .cmd(&["sync"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    // Wait for the fetch to be under way, then interrupt learnsync alone
    // (its git child carries on, as after a SIGINT sent to one process).
    let started = std::time::Instant::now();
    while server.seen().is_empty() && started.elapsed() < std::time::Duration::from_secs(20) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let kill = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(kill.success());
    let out = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("stopping at the next safe point"),
        "{stderr}"
    );
    assert!(
        stderr.contains("the next `learnsync sync` finishes"),
        "{stderr}"
    );
    // The capture is committed, the tree is sound, and nothing reached the hub yet.
    assert!(
        a.git(&["ls-tree", "-r", "--name-only", "HEAD"])
            .contains(&id)
    );
    assert_clean_and_sound(a.dir(), a.home());
    // The next sync finishes the cycle.
    let out = a.run(&["sync"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pushed = common::git::git_in(
        &tmp.path().join("served/hub.git"),
        a.home(),
        &["ls-tree", "-r", "--name-only", "agents/claude"],
    );
    assert!(pushed.contains(&id), "{pushed}");
}

/// A slow step shows what it is on a terminal, and nothing when stderr is
/// not one.
#[test]
fn a_slow_fetch_shows_progress_on_a_terminal_only() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (a, _server) = behind_a_slow_link(tmp.path(), std::time::Duration::from_millis(1000));
    add(&a, "waits on a slow link");
    // Not a terminal: no progress line.
    let out = a.run(&["sync"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("fetching from"), "{stderr}");
    // A terminal (script(1) gives the process a pty): the step is named.
    add(&a, "and again");
    let inner = a.cmd(&["sync"]);
    let line = format!("{} sync", common::bin().display());
    let mut c = std::process::Command::new("script");
    c.args(["-qec", &line, "/dev/null"]);
    for (k, v) in inner.get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    let out = c
        .stdin(std::process::Stdio::null())
        .output()
        .expect("script");
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{shown}");
    assert!(shown.contains("fetching from hub"), "{shown}");
}
