//! A manual `sync` holding the lock is not the daemon's failure: the
//! daemon's sync waits `lock_wait_secs`, then skips the run (`busy`) with
//! no backoff, and syncs at its next time once the lock is free. The log
//! is JSON lines with `--log-format json`.

use crate::common::Sandbox;
use crate::common::daemon::{Daemon, runs, wait_runs, write_config};
use learnsync::daemon::{ErrorClass, Job, RunOutcome};
use learnsync::store::{LearningsDir, SyncLock};
use std::time::Duration;

#[test]
fn a_sync_lock_held_by_hand_skips_the_run_as_busy_and_the_next_run_syncs() {
    let s = Sandbox::new();
    s.ok(&["init", "--agent", "a"]);
    write_config(
        s.dir(),
        "agent: a\nlock_wait_secs: 1\nschedule:\n  sync: \"*/2 * * * * *\"\n  publish: \"off\"\n  review: \"off\"\ndaemon:\n  spread_secs: 0\n",
    );
    // What a manual `learnsync sync` holds while it runs.
    let lock = SyncLock::acquire(
        &LearningsDir::new(s.dir()).state().sync_lock(),
        Duration::ZERO,
        "learnsync sync (by hand)",
    )
    .expect("the lock");
    let mut d = Daemon::start(s.cmd(&["daemon", "--log-format", "json"]));
    let busy = wait_runs(s.dir(), Duration::from_secs(30), "a busy run", |r| {
        r.iter().any(|r| r.error_class == Some(ErrorClass::Busy))
    });
    let first = busy
        .iter()
        .find(|r| r.error_class == Some(ErrorClass::Busy))
        .expect("busy");
    assert_eq!(first.outcome, RunOutcome::Skipped, "{first:?}");
    assert!(
        first.summary.contains("by hand"),
        "names the holder: {first:?}"
    );
    drop(lock);
    wait_runs(
        s.dir(),
        Duration::from_secs(30),
        "a sync once the lock is free",
        |r| {
            r.iter()
                .any(|r| r.job == Job::Sync && r.outcome == RunOutcome::Ok)
        },
    );
    d.stop();
    assert!(
        runs(s.dir()).iter().all(|r| !r.outcome.is_failure()),
        "a busy lock is never a failure"
    );
    let log = d.log();
    let mut lines = 0;
    for line in log.lines() {
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        assert!(v["level"].is_string() && v["message"].is_string(), "{line}");
        lines += 1;
    }
    assert!(lines >= 3, "{log}");
    assert!(log.contains("sync skipped"), "{log}");
}
