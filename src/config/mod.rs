//! Configuration with the precedence of DESIGN.md §10: flags, environment,
//! `.git/learnsync/config.yaml`, `~/.config/learnsync/config.yaml`, defaults.
//!
//! One table, [`KEYS`], says for every key its place in the files, its
//! environment variable, its default, its type and whether it is secret; it
//! drives reading the files (an unknown key is an error naming it), the
//! resolution, and `learnsync config`'s rows. Adding a key is a table row
//! and a typed field. Every value remembers where it came from.

mod gitea;

pub use gitea::{GiteaUse, MissingSetting};

use serde_norway::Value;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// Where an effective value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Flag,
    Env(&'static str),
    RepoFile,
    UserFile,
    Default,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Flag => f.write_str("flag"),
            Source::Env(var) => write!(f, "env {var}"),
            Source::RepoFile => f.write_str(".git/learnsync/config.yaml"),
            Source::UserFile => f.write_str("~/.config/learnsync/config.yaml"),
            Source::Default => f.write_str("default"),
        }
    }
}

/// A value and its source.
#[derive(Debug, Clone)]
pub struct Sourced<T> {
    pub value: T,
    pub source: Source,
}

/// What a key's value must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    Text,
    Agent,
    Path,
    Count,
    Bool,
    List,
    Cron,
    Watch,
    Remotes,
    Address,
    ExportTargets,
}

impl Type {
    fn expected(self) -> &'static str {
        match self {
            Type::Text => "a string",
            Type::Agent => "an agent name (letters, digits, '_', '.', '-')",
            Type::Path => "a path",
            Type::Count => "a whole number",
            Type::Bool => "true or false",
            Type::List => "a list of strings",
            Type::Cron => "a schedule (a crontab line, or `off`)",
            Type::Watch => "one of auto, on, off",
            Type::Remotes => "a list of {name, fetch, push}",
            Type::Address => "an address and port (127.0.0.1:9477, [::1]:9477, or a port alone)",
            Type::ExportTargets => {
                "a list of {format, to, min_trust, project} (`to` absolute or ~/…)"
            }
        }
    }
}

/// One configuration key.
#[derive(Debug)]
pub struct Key {
    /// Its dotted place in the YAML files (`gitea.url`).
    pub name: &'static str,
    /// Its environment variable, if it has one.
    pub env: Option<&'static str>,
    /// Only from the environment, never from a file (the token).
    pub env_only: bool,
    pub ty: Type,
    /// Its default as `learnsync config` shows it.
    pub default: Option<&'static str>,
    /// What is used when it is unset, in words, where that is no one value
    /// (`remotes`: every git remote).
    pub described: Option<&'static str>,
    /// Shown as "(set, not shown)".
    pub secret: bool,
}

const fn key(name: &'static str, ty: Type) -> Key {
    Key {
        name,
        env: None,
        env_only: false,
        ty,
        default: None,
        described: None,
        secret: false,
    }
}

impl Key {
    const fn env(mut self, var: &'static str) -> Key {
        self.env = Some(var);
        self
    }
    const fn default(mut self, value: &'static str) -> Key {
        self.default = Some(value);
        self
    }
    const fn described(mut self, what: &'static str) -> Key {
        self.described = Some(what);
        self
    }
    const fn secret(mut self) -> Key {
        self.secret = true;
        self
    }
    const fn env_only(mut self) -> Key {
        self.env_only = true;
        self
    }
}

pub const AGENT: Key = key("agent", Type::Agent).env("LEARNSYNC_AGENT");
pub const HUB: Key = key("hub", Type::Text);
pub const REMOTES: Key =
    key("remotes", Type::Remotes).described("every git remote, fetch and push");
pub const GITEA_URL: Key = key("gitea.url", Type::Text).env("LEARNSYNC_GITEA_URL");
pub const GITEA_REPO: Key = key("gitea.repo", Type::Text).env("LEARNSYNC_GITEA_REPO");
pub const GITEA_TOKEN: Key = key("gitea.token", Type::Text)
    .env("GITEA_TOKEN")
    .env_only()
    .secret();
pub const GITEA_TOKEN_FILE: Key = key("gitea.token_file", Type::Path);
pub const GITEA_TOKEN_COMMAND: Key = key("gitea.token_command", Type::Text).secret();
pub const WIKI_GIT_URL: Key = key("wiki.git_url", Type::Text);
pub const WIKI_BRANCH: Key = key("wiki.branch", Type::Text).described("the wiki remote's HEAD");
pub const WIKI_TEMPLATE_DIR: Key =
    key("wiki.template_dir", Type::Path).described("the built-in templates");
// Every minute: with the capture debounce, a correction learned on one
// machine reaches the others within about a minute (docs/daemon.md).
pub const SCHEDULE_SYNC: Key = key("schedule.sync", Type::Cron).default("* * * * *");
pub const SCHEDULE_PUBLISH: Key = key("schedule.publish", Type::Cron).default("0 * * * *");
pub const SCHEDULE_REVIEW: Key = key("schedule.review", Type::Cron).default("30 * * * *");
// After sync, review and publish: what is exported is what was just merged
// and reviewed.
pub const SCHEDULE_EXPORT: Key = key("schedule.export", Type::Cron).default("45 * * * *");
pub const EXPORT_TARGETS: Key = key("export.targets", Type::ExportTargets);
pub const CAPTURE_IGNORE: Key = key("capture.ignore", Type::List);
/// The home agent's SSH key, for `ssh-keygen -Y sign` (§5.2): a private
/// key file, or a public one whose private half ssh-agent holds.
pub const SIGNING_KEY: Key = key("signing.key", Type::Path).env("LEARNSYNC_SIGNING_KEY");
/// Default: the home agent's name.
pub const AUTHOR_NAME: Key = key("author.name", Type::Text);
/// Default: `<home agent>@learnsync.invalid`.
pub const AUTHOR_EMAIL: Key = key("author.email", Type::Text);
pub const LOCK_WAIT_SECS: Key = key("lock_wait_secs", Type::Count).default("30");
pub const WATCH: Key = key("watch", Type::Watch).default("auto");
pub const REVIEW_MAX_OPEN: Key = key("review.max_open", Type::Count).default("10");
pub const REVIEW_MAX_NEW_PER_RUN: Key = key("review.max_new_per_run", Type::Count).default("5");
pub const DAEMON_DEBOUNCE_SECS: Key = key("daemon.debounce_secs", Type::Count).default("30");
pub const DAEMON_LISTEN: Key = key("daemon.listen", Type::Address);
pub const DAEMON_SPREAD_SECS: Key = key("daemon.spread_secs", Type::Count).default("60");
pub const DAEMON_BACKOFF_BASE_SECS: Key =
    key("daemon.backoff_base_secs", Type::Count).default("30");
