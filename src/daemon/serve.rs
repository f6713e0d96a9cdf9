//! The daemon's loop: one current-thread runtime that waits for the next of
//! (a job due, a run finished, a capture, a signal), and one worker thread
//! that runs jobs — so two jobs can never run at once, and the loop stays
//! free to answer `/metrics`, log skipped ticks and take signals while a
//! long run goes on. The loop wakes at least once a minute and reads the
//! wall clock each time (timers stop while a laptop sleeps).
//!
//! Signals: SIGTERM and SIGINT stop the running step at its next safe
//! point and exit 0 within [`STOP_GRACE`] (a second signal exits at once);
//! SIGHUP reloads the configuration, keeping the old one when the new one
//! does not load.

use super::jobs::{self, JobInput, RunResult};
use super::metrics::Snapshot;
use super::runs::{self, DaemonState, RunRecord};
use super::timetable::{SkipReason, Tick, Timetable};
use super::{
    DaemonError, ErrorClass, Job, RunOutcome, Trigger, http, inbox, instance, notify, stamp,
};
use crate::config::{Config, Env, Flags};
use crate::retry::{Jitter, RetryPolicy};
use crate::store::LearningsDir;
use chrono::{DateTime, Local, SecondsFormat, Utc};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

/// How long a stop waits for the running step to reach a safe point.
pub const STOP_GRACE: Duration = Duration::from_secs(20);
/// The longest sleep between two looks at the wall clock.
const MAX_SLEEP: Duration = Duration::from_secs(60);

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum LogFormat {
    /// Lines for people (timestamps left to journald when it collects them).
    #[default]
    Text,
    /// One JSON object a line, for log shippers.
    Json,
}

/// What the command line hands the daemon.
#[derive(Debug, Clone)]
pub struct DaemonOptions {
    /// `--listen`, else `daemon.listen`; `None`: no endpoint.
    pub listen: Option<SocketAddr>,
    /// To load the configuration again on SIGHUP.
    pub flags: Flags,
    pub env: Env,
    /// The `learnsync` executable (for the work-tree watcher).
    pub exe: Option<PathBuf>,
}

struct Request {
    job: Job,
    trigger: Trigger,
    input: JobInput,
}

struct Finished {
    job: Job,
    trigger: Trigger,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
    result: RunResult,
}

/// The thread that runs jobs, one after the other.
fn start_worker(
    done: UnboundedSender<Finished>,
) -> std::io::Result<std::sync::mpsc::Sender<Request>> {
    let (tx, rx) = std::sync::mpsc::channel::<Request>();
    std::thread::Builder::new()
        .name("jobs".into())
        .spawn(move || {
            for req in rx {
                let start = Utc::now();
                let result = jobs::run(req.job, &req.input);
                let finished = Finished {
                    job: req.job,
                    trigger: req.trigger,
                    start,
                    end: Utc::now(),
                    result,
                };
                if done.send(finished).is_err() {
                    return;
                }
            }
        })?;
    Ok(tx)
}

struct Daemon {
    config: Arc<Config>,
    options: DaemonOptions,
    dir: LearningsDir,
    timetable: Timetable<Local>,
    state: DaemonState,
    snapshot: Arc<Mutex<Snapshot>>,
    backoff: RetryPolicy,
    stop: Arc<AtomicBool>,
    worker: std::sync::mpsc::Sender<Request>,
    done_tx: UnboundedSender<Finished>,
    running: Option<(Job, Trigger, DateTime<Utc>)>,
    counted: bool,
}

fn local(t: DateTime<Utc>) -> String {
    t.with_timezone(&Local)
        .to_rfc3339_opts(SecondsFormat::Secs, false)
}

