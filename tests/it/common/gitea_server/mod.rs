//! A Gitea-compatible test server: Gitea v1.25.4's wiki API over a real bare
//! wiki repo, and the review API (contents, branches, branch protection,
//! pulls and merges, issues, comments, labels, timeline, users and
//! permissions) over a real bare hub repo that tests use as a git remote by
//! path; with request recording and per-test fault injection.
//!
//! ```ignore
//! let server = GiteaServer::start();
//! server.seed_branch("main", &[("README.md", b"hub\n")], "init");
//! server.protect(Protection::new("main").merge_whitelist(&[MAINTAINER]));
//! server.inject(FaultRule::next(1, Fault::status(503).retry_after("1")).on_method("POST"));
//! // ... point a GiteaClient at server.url(), repo server.repo_ref(), token BOT_TOKEN;
//! // `git clone server.repo_git_path()` works too, with the protection enforced.
//! assert_eq!(server.writes().len(), 2);
//! ```
//!
//! Each Gitea quirk is encoded where it is handled, with the Gitea source
//! file it comes from (API-NOTES.md beside the swagger has the rest).
#![allow(dead_code)]

mod api;
mod hooks;
mod hub_git;
mod issues_api;
mod json;
mod pulls_api;
mod repo_api;
mod store;
mod wiki_api;
mod wiki_git;

use std::collections::{BTreeMap, HashMap};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use super::http;
pub use hooks::PUSHER_ENV;
pub use http::{Request, Response};
use hub_git::{HubRepo, Sig};
pub use store::{Access, Protection};
use store::{Comment, Issue, Label, Token, User};
use wiki_git::{Ident, WikiRepo};

/// The bot's token with only `write:repository` (implies read): enough for
/// the wiki, not for issues.
pub const WRITE_TOKEN: &str = "3f2a9c1e5b7d4f6a8c0e2b4d6f8a1c3e5b7d9f0a";
/// The bot's token with only `read:repository`.
pub const READ_TOKEN: &str = "0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c";
/// The bot's review token: `write:repository`, `write:issue`, `read:user`
/// (API-NOTES §d's recommendation). The bot has write access, not admin.
pub const BOT_TOKEN: &str = "b07b07b07b07b07b07b07b07b07b07b07b07b07b";
/// A repo admin's token with the same scopes.
pub const MAINTAINER_TOKEN: &str = "a11a11a11a11a11a11a11a11a11a11a11a11a11a";
/// A reader's token with the same scopes; the user only has read access.
pub const READER_TOKEN: &str = "ead0ead0ead0ead0ead0ead0ead0ead0ead0ead0";

/// The maintainer: repo admin (a collaborator with admin rights).
pub const MAINTAINER: &str = "maintainer";
/// A user with read access only.
pub const READER: &str = "reader";

/// The scopes of `BOT_TOKEN`, `MAINTAINER_TOKEN` and `READER_TOKEN`.
pub const REVIEW_SCOPES: &[&str] = &["write:repository", "write:issue", "read:user"];

/// The one repository the server hosts, and server-wide settings.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub owner: String,
    pub repo: String,
    pub has_wiki: bool,
    pub archived: bool,
    pub private: bool,
    /// `DefaultWikiBranch`; `main` for repos created on 1.22+.
    pub wiki_branch: String,
    /// The bot: owner of the tokens above (but the maintainer's and
    /// reader's), author and committer of its API writes.
    pub api_user: String,
    pub version: String,
    /// The hub repo's default branch.
    pub default_branch: String,
    /// Who a path push is by when `GITEA_TEST_PUSHER` is unset; `None`: the bot.
    pub default_pusher: Option<String>,
    /// `[api] MAX_RESPONSE_ITEMS`.
    pub max_response_items: i64,
    /// `[api] DEFAULT_PAGING_NUM`.
    pub default_paging_num: i64,
    /// The database's limit on an issue's, a pull's or a comment's text:
    /// `Some(65_535)` is a Gitea on MySQL (`TEXT`), which answers 500
    /// "Data too long for column 'content'" past it; `None` (SQLite,
    /// PostgreSQL's `TEXT`) stores any length.
    pub text_column_limit: Option<usize>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            owner: "acme".into(),
            repo: "docs".into(),
            has_wiki: true,
            archived: false,
            private: false,
            wiki_branch: "main".into(),
            api_user: "learnsync-bot".into(),
            version: "1.25.4".into(),
            default_branch: "main".into(),
            default_pusher: None,
            max_response_items: 50,
            default_paging_num: 30,
            text_column_limit: None,
        }
    }
}

