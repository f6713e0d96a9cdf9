//! `learnsync daemon` on second-granularity schedules, the real binary
//! against real git and the Gitea-compatible test server: `--check` says
//! when each job fires and explains a bad line; jobs run at their times,
//! never two at once, in the order sync, review, publish; a slow publish
//! makes the next ticks skip, and says so; the first run on a fresh
//! machine creates the dir and says what it skipped and how to configure it.

use crate::common::daemon::{Daemon, wait_runs, write_config};
use crate::common::gitea_server::{BOT_TOKEN, Fault, FaultRule, GiteaServer};
use crate::common::{Sandbox, json};
use learnsync::daemon::{ErrorClass, Job, RunOutcome, RunRecord, Trigger, parse_stamp};
use std::time::Duration;

#[test]
fn check_lists_each_jobs_next_times_and_a_bad_schedule_is_explained_in_words() {
    let s = Sandbox::new();
    s.ok(&["init", "--agent", "a"]);
    write_config(
        s.dir(),
        "agent: a\nschedule:\n  sync: \"*/10 * * * * *\"\n  review: \"0 9 * * mon-fri\"\n  publish: \"off\"\ndaemon:\n  spread_secs: 0\n",
    );
    let out = s.ok(&["daemon", "--check"]);
    let line = |job: &str| {
        out.lines()
            .find(|l| l.starts_with(job))
            .unwrap_or_else(|| panic!("no {job} line in\n{out}"))
            .to_string()
    };
    assert!(line("sync").contains("*/10 * * * * *"), "{out}");
    assert!(line("publish").contains("off"), "{out}");
    let plans = json(&s.ok(&["--json", "daemon", "--check"]));
    let sync = &plans[0];
    assert_eq!(sync["job"], "sync");
    let next: Vec<_> = sync["next"]
        .as_array()
        .expect("next")
        .iter()
        .map(|t| chrono::DateTime::parse_from_rfc3339(t.as_str().expect("text")).expect("a time"))
        .collect();
    assert_eq!(next.len(), 3);
    for pair in next.windows(2) {
        assert_eq!((pair[1] - pair[0]).num_seconds(), 10, "{next:?}");
    }
    use chrono::{Datelike, Timelike};
    for t in plans[1]["next"].as_array().expect("next") {
        let t = chrono::DateTime::parse_from_rfc3339(t.as_str().expect("text")).expect("time");
        assert!(
            t.weekday().num_days_from_monday() < 5 && t.hour() == 9,
            "{t}"
        );
    }
    assert_eq!(plans[2]["off"], true);

    write_config(s.dir(), "agent: a\nschedule:\n  publish: \"0 9 * * fun\"\n");
    let out = s.run(&["daemon", "--check"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("schedule.publish") && err.contains("`fun` is not a weekday: use sun, mon"),
        "{err}"
    );
}

fn overlaps(a: &RunRecord, b: &RunRecord) -> bool {
    let (Some(a0), Some(a1), Some(b0), Some(b1)) = (
        parse_stamp(&a.start),
        parse_stamp(&a.end),
        parse_stamp(&b.start),
        parse_stamp(&b.end),
    ) else {
        panic!("unreadable times in {a:?} {b:?}");
    };
    a0 < b1 && b0 < a1
}

#[test]
fn jobs_run_at_their_times_one_at_a_time_in_order_and_a_slow_publish_skips_its_next_ticks() {
    let s = Sandbox::new();
    s.ok(&["init", "--agent", "a"]);
    let server = GiteaServer::start();
    // The first page write takes 5 s: the publish outlasts several ticks.
    server.inject(
        FaultRule::next(1, Fault::Delay(Duration::from_secs(5)))
            .on_method("POST")
            .on_path("/wiki/"),
    );
    write_config(
        s.dir(),
        &format!(
            "agent: a\ngitea:\n  url: {}\n  repo: {}\nschedule:\n  sync: \"*/2 * * * * *\"\n  review: \"*/4 * * * * *\"\n  publish: \"*/4 * * * * *\"\ndaemon:\n  spread_secs: 0\n",
            server.url(),
            server.repo_ref()
        ),
    );
    let mut cmd = s.cmd(&["daemon"]);
    cmd.env("GITEA_TOKEN", BOT_TOKEN);
    let mut d = Daemon::start(cmd);
    let executed = |runs: &[RunRecord]| -> Vec<RunRecord> {
        runs.iter()
            .filter(|r| r.error_class != Some(ErrorClass::Overlap))
            .cloned()
            .collect()
    };
    let runs = wait_runs(
        s.dir(),
        Duration::from_secs(60),
        "two publishes and a skip",
        |runs| {
            let publishes = executed(runs)
                .iter()
                .filter(|r| r.job == Job::Publish)
                .count();
            publishes >= 2
                && runs
                    .iter()
                    .any(|r| r.job == Job::Publish && r.error_class == Some(ErrorClass::Overlap))
        },
    );
    d.stop();
    let ran = executed(&runs);
    // Never two at once.
    for (i, a) in ran.iter().enumerate() {
        for b in &ran[i + 1..] {
            assert!(!overlaps(a, b), "{a:?} overlaps {b:?}");
        }
    }
    // Each job at its times: scheduled syncs start on even seconds (unless
    // they waited behind another job), so most of them do.
    let on_time = ran
        .iter()
        .filter(|r| r.job == Job::Sync && r.trigger == Trigger::Schedule)
        .filter(|r| {
            use chrono::Timelike;
            let t = parse_stamp(&r.start).expect("time");
            // Within the tick's second: a loaded 2-core CI machine starts
            // a process late, never a second early.
            t.second().is_multiple_of(2)
        })
        .count();
    assert!(on_time >= 2, "{ran:#?}");
    // Due together, they run in order: the publish after the review after the sync.
    let triple = ran.windows(3).any(|w| {
        w[0].job == Job::Sync
            && w[1].job == Job::Review
            && w[2].job == Job::Publish
            && w[2].trigger == Trigger::Schedule
    });
    assert!(triple, "no sync, review, publish in a row:\n{ran:#?}");
    for w in ran.windows(2) {
        let same_tick = parse_stamp(&w[1].start).expect("t") - parse_stamp(&w[0].end).expect("t")
            < chrono::Duration::milliseconds(50);
        if same_tick && w[0].trigger == Trigger::Schedule && w[1].trigger == Trigger::Schedule {
            let rank = |j: Job| Job::ORDER.iter().position(|o| *o == j);
            assert!(
                rank(w[0].job) <= rank(w[1].job) || w[0].job == Job::Publish,
                "{:?} then {:?}",
                w[0],
                w[1]
            );
        }
    }
    // The slow publish: the first took the delay, its next ticks were skipped, logged.
    let first = ran
        .iter()
        .find(|r| r.job == Job::Publish)
        .expect("a publish");
    assert!(first.duration_secs >= 4.5, "{first:?}");
    assert_eq!(first.outcome, RunOutcome::Ok, "{first:?}");
    assert!(d.log().contains("publish skipped: the"), "{}", d.log());
    // The review pass ran against the hub's Gitea and found nothing to
    // propose (no learning is L2 yet).
    let review = ran
        .iter()
        .find(|r| r.job == Job::Review)
        .expect("a review run");
    assert_eq!(
        (review.outcome, review.error_class),
        (RunOutcome::Ok, None),
        "{review:?}"
    );
    assert!(review.summary.contains("nothing to propose"), "{review:?}");
    // The second publish found nothing changed since the first.
    let second = ran
        .iter()
        .filter(|r| r.job == Job::Publish)
        .nth(1)
        .expect("second");
    assert_eq!(second.outcome, RunOutcome::Unchanged, "{second:?}");
    // The wiki got its pages once.
    assert!(!server.wiki_files().is_empty());
}

#[test]
fn the_first_run_on_a_fresh_machine_creates_the_dir_and_says_what_it_skipped() {
    let s = Sandbox::new();
    assert!(!s.dir().exists());
    let mut d = Daemon::start(s.cmd(&["daemon"]));
    d.wait_for("sync ok", Duration::from_secs(30));
    d.stop();
    let log = d.log();
    assert!(s.dir().join(".git").is_dir());
    for want in [
        "created the learnings dir",
        "learnsync init --remote hub=<git url>",
        "publish: will skip: no wiki to publish to",
        "configure one with: printf",
        "review: will skip: review needs the hub's Gitea repository",
    ] {
        assert!(log.contains(want), "no {want:?} in\n{log}");
    }
    // `status` shows the jobs from the records while no daemon runs.
    let status = s.ok(&["status"]);
    assert!(status.contains("daemon:    not running"), "{status}");
    assert!(status.contains("last run:     20"), "{status}");
    let st = json(&s.ok(&["--json", "status"]));
    let sync = &st["daemon"]["jobs"][0];
    assert_eq!(sync["job"], "sync");
    assert_eq!(sync["last_run"]["outcome"], "ok");
    assert_eq!(sync["last_run"]["trigger"], "start");
    assert!(sync["last_success"].is_string());
    assert!(sync["next_run"].is_string(), "{sync}");
    assert_eq!(sync["consecutive_failures"], 0);
}
