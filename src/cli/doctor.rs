//! `learnsync doctor`: prints every problem `crate::health` finds, without
//! changing anything, and notes on what trust does to agents (enforced,
//! questioned and risky learnings, the roster), which never fail it. Exit 1
//! when any problem is found.

use super::output::print_json;
use super::stdout::outln;
use super::{CliResult, Context, exit};

pub fn run(ctx: &Context) -> CliResult {
    let dir = ctx.initialised_dir()?;
    // Notes say what trust does to agents: never a failure.
    let (problems, notes) = crate::health::check_with_notes(&dir, &ctx.config)?;
    if ctx.json {
        print_json(
            &serde_json::json!({ "ok": problems.is_empty(), "problems": problems, "notes": notes }),
        );
        return Ok(if problems.is_empty() {
            exit::OK
        } else {
            exit::FAILURE
        });
    }
    if !ctx.quiet {
        for n in &notes {
            eprintln!("note: {}: {} ({})", n.path, n.message, n.kind);
        }
    }
    if problems.is_empty() {
        ctx.say("No problems found.");
    } else {
        // Paths inside the dir read as the learning files do, relative to
        // it; a template dir elsewhere stays absolute.
        let root = format!("{}/", dir.root.display());
        for p in &problems {
            let path = p.path.strip_prefix(&root).unwrap_or(&p.path);
            outln!("{}", super::output::problem_line(path, &p.message));
        }
        eprintln!("{} problem(s) found", problems.len());
    }
    Ok(if problems.is_empty() {
        exit::OK
    } else {
        exit::FAILURE
    })
}
