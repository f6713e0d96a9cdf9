//! Step 3 of the cycle: merge a fetched head into ours with the semantic
//! merge of `crate::merge`, as a real two-parent commit (or a fast-forward),
//! with derived state recomputed for exactly what changed.

use super::LevelChange;
use super::derive::{self, EventIndex};
use crate::merge::merge_file;
use crate::paths::{self, RepoPath};
use crate::repo::{Change, Identity, Repo, Result, Tree};
use gix::ObjectId;
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

/// One path that differs between the sides: blob ids at base, ours, theirs.
#[derive(Debug)]
pub struct Diff {
    pub path: String,
    pub base: Option<ObjectId>,
    pub ours: Option<ObjectId>,
    pub theirs: Option<ObjectId>,
}

fn tree(repo: &Repo, id: Option<ObjectId>) -> Result<Option<Rc<Tree>>> {
    id.map(|id| repo.tree(id)).transpose()
}

/// `(is_tree, id)` of a file or folder entry named `name`.
fn entry(t: &Option<Rc<Tree>>, name: &str) -> Option<(bool, ObjectId)> {
    t.as_ref()
        .and_then(|t| t.get(name))
        .filter(|e| e.is_tree || e.is_blob)
        .map(|e| (e.is_tree, e.id))
}

/// Names whose entry (kind or id) differs between two trees, sorted and
/// without duplicates. Both entry lists are in git's tree order (a folder
/// sorts as if its name ended in `/`), so one merge walk finds them.
fn changed_names<'a>(a: Option<&'a Tree>, b: Option<&'a Tree>) -> Vec<&'a str> {
    let (a, b) = match (a, b) {
        (None, None) => return Vec::new(),
        (Some(t), None) | (None, Some(t)) => {
            return t.entries.iter().map(|e| e.name.as_str()).collect();
        }
        (Some(a), Some(b)) => (&a.entries, &b.entries),
    };
    let mut out: Vec<&str> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let order = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) => git_order(x, y),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        match order {
            std::cmp::Ordering::Less => {
                out.push(&a[i].name);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(&b[j].name);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                if a[i].id != b[j].id || a[i].is_blob != b[j].is_blob {
                    out.push(&a[i].name);
                }
                i += 1;
                j += 1;
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Git's tree-entry order: by name bytes, a folder's name followed by `/`.
fn git_order(x: &crate::repo::TreeEntry, y: &crate::repo::TreeEntry) -> std::cmp::Ordering {
    let (a, b) = (x.name.as_bytes(), y.name.as_bytes());
    let n = a.len().min(b.len());
    a[..n].cmp(&b[..n]).then_with(|| {
        let next = |s: &[u8], is_tree: bool| s.get(n).copied().or(is_tree.then_some(b'/'));
        next(a, x.is_tree).cmp(&next(b, y.is_tree))
    })
}

/// Every file whose blob differs between two trees (`ours` = `from`,
/// `theirs` = `to`).
pub fn diff_trees(repo: &Repo, from: ObjectId, to: ObjectId) -> Result<Vec<Diff>> {
    let mut diffs = Vec::new();
    three_way(repo, Some(from), Some(from), Some(to), "", &mut diffs)?;
    Ok(diffs)
}

/// Every path whose blob differs between two commits.
pub fn changed_paths(repo: &Repo, from: ObjectId, to: ObjectId) -> Result<Vec<String>> {
    let diffs = diff_trees(repo, repo.commit_tree(from)?, repo.commit_tree(to)?)?;
    Ok(diffs.into_iter().map(|d| d.path).collect())
}

/// Paths where theirs changed something ours does not have. Identical
/// subtrees are skipped, so the cost follows what changed.
pub fn three_way(
    repo: &Repo,
    base: Option<ObjectId>,
    ours: Option<ObjectId>,
    theirs: Option<ObjectId>,
    prefix: &str,
    out: &mut Vec<Diff>,
) -> Result<()> {
    if ours == theirs || base == theirs {
        return Ok(());
    }
    let (b, o, t) = (tree(repo, base)?, tree(repo, ours)?, tree(repo, theirs)?);
    // Only names whose entry differs between base and theirs can matter
    // (`be == te` is skipped below): found by walking both sorted lists
    // once, so a big folder with a few changes costs a few lookups.
    for name in changed_names(b.as_deref(), t.as_deref()) {
        let (be, oe, te) = (entry(&b, name), entry(&o, name), entry(&t, name));
        if oe == te || be == te {
            continue;
        }
        let path = if prefix.is_empty() {
            name.to_string()
        } else {
            format!("{prefix}/{name}")
        };
        let present = [be, oe, te];
        let all_trees = present.iter().flatten().all(|(is_tree, _)| *is_tree);
        let all_blobs = present.iter().flatten().all(|(is_tree, _)| !*is_tree);
        let id = |e: Option<(bool, ObjectId)>| e.map(|(_, id)| id);
        if all_trees {
            three_way(repo, id(be), id(oe), id(te), &path, out)?;
        } else if all_blobs {
            out.push(Diff {
                path,
                base: id(be),
                ours: id(oe),
                theirs: id(te),
            });
        }
        // A file on one side and a folder on the other: ours stands.
    }
    Ok(())
}

/// What merging one head did.
#[derive(Debug, Default)]
pub struct Merged {
    /// The new head; `None` when theirs was already contained in ours.
    pub head: Option<ObjectId>,
    pub fast_forward: bool,
    pub paths: Vec<String>,
    pub conflicts_kept: Vec<String>,
    pub levels: Vec<LevelChange>,
}

/// Merges `theirs` into `ours` (commits), writing objects only; the caller
/// moves the ref once for the whole cycle.
pub fn merge_head(
    repo: &Repo,
    ours: ObjectId,
    theirs: ObjectId,
    label: &str,
    index: &mut EventIndex,
    hub: Option<&str>,
    who: &Identity,
) -> Result<Merged> {
    let base = repo.merge_base(ours, theirs)?;
    if base == Some(theirs) {
        return Ok(Merged::default());
    }
    let ours_tree = repo.commit_tree(ours)?;
    let theirs_tree = repo.commit_tree(theirs)?;
    let fast_forward = base == Some(ours);
    let base_tree = match base {
        Some(b) => Some(repo.commit_tree(b)?),
        None => None,
    };
    index.ensure(repo, ours_tree)?;

    // The merged tree, before derived state.
    let mut diffs = Vec::new();
    let (merged_tree, start) = if fast_forward {
        three_way(
            repo,
            Some(ours_tree),
            Some(ours_tree),
            Some(theirs_tree),
            "",
            &mut diffs,
        )?;
        (theirs_tree, theirs)
    } else {
        three_way(
            repo,
            base_tree,
            Some(ours_tree),
            Some(theirs_tree),
            "",
            &mut diffs,
        )?;
        (ours_tree, ours)
    };
    let mut changes: Vec<Change> = Vec::new();
    let mut affected: BTreeSet<String> = BTreeSet::new();
    let mut conflicts_kept = Vec::new();
    // What each diffed path holds in the merged tree.
    let mut fresh: HashMap<String, Option<Vec<u8>>> = HashMap::new();
    let read = |id: Option<ObjectId>| -> Result<Option<Vec<u8>>> {
        id.map(|id| repo.read_blob(id)).transpose()
    };
    for d in &diffs {
        let (o, t) = (read(d.ours)?, read(d.theirs)?);
        // The base only matters for a deletion, or a line merge of other files.
        let needs_base = !fast_forward
            && match paths::classify(&d.path) {
                RepoPath::Events { .. } => false,
                RepoPath::Learning { .. } => o.is_none() || t.is_none(),
                _ => true,
            };
        let b = if needs_base { read(d.base)? } else { None };
        let result = if fast_forward {
            // Theirs contains ours: take it as it is; recompute below.
            crate::merge::Merged {
                result: t.clone(),
                kept: Vec::new(),
            }
        } else {
            merge_file(&d.path, b.as_deref(), o.as_deref(), t.as_deref())
        };
        let old = if fast_forward {
            t.as_deref()
        } else {
            o.as_deref()
        };
        match paths::classify(&d.path) {
            RepoPath::Learning { id, .. } => {
                affected.insert(id.to_string());
            }
            RepoPath::Review { id } => {
                affected.insert(id.to_string());
            }
            RepoPath::Events { .. } => {
                let before = String::from_utf8_lossy(o.as_deref().unwrap_or_default()).into_owned();
                let after = String::from_utf8_lossy(result.result.as_deref().unwrap_or_default())
                    .into_owned();
                affected.extend(derive::ids_of_new_lines(&before, &after));
                index.update(
                    &d.path,
                    result
                        .result
                        .as_deref()
                        .map(|b| String::from_utf8_lossy(b).into_owned())
                        .as_deref(),
                );
            }
            _ => {}
        }
        fresh.insert(d.path.clone(), result.result.clone());
        if result.result.as_deref() != old {
            changes.push(match result.result {
                Some(bytes) => Change::Upsert {
                    path: d.path.clone(),
                    bytes,
                },
                None => Change::Delete {
                    path: d.path.clone(),
                },
            });
        }
        for (path, bytes) in result.kept {
            if repo.blob_id_at(ours_tree, &path)?.is_none() {
                conflicts_kept.push(path.clone());
                changes.push(Change::Upsert { path, bytes });
            }
        }
    }
    // Derived state for exactly the learnings whose file, events or review
    // moved, read from the merged content (`fresh` over the tree merged
    // into); then one tree holds both, so each big folder is written once.
    let (derived, levels) =
        derive::recompute(repo, merged_tree, ours_tree, &affected, index, hub, &fresh)?;
    let derived_paths: Vec<String> = derived.iter().map(|c| c.path().to_string()).collect();
    {
        let replaced: std::collections::HashSet<&str> =
            derived_paths.iter().map(String::as_str).collect();
        changes.retain(|c| !replaced.contains(c.path()));
    }
    changes.extend(derived);
    let tree = if changes.is_empty() {
        merged_tree
    } else {
        repo.write_tree(merged_tree, &changes)?
    };

    let head = if fast_forward && derived_paths.is_empty() {
        theirs
    } else if fast_forward {
        let msg = format!(
            "learnsync: recompute after fast-forward to {label}\n\n{} learning(s) recomputed.\n",
            derived_paths.len()
        );
        repo.write_commit(tree, &[start], &msg, who)?
    } else {
        let msg = format!(
            "learnsync: merge {label}\n\n{} path(s) merged, {} learning(s) recomputed{}.\n",
            diffs.len(),
            affected.len(),
            if conflicts_kept.is_empty() {
                String::new()
            } else {
                format!(
                    ", {} version(s) kept under .learnsync/conflicts/",
                    conflicts_kept.len()
                )
            }
        );
        repo.write_commit(tree, &[ours, theirs], &msg, who)?
    };
    let mut paths: Vec<String> = diffs.into_iter().map(|d| d.path).collect();
    paths.extend(derived_paths.iter().cloned());
    paths.extend(conflicts_kept.iter().cloned());
    paths.sort();
    paths.dedup();
    Ok(Merged {
        head: Some(head),
        fast_forward: fast_forward && derived_paths.is_empty(),
        paths,
        conflicts_kept,
        levels,
    })
}
