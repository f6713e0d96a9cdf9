//! `learnsync publish` end to end: the real binary, real git learnings, the
//! Gitea-compatible test server, and the wiki checked in a real clone.

use crate::common;
// `common` loads the server's HTTP codec for its git smart-HTTP server; the
// test server needs its own copy, so the module is loaded twice on purpose.
use crate::common::gitea_server;

use common::{Sandbox, json};
use gitea_server::{Fault, FaultRule, GiteaServer, WRITE_TOKEN};
use learnsync::gitea::page_name::title_to_git_path;
use std::collections::BTreeSet;
use std::process::Output;

/// A learnings dir configured to publish to `server`.
struct World {
    s: Sandbox,
    server: GiteaServer,
}

impl World {
    fn new() -> World {
        let s = Sandbox::new();
        s.ok(&["init", "--agent", "a"]);
        let server = GiteaServer::start();
        let config = format!(
            "agent: a\ngitea:\n  url: {}\n  repo: {}\n",
            server.url(),
            server.repo_ref()
        );
        std::fs::write(s.dir().join(".git/learnsync/config.yaml"), config).expect("config");
        World { s, server }
    }

    fn add(&self, title: &str, keyword: &str) -> String {
        self.s
            .ok(&[
                "add",
                "--title",
                title,
                "--correction",
                "use the flag",
                "--command",
                "git push -f",
                "--error",
                "remote: rejected",
                "--keyword",
                keyword,
                "--body",
                "Body of the learning.\n\n<script>alert('x')</script>\n",
            ])
            .trim()
            .to_string()
    }

    fn publish(&self, args: &[&str]) -> Output {
        let mut all = vec!["publish"];
        all.extend_from_slice(args);
        self.s
            .cmd(&all)
            .env("GITEA_TOKEN", WRITE_TOKEN)
            .output()
            .expect("run publish")
    }

    fn publish_ok(&self, args: &[&str]) -> String {
        let out = self.publish(args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "publish {args:?}\nstdout: {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn files(&self) -> BTreeSet<String> {
        self.server.wiki_files().into_keys().collect()
    }

    fn page(&self, title: &str) -> String {
        let files = self.server.wiki_files();
        let bytes = files
            .get(&title_to_git_path(title))
            .unwrap_or_else(|| panic!("no page {title:?} in {:?}", files.keys()));
        String::from_utf8_lossy(bytes).into_owned()
    }
}

fn names(titles: &[&str]) -> BTreeSet<String> {
    titles.iter().map(|t| title_to_git_path(t)).collect()
}

const INDEXES: [&str; 4] = [
    "Home",
    "_Sidebar",
    "Trust level L2 Peer-Validated",
    "Trust level L3 Human-Approved",
];

#[test]
fn publish_puts_exactly_the_trusted_learnings_on_the_wiki_and_keeps_it_in_step() {
    let w = World::new();
    let rebase = w.add("Rebase instead of merge", "git");
    let lease = w.add("Use --force-with-lease", "git");
    let cache = w.add("Clear the cargo cache", "cargo");
    let _unverified = w.add("Only a hunch", "hunch");
    for id in [&rebase, &lease, &cache] {
        w.s.effective_from(id, &["a", "b", "a"]);
    }
    w.s.sync_offline();

    // First publish: every L2 page and the index pages, nothing for the L1.
    let report = json(&w.publish_ok(&["--json"]));
    assert_eq!(report["counts"]["created"], 9, "{report:#}");
    assert_eq!(report["counts"]["failed"], 0);
    let mut expected = names(&INDEXES);
    expected.extend(names(&[
        "Learning: Rebase instead of merge",
        "Learning: Use --force-with-lease",
        "Learning: Clear the cargo cache",
        "Keyword git",
        "Keyword cargo",
    ]));
    assert_eq!(w.files(), expected);
    let clone = tempfile::tempdir().expect("tempdir");
    w.server.clone_wiki(&clone.path().join("wiki"));
    let lease_page = std::fs::read_to_string(
        clone
            .path()
            .join("wiki")
            .join(title_to_git_path("Learning: Use --force-with-lease")),
    )
    .expect("page in a clone");
    for needle in [
        "# Learning: Use --force-with-lease",
        "L2 (Peer-Validated)",
        "| 3 | 3 | 2 (a, b) | 100% |",
        "```sh\ngit push -f\n```",
        "remote: rejected",
        "use the flag",
        "Body of the learning.",
        lease.as_str(),
        "[git](Keyword-git)",
    ] {
        assert!(
            lease_page.contains(needle),
            "{needle:?} not in\n{lease_page}"
        );
    }
    assert!(!lease_page.contains("<script"), "{lease_page}");
    let home = w.page("Home");
    assert!(home.contains("| **Total** | 3 |"), "{home}");
    assert!(!home.contains("Only a hunch"));
    // What the learnings did this month: nine effective outcomes typed
    // with `apply`, none after a warning, so no failure avoided.
    for needle in [
        "\n## What learnings did this month\n",
        "learnings shown to agents 0 time(s), 0 of them denying the command; \
         corrections followed 9 time(s) (9 effective, 0 ineffective)",
        "**0 failure(s) avoided**",
        "- [Learning: Use --force-with-lease](Learning%3A+Use+--force-with-lease.-): \
         0 failure(s) avoided, 3 effective of 3 followed\n",
    ] {
        assert!(home.contains(needle), "{needle:?} not in\n{home}");
    }
    assert!(w.page("Keyword git").contains("Rebase instead of merge"));

    // Publish again: nothing changed, so nothing is written.
    let writes = w.server.writes().len();
    let out = w.publish_ok(&[]);
    assert_eq!(
        w.server.writes().len(),
        writes,
        "second publish wrote: {out}"
    );
    assert!(
        out.contains("0 created, 0 updated, 0 deleted, 9 unchanged"),
        "{out}"
    );

    // Demote one: eight ineffective outcomes bring its success rate under 0.3.
    for _ in 0..8 {
        w.s.ok(&["--agent", "b", "apply", &cache, "--outcome", "ineffective"]);
    }
    w.s.sync_offline();
    let dry = w.publish_ok(&["--dry-run"]);
    assert_eq!(w.server.writes().len(), writes, "dry run wrote");
    assert!(
        dry.contains("update    Learning: Clear the cargo cache"),
        "{dry}"
    );
    let report = json(&w.publish_ok(&["--json"]));
    assert_eq!(
        report["counts"]["deleted"], 1,
        "its keyword index goes: {report:#}"
    );
    expected.remove(&title_to_git_path("Keyword cargo"));
    assert_eq!(w.files(), expected);
    // The demoted learning's page is a retraction notice now, not the lesson.
    let notice = w.page("Learning: Clear the cargo cache");
    assert!(
        notice.contains("> **Retracted:** its evidence no longer supports it"),
        "{notice}"
    );
    assert!(!notice.contains("## Correction"), "{notice}");
    assert!(w.page("Home").contains("| **Total** | 2 |"));

    // A person edits a page on the wiki: the next publish leaves it alone and says so.
    let rebase_file = title_to_git_path("Learning: Rebase instead of merge");
    w.server.commit_as_person(
        &rebase_file,
        Some(b"# Rebase\n\nA person's better words.\n"),
        "Edit",
    );
    let writes = w.server.writes().len();
    let out = w.publish(&[]);
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Rebase instead of merge") && stderr.contains("--force"),
        "{stderr}"
    );
    assert_eq!(w.server.writes().len(), writes);
    assert!(
        w.page("Learning: Rebase instead of merge")
            .contains("A person's better words.")
    );