pub const DAEMON_BACKOFF_MAX_SECS: Key =
    key("daemon.backoff_max_secs", Type::Count).default("3600");
pub const DAEMON_READY_SYNC_AGE_SECS: Key =
    key("daemon.ready_sync_age_secs", Type::Count).default("900");
pub const DAEMON_READY_FAILURES: Key = key("daemon.ready_failures", Type::Count).default("3");
// Issue 32: outcome events are pushed in batches, not one commit a minute.
pub const DAEMON_EVIDENCE_BATCH_SECS: Key =
    key("daemon.evidence_batch_secs", Type::Count).default("600");
pub const DAEMON_EVIDENCE_BATCH_EVENTS: Key =
    key("daemon.evidence_batch_events", Type::Count).default("20");

/// Every key, in the order `learnsync config` lists them.
pub const KEYS: &[&Key] = &[
    &AGENT,
    &HUB,
    &REMOTES,
    &GITEA_URL,
    &GITEA_REPO,
    &GITEA_TOKEN,
    &GITEA_TOKEN_FILE,
    &GITEA_TOKEN_COMMAND,
    &WIKI_GIT_URL,
    &WIKI_BRANCH,
    &WIKI_TEMPLATE_DIR,
    &SCHEDULE_SYNC,
    &SCHEDULE_PUBLISH,
    &SCHEDULE_REVIEW,
    &SCHEDULE_EXPORT,
    &EXPORT_TARGETS,
    &CAPTURE_IGNORE,
    &SIGNING_KEY,
    &AUTHOR_NAME,
    &AUTHOR_EMAIL,
    &LOCK_WAIT_SECS,
    &WATCH,
    &REVIEW_MAX_OPEN,
    &REVIEW_MAX_NEW_PER_RUN,
    &DAEMON_DEBOUNCE_SECS,
    &DAEMON_LISTEN,
    &DAEMON_SPREAD_SECS,
    &DAEMON_BACKOFF_BASE_SECS,
    &DAEMON_BACKOFF_MAX_SECS,
    &DAEMON_READY_SYNC_AGE_SECS,
    &DAEMON_READY_FAILURES,
    &DAEMON_EVIDENCE_BATCH_SECS,
    &DAEMON_EVIDENCE_BATCH_EVENTS,
];

/// When `sync` asks a watcher what changed instead of scanning the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchMode {
    /// Use one when running; start one once the tree has
    /// [`WATCH_AUTO_FILES`] files or more.
    Auto,
    /// Always use and start one.
    On,
    /// Never: every sync scans the whole tree.
    Off,
}

impl crate::names::Named for WatchMode {
    const ALL: &'static [Self] = &[WatchMode::Auto, WatchMode::On, WatchMode::Off];
    fn as_str(self) -> &'static str {
        match self {
            WatchMode::Auto => "auto",
            WatchMode::On => "on",
            WatchMode::Off => "off",
        }
    }
}

/// Files in the work tree from which `watch: auto` starts a watcher.
pub const WATCH_AUTO_FILES: usize = 10_000;

impl std::fmt::Display for WatchMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(crate::names::Named::as_str(*self))
    }
}

/// One row of `learnsync config`: a key, the value in force and where it
/// came from. `value` is `None` only when the key is unset and nothing is
/// used in its place (no hub, no token); a default in force is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub key: String,
    pub value: Option<String>,
    pub source: String,
}

/// One remote to sync with.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteConfig {
    pub name: String,
    pub fetch: bool,
    pub push: bool,
}

pub use crate::shell::ignore::DEFAULT_IGNORE;

/// The `format`s an export target may name: `crate::export::Format`'s
/// names (config sits below export; a test there keeps the two equal).
pub const EXPORT_FORMATS: &[&str] = &["agents-md", "claude-md", "copilot", "cursor", "skills"];

/// One file (or skills dir) the daemon's export job keeps up to date.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportTarget {
    /// One of [`EXPORT_FORMATS`].
    pub format: String,
    /// Absolute, `~/` expanded.
    pub to: PathBuf,
    /// L3 (the default) or L2.
    pub min_trust: crate::learning::TrustLevel,
    pub project: Option<String>,
}

impl fmt::Display for ExportTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} (min_trust {}",
            self.format,
            self.to.display(),
            self.min_trust
        )?;
        if let Some(p) = &self.project {
            write!(f, ", project {p}")?;
        }
        f.write_str(")")
    }
}

