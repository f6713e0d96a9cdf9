//! The human output of every command whose output is stable, compared whole
//! with `tests/snapshots/*.snap`, so a changed message is a diff someone
//! reviews: `init` (adopting a dir, and an empty one), `add`, `apply`,
//! `status`, `sync`, `list`, `show`, `suggest` (a hit at L2, and nothing),
//! `query`, `context`, `kg check` (a problem, and healthy), `impact`,
//! `index`, `export --dry-run`, `hooks install claude --dry-run`, `doctor`,
//! `config`, `daemon --check`, `watch --stop` (no watcher), `publish
//! --dry-run --target git-wiki`, and the errors of refused inputs (an
//! unknown or invalid id, a blank one, a blank title).
//!
//! Left out: `completions` and `man` (generated from the same definitions
//! as help, checked by `cli_docs`), `capture` (a hook: JSON in, JSON out,
//! `capture_*`), `review` (needs a Gitea server, `review_gitea`) and
//! `daemon` itself (a running service, `daemon_*`).
//!
//! The learnings have fixed ids (written as a person would, then adopted)
//! so the snapshots show real lines in a stable order; what changes from
//! run to run is replaced by the filters of
//! `common::snapshot::Filters::standard`, plus a few narrow ones where a
//! single test needs it. Every command runs from `shop/` in the sandbox, so
//! the project (the current directory's base name) and relative paths do
//! not depend on where the checkout is.

use super::common::Sandbox;
use super::common::git::bare;
use super::common::snapshot::{Filters, assert_snapshot, render};

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
        "source: manual\noriginal_command: git push -f\nerror_context: 'remote: rejected'\n\
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
        "source: BashHook\noriginal_command: npm ci\n",
        "npm ci needs a lockfile.",
    );
}

/// A sandbox with the seeded dir adopted as `claude`, and a bare `hub`.
fn adopted() -> Sandbox {
    let s = Sandbox::new();
    seed(&s);
    let hub = s.root().join("hub.git");
    bare(&hub);
    s.init_with_hub("claude", hub.display());
    s
}

/// Three `effective` from two agents: L1 → L2 at the next sync.
fn evidence(s: &Sandbox) {
    s.effective_from(
        "learning-git-force-with-lease",
        &["claude", "codex", "claude"],
    );
}

/// Runs `learnsync <args>` and compares the whole output with snapshot `name`.
fn snapshot(s: &Sandbox, name: &str, args: &[&str]) {
    snapshot_with(s, name, args, Filters::standard(s.root()));
}

/// The same with `filters` (the standard ones and a test's own), run from
/// the sandbox's `shop/` with no terraphim store named by the environment.
fn snapshot_with(s: &Sandbox, name: &str, args: &[&str], filters: Filters) {
    let cwd = s.root().join("shop");
    std::fs::create_dir_all(&cwd).expect("mkdir shop");
    let out = s
        .cmd(args)
        .current_dir(&cwd)
        .env_remove("TERRAPHIM_DEFAULT_DATA_PATH")
        .output()
        .expect("run learnsync");
    // Each argument filtered before it is quoted: a temp dir with a space
    // in it must not change the command line.
    let line: Vec<String> = args.iter().map(|a| quoted(&filters.apply(a))).collect();
    let text = render(&format!("learnsync {}", line.join(" ")), &out);
    assert_snapshot(name, &filters.apply(&text));
}

