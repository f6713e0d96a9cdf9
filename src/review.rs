//! Human review records, `reviews/<id>.yaml` (§8): a decision about one
//! learning's exact content. Only records on the hub's `main` count (§5).

use crate::timestamp::Timestamp;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Approved,
    Rejected,
}

/// One review record as stored in the repository.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Review {
    pub learning: String,
    pub decision: Decision,
    /// SHA-256 of the learning's content bytes when it was reviewed.
    pub content_hash: String,
    #[serde(default)]
    pub reviewer: Option<String>,
    pub decided_at: String,
    #[serde(default)]
    pub pull_request: Option<u64>,
}

impl Review {
    pub fn parse(text: &str) -> Result<Self, String> {
        serde_norway::from_str(text).map_err(|e| e.to_string())
    }

    pub fn to_yaml(&self) -> String {
        serde_norway::to_string(self).unwrap_or_default()
    }

    pub fn decided_at(&self) -> Option<Timestamp> {
        Timestamp::parse(&self.decided_at)
    }
}
