//! Bringing the search index to HEAD: opening it fresh for a query (catch
//! up, or build when missing), updating it after a sync, and the catch-up
//! itself — the paths that changed between the commit the index reflects
//! and HEAD, re-weighed into the delta, which is folded into a new segment
//! once it grows (see [`on_disk`](super::on_disk) for the files).

use super::doc::{Doc, Evidence, Tally, retrievable};
use super::kg;
use super::on_disk::{
    DELTA_FILE, DELTA_MIN_FOLD, DELTA_VERSION, Delta, Freshness, HubName, Opened, SEGMENT_FILE,
    folder, head_commit, laps, open, rebuild, rebuild_seeing, write_segment,
};
use super::postings::{ID, Source, WeighedDoc};
use super::segment::{Segment, SegmentSource};
use crate::event::Event;
use crate::paths::{self, RepoPath};
use crate::repo::Repo;
use crate::store::LearningsDir;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Duration;

/// Opens the index, bringing it to HEAD first as `freshness` says; builds it
/// when it is missing or unreadable. A build reads the review records from
/// `hub`'s `main`.
pub fn open_fresh(
    dir: &LearningsDir,
    hub: HubName<'_>,
    freshness: Freshness,
) -> Result<Opened, String> {
    let head = head_commit(&dir.root);
    match open(dir) {
        Ok(o) if o.head() == head.as_deref() => return Ok(o),
        Ok(o) if freshness == Freshness::AsItIs => return Ok(o),
        Ok(o) => {
            let hub = hub.read(dir)?;
            match catch_up(dir, hub.as_deref(), o, head.as_deref()) {
                Ok(()) => {}
                Err(e) => {
                    tracing::debug!("search index: catching up failed ({e}); rebuilding");
                    rebuild(dir, hub.as_deref())?;
                }
            }
        }
        Err(_) if crate::store::index_build_running(&dir.state()) => {
            // A hook does not wait: it says nothing while the build runs,
            // rather than build a second index at the agent's expense.
            if freshness != Freshness::CatchUp {
                return Err("the search index is being built (learnsync index)".into());
            }
            if crate::store::wait_for_index_build(&dir.state(), BUILD_WAIT) {
                return open_fresh(dir, hub, freshness);
            }
            tracing::warn!("the search index build is taking long; building one for this query");
            let hub = hub.read(dir)?;
            rebuild(dir, hub.as_deref())?;
        }
        Err(e) => {
            if e.contains("damaged") {
                tracing::warn!("{e}; rebuilding it");
            } else {
                tracing::debug!("{e}; rebuilding it");
            }
            let hub = hub.read(dir)?;
            rebuild(dir, hub.as_deref())?;
        }
    }
    open(dir)
}

/// How long a query with no index waits for a `learnsync index` that is
/// building one (a first sync's, detached) before building its own.
const BUILD_WAIT: Duration = Duration::from_secs(60);

/// Brings the index to HEAD after a sync changed `changed` (repository
/// paths; the tree the index reflects is diffed against HEAD as well, so a
/// commit made outside a sync is not missed). Best effort, like the capture
/// index: a failure leaves the index to be rebuilt by the next query.
/// Reads through the sync's `repo`: the packs it mapped are not mapped a
/// second time.
pub fn update(dir: &LearningsDir, hub: Option<&str>, changed: &[String], repo: &Repo) {
    let head = head_commit(&dir.root);
    let result = match open(dir) {
        Ok(o) if o.head() == head.as_deref() && changed.is_empty() => Ok(()),
        Ok(o) => catch_up_with(dir, hub, o, head.as_deref(), changed, repo),
        Err(_) => rebuild_seeing(dir, hub, &mut |_| {}, Some(repo)).map(|_| ()),
    };
    if let Err(e) = result {
        tracing::warn!("search index not updated ({e}); the next query rebuilds it");
        let _ = std::fs::remove_file(folder(dir).join(SEGMENT_FILE));
    }
}

fn catch_up(
    dir: &LearningsDir,
    hub: Option<&str>,
    opened: Opened,
    head: Option<&str>,
) -> Result<(), String> {
    let repo = Repo::open(&dir.root).map_err(|e| e.to_string())?;
    catch_up_with(dir, hub, opened, head, &[], &repo)
}

