//! Talking to remotes: fetch through gix (`agents/*` and `main` into
//! `refs/remotes/<remote>/…`), push through the `git` binary (gix cannot
//! push yet), fast-forward only.

use super::{GitError, Repo, Result, fail};
use secrecy::{ExposeSecret, SecretString};
use std::process::Command;
use std::sync::atomic::AtomicBool;

/// Above this many objects written by the cycle, a push sends a whole
/// pack rather than a thin one ([`Repo::start_push_as`]).
const THIN_UP_TO: usize = 2_000;

/// How a push went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PushOutcome {
    /// The remote branch now points at our commit.
    Pushed,
    /// It already did: git sent nothing.
    UpToDate,
    /// Not a fast-forward: someone else got there first.
    Rejected(String),
    /// Anything else: unreachable, auth, a hook said no.
    Failed(String),
}

/// The refspecs a sync fetches.
pub fn fetch_refspecs(remote: &str) -> [String; 2] {
    [
        format!("+refs/heads/agents/*:refs/remotes/{remote}/agents/*"),
        format!("+refs/heads/main:refs/remotes/{remote}/main"),
    ]
}

/// A token for one http(s) origin (`https://host:port`): git sends it only
/// to URLs under that origin, whatever URL the remote resolves to.
#[derive(Clone)]
pub struct HttpAuth {
    pub origin: String,
    pub token: SecretString,
}

impl std::fmt::Debug for HttpAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HttpAuth({} [token])", self.origin)
    }
}

/// A git process for talking to a remote; an HTTP token travels in the
/// environment (`GIT_CONFIG_*`), never on the command line or on disk, and
/// as `http.<origin>/.extraHeader`, so git itself keeps it from any other
/// host (an `insteadOf` rewrite, a redirect to elsewhere).
fn git_command(root: &std::path::Path, auth: Option<&HttpAuth>) -> Command {
    let mut c = Command::new("git");
    c.current_dir(root).env("GIT_TERMINAL_PROMPT", "0");
    if let Some(auth) = auth {
        c.env("GIT_CONFIG_COUNT", "1")
            .env(
                "GIT_CONFIG_KEY_0",
                format!("http.{}/.extraHeader", auth.origin),
            )
            .env(
                "GIT_CONFIG_VALUE_0",
                format!("Authorization: token {}", auth.token.expose_secret()),
            );
    }
    c
}

/// Git's words with the token (if any) and other secrets taken out.
fn scrubbed(text: &str, auth: Option<&HttpAuth>) -> String {
    let mut text = text.to_string();
    if let Some(a) = auth {
        text = text.replace(a.token.expose_secret(), "[REDACTED:token]");
    }
    crate::redact::redact(&text).into_owned()
}

fn is_http(url: &str) -> bool {
    url.starts_with("https://") || url.starts_with("http://")
}

impl Repo {
    /// The fetch URL of a configured remote.
    pub fn remote_url(&self, remote_name: &str) -> Option<String> {
        let remote = self.git.find_remote(remote_name).ok()?;
        remote
            .url(gix::remote::Direction::Fetch)
            .map(|u| u.to_bstring().to_string())
    }

    /// Fetches `agents/*` and `main` from a configured remote: in process
    /// through gix for paths, `file://`, `git://` and `ssh://` (the system ssh
    /// and its agent); through the git binary for `http(s)://`, so git's
    /// credential helpers (or `token`, sent as a header) authenticate.
    pub fn fetch(&self, remote_name: &str, auth: Option<&HttpAuth>) -> Result<()> {
        if self.remote_url(remote_name).is_some_and(|u| is_http(&u)) {
            return self.fetch_with_git(remote_name, auth);
        }
        self.fetch_with_gix(remote_name)
    }

