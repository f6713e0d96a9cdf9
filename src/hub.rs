//! What decides a learning's review state (§5, §8):
//!
//! - the review records under `reviews/` on `refs/remotes/<hub>/main`, the
//!   only place an approval counts. An approval's time is the time of the
//!   commit that brought the record to `main` (a maintainer's merge), found
//!   by walking `main`'s first-parent history, so `promoted_at` is the same
//!   on every machine; the pull request is read from that commit's message;
//! - rejection and problem-report records (`.learnsync/rejections/`,
//!   `.learnsync/pulled/`) in the tree at hand: committed on agents branches
//!   by whoever ran `review`, and only able to lower what a learning shows.
//!
//! A record that does not parse counts for nothing and is reported.
//!
//! `.git/learnsync/hub-main.json` remembers the state of `main` the last
//! completed sync recomputed for: a sync compares it with what it fetched,
//! so a learning whose record on `main` changed is recomputed even when no
//! path of the agents branch changed (a record a peer had copied onto its
//! branch already), and the history walk starts where the last one ended.

use crate::paths;
use crate::problem::Problem;
use crate::repo::{Repo, Result};
use crate::review_rules::{Decision, Pulled, Rejection, Review};
use crate::store::StateDir;
use crate::timestamp::Timestamp;
use gix::ObjectId;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One record on `main`: its blob, and when and through which pull request
/// it got there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub blob: String,
    /// Unix seconds of the commit that brought this blob to `main`.
    pub entered_at: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pull_request: Option<u64>,
}

/// The review records of `main` at one commit, by learning id.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MainState {
    pub tip: Option<String>,
    pub entries: BTreeMap<String, Entry>,
    /// The blob of `.learnsync/policy.yaml` at `tip` (`None`: no file, or
    /// no `main`): when it changes, every learning is recomputed (§5.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
}

impl MainState {
    /// Learnings whose record differs between two states.
    pub fn changed_since(&self, before: &MainState) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for (id, e) in &self.entries {
            if before.entries.get(id) != Some(e) {
                out.insert(id.clone());
            }
        }
        for id in before.entries.keys() {
            if !self.entries.contains_key(id) {
                out.insert(id.clone());
            }
        }
        out
    }
}

/// The review records on the hub's `main`, and the ones that do not parse.
#[derive(Debug, Default)]
pub struct HubMain {
    /// The record of each learning; `decided_at` is its time on `main` and
    /// `pull_request` the one that brought it, when known.
    pub reviews: HashMap<String, Review>,
    pub problems: Vec<Problem>,
    pub state: MainState,
}

/// Which hub, and the state of its `main` a recompute uses.
#[derive(Debug, Clone, Copy)]
pub struct HubAt<'a> {
    pub name: Option<&'a str>,
    pub main: &'a MainState,
}

/// Where the policy in force comes from (§5.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PolicyFrom {
    /// Hub `main` as last fetched (its defaults when `main` or the file is
    /// missing): a policy edit anywhere else is only a proposal.
    Main,
    /// No hub: the file at hand (the tree being recomputed, or the work tree).
    Local,
}

/// The policy in force (§5.2): with a hub, only hub `main`'s
/// `.learnsync/policy.yaml` counts — a peer's branch or a local edit cannot
/// lower the thresholds or change the roster; without a hub, `local()`.
pub fn policy_in_force(
    repo: Option<&Repo>,
    hub: Option<&str>,
    local: impl FnOnce() -> Option<String>,
) -> (crate::policy::Policy, Option<Problem>, PolicyFrom) {
    let text = match hub {
        None => {
            let (p, problem) = crate::policy::Policy::read(local().as_deref());
            return (p, problem, PolicyFrom::Local);
        }
        Some(hub) => repo.and_then(|repo| main_policy_text(repo, hub).ok().flatten()),
    };
    let (p, problem) = crate::policy::Policy::read(text.as_deref());
    let problem = problem.map(|mut pr| {
        pr.message = format!("on {}: {}", main_ref(hub.unwrap_or_default()), pr.message);
        pr
    });
    (p, problem, PolicyFrom::Main)
}