/// The entries of `export.targets`, checked, `~/` expanded with `home`.
/// Errors name the key, the entry and what
/// was expected.
pub fn export_targets(value: &Value, home: Option<&str>) -> Result<Vec<ExportTarget>, String> {
    let key = EXPORT_TARGETS.name;
    let Value::Sequence(items) = value else {
        return Err(format!(
            "{key}: expected {}, found {}",
            Type::ExportTargets.expected(),
            shown(value)
        ));
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at = format!("{key}[{i}]");
        let Value::Mapping(m) = item else {
            return Err(format!(
                "{at}: expected a mapping {{format, to, min_trust, project}}, found {}",
                shown(item)
            ));
        };
        let text = |field: &str| -> Result<Option<String>, String> {
            match m.get(field) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(other) => Err(format!(
                    "{at}: `{field}` must be a string, found {}",
                    shown(other)
                )),
            }
        };
        for k in m.keys() {
            match k.as_str() {
                Some("format" | "to" | "min_trust" | "project") => {}
                other => {
                    return Err(format!(
                        "{at}: unknown field `{}` (expected format, to, min_trust, project)",
                        other.map_or_else(|| shown(k), str::to_string)
                    ));
                }
            }
        }
        let format = text("format")?
            .ok_or_else(|| format!("{at}: `format` is missing ({})", EXPORT_FORMATS.join(", ")))?;
        if !EXPORT_FORMATS.contains(&format.as_str()) {
            return Err(format!(
                "{at}: format {format:?}: expected one of {}",
                EXPORT_FORMATS.join(", ")
            ));
        }
        let to = text("to")?.ok_or_else(|| {
            format!("{at}: `to` is missing (the file, or for skills the dir, to write)")
        })?;
        let to = match to.strip_prefix("~/") {
            Some(rest) => match home {
                Some(home) => Path::new(home).join(rest),
                None => {
                    return Err(format!(
                        "{at}: `to` {to:?} starts with ~/ but HOME is not set: write an absolute path"
                    ));
                }
            },
            None if Path::new(&to).is_absolute() => PathBuf::from(&to),
            None => {
                return Err(format!(
                    "{at}: `to` {to:?} is relative, and the daemon has no working directory \
                     to resolve it against: write an absolute path or ~/…"
                ));
            }
        };
        let min_trust = match text("min_trust")? {
            None => crate::learning::TrustLevel::L3,
            Some(level) => match crate::learning::TrustLevel::parse(&level) {
                Some(l @ (crate::learning::TrustLevel::L2 | crate::learning::TrustLevel::L3)) => l,
                _ => {
                    return Err(format!(
                        "{at}: min_trust {level:?}: expected L3 (approved by a person) or L2"
                    ));
                }
            },
        };
        out.push(ExportTarget {
            format,
            to,
            min_trust,
            project: text("project")?,
        });
    }
    Ok(out)
}

/// A config file that cannot be used: names the file and the problem.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ConfigError {
    pub path: String,
    pub message: String,
}

/// One config file's contents: its keys, by dotted name, as written.
#[derive(Debug, Default, Clone)]
pub struct FileConfig {
    values: BTreeMap<&'static str, Value>,
}

impl FileConfig {
    /// Reads a config file; a missing file is an empty config.
    pub fn load(path: &Path) -> Result<FileConfig, ConfigError> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(FileConfig::default()),
            Err(e) => {
                return Err(ConfigError {
                    path: path.display().to_string(),
                    message: e.to_string(),
                });
            }
        };
        Self::parse(&text).map_err(|message| ConfigError {
            path: path.display().to_string(),
            message,
        })
    }

    /// Parses a file's text: every key must be in [`KEYS`] and of its type.
    pub fn parse(text: &str) -> Result<FileConfig, String> {
        let mut out = FileConfig::default();
        if text.trim().is_empty() {
            return Ok(out);
        }
        let doc: Value = serde_norway::from_str(text).map_err(|e| e.to_string())?;
        let Value::Mapping(top) = doc else {
            return Err("expected a mapping of keys to values".into());
        };
        let mut leaves = Vec::new();
        for (k, v) in top {
            let k = k.as_str().unwrap_or_default().to_string();
            let is_section = KEYS
                .iter()
                .any(|key| key.name.starts_with(&format!("{k}.")));
            match v {
                Value::Mapping(inner) if is_section => {
                    for (ik, iv) in inner {
                        leaves.push((format!("{k}.{}", ik.as_str().unwrap_or_default()), iv));
                    }
                }
                other => leaves.push((k, other)),
            }
        }
        for (name, value) in leaves {
            let Some(key) = KEYS.iter().find(|k| k.name == name && !k.env_only) else {
                let known: Vec<&str> = KEYS
                    .iter()
                    .filter(|k| !k.env_only)
                    .map(|k| k.name)
                    .collect();
                return Err(format!(
                    "unknown key `{name}` (known keys: {})",
                    known.join(", ")
                ));
            };
            if value.is_null() {
                continue;
            }
            check(key, &value)?;
            out.values.insert(key.name, value);
        }
        Ok(out)
    }

    fn get(&self, key: &Key) -> Option<&Value> {
        self.values.get(key.name)
    }
}

/// Whether `value` is of `key`'s type; the error names the key.
fn check(key: &Key, value: &Value) -> Result<(), String> {
    let bad = || {
        format!(
            "{}: expected {}, found {}",
            key.name,
            key.ty.expected(),
            shown(value)
        )
    };
    match key.ty {
        Type::Text | Type::Path => value.as_str().map(|_| ()).ok_or_else(bad),
        Type::Agent => {
            let name = value.as_str().ok_or_else(bad)?;
            crate::paths::validate_agent(name).map_err(|e| format!("{}: {e}", key.name))
        }
        Type::Count => value.as_u64().map(|_| ()).ok_or_else(bad),
        Type::Bool => value.as_bool().map(|_| ()).ok_or_else(bad),
        Type::List => match value {
            Value::Sequence(items) if items.iter().all(|i| i.is_string()) => Ok(()),
            _ => Err(bad()),
        },
        Type::Watch => {
            let name = value.as_str().ok_or_else(bad)?;
            <WatchMode as crate::names::Named>::from_name(name)
                .map(|_| ())
                .ok_or_else(bad)
        }
        Type::Cron => {
            let expr = value.as_str().ok_or_else(bad)?;
            crate::schedule::Schedule::parse(expr)
                .map(|_| ())
                .map_err(|e| format!("{}: {expr:?} is not a schedule: {e}", key.name))
        }
        Type::Remotes => {
            let Value::Sequence(items) = value else {
                return Err(bad());
            };
            for item in items {
                let Value::Mapping(m) = item else {
                    return Err(bad());
                };
                for (k, v) in m {
                    match k.as_str() {
                        Some("name") if v.is_string() => {}
                        Some("fetch" | "push") if v.is_bool() => {}
                        Some(other @ ("fetch" | "push")) => {
                            return Err(format!("{}: `{other}` must be true or false", key.name));
                        }
                        Some(other) => {
                            return Err(format!(
                                "{}: unknown field `{other}` (expected name, fetch, push)",
                                key.name
                            ));
                        }
                        None => return Err(bad()),
                    }
                }
                if m.get("name").and_then(Value::as_str).is_none() {
                    return Err(format!("{}: every remote needs a `name`", key.name));
                }
            }
            Ok(())
        }
        Type::Address => {
            let text = value.as_str().ok_or_else(bad)?;
            parse_listen(text)
                .map(|_| ())
                .map_err(|e| format!("{}: {e}", key.name))
        }
        Type::ExportTargets => export_targets(value, Some("~")).map(|_| ()),
    }
}

