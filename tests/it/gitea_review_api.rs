//! The review API client against the Gitea-compatible test server: every call
//! on its happy path and on the quirk Gitea has for it, checked in the real
//! bare hub repo with `git`; retries and non-retries under injected faults;
//! and the hub as a git remote for `learnsync sync`.

use crate::common::gitea_server;

use crate::common;
use crate::common::git::{as_person, as_person_ok};
use crate::common::gitea_client::client;

use gitea_server::{
    Access, BOT_TOKEN, Fault, FaultRule, GiteaServer, MAINTAINER, MAINTAINER_TOKEN, PUSHER_ENV,
    Protection, READER, READER_TOKEN, WRITE_TOKEN, now,
};
use learnsync::gitea::{
    CreateIssueOption, CreateLabelOption, CreatePullRequestOption, DeleteOutcome, EditIssueOption,
    EditPullRequestOption, FileOptions, FileOutcome, GiteaClient, IssueFilter, IssueKind,
    IssueLabels, MergeOutcome, MergePullRequestOption, PullFilter, PullOutcome, State, StateFilter,
    TimelineEvent,
};

const REVIEW: &[u8] = b"learning: learning-1\ndecision: approved\n";

/// A hub with a `main` holding one file.
fn hub() -> (GiteaServer, String) {
    let server = GiteaServer::start();
    let main = server.seed_branch("main", &[("README.md", b"hub\n")], "initial import");
    (server, main)
}

/// git as a person in `dir`; a push is made as the hub user `pusher`.
fn git(dir: &std::path::Path, args: &[&str], pusher: Option<&str>) -> std::process::Output {
    let mut cmd = as_person(dir, args);
    if let Some(pusher) = pusher {
        cmd.env(PUSHER_ENV, pusher);
    }
    cmd.output().expect("run git")
}

/// The bot's review branch and pull for `id`, labelled `learnsync:review`.
async fn open_review(gitea: &GiteaClient, id: &str, label: i64) -> i64 {
    let branch = format!("review/{id}");
    let created = gitea
        .create_file(
            &format!("reviews/{id}.yaml"),
            &FileOptions::new(REVIEW)
                .branch("main")
                .new_branch(&branch)
                .message(&format!("review: {id}")),
        )
        .await
        .expect("review file");
    assert!(matches!(created, FileOutcome::Committed(_)));
    let pr = gitea
        .create_pull(&CreatePullRequestOption {
            head: branch,
            base: "main".into(),
            title: format!("Review {id}"),
            body: "the learning".into(),
            labels: vec![label],
        })
        .await
        .expect("pull");
    assert_eq!(pr.outcome, PullOutcome::Created);
    pr.pull.number
}

async fn review_label(gitea: &GiteaClient) -> i64 {
    gitea
        .create_label(&CreateLabelOption {
            name: "learnsync:review".into(),
            color: "#0e8a16".into(),
            description: String::new(),
        })
        .await
        .expect("label")
        .id
}

#[tokio::test]
async fn each_token_sees_its_own_user_and_permissions() {
    let (server, _) = hub();
    let bot = client(&server, BOT_TOKEN);
    let maintainer = client(&server, MAINTAINER_TOKEN);
    let reader = client(&server, READER_TOKEN);

    assert_eq!(bot.current_user().await.expect("user").login, server.bot());
    let perms = |repo: learnsync::gitea::Repository| repo.permissions.expect("permissions");
    let p = perms(bot.get_repository().await.expect("repo"));
    assert!(
        (p.push, p.admin) == (true, false),
        "the bot writes, is not admin: {p:?}"
    );
    let p = perms(maintainer.get_repository().await.expect("repo"));
    assert!(p.admin && p.push);
    let p = perms(reader.get_repository().await.expect("repo"));
    assert!(p.pull && !p.push);

    let own = bot.repo_permission(&server.bot()).await.expect("own");
    assert_eq!((own.permission.as_str(), own.can_write()), ("write", true));
    let err = bot
        .repo_permission(MAINTAINER)
        .await
        .expect_err("only admins ask about others");
    assert!(err.status() == Some(403) && err.is_auth(), "{err}");
    let of_reader = maintainer
        .repo_permission(READER)
        .await
        .expect("admin asks");
    assert!(!of_reader.can_write() && of_reader.permission == "read");
    let owner = maintainer.repo_permission("acme").await.expect("owner");
    assert_eq!(owner.permission, "owner");
    assert!(
        maintainer
            .repo_permission("nobody")
            .await
            .expect_err("404")
            .is_not_found()
    );
    // WRITE_TOKEN has write:repository only: no read:user.
    let err = client(&server, WRITE_TOKEN)
        .current_user()
        .await
        .expect_err("scope");
    assert!(err.to_string().contains("required=[read:user]"), "{err}");
}

#[tokio::test]
async fn the_bot_reads_main_s_protection_from_the_branch_not_the_rules() {
    let (server, main) = hub();
    let bot = client(&server, BOT_TOKEN);
    let maintainer = client(&server, MAINTAINER_TOKEN);
    let open = bot.get_branch("main").await.expect("get").expect("main");
    assert_eq!(open.sha(), main);
    assert!(!open.protected && open.user_can_push && open.user_can_merge);
    assert!(bot.get_branch("nope").await.expect("get").is_none());
    assert!(
        maintainer
            .branch_protections()
            .await
            .expect("list")
            .is_empty()
    );

    server.protect(Protection::new("main").merge_whitelist(&[MAINTAINER]));
    let err = bot.branch_protections().await.expect_err("not an admin");
    assert_eq!(err.status(), Some(403));
    let guarded = bot.get_branch("main").await.expect("get").expect("main");
    assert!(guarded.protected);
    assert!(!guarded.user_can_push, "pushes are disabled");
    assert!(!guarded.user_can_merge, "only the maintainer merges");
    assert_eq!(
        guarded.effective_branch_protection_name, "",
        "hidden from non-admins"
    );
    let seen = maintainer
        .get_branch("main")
        .await
        .expect("get")
        .expect("main");
    assert!(seen.user_can_merge && seen.effective_branch_protection_name == "main");
    let rules = maintainer.branch_protections().await.expect("admin reads");
    assert_eq!(rules.len(), 1);
    assert!(rules[0].enable_merge_whitelist && !rules[0].enable_push);
    assert!(!rules[0].allows_merge(&server.bot(), true));
    assert!(rules[0].allows_merge(MAINTAINER, true));
    let one = maintainer
        .branch_protection("main")
        .await
        .expect("get")
        .expect("rule");
    assert_eq!(one.merge_whitelist_usernames, [MAINTAINER]);
    assert!(
        maintainer
            .branch_protection("dev")
            .await
            .expect("get")
            .is_none()
    );

    // A bot on the whitelists could merge its own pulls: the preflight's warning case.
    server.protect(
        Protection::new("main")
            .push_whitelist(&[&server.bot()])
            .merge_whitelist(&[MAINTAINER, &server.bot()]),
    );
    let risky = bot.get_branch("main").await.expect("get").expect("main");
    assert!(risky.user_can_push && risky.user_can_merge);
}