/// What goes wrong with a request.
#[derive(Debug, Clone, PartialEq)]
pub enum Fault {
    /// Answer this status without touching the wiki (a proxy or load shedder).
    Status {
        status: u16,
        retry_after: Option<String>,
    },
    /// Answer this status and body without touching the wiki (e.g. a proxy's
    /// error page that echoes request headers back).
    Body { status: u16, body: String },
    /// Read the request, then close the socket without answering.
    DropConnection,
    /// Wait, then serve the request normally (the write still lands).
    Delay(Duration),
    /// Serve the request (the write lands), then answer this status instead.
    LandThenStatus(u16),
}

impl Fault {
    pub fn status(status: u16) -> Self {
        Fault::Status {
            status,
            retry_after: None,
        }
    }

    /// Adds `Retry-After: value` to a `Fault::Status`.
    pub fn retry_after(self, value: &str) -> Self {
        match self {
            Fault::Status { status, .. } => Fault::Status {
                status,
                retry_after: Some(value.to_string()),
            },
            other => other,
        }
    }
}

#[derive(Debug, Clone)]
enum Trigger {
    Next(u32),
    Random { probability: f64, state: u64 },
}

/// When a fault applies: to the next N matching requests, or to each matching
/// request with a seeded probability (reproducible).
#[derive(Debug, Clone)]
pub struct FaultRule {
    fault: Fault,
    trigger: Trigger,
    method: Option<String>,
    path_contains: Option<String>,
}

impl FaultRule {
    pub fn next(n: u32, fault: Fault) -> Self {
        FaultRule {
            fault,
            trigger: Trigger::Next(n),
            method: None,
            path_contains: None,
        }
    }

    pub fn random(probability: f64, seed: u64, fault: Fault) -> Self {
        FaultRule {
            fault,
            trigger: Trigger::Random {
                probability,
                state: seed,
            },
            method: None,
            path_contains: None,
        }
    }

    /// Only requests with this method ("POST", "PATCH", ...).
    pub fn on_method(mut self, method: &str) -> Self {
        self.method = Some(method.to_ascii_uppercase());
        self
    }

    /// Only requests whose target contains this text.
    pub fn on_path(mut self, fragment: &str) -> Self {
        self.path_contains = Some(fragment.to_string());
        self
    }

    fn fire(&mut self, req: &Request) -> Option<Fault> {
        if self.method.as_ref().is_some_and(|m| *m != req.method)
            || self
                .path_contains
                .as_ref()
                .is_some_and(|p| !req.target.contains(p.as_str()))
        {
            return None;
        }
        match &mut self.trigger {
            Trigger::Next(0) => None,
            Trigger::Next(n) => {
                *n -= 1;
                Some(self.fault.clone())
            }
            Trigger::Random { probability, state } => {
                *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
                let mut z = *state;
                z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                z ^= z >> 31;
                let unit = (z >> 11) as f64 / (1u64 << 53) as f64;
                (unit < *probability).then(|| self.fault.clone())
            }
        }
    }
}

/// One request as the server saw it, and what it answered.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    /// Raw target: path and query, still escaped.
    pub target: String,
    /// Headers, with the token in `Authorization` replaced by `[REDACTED]`.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// `None` when the connection was dropped.
    pub status: Option<u16>,
    pub response_headers: Vec<(String, String)>,
    pub response_body: Vec<u8>,
    pub fault: Option<Fault>,
}

impl Recorded {
    pub fn is_write(&self) -> bool {
        !matches!(self.method.as_str(), "GET" | "HEAD")
    }

    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or("")
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json_body(&self) -> Option<serde_json::Value> {
        serde_json::from_slice(&self.body).ok()
    }

    pub fn json_response(&self) -> Option<serde_json::Value> {
        serde_json::from_slice(&self.response_body).ok()
    }
}

