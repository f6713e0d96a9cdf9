//! The search index on disk, `.git/learnsync/search/` (a cache: always safe
//! to delete). Two files: `segment.bin`, every retrievable learning of one
//! commit (see [`segment`](super::segment)), and `delta.json`, the learnings
//! changed since, already weighed, plus the segment learnings they replace.
//! The inbox is laid over both at query time, so a capture is findable at
//! once and never makes the index stale.
//!
//! Freshness is the commit: the index records the HEAD it reflects
//! ([`fresh`](super::fresh) brings it there). A sync calls
//! [`update`](super::fresh::update) with what it changed; a query that finds another HEAD
//! (a commit made by hand, a sync of an older learnsync) diffs the two
//! trees and applies that, so neither reads the whole dir unless the index
//! is missing, damaged, built by another version or the KG changed — then
//! it is rebuilt from HEAD's tree. A delta that outgrows a tenth of the
//! segment is folded into a new one ([`fold`](super::fold)): only the
//! learnings that changed are read, and a rebuild happens only when their
//! field lengths have drifted from the averages the index was weighed with.

use super::build::Builder;
use super::doc::{Doc, Evidence, Tally, retrievable};
use super::kg::{self, Graph};
use super::postings::{ID, Index, IndexParams, Layered, Source, WeighedDoc};
use super::segment::{self, Segment, SegmentSource};
use crate::config::Config;
use crate::event::Event;
use crate::paths::{self, RepoPath};
use crate::repo::Repo;
use crate::store::{InboxPayload, LearningsDir};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

pub(super) const SEGMENT_FILE: &str = "segment.bin";
pub(super) const DELTA_FILE: &str = "delta.json";
/// 2: evidence carries the agent count. 3: error signatures. 4: sentence signatures.
/// 5: error words. 6: KG phrases owned whole-first (the segment's graph).
pub(super) const DELTA_VERSION: u32 = 6;
/// A delta this large is folded into a new segment.
pub(super) const DELTA_MIN_FOLD: usize = 500;

pub fn folder(dir: &LearningsDir) -> PathBuf {
    dir.state().search_index()
}

/// True when the dir has a search index (a sync builds one when not).
pub fn exists(dir: &LearningsDir) -> bool {
    folder(dir).join(SEGMENT_FILE).is_file()
}

/// The learnings changed since the segment was written.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct Delta {
    pub(super) version: u32,
    /// The segment this applies to (its build id).
    pub(super) base: String,
    /// The commit segment + delta reflect.
    pub(super) head: Option<String>,
    pub(super) docs: Vec<WeighedDoc>,
    /// Segment learnings replaced or deleted.
    pub(super) removed: Vec<u32>,
    /// Newer evidence of segment learnings whose events alone changed.
    pub(super) evidence: BTreeMap<u32, Evidence>,
}

/// An open index: the segment and its delta.
pub struct Opened {
    pub segment: Segment,
    pub(super) delta: Delta,
}

impl Opened {
    /// The commit the index reflects.
    pub fn head(&self) -> Option<&str> {
        if self.delta.base == self.segment.info.build {
            self.delta
                .head
                .as_deref()
                .or(self.segment.info.head.as_deref())
        } else {
            self.segment.info.head.as_deref()
        }
    }

    pub(super) fn delta(&self) -> Option<&Delta> {
        (self.delta.base == self.segment.info.build).then_some(&self.delta)
    }

    pub fn learnings(&self) -> usize {
        let d = self.delta().map_or(0, |d| d.docs.len());
        self.segment.len() as usize + d - self.delta().map_or(0, |d| d.removed.len())
    }
}

/// What to do when the index does not reflect HEAD.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freshness {
    /// Catch up (or rebuild) first: a command a person or script runs.
    CatchUp,
    /// Use it as it is when there is one: a hook must not stall its agent.
    AsItIs,
    /// Catch up, as a session's start can afford; but with no index while
    /// a `learnsync index` builds one, fail at once rather than wait.
    CatchUpInHook,
}

