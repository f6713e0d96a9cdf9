//! When each job runs, as pure decisions over (schedules, the wall clock,
//! what is running): no I/O, no clock of its own — the loop passes `now`.
//!
//! The rules (docs/daemon.md):
//! - a job fires at each time of its schedule plus this machine's offset;
//!   every tick missed while the machine slept (or a run went on) folds
//!   into one run, because the next tick is always computed from `now`;
//! - one job runs at a time; several due at once run in [`Job::ORDER`];
//! - a tick whose job is still running, or already waiting, is skipped
//!   (and said so); a capture's sync waits behind a running one instead;
//! - a failed run holds its job back for a backoff (the one retry policy),
//!   after which it is retried; ticks during the hold fold into that retry;
//! - the wall clock moving back never leaves a job planned further ahead
//!   than its schedule says from now.

use super::{Job, RunOutcome, Trigger};
use crate::retry::RetryPolicy;
use crate::schedule::Schedule;
use chrono::{DateTime, Duration, TimeZone, Utc};

/// Why a tick did not queue a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkipReason {
    /// The job's previous run is still going.
    Running,
    /// A run of the job is already waiting for its turn.
    Queued,
}

/// What one look at the clock decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tick {
    Queued(Job, Trigger),
    Skipped {
        job: Job,
        /// The fire time that was skipped.
        at: DateTime<Utc>,
        why: SkipReason,
    },
}

#[derive(Debug, Clone)]
struct Clock {
    schedule: Schedule,
    /// This machine's offset from the schedule's times.
    offset: Duration,
    /// The schedule's next time (before the offset); `None`: off.
    planned: Option<DateTime<Utc>>,
    /// Held back after a failure until then; then retried.
    hold_until: Option<DateTime<Utc>>,
    failures: u32,
    pending: Option<Trigger>,
    running: bool,
}

/// Every job's clock.
#[derive(Debug, Clone)]
pub struct Timetable<Tz: TimeZone> {
    tz: Tz,
    clocks: Vec<Clock>,
    /// A capture arrived: sync at this time.
    capture_due: Option<DateTime<Utc>>,
}

fn index(job: Job) -> usize {
    Job::ORDER.iter().position(|j| *j == job).unwrap_or(0)
}

/// The first fire time (schedule time plus offset) strictly after `now`,
/// as the schedule time.
fn plan_after<Tz: TimeZone>(
    schedule: &Schedule,
    offset: Duration,
    now: DateTime<Utc>,
    tz: &Tz,
) -> Option<DateTime<Utc>> {
    schedule
        .next_after(&(now - offset).with_timezone(tz))
        .map(|t| t.with_timezone(&Utc))
}

impl<Tz: TimeZone> Timetable<Tz> {
    /// Clocks for `(schedule, offset)` of each job in [`Job::ORDER`].
    pub fn new(tz: Tz, jobs: [(Schedule, Duration); Job::ORDER.len()], now: DateTime<Utc>) -> Self {
        let clocks = jobs
            .into_iter()
            .map(|(schedule, offset)| Clock {
                planned: plan_after(&schedule, offset, now, &tz),
                schedule,
                offset,
                hold_until: None,
                failures: 0,
                pending: None,
                running: false,
            })
            .collect();
        Timetable {
            tz,
            clocks,
            capture_due: None,
        }
    }

    fn clock(&self, job: Job) -> &Clock {
        &self.clocks[index(job)]
    }

    fn clock_mut(&mut self, job: Job) -> &mut Clock {
        &mut self.clocks[index(job)]
    }

    pub fn is_off(&self, job: Job) -> bool {
        self.clock(job).schedule.is_off()
    }

    /// New schedules and offsets (a reload); failures, holds, the queue and
    /// the running job are kept.
    pub fn reschedule(
        &mut self,
        jobs: [(Schedule, Duration); Job::ORDER.len()],
        now: DateTime<Utc>,
    ) {
        for (i, (schedule, offset)) in jobs.into_iter().enumerate() {
            let planned = plan_after(&schedule, offset, now, &self.tz);
            let clock = &mut self.clocks[i];
            clock.schedule = schedule;
            clock.offset = offset;
            clock.planned = planned;
            if clock.schedule.is_off() {
                clock.pending = None;
                clock.hold_until = None;
            }
        }
    }

    /// Takes over what a previous daemon left: failures and a hold.
    pub fn restore(&mut self, job: Job, failures: u32, hold_until: Option<DateTime<Utc>>) {
        let clock = self.clock_mut(job);
        clock.failures = failures;
        clock.hold_until = hold_until;
    }

