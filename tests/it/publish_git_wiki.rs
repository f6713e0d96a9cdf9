//! `learnsync publish --target git-wiki`: the same pages pushed as one commit
//! to a local bare `<repo>.wiki.git`, named exactly as Gitea names them;
//! nothing changed means no new commit.

use crate::common;

use common::git::git_in;
use common::{Sandbox, json};
use learnsync::gitea::page_name::title_to_git_path;
use std::path::Path;

fn bare_wiki(s: &Sandbox) -> std::path::PathBuf {
    let wiki = s.root().join("docs.wiki.git");
    std::fs::create_dir_all(&wiki).expect("mkdir");
    git_in(
        &wiki,
        s.home(),
        &["init", "--quiet", "--bare", "--initial-branch=main"],
    );
    wiki
}

fn tip(wiki: &Path, home: &Path) -> String {
    git_in(wiki, home, &["rev-parse", "refs/heads/main"])
        .trim()
        .to_string()
}

fn files(wiki: &Path, home: &Path) -> Vec<String> {
    let list = git_in(wiki, home, &["ls-tree", "--name-only", "refs/heads/main"]);
    list.lines().map(str::to_string).collect()
}

#[test]
fn git_wiki_pushes_one_commit_with_gitea_file_names_and_is_idempotent() {
    let s = Sandbox::new();
    s.ok(&["init", "--agent", "a"]);
    let wiki = bare_wiki(&s);
    std::fs::write(
        s.dir().join(".git/learnsync/config.yaml"),
        format!("agent: a\nwiki:\n  git_url: {}\n", wiki.display()),
    )
    .expect("config");
    let mut ids = Vec::new();
    for title in ["Use --force-with-lease", "Café menu: 100% done"] {
        let id = s
            .ok(&[
                "add",
                "--title",
                title,
                "--correction",
                "fix",
                "--keyword",
                "git",
            ])
            .trim()
            .to_string();
        s.effective_from(&id, &["a", "b", "a"]);
        ids.push(id);
    }
    s.sync_offline();

    let report = json(&s.ok(&["publish", "--target", "git-wiki", "--json"]));
    assert_eq!(report["counts"]["created"], 7, "{report:#}");
    let mut want: Vec<String> = [
        "Learning: Use --force-with-lease",
        "Learning: Café menu: 100% done",
        "Home",
        "_Sidebar",
        "Trust level L2 Peer-Validated",
        "Trust level L3 Human-Approved",
        "Keyword git",
    ]
    .iter()
    .map(|t| title_to_git_path(t))
    .collect();
    want.sort();
    let mut got = files(&wiki, s.home());
    got.sort();
    assert_eq!(got, want);
    assert!(want.contains(&"Learning%3A Use --force-with-lease.-.md".to_string()));
    let count = git_in(&wiki, s.home(), &["rev-list", "--count", "refs/heads/main"]);
    assert_eq!(count.trim(), "1", "one commit for all pages");

    // Nothing changed: no new commit.
    let before = tip(&wiki, s.home());
    let out = s.ok(&["publish", "--target", "git-wiki"]);
    assert!(
        out.contains("0 created, 0 updated, 0 deleted, 7 unchanged"),
        "{out}"
    );
    assert_eq!(tip(&wiki, s.home()), before);

    // Demote one: its page becomes a retraction notice, in one more commit.
    for _ in 0..8 {
        s.ok(&["--agent", "b", "apply", &ids[1], "--outcome", "ineffective"]);
    }
    s.sync_offline();
    let report = json(&s.ok(&["publish", "--target", "git-wiki", "--json"]));
    assert_eq!(report["counts"]["deleted"], 0, "{report:#}");
    let retracted = report["pages"]
        .as_array()
        .expect("pages")
        .iter()
        .find(|p| p["key"] == ids[1].as_str())
        .expect("the demoted learning's page");
    assert_eq!(retracted["action"], "update", "{report:#}");
    let notice = git_in(
        &wiki,
        s.home(),
        &[
            "show",
            &format!(
                "refs/heads/main:{}",
                title_to_git_path("Learning: Café menu: 100% done")
            ),
        ],
    );
    assert!(
        notice.contains("> **Retracted:** its evidence no longer supports it"),
        "{notice}"
    );
    assert!(!notice.contains("## Correction"), "{notice}");
    let count = git_in(&wiki, s.home(), &["rev-list", "--count", "refs/heads/main"]);
    assert_eq!(count.trim(), "2");
}
