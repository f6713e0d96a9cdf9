//! `learnsync index`: build the capture and search indexes whole from HEAD
//! (a sync keeps them in step; it leaves a large dir's first build to a
//! detached `learnsync index`, see docs/sync.md). Exit 4 when a sync holds
//! the lock longer than `--wait`.

use super::{CliError, CliResult, Context, exit};
use crate::indexes::IndexError;
use crate::store::LockError;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Seconds to wait for a sync that holds the lock.
    #[arg(long, value_name = "SECS")]
    wait: Option<u64>,
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    let wait = Duration::from_secs(args.wait.unwrap_or(ctx.config.lock_wait_secs.value));
    let built = crate::indexes::build(&ctx.config, wait).map_err(|e| match e {
        IndexError::Lock(LockError::Busy { .. }) => CliError::new(exit::BUSY, e.to_string()),
        other => CliError::failure(other.to_string()),
    })?;
    if ctx.json {
        super::output::print_json(&serde_json::to_value(&built).unwrap_or_default());
    } else {
        ctx.say(format!(
            "Built the capture and search indexes in {} ms: {} learning(s) can be suggested \
             (those with a correction, L1 or above, not rejected).",
            built.millis, built.learnings
        ));
    }
    Ok(exit::OK)
}
