//! `.git/learnsync/review-state.json`: what this machine's review pass
//! remembers between runs, so a pass with nothing new costs a few reads —
//! the pull requests it opened and saw open, the bot's login, label ids,
//! the issues it acknowledged, the rejection records it verified, when it
//! last checked `main`'s protection, the open problem reports, and the
//! watermark from which the next pass asks Gitea only for what changed. A
//! cache: the hub is the truth, and a lost or unreadable file only costs
//! one pass more reads.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

const VERSION: u32 = 2;

/// One review pull request the pass opened and last saw open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tracked {
    pub learning: String,
    pub hash: String,
}

/// An open problem report, as last seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProblemSeen {
    pub title: String,
    pub author: String,
    /// The learning ids its title and body name.
    pub ids: Vec<String>,
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
    /// A digest of the queue issue's body as last written or seen.
    #[serde(default)]
    pub queue_body: Option<String>,
    /// Open `learning-problem` issues by number.
    #[serde(default)]
    pub problems: BTreeMap<u64, ProblemSeen>,
    /// The latest `updated_at` (the server's clock) every change up to
    /// which has been handled: the next pass lists only issues and pull
    /// requests updated at or after it.
    #[serde(default)]
    pub watermark: Option<String>,
    /// Unix seconds of the last full listing (of everything open).
    #[serde(default)]
    pub full_at: Option<i64>,
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