/// Paths whose blobs differ between two trees (both sides' files).
fn diff(
    repo: &Repo,
    from: gix::ObjectId,
    to: gix::ObjectId,
    prefix: &str,
    out: &mut Vec<String>,
) -> Result<(), String> {
    if from == to {
        return Ok(());
    }
    let empty = repo.empty_tree();
    let a = if from == empty {
        None
    } else {
        Some(repo.tree(from).map_err(|e| e.to_string())?)
    };
    let b = if to == empty {
        None
    } else {
        Some(repo.tree(to).map_err(|e| e.to_string())?)
    };
    let mut names: BTreeMap<
        &str,
        (
            Option<crate::repo::EntryRef<'_>>,
            Option<crate::repo::EntryRef<'_>>,
        ),
    > = BTreeMap::new();
    for e in a.iter().flat_map(|t| t.entries()) {
        names.entry(e.name).or_default().0 = Some(e);
    }
    for e in b.iter().flat_map(|t| t.entries()) {
        names.entry(e.name).or_default().1 = Some(e);
    }
    for (name, (x, y)) in names {
        let path = format!("{prefix}{name}");
        let tree_id =
            |e: Option<crate::repo::EntryRef>| e.filter(|e| e.is_tree).map_or(empty, |e| e.id);
        let blob_id = |e: Option<crate::repo::EntryRef>| e.filter(|e| e.is_blob).map(|e| e.id);
        if x.is_some_and(|e| e.is_tree) || y.is_some_and(|e| e.is_tree) {
            diff(repo, tree_id(x), tree_id(y), &format!("{path}/"), out)?;
        }
        if blob_id(x) != blob_id(y) {
            out.push(path);
        }
    }
    Ok(())
}

/// Applies what changed between the commit the index reflects and `head`.
fn catch_up_with(
    dir: &LearningsDir,
    hub: Option<&str>,
    opened: Opened,
    head: Option<&str>,
    hinted: &[String],
    repo: &Repo,
) -> Result<(), String> {
    let Some(head) = head else {
        rebuild(dir, hub)?;
        return Ok(());
    };
    let mut lap = laps();
    let Some(diff) = changes_since(repo, &opened, head, hinted)? else {
        rebuild(dir, hub)?;
        return Ok(());
    };
    let mut delta = match opened.delta() {
        Some(_) => opened.delta,
        None => Delta {
            version: DELTA_VERSION,
            base: opened.segment.info.build.clone(),
            ..Delta::default()
        },
    };
    let segment = &opened.segment;
    lap("diff");
    let learning_files = changed_learnings(repo, &diff);
    // Events first: their new lines tally ineffective and recurred outcomes.
    let increments = new_outcomes(repo, &diff);
    // The trees both commits decoded are done with: the fold's large
    // buffers take their place (at 100,000 learnings, a quarter of the peak).
    repo.release_trees();
    lap("events");
    let base = SegmentSource::new(segment);
    let mut edit = DeltaEdit::open(&base, &mut delta);
    let graph = &segment.info.graph;
    let matcher = kg::Matcher::new(graph);
    let mut touched = HashSet::new();
    // A chunk of the changed paths at a time, read (in pack order within
    // it) and weighed before the next: parsed all at once, the 7,335
    // learnings a sync changed at 100,000 were 14 MiB of its peak.
    for chunk in diff.changed.chunks(READ_CHUNK) {
        let files: BTreeMap<String, gix::ObjectId> = chunk
            .iter()
            .filter_map(|rel| Some((rel.clone(), *learning_files.get(rel)?)))
            .collect();
        let mut parsed: HashMap<String, crate::learning::Learning> = HashMap::new();
        crate::view::each_learning_in(repo, &files, |rel, l| {
            parsed.insert(rel.to_string(), l);
        })?;
        for rel in chunk {
            let RepoPath::Learning { id, .. } = paths::classify(rel) else {
                continue;
            };
            touched.insert(id.to_string());
            let learning = parsed.remove(rel.as_str()).filter(retrievable);
            let inc = increments.get(id).copied().unwrap_or_default();
            edit.replace(id, rel, inc, learning.as_ref(), &matcher);
        }
    }
    // Learnings whose events alone changed.
    for (id, inc) in increments
        .iter()
        .filter(|(id, _)| !touched.contains(id.as_str()))
    {
        edit.add_outcomes(id, *inc);
    }
    if let Some(e) = base.error.borrow().as_ref() {
        return Err(e.clone());
    }
    edit.close(&mut delta);
    lap("documents");
    delta.head = Some(head.to_string());
    store_delta(dir, hub, segment, &delta, head)
}