    /// Queues a run now (the start-up sync), unless the job is off, held
    /// back, or already queued or running.
    pub fn queue(&mut self, job: Job, trigger: Trigger, now: DateTime<Utc>) -> bool {
        let clock = self.clock_mut(job);
        let held = clock.hold_until.is_some_and(|h| h > now);
        if clock.schedule.is_off() || held || clock.pending.is_some() || clock.running {
            return false;
        }
        clock.pending = Some(trigger);
        true
    }

    /// A file arrived in the inbox: sync `debounce` after the first of a burst.
    pub fn capture(&mut self, now: DateTime<Utc>, debounce: Duration) {
        if self.is_off(Job::Sync) {
            return;
        }
        if self.capture_due.is_none() {
            self.capture_due = Some(now + debounce);
        }
    }

    /// Looks at the clock: queues what is due, says what was skipped.
    pub fn tick(&mut self, now: DateTime<Utc>) -> Vec<Tick> {
        let mut out = Vec::new();
        for job in Job::ORDER {
            let tz = self.tz.clone();
            let clock = self.clock_mut(job);
            let next = plan_after(&clock.schedule, clock.offset, now, &tz);
            // The clock moved back: plan from the schedule again.
            if let (Some(p), Some(n)) = (clock.planned, next)
                && p > n
            {
                clock.planned = Some(n);
            }
            if let Some(p) = clock.planned
                && p + clock.offset <= now
            {
                let at = p + clock.offset;
                // Every tick up to now is this one.
                clock.planned = next;
                if clock.hold_until.is_some_and(|h| h > now) {
                    // Backing off: the retry at the end of the hold covers it.
                } else if clock.running {
                    out.push(Tick::Skipped {
                        job,
                        at,
                        why: SkipReason::Running,
                    });
                } else if clock.pending.is_some() {
                    out.push(Tick::Skipped {
                        job,
                        at,
                        why: SkipReason::Queued,
                    });
                } else {
                    clock.pending = Some(Trigger::Schedule);
                    out.push(Tick::Queued(job, Trigger::Schedule));
                }
            }
            if let Some(h) = clock.hold_until
                && h <= now
                && !clock.running
            {
                clock.hold_until = None;
                if clock.pending.is_none() && !clock.schedule.is_off() {
                    clock.pending = Some(Trigger::Retry);
                    out.push(Tick::Queued(job, Trigger::Retry));
                }
            }
        }
        if let Some(due) = self.capture_due
            && due <= now
        {
            self.capture_due = None;
            let clock = self.clock_mut(Job::Sync);
            let held = clock.hold_until.is_some_and(|h| h > now);
            // Held back: the retry reads the inbox too.
            if !held && clock.pending.is_none() && !clock.schedule.is_off() {
                clock.pending = Some(Trigger::Capture);
                out.push(Tick::Queued(Job::Sync, Trigger::Capture));
            }
        }
        out
    }

    /// The next run to start, in [`Job::ORDER`], when nothing runs.
    pub fn start_next(&mut self) -> Option<(Job, Trigger)> {
        if self.clocks.iter().any(|c| c.running) {
            return None;
        }
        for job in Job::ORDER {
            let clock = self.clock_mut(job);
            if let Some(trigger) = clock.pending.take() {
                clock.running = true;
                if job == Job::Sync {
                    // This sync reads the inbox: what arrived so far is in it.
                    self.capture_due = None;
                }
                return Some((job, trigger));
            }
        }
        None
    }

    /// A run ended: a failure holds the job back for the policy's next
    /// delay, a success clears its failures, a skipped run changes neither.
    /// Returns the end of the hold, if any.
    pub fn finished(
        &mut self,
        job: Job,
        outcome: RunOutcome,
        now: DateTime<Utc>,
        backoff: &RetryPolicy,
    ) -> Option<DateTime<Utc>> {
        let clock = self.clock_mut(job);
        clock.running = false;
        if outcome.is_success() {
            clock.failures = 0;
            clock.hold_until = None;
        } else if outcome.is_failure() {
            clock.failures = clock.failures.saturating_add(1);
            let delay = backoff
                .next_delay(clock.failures, None)
                .unwrap_or(backoff.max_delay);
            let delay = Duration::from_std(delay).unwrap_or(Duration::hours(1));
            clock.hold_until = Some(now + delay);
        }
        clock.hold_until
    }

    pub fn failures(&self, job: Job) -> u32 {
        self.clock(job).failures
    }

