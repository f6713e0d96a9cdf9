//! `learnsync daemon` (DESIGN §10, docs/daemon.md): sync, review, publish
//! and export on their schedules, one job at a time, for months, and
//! always visible — every run recorded, `status` and `/metrics` saying how
//! each job goes.
//!
//! The pieces: [`timetable`] decides when each job runs (pure: schedules,
//! offsets, coalescing, backoff, the capture debounce); [`jobs`] are the
//! four bodies over the sync, review, publish and export workflows;
//! [`runs`] keeps run records and each job's state under `.git/learnsync/`;
//! [`metrics`] and [`ready`] turn that into Prometheus text and a readiness
//! verdict (pure), which `http` serves; `instance` is the one-daemon-per-dir
//! lock, `inbox` the inotify watch that triggers a sync on a capture,
//! `notify` sd_notify, [`service`] the systemd unit and launchd agent;
//! `serve` is the loop that wires them.

mod http;
mod inbox;
mod instance;
pub mod jobs;
pub mod metrics;
mod notify;
pub mod ready;
pub mod runs;
mod serve;
pub mod service;
pub mod timetable;

pub use runs::{JobState, RunRecord};
pub use serve::{DaemonOptions, LogFormat, run};

use crate::config::Config;
use crate::schedule::Schedule;
use crate::store::LearningsDir;
use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};

/// One of the daemon's jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Job {
    Sync,
    Review,
    Publish,
    Export,
}

impl Job {
    /// The order of jobs due at once: what is published and exported is
    /// what was just merged and reviewed.
    pub const ORDER: [Job; 4] = [Job::Sync, Job::Review, Job::Publish, Job::Export];

    pub fn as_str(self) -> &'static str {
        match self {
            Job::Sync => "sync",
            Job::Review => "review",
            Job::Publish => "publish",
            Job::Export => "export",
        }
    }

    /// The job's schedule line as configured.
    pub fn schedule_text(self, config: &Config) -> &str {
        match self {
            Job::Sync => &config.schedule_sync.value,
            Job::Review => &config.schedule_review.value,
            Job::Publish => &config.schedule_publish.value,
            Job::Export => &config.schedule_export.value,
        }
    }

    /// Where its schedule line came from.
    pub fn schedule_source(self, config: &Config) -> &crate::config::Source {
        match self {
            Job::Sync => &config.schedule_sync.source,
            Job::Review => &config.schedule_review.source,
            Job::Publish => &config.schedule_publish.source,
            Job::Export => &config.schedule_export.source,
        }
    }

    /// Its config key, for messages.
    pub fn schedule_key(self) -> &'static str {
        match self {
            Job::Sync => crate::config::SCHEDULE_SYNC.name,
            Job::Review => crate::config::SCHEDULE_REVIEW.name,
            Job::Publish => crate::config::SCHEDULE_PUBLISH.name,
            Job::Export => crate::config::SCHEDULE_EXPORT.name,
        }
    }
}

impl std::fmt::Display for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunOutcome {
    /// Did its work.
    Ok,
    /// Nothing it reads changed since its last success: nothing to do.
    Unchanged,
    /// Some of the work failed (a remote, some pages); counts as a failure.
    Partial,
    Failed,
    /// Did not run: a manual sync held the lock, the previous run was still
    /// going, it is not configured, or the daemon was stopping. Neither a
    /// success nor a failure.
    Skipped,
}

impl RunOutcome {
    pub const ALL: [RunOutcome; 5] = [
        RunOutcome::Ok,
        RunOutcome::Unchanged,
        RunOutcome::Partial,
        RunOutcome::Failed,
        RunOutcome::Skipped,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RunOutcome::Ok => "ok",
            RunOutcome::Unchanged => "unchanged",
            RunOutcome::Partial => "partial",
            RunOutcome::Failed => "failed",
            RunOutcome::Skipped => "skipped",
        }
    }

    pub fn is_success(self) -> bool {
        matches!(self, RunOutcome::Ok | RunOutcome::Unchanged)
    }

    pub fn is_failure(self) -> bool {
        matches!(self, RunOutcome::Partial | RunOutcome::Failed)
    }
}

/// Why a run was started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Trigger {
    /// The daemon started (a sync, at once).
    Start,
    Schedule,
    /// A file arrived in the inbox.
    Capture,
    /// The backoff after a failure ended.
    Retry,
}

impl Trigger {
    pub fn as_str(self) -> &'static str {
        match self {
            Trigger::Start => "start",
            Trigger::Schedule => "schedule",
            Trigger::Capture => "capture",
            Trigger::Retry => "retry",
        }
    }
}

/// What kind of trouble a run met, for alerts and `status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorClass {
    /// A manual `sync` (or a git command) held the lock past the wait.
    Busy,
    /// The job's previous run was still going at this tick.
    Overlap,
    /// A setting the job needs is missing; the summary says which.
    NotConfigured,
    /// Stopped at a safe point because the daemon was told to exit.
    Stopped,
    /// A git remote could not be fetched or pushed.
    Remote,
    /// The Gitea server failed or refused requests.
    Gitea,
    /// The learnings repository itself.
    Git,
    /// The configuration, templates or the dir's setup.
    Config,
    Io,
    /// The job panicked (a bug); the daemon carried on.
    Panic,
}