/// What changed between the index's commit and `head`: the two trees and
/// the paths (with the ones the caller says changed), sorted. `None` when
/// only a rebuild will do: the index's commit is unreadable, or the KG or
/// the policy changed (every learning's weights may move).
fn changes_since(
    repo: &Repo,
    opened: &Opened,
    head: &str,
    hinted: &[String],
) -> Result<Option<TreeChanges>, String> {
    let oid = |hex: &str| gix::ObjectId::from_hex(hex.as_bytes()).map_err(|e| e.to_string());
    let new_tree = repo.commit_tree(oid(head)?).map_err(|e| e.to_string())?;
    let old_tree = match opened.head() {
        Some(h) => match oid(h).and_then(|c| repo.commit_tree(c).map_err(|e| e.to_string())) {
            Ok(t) => t,
            Err(_) => return Ok(None),
        },
        None => repo.empty_tree(),
    };
    let mut changed = Vec::new();
    diff(repo, old_tree, new_tree, "", &mut changed)?;
    changed.extend(hinted.iter().cloned());
    changed.sort();
    changed.dedup();
    let global = changed
        .iter()
        .any(|p| p.starts_with("kg/") || p == crate::policy::POLICY_PATH);
    Ok((!global).then_some(TreeChanges {
        old_tree,
        new_tree,
        changed,
    }))
}

/// The paths that changed between two trees.
struct TreeChanges {
    old_tree: gix::ObjectId,
    new_tree: gix::ObjectId,
    changed: Vec<String>,
}

impl TreeChanges {
    /// The changed event files.
    fn events(&self) -> impl Iterator<Item = &String> {
        let events = |rel: &&String| matches!(paths::classify(rel), RepoPath::Events { .. });
        self.changed.iter().filter(events)
    }

    /// The changed learning files.
    fn learnings(&self) -> impl Iterator<Item = &String> {
        let learning = |rel: &&String| matches!(paths::classify(rel), RepoPath::Learning { .. });
        self.changed.iter().filter(learning)
    }
}

/// The changed learning files' blobs in the new tree, by path (read later,
/// a chunk at a time, by [`crate::view::each_learning_in`]: from the work
/// tree when a file there is the committed blob, else in pack order).
fn changed_learnings(repo: &Repo, diff: &TreeChanges) -> BTreeMap<String, gix::ObjectId> {
    diff.learnings()
        .filter_map(|rel| Some((rel.clone(), repo.blob_id_at(diff.new_tree, rel).ok()??)))
        .collect()
}

/// Changed learnings read and weighed at a time.
const READ_CHUNK: usize = 512;

/// The ineffective and recurred outcomes in the event lines the change
/// added, by learning. The changed event files' blobs of both trees are
/// read first, in pack order.
fn new_outcomes(repo: &Repo, diff: &TreeChanges) -> HashMap<String, Tally> {
    repo.prefetch_blobs(
        diff.events()
            .flat_map(|rel| {
                [
                    repo.blob_id_at(diff.new_tree, rel).ok().flatten(),
                    repo.blob_id_at(diff.old_tree, rel).ok().flatten(),
                ]
            })
            .flatten(),
    );
    let mut increments: HashMap<String, Tally> = HashMap::new();
    for rel in diff.events() {
        let read = |tree| -> String {
            repo.blob_at(tree, rel)
                .ok()
                .flatten()
                .map(|b| crate::event::decode(&b).into_owned())
                .unwrap_or_default()
        };
        let (old, new) = (read(diff.old_tree), read(diff.new_tree));
        let before: HashSet<&str> = old.lines().collect();
        for line in new.lines().filter(|l| !before.contains(l)) {
            if let Ok(e) = Event::parse_line(line)
                && crate::event::in_own_folder(rel, &e)
            {
                increments.entry(e.learning).or_default().add(e.outcome);
            }
        }
    }
    increments
}

/// The delta as maps while it changes (thousands of learnings in a sync),
/// over the segment it amends.
struct DeltaEdit<'a> {
    base: &'a SegmentSource<'a>,
    docs: BTreeMap<String, WeighedDoc>,
    removed: HashSet<u32>,
    evidence: BTreeMap<u32, Evidence>,
}

impl<'a> DeltaEdit<'a> {
    fn open(base: &'a SegmentSource<'a>, delta: &mut Delta) -> Self {
        DeltaEdit {
            base,
            docs: std::mem::take(&mut delta.docs)
                .into_iter()
                .map(|d| (d.meta.id.clone(), d))
                .collect(),
            removed: delta.removed.drain(..).collect(),
            evidence: std::mem::take(&mut delta.evidence),
        }
    }

    /// The segment's document for a learning.
    fn base_doc(&self, id: &str) -> Option<u32> {
        self.base
            .postings(&format!("{ID}{id}"))
            .first()
            .map(|&(d, _)| d)
    }

