//! `learnsync review` end to end, with the real binary, real git and the
//! Gitea-compatible server as the hub: proposals, a maintainer's merge and
//! close, our own withdrawals, branch deletions by others, problem reports,
//! forgeries from peers, faults, and the token kept out of everything.

use crate::common::capture::{capture_as_hook, claude_bash};
use crate::common::git::assert_clean_and_sound;
use crate::common::gitea_client::{self, block};
use crate::common::gitea_server::{
    BOT_TOKEN, Fault, FaultRule, GiteaServer, MAINTAINER, MAINTAINER_TOKEN, Protection,
    READER_TOKEN,
};
use crate::common::learnings::l2_files;
use crate::common::{Sandbox, json, stdout};
use learnsync::gitea::{
    ClientOptions, CreateIssueOption, EditIssueOption, GiteaClient, IssueLabels,
    MergePullRequestOption, PullFilter, PullRequest, State, StateFilter,
};
use std::path::Path;
use std::process::Output;
use std::time::Duration;

/// A hub on the test server with a protected `main`, and machines syncing
/// through it; machine `a` runs the review passes.
struct World {
    server: GiteaServer,
    tmp: tempfile::TempDir,
    a: Sandbox,
}

/// A client of the hub with `token`, 10 s a request.
fn gitea(server: &GiteaServer, token: &str) -> GiteaClient {
    let options = ClientOptions {
        timeout: Duration::from_secs(10),
        ..gitea_client::options(4)
    };
    gitea_client::client_with(server, Some(token), options)
}

impl World {
    fn new() -> World {
        let server = GiteaServer::start();
        let tmp = tempfile::tempdir().expect("tmp");
        let a = Sandbox::machine_on_hub(tmp.path(), "a", "a", server.repo_git_path().display());
        let w = World { server, tmp, a };
        let config = w.a.dir().join(".git/learnsync/config.yaml");
        let mut text = std::fs::read_to_string(&config).expect("config");
        text.push_str(&format!(
            "gitea:\n  url: {}\n  repo: {}\n",
            w.server.url(),
            w.server.repo_ref()
        ));
        std::fs::write(&config, text).expect("write config");
        // The hub's main starts as a's first commit; then it is protected.
        w.a.ok(&["sync"]);
        let sha = w.server.branch_sha("agents/a").expect("pushed");
        w.server.hub_git(&["update-ref", "refs/heads/main", &sha]);
        w.server
            .protect(Protection::new("main").merge_whitelist(&[MAINTAINER]));
        w
    }

    /// Machine `name`, syncing through the hub as agent `name`.
    fn machine(&self, name: &str) -> Sandbox {
        let hub = self.server.repo_git_path();
        Sandbox::machine_on_hub(self.tmp.path(), name, name, hub.display())
    }

    /// A learning with three effective outcomes from two agents: L2 at the next sync.
    fn l2(&self, title: &str) -> String {
        let id = self.learn(title);
        self.a.effective_from(&id, &["a", "b", "a"]);
        id
    }

    fn learn(&self, title: &str) -> String {
        self.a.add_learning(title, &format!("do {title} right"))
    }

    fn review(&self, args: &[&str]) -> Output {
        let mut all = vec!["review"];
        all.extend_from_slice(args);
        self.a
            .cmd(&all)
            .env("GITEA_TOKEN", BOT_TOKEN)
            .output()
            .expect("run review")
    }

