//! The work-tree watcher (`learnsync watch`): a small background process
//! that keeps inotify watches on every folder of the learnings dir and tells
//! a `sync` which paths changed since the previous one, so a sync with
//! nothing new does not `lstat` every file (git's fsmonitor, for us).
//!
//! Protocol, over the Unix socket [`socket_path`], one JSON line each way:
//! the client sends `{"since": TOKEN}` (or `null`) and gets back
//! `{"token": NEW, "full": bool, "paths": [...]}`. A token is
//! `<watcher id>:<sequence>`; `full` means "I cannot tell what changed since
//! that token" (another watcher, a queue overflow, no token): the client
//! scans the whole tree. Before answering, the watcher creates a cookie file
//! in a watched folder and waits for its own event, so every change made
//! before the question is in the answer.
//!
//! The client keeps the token of the last complete scan in
//! `.git/learnsync/watch-token` and replaces it only after its cycle
//! completed, with the token it was given *before* it looked: changes made
//! while it ran are reported again next time, never lost.

mod server;

pub use server::serve;

use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A question to the watcher.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Request {
    /// What changed since this token (`None`: a token to start from).
    Since(Option<String>),
    /// Exit now.
    Stop,
}

/// What changed since a token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    /// Where the next question starts from.
    pub token: String,
    /// The watcher cannot tell: scan everything.
    pub full: bool,
    /// Paths (relative, `/`-separated; files or folders, present or gone)
    /// that changed since the token, when not `full`.
    pub paths: Vec<String>,
}

/// The watcher's socket: in the learnings dir's state folder, or, when that
/// path is too long for a Unix socket, in `$XDG_RUNTIME_DIR` (private to
/// the user). `None` when neither fits.
pub fn socket_path(root: &Path) -> Option<PathBuf> {
    const MAX: usize = 100;
    let local = crate::store::StateDir::of(root).watch_socket();
    if local.as_os_str().len() < MAX {
        return Some(local);
    }
    let runtime = std::env::var_os("XDG_RUNTIME_DIR")?;
    let digest = {
        use sha2::Digest;
        hex::encode(&sha2::Sha256::digest(root.as_os_str().as_encoded_bytes())[..12])
    };
    let path = PathBuf::from(runtime).join(format!("learnsync-watch-{digest}.sock"));
    (path.as_os_str().len() < MAX).then_some(path)
}

fn token_file(root: &Path) -> PathBuf {
    crate::store::StateDir::of(root).watch_token()
}

/// The token of the last complete scan, if any.
pub fn saved_token(root: &Path) -> Option<String> {
    let text = std::fs::read_to_string(token_file(root)).ok()?;
    let token = text.trim();
    (!token.is_empty()).then(|| token.to_string())
}

/// Remembers the token a completed cycle started from.
pub fn save_token(root: &Path, token: &str) {
    if let Err(e) = crate::store::replace_file(&token_file(root), token.as_bytes()) {
        tracing::debug!("watch token not saved: {e}");
    }
}

/// Forgets the saved token: the next sync scans everything.
pub fn forget_token(root: &Path) {
    let _ = std::fs::remove_file(token_file(root));
}

fn connect(root: &Path) -> Option<UnixStream> {
    let stream = UnixStream::connect(socket_path(root)?).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    stream
        .set_write_timeout(Some(Duration::from_secs(5)))
        .ok()?;
    Some(stream)
}

fn ask(root: &Path, request: &Request) -> Option<String> {
    let mut stream = connect(root)?;
    let mut line = serde_json::to_vec(request).ok()?;
    line.push(b'\n');
    stream.write_all(&line).ok()?;
    let mut reply = String::new();
    BufReader::new(stream).read_line(&mut reply).ok()?;
    Some(reply)
}

/// Asks a running watcher what changed since `since`; `None` when no
/// watcher answers (then the caller scans everything).
pub fn query(root: &Path, since: Option<&str>) -> Option<Answer> {
    let reply = ask(root, &Request::Since(since.map(str::to_string)))?;
    serde_json::from_str(&reply).ok()
}

/// Asks a running watcher to exit. True when one answered.
pub fn stop(root: &Path) -> bool {
    ask(root, &Request::Stop).is_some()
}

/// Starts `exe watch` for `root` in the background, detached from this
/// process and its terminal. Best effort: a sync without a watcher scans.
pub fn spawn(exe: &Path, root: &Path) {
    let result =
        crate::store::spawn_detached(exe, &["--dir".as_ref(), root.as_os_str(), "watch".as_ref()]);
    match result {
        Ok(child) => tracing::debug!("started the watcher (pid {})", child.id()),
        Err(e) => tracing::debug!("could not start the watcher: {e}"),
    }
}