    pub fn hold_until(&self, job: Job) -> Option<DateTime<Utc>> {
        self.clock(job).hold_until
    }

    pub fn is_running(&self, job: Job) -> bool {
        self.clock(job).running
    }

    /// When the job runs next if nothing else happens: now when waiting,
    /// the end of its hold when backing off, else its next fire time.
    pub fn next_run(&self, job: Job, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let clock = self.clock(job);
        if clock.schedule.is_off() {
            return None;
        }
        if clock.pending.is_some() {
            return Some(now);
        }
        if let Some(h) = clock.hold_until {
            return Some(h);
        }
        clock.planned.map(|p| p + clock.offset)
    }

    /// The earliest moment something may become due.
    pub fn wake_at(&self) -> Option<DateTime<Utc>> {
        let mut at: Option<DateTime<Utc>> = self.capture_due;
        for clock in &self.clocks {
            let due = match clock.hold_until {
                // A hold ends in a retry, which waits for the run to end anyway.
                Some(h) if !clock.running => Some(h),
                _ => clock.planned.map(|p| p + clock.offset),
            };
            if let Some(due) = due {
                at = Some(at.map_or(due, |a| a.min(due)));
            }
        }
        at
    }
}

/// This machine's offset for a schedule: stable (from the agent name), at
/// most `spread` and at most half the schedule's shortest gap, so a fleet's
/// runs spread out without one run sliding into the next one's slot.
pub fn machine_offset<Tz: TimeZone>(
    agent: &str,
    schedule: &Schedule,
    spread: std::time::Duration,
    now: &DateTime<Tz>,
) -> Duration {
    let times = schedule.upcoming(now, 4);
    let gap = times
        .windows(2)
        .map(|w| w[1].clone() - w[0].clone())
        .min()
        .unwrap_or(Duration::zero());
    let cap = Duration::from_std(spread)
        .unwrap_or(Duration::zero())
        .min(gap / 2);
    let cap_ms = cap.num_milliseconds();
    if cap_ms <= 0 {
        return Duration::zero();
    }
    let digest = {
        use sha2::Digest;
        sha2::Sha256::digest(agent.as_bytes())
    };
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    let h = u64::from_be_bytes(first);
    Duration::milliseconds((h % (cap_ms as u64 + 1)) as i64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retry::Jitter;

    fn t(h: u32, m: u32, s: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 6, 1, h, m, s)
            .single()
            .expect("a real time")
    }

    fn sched(line: &str) -> Schedule {
        Schedule::parse(line).expect("a schedule")
    }

    fn table(sync: &str, review: &str, publish: &str, now: DateTime<Utc>) -> Timetable<Utc> {
        Timetable::new(
            Utc,
            [
                (sched(sync), Duration::zero()),
                (sched(review), Duration::zero()),
                (sched(publish), Duration::zero()),
                (sched("off"), Duration::zero()),
            ],
            now,
        )
    }

    fn backoff() -> RetryPolicy {
        RetryPolicy {
            max_attempts: u32::MAX,
            base_delay: std::time::Duration::from_secs(10),
            max_delay: std::time::Duration::from_secs(80),
            max_retry_after: std::time::Duration::ZERO,
            jitter: Jitter::None,
            jitter_seed: 0,
        }
    }

    #[test]
    fn jobs_due_together_run_one_at_a_time_sync_then_review_then_publish() {
        let mut tt = table("0 * * * *", "0 * * * *", "0 * * * *", t(9, 59, 0));
        let ticks = tt.tick(t(10, 0, 0));
        assert_eq!(ticks.len(), 3, "{ticks:?}");
        let mut order = Vec::new();
        while let Some((job, _)) = tt.start_next() {
            assert_eq!(tt.start_next(), None, "never two at once");
            order.push(job);
            tt.finished(job, RunOutcome::Ok, t(10, 0, 1), &backoff());
        }
        assert_eq!(order, vec![Job::Sync, Job::Review, Job::Publish]);
    }

    #[test]
    fn ticks_missed_while_asleep_fold_into_one_run() {
        let mut tt = table("*/5 * * * *", "off", "off", t(10, 0, 30));
        // The laptop sleeps from 10:00:30 to 13:02:00: 36 ticks missed.
        let ticks = tt.tick(t(13, 2, 0));
        assert_eq!(ticks, vec![Tick::Queued(Job::Sync, Trigger::Schedule)]);
        assert_eq!(tt.start_next(), Some((Job::Sync, Trigger::Schedule)));
        assert_eq!(tt.start_next(), None);
        tt.finished(Job::Sync, RunOutcome::Ok, t(13, 2, 5), &backoff());
        assert_eq!(tt.next_run(Job::Sync, t(13, 2, 5)), Some(t(13, 5, 0)));
        assert!(tt.tick(t(13, 4, 59)).is_empty());
    }

    #[test]
    fn a_run_that_outlasts_its_interval_makes_the_next_tick_skip() {
        let mut tt = table("* * * * *", "off", "off", t(10, 0, 30));
        tt.tick(t(10, 1, 0));
        assert_eq!(tt.start_next(), Some((Job::Sync, Trigger::Schedule)));
        let ticks = tt.tick(t(10, 2, 0));
        assert_eq!(
            ticks,
            vec![Tick::Skipped {
                job: Job::Sync,
                at: t(10, 2, 0),
                why: SkipReason::Running
            }]
        );
        tt.finished(Job::Sync, RunOutcome::Ok, t(10, 2, 10), &backoff());
        assert_eq!(tt.start_next(), None, "the skipped tick does not pile up");
        assert_eq!(
            tt.tick(t(10, 3, 0)),
            vec![Tick::Queued(Job::Sync, Trigger::Schedule)]
        );
    }

    #[test]
    fn a_job_waiting_behind_another_skips_its_next_tick_instead_of_piling_up() {
        let mut tt = table("* * * * *", "off", "0 10 * * *", t(9, 59, 30));
        tt.tick(t(10, 0, 0));
        assert_eq!(tt.start_next(), Some((Job::Sync, Trigger::Schedule)));
        tt.finished(Job::Sync, RunOutcome::Ok, t(10, 0, 1), &backoff());
        assert_eq!(tt.start_next(), Some((Job::Publish, Trigger::Schedule)));
        // Publish runs long: sync is queued once, then its next tick skips.
        assert_eq!(
            tt.tick(t(10, 1, 0)),
            vec![Tick::Queued(Job::Sync, Trigger::Schedule)]
        );
        assert_eq!(tt.start_next(), None);
        assert!(matches!(
            tt.tick(t(10, 2, 0)).as_slice(),
            [Tick::Skipped {
                why: SkipReason::Queued,
                ..
            }]
        ));
        tt.finished(Job::Publish, RunOutcome::Ok, t(10, 2, 30), &backoff());
        assert_eq!(tt.start_next(), Some((Job::Sync, Trigger::Schedule)));
    }

    #[test]
    fn failures_back_off_exponentially_capped_and_a_success_clears_them() {
        let mut tt = table("* * * * *", "off", "off", t(10, 0, 30));
        let mut now = t(10, 1, 0);
        tt.tick(now);
        let mut holds = Vec::new();
        for _ in 0..6 {
            assert!(tt.start_next().is_some(), "retried at {now}");
            let hold = tt
                .finished(Job::Sync, RunOutcome::Failed, now, &backoff())
                .expect("held back");
            holds.push((hold - now).num_seconds());
            // Ticks inside the hold do not run it.
            let inside = hold - Duration::seconds(1);
            tt.tick(inside);
            assert_eq!(tt.start_next(), None, "ran inside the hold");
            now = hold;
            tt.tick(now);
        }
        assert_eq!(holds, vec![10, 20, 40, 80, 80, 80]);
        assert_eq!(tt.failures(Job::Sync), 6);
        assert!(tt.start_next().is_some());
        tt.finished(Job::Sync, RunOutcome::Ok, now, &backoff());
        assert_eq!(
            (tt.failures(Job::Sync), tt.hold_until(Job::Sync)),
            (0, None)
        );
    }

    #[test]
    fn a_skipped_run_is_neither_a_success_nor_a_failure() {
        let mut tt = table("* * * * *", "off", "off", t(10, 0, 30));
        tt.restore(Job::Sync, 2, None);
        tt.tick(t(10, 1, 0));
        assert!(tt.start_next().is_some());
        assert_eq!(
            tt.finished(Job::Sync, RunOutcome::Skipped, t(10, 1, 1), &backoff()),
            None
        );
        assert_eq!(tt.failures(Job::Sync), 2);
    }

    #[test]
    fn a_capture_syncs_after_the_debounce_once_per_burst() {
        let mut tt = table("0 0 * * *", "off", "off", t(10, 0, 0));
        let debounce = Duration::seconds(30);
        tt.capture(t(10, 0, 1), debounce);
        tt.capture(t(10, 0, 20), debounce);
        assert!(tt.tick(t(10, 0, 30)).is_empty());
        assert_eq!(tt.wake_at(), Some(t(10, 0, 31)));
        assert_eq!(
            tt.tick(t(10, 0, 31)),
            vec![Tick::Queued(Job::Sync, Trigger::Capture)]
        );
        assert_eq!(tt.start_next(), Some((Job::Sync, Trigger::Capture)));
        // A capture while that sync runs gets its own sync, after it.
        tt.capture(t(10, 0, 32), debounce);
        assert_eq!(
            tt.tick(t(10, 1, 2)),
            vec![Tick::Queued(Job::Sync, Trigger::Capture)]
        );
        assert_eq!(tt.start_next(), None, "not while the first one runs");
        tt.finished(Job::Sync, RunOutcome::Ok, t(10, 1, 3), &backoff());
        assert_eq!(tt.start_next(), Some((Job::Sync, Trigger::Capture)));
    }

    #[test]
    fn off_disables_a_job_and_its_captures() {
        let mut tt = table("off", "off", "off", t(10, 0, 0));
        tt.capture(t(10, 0, 0), Duration::seconds(1));
        assert!(tt.tick(t(12, 0, 0)).is_empty());
        assert!(!tt.queue(Job::Sync, Trigger::Start, t(12, 0, 0)));
        assert_eq!(tt.wake_at(), None);
        assert_eq!(tt.next_run(Job::Publish, t(12, 0, 0)), None);
    }

    #[test]
    fn the_clock_moving_back_plans_from_the_schedule_again() {
        let mut tt = table("0 * * * *", "off", "off", t(10, 30, 0));
        assert_eq!(tt.next_run(Job::Sync, t(10, 30, 0)), Some(t(11, 0, 0)));
        // NTP steps the clock back to 07:10.
        tt.tick(t(7, 10, 0));
        assert_eq!(tt.next_run(Job::Sync, t(7, 10, 0)), Some(t(8, 0, 0)));
    }

    #[test]
    fn a_reload_takes_the_new_schedule_and_keeps_the_failures() {
        let mut tt = table("0 * * * *", "off", "off", t(10, 0, 30));
        tt.restore(Job::Sync, 3, Some(t(10, 5, 0)));
        tt.reschedule(
            [
                (sched("*/2 * * * *"), Duration::zero()),
                (sched("off"), Duration::zero()),
                (sched("15 * * * *"), Duration::zero()),
                (sched("off"), Duration::zero()),
            ],
            t(10, 0, 30),
        );
        assert_eq!(tt.failures(Job::Sync), 3);
        assert_eq!(tt.next_run(Job::Publish, t(10, 0, 30)), Some(t(10, 15, 0)));
        assert_eq!(tt.next_run(Job::Sync, t(10, 0, 30)), Some(t(10, 5, 0)));
    }

    #[test]
    fn offsets_fire_the_job_that_much_later() {
        let mut tt: Timetable<Utc> = Timetable::new(
            Utc,
            [
                (sched("* * * * *"), Duration::seconds(17)),
                (sched("off"), Duration::zero()),
                (sched("off"), Duration::zero()),
                (sched("off"), Duration::zero()),
            ],
            t(10, 0, 30),
        );
        assert_eq!(tt.next_run(Job::Sync, t(10, 0, 30)), Some(t(10, 1, 17)));
        assert!(tt.tick(t(10, 1, 16)).is_empty());
        assert_eq!(tt.tick(t(10, 1, 17)).len(), 1);
    }

    #[test]
    fn machine_offsets_are_stable_bounded_and_differ_between_agents() {
        let now = t(10, 0, 0);
        let every_minute = sched("* * * * *");
        let spread = std::time::Duration::from_secs(60);
        let a = machine_offset("laptop-a", &every_minute, spread, &now);
        assert_eq!(a, machine_offset("laptop-a", &every_minute, spread, &now));
        let offsets: std::collections::BTreeSet<i64> = (0..50)
            .map(|i| {
                machine_offset(&format!("host-{i}"), &every_minute, spread, &now).num_milliseconds()
            })
            .collect();
        assert!(offsets.len() > 40, "{offsets:?}");
        assert!(
            offsets.iter().all(|ms| (0..=30_000).contains(ms)),
            "half of a minute at most"
        );
        let hourly = sched("0 * * * *");
        let h = machine_offset("laptop-a", &hourly, spread, &now);
        assert!(h <= Duration::seconds(60));
        assert_eq!(
            machine_offset("laptop-a", &hourly, std::time::Duration::ZERO, &now),
            Duration::zero()
        );
        assert_eq!(
            machine_offset("a", &sched("off"), spread, &now),
            Duration::zero()
        );
    }
}
