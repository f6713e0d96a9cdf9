//! The publish state, `.git/learnsync/publish-state.json`: per target, what
//! learnsync last put on the wiki for each page (name, content hash, the
//! commit Gitea answered with, and writes whose fate is unknown). Local,
//! never committed; losing it costs reads, never duplicates.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Unconfirmed writes remembered per page; older ones are forgotten.
const MAX_ATTEMPTED: usize = 8;

/// What we know about one page we manage.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageRecord {
    pub title: String,
    pub sub_url: String,
    /// Hash of the content the server confirmed; `None` before any confirmation.
    #[serde(default)]
    pub content_hash: Option<String>,
    /// `last_commit.sha` the server returned for our write (gitea target only).
    #[serde(default)]
    pub last_commit: Option<String>,
    /// Hashes of contents sent without a confirmation (the write may have
    /// landed): finding one of these on the wiki means the page is still ours.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attempted: Vec<String>,
}

impl PageRecord {
    /// Remembers a write whose answer we may never see.
    pub fn attempt(&mut self, hash: &str) {
        if !self.attempted.iter().any(|h| h == hash) {
            self.attempted.push(hash.to_string());
        }
        let excess = self.attempted.len().saturating_sub(MAX_ATTEMPTED);
        self.attempted.drain(..excess);
    }

    /// Whether `hash` is content learnsync wrote (or tried to write) here.
    pub fn knows(&self, hash: &str) -> bool {
        self.content_hash.as_deref() == Some(hash) || self.attempted.iter().any(|h| h == hash)
    }
}

/// The pages of one target, by key (learning id or `index:<title>`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TargetState {
    #[serde(default)]
    pub pages: BTreeMap<String, PageRecord>,
}

impl TargetState {
    /// The title of the page this target has for a learning (or index key).
    pub fn title_of(&self, key: &str) -> Option<String> {
        self.pages.get(key).map(|r| r.title.clone())
    }
}

/// The whole file: one [`TargetState`] per target (`gitea <url> <repo>`,
/// `git-wiki <url>`), so switching targets never confuses the two.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublishState {
    #[serde(default = "version")]
    pub version: u32,
    #[serde(default)]
    pub targets: BTreeMap<String, TargetState>,
}

fn version() -> u32 {
    1
}

impl PublishState {
    /// Reads the state; a missing file is an empty state. A corrupt file is
    /// an error rather than a silent reset, which would look like a lost state.
    pub fn load(path: &Path) -> Result<Self, String> {
        match std::fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                format!(
                    "{} is not a publish state ({e}); move it away to start afresh",
                    path.display()
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(PublishState {
                version: version(),
                targets: BTreeMap::new(),
            }),
            Err(e) => Err(format!("cannot read {}: {e}", path.display())),
        }
    }

    /// Writes the state atomically.
    pub fn save(&self, path: &Path) -> Result<(), String> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| format!("cannot encode the publish state: {e}"))?;
        crate::store::atomic_write(path, text.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    }

    /// The state of one target, created empty when new.
    pub fn target(&mut self, key: &str) -> &mut TargetState {
        self.targets.entry(key.to_string()).or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_round_trips_and_a_missing_file_is_empty() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = crate::store::StateDir::at(dir.path()).publish_state();
        assert_eq!(PublishState::load(&file).expect("empty").targets.len(), 0);
        let mut state = PublishState::load(&file).expect("empty");
        let record = state
            .target("gitea http://x acme/docs")
            .pages
            .entry("learning-1".into())
            .or_default();
        record.attempt("h1");
        record.attempt("h1");
        assert_eq!(record.attempted, vec!["h1".to_string()]);
        state.save(&file).expect("save");
        assert_eq!(PublishState::load(&file).expect("load"), state);
        std::fs::write(&file, "{nope").expect("write");
        assert!(PublishState::load(&file).is_err());
    }

    #[test]
    fn attempts_are_bounded() {
        let mut r = PageRecord::default();
        for i in 0..20 {
            r.attempt(&format!("h{i}"));
        }
        assert_eq!(r.attempted.len(), MAX_ATTEMPTED);
        assert!(r.knows("h19") && !r.knows("h0"));
    }
}
