//! `learnsync query TEXT`: the `suggest` ranking for a person, with filters
//! (trust, source agent, kind) and no agent applicability: a person sees
//! every retrievable learning (never L0, never rejected).

use super::suggest::{hit_json, print_hit};
use super::{CliError, CliResult, Context, exit, named};
use crate::learning::{Kind, TrustLevel};
use crate::search::{self, Request};
use serde_json::Value;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// What to look for, in words or as an error or a command; it may start
    /// with `-` (`query '-bash: jq: command not found'`).
    #[arg(value_name = "TEXT", allow_hyphen_values = true)]
    text: String,
    /// More words of the text, no quotes needed; a word starting with `-`
    /// goes after `--`, since flags may follow the text.
    #[arg(value_name = "TEXT")]
    more: Vec<String>,
    /// Only these trust levels (L1, L2, L3; repeat or separate by commas).
    #[arg(long, value_name = "LEVEL", value_delimiter = ',')]
    trust: Vec<String>,
    /// Only learnings captured by this agent.
    #[arg(long, value_name = "AGENT")]
    from: Option<String>,
    /// Only this kind.
    #[arg(long, value_name = "KIND", value_parser = named::<Kind>())]
    kind: Option<Kind>,
    /// At most this many learnings.
    #[arg(long, value_name = "N", default_value_t = 10)]
    limit: usize,
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    let mut trust = Vec::new();
    for t in &args.trust {
        match TrustLevel::parse(t) {
            Some(TrustLevel::L0) => {
                return Err(CliError::usage(
                    "--trust L0: L0 learnings have no correction and are never returned",
                ));
            }
            Some(level) => trust.push(level),
            None => {
                return Err(CliError::usage(format!(
                    "--trust {t:?}: expected L1, L2 or L3"
                )));
            }
        }
    }
    if args.limit == 0 {
        return Err(CliError::usage("--limit must be at least 1"));
    }
    let text = super::suggest::words(args.text, args.more);
    let dir = ctx.initialised_dir()?;
    let req = Request {
        text: &text,
        limit: args.limit,
        trust: &trust,
        from: args.from.as_deref(),
        kind: args.kind.map(Kind::as_str),
        ..Request::default()
    };
    let hits = search::search(&dir, &ctx.config, &req).map_err(CliError::failure)?;
    if ctx.json {
        super::output::print_json(&Value::Array(hits.iter().map(hit_json).collect()));
    } else {
        for h in &hits {
            print_hit(h);
        }
        if !ctx.quiet {
            eprintln!("{} learning(s)", hits.len());
        }
    }
    Ok(exit::OK)
}
