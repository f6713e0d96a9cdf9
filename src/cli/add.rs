//! `learnsync add`: a learning typed by a person; `crate::record::add`
//! builds, redacts and queues it; this prints its id.

use super::stdout::outln;
use super::{CliError, CliResult, Context, exit, named};
use crate::learning::Kind;
use crate::record::{self, Manual, RecordError};
use crate::timestamp::Timestamp;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// One line saying what was learned.
    #[arg(long, allow_hyphen_values = true)]
    title: String,
    /// What to do instead.
    #[arg(long, allow_hyphen_values = true)]
    correction: String,
    /// The command that failed.
    #[arg(long, allow_hyphen_values = true)]
    command: Option<String>,
    /// The error it gave.
    #[arg(long, allow_hyphen_values = true)]
    error: Option<String>,
    /// A keyword (repeatable).
    #[arg(long = "keyword", value_name = "K", allow_hyphen_values = true)]
    keywords: Vec<String>,
    /// What kind of lesson it is.
    #[arg(long, default_value = "correction", value_parser = named::<Kind>())]
    kind: Kind,
    /// Longer explanation (markdown).
    #[arg(long, allow_hyphen_values = true)]
    body: Option<String>,
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    let dir = ctx.initialised_dir()?;
    let manual = Manual {
        title: args.title,
        correction: args.correction,
        command: args.command,
        error: args.error,
        keywords: args.keywords,
        kind: args.kind,
        body: args.body,
    };
    let added = record::add(&dir, &ctx.config.acting_agent, manual, Timestamp::now()).map_err(
        |e| match e {
            RecordError::Blank(field) => CliError::usage(format!(
                "--{field} is blank: a learning added by hand needs a {field}"
            )),
            _ => CliError::failure(e.to_string()),
        },
    )?;
    if added.redacted {
        eprintln!("learnsync: warning: secrets in the learning were redacted");
    }
    let l = &added.learning;
    super::stdout::on_failure(format!(
        "the learning {} was recorded (`learnsync show {}`)",
        l.id, l.id
    ));
    if ctx.json {
        super::output::print_json(&serde_json::json!({ "id": l.id, "agent_id": l.agent_id }));
    } else {
        outln!("{}", l.id);
    }
    Ok(exit::OK)
}
