//! `learnsync sync`: one cycle (§6) and its report; exit 3 when a remote or
//! step was skipped, 4 when another sync holds the lock.

use super::{CliError, CliResult, Context, exit};
use crate::sync::{Progress, SyncError, SyncOptions};
use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// A step shown on the terminal once it has lasted this long: a quick
/// cycle draws nothing.
const PROGRESS_AFTER: Duration = Duration::from_millis(800);

/// Exit code of a cycle stopped by Ctrl-C (128 + SIGINT, as shells expect).
const INTERRUPTED: i32 = 130;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Do not fetch or merge from remotes.
    #[arg(long)]
    no_fetch: bool,
    /// Do not push.
    #[arg(long)]
    no_push: bool,
    /// Seconds to wait for another sync to finish.
    #[arg(long, value_name = "SECS")]
    wait: Option<u64>,
    /// Leave outcome events in the inbox for a later batch, as the daemon
    /// does, unless `daemon.evidence_batch_events` wait, the oldest is
    /// `daemon.evidence_batch_secs` old, or the cycle commits anything else.
    #[arg(long)]
    batch_evidence: bool,
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    if crate::init::ensure(&ctx.config, &ctx.flags, &ctx.env)
        .map_err(|e| CliError::failure(e.to_string()))?
    {
        ctx.say(format!(
            "Created the learnings dir {} on agents/{}.",
            ctx.config.dir.value.display(),
            ctx.config.home_agent.value
        ));
    }
    let stop = Arc::new(AtomicBool::new(false));
    stop_on_ctrl_c(stop.clone());
    let spinner = (!ctx.json && !ctx.quiet && std::io::stderr().is_terminal()).then(spinner);
    let options = SyncOptions {
        fetch: !args.no_fetch,
        push: !args.no_push,
        wait: Duration::from_secs(args.wait.unwrap_or(ctx.config.lock_wait_secs.value)),
        watcher: std::env::current_exe().ok(),
        stop: Some(stop.clone()),
        progress: spinner.clone().map(|bar| {
            Progress(Arc::new(move |step: &str| {
                bar.set_message(step.to_string());
            }))
        }),
        batch: args
            .batch_evidence
            .then(|| crate::sync::EvidenceBatch::from_config(&ctx.config.daemon)),
        // A large dir's first index build goes to a detached process: the
        // user is waiting at a prompt for the sync, not for a cache.
        on_head: Some(crate::indexes::keeper(
            &ctx.config,
            match std::env::current_exe() {
                Ok(exe) => crate::indexes::FirstBuild::Detached(exe),
                Err(_) => crate::indexes::FirstBuild::Here,
            },
        )),
    };
    let result = crate::sync::run(&ctx.config, &options);
    if let Some(bar) = spinner {
        bar.finish_and_clear();
    }
    let report = result.map_err(|e| match e {
        SyncError::Busy(_) | SyncError::GitLockHeld(_) => CliError::new(exit::BUSY, e.to_string()),
        other => CliError::failure(other.to_string()),
    })?;
    for p in &report.problems {
        eprintln!(
            "learnsync: {}",
            super::output::problem_line(&p.path, &p.message)
        );
    }
    if ctx.json {
        super::output::print_json(&serde_json::to_value(&report).unwrap_or_default());
    } else {
        say_commit(ctx, &report);
    }
    for r in &report.remotes {
        for e in &r.errors {
            eprintln!("learnsync: remote {}: {e}", r.name);
        }
    }
    if !ctx.json {
        say_exchange(ctx, &report);
    }
    if report.stopped || stop.load(Ordering::SeqCst) {
        eprintln!(
            "learnsync: interrupted: stopped at a safe point ({}); nothing is half-written, \
             and the next `learnsync sync` finishes the cycle.",
            if report.commit.is_some() {
                "local work is committed; fetch, merge or push may be left"
            } else {
                "fetch, merge or push may be left"
            }
        );
        return Ok(INTERRUPTED);
    }
    Ok(if report.is_partial() {
        exit::PARTIAL
    } else {
        exit::OK
    })
}

