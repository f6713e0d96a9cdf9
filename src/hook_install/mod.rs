//! `learnsync hooks install|uninstall`: registering `learnsync capture` in an
//! agent's own configuration, planned as a reviewable diff, applied with a backup.
//!
//! Planning is pure (read the file, compute the new text); [`apply`] is the only
//! writer. Every change is idempotent and touches only entries whose command
//! runs `learnsync … capture`; everything else in the file is kept as it was.
//!
//! | agent | user scope | `--project` |
//! |---|---|---|
//! | Claude Code | `~/.claude/settings.json` | `<project>/.claude/settings.json` |
//! | opencode | `~/.config/opencode/plugins/learnsync.js` | `<project>/.opencode/plugins/learnsync.js` |
//! | Codex | `~/.codex/config.toml` | `<project>/.codex/config.toml` |

mod claude;
mod codex;
mod diff;
mod opencode;

use std::fmt;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::str::FromStr;

pub use diff::unified_diff;

/// What `hooks install` says about the agents it cannot hook: they read
/// instruction files, which `learnsync export` writes (docs/export.md).
pub const UNHOOKED_AGENTS: &str = "Agents without hooks (Cursor, Copilot, Gemini CLI, Aider, Windsurf) \
     read instruction files: `learnsync export --format agents-md --to ./AGENTS.md` (docs/export.md).";

/// The agents whose configuration learnsync can register itself in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookAgent {
    Claude,
    Opencode,
    Codex,
}

impl crate::names::Named for HookAgent {
    const ALL: &'static [Self] = &[HookAgent::Claude, HookAgent::Opencode, HookAgent::Codex];
    fn as_str(self) -> &'static str {
        match self {
            HookAgent::Claude => "claude",
            HookAgent::Opencode => "opencode",
            HookAgent::Codex => "codex",
        }
    }
    fn aliases(self) -> &'static [&'static str] {
        match self {
            HookAgent::Claude => &["claude-code"],
            _ => &[],
        }
    }
}

impl HookAgent {
    pub fn as_str(self) -> &'static str {
        crate::names::Named::as_str(self)
    }
}

impl fmt::Display for HookAgent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for HookAgent {
    type Err = HookError;
    fn from_str(s: &str) -> Result<Self, HookError> {
        let name = s.trim().to_ascii_lowercase();
        crate::names::Named::from_name(&name).ok_or(HookError::UnknownAgent(name))
    }
}

/// User-wide (in the home directory) or one project (`--project`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    User,
    Project,
}

/// What an install or uninstall would do to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookPlan {
    pub agent: HookAgent,
    pub scope: Scope,
    /// The file that changes.
    pub path: PathBuf,
    /// Its content now (`None`: it does not exist).
    pub old: Option<String>,
    /// Its content after apply (`None`: remove the file).
    pub new: Option<String>,
    /// A readable unified diff of old → new (empty when nothing changes).
    pub diff: String,
    /// Things the user should know (an existing `notify` left alone, a Codex
    /// trust step, …), one sentence each.
    pub notes: Vec<String>,
}

impl HookPlan {
    /// Whether applying the plan changes anything.
    pub fn changes(&self) -> bool {
        self.old != self.new
    }

    fn new(
        agent: HookAgent,
        scope: Scope,
        path: PathBuf,
        old: Option<String>,
        new: Option<String>,
        notes: Vec<String>,
    ) -> HookPlan {
        let diff = if old == new {
            String::new()
        } else {
            let name = path.display().to_string();
            unified_diff(
                &name,
                old.as_deref().unwrap_or(""),
                new.as_deref().unwrap_or(""),
            )
        };
        HookPlan {
            agent,
            scope,
            path,
            old,
            new,
            diff,
            notes,
        }
    }
}

/// Why a plan or an apply failed.
#[derive(Debug, thiserror::Error)]
pub enum HookError {
    #[error("unknown agent {0:?} (expected claude, opencode or codex)")]
    UnknownAgent(String),
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not valid JSON ({detail}); fix or move it, then run the install again")]
    InvalidJson { path: PathBuf, detail: String },
    #[error("{path} is not valid TOML ({detail}); fix or move it, then run the install again")]
    InvalidToml { path: PathBuf, detail: String },
    #[error("{path}: {detail}; edit it by hand or move it aside, then run the install again")]
    Unsupported { path: PathBuf, detail: String },
    #[error("{path} changed since the plan was made; run the command again")]
    ChangedSincePlan { path: PathBuf },
    #[error("the learnsync path {0} is not valid UTF-8; install learnsync under a UTF-8 path")]
    NonUtf8Bin(PathBuf),
}

