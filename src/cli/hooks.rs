//! `learnsync hooks install|uninstall claude|opencode|codex [--project] [--dry-run]`:
//! finds the agent's config file the way the agent does, prints the plan's
//! diff, and applies it (with a backup) through `crate::hooks`.

use std::path::{Path, PathBuf};

use super::{CliError, CliResult, exit};
use crate::hooks::{self, HookAgent, HookPlan, Scope};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(clap::Subcommand, Debug)]
enum Action {
    /// Register `learnsync capture` in the agent's configuration (idempotent).
    Install(Target),
    /// Remove exactly the entries `install` added.
    Uninstall(Target),
}

#[derive(clap::Args, Debug)]
struct Target {
    /// claude, opencode or codex.
    #[arg(value_parser = ["claude", "opencode", "codex"])]
    agent: String,
    /// The project's config (in the current directory) instead of the user's.
    #[arg(long)]
    project: bool,
    /// Print the diff and write nothing.
    #[arg(long)]
    dry_run: bool,
}

/// Where the agent itself looks for its user configuration: `CLAUDE_CONFIG_DIR`
/// (else `~/.claude`), `XDG_CONFIG_HOME/opencode` (else `~/.config/opencode`),
/// `CODEX_HOME` (else `~/.codex`).
fn user_path(agent: HookAgent, home: &Path, var: impl Fn(&str) -> Option<String>) -> PathBuf {
    match agent {
        HookAgent::Claude => match var("CLAUDE_CONFIG_DIR") {
            Some(d) => PathBuf::from(d).join("settings.json"),
            None => hooks::target_path(agent, Scope::User, home, home),
        },
        HookAgent::Opencode => match var("XDG_CONFIG_HOME") {
            Some(d) => PathBuf::from(d).join("opencode/plugins/learnsync.js"),
            None => hooks::target_path(agent, Scope::User, home, home),
        },
        HookAgent::Codex => match var("CODEX_HOME") {
            Some(d) => PathBuf::from(d).join("config.toml"),
            None => hooks::target_path(agent, Scope::User, home, home),
        },
    }
}

pub fn run(json: bool, quiet: bool, args: Args) -> CliResult {
    let (install, target) = match args.action {
        Action::Install(t) => (true, t),
        Action::Uninstall(t) => (false, t),
    };
    let agent: HookAgent = target
        .agent
        .parse()
        .map_err(|e: hooks::HookError| CliError::usage(e.to_string()))?;
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let (scope, path) = if target.project {
        let project = std::env::current_dir()
            .map_err(|e| CliError::failure(format!("cannot read the current directory: {e}")))?;
        (
            Scope::Project,
            hooks::target_path(agent, Scope::Project, &project, &project),
        )
    } else {
        let home = var("HOME").ok_or_else(|| {
            CliError::failure("HOME is not set; set it or use --project in the project directory")
        })?;
        (Scope::User, user_path(agent, Path::new(&home), var))
    };
    let plan = if install {
        let bin = std::env::current_exe()
            .and_then(|p| p.canonicalize())
            .map_err(|e| CliError::failure(format!("cannot find the learnsync binary: {e}")))?;
        hooks::plan_install_at(agent, scope, path, &bin)
    } else {
        hooks::plan_uninstall_at(agent, scope, path)
    }
    .map_err(|e| CliError::failure(e.to_string()))?;

    let backup = if target.dry_run {
        None
    } else {
        hooks::apply(&plan).map_err(|e| CliError::failure(e.to_string()))?
    };
    if json {
        super::output::print_json(&serde_json::json!({
            "agent": agent.as_str(),
            "action": if install { "install" } else { "uninstall" },
            "scope": if target.project { "project" } else { "user" },
            "path": plan.path,
            "changed": plan.changes(),
            "dry_run": target.dry_run,
            "diff": plan.diff,
            "backup": backup,
            "notes": plan.notes,
        }));
    } else if !quiet {
        report(&plan, install, target.dry_run, backup.as_deref());
    }
    Ok(exit::OK)
}

fn report(plan: &HookPlan, install: bool, dry_run: bool, backup: Option<&Path>) {
    let path = plan.path.display();
    if !plan.changes() {
        println!(
            "{path}: {}; nothing to change.",
            if install {
                "learnsync capture is already installed"
            } else {
                "no learnsync entries"
            }
        );
    } else {
        print!("{}", plan.diff);
        if dry_run {
            println!("(dry run: {path} not written)");
        } else {
            let verb = if install {
                "Installed in"
            } else {
                "Removed from"
            };
            println!("{verb} {path}.");
            if let Some(b) = backup {
                println!("Backup of the previous file: {}", b.display());
            }
        }
    }
    for note in &plan.notes {
        println!("note: {note}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_homes_follow_the_variables_the_agents_read() {
        let home = Path::new("/h");
        let none = |_: &str| None;
        assert_eq!(
            user_path(HookAgent::Codex, home, none),
            PathBuf::from("/h/.codex/config.toml")
        );
        let codex = |k: &str| (k == "CODEX_HOME").then(|| "/c".to_string());
        assert_eq!(
            user_path(HookAgent::Codex, home, codex),
            PathBuf::from("/c/config.toml")
        );
        let xdg = |k: &str| (k == "XDG_CONFIG_HOME").then(|| "/x".to_string());
        assert_eq!(
            user_path(HookAgent::Opencode, home, xdg),
            PathBuf::from("/x/opencode/plugins/learnsync.js")
        );
        assert_eq!(
            user_path(HookAgent::Claude, home, none),
            PathBuf::from("/h/.claude/settings.json")
        );
    }
}
