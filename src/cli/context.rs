//! `learnsync context`: the markdown block a session starts with — the
//! learnings most worth knowing for this agent and project, cut at a
//! character cap on a learning boundary.

use super::{CliError, CliResult, Context, exit};
use crate::search;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The project of the session; default: the base name of the current directory.
    #[arg(long, value_name = "NAME")]
    project: Option<String>,
    /// The most characters the block may have.
    #[arg(long, value_name = "N", default_value_t = 4000)]
    max_chars: usize,
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    let dir = ctx.initialised_dir()?;
    let project = args
        .project
        .or_else(super::suggest::cwd_project)
        .filter(|p| !p.is_empty());
    let agent = ctx.config.acting_agent.clone();
    let block = search::context_block(
        &dir,
        Some(&ctx.config),
        Some(&agent),
        project.as_deref(),
        args.max_chars,
        search::Freshness::CatchUp,
    )
    .map_err(CliError::failure)?;
    if ctx.json {
        super::output::print_json(
            &serde_json::to_value(&block).map_err(|e| CliError::failure(e.to_string()))?,
        );
    } else {
        super::stdout::write_bytes(block.markdown.as_bytes());
    }
    Ok(exit::OK)
}
