//! Per-session memory, `.git/learnsync/sessions/<session>.jsonl`: recent
//! failures, so a later command or prompt of the same agent session can
//! correct them, and the learnings shown to the session (§4.1), so its
//! later tool results give them evidence.
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

/// Showings followed at once per session; older ones are forgotten first.
const MAX_SHOWINGS: usize = 64;
/// Learning ids a session remembers having captured, applied or decided:
/// beyond this the oldest are forgotten (a cache: a forgotten capture is
/// still known by the learning's own `session_id` once synced).
const MAX_IDS: usize = 128;

/// A learning shown to the session (§4.1), followed for its outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Showing {
    pub id: String,
    /// How it was shown (`Via` as written in events).
    pub via: String,
    /// Unix seconds of the showing.
    pub at: i64,
    /// The session's tool results before it.
    pub calls: u32,
    /// The window it is followed for: tool results and minutes.
    pub window_calls: u32,
    pub window_minutes: u32,
    /// The correction's parts (`outcome::correction_parts`), when it is a
    /// command; empty for prose, which the hooks give no evidence. (Lines
    /// written before this field, with a `correction` of one part's words
    /// and a `verify` pattern, are read without them: no evidence.)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fix: Vec<Vec<String>>,
    /// The words of the commands the learning is about: running one of
    /// these is not following the correction.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failure: Vec<Vec<String>>,
}

impl Showing {
    /// Whether it is still followed after `calls` tool results of the
    /// session, at `now`: both the calls and the minutes must be within
    /// the window (whichever ends first closes it).
    pub fn open(&self, calls: u32, now: i64) -> bool {
        calls.saturating_sub(self.calls) < self.window_calls
            && now - self.at <= i64::from(self.window_minutes) * 60
            && now >= self.at - 60
    }
}

/// Learning ids, oldest first, at most [`MAX_IDS`] (the oldest go first).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Recent(Vec<String>);

impl Recent {
    pub fn insert(&mut self, id: String) {
        self.0.retain(|x| *x != id);
        self.0.push(id);
        let excess = self.0.len().saturating_sub(MAX_IDS);
        self.0.drain(..excess);
    }

    pub fn contains(&self, id: &str) -> bool {
        self.0.iter().any(|x| x == id)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn iter(&self) -> impl Iterator<Item = &String> {
        self.0.iter()
    }
}

/// One line of a session log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Line {
    /// A failure to remember.
    Failure(PendingFailure),
    /// The failure with this learning id was corrected (or retried): forget it.
    Done(String),
    /// A learning shown to the session.
    Shown(Showing),
    /// An `applied` event was written for this learning in this session.
    Applied(String),
    /// This learning's outcome in this session was decided: no more evidence.
    Decided(String),
    /// This session captured this learning: its own fix is no evidence.
    Own(String),
    /// One tool result of the session (counted while showings are followed).
    Call,
    /// The calls counted so far (a compacted log's first line).
    Calls(u32),
}

