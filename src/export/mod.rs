//! `learnsync export`: trusted learnings where every agent already looks —
//! a marked block in an instruction file (`AGENTS.md`, `CLAUDE.md`,
//! `.github/copilot-instructions.md`, a Cursor rule) or one skill per topic
//! (`<dir>/learnsync-<topic>/SKILL.md` and `provenance.json`). What is
//! chosen is pure (`select`), so is what is written (`render`, `splice`);
//! this module reads the view and writes files, each only when its bytes
//! change, so a second run with nothing new touches nothing.

pub mod render;
pub mod select;
pub mod splice;

use crate::config::Config;
use crate::learning::TrustLevel;
use crate::store::LearningsDir;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The kinds of file an export writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// `AGENTS.md`: Codex, opencode, Gemini CLI, Aider, Cursor, Windsurf, …
    AgentsMd,
    /// `CLAUDE.md`: Claude Code.
    ClaudeMd,
    /// `.github/copilot-instructions.md`: GitHub Copilot.
    Copilot,
    /// `.cursor/rules/learnsync.mdc`: Cursor's project rules.
    Cursor,
    /// `SKILL.md` folders: Claude Code, opencode, Codex.
    Skills,
}

impl crate::names::Named for Format {
    const ALL: &'static [Self] = &[
        Format::AgentsMd,
        Format::ClaudeMd,
        Format::Copilot,
        Format::Cursor,
        Format::Skills,
    ];
    fn as_str(self) -> &'static str {
        match self {
            Format::AgentsMd => "agents-md",
            Format::ClaudeMd => "claude-md",
            Format::Copilot => "copilot",
            Format::Cursor => "cursor",
            Format::Skills => "skills",
        }
    }
}

impl Format {
    /// Where the format's file (or skills dir) goes in a repository checkout.
    pub fn default_path(self) -> &'static str {
        match self {
            Format::AgentsMd => "AGENTS.md",
            Format::ClaudeMd => "CLAUDE.md",
            Format::Copilot => ".github/copilot-instructions.md",
            Format::Cursor => ".cursor/rules/learnsync.mdc",
            Format::Skills => ".claude/skills",
        }
    }
}

/// What the user asked for.
#[derive(Debug, Clone)]
pub struct ExportOptions {
    pub format: Format,
    /// The file (or, for skills, the dir) to write; relative paths are the
    /// caller's to resolve.
    pub to: PathBuf,
    pub min_trust: TrustLevel,
    pub project: Option<String>,
    pub dry_run: bool,
}

/// What an export did (or, dry, would do).
#[derive(Debug, Clone, Serialize)]
pub struct ExportReport {
    pub format: Format,
    pub to: PathBuf,
    pub dry_run: bool,
    /// Files written (or that a real run would write), absolute.
    pub written: Vec<PathBuf>,
    /// Generated skill folders removed: their learnings fell below the bar.
    pub removed: Vec<PathBuf>,
    /// The learnings exported, best first.
    pub shown: Vec<String>,
    /// Learnings that qualified but did not fit the size cap.
    pub left_out_for_size: usize,
    /// Learnings at or above the trust asked for that were left out, by why.
    pub left_out: BTreeMap<String, usize>,
}

/// Why an export could not be done.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{path}:{line}: {message}; fix or remove the marker (nothing was written)")]
    Markers {
        path: String,
        line: usize,
        message: String,
    },
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    #[error("--min-trust {0}: only L2 and L3 learnings are exported")]
    Trust(TrustLevel),
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> ExportError + '_ {
    move |e| ExportError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// Exports the dir's learnings as `options` says.
