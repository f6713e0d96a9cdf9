//! `learnsync doctor`: every problem we can find without changing anything —
//! unreadable learnings, bad event lines, rejected inbox files, branch,
//! configuration, the git binary sync needs, and wiki templates whose pages
//! would not render as meant. Exit 1 when any is found.

use super::output::print_json;
use super::{CliResult, Context, exit};
use crate::repo::Repo;
use crate::store::Problem;

pub fn run(ctx: &Context) -> CliResult {
    let dir = ctx.initialised_dir()?;
    let mut problems: Vec<Problem> = crate::view::load(&dir, &ctx.config).problems;
    let repo = Repo::open(&dir.root)?;
    let want = format!("agents/{}", ctx.config.home_agent.value);
    match repo.head_branch()? {
        Some(b) if b == want => {}
        other => problems.push(Problem {
            path: "HEAD".into(),
            message: format!(
                "on {}, expected {want}",
                other.unwrap_or_else(|| "a detached HEAD".into())
            ),
        }),
    }
    if let Ok(rejected) = std::fs::read_dir(dir.state_dir().join("inbox-rejected")) {
        for entry in rejected.flatten() {
            problems.push(Problem {
                path: entry.path().display().to_string(),
                message: "an inbox file that could not be read was set aside here".into(),
            });
        }
    }
    if std::process::Command::new("git")
        .arg("--version")
        .output()
        .is_err()
    {
        problems.push(Problem {
            path: "git".into(),
            message: "the git binary is not on PATH; sync needs git >= 2.30 to push".into(),
        });
    }
    if dir.state_dir().join("cycle-in-progress.json").exists() {
        problems.push(Problem {
            path: ".git/learnsync/cycle-in-progress.json".into(),
            message: "a sync cycle was interrupted; the next `learnsync sync` finishes it".into(),
        });
    }
    if let Some(template_dir) = &ctx.config.wiki_template_dir {
        let dir_shown = template_dir.value.display().to_string();
        match crate::publish::Templates::load(Some(&template_dir.value)) {
            Err(e) => problems.push(Problem {
                path: dir_shown,
                message: e.to_string(),
            }),
            Ok(templates) => match crate::publish::check::template_problems(&templates) {
                Err(e) => problems.push(Problem {
                    path: dir_shown,
                    message: e.to_string(),
                }),
                Ok(found) => problems.extend(found.into_iter().map(|p| Problem {
                    path: template_dir.value.join(p.template).display().to_string(),
                    message: format!("on the page {:?}, {}", p.page, p.message),
                })),
            },
        }
    }
    if ctx.json {
        print_json(&serde_json::json!({ "ok": problems.is_empty(), "problems": problems }));
    } else if problems.is_empty() {
        ctx.say("No problems found.");
    } else {
        for p in &problems {
            println!("{}: {}", p.path, p.message);
        }
        eprintln!("{} problem(s) found", problems.len());
    }
    Ok(if problems.is_empty() {
        exit::OK
    } else {
        exit::FAILURE
    })
}
