//! The commit step and the work-tree scan as a user meets them (issue 29,
//! items 4, 5 and 16; issue 34, item 4): what the user staged with their own
//! git is committed, what does not parse or is too large is said precisely
//! (and what is too large never committed), `.gitignore` and the editors'
//! droppings are honoured, a secret left in a work-tree file is said once,
//! and a repository nested in the learnings dir is left out instead of
//! failing every sync.

use crate::common;

use common::git::{assert_clean_and_sound, bare, commit_all_as};
use common::watcher::{StopOnDrop, wait_for_watcher};
use common::{Sandbox, stderr, stdout};

/// A dir initialised as `claude` with one synced learning; its path.
fn synced_learning(s: &Sandbox) -> String {
    s.ok(&["init", "--agent", "claude"]);
    s.ok(&[
        "add",
        "--title",
        "Quote globs",
        "--correction",
        "find . -name '*.rs'",
    ]);
    s.ok(&["sync"]);
    s.git(&["ls-files", "claude/"]).trim().to_string()
}

/// The paths HEAD's tree holds.
fn head_paths(dir: &std::path::Path, home: &std::path::Path) -> Vec<String> {
    common::git::git_in(dir, home, &["ls-tree", "-r", "--name-only", "HEAD"])
        .lines()
        .map(str::to_string)
        .collect()
}

fn write(s: &Sandbox, rel: &str, bytes: impl AsRef<[u8]>) {
    let path = s.dir().join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, bytes).expect("write");
}

/// A learning file of `len` bytes that parses but for its size.
fn huge_learning(id: &str, agent: &str, len: usize) -> String {
    let head = format!(
        "---\nid: {id}\ntitle: huge\nagent_id: {agent}\ncaptured_at: 2026-01-01T00:00:00Z\n---\n"
    );
    head.clone() + &"x".repeat(len - head.len())
}

#[test]
fn a_learning_removed_with_git_rm_leaves_the_commit() {
    let s = Sandbox::new();
    let learning = synced_learning(&s);
    write(&s, "kg/git.md", "synonyms:: push, force push\n");
    s.ok(&["sync"]);
    s.git(&["rm", "-q", &learning]);
    s.git(&["rm", "-q", "kg/git.md"]);
    let out = s.ok(&["sync"]);
    assert!(out.starts_with("Committed 2 file(s)"), "{out}");
    let head = head_paths(s.dir(), s.home());
    assert!(!head.contains(&learning), "{head:?}");
    assert!(!head.iter().any(|p| p == "kg/git.md"), "{head:?}");
    assert_clean_and_sound(s.dir(), s.home());
    assert_eq!(s.ok(&["sync"]), "Nothing new to commit.\n");
}

#[test]
fn what_git_add_staged_is_committed_like_an_unstaged_edit() {
    let s = Sandbox::new();
    synced_learning(&s);
    write(&s, "kg/git.md", "synonyms:: push\n");
    s.ok(&["sync"]);
    // Staged with the user's git: the work tree equals the index, not HEAD.
    write(&s, "kg/git.md", "synonyms:: push, force push\n");
    write(&s, "kg/rust.md", "synonyms:: cargo, rustc\n");
    s.git(&["add", "kg/git.md", "kg/rust.md"]);
    let out = s.ok(&["sync"]);
    assert!(out.starts_with("Committed 2 file(s)"), "{out}");
    assert_eq!(
        s.committed("kg/git.md").as_deref(),
        Some("synonyms:: push, force push\n")
    );
    assert_eq!(
        s.committed("kg/rust.md").as_deref(),
        Some("synonyms:: cargo, rustc\n")
    );
    assert_clean_and_sound(s.dir(), s.home());
}

