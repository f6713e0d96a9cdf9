//! The sync cycle (§6), under the sync lock: commit local work, fetch each
//! remote's branches, merge them, recompute what the merge changed, push,
//! and report what happened.

mod commit;
mod derive;
mod event_store;
mod heads;
pub mod owners;
mod recover;
pub mod remotes;

pub use commit::{
    Adopted, CommitOutcome, MAX_WORKTREE_BYTES, commit_as_is, commit_local, left_out,
};
pub use owners::{Refused, add_hosted};

use crate::config::{Config, WATCH_AUTO_FILES, WatchMode};
use crate::repo::{GitError, Repo};
use crate::store::{LearningsDir, LockError, Problem, SyncLock};
use crate::timestamp::Timestamp;
use serde::Serialize;
use std::time::{Duration, Instant};

/// Where a cycle spends its time, for operators: each step's wall time is
/// logged at debug level under the `learnsync::timing` target
/// (`LEARNSYNC_LOG=learnsync::timing=debug learnsync sync`).
pub(crate) struct Lap(Instant);

impl Lap {
    pub(crate) fn start() -> Self {
        Lap(Instant::now())
    }

    /// Logs the time since the last lap under `step`, and starts the next.
    pub(crate) fn done(&mut self, step: &str) {
        let now = Instant::now();
        tracing::debug!(target: "learnsync::timing", "{step}: {:.1} ms", (now - self.0).as_secs_f64() * 1e3);
        if tracing::enabled!(target: "learnsync::memory", tracing::Level::DEBUG) {
            tracing::debug!(target: "learnsync::memory", "{step}: {}", peak_rss());
        }
        self.0 = now;
    }
}

/// The process's resident memory now and at its peak (Linux; empty
/// elsewhere), for `LEARNSYNC_LOG=learnsync::memory=debug`.
fn peak_rss() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .filter(|l| l.starts_with("VmRSS") || l.starts_with("VmHWM"))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join(", ")
}

/// What the user asked of this cycle.
#[derive(Debug, Clone)]
pub struct SyncOptions {
    pub fetch: bool,
    pub push: bool,
    pub wait: Duration,
    /// The `learnsync` executable to start a work-tree watcher with (see
    /// `watch`); `None` never starts one (one already running is still used).
    pub watcher: Option<std::path::PathBuf>,
    /// Set by the daemon when told to exit: the cycle stops at its next
    /// safe point (after the commit, between remotes, before a merge or a
    /// push) and says so in [`SyncReport::stopped`]; the next cycle does
    /// the rest.
    pub stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// Told each step that may take long as it starts (a fetch, the
    /// merges, a push), for a progress line on a terminal.
    pub progress: Option<Progress>,
    /// Outcome events this cycle may leave in the inbox for a later batch
    /// (the daemon's scheduled cycles); `None` commits every one.
    pub batch: Option<EvidenceBatch>,
    /// Told when the cycle's tree has moved, to bring along what follows
    /// HEAD (the lookup indexes: `crate::indexes::keeper`); `None` keeps
    /// nothing. Called while the push runs, and again after it when a
    /// rejected push merged once more.
    pub on_head: Option<OnHead>,
}

/// Where the tree of a cycle went: from the commit it started on to the
/// one it ends on, and the repository paths whose blobs differ between
/// them (`None`: unknown, everything is to be read again).
pub struct HeadMoved<'a> {
    /// The cycle's repository: its mapped packs are read again, not mapped twice.
    pub repo: &'a Repo,
    pub from: Option<gix::ObjectId>,
    pub to: Option<gix::ObjectId>,
    pub changed: Option<Vec<String>>,
}

/// What a caller keeps in step with HEAD ([`SyncOptions::on_head`]). A
/// cache: whatever fails in it is the caller's to log, never the cycle's.
#[derive(Clone)]
pub struct OnHead(pub std::sync::Arc<dyn Fn(&HeadMoved<'_>) + Send + Sync>);

impl std::fmt::Debug for OnHead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OnHead")
    }
}

/// When a cycle that would commit nothing but outcome events commits them
/// (issue 32): each commit is a commit object and a new tree per folder on
/// its way to the root, on every clone and in every new clone, so evidence
/// goes out in batches rather than an event a minute. The events wait in
/// the inbox, where every reader already sees them (`show`, trust), so a
/// killed process loses nothing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EvidenceBatch {
    /// Commit once the oldest waiting event is this old…
    pub max_age: Duration,
    /// …or this many events wait.
    pub max_events: usize,
}

