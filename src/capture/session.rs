//! Per-session memory of recent failures, `.git/learnsync/sessions/<session>.jsonl`,
//! so a later command or prompt of the same agent session can correct them.
//!
//! A cache, not a record: an append-only log of small JSON lines (a failure,
//! or the id of a failure that was dealt with), folded on read, compacted
//! when it grows, pruned after a day. Appending creates no temp file and frees
//! no inode per hook call. Losing it only loses a pairing, never a capture.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::store::StateDir;

/// Failures remembered per session; older ones are forgotten first.
const MAX_FAILURES: usize = 16;
/// A log longer than this is rewritten as its folded state.
const COMPACT_AFTER_LINES: usize = 64;
/// Sessions (and failures) older than this are forgotten.
pub const MAX_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// One failure waiting for its fix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingFailure {
    pub id: String,
    /// The learning's `agent_id` (its folder).
    pub agent: String,
    pub program: String,
    #[serde(default)]
    pub subcommand: Option<String>,
    pub normalised: String,
    /// The inbox file holding the capture, while it has not been synced.
    #[serde(default)]
    pub inbox: Option<PathBuf>,
    /// Unix seconds of the failure.
    pub at: i64,
}

/// One line of a session log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Line {
    /// A failure to remember.
    Failure(PendingFailure),
    /// The failure with this learning id was corrected (or retried): forget it.
    Done(String),
}

/// What a session remembers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionState {
    pub failures: Vec<PendingFailure>,
    /// Lines in the log it was read from.
    lines: usize,
}

impl SessionState {
    /// Reads a session log; `None` when there is none. Lines that are not
    /// whole (a crash mid-append) or not understood are skipped.
    pub fn load(path: &Path) -> Option<SessionState> {
        let bytes = std::fs::read(path).ok()?;
        let mut state = SessionState::default();
        for line in bytes.split_inclusive(|b| *b == b'\n') {
            state.lines += 1;
            if !line.ends_with(b"\n") {
                continue;
            }
            match serde_json::from_slice::<Line>(line) {
                Ok(Line::Failure(f)) => state.remember(f),
                Ok(Line::Done(id)) => state.failures.retain(|f| f.id != id),
                Err(_) => {}
            }
        }
        Some(state)
    }

    /// Remembers a failure (newest last), forgetting the oldest beyond the cap
    /// and any earlier entry for the same learning.
    pub fn remember(&mut self, mut failure: PendingFailure) {
        if failure.inbox.is_none() {
            // A recurrence does not know where its learning waits; the first
            // capture did.
            failure.inbox = self
                .failures
                .iter()
                .find(|f| f.id == failure.id)
                .and_then(|f| f.inbox.clone());
        }
        self.failures.retain(|f| f.id != failure.id);
        self.failures.push(failure);
        let excess = self.failures.len().saturating_sub(MAX_FAILURES);
        self.failures.drain(..excess);
    }

    /// Drops failures older than [`MAX_AGE`] before `now` (unix seconds).
    pub fn expire(&mut self, now: i64) {
        let horizon = now - MAX_AGE.as_secs() as i64;
        self.failures.retain(|f| f.at >= horizon);
    }

    /// Records a new failure in the session's log (this state is what was
    /// read from it, already updated with `remember`). A long log is
    /// rewritten as this state instead.
    pub fn append_failure(&self, path: &Path, failure: &PendingFailure) -> std::io::Result<()> {
        if self.lines >= COMPACT_AFTER_LINES {
            return self.rewrite(path);
        }
        append(path, &Line::Failure(failure.clone()))
    }

    /// Records that the failure with this id was dealt with.
    pub fn append_done(&self, path: &Path, id: &str) -> std::io::Result<()> {
        if self.lines >= COMPACT_AFTER_LINES {
            return self.rewrite(path);
        }
        append(path, &Line::Done(id.to_string()))
    }

    /// Replaces the log with this state's failures (or removes the file when
    /// nothing is left).
    fn rewrite(&self, path: &Path) -> std::io::Result<()> {
        if self.failures.is_empty() {
            return match std::fs::remove_file(path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
                _ => Ok(()),
            };
        }
        let mut bytes = Vec::new();
        for f in &self.failures {
            bytes.extend(
                serde_json::to_vec(&Line::Failure(f.clone())).map_err(std::io::Error::other)?,
            );
            bytes.push(b'\n');
        }
        write_cache(path, &bytes)
    }
}

