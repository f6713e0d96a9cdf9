//! Steps 3 and 4 of the cycle: merge each fetched head into ours with the
//! semantic merge of `crate::merge`, as a real two-parent commit (or a
//! fast-forward); then, once after the last merge, recompute the derived
//! state of exactly the learnings the merges touched, as one commit on top.

use super::LevelChange;
use super::derive::{self, EventIndex};
use super::owners::{Owners, Refused, Tip};
use crate::merge::{Screen, merge_file};
use crate::paths::{self, RepoPath};
use crate::repo::{Change, Identity, Repo, Result, Tree, safe_name};
use gix::ObjectId;
use std::collections::BTreeSet;
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

/// The entry named `name` in `t`, looked up once, as a walk reads it:
/// `(is_tree, id)` of a file or folder (`None` for anything else), and
/// whether it is absent, a folder or a plain file (mode 100644), what a
/// [`Diff`] describes whole.
fn entry(t: &Option<Rc<Tree>>, name: &str) -> (Option<(bool, ObjectId)>, bool) {
    let Some(e) = t.as_ref().and_then(|t| t.get(name)) else {
        return (None, true);
    };
    let plain = e.is_tree || e.mode.kind() == gix::objs::tree::EntryKind::Blob;
    ((e.is_tree || e.is_blob).then_some((e.is_tree, e.id)), plain)
}