impl EvidenceBatch {
    pub fn from_config(daemon: &crate::config::DaemonConfig) -> EvidenceBatch {
        EvidenceBatch {
            max_age: Duration::from_secs(daemon.evidence_batch_secs),
            max_events: usize::try_from(daemon.evidence_batch_events).unwrap_or(usize::MAX),
        }
    }

    /// Whether `waiting` events, the oldest recorded at `oldest`, are due
    /// at `now`.
    pub fn due(&self, waiting: usize, oldest: Option<Timestamp>, now: Timestamp) -> bool {
        let age = oldest.map_or(0, |t| now.unix().saturating_sub(t.unix()));
        waiting >= self.max_events.max(1) || age >= self.max_age.as_secs() as i64
    }
}

/// What a caller shows of the steps of a cycle ([`SyncOptions::progress`]).
#[derive(Clone)]
pub struct Progress(pub std::sync::Arc<dyn Fn(&str) + Send + Sync>);

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Progress")
    }
}

impl SyncOptions {
    /// Says that `step` starts, to whoever shows progress.
    pub fn step(&self, step: &str) {
        if let Some(Progress(show)) = &self.progress {
            show(step);
        }
    }

    /// Tells [`SyncOptions::on_head`] that the tree went from `from` to `to`.
    fn head_moved(&self, repo: &Repo, from: Option<gix::ObjectId>, to: Option<gix::ObjectId>) {
        if let Some(OnHead(keep)) = &self.on_head {
            keep(&HeadMoved {
                repo,
                from,
                to,
                changed: changed_since(repo, from, to),
            });
        }
    }

    /// The cycle was asked to stop at its next safe point.
    pub fn stopping(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(std::sync::atomic::Ordering::SeqCst))
    }
}

/// A trust level change seen in this cycle.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LevelChange {
    pub id: String,
    pub from: String,
    pub to: String,
}

/// What happened with one remote.
#[derive(Debug, Default, Clone, Serialize)]
pub struct RemoteReport {
    pub name: String,
    pub fetched: bool,
    /// The remote's branch is at our head after the cycle (pushed now, or already there).
    pub pushed: bool,
    /// It was there already: nothing was sent.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub up_to_date: bool,
    pub push_attempts: u32,
    /// The branches of hosted agents pushed there (same commit, §1).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pushed_as: Vec<String>,
    pub errors: Vec<String>,
}

/// One fetched head merged into ours.
#[derive(Debug, Clone, Serialize)]
pub struct MergedHead {
    pub head: String,
    pub commit: String,
    pub fast_forward: bool,
    pub paths: usize,
    pub conflicts_kept: Vec<String>,
}

/// What a cycle did, for people and for `--json`.
#[derive(Debug, Default, Serialize)]
pub struct SyncReport {
    pub remotes: Vec<RemoteReport>,
    pub merged: Vec<MergedHead>,
    pub commit: Option<String>,
    pub committed_files: Vec<String>,
    pub inbox_learnings: usize,
    pub inbox_events: usize,
    /// Outcome events left in the inbox for the next batch
    /// ([`SyncOptions::batch`]).
    pub held_events: usize,
    pub recomputed: usize,
    pub promoted: Vec<LevelChange>,
    pub demoted: Vec<LevelChange>,
    pub redacted: Vec<String>,
    pub problems: Vec<Problem>,
    pub recovered: bool,
    /// Git lock files a killed process had left, moved aside before the
    /// cycle (to `.git/learnsync/stale-locks/`).
    pub stale_locks: Vec<String>,
    /// Work-tree files the commit step looked at: all of them, or only what
    /// the watcher reported changed.
    pub scanned_files: usize,
    /// A watcher told this cycle what changed (no full scan).
    pub watched: bool,
    /// Asked to stop, the cycle left out the steps after a safe point.
    pub stopped: bool,
    /// Changes heads made to folders they do not own, refused (§6.1).
    pub refused: Vec<Refused>,
}

