//! `learnsync doctor`: prints every problem `crate::health` finds, without
//! changing anything. Exit 1 when any is found.

use super::output::print_json;
use super::stdout::outln;
use super::{CliResult, Context, exit};

pub fn run(ctx: &Context) -> CliResult {
    let dir = ctx.initialised_dir()?;
    let problems = crate::health::check(&dir, &ctx.config)?;
    if ctx.json {
        print_json(&serde_json::json!({ "ok": problems.is_empty(), "problems": problems }));
    } else if problems.is_empty() {
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