pub type Result<T, E = HookError> = std::result::Result<T, E>;

/// Where an agent's configuration lives for a scope.
pub fn target_path(agent: HookAgent, scope: Scope, home_dir: &Path, project_dir: &Path) -> PathBuf {
    match (agent, scope) {
        (HookAgent::Claude, Scope::User) => home_dir.join(".claude/settings.json"),
        (HookAgent::Claude, Scope::Project) => project_dir.join(".claude/settings.json"),
        (HookAgent::Opencode, Scope::User) => {
            home_dir.join(".config/opencode/plugins/learnsync.js")
        }
        (HookAgent::Opencode, Scope::Project) => project_dir.join(".opencode/plugins/learnsync.js"),
        (HookAgent::Codex, Scope::User) => home_dir.join(".codex/config.toml"),
        (HookAgent::Codex, Scope::Project) => project_dir.join(".codex/config.toml"),
    }
}

/// Where the agent itself looks for its user configuration: `CLAUDE_CONFIG_DIR`
/// (else `~/.claude`), `XDG_CONFIG_HOME/opencode` (else `~/.config/opencode`),
/// `CODEX_HOME` (else `~/.codex`).
pub fn user_config_path(
    agent: HookAgent,
    home: &Path,
    var: impl Fn(&str) -> Option<String>,
) -> PathBuf {
    match agent {
        HookAgent::Claude => match var("CLAUDE_CONFIG_DIR") {
            Some(d) => PathBuf::from(d).join("settings.json"),
            None => target_path(agent, Scope::User, home, home),
        },
        HookAgent::Opencode => match var("XDG_CONFIG_HOME") {
            Some(d) => PathBuf::from(d).join("opencode/plugins/learnsync.js"),
            None => target_path(agent, Scope::User, home, home),
        },
        HookAgent::Codex => match var("CODEX_HOME") {
            Some(d) => PathBuf::from(d).join("config.toml"),
            None => target_path(agent, Scope::User, home, home),
        },
    }
}

/// Plan registering `learnsync capture` (at the absolute `learnsync_bin`) in
/// `agent`'s configuration. Reads the target file; writes nothing.
pub fn plan_install(
    agent: HookAgent,
    scope: Scope,
    home_dir: &Path,
    project_dir: &Path,
    learnsync_bin: &Path,
) -> Result<HookPlan> {
    let path = target_path(agent, scope, home_dir, project_dir);
    plan_install_at(agent, scope, path, learnsync_bin)
}

/// [`plan_install`] for an explicit target file (an agent home moved by
/// `CODEX_HOME`, `CLAUDE_CONFIG_DIR` or `XDG_CONFIG_HOME`).
pub fn plan_install_at(
    agent: HookAgent,
    scope: Scope,
    path: PathBuf,
    learnsync_bin: &Path,
) -> Result<HookPlan> {
    let old = read_optional(&path)?;
    let bin = learnsync_bin
        .to_str()
        .ok_or_else(|| HookError::NonUtf8Bin(learnsync_bin.to_path_buf()))?;
    let (new, notes) = match agent {
        HookAgent::Claude => claude::install(&path, old.as_deref(), bin)?,
        HookAgent::Opencode => (Some(opencode::render(bin)), Vec::new()),
        HookAgent::Codex => codex::install(&path, old.as_deref(), bin)?,
    };
    Ok(HookPlan::new(agent, scope, path, old, new, notes))
}

/// Plan removing exactly learnsync's entries from `agent`'s configuration.
pub fn plan_uninstall(
    agent: HookAgent,
    scope: Scope,
    home_dir: &Path,
    project_dir: &Path,
) -> Result<HookPlan> {
    let path = target_path(agent, scope, home_dir, project_dir);
    plan_uninstall_at(agent, scope, path)
}

/// [`plan_uninstall`] for an explicit target file.
pub fn plan_uninstall_at(agent: HookAgent, scope: Scope, path: PathBuf) -> Result<HookPlan> {
    let old = read_optional(&path)?;
    let (new, notes) = match (&old, agent) {
        (None, _) => (None, Vec::new()),
        (Some(text), HookAgent::Claude) => (Some(claude::uninstall(&path, text)?), Vec::new()),
        (Some(text), HookAgent::Codex) => (Some(codex::uninstall(&path, text)?), Vec::new()),
        (Some(text), HookAgent::Opencode) => {
            if opencode::is_ours(text) {
                (None, Vec::new())
            } else {
                (
                    Some(text.clone()),
                    vec![format!(
                        "{} was not written by learnsync; left as it is",
                        path.display()
                    )],
                )
            }
        }
    };
    Ok(HookPlan::new(agent, scope, path, old, new, notes))
}

