//! `learnsync hooks install|uninstall claude|opencode|codex [--project] [--dry-run]`:
//! asks `crate::hook_install` where the agent's config file is and for the plan,
//! prints the plan's diff, and applies it (with a backup).

use super::stdout::{out, outln};
use std::path::Path;

use super::{CliError, CliResult, exit, named};
use crate::hook_install::{self, HookAgent, HookPlan, Scope};

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
    /// The agent whose configuration to change.
    #[arg(id = "hook_agent", value_name = "AGENT", value_parser = named::<HookAgent>())]
    agent: HookAgent,
    /// The project's config (in the current directory) instead of the user's.
    #[arg(long)]
    project: bool,
    /// Print the diff and write nothing.
    #[arg(long)]
    dry_run: bool,
}

pub fn run(json: bool, quiet: bool, args: Args) -> CliResult {
    let (install, target) = match args.action {
        Action::Install(t) => (true, t),
        Action::Uninstall(t) => (false, t),
    };
    let agent = target.agent;
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let (scope, path) = if target.project {
        let project = std::env::current_dir()
            .map_err(|e| CliError::failure(format!("cannot read the current directory: {e}")))?;
        (
            Scope::Project,
            hook_install::target_path(agent, Scope::Project, &project, &project),
        )
    } else {
        let home = var("HOME").ok_or_else(|| {
            CliError::failure("HOME is not set; set it or use --project in the project directory")
        })?;
        (
            Scope::User,
            hook_install::user_config_path(agent, Path::new(&home), var),
        )
    };
    let plan = if install {
        let bin = std::env::current_exe()
            .and_then(|p| p.canonicalize())
            .map_err(|e| CliError::failure(format!("cannot find the learnsync binary: {e}")))?;
        hook_install::plan_install_at(agent, scope, path, &bin)
    } else {
        hook_install::plan_uninstall_at(agent, scope, path)
    }
    .map_err(|e| CliError::failure(e.to_string()))?;

    let backup = if target.dry_run {
        None
    } else {
        hook_install::apply(&plan).map_err(|e| CliError::failure(e.to_string()))?
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
            "unhooked_agents": install.then_some(hook_install::UNHOOKED_AGENTS),
        }));
    } else if !quiet {
        report(&plan, install, target.dry_run, backup.as_deref());
    }
    Ok(exit::OK)
}

fn report(plan: &HookPlan, install: bool, dry_run: bool, backup: Option<&Path>) {
    let path = plan.path.display();
    if !plan.changes() {
        outln!(
            "{path}: {}; nothing to change.",
            if install {
                "learnsync capture is already installed"
            } else {
                "no learnsync entries"
            }
        );
    } else {
        out!("{}", plan.diff);
        if dry_run {
            outln!("(dry run: {path} not written)");
        } else {
            let verb = if install {
                "Installed in"
            } else {
                "Removed from"
            };
            outln!("{verb} {path}.");
            if let Some(b) = backup {
                outln!("Backup of the previous file: {}", b.display());
            }
        }
    }
    for note in &plan.notes {
        outln!("note: {note}");
    }
    if install {
        outln!("{}", hook_install::UNHOOKED_AGENTS);
    }
}
