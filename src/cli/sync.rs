//! `learnsync sync`: one cycle (§6) and its report; exit 3 when a remote or
//! step was skipped, 4 when another sync holds the lock.

use super::{CliError, CliResult, Context, exit};
use crate::sync::{SyncError, SyncOptions};
use std::time::Duration;

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
    let options = SyncOptions {
        fetch: !args.no_fetch,
        push: !args.no_push,
        wait: Duration::from_secs(args.wait.unwrap_or(ctx.config.lock_wait_secs.value)),
        watcher: std::env::current_exe().ok(),
        stop: None,
    };
    let report = crate::sync::run(&ctx.config, &options).map_err(|e| match e {
        SyncError::Busy(_) | SyncError::GitLockHeld(_) => CliError::new(exit::BUSY, e.to_string()),
        other => CliError::failure(other.to_string()),
    })?;
    for p in &report.problems {
        eprintln!("learnsync: skipped {}: {}", p.path, p.message);
    }
    if ctx.json {
        super::output::print_json(&serde_json::to_value(&report).unwrap_or_default());
    } else {
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
    for r in &report.remotes {
        for e in &r.errors {
            eprintln!("learnsync: remote {}: {e}", r.name);
        }
    }
    if !ctx.json {
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
        for r in report.remotes.iter().filter(|r| r.pushed) {
            let agent = &ctx.config.home_agent.value;
            ctx.say(if r.up_to_date {
                format!("{} already has agents/{agent}", r.name)
            } else {
                format!("Pushed agents/{agent} to {}", r.name)
            });
        }
    }
    Ok(if report.is_partial() {
        exit::PARTIAL
    } else {
        exit::OK
    })
}
