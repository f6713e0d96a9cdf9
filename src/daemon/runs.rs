//! What the daemon remembers on disk, under `.git/learnsync/`: every run as
//! one JSON line in `daemon-runs.jsonl` (bounded: past [`MAX_LOG_BYTES`] the
//! older half is dropped), and each job's state in `daemon-jobs.json` (last
//! run, last success, consecutive failures, backoff, next run), which
//! survives the log's trimming and a restart, and which `status` reads when
//! no daemon runs. Both are best effort: a lost line costs history, never
//! a run.

use super::{ErrorClass, Job, RunOutcome, Trigger};
use crate::store::LearningsDir;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;

/// The run log's size past which its older half is dropped (~3,000 runs:
/// two days of a sync a minute, months of the other jobs).
pub const MAX_LOG_BYTES: u64 = 1024 * 1024;

/// One run of one job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub job: Job,
    pub trigger: Trigger,
    pub start: String,
    pub end: String,
    pub duration_secs: f64,
    pub outcome: RunOutcome,
    /// One line for a person.
    pub summary: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_class: Option<ErrorClass>,
}

/// One job's state across runs and restarts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct JobState {
    #[serde(default)]
    pub last_run: Option<RunRecord>,
    #[serde(default)]
    pub last_success: Option<String>,
    /// What the job read at its last success (see `jobs::inputs_key`):
    /// the same inputs again means nothing to do.
    #[serde(default)]
    pub last_success_key: Option<String>,
    #[serde(default)]
    pub consecutive_failures: u32,
    #[serde(default)]
    pub hold_until: Option<String>,
    #[serde(default)]
    pub next_run: Option<String>,
}

impl JobState {
    /// Folds one finished run in.
    pub fn record(&mut self, run: &RunRecord, key: Option<String>) {
        if run.outcome.is_success() {
            self.last_success = Some(run.end.clone());
            self.consecutive_failures = 0;
            if key.is_some() {
                self.last_success_key = key;
            }
        } else if run.outcome.is_failure() {
            self.consecutive_failures = self.consecutive_failures.saturating_add(1);
        }
        self.last_run = Some(run.clone());
    }
}

/// Every job's state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DaemonState {
    #[serde(default)]
    pub jobs: BTreeMap<Job, JobState>,
}

/// Appends a run to the log, trimming it when it grew past the bound.
pub fn append(dir: &LearningsDir, run: &RunRecord) {
    let path = dir.state().daemon_runs();
    let Ok(mut line) = serde_json::to_vec(run) else {
        return;
    };
    line.push(b'\n');
    if let Err(e) = crate::store::append_line(&path, &line) {
        tracing::warn!("run record not written to {}: {e}", path.display());
        return;
    }
    if std::fs::metadata(&path).is_ok_and(|m| m.len() > MAX_LOG_BYTES) {
        trim(&path);
    }
}

/// Keeps the newer half of the log, whole lines only.
fn trim(path: &std::path::Path) {
    let Ok(bytes) = std::fs::read(path) else {
        return;
    };
    let half = bytes.len() / 2;
    let cut = bytes[half..]
        .iter()
        .position(|b| *b == b'\n')
        .map_or(bytes.len(), |p| half + p + 1);
    if let Err(e) = crate::store::atomic_write(path, &bytes[cut..]) {
        tracing::warn!("run log not trimmed: {e}");
    }
}

