//! `learnsync status`: where the dir is, which branch, how many learnings at
//! each trust level, what waits in the inbox, and how the last sync went.

use super::output::print_json;
use super::{CliResult, Context, exit};
use crate::repo::Repo;
use serde_json::json;
use std::collections::BTreeMap;

pub fn run(ctx: &Context) -> CliResult {
    let dir = ctx.initialised_dir()?;
    let repo = Repo::open(&dir.root)?;
    let branch = repo.head_branch()?;
    let head = repo.head_commit()?.map(|c| c.to_string());
    let view = crate::view::load(&dir, &ctx.config);
    let mut by_trust: BTreeMap<String, usize> = ["L0", "L1", "L2", "L3"]
        .iter()
        .map(|l| (l.to_string(), 0))
        .collect();
    for l in &view.learnings {
        *by_trust
            .entry(l.learning.trust_level.to_string())
            .or_default() += 1;
    }
    let inbox = dir.inbox().items().len();
    let last_sync: serde_json::Value = std::fs::read(dir.state().last_sync())
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(serde_json::Value::Null);
    if ctx.json {
        print_json(&json!({
            "dir": dir.root.display().to_string(),
            "agent": ctx.config.home_agent.value,
            "branch": branch,
            "head": head,
            "learnings": view.learnings.len(),
            "by_trust": by_trust,
            "inbox": inbox,
            "problems": view.problems.len(),
            "remotes": repo.remote_names(),
            "last_sync": last_sync,
        }));
        return Ok(exit::OK);
    }
    println!("dir:       {}", dir.root.display());
    println!(
        "agent:     {} (branch {})",
        ctx.config.home_agent.value,
        branch.as_deref().unwrap_or("detached")
    );
    println!(
        "head:      {}",
        head.as_deref().unwrap_or("(no commit yet)")
    );
    println!(
        "learnings: {} ({})",
        view.learnings.len(),
        by_trust
            .iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!("inbox:     {inbox} file(s) waiting for sync");
    println!("remotes:   {}", {
        let r = repo.remote_names();
        if r.is_empty() {
            "(none)".to_string()
        } else {
            r.join(", ")
        }
    });
    println!(
        "problems:  {} (see `learnsync doctor`)",
        view.problems.len()
    );
    match last_sync.get("at").and_then(|a| a.as_str()) {
        Some(at) => println!("last sync: {at}"),
        None => println!("last sync: never"),
    }
    Ok(exit::OK)
}