/// What a session remembers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionState {
    pub failures: Vec<PendingFailure>,
    /// Learnings shown and not decided, oldest first (may be past their window).
    pub showings: Vec<Showing>,
    /// Learnings given an `applied` event in this session.
    pub applied: Recent,
    /// Learnings whose outcome this session decided.
    pub decided: Recent,
    /// Learnings this session captured.
    pub own: Recent,
    /// Tool results counted while showings were followed.
    pub calls: u32,
    /// Lines in the log it was read from.
    lines: usize,
    /// Lines noted since, not yet written.
    unwritten: Vec<Line>,
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
            if let Ok(line) = serde_json::from_slice::<Line>(line) {
                state.fold(line);
            }
        }
        Some(state)
    }

    fn fold(&mut self, line: Line) {
        match line {
            Line::Failure(f) => {
                if f.inbox.is_some() {
                    // Only a new capture knows its inbox file.
                    self.own.insert(f.id.clone());
                }
                self.remember(f);
            }
            Line::Done(id) => self.failures.retain(|f| f.id != id),
            Line::Shown(s) => self.show(s),
            Line::Applied(id) => {
                self.applied.insert(id);
            }
            Line::Decided(id) => {
                self.showings.retain(|s| s.id != id);
                self.decided.insert(id);
            }
            Line::Own(id) => {
                self.own.insert(id);
            }
            Line::Call => self.calls = self.calls.saturating_add(1),
            Line::Calls(n) => self.calls = n,
        }
    }

    /// Follows a showing (a later one of the same learning replaces it:
    /// its window starts again).
    pub fn show(&mut self, showing: Showing) {
        self.showings.retain(|s| s.id != showing.id);
        self.showings.push(showing);
        let excess = self.showings.len().saturating_sub(MAX_SHOWINGS);
        self.showings.drain(..excess);
    }

    /// Whether this session may still give this learning evidence: it did
    /// not capture it and has not decided it.
    pub fn may_observe(&self, id: &str) -> bool {
        !self.own.contains(id) && !self.decided.contains(id)
    }

    /// Whether any showing is still followed.
    pub fn following(&self, now: i64) -> bool {
        self.showings.iter().any(|s| s.open(self.calls, now))
    }

    /// Folds a line into this state and keeps it for [`Self::flush`].
    pub fn note(&mut self, line: SessionLine) {
        self.fold(line.0.clone());
        self.unwritten.push(line.0);
    }

    /// Appends the lines noted since the log was read, in one write; a log
    /// grown long is rewritten as this state instead.
    pub fn flush(&mut self, path: &Path) -> std::io::Result<()> {
        if self.unwritten.is_empty() {
            return Ok(());
        }
        let lines = std::mem::take(&mut self.unwritten);
        if self.lines + lines.len() >= COMPACT_AFTER_LINES {
            self.rewrite(path)?;
            self.lines = self.as_lines().len();
            return Ok(());
        }
        let mut bytes = Vec::new();
        for line in &lines {
            bytes.extend(serde_json::to_vec(line).map_err(std::io::Error::other)?);
            bytes.push(b'\n');
        }
        self.lines += lines.len();
        crate::store::append_line(path, &bytes)
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

    /// Replaces the log with this state (or removes the file when nothing
    /// is left to remember).
    fn rewrite(&self, path: &Path) -> std::io::Result<()> {
        let lines = self.as_lines();
        if lines.is_empty() {
            return match std::fs::remove_file(path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
                _ => Ok(()),
            };
        }
        let mut bytes = Vec::new();
        for line in &lines {
            bytes.extend(serde_json::to_vec(line).map_err(std::io::Error::other)?);
            bytes.push(b'\n');
        }
        write_cache(path, &bytes)
    }

    /// The lines that fold into this state. The ids a session captured,
    /// applied or decided are kept for the session's life (a day).
    fn as_lines(&self) -> Vec<Line> {
        let mut lines = Vec::new();
        let remembers = !self.showings.is_empty()
            || !self.applied.is_empty()
            || !self.decided.is_empty()
            || !self.own.is_empty();
        if self.calls > 0 && remembers {
            lines.push(Line::Calls(self.calls));
        }
        lines.extend(self.own.iter().cloned().map(Line::Own));
        lines.extend(self.applied.iter().cloned().map(Line::Applied));
        lines.extend(self.decided.iter().cloned().map(Line::Decided));
        lines.extend(self.showings.iter().cloned().map(Line::Shown));
        lines.extend(self.failures.iter().cloned().map(Line::Failure));
        lines
    }
}

/// A line to append to a session log (see [`SessionState::append_lines`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionLine(Line);

