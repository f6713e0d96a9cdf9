//! `learnsync status`: prints `crate::health::status` — where the dir is,
//! which branch, how many learnings at each trust level, what waits in the
//! inbox, how the last sync went, and each daemon job: its last run, last
//! success, next run and failures in a row (also when no daemon runs).

use super::output::print_json;
use super::stdout::outln;
use super::{CliResult, Context, exit};

pub fn run(ctx: &Context) -> CliResult {
    let dir = ctx.initialised_dir()?;
    let s = crate::health::status(&dir, &ctx.config)?;
    if ctx.json {
        print_json(&serde_json::to_value(&s).unwrap_or_default());
        return Ok(exit::OK);
    }
    outln!("dir:       {}", s.dir);
    outln!(
        "agent:     {} (branch {})",
        s.agent,
        s.branch.as_deref().unwrap_or("detached")
    );
    outln!(
        "head:      {}",
        s.head.as_deref().unwrap_or("(no commit yet)")
    );
    outln!(
        "learnings: {} ({})",
        s.learnings,
        s.by_trust
            .iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    outln!("inbox:     {} file(s) waiting for sync", s.inbox);
    outln!(
        "reviews:   {}",
        s.reviews
            .iter()
            .map(|(k, v)| format!("{v} {k}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    outln!(
        "remotes:   {}",
        if s.remotes.is_empty() {
            "(none)".to_string()
        } else {
            s.remotes.join(", ")
        }
    );
    outln!("problems:  {} (see `learnsync doctor`)", s.problems);
    for n in &s.trust {
        outln!("{:<10} {}: {}", format!("{}:", n.kind), n.path, n.message);
    }
    match &s.last_sync {
        Some(last) => outln!("last sync: {}", last.at),
        None => outln!("last sync: never"),
    }
    print_daemon(&s.daemon);
    Ok(exit::OK)
}

fn print_daemon(d: &crate::daemon::DaemonStatus) {
    match &d.running {
        Some(holder) => outln!("daemon:    running, {holder}"),
        None => outln!("daemon:    not running (start it with `learnsync daemon`)"),
    }
    for j in &d.jobs {
        let next = match (&j.next_run, &j.backing_off_until) {
            (_, Some(hold)) => format!(
                "{} (backing off after {} failure(s))",
                to_seconds(hold),
                j.consecutive_failures
            ),
            (Some(next), None) => to_seconds(next),
            (None, None) => "never (off)".into(),
        };
        let Some(r) = &j.last_run else {
            outln!(
                "  {:<8} schedule `{}`, never run; next run {next}",
                j.job.as_str(),
                j.schedule
            );
            continue;
        };
        outln!("  {:<8} schedule `{}`", j.job.as_str(), j.schedule);
        outln!(
            "           last run:     {} {}{} ({:.1}s): {}",
            to_seconds(&r.end),
            r.outcome.as_str(),
            r.error_class
                .map(|c| format!(" [{}]", c.as_str()))
                .unwrap_or_default(),
            r.duration_secs,
            // A summary can quote a peer's names and messages.
            crate::text::escape_line(&r.summary)
        );
        outln!(
            "           last success: {}",
            j.last_success.as_deref().map_or("never".into(), to_seconds)
        );
        outln!("           next run:     {next}");
        if j.consecutive_failures > 0 {
            outln!(
                "           failures:     {} in a row",
                j.consecutive_failures
            );
        }
    }
}

/// A run record's time (`…T12:00:31.004Z`) to the second, as `last sync`
/// shows its time; the records keep the milliseconds.
fn to_seconds(stamp: &str) -> String {
    match stamp.split_once('.') {
        Some((seconds, _)) if stamp.ends_with('Z') => format!("{seconds}Z"),
        _ => stamp.to_string(),
    }
}