struct State {
    config: ServerConfig,
    base_url: String,
    tokens: HashMap<String, Token>,
    users: Vec<User>,
    faults: Vec<FaultRule>,
    log: Vec<Recorded>,
    wiki: WikiRepo,
    hub: HubRepo,
    /// Where the hub's post-receive hook appends accepted pushes.
    spool: PathBuf,
    labels: Vec<Label>,
    /// Issues and pulls, by index (one number space).
    issues: Vec<Issue>,
    /// Comments and timeline events of every issue, in creation order.
    comments: Vec<Comment>,
    protections: Vec<store::Protection>,
    /// (issue index, user) of each approving review.
    approvals: Vec<(i64, String)>,
    /// One counter for every database id (issues, pulls, comments, labels),
    /// so no two kinds of id coincide by accident.
    next_id: i64,
    /// The signed-in caller of the request being handled.
    doer: Option<String>,
}

impl State {
    fn new_id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    fn user(&self, login: &str) -> Option<&User> {
        self.users
            .iter()
            .find(|u| u.login.eq_ignore_ascii_case(login))
    }

    fn default_pusher(&self) -> String {
        self.config
            .default_pusher
            .clone()
            .unwrap_or_else(|| self.config.api_user.clone())
    }

    /// Rewrites the hub's hooks after users or protection rules changed.
    fn write_hooks(&self) {
        let pre = hooks::pre_receive(
            &self.protections,
            &self.users,
            &self.default_pusher(),
            &self.config.default_branch,
        );
        let post = hooks::post_receive(&self.spool, &self.default_pusher());
        if let Err(e) = self
            .hub
            .write_hook("pre-receive", &pre)
            .and_then(|_| self.hub.write_hook("post-receive", &post))
        {
            panic!("cannot install the hub's hooks: {e}");
        }
    }

    /// The signature of a user's commit made now.
    fn sig(&self, login: &str, when: i64) -> Sig {
        let (name, email) = match self.user(login) {
            Some(u) => (u.git_name().to_string(), u.email()),
            None => (login.to_string(), format!("{login}@noreply.localhost")),
        };
        Sig { name, email, when }
    }
}

/// Seconds since the epoch, the resolution Gitea stores times in.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// The running server. Dropping it stops the thread and deletes its files.
pub struct GiteaServer {
    url: String,
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    dir: tempfile::TempDir,
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn git_env(cmd: &mut Command) -> &mut Command {
    cmd.env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_AUTHOR_NAME", "A Person")
        .env("GIT_AUTHOR_EMAIL", "person@example.com")
        .env("GIT_COMMITTER_NAME", "A Person")
        .env("GIT_COMMITTER_EMAIL", "person@example.com")
}

impl GiteaServer {
    /// Starts with `acme/docs`: wiki enabled and empty, an empty hub repo
    /// (push a `main` or call `seed_branch`), users `acme` (owner), the bot
    /// (write), `maintainer` (admin) and `reader` (read), and the tokens above.
    pub fn start() -> Self {
        Self::start_with(ServerConfig::default())
    }

