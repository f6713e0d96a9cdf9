//! The table of every configuration key ([`KEYS`]): its place in the
//! files, its environment variable, its default, its type and whether it
//! is secret. Reading, resolution and `learnsync config` all go by it.

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
    pub(super) fn expected(self) -> &'static str {
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
