//! `learnsync review [--dry-run]`: one pass of `crate::review_pass` over the
//! hub's Gitea repository, and what it did. Exit 3 when some step failed
//! and the rest went through.

use super::{CliError, CliResult, Context, exit};
use crate::review_pass::{Done, ReviewOptions};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Plan and print; send no write and record nothing.
    #[arg(long)]
    dry_run: bool,
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    let dir = ctx.initialised_dir()?;
    let options = ReviewOptions {
        dry_run: args.dry_run,
        ..ReviewOptions::default()
    };
    let report = crate::review_pass::run(&dir, &ctx.config, &options).map_err(|e| match e {
        crate::review_pass::ReviewError::Sync(crate::sync::SyncError::Busy(_)) => {
            CliError::new(exit::BUSY, e.to_string())
        }
        other => CliError::failure(other.to_string()),
    })?;
    for w in &report.warnings {
        eprintln!("learnsync: warning: {w}");
    }
    for e in &report.errors {
        eprintln!("learnsync: review: {e}");
    }
    if ctx.json {
        super::output::print_json(&serde_json::to_value(&report).unwrap_or_default());
    } else {
        let verb = |done: &str, planned: &str| {
            if report.dry_run {
                planned.to_string()
            } else {
                done.to_string()
            }
        };
        let say = |what: String, list: &[Done]| {
            for d in list {
                let mut line = format!("{what} {}", d.learning);
                if let Some(n) = d.pull_request {
                    line.push_str(&format!(" (PR #{n})"));
                }
                if let Some(n) = d.issue {
                    line.push_str(&format!(" (issue #{n})"));
                }
                if let Some(why) = d.why.as_ref().filter(|w| w.contains(' ')) {
                    line.push_str(&format!(": {why}"));
                }
                ctx.say(line);
            }
        };
        say(verb("Proposed", "Would propose"), &report.proposed);
        say(
            verb("Followed the edit of", "Would follow the edit of"),
            &report.followed,
        );
        say(verb("Withdrew", "Would withdraw"), &report.withdrawn);
        say("Approved (merged):".into(), &report.approved);
        say(
            verb("Recorded the rejection of", "Would record the rejection of"),
            &report.rejected,
        );
        say(verb("Pulled", "Would pull"), &report.pulled);
        say(verb("Restored", "Would restore"), &report.restored);
        say(
            verb(
                "Removed an unconfirmed rejection of",
                "Would remove an unconfirmed rejection of",
            ),
            &report.unconfirmed,
        );
        say(
            verb(
                "Asked people to look again at (an issue each)",
                "Would ask people to look again at",
            ),
            &report.questioned,
        );
        if !report.held_back.is_empty() {
            ctx.say(format!(
                "Held back by the limits: {} (listed in the review queue issue)",
                report.held_back.len()
            ));
        }
        ctx.say(format!("{} review(s) open.", report.open_reviews));
    }
    Ok(if report.is_partial() {
        exit::PARTIAL
    } else {
        exit::OK
    })
}
