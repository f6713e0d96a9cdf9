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
    only: Option<&BTreeSet<String>>,
) -> Result<HashMap<String, Review>> {
    let mut out = HashMap::new();
    let Some(hub) = hub else { return Ok(out) };
    let Some(main) = repo.ref_commit(&format!("refs/remotes/{hub}/main"))? else {
        return Ok(out);
    };
    let tree = repo.commit_tree(main)?;
    let ids: Vec<String> = match only {
        Some(ids) => ids.iter().cloned().collect(),
        None => match repo.subtree(tree, "reviews")? {
            Some(reviews) => repo
                .tree(reviews)?
                .entries
                .iter()
                .filter_map(|e| e.name.strip_suffix(".yaml").map(str::to_string))
                .collect(),
            None => Vec::new(),
        },
    };
    for id in ids {
        let Ok(rel) = paths::review_path(&id) else {
            continue;
        };
        if let Some(bytes) = repo.blob_at(tree, &rel)?
            && let Ok(review) = Review::parse(&String::from_utf8_lossy(&bytes))
        {
            out.insert(id, review);
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
    let file = format!("{id}.md");
    for folder in repo.tree(tree)?.entries.iter().filter(|e| e.is_tree) {
        let Some(entry) = repo
            .tree(folder.id)?
            .get(&file)
            .filter(|e| e.is_blob)
            .cloned()
        else {
            continue;
        };
        let Ok(rel) = paths::learning_path(&folder.name, id) else {
            continue;
        };
        if let Ok(l) = LearningsDir::parse_at(&rel, &repo.read_blob(entry.id)?) {
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
    let reviews = hub_reviews(repo, hub, Some(ids))?;
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
