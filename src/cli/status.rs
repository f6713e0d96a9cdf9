//! `learnsync status`: prints `crate::health::status` — where the dir is,
//! which branch, how many learnings at each trust level, what waits in the
//! inbox, how the last sync went, and each daemon job: its last run, last
//! success, next run and failures in a row (also when no daemon runs).

use super::output::print_json;
use super::{CliResult, Context, exit};

pub fn run(ctx: &Context) -> CliResult {
    let dir = ctx.initialised_dir()?;
    let s = crate::health::status(&dir, &ctx.config)?;
    if ctx.json {
        print_json(&serde_json::to_value(&s).unwrap_or_default());
        return Ok(exit::OK);
    }
    println!("dir:       {}", s.dir);
    println!(
        "agent:     {} (branch {})",
        s.agent,
        s.branch.as_deref().unwrap_or("detached")
    );
    println!(
        "head:      {}",
        s.head.as_deref().unwrap_or("(no commit yet)")
    );
    println!(
        "learnings: {} ({})",
        s.learnings,
        s.by_trust
            .iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!("inbox:     {} file(s) waiting for sync", s.inbox);
    println!(
        "reviews:   {}",
        s.reviews
            .iter()
            .map(|(k, v)| format!("{v} {k}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!(
        "remotes:   {}",
        if s.remotes.is_empty() {
            "(none)".to_string()
        } else {
            s.remotes.join(", ")
        }
    );
    println!("problems:  {} (see `learnsync doctor`)", s.problems);
    match &s.last_sync {
        Some(last) => println!("last sync: {}", last.at),
        None => println!("last sync: never"),
    }
    print_daemon(&s.daemon);
    Ok(exit::OK)
}

fn print_daemon(d: &crate::daemon::DaemonStatus) {
    match &d.running {
        Some(holder) => println!("daemon:    running, {holder}"),
        None => println!("daemon:    not running (start it with `learnsync daemon`)"),
    }
    for j in &d.jobs {
        let last = match &j.last_run {
            Some(r) => format!(
                "{} {}{} ({:.1}s): {}",
                r.end,
                r.outcome.as_str(),
                r.error_class
                    .map(|c| format!(" [{}]", c.as_str()))
                    .unwrap_or_default(),
                r.duration_secs,
                r.summary
            ),
            None => "never".into(),
        };
        println!("  {:<8} schedule `{}`", j.job.as_str(), j.schedule);
        println!("           last run:     {last}");
        println!(
            "           last success: {}",
            j.last_success.as_deref().unwrap_or("never")
        );
        let next = match (&j.next_run, &j.backing_off_until) {
            (_, Some(hold)) => format!(
                "{hold} (backing off after {} failure(s))",
                j.consecutive_failures
            ),
            (Some(next), None) => next.clone(),
            (None, None) => "never (off)".into(),
        };
        println!("           next run:     {next}");
        println!(
            "           failures:     {} in a row",
            j.consecutive_failures
        );
    }
}