/// The commit HEAD points at, read from `.git` without opening the
/// repository (a query pays for this on every call).
pub fn head_commit(root: &Path) -> Option<String> {
    let git = root.join(".git");
    let head = std::fs::read_to_string(git.join("HEAD")).ok()?;
    let head = head.trim();
    let hex = |s: &str| {
        let s = s.trim();
        (s.len() >= 40 && s.bytes().all(|b| b.is_ascii_hexdigit())).then(|| s.to_string())
    };
    let Some(name) = head.strip_prefix("ref: ") else {
        return hex(head);
    };
    if !name.starts_with("refs/") || name.contains("..") {
        return None;
    }
    if let Ok(s) = std::fs::read_to_string(git.join(name)) {
        return hex(&s);
    }
    let packed = std::fs::read_to_string(git.join("packed-refs")).ok()?;
    packed
        .lines()
        .filter_map(|l| l.split_once(' '))
        .find(|(_, r)| *r == name)
        .and_then(|(id, _)| hex(id))
}

pub(super) fn open(dir: &LearningsDir) -> Result<Opened, String> {
    let folder = folder(dir);
    let segment = Segment::open(&folder.join(SEGMENT_FILE)).map_err(|e| e.to_string())?;
    if segment.info.params != IndexParams::default() {
        // Weighed by another version's field weights: its scores would not
        // compare with what this version indexes now.
        return Err("the search index was built with other weights".into());
    }
    let delta = match std::fs::read(folder.join(DELTA_FILE)) {
        Ok(bytes) => serde_json::from_slice::<Delta>(&bytes)
            .ok()
            .filter(|d| d.version == DELTA_VERSION)
            // Damaged or from another version: the segment's own head then
            // says what is missing, and the caller catches up.
            .unwrap_or_default(),
        Err(_) => Delta::default(),
    };
    Ok(Opened { segment, delta })
}

/// The hub whose `main` holds the review records a build reads: known
/// to the caller, or read from the dir's configuration only when a build
/// needs it (a hook answers from the index without loading it).
#[derive(Debug, Clone, Copy)]
pub enum HubName<'a> {
    Known(Option<&'a str>),
    Unread,
}

impl HubName<'_> {
    pub(crate) fn read(self, dir: &LearningsDir) -> Result<Option<String>, String> {
        match self {
            HubName::Known(hub) => Ok(hub.map(str::to_owned)),
            HubName::Unread => {
                let flags = crate::config::Flags {
                    dir: Some(dir.root.clone()),
                    agent: None,
                };
                let config = Config::load(&flags, &crate::config::Env::from_process())
                    .map_err(|e| e.to_string())?;
                Ok(config.hub_name().map(str::to_owned))
            }
        }
    }
}

/// What a build took.
#[derive(Debug, Clone, Serialize)]
pub struct BuildReport {
    pub learnings: usize,
    pub bytes: u64,
    pub millis: u128,
}

/// The KG files of the work tree, `kg/*.md`, sorted.
pub fn kg_files(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(root.join("kg")) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if !name.ends_with(".md")
                || name.starts_with('.')
                || !e.file_type().is_ok_and(|t| t.is_file())
            {
                continue;
            }
            if let Ok(bytes) = std::fs::read(e.path())
                && bytes.len() <= crate::learning::MAX_FILE_BYTES
            {
                out.push((format!("kg/{name}"), bytes));
            }
        }
    }
    out.sort();
    out
}

/// The graph of the work tree's KG (its usable concepts; see `kg check`).
pub fn load_graph(root: &Path) -> Graph {
    let (concepts, _) = kg::check(&kg_files(root));
    Graph::from_files(&concepts)
}