#[tokio::test]
async fn the_review_file_lands_on_a_new_branch_in_one_request() {
    let (server, main) = hub();
    let bot = client(&server, BOT_TOKEN);
    server.clear_requests();
    let outcome = bot
        .create_file(
            "reviews/learning-1.yaml",
            &FileOptions::new(REVIEW)
                .branch("main")
                .new_branch("review/learning-1")
                .message("review: learning-1"),
        )
        .await
        .expect("create");
    let FileOutcome::Committed(file) = outcome else {
        panic!("expected a new commit, got {outcome:?}");
    };
    assert_eq!(
        server.requests().len(),
        1,
        "one contents request, no branch call"
    );
    let commit = file.commit.expect("commit");
    assert_eq!(commit.parents.len(), 1);
    assert_eq!(commit.parents[0].sha, main, "branched from main");
    assert_eq!(
        server.branch_sha("review/learning-1").as_deref(),
        Some(commit.sha.as_str())
    );
    assert_eq!(server.branch_sha("main").as_deref(), Some(main.as_str()));
    assert_eq!(
        server
            .hub_file("review/learning-1", "reviews/learning-1.yaml")
            .as_deref(),
        Some(REVIEW)
    );
    assert_eq!(
        server.hub_git(&["log", "-1", "--format=%an|%cn|%s", "review/learning-1"]),
        format!("{0}|{0}|review: learning-1", server.bot())
    );
    let read = bot
        .get_file("reviews/learning-1.yaml", Some("review/learning-1"))
        .await
        .expect("get")
        .expect("file");
    assert_eq!(read.bytes().expect("base64").as_deref(), Some(REVIEW));
    assert_eq!(read.sha, file.content.expect("content").sha);
    assert_eq!(read.last_commit_sha, commit.sha);
    assert!(
        bot.get_file("reviews/learning-1.yaml", None)
            .await
            .expect("get")
            .is_none(),
        "not on main"
    );
    assert!(
        bot.get_file("README.md", Some("no-such-ref"))
            .await
            .expect("get")
            .is_none()
    );
    assert!(
        bot.get_file("reviews", Some("review/learning-1"))
            .await
            .is_err(),
        "a directory"
    );

    // Again with the same bytes: Gitea says 422, the client sees them in place.
    let again = bot
        .create_file(
            "reviews/learning-1.yaml",
            &FileOptions::new(REVIEW)
                .branch("main")
                .new_branch("review/learning-1"),
        )
        .await
        .expect("already there");
    assert!(matches!(again, FileOutcome::AlreadyThere(_)), "{again:?}");
    let err = bot
        .create_file(
            "reviews/learning-1.yaml",
            &FileOptions::new(b"other")
                .branch("main")
                .new_branch("review/learning-1"),
        )
        .await
        .expect_err("branch exists with other bytes");
    assert!(err.is_unprocessable(), "{err}");
    assert!(
        err.to_string()
            .contains("branch already exists [name: review/learning-1]")
    );
    let err = bot
        .create_file("README.md", &FileOptions::new(b"x"))
        .await
        .expect_err("file exists on main");
    assert!(
        err.to_string().contains("repository file already exists"),
        "{err}"
    );
    let err = bot
        .create_file("x.yaml", &FileOptions::new(b"x").branch("ghost"))
        .await
        .expect_err("no such base branch");
    assert!(err.is_not_found(), "{err}");
}

#[tokio::test]
async fn an_update_needs_the_current_blob_sha() {
    let (server, _) = hub();
    let bot = client(&server, BOT_TOKEN);
    bot.create_file(
        "reviews/a.yaml",
        &FileOptions::new(b"v1").new_branch("review/a"),
    )
    .await
    .expect("create");
    let current = bot
        .get_file("reviews/a.yaml", Some("review/a"))
        .await
        .expect("get")
        .expect("file");
    let err = bot
        .update_file(
            "reviews/a.yaml",
            &FileOptions::new(b"v2")
                .branch("review/a")
                .sha(&"0".repeat(40)),
        )
        .await
        .expect_err("stale sha");
    assert!(
        err.is_unprocessable() && err.to_string().contains("sha does not match"),
        "{err}"
    );
    let before = server.requests().len();
    assert!(
        bot.update_file(
            "reviews/a.yaml",
            &FileOptions::new(b"v2").branch("review/a")
        )
        .await
        .is_err(),
        "refused before sending"
    );
    assert_eq!(server.requests().len(), before);
    let updated = bot
        .update_file(
            "reviews/a.yaml",
            &FileOptions::new(b"v2").branch("review/a").sha(&current.sha),
        )
        .await
        .expect("update");
    assert!(matches!(updated, FileOutcome::Committed(_)));
    assert_eq!(
        server.hub_file("review/a", "reviews/a.yaml").as_deref(),
        Some(&b"v2"[..])
    );
    let err = bot
        .update_file(
            "reviews/missing.yaml",
            &FileOptions::new(b"v2").branch("review/a").sha(&current.sha),
        )
        .await
        .expect_err("no such file");
    assert!(err.is_not_found(), "{err}");
    let now_sha = bot
        .get_file("reviews/a.yaml", Some("review/a"))
        .await
        .expect("get")
        .expect("file")
        .sha;
    assert_eq!(
        bot.delete_file("reviews/a.yaml", &now_sha, Some("review/a"), None)
            .await
            .expect("delete"),
        DeleteOutcome::Deleted
    );
    assert!(server.hub_file("review/a", "reviews/a.yaml").is_none());
}