/// The backoff after failed runs: as `daemon` says, with a jitter seeded by
/// the agent (`home`), so a team's daemons do not retry in step.
fn backoff_policy(home: &str, daemon: &crate::config::DaemonConfig) -> RetryPolicy {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(home.as_bytes());
    let mut seed = [0u8; 8];
    seed.copy_from_slice(&digest[..8]);
    let base = Duration::from_secs(daemon.backoff_base_secs.max(1));
    RetryPolicy {
        max_attempts: u32::MAX,
        base_delay: base,
        max_delay: Duration::from_secs(daemon.backoff_max_secs).max(base),
        max_retry_after: Duration::ZERO,
        jitter: Jitter::Equal,
        jitter_seed: u64::from_be_bytes(seed),
    }
}

/// Runs the daemon on `config`'s dir until SIGTERM or SIGINT.
pub fn run(config: Config, options: DaemonOptions) -> Result<(), DaemonError> {
    let dir = LearningsDir::new(config.dir.value.clone());
    runs::ensure_folder(&dir)
        .map_err(|e| DaemonError::Io(format!("{}: {e}", dir.state().path().display())))?;
    let _instance = instance::claim(&dir.state().daemon_lock(), &dir.root)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| DaemonError::Io(format!("cannot start the async runtime: {e}")))?;
    runtime.block_on(serve(config, options, dir))
}

async fn serve(
    config: Config,
    options: DaemonOptions,
    dir: LearningsDir,
) -> Result<(), DaemonError> {
    let signals = |kind: SignalKind| {
        signal(kind).map_err(|e| DaemonError::Io(format!("cannot handle signals: {e}")))
    };
    let mut term = signals(SignalKind::terminate())?;
    let mut int = signals(SignalKind::interrupt())?;
    let mut hup = signals(SignalKind::hangup())?;
    let (done_tx, mut done_rx) = unbounded_channel();
    let worker = start_worker(done_tx.clone())
        .map_err(|e| DaemonError::Io(format!("cannot start the job thread: {e}")))?;
    let now = Utc::now();
    let plans = super::schedules(&config, now)?;
    let mut timetable = Timetable::new(Local, plans, now);
    let state = runs::load_state(&dir);
    let snapshot = Arc::new(Mutex::new(Snapshot {
        started: Some(now),
        ..Snapshot::default()
    }));
    for job in Job::ORDER {
        let js = state.jobs.get(&job).cloned().unwrap_or_default();
        let hold = js
            .hold_until
            .as_deref()
            .and_then(super::parse_stamp)
            .filter(|h| *h > now);
        timetable.restore(job, js.consecutive_failures, hold);
    }
    let listener =
        match options.listen {
            Some(addr) => Some(tokio::net::TcpListener::bind(addr).await.map_err(|e| {
                DaemonError::Listen {
                    addr: addr.to_string(),
                    message: e.to_string(),
                }
            })?),
            None => None,
        };
    let mut daemon = Daemon {
        backoff: backoff_policy(&config.home_agent.value, &config.daemon),
        config: Arc::new(config),
        options,
        timetable,
        state,
        snapshot,
        stop: Arc::new(AtomicBool::new(false)),
        worker,
        done_tx,
        running: None,
        counted: false,
        dir,
    };
    daemon.refresh_snapshot(now);
    let (capture_tx, mut capture_rx) = unbounded_channel();
    inbox::watch(daemon.dir.state().inbox(), capture_tx);
    if let Some(listener) = listener {
        let shared = http::Shared {
            snapshot: daemon.snapshot.clone(),
            inbox: daemon.dir.state().inbox(),
        };
        if let Ok(addr) = listener.local_addr() {
            tracing::info!("serving /livez, /readyz and /metrics on http://{addr}");
        }
        tokio::spawn(http::serve(listener, shared));
    }
    daemon.timetable.queue(Job::Sync, Trigger::Start, now);
    daemon.announce(now);
    notify::send(&format!(
        "READY=1\nMAINPID={}\nSTATUS=watching {}",
        std::process::id(),
        daemon.dir.root.display()
    ));
    loop {
        let now = Utc::now();
        daemon.look(now);
        let wait = daemon.wait(now);
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            Some(finished) = done_rx.recv() => daemon.finished(finished),
            Some(()) = capture_rx.recv() => daemon.capture(Utc::now()),
            Some(()) = hup.recv() => daemon.reload(),
            Some(()) = term.recv() => {
                tracing::info!("SIGTERM: stopping");
                break;
            }
            Some(()) = int.recv() => {
                tracing::info!("SIGINT: stopping");
                break;
            }
        }
    }
    daemon.shutdown(&mut done_rx, &mut term, &mut int).await;
    Ok(())
}