/// An address to listen on: `host:port` (an IP address or `localhost`), or
/// a port alone, which means loopback (`127.0.0.1:PORT`).
pub fn parse_listen(text: &str) -> Result<std::net::SocketAddr, String> {
    let text = text.trim();
    let port_only = text.strip_prefix(':').unwrap_or(text);
    if let Ok(port) = port_only.parse::<u16>() {
        return Ok(std::net::SocketAddr::from(([127, 0, 0, 1], port)));
    }
    if let Some(port) = text.strip_prefix("localhost:") {
        let port = port
            .parse::<u16>()
            .map_err(|_| format!("{text:?}: the port must be a number from 0 to 65535"))?;
        return Ok(std::net::SocketAddr::from(([127, 0, 0, 1], port)));
    }
    text.parse::<std::net::SocketAddr>().map_err(|_| {
        format!(
            "{text:?} is not an address to listen on: write host:port with an IP address \
             (127.0.0.1:9477, [::1]:9477) or a port alone (9477, meaning 127.0.0.1)"
        )
    })
}

/// A value on one line, for a message.
fn shown(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "something else".into())
}

/// Environment variables, read once, so tests can pass their own.
#[derive(Debug, Default, Clone)]
pub struct Env {
    pub learnsync_dir: Option<String>,
    pub terraphim_dir: Option<String>,
    pub agent: Option<String>,
    pub gitea_url: Option<String>,
    pub gitea_repo: Option<String>,
    /// `GITEA_TOKEN` is set and not empty (the token itself is read, as a
    /// secret, only when it is used).
    pub gitea_token_set: bool,
    pub xdg_data_home: Option<String>,
    pub xdg_config_home: Option<String>,
    pub home: Option<String>,
    pub hostname: Option<String>,
}

impl Env {
    pub fn from_process() -> Env {
        let get = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        Env {
            learnsync_dir: get("LEARNSYNC_DIR"),
            terraphim_dir: get("TERRAPHIM_LEARNINGS_DIR"),
            agent: get("LEARNSYNC_AGENT"),
            gitea_url: get("LEARNSYNC_GITEA_URL"),
            gitea_repo: get("LEARNSYNC_GITEA_REPO"),
            gitea_token_set: std::env::var_os("GITEA_TOKEN").is_some_and(|v| !v.is_empty()),
            xdg_data_home: get("XDG_DATA_HOME"),
            xdg_config_home: get("XDG_CONFIG_HOME"),
            home: get("HOME"),
            hostname: get("HOSTNAME"),
        }
    }

    /// The value of a key's variable (`None`: unset or empty).
    fn var(&self, var: &str) -> Option<Value> {
        let text = match var {
            "LEARNSYNC_AGENT" => self.agent.clone(),
            "LEARNSYNC_GITEA_URL" => self.gitea_url.clone(),
            "LEARNSYNC_GITEA_REPO" => self.gitea_repo.clone(),
            // The secret never enters the table: only that it is there.
            "GITEA_TOKEN" => self.gitea_token_set.then(String::new),
            _ => None,
        };
        text.map(Value::String)
    }

    /// `~/.config/learnsync/config.yaml` (honouring `XDG_CONFIG_HOME`).
    pub fn user_config_path(&self) -> Option<PathBuf> {
        let base = match (&self.xdg_config_home, &self.home) {
            (Some(x), _) => PathBuf::from(x),
            (None, Some(h)) => Path::new(h).join(".config"),
            (None, None) => return None,
        };
        Some(base.join("learnsync").join("config.yaml"))
    }
}

/// Command-line values that override everything else.
#[derive(Debug, Default, Clone)]
pub struct Flags {
    pub dir: Option<PathBuf>,
    pub agent: Option<String>,
}

/// The effective configuration.
#[derive(Debug, Clone)]
pub struct Config {
    pub dir: Sourced<PathBuf>,
    /// The home agent: whose branch this clone pushes.
    pub home_agent: Sourced<String>,
    /// The agent acting now (`--agent`, else the home agent).
    pub acting_agent: String,
    pub hub: Option<Sourced<String>>,
    pub remotes: Option<Sourced<Vec<RemoteConfig>>>,
    pub gitea_url: Option<Sourced<String>>,
    pub gitea_repo: Option<Sourced<String>>,
    /// `GITEA_TOKEN` is set (and not empty).
    pub gitea_token_env: bool,
    pub token_file: Option<Sourced<PathBuf>>,
    pub token_command: Option<Sourced<String>>,
    pub wiki_git_url: Option<Sourced<String>>,
    pub wiki_branch: Option<Sourced<String>>,
    pub wiki_template_dir: Option<Sourced<PathBuf>>,
    pub schedule_sync: Sourced<String>,
    pub schedule_publish: Sourced<String>,
    pub schedule_review: Sourced<String>,
    pub schedule_export: Sourced<String>,
    /// What the daemon's export job writes (empty: it is skipped).
    pub export_targets: Sourced<Vec<ExportTarget>>,
    pub capture_ignore: Sourced<Vec<String>>,
    /// The key the home agent's commits are signed with (§5.2).
    pub signing_key: Option<Sourced<PathBuf>>,
    pub watch: Sourced<WatchMode>,
    pub author_name: Sourced<String>,
    pub author_email: Sourced<String>,
    pub lock_wait_secs: Sourced<u64>,
    pub review_max_open: Sourced<u64>,
    pub review_max_new_per_run: Sourced<u64>,
    pub daemon: DaemonConfig,
    /// Every key's effective value as text, for `learnsync config`.
    rows: Vec<Row>,
}

