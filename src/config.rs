//! Configuration with the precedence of DESIGN.md §10: flags, environment,
//! `.git/learnsync/config.yaml`, `~/.config/learnsync/config.yaml`, defaults.
//! Every value remembers where it came from, for `learnsync config`.

use serde::Deserialize;
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

/// One config file's contents; every key optional.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FileConfig {
    pub agent: Option<String>,
    pub hub: Option<String>,
    pub remotes: Option<Vec<RemoteConfig>>,
    pub gitea: Option<GiteaConfig>,
    pub wiki: Option<WikiConfig>,
    pub schedule: Option<ScheduleConfig>,
    pub capture: Option<CaptureConfig>,
    pub author: Option<AuthorConfig>,
    pub lock_wait_secs: Option<u64>,
    /// Whether `sync` uses (and starts) the work-tree watcher.
    pub watch: Option<WatchMode>,
}

/// When `sync` asks a watcher what changed instead of scanning the tree.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum WatchMode {
    /// Use one when running; start one once the tree has
    /// [`WATCH_AUTO_FILES`] files or more.
    Auto,
    /// Always use and start one.
    On,
    /// Never: every sync scans the whole tree.
    Off,
}

/// Files in the work tree from which `watch: auto` starts a watcher.
pub const WATCH_AUTO_FILES: usize = 10_000;

impl std::fmt::Display for WatchMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            WatchMode::Auto => "auto",
            WatchMode::On => "on",
            WatchMode::Off => "off",
        })
    }
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RemoteConfig {
    pub name: String,
    #[serde(default = "yes")]
    pub fetch: bool,
    #[serde(default = "yes")]
    pub push: bool,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Default, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct GiteaConfig {
    pub url: Option<String>,
    /// `owner/name`.
    pub repo: Option<String>,
    /// A file whose contents are the token (kept outside the learnings dir).
    pub token_file: Option<PathBuf>,
    /// A command whose standard output is the token.
    pub token_command: Option<String>,
}

/// Publishing settings (`learnsync publish`, DESIGN.md §7).
#[derive(Debug, Default, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct WikiConfig {
    /// The `<repo>.wiki.git` URL of the `git-wiki` target.
    pub git_url: Option<String>,
    /// The wiki branch to push (default: the remote's HEAD).
    pub branch: Option<String>,
    /// A dir whose templates replace the built-in ones by file name.
    pub template_dir: Option<PathBuf>,
}

#[derive(Debug, Default, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct ScheduleConfig {
    pub sync: Option<String>,
    pub publish: Option<String>,
    pub review: Option<String>,
}

#[derive(Debug, Default, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct CaptureConfig {
    /// Commands whose failures are not learnings (`*` matches anything).
    pub ignore: Option<Vec<String>>,
}

#[derive(Debug, Default, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct AuthorConfig {
    pub name: Option<String>,
    pub email: Option<String>,
}

/// A config file that cannot be used: names the file and the problem.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ConfigError {
    pub path: String,
    pub message: String,
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

    pub fn parse(text: &str) -> Result<FileConfig, String> {
        if text.trim().is_empty() {
            return Ok(FileConfig::default());
        }
        let config: FileConfig = serde_norway::from_str(text).map_err(|e| e.to_string())?;
        if let Some(agent) = &config.agent {
            crate::paths::validate_agent(agent).map_err(|e| format!("agent: {e}"))?;
        }
        if let Some(schedule) = &config.schedule {
            for (key, expr) in [
                ("schedule.sync", &schedule.sync),
                ("schedule.publish", &schedule.publish),
                ("schedule.review", &schedule.review),
            ] {
                if let Some(expr) = expr {
                    expr.parse::<cron::Schedule>().map_err(|e| {
                        format!("{key}: {expr:?} is not a cron expression (sec min hour day month weekday): {e}")
                    })?;
                }
            }
        }
        Ok(config)
    }
}

/// Environment variables, read once, so tests can pass their own.
#[derive(Debug, Default, Clone)]
pub struct Env {
    pub learnsync_dir: Option<String>,
    pub terraphim_dir: Option<String>,
    pub agent: Option<String>,
    pub gitea_url: Option<String>,
    pub gitea_repo: Option<String>,
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
            xdg_data_home: get("XDG_DATA_HOME"),
            xdg_config_home: get("XDG_CONFIG_HOME"),
            home: get("HOME"),
            hostname: get("HOSTNAME"),
        }
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
    pub token_file: Option<Sourced<PathBuf>>,
    pub token_command: Option<Sourced<String>>,
    pub wiki_git_url: Option<Sourced<String>>,
    pub wiki_branch: Option<Sourced<String>>,
    pub wiki_template_dir: Option<Sourced<PathBuf>>,
    pub schedule_sync: Sourced<String>,
    pub schedule_publish: Sourced<String>,
    pub schedule_review: Sourced<String>,
    pub capture_ignore: Sourced<Vec<String>>,
    pub watch: Sourced<WatchMode>,
    pub author_name: Option<Sourced<String>>,
    pub author_email: Option<Sourced<String>>,
    pub lock_wait_secs: Sourced<u64>,
}