impl SessionLine {
    pub fn failure(f: PendingFailure) -> Self {
        SessionLine(Line::Failure(f))
    }
    pub fn done(id: &str) -> Self {
        SessionLine(Line::Done(id.to_string()))
    }
    pub fn shown(s: Showing) -> Self {
        SessionLine(Line::Shown(s))
    }
    pub fn applied(id: &str) -> Self {
        SessionLine(Line::Applied(id.to_string()))
    }
    pub fn decided(id: &str) -> Self {
        SessionLine(Line::Decided(id.to_string()))
    }
    pub fn own(id: &str) -> Self {
        SessionLine(Line::Own(id.to_string()))
    }
    pub fn call() -> Self {
        SessionLine(Line::Call)
    }
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
        let mut state = SessionState::default();
        state.note(SessionLine::failure(failure("l1", 5)));
        state.flush(&path).expect("append");
        let mut state = SessionState::load(&path).expect("a log");
        state.note(SessionLine::failure(failure("l2", 6)));
        state.flush(&path).expect("append");
        let mut state = SessionState::load(&path).expect("a log");
        let ids: Vec<&str> = state.failures.iter().map(|f| f.id.as_str()).collect();
        assert_eq!(ids, ["l1", "l2"]);
        state.note(SessionLine::done("l1"));
        state.flush(&path).expect("done");
        // A torn last line (a crash mid-append) is ignored.
        crate::store::append_line(&path, b"{\"failure\":{\"id\"").expect("torn");
        let mut state = SessionState::load(&path).expect("a log");
        let ids: Vec<&str> = state.failures.iter().map(|f| f.id.as_str()).collect();
        assert_eq!(ids, ["l2"]);
        assert_eq!(state.lines, 4);

        for i in 0..COMPACT_AFTER_LINES {
            state.note(SessionLine::failure(failure(
                &format!("m{i}"),
                10 + i as i64,
            )));
            state.flush(&path).expect("append");
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

    fn showing(id: &str, at: i64, calls: u32) -> Showing {
        Showing {
            id: id.into(),
            via: "pre-tool-use".into(),
            at,
            calls,
            window_calls: 10,
            window_minutes: 30,
            fix: vec![vec!["git".into(), "pull".into()]],
            failure: Vec::new(),
        }
    }

    #[test]
    fn a_showing_is_followed_for_its_window_of_calls_and_minutes() {
        let s = showing("l1", 1000, 3);
        assert!(s.open(3, 1000));
        assert!(s.open(12, 1000 + 30 * 60));
        assert!(!s.open(13, 1000), "the 11th result after it is outside");
        assert!(!s.open(3, 1000 + 30 * 60 + 1), "past the minutes");
        assert!(!s.open(3, 0), "a clock far before it");
    }

    #[test]
    fn a_session_remembers_a_bounded_number_of_ids() {
        let mut ids = Recent::default();
        for i in 0..(MAX_IDS + 10) {
            ids.insert(format!("l{i}"));
        }
        assert!(!ids.contains("l0") && ids.contains(&format!("l{}", MAX_IDS + 9)));
        assert_eq!(ids.iter().count(), MAX_IDS);
    }

    #[test]
    fn showings_applied_decided_and_own_survive_compaction_and_calls_count() {
        let tmp = tempfile::tempdir().expect("tmp");
        let path = session_path(&StateDir::at(tmp.path()), "s2");
        let mut state = SessionState::default();
        state.note(SessionLine::shown(showing("l1", 1000, 0)));
        state.note(SessionLine::applied("l1"));
        state.note(SessionLine::own("mine"));
        state.note(SessionLine::shown(showing("l2", 1000, 0)));
        state.note(SessionLine::decided("l2"));
        state.flush(&path).expect("flush");
        for _ in 0..(COMPACT_AFTER_LINES + 5) {
            let mut s = SessionState::load(&path).expect("a log");
            s.note(SessionLine::call());
            s.flush(&path).expect("flush");
        }
        let state = SessionState::load(&path).expect("a log");
        assert_eq!(state.calls as usize, COMPACT_AFTER_LINES + 5);
        assert!(
            state.lines < COMPACT_AFTER_LINES,
            "compacted: {}",
            state.lines
        );
        let ids: Vec<&str> = state.showings.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["l1"]);
        assert!(state.applied.contains("l1"));
        assert!(!state.may_observe("l2") && !state.may_observe("mine"));
        assert!(state.may_observe("l1"));
        assert!(!state.following(1000), "past its 10 calls");
    }
}
