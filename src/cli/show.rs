//! `learnsync show ID`: one learning, as its file would read after the next
//! sync (derived fields recomputed), or as JSON.

use super::output::{learning_json, print_json};
use super::stdout::{out, outln};
use super::{CliError, CliResult, Context, exit};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The learning's id.
    id: String,
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    crate::paths::validate_id(&args.id).map_err(|e| CliError::usage(e.to_string()))?;
    let dir = ctx.initialised_dir()?;
    let view = crate::view::load(&dir, ctx.config.hub_name());
    let Some(found) = view.find(&args.id) else {
        let unreadable = view.problems.iter().find(|p| p.path.contains(&args.id));
        return Err(CliError::failure(match unreadable {
            Some(p) => super::output::problem_line(&p.path, &p.message),
            None => format!(
                "no learning with id {} in {} (nor in its inbox)",
                args.id,
                dir.root.display()
            ),
        }));
    };
    if ctx.json {
        print_json(&learning_json(found, &view));
    } else {
        outln!(
            "# {}{}",
            crate::text::escape_line(&found.path),
            if found.in_inbox { " (inbox)" } else { "" }
        );
        if let Some(words) = super::output::review_words(&view.review_state(&found.learning)) {
            outln!("# review: {words}");
        }
        // The file as it reads, peers' control characters shown escaped.
        out!(
            "{}",
            crate::text::escape_body(&found.learning.to_markdown())
        );
        if !found.learning.body.ends_with('\n') {
            outln!();
        }
    }
    Ok(exit::OK)
}