/// The daemon's settings (`daemon.*`); each is a row of `learnsync config`.
#[derive(Debug, Clone, PartialEq)]
pub struct DaemonConfig {
    /// A capture in the inbox triggers a sync this long after it arrived.
    pub debounce_secs: u64,
    /// Where `/livez`, `/readyz` and `/metrics` are served; `None`: nowhere.
    pub listen: Option<std::net::SocketAddr>,
    /// A machine's runs start up to this long after their scheduled time
    /// (a stable offset from the agent name), so a fleet does not hit the
    /// hub in the same second; never more than a quarter of a job's period.
    pub spread_secs: u64,
    /// The first backoff after a failed run, doubled per further failure,
    /// capped at `backoff_max_secs`.
    pub backoff_base_secs: u64,
    pub backoff_max_secs: u64,
    /// `/readyz` fails when the last successful sync is older than this…
    pub ready_sync_age_secs: u64,
    /// …or when a job failed this many runs in a row.
    pub ready_failures: u64,
    /// A scheduled sync keeps outcome events in the inbox until the oldest
    /// is this old…
    pub evidence_batch_secs: u64,
    /// …or this many wait, or the cycle commits something else anyway.
    pub evidence_batch_events: u64,
}

/// Resolves keys in precedence order, recording each for the rows.
struct Resolver<'a> {
    env: &'a Env,
    repo: &'a FileConfig,
    user: &'a FileConfig,
    rows: Vec<Row>,
}

impl Resolver<'_> {
    /// The key's value from the first layer that has it (no default).
    fn layered(&self, key: &Key) -> Option<Sourced<Value>> {
        if let Some(value) = key.env.and_then(|var| self.env.var(var)) {
            return Some(Sourced {
                value,
                source: Source::Env(key.env.unwrap_or_default()),
            });
        }
        for (file, source) in [(self.repo, Source::RepoFile), (self.user, Source::UserFile)] {
            if let Some(value) = file.get(key) {
                return Some(Sourced {
                    value: value.clone(),
                    source,
                });
            }
        }
        None
    }

    fn record(&mut self, key: &Key, shown: String, source: &Source) {
        let shown = if key.secret && source != &Source::Default {
            "(set, not shown)".to_string()
        } else {
            shown
        };
        self.rows.push(Row {
            key: key.name.to_string(),
            value: Some(shown),
            source: source.to_string(),
        });
    }

    /// A key that is unset: what is used instead, in words, or nothing.
    fn record_unset(&mut self, key: &Key) {
        self.rows.push(Row {
            key: key.name.to_string(),
            value: key.described.map(|what| format!("({what})")),
            source: Source::Default.to_string(),
        });
    }

    fn layered_text(&self, key: &Key) -> Option<Sourced<String>> {
        self.layered(key).and_then(|s| {
            Some(Sourced {
                value: s.value.as_str()?.to_string(),
                source: s.source,
            })
        })
    }

    fn text(&mut self, key: &Key) -> Option<Sourced<String>> {
        let found = self.layered_text(key);
        match &found {
            Some(s) => self.record(key, s.value.clone(), &s.source.clone()),
            None => self.record_unset(key),
        }
        found
    }

    /// The key's value, else `default` (in force, and shown as such).
    fn text_or(&mut self, key: &Key, default: String) -> Sourced<String> {
        let s = self.layered_text(key).unwrap_or(Sourced {
            value: default,
            source: Source::Default,
        });
        self.record(key, s.value.clone(), &s.source.clone());
        s
    }

    fn text_or_default(&mut self, key: &Key) -> Sourced<String> {
        self.text_or(key, key.default.unwrap_or_default().to_string())
    }

    fn path(&mut self, key: &Key) -> Option<Sourced<PathBuf>> {
        self.text(key).map(|s| Sourced {
            value: PathBuf::from(s.value),
            source: s.source,
        })
    }

    fn count(&mut self, key: &Key) -> Sourced<u64> {
        let found = self.layered(key).and_then(|s| {
            Some(Sourced {
                value: s.value.as_u64()?,
                source: s.source,
            })
        });
        let s = found.unwrap_or_else(|| Sourced {
            value: key.default.and_then(|d| d.parse().ok()).unwrap_or_default(),
            source: Source::Default,
        });
        self.record(key, s.value.to_string(), &s.source.clone());
        s
    }
}

impl Config {
    /// The learnings dir alone (needed before the repo config can be read).
    pub fn resolve_dir(flags: &Flags, env: &Env, user: &FileConfig) -> Sourced<PathBuf> {
        let _ = user;
        if let Some(d) = &flags.dir {
            return Sourced {
                value: d.clone(),
                source: Source::Flag,
            };
        }
        if let Some(d) = &env.learnsync_dir {
            return Sourced {
                value: d.into(),
                source: Source::Env("LEARNSYNC_DIR"),
            };
        }
        if let Some(d) = &env.terraphim_dir {
            return Sourced {
                value: d.into(),
                source: Source::Env("TERRAPHIM_LEARNINGS_DIR"),
            };
        }
        let base = match (&env.xdg_data_home, &env.home) {
            (Some(x), _) => PathBuf::from(x),
            (None, Some(h)) => Path::new(h).join(".local").join("share"),
            (None, None) => PathBuf::from("."),
        };
        Sourced {
            value: base.join("learnsync"),
            source: Source::Default,
        }
    }

    /// Loads both files and resolves every value.
    pub fn load(flags: &Flags, env: &Env) -> Result<Config, ConfigError> {
        let user = match env.user_config_path() {
            Some(p) => FileConfig::load(&p)?,
            None => FileConfig::default(),
        };
        let dir = Self::resolve_dir(flags, env, &user);
        if let Some(message) = dir_problem(&dir) {
            return Err(ConfigError {
                path: dir.value.display().to_string(),
                message,
            });
        }
        let repo = FileConfig::load(&crate::store::StateDir::of(&dir.value).config())?;
        Self::resolve(flags, env, dir, &repo, &user)
    }

