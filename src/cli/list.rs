//! `learnsync list`: learnings with their current (recomputed) trust, inbox
//! included, filtered by trust level or source agent.

use super::output::{cell, learning_json, print_json, problem_line, review_words};
use super::stdout::outln;
use super::{CliResult, Context, exit, named};
use crate::learning::TrustLevel;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Only this trust level.
    #[arg(long, value_name = "LEVEL", value_parser = named::<TrustLevel>())]
    trust: Option<TrustLevel>,
    /// Only learnings captured by this agent.
    #[arg(long, value_name = "AGENT")]
    from: Option<String>,
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    let trust = args.trust;
    let dir = ctx.initialised_dir()?;
    let view = crate::view::load(&dir, ctx.config.hub_name());
    for p in &view.problems {
        eprintln!("learnsync: skipped {}", problem_line(&p.path, &p.message));
    }
    let shown: Vec<_> = view
        .learnings
        .iter()
        .filter(|l| trust.is_none_or(|t| l.learning.trust_level == t))
        .filter(|l| {
            args.from
                .as_deref()
                .is_none_or(|a| l.learning.agent_id == a)
        })
        .collect();
    if ctx.json {
        print_json(&serde_json::Value::Array(
            shown.iter().map(|l| learning_json(l, &view)).collect(),
        ));
        return Ok(exit::OK);
    }
    // Ids from an adopted dir vary in length; the columns stay aligned.
    let id_width = shown
        .iter()
        .map(|l| l.learning.id.chars().count())
        .max()
        .unwrap_or(0);
    for l in &shown {
        let x = &l.learning;
        let review = review_words(&view.review_state(x))
            .map(|w| format!("  [{w}]"))
            .unwrap_or_default();
        outln!(
            "{:<id_width$}  {}  {:<16}  {}{}{review}",
            x.id,
            x.trust_level,
            cell(&x.agent_id, 16),
            cell(&x.title, 70),
            if l.in_inbox { "  (inbox)" } else { "" }
        );
    }
    if !ctx.quiet {
        eprintln!("{} learning(s)", shown.len());
    }
    Ok(exit::OK)
}