/// `arg` as a shell would need it: a blank id or a title of several words
/// reads as one argument in the snapshot's command line. The brackets of a
/// placeholder (`[TMP]`) are left bare.
fn quoted(arg: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./=:,@%+[]".contains(c);
    if !arg.is_empty() && arg.chars().all(plain) {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

/// The adopted sandbox with the evidence synced: one learning at each of
/// L0, L1 and L2, nothing in the inbox.
fn proven() -> Sandbox {
    let s = adopted();
    evidence(&s);
    s.ok(&["sync"]);
    s
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

#[test]
fn init_adopts_a_dir_and_initialises_an_empty_one() {
    let s = Sandbox::new();
    seed(&s);
    let hub = s.root().join("hub.git");
    bare(&hub);
    let remote = format!("hub={}", hub.display());
    snapshot(
        &s,
        "init_adopt",
        &["init", "--agent", "claude", "--remote", &remote],
    );

    let empty = Sandbox::new();
    std::fs::create_dir_all(empty.dir()).expect("mkdir learnings");
    snapshot(&empty, "init_empty_dir", &["init", "--agent", "claude"]);
}

#[test]
fn add_and_apply_say_what_they_recorded() {
    let s = adopted();
    snapshot(
        &s,
        "add",
        &[
            "add",
            "--title",
            "Quote globs passed to find",
            "--correction",
            "find . -name '*.rs'",
        ],
    );
    snapshot(
        &s,
        "apply",
        &[
            "--agent",
            "codex",
            "apply",
            "learning-git-force-with-lease",
            "--outcome",
            "effective",
        ],
    );
}

#[test]
fn show_prints_a_learning_as_its_file_reads() {
    let s = proven();
    snapshot(&s, "show", &["show", "learning-git-force-with-lease"]);
}

#[test]
fn suggest_finds_an_l2_learning_or_nothing() {
    let s = proven();
    snapshot(&s, "suggest_l2", &["suggest", "git", "push", "rejected"]);
    snapshot(
        &s,
        "suggest_nothing",
        &["suggest", "kubectl", "rollout", "stuck"],
    );
}

#[test]
fn query_ranks_for_a_person() {
    let s = proven();
    snapshot(&s, "query", &["query", "cargo", "fmt"]);
}

#[test]
fn context_frames_the_session_notes() {
    let s = proven();
    snapshot(&s, "context", &["context"]);
}

#[test]
fn kg_check_with_a_problem_and_healthy() {
    let s = adopted();
    let kg = s.dir().join("kg");
    std::fs::create_dir_all(&kg).expect("mkdir kg");
    std::fs::write(
        kg.join("force-push.md"),
        "# force-push\n\nRewriting a remote branch's history.\n\n\
         synonyms: force push\n\
         synonyms:: push -f, force-with-lease\n\
         related:: protected-branch\n",
    )
    .expect("write kg file");
    snapshot(&s, "kg_check_with_problems", &["kg", "check"]);
    std::fs::write(
        kg.join("force-push.md"),
        "# force-push\n\nRewriting a remote branch's history.\n\n\
         synonyms:: force push, push -f, force-with-lease\n\
         related:: protected-branch\n",
    )
    .expect("fix kg file");
    std::fs::write(
        kg.join("protected-branch.md"),
        "# protected-branch\n\nsynonyms:: protected branch, branch protection\n",
    )
    .expect("write kg file");
    snapshot(&s, "kg_check_healthy", &["kg", "check"]);
}

#[test]
fn impact_tables_per_learning_and_per_agent() {
    let s = adopted();
    evidence(&s);
    s.ok(&["apply", "learning-rust-cargo-fmt", "--outcome", "applied"]);
    s.ok(&[
        "--agent",
        "codex",
        "apply",
        "learning-rust-cargo-fmt",
        "--outcome",
        "ineffective",
    ]);
    snapshot(&s, "impact", &["impact"]);
}

#[test]
fn index_builds_both_indexes() {
    let s = proven();
    // "in 4 ms": how long this build took.
    let filters =
        Filters::standard(s.root()).pattern("INDEX-MILLIS", r"\bin \d+ ms\b", "in [DURATION]");
    snapshot_with(&s, "index", &["index"], filters);
}

#[test]
fn export_dry_run_names_what_it_would_write() {
    let s = proven();
    let to = s.root().join("shop/CLAUDE.md");
    let to = to.to_str().expect("utf-8 path");
    snapshot(
        &s,
        "export_dry_run",
        &[
            "export",
            "--dry-run",
            "--format",
            "claude-md",
            "--to",
            to,
            "--min-trust",
            "L2",
        ],
    );
}

#[test]
fn hooks_install_claude_dry_run_prints_the_diff() {
    let s = adopted();
    // The hook runs this binary, wherever cargo built it.
    let bin = super::common::bin();
    let filters = Filters::standard(s.root()).literal("BIN", bin.display().to_string());
    snapshot_with(
        &s,
        "hooks_install_claude_dry_run",
        &["hooks", "install", "claude", "--dry-run"],
        filters,
    );
}

#[test]
fn daemon_check_shows_each_schedule() {
    let s = adopted();
    // The hints quote the config path for the shell when the temp dir
    // needs it (a TMPDIR with a space): the same line either way.
    let filters =
        Filters::standard(s.root()).pattern("QUOTED-TMP", r">> '\[TMP\]([^']*)'", ">> [TMP]$1");
    snapshot_with(&s, "daemon_check", &["daemon", "--check"], filters);
}

#[test]
fn watch_stop_with_no_watcher_running() {
    let s = adopted();
    snapshot(&s, "watch_stop_none_running", &["watch", "--stop"]);
}

#[test]
fn publish_dry_run_to_a_git_wiki_plans_the_pages() {
    let s = proven();
    let wiki = s.root().join("wiki.git");
    bare(&wiki);
    let config = s.dir().join(".git/learnsync/config.yaml");
    let mut text = std::fs::read_to_string(&config).expect("read config");
    text.push_str(&format!("wiki:\n  git_url: \"{}\"\n", wiki.display()));
    std::fs::write(&config, text).expect("write config");
    snapshot(
        &s,
        "publish_dry_run_git_wiki",
        &["publish", "--dry-run", "--target", "git-wiki"],
    );
}

#[test]
fn refused_inputs_say_why() {
    let s = adopted();
    snapshot(&s, "show_unknown_id", &["show", "learning-nope"]);
    snapshot(&s, "show_invalid_id", &["show", "bad id"]);
    snapshot(
        &s,
        "apply_blank_id",
        &["apply", "", "--outcome", "effective"],
    );
    snapshot(
        &s,
        "apply_unknown_id",
        &["apply", "learning-nope", "--outcome", "effective"],
    );
    snapshot(
        &s,
        "add_blank_title",
        &["add", "--title", " ", "--correction", "cargo fmt"],
    );
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