#[test]
fn a_file_removed_from_the_index_only_is_kept_unless_ignored() {
    let s = Sandbox::new();
    synced_learning(&s);
    write(&s, "kg/git.md", "synonyms:: push\n");
    write(&s, "kg/old.md", "synonyms:: old\n");
    s.ok(&["sync"]);
    // `git rm --cached` of a file the rules do not ignore: the dir still
    // holds it, so the sync keeps it; of one they ignore: it leaves.
    s.git(&["rm", "-q", "--cached", "kg/git.md", "kg/old.md"]);
    write(&s, ".gitignore", "kg/old.md\n");
    s.ok(&["sync"]);
    let head = head_paths(s.dir(), s.home());
    assert!(head.iter().any(|p| p == "kg/git.md"), "{head:?}");
    assert!(!head.iter().any(|p| p == "kg/old.md"), "{head:?}");
    assert!(s.dir().join("kg/old.md").exists(), "the file itself stays");
}

#[test]
fn an_unparseable_learning_is_said_to_be_committed_as_it_is() {
    let s = Sandbox::new();
    synced_learning(&s);
    write(&s, "claude/learning-broken.md", "no frontmatter here\n");
    let out = s.run(&["sync"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("claude/learning-broken.md: no YAML frontmatter")
            && err.contains("committed as it is, and left out of trust, search and publishing"),
        "{err}"
    );
    assert!(!err.contains("skipped"), "{err}");
    assert_eq!(
        s.committed("claude/learning-broken.md").as_deref(),
        Some("no frontmatter here\n")
    );
    assert_clean_and_sound(s.dir(), s.home());
}

#[test]
fn a_file_over_the_size_limit_is_never_committed_or_pushed_and_said_once() {
    let s = Sandbox::new();
    let hub = s.root().join("hub.git");
    bare(&hub);
    s.init_with_hub("claude", hub.display());
    let id = "learning-huge";
    let len = 1024 * 1024 + 10;
    write(
        &s,
        &format!("claude/{id}.md"),
        huge_learning(id, "claude", len),
    );
    write(&s, "kg/huge.md", "y".repeat(2 * 1024 * 1024));
    s.ok(&["add", "--title", "Small one", "--correction", "fine"]);
    let out = s.run(&["sync"]);
    // The rest went through: exit 0, and the file is said with its size,
    // the limit and what to do.
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "claude/{id}.md: {len} bytes, over the 1048576-byte limit: not committed or pushed"
        )) && err.contains("kg/huge.md: 2097152 bytes")
            && err.contains("make it smaller"),
        "{err}"
    );
    assert!(stdout(&out).contains("Pushed agents/claude to hub"));
    let head = head_paths(s.dir(), s.home());
    assert!(
        !head.iter().any(|p| p.ends_with("huge.md")),
        "committed: {head:?}"
    );
    let pushed = common::git::git_in(
        &hub,
        s.home(),
        &["ls-tree", "-r", "--name-only", "agents/claude"],
    );
    assert!(!pushed.contains("huge"), "pushed: {pushed}");
    assert!(
        pushed.contains("claude/learning-"),
        "the rest was pushed: {pushed}"
    );
    // Later syncs succeed and do not say it again; `doctor` always does.
    let again = s.run(&["sync"]);
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(stderr(&again), "");
    assert_eq!(
        stdout(&again),
        "Nothing new to commit.\nhub already has agents/claude\n"
    );
    let doctor = s.run(&["doctor"]);
    assert_eq!(doctor.status.code(), Some(1));
    let found = stdout(&doctor);
    assert!(
        found.contains(&format!(
            "claude/{id}.md: {len} bytes, over the 1048576-byte limit"
        )) && found.contains("kg/huge.md: 2097152 bytes"),
        "{found}"
    );
    assert_eq!(
        found.matches(&format!("claude/{id}.md")).count(),
        1,
        "said once, in its own words: {found}"
    );
    // A committed file that grows past the limit keeps its last version.
    write(&s, "kg/small.md", "synonyms:: deploy\n");
    s.ok(&["sync"]);
    write(&s, "kg/small.md", "z".repeat(1024 * 1024 + 1));
    let grown = s.run(&["sync"]);
    assert_eq!(grown.status.code(), Some(0));
    assert!(stderr(&grown).contains("kg/small.md: 1048577 bytes"));
    assert_eq!(
        s.committed("kg/small.md").as_deref(),
        Some("synonyms:: deploy\n")
    );
}