/// Every run in the log, oldest first; unreadable lines are left out.
pub fn read(dir: &LearningsDir) -> Vec<RunRecord> {
    let Ok(text) = std::fs::read_to_string(dir.state().daemon_runs()) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The jobs' state; when the state file is missing or unreadable, what the
/// run log says (last run, last success, consecutive failures).
pub fn load_state(dir: &LearningsDir) -> DaemonState {
    let path = dir.state().daemon_jobs();
    if let Ok(bytes) = std::fs::read(&path)
        && let Ok(state) = serde_json::from_slice::<DaemonState>(&bytes)
    {
        return state;
    }
    let mut state = DaemonState::default();
    for run in read(dir) {
        state.jobs.entry(run.job).or_default().record(&run, None);
    }
    state
}

pub fn save_state(dir: &LearningsDir, state: &DaemonState) {
    let path = dir.state().daemon_jobs();
    let Ok(mut bytes) = serde_json::to_vec_pretty(state) else {
        return;
    };
    bytes.push(b'\n');
    if let Err(e) = crate::store::atomic_write(&path, &bytes) {
        tracing::warn!("job state not saved to {}: {e}", path.display());
    }
}

/// Makes sure the log's folder exists (the dir may be new).
pub fn ensure_folder(dir: &LearningsDir) -> std::io::Result<()> {
    std::fs::create_dir_all(dir.state().path())?;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(dir.state().daemon_runs())?;
    f.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(job: Job, outcome: RunOutcome, at: u32) -> RunRecord {
        RunRecord {
            job,
            trigger: Trigger::Schedule,
            start: format!("2026-06-01T10:00:{at:02}.000Z"),
            end: format!("2026-06-01T10:00:{at:02}.500Z"),
            duration_secs: 0.5,
            outcome,
            summary: format!("run {at}"),
            error_class: outcome.is_failure().then_some(ErrorClass::Remote),
        }
    }

    #[test]
    fn job_state_counts_failures_until_a_success_and_skips_change_nothing() {
        let mut s = JobState::default();
        s.record(&run(Job::Sync, RunOutcome::Failed, 1), None);
        s.record(&run(Job::Sync, RunOutcome::Partial, 2), None);
        s.record(&run(Job::Sync, RunOutcome::Skipped, 3), None);
        assert_eq!(s.consecutive_failures, 2);
        assert_eq!(s.last_success, None);
        assert_eq!(
            s.last_run.as_ref().map(|r| r.outcome),
            Some(RunOutcome::Skipped)
        );
        s.record(&run(Job::Sync, RunOutcome::Unchanged, 4), Some("k".into()));
        assert_eq!(s.consecutive_failures, 0);
        assert_eq!(s.last_success.as_deref(), Some("2026-06-01T10:00:04.500Z"));
        assert_eq!(s.last_success_key.as_deref(), Some("k"));
    }

    #[test]
    fn the_log_stays_bounded_and_keeps_whole_lines_and_the_state_survives_it() {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = LearningsDir::new(tmp.path());
        std::fs::create_dir_all(dir.state().path()).expect("state dir");
        let mut state = DaemonState::default();
        let mut first_success = None;
        for i in 0..8000u32 {
            let outcome = if i % 2 == 0 {
                RunOutcome::Ok
            } else {
                RunOutcome::Failed
            };
            let r = run(Job::Publish, outcome, i % 60);
            if i == 0 {
                first_success = Some(r.end.clone());
            }
            append(&dir, &r);
            state.jobs.entry(r.job).or_default().record(&r, None);
        }
        let size = std::fs::metadata(dir.state().daemon_runs())
            .expect("log")
            .len();
        assert!(size <= MAX_LOG_BYTES, "{size}");
        let runs = read(&dir);
        assert!(runs.len() > 1000, "{}", runs.len());
        let text = std::fs::read_to_string(dir.state().daemon_runs()).expect("log");
        assert_eq!(text.lines().count(), runs.len(), "every kept line parses");
        save_state(&dir, &state);
        let loaded = load_state(&dir);
        assert_eq!(loaded, state);
        assert!(first_success.is_some());
        // Without the state file, the log still says how the job goes.
        std::fs::remove_file(dir.state().daemon_jobs()).expect("rm");
        let folded = load_state(&dir);
        assert_eq!(folded.jobs[&Job::Publish].consecutive_failures, 1);
        assert!(folded.jobs[&Job::Publish].last_success.is_some());
    }
}