/// Names whose entry (kind or id) differs between two trees, sorted and
/// without duplicates. Both entry lists are in git's tree order (a folder
/// sorts as if its name ended in `/`), so one merge walk finds them.
fn changed_names<'a>(a: Option<&'a Tree>, b: Option<&'a Tree>) -> Vec<&'a str> {
    let (a, b) = match (a, b) {
        (None, None) => return Vec::new(),
        (Some(t), None) | (None, Some(t)) => {
            return t.entries().map(|e| e.name).collect();
        }
        (Some(a), Some(b)) => (a, b),
    };
    let mut out: Vec<&str> = Vec::new();
    let (mut i, mut j) = (0, 0);
    loop {
        match (a.at(i), b.at(j)) {
            (None, None) => break,
            (Some(x), None) => {
                out.push(x.name);
                i += 1;
            }
            (None, Some(y)) => {
                out.push(y.name);
                j += 1;
            }
            (Some(x), Some(y)) => match git_order(&x, &y) {
                std::cmp::Ordering::Less => {
                    out.push(x.name);
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    out.push(y.name);
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    if x.id != y.id || x.is_blob != y.is_blob {
                        out.push(x.name);
                    }
                    i += 1;
                    j += 1;
                }
            },
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Git's tree-entry order: by name bytes, a folder's name followed by `/`.
fn git_order(x: &crate::repo::EntryRef, y: &crate::repo::EntryRef) -> std::cmp::Ordering {
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
    Ok(walk_trees(repo, from, to)?.diffs)
}

/// [`diff_trees`], saying whether the diffs are every difference.
pub fn walk_trees(repo: &Repo, from: ObjectId, to: ObjectId) -> Result<Walk> {
    let mut walk = Walk::default();
    three_way(repo, Some(from), Some(from), Some(to), "", &mut walk)?;
    Ok(walk)
}

/// What a walk of trees found.
#[derive(Debug, Default)]
pub struct Walk {
    pub diffs: Vec<Diff>,
    /// Entries left out because their name is not [`safe_name`]: a peer's
    /// tree can hold `.git/config` or `..`; such a path is never merged
    /// into our tree nor written to disk.
    pub refused: Vec<String>,
    /// True when `diffs` is not every difference: a name refused, a file
    /// on one side and a folder on the other, or an entry that is not a
    /// folder or a plain file (an executable, a symlink, a submodule).
    pub partial: bool,
    /// Walking a peer's head: a name is also refused when no file system
    /// can hold it or it tells git how to treat this clone (see
    /// [`peer_name`]).
    pub peer: bool,
}

/// The longest path a peer's head may bring, in bytes: well inside the
/// 4,096 a path may have on Linux, with the learnings dir's own in front.
pub const MAX_PEER_PATH: usize = 1024;

/// Whether a name a peer's head brings may enter our tree: one git would
/// check out ([`safe_name`]), that fits a file system's 255 bytes (else
/// writing the work tree fails in every sync after), and that is not
/// `.gitignore`, `.gitattributes` or `.gitmodules`, which would change
/// what this clone's git ignores, converts or fetches.
pub fn peer_name(name: &str) -> bool {
    safe_name(name)
        && name.len() <= 255
        && !matches!(
            name.to_ascii_lowercase().as_str(),
            ".gitignore" | ".gitattributes" | ".gitmodules"
        )
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
    out: &mut Walk,
) -> Result<()> {
    if ours == theirs || base == theirs {
        return Ok(());
    }
    let (b, o, t) = (tree(repo, base)?, tree(repo, ours)?, tree(repo, theirs)?);
    // Only names whose entry differs between base and theirs can matter
    // (`be == te` is skipped below): found by walking both sorted lists
    // once, so a big folder with a few changes costs a few lookups.
    for name in changed_names(b.as_deref(), t.as_deref()) {
        let [(be, b_plain), (oe, o_plain), (te, t_plain)] = [&b, &o, &t].map(|t| entry(t, name));
        out.partial |= !(b_plain && o_plain && t_plain);
        if oe == te || be == te {
            continue;
        }
        let path = if prefix.is_empty() {
            name.to_string()
        } else {
            format!("{prefix}/{name}")
        };
        // A peer's path no file system can hold whole is left out too.
        let allowed = if out.peer {
            peer_name(name) && path.len() <= MAX_PEER_PATH
        } else {
            safe_name(name)
        };
        if !allowed {
            out.partial = true;
            out.refused.push(path);
            continue;
        }
        let present = [be, oe, te];
        let all_trees = present.iter().flatten().all(|(is_tree, _)| *is_tree);
        let all_blobs = present.iter().flatten().all(|(is_tree, _)| !*is_tree);
        let id = |e: Option<(bool, ObjectId)>| e.map(|(_, id)| id);
        if all_trees {
            three_way(repo, id(be), id(oe), id(te), &path, out)?;
        } else if all_blobs {
            out.diffs.push(Diff {
                path,
                base: id(be),
                ours: id(oe),
                theirs: id(te),
            });
        }
        // A file on one side and a folder on the other: ours stands.
        out.partial |= !all_trees && !all_blobs;
    }
    Ok(())
}

/// What merging one head did.
#[derive(Debug, Default)]
pub struct HeadMerge {
    /// The new head; `None` when theirs was already contained in ours.
    pub head: Option<ObjectId>,
    pub fast_forward: bool,
    pub paths: Vec<String>,
    pub conflicts_kept: Vec<String>,
    /// Changes to folders the head does not own, refused (§6.1).
    pub refused: Vec<Refused>,
    /// Learnings whose file, events or review this merge moved: their
    /// derived state is recomputed once, after the last merge of the cycle.
    pub affected: BTreeSet<String>,
}

/// Merges `theirs` into `ours` (commits), writing objects only; the caller
/// moves the ref once for the whole cycle, after recomputing derived state
/// (§6 step 4) for every learning the cycle's merges affected. Derived
/// fields take no part in the merge itself, so a merge commit carries them
/// as the winning side had them. What the head changes in folders it does
/// not own is screened against the owners' branches first (§6.1).
pub fn merge_head(
    repo: &Repo,
    ours: ObjectId,
    theirs: ObjectId,
    label: &str,
    who: &Identity,
    owners: &mut Owners,
) -> Result<HeadMerge> {
    let base = repo.merge_base(ours, theirs)?;
    if base == Some(theirs) {
        return Ok(HeadMerge::default());
    }
    let ours_tree = repo.commit_tree(ours)?;
    let theirs_tree = repo.commit_tree(theirs)?;
    let base_tree = match base {
        Some(b) => Some(repo.commit_tree(b)?),
        None => None,
    };

    // When theirs contains ours (a fast-forward), base is ours.
    let mut walk = Walk {
        peer: true,
        ..Walk::default()
    };
    three_way(
        repo,
        base_tree,
        Some(ours_tree),
        Some(theirs_tree),
        "",
        &mut walk,
    )?;
    for path in &walk.refused {
        tracing::warn!(
            "{label}: left out {path:?}: not a path a peer may bring (`.git`, `.`, `..`, empty, a name over 255 bytes or a path over 1,024, or a `.gitignore`, `.gitattributes` or `.gitmodules`)"
        );
    }
    let diffs = walk.diffs;
    let screens = screen_diffs(repo, &diffs, label, owners)?;
    // A head holding such a path, an entry that is not a plain file or a
    // folder (a symlink, a submodule, an executable), or changing a folder
    // it does not own, is merged, never taken as it is: our tree must not
    // point at what the merge leaves out.
    let fast_forward = base == Some(ours)
        && !walk.partial
        && walk.refused.is_empty()
        && screens.iter().all(|s| *s == Screen::Accept);
    prefetch_merge_blobs(repo, &diffs, fast_forward);
    if fast_forward {
        return fast_forward_to(repo, theirs, diffs);
    }

    let at = MergeInto {
        repo,
        ours,
        ours_tree,
        theirs,
        label,
        who,
    };
    let mut merged = Merged::default();
    for (d, screen) in diffs.iter().zip(screens) {
        merged.merge_path(&at, d, screen)?;
    }
    merged.commit(&at, diffs)
}

/// Reads every blob the merge of `diffs` will read, once, in pack order (see
/// `Repo::prefetch_blobs`): the same reads, in a fraction of the time.
fn prefetch_merge_blobs(repo: &Repo, diffs: &[Diff], fast_forward: bool) {
    repo.prefetch_blobs(diffs.iter().flat_map(|d| {
        let kind = paths::classify(&d.path);
        let events = matches!(kind, RepoPath::Events { .. });
        let both = !fast_forward || events;
        let base = !fast_forward && needs_base(&kind, d.ours.is_some(), d.theirs.is_some());
        [
            d.ours.filter(|_| both),
            d.theirs.filter(|_| both),
            d.base.filter(|_| base),
        ]
        .into_iter()
        .flatten()
    }));
}

/// Takes `theirs` as it is: its paths, and the learnings they are about.
fn fast_forward_to(repo: &Repo, theirs: ObjectId, diffs: Vec<Diff>) -> Result<HeadMerge> {
    let mut affected: BTreeSet<String> = BTreeSet::new();
    for d in &diffs {
        // Only an events file's lines are needed to know whom it is about.
        let (o, t) = match paths::classify(&d.path) {
            RepoPath::Events { .. } => (blob(repo, d.ours)?, blob(repo, d.theirs)?),
            _ => (None, None),
        };
        note_affected(&d.path, o.as_deref(), t.as_deref(), &mut affected);
    }
    Ok(HeadMerge {
        head: Some(theirs),
        fast_forward: true,
        paths: diffs.into_iter().map(|d| d.path).collect(),
        conflicts_kept: Vec::new(),
        refused: Vec::new(),
        affected,
    })
}

/// The bytes of a blob, if there is one.
fn blob(repo: &Repo, id: Option<ObjectId>) -> Result<Option<Vec<u8>>> {
    id.map(|id| repo.read_blob(id)).transpose()
}

/// The two commits a merge joins, and what its steps read of them.
struct MergeInto<'a> {
    repo: &'a Repo,
    ours: ObjectId,
    ours_tree: ObjectId,
    theirs: ObjectId,
    /// The head's name in messages and refusals.
    label: &'a str,
    who: &'a Identity,
}

/// What merging the paths one by one has made so far.
#[derive(Default)]
struct Merged {
    changes: Vec<Change>,
    conflicts_kept: Vec<String>,
    refused: Vec<Refused>,
    affected: BTreeSet<String>,
}

impl Merged {
    /// Merges one path as its screen allows: refused, filtered or merged,
    /// with what a merge could not use kept under `.learnsync/conflicts/`.
    fn merge_path(&mut self, at: &MergeInto, d: &Diff, screen: Screen) -> Result<()> {
        let (o, mut t) = (blob(at.repo, d.ours)?, blob(at.repo, d.theirs)?);
        let kind = paths::classify(&d.path);
        let mut kept_refused = None;
        match screen {
            Screen::Accept => {}
            Screen::Ignore => return Ok(()),
            Screen::Refuse { why, kept } => {
                self.refused
                    .push(refusal(at.label, &d.path, why, kept.as_ref()));
                if let Some((path, bytes)) = kept {
                    self.keep(at, path, bytes)?;
                }
                return Ok(());
            }
            Screen::Filter { theirs, kept } => {
                self.refused.push(refusal(
                    at.label,
                    &d.path,
                    "adds event lines its owner's branch does not have",
                    Some(&kept),
                ));
                t = Some(theirs);
                kept_refused = Some(kept);
            }
        }
        let b = if needs_base(&kind, o.is_some(), t.is_some()) {
            blob(at.repo, d.base)?
        } else {
            None
        };
        let filtered = kept_refused.is_some();
        let mut result = merge_file(&d.path, b.as_deref(), o.as_deref(), t.as_deref());
        result.kept.extend(kept_refused);
        note_affected(
            &d.path,
            o.as_deref(),
            result.result.as_deref(),
            &mut self.affected,
        );
        if result.result != o {
            // Theirs taken as it is: its blob is already in the store.
            let same_as_theirs = result.result == t && !filtered;
            self.changes.push(match (result.result, d.theirs) {
                (Some(_), Some(id)) if same_as_theirs => Change::Existing {
                    path: d.path.clone(),
                    id,
                },
                (Some(bytes), _) => Change::Upsert {
                    path: d.path.clone(),
                    bytes,
                },
                (None, _) => Change::Delete {
                    path: d.path.clone(),
                },
            });
        }
        for (path, bytes) in result.kept {
            self.keep(at, path, bytes)?;
        }
        Ok(())
    }

    /// Writes bytes a merge could not use under `.learnsync/conflicts/`, once.
    fn keep(&mut self, at: &MergeInto, path: String, bytes: Vec<u8>) -> Result<()> {
        if at.repo.blob_id_at(at.ours_tree, &path)?.is_none() {
            self.conflicts_kept.push(path.clone());
            self.changes.push(Change::Upsert { path, bytes });
        }
        Ok(())
    }

    /// Writes our tree with the changes and the two-parent merge commit over
    /// it, and says what the merge did.
    fn commit(self, at: &MergeInto, diffs: Vec<Diff>) -> Result<HeadMerge> {
        let Merged {
            changes,
            conflicts_kept,
            refused,
            affected,
        } = self;
        let (repo, label) = (at.repo, at.label);
        let tree = if changes.is_empty() {
            at.ours_tree
        } else {
            repo.write_tree(at.ours_tree, &changes)?
        };
        let msg = format!(
            "learnsync: merge {label}\n\n{} path(s) merged{}.\n",
            diffs.len(),
            if conflicts_kept.is_empty() {
                String::new()
            } else {
                format!(
                    ", {} version(s) kept under .learnsync/conflicts/",
                    conflicts_kept.len()
                )
            }
        );
        let head = repo.write_commit(tree, &[at.ours, at.theirs], &msg, at.who)?;
        let mut paths: Vec<String> = diffs.into_iter().map(|d| d.path).collect();
        paths.extend(conflicts_kept.iter().cloned());
        paths.sort();
        paths.dedup();
        Ok(HeadMerge {
            head: Some(head),
            fast_forward: false,
            paths,
            conflicts_kept,
            refused,
            affected,
        })
    }
}

/// Screens each diff against its owner's branch (§6.1): a path of a
/// folder the head does not own is judged by the owner's tip; everything
/// else is accepted.
fn screen_diffs(
    repo: &Repo,
    diffs: &[Diff],
    label: &str,
    owners: &mut Owners,
) -> Result<Vec<Screen>> {
    let mut out = Vec::with_capacity(diffs.len());
    for d in diffs {
        let owner = match crate::merge::owner_of(&d.path) {
            Some(owner) if !owners.free(owner, label) => owner,
            _ => {
                out.push(Screen::Accept);
                continue;
            }
        };
        let tip = match owners.tip(repo, owner, &d.path)? {
            Tip::Blob(tip) => tip,
            // No commit signed with the owner's key: nothing changes its
            // folders (a deletion included), and new bytes are kept aside.
            Tip::Unsigned if d.theirs.is_none() => {
                out.push(Screen::Refuse {
                    why: "deletes a learning; no commit signed with its owner's key does",
                    kept: None,
                });
                continue;
            }
            Tip::Unsigned => None,
        };
        // The owner's very blob: nothing to judge.
        if tip.is_some() && tip == d.theirs {
            out.push(Screen::Accept);
            continue;
        }
        let (o, t, p) = (blob(repo, d.ours)?, blob(repo, d.theirs)?, blob(repo, tip)?);
        out.push(crate::merge::screen(
            &d.path,
            o.as_deref(),
            t.as_deref(),
            p.as_deref(),
        ));
    }
    Ok(out)
}

fn refusal(label: &str, path: &str, why: &str, kept: Option<&(String, Vec<u8>)>) -> Refused {
    let owner = crate::merge::owner_of(path).unwrap_or_default();
    tracing::warn!("{label}: refused its change to {path}, owned by {owner}: it {why}");
    Refused {
        head: label.to_string(),
        path: path.to_string(),
        owner: owner.to_string(),
        why: why.to_string(),
        kept: kept.map(|(p, _)| p.clone()),
    }
}

/// Whether merging a path needs its base version: only for a deletion of
/// a learning, or a line merge of other files (events are a union).
fn needs_base(kind: &RepoPath<'_>, ours: bool, theirs: bool) -> bool {
    match kind {
        RepoPath::Events { .. } => false,
        RepoPath::Learning { .. } => !ours || !theirs,
        _ => true,
    }
}

/// Adds the learnings a changed path is about: a learning's or review's
/// own id, or the ids named by lines an events file gained.
fn note_affected(
    path: &str,
    before: Option<&[u8]>,
    after: Option<&[u8]>,
    affected: &mut BTreeSet<String>,
) {
    match paths::classify(path) {
        RepoPath::Learning { id, .. }
        | RepoPath::Review { id }
        | RepoPath::Rejection { id }
        | RepoPath::Pulled { id } => {
            affected.insert(id.to_string());
        }
        RepoPath::Events { .. } => affected.extend(derive::ids_of_new_lines(
            &String::from_utf8_lossy(before.unwrap_or_default()),
            &String::from_utf8_lossy(after.unwrap_or_default()),
        )),
        _ => {}
    }
}

/// Step 4 after the merges: recomputes the derived state of `affected` in
/// `head`'s tree and commits it on top (`None` when nothing changed).
/// Trust changes are relative to `before`, the tree the cycle started from.
pub fn recompute_after(
    repo: &Repo,
    head: ObjectId,
    before: ObjectId,
    affected: &BTreeSet<String>,
    index: &mut EventIndex,
    hub: crate::hub::HubAt<'_>,
    who: &Identity,
) -> Result<(Option<ObjectId>, Vec<LevelChange>)> {
    if affected.is_empty() {
        return Ok((None, Vec::new()));
    }
    let mut lap = super::Lap::start();
    // The merges' trees (every head's version of the folders it touched)
    // are done with; the recompute decodes the merged folders it reads, and
    // the tree it writes is built on those same ones.
    repo.release_trees();
    let tree = repo.commit_tree(head)?;
    // Each blob read is handed out once: a chunk's prefetched learnings
    // leave the cache as they are derived instead of staying to the end.
    let (changes, levels) = repo.reading_blobs_once(|| {
        index.ensure(repo, tree)?;
        lap.done("  bring the events index along");
        derive::recompute(repo, tree, before, affected, index, hub)
    })?;
    lap.done("  recompute");
    if changes.is_empty() {
        return Ok((None, levels));
    }
    // The folders read (this tree's and the previous head's) are done with
    // too: the tree write decodes the few it edits, one at a time.
    repo.release_trees();
    let new_tree = repo.write_tree(tree, &changes)?;
    lap.done("  write the recomputed files");
    let msg = format!(
        "learnsync: recompute derived state after merging\n\n{} learning(s) recomputed.\n",
        changes.len()
    );
    Ok((
        Some(repo.write_commit(new_tree, &[head], &msg, who)?),
        levels,
    ))
}

#[cfg(test)]
mod tests {
    //! A diff of two trees says when it is not every difference.
    use super::*;
    use crate::repo::test_git as git;
    use std::path::Path;

    /// Writes `files` (path, bytes, executable) to the work tree, stages
    /// them and returns the index's tree.
    fn tree_of(dir: &Path, files: &[(&str, &str, bool)]) -> ObjectId {
        use std::os::unix::fs::PermissionsExt;
        for (path, bytes, exec) in files {
            let file = dir.join(path);
            std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
            std::fs::write(&file, bytes).expect("write");
            let mode = if *exec { 0o755 } else { 0o644 };
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).expect("chmod");
            git(dir, &["add", path]);
        }
        git(dir, &["write-tree"]).trim().parse().expect("tree id")
    }

    #[test]
    fn a_diff_of_plain_files_is_whole_and_one_touching_anything_else_is_partial() {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path();
        let repo = Repo::init(dir, "agents/ann").expect("init");
        let first = tree_of(dir, &[("a/1.md", "one", false), ("run.sh", "echo", true)]);
        let plain = tree_of(dir, &[("a/1.md", "two", false), ("a/2.md", "new", false)]);
        let walk = walk_trees(&repo, first, plain).expect("walk");
        let paths: Vec<&str> = walk.diffs.iter().map(|d| d.path.as_str()).collect();
        assert_eq!(paths, ["a/1.md", "a/2.md"]);
        assert!(!walk.partial, "plain files only");

        let exec = tree_of(dir, &[("run.sh", "echo hi", true)]);
        assert!(
            walk_trees(&repo, plain, exec).expect("walk").partial,
            "an executable changed"
        );

        std::fs::remove_file(dir.join("a/2.md")).expect("rm");
        git(dir, &["rm", "-q", "--cached", "a/2.md"]);
        let folder = tree_of(dir, &[("a/2.md/inside.md", "now a folder", false)]);
        assert!(
            walk_trees(&repo, exec, folder).expect("walk").partial,
            "a file became a folder"
        );

        let removed = {
            git(dir, &["rm", "-q", "--cached", "a/1.md"]);
            tree_of(dir, &[])
        };
        let walk = walk_trees(&repo, folder, removed).expect("walk");
        assert!(!walk.partial, "a plain file removed");
        assert_eq!(walk.diffs.len(), 1);
        assert_eq!(walk.diffs[0].theirs, None);
    }
}