impl Daemon {
    fn debounce(&self) -> chrono::Duration {
        chrono::Duration::seconds(self.config.daemon.debounce_secs.min(86_400) as i64)
    }

    /// The opening lines: where, which jobs when, what will be skipped and why.
    fn announce(&self, now: DateTime<Utc>) {
        tracing::info!(
            "learnsync daemon on {} (agent {}, pid {})",
            self.dir.root.display(),
            self.config.home_agent.value,
            std::process::id()
        );
        let plans = super::check(&self.config, now, 1).unwrap_or_default();
        for plan in plans {
            if plan.off {
                tracing::info!(
                    "{}: off ({} is `{}`)",
                    plan.job,
                    plan.job.schedule_key(),
                    plan.schedule
                );
                continue;
            }
            let next = plan.next.first().cloned().unwrap_or_else(|| "never".into());
            tracing::info!(
                "{}: `{}`, this machine {:+.1}s; next {next}",
                plan.job,
                plan.schedule,
                plan.offset_secs
            );
            if let Some(note) = plan.note {
                tracing::info!("{}: will skip: {note}", plan.job);
            }
        }
        if !self.timetable.is_off(Job::Sync) {
            tracing::info!(
                "captures in the inbox trigger a sync {}s after they arrive",
                self.config.daemon.debounce_secs
            );
        }
    }

    /// Queues what is due, records skipped ticks, starts the next run.
    fn look(&mut self, now: DateTime<Utc>) {
        for tick in self.timetable.tick(now) {
            match tick {
                Tick::Queued(job, trigger) => {
                    tracing::debug!("{job} due ({})", trigger.as_str());
                }
                Tick::Skipped { job, at, why } => self.skipped_tick(job, at, why),
            }
        }
        self.dispatch(now);
        self.refresh_snapshot(now);
    }

    fn skipped_tick(&mut self, job: Job, at: DateTime<Utc>, why: SkipReason) {
        let summary = match (why, self.running) {
            (SkipReason::Running, Some((_, _, since))) => format!(
                "the {} tick was skipped: the run started {} is still going",
                local(at),
                local(since)
            ),
            (SkipReason::Running, None) => {
                format!("the {} tick was skipped: a run is still going", local(at))
            }
            (SkipReason::Queued, _) => format!(
                "the {} tick was skipped: a run is already waiting for its turn",
                local(at)
            ),
        };
        tracing::info!("{job} skipped: {summary}");
        let record = RunRecord {
            job,
            trigger: Trigger::Schedule,
            start: stamp(at),
            end: stamp(at),
            duration_secs: 0.0,
            outcome: RunOutcome::Skipped,
            summary,
            error_class: Some(ErrorClass::Overlap),
        };
        runs::append(&self.dir, &record);
        if let Ok(mut s) = self.snapshot.lock() {
            s.count_run(job, RunOutcome::Skipped, None);
        }
    }

    fn dispatch(&mut self, now: DateTime<Utc>) {
        if self.stop.load(Ordering::SeqCst) || self.running.is_some() {
            return;
        }
        let Some((job, trigger)) = self.timetable.start_next() else {
            return;
        };
        let input = JobInput {
            config: self.config.clone(),
            stop: self.stop.clone(),
            last_success_key: self
                .state
                .jobs
                .get(&job)
                .and_then(|s| s.last_success_key.clone()),
            exe: self.options.exe.clone(),
            count_learnings: !self.counted,
        };
        let mut request = Request {
            job,
            trigger,
            input,
        };
        if let Err(std::sync::mpsc::SendError(back)) = self.worker.send(request) {
            // The job thread is gone (it never should be): start another.
            tracing::warn!("the job thread ended; starting a new one");
            match start_worker(self.done_tx.clone()) {
                Ok(worker) => self.worker = worker,
                Err(e) => {
                    tracing::error!("cannot start a job thread: {e}; {job} not run");
                    self.timetable
                        .finished(job, RunOutcome::Skipped, now, &self.backoff);
                    return;
                }
            }
            request = back;
            if self.worker.send(request).is_err() {
                self.timetable
                    .finished(job, RunOutcome::Skipped, now, &self.backoff);
                return;
            }
        }
        tracing::debug!("{job} started ({})", trigger.as_str());
        self.running = Some((job, trigger, now));
        self.refresh_snapshot(now);
        self.save();
    }

