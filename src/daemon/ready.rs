//! `/readyz` and `/livez` as verdicts over the [`Snapshot`] (pure). Ready
//! is not "the first sync once went well": it fails while the last
//! successful sync is older than `daemon.ready_sync_age_secs`, and while
//! any job has failed `daemon.ready_failures` runs in a row, and comes
//! back by itself when the fault goes. Live fails only when a run has been
//! going for longer than [`HUNG_AFTER`] (a wedged fetch): a restart is
//! then the cure.

use super::Job;
use super::metrics::Snapshot;
use chrono::{DateTime, Duration, Utc};

/// A run going for longer than this makes `/livez` fail.
pub const HUNG_AFTER: std::time::Duration = std::time::Duration::from_secs(3600);

/// Why the daemon is not ready; empty when it is.
pub fn unready(s: &Snapshot, now: DateTime<Utc>) -> Vec<String> {
    let mut why = Vec::new();
    let sync = s.jobs.get(&Job::Sync).cloned().unwrap_or_default();
    if sync.enabled {
        let limit = Duration::seconds(s.ready_sync_age_secs.min(i64::MAX as u64) as i64);
        match sync.last_success {
            None => why.push("no successful sync yet".to_string()),
            Some(t) if now - t > limit => why.push(format!(
                "the last successful sync was {}s ago (daemon.ready_sync_age_secs: {})",
                (now - t).num_seconds(),
                s.ready_sync_age_secs
            )),
            Some(_) => {}
        }
    }
    if s.ready_failures > 0 {
        for job in Job::ORDER {
            let Some(g) = s.jobs.get(&job) else {
                continue;
            };
            if u64::from(g.consecutive_failures) >= s.ready_failures {
                why.push(format!(
                    "{job} failed its last {} runs (daemon.ready_failures: {}){}",
                    g.consecutive_failures,
                    s.ready_failures,
                    g.last_failure
                        .as_deref()
                        .map(|f| format!(": {f}"))
                        .unwrap_or_default()
                ));
            }
        }
    }
    why
}

/// Why the daemon is not live; `None` when it is.
pub fn not_live(s: &Snapshot, now: DateTime<Utc>) -> Option<String> {
    let limit = Duration::from_std(HUNG_AFTER).unwrap_or(Duration::hours(1));
    s.jobs.iter().find_map(|(job, g)| {
        let since = g.running_since?;
        (now - since > limit).then(|| {
            format!(
                "the {job} run started {} has been going for {}s; restart the daemon",
                super::stamp(since),
                (now - since).num_seconds()
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn t(s: i64) -> DateTime<Utc> {
        Utc.timestamp_opt(1_780_000_000 + s, 0)
            .single()
            .expect("a time")
    }

    fn snapshot() -> Snapshot {
        let mut s = Snapshot {
            ready_sync_age_secs: 600,
            ready_failures: 3,
            ..Snapshot::default()
        };
        s.job(Job::Sync).enabled = true;
        s
    }

    #[test]
    fn ready_needs_a_recent_sync_and_no_job_failing_again_and_again() {
        let mut s = snapshot();
        assert_eq!(unready(&s, t(0)), vec!["no successful sync yet"]);
        s.job(Job::Sync).last_success = Some(t(0));
        assert!(unready(&s, t(600)).is_empty());
        assert!(unready(&s, t(601))[0].contains("601s ago"));
        s.job(Job::Sync).last_success = Some(t(601));
        s.job(Job::Publish).consecutive_failures = 2;
        assert!(unready(&s, t(602)).is_empty());
        s.job(Job::Publish).consecutive_failures = 3;
        s.job(Job::Publish).last_failure = Some("gitea: 503".into());
        let why = unready(&s, t(602));
        assert_eq!(why.len(), 1);
        assert!(
            why[0].starts_with("publish failed its last 3 runs"),
            "{why:?}"
        );
        assert!(why[0].ends_with("gitea: 503"));
        // The fault goes: one success and it is ready again.
        s.job(Job::Publish).consecutive_failures = 0;
        assert!(unready(&s, t(603)).is_empty());
    }

    #[test]
    fn a_sync_that_is_off_is_not_waited_for() {
        let mut s = snapshot();
        s.job(Job::Sync).enabled = false;
        assert!(unready(&s, t(0)).is_empty());
    }

    #[test]
    fn only_a_run_going_on_for_an_hour_makes_the_daemon_not_live() {
        let mut s = snapshot();
        assert_eq!(not_live(&s, t(0)), None);
        s.job(Job::Sync).running_since = Some(t(0));
        assert_eq!(not_live(&s, t(3600)), None);
        assert!(not_live(&s, t(3601)).is_some_and(|w| w.contains("sync run")));
    }
}
