//! `learnsync publish`: puts the trusted learnings on the wiki (§7) and
//! reports per page; exit 3 when some pages failed and others went through,
//! 1 when nothing could be published or a setting is missing.

use super::{CliError, CliResult, Context, exit};
use crate::publish::{ActionKind, PublishOptions, PublishReport, Target, WriteResult};
use std::io::IsTerminal;

/// Writes above which a progress bar is worth showing.
const PROGRESS_MIN_WRITES: usize = 10;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print the plan (create / update / delete / unchanged per page); send no write.
    #[arg(long)]
    dry_run: bool,
    /// Overwrite or delete pages a person edited on the wiki since the last publish.
    #[arg(long)]
    force: bool,
    /// Where to publish: the Gitea wiki API, or a `<repo>.wiki.git` by git push.
    #[arg(long, value_enum, default_value_t = Target::Gitea)]
    target: Target,
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    let dir = ctx.initialised_dir()?;
    let options = PublishOptions {
        target: args.target,
        dry_run: args.dry_run,
        force: args.force,
        ..PublishOptions::default()
    };
    let show_bar = !ctx.json && !ctx.quiet && std::io::stderr().is_terminal();
    let mut bar: Option<indicatif::ProgressBar> = None;
    let mut progress = |done: usize, total: usize| {
        if !show_bar || total < PROGRESS_MIN_WRITES {
            return;
        }
        let bar = bar.get_or_insert_with(|| {
            let b = indicatif::ProgressBar::new(total as u64);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "publishing {bar:30} {pos}/{len} pages {elapsed}",
            ) {
                b.set_style(style);
            }
            b
        });
        bar.set_position(done as u64);
    };
    let result = crate::publish::publish(&dir, &ctx.config, &options, &mut progress);
    if let Some(bar) = bar.take() {
        bar.finish_and_clear();
    }
    let report = result.map_err(|e| CliError::failure(e.to_string()))?;
    for page in &report.pages {
        if page.action == ActionKind::Kept {
            eprintln!(
                "learnsync: warning: {} ({}): {}",
                page.title,
                page.sub_url,
                page.note.as_deref().unwrap_or("left alone")
            );
        }
        if let WriteResult::Failed(reason) = &page.result {
            eprintln!(
                "learnsync: failed to {} {}: {reason}",
                page.action.as_str(),
                page.title
            );
        }
    }
    for w in &report.withheld {
        eprintln!(
            "learnsync: not published {} ({}): {}",
            w.title, w.key, w.reason
        );
    }
    if ctx.json {
        super::output::print_json(&serde_json::to_value(&report).unwrap_or_default());
    } else {
        print_human(ctx, &report);
    }
    Ok(exit_code(&report))
}

fn exit_code(report: &PublishReport) -> i32 {
    match (report.problems(), report.successes()) {
        (0, _) => exit::OK,
        (_, 0) => exit::FAILURE,
        _ => exit::PARTIAL,
    }
}

fn print_human(ctx: &Context, report: &PublishReport) {
    if report.dry_run {
        ctx.say("Plan (dry run, nothing sent):");
        for p in &report.pages {
            let rename = if p.action == ActionKind::Unchanged {
                String::new()
            } else {
                format!("  [{}]", p.sub_url)
            };
            ctx.say(format!("  {:<9} {}{rename}", p.action.as_str(), p.title));
        }
    } else {
        for p in report
            .pages
            .iter()
            .filter(|p| p.action.writes() && p.result == WriteResult::Done)
        {
            ctx.say(format!("  {:<9} {}", past_tense(p.action), p.title));
        }
    }
    let c = &report.counts;
    let verb = if report.dry_run { "would be " } else { "" };
    ctx.say(format!(
        "{} created, {} updated, {} deleted, {} unchanged {verb}on {}; {} kept (edited on the wiki), {} withheld (secrets), {} failed.",
        c.created, c.updated, c.deleted, c.unchanged, report.wiki_url, c.kept, c.withheld, c.failed
    ));
}

fn past_tense(kind: ActionKind) -> &'static str {
    match kind {
        ActionKind::Create => "created",
        ActionKind::Update => "updated",
        ActionKind::Delete => "deleted",
        ActionKind::Unchanged => "unchanged",
        ActionKind::Kept => "kept",
    }
}