/// What the cycle committed and changed locally, for a person.
fn say_commit(ctx: &Context, report: &crate::sync::SyncReport) {
    match &report.commit {
        Some(c) => ctx.say(format!(
            "Committed {} file(s) on agents/{} ({}): {} learning(s) and {} event(s) from the inbox, {} recomputed.",
            report.committed_files.len(),
            ctx.config.home_agent.value,
            &c[..c.len().min(12)],
            report.inbox_learnings,
            report.inbox_events,
            report.recomputed
        )),
        None => ctx.say("Nothing new to commit."),
    }
    if report.held_events > 0 {
        ctx.say(format!(
            "Held {} outcome event(s) in the inbox for the next batch (--batch-evidence).",
            report.held_events
        ));
    }
    for c in &report.promoted {
        ctx.say(format!("Promoted {} {} -> {}", c.id, c.from, c.to));
    }
    for c in &report.demoted {
        ctx.say(format!("Demoted {} {} -> {}", c.id, c.from, c.to));
    }
    for path in &report.redacted {
        ctx.say(format!("Redacted secrets in {path}"));
    }
    if report.recovered {
        ctx.say("Finished an interrupted sync cycle.");
    }
    for lock in &report.stale_locks {
        ctx.say(format!(
            "Moved aside {lock}, a git lock left by a process that died (kept under .git/learnsync/stale-locks/)."
        ));
    }
}

/// What the cycle merged, refused and pushed, for a person.
fn say_exchange(ctx: &Context, report: &crate::sync::SyncReport) {
    for m in &report.merged {
        ctx.say(format!(
            "{} {} ({} path(s){})",
            if m.fast_forward {
                "Fast-forwarded to"
            } else {
                "Merged"
            },
            m.head,
            m.paths,
            if m.conflicts_kept.is_empty() {
                String::new()
            } else {
                format!(
                    ", {} kept under .learnsync/conflicts/",
                    m.conflicts_kept.len()
                )
            }
        ));
    }
    for r in &report.refused {
        ctx.say(format!(
            "Refused {}'s change to {} (owned by {}): it {}{}",
            r.head,
            crate::text::escape_line(&r.path),
            r.owner,
            r.why,
            r.kept
                .as_ref()
                .map(|k| format!("; kept as {k}"))
                .unwrap_or_default()
        ));
    }
    for r in report.remotes.iter().filter(|r| r.pushed) {
        let agent = &ctx.config.home_agent.value;
        ctx.say(if r.up_to_date {
            format!("{} already has agents/{agent}", r.name)
        } else {
            format!("Pushed agents/{agent} to {}", r.name)
        });
        for b in &r.pushed_as {
            ctx.say(format!(
                "Pushed {b} (an agent this clone writes as) to {}",
                r.name
            ));
        }
    }
}

/// A spinner on stderr naming the step under way, drawn only once a step
/// has lasted [`PROGRESS_AFTER`].
fn spinner() -> indicatif::ProgressBar {
    let bar =
        indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::hidden());
    if let Ok(style) = indicatif::ProgressStyle::with_template("{spinner} {msg} {elapsed}") {
        bar.set_style(style);
    }
    let shown = bar.clone();
    std::thread::spawn(move || {
        std::thread::sleep(PROGRESS_AFTER);
        if !shown.is_finished() {
            shown.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            shown.enable_steady_tick(Duration::from_millis(120));
        }
    });
    bar
}

/// The first Ctrl-C asks the cycle to stop at its next safe point (the
/// git child a terminal's Ctrl-C also reaches ends its fetch or push, which
/// the cycle reports and carries on from); a second one exits at once,
/// which is safe too: the next sync finishes or rolls back (DESIGN §6).
fn stop_on_ctrl_c(stop: Arc<AtomicBool>) {
    std::thread::spawn(move || {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .build()
        else {
            return;
        };
        runtime.block_on(async {
            if tokio::signal::ctrl_c().await.is_err() {
                return;
            }
            stop.store(true, Ordering::SeqCst);
            eprintln!(
                "learnsync: stopping at the next safe point (Ctrl-C again to stop at once)"
            );
            if tokio::signal::ctrl_c().await.is_ok() {
                eprintln!(
                    "learnsync: stopped at once; the next `learnsync sync` finishes or rolls back this cycle"
                );
                std::process::exit(INTERRUPTED);
            }
        });
    });
}