    fn review_ok(&self) -> serde_json::Value {
        let out = self.review(&["--json"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "review\nstdout: {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        json(&String::from_utf8_lossy(&out.stdout))
    }

    fn pulls(&self, state: StateFilter) -> Vec<PullRequest> {
        block(
            gitea(&self.server, MAINTAINER_TOKEN).list_pulls(&PullFilter {
                state,
                ..PullFilter::default()
            }),
        )
        .expect("pulls")
    }

    fn open_review_of(&self, id: &str) -> PullRequest {
        self.pulls(StateFilter::Open)
            .into_iter()
            .find(|p| p.head_ref() == format!("review/{id}"))
            .unwrap_or_else(|| panic!("no open review of {id}"))
    }
}

fn ids_of(v: &serde_json::Value, key: &str) -> Vec<String> {
    v[key]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|d| d["learning"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn two_l2_learnings_get_exactly_two_pull_requests_and_a_second_pass_writes_nothing() {
    let w = World::new();
    w.learn("stays at L1");
    let x = w.l2("rebase before pushing");
    let y = w.l2("quote the glob");
    w.a.ok(&["sync"]);
    w.server.clear_requests();
    let report = w.review_ok();
    let mut proposed = ids_of(&report, "proposed");
    proposed.sort();
    let mut want = vec![x.clone(), y.clone()];
    want.sort();
    assert_eq!(proposed, want, "{report:#}");
    // No roster on main: review says whose evidence counted.
    assert!(
        report["warnings"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|w| w.as_str().is_some_and(|w| w.starts_with("no roster"))),
        "{report:#}"
    );
    let open = w.pulls(StateFilter::Open);
    assert_eq!(open.len(), 2);
    for id in [&x, &y] {
        let pull = w.open_review_of(id);
        assert!(pull.has_label("learnsync:review"));
        assert_eq!(pull.base_ref(), "main");
        let shown = w.a.show(id);
        let hash = shown["review"]["pull_request"].clone();
        assert_eq!(hash, serde_json::json!(pull.number), "{shown:#}");
        assert_eq!(shown["review"]["state"], "pending");
        // The branch holds the approval record of this very version.
        let file = w
            .server
            .hub_file(&format!("review/{id}"), &format!("reviews/{id}.yaml"))
            .expect("review file on the branch");
        let record = String::from_utf8_lossy(&file).into_owned();
        assert!(record.contains("decision: approved"), "{record}");
        assert!(record.contains(&format!("learning: {id}")), "{record}");
        assert!(record.contains("proposed_by: learnsync-bot"), "{record}");
        let hash = w.a.learning(id).content_hash();
        assert!(record.contains(&hash), "{record}");
        // The body: the learning as the wiki shows it, the evidence, the meaning of merge and close, the marker.
        assert!(
            pull.body
                .contains(&format!("<!-- learnsync:review id={id} hash={hash} -->"))
        );
        assert!(
            pull.body.contains("**Merge** this pull request"),
            "{}",
            pull.body
        );
        assert!(pull.body.contains("## Correction"), "{}", pull.body);
        assert!(
            pull.body.contains("| When | Agent | Outcome |"),
            "{}",
            pull.body
        );
    }
    // Exactly: labels, two branches with their files, two pulls, one queue issue.
    let writes = w.server.writes();
    let creates = |path: &str| {
        writes
            .iter()
            .filter(|r| r.method == "POST" && r.path().ends_with(path))
            .count()
    };
    assert_eq!(creates("/pulls"), 2, "{writes:#?}");
    // A second pass with nothing new: no write, at most three reads.
    w.server.clear_requests();
    let report = w.review_ok();
    assert!(ids_of(&report, "proposed").is_empty(), "{report:#}");
    let after = w.server.requests();
    assert!(after.iter().all(|r| !r.is_write()), "{after:#?}");
    assert!(after.len() <= 3, "{} reads: {after:#?}", after.len());
    assert_clean_and_sound(w.a.dir(), w.a.home());
}

#[test]
fn a_merge_makes_l3_everywhere_a_close_rejects_everywhere_and_an_edit_goes_back_to_review() {
    let w = World::new();
    let approved = w.l2("use --force-with-lease");
    let rejected = w.l2("push to main directly");
    w.a.ok(&["sync"]);
    let report = w.review_ok();
    assert_eq!(ids_of(&report, "proposed").len(), 2);
    // The wiki has both before anything is decided.
    let publish = |m: &Sandbox| -> serde_json::Value {
        let out = m
            .cmd(&["publish", "--json"])
            .env("GITEA_TOKEN", BOT_TOKEN)
            .output()
            .expect("publish");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        json(&String::from_utf8_lossy(&out.stdout))
    };
    publish(&w.a);

    let maintainer = gitea(&w.server, MAINTAINER_TOKEN);
    let to_merge = w.open_review_of(&approved);
    block(maintainer.merge_pull(to_merge.number, &MergePullRequestOption::default()))
        .expect("merge");
    let to_close = w.open_review_of(&rejected);
    block(maintainer.edit_issue(
        to_close.number,
        &EditIssueOption {
            state: Some(State::Closed),
            ..EditIssueOption::default()
        },
    ))
    .expect("close");

    let report = w.review_ok();
    assert_eq!(
        ids_of(&report, "approved"),
        vec![approved.clone()],
        "{report:#}"
    );
    assert_eq!(
        ids_of(&report, "rejected"),
        vec![rejected.clone()],
        "{report:#}"
    );
    assert!(
        ids_of(&report, "proposed").is_empty(),
        "merged and rejected are not proposed again"
    );
    // The merged branch is deleted; the rejection is said once on the PR.
    assert!(w.server.branch_sha(&format!("review/{approved}")).is_none());
    let comments = block(maintainer.list_comments(to_close.number)).expect("comments");
    assert_eq!(
        comments
            .iter()
            .filter(|c| c.body.contains("learnsync:rejected"))
            .count(),
        1
    );

    // Two other machines sync: L3 and rejected on both, byte for byte.
    let b = w.machine("b");
    let c = w.machine("c");
    b.ok(&["sync"]);
    c.ok(&["sync"]);
    for m in [&b, &c] {
        let l = m.show(&approved);
        assert_eq!(l["trust_level"], "L3", "{l:#}");
        assert!(l["promoted_at"].is_string());
        assert_eq!(l["review"]["state"], "approved");
        assert_eq!(l["review"]["pull_request"], to_merge.number);
        let r = m.show(&rejected);
        assert_eq!(r["suggestion_status"], "rejected", "{r:#}");
        assert_eq!(r["review"]["state"], "rejected");
        assert_eq!(r["review"]["pull_request"], to_close.number);
    }
    assert_eq!(b.learning_file(&approved), c.learning_file(&approved));
    assert!(b.learning_file(&approved).contains("\ntrust_level: L3\n"));
    // The wiki lists the approved one under L3 and retracts the rejected one.
    w.a.ok(&["sync"]);
    publish(&w.a);
    let files = w.server.wiki_files();
    let page = |needle: &str| {
        files
            .iter()
            .find(|(name, _)| name.contains(needle))
            .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default()
    };
    assert!(
        page("L3").contains("force-with-lease"),
        "{:?}",
        files.keys().collect::<Vec<_>>()
    );
    assert!(
        page("push-to-main").contains("Retracted"),
        "{:?}",
        files.keys().collect::<Vec<_>>()
    );
    // A second pass after all that: no writes.
    w.server.clear_requests();
    w.review_ok();
    assert!(w.server.writes().is_empty(), "{:#?}", w.server.writes());

    // Editing the approved learning sends it back to L2, and to a new review.
    let path = w.a.dir().join(w.a.learning_rel(&approved));
    let text = std::fs::read_to_string(&path).expect("file");
    std::fs::write(
        &path,
        text.replace(
            "correction: do use --force-with-lease right",
            "correction: git push --force-with-lease origin HEAD",
        ),
    )
    .expect("edit");
    w.a.ok(&["sync"]);
    assert_eq!(w.a.show(&approved)["trust_level"], "L2");
    let report = w.review_ok();
    assert_eq!(
        ids_of(&report, "proposed"),
        vec![approved.clone()],
        "{report:#}"
    );
    // The rejected version is never proposed again.
    assert!(!ids_of(&report, "proposed").contains(&rejected));
}

#[test]
fn our_own_withdrawal_and_a_branch_someone_else_deleted_are_not_rejections() {
    let w = World::new();
    let demoted = w.l2("fragile workaround");
    let pruned = w.l2("mirror pruned me");
    w.a.ok(&["sync"]);
    w.review_ok();
    let first = w.open_review_of(&pruned);
    // Evidence turns against one: eight ineffective outcomes (3 of 11 worked).
    for agent in ["a", "b", "c", "a", "b", "c", "a", "b"] {
        w.a.ok(&[
            "--agent",
            agent,
            "apply",
            &demoted,
            "--outcome",
            "ineffective",
        ]);
    }
    w.a.ok(&["sync"]);
    assert_eq!(w.a.show(&demoted)["trust_level"], "L1");
    // A mirror deletes the other's branch (Gitea closes its pull).
    w.server
        .delete_branch_by_push(&format!("review/{pruned}"), "mirror")
        .expect("prune");
    let report = w.review_ok();
    let withdrawn = ids_of(&report, "withdrawn");
    assert_eq!(withdrawn, vec![demoted.clone()], "{report:#}");
    assert!(ids_of(&report, "rejected").is_empty(), "{report:#}");
    // The pruned one is proposed again, as a new pull request.
    assert_eq!(
        ids_of(&report, "proposed"),
        vec![pruned.clone()],
        "{report:#}"
    );
    assert_ne!(w.open_review_of(&pruned).number, first.number);
    // The withdrawn PR: labelled superseded, said why, closed, branch gone.
    let closed: Vec<PullRequest> = w.pulls(StateFilter::Closed);
    let ours = closed
        .iter()
        .find(|p| p.head_ref() == format!("review/{demoted}"))
        .expect("withdrawn pull");
    assert!(ours.has_label("learnsync:superseded"));
    let comments =
        block(gitea(&w.server, MAINTAINER_TOKEN).list_comments(ours.number)).expect("comments");
    assert!(comments.iter().any(|c| c.body.contains("fell back to L1")));
    assert!(w.server.branch_sha(&format!("review/{demoted}")).is_none());
    // And a later pass reads none of it as a person's "no".
    let report = w.review_ok();
    assert!(ids_of(&report, "rejected").is_empty(), "{report:#}");
    assert!(!w.a.dir().join(".learnsync/rejections").exists());
}

#[test]
fn a_problem_report_pulls_a_learning_from_the_wiki_and_suggestions_until_it_is_closed() {
    let w = World::new();
    let id = w.l2("bad advice about docker volumes");
    w.a.ok(&["sync"]);
    w.review_ok(); // creates the labels, proposes it
    let reader = gitea(&w.server, READER_TOKEN);
    let maintainer = gitea(&w.server, MAINTAINER_TOKEN);
    let issue = block(reader.create_issue(&CreateIssueOption {
        title: "This learning is wrong".into(),
        body: format!("{id} deletes volumes.\n"),
        ..CreateIssueOption::default()
    }))
    .expect("issue");
    block(maintainer.add_issue_labels(
        issue.number,
        &IssueLabels::Names(vec!["learning-problem".into()]),
    ))
    .expect("label");
    let report = w.review_ok();
    assert_eq!(ids_of(&report, "pulled"), vec![id.clone()], "{report:#}");
    assert_eq!(
        ids_of(&report, "withdrawn"),
        vec![id.clone()],
        "its review waits for the report"
    );
    let shown = w.a.show(&id);
    assert_eq!(shown["review"]["state"], "pulled", "{shown:#}");
    assert_eq!(shown["review"]["issue"], issue.number);
    // Not suggested, not on the wiki.
    let hits = json(&w.a.ok(&["suggest", "--json", "docker volumes advice"]));
    assert!(
        hits.as_array()
            .is_some_and(|h| h.iter().all(|x| x["id"] != id.as_str())),
        "{hits:#}"
    );
    // Acknowledged once, even over several passes.
    w.review_ok();
    let acks = block(maintainer.list_comments(issue.number))
        .expect("comments")
        .iter()
        .filter(|c| c.body.contains("learnsync:ack"))
        .count();
    assert_eq!(acks, 1);
    // Another machine honours it after its sync.
    let b = w.machine("b");
    b.ok(&["sync"]);
    assert_eq!(b.show(&id)["review"]["state"], "pulled");
    // Closing the issue restores it.
    block(maintainer.close_issue(issue.number)).expect("close");
    let report = w.review_ok();
    assert_eq!(ids_of(&report, "restored"), vec![id.clone()], "{report:#}");
    assert_ne!(w.a.show(&id)["review"]["state"], "pulled");
    b.ok(&["sync"]);
    assert_ne!(b.show(&id)["review"]["state"], "pulled");
}

#[test]
fn forged_approvals_never_give_l3_and_a_forged_rejection_lasts_until_the_next_review_pass() {
    let w = World::new();
    let target = w.l2("a learning a peer dislikes");
    let wanted = w.l2("a learning a peer wants approved");
    w.a.ok(&["sync"]);
    let peer = w.machine("peer");
    peer.ok(&["sync"]);
    // The peer writes an approval onto its own branch, and a rejection.
    let hash_of = |id: &str| peer.learning(id).content_hash();
    std::fs::create_dir_all(peer.dir().join("reviews")).expect("mkdir");
    std::fs::write(
        peer.dir().join(format!("reviews/{wanted}.yaml")),
        format!(
            "learning: {wanted}\ndecision: approved\ncontent_hash: {}\n",
            hash_of(&wanted)
        ),
    )
    .expect("forge approval");
    let rejection = format!(
        ".learnsync/rejections/{target}.{}.yaml",
        &hash_of(&target)[..16]
    );
    std::fs::create_dir_all(peer.dir().join(".learnsync/rejections")).expect("mkdir");
    std::fs::write(
        peer.dir().join(&rejection),
        format!(
            "learning: {target}\ncontent_hash: {}\npull_request: 999\nclosed_by: maintainer\nclosed_at: 2026-12-01T00:00:00Z\n",
            hash_of(&target)
        ),
    )
    .expect("forge rejection");
    peer.ok(&["sync"]);
    w.a.ok(&["sync"]);
    // The approval counts for nothing: it is not on the hub's main.
    assert_eq!(w.a.show(&wanted)["trust_level"], "L2");
    // The rejection lowers what the learning shows, until a review pass
    // checks it against Gitea (no such closed pull) and removes it.
    assert_eq!(w.a.show(&target)["suggestion_status"], "rejected");
    let report = w.review_ok();
    assert_eq!(
        ids_of(&report, "unconfirmed"),
        vec![target.clone()],
        "{report:#}"
    );
    assert_ne!(w.a.show(&target)["suggestion_status"], "rejected");
    peer.ok(&["sync"]);
    assert!(
        !peer.dir().join(&rejection).exists(),
        "the removal reached the peer"
    );
    assert_ne!(peer.show(&target)["suggestion_status"], "rejected");
}

#[test]
fn an_approval_a_peer_copied_first_still_makes_l3_once_it_reaches_main() {
    let w = World::new();
    let id = w.l2("copied approval");
    w.a.ok(&["sync"]);
    w.review_ok();
    let pull = w.open_review_of(&id);
    // A peer copies the genuine record from the review branch onto its own.
    let peer = w.machine("peer");
    let record = w
        .server
        .hub_file(&format!("review/{id}"), &format!("reviews/{id}.yaml"))
        .expect("record");
    peer.ok(&["sync"]);
    std::fs::create_dir_all(peer.dir().join("reviews")).expect("mkdir");
    std::fs::write(peer.dir().join(format!("reviews/{id}.yaml")), &record).expect("copy");
    peer.ok(&["sync"]);
    w.a.ok(&["sync"]);
    assert_eq!(
        w.a.show(&id)["trust_level"],
        "L2",
        "refused while only on a peer branch"
    );
    // The maintainer merges: the same bytes reach main; no path of a's tree changes.
    block(
        gitea(&w.server, MAINTAINER_TOKEN)
            .merge_pull(pull.number, &MergePullRequestOption::default()),
    )
    .expect("merge");
    w.a.ok(&["sync"]);
    let file = w.a.learning_file(&id);
    assert!(file.contains("\ntrust_level: L3\n"), "{file}");
    assert_eq!(w.a.show(&id)["trust_level"], "L3");
    peer.ok(&["sync"]);
    assert!(peer.learning_file(&id).contains("\ntrust_level: L3\n"));
}

#[test]
fn faults_on_the_way_give_the_same_pull_requests_and_no_duplicate() {
    let w = World::new();
    let ids: Vec<String> = (0..4).map(|i| w.l2(&format!("lesson {i}"))).collect();
    w.a.ok(&["sync"]);
    for (i, fault) in [
        Fault::status(500),
        Fault::status(503).retry_after("0"),
        Fault::DropConnection,
        Fault::LandThenStatus(500),
    ]
    .into_iter()
    .enumerate()
    {
        w.server.inject(FaultRule::random(0.3, 7 + i as u64, fault));
    }
    for _ in 0..2 {
        let out = w.review(&["--json"]);
        assert!(
            matches!(out.status.code(), Some(0 | 3 | 1)),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let faulted = w
        .server
        .requests()
        .iter()
        .filter(|r| r.fault.is_some())
        .count();
    assert!(faulted >= 5, "the faults hit {faulted} request(s)");
    w.server.clear_faults();
    w.review_ok();
    let open = w.pulls(StateFilter::Open);
    let mut heads: Vec<String> = open.iter().map(|p| p.head_ref().to_string()).collect();
    heads.sort();
    let mut want: Vec<String> = ids.iter().map(|id| format!("review/{id}")).collect();
    want.sort();
    assert_eq!(heads, want, "one open review per learning, no duplicate");
    let all = w.pulls(StateFilter::All);
    assert_eq!(
        all.len(),
        4,
        "no duplicate pull request was ever opened: {all:#?}"
    );
    // No comment was said twice either.
    for p in &all {
        let bodies: Vec<String> = block(gitea(&w.server, MAINTAINER_TOKEN).list_comments(p.number))
            .expect("comments")
            .into_iter()
            .map(|c| c.body)
            .collect();
        let unique: std::collections::BTreeSet<&String> = bodies.iter().collect();
        assert_eq!(
            unique.len(),
            bodies.len(),
            "a duplicate comment on #{}",
            p.number
        );
    }
}

#[test]
fn the_token_appears_in_no_output_file_or_pull_request() {
    let w = World::new();
    w.l2("secret keeping");
    w.a.ok(&["sync"]);
    let out = w.review(&["--json", "-vv"]);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!text.contains(BOT_TOKEN), "token in output");
    for p in w.pulls(StateFilter::All) {
        assert!(!p.body.contains(BOT_TOKEN));
    }
    let grep = std::process::Command::new("grep")
        .args(["-r", "-l", BOT_TOKEN])
        .arg(w.a.dir())
        .output()
        .expect("grep");
    assert!(
        grep.stdout.is_empty(),
        "token in {}",
        String::from_utf8_lossy(&grep.stdout)
    );
    let dry = w.review(&["--dry-run"]);
    assert!(dry.status.success());
    let _ = Path::new("");
}

#[test]
fn an_edit_while_the_review_is_open_moves_the_review_to_the_new_version_once() {
    let w = World::new();
    let id = w.l2("follow my edits");
    w.a.ok(&["sync"]);
    w.review_ok();
    let before = w.open_review_of(&id);
    let path = w.a.dir().join(w.a.learning_rel(&id));
    let text = std::fs::read_to_string(&path).expect("file");
    std::fs::write(
        &path,
        text.replace("title: follow my edits", "title: follow my edits, please"),
    )
    .expect("edit");
    w.a.ok(&["sync"]);
    let hash = w.a.learning(&id).content_hash();
    for _ in 0..2 {
        let report = w.review_ok();
        assert!(ids_of(&report, "proposed").is_empty(), "{report:#}");
    }
    let after = w.open_review_of(&id);
    assert_eq!(after.number, before.number, "the same pull request follows");
    assert!(
        after.body.contains(&format!("hash={hash}")),
        "{}",
        after.body
    );
    assert!(after.title.contains("please"), "{}", after.title);
    let record = w
        .server
        .hub_file(&format!("review/{id}"), &format!("reviews/{id}.yaml"))
        .expect("record");
    assert!(String::from_utf8_lossy(&record).contains(&hash));
    let changed = block(gitea(&w.server, MAINTAINER_TOKEN).list_comments(after.number))
        .expect("comments")
        .iter()
        .filter(|c| c.body.contains("learnsync:changed"))
        .count();
    assert_eq!(changed, 1, "one comment saying what changed");
    // Merging it now approves the new version.
    block(
        gitea(&w.server, MAINTAINER_TOKEN)
            .merge_pull(after.number, &MergePullRequestOption::default()),
    )
    .expect("merge");
    w.a.ok(&["sync"]);
    assert_eq!(w.a.show(&id)["trust_level"], "L3");
}

#[test]
fn the_limits_hold_proposals_back_in_the_queue_issue_never_silently() {
    let w = World::new();
    let config = w.a.dir().join(".git/learnsync/config.yaml");
    let mut text = std::fs::read_to_string(&config).expect("config");
    text.push_str("review:\n  max_open: 2\n  max_new_per_run: 1\n");
    std::fs::write(&config, text).expect("config");
    let ids: Vec<String> = (0..3).map(|i| w.l2(&format!("limited {i}"))).collect();
    w.a.ok(&["sync"]);
    let report = w.review_ok();
    assert_eq!(ids_of(&report, "proposed").len(), 1);
    assert_eq!(
        report["held_back"].as_array().map(Vec::len),
        Some(2),
        "{report:#}"
    );
    let queue = || {
        block(
            gitea(&w.server, MAINTAINER_TOKEN).list_issues(&learnsync::gitea::IssueFilter {
                state: StateFilter::Open,
                kind: learnsync::gitea::IssueKind::Issues,
                ..Default::default()
            }),
        )
        .expect("issues")
        .into_iter()
        .find(|i| i.body.contains("<!-- learnsync:review-queue -->"))
        .expect("the queue issue")
    };
    let q = queue();
    assert!(
        q.body
            .contains("Held back by the limits (review.max_open 2"),
        "{}",
        q.body
    );
    let held: Vec<&String> = ids
        .iter()
        .filter(|id| q.body.contains(id.as_str()))
        .collect();
    assert_eq!(
        held.len(),
        3,
        "open and held back are all listed: {}",
        q.body
    );
    // Next pass: one more (max_open 2), one still held back; still one queue issue.
    let report = w.review_ok();
    assert_eq!(ids_of(&report, "proposed").len(), 1);
    assert_eq!(report["held_back"].as_array().map(Vec::len), Some(1));
    assert_eq!(w.pulls(StateFilter::Open).len(), 2);
    assert_ne!(queue().body, q.body, "the queue was edited when it changed");
    // Nothing changed: the queue issue is not edited again.
    w.server.clear_requests();
    w.review_ok();
    assert!(w.server.writes().is_empty(), "{:#?}", w.server.writes());
}

#[test]
fn review_and_doctor_warn_when_main_is_unprotected_naming_the_setting() {
    let w = World::new();
    w.server.unprotect("main");
    w.l2("unguarded");
    w.a.ok(&["sync"]);
    let out = w.review(&[]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("main is not protected"), "{err}");
    assert!(err.contains("Settings → Branches"), "{err}");
    let doctor =
        w.a.cmd(&["doctor"])
            .env("GITEA_TOKEN", BOT_TOKEN)
            .output()
            .expect("doctor");
    let said = String::from_utf8_lossy(&doctor.stdout);
    assert_eq!(doctor.status.code(), Some(1));
    assert!(said.contains("main is not protected"), "{said}");
    // Protected with the bot out of the merge whitelist: quiet.
    w.server
        .protect(Protection::new("main").merge_whitelist(&[MAINTAINER]));
    let doctor =
        w.a.cmd(&["doctor"])
            .env("GITEA_TOKEN", BOT_TOKEN)
            .output()
            .expect("doctor");
    assert!(
        !String::from_utf8_lossy(&doctor.stdout).contains("protect"),
        "{}",
        String::from_utf8_lossy(&doctor.stdout)
    );
}

#[test]
fn with_more_reviews_open_than_a_page_a_quiet_pass_is_one_read_and_a_close_is_still_seen() {
    let w = World::new();
    let config = w.a.dir().join(".git/learnsync/config.yaml");
    let mut text = std::fs::read_to_string(&config).expect("config");
    text.push_str("review:\n  max_open: 100\n  max_new_per_run: 100\n");
    std::fs::write(&config, text).expect("config");
    let ids = l2_files(w.a.dir(), "a", 60);
    w.a.ok(&["sync"]);
    let report = w.review_ok();
    assert_eq!(ids_of(&report, "proposed").len(), 60, "{report:#}");
    assert_eq!(w.pulls(StateFilter::Open).len(), 60);

    // Nothing new: one read of what changed, not two pages of open reviews.
    w.server.clear_requests();
    let report = w.review_ok();
    assert!(ids_of(&report, "proposed").is_empty(), "{report:#}");
    let quiet = w.server.requests();
    assert!(quiet.iter().all(|r| !r.is_write()), "{quiet:#?}");
    let state = std::fs::read_to_string(w.a.dir().join(".git/learnsync/review-state.json"))
        .unwrap_or_default();
    let targets: Vec<&str> = quiet.iter().map(|r| r.target.as_str()).collect();
    assert_eq!(quiet.len(), 1, "{targets:#?}\nthe review state: {state}");
    assert!(
        quiet[0].path().ends_with("/issues") && quiet[0].target.contains("since="),
        "{quiet:#?}"
    );

    // A person closes one: the one-read pass sees it and records the rejection.
    let closed = w.open_review_of(&ids[17]);
    block(gitea(&w.server, MAINTAINER_TOKEN).edit_issue(
        closed.number,
        &EditIssueOption {
            state: Some(State::Closed),
            ..EditIssueOption::default()
        },
    ))
    .expect("close");
    w.server.clear_requests();
    let report = w.review_ok();
    assert_eq!(
        ids_of(&report, "rejected"),
        vec![ids[17].clone()],
        "{report:#}"
    );
    let seen = w.server.requests();
    assert!(
        !seen
            .iter()
            .any(|r| r.method == "GET" && r.path().ends_with("/pulls")),
        "no full listing: {seen:#?}"
    );
    let listed = w.a.show(&ids[17]);
    assert_eq!(listed["suggestion_status"], "rejected", "{listed:#}");
    assert_eq!(report["open_reviews"], 59, "{report:#}");

    // And quiet again.
    w.server.clear_requests();
    let report = w.review_ok();
    assert!(ids_of(&report, "rejected").is_empty(), "{report:#}");
    assert_eq!(w.server.requests().len(), 1, "{:#?}", w.server.requests());
}

/// A Gitea on MySQL stores at most 65,535 bytes of a pull request's body. A
/// learning far longer still gets its review pull request and its wiki
/// page: cut under the limit, saying so, linking the whole learning, and
/// with the marker that lets the next pass find its own pull request.
#[test]
fn a_learning_longer_than_gitea_stores_is_cut_with_a_link_and_reviewed_once() {
    let w = World::new();
    w.server.configure(|c| c.text_column_limit = Some(65_535));
    let mut body = String::from("The log of the failure:\n\n```text\n");
    while body.len() < 110_000 {
        body.push_str(
            "2026-12-03T10:00:00Z worker-7 retrying the upload of part 17 after a reset\n",
        );
    }
    body.push_str("```\n");
    let id =
        w.a.ok(&[
            "add",
            "--title",
            "a very long lesson",
            "--correction",
            "upload in smaller parts",
            "--body",
            &body,
        ])
        .trim()
        .to_string();
    w.a.effective_from(&id, &["a", "b", "a"]);
    w.a.ok(&["sync"]);
    let report = w.review_ok();
    assert_eq!(ids_of(&report, "proposed"), vec![id.clone()], "{report:#}");
    let pull = w.open_review_of(&id);
    assert!(pull.body.len() <= 60_000, "{} bytes", pull.body.len());
    assert!(pull.body.contains("Cut by learnsync"), "{}", pull.body);
    let link = format!(
        "{}/{}/src/branch/agents/a/a/{id}.md",
        w.server.url().trim_end_matches('/'),
        w.server.repo_ref()
    );
    assert!(pull.body.contains(&link), "no link {link}");
    assert!(pull.body.contains("worker-7 retrying"), "the start is kept");
    // The next pass knows its own pull request by the marker that survived the cut.
    w.server.clear_requests();
    let again = w.review_ok();
    assert!(ids_of(&again, "proposed").is_empty(), "{again:#}");
    assert!(w.server.writes().is_empty(), "{:?}", w.server.writes());

    // The wiki page is cut the same way.
    let out =
        w.a.cmd(&["publish"])
            .env("GITEA_TOKEN", BOT_TOKEN)
            .output()
            .expect("publish");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pages = w.server.wiki_files();
    let page = pages
        .iter()
        .find(|(_, text)| {
            String::from_utf8_lossy(text).contains("a very long lesson") && text.len() > 10_000
        })
        .map(|(_, text)| String::from_utf8_lossy(text).into_owned())
        .expect("the learning's page");
    assert!(page.len() <= 60_000, "{} bytes", page.len());
    assert!(page.contains("Cut by learnsync") && page.contains(&link));
}

/// Gitea's 500 "Data too long" cannot go away by sending the same text
/// again: it is reported once, not retried, and nothing half-done stays.
#[test]
fn gitea_refusing_a_text_as_too_long_is_reported_and_not_retried() {
    let w = World::new();
    let id = w.l2("refused as too long");
    w.a.ok(&["sync"]);
    w.server.inject(
        FaultRule::next(
            5,
            Fault::Body {
                status: 500,
                body: r#"{"message":"Error 1406 (22001): Data too long for column 'content' at row 1","url":"x"}"#.into(),
            },
        )
        .on_method("POST")
        .on_path("/pulls"),
    );
    w.server.clear_requests();
    let out = w.review(&[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("too long"), "{stderr}");
    let posts = w
        .server
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST" && r.path().ends_with("/pulls"))
        .count();
    assert_eq!(posts, 1, "a permanent refusal was sent again");
    assert!(w.pulls(StateFilter::Open).is_empty());
    // Once Gitea takes it, the next pass opens the review.
    w.server.clear_faults();
    let report = w.review_ok();
    assert_eq!(ids_of(&report, "proposed"), vec![id]);
}

/// `doctor` asks Gitea what the token may do (from Gitea's own refusal,
/// reading only) and names what `publish` and `review` would lack.
#[test]
fn doctor_names_the_scopes_the_token_lacks_for_review_and_publish() {
    let w = World::new();
    let doctor = |token: &str| {
        let out =
            w.a.cmd(&["doctor"])
                .env("GITEA_TOKEN", token)
                .output()
                .expect("doctor");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // write:repository only: enough to publish, not to review.
    let said = doctor(crate::common::gitea_server::WRITE_TOKEN);
    assert!(
        said.contains("lacks write:issue, read:user that `review` needs (it has write:repository)"),
        "{said}"
    );
    assert!(!said.contains("`publish` needs"), "{said}");
    // read:repository only: neither.
    let said = doctor(crate::common::gitea_server::READ_TOKEN);
    assert!(
        said.contains("lacks write:repository that `publish` needs"),
        "{said}"
    );
    // The review token has what both need.
    let said = doctor(BOT_TOKEN);
    assert!(!said.contains("lacks"), "{said}");
    let probes: Vec<_> = w
        .server
        .requests()
        .into_iter()
        .filter(|r| r.path().ends_with("/notifications") || r.path().ends_with("/user"))
        .collect();
    assert!(!probes.is_empty());
    assert!(
        w.server
            .writes()
            .iter()
            .all(|r| !r.path().contains("/issues")),
        "doctor wrote"
    );
}

/// Each command names itself and what it needs.
#[test]
fn review_without_gitea_settings_names_review_and_its_scopes() {
    let tmp = tempfile::tempdir().expect("tmp");
    let a = Sandbox::machine(tmp.path(), "a");
    a.ok(&["init", "--agent", "a"]);
    let out = a.cmd(&["review"]).output().expect("review");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0));
    assert!(err.contains("review needs gitea.url"), "{err}");
    assert!(!err.contains("publish"), "{err}");
    let out = a
        .cmd(&["review"])
        .env("LEARNSYNC_GITEA_URL", "https://git.example")
        .env("LEARNSYNC_GITEA_REPO", "team/learnings")
        .env_remove("GITEA_TOKEN")
        .output()
        .expect("review");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("review needs a Gitea token"), "{err}");
    assert!(
        err.contains("write:repository, write:issue, read:user"),
        "{err}"
    );
    let out = a.cmd(&["publish"]).output().expect("publish");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("publish needs gitea.url"), "{err}");
}

#[test]
fn an_approval_its_outcomes_question_stops_being_l3_and_review_asks_people_once() {
    let w = World::new();
    let id = w.l2("rebase before pushing the release branch");
    w.a.ok(&["sync"]);
    w.review_ok();
    let maintainer = gitea(&w.server, MAINTAINER_TOKEN);
    let pull = w.open_review_of(&id);
    block(maintainer.merge_pull(pull.number, &MergePullRequestOption::default())).expect("merge");
    let report = w.review_ok();
    assert_eq!(ids_of(&report, "approved"), vec![id.clone()], "{report:#}");
    w.a.ok(&["sync"]);
    assert_eq!(w.a.show(&id)["trust_level"], "L3");
    // Agents follow it after the approval, and it keeps failing.
    std::thread::sleep(Duration::from_millis(1100));
    for agent in ["a", "b", "c", "a", "b"] {
        w.a.ok(&["--agent", agent, "apply", &id, "--outcome", "ineffective"]);
    }
    w.a.ok(&["sync"]);
    let shown = w.a.show(&id);
    assert_ne!(shown["trust_level"], "L3", "{shown:#}");
    let out = w.a.run(&["--json", "doctor"]);
    let doctor = json(&String::from_utf8_lossy(&out.stdout));
    assert!(
        doctor["notes"]
            .as_array()
            .expect("notes")
            .iter()
            .any(|n| n["kind"] == "questioned"
                && n["path"].as_str().is_some_and(|p| p.contains(&id))),
        "{doctor:#}"
    );
    let report = w.review_ok();
    assert_eq!(
        ids_of(&report, "questioned"),
        vec![id.clone()],
        "{report:#}"
    );
    let number = report["questioned"][0]["issue"]
        .as_u64()
        .expect("issue number");
    let issue = block(maintainer.get_issue(number as i64))
        .expect("read issue")
        .expect("the issue exists");
    assert!(issue.has_label("learning-problem"), "{issue:?}");
    assert!(
        issue.body.contains(&id) && issue.body.contains("demotion rule"),
        "{}",
        issue.body
    );
    // Asked once: the next pass opens nothing more.
    let report = w.review_ok();
    assert!(ids_of(&report, "questioned").is_empty(), "{report:#}");
}

/// One Bash call of a Claude Code session on a machine, as its hook sends
/// it: the stdout the agent reads.
fn hook(m: &Sandbox, session: &str, event: &str, command: &str, ok: bool) -> String {
    let mut p = claude_bash(session, event, command);
    match event {
        "PostToolUse" => {
            p["tool_response"] =
                serde_json::json!({"stdout": "", "stderr": "", "interrupted": false})
        }
        "PostToolUseFailure" => {
            p["error"] = serde_json::json!(if ok {
                ""
            } else {
                "Exit code 1\n ! [remote rejected] main -> main (protected branch hook declined)\nerror: failed to push some refs"
            })
        }
        _ => {}
    }
    stdout(&capture_as_hook(m, &[], &p))
}

#[test]
fn a_team_earns_l2_publishes_and_opens_a_review_from_what_agents_do_nobody_typing_apply() {
    let w = World::new();
    let (mistake, fix) = (
        "git push -f origin main",
        "git push --force-with-lease origin main",
    );
    // Sandbox a's agent fails and fixes it: an L1 learning with its correction.
    hook(&w.a, "a-1", "PostToolUseFailure", mistake, false);
    hook(&w.a, "a-1", "PostToolUse", "ls", true);
    hook(&w.a, "a-1", "PostToolUse", fix, true);
    // And an unrelated L1 learning nobody will follow.
    w.a.ok(&[
        "add",
        "--title",
        "make needs the tab",
        "--correction",
        "make -B all",
        "--command",
        "make all",
    ]);
    w.a.ok(&["sync"]);
    let b = w.machine("b");
    let c = w.machine("c");
    b.ok(&["sync"]);
    c.ok(&["sync"]);
    let id = json(&b.ok(&["--json", "list"]))
        .as_array()
        .expect("list")
        .iter()
        .find(|l| l["original_command"] == mistake)
        .and_then(|l| l["id"].as_str().map(str::to_string))
        .expect("the captured learning reached b");

    // b: two sessions warned, each runs the correction among other calls.
    for s in ["b-1", "b-2"] {
        assert!(hook(&b, s, "PreToolUse", mistake, true).contains("additionalContext"));
        hook(&b, s, "PostToolUse", "cargo build", true);
        hook(&b, s, "PostToolUse", &format!("cd shop && {fix}"), true);
        hook(&b, s, "PostToolUse", "git log -1", true);
    }
    // b: sessions that give no evidence.
    hook(&b, "b-unshown", "PostToolUse", fix, true);
    assert!(hook(&b, "b-other", "PreToolUse", mistake, true).contains("additionalContext"));
    hook(
        &b,
        "b-other",
        "PostToolUse",
        "git push origin feature",
        true,
    );
    hook(&b, "b-elsewhere", "PostToolUse", fix, true);
    // c: warned, ignores it once (fails), then a second session follows it.
    assert!(hook(&c, "c-1", "PreToolUse", mistake, true).contains("additionalContext"));
    hook(&c, "c-1", "PostToolUseFailure", mistake, false);
    hook(&c, "c-2", "PreToolUse", mistake, true);
    hook(&c, "c-2", "PostToolUse", fix, true);

    for m in [&b, &c, &w.a, &b, &c] {
        m.ok(&["sync"]);
    }
    for m in [&w.a, &b, &c] {
        let l = m.show(&id);
        assert_eq!(l["trust_level"], "L2", "{l:#}");
        assert_eq!(l["quality"]["effective_count"], 3, "{l:#}");
        assert_eq!(
            l["quality"]["agent_names"],
            serde_json::json!(["b", "c"]),
            "{l:#}"
        );
        // Nothing else moved.
        let others = json(&m.ok(&["--json", "list"]));
        for o in others.as_array().expect("list") {
            if o["id"] != id.as_str() {
                assert_eq!(o["trust_level"], "L1", "{o:#}");
                assert_eq!(o["quality"]["applied_count"], 0, "{o:#}");
            }
        }
    }
    // Published and proposed for review, with no one typing `apply`.
    let out =
        w.a.cmd(&["publish", "--json"])
            .env("GITEA_TOKEN", BOT_TOKEN)
            .output()
            .expect("publish");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let files = w.server.wiki_files();
    assert!(
        files
            .values()
            .any(|b| String::from_utf8_lossy(b).contains("force-with-lease")),
        "{:?}",
        files.keys().collect::<Vec<_>>()
    );
    let report = w.review_ok();
    assert_eq!(ids_of(&report, "proposed"), vec![id.clone()], "{report:#}");
    w.open_review_of(&id);
}

/// `doctor` says when learnsync's token can push another agent's branch
/// (§6.1: ownership is then only as strong as every agent's honesty), and
/// stops saying it once each agent branch is guarded.
#[test]
fn doctor_says_when_the_token_can_push_another_agents_branch() {
    let w = World::new();
    let b = w.machine("b");
    b.ok(&["sync"]);
    w.a.ok(&["sync"]);
    let doctor = || {
        let out =
            w.a.cmd(&["doctor"])
                .env("GITEA_TOKEN", BOT_TOKEN)
                .output()
                .expect("doctor");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let said = doctor();
    assert!(
        said.contains("learnsync's token can push other agents' branches (agents/b)"),
        "{said}"
    );
    assert!(
        !said.contains("agents/a,") && !said.contains("(agents/a"),
        "{said}"
    );
    // Only b's own Gitea user may push agents/b now.
    w.server
        .protect(Protection::new("agents/b").push_whitelist(&["b-machine"]));
    let said = doctor();
    assert!(!said.contains("other agents' branches"), "{said}");
}

/// What `review` tells a person, whole: a pass that proposes one learning
/// (and says whose evidence counted), then a quiet pass.
#[test]
fn reviews_human_output_is_pinned() {
    use crate::common::snapshot::{Filters, assert_snapshot, render};
    let w = World::new();
    w.l2("rebase before pushing");
    w.a.ok(&["sync"]);
    let filters = Filters::standard(w.tmp.path()).numbered("PULL", r"#\d+\b");
    for (name, pass) in [("review_proposes", "first"), ("review_quiet", "second")] {
        let out = w.review(&[]);
        assert_eq!(out.status.code(), Some(0), "{pass} pass: {out:?}");
        let text = filters.apply(&render("learnsync review", &out));
        assert_snapshot(name, &text);
    }
}
