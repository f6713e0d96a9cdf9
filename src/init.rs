//! Creating or adopting a learnings dir (`init`, and `sync` on a dir that
//! does not exist yet): a git repository on `agents/<home>` with the default
//! policy, the remotes and hub saved, and every existing file committed as is.

use crate::config::{Config, Env, FileConfig, Flags};
use crate::policy::{POLICY_PATH, Policy};
use crate::repo::{GitError, Repo};
use crate::store::{LearningsDir, Problem};
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("{0}")]
    Git(#[from] GitError),
    #[error("{0}")]
    Config(#[from] crate::config::ConfigError),
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    #[error("{0}")]
    Busy(#[from] crate::store::LockError),
    #[error("{0}")]
    GitLockHeld(#[from] crate::repo::locks::Held),
    #[error(
        "{path} is already a git repository on branch {branch}; learnsync works on agents/{agent}"
    )]
    OtherBranch {
        path: String,
        branch: String,
        agent: String,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> SetupError + '_ {
    move |e| SetupError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// What `init` did.
#[derive(Debug)]
pub struct Initialised {
    pub commit: Option<String>,
    pub learnings: usize,
    pub problems: Vec<Problem>,
    pub redacted: Vec<String>,
    pub adopted: bool,
}

/// Creates or adopts `root` for the home agent `home`.
pub fn init(
    root: &Path,
    home: &str,
    remotes: &[(String, String)],
    hub: Option<&str>,
    flags: &Flags,
    env: &Env,
) -> Result<Initialised, SetupError> {
    if root.exists() && !root.is_dir() {
        return Err(SetupError::Io {
            path: root.display().to_string(),
            message: "exists and is not a directory".into(),
        });
    }
    let had_files = std::fs::read_dir(root).is_ok_and(|mut d| d.next().is_some());
    std::fs::create_dir_all(root).map_err(io(root))?;
    let branch = crate::paths::agent_branch(home);
    let mut repo = Repo::init(root, &branch)?;
    // Adopting a dir of 100,000 learnings writes as many blobs: held and
    // written as one pack, like a sync's, not one loose file (and one
    // compressor) each, which also fragmented the heap to ~0.4 MB a blob.
    repo.hold_objects();
    if let Some(current) = repo.head_branch()?
        && repo.head_commit()?.is_some()
        && current != branch
    {
        return Err(SetupError::OtherBranch {
            path: root.display().to_string(),
            branch: current,
            agent: home.to_string(),
        });
    }

    let dir = LearningsDir::new(root);
    let state = dir.state();
    std::fs::create_dir_all(state.inbox()).map_err(io(state.path()))?;
    // Adopting commits like a sync does: not beside a running sync, and not
    // over a lock a killed process left.
    let _lock = crate::store::SyncLock::acquire(
        &state.sync_lock(),
        std::time::Duration::from_secs(30),
        "learnsync init",
    )?;
    crate::repo::locks::recover(
        repo.git_dir(),
        &state.stale_locks(),
        std::time::Duration::from_secs(30),
    )?;
    let config_path = state.config();
    let existing = std::fs::read_to_string(&config_path).unwrap_or_default();
    FileConfig::parse(&existing).map_err(|message| SetupError::Io {
        path: config_path.display().to_string(),
        message,
    })?;
    let hub = hub
        .map(str::to_string)
        .or_else(|| remotes.first().map(|(n, _)| n.clone()));
    let mut text = set_key(&existing, "agent", home);
    if let Some(hub) = &hub {
        text = set_key(&text, "hub", hub);
    }
    crate::store::atomic_write(&config_path, text.as_bytes()).map_err(io(&config_path))?;
    for (name, url) in remotes {
        repo.set_remote(name, url)?;
    }
    if !root.join(POLICY_PATH).exists() {
        repo.write_file(POLICY_PATH, Policy::default_file().as_bytes())?;
    }

    let config = Config::load(
        &Flags {
            dir: Some(root.to_path_buf()),
            ..flags.clone()
        },
        env,
    )?;
    let message = if had_files {
        "learnsync: adopt the learnings dir"
    } else {
        "learnsync: init"
    };
    let (commit, redacted) = crate::sync::commit_as_is(&repo, &dir, message, &config)?;
    let scan = dir.scan();
    // The folders of an adopted dir are agents this clone writes as (§1):
    // their branches are pushed, so their learnings reach the others.
    if had_files {
        let agents = (scan.learnings.iter())
            .filter(|l| !l.path.starts_with("shared/"))
            .map(|l| l.learning.agent_id.clone());
        crate::sync::add_hosted(&state, home, agents);
    }
    Ok(Initialised {
        commit: commit.map(|c| c.to_string()),
        learnings: scan.learnings.len(),
        problems: scan.problems,
        redacted,
        adopted: had_files,
    })
}

/// Creates the configured learnings dir with the defaults when it does not
/// exist yet (a first run on a fresh machine); true when it did so.
pub fn ensure(config: &Config, flags: &Flags, env: &Env) -> Result<bool, SetupError> {
    let root = &config.dir.value;
    if root.exists() {
        return Ok(false);
    }
    init(root, &config.home_agent.value, &[], None, flags, env)?;
    Ok(true)
}

/// Sets a top-level `key: value` in a small YAML file, keeping other lines.
fn set_key(text: &str, key: &str, value: &str) -> String {
    let line = format!("{key}: {}", crate::yaml::quote(value));
    let prefix = format!("{key}:");
    let mut found = false;
    let mut out: Vec<String> = text
        .lines()
        .map(|l| {
            if l.starts_with(&prefix) {
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