/// The text of the policy file on the fetched `main` (`None`: no `main`
/// yet, or no file there).
fn main_policy_text(repo: &Repo, hub: &str) -> Result<Option<String>> {
    let Some(tip) = repo.ref_commit(&main_ref(hub))? else {
        return Ok(None);
    };
    let tree = repo.commit_tree(tip)?;
    Ok(repo
        .blob_at(tree, crate::policy::POLICY_PATH)?
        .map(|b| String::from_utf8_lossy(&b).into_owned()))
}

/// The ref a clone keeps of the hub's `main`.
pub fn main_ref(hub: &str) -> String {
    format!("refs/remotes/{hub}/main")
}

/// The state of `main` the last completed sync accounted for (empty when
/// none was recorded). A cache: losing it costs one history walk and one
/// recompute of every reviewed learning.
pub fn recorded(state: &StateDir) -> MainState {
    std::fs::read(state.hub_main())
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// Records `main`'s state once a sync recomputed for it. Best effort.
pub fn record(state: &StateDir, main: &MainState) {
    if let Ok(bytes) = serde_json::to_vec(main)
        && let Err(e) = crate::store::atomic_write(&state.hub_main(), &bytes)
    {
        tracing::debug!("hub main state not saved: {e}");
    }
}

/// The records of `main` now: from `known` (a state recorded earlier) plus
/// the commits since, or from the whole first-parent history when `known`
/// is not on it.
pub fn main_state(repo: &Repo, hub: Option<&str>, known: &MainState) -> Result<MainState> {
    let Some(hub) = hub else {
        return Ok(MainState::default());
    };
    let Some(tip) = repo.ref_commit(&main_ref(hub))? else {
        return Ok(MainState::default());
    };
    let policy = repo
        .blob_id_at(repo.commit_tree(tip)?, crate::policy::POLICY_PATH)?
        .map(|id| id.to_string());
    if known.tip.as_deref() == Some(tip.to_string().as_str()) {
        let mut same = known.clone();
        same.policy = policy;
        return Ok(same);
    }
    // First-parent walk back to the known tip (or the root), newest first.
    let mut chain = Vec::new();
    let mut at = Some(tip);
    let mut from_known = false;
    while let Some(commit) = at {
        if known.tip.as_deref() == Some(commit.to_string().as_str()) {
            from_known = true;
            break;
        }
        let info = repo.commit_info(commit)?;
        at = info.parents.first().copied();
        chain.push((commit, info));
    }
    let mut state = if from_known {
        known.clone()
    } else {
        MainState::default()
    };
    // Oldest first: each commit's reviews/ against its first parent's.
    let reviews_of = |commit: Option<ObjectId>| -> Result<BTreeMap<String, ObjectId>> {
        let Some(commit) = commit else {
            return Ok(BTreeMap::new());
        };
        let tree = repo.commit_tree(commit)?;
        let Some(folder) = repo.subtree(tree, "reviews")? else {
            return Ok(BTreeMap::new());
        };
        Ok(repo
            .tree(folder)?
            .entries()
            .filter(|e| e.is_blob)
            .filter_map(|e| {
                let id = e.name.strip_suffix(".yaml")?;
                paths::validate_id(id).ok()?;
                Some((id.to_string(), e.id))
            })
            .collect())
    };
    for (commit, info) in chain.iter().rev() {
        let now = reviews_of(Some(*commit))?;
        let before = reviews_of(info.parents.first().copied())?;
        for (id, blob) in &now {
            if before.get(id) != Some(blob) {
                state.entries.insert(
                    id.clone(),
                    Entry {
                        blob: blob.to_string(),
                        entered_at: info.time,
                        pull_request: pull_request_of(&info.message),
                    },
                );
            }
        }
        for id in before.keys() {
            if !now.contains_key(id) {
                state.entries.remove(id);
            }
        }
    }
    state.tip = Some(tip.to_string());
    state.policy = policy;
    Ok(state)
}

/// The pull request a merge commit's message names: Gitea writes
/// `Merge pull request 'title' (#12) from review/x into main`.
fn pull_request_of(message: &str) -> Option<u64> {
    let first = message.lines().next()?;
    let at = first.rfind("(#")?;
    let rest = &first[at + 2..];
    rest[..rest.find(')')?].parse().ok()
}

/// Reads the review records on `hub`'s `main` (of every learning, or only
/// of `only`), starting from the state `known`. No hub, or no `main`
/// fetched yet: no records.
pub fn read_from(
    repo: &Repo,
    hub: Option<&str>,
    only: Option<&BTreeSet<String>>,
    known: &MainState,
) -> Result<HubMain> {
    let state = main_state(repo, hub, known)?;
    let mut out = HubMain::default();
    for (id, entry) in &state.entries {
        if only.is_some_and(|ids| !ids.contains(id)) {
            continue;
        }
        let Ok(blob) = ObjectId::from_hex(entry.blob.as_bytes()) else {
            continue;
        };
        let bytes = repo.read_blob(blob)?;
        match Review::parse(&String::from_utf8_lossy(&bytes)) {
            Ok(mut review) if review.learning == *id => {
                review.decided_at = Some(Timestamp::from_unix(entry.entered_at).to_string());
                review.pull_request = review.pull_request.or(entry.pull_request);
                out.reviews.insert(id.clone(), review);
            }
            Ok(review) => out.problems.push(Problem::new(
                format!("{}/main:reviews/{id}.yaml", hub.unwrap_or("hub")),
                format!(
                    "a review record naming another learning ({}) counts for nothing",
                    review.learning
                ),
            )),
            Err(e) => out.problems.push(Problem::new(
                format!("{}/main:reviews/{id}.yaml", hub.unwrap_or("hub")),
                format!("a review record that does not parse counts for nothing: {e}"),
            )),
        }
    }
    out.state = state;
    Ok(out)
}

/// [`read_from`] the state the last sync recorded in `state`.
pub fn read(
    repo: &Repo,
    state: &StateDir,
    hub: Option<&str>,
    only: Option<&BTreeSet<String>>,
) -> Result<HubMain> {
    let recorded = recorded(state);
    read_from(repo, hub, only, &recorded)
}

/// Every decision that bears on learnings: approvals (and rejections) on
/// the hub's `main`, rejections recorded in a tree, and open problem
/// reports recorded there.
#[derive(Debug, Default)]
pub struct Decisions {
    by_id: HashMap<String, Vec<Review>>,
    pub pulled: HashMap<String, Vec<Pulled>>,
    pub rejections: HashMap<String, Vec<Rejection>>,
    pub problems: Vec<Problem>,
}

impl Decisions {
    /// The decisions about one learning: `trust::derive` uses the one that
    /// names its current content.
    pub fn for_id(&self, id: &str) -> Vec<&Review> {
        self.by_id
            .get(id)
            .map(|v| v.iter().collect())
            .unwrap_or_default()
    }

    /// The open problem report naming `id`, if any (lowest issue number).
    pub fn pulled_by(&self, id: &str) -> Option<u64> {
        self.pulled.get(id)?.iter().map(|p| p.issue).min()
    }
}

/// The decisions of `main` (already read) and of the records in `tree`
/// (a commit's tree; the work tree's: [`decisions_in_dir`]).
pub fn decisions(repo: &Repo, main: HubMain, tree: Option<ObjectId>) -> Result<Decisions> {
    decisions_with(repo, main, tree, &BTreeMap::new())
}

/// [`decisions`], with some record files of `tree` replaced by new text
/// (`None`: deleted): what a commit about to be written will hold.
pub fn decisions_with(
    repo: &Repo,
    main: HubMain,
    tree: Option<ObjectId>,
    overrides: &BTreeMap<String, Option<String>>,
) -> Result<Decisions> {
    let mut out = Decisions {
        problems: main.problems,
        ..Decisions::default()
    };
    for (id, review) in main.reviews {
        out.by_id.entry(id).or_default().push(review);
    }
    let Some(tree) = tree else { return Ok(out) };
    for (dir, is_rejection) in [(paths::REJECTIONS_DIR, true), (paths::PULLED_DIR, false)] {
        let Some(folder) = repo.subtree(tree, dir)? else {
            continue;
        };
        for entry in repo.tree(folder)?.entries().filter(|e| e.is_blob) {
            let rel = format!("{dir}/{}", entry.name);
            if overrides.contains_key(&rel) {
                continue;
            }
            let text = String::from_utf8_lossy(&repo.read_blob(entry.id)?).into_owned();
            out.add_record(&rel, &text, is_rejection);
        }
    }
    for (rel, text) in overrides {
        let kind = paths::classify(rel);
        if let (Some(text), paths::RepoPath::Rejection { .. } | paths::RepoPath::Pulled { .. }) =
            (text, &kind)
        {
            out.add_record(rel, text, matches!(kind, paths::RepoPath::Rejection { .. }));
        }
    }
    Ok(out)
}

/// The decisions of `main` and of the records in the work tree of `root`
/// (what `list`, `show` and the review pass see before a sync commits them).
pub fn decisions_in_dir(root: &std::path::Path, main: HubMain) -> Decisions {
    let mut out = Decisions {
        problems: main.problems,
        ..Decisions::default()
    };
    for (id, review) in main.reviews {
        out.by_id.entry(id).or_default().push(review);
    }
    for (dir, is_rejection) in [(paths::REJECTIONS_DIR, true), (paths::PULLED_DIR, false)] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        let mut files: Vec<_> = entries.flatten().map(|e| e.file_name()).collect();
        files.sort();
        for name in files {
            let rel = format!("{dir}/{}", name.to_string_lossy());
            if let Ok(text) = std::fs::read_to_string(root.join(&rel)) {
                out.add_record(&rel, &text, is_rejection);
            }
        }
    }
    out
}