/// Carry out a plan: back the old file up as `<file>.learnsync.bak` (or
/// `<file>.learnsync.<unix secs>.bak` when that exists), then write the new
/// content atomically (temp file in the same directory, fsync, rename) or
/// remove the file. Returns the backup's path, if one was made. Refuses when
/// the file changed since the plan was made.
pub fn apply(plan: &HookPlan) -> Result<Option<PathBuf>> {
    if !plan.changes() {
        return Ok(None);
    }
    let path = &plan.path;
    if read_optional(path)? != plan.old {
        return Err(HookError::ChangedSincePlan { path: path.clone() });
    }
    let write_err = |source| HookError::Write {
        path: path.clone(),
        source,
    };
    let backup = match &plan.old {
        Some(old) => {
            let backup = backup_path(path);
            fs::write(&backup, old).map_err(write_err)?;
            Some(backup)
        }
        None => None,
    };
    match &plan.new {
        None => fs::remove_file(path).map_err(write_err)?,
        Some(new) => {
            let dir = path.parent().unwrap_or(Path::new("."));
            fs::create_dir_all(dir).map_err(write_err)?;
            let file_name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let tmp = dir.join(format!(".{file_name}.learnsync.tmp.{}", std::process::id()));
            let result = (|| {
                let mut f = fs::File::create(&tmp)?;
                f.write_all(new.as_bytes())?;
                f.sync_all()?;
                if let Ok(meta) = fs::metadata(path) {
                    fs::set_permissions(&tmp, meta.permissions())?;
                }
                fs::rename(&tmp, path)
            })();
            if let Err(e) = result {
                let _ = fs::remove_file(&tmp);
                return Err(write_err(e));
            }
        }
    }
    Ok(backup)
}

fn backup_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let plain = path.with_file_name(format!("{name}.learnsync.bak"));
    if !plain.exists() {
        return plain;
    }
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    path.with_file_name(format!("{name}.learnsync.{secs}.bak"))
}

fn read_optional(path: &Path) -> Result<Option<String>> {
    match fs::read_to_string(path) {
        Ok(s) => Ok(Some(s)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(HookError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Quote a word for a POSIX shell command line (agents run hook commands
/// through `sh -c`). Plain paths stay unquoted.
pub(crate) fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word.chars().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(c, '/' | '.' | '_' | '-' | '+' | ':' | '=' | '@' | ',')
        });
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Whether a hook command string is one learnsync installed: its program is
/// a `learnsync` binary and it runs the `capture` subcommand.
pub(crate) fn is_our_command(command: &str) -> bool {
    let cmd = command.trim_start();
    let (first, rest) = match cmd.chars().next() {
        Some(q @ ('\'' | '"')) => match cmd[1..].find(q) {
            Some(end) => (&cmd[1..1 + end], &cmd[2 + end..]),
            None => return false,
        },
        _ => match cmd.find(char::is_whitespace) {
            Some(end) => (&cmd[..end], &cmd[end..]),
            None => (cmd, ""),
        },
    };
    let name = first.rsplit(['/', '\\']).next().unwrap_or(first);
    (name == "learnsync" || name == "learnsync.exe")
        && rest.split_whitespace().any(|w| w == "capture")
}

/// The command an agent runs for a capture hook.
pub(crate) fn capture_command(bin: &str, format: &str) -> String {
    format!("{} capture --format {format}", shell_quote(bin))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn agent_homes_follow_the_variables_the_agents_read() {
        let home = Path::new("/h");
        let none = |_: &str| None;
        assert_eq!(
            user_config_path(HookAgent::Codex, home, none),
            PathBuf::from("/h/.codex/config.toml")
        );
        let codex = |k: &str| (k == "CODEX_HOME").then(|| "/c".to_string());
        assert_eq!(
            user_config_path(HookAgent::Codex, home, codex),
            PathBuf::from("/c/config.toml")
        );
        let xdg = |k: &str| (k == "XDG_CONFIG_HOME").then(|| "/x".to_string());
        assert_eq!(
            user_config_path(HookAgent::Opencode, home, xdg),
            PathBuf::from("/x/opencode/plugins/learnsync.js")
        );
        assert_eq!(
            user_config_path(HookAgent::Claude, home, none),
            PathBuf::from("/h/.claude/settings.json")
        );
    }
}
