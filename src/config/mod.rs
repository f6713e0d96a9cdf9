//! Configuration with the precedence of DESIGN.md §10: flags, environment,
//! `.git/learnsync/config.yaml`, `~/.config/learnsync/config.yaml`, defaults.
//!
//! One table, [`KEYS`], says for every key its place in the files, its
//! environment variable, its default, its type and whether it is secret; it
//! drives reading the files (an unknown key is an error naming it), the
//! resolution, and `learnsync config`'s rows. Adding a key is a table row
//! and a typed field. Every value remembers where it came from.

mod gitea;
mod keys;

pub use gitea::{GiteaUse, MissingSetting};
pub use keys::*;

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
    /// `export.targets`, parsed, and its row.
    fn export_targets(&mut self, env: &Env) -> Result<Sourced<Vec<ExportTarget>>, ConfigError> {
        let export_targets = match self.layered(&EXPORT_TARGETS) {
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
        self.record(&EXPORT_TARGETS, shown, &export_targets.source.clone());
        Ok(export_targets)
    }

    /// `capture.ignore` (the default globs when unset), and its row.
    fn capture_ignore(&mut self) -> Sourced<Vec<String>> {
        let capture_ignore = self
            .layered(&CAPTURE_IGNORE)
            .map(|s| Sourced {
                value: strings(&s.value),
                source: s.source,
            })
            .unwrap_or_else(|| Sourced {
                value: DEFAULT_IGNORE.iter().map(|s| s.to_string()).collect(),
                source: Source::Default,
            });
        self.record(
            &CAPTURE_IGNORE,
            capture_ignore.value.join(", "),
            &capture_ignore.source.clone(),
        );
        capture_ignore
    }

    /// The daemon's settings.
    fn daemon(&mut self) -> Result<DaemonConfig, ConfigError> {
        let debounce_secs = self.count(&DAEMON_DEBOUNCE_SECS).value;
        let listen = match self.text(&DAEMON_LISTEN) {
            Some(s) => Some(parse_listen(&s.value).map_err(|message| ConfigError {
                path: s.source.to_string(),
                message: format!("{}: {message}", DAEMON_LISTEN.name),
            })?),
            None => None,
        };
        Ok(DaemonConfig {
            debounce_secs,
            listen,
            spread_secs: self.count(&DAEMON_SPREAD_SECS).value,
            backoff_base_secs: self.count(&DAEMON_BACKOFF_BASE_SECS).value,
            backoff_max_secs: self.count(&DAEMON_BACKOFF_MAX_SECS).value,
            ready_sync_age_secs: self.count(&DAEMON_READY_SYNC_AGE_SECS).value,
            ready_failures: self.count(&DAEMON_READY_FAILURES).value,
            evidence_batch_secs: self.count(&DAEMON_EVIDENCE_BATCH_SECS).value,
            evidence_batch_events: self.count(&DAEMON_EVIDENCE_BATCH_EVENTS).value,
        })
    }

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
    /// The hub remote's name, when one is configured (its `main` holds the
    /// review records and the policy in force).
    pub fn hub_name(&self) -> Option<&str> {
        self.hub.as_ref().map(|h| h.value.as_str())
    }

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
        let export_targets = r.export_targets(env)?;
        let capture_ignore = r.capture_ignore();
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
        let daemon = r.daemon()?;
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
mod tests;
