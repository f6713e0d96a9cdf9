//! The current state of every learning as a reader should see it: work tree
//! plus inbox, with derived fields recomputed from the evidence (§5), so a
//! hand-edited or stale `trust_level` is never shown or acted on. And, for
//! the lookup indexes, the learnings of a commit as its files record them.

use crate::event::Event;
use crate::policy::POLICY_PATH;
use crate::repo::Repo;
use crate::store::{InboxPayload, LearningsDir, Loaded, Problem};
use crate::trust;
use std::collections::{BTreeMap, HashMap};

/// Learnings with derived state, what could not be read, and what review
/// decided or is deciding about them.
#[derive(Debug, Default)]
pub struct View {
    pub learnings: Vec<Loaded>,
    pub problems: Vec<Problem>,
    /// Approvals (hub `main`), rejections and problem reports.
    pub decisions: crate::hub::Decisions,
    /// Open review pull requests this machine's review pass opened, by id.
    pub pending: HashMap<String, u64>,
    /// Copies of a learning id found in another folder than the original's
    /// (§6.1): no evidence, review or trust of their own, never shown in
    /// place of the original; reported among `problems`.
    pub copies: Vec<Loaded>,
    /// The policy in force (§5.2: hub `main`'s when a hub is configured).
    pub policy: crate::policy::Policy,
    /// Every event of the work tree and the inbox, as read: duplicates by
    /// `id` possible, every agent's (roster or not).
    pub events: Vec<Event>,
}

/// Where a learning stands in review, for `list`, `show` and `status`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "state", rename_all = "lowercase")]
pub enum ReviewState {
    /// Nothing decided, nothing open (or not known on this machine).
    None,
    Pending {
        pull_request: u64,
    },
    Approved {
        pull_request: Option<u64>,
    },
    Rejected {
        pull_request: Option<u64>,
    },
    Pulled {
        issue: u64,
    },
}

impl View {
    pub fn find(&self, id: &str) -> Option<&Loaded> {
        self.learnings.iter().find(|l| l.learning.id == id)
    }

    /// The review state of a learning of this view.
    pub fn review_state(&self, learning: &crate::learning::Learning) -> ReviewState {
        use crate::learning::SuggestionStatus;
        if let Some(issue) = self.decisions.pulled_by(&learning.id) {
            return ReviewState::Pulled { issue };
        }
        let hash = learning.content_hash();
        let pr_of = |decision| {
            self.decisions
                .for_id(&learning.id)
                .into_iter()
                .find(|r| r.content_hash == hash && r.decision == decision)
                .and_then(|r| r.pull_request)
        };
        match learning.suggestion_status {
            SuggestionStatus::Approved => ReviewState::Approved {
                pull_request: pr_of(crate::review_rules::Decision::Approved),
            },
            SuggestionStatus::Rejected => ReviewState::Rejected {
                pull_request: pr_of(crate::review_rules::Decision::Rejected),
            },
            SuggestionStatus::Pending => match self.pending.get(&learning.id) {
                Some(&pull_request) => ReviewState::Pending { pull_request },
                None => ReviewState::None,
            },
        }
    }

    /// A learning is pulled from the wiki and suggestions by an open report.
    pub fn is_pulled(&self, id: &str) -> bool {
        self.decisions.pulled_by(id).is_some()
    }
}

