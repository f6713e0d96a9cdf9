//! Who may change what in a merge (§6.1): `<owner>/` and `events/<owner>/`
//! change only through the owner's own branch as fetched (and through this
//! clone's own commits when it writes as the owner, which are no merge).
//! When the roster gives an owner a signing key (§5.2), its folders are
//! taken only from the newest commit of its branch signed with that key,
//! whichever head carries them, its own branch included.
//! Here: the owners' branch tips, looked up once per cycle, and the local
//! record of the agents this clone writes as (§1), whose branches it pushes.

use crate::problem::Problem;
use crate::repo::sshsig::{PublicKey, Verdict};
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
    /// Owner → the commit of its branch on the remote that speaks for it;
    /// for an owner with a signing key, once checked, the newest one signed
    /// with it.
    tips: BTreeMap<String, ObjectId>,
    /// Owners with a signing key in the roster, and their key (or why it
    /// cannot be used).
    keys: BTreeMap<String, std::result::Result<PublicKey, String>>,
    /// Owners with a key whose branch is not checked yet: their branch's
    /// label and tip. Checked on first use, so a cycle that merges nothing
    /// of theirs verifies nothing.
    unchecked: BTreeMap<String, (String, ObjectId)>,
    /// Owner → the label of the branch its tip came from
    /// (`hub/agents/codex`): the only head that speaks for the owner.
    labels: BTreeMap<String, String>,
    /// Owner → its tip's tree, looked up on first use.
    trees: HashMap<String, ObjectId>,
    /// What the signature checks found worth saying (unsigned commits on
    /// top of an owner's branch, a branch with no signed commit).
    pub problems: Vec<Problem>,
}

/// First-parent commits looked at for an owner's newest signed one.
const SIGNED_WALK: usize = 1000;

/// What `owner`'s tip says of its folders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tip {
    /// The blob of the path there (`None`: the owner has no such file).
    Blob(Option<ObjectId>),
    /// The owner has a signing key and no commit signed with it: nothing
    /// changes its folders, not even a deletion.
    Unsigned,
}

impl Owners {
    /// Reads the owners' tips from the remote-tracking refs of `remotes`:
    /// for each owner, the first remote (in the order given) that has
    /// `agents/<owner>`. An owner in `keys` is taken as of the newest
    /// first-parent commit of its branch signed with its key.
    pub fn new(
        repo: &Repo,
        remotes: &[String],
        keys: BTreeMap<String, std::result::Result<PublicKey, String>>,
    ) -> Result<Self> {
        let mut owners = Owners {
            tips: BTreeMap::new(),
            keys,
            unchecked: BTreeMap::new(),
            labels: BTreeMap::new(),
            trees: HashMap::new(),
            problems: Vec::new(),
        };
        for remote in remotes {
            for (label, id) in repo.tracking_refs(remote)? {
                let Some(owner) = head_agent(&label) else {
                    continue;
                };
                if owners.tips.contains_key(owner) || owners.unchecked.contains_key(owner) {
                    continue;
                }
                owners.labels.insert(owner.to_string(), label.clone());
                if owners.keys.contains_key(owner) {
                    owners.unchecked.insert(owner.to_string(), (label, id));
                } else {
                    owners.tips.insert(owner.to_string(), id);
                }
            }
        }
        Ok(owners)
    }

    /// Finds `owner`'s newest signed commit, once.
    fn check(&mut self, repo: &Repo, owner: &str) -> Result<()> {
        let Some((label, tip)) = self.unchecked.remove(owner) else {
            return Ok(());
        };
        let key = match self.keys.get(owner) {
            Some(Ok(key)) => key,
            Some(Err(why)) => {
                self.problems.push(Problem::new(
                    crate::policy::POLICY_PATH,
                    format!("{owner}'s signing_key: {why}: nothing changes {owner}'s folders until the roster gives a key learnsync can check"),
                ));
                return Ok(());
            }
            None => return Ok(()),
        };
        match newest_signed(repo, tip, key)? {
            Signed::At(commit, 0) => {
                self.tips.insert(owner.to_string(), commit);
            }
            Signed::At(commit, skipped) => {
                self.problems.push(Problem::new(
                    &label,
                    format!(
                        "the newest {skipped} commit(s) are not signed with {owner}'s roster key ({}): {owner}'s folders are taken as of {commit}, the newest signed one",
                        key.fingerprint()
                    ),
                ));
                self.tips.insert(owner.to_string(), commit);
            }
            Signed::None(why) => self.problems.push(Problem::new(
                &label,
                format!(
                    "no commit is signed with {owner}'s roster key ({}){why}: nothing changes {owner}'s folders until one is",
                    key.fingerprint()
                ),
            )),
        }
        Ok(())
    }

    /// Whether the head `label` may change `owner`'s folders freely: only
    /// the owner's own branch on the remote that speaks for it (the hub
    /// first: `agents/<owner>` on a second remote someone else can push is
    /// judged like any peer's), and not even it when the owner has a
    /// signing key (then every head is judged by the signed tip). Not even
    /// for our home agent (or one we host) is another head believed: a
    /// peer's branch carrying our files is judged by our branch as the hub
    /// has it, like anyone's.
    pub fn free(&self, owner: &str, label: &str) -> bool {
        head_agent(label) == Some(owner)
            && !self.keys.contains_key(owner)
            && self.labels.get(owner).is_none_or(|l| l == label)
    }

    /// What `owner`'s tip holds at `path`.
    pub fn tip(&mut self, repo: &Repo, owner: &str, path: &str) -> Result<Tip> {
        self.check(repo, owner)?;
        if self.keys.contains_key(owner) && !self.tips.contains_key(owner) {
            return Ok(Tip::Unsigned);
        }
        self.tip_blob(repo, owner, path).map(Tip::Blob)
    }

    /// The blob of `path` on `owner`'s branch as fetched.
    fn tip_blob(&mut self, repo: &Repo, owner: &str, path: &str) -> Result<Option<ObjectId>> {
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

/// The newest commit signed with a key, on a branch's first-parent line.
enum Signed {
    /// The commit, and how many unsigned (or badly signed) ones were above it.
    At(ObjectId, usize),
    /// None within [`SIGNED_WALK`] commits; what the tip's signature said.
    None(String),
}

fn newest_signed(repo: &Repo, tip: ObjectId, key: &PublicKey) -> Result<Signed> {
    let mut at = tip;
    let mut first_verdict = None;
    for skipped in 0..SIGNED_WALK {
        let verdict = repo.verify_commit(at, key)?;
        if verdict == Verdict::Good {
            return Ok(Signed::At(at, skipped));
        }
        first_verdict.get_or_insert(verdict);
        let (parents, _) = repo.commit_parents(at)?;
        match parents.first() {
            Some(&parent) => at = parent,
            None => break,
        }
    }
    Ok(Signed::None(match first_verdict {
        Some(Verdict::Bad(why)) => format!(" (its tip: {why})"),
        _ => String::new(),
    }))
}

/// The agent whose branch a head label names (`hub/agents/codex` →
/// `codex`); `None` for `main`, and for a name that is not an agent's
/// (`hub/agents/a/agents/victim` is no branch of victim's).
pub fn head_agent(label: &str) -> Option<&str> {
    label
        .split_once("/agents/")
        .map(|(_, name)| name)
        .filter(|n| crate::paths::validate_agent(n).is_ok())
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
        assert_eq!(head_agent("hub/agents/a/agents/victim"), None);
        assert_eq!(head_agent("hub/agents/events"), None);
    }
}