impl ErrorClass {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorClass::Busy => "busy",
            ErrorClass::Overlap => "overlap",
            ErrorClass::NotConfigured => "not_configured",
            ErrorClass::Stopped => "stopped",
            ErrorClass::Remote => "remote",
            ErrorClass::Gitea => "gitea",
            ErrorClass::Git => "git",
            ErrorClass::Config => "config",
            ErrorClass::Io => "io",
            ErrorClass::Panic => "panic",
        }
    }
}

/// Why the daemon could not start.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    #[error(
        "another learnsync daemon runs on {dir} ({holder}); stop it first \
         (`kill <pid>`, or `systemctl --user stop learnsync` if it is the service)"
    )]
    AlreadyRunning { dir: String, holder: String },
    #[error("{key}: {message}")]
    Schedule { key: &'static str, message: String },
    #[error("cannot listen on {addr}: {message}")]
    Listen { addr: String, message: String },
    #[error("{0}")]
    Io(String),
}

/// A timestamp as the records and `status` write it: UTC, milliseconds.
pub fn stamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Reads a [`stamp`] back.
pub fn parse_stamp(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// Each job's schedule and this machine's offset for it, from `config`,
/// in [`Job::ORDER`].
pub fn schedules(
    config: &Config,
    now: DateTime<Utc>,
) -> Result<[(Schedule, chrono::Duration); Job::ORDER.len()], DaemonError> {
    let local = now.with_timezone(&chrono::Local);
    let spread = std::time::Duration::from_secs(config.daemon.spread_secs);
    let one = |job: Job| -> Result<(Schedule, chrono::Duration), DaemonError> {
        let schedule =
            Schedule::parse(job.schedule_text(config)).map_err(|e| DaemonError::Schedule {
                key: job.schedule_key(),
                message: e.to_string(),
            })?;
        let offset = timetable::machine_offset(&config.home_agent.value, &schedule, spread, &local);
        Ok((schedule, offset))
    };
    Ok([
        one(Job::Sync)?,
        one(Job::Review)?,
        one(Job::Publish)?,
        one(Job::Export)?,
    ])
}

/// One job as `daemon --check` shows it.
#[derive(Debug, Clone, Serialize)]
pub struct JobPlan {
    pub job: Job,
    pub schedule: String,
    pub source: String,
    pub off: bool,
    /// This machine's offset from the schedule's times, in seconds.
    pub offset_secs: f64,
    /// The next fire times, offset included (local time, RFC 3339).
    pub next: Vec<String>,
    /// Why the job will do nothing even when due, if it will not.
    pub note: Option<String>,
}

/// The next `n` fire times of every job, for `daemon --check`.
pub fn check(config: &Config, now: DateTime<Utc>, n: usize) -> Result<Vec<JobPlan>, DaemonError> {
    let plans = schedules(config, now)?;
    let local = now.with_timezone(&chrono::Local);
    Ok(Job::ORDER
        .iter()
        .zip(plans)
        .map(|(job, (schedule, offset))| {
            let source = job.schedule_source(config);
            let next = schedule
                .upcoming(&(local - offset), n)
                .into_iter()
                .map(|t| (t + offset).to_rfc3339_opts(SecondsFormat::Secs, false))
                .collect();
            JobPlan {
                job: *job,
                schedule: schedule.text.clone(),
                source: source.to_string(),
                off: schedule.is_off(),
                offset_secs: offset.num_milliseconds() as f64 / 1000.0,
                next,
                note: jobs::not_configured(*job, config),
            }
        })
        .collect())
}

/// Every job as `status` shows it, whether or not a daemon runs.
#[derive(Debug, Clone, Serialize)]
pub struct DaemonStatus {
    /// The running daemon's lock line (`pid N (learnsync daemon) since T`).
    pub running: Option<String>,
    pub jobs: Vec<JobStatus>,
}

/// One job's health.
#[derive(Debug, Clone, Serialize)]
pub struct JobStatus {
    pub job: Job,
    pub schedule: String,
    pub last_run: Option<RunRecord>,
    pub last_success: Option<String>,
    pub next_run: Option<String>,
    pub consecutive_failures: u32,
    /// Held back after failures until then.
    pub backing_off_until: Option<String>,
}

/// The daemon's jobs as recorded under `.git/learnsync/`, with their next
/// run: the running daemon's plan, else what the schedule says from now.
pub fn status(dir: &LearningsDir, config: &Config, now: DateTime<Utc>) -> DaemonStatus {
    let running = instance::holder(&dir.state().daemon_lock());
    let state = runs::load_state(dir);
    let plans = schedules(config, now).ok();
    let jobs = Job::ORDER
        .iter()
        .enumerate()
        .map(|(i, job)| {
            let js = state.jobs.get(job).cloned().unwrap_or_default();
            let hold = js
                .hold_until
                .as_deref()
                .and_then(parse_stamp)
                .filter(|h| *h > now);
            let planned = plans.as_ref().and_then(|p| {
                let (schedule, offset) = &p[i];
                schedule
                    .next_after(&(now - *offset).with_timezone(&chrono::Local))
                    .map(|t| t.with_timezone(&Utc) + *offset)
            });
            let next_run = match (&running, &js.next_run) {
                (Some(_), Some(next)) => Some(next.clone()),
                _ => hold.or(planned).map(stamp),
            };
            JobStatus {
                job: *job,
                schedule: job.schedule_text(config).to_string(),
                last_run: js.last_run.clone(),
                last_success: js.last_success.clone(),
                next_run,
                consecutive_failures: js.consecutive_failures,
                backing_off_until: hold.map(stamp),
            }
        })
        .collect();
    DaemonStatus { running, jobs }
}