/// Reads the dir, folds in the inbox, and recomputes derived state; the
/// review records and the policy in force come from `hub`'s `main`.
pub fn load(dir: &LearningsDir, hub: Option<&str>) -> View {
    let scan = dir.scan();
    let mut problems = scan.problems;
    let mut by_id: HashMap<String, usize> = HashMap::new();
    let (mut learnings, mut copies) = split_copies(scan.learnings);
    for c in &copies {
        problems.push(duplicate_problem(&c.path, &c.learning.id));
    }
    for (i, l) in learnings.iter().enumerate() {
        by_id.insert(l.learning.id.clone(), i);
    }
    let (mut events, event_problems) = dir.read_events();
    problems.extend(event_problems);
    for item in dir.inbox().items() {
        let path = item.path.display().to_string();
        match item.payload {
            Ok(InboxPayload::Learning(l)) => match by_id.get(&l.id) {
                Some(&i) => {
                    let winner = crate::learning::newer(&learnings[i].learning, &l).clone();
                    learnings[i] = Loaded {
                        path,
                        learning: winner,
                        in_inbox: true,
                    };
                }
                None => {
                    by_id.insert(l.id.clone(), learnings.len());
                    learnings.push(Loaded {
                        path,
                        learning: *l,
                        in_inbox: true,
                    });
                }
            },
            Ok(InboxPayload::Event(e)) => events.push(e),
            Err(message) => problems.push(Problem { path, message }),
        }
    }
    let repo = Repo::open(&dir.root).ok();
    let (policy, policy_problem, _) = crate::hub::policy_in_force(repo.as_ref(), hub, || {
        std::fs::read_to_string(dir.root.join(POLICY_PATH)).ok()
    });
    problems.extend(policy_problem);
    let main = repo
        .as_ref()
        .and_then(|repo| crate::hub::read(repo, &dir.state(), hub, None).ok())
        .unwrap_or_default();
    let mut decisions = crate::hub::decisions_in_dir(&dir.root, main);
    problems.append(&mut decisions.problems);
    // Of an id more than one folder holds, evidence counts as the sync
    // writes it (`trust::evidence_counts`).
    let mut holders: HashMap<&str, Vec<&str>> = HashMap::new();
    for c in &copies {
        holders
            .entry(c.learning.id.as_str())
            .or_default()
            .push(c.path.as_str());
    }
    let no_evidence: std::collections::HashSet<String> = learnings
        .iter()
        .filter(|l| {
            holders.get(l.learning.id.as_str()).is_some_and(|copies| {
                let mut all = copies.clone();
                all.push(&l.path);
                !trust::evidence_counts(&l.path, &all, &policy)
            })
        })
        .map(|l| l.learning.id.clone())
        .collect();
    derive_all(&mut learnings, &events, &decisions, &policy, &no_evidence);
    for copy in &mut copies {
        let l = &mut copy.learning;
        let derived = trust::derive(l, &[], &[], &policy);
        trust::apply(l, derived);
    }
    learnings.sort_by(|a, b| a.learning.id.cmp(&b.learning.id));
    View {
        copies,
        learnings,
        problems,
        pending: crate::store::ReviewCache::read(&dir.state().review_state(), "").pending(),
        decisions,
        policy,
        events,
    }
}

/// Recomputes the derived state of every learning from its events.
fn derive_all(
    learnings: &mut [Loaded],
    events: &[Event],
    decisions: &crate::hub::Decisions,
    policy: &crate::policy::Policy,
    no_evidence: &std::collections::HashSet<String>,
) {
    let mut grouped: HashMap<&str, Vec<&Event>> = HashMap::new();
    for e in events {
        grouped.entry(e.learning.as_str()).or_default().push(e);
    }
    for loaded in learnings {
        let l = &mut loaded.learning;
        if no_evidence.contains(&l.id) {
            // Reviews still count: an approval is of one content.
            let fields = trust::derive(l, &[], &decisions.for_id(&l.id), policy);
            trust::apply(l, fields);
            l.redact();
            continue;
        }
        let mine = grouped.get(l.id.as_str()).map(Vec::as_slice).unwrap_or(&[]);
        let derived = trust::derive(l, mine, &decisions.for_id(&l.id), policy);
        trust::apply(l, derived);
        // A second line of defence: whatever a reader is shown is redacted
        // again (§9.1), even a file the sync has not rewritten yet.
        l.redact();
    }
}

/// Which of the files sharing a learning id is shown for it (§6.1): the
/// one of the highest level its derived fields record (the sync derives
/// them: a copy gets no evidence, and an approval is of one content, so a
/// copy never outranks what people or a roster's agents vouched for), then
/// the one captured first, then the one changed least recently (a copy
/// made of it and then edited is newer), then the first by path. Between
/// equals, a deliberate copy that keeps both dates and sorts first by
/// folder name passes for the original: nothing in a tree says otherwise.
pub(crate) fn is_original_before(
    a: (&str, &crate::learning::Learning),
    b: (&str, &crate::learning::Learning),
) -> bool {
    use std::cmp::Reverse;
    (
        Reverse(a.1.trust_level),
        a.1.captured_at,
        a.1.updated_at,
        a.0,
    ) < (
        Reverse(b.1.trust_level),
        b.1.captured_at,
        b.1.updated_at,
        b.0,
    )
}