#[test]
fn a_peers_file_over_the_size_limit_does_not_break_the_sync() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let hub = tmp.path().join("hub.git");
    bare(&hub);
    let a = Sandbox::machine_on_hub(tmp.path(), "a", "alice", hub.display());
    let b = Sandbox::machine_on_hub(tmp.path(), "b", "bob", hub.display());
    b.ok(&["sync"]);
    // Bob's branch gets, by some other tool, files no sync would commit.
    let len = 1024 * 1024 + 100;
    std::fs::create_dir_all(b.dir().join("bob")).expect("mkdir");
    std::fs::write(
        b.dir().join("bob/learning-huge.md"),
        huge_learning("learning-huge", "bob", len),
    )
    .expect("write");
    std::fs::create_dir_all(b.dir().join("kg")).expect("mkdir");
    std::fs::write(b.dir().join("kg/huge.md"), "k".repeat(len)).expect("write");
    commit_all_as(b.dir(), b.home(), "bob", "bob@example.org", "huge files");
    b.git(&["push", "-q", "hub", "agents/bob"]);
    a.ok(&["add", "--title", "Alice's", "--correction", "fine"]);
    let out = a.run(&["sync"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&out),
        stderr(&out)
    );
    assert_clean_and_sound(a.dir(), a.home());
    let again = a.run(&["sync"]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert!(stdout(&again).contains("Nothing new to commit."));
    assert_clean_and_sound(a.dir(), a.home());
    // The learning that cannot be read is no learning, and says so.
    let listed = a.ok(&["list"]);
    assert!(!listed.contains("learning-huge"), "{listed}");
}

#[test]
fn gitignore_exclude_and_editor_droppings_are_neither_committed_nor_reported() {
    let s = Sandbox::new();
    synced_learning(&s);
    write(&s, ".gitignore", "drafts/\n*.log\n!keep.tmp\n");
    write(&s, "kg/.gitignore", "*.bak\n");
    write(&s, ".git/info/exclude", "scratch.md\n");
    for dropping in [
        "claude/.learning-x.md.swp",
        "claude/learning-x.md~",
        "claude/#learning-x.md#",
        ".DS_Store",
        "kg/.DS_Store",
        "Thumbs.db",
        "desktop.ini",
        "notes.tmp",
        "drafts/claude/learning-draft.md",
        "drafts/notes.md",
        "build.log",
        "kg/terms.bak",
        "scratch.md",
    ] {
        write(&s, dropping, "not for sharing\n");
    }
    // Emacs's lock file is a symlink: ignored, not "skipped".
    std::os::unix::fs::symlink("/nowhere", s.dir().join("claude/.#learning-x.md"))
        .expect("symlink");
    write(&s, "keep.tmp", "wanted\n");
    write(&s, "kg/terms.md", "synonyms:: deploy, release\n");
    let out = s.run(&["sync"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stderr(&out), "", "nothing ignored is reported");
    let mut head = head_paths(s.dir(), s.home());
    head.retain(|p| !p.starts_with("claude/learning-") || p.contains("draft"));
    assert_eq!(
        head,
        [
            ".gitignore",
            ".learnsync/policy.yaml",
            "keep.tmp",
            "kg/.gitignore",
            "kg/terms.md"
        ],
    );
    assert_eq!(s.ok(&["doctor"]), "No problems found.\n");
    let listed = s.run(&["list"]);
    assert!(
        !stderr(&listed).contains("drafts"),
        "an ignored draft is no problem: {}",
        stderr(&listed)
    );
}

#[test]
fn a_secret_in_a_work_tree_file_is_said_once_until_the_file_changes() {
    let s = Sandbox::new();
    synced_learning(&s);
    let token = format!("ghp_{}", "a1B2".repeat(9));
    write(
        &s,
        "kg/terms.md",
        format!("synonyms:: deploy\ntoken: {token}\n"),
    );
    let first = s.ok(&["sync"]);
    assert!(first.contains("Redacted secrets in kg/terms.md"), "{first}");
    let text = s.committed("kg/terms.md").expect("kg/terms.md in HEAD");
    assert!(!text.contains(&token), "{text}");
    for later in [5, 10] {
        // The file is touched (an editor, a backup tool; git smudges a
        // racily clean entry alike) and the user's git looks at the tree:
        // the same bytes, so nothing new to say.
        let file = std::fs::File::options()
            .append(true)
            .open(s.dir().join("kg/terms.md"))
            .expect("open");
        file.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(later))
            .expect("touch");
        s.git(&["status", "--short"]);
        let again = s.ok(&["sync"]);
        assert!(!again.contains("Redacted"), "said again: {again}");
    }
    let other = format!("ghp_{}", "z9Y8".repeat(9));
    write(
        &s,
        "kg/terms.md",
        format!("synonyms:: deploy\ntoken: {other}\n"),
    );
    let changed = s.ok(&["sync"]);
    assert!(
        changed.contains("Redacted secrets in kg/terms.md"),
        "{changed}"
    );
}

