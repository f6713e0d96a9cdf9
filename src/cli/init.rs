//! `learnsync init`: create or adopt a learnings dir as a git repository on
//! `agents/<home>`, with the default policy, remotes and hub saved.

use super::{CliError, CliResult, Context, exit};
use crate::config::FileConfig;
use crate::policy::{POLICY_PATH, Policy};
use crate::repo::Repo;
use serde_json::json;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A git remote that sync fetches from and pushes to (repeatable).
    #[arg(long = "remote", value_name = "NAME=URL")]
    remotes: Vec<String>,
    /// The remote whose `main` holds approved reviews (default: the first remote).
    #[arg(long, value_name = "NAME")]
    hub: Option<String>,
}

fn parse_remote(spec: &str) -> Result<(String, String), CliError> {
    let (name, url) = spec
        .split_once('=')
        .filter(|(n, u)| !n.is_empty() && !u.is_empty())
        .ok_or_else(|| CliError::usage(format!("--remote {spec:?}: expected NAME=URL")))?;
    crate::paths::validate_agent(name).map_err(|_| {
        CliError::usage(format!(
            "--remote {spec:?}: remote name {name:?} may use only letters, digits, '_', '.' and '-'"
        ))
    })?;
    Ok((name.to_string(), url.to_string()))
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    let remotes: Vec<(String, String)> = args
        .remotes
        .iter()
        .map(|s| parse_remote(s))
        .collect::<Result<_, _>>()?;
    // At init, `--agent` names the home agent (§10).
    let home = ctx
        .flags
        .agent
        .clone()
        .unwrap_or_else(|| ctx.config.home_agent.value.clone());
    crate::paths::validate_agent(&home).map_err(|e| CliError::usage(e.to_string()))?;
    let root = ctx.config.dir.value.clone();
    if root.exists() && !root.is_dir() {
        return Err(CliError::failure(format!(
            "{} exists and is not a directory",
            root.display()
        )));
    }
    std::fs::create_dir_all(&root)
        .map_err(|e| CliError::failure(format!("cannot create {}: {e}", root.display())))?;
    let adopting = !root.join(".git").exists();
    let repo = Repo::init(&root, &format!("agents/{home}"))?;
    if let Some(branch) = repo.head_branch()?
        && repo.head_commit()?.is_some()
        && branch != format!("agents/{home}")
    {
        return Err(CliError::failure(format!(
            "{} is already a git repository on branch {branch}; learnsync works on agents/{home}",
            root.display()
        )));
    }

    // Local state and the repo config (home agent, hub).
    let state = root.join(".git").join("learnsync");
    std::fs::create_dir_all(state.join("inbox"))?;
    let config_path = state.join("config.yaml");
    let existing = std::fs::read_to_string(&config_path).unwrap_or_default();
    FileConfig::parse(&existing)
        .map_err(|e| CliError::failure(format!("{}: {e}", config_path.display())))?;
    let hub = args
        .hub
        .clone()
        .or_else(|| remotes.first().map(|(n, _)| n.clone()));
    let mut text = set_key(&existing, "agent", &home);
    if let Some(hub) = &hub {
        text = set_key(&text, "hub", hub);
    }
    crate::store::atomic_write(&config_path, text.as_bytes())?;

    for (name, url) in &remotes {
        repo.set_remote(name, url)?;
    }
    let policy = root.join(POLICY_PATH);
    if !policy.exists() {
        repo.write_file(POLICY_PATH, Policy::default_file().as_bytes())?;
    }

    let config = crate::config::Config::load(&ctx.flags, &ctx.env)?;
    let message = if adopting {
        "learnsync: adopt the learnings dir"
    } else {
        "learnsync: init"
    };
    let (commit, redacted) = crate::sync::commit_as_is(&repo, message, &config)?;
    let scan = crate::store::LearningsDir::new(root.clone()).scan();
    for p in &scan.problems {
        eprintln!("learnsync: warning: {}: {}", p.path, p.message);
    }
    for path in &redacted {
        eprintln!("learnsync: warning: {path}: secrets were redacted before the commit");
    }
    if ctx.json {
        super::output::print_json(&json!({
            "dir": root.display().to_string(),
            "agent": home,
            "branch": format!("agents/{home}"),
            "commit": commit.map(|c| c.to_string()),
            "learnings": scan.learnings.len(),
            "problems": scan.problems,
            "remotes": remotes.iter().map(|(n, u)| json!({"name": n, "url": u})).collect::<Vec<_>>(),
            "hub": hub,
        }));
    } else {
        ctx.say(format!(
            "Initialised {} on agents/{home}: {} learning(s){}.",
            root.display(),
            scan.learnings.len(),
            if scan.problems.is_empty() {
                String::new()
            } else {
                format!(
                    ", {} unreadable file(s) kept as they are",
                    scan.problems.len()
                )
            }
        ));
    }
    Ok(exit::OK)
}

/// Sets a top-level `key: value` in a small YAML file, keeping other lines.
fn set_key(text: &str, key: &str, value: &str) -> String {
    let line = format!("{key}: {}", crate::yaml::quote(value));
    let mut found = false;
    let mut out: Vec<String> = text
        .lines()
        .map(|l| {
            if l.starts_with(&format!("{key}:")) {
                found = true;
                line.clone()
            } else {
                l.to_string()
            }
        })
        .collect();
    if !found {
        out.push(line);
    }
    out.join("\n") + "\n"
}
