//! `learnsync status`: prints `crate::health::status` — where the dir is,
//! which branch, how many learnings at each trust level, what waits in the
//! inbox, and how the last sync went.

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
    Ok(exit::OK)
}
