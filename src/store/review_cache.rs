//! `.git/learnsync/review-state.json`: what this machine's review pass
//! remembers between runs, so a pass with nothing new costs a few reads —
//! the pull requests it opened and saw open, the bot's login, label ids,
//! the issues it acknowledged, the rejection records it verified, when it
//! last checked `main`'s protection. A cache: the hub is the truth, and a
//! lost or unreadable file only costs one pass more reads.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

const VERSION: u32 = 1;

/// One review pull request the pass opened and last saw open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tracked {
    pub learning: String,
    pub hash: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewCache {
    #[serde(default)]
    pub version: u32,
    /// The hub this cache is about (`<url> <owner/repo>`): another hub
    /// starts from scratch.
    #[serde(default)]
    pub hub: String,
    #[serde(default)]
    pub bot: Option<String>,
    /// Label name → id.
    #[serde(default)]
    pub labels: BTreeMap<String, i64>,
    /// Pull request number → what it reviews.
    #[serde(default)]
    pub open: BTreeMap<u64, Tracked>,
    /// Problem reports (issue numbers) acknowledged, with the ids they named.
    #[serde(default)]
    pub acked: BTreeMap<u64, BTreeSet<String>>,
    /// Rejection records (their paths) checked against Gitea.
    #[serde(default)]
    pub verified: BTreeSet<String>,
    /// Unix seconds of the last branch-protection check, and its warning.
    #[serde(default)]
    pub preflight_at: Option<i64>,
    #[serde(default)]
    pub preflight_warning: Option<String>,
    /// The bot's queue issue.
    #[serde(default)]
    pub queue_issue: Option<u64>,
}

impl ReviewCache {
    /// The cache at `path` for `hub`; empty when missing, unreadable, of
    /// another version or of another hub.
    pub fn read(path: &Path, hub: &str) -> ReviewCache {
        let fresh = ReviewCache {
            version: VERSION,
            hub: hub.to_string(),
            ..ReviewCache::default()
        };
        std::fs::read(path)
            .ok()
            .and_then(|b| serde_json::from_slice::<ReviewCache>(&b).ok())
            .filter(|c| c.version == VERSION && (hub.is_empty() || c.hub == hub))
            .unwrap_or(fresh)
    }

    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let bytes = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        super::atomic_write(path, &bytes)
    }

    /// Learning id → the open review pull request, as last seen.
    pub fn pending(&self) -> HashMap<String, u64> {
        self.open
            .iter()
            .map(|(n, t)| (t.learning.clone(), *n))
            .collect()
    }
}