#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error("{0}")]
    Busy(LockError),
    /// A live git command holds one of the repository's lock files.
    #[error("{0}")]
    GitLockHeld(#[from] crate::repo::locks::Held),
    #[error("{0}")]
    Lock(LockError),
    #[error("{0}")]
    Git(#[from] GitError),
    #[error("{0} is not a learnings dir (no .git); run `learnsync init` first")]
    NotInitialised(String),
    #[error("{0}")]
    GitBinary(String),
    #[error(
        "HEAD is on {found}, not on agents/{agent}; check out agents/{agent} or run with --agent"
    )]
    WrongBranch { found: String, agent: String },
}

impl From<LockError> for SyncError {
    fn from(e: LockError) -> Self {
        match e {
            LockError::Busy { .. } => SyncError::Busy(e),
            other => SyncError::Lock(other),
        }
    }
}

/// What a cycle's steps read of the configuration, taken from it once at
/// the start of [`run`]: the steps below it read these, not the whole
/// configuration.
pub struct Settings {
    /// This machine's agent: its branch, and the author of what it commits.
    pub home: String,
    /// The hub remote, whose `main` holds the policy in force and the
    /// review records.
    pub hub: Option<String>,
    /// Who commits, and the key that signs (§5.2).
    pub identity: crate::repo::Identity,
    /// The remotes synced with: the configured list, else every git remote.
    pub remotes: Vec<crate::config::RemoteConfig>,
}

impl Settings {
    /// Read from `config`, and the remotes from `repo` when the
    /// configuration lists none.
    pub fn of(repo: &Repo, config: &Config) -> Settings {
        Settings {
            home: config.home_agent.value.clone(),
            hub: config.hub_name().map(str::to_owned),
            identity: config.identity(),
            remotes: remotes::configured(repo, config),
        }
    }
}

/// One sync cycle on the configured dir.
pub fn run(config: &Config, options: &SyncOptions) -> Result<SyncReport, SyncError> {
    let mut lap = Lap::start();
    let dir = LearningsDir::new(config.dir.value.clone());
    if !dir.is_initialised() {
        return Err(SyncError::NotInitialised(dir.root.display().to_string()));
    }
    let _lock = SyncLock::acquire(&dir.state().sync_lock(), options.wait, "learnsync sync")?;
    let mut repo = Repo::open(&dir.root)?.with_identity(&config.identity())?;
    repo.hold_objects();
    // A process killed mid-write (this one last time, or a user's git)
    // leaves git lock files that would fail every later write.
    let stale_locks =
        crate::repo::locks::recover(repo.git_dir(), &dir.state().stale_locks(), options.wait)?;
    // A push a killed sync left running moves a remote-tracking ref when it
    // ends; a fetch meanwhile would fail to update its refs.
    let writer_wait = options.wait.min(crate::repo::locks::IN_CYCLE_WAIT);
    if let Some(writer) = crate::repo::locks::wait_for_ref_writers(repo.git_dir(), writer_wait) {
        tracing::warn!(
            "{writer} is still moving refs in this repository after {}s; syncing anyway",
            writer_wait.as_secs()
        );
    }
    let settings = Settings::of(&repo, config);
    let home = &settings.home;
    match repo.head_branch()? {
        Some(b) if b == crate::paths::agent_branch(home) => {}
        found => {
            return Err(SyncError::WrongBranch {
                found: found.unwrap_or_else(|| "a detached HEAD".into()),
                agent: home.clone(),
            });
        }
    }
    // Push needs the git binary: say so before anything moves.
    if options.push && settings.remotes.iter().any(|r| r.push) {
        crate::repo::check_git_binary().map_err(SyncError::GitBinary)?;
    }
    let start = repo.head_commit()?;
    let mut report = SyncReport {
        stale_locks: stale_locks
            .moved
            .into_iter()
            .map(|(lock, _)| lock)
            .collect(),
        recovered: recover::finish_interrupted(&repo, &dir)?,
        ..SyncReport::default()
    };
    // A watcher, when one runs, says what changed since the last cycle.
    let mode = config.watch.value;
    let watched = match mode {
        WatchMode::Off => None,
        _ => crate::watch::query(&dir.root, crate::watch::saved_token(&dir.root).as_deref()),
    };
    let only = watched
        .as_ref()
        .filter(|a| !a.full)
        .map(|a| a.paths.as_slice());
    lap.done("open, recover, ask the watcher");
    owners::record_hosted(&dir, home);
    options.step("committing local work");
    let outcome = commit_local(&repo, &dir, &settings, only, options.batch)?;
    lap.done("commit local work");
    let scanned_all = only.is_none().then_some(outcome.scanned);
    report.watched = only.is_some();
    outcome.fill(&mut report);
    // What follows HEAD (the lookup indexes) is told where the tree went.
    // When the cycle pushes, while the push (the git binary's work) runs; a
    // push rejected and merged again moves HEAD on, and the rest is told
    // after it.
    let mut indexed = None;
    if options.stopping() {
        report.stopped = true;
    } else {
        let mut before_push = || {
            // The indexes read few of the objects the merges kept: their
            // memory need not add to the caches'.
            repo.release_caches();
            if let Ok(end) = repo.head_commit() {
                options.head_moved(&repo, start, end);
                repo.release_caches();
                indexed = Some(end);
            }
        };
        // The token is resolved only now, when remotes are about to be
        // talked to, and only for a remote on the Gitea host.
        let names: Vec<&str> = settings.remotes.iter().map(|r| r.name.as_str()).collect();
        let auths = remotes::http_auths(&repo, config, &names);
        remotes::exchange(
            &repo,
            &dir,
            &settings,
            &auths,
            options,
            &mut report,
            &mut before_push,
        )?;
    }
    repo.release_caches();
    lap.done("fetch, merge, recompute, push (all remotes)");
    let end = repo.head_commit()?;
    report.problems.extend(closing_problems(
        &repo,
        &dir,
        settings.hub.as_deref(),
        start,
        end,
    )?);
    options.step("updating the search indexes");
    match indexed {
        Some(at) if at == end => {}
        Some(at) => options.head_moved(&repo, at, end),
        None => options.head_moved(&repo, start, end),
    }
    repo.release_caches();
    // The events index is kept from the first cycle on, so the first
    // recompute of a large repository does not read every event.
    if let Some(head) = end {
        derive::keep_events_index(&repo, &dir, head);
        lap.done("events index");
    }
    save_last(&dir, &report);
    hand_over_to_watcher(&dir, watched, mode, scanned_all, options);
    Ok(report)
}