#[tokio::test]
async fn a_protected_main_refuses_the_bot_s_direct_writes_but_not_review_branches() {
    let (server, main) = hub();
    let bot = client(&server, BOT_TOKEN);
    server.protect(Protection::new("main"));
    let err = bot
        .create_file("reviews/x.yaml", &FileOptions::new(REVIEW))
        .await
        .expect_err("direct write to main");
    assert_eq!(err.status(), Some(403), "{err}");
    assert!(
        err.to_string().contains("user cannot commit to repo"),
        "{err}"
    );
    assert_eq!(server.branch_sha("main").as_deref(), Some(main.as_str()));
    bot.create_file(
        "reviews/x.yaml",
        &FileOptions::new(REVIEW).new_branch("review/x"),
    )
    .await
    .expect("a new branch is not protected");
    let reader = client(&server, READER_TOKEN);
    let err = reader
        .create_file(
            "reviews/y.yaml",
            &FileOptions::new(REVIEW).new_branch("review/y"),
        )
        .await
        .expect_err("readers cannot write");
    assert_eq!(err.status(), Some(403));
}

#[tokio::test]
async fn pulls_are_opened_once_listed_by_label_and_edited() {
    let (server, _) = hub();
    let bot = client(&server, BOT_TOKEN);
    let label = review_label(&bot).await;
    let index = open_review(&bot, "learning-1", label).await;
    let pull = bot.get_pull(index).await.expect("get").expect("pull");
    assert_eq!(
        (pull.head_ref(), pull.base_ref()),
        ("review/learning-1", "main")
    );
    assert_eq!(
        pull.head.as_ref().map(|h| h.sha.clone()),
        server.branch_sha("review/learning-1")
    );
    assert!(pull.state == State::Open && !pull.merged && pull.mergeable);
    assert!(pull.has_label("learnsync:review"));
    assert_eq!(
        pull.user.as_ref().map(|u| u.login.clone()),
        Some(server.bot())
    );
    assert_ne!(pull.id, pull.number, "the index is `number`, not `id`");
    assert!(bot.get_pull(999).await.expect("get").is_none());

    let again = bot
        .create_pull(&CreatePullRequestOption {
            head: "review/learning-1".into(),
            base: "main".into(),
            title: "Review learning-1".into(),
            body: String::new(),
            labels: vec![],
        })
        .await
        .expect("409 is the open pull");
    assert_eq!(
        (again.outcome, again.pull.number),
        (PullOutcome::AlreadyOpen, index)
    );
    assert!(server.requests().iter().any(|r| r.status == Some(409)));
    let same = bot
        .create_pull(&CreatePullRequestOption {
            head: "main".into(),
            base: "main".into(),
            title: "t".into(),
            ..CreatePullRequestOption::default()
        })
        .await
        .expect_err("head == base");
    assert!(same.is_unprocessable(), "{same}");
    let ghost = bot
        .create_pull(&CreatePullRequestOption {
            head: "review/ghost".into(),
            base: "main".into(),
            title: "t".into(),
            ..CreatePullRequestOption::default()
        })
        .await
        .expect_err("no such branch");
    assert!(ghost.is_not_found(), "{ghost}");

    let other = open_review(&bot, "learning-2", label).await;
    let unlabelled = bot
        .create_file(
            "reviews/3.yaml",
            &FileOptions::new(b"3").new_branch("topic"),
        )
        .await
        .map(|_| ())
        .and(Ok(()));
    assert!(unlabelled.is_ok());
    bot.create_pull(&CreatePullRequestOption {
        head: "topic".into(),
        base: "main".into(),
        title: "unrelated".into(),
        ..CreatePullRequestOption::default()
    })
    .await
    .expect("unlabelled pull");
    let labelled = bot
        .list_pulls(&PullFilter {
            labels: vec![label],
            ..PullFilter::default()
        })
        .await
        .expect("list");
    let numbers: Vec<i64> = labelled.iter().map(|p| p.number).collect();
    assert_eq!(
        numbers,
        [other, index],
        "newest first, label filter applied"
    );
    assert_eq!(
        bot.list_pulls(&PullFilter::default())
            .await
            .expect("all open")
            .len(),
        3
    );

    let edited = bot
        .edit_pull(
            index,
            &EditPullRequestOption {
                body: Some("the learning, edited".into()),
                ..EditPullRequestOption::default()
            },
        )
        .await
        .expect("edit");
    assert_eq!(edited.body, "the learning, edited");
    let patch = server
        .requests()
        .into_iter()
        .rfind(|r| r.method == "PATCH")
        .expect("PATCH");
    assert_eq!(patch.status, Some(201), "Gitea answers 201 to a pull edit");
    assert!(!bot.is_pull_merged(index).await.expect("merged?"));
}

