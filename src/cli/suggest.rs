//! `learnsync suggest TEXT`: what an agent should see for a failing command,
//! an error message or a question — the best learnings for it, or nothing
//! when nothing fits (an empty list, exit 0).

use super::{CliError, CliResult, Context, exit};
use crate::search::{self, Hit, Request};
use serde_json::{Value, json};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The text: a failing command, an error message or a question in words.
    /// It may start with `-` (`suggest '-bash: foo: command not found'`).
    #[arg(value_name = "TEXT", allow_hyphen_values = true)]
    text: String,
    /// More words of the text, no quotes needed; a word starting with `-`
    /// goes after `--`, since flags may follow the text.
    #[arg(value_name = "TEXT")]
    more: Vec<String>,
    /// At most this many learnings.
    #[arg(long, value_name = "N", default_value_t = 3)]
    limit: usize,
    /// The project asked about (learnings captured there rank first);
    /// default: the base name of the current directory.
    #[arg(long, value_name = "NAME")]
    project: Option<String>,
}

/// The words of a free-text argument as one text. The text is split in two
/// positionals (`suggest`, `query`): the first word alone may start with
/// `-` (`-bash: jq: command not found` is how shells report), and the rest
/// may not, so that a flag after the text is a flag (`query raft --trust
/// L2`) rather than more text; clap would take every later `--flag` as text
/// into a many-valued positional that accepts hyphens.
pub(super) fn words(first: String, more: Vec<String>) -> String {
    std::iter::once(first)
        .chain(more)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The base name of the current directory: the project a capture records.
pub(super) fn cwd_project() -> Option<String> {
    std::env::current_dir()
        .ok()?
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty())
}

/// One hit as `suggest --json` and `query --json` print it: exact text
/// (JSON escapes it), redacted again like all shown text (§9.1).
pub(super) fn hit_json(h: &Hit) -> Value {
    use crate::redact::redact;
    json!({
        "id": h.meta.id,
        "title": redact(&h.meta.title),
        "correction": redact(&h.meta.correction),
        "trust": h.meta.trust,
        "score": (f64::from(h.score) * 1e4).round() / 1e4,
        "why": h.why(),
    })
}

/// One hit for people: title, correction, and why it was chosen.
pub(super) fn print_hit(h: &Hit) {
    let m = &h.meta;
    let mut why: Vec<String> = h.terms.clone();
    why.extend(h.concepts.iter().map(|c| format!("~{c}")));
    super::stdout::outln!(
        "[{}] {}  ({})\n  correction: {}\n  matched: {}  score {:.3}",
        m.trust,
        crate::text::shown_line(&m.title),
        m.id,
        crate::text::shown_line(&m.correction),
        why.join(", "),
        h.score
    );
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    let text = words(args.text, args.more);
    if args.limit == 0 {
        return Err(CliError::usage("--limit must be at least 1"));
    }
    let dir = ctx.initialised_dir()?;
    let project = args.project.or_else(cwd_project).filter(|p| !p.is_empty());
    let agent = ctx.config.acting_agent.clone();
    let req = Request {
        text: &text,
        agent: Some(&agent),
        project: project.as_deref(),
        limit: args.limit,
        ..Request::default()
    };
    let hits = search::search(&dir, &ctx.config, &req).map_err(CliError::failure)?;
    if ctx.json {
        super::output::print_json(&Value::Array(hits.iter().map(hit_json).collect()));
    } else if hits.is_empty() {
        if !ctx.quiet {
            eprintln!("no learning fits");
        }
    } else {
        for h in &hits {
            print_hit(h);
        }
    }
    Ok(exit::OK)
}
