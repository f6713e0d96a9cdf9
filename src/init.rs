//! Creating or adopting a learnings dir (`init`, and `sync` on a dir that
//! does not exist yet): a git repository on `agents/<home>` with the default
//! policy, the remotes and hub saved, and every existing file committed as is.

use crate::config::{Config, Env, FileConfig, Flags};
use crate::policy::{POLICY_PATH, Policy};
use crate::repo::{GitError, Repo};
use crate::store::{LearningsDir, Problem};
use std::path::{Path, PathBuf};

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
    /// terraphim stores with learnings elsewhere on this machine, when this
    /// `init` created a new dir instead of adopting one of them.
    pub terraphim_elsewhere: Vec<TerraphimStore>,
}

/// An existing terraphim learnings store, and how to adopt it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TerraphimStore {
    pub path: PathBuf,
    /// The command that adopts it (`learnsync --dir <path> init`).
    pub adopt: String,
}

/// Creates or adopts `root` for the home agent `home`.
pub fn init(
    root: &Path,
    home: &str,
    remotes: &[(String, String)],
    hub: Option<&str>,
    signing_key: Option<&Path>,
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
    // Set first, so the adoption commit is signed too (§5.2).
    if let Some(key) = signing_key {
        text = set_line(
            &text,
            "signing",
            &format!(
                "{{key: {}}}",
                crate::yaml::quote(&key.display().to_string())
            ),
        );
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
    let settings = crate::sync::Settings::of(&repo, &config);
    // What a clone already had committed (a clone of a hub branch: other
    // agents' folders merged from their own branches) is not adopted.
    let committed_before = match repo.head_commit()? {
        Some(head) => Some(repo.commit_tree(head)?),
        None => None,
    };
    let adopted = crate::sync::commit_as_is(&repo, &dir, message, &settings)?;
    let scan = dir.scan();
    let terraphim_elsewhere = if had_files {
        Vec::new()
    } else {
        terraphim_stores_besides(root, &TerraphimPlaces::of_process(env), flags)
    };
    // The folders of an adopted dir are agents this clone writes as (§1):
    // their branches are pushed, so their learnings reach the others. Only
    // the learnings this commit adopted count: a folder a git clone
    // already held is its agent's, on that agent's branch, and hosting it
    // would push that branch from here and merge the folder as ours.
    if had_files {
        let adopted_here = |path: &str| {
            committed_before.is_none_or(|tree| repo.blob_id_at(tree, path).ok().flatten().is_none())
        };
        let agents = (scan.learnings.iter())
            .filter(|l| !l.path.starts_with("shared/") && adopted_here(&l.path))
            .map(|l| l.learning.agent_id.clone());
        crate::sync::add_hosted(&state, home, agents);
    }
    // What was left out is said once, in its own words, not also as a
    // learning that does not parse.
    let mut problems = adopted.left_out;
    let unread: Vec<Problem> = scan
        .problems
        .into_iter()
        .filter(|p| !problems.iter().any(|q| q.path == p.path))
        .collect();
    problems.extend(unread);
    Ok(Initialised {
        commit: adopted.commit.map(|c| c.to_string()),
        learnings: scan.learnings.len(),
        problems,
        redacted: adopted.redacted,
        adopted: had_files,
        terraphim_elsewhere,
    })
}

/// Where terraphim_agent keeps learnings: `TERRAPHIM_LEARNINGS_DIR`,
/// `TERRAPHIM_DEFAULT_DATA_PATH`, the project's `<cwd>/.terraphim/learnings`
/// and the platform data dir's `terraphim/learnings`.
#[derive(Debug, Clone, Default)]
pub struct TerraphimPlaces {
    pub learnings_dir: Option<PathBuf>,
    pub default_data_path: Option<PathBuf>,
    pub cwd: Option<PathBuf>,
    /// The platform data dir (`$XDG_DATA_HOME`, else `~/.local/share`; on
    /// macOS `~/Library/Application Support`).
    pub data_dir: Option<PathBuf>,
}

impl TerraphimPlaces {
    /// The places as this process sees them.
    pub fn of_process(env: &Env) -> TerraphimPlaces {
        let home = env.home.as_deref().map(Path::new);
        let data_dir = if cfg!(target_os = "macos") {
            home.map(|h| h.join("Library/Application Support"))
        } else {
            match (&env.xdg_data_home, home) {
                (Some(x), _) => Some(PathBuf::from(x)),
                (None, Some(h)) => Some(h.join(".local/share")),
                (None, None) => None,
            }
        };
        TerraphimPlaces {
            learnings_dir: env.terraphim_dir.as_deref().map(PathBuf::from),
            default_data_path: std::env::var_os("TERRAPHIM_DEFAULT_DATA_PATH")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
            cwd: std::env::current_dir().ok(),
            data_dir,
        }
    }

    /// The dirs to look in, most specific first. `TERRAPHIM_DEFAULT_DATA_PATH`
    /// is terraphim's data root in some versions and its learnings dir in
    /// others: both are looked at.
    pub fn candidates(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = Vec::new();
        out.extend(self.learnings_dir.clone());
        if let Some(d) = &self.default_data_path {
            out.push(d.clone());
            out.push(d.join("learnings"));
        }
        out.extend(self.cwd.as_ref().map(|c| c.join(".terraphim/learnings")));
        out.extend(
            self.data_dir
                .as_ref()
                .map(|d| d.join("terraphim/learnings")),
        );
        out
    }
}

/// The terraphim stores among `places` that hold learnings, other than
/// `root`, each with the command that adopts it.
pub fn terraphim_stores_besides(
    root: &Path,
    places: &TerraphimPlaces,
    flags: &Flags,
) -> Vec<TerraphimStore> {
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    };
    let mut found: Vec<TerraphimStore> = Vec::new();
    for path in places.candidates() {
        if same(&path, root)
            || found.iter().any(|f| same(&f.path, &path))
            || !holds_learnings(&path)
        {
            continue;
        }
        let agent = flags
            .agent
            .as_deref()
            .map(|a| format!(" --agent {}", crate::hook_install::shell_quote(a)))
            .unwrap_or_default();
        let adopt = format!(
            "learnsync --dir {}{agent} init",
            crate::hook_install::shell_quote(&path.to_string_lossy())
        );
        found.push(TerraphimStore { path, adopt });
    }
    found
}