#[tokio::test]
async fn a_maintainer_merge_is_a_real_two_parent_merge_commit_on_main() {
    let (server, main) = hub();
    let bot = client(&server, BOT_TOKEN);
    let maintainer = client(&server, MAINTAINER_TOKEN);
    let label = review_label(&bot).await;
    let index = open_review(&bot, "learning-1", label).await;
    let head = server.branch_sha("review/learning-1").expect("head");
    let before = now();
    let outcome = maintainer
        .merge_pull(index, &MergePullRequestOption::default())
        .await
        .expect("merge");
    assert_eq!(outcome, MergeOutcome::Merged);
    let tip = server.branch_sha("main").expect("main");
    assert_eq!(
        server.hub_git(&["log", "-1", "--format=%P", "main"]),
        format!("{main} {head}"),
        "parents: old main, then the review head"
    );
    let who = server.hub_git(&["log", "-1", "--format=%an|%cn|%ct|%s", "main"]);
    let fields: Vec<&str> = who.split('|').collect();
    assert_eq!(&fields[..2], [MAINTAINER, MAINTAINER]);
    let committed: i64 = fields[2].parse().expect("time");
    assert!(
        committed >= before && committed <= now() + 1,
        "{committed} vs {before}"
    );
    assert_eq!(
        fields[3],
        format!(
            "Merge pull request 'Review learning-1' (#{index}) from review/learning-1 into main"
        )
    );
    assert_eq!(
        server
            .hub_file("main", "reviews/learning-1.yaml")
            .as_deref(),
        Some(REVIEW)
    );
    let pull = bot.get_pull(index).await.expect("get").expect("pull");
    assert!(pull.merged && pull.state == State::Closed && !pull.closed_unmerged());
    assert_eq!(pull.merge_commit_sha.as_deref(), Some(tip.as_str()));
    assert_eq!(
        pull.merged_by.map(|u| u.login),
        Some(MAINTAINER.to_string())
    );
    assert!(bot.is_pull_merged(index).await.expect("merged?"));
    let events: Vec<TimelineEvent> = bot
        .issue_timeline(index)
        .await
        .expect("timeline")
        .iter()
        .map(|e| e.event())
        .collect();
    assert!(events.contains(&TimelineEvent::MergePull));
    assert!(
        !events.contains(&TimelineEvent::Close),
        "a merge records no close: {events:?}"
    );
    let again = maintainer
        .merge_pull(index, &MergePullRequestOption::default())
        .await
        .expect("405 on a merged pull");
    assert_eq!(again, MergeOutcome::AlreadyMerged);
    let err = bot
        .edit_pull(
            index,
            &EditPullRequestOption {
                state: Some(State::Open),
                ..EditPullRequestOption::default()
            },
        )
        .await
        .expect_err("merged pulls keep their state");
    assert!(err.is_precondition_failed(), "{err}");

    // delete_branch_after_merge removes the head and notes it on the pull.
    let second = open_review(&bot, "learning-2", label).await;
    maintainer
        .merge_pull(
            second,
            &MergePullRequestOption {
                delete_branch_after_merge: true,
                ..MergePullRequestOption::default()
            },
        )
        .await
        .expect("merge");
    assert!(server.branch_sha("review/learning-2").is_none());
    let last = bot.issue_timeline(second).await.expect("timeline");
    let tail: Vec<(TimelineEvent, String)> = last
        .iter()
        .rev()
        .take(2)
        .map(|e| (e.event(), e.author().to_string()))
        .collect();
    assert_eq!(
        tail,
        [
            (TimelineEvent::DeleteBranch, MAINTAINER.to_string()),
            (TimelineEvent::MergePull, MAINTAINER.to_string())
        ]
    );
}

#[tokio::test]
async fn protection_keeps_the_bot_from_merging_its_own_pulls() {
    let (server, main) = hub();
    let bot = client(&server, BOT_TOKEN);
    let maintainer = client(&server, MAINTAINER_TOKEN);
    let label = review_label(&bot).await;
    let index = open_review(&bot, "learning-1", label).await;
    server.protect(Protection::new("main").merge_whitelist(&[MAINTAINER]));
    let err = bot
        .merge_pull(index, &MergePullRequestOption::default())
        .await
        .expect_err("not on the merge whitelist");
    assert!(err.is_merge_refused(), "{err}");
    assert!(
        err.to_string().contains("User not allowed to merge PR"),
        "{err}"
    );
    assert_eq!(server.branch_sha("main").as_deref(), Some(main.as_str()));
    let reader = client(&server, READER_TOKEN);
    assert!(
        reader
            .merge_pull(index, &MergePullRequestOption::default())
            .await
            .expect_err("readers never merge")
            .is_merge_refused()
    );

    server.protect(
        Protection::new("main")
            .merge_whitelist(&[MAINTAINER])
            .required_approvals(1),
    );
    let err = maintainer
        .merge_pull(index, &MergePullRequestOption::default())
        .await
        .expect_err("no approval yet");
    assert!(
        err.to_string().contains("Does not have enough approvals"),
        "{err}"
    );
    server.approve(index, READER);
    assert!(
        maintainer
            .merge_pull(index, &MergePullRequestOption::default())
            .await
            .is_err(),
        "a reader's approval is not official"
    );
    server.approve(index, MAINTAINER);
    assert_eq!(
        maintainer
            .merge_pull(index, &MergePullRequestOption::default())
            .await
            .expect("approved"),
        MergeOutcome::Merged
    );
}