fn append(path: &Path, line: &Line) -> std::io::Result<()> {
    let mut bytes = serde_json::to_vec(line).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    crate::store::append_line(path, &bytes)
}

/// The file for a session id. Ids that are not safe file names (or are very
/// long) are replaced by a hash of themselves.
pub fn session_path(state: &StateDir, session_id: &str) -> PathBuf {
    let name = if crate::paths::validate_id(session_id).is_ok() && session_id.len() <= 80 {
        session_id.to_string()
    } else {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(session_id.as_bytes());
        format!("h-{}", hex::encode(&digest[..16]))
    };
    state.sessions().join(format!("{name}.jsonl"))
}

/// Removes session files not touched for [`MAX_AGE`]. Best effort.
pub fn prune(state: &StateDir) {
    let Ok(entries) = std::fs::read_dir(state.sessions()) else {
        return;
    };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        let stale = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > MAX_AGE);
        if stale {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Replaces a cache file atomically for readers (temp file + rename in the
/// same folder) without paying for an fsync: a crash may lose the update,
/// never leave half a file.
pub fn write_cache(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    crate::store::replace_file(path, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(id: &str, at: i64) -> PendingFailure {
        PendingFailure {
            id: id.into(),
            agent: "a".into(),
            program: "git".into(),
            subcommand: Some("push".into()),
            normalised: "git push -f".into(),
            inbox: None,
            at,
        }
    }

    #[test]
    fn a_session_keeps_recent_failures_and_forgets_old_ones() {
        let mut s = SessionState::default();
        for i in 0..20 {
            s.remember(failure(&format!("l{i}"), i));
        }
        assert_eq!(s.failures.len(), MAX_FAILURES);
        assert_eq!(s.failures.last().map(|f| f.id.as_str()), Some("l19"));
        s.expire(19 + MAX_AGE.as_secs() as i64);
        assert_eq!(s.failures.len(), 1);
    }

    #[test]
    fn session_ids_never_escape_the_sessions_dir() {
        let state = &StateDir::at("/x/.git/learnsync");
        for id in ["../../etc/passwd", "a/b", "", ".", &"x".repeat(300)] {
            let p = session_path(state, id);
            assert_eq!(p.parent(), Some(state.sessions().as_path()), "{id:?}");
        }
        assert!(session_path(state, "ses_7a1b").ends_with("ses_7a1b.jsonl"));
    }

    #[test]
    fn the_log_folds_failures_and_dones_and_compacts_when_long() {
        let tmp = tempfile::tempdir().expect("tmp");
        let path = session_path(&StateDir::at(tmp.path()), "s1");
        assert_eq!(SessionState::load(&path), None);
        let state = SessionState::default();
        state
            .append_failure(&path, &failure("l1", 5))
            .expect("append");
        let state = SessionState::load(&path).expect("a log");
        state
            .append_failure(&path, &failure("l2", 6))
            .expect("append");
        let state = SessionState::load(&path).expect("a log");
        let ids: Vec<&str> = state.failures.iter().map(|f| f.id.as_str()).collect();
        assert_eq!(ids, ["l1", "l2"]);
        state.append_done(&path, "l1").expect("done");
        // A torn last line (a crash mid-append) is ignored.
        crate::store::append_line(&path, b"{\"failure\":{\"id\"").expect("torn");
        let mut state = SessionState::load(&path).expect("a log");
        let ids: Vec<&str> = state.failures.iter().map(|f| f.id.as_str()).collect();
        assert_eq!(ids, ["l2"]);
        assert_eq!(state.lines, 4);

        for i in 0..COMPACT_AFTER_LINES {
            let f = failure(&format!("m{i}"), 10 + i as i64);
            state.remember(f.clone());
            state.append_failure(&path, &f).expect("append");
            state = SessionState::load(&path).expect("a log");
        }
        // Compacted: at most the cap of failures (plus the lines since).
        assert!(
            state.lines <= MAX_FAILURES + COMPACT_AFTER_LINES,
            "{}",
            state.lines
        );
        assert_eq!(state.failures.len(), MAX_FAILURES);
        let text = std::fs::read_to_string(&path).expect("read");
        assert!(text.lines().count() < COMPACT_AFTER_LINES + 4);
        assert_eq!(
            state.failures.last().map(|f| f.id.as_str()),
            Some(format!("m{}", COMPACT_AFTER_LINES - 1).as_str())
        );
    }
}
