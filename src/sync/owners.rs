//! Who may change what in a merge (§6.1): `<owner>/` and `events/<owner>/`
//! change only through the owner's own branch as fetched (and through this
//! clone's own commits when it writes as the owner, which are no merge).
//! Here: the owners' branch tips, looked up once per cycle, and the local
//! record of the agents this clone writes as (§1), whose branches it pushes.

use crate::repo::{Repo, Result};
use crate::store::{LearningsDir, StateDir};
use gix::ObjectId;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A change a head made to a folder it does not own, refused.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Refused {
    /// The head that carried it (`hub/agents/mallory`).
    pub head: String,
    pub path: String,
    pub owner: String,
    pub why: String,
    /// Where the refused bytes were kept, if there were any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept: Option<String>,
}

/// The owners' branches as fetched.
pub struct Owners {
    /// Owner → the commit of its branch on the remote that speaks for it.
    tips: BTreeMap<String, ObjectId>,
    /// Owner → its tip's tree, looked up on first use.
    trees: HashMap<String, ObjectId>,
}

impl Owners {
    /// Reads the owners' tips from the remote-tracking refs of `remotes`:
    /// for each owner, the first remote (in the order given) that has
    /// `agents/<owner>`.
    pub fn new(repo: &Repo, remotes: &[String]) -> Result<Self> {
        let mut tips = BTreeMap::new();
        for remote in remotes {
            for (label, id) in repo.tracking_refs(remote)? {
                if let Some(owner) = head_agent(&label) {
                    tips.entry(owner.to_string()).or_insert(id);
                }
            }
        }
        Ok(Owners {
            tips,
            trees: HashMap::new(),
        })
    }

    /// Whether a head of `head_agent` may change `owner`'s folders freely:
    /// only the owner's own branch may. Not even for our home agent (or one
    /// we host) is another head believed: a peer's branch carrying our
    /// files is judged by our branch as the hub has it, like anyone's.
    pub fn free(&self, owner: &str, head_agent: Option<&str>) -> bool {
        head_agent == Some(owner)
    }

    /// The blob of `path` on `owner`'s branch as fetched.
    pub fn tip_blob(&mut self, repo: &Repo, owner: &str, path: &str) -> Result<Option<ObjectId>> {
        let Some(&commit) = self.tips.get(owner) else {
            return Ok(None);
        };
        let tree = match self.trees.get(owner) {
            Some(&t) => t,
            None => {
                let t = repo.commit_tree(commit)?;
                self.trees.insert(owner.to_string(), t);
                t
            }
        };
        repo.blob_id_at(tree, path)
    }
}

/// The agent whose branch a head label names (`hub/agents/codex` →
/// `codex`); `None` for `main`.
pub fn head_agent(label: &str) -> Option<&str> {
    label
        .rsplit_once("/agents/")
        .map(|(_, name)| name)
        .filter(|n| !n.is_empty())
}

/// The agents this clone writes as besides its home agent (§1), as recorded.
pub fn hosted(state: &StateDir) -> BTreeSet<String> {
    std::fs::read_to_string(state.hosted_agents())
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|n| crate::paths::validate_agent(n).is_ok())
        .map(str::to_string)
        .collect()
}

/// Records the agents other than `home` that the inbox holds writes of
/// (`--agent` on `add`, `apply`, `capture`): from now on this clone writes
/// as them too, merges their folders as theirs and pushes their branches.
pub fn record_hosted(dir: &LearningsDir, home: &str) {
    let writers = dir
        .inbox()
        .items()
        .into_iter()
        .filter_map(|item| match item.payload {
            Ok(crate::store::InboxPayload::Learning(l)) => Some(l.agent_id),
            Ok(crate::store::InboxPayload::Event(e)) => Some(e.agent),
            Err(_) => None,
        });
    add_hosted(&dir.state(), home, writers);
}

/// Records `agents` (but `home`) as agents this clone writes as: the
/// inbox's writers, or the folders `init` adopted from a terraphim dir.
pub fn add_hosted(state: &StateDir, home: &str, agents: impl IntoIterator<Item = String>) {
    let mut hosted = hosted(state);
    let before = hosted.len();
    hosted.extend(
        agents
            .into_iter()
            .filter(|a| a != home && crate::paths::validate_agent(a).is_ok()),
    );
    if hosted.len() == before {
        return;
    }
    let text: String = hosted.iter().map(|a| format!("{a}\n")).collect();
    if let Err(e) = crate::store::atomic_write(&state.hosted_agents(), text.as_bytes()) {
        tracing::warn!("the agents this clone writes as were not recorded: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_labels_name_their_agent() {
        assert_eq!(head_agent("hub/agents/codex"), Some("codex"));
        assert_eq!(head_agent("hub/main"), None);
        assert_eq!(head_agent("hub/agents/"), None);
    }
}