    // --force puts learnsync's page back.
    let report = json(&w.publish_ok(&["--force", "--json"]));
    assert_eq!(report["counts"]["updated"], 1, "{report:#}");
    assert!(
        w.page("Learning: Rebase instead of merge")
            .contains("use the flag")
    );
    let writes = w.server.writes().len();
    w.publish_ok(&[]);
    assert_eq!(
        w.server.writes().len(),
        writes,
        "after --force the wiki is in step again"
    );
}

#[test]
fn dry_run_prints_the_plan_and_sends_no_write() {
    let w = World::new();
    let id = w.add("Pin the toolchain", "rust");
    w.s.effective_from(&id, &["a", "b", "a"]);
    w.s.sync_offline();
    let out = w.publish_ok(&["--dry-run"]);
    assert!(
        out.contains("create    Learning: Pin the toolchain"),
        "{out}"
    );
    assert!(out.contains("create    Home"), "{out}");
    assert!(w.server.writes().is_empty(), "{:?}", w.server.writes());
    assert!(w.files().is_empty());
    let report = json(&w.publish_ok(&["--dry-run", "--json"]));
    assert_eq!(report["dry_run"], true);
    assert_eq!(report["pages"][0]["action"], "create");
    assert_eq!(report["pages"][0]["status"], "planned");
}

#[test]
fn missing_settings_are_named_and_exit_1() {
    let s = Sandbox::new();
    s.ok(&["init", "--agent", "a"]);
    let out = s.run(&["publish"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("gitea.url"));
    std::fs::write(
        s.dir().join(".git/learnsync/config.yaml"),
        "gitea:\n  url: http://127.0.0.1:9\n",
    )
    .expect("config");
    let out = s.run(&["publish"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("gitea.repo"));
    std::fs::write(
        s.dir().join(".git/learnsync/config.yaml"),
        "gitea:\n  url: http://127.0.0.1:9\n  repo: acme/docs\n",
    )
    .expect("config");
    let out = s.run(&["publish"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("GITEA_TOKEN"));
    let out = s.run(&["publish", "--target", "git-wiki"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("wiki.git_url"));
}

#[test]
fn some_pages_failing_gives_exit_3_and_the_next_run_finishes_the_job() {
    let w = World::new();
    for title in ["One", "Two"] {
        let id = w.add(title, "k");
        w.s.effective_from(&id, &["a", "b", "a"]);
    }
    w.s.sync_offline();
    // Every create of page "Two" fails for good (400 is not retried).
    w.server.inject(
        FaultRule::next(
            1,
            Fault::Body {
                status: 400,
                body: "{\"message\":\"bad request\"}".into(),
            },
        )
        .on_method("POST"),
    );
    let out = w.publish(&["--json"]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = json(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(report["counts"]["failed"], 1, "{report:#}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("failed to create"));
    let report = json(&w.publish_ok(&["--json"]));
    assert_eq!(report["counts"]["created"], 1, "{report:#}");
    assert_eq!(w.files().len(), 4 + 3);
}