#[tokio::test]
async fn deleting_a_review_branch_closes_its_pull_and_the_timeline_says_who_and_why() {
    let (server, _) = hub();
    let bot = client(&server, BOT_TOKEN);
    let maintainer = client(&server, MAINTAINER_TOKEN);
    let label = review_label(&bot).await;
    let pruned = open_review(&bot, "learning-1", label).await;
    let rejected = open_review(&bot, "learning-2", label).await;
    let pushed_away = open_review(&bot, "learning-3", label).await;

    assert_eq!(
        bot.delete_branch("review/learning-1")
            .await
            .expect("delete"),
        DeleteOutcome::Deleted
    );
    assert_eq!(
        bot.delete_branch("review/learning-1").await.expect("again"),
        DeleteOutcome::NotFound
    );
    let pull = bot.get_pull(pruned).await.expect("get").expect("pull");
    assert!(pull.closed_unmerged(), "a deletion closes the pull");
    assert_eq!(pull.head_ref(), "review/learning-1", "the head name stays");
    let timeline = bot.issue_timeline(pruned).await.expect("timeline");
    let tail: Vec<(TimelineEvent, String, String)> = timeline
        .iter()
        .rev()
        .take(2)
        .rev()
        .map(|e| (e.event(), e.author().to_string(), e.old_ref.clone()))
        .collect();
    assert_eq!(
        tail,
        [
            (TimelineEvent::Close, server.bot(), String::new()),
            (
                TimelineEvent::DeleteBranch,
                server.bot(),
                "review/learning-1".to_string()
            )
        ]
    );

    // A person rejecting: a close by them and nothing after it.
    let closed = maintainer.close_issue(rejected).await.expect("close");
    assert_eq!(closed.state, State::Closed);
    let last = bot.issue_timeline(rejected).await.expect("timeline");
    let last = last.last().expect("events");
    assert_eq!(
        (last.event(), last.author()),
        (TimelineEvent::Close, MAINTAINER)
    );
    assert!(
        server.branch_sha("review/learning-2").is_some(),
        "closing keeps the branch"
    );

    // A plain `git push --delete` by a mirror's account closes it the same way.
    server.set_access("mirror-bot", Access::Write);
    server
        .delete_branch_by_push("review/learning-3", "mirror-bot")
        .expect("push --delete");
    let events = bot.issue_timeline(pushed_away).await.expect("timeline");
    let tail: Vec<(TimelineEvent, &str)> = events
        .iter()
        .rev()
        .take(2)
        .rev()
        .map(|e| (e.event(), e.author()))
        .collect();
    assert_eq!(
        tail,
        [
            (TimelineEvent::Close, "mirror-bot"),
            (TimelineEvent::DeleteBranch, "mirror-bot")
        ]
    );

    let err = bot.delete_branch("main").await.expect_err("default branch");
    assert!(
        err.to_string().contains("can not delete default branch"),
        "{err}"
    );
    server.protect(Protection::new("review/learning-2"));
    let err = bot
        .delete_branch("review/learning-2")
        .await
        .expect_err("protected");
    assert!(err.to_string().contains("branch protected"), "{err}");
}

