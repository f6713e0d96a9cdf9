//! `learnsync kg check`: the knowledge-graph files (`kg/*.md`) that cannot
//! be used as they are, each named with its line.

use super::stdout::outln;
use super::{CliResult, Context, exit};
use crate::search;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: KgCommand,
}

#[derive(clap::Subcommand, Debug)]
enum KgCommand {
    /// Report KG files that do not parse (file and line); exit 1 when any.
    Check,
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    let KgCommand::Check = args.command;
    let dir = ctx.initialised_dir()?;
    let problems = search::check_kg(&dir);
    let concepts = search::on_disk::load_graph(&dir.root).concepts.len();
    if ctx.json {
        super::output::print_json(&serde_json::json!({"concepts": concepts, "problems": problems}));
    } else {
        for p in &problems {
            outln!("{}: {}", p.location(), p.message);
        }
        ctx.say(format!(
            "{concepts} concept(s), {} problem(s)",
            problems.len()
        ));
    }
    Ok(if problems.is_empty() {
        exit::OK
    } else {
        exit::FAILURE
    })
}