/// The retrievable learnings of the dir as documents, in id order.
pub fn documents(dir: &LearningsDir, hub: Option<&str>) -> Vec<Doc> {
    let view = crate::view::load(dir, hub);
    let (events, _) = dir.read_events();
    let mut tallies: HashMap<&str, Tally> = HashMap::new();
    let mut seen = HashSet::new();
    for e in &events {
        if seen.insert(e.id.as_str()) {
            tallies
                .entry(e.learning.as_str())
                .or_default()
                .add(e.outcome);
        }
    }
    let chosen: Vec<&crate::store::Loaded> = view
        .learnings
        .iter()
        .filter(|l| !l.in_inbox && retrievable(&l.learning))
        .collect();
    let make = |l: &&crate::store::Loaded| {
        Doc::new(
            &l.learning,
            &l.path,
            tallies
                .get(l.learning.id.as_str())
                .copied()
                .unwrap_or_default(),
        )
    };
    // Tokenising is most of a build: spread it over the cores.
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    if chosen.len() < 512 || threads == 1 {
        return chosen.iter().map(make).collect();
    }
    let chunk = chosen.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = chosen
            .chunks(chunk)
            .map(|part| s.spawn(move || part.iter().map(make).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

/// The retrievable learnings of a commit's tree as documents, in id order,
/// with the derived fields its files record (what the incremental update
/// reads too; see `view::each_learning_in`) and the tallies of the tree's
/// events. Only the documents are kept: a rebuild after a sync that
/// changed most of a large dir costs a read of the tree, not a load of the
/// whole view.
fn documents_at(
    repo: &Repo,
    head: &str,
    see: &mut dyn FnMut(&crate::learning::Learning),
    builder: &mut Builder,
) -> Result<(), String> {
    let commit = gix::ObjectId::from_hex(head.as_bytes()).map_err(|e| e.to_string())?;
    let tree = repo.commit_tree(commit).map_err(|e| e.to_string())?;
    let files = repo.flatten(tree).map_err(|e| e.to_string())?;
    // The first line of an event id counts, as everywhere else.
    let mut tallies: HashMap<String, Tally> = HashMap::new();
    let mut seen: HashSet<String> = HashSet::new();
    for (rel, id) in &files {
        if !matches!(paths::classify(rel), RepoPath::Events { .. }) {
            continue;
        }
        let bytes = repo.read_blob_once(*id).map_err(|e| e.to_string())?;
        for line in crate::event::decode(&bytes).lines() {
            // Most lines are outcomes that do not weigh: their id is all
            // that matters, and it is read without parsing the line.
            let weighs = line.contains("ineffective") || line.contains("recurred");
            if !weighs && let Some(id) = crate::event::id_of(line) {
                if !seen.contains(id) {
                    seen.insert(id.to_string());
                }
                continue;
            }
            if let Ok(e) = Event::parse_line(line)
                && crate::event::in_own_folder(rel, &e)
                && seen.insert(e.id)
            {
                tallies.entry(e.learning).or_default().add(e.outcome);
            }
        }
    }
    drop(seen);
    builder.reserve(
        files
            .iter()
            .filter(|(rel, _)| matches!(paths::classify(rel), RepoPath::Learning { .. }))
            .count(),
    );
    // Readers on every core read, parse and tokenise the files (each with a
    // handle of its own on the same object store); this thread files each
    // learning in the capture index and the postings, in the tree's order,
    // so both indexes are the same whatever the threads did.
    let readers = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(1, 4));
    let shares = (0..readers).map(|_| repo.share()).collect();
    let tallies = &tallies;
    let make = |rel: &str, l: crate::learning::Learning| {
        let doc = retrievable(&l).then(|| {
            let tally = tallies.get(l.id.as_str()).copied().unwrap_or_default();
            Doc::new(&l, rel, tally)
        });
        (l, doc)
    };
    crate::view::each_learning_made(repo, shares, &files, &make, |(l, doc)| {
        see(&l);
        drop(l);
        if let Some(doc) = doc {
            builder.add(&doc);
        }
    })?;
    builder.sort_by_id();
    Ok(())
}

/// Logs each part's time for operators, like a sync's steps (under
/// `learnsync::timing`), from the previous call's end.
pub(super) fn laps() -> impl FnMut(&str) {
    let mut at = Instant::now();
    move |step: &str| {
        let now = Instant::now();
        tracing::debug!(target: "learnsync::timing", "  search index: {step}: {:.1} ms", (now - at).as_secs_f64() * 1e3);
        at = now;
    }
}

/// Builds the whole index from HEAD's tree (the dir's view when there is
/// no commit yet, or the tree cannot be read) and writes it.
pub fn rebuild(dir: &LearningsDir, hub: Option<&str>) -> Result<BuildReport, String> {
    rebuild_seeing(dir, hub, &mut |_| {}, None).map(|(report, _)| report)
}

/// [`rebuild`], handing `see` every learning of HEAD's tree as it is read
/// (the capture index a first sync builds shares the read). The flag says
/// whether it did: false when the index was built from the view instead.
/// The tree is read through `repo` (a sync's: its mapped packs are not
/// mapped again), or a repository of its own when `None`.
pub fn rebuild_seeing(
    dir: &LearningsDir,
    hub: Option<&str>,
    see: &mut dyn FnMut(&crate::learning::Learning),
    repo: Option<&Repo>,
) -> Result<(BuildReport, bool), String> {
    let started = Instant::now();
    let mut lap = laps();
    let head = head_commit(&dir.root);
    let graph = load_graph(&dir.root);
    // Each learning is added as it is read; the builder keeps only what
    // weighing needs of it.
    let mut builder = Builder::new(graph.clone(), IndexParams::default());
    let at_head = head.as_deref().map(|h| match repo {
        Some(repo) => documents_at(repo, h, see, &mut builder),
        None => Repo::open(&dir.root)
            .map_err(|e| e.to_string())
            .and_then(|repo| documents_at(&repo, h, see, &mut builder)),
    });
    let seen = matches!(at_head, Some(Ok(())));
    if !seen {
        if let Some(Err(e)) = at_head {
            tracing::debug!("search index: cannot read HEAD's tree ({e}); reading the view");
        }
        builder = Builder::new(graph, IndexParams::default());
        for d in documents(dir, hub) {
            builder.add(&d);
        }
    }
    let learnings = builder.len();
    lap("documents");
    let index = builder.finish();
    lap("postings");
    let build = uuid::Uuid::new_v4().simple().to_string();
    let mut bytes = 0;
    write_segment(&folder(dir), |out| {
        bytes = segment::encode_to(&index, head.as_deref(), &build, out)?;
        Ok(true)
    })?;
    lap("encode and write");
    let report = BuildReport {
        learnings,
        bytes,
        millis: started.elapsed().as_millis(),
    };
    Ok((report, seen))
}

/// Writes a new segment through `write` (which streams it, seeking back
/// for its header) and, when `write` says so, puts it in place
/// ([`crate::store::atomic_write_with`]) and drops the delta that applied
/// to the old one. Returns what `write` said.
pub(super) fn write_segment(
    folder: &Path,
    write: impl FnOnce(&mut std::io::BufWriter<&mut std::fs::File>) -> std::io::Result<bool>,
) -> Result<bool, String> {
    let run = || -> std::io::Result<bool> {
        std::fs::create_dir_all(folder)?;
        crate::store::remove_stale_temps(folder);
        let installed = crate::store::atomic_write_with(&folder.join(SEGMENT_FILE), |file| {
            let mut out = std::io::BufWriter::with_capacity(1 << 16, file);
            let keep = write(&mut out)?;
            std::io::Write::flush(&mut out)?;
            Ok(keep)
        })?;
        if !installed {
            return Ok(false);
        }
        match std::fs::remove_file(folder.join(DELTA_FILE)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(true),
        }
    };
    run().map_err(|e| format!("cannot write the search index in {}: {e}", folder.display()))
}

/// The learnings of the inbox that may be returned, as documents.
fn inbox_docs(dir: &LearningsDir) -> Vec<Doc> {
    let mut newest: BTreeMap<String, (crate::learning::Learning, String)> = BTreeMap::new();
    for item in dir.inbox().items() {
        if let Ok(InboxPayload::Learning(l)) = item.payload {
            let path = item.path.display().to_string();
            if newest
                .get(&l.id)
                .is_none_or(|(old, _)| l.updated_at >= old.updated_at)
            {
                newest.insert(l.id.clone(), (*l, path));
            }
        }
    }
    newest
        .into_values()
        .map(|(l, path)| (retrievable(&l), Doc::new(&l, &path, Tally::default())))
        .map(|(ok, mut d)| {
            if !ok {
                // Kept so it still replaces an older version, but never shown.
                d.trust = crate::learning::TrustLevel::L0;
            }
            d
        })
        .collect()
}

/// Runs `f` over the index with the delta and the inbox laid over it.
pub fn with_source<R>(
    dir: &LearningsDir,
    opened: &Opened,
    f: impl FnOnce(&dyn Source) -> R,
) -> Result<R, String> {
    let segment = &opened.segment;
    let base = SegmentSource::new(segment);
    let info = &segment.info;
    let inbox = inbox_docs(dir);
    let delta_docs: &[WeighedDoc] = opened.delta().map_or(&[], |d| d.docs.as_slice());
    if inbox.is_empty()
        && delta_docs.is_empty()
        && opened
            .delta()
            .is_none_or(|d| d.evidence.is_empty() && d.removed.is_empty())
    {
        let out = f(&base);
        return match base.error.into_inner() {
            Some(e) => Err(e),
            None => Ok(out),
        };
    }
    let mut dead: HashSet<u32> = opened
        .delta()
        .map(|d| d.removed.iter().copied().collect())
        .unwrap_or_default();
    let inbox_ids: HashSet<&str> = inbox.iter().map(|d| d.meta.id.as_str()).collect();
    let kept: Vec<WeighedDoc> = delta_docs.to_vec();
    let overlay_base = segment.len();
    for (i, d) in kept.iter().enumerate() {
        if inbox_ids.contains(d.meta.id.as_str()) {
            dead.insert(overlay_base + i as u32);
        }
    }
    for d in &inbox {
        if let Some(&(doc, _)) = base.postings(&format!("{ID}{}", d.meta.id)).first() {
            dead.insert(doc);
        }
    }
    let mut overlay = Index::assemble(
        &kept,
        info.graph.clone(),
        info.params,
        info.stats,
        info.tables.clone(),
    );
    let inbox_stats = info
        .stats
        .counting(segment.len(), inbox.iter().map(|d| &d.meta.lens));
    let inbox_index = Index::overlay(
        &inbox,
        &info.graph,
        info.params,
        inbox_stats,
        overlay.tables.clone(),
    );
    append(&mut overlay, inbox_index);
    let success = opened
        .delta()
        .map(|d| {
            d.evidence
                .iter()
                .map(|(&doc, e)| (doc, e.success()))
                .collect()
        })
        .unwrap_or_default();
    let layered = Layered {
        base: &base,
        overlay,
        dead,
        success,
    };
    let out = f(&layered);
    drop(layered);
    match base.error.into_inner() {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// Appends `more` (whose tables continue `index`'s) to `index`.
fn append(index: &mut Index, more: Index) {
    let offset = index.attrs.len() as u32;
    let mut by_id: HashMap<u32, String> = HashMap::new();
    for (t, &id) in &more.dict {
        by_id.insert(id, t.clone());
    }
    for (id, list) in more.postings.into_iter().enumerate() {
        let Some(term) = by_id.remove(&(id as u32)) else {
            continue;
        };
        let shifted = list.into_iter().map(|(d, f)| (d + offset, f));
        match index.dict.get(&term) {
            Some(&i) => index.postings[i as usize].extend(shifted),
            None => {
                index.dict.insert(term, index.postings.len() as u32);
                index.postings.push(shifted.collect());
            }
        }
    }
    index.attrs.extend(more.attrs);
    index.metas.extend(more.metas);
    index.tables = more.tables;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Seek, SeekFrom, Write};

    #[test]
    fn a_segment_write_replaces_the_segment_or_leaves_it_and_clears_stale_temps() {
        let dir = tempfile::tempdir().expect("temp dir");
        let folder = dir.path().join("search");
        std::fs::create_dir_all(&folder).expect("folder");
        let stale = folder.join(format!(".tmp-{}-{SEGMENT_FILE}", "a1".repeat(16)));
        let recent = folder.join(format!(".tmp-{}-{SEGMENT_FILE}", "b2".repeat(16)));
        for p in [&stale, &recent] {
            std::fs::write(p, b"half a segment").expect("temp");
        }
        let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(&stale)
            .and_then(|f| f.set_modified(hour_ago))
            .expect("age the temp");
        std::fs::write(folder.join(DELTA_FILE), b"{}").expect("delta");

        // Declined (a fold that must rebuild): nothing moves, no temp of its own.
        let said = write_segment(&folder, |out| {
            out.write_all(b"never installed")?;
            Ok(false)
        });
        assert_eq!(said, Ok(false));
        assert!(!folder.join(SEGMENT_FILE).exists());
        assert!(folder.join(DELTA_FILE).exists(), "the delta still applies");

        // Written: in place, delta dropped, the killed write's temp gone,
        // another writer's fresh temp left alone.
        let said = write_segment(&folder, |out| {
            out.write_all(b"0123456789")?;
            out.seek(SeekFrom::Start(0))?;
            out.write_all(b"ab")?;
            Ok(true)
        });
        assert_eq!(said, Ok(true));
        assert_eq!(
            std::fs::read(folder.join(SEGMENT_FILE)).expect("segment"),
            b"ab23456789"
        );
        assert!(!folder.join(DELTA_FILE).exists());
        assert!(!stale.exists(), "a temp left by a killed write is removed");
        assert!(recent.exists(), "a temp being written now is not touched");
        let temps = std::fs::read_dir(&folder)
            .expect("list")
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp-"))
            .count();
        assert_eq!(temps, 1, "only the other writer's temp is left");
    }
}