#[tokio::test]
async fn the_hub_enforces_protection_on_git_pushes_from_a_clone() {
    let (server, main) = hub();
    let tmp = tempfile::tempdir().expect("tmp");
    let clone = tmp.path().join("clone");
    let out = git(
        tmp.path(),
        &[
            "clone",
            "-q",
            &server.repo_git_path().display().to_string(),
            "clone",
        ],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::write(clone.join("forged.yaml"), "decision: approved\n").expect("write");
    as_person_ok(&clone, &["add", "."]);
    as_person_ok(&clone, &["commit", "-q", "-m", "forge an approval"]);

    server.protect(Protection::new("main"));
    let out = git(
        &clone,
        &["push", "-q", "origin", "HEAD:main"],
        Some(&server.bot()),
    );
    assert!(!out.status.success(), "a protected main refuses the push");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Gitea: Not allowed to push to protected branch main"),
        "{stderr}"
    );
    assert_eq!(server.branch_sha("main").as_deref(), Some(main.as_str()));

    server.protect(Protection::new("main").push_whitelist(&[MAINTAINER]));
    let out = git(
        &clone,
        &["push", "-q", "origin", "HEAD:main"],
        Some(&server.bot()),
    );
    assert!(
        !out.status.success(),
        "the bot is not on the push whitelist"
    );
    let out = git(
        &clone,
        &["push", "-q", "origin", "HEAD:main"],
        Some(MAINTAINER),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_ne!(server.branch_sha("main").as_deref(), Some(main.as_str()));
    let out = git(
        &clone,
        &["push", "-q", "origin", "--delete", "main"],
        Some(MAINTAINER),
    );
    assert!(!out.status.success(), "main cannot be deleted");
    let out = git(
        &clone,
        &["push", "-q", "--force", "origin", &format!("{main}:main")],
        Some(MAINTAINER),
    );
    assert!(
        !out.status.success(),
        "no force pushes on a protected branch"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("protected from force push"));
    let out = git(
        &clone,
        &["push", "-q", "origin", "HEAD:agents/claude"],
        None,
    );
    assert!(out.status.success(), "other branches take pushes");
}

#[tokio::test]
async fn a_push_to_a_review_branch_shows_as_pull_push_by_the_pusher() {
    let (server, _) = hub();
    let bot = client(&server, BOT_TOKEN);
    let label = review_label(&bot).await;
    let index = open_review(&bot, "learning-1", label).await;
    let tmp = tempfile::tempdir().expect("tmp");
    let out = git(
        tmp.path(),
        &[
            "clone",
            "-q",
            "-b",
            "review/learning-1",
            &server.repo_git_path().display().to_string(),
            "c",
        ],
        None,
    );
    assert!(out.status.success());
    let clone = tmp.path().join("c");
    std::fs::write(clone.join("note.md"), "by hand\n").expect("write");
    as_person_ok(&clone, &["add", "."]);
    as_person_ok(&clone, &["commit", "-q", "-m", "a hand edit"]);
    let pushed = as_person_ok(&clone, &["rev-parse", "HEAD"]);
    let out = git(&clone, &["push", "-q", "origin", "HEAD"], Some(MAINTAINER));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pull = bot.get_pull(index).await.expect("get").expect("pull");
    assert_eq!(pull.head.map(|h| h.sha), Some(pushed.clone()));
    let timeline = bot.issue_timeline(index).await.expect("timeline");
    let push = timeline.last().expect("event");
    assert_eq!(
        (push.event(), push.author()),
        (TimelineEvent::PullPush, MAINTAINER)
    );
    let body: serde_json::Value = serde_json::from_str(&push.body).expect("push JSON");
    assert_eq!(body["is_force_push"], false);
    assert_eq!(body["commit_ids"], serde_json::json!([pushed]));

    // The bot's own contents update on the branch is a push too.
    let sha = bot
        .get_file("reviews/learning-1.yaml", Some("review/learning-1"))
        .await
        .expect("get")
        .expect("file")
        .sha;
    bot.update_file(
        "reviews/learning-1.yaml",
        &FileOptions::new(b"edited\n")
            .branch("review/learning-1")
            .sha(&sha),
    )
    .await
    .expect("update");
    let timeline = bot.issue_timeline(index).await.expect("timeline");
    let push = timeline.last().expect("event");
    assert_eq!(
        (push.event(), push.author().to_string()),
        (TimelineEvent::PullPush, server.bot())
    );
}

#[tokio::test]
async fn issues_are_found_by_label_author_and_marker_and_closed_with_201() {
    let (server, _) = hub();
    let bot = client(&server, BOT_TOKEN);
    let maintainer = client(&server, MAINTAINER_TOKEN);
    let reader = client(&server, READER_TOKEN);
    let problem = bot
        .create_label(&CreateLabelOption {
            name: "learning-problem".into(),
            color: "d73a4a".into(),
            description: "a learning is wrong".into(),
        })
        .await
        .expect("label");
    assert_eq!(problem.color, "d73a4a");
    let urgent = bot
        .create_label(&CreateLabelOption {
            name: "urgent".into(),
            color: "#fbca04".into(),
            description: String::new(),
        })
        .await
        .expect("label");
    let err = bot
        .create_label(&CreateLabelOption {
            name: "bad".into(),
            color: "reddish".into(),
            description: String::new(),
        })
        .await
        .expect_err("bad colour");
    assert!(err.is_unprocessable(), "{err}");

    let dropped = reader
        .create_issue(&CreateIssueOption {
            title: "learning-9 is wrong".into(),
            body: "it breaks".into(),
            labels: vec![problem.id],
            closed: false,
        })
        .await
        .expect("readers may open issues");
    assert!(
        dropped.labels.is_empty(),
        "labels dropped without issue write"
    );
    let reported = maintainer
        .create_issue(&CreateIssueOption {
            title: "learning-1 is wrong".into(),
            body: "see learning-1".into(),
            labels: vec![problem.id],
            closed: false,
        })
        .await
        .expect("issue");
    let both = maintainer
        .create_issue(&CreateIssueOption {
            title: "learning-2 is wrong and urgent".into(),
            body: String::new(),
            labels: vec![problem.id, urgent.id],
            closed: false,
        })
        .await
        .expect("issue");
    let marker = "<!-- learnsync:review-queue -->";
    let queue = bot
        .create_issue(&CreateIssueOption {
            title: "Review queue".into(),
            body: format!("{marker}\n- nothing yet\n"),
            labels: vec![],
            closed: false,
        })
        .await
        .expect("queue issue");
    // A person's issue with the same title and marker is not the bot's.
    maintainer
        .create_issue(&CreateIssueOption {
            title: "Review queue".into(),
            body: marker.into(),
            ..CreateIssueOption::default()
        })
        .await
        .expect("impostor");
    let label = review_label(&bot).await;
    open_review(&bot, "learning-1", label).await;

    let problems = bot
        .list_issues(&IssueFilter {
            kind: IssueKind::Issues,
            labels: vec!["learning-problem".into()],
            ..IssueFilter::default()
        })
        .await
        .expect("list");
    let numbers: Vec<i64> = problems.iter().map(|i| i.number).collect();
    assert_eq!(numbers, [both.number, reported.number]);
    let urgent_problems = bot
        .list_issues(&IssueFilter {
            labels: vec!["learning-problem".into(), "urgent".into()],
            ..IssueFilter::default()
        })
        .await
        .expect("list");
    assert_eq!(
        urgent_problems.iter().map(|i| i.number).collect::<Vec<_>>(),
        [both.number],
        "every label must match"
    );
    server.clear_requests();
    let none = bot
        .list_issues(&IssueFilter {
            labels: vec!["no-such-label".into()],
            ..IssueFilter::default()
        })
        .await
        .expect("list");
    assert!(
        none.is_empty(),
        "an unknown label matches nothing, not everything"
    );
    assert!(
        server
            .requests()
            .iter()
            .all(|r| !r.path().ends_with("/issues")),
        "Gitea was not asked"
    );
    let mine: Vec<_> = bot
        .list_issues(&IssueFilter {
            kind: IssueKind::Issues,
            created_by: Some(server.bot()),
            ..IssueFilter::default()
        })
        .await
        .expect("list")
        .into_iter()
        .filter(|i| i.body.contains(marker))
        .collect();
    assert_eq!(
        mine.iter().map(|i| i.number).collect::<Vec<_>>(),
        [queue.number]
    );
    let pulls = bot
        .list_issues(&IssueFilter {
            kind: IssueKind::Pulls,
            ..IssueFilter::default()
        })
        .await
        .expect("list");
    assert!(pulls.len() == 1 && pulls[0].is_pull());

    let edited = bot
        .edit_issue(
            queue.number,
            &EditIssueOption {
                body: Some(format!("{marker}\n- learning-1\n")),
                ..EditIssueOption::default()
            },
        )
        .await
        .expect("edit");
    assert!(edited.body.ends_with("- learning-1\n"));
    let closed = bot.close_issue(queue.number).await.expect("close");
    assert!(closed.state == State::Closed && closed.closed_at.is_some());
    let status = server
        .requests()
        .into_iter()
        .rfind(|r| r.method == "PATCH")
        .and_then(|r| r.status);
    assert_eq!(status, Some(201), "Gitea answers 201 to an issue edit");
    assert_eq!(
        bot.list_issues(&IssueFilter {
            state: StateFilter::Closed,
            ..IssueFilter::default()
        })
        .await
        .expect("closed")
        .len(),
        1
    );
    let err = reader
        .edit_issue(
            reported.number,
            &EditIssueOption {
                state: Some(State::Closed),
                ..EditIssueOption::default()
            },
        )
        .await
        .expect_err("not the poster, no write");
    assert_eq!(err.status(), Some(403));

    let set = bot
        .add_issue_labels(dropped.number, &IssueLabels::Names(vec!["urgent".into()]))
        .await
        .expect("add by name");
    assert_eq!(
        set.iter().map(|l| l.name.as_str()).collect::<Vec<_>>(),
        ["urgent"]
    );
    let set = bot
        .add_issue_labels(dropped.number, &IssueLabels::Ids(vec![problem.id]))
        .await
        .expect("add by id");
    assert_eq!(set.len(), 2, "the full set comes back");
    let set = bot
        .replace_issue_labels(dropped.number, &IssueLabels::Ids(vec![problem.id]))
        .await
        .expect("replace");
    assert_eq!(set.iter().map(|l| l.id).collect::<Vec<_>>(), [problem.id]);
    bot.remove_issue_label(dropped.number, problem.id)
        .await
        .expect("remove");
    assert!(
        bot.get_issue(dropped.number)
            .await
            .expect("get")
            .expect("issue")
            .labels
            .is_empty()
    );
    let err = reader
        .add_issue_labels(reported.number, &IssueLabels::Names(vec!["urgent".into()]))
        .await
        .expect_err("labelling needs issue write");
    assert_eq!(err.status(), Some(403));
    // Duplicate names are not refused by Gitea.
    review_label(&bot).await;
    let labels = bot.list_labels().await.expect("labels");
    assert_eq!(
        labels
            .iter()
            .filter(|l| l.name == "learnsync:review")
            .count(),
        2
    );
}

#[tokio::test]
async fn comments_are_oldest_first_and_can_be_edited_and_deleted() {
    let (server, _) = hub();
    let bot = client(&server, BOT_TOKEN);
    let reader = client(&server, READER_TOKEN);
    let issue = bot
        .create_issue(&CreateIssueOption {
            title: "thread".into(),
            ..CreateIssueOption::default()
        })
        .await
        .expect("issue");
    let first = bot
        .create_comment(issue.number, "one")
        .await
        .expect("comment");
    reader
        .create_comment(issue.number, "two")
        .await
        .expect("readers comment");
    bot.close_issue(issue.number).await.expect("close");
    bot.create_comment(issue.number, "three")
        .await
        .expect("comment");
    let listed = bot.list_comments(issue.number).await.expect("list");
    let bodies: Vec<&str> = listed.iter().map(|c| c.body.as_str()).collect();
    assert_eq!(
        bodies,
        ["one", "two", "three"],
        "plain comments only, oldest first"
    );
    assert_eq!(listed[1].author(), READER);
    let edited = bot
        .edit_comment(first.id, "one, edited")
        .await
        .expect("edit")
        .expect("a text comment");
    assert_eq!(edited.body, "one, edited");
    let err = reader
        .edit_comment(first.id, "hijack")
        .await
        .expect_err("someone else's comment");
    assert_eq!(err.status(), Some(403));
    assert_eq!(
        bot.delete_comment(first.id).await.expect("delete"),
        DeleteOutcome::Deleted
    );
    assert_eq!(
        bot.delete_comment(first.id).await.expect("again"),
        DeleteOutcome::NotFound
    );
    assert_eq!(
        bot.list_comments(issue.number).await.expect("list").len(),
        2
    );
    let close_event = bot
        .issue_timeline(issue.number)
        .await
        .expect("timeline")
        .into_iter()
        .find(|e| e.event() == TimelineEvent::Close)
        .expect("close event");
    assert!(
        bot.edit_comment(close_event.id, "x")
            .await
            .expect("204")
            .is_none(),
        "events have no text to edit"
    );
    let err = bot.list_comments(999).await.expect_err("missing issue");
    assert_eq!(err.status(), Some(500), "Gitea answers 500, not 404");
}

#[tokio::test]
async fn lists_read_every_page_including_the_timeline_with_its_per_page_total() {
    let (server, _) = hub();
    let bot = client(&server, BOT_TOKEN);
    for i in 0..57 {
        bot.create_label(&CreateLabelOption {
            name: format!("l{i:02}"),
            color: "ededed".into(),
            description: String::new(),
        })
        .await
        .expect("label");
    }
    let issue = bot
        .create_issue(&CreateIssueOption {
            title: "busy".into(),
            ..CreateIssueOption::default()
        })
        .await
        .expect("issue");
    for i in 0..120 {
        bot.create_comment(issue.number, &format!("c{i}"))
            .await
            .expect("comment");
    }
    server.clear_requests();
    let labels = bot.list_labels().await.expect("labels");
    assert_eq!(labels.len(), 57);
    let timeline = bot.issue_timeline(issue.number).await.expect("timeline");
    assert_eq!(timeline.len(), 120);
    assert_eq!(timeline[0].body, "c0");
    assert_eq!(timeline[119].body, "c119");
    let reads: Vec<(String, Option<String>)> = server
        .requests()
        .iter()
        .map(|r| {
            let total = r
                .response_headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("x-total-count"))
                .map(|(_, v)| v.clone());
            (r.target.clone(), total)
        })
        .collect();
    assert_eq!(
        reads.len(),
        2 + 3,
        "2 label pages, 3 timeline pages: {reads:?}"
    );
    assert!(reads[0].0.contains("limit=50"));
    assert_eq!(
        reads[2].1.as_deref(),
        Some("50"),
        "the timeline's total is the page's own count"
    );
}

