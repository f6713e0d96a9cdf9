//! The human output of `status`, `sync`, `doctor`, `list` and `config`,
//! compared whole with `tests/snapshots/*.snap`, so a changed message is a
//! diff someone reviews. The learnings have fixed ids (written as a person
//! would, then adopted) so the snapshots show real lines in a stable order;
//! what changes from run to run is replaced by the filters of
//! `common::snapshot::Filters::standard`.

use super::common::snapshot::{Filters, assert_snapshot, render};
use super::common::{Sandbox, bare};

/// A learnings dir about to be adopted: three learnings by hand, one with no
/// correction yet (L0), two with one (L1, and one the evidence will raise).
/// `list` sorts by id: these start past `f`, so a generated id
/// (`learning-<hex>-…`) always sorts before them and the order is stable.
fn seed(s: &Sandbox) {
    let dir = s.dir().join("claude");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let learning = |id: &str, title: &str, extra: &str, body: &str| {
        std::fs::write(
            dir.join(format!("{id}.md")),
            format!(
                "---\nid: {id}\ntitle: '{title}'\nagent_id: claude\n\
                 captured_at: 2025-03-02T09:15:27Z\n{extra}---\n{body}\n"
            ),
        )
        .expect("write learning");
    };
    learning(
        "learning-git-force-with-lease",
        "Use --force-with-lease instead of --force",
        "source: manual\ncommand: git push -f\nerror: 'remote: rejected'\n\
         correction: git push --force-with-lease\nkeywords: [git]\n",
        "A plain force push overwrites a colleague's commits.",
    );
    learning(
        "learning-rust-cargo-fmt",
        "Run cargo fmt before committing",
        "source: manual\ncorrection: cargo fmt\n",
        "CI rejects unformatted code.",
    );
    learning(
        "learning-npm-ci-lockfile",
        "npm ci failed: no package-lock.json",
        "source: BashHook\ncommand: npm ci\n",
        "npm ci needs a lockfile.",
    );
}

/// A sandbox with the seeded dir adopted as `claude`, and a bare `hub`.
fn adopted() -> Sandbox {
    let s = Sandbox::new();
    seed(&s);
    let hub = s.tmp.path().join("hub.git");
    bare(&hub);
    let remote = format!("hub={}", hub.display());
    s.ok(&["init", "--agent", "claude", "--remote", &remote]);
    s
}

/// Three `effective` from two agents: L1 → L2 at the next sync.
fn evidence(s: &Sandbox) {
    for agent in ["claude", "codex", "claude"] {
        s.ok(&[
            "--agent",
            agent,
            "apply",
            "learning-git-force-with-lease",
            "--outcome",
            "effective",
        ]);
    }
}

/// Runs `learnsync <args>` and compares the whole output with snapshot `name`.
fn snapshot(s: &Sandbox, name: &str, args: &[&str]) {
    let out = s.run(args);
    let text = render(&format!("learnsync {}", args.join(" ")), &out);
    assert_snapshot(name, &Filters::standard(s.tmp.path()).apply(&text));
}

/// A learning typed by hand after the adoption: it waits in the inbox.
fn add_one(s: &Sandbox) {
    s.ok(&[
        "add",
        "--title",
        "Quote globs passed to find",
        "--correction",
        "find . -name '*.rs'",
    ]);
}

#[test]
fn sync_first_with_a_remote_then_a_no_op() {
    let s = adopted();
    add_one(&s);
    evidence(&s);
    snapshot(&s, "sync_first_with_a_remote", &["sync"]);
    snapshot(&s, "sync_no_op", &["sync"]);
}

#[test]
fn status_before_and_after_a_sync() {
    let s = adopted();
    evidence(&s);
    snapshot(&s, "status_before_first_sync", &["status"]);
    s.ok(&["sync"]);
    snapshot(&s, "status_after_sync", &["status"]);
}

#[test]
fn list_shows_each_trust_level_and_the_inbox() {
    let s = adopted();
    evidence(&s);
    s.ok(&["sync"]);
    add_one(&s);
    snapshot(&s, "list_every_level", &["list"]);
    snapshot(&s, "list_only_l2", &["list", "--trust", "L2"]);
}

#[test]
fn doctor_healthy_and_with_problems() {
    let s = adopted();
    s.ok(&["sync"]);
    snapshot(&s, "doctor_healthy", &["doctor"]);
    std::fs::write(
        s.dir().join("claude/learning-broken.md"),
        "---\nid: learning-broken\ntitle: [unclosed\n---\n",
    )
    .expect("write broken learning");
    std::fs::write(s.dir().join(".git/index.lock"), "").expect("write a dead process's lock");
    snapshot(&s, "doctor_with_problems", &["doctor"]);
}

#[test]
fn config_shows_each_value_and_where_it_came_from() {
    let s = adopted();
    snapshot(&s, "config", &["config"]);
}

/// The filters themselves: what they hide, and that they hide nothing else.
#[test]
fn snapshot_filters_hide_only_what_changes_between_runs() {
    let tmp = std::path::Path::new("/tmp/.tmpAbC123");
    let text = "dir: /tmp/.tmpAbC123/learnings\n\
                head: 1c21420da3a1a3858645e85a36ca5dcc7de431c0 then 354b9407c2ca17cbc9300dafdae64dffccea7600, \
                again 1c21420da3a1a3858645e85a36ca5dcc7de431c0\n\
                Committed (9d78a7b06712) learning-539b7f5d5766456e8118d68338524520-1796132575118\n\
                at 2026-12-01T13:43:17.008Z and 2025-03-02T09:15:27+00:00 in 0.31s, 12ms\n\
                http://127.0.0.1:38211/x, daemon pid 4242\n\
                schedule `30 * * * *`, learning-cargo-fmt, 3 learning(s), lock_wait_secs 30\n";
    assert_eq!(
        Filters::standard(tmp).apply(text),
        "dir: [TMP]/learnings\n\
         head: [COMMIT-1] then [COMMIT-2], again [COMMIT-1]\n\
         Committed ([SHORT-COMMIT-1]) [LEARNING-ID-1]\n\
         at [TIME] and [TIME] in [DURATION], [DURATION]\n\
         http://127.0.0.1:[PORT]/x, daemon pid [PID]\n\
         schedule `30 * * * *`, learning-cargo-fmt, 3 learning(s), lock_wait_secs 30\n"
    );
}
