//! `learnsync init`: create or adopt a learnings dir as a git repository on
//! `agents/<home>`, with the default policy, remotes and hub saved.

use super::{CliError, CliResult, Context, exit};
use serde_json::json;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A git remote that sync fetches from and pushes to (repeatable).
    #[arg(long = "remote", value_name = "NAME=URL")]
    remotes: Vec<String>,
    /// The remote whose `main` holds approved reviews (default: the first remote).
    #[arg(long, value_name = "NAME")]
    hub: Option<String>,
    /// Sign this agent's commits with this SSH key (`signing.key`): a private
    /// key file, or its `.pub` when ssh-agent holds it; ssh-ed25519 only.
    #[arg(long, value_name = "PATH")]
    signing_key: Option<std::path::PathBuf>,
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
    let root = ctx.config.dir.value.clone();
    // The key must be one the roster can name: its public half, now.
    let signing = args
        .signing_key
        .as_deref()
        .map(|path| {
            let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
            crate::signing::public_half(&path)
                .map(|public| (path, public))
                .map_err(|why| CliError::usage(format!("--signing-key: {why}")))
        })
        .transpose()?;
    let done = crate::init::init(
        &root,
        &home,
        &remotes,
        args.hub.as_deref(),
        signing.as_ref().map(|(path, _)| path.as_path()),
        &ctx.flags,
        &ctx.env,
    )
    .map_err(|e| CliError::failure(e.to_string()))?;
    for p in &done.problems {
        eprintln!("learnsync: warning: {}: {}", p.path, p.message);
    }
    if let Some((path, public)) = &signing {
        eprintln!(
            "learnsync: note: agents/{home}'s commits are signed with {} ({}). Other clones check them once the roster on main names the key: add\n  - {{name: {home}, signing_key: \"{}\"}}\nto `agents:` in .learnsync/policy.yaml through a pull request to main (docs/security.md).",
            path.display(),
            public.fingerprint(),
            public.openssh()
        );
    }
    for path in &done.redacted {
        eprintln!("learnsync: warning: {path}: secrets were redacted before the commit");
    }
    for store in &done.terraphim_elsewhere {
        eprintln!(
            "learnsync: note: {} holds terraphim learnings; {} was created instead. To sync those learnings, adopt that dir: {}",
            store.path.display(),
            root.display(),
            store.adopt
        );
    }
    if ctx.json {
        super::output::print_json(&json!({
            "dir": root.display().to_string(),
            "agent": home,
            "branch": crate::paths::agent_branch(&home),
            "commit": done.commit,
            "learnings": done.learnings,
            "problems": done.problems,
            "remotes": remotes.iter().map(|(n, u)| json!({"name": n, "url": u})).collect::<Vec<_>>(),
        }));
    } else {
        ctx.say(format!(
            "{} {} on agents/{home}: {} learning(s){}.",
            if done.adopted {
                "Adopted"
            } else {
                "Initialised"
            },
            root.display(),
            done.learnings,
            if done.problems.is_empty() {
                String::new()
            } else {
                format!(
                    ", {} unreadable file(s) kept as they are",
                    done.problems.len()
                )
            }
        ));
    }
    Ok(exit::OK)
}
