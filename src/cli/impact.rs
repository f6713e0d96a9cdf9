//! `learnsync impact [--since DATE]`: what the learnings did — shown (and
//! how), denied, followed, effective, ineffective, recurred after being
//! shown, failures avoided — per learning and per agent, from the view's
//! events (inbox included); `crate::impact` computes, this prints.

use super::output::{cell, print_json, problem_line};
use super::stdout::outln;
use super::{CliResult, Context, exit};
use crate::impact::{Figures, Report, Scope, ShownBy};
use crate::timestamp::Timestamp;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Count events from this date (YYYY-MM-DD, UTC) or RFC 3339 time on
    /// (default: all); `--agent A` counts one agent's.
    #[arg(long, value_name = "DATE", value_parser = since)]
    since: Option<Timestamp>,
}

fn since(text: &str) -> Result<Timestamp, String> {
    crate::impact::parse_since(text).ok_or_else(|| {
        "not a date (YYYY-MM-DD) or an RFC 3339 time (2026-08-01T12:00:00Z)".to_string()
    })
}

const TITLE_WIDTH: usize = 40;

pub fn run(ctx: &Context, args: Args) -> CliResult {
    let dir = ctx.initialised_dir()?;
    let view = crate::view::load(&dir, ctx.config.hub_name());
    // An events line that does not parse is not counted: say which.
    for p in &view.problems {
        eprintln!("learnsync: skipped {}", problem_line(&p.path, &p.message));
    }
    let learnings: Vec<_> = view.learnings.into_iter().map(|l| l.learning).collect();
    let scope = Scope {
        since: args.since,
        until: None,
        agent: ctx.flags.agent.clone(),
    };
    let report = crate::impact::report(&view.events, &learnings, &scope);
    if ctx.json {
        let mut value = serde_json::to_value(&report).unwrap_or_default();
        if let Some(m) = value.as_object_mut() {
            m.insert("since".into(), scope.since.map(|t| t.to_string()).into());
            m.insert("agent".into(), scope.agent.clone().into());
        }
        print_json(&value);
        return Ok(exit::OK);
    }
    print_report(&report, &scope);
    Ok(exit::OK)
}

fn print_report(report: &Report, scope: &Scope) {
    let period = scope
        .since
        .map_or_else(|| "all events".to_string(), |t| format!("since {t}"));
    let who = scope.agent.as_deref().map_or_else(
        || "every agent".to_string(),
        |a| format!("agent {}", cell(a, 40)),
    );
    if report.learnings.is_empty() {
        outln!("No events about learnings ({period}, {who}).");
        return;
    }
    outln!("What the learnings did ({period}, {who}):");
    outln!();
    let id_width = report
        .learnings
        .iter()
        .map(|r| r.learning.chars().count())
        .max()
        .unwrap_or(0)
        .max("total".len());
    outln!(
        "{:<TITLE_WIDTH$}  {:<id_width$}  level  {}",
        "title",
        "id",
        HEADINGS.join("  ")
    );
    for r in &report.learnings {
        let title = r
            .title
            .as_deref()
            .map_or("(not in this dir)".into(), |t| cell(t, TITLE_WIDTH));
        outln!(
            "{:<TITLE_WIDTH$}  {:<id_width$}  {:<5}  {}",
            title,
            r.learning,
            r.level.unwrap_or("-"),
            figures(&r.figures)
        );
    }
    outln!(
        "{:<TITLE_WIDTH$}  {:<id_width$}  {:<5}  {}",
        "",
        "total",
        "",
        figures(&report.totals)
    );
    outln!();
    outln!("Shown by how: {}", by_how(&report.totals.shown_by));
    if report.agents.len() > 1 {
        let width = report
            .agents
            .keys()
            .map(|a| cell(a, 40).chars().count())
            .max()
            .unwrap_or(0)
            .max("agent".len());
        outln!();
        outln!("{:<width$}  {}", "agent", HEADINGS.join("  "));
        for (agent, f) in &report.agents {
            outln!("{:<width$}  {}", cell(agent, 40), figures(f));
        }
    }
    if !report.keeps_failing.is_empty() {
        outln!();
        outln!("Keeps failing after being shown:");
        for id in &report.keeps_failing {
            let Some(r) = report.learnings.iter().find(|r| &r.learning == id) else {
                continue;
            };
            let f = &r.figures;
            outln!(
                "  {id} {}: {} ineffective, {} recurred after shown, {} effective",
                r.title.as_deref().map_or(String::new(), |t| cell(t, 60)),
                f.ineffective,
                f.recurred_after_shown,
                f.effective
            );
        }
    }
}

const HEADINGS: [&str; 7] = Figures::COLUMNS;

fn figures(f: &Figures) -> String {
    HEADINGS
        .iter()
        .zip(f.columns())
        .map(|(h, v)| format!("{v:>width$}", width = h.len()))
        .collect::<Vec<_>>()
        .join("  ")
}

fn by_how(s: &ShownBy) -> String {
    let parts: Vec<String> = [
        ("pre-tool-use", s.pre_tool_use),
        ("deny", s.deny),
        ("prompt", s.prompt),
        ("session-start", s.session_start),
        ("manual", s.manual),
        ("none", s.none),
    ]
    .into_iter()
    .filter(|(_, n)| *n > 0)
    .map(|(via, n)| format!("{via} {n}"))
    .collect();
    if parts.is_empty() {
        "not shown".into()
    } else {
        parts.join(", ")
    }
}