    pub fn start_with(config: ServerConfig) -> Self {
        let dir = tempfile::tempdir().expect("server temp dir");
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        listener
            .set_nonblocking(true)
            .expect("nonblocking listener");
        let url = format!("http://{}", listener.local_addr().expect("local addr"));
        let scratch = dir.path().join("scratch");
        std::fs::create_dir_all(&scratch).expect("scratch dir");
        let lower = config.repo.to_lowercase();
        let wiki = WikiRepo::new(
            dir.path().join(format!("{lower}.wiki.git")),
            &config.wiki_branch,
            scratch.clone(),
        );
        let hub = HubRepo::create(
            dir.path().join(format!("{lower}.git")),
            &config.default_branch,
            scratch,
        )
        .expect("hub repo");
        let created = 1_768_903_200; // 2026-01-20T10:00:00Z
        let user = |id: i64, login: &str, access: Access| User {
            id,
            login: login.to_string(),
            full_name: String::new(),
            site_admin: false,
            access,
            created,
        };
        let users = vec![
            user(1, &config.owner, Access::Owner),
            user(2, &config.api_user, Access::Write),
            user(3, MAINTAINER, Access::Admin),
            user(4, READER, Access::Read),
        ];
        let token = |user: &str, scopes: &[&str]| Token {
            user: user.to_string(),
            scopes: scopes.iter().map(|s| s.to_string()).collect(),
        };
        let tokens = HashMap::from([
            (
                WRITE_TOKEN.to_string(),
                token(&config.api_user, &["write:repository"]),
            ),
            (
                READ_TOKEN.to_string(),
                token(&config.api_user, &["read:repository"]),
            ),
            (
                BOT_TOKEN.to_string(),
                token(&config.api_user, REVIEW_SCOPES),
            ),
            (
                MAINTAINER_TOKEN.to_string(),
                token(MAINTAINER, REVIEW_SCOPES),
            ),
            (READER_TOKEN.to_string(), token(READER, REVIEW_SCOPES)),
        ]);
        let spool = dir.path().join("post-receive.spool");
        let state = State {
            config,
            base_url: url.clone(),
            tokens,
            users,
            faults: Vec::new(),
            log: Vec::new(),
            wiki,
            hub,
            spool,
            labels: Vec::new(),
            issues: Vec::new(),
            comments: Vec::new(),
            protections: Vec::new(),
            approvals: Vec::new(),
            next_id: 100,
            doer: None,
        };
        state.write_hooks();
        let state = Arc::new(Mutex::new(state));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let state = Arc::clone(&state);
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || accept_loop(listener, state, stop))
        };
        GiteaServer {
            url,
            state,
            stop,
            thread: Some(thread),
            dir,
        }
    }

    /// `http://127.0.0.1:<port>`, the ROOT_URL (the API is under `/api/v1`).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// `owner/repo`.
    pub fn repo_ref(&self) -> String {
        let s = lock(&self.state);
        format!("{}/{}", s.config.owner, s.config.repo)
    }

    /// The bot's login (`ServerConfig::api_user`).
    pub fn bot(&self) -> String {
        lock(&self.state).config.api_user.clone()
    }

    /// A token for `user` with these scopes (`write:issue`, `read:user`, `all`, ...).
    pub fn add_token(&self, token: &str, user: &str, scopes: &[&str]) {
        lock(&self.state).tokens.insert(
            token.to_string(),
            Token {
                user: user.to_string(),
                scopes: scopes.iter().map(|s| s.to_string()).collect(),
            },
        );
    }

    /// Adds a user (or changes an existing one's access to the repository).
    pub fn set_access(&self, login: &str, access: Access) {
        let mut s = lock(&self.state);
        if let Some(user) = s
            .users
            .iter_mut()
            .find(|u| u.login.eq_ignore_ascii_case(login))
        {
            user.access = access;
        } else {
            let id = s.users.len() as i64 + 1;
            s.users.push(User {
                id,
                login: login.to_string(),
                full_name: String::new(),
                site_admin: false,
                access,
                created: now(),
            });
        }
        s.write_hooks();
    }

    /// Changes the repository settings (wiki on/off, archived, private).
    pub fn configure(&self, change: impl FnOnce(&mut ServerConfig)) {
        let mut s = lock(&self.state);
        change(&mut s.config);
        s.write_hooks();
    }

    /// Adds (or replaces, by rule name) a branch protection rule; the hub's
    /// pre-receive hook enforces it on pushes from then on.
    pub fn protect(&self, rule: Protection) {
        let mut s = lock(&self.state);
        let mut rule = rule;
        rule.created = now();
        s.protections.retain(|r| r.rule_name != rule.rule_name);
        s.protections.push(rule);
        s.write_hooks();
    }

    pub fn unprotect(&self, rule_name: &str) {
        let mut s = lock(&self.state);
        s.protections.retain(|r| r.rule_name != rule_name);
        s.write_hooks();
    }

    /// Adds a fault rule; rules are tried in the order they were added.
    pub fn inject(&self, rule: FaultRule) {
        lock(&self.state).faults.push(rule);
    }

    pub fn clear_faults(&self) {
        lock(&self.state).faults.clear();
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        lock(&self.state).log.clone()
    }

    /// Every non-GET request so far.
    pub fn writes(&self) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|r| r.is_write())
            .collect()
    }

    pub fn clear_requests(&self) {
        lock(&self.state).log.clear();
    }

    /// The bare wiki repository (`<tmp>/<repo>.wiki.git`); absent until the
    /// first write, like Gitea's.
    pub fn wiki_repo_path(&self) -> PathBuf {
        lock(&self.state).wiki.path().to_path_buf()
    }

    /// Clones the wiki with the `git` CLI into `dest`, as a person would.
    pub fn clone_wiki(&self, dest: &Path) {
        let out = Command::new("git")
            .arg("clone")
            .arg("-q")
            .arg(self.wiki_repo_path())
            .arg(dest)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .expect("run git clone");
        assert!(
            out.status.success(),
            "git clone failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The files at the tip of the wiki branch (empty for an empty wiki).
    pub fn wiki_files(&self) -> BTreeMap<String, Vec<u8>> {
        let s = lock(&self.state);
        let Some(head) = s.wiki.head() else {
            return BTreeMap::new();
        };
        s.wiki
            .root_entries(&head)
            .into_iter()
            .filter_map(|e| Some((e.name.clone(), s.wiki.read(&head, &e.name)?)))
            .collect()
    }

    /// A person's direct commit to the wiki repo (no API, no events): writes
    /// `git_path` (or deletes it when `content` is `None`). Returns the sha.
    pub fn commit_as_person(
        &self,
        git_path: &str,
        content: Option<&[u8]>,
        message: &str,
    ) -> String {
        let s = lock(&self.state);
        let who = Ident {
            name: "A Person".into(),
            email: "person@example.com".into(),
        };
        let (remove, add) = match content {
            Some(bytes) => (Vec::new(), Some((git_path, bytes))),
            None => (vec![git_path.to_string()], None),
        };
        s.wiki
            .commit(&remove, add, message, &who)
            .expect("person's commit to the wiki")
    }

    /// The hub repository (`<tmp>/<repo>.git`), a bare repo to use as a git
    /// remote by path. Its hooks enforce branch protection on pushes.
    pub fn repo_git_path(&self) -> PathBuf {
        lock(&self.state).hub.path().to_path_buf()
    }

    /// Commits `files` on top of `branch` (creating it) as the repo owner,
    /// through plumbing: no hooks, no protection, no events — test setup, like
    /// a repository imported with history. Returns the new tip.
    pub fn seed_branch(&self, branch: &str, files: &[(&str, &[u8])], message: &str) -> String {
        let s = lock(&self.state);
        let parent = s.hub.branch(branch);
        let changes: Vec<(String, Option<Vec<u8>>)> = files
            .iter()
            .map(|(p, b)| (p.to_string(), Some(b.to_vec())))
            .collect();
        let tree = s
            .hub
            .tree_with(parent.as_deref(), &changes)
            .expect("seed tree");
        let who = s.sig(&s.config.owner, now());
        let parents: Vec<&str> = parent.iter().map(String::as_str).collect();
        let sha = s
            .hub
            .commit_tree(&tree, &parents, message, &who, &who)
            .expect("seed commit");
        s.hub
            .update_ref(&format!("refs/heads/{branch}"), &sha, parent.as_deref())
            .expect("seed ref");
        sha
    }

    /// The tip of a hub branch.
    pub fn branch_sha(&self, branch: &str) -> Option<String> {
        lock(&self.state).hub.branch(branch)
    }

    /// A file on a hub branch.
    pub fn hub_file(&self, branch: &str, path: &str) -> Option<Vec<u8>> {
        let s = lock(&self.state);
        let tip = s.hub.branch(branch)?;
        s.hub.read(&tip, path)
    }

    /// Runs `git <args>` in the bare hub repo and returns its stdout
    /// (`server.hub_git(&["log", "--format=%P", "-1", "main"])`).
    pub fn hub_git(&self, args: &[&str]) -> String {
        let path = self.repo_git_path();
        let out = git_env(&mut Command::new("git"))
            .arg("--git-dir")
            .arg(&path)
            .args(args)
            .output()
            .expect("run git in the hub");
        assert!(
            out.status.success(),
            "git {args:?} in the hub: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// `git push --delete <branch>` to the hub by path, as `pusher`, from a
    /// scratch clone: the hooks run, and what Gitea's post-receive does for a
    /// deleted branch (close its open pulls, note the deletion) happens.
    /// `Err` holds git's stderr when the push is refused.
    pub fn delete_branch_by_push(&self, branch: &str, pusher: &str) -> Result<(), String> {
        let hub = self.repo_git_path();
        // `git push` needs a repository to run in; deleting a remote ref needs
        // no objects, so an empty scratch repo will do.
        let scratch = self.dir.path().join("scratch").join("pusher.git");
        if !scratch.exists() {
            let out = git_env(&mut Command::new("git"))
                .args(["init", "--bare", "-q"])
                .arg(&scratch)
                .output()
                .map_err(|e| format!("git init: {e}"))?;
            if !out.status.success() {
                return Err(String::from_utf8_lossy(&out.stderr).into_owned());
            }
        }
        let out = git_env(&mut Command::new("git"))
            .arg("--git-dir")
            .arg(&scratch)
            .args(["push", "-q"])
            .arg(&hub)
            .arg("--delete")
            .arg(branch)
            .env(PUSHER_ENV, pusher)
            .output()
            .map_err(|e| format!("run git push: {e}"))?;
        self.process_pushes();
        if out.status.success() {
            Ok(())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).into_owned())
        }
    }

    /// Applies pushes the hub's post-receive hook spooled (the server also
    /// does this before answering each request).
    pub fn process_pushes(&self) {
        lock(&self.state).drain_pushes();
    }

    /// An approving review of pull `index` by `user` (Gitea's review UI or
    /// `POST .../reviews`, which the server does not serve).
    pub fn approve(&self, index: i64, user: &str) {
        let mut s = lock(&self.state);
        s.approvals.push((index, user.to_string()));
        let at = now();
        s.add_comment(index, store::CommentKind::Review, user, "", at);
    }

    /// The server's temp dir (holds the wiki and hub repos).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for GiteaServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn accept_loop(listener: TcpListener, state: Arc<Mutex<State>>, stop: Arc<AtomicBool>) {
    let mut workers: Vec<JoinHandle<()>> = Vec::new();
    while !stop.load(Ordering::SeqCst) {
        match listener.accept() {
            Ok((stream, _)) => {
                let state = Arc::clone(&state);
                workers.push(std::thread::spawn(move || serve(stream, &state)));
                workers.retain(|w| !w.is_finished());
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(_) => std::thread::sleep(Duration::from_millis(2)),
        }
    }
    for worker in workers {
        let _ = worker.join();
    }
}

fn serve(mut stream: TcpStream, state: &Mutex<State>) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let Some(req) = http::read_request(&mut stream) else {
        return;
    };
    let fault = {
        let mut s = lock(state);
        s.faults.iter_mut().find_map(|rule| rule.fire(&req))
    };
    let response = match &fault {
        Some(Fault::DropConnection) => None,
        Some(Fault::Status {
            status,
            retry_after,
        }) => {
            let mut response = Response::text(*status, "upstream unavailable\n");
            if let Some(value) = retry_after {
                response = response.with_header("Retry-After", value);
            }
            Some(response)
        }
        Some(Fault::Body { status, body }) => Some(Response::text(*status, body)),
        Some(Fault::Delay(wait)) => {
            std::thread::sleep(*wait);
            Some(lock(state).handle(&req))
        }
        Some(Fault::LandThenStatus(status)) => {
            let mut s = lock(state);
            let _landed = s.handle(&req);
            let url = format!("{}/api/swagger", s.base_url);
            Some(Response::json(
                *status,
                &serde_json::json!({"message": "", "url": url}),
            ))
        }
        None => Some(lock(state).handle(&req)),
    };
    let headers = req
        .headers
        .iter()
        .map(|(k, v)| {
            if k.eq_ignore_ascii_case("authorization") {
                let scheme = v.split_whitespace().next().unwrap_or("");
                (k.clone(), format!("{scheme} [REDACTED]"))
            } else {
                (k.clone(), v.clone())
            }
        })
        .collect();
    lock(state).log.push(Recorded {
        method: req.method.clone(),
        target: req.target.clone(),
        headers,
        body: req.body.clone(),
        status: response.as_ref().map(|r| r.status),
        response_headers: response
            .as_ref()
            .map(|r| r.headers.clone())
            .unwrap_or_default(),
        response_body: response
            .as_ref()
            .map(|r| r.body.clone())
            .unwrap_or_default(),
        fault,
    });
    match response {
        Some(response) => http::write_response(&mut stream, &response),
        None => {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }
}