/// Files looked at, at most, to tell whether a dir holds learnings.
const LOOK_AT_FILES: usize = 256;

/// Whether `dir` (or one of its agent folders) holds a `*.md` file with
/// learning frontmatter: `---`, then an `id:` key before the closing `---`.
fn holds_learnings(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    let mut looked = 0;
    let mut folders = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            if !entry.file_name().to_string_lossy().starts_with('.') {
                folders.push(path);
            }
            continue;
        }
        looked += 1;
        if looked > LOOK_AT_FILES {
            return false;
        }
        if is_learning_file(&path) {
            return true;
        }
    }
    for folder in folders {
        for entry in std::fs::read_dir(folder).into_iter().flatten().flatten() {
            looked += 1;
            if looked > LOOK_AT_FILES {
                return false;
            }
            if is_learning_file(&entry.path()) {
                return true;
            }
        }
    }
    false
}

fn is_learning_file(path: &Path) -> bool {
    use std::io::Read;
    if path.extension().is_none_or(|e| e != "md") {
        return false;
    }
    let mut head = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(16 * 1024).read_to_end(&mut head));
    if read.is_err() {
        return false;
    }
    let text = String::from_utf8_lossy(&head);
    let mut lines = text.trim_start_matches('\u{feff}').lines();
    if lines.next().map(str::trim_end) != Some("---") {
        return false;
    }
    lines
        .take_while(|l| l.trim_end() != "---")
        .any(|l| l.starts_with("id:"))
}

/// Creates the configured learnings dir with the defaults when it does not
/// exist yet (a first run on a fresh machine); true when it did so.
pub fn ensure(config: &Config, flags: &Flags, env: &Env) -> Result<bool, SetupError> {
    let root = &config.dir.value;
    if root.exists() {
        return Ok(false);
    }
    init(root, &config.home_agent.value, &[], None, None, flags, env)?;
    Ok(true)
}

/// Sets a top-level `key: value` in a small YAML file, keeping other lines.
fn set_key(text: &str, key: &str, value: &str) -> String {
    set_line(text, key, &crate::yaml::quote(value))
}

/// Sets top-level `key` to `value`, already YAML.
fn set_line(text: &str, key: &str, value: &str) -> String {
    let line = format!("{key}: {value}");
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
