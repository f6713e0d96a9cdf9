//! `learnsync apply ID --outcome …`: one event of evidence, queued in the
//! inbox (the learning may still be in the inbox too).

use super::{CliError, CliResult, Context, exit};
use crate::event::{Event, Outcome};
use crate::timestamp::Timestamp;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The learning's id.
    id: String,
    /// What happened.
    #[arg(long, value_parser = ["applied", "effective", "ineffective", "recurred"])]
    outcome: String,
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    crate::paths::validate_id(&args.id).map_err(|e| CliError::usage(e.to_string()))?;
    let dir = ctx.initialised_dir()?;
    let outcome =
        Outcome::parse(&args.outcome).ok_or_else(|| CliError::usage("unknown outcome"))?;
    if !known(&dir, &args.id) {
        return Err(CliError::failure(format!(
            "no learning with id {} in {} (nor in its inbox)",
            args.id,
            dir.root.display()
        )));
    }
    let event = Event::new(
        &args.id,
        &ctx.config.acting_agent,
        outcome,
        Timestamp::now(),
    );
    dir.inbox().write_event(&event)?;
    if ctx.json {
        super::output::print_json(&serde_json::json!({
            "id": event.id, "learning": event.learning, "agent": event.agent,
            "at": event.at.to_string(), "outcome": event.outcome.as_str(),
        }));
    } else {
        ctx.say(format!(
            "Recorded {} for {} (by {}).",
            outcome, args.id, event.agent
        ));
    }
    Ok(exit::OK)
}

/// True when some agent folder or the inbox holds the id.
fn known(dir: &crate::store::LearningsDir, id: &str) -> bool {
    let in_tree = std::fs::read_dir(&dir.root).ok().is_some_and(|entries| {
        entries
            .flatten()
            .any(|e| e.path().join(format!("{id}.md")).is_file())
    });
    in_tree
        || dir.inbox().items().iter().any(|item| {
            matches!(&item.payload, Ok(crate::store::InboxPayload::Learning(l)) if l.id == id)
        })
}