    fn fetch_with_git(&self, remote_name: &str, auth: Option<&HttpAuth>) -> Result<()> {
        // `main` may not exist yet; a glob never fails on a missing ref.
        let spec = format!("+refs/heads/*:refs/remotes/{remote_name}/*");
        let out = git_command(self.root(), auth)
            .args([
                "fetch",
                "--quiet",
                "--no-tags",
                "--no-write-fetch-head",
                remote_name,
                &spec,
            ])
            .output()
            .map_err(fail(format!("run git fetch {remote_name}")))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(GitError {
                action: format!("fetch from {remote_name}"),
                message: scrubbed(String::from_utf8_lossy(&out.stderr).trim(), auth),
            })
        }
    }

    fn fetch_with_gix(&self, remote_name: &str) -> Result<()> {
        let action = format!("fetch from {remote_name}");
        let mut remote = self
            .git
            .find_remote(remote_name)
            .map_err(fail(action.clone()))?;
        remote
            .replace_refspecs(
                fetch_refspecs(remote_name).iter().map(|s| s.as_str()),
                gix::remote::Direction::Fetch,
            )
            .map_err(fail(action.clone()))?;
        let remote = remote.with_fetch_tags(gix::remote::fetch::Tags::None);
        let interrupt = AtomicBool::new(false);
        remote
            .connect(gix::remote::Direction::Fetch)
            .map_err(fail(action.clone()))?
            .prepare_fetch(gix::progress::Discard, Default::default())
            .map_err(fail(action.clone()))?
            .receive(gix::progress::Discard, &interrupt)
            .map_err(super::fail_chain(action))?;
        Ok(())
    }

    /// The remote-tracking refs a fetch produced: `(short name, commit)`,
    /// e.g. `("origin/agents/codex", …)`, sorted.
    pub fn tracking_refs(&self, remote_name: &str) -> Result<Vec<(String, gix::ObjectId)>> {
        let prefix = format!("refs/remotes/{remote_name}/");
        let platform = self.git.references().map_err(fail("list refs"))?;
        let iter = platform
            .prefixed(prefix.as_str())
            .map_err(fail("list refs"))?;
        let mut out = Vec::new();
        for r in iter {
            let mut r = r.map_err(|e| GitError {
                action: "list refs".into(),
                message: e.to_string(),
            })?;
            let name = r.name().as_bstr().to_string();
            let Some(rest) = name.strip_prefix(&prefix) else {
                continue;
            };
            // `agents/<agent>` only: the fetch's `agents/*` also brings a
            // nested `agents/a/agents/victim`, which names no agent (and
            // would read as victim's branch to a reader of its tail).
            let agent_branch = rest
                .strip_prefix("agents/")
                .is_some_and(|name| crate::paths::validate_agent(name).is_ok());
            if rest != "main" && !agent_branch {
                continue;
            }
            let id = r
                .peel_to_id()
                .map_err(fail(format!("resolve {name}")))?
                .detach();
            out.push((format!("{remote_name}/{rest}"), id));
        }
        out.sort();
        Ok(out)
    }

    /// Starts pushing `refs/heads/<branch>` to the same name on `remote`,
    /// never forcing: the git binary works while the caller does something
    /// else; [`PendingPush::finish`] waits for it and says how it went.
    pub fn start_push(&self, remote: &str, branch: &str, auth: Option<&HttpAuth>) -> PendingPush {
        self.start_push_as(remote, branch, branch, auth)
    }

    /// Starts pushing `refs/heads/<branch>` to `refs/heads/<to>` on `remote`
    /// (a hosted agent's branch gets the home branch's commit), never forcing.
    pub fn start_push_as(
        &self,
        remote: &str,
        branch: &str,
        to: &str,
        auth: Option<&HttpAuth>,
    ) -> PendingPush {
        let spec = format!("refs/heads/{branch}:refs/heads/{to}");
        // git reads the objects it sends from disk.
        if let Err(e) = self.persist_objects() {
            return PendingPush {
                child: Err(std::io::Error::other(e.to_string())),
                auth: None,
            };
        }
        // A thin pack lets git send a changed file as a delta against the
        // version the remote has; finding those versions costs git a walk
        // of every remote head's tree per object sent, which on a large
        // recompute (thousands of rewritten learnings under folders of
        // thousands of files) took 5.1 of a 5.6-second push at 100,000
        // learnings to save 6% of the bytes (issue 32). Past a few
        // thousand objects, whole objects go instead.
        let thin = if self.written.get() > THIN_UP_TO {
            "--no-thin"
        } else {
            "--thin"
        };
        let child = git_command(self.root(), auth)
            .args(["push", "--porcelain", "--quiet", thin, remote, &spec])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn();
        PendingPush {
            child,
            auth: auth.cloned(),
        }
    }
}

/// A `git push` running (see [`Repo::start_push`]). Its output is a few
/// lines (`--porcelain --quiet`), well within a pipe's buffer, so it never
/// blocks on the caller before `finish`.
pub struct PendingPush {
    child: std::io::Result<std::process::Child>,
    auth: Option<HttpAuth>,
}

impl PendingPush {
    /// Waits for the push and says how it went.
    pub fn finish(self) -> PushOutcome {
        let auth = self.auth.as_ref();
        let out = match self.child.and_then(|c| c.wait_with_output()) {
            Ok(o) => o,
            Err(e) => return PushOutcome::Failed(format!("cannot run git: {e}")),
        };
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let summary = scrubbed(text.trim(), auth);
        if out.status.success() {
            // `--porcelain` flags each ref: `=` is "[up to date]".
            let stdout = String::from_utf8_lossy(&out.stdout);
            if stdout.lines().any(|l| l.starts_with('=')) {
                PushOutcome::UpToDate
            } else {
                PushOutcome::Pushed
            }
        } else if text.contains("[rejected]")
            || text.contains("non-fast-forward")
            || text.contains("fetch first")
            // The remote moved (or was moving) the ref under us: another
            // push of the same branch got there first — a sibling clone, or
            // the `git push` a killed sync left running. Fetch and retry.
            || text.contains("failed to update ref")
            || text.contains("cannot lock ref")
            || text.contains("failed to lock")
        {
            PushOutcome::Rejected(summary)
        } else {
            PushOutcome::Failed(summary)
        }
    }
}

/// Checks that `git` (for push) is on PATH and new enough.
pub fn check_git_binary() -> std::result::Result<(), String> {
    let out = Command::new("git").arg("--version").output().map_err(|e| {
        format!(
            "the git binary is needed to push and was not found on PATH ({e}); install git >= 2.30"
        )
    })?;
    let text = String::from_utf8_lossy(&out.stdout);
    let version: Vec<u32> = text
        .split_whitespace()
        .nth(2)
        .unwrap_or_default()
        .split('.')
        .take(2)
        .filter_map(|p| p.parse().ok())
        .collect();
    match version.as_slice() {
        [major, minor] if (*major, *minor) >= (2, 30) => Ok(()),
        _ => Err(format!(
            "git >= 2.30 is needed to push; found {:?}",
            text.trim()
        )),
    }
}