    fn finished(&mut self, f: Finished) {
        self.running = None;
        let r = f.result;
        let hold = self
            .timetable
            .finished(f.job, r.outcome, f.end, &self.backoff);
        let secs = (f.end - f.start).num_milliseconds().max(0) as f64 / 1000.0;
        let record = RunRecord {
            job: f.job,
            trigger: f.trigger,
            start: stamp(f.start),
            end: stamp(f.end),
            duration_secs: secs,
            outcome: r.outcome,
            summary: r.summary.clone(),
            error_class: r.error_class,
        };
        runs::append(&self.dir, &record);
        let js = self.state.jobs.entry(f.job).or_default();
        js.record(&record, r.key.clone());
        js.hold_until = hold.map(stamp);
        let failures = js.consecutive_failures;
        let line = format!(
            "{} {} in {secs:.1}s ({}): {}",
            f.job,
            r.outcome.as_str(),
            f.trigger.as_str(),
            r.summary
        );
        if r.outcome.is_failure() {
            tracing::warn!(
                "{line} — {} failure(s) in a row, next try {}",
                failures,
                hold.map(local).unwrap_or_else(|| "at its next time".into())
            );
        } else {
            tracing::info!("{line}");
        }
        if let Ok(mut s) = self.snapshot.lock() {
            s.count_run(f.job, r.outcome, Some(secs));
            let g = s.job(f.job);
            if r.outcome.is_success() {
                g.last_success = Some(f.end);
            }
            if r.outcome.is_failure() {
                g.last_failure = Some(format!(
                    "{}: {}",
                    r.error_class.map_or("failed", ErrorClass::as_str),
                    r.summary
                ));
            }
            if let Some(counts) = &r.learnings {
                s.counted(counts);
            }
            if let Some(exported) = &r.exported {
                s.exported = exported.clone();
            }
        }
        if r.learnings.is_some() {
            self.counted = true;
        }
        let now = Utc::now();
        self.dispatch(now);
        self.refresh_snapshot(now);
        self.save();
    }

    fn capture(&mut self, now: DateTime<Utc>) {
        self.timetable.capture(now, self.debounce());
        tracing::debug!("a capture arrived in the inbox");
    }

    /// SIGHUP: the configuration and schedules again, or the old ones and why not.
    fn reload(&mut self) {
        notify::send("RELOADING=1");
        let now = Utc::now();
        let loaded = Config::load(&self.options.flags, &self.options.env)
            .map_err(|e| e.to_string())
            .and_then(|c| {
                super::schedules(&c, now)
                    .map(|plans| (c, plans))
                    .map_err(|e| e.to_string())
            });
        match loaded {
            Ok((config, plans)) => {
                if config.daemon.listen != self.config.daemon.listen {
                    tracing::warn!(
                        "daemon.listen changed; the new address takes effect on a restart"
                    );
                }
                self.timetable.reschedule(plans, now);
                self.backoff = backoff_policy(&config.home_agent.value, &config.daemon);
                self.config = Arc::new(config);
                if let Ok(mut s) = self.snapshot.lock() {
                    s.reloads_ok += 1;
                }
                tracing::info!(
                    "SIGHUP: configuration reloaded; sync `{}`, review `{}`, publish `{}`, export `{}`",
                    self.config.schedule_sync.value,
                    self.config.schedule_review.value,
                    self.config.schedule_publish.value,
                    self.config.schedule_export.value
                );
                for job in Job::ORDER {
                    if let Some(next) = self.timetable.next_run(job, now) {
                        tracing::info!("{job}: next {}", local(next));
                    }
                }
            }
            Err(e) => {
                if let Ok(mut s) = self.snapshot.lock() {
                    s.reloads_failed += 1;
                }
                tracing::error!(
                    "SIGHUP: the configuration did not load, so the previous one stays: {e}"
                );
            }
        }
        self.refresh_snapshot(now);
        self.save();
        notify::send("READY=1");
    }