#[tokio::test]
async fn writes_that_may_have_landed_are_resent_only_when_the_retry_can_tell() {
    let (server, _) = hub();
    let bot = client(&server, BOT_TOKEN);
    let label = review_label(&bot).await;

    // A contents create that landed and answered 500: the retry meets 422
    // and finds the bytes in place. One commit.
    server.inject(FaultRule::next(1, Fault::LandThenStatus(500)).on_path("/contents/"));
    let outcome = bot
        .create_file(
            "reviews/learning-1.yaml",
            &FileOptions::new(REVIEW).new_branch("review/learning-1"),
        )
        .await
        .expect("create");
    assert!(
        matches!(outcome, FileOutcome::AlreadyThere(_)),
        "{outcome:?}"
    );
    assert_eq!(
        server.hub_git(&["rev-list", "--count", "main..review/learning-1"]),
        "1"
    );

    // A pull create that landed: the retry's 409 finds it. One pull.
    server.inject(
        FaultRule::next(1, Fault::LandThenStatus(500))
            .on_method("POST")
            .on_path("/pulls"),
    );
    let created = bot
        .create_pull(&CreatePullRequestOption {
            head: "review/learning-1".into(),
            base: "main".into(),
            title: "Review learning-1".into(),
            body: String::new(),
            labels: vec![label],
        })
        .await
        .expect("pull");
    assert_eq!(created.outcome, PullOutcome::AlreadyOpen);
    assert_eq!(
        bot.list_pulls(&PullFilter {
            state: StateFilter::All,
            ..PullFilter::default()
        })
        .await
        .expect("list")
        .len(),
        1
    );

    // A comment that landed and answered 500 is not sent again.
    server.clear_requests();
    server.inject(FaultRule::next(1, Fault::LandThenStatus(500)).on_path("/comments"));
    let err = bot
        .create_comment(created.pull.number, "queued")
        .await
        .expect_err("500 after landing");
    assert!(err.may_have_landed(), "{err}");
    assert_eq!(server.writes().len(), 1, "not resent");
    assert_eq!(
        bot.list_comments(created.pull.number)
            .await
            .expect("list")
            .len(),
        1
    );
    // A dropped connection after sending is not resent either.
    server.inject(
        FaultRule::next(1, Fault::DropConnection)
            .on_path("/issues")
            .on_method("POST"),
    );
    let err = bot
        .create_issue(&CreateIssueOption {
            title: "queue".into(),
            ..CreateIssueOption::default()
        })
        .await
        .expect_err("dropped");
    assert!(err.may_have_landed(), "{err}");
    // A proxy's 503 or 429 never reached Gitea: resent, made once.
    server.clear_requests();
    server.inject(FaultRule::next(1, Fault::status(503).retry_after("0")).on_path("/comments"));
    server.inject(FaultRule::next(1, Fault::status(429)).on_path("/comments"));
    bot.create_comment(created.pull.number, "again")
        .await
        .expect("resent after 503 and 429");
    let statuses: Vec<Option<u16>> = server.writes().iter().map(|r| r.status).collect();
    assert_eq!(statuses, [Some(503), Some(429), Some(201)]);
    assert_eq!(
        bot.list_comments(created.pull.number)
            .await
            .expect("list")
            .len(),
        2
    );

    // A merge that landed: the retry's 405 sees the pull merged.
    let maintainer = client(&server, MAINTAINER_TOKEN);
    server.inject(FaultRule::next(1, Fault::LandThenStatus(500)).on_path("/merge"));
    assert_eq!(
        maintainer
            .merge_pull(created.pull.number, &MergePullRequestOption::default())
            .await
            .expect("merge"),
        MergeOutcome::AlreadyMerged
    );
    assert_eq!(
        server.hub_git(&["rev-list", "--merges", "--count", "main"]),
        "1"
    );

    // Reads retry through drops and 5xx.
    server.clear_requests();
    server.inject(FaultRule::next(1, Fault::DropConnection).on_path("/timeline"));
    server.inject(FaultRule::next(1, Fault::status(502)).on_path("/timeline"));
    let timeline = bot
        .issue_timeline(created.pull.number)
        .await
        .expect("timeline");
    assert!(
        timeline
            .iter()
            .any(|e| e.event() == TimelineEvent::MergePull)
    );
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn the_hub_is_a_sync_remote_and_a_merged_review_reaches_the_learnings_dir() {
    let server = GiteaServer::start();
    let tmp = tempfile::tempdir().expect("tmp");
    let machine = common::Sandbox::machine(tmp.path(), "a");
    machine.init_with_hub("claude", server.repo_git_path().display());
    let id = machine.add_learning("Use --force-with-lease", "use it");
    machine.ok(&["sync"]);
    let pushed = server
        .branch_sha("agents/claude")
        .expect("sync pushed its branch");
    // The hub's main starts as the agent's history; then it is protected.
    server.hub_git(&["update-ref", "refs/heads/main", &pushed]);
    server.protect(Protection::new("main").merge_whitelist(&[MAINTAINER]));

    let bot = client(&server, BOT_TOKEN);
    let path = format!("reviews/{id}.yaml");
    let review = format!("learning: {id}\ndecision: approved\n");
    bot.create_file(
        &path,
        &FileOptions::new(review.as_bytes()).new_branch(&format!("review/{id}")),
    )
    .await
    .expect("review file");
    let pull = bot
        .create_pull(&CreatePullRequestOption {
            head: format!("review/{id}"),
            base: "main".into(),
            title: format!("Review {id}"),
            ..CreatePullRequestOption::default()
        })
        .await
        .expect("pull");
    client(&server, MAINTAINER_TOKEN)
        .merge_pull(pull.pull.number, &MergePullRequestOption::default())
        .await
        .expect("merge");
    machine.ok(&["sync"]);
    let synced = std::fs::read_to_string(machine.dir().join(&path)).expect("review file synced");
    assert_eq!(synced, review);
}

#[tokio::test]
async fn review_errors_never_carry_the_token() {
    let (server, _) = hub();
    let bot = client(&server, BOT_TOKEN);
    // A proxy error page that echoes the request's Authorization header.
    server.inject(
        FaultRule::next(
            9,
            Fault::Body {
                status: 502,
                body: format!("bad gateway; you sent: token {BOT_TOKEN}"),
            },
        )
        .on_path("/pulls"),
    );
    let err = bot
        .list_pulls(&PullFilter::default())
        .await
        .expect_err("502 echo");
    let text = format!("{err} {err:?}");
    assert!(
        text.contains("[REDACTED]") && !text.contains(BOT_TOKEN),
        "{text}"
    );
    let err = bot.create_comment(1, "x").await.expect_err("no such issue");
    assert!(!format!("{err:?}").contains(BOT_TOKEN));
    assert!(!format!("{bot:?}").contains(BOT_TOKEN));
}
