//! A capture reaches the other machines without waiting for a schedule:
//! a file arriving in machine A's inbox makes A's daemon sync after the
//! debounce, and machine B's daemon, on its own schedule, merges it.

use crate::common::Sandbox;
use crate::common::daemon::{Daemon, wait_runs, write_config};
use crate::common::git::bare;
use learnsync::daemon::{Job, RunOutcome, Trigger, parse_stamp};
use std::time::{Duration, Instant};

#[test]
fn a_capture_triggers_a_sync_after_the_debounce_and_reaches_a_second_machine() {
    let tmp = tempfile::tempdir().expect("tmp");
    let hub = tmp.path().join("hub.git");
    bare(&hub);
    let a = Sandbox::machine_on_hub(tmp.path(), "a", "a", hub.display());
    let b = Sandbox::machine_on_hub(tmp.path(), "b", "b", hub.display());
    // A syncs only when a capture arrives (its schedule is once a year);
    // B every two seconds.
    write_config(
        a.dir(),
        "agent: a\nhub: hub\nschedule:\n  sync: \"0 0 1 1 *\"\n  publish: \"off\"\n  review: \"off\"\ndaemon:\n  debounce_secs: 2\n  spread_secs: 0\n",
    );
    write_config(
        b.dir(),
        "agent: b\nhub: hub\nschedule:\n  sync: \"*/2 * * * * *\"\n  publish: \"off\"\n  review: \"off\"\ndaemon:\n  spread_secs: 0\n",
    );
    let mut da = Daemon::start(a.cmd(&["daemon"]));
    let mut db = Daemon::start(b.cmd(&["daemon"]));
    wait_runs(a.dir(), Duration::from_secs(30), "A's start-up sync", |r| {
        r.iter().any(|r| r.job == Job::Sync)
    });
    let added = Instant::now();
    let added_at = chrono::Utc::now();
    let id = a.add_learning("Quote globs in find", "find . -name '*.rs'");
    let runs = wait_runs(a.dir(), Duration::from_secs(30), "A's capture sync", |r| {
        r.iter()
            .any(|r| r.trigger == Trigger::Capture && r.outcome == RunOutcome::Ok)
    });
    let capture = runs
        .iter()
        .find(|r| r.trigger == Trigger::Capture)
        .expect("capture run");
    assert!(capture.summary.contains("1 learning(s)"), "{capture:?}");
    let started = parse_stamp(&capture.start).expect("time");
    assert!(
        started - added_at >= chrono::Duration::milliseconds(1900),
        "synced before the debounce: {capture:?}"
    );
    // On B, as a file of A's folder, once B's next sync merged it.
    let on_b = b.dir().join("a").join(format!("{id}.md"));
    while !on_b.exists() {
        assert!(
            added.elapsed() < Duration::from_secs(60),
            "the capture never reached B:\nA:\n{}\nB:\n{}",
            da.log(),
            db.log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    eprintln!("capture to B's tree: {:?}", added.elapsed());
    da.signal("TERM");
    db.signal("TERM");
    assert!(da.wait_exit(Duration::from_secs(30)).success());
    assert!(db.wait_exit(Duration::from_secs(30)).success());
    crate::common::git::assert_clean_and_sound(a.dir(), a.home());
    crate::common::git::assert_clean_and_sound(b.dir(), b.home());
}

/// Issue 32: the daemon's syncs hold outcome events for a batch. An event
/// arriving triggers a sync that leaves it in the inbox and says so; the
/// event that completes the batch (`daemon.evidence_batch_events: 2`) goes
/// with it in one commit.
#[test]
fn the_daemon_sends_outcome_events_in_batches() {
    let tmp = tempfile::tempdir().expect("tmp");
    let hub = tmp.path().join("hub.git");
    bare(&hub);
    let a = Sandbox::machine_on_hub(tmp.path(), "a", "a", hub.display());
    let id = a.add_learning("Quote globs", "quote them");
    a.ok(&["sync"]);
    write_config(
        a.dir(),
        "agent: a\nhub: hub\nschedule:\n  sync: \"0 0 1 1 *\"\n  publish: \"off\"\n  review: \"off\"\ndaemon:\n  debounce_secs: 1\n  spread_secs: 0\n  evidence_batch_events: 2\n  evidence_batch_secs: 3600\n",
    );
    let commits = || a.git(&["rev-list", "--count", "HEAD"]).trim().to_string();
    let before = commits();
    let base = a.git(&["rev-parse", "HEAD"]).trim().to_string();
    let mut da = Daemon::start(a.cmd(&["daemon"]));
    wait_runs(a.dir(), Duration::from_secs(30), "the start-up sync", |r| {
        r.iter().any(|r| r.job == Job::Sync)
    });
    a.ok(&["apply", &id, "--outcome", "applied"]);
    let runs = wait_runs(a.dir(), Duration::from_secs(30), "the held sync", |r| {
        r.iter().any(|r| r.trigger == Trigger::Capture)
    });
    let held = runs
        .iter()
        .find(|r| r.trigger == Trigger::Capture)
        .expect("capture run");
    assert!(
        held.summary
            .contains("1 outcome event(s) held for the next batch"),
        "{held:?}\n{}",
        da.log()
    );
    assert_eq!(commits(), before, "nothing committed yet");
    a.ok(&["apply", &id, "--outcome", "effective"]);
    wait_runs(a.dir(), Duration::from_secs(30), "the batch", |r| {
        r.iter()
            .filter(|r| r.trigger == Trigger::Capture)
            .any(|r| r.summary.contains("2 event(s) from the inbox"))
    });
    da.stop();
    let events = a.git(&[
        "log",
        "--format=%H",
        &format!("{base}..HEAD"),
        "--",
        "events/",
    ]);
    assert_eq!(events.lines().count(), 1, "one commit for both events");
    crate::common::git::assert_clean_and_sound(a.dir(), a.home());
}