/// What the cycle computed with and could not use, said once: the
/// policy's problem, then the hub's, bad event lines and duplicate ids in
/// what the cycle brought (`start` to `end`). Saves the policy in force
/// for the hooks (§5.1, §4.1) on the way.
fn closing_problems(
    repo: &Repo,
    dir: &LearningsDir,
    hub: Option<&str>,
    start: Option<gix::ObjectId>,
    end: Option<gix::ObjectId>,
) -> Result<Vec<Problem>, SyncError> {
    let mut problems = Vec::new();
    let hub_problems = crate::hub::read(repo, &dir.state(), hub, None)?.problems;
    if let Some(head) = end {
        let tree = repo.commit_tree(head)?;
        let local = || {
            repo.blob_at(tree, crate::policy::POLICY_PATH)
                .ok()
                .flatten()
                .map(|b| String::from_utf8_lossy(&b).into_owned())
        };
        let (policy, problem, _) = crate::hub::policy_in_force(Some(repo), hub, local);
        // The hooks act on the policy this cycle computed with.
        crate::store::hook_policy::save(&dir.state(), &policy);
        problems.extend(problem);
    }
    problems.extend(hub_problems);
    if let (Some(changed), Some(head)) = (changed_since(repo, start, end), end) {
        problems.extend(derive::bad_event_lines(
            repo,
            repo.commit_tree(head)?,
            &changed,
        )?);
    }
    problems.extend(duplicate_ids(repo, start, end)?);
    Ok(problems)
}

/// The cycle is complete: the next one asks the watcher for changes since
/// the token this one started from (so what changed while it ran is seen
/// again). Without one, a watcher is started when the mode wants one
/// (`auto`: the cycle scanned `scanned_all` files, at least
/// [`WATCH_AUTO_FILES`]).
fn hand_over_to_watcher(
    dir: &LearningsDir,
    watched: Option<crate::watch::Answer>,
    mode: WatchMode,
    scanned_all: Option<usize>,
    options: &SyncOptions,
) {
    match watched {
        Some(answer) => crate::watch::save_token(&dir.root, &answer.token),
        None => {
            crate::watch::forget_token(&dir.root);
            let wanted = match mode {
                WatchMode::On => true,
                WatchMode::Auto => scanned_all.is_some_and(|n| n >= WATCH_AUTO_FILES),
                WatchMode::Off => false,
            };
            if let (true, Some(exe)) = (wanted, options.watcher.as_deref()) {
                crate::watch::spawn(exe, &dir.root);
            }
        }
    }
}

