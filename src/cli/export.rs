//! `learnsync export`: trusted learnings into an agent's instruction file
//! or skills dir (docs/export.md); prints what it wrote and what it left out.

use super::{CliError, CliResult, Context, named};
use crate::export::{ExportError, ExportOptions, Format};
use crate::learning::TrustLevel;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// What to write: an instruction file's block or skill folders.
    #[arg(long, value_name = "FORMAT", value_parser = named::<Format>(), default_value = "agents-md")]
    format: Format,
    /// The file (or, for skills, the dir) to write; default: the format's
    /// usual place under the current directory (AGENTS.md, CLAUDE.md,
    /// .github/copilot-instructions.md, .cursor/rules/learnsync.mdc,
    /// .claude/skills).
    #[arg(long, value_name = "PATH")]
    to: Option<std::path::PathBuf>,
    /// The least trust exported: L3 (approved by a person) or L2.
    #[arg(long, value_name = "LEVEL", default_value = "L3")]
    min_trust: String,
    /// Only this project's learnings (and those of no project).
    #[arg(long, value_name = "PROJECT")]
    project: Option<String>,
    /// Say what would change and write nothing.
    #[arg(long)]
    dry_run: bool,
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    let min_trust = match TrustLevel::parse(&args.min_trust) {
        Some(level @ (TrustLevel::L2 | TrustLevel::L3)) => level,
        _ => {
            return Err(CliError::usage(format!(
                "--min-trust {:?}: expected L3 (approved by a person) or L2",
                args.min_trust
            )));
        }
    };
    let dir = ctx.initialised_dir()?;
    let to = args
        .to
        .unwrap_or_else(|| std::path::PathBuf::from(args.format.default_path()));
    let to = std::path::absolute(&to).unwrap_or(to);
    let options = ExportOptions {
        format: args.format,
        to,
        min_trust,
        project: args.project,
        dry_run: args.dry_run,
    };
    let report = crate::export::export(&dir, &ctx.config, &options).map_err(|e| match e {
        ExportError::Trust(_) => CliError::usage(e.to_string()),
        other => CliError::failure(other.to_string()),
    })?;
    if ctx.json {
        super::output::print_json(&serde_json::to_value(&report).unwrap_or_default());
        return Ok(super::exit::OK);
    }
    let verb = if report.dry_run {
        "Would write"
    } else {
        "Wrote"
    };
    for path in &report.written {
        ctx.say(format!("{verb} {}", path.display()));
    }
    let verb = if report.dry_run {
        "Would remove"
    } else {
        "Removed"
    };
    for path in &report.removed {
        ctx.say(format!(
            "{verb} {} (its learnings no longer qualify)",
            path.display()
        ));
    }
    if report.written.is_empty() && report.removed.is_empty() {
        ctx.say(format!("{} is up to date.", report.to.display()));
    }
    ctx.say(format!(
        "{} learning(s) exported at {min_trust} or above.",
        report.shown.len()
    ));
    if report.left_out_for_size > 0 {
        ctx.say(format!(
            "{} more left out to stay within export.max_chars (policy).",
            report.left_out_for_size
        ));
    }
    for (why, n) in &report.left_out {
        ctx.say(format!("{n} left out: {why}."));
    }
    Ok(super::exit::OK)
}
