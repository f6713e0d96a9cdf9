//! `learnsync apply ID --outcome …`: one event of evidence, queued by
//! `crate::by_hand::apply` (the learning may still be in the inbox too).

use super::{CliError, CliResult, Context, exit, named};
use crate::by_hand;
use crate::event::Outcome;
use crate::timestamp::Timestamp;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The learning's id.
    id: String,
    /// What happened.
    #[arg(long, value_parser = named::<Outcome>())]
    outcome: Outcome,
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    crate::paths::validate_id(&args.id).map_err(|e| CliError::usage(e.to_string()))?;
    let dir = ctx.initialised_dir()?;
    let event = by_hand::apply(
        &dir,
        &ctx.config.acting_agent,
        &args.id,
        args.outcome,
        Timestamp::now(),
    )
    .map_err(|e| CliError::failure(e.to_string()))?;
    super::stdout::on_failure(format!(
        "the {} event {} for {} was recorded",
        event.outcome, event.id, args.id
    ));
    if ctx.json {
        super::output::print_json(&serde_json::json!({
            "id": event.id, "learning": event.learning, "agent": event.agent,
            "at": event.at.to_string(), "outcome": event.outcome.as_str(),
        }));
    } else {
        ctx.say(format!(
            "Recorded {} for {} (by {}).",
            event.outcome, args.id, event.agent
        ));
    }
    Ok(exit::OK)
}