pub const DEFAULT_IGNORE: [&str; 5] = [
    "cargo test*",
    "npm test*",
    "yarn test*",
    "pytest*",
    "go test*",
];

/// The repo file's value, else the user file's.
fn layered<T>(repo: Option<T>, user: Option<T>) -> Option<Sourced<T>> {
    match (repo, user) {
        (Some(value), _) => Some(Sourced {
            value,
            source: Source::RepoFile,
        }),
        (None, Some(value)) => Some(Sourced {
            value,
            source: Source::UserFile,
        }),
        (None, None) => None,
    }
}

/// Picks the first present value in precedence order.
fn pick<T: Clone>(candidates: [(Option<T>, Source); 4]) -> Option<Sourced<T>> {
    candidates
        .into_iter()
        .find_map(|(v, source)| v.map(|value| Sourced { value, source }))
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
        let both = |f: &dyn Fn(&FileConfig) -> Option<String>| (f(repo), f(user));
        let host = env
            .hostname
            .clone()
            .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
            .map(|h| sanitise_agent(h.trim()))
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| "agent".to_string());
        let (ra, ua) = both(&|c| c.agent.clone());
        if let Some(agent) = &env.agent {
            crate::paths::validate_agent(agent).map_err(|e| ConfigError {
                path: "LEARNSYNC_AGENT".into(),
                message: e.to_string(),
            })?;
        }
        let home_agent = pick([
            (None, Source::Flag),
            (env.agent.clone(), Source::Env("LEARNSYNC_AGENT")),
            (ra, Source::RepoFile),
            (ua, Source::UserFile),
        ])
        .unwrap_or(Sourced {
            value: host,
            source: Source::Default,
        });
        let acting_agent = flags
            .agent
            .clone()
            .unwrap_or_else(|| home_agent.value.clone());

        let file_pair = |f: &dyn Fn(&FileConfig) -> Option<String>| -> Option<Sourced<String>> {
            layered(f(repo), f(user))
        };
        let with_env =
            |var: &'static str, e: Option<String>, f: &dyn Fn(&FileConfig) -> Option<String>| {
                let (r, u) = both(f);
                pick([
                    (None, Source::Flag),
                    (e, Source::Env(var)),
                    (r, Source::RepoFile),
                    (u, Source::UserFile),
                ])
            };
        let schedule = |f: &dyn Fn(&ScheduleConfig) -> Option<String>, default: &str| {
            file_pair(&|c| c.schedule.as_ref().and_then(f)).unwrap_or(Sourced {
                value: default.to_string(),
                source: Source::Default,
            })
        };
        let remotes = layered(repo.remotes.clone(), user.remotes.clone());
        let ignore = layered(
            repo.capture.as_ref().and_then(|c| c.ignore.clone()),
            user.capture.as_ref().and_then(|c| c.ignore.clone()),
        )
        .unwrap_or(Sourced {
            value: DEFAULT_IGNORE.iter().map(|s| s.to_string()).collect(),
            source: Source::Default,
        });
        let token_file = layered(
            repo.gitea.as_ref().and_then(|g| g.token_file.clone()),
            user.gitea.as_ref().and_then(|g| g.token_file.clone()),
        );
        let lock_wait_secs = layered(repo.lock_wait_secs, user.lock_wait_secs).unwrap_or(Sourced {
            value: 30,
            source: Source::Default,
        });
        Ok(Config {
            dir,
            acting_agent,
            home_agent,
            hub: file_pair(&|c| c.hub.clone()),
            remotes,
            gitea_url: with_env("LEARNSYNC_GITEA_URL", env.gitea_url.clone(), &|c| {
                c.gitea.as_ref().and_then(|g| g.url.clone())
            }),
            gitea_repo: with_env("LEARNSYNC_GITEA_REPO", env.gitea_repo.clone(), &|c| {
                c.gitea.as_ref().and_then(|g| g.repo.clone())
            }),
            token_file,
            token_command: file_pair(&|c| c.gitea.as_ref().and_then(|g| g.token_command.clone())),
            wiki_git_url: file_pair(&|c| c.wiki.as_ref().and_then(|w| w.git_url.clone())),
            wiki_branch: file_pair(&|c| c.wiki.as_ref().and_then(|w| w.branch.clone())),
            wiki_template_dir: layered(
                repo.wiki.as_ref().and_then(|w| w.template_dir.clone()),
                user.wiki.as_ref().and_then(|w| w.template_dir.clone()),
            ),
            schedule_sync: schedule(&|s| s.sync.clone(), "0 */5 * * * *"),
            schedule_publish: schedule(&|s| s.publish.clone(), "0 0 * * * *"),
            schedule_review: schedule(&|s| s.review.clone(), "0 30 * * * *"),
            capture_ignore: ignore,
            watch: layered(repo.watch, user.watch).unwrap_or(Sourced {
                value: WatchMode::Auto,
                source: Source::Default,
            }),
            author_name: file_pair(&|c| c.author.as_ref().and_then(|a| a.name.clone())),
            author_email: file_pair(&|c| c.author.as_ref().and_then(|a| a.email.clone())),
            lock_wait_secs,
        })
    }

    /// The commit identity: from config, else `<agent> <agent@learnsync.invalid>`.
    pub fn identity(&self) -> crate::repo::Identity {
        let agent = &self.home_agent.value;
        crate::repo::Identity {
            name: self
                .author_name
                .as_ref()
                .map_or_else(|| agent.clone(), |s| s.value.clone()),
            email: self
                .author_email
                .as_ref()
                .map_or_else(|| format!("{agent}@learnsync.invalid"), |s| s.value.clone()),
        }
    }

    /// `(key, value, source)` rows for `learnsync config`; secrets masked.
    pub fn rows(&self) -> Vec<(String, String, String)> {
        let mut rows = vec![
            (
                "dir".into(),
                self.dir.value.display().to_string(),
                self.dir.source.to_string(),
            ),
            (
                "agent".into(),
                self.home_agent.value.clone(),
                self.home_agent.source.to_string(),
            ),
        ];
        let mut opt = |key: &str, v: &Option<Sourced<String>>| match v {
            Some(s) => rows.push((key.into(), s.value.clone(), s.source.to_string())),
            None => rows.push((key.into(), "(unset)".into(), "default".into())),
        };
        opt("hub", &self.hub);
        opt("gitea.url", &self.gitea_url);
        opt("gitea.repo", &self.gitea_repo);
        let token_command = self.token_command.as_ref().map(|s| Sourced {
            value: "(set, not shown)".to_string(),
            source: s.source.clone(),
        });
        opt("gitea.token_command", &token_command);
        opt("wiki.git_url", &self.wiki_git_url);
        opt("wiki.branch", &self.wiki_branch);
        let template_dir = self.wiki_template_dir.as_ref().map(|s| Sourced {
            value: s.value.display().to_string(),
            source: s.source.clone(),
        });
        opt("wiki.template_dir", &template_dir);
        opt("author.name", &self.author_name);
        opt("author.email", &self.author_email);
        rows.push((
            "gitea.token_file".into(),
            self.token_file
                .as_ref()
                .map_or("(unset)".into(), |s| s.value.display().to_string()),
            self.token_file
                .as_ref()
                .map_or("default".into(), |s| s.source.to_string()),
        ));
        rows.push((
            "gitea.token (GITEA_TOKEN)".into(),
            if std::env::var_os("GITEA_TOKEN").is_some() {
                "(set, not shown)"
            } else {
                "(unset)"
            }
            .into(),
            "env GITEA_TOKEN".into(),
        ));
        match &self.remotes {
            Some(r) => rows.push((
                "remotes".into(),
                r.value
                    .iter()
                    .map(|r| format!("{}(fetch={},push={})", r.name, r.fetch, r.push))
                    .collect::<Vec<_>>()
                    .join(", "),
                r.source.to_string(),
            )),
            None => rows.push((
                "remotes".into(),
                "(every git remote, fetch and push)".into(),
                "default".into(),
            )),
        }
        for (key, s) in [
            ("schedule.sync", &self.schedule_sync),
            ("schedule.publish", &self.schedule_publish),
            ("schedule.review", &self.schedule_review),
        ] {
            rows.push((key.into(), s.value.clone(), s.source.to_string()));
        }
        rows.push((
            "capture.ignore".into(),
            self.capture_ignore.value.join(", "),
            self.capture_ignore.source.to_string(),
        ));
        rows.push((
            "watch".into(),
            self.watch.value.to_string(),
            self.watch.source.to_string(),
        ));
        rows.push((
            "lock_wait_secs".into(),
            self.lock_wait_secs.value.to_string(),
            self.lock_wait_secs.source.to_string(),
        ));
        rows
    }
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
        ] {
            let err = FileConfig::parse(text).expect_err(text);
            assert!(err.contains(want), "{text:?} -> {err}");
        }
    }
}