pub fn export(
    dir: &LearningsDir,
    config: &Config,
    options: &ExportOptions,
) -> Result<ExportReport, ExportError> {
    if options.min_trust < TrustLevel::L2 {
        return Err(ExportError::Trust(options.min_trust));
    }
    let view = crate::view::load(dir, config.hub_name());
    let policy = view.policy.clone();
    let rules = select::Rules {
        min_trust: options.min_trust,
        project: options.project.as_deref(),
        stale_after_days: policy.stale_after_days,
        now: crate::timestamp::Timestamp::now(),
    };
    let mut left_out: BTreeMap<String, usize> = BTreeMap::new();
    let mut chosen: Vec<&crate::learning::Learning> = Vec::new();
    for loaded in &view.learnings {
        let l = &loaded.learning;
        match select::check(l, view.is_pulled(&l.id), &rules) {
            Ok(()) => chosen.push(l),
            Err(select::LeftOut::BelowTrust) => {}
            Err(why) => *left_out.entry(reason(why)).or_default() += 1,
        }
    }
    chosen.sort_by(|a, b| select::order(a, b));
    let items: Vec<render::Item<'_>> = chosen
        .into_iter()
        .map(|l| render::Item {
            learning: l,
            review_pull_request: match view.review_state(l) {
                crate::view::ReviewState::Approved { pull_request } => pull_request,
                _ => None,
            },
        })
        .collect();
    let mut report = ExportReport {
        format: options.format,
        to: options.to.clone(),
        dry_run: options.dry_run,
        written: Vec::new(),
        removed: Vec::new(),
        shown: Vec::new(),
        left_out_for_size: 0,
        left_out,
    };
    let max = policy.export.max_chars;
    match options.format {
        Format::Skills => {
            let skills = render::skills(&items, options.min_trust, max);
            report.shown = skills.shown;
            report.left_out_for_size = skills.left_out;
            write_skills(&options.to, &skills.skills, options.dry_run, &mut report)?;
        }
        format => {
            let block = render::block(&items, options.min_trust, max);
            report.shown = block.shown;
            report.left_out_for_size = block.left_out;
            let existing = match std::fs::read(&options.to) {
                Ok(bytes) => Some(bytes),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => return Err(io(&options.to)(e)),
            };
            let mut text = block.text;
            if existing.is_none() && format == Format::Cursor {
                text = format!(
                    "---\ndescription: Lessons learned by this team's coding agents (learnsync)\nalwaysApply: true\n---\n\n{text}"
                );
            }
            let bytes =
                splice::splice(existing.as_deref(), &text).map_err(|bad| ExportError::Markers {
                    path: options.to.display().to_string(),
                    line: bad.line,
                    message: bad.message,
                })?;
            if existing.as_deref() != Some(&bytes[..]) {
                if !options.dry_run {
                    write(&options.to, &bytes)?;
                }
                report.written.push(options.to.clone());
            }
        }
    }
    Ok(report)
}

fn reason(why: select::LeftOut) -> String {
    match why {
        select::LeftOut::BelowTrust => "below the trust asked for".into(),
        select::LeftOut::Rejected => "rejected in review".into(),
        select::LeftOut::Pulled => "pulled by an open problem report".into(),
        select::LeftOut::Risky(r) => format!("risky: {r}"),
        select::LeftOut::Stale => "stale (no recent evidence)".into(),
        select::LeftOut::OtherProject => "another project".into(),
    }
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), ExportError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(io(parent))?;
    }
    crate::store::atomic_write(path, bytes).map_err(io(path))
}

/// Writes each skill whose bytes changed, and removes the generated skill
/// folders no longer wanted (only folders whose `provenance.json` says
/// learnsync made them; a file of the user's in one is left, and so is
/// the folder then).
fn write_skills(
    root: &Path,
    skills: &[render::Skill],
    dry_run: bool,
    report: &mut ExportReport,
) -> Result<(), ExportError> {
    for skill in skills {
        // `folder` is `learnsync-` and a slug: one plain name, checked
        // again here because it becomes a path.
        if !is_plain_name(&skill.folder) {
            return Err(ExportError::Io {
                path: skill.folder.clone(),
                message: "not a plain folder name".into(),
            });
        }
        let folder = root.join(&skill.folder);
        for (name, bytes) in [
            ("SKILL.md", skill.skill_md.as_bytes()),
            ("provenance.json", skill.provenance.as_bytes()),
        ] {
            let path = folder.join(name);
            if std::fs::read(&path).ok().as_deref() != Some(bytes) {
                if !dry_run {
                    write(&path, bytes)?;
                }
                report.written.push(path);
            }
        }
    }
    let wanted: Vec<&str> = skills.iter().map(|s| s.folder.as_str()).collect();
    let Ok(entries) = std::fs::read_dir(root) else {
        return Ok(());
    };
    let mut stale: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with("learnsync-") && !wanted.contains(&name.as_str())
        })
        .map(|e| e.path())
        .filter(|p| is_ours(p))
        .collect();
    stale.sort();
    for folder in stale {
        if !dry_run {
            for name in ["SKILL.md", "provenance.json"] {
                let path = folder.join(name);
                if let Err(e) = std::fs::remove_file(&path)
                    && e.kind() != std::io::ErrorKind::NotFound
                {
                    return Err(io(&path)(e));
                }
            }
            // Empty now unless the user kept something there.
            let _ = std::fs::remove_dir(&folder);
        }
        report.removed.push(folder);
    }
    Ok(())
}

fn is_plain_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// A folder learnsync generated: its `provenance.json` names us.
fn is_ours(folder: &Path) -> bool {
    std::fs::read_to_string(folder.join("provenance.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .is_some_and(|v| v["generator"] == render::GENERATOR)
}

#[cfg(test)]
mod tests {
    use super::Format;
    use crate::names::Named;

    #[test]
    fn the_formats_config_accepts_are_exactly_these() {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.as_str()).collect();
        assert_eq!(names, crate::config::EXPORT_FORMATS);
    }
}
