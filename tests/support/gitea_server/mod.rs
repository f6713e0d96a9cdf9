//! A Gitea-compatible test server: the wiki API of Gitea v1.25.4 over a real
//! bare git repo, with request recording and per-test fault injection.
//!
//! ```ignore
//! let server = GiteaServer::start();
//! server.inject(FaultRule::next(1, Fault::status(503).retry_after("1")).on_method("POST"));
//! // ... point a GiteaClient at server.url(), repo server.repo_ref(), token WRITE_TOKEN
//! assert_eq!(server.writes().len(), 2);
//! ```
#![allow(dead_code)]

mod api;
mod http;
mod wiki_git;

use std::collections::{BTreeMap, HashMap};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

pub use http::{Request, Response};
use wiki_git::{Ident, WikiRepo};

/// A token with `write:repository` (implies read).
pub const WRITE_TOKEN: &str = "3f2a9c1e5b7d4f6a8c0e2b4d6f8a1c3e5b7d9f0a";
/// A token with only `read:repository`.
pub const READ_TOKEN: &str = "0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c";

/// A token's scope on the repository category.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Read,
    Write,
}

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
    /// The user the tokens belong to; author and committer of API writes.
    pub api_user: String,
    pub version: String,
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
    tokens: HashMap<String, Scope>,
    faults: Vec<FaultRule>,
    log: Vec<Recorded>,
    wiki: WikiRepo,
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

impl GiteaServer {
    /// Starts with `acme/docs`, wiki enabled and empty, WRITE_TOKEN and READ_TOKEN.
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
        let wiki = WikiRepo::new(
            dir.path()
                .join(format!("{}.wiki.git", config.repo.to_lowercase())),
            &config.wiki_branch,
            scratch,
        );
        let tokens = HashMap::from([
            (WRITE_TOKEN.to_string(), Scope::Write),
            (READ_TOKEN.to_string(), Scope::Read),
        ]);
        let state = Arc::new(Mutex::new(State {
            config,
            base_url: url.clone(),
            tokens,
            faults: Vec::new(),
            log: Vec::new(),
            wiki,
        }));
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

    pub fn add_token(&self, token: &str, scope: Scope) {
        lock(&self.state).tokens.insert(token.to_string(), scope);
    }

    /// Changes the repository settings (wiki on/off, archived, private).
    pub fn configure(&self, change: impl FnOnce(&mut ServerConfig)) {
        change(&mut lock(&self.state).config);
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

    /// The server's temp dir (holds the wiki repo).
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
