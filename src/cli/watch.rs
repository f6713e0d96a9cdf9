//! `learnsync watch`: run the work-tree watcher for the dir in the
//! foreground (a `sync` starts one in the background on large dirs, see
//! docs/sync.md), or `--stop` the one running.

use super::{CliError, CliResult, Context, exit};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Ask the running watcher to exit.
    #[arg(long)]
    pub stop: bool,
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    let dir = ctx.initialised_dir()?;
    if args.stop {
        if crate::watch::stop(&dir.root) {
            ctx.say(format!("Stopped the watcher of {}.", dir.root.display()));
        } else {
            ctx.say(format!("No watcher is running for {}.", dir.root.display()));
        }
        return Ok(exit::OK);
    }
    crate::watch::serve(&dir.root)
        .map_err(|e| CliError::failure(format!("watch {}: {e}", dir.root.display())))?;
    Ok(exit::OK)
}