impl Decisions {
    fn add_record(&mut self, rel: &str, text: &str, is_rejection: bool) {
        let named = match paths::classify(rel) {
            paths::RepoPath::Rejection { id } | paths::RepoPath::Pulled { id } => id.to_string(),
            _ => return,
        };
        let mismatch = |learning: &str| {
            Problem::new(
                rel,
                format!(
                    "names learning {learning} but its file name says {named}; it counts for nothing"
                ),
            )
        };
        if is_rejection {
            match Rejection::parse(text) {
                Ok(r) if r.learning == named => {
                    self.by_id.entry(named.clone()).or_default().push(Review {
                        learning: r.learning.clone(),
                        decision: Decision::Rejected,
                        content_hash: r.content_hash.clone(),
                        title: None,
                        proposed_by: None,
                        proposed_at: None,
                        reviewer: Some(r.closed_by.clone()),
                        decided_at: Some(r.closed_at.clone()),
                        pull_request: Some(r.pull_request),
                    });
                    self.rejections.entry(named).or_default().push(r);
                }
                Ok(r) => self.problems.push(mismatch(&r.learning)),
                Err(e) => self.problems.push(Problem::new(
                    rel,
                    format!("a rejection record that does not parse counts for nothing: {e}"),
                )),
            }
        } else {
            match Pulled::parse(text) {
                Ok(p) if p.learning == named => self.pulled.entry(named).or_default().push(p),
                Ok(p) => self.problems.push(mismatch(&p.learning)),
                Err(e) => self.problems.push(Problem::new(
                    rel,
                    format!("a problem-report record that does not parse counts for nothing: {e}"),
                )),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pull_request_is_read_from_gitea_s_merge_message() {
        assert_eq!(
            pull_request_of(
                "Merge pull request 'Review: use lease' (#12) from review/x into main\n\nbody"
            ),
            Some(12)
        );
        assert_eq!(pull_request_of("learnsync: add a review"), None);
    }

    #[test]
    fn a_changed_or_removed_record_is_a_changed_learning() {
        let e = |blob: &str, at| Entry {
            blob: blob.into(),
            entered_at: at,
            pull_request: None,
        };
        let before = MainState {
            tip: Some("a".into()),
            entries: [("x".to_string(), e("1", 10)), ("y".to_string(), e("2", 10))].into(),
            policy: None,
        };
        let after = MainState {
            tip: Some("b".into()),
            entries: [("x".to_string(), e("1", 10)), ("z".to_string(), e("3", 20))].into(),
            policy: None,
        };
        let changed: Vec<String> = after.changed_since(&before).into_iter().collect();
        assert_eq!(changed, ["y", "z"]);
    }
}