    pub fn resolve(
        flags: &Flags,
        env: &Env,
        dir: Sourced<PathBuf>,
        repo: &FileConfig,
        user: &FileConfig,
    ) -> Result<Config, ConfigError> {
        if let Some(agent) = &env.agent {
            crate::paths::validate_agent(agent).map_err(|e| ConfigError {
                path: "LEARNSYNC_AGENT".into(),
                message: e.to_string(),
            })?;
        }
        let mut r = Resolver {
            env,
            repo,
            user,
            rows: vec![Row {
                key: "dir".into(),
                value: Some(dir.value.display().to_string()),
                source: dir.source.to_string(),
            }],
        };
        let home_agent = r.text_or(&AGENT, host_agent(env));
        let acting_agent = flags
            .agent
            .clone()
            .unwrap_or_else(|| home_agent.value.clone());
        let hub = r.text(&HUB);
        let remotes = r.layered(&REMOTES).map(|s| Sourced {
            value: remotes_of(&s.value),
            source: s.source,
        });
        match &remotes {
            Some(s) => {
                let shown = s
                    .value
                    .iter()
                    .map(|r| format!("{}(fetch={},push={})", r.name, r.fetch, r.push))
                    .collect::<Vec<_>>()
                    .join(", ");
                r.record(&REMOTES, shown, &s.source.clone());
            }
            None => r.record_unset(&REMOTES),
        }
        let gitea_url = r.text(&GITEA_URL);
        let gitea_repo = r.text(&GITEA_REPO);
        let gitea_token_env = r.text(&GITEA_TOKEN).is_some();
        let token_file = r.path(&GITEA_TOKEN_FILE);
        let token_command = r.text(&GITEA_TOKEN_COMMAND);
        let wiki_git_url = r.text(&WIKI_GIT_URL);
        let wiki_branch = r.text(&WIKI_BRANCH);
        let wiki_template_dir = r.path(&WIKI_TEMPLATE_DIR);
        let schedule_sync = r.text_or_default(&SCHEDULE_SYNC);
        let schedule_publish = r.text_or_default(&SCHEDULE_PUBLISH);
        let schedule_review = r.text_or_default(&SCHEDULE_REVIEW);
        let schedule_export = r.text_or_default(&SCHEDULE_EXPORT);
        let export_targets = match r.layered(&EXPORT_TARGETS) {
            Some(s) => Sourced {
                value: export_targets(&s.value, env.home.as_deref()).map_err(|message| {
                    ConfigError {
                        path: s.source.to_string(),
                        message,
                    }
                })?,
                source: s.source,
            },
            None => Sourced {
                value: Vec::new(),
                source: Source::Default,
            },
        };
        let shown = match export_targets.value.is_empty() {
            true => "(none)".to_string(),
            false => export_targets
                .value
                .iter()
                .map(ExportTarget::to_string)
                .collect::<Vec<_>>()
                .join("; "),
        };
        r.record(&EXPORT_TARGETS, shown, &export_targets.source.clone());
        let capture_ignore = r
            .layered(&CAPTURE_IGNORE)
            .map(|s| Sourced {
                value: strings(&s.value),
                source: s.source,
            })
            .unwrap_or_else(|| Sourced {
                value: DEFAULT_IGNORE.iter().map(|s| s.to_string()).collect(),
                source: Source::Default,
            });
        r.record(
            &CAPTURE_IGNORE,
            capture_ignore.value.join(", "),
            &capture_ignore.source.clone(),
        );
        let signing_key = r.path(&SIGNING_KEY);
        let author_name = r.text_or(&AUTHOR_NAME, home_agent.value.clone());
        let author_email = r.text_or(
            &AUTHOR_EMAIL,
            format!("{}@learnsync.invalid", home_agent.value),
        );
        let lock_wait_secs = r.count(&LOCK_WAIT_SECS);
        let watch_text = r.text_or_default(&WATCH);
        let watch = Sourced {
            value: <WatchMode as crate::names::Named>::from_name(&watch_text.value)
                .unwrap_or(WatchMode::Auto),
            source: watch_text.source,
        };
        let review_max_open = r.count(&REVIEW_MAX_OPEN);
        let review_max_new_per_run = r.count(&REVIEW_MAX_NEW_PER_RUN);
        let debounce_secs = r.count(&DAEMON_DEBOUNCE_SECS).value;
        let listen = match r.text(&DAEMON_LISTEN) {
            Some(s) => Some(parse_listen(&s.value).map_err(|message| ConfigError {
                path: s.source.to_string(),
                message: format!("{}: {message}", DAEMON_LISTEN.name),
            })?),
            None => None,
        };
        let daemon = DaemonConfig {
            debounce_secs,
            listen,
            spread_secs: r.count(&DAEMON_SPREAD_SECS).value,
            backoff_base_secs: r.count(&DAEMON_BACKOFF_BASE_SECS).value,
            backoff_max_secs: r.count(&DAEMON_BACKOFF_MAX_SECS).value,
            ready_sync_age_secs: r.count(&DAEMON_READY_SYNC_AGE_SECS).value,
            ready_failures: r.count(&DAEMON_READY_FAILURES).value,
            evidence_batch_secs: r.count(&DAEMON_EVIDENCE_BATCH_SECS).value,
            evidence_batch_events: r.count(&DAEMON_EVIDENCE_BATCH_EVENTS).value,
        };
        Ok(Config {
            dir,
            home_agent,
            acting_agent,
            hub,
            remotes,
            gitea_url,
            gitea_repo,
            gitea_token_env,
            token_file,
            token_command,
            wiki_git_url,
            wiki_branch,
            wiki_template_dir,
            schedule_sync,
            schedule_publish,
            schedule_review,
            schedule_export,
            export_targets,
            capture_ignore,
            signing_key,
            watch,
            author_name,
            author_email,
            lock_wait_secs,
            review_max_open,
            review_max_new_per_run,
            daemon,
            rows: r.rows,
        })
    }

    /// The commit identity, for commits and reflogs alike: `author.name`
    /// and `author.email`, by default `<agent> <agent@learnsync.invalid>`
    /// (a machine with no git identity still commits).
    pub fn identity(&self) -> crate::repo::Identity {
        crate::repo::Identity {
            name: self.author_name.value.clone(),
            email: self.author_email.value.clone(),
            signing_key: self.signing_key.as_ref().map(|k| k.value.clone()),
        }
    }

    /// The rows of `learnsync config`, in [`KEYS`] order after `dir`;
    /// secrets masked.
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }
}