    /// How long to sleep: until the next due time, at most a minute.
    fn wait(&self, now: DateTime<Utc>) -> Duration {
        let until = self
            .timetable
            .wake_at()
            .and_then(|at| (at - now).to_std().ok())
            .unwrap_or(Duration::ZERO);
        let until = if self.timetable.wake_at().is_none() {
            MAX_SLEEP
        } else {
            until
        };
        until.clamp(Duration::from_millis(10), MAX_SLEEP)
    }

    /// Next runs, failures and settings into the snapshot and the state.
    fn refresh_snapshot(&mut self, now: DateTime<Utc>) {
        for job in Job::ORDER {
            let next = self.timetable.next_run(job, now);
            let js = self.state.jobs.entry(job).or_default();
            js.next_run = next.map(stamp);
        }
        let Ok(mut s) = self.snapshot.lock() else {
            return;
        };
        s.ready_sync_age_secs = self.config.daemon.ready_sync_age_secs;
        s.ready_failures = self.config.daemon.ready_failures;
        for job in Job::ORDER {
            let js = self.state.jobs.get(&job).cloned().unwrap_or_default();
            let running_since = match self.running {
                Some((j, _, since)) if j == job => Some(since),
                _ => None,
            };
            let g = s.job(job);
            g.enabled = !self.timetable.is_off(job);
            g.next_run = self.timetable.next_run(job, now);
            g.consecutive_failures = self.timetable.failures(job);
            g.running_since = running_since;
            if g.last_success.is_none() {
                g.last_success = js.last_success.as_deref().and_then(super::parse_stamp);
            }
        }
    }

    fn save(&self) {
        runs::save_state(&self.dir, &self.state);
    }

    /// Stops at the running step's next safe point, within the grace time.
    async fn shutdown(
        &mut self,
        done_rx: &mut UnboundedReceiver<Finished>,
        term: &mut tokio::signal::unix::Signal,
        int: &mut tokio::signal::unix::Signal,
    ) {
        self.stop.store(true, Ordering::SeqCst);
        notify::send("STOPPING=1");
        if let Some((job, trigger, since)) = self.running {
            tracing::info!(
                "waiting for the running {job} to reach a safe point (at most {}s)",
                STOP_GRACE.as_secs()
            );
            let left = tokio::select! {
                Some(finished) = done_rx.recv() => {
                    self.finished(finished);
                    None
                }
                _ = tokio::time::sleep(STOP_GRACE) => Some(format!(
                    "did not reach a safe point within {}s", STOP_GRACE.as_secs()
                )),
                Some(()) = term.recv() => Some("a second signal came".to_string()),
                Some(()) = int.recv() => Some("a second signal came".to_string()),
            };
            if let Some(why) = left {
                let summary = format!(
                    "the daemon exited while this run was going ({why}); the next sync finishes or rolls back what it left"
                );
                tracing::warn!("{job}: {summary}");
                let now = Utc::now();
                runs::append(
                    &self.dir,
                    &RunRecord {
                        job,
                        trigger,
                        start: stamp(since),
                        end: stamp(now),
                        duration_secs: (now - since).num_milliseconds().max(0) as f64 / 1000.0,
                        outcome: RunOutcome::Skipped,
                        summary,
                        error_class: Some(ErrorClass::Stopped),
                    },
                );
            }
        }
        for js in self.state.jobs.values_mut() {
            js.next_run = None;
        }
        self.save();
        tracing::info!("stopped");
    }
}
