//! Recomputing derived state inside a cycle: an index of every event in the
//! tree (parsed once per cycle, then updated file by file as merges change
//! them), the hub's review records, and the recompute of chosen learnings.

use super::LevelChange;
use crate::event::{self, Event};
use crate::learning::{Learning, TrustLevel};
use crate::paths::{self, RepoPath};
use crate::policy::{POLICY_PATH, Policy};
use crate::repo::{Change, Repo, Result};
use crate::review::Review;
use crate::store::LearningsDir;
use crate::trust;
use gix::ObjectId;
use std::collections::{BTreeSet, HashMap};

/// Events of the current tree, by file, loaded on first use.
#[derive(Default)]
pub struct EventIndex {
    loaded: bool,
    by_file: HashMap<String, Vec<Event>>,
}

impl EventIndex {
    /// Parses every events file of `tree` unless already loaded.
    pub fn ensure(&mut self, repo: &Repo, tree: ObjectId) -> Result<()> {
        if self.loaded {
            return Ok(());
        }
        self.loaded = true;
        if let Some(events) = repo.subtree(tree, "events")? {
            for (rel, id) in repo.flatten(events)? {
                let path = format!("events/{rel}");
                if matches!(paths::classify(&path), RepoPath::Events { .. }) {
                    let bytes = repo.read_blob(id)?;
                    self.by_file.insert(
                        path,
                        event::parse_file(&String::from_utf8_lossy(&bytes)).events,
                    );
                }
            }
        }
        Ok(())
    }

    /// Replaces one file's events (after a merge or a commit changed it).
    pub fn update(&mut self, path: &str, text: Option<&str>) {
        if !self.loaded {
            return;
        }
        match text {
            Some(t) => {
                self.by_file
                    .insert(path.to_string(), event::parse_file(t).events);
            }
            None => {
                self.by_file.remove(path);
            }
        }
    }

    /// Events of the given learnings.
    pub fn for_ids<'a>(&'a self, ids: &BTreeSet<String>) -> HashMap<&'a str, Vec<&'a Event>> {
        let mut out: HashMap<&str, Vec<&Event>> = HashMap::new();
        for events in self.by_file.values() {
            for e in events {
                if ids.contains(&e.learning) {
                    out.entry(e.learning.as_str()).or_default().push(e);
                }
            }
        }
        out
    }
}

/// Learning ids named by lines of `new` that are not in `old`.
pub fn ids_of_new_lines(old: &str, new: &str) -> BTreeSet<String> {
    let before: std::collections::HashSet<&str> = old.lines().collect();
    new.lines()
        .filter(|l| !before.contains(l))
        .filter_map(|l| Event::parse_line(l).ok())
        .map(|e| e.learning)
        .collect()
}

/// Review records on the hub's `main`: the only ones that count (§5).
pub fn hub_reviews(
    repo: &Repo,
    hub: Option<&str>,
    ids: &BTreeSet<String>,
) -> Result<HashMap<String, Review>> {
    let mut out = HashMap::new();
    let Some(hub) = hub else { return Ok(out) };
    let Some(main) = repo.ref_commit(&format!("refs/remotes/{hub}/main"))? else {
        return Ok(out);
    };
    let tree = repo.commit_tree(main)?;
    for id in ids {
        let Ok(rel) = paths::review_path(id) else {
            continue;
        };
        if let Some(bytes) = repo.blob_at(tree, &rel)?
            && let Ok(review) = Review::parse(&String::from_utf8_lossy(&bytes))
        {
            out.insert(id.clone(), review);
        }
    }
    Ok(out)
}

/// The policy in a tree (defaults when absent or invalid).
pub fn policy_in(repo: &Repo, tree: ObjectId) -> Result<Policy> {
    Ok(repo
        .blob_at(tree, POLICY_PATH)?
        .and_then(|b| Policy::parse(&String::from_utf8_lossy(&b)).ok())
        .unwrap_or_default())
}

/// Finds the learning file of `id` in a tree by looking in every agent folder.
pub fn find_learning(repo: &Repo, tree: ObjectId, id: &str) -> Result<Option<(String, Learning)>> {
    let t = repo
        .gix()
        .find_tree(tree)
        .map_err(crate::repo::fail("read tree"))?;
    let decoded = t.decode().map_err(crate::repo::fail("decode tree"))?;
    for entry in &decoded.entries {
        if !entry.mode.is_tree() {
            continue;
        }
        let agent = String::from_utf8_lossy(entry.filename).into_owned();
        let Ok(rel) = paths::learning_path(&agent, id) else {
            continue;
        };
        if let Some(bytes) = repo.blob_at(tree, &rel)?
            && let Ok(l) = LearningsDir::parse_at(&rel, &bytes)
        {
            return Ok(Some((rel, l)));
        }
    }
    Ok(None)
}

/// Recomputes the derived state of `ids` in `tree`. Returns the files to
/// rewrite and the trust changes relative to `before` (the levels the
/// previous head recorded).
pub fn recompute(
    repo: &Repo,
    tree: ObjectId,
    before: ObjectId,
    ids: &BTreeSet<String>,
    index: &EventIndex,
    hub: Option<&str>,
) -> Result<(Vec<Change>, Vec<LevelChange>)> {
    let mut changes = Vec::new();
    let mut levels = Vec::new();
    if ids.is_empty() {
        return Ok((changes, levels));
    }
    let policy = policy_in(repo, tree)?;
    let reviews = hub_reviews(repo, hub, ids)?;
    let events = index.for_ids(ids);
    for id in ids {
        let Some((rel, mut learning)) = find_learning(repo, tree, id)? else {
            continue;
        };
        let mine = events.get(id.as_str()).map(Vec::as_slice).unwrap_or(&[]);
        let derived = trust::derive(&learning, mine, reviews.get(id), &policy.trust);
        trust::apply(&mut learning, derived);
        let bytes = learning.to_markdown().into_bytes();
        if repo.blob_at(tree, &rel)?.as_deref() != Some(bytes.as_slice()) {
            changes.push(Change::Upsert {
                path: rel.clone(),
                bytes,
            });
        }
        let previous = repo
            .blob_at(before, &rel)?
            .and_then(|b| Learning::parse(&b).ok())
            .map_or(TrustLevel::L1, |l| l.trust_level);
        if learning.trust_level != previous && learning.trust_level.max(previous) >= TrustLevel::L2
        {
            levels.push(LevelChange {
                id: id.clone(),
                from: previous.to_string(),
                to: learning.trust_level.to_string(),
            });
        }
    }
    Ok((changes, levels))
}