    /// The evidence a learning had in the index, to carry over.
    fn previous(&self, id: &str) -> Option<Evidence> {
        if let Some(d) = self.docs.get(id) {
            return Some(d.meta.evidence);
        }
        let doc = self.base_doc(id)?;
        if self.removed.contains(&doc) {
            return None;
        }
        self.evidence
            .get(&doc)
            .copied()
            .or_else(|| self.base.segment.read_meta(doc).ok().map(|m| m.evidence))
    }

    /// A changed learning file at `rel`: its old document leaves, and its
    /// new one (`learning`, when it is still retrievable) comes in weighed,
    /// with the outcomes it had plus those the change added (`inc`).
    fn replace(
        &mut self,
        id: &str,
        rel: &str,
        inc: Tally,
        learning: Option<&crate::learning::Learning>,
        matcher: &kg::Matcher,
    ) {
        let before = self.previous(id).unwrap_or_default();
        let tally = Tally {
            ineffective: before.ineffective + inc.ineffective,
            recurred: before.recurred + inc.recurred,
        };
        self.docs.remove(id);
        if let Some(doc) = self.base_doc(id)
            && self.removed.insert(doc)
        {
            self.evidence.remove(&doc);
        }
        let Some(l) = learning else {
            return;
        };
        let doc = Doc::new(l, rel, tally);
        let info = &self.base.segment.info;
        let terms = super::postings::weigh(&doc, matcher, &info.graph, &info.params, &info.stats);
        self.docs.insert(
            doc.meta.id.clone(),
            WeighedDoc {
                meta: doc.meta,
                terms,
            },
        );
    }

    /// A learning whose events alone changed: its outcomes grow by `inc`.
    fn add_outcomes(&mut self, id: &str, inc: Tally) {
        if let Some(d) = self.docs.get_mut(id) {
            d.meta.evidence.ineffective += inc.ineffective;
            d.meta.evidence.recurred += inc.recurred;
            return;
        }
        let Some(doc) = self.base_doc(id) else { return };
        if self.removed.contains(&doc) {
            return;
        }
        let mut e = self.previous(id).unwrap_or_default();
        e.ineffective += inc.ineffective;
        e.recurred += inc.recurred;
        self.evidence.insert(doc, e);
    }

    /// Puts the edited maps back into `delta`.
    fn close(self, delta: &mut Delta) {
        delta.docs = self.docs.into_values().collect();
        delta.removed = self.removed.into_iter().collect();
        delta.removed.sort_unstable();
        delta.evidence = self.evidence;
    }
}

impl Delta {
    /// What the delta changes in its segment, as a fold reads it.
    fn changes(&self) -> super::fold::Changes<'_> {
        super::fold::Changes {
            removed: &self.removed,
            evidence: &self.evidence,
            added: &self.docs,
        }
    }
}

/// Writes the delta beside the segment; folds it into a new segment once
/// it is large, and rebuilds when its changes move the field lengths'
/// averages too far (see [`fold`](super::fold)).
fn store_delta(
    dir: &LearningsDir,
    hub: Option<&str>,
    segment: &Segment,
    delta: &Delta,
    head: &str,
) -> Result<(), String> {
    let mut lap = laps();
    if delta.docs.len() + delta.removed.len() > DELTA_MIN_FOLD.max(segment.len() as usize / 10) {
        // A fold runs the drift test itself, and rebuilds when it fails.
        return fold_delta(dir, hub, segment, delta, head);
    }
    let changes = delta.changes();
    let drifted = super::fold::drifted(segment, &changes).map_err(|e| e.to_string())?;
    lap("drift");
    if drifted {
        tracing::debug!("search index: the changes move the field lengths' averages; rebuilding");
        return rebuild(dir, hub).map(|_| ());
    }
    let bytes = serde_json::to_vec(delta).map_err(|e| e.to_string())?;
    crate::store::atomic_write(&folder(dir).join(DELTA_FILE), &bytes)
        .map_err(|e| format!("cannot write the search index delta: {e}"))
}

/// Writes `segment` with `delta` folded in as the new segment (and no
/// delta), or rebuilds when a fold declines (see [`fold`](super::fold)).
fn fold_delta(
    dir: &LearningsDir,
    hub: Option<&str>,
    segment: &Segment,
    delta: &Delta,
    head: &str,
) -> Result<(), String> {
    let mut lap = laps();
    let changes = delta.changes();
    let build = uuid::Uuid::new_v4().simple().to_string();
    let folded = write_segment(&folder(dir), |out| {
        super::fold::fold_to(segment, &changes, Some(head), &build, out)
            .map(|written| written.is_some())
            .map_err(std::io::Error::from)
    })?;
    if !folded {
        tracing::debug!("search index: the field lengths drifted; rebuilding");
        return rebuild(dir, hub).map(|_| ());
    }
    lap("fold");
    Ok(())
}
