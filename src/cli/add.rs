//! `learnsync add`: a learning typed by a person; `crate::by_hand::add`
//! builds, redacts and queues it; this prints its id.

use super::stdout::outln;
use super::{CliError, CliResult, Context, exit, named};
use crate::by_hand::{self, Manual, RecordError};
use crate::learning::{Kind, MAX_FILE_BYTES};
use crate::timestamp::Timestamp;
use std::io::Read;
use std::path::Path;

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
    /// The longer explanation read from a file (`-`: stdin), for text too
    /// long for an argument.
    #[arg(long, value_name = "PATH", conflicts_with = "body")]
    body_file: Option<String>,
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    let dir = ctx.initialised_dir()?;
    let body = match &args.body_file {
        Some(path) => Some(read_body(path)?),
        None => args.body,
    };
    let manual = Manual {
        title: args.title,
        correction: args.correction,
        command: args.command,
        error: args.error,
        keywords: args.keywords,
        kind: args.kind,
        body,
    };
    let added = by_hand::add(&dir, &ctx.config.acting_agent, manual, Timestamp::now()).map_err(
        |e| match e {
            RecordError::Blank(field) => CliError::usage(format!(
                "--{field} is blank: a learning added by hand needs a {field}"
            )),
            RecordError::TooLarge { .. } => CliError::usage(e.to_string()),
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

/// The text of `--body-file`: the file, or stdin for `-`, read no further
/// than a learning may be long. Every failure names the path.
fn read_body(path: &str) -> Result<String, CliError> {
    let bad = |why: String| CliError::usage(format!("--body-file {path}: {why}"));
    let limit = MAX_FILE_BYTES as u64 + 1;
    let mut bytes = Vec::new();
    let read = if path == "-" {
        std::io::stdin().lock().take(limit).read_to_end(&mut bytes)
    } else {
        if Path::new(path).is_dir() {
            return Err(bad("is a directory, not a file".into()));
        }
        std::fs::File::open(path).and_then(|f| f.take(limit).read_to_end(&mut bytes))
    };
    read.map_err(|e| bad(format!("cannot read it: {e}")))?;
    if bytes.len() > MAX_FILE_BYTES {
        return Err(bad(format!(
            "over the {MAX_FILE_BYTES} byte limit for a learning; nothing was written"
        )));
    }
    String::from_utf8(bytes).map_err(|_| bad("not UTF-8 text".into()))
}
