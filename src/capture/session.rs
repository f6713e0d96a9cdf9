//! Per-session memory of recent failures, `.git/learnsync/sessions/<session>.json`,
//! so a later command or prompt of the same agent session can correct them.
//!
//! A cache, not a record: small, replaced atomically (temp file + rename, no
//! fsync), pruned after a day; losing it only loses a pairing, never a capture.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Failures remembered per session; older ones are forgotten first.
const MAX_FAILURES: usize = 16;
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

/// What a session remembers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionState {
    #[serde(default)]
    pub failures: Vec<PendingFailure>,
}

impl SessionState {
    /// Reads a session file; a missing or unreadable one is an empty session.
    pub fn load(path: &Path) -> Option<SessionState> {
        let bytes = std::fs::read(path).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// Remembers a failure (newest last), forgetting the oldest beyond the cap
    /// and any earlier entry for the same learning.
    pub fn remember(&mut self, failure: PendingFailure) {
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

    /// Writes the session (or removes the file when nothing is left).
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        if self.failures.is_empty() {
            return match std::fs::remove_file(path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
                _ => Ok(()),
            };
        }
        let bytes = serde_json::to_vec(self).map_err(std::io::Error::other)?;
        write_cache(path, &bytes)
    }
}

/// The file for a session id. Ids that are not safe file names (or are very
/// long) are replaced by a hash of themselves.
pub fn session_path(state_dir: &Path, session_id: &str) -> PathBuf {
    let name = if crate::paths::validate_id(session_id).is_ok() && session_id.len() <= 80 {
        session_id.to_string()
    } else {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(session_id.as_bytes());
        format!("h-{}", hex::encode(&digest[..16]))
    };
    sessions_dir(state_dir).join(format!("{name}.json"))
}

pub fn sessions_dir(state_dir: &Path) -> PathBuf {
    state_dir.join("sessions")
}

/// Removes session files not touched for [`MAX_AGE`]. Best effort.
pub fn prune(state_dir: &Path) {
    let Ok(entries) = std::fs::read_dir(sessions_dir(state_dir)) else {
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
        let state = Path::new("/x/.git/learnsync");
        for id in ["../../etc/passwd", "a/b", "", ".", &"x".repeat(300)] {
            let p = session_path(state, id);
            assert_eq!(p.parent(), Some(sessions_dir(state).as_path()), "{id:?}");
        }
        assert!(session_path(state, "ses_7a1b").ends_with("ses_7a1b.json"));
    }

    #[test]
    fn save_and_load_round_trip_and_an_empty_session_removes_its_file() {
        let tmp = tempfile::tempdir().expect("tmp");
        let path = session_path(tmp.path(), "s1");
        let mut s = SessionState::default();
        s.remember(failure("l1", 5));
        s.save(&path).expect("save");
        assert_eq!(SessionState::load(&path), Some(s.clone()));
        s.failures.clear();
        s.save(&path).expect("save empty");
        assert!(!path.exists());
    }
}