/// A repository of its own at `rel` inside the dir, with one commit.
fn nested_repo(s: &Sandbox, rel: &str) {
    let dir = s.dir().join(rel);
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(dir.join("terms.md"), "synonyms:: deploy\n").expect("write");
    for args in [
        &["init", "-q"][..],
        &["add", "terms.md"],
        &[
            "-c",
            "user.name=x",
            "-c",
            "user.email=x@y",
            "commit",
            "-qm",
            "kg",
        ],
    ] {
        common::git::git_in(&dir, s.home(), args);
    }
}

#[test]
fn a_nested_repository_is_left_out_said_once_and_listed_by_doctor() {
    let s = Sandbox::new();
    synced_learning(&s);
    nested_repo(&s, "kg");
    write(&s, "kg-notes.md", "synonyms:: release\n");
    let out = s.run(&["sync"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("Committed 1 file(s)"));
    let err = stderr(&out);
    assert_eq!(err.matches("kg/").count(), 1, "{err}");
    assert!(
        err.contains("kg/: holds a git repository of its own"),
        "{err}"
    );
    let head = head_paths(s.dir(), s.home());
    assert!(!head.iter().any(|p| p.starts_with("kg/")), "{head:?}");
    let again = s.run(&["sync"]);
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(stderr(&again), "", "said once");
    let doctor = s.run(&["doctor"]);
    assert_eq!(doctor.status.code(), Some(1));
    assert!(
        stdout(&doctor).contains("kg/: holds a git repository of its own"),
        "{}",
        stdout(&doctor)
    );
}

#[test]
fn a_committed_folder_that_becomes_a_repository_is_not_deleted() {
    let s = Sandbox::new();
    synced_learning(&s);
    write(&s, "kg/git.md", "synonyms:: push\n");
    s.ok(&["sync"]);
    common::git::git_in(&s.dir().join("kg"), s.home(), &["init", "-q"]);
    let out = s.run(&["sync"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        s.committed("kg/git.md").as_deref(),
        Some("synonyms:: push\n")
    );
}

#[test]
fn init_adopts_a_dir_that_holds_a_nested_repository() {
    let s = Sandbox::new();
    nested_repo(&s, "kg");
    write(&s, "claude/notes.md", "not a learning\n");
    let out = s.run(&["init", "--agent", "claude"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("kg/: holds a git repository of its own"),
        "{}",
        stderr(&out)
    );
    let head = head_paths(s.dir(), s.home());
    assert!(head.iter().any(|p| p == "claude/notes.md"), "{head:?}");
    assert!(!head.iter().any(|p| p.starts_with("kg/")), "{head:?}");
    let sync = s.run(&["sync"]);
    assert_eq!(sync.status.code(), Some(0), "{}", stderr(&sync));
    assert_eq!(stderr(&sync), "", "init said it already");
}

#[test]
fn under_a_watcher_staged_changes_ignored_files_and_nested_repositories_are_the_same() {
    let s = Sandbox::new();
    let learning = synced_learning(&s);
    std::fs::write(
        s.dir().join(".git/learnsync/config.yaml"),
        "agent: claude\nwatch: on\n",
    )
    .expect("config");
    let _stop = StopOnDrop(&s);
    write(&s, "kg/git.md", "synonyms:: push\n");
    s.ok(&["sync"]);
    wait_for_watcher(s.dir());
    s.ok(&["sync"]);
    s.git(&["rm", "-q", &learning]);
    write(&s, "kg/git.md", "synonyms:: push, force push\n");
    s.git(&["add", "kg/git.md"]);
    write(&s, "kg/.git.md.swp", "swap\n");
    nested_repo(&s, "vendor/kg");
    let out = s.run(&["--json", "sync"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = common::json(&stdout(&out));
    assert_eq!(report["watched"], true, "{report}");
    let head = head_paths(s.dir(), s.home());
    assert!(!head.contains(&learning), "{head:?}");
    assert!(
        !head
            .iter()
            .any(|p| p.contains(".swp") || p.starts_with("vendor/")),
        "{head:?}"
    );
    assert_eq!(
        s.committed("kg/git.md").as_deref(),
        Some("synonyms:: push, force push\n")
    );
    assert!(stderr(&out).contains("vendor/kg/: holds a git repository of its own"));
}

#[test]
fn a_symlink_is_said_once_and_listed_by_doctor() {
    let s = Sandbox::new();
    synced_learning(&s);
    std::os::unix::fs::symlink("/etc/hostname", s.dir().join("claude/link.md")).expect("symlink");
    let first = s.run(&["sync"]);
    assert_eq!(first.status.code(), Some(0));
    assert!(
        stderr(&first).contains("claude/link.md: not a regular file (symlinks are not synced)"),
        "{}",
        stderr(&first)
    );
    let again = s.run(&["sync"]);
    assert_eq!(stderr(&again), "", "said once");
    assert!(stdout(&s.run(&["doctor"])).contains("claude/link.md: not a regular file"));
}

#[test]
fn an_adopted_learning_stays_readable_when_its_secrets_are_redacted() {
    let s = Sandbox::new();
    // A correction that is nothing but a token (a plain scalar that would become
    // the flow sequence `[REDACTED:…]`), and a header inside a quoted string.
    let token = format!(
        "ghp_{}",
        "Zx81kPq2LmT7vR4wYc9N"
            .repeat(2)
            .get(..36)
            .unwrap_or_default()
    );
    let bearer = "Qw7Lm2Xp9Rt4Vz8Nc3Kb6Hd1Jf5Gs0Ty";
    let file = format!(
        "---\nid: learning-pasted\ntitle: pasted a token\nagent_id: claude\n\
         captured_at: 2025-05-01T07:00:00+00:00\ntrust_level: L1\nsource: manual\n\
         error_context: \"curl -H \\\"Authorization: Bearer {bearer}\\\" https://api.example.net\"\n\
         correction: {token}\n---\nPasted by mistake.\n"
    );
    write(&s, "claude/learning-pasted.md", &file);
    let out = s.run(&["init", "--agent", "claude"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(
        said.contains("secrets were redacted before the commit"),
        "{said}"
    );
    assert!(!said.contains("not valid YAML"), "{said}");
    let committed = s
        .committed("claude/learning-pasted.md")
        .expect("the learning is committed");
    assert!(
        !committed.contains(&token) && !committed.contains(bearer),
        "{committed}"
    );
    let shown = common::json(&s.ok(&["show", "learning-pasted", "--json"]));
    assert_eq!(shown["title"], "pasted a token", "{shown}");
    assert!(
        shown["correction"]
            .as_str()
            .is_some_and(|c| c.contains("[REDACTED:")),
        "{shown}"
    );
    assert_clean_and_sound(s.dir(), s.home());
}