fn strings(value: &Value) -> Vec<String> {
    match value {
        Value::Sequence(items) => items
            .iter()
            .filter_map(|i| i.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

fn remotes_of(value: &Value) -> Vec<RemoteConfig> {
    let Value::Sequence(items) = value else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| {
            let flag = |k: &str| item.get(k).and_then(Value::as_bool).unwrap_or(true);
            Some(RemoteConfig {
                name: item.get("name")?.as_str()?.to_string(),
                fetch: flag("fetch"),
                push: flag("push"),
            })
        })
        .collect()
}

/// Why the learnings dir cannot be one, named for the person who chose it:
/// it, or the nearest part of its path that exists, is something other
/// than a directory (`--dir ~/notes.md`). A dir that does not exist yet is
/// fine (`init` and `sync` create it).
pub fn dir_problem(dir: &Sourced<PathBuf>) -> Option<String> {
    let existing = dir
        .value
        .ancestors()
        .find(|a| a.symlink_metadata().is_ok())?;
    if existing.is_dir() {
        return None;
    }
    let chosen = match &dir.source {
        Source::Flag => "--dir".to_string(),
        Source::Env(var) => (*var).to_string(),
        other => other.to_string(),
    };
    let what = if existing.is_file() {
        "a file, not a directory"
    } else {
        "not a directory"
    };
    Some(if existing == dir.value {
        format!("the learnings dir (from {chosen}) is {what}")
    } else {
        format!(
            "the learnings dir (from {chosen}) cannot be made: {} is {what}",
            existing.display()
        )
    })
}

/// The default home agent: the host name, made a valid agent name.
fn host_agent(env: &Env) -> String {
    env.hostname
        .clone()
        .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
        .map(|h| sanitise_agent(h.trim()))
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "agent".to_string())
}

/// Turns a host name into a valid agent name.
fn sanitise_agent(host: &str) -> String {
    let s: String = host
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '-'
            }
        })
        .take(100)
        .collect();
    let s = s.trim_start_matches(['.', '-']).to_string();
    if crate::paths::validate_agent(&s).is_ok() {
        s
    } else {
        "agent".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> Sourced<PathBuf> {
        Sourced {
            value: "/tmp/x".into(),
            source: Source::Default,
        }
    }

    /// The config of a dir with this repo file and nothing else set.
    fn from_repo_file(repo: &FileConfig) -> Config {
        Config::resolve(
            &Flags::default(),
            &Env::default(),
            dir(),
            repo,
            &FileConfig::default(),
        )
        .expect("ok")
    }

    #[test]
    fn precedence_is_flag_env_repo_user_default() {
        let repo = FileConfig::parse("agent: from-repo\nhub: origin\n").expect("valid");
        let user =
            FileConfig::parse("agent: from-user\nhub: upstream\ngitea: {url: https://u.example}\n")
                .expect("valid");
        let env = Env {
            agent: Some("from-env".into()),
            ..Env::default()
        };
        let c = Config::resolve(&Flags::default(), &env, dir(), &repo, &user).expect("ok");
        assert_eq!(c.home_agent.value, "from-env");
        assert_eq!(c.hub.as_ref().map(|h| h.value.as_str()), Some("origin"));
        assert_eq!(
            c.gitea_url.as_ref().map(|h| h.source.clone()),
            Some(Source::UserFile)
        );
        let c =
            Config::resolve(&Flags::default(), &Env::default(), dir(), &repo, &user).expect("ok");
        assert_eq!(c.home_agent.value, "from-repo");
        assert_eq!(c.home_agent.source, Source::RepoFile);
        let flags = Flags {
            agent: Some("acting".into()),
            ..Flags::default()
        };
        let c = Config::resolve(
            &flags,
            &Env::default(),
            dir(),
            &FileConfig::default(),
            &user,
        )
        .expect("ok");
        assert_eq!(c.home_agent.value, "from-user");
        assert_eq!(c.acting_agent, "acting");
        assert_eq!(c.schedule_sync.source, Source::Default);
        assert_eq!(c.identity().email, "from-user@learnsync.invalid");
    }

    #[test]
    fn dir_comes_from_flag_then_env_then_terraphim_then_xdg() {
        let env = Env {
            terraphim_dir: Some("/t".into()),
            xdg_data_home: Some("/xdg".into()),
            ..Env::default()
        };
        let d = Config::resolve_dir(&Flags::default(), &env, &FileConfig::default());
        assert_eq!(
            (d.value, d.source),
            (PathBuf::from("/t"), Source::Env("TERRAPHIM_LEARNINGS_DIR"))
        );
        let env = Env {
            xdg_data_home: Some("/xdg".into()),
            ..Env::default()
        };
        let d = Config::resolve_dir(&Flags::default(), &env, &FileConfig::default());
        assert_eq!(d.value, PathBuf::from("/xdg/learnsync"));
    }

    #[test]
    fn invalid_files_name_the_key_and_what_was_expected() {
        for (text, want) in [
            ("agent: [a]\n", "agent"),
            ("agnet: x\n", "agnet"),
            ("remotes:\n  - name: o\n    fetch: maybe\n", "fetch"),
            ("schedule:\n  sync: every minute\n", "schedule.sync"),
            ("agent: ../x\n", "agent"),
            ("gitea:\n  token: abc\n", "gitea.token"),
            ("lock_wait_secs: soon\n", "lock_wait_secs"),
            ("watch: sometimes\n", "watch"),
            ("daemon:\n  listen: everywhere\n", "daemon.listen"),
            ("daemon:\n  debounce_secs: soon\n", "daemon.debounce_secs"),
            (
                "export:\n  targets:\n    - {format: agents-md, to: AGENTS.md}\n",
                "export.targets[0]: `to` \"AGENTS.md\" is relative",
            ),
            (
                "export:\n  targets:\n    - {format: agents-md, to: /a}\n    - {format: word, to: /b}\n",
                "export.targets[1]: format \"word\": expected one of agents-md",
            ),
            (
                "export:\n  targets:\n    - {format: skills, to: /a, min_trust: L1}\n",
                "export.targets[0]: min_trust \"L1\"",
            ),
            (
                "export:\n  targets:\n    - {format: skills, to: /a, trust: L2}\n",
                "export.targets[0]: unknown field `trust`",
            ),
            (
                "export:\n  targets:\n    - {to: /a}\n",
                "export.targets[0]: `format` is missing",
            ),
            (
                "export:\n  targets: /a\n",
                "export.targets: expected a list",
            ),
        ] {
            let err = FileConfig::parse(text).expect_err(text);
            assert!(err.contains(want), "{text:?} -> {err}");
        }
    }

    #[test]
    fn export_targets_default_to_none_and_l3_and_expand_the_home() {
        let c = Config::resolve(
            &Flags::default(),
            &Env::default(),
            dir(),
            &FileConfig::default(),
            &FileConfig::default(),
        )
        .expect("ok");
        assert!(c.export_targets.value.is_empty());
        assert_eq!(c.schedule_export.value, "45 * * * *");
        let user = FileConfig::parse(
            "export:\n  targets:\n    - {format: agents-md, to: ~/src/AGENTS.md}\n    - {format: skills, to: /s, min_trust: L2, project: shop}\n",
        )
        .expect("valid");
        let env = Env {
            home: Some("/home/u".into()),
            ..Env::default()
        };
        let c = Config::resolve(
            &Flags::default(),
            &env,
            dir(),
            &FileConfig::default(),
            &user,
        )
        .expect("ok");
        let t = &c.export_targets;
        assert_eq!(t.source, Source::UserFile);
        assert_eq!(
            (t.value[0].to.clone(), t.value[0].min_trust),
            (
                PathBuf::from("/home/u/src/AGENTS.md"),
                crate::learning::TrustLevel::L3
            )
        );
        assert_eq!(t.value[1].project.as_deref(), Some("shop"));
        let row = c
            .rows()
            .iter()
            .find(|r| r.key == "export.targets")
            .expect("row");
        assert_eq!(
            row.value.as_deref(),
            Some(
                "agents-md /home/u/src/AGENTS.md (min_trust L3); skills /s (min_trust L2, project shop)"
            )
        );
        let err = Config::resolve(
            &Flags::default(),
            &Env::default(),
            dir(),
            &FileConfig::default(),
            &user,
        )
        .expect_err("no HOME for ~/");
        assert!(err.to_string().contains("export.targets[0]"), "{err}");
    }

    #[test]
    fn listen_addresses_default_to_loopback() {
        for (text, want) in [
            ("9477", "127.0.0.1:9477"),
            (":9477", "127.0.0.1:9477"),
            ("localhost:80", "127.0.0.1:80"),
            ("[::1]:9477", "[::1]:9477"),
            ("0.0.0.0:9477", "0.0.0.0:9477"),
        ] {
            assert_eq!(
                parse_listen(text).expect(text).to_string(),
                want,
                "{text:?}"
            );
        }
        for bad in ["", "host:1", "127.0.0.1", "127.0.0.1:99999"] {
            assert!(parse_listen(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn every_key_is_a_row_once_and_secrets_are_never_shown() {
        let repo = FileConfig::parse("gitea:\n  token_command: pass show gitea\n").expect("valid");
        let env = Env {
            gitea_token_set: true,
            ..Env::default()
        };
        let c = Config::resolve(
            &Flags::default(),
            &env,
            dir(),
            &repo,
            &FileConfig::default(),
        )
        .expect("ok");
        let rows = c.rows();
        assert_eq!(rows.len(), KEYS.len() + 1, "{rows:?}");
        for key in KEYS {
            assert_eq!(
                rows.iter().filter(|r| r.key == key.name).count(),
                1,
                "{}",
                key.name
            );
        }
        let row = |name: &str| rows.iter().find(|r| r.key == name).cloned().expect(name);
        let value = |name: &str| row(name).value.unwrap_or_else(|| "null".into());
        assert_eq!(value("gitea.token"), "(set, not shown)");
        assert_eq!(row("gitea.token").source, "env GITEA_TOKEN");
        assert_eq!(value("gitea.token_command"), "(set, not shown)");
        assert!(!format!("{rows:?}").contains("pass show"));
        assert_eq!(value("lock_wait_secs"), "30");
        // An empty GITEA_TOKEN is unset, as everywhere.
        assert!(!from_repo_file(&repo).gitea_token_env);
    }

    #[test]
    fn defaults_in_force_are_shown_and_only_what_is_unset_has_no_value() {
        let repo = FileConfig::parse("agent: claude\n").expect("valid");
        let c = from_repo_file(&repo);
        let row = |name: &str| {
            let r = c.rows().iter().find(|r| r.key == name).expect(name);
            (r.value.clone(), r.source.clone())
        };
        let default = |v: &str| (Some(v.to_string()), "default".to_string());
        assert_eq!(row("author.name"), default("claude"));
        assert_eq!(row("author.email"), default("claude@learnsync.invalid"));
        assert_eq!(row("wiki.branch"), default("(the wiki remote's HEAD)"));
        assert_eq!(
            row("remotes"),
            default("(every git remote, fetch and push)")
        );
        for unset in ["hub", "gitea.url", "gitea.token", "daemon.listen"] {
            assert_eq!(row(unset).0, None, "{unset}");
        }
        let identity = c.identity();
        assert_eq!(
            (identity.name.as_str(), identity.email.as_str()),
            ("claude", "claude@learnsync.invalid")
        );
        let user =
            FileConfig::parse("author: {name: CI Bot, email: ci@example.com}\n").expect("valid");
        let c =
            Config::resolve(&Flags::default(), &Env::default(), dir(), &repo, &user).expect("ok");
        assert_eq!(c.identity().email, "ci@example.com");
        assert_eq!(c.author_name.source, Source::UserFile);
    }

    #[test]
    fn a_dir_that_is_a_file_or_lies_below_one_is_named_with_its_origin() {
        let tmp = tempfile::tempdir().expect("tmp");
        let file = tmp.path().join("notes.md");
        std::fs::write(&file, "x").expect("write");
        let at = |value: PathBuf, source: Source| dir_problem(&Sourced { value, source });
        assert_eq!(at(tmp.path().to_path_buf(), Source::Flag), None);
        assert_eq!(at(tmp.path().join("new/learnings"), Source::Flag), None);
        let problem = at(file.clone(), Source::Flag).expect("a file");
        assert!(
            problem.contains("--dir") && problem.contains("is a file"),
            "{problem}"
        );
        let problem = at(file.join("below"), Source::Env("LEARNSYNC_DIR")).expect("below");
        assert!(
            problem.contains("LEARNSYNC_DIR") && problem.contains(&file.display().to_string()),
            "{problem}"
        );
    }
}