/// Learning files this cycle brought whose id another folder also holds
/// (§6.1): each is named, once per cycle that touches it. Only the changed
/// paths are looked at, each against the top-level folders.
fn duplicate_ids(
    repo: &Repo,
    from: Option<gix::ObjectId>,
    to: Option<gix::ObjectId>,
) -> Result<Vec<Problem>, SyncError> {
    let (Some(to), Some(changed)) = (to, changed_since(repo, from, to)) else {
        return Ok(Vec::new());
    };
    let tree = repo.commit_tree(to)?;
    let folders: Vec<String> = repo
        .tree(tree)?
        .entries()
        .filter(|e| e.is_tree)
        .map(|e| e.name.to_string())
        .collect();
    let mut out = Vec::new();
    for path in &changed {
        let crate::paths::RepoPath::Learning { agent, id } = crate::paths::classify(path) else {
            continue;
        };
        for other in folders.iter().filter(|f| f.as_str() != agent) {
            let twin = format!("{other}/{id}.md");
            if repo.blob_id_at(tree, &twin)?.is_some() {
                out.push(Problem {
                    path: path.clone(),
                    message: format!(
                        "duplicate id {id}: {twin} holds it too; while both do, neither \
                         counts evidence (see `learnsync doctor`)"
                    ),
                });
            }
        }
    }
    Ok(out)
}

/// Repository paths whose blobs differ between two commits; `None` when
/// there is nothing to diff from (or the diff failed): rebuild instead.
fn changed_since(
    repo: &Repo,
    from: Option<gix::ObjectId>,
    to: Option<gix::ObjectId>,
) -> Option<Vec<String>> {
    match (from, to) {
        (Some(from), Some(to)) if from == to => Some(Vec::new()),
        (Some(from), Some(to)) => heads::changed_paths(repo, from, to).ok(),
        (_, None) => Some(Vec::new()),
        (None, Some(_)) => None,
    }
}

/// The last cycle's report as `status` shows it (`.git/learnsync/last-sync.json`).
#[derive(Debug, Clone, serde::Deserialize, Serialize)]
pub struct LastSync {
    pub at: String,
    pub report: serde_json::Value,
}

/// Records a finished cycle's report for `status`. Best effort: losing it
/// costs `status` one line.
fn save_last(dir: &LearningsDir, report: &SyncReport) {
    let last = serde_json::json!({
        "at": crate::timestamp::Timestamp::now().to_string(),
        "report": report,
    });
    if let Ok(bytes) = serde_json::to_vec(&last)
        && let Err(e) = crate::store::atomic_write(&dir.state().last_sync(), &bytes)
    {
        tracing::debug!("last sync report not saved: {e}");
    }
}

/// The last cycle's report, if one was recorded.
pub fn last(dir: &LearningsDir) -> Option<LastSync> {
    let bytes = std::fs::read(dir.state().last_sync()).ok()?;
    serde_json::from_slice(&bytes).ok()
}

impl SyncReport {
    /// True when some remote failed while the rest went through (exit 3).
    pub fn is_partial(&self) -> bool {
        self.remotes.iter().any(|r| !r.errors.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_is_due_by_count_or_by_the_oldest_events_age() {
        let batch = EvidenceBatch {
            max_age: Duration::from_secs(600),
            max_events: 3,
        };
        let now = Timestamp::from_unix(10_000);
        let at = |ago: i64| Some(Timestamp::from_unix(10_000 - ago));
        assert!(!batch.due(0, None, now), "nothing waits");
        assert!(!batch.due(2, at(599), now));
        assert!(batch.due(3, at(0), now), "enough wait");
        assert!(batch.due(1, at(600), now), "the oldest is old enough");
        // A clock set back (an event from the future) never makes it due
        // by age, and a limit of 0 means every event goes at once.
        assert!(!batch.due(1, at(-5_000), now));
        let every = EvidenceBatch {
            max_events: 0,
            ..batch
        };
        assert!(every.due(1, at(0), now));
    }
}
