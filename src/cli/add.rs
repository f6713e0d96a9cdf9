//! `learnsync add`: a learning typed by a person (L1 once it has a
//! correction); redacted, queued in the inbox, its id printed.

use super::{CliResult, Context, exit};
use crate::learning::Learning;
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
    /// workflow, correction, debugging_pattern, gotcha or convention.
    #[arg(long, default_value = "correction", value_parser = ["workflow", "correction", "debugging_pattern", "gotcha", "convention"])]
    kind: String,
    /// Longer explanation (markdown).
    #[arg(long, allow_hyphen_values = true)]
    body: Option<String>,
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    let dir = ctx.initialised_dir()?;
    let agent = ctx.config.acting_agent.clone();
    let mut l = Learning::new(Learning::new_id(), agent, args.title, Timestamp::now());
    l.correction = Some(args.correction);
    l.original_command = args.command;
    l.error_context = args.error;
    l.keywords = args.keywords;
    l.kind = Some(args.kind);
    l.body = args
        .body
        .map(|b| if b.ends_with('\n') { b } else { b + "\n" })
        .unwrap_or_default();
    l.trust_level = crate::learning::TrustLevel::L1;
    if l.redact() {
        eprintln!("learnsync: warning: secrets in the learning were redacted");
    }
    dir.inbox().write_learning(&l)?;
    if ctx.json {
        super::output::print_json(&serde_json::json!({ "id": l.id, "agent_id": l.agent_id }));
    } else {
        println!("{}", l.id);
    }
    Ok(exit::OK)
}