/// Splits the scanned learnings into originals and copies of an id in
/// another folder.
fn split_copies(scanned: Vec<Loaded>) -> (Vec<Loaded>, Vec<Loaded>) {
    let mut first: HashMap<String, usize> = HashMap::new();
    for (i, l) in scanned.iter().enumerate() {
        match first.get(&l.learning.id) {
            Some(&j)
                if !is_original_before(
                    (&l.path, &l.learning),
                    (&scanned[j].path, &scanned[j].learning),
                ) => {}
            _ => {
                first.insert(l.learning.id.clone(), i);
            }
        }
    }
    let (mut originals, mut copies) = (Vec::new(), Vec::new());
    for (i, l) in scanned.into_iter().enumerate() {
        if first.get(&l.learning.id) == Some(&i) {
            originals.push(l);
        } else {
            copies.push(l);
        }
    }
    (originals, copies)
}

fn duplicate_problem(path: &str, id: &str) -> Problem {
    Problem {
        path: path.to_string(),
        message: format!(
            "duplicate id {id}: another folder holds it too; while both do, neither \
             counts evidence (only a review of its own content), and this file is not shown for {id}"
        ),
    }
}

/// How the learning files of a tree are read ([`each_learning_in`]): the
/// files whose id no other folder holds, in path order, and the files of
/// ids in more than one folder (read whole first: only the original is
/// handed on, §6.1). Known from the paths alone.
struct ReadPlan<'a> {
    single: Vec<(&'a str, gix::ObjectId)>,
    shared: Vec<(&'a str, gix::ObjectId)>,
}

impl<'a> ReadPlan<'a> {
    fn new(files: &'a BTreeMap<String, gix::ObjectId>) -> Result<Self, String> {
        use crate::paths::{self, RepoPath};
        // terraphim's `shared/` copies carry derived fields learnsync never
        // reads: only the view derives theirs, so such a dir is read that way.
        if files
            .keys()
            .any(|rel| matches!(paths::classify(rel), RepoPath::SharedCopy { .. }))
        {
            return Err("the tree holds terraphim shared/ copies".into());
        }
        let mut folders: HashMap<&str, usize> = HashMap::new();
        for rel in files.keys() {
            if let RepoPath::Learning { id, .. } = paths::classify(rel) {
                *folders.entry(id).or_default() += 1;
            }
        }
        let (mut single, mut shared) = (Vec::new(), Vec::new());
        for (rel, &id) in files {
            let RepoPath::Learning { id: lid, .. } = paths::classify(rel) else {
                continue;
            };
            if folders.get(lid).is_some_and(|&n| n > 1) {
                shared.push((rel.as_str(), id));
            } else {
                single.push((rel.as_str(), id));
            }
        }
        Ok(ReadPlan { single, shared })
    }

    /// Hands on the original of each shared id, then the files the work
    /// tree did not hold as committed (`missed`), read once in pack order.
    fn finish(
        self,
        repo: &Repo,
        missed: Vec<(&str, gix::ObjectId)>,
        each: &mut dyn FnMut(&str, crate::learning::Learning),
    ) -> Result<(), String> {
        let mut originals: HashMap<String, (&str, crate::learning::Learning)> = HashMap::new();
        for (rel, id) in self.shared {
            let bytes = repo.read_blob(id).map_err(|e| e.to_string())?;
            if let Ok(l) = crate::learning::Learning::parse_at(rel, &bytes) {
                let better = originals
                    .get(&l.id)
                    .is_none_or(|(p, o)| is_original_before((rel, &l), (p, o)));
                if better {
                    originals.insert(l.id.clone(), (rel, l));
                }
            }
        }
        // In path order, like the rest: what `each` builds does not
        // depend on a map's order.
        let mut originals: Vec<_> = originals.into_values().collect();
        originals.sort_by(|a, b| a.0.cmp(b.0));
        for (rel, l) in originals {
            each(rel, l);
        }
        let mut by_blob: HashMap<gix::ObjectId, Vec<&str>> = HashMap::new();
        for (rel, id) in missed {
            by_blob.entry(id).or_default().push(rel);
        }
        for id in repo.in_pack_order(by_blob.keys().copied().collect()) {
            let bytes = repo.read_blob_once(id).map_err(|e| e.to_string())?;
            for rel in by_blob.get(&id).into_iter().flatten() {
                if let Ok(l) = crate::learning::Learning::parse_at(rel, &bytes) {
                    each(rel, l);
                }
            }
        }
        Ok(())
    }
}

/// A learning file read from the work tree when its bytes hash to the
/// tree's blob: `Err` when they do not (read it from the object store).
fn from_work_tree(
    repo: &Repo,
    rel: &str,
    id: gix::ObjectId,
) -> Result<Option<crate::learning::Learning>, ()> {
    match repo.work_tree_copy(rel, id, crate::learning::MAX_FILE_BYTES) {
        Some(bytes) => Ok(crate::learning::Learning::parse_at(rel, &bytes).ok()),
        None => Err(()),
    }
}

/// The learning files of a tree (`files`: its flattened paths and blobs),
/// each parsed and handed to `each` with its path, none kept: the derived
/// fields as the files record them, which every writer of a tree (a
/// sync's recompute, the commit of local work, `init`) derived from the
/// evidence first. A work-tree file is read when its bytes hash to the
/// tree's blob (after a sync, every one: nothing is inflated), any other
/// blob from the object store, in pack order. Files that do not parse are
/// skipped, as a scan skips them. A tree with terraphim `shared/` copies is
/// refused (their derived fields are not learnsync's): read the view.
pub fn each_learning_in(
    repo: &Repo,
    files: &BTreeMap<String, gix::ObjectId>,
    mut each: impl FnMut(&str, crate::learning::Learning),
) -> Result<(), String> {
    let plan = ReadPlan::new(files)?;
    let mut missed = Vec::new();
    for &(rel, id) in &plan.single {
        match from_work_tree(repo, rel, id) {
            Ok(Some(l)) => each(rel, l),
            Ok(None) => {}
            Err(()) => missed.push((rel, id)),
        }
    }
    plan.finish(repo, missed, &mut each)
}

/// Files a worker of [`each_learning_made`] reads at a time.
const CHUNK: usize = 64;

/// [`each_learning_in`] on a thread per handle in `shares` (each its own
/// on the same object store): each learning is read, parsed and turned
/// into `make`'s value there, and `each` gets the values on the calling
/// thread in exactly the order `each_learning_in` hands the learnings on,
/// so what `each` builds does not depend on the threads. Chunks are taken
/// in order and a reader blocks while two per reader wait to be handed
/// on, so only a few chunks are held at a time.
pub fn each_learning_made<T: Send>(
    repo: &Repo,
    shares: Vec<crate::repo::SharedRepo>,
    files: &BTreeMap<String, gix::ObjectId>,
    make: &(dyn Fn(&str, crate::learning::Learning) -> T + Sync),
    mut each: impl FnMut(T),
) -> Result<(), String> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let plan = ReadPlan::new(files)?;
    let chunks: Vec<&[(&str, gix::ObjectId)]> = plan.single.chunks(CHUNK).collect();
    let next = AtomicUsize::new(0);
    type Missed<'a> = Vec<(&'a str, gix::ObjectId)>;
    let (tx, rx) =
        std::sync::mpsc::sync_channel::<(usize, Vec<T>, Missed<'_>)>(shares.len().max(1) * 2);
    let mut missed = Vec::new();
    let mut due = 0;
    std::thread::scope(|s| {
        for share in shares {
            let (tx, next, chunks) = (tx.clone(), &next, &chunks);
            s.spawn(move || {
                let repo = share.open();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(chunk) = chunks.get(i) else { break };
                    let (mut made, mut missed) = (Vec::with_capacity(chunk.len()), Vec::new());
                    for &(rel, id) in chunk.iter() {
                        match from_work_tree(&repo, rel, id) {
                            Ok(Some(l)) => made.push(make(rel, l)),
                            Ok(None) => {}
                            Err(()) => missed.push((rel, id)),
                        }
                    }
                    // A send fails only when the receiver stopped.
                    if tx.send((i, made, missed)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Chunks arrive in any order; they are handed on in theirs.
        let mut waiting: BTreeMap<usize, (Vec<T>, Missed<'_>)> = BTreeMap::new();
        for (i, made, m) in rx {
            waiting.insert(i, (made, m));
            while let Some((made, m)) = waiting.remove(&due) {
                made.into_iter().for_each(&mut each);
                missed.extend(m);
                due += 1;
            }
        }
    });
    if due < chunks.len() {
        return Err("a reader of the tree stopped early".into());
    }
    plan.finish(repo, missed, &mut |rel, l| each(make(rel, l)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learning::Learning;
    use crate::repo::Change;
    use crate::timestamp::Timestamp;

    /// A tree of `n` learnings over three folders, written to the work tree
    /// too except where noted: some ids held by two folders (the original
    /// and a later copy), some files whose work-tree copy differs or is
    /// gone (read from the object store), and one that does not parse.
    fn tree_of(n: usize) -> (tempfile::TempDir, Repo, BTreeMap<String, gix::ObjectId>) {
        let tmp = tempfile::tempdir().expect("tmp");
        let repo = Repo::init(tmp.path(), "agents/t").expect("init");
        let mut changes = Vec::new();
        for i in 0..n {
            let agent = format!("a{}", i % 3);
            let id = format!(
                "learning-{:032x}-{}",
                i * 7919,
                1_700_000_000_000u64 + i as u64
            );
            let at = Timestamp::from_unix(1_786_795_200 + i as i64);
            let mut l = Learning::new(id.clone(), agent.clone(), format!("title {i}"), at);
            let bytes = if i == 5 {
                b"not a learning".to_vec()
            } else {
                l.to_markdown().into_bytes()
            };
            changes.push((format!("{agent}/{id}.md"), bytes));
            if i % 17 == 0 {
                // A copy of the same id in another folder, made later.
                let other = format!("a{}", (i + 1) % 3);
                l.agent_id = other.clone();
                l.captured_at = Timestamp::from_unix(1_786_795_200 + 10 * n as i64);
                l.title = format!("copy {i}");
                changes.push((format!("{other}/{id}.md"), l.to_markdown().into_bytes()));
            }
        }
        for (i, (path, bytes)) in changes.iter().enumerate() {
            let full = tmp.path().join(path);
            std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
            match i % 11 {
                3 => {} // gone from the work tree
                7 => std::fs::write(&full, b"edited since").expect("write"),
                _ => std::fs::write(&full, bytes).expect("write"),
            }
        }
        let changes: Vec<Change> = changes
            .into_iter()
            .map(|(path, bytes)| Change::Upsert { path, bytes })
            .collect();
        let tree = repo.write_tree(repo.empty_tree(), &changes).expect("tree");
        let files = repo.flatten(tree).expect("flatten");
        (tmp, repo, files)
    }

    #[test]
    fn readers_on_several_threads_hand_on_exactly_what_one_reader_does_in_its_order() {
        let (_tmp, repo, files) = tree_of(1000);
        let mut one = Vec::new();
        each_learning_in(&repo, &files, |rel, l| one.push((rel.to_string(), l.title)))
            .expect("read");
        // Every learning but the one that does not parse, each id once,
        // the original's title where an id has a copy.
        assert_eq!(one.len(), 999);
        assert!(one.iter().all(|(_, title)| title.starts_with("title ")));
        assert!(one.len() > 3 * CHUNK, "several chunks per reader");
        for readers in [1, 3] {
            let shares = (0..readers).map(|_| repo.share()).collect();
            let make = |rel: &str, l: Learning| (rel.to_string(), l.title);
            let mut many = Vec::new();
            each_learning_made(&repo, shares, &files, &make, |x| many.push(x)).expect("read");
            assert_eq!(many, one, "{readers} reader(s)");
        }
    }
}
