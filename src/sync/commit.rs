//! Step 1 of the cycle: turn work-tree edits and inbox files into one commit
//! on `agents/<home>`: validate, redact, normalise, recompute derived state.

use super::derive::{self, EventIndex};
use super::{LevelChange, Settings, SyncReport, recover};
use crate::event::{self, Event};
use crate::learning::{Learning, TrustLevel};
use crate::paths::{self, RepoPath};
use crate::policy::{POLICY_PATH, Policy};
use crate::redact;
use crate::repo::{Change, Repo, Result};
use crate::repo::{FileState, WorktreeStatus};
use crate::store::{InboxPayload, LearningsDir, Problem, Reported};
use crate::trust;
use gix::ObjectId;
use gix::index::entry::Stat;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;

/// What the commit step did.
#[derive(Debug, Default)]
pub struct CommitOutcome {
    pub commit: Option<ObjectId>,
    pub files: Vec<String>,
    pub inbox_learnings: usize,
    pub inbox_events: usize,
    /// Outcome events left in the inbox for a later batch.
    pub held_events: usize,
    pub recomputed: usize,
    pub changes: Vec<LevelChange>,
    pub redacted: Vec<String>,
    pub problems: Vec<Problem>,
    /// Work-tree files the status looked at.
    pub scanned: usize,
}

impl CommitOutcome {
    pub(super) fn fill(self, report: &mut SyncReport) {
        report.commit = self.commit.map(|c| c.to_string());
        report.scanned_files = self.scanned;
        report.committed_files = self.files;
        report.inbox_learnings = self.inbox_learnings;
        report.inbox_events = self.inbox_events;
        report.held_events = self.held_events;
        report.recomputed = self.recomputed;
        for change in self.changes {
            if change.to > change.from {
                report.promoted.push(change);
            } else {
                report.demoted.push(change);
            }
        }
        report.redacted = self.redacted;
        report.problems.extend(self.problems);
    }
}

/// The pending state of one path during the step.
struct Pending {
    bytes: Vec<u8>,
    /// The stat of the work-tree file these bytes were read from, if unchanged.
    read_stat: Option<Stat>,
}

/// What the commit step has gathered so far: the bytes each path will have,
/// the paths deleted, the learnings it will write (by id, with their path),
/// the learnings whose derived state must be recomputed, and the inbox files
/// it took.
#[derive(Default)]
struct Staged {
    pending: BTreeMap<String, Pending>,
    deletes: BTreeSet<String>,
    learnings: BTreeMap<String, (String, Learning)>,
    touched: BTreeSet<String>,
    consumed: Vec<PathBuf>,
    /// Inbox event lines by the events file they go to.
    new_events: BTreeMap<String, Vec<String>>,
    /// The inbox's events, until the step decides whether they go now.
    inbox_events: Vec<(PathBuf, crate::event::Event)>,
}

impl Staged {
    fn stage(&mut self, rel: &str, bytes: Vec<u8>, read_stat: Option<Stat>) {
        self.pending
            .insert(rel.to_string(), Pending { bytes, read_stat });
    }
}

/// Step 1 of the cycle: work-tree edits and inbox files become one commit.
///
/// `only`: the paths a watcher saw change since the last complete cycle
/// (the rest of the tree is as the index says); `None` scans everything.
/// `batch`: when inbox events may wait for a later cycle.
pub fn commit_local(
    repo: &Repo,
    dir: &LearningsDir,
    settings: &Settings,
    only: Option<&[String]>,
    batch: Option<super::EvidenceBatch>,
) -> Result<CommitOutcome> {
    let mut lap = super::Lap::start();
    let mut out = CommitOutcome::default();
    let head = repo.head_commit()?;
    let head_tree = repo.head_tree()?;
    let mut status = match only {
        Some(paths) => repo.status_of(paths)?,
        None => repo.status()?,
    };
    out.scanned = status.scanned;
    // Only a sync (under the sync lock, as now) writes work-tree files, so
    // a temp file still there is a killed one's: its rename never happened.
    for rel in &status.leftovers {
        let _ = std::fs::remove_file(repo.root().join(rel));
    }
    // Captures and state files are written without the sync lock: only
    // their temp files old enough to be a killed process's go.
    crate::store::remove_stale_temps(dir.inbox().dir());
    crate::store::remove_stale_temps(dir.state().path());
    lap.done("  work-tree status");
    let mut staged = Staged::default();
    others_hands_off(
        repo,
        dir,
        settings,
        head_tree,
        &mut status,
        &mut staged,
        &mut out,
    )?;
    staged.deletes = status.deleted.iter().cloned().collect();
    for rel in &status.deleted {
        if let RepoPath::Rejection { id } | RepoPath::Pulled { id } = paths::classify(rel) {
            staged.touched.insert(id.to_string());
        }
    }
    let mut reported = Reported::load(repo.root());
    for (path, why) in &status.skipped {
        if reported.first_time(path, why) {
            out.problems.push(Problem::new(path.clone(), why.clone()));
        }
    }
    for folder in &status.nested_repos {
        if reported.first_time(folder, NESTED_REPO) {
            out.problems.push(nested_repo(folder));
        }
    }
    stage_worktree_edits(repo, &status, &mut staged, &mut out, &mut reported);
    stage_inbox(repo, dir, head_tree, &mut staged, &mut out)?;
    take_inbox_events(&mut staged, &mut out, batch);
    stage_inbox_events(repo, head_tree, &mut staged)?;
    lap.done("  read edits and the inbox");
    recompute_touched(repo, dir, settings, head_tree, &mut staged, &mut out)?;
    lap.done("  recompute");
    let changes = changes_against(repo, head_tree, &staged)?;
    if changes.is_empty() {
        // Nothing new for git, but the work tree may need the normalised bytes.
        if !staged.pending.is_empty() {
            finish_worktree(repo, head_tree, &staged.pending)?;
        }
        remove_consumed(&staged.consumed);
        reported.save();
        return Ok(out);
    }
    let commit = write_commit(
        repo, dir, settings, head, head_tree, &changes, &staged, &out, &mut lap,
    )?;
    remove_consumed(&staged.consumed);
    crate::fault::point("commit:after-inbox");
    // Noted as said once the commit is made (an error before it says why
    // instead, and the next cycle says these).
    reported.save();
    out.commit = Some(commit);
    out.files = changes.iter().map(|c| c.path().to_string()).collect();
    Ok(out)
}

/// Work-tree edits: learnings are validated, redacted and kept for the
/// recompute; other files are committed as they are, redacted. A file over
/// the size limit is left out; that, and a secret left in a work-tree
/// file, are said once per version of the file.
fn stage_worktree_edits(
    repo: &Repo,
    status: &WorktreeStatus,
    staged: &mut Staged,
    out: &mut CommitOutcome,
    reported: &mut Reported,
) {
    for file in &status.changed {
        let rel = &file.path;
        if over_limit(rel, file.len) {
            if reported.first_time(rel, &too_large_fingerprint(file)) {
                out.problems.push(too_large(rel, file.len));
            }
            continue;
        }
        let Ok(bytes) = std::fs::read(repo.root().join(rel)) else {
            continue;
        };
        if over_limit(rel, bytes.len() as u64) {
            // It grew since the status: the next cycle sees it as it is.
            continue;
        }
        match paths::classify(rel) {
            RepoPath::Learning { .. } => {
                match Learning::parse_at(rel, &bytes) {
                    Ok(mut learning) => {
                        // Rewritten redacted in the work tree too: said
                        // once by nature.
                        if learning.redact() {
                            out.redacted.push(rel.clone());
                        }
                        staged.touched.insert(learning.id.clone());
                        staged
                            .learnings
                            .insert(learning.id.clone(), (rel.clone(), learning));
                    }
                    // Committed as it is (the tree stays clean), reported.
                    Err(message) => out.problems.push(Problem::new(
                        rel.clone(),
                        format!("{message}; {UNREADABLE_COMMITTED}"),
                    )),
                }
                staged.stage(rel, bytes, file.stat);
            }
            kind => {
                if let RepoPath::Rejection { id } | RepoPath::Pulled { id } = kind {
                    staged.touched.insert(id.to_string());
                }
                let bytes = match redacted(&bytes) {
                    Some(clean) => {
                        // The commit has it redacted; the file keeps it
                        // (never rewritten), and is said to hold it once.
                        let secret = format!("secret {}", blob_hex(repo, &bytes));
                        if reported.first_time(rel, &secret) {
                            out.redacted.push(rel.clone());
                        }
                        clean
                    }
                    None => {
                        reported.forget(rel);
                        bytes
                    }
                };
                staged.stage(rel, bytes, file.stat);
            }
        }
    }
}

/// Hand edits to another agent's folder (§6.1): `<owner>/` and
/// `events/<owner>/` change only through the owner's own commits, and this
/// clone writes as its home agent and the agents it hosts only. An edit
/// (or deletion) of a file HEAD holds there is not committed: its bytes are
/// kept under `.learnsync/conflicts/` (committed, so nothing is lost), the
/// file goes back to what HEAD has, and the sync says so. Committing it
/// would leave this clone different from every other for good (they refuse
/// it). A new file there (a terraphim agent writing its own folder) makes
/// this clone write as that agent, as `--agent` does.
fn others_hands_off(
    repo: &Repo,
    dir: &LearningsDir,
    settings: &Settings,
    head_tree: ObjectId,
    status: &mut WorktreeStatus,
    staged: &mut Staged,
    out: &mut CommitOutcome,
) -> Result<()> {
    let home = settings.home.as_str();
    let hosted = super::owners::hosted(&dir.state());
    let foreign = |rel: &str| -> Option<String> {
        crate::merge::owner_of(rel)
            .filter(|o| *o != home && !hosted.contains(*o))
            .map(str::to_string)
    };
    let mut restore = Vec::new();
    let mut new_writers = Vec::new();
    let mut failed = None;
    status.changed.retain(|file| {
        let Some(owner) = foreign(&file.path) else {
            return true;
        };
        match repo.blob_at(head_tree, &file.path) {
            // A new file in a folder of its own: this clone writes as that
            // agent from now on, as after `--agent` or an adopted folder (§1).
            Ok(None) => {
                new_writers.push(owner);
                true
            }
            Ok(Some(_)) => {
                restore.push((file.path.clone(), owner, true));
                false
            }
            Err(e) => {
                failed.get_or_insert(e);
                true
            }
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    super::owners::add_hosted(&dir.state(), home, new_writers);
    status.deleted.retain(|rel| match foreign(rel) {
        Some(owner) => {
            restore.push((rel.clone(), owner, false));
            false
        }
        None => true,
    });
    for (rel, owner, edited) in restore {
        let theirs = repo.blob_at(head_tree, &rel)?;
        let mut kept = None;
        if edited && let Ok(bytes) = std::fs::read(repo.root().join(&rel)) {
            let bytes = redacted(&bytes).unwrap_or(bytes);
            let path = crate::merge::conflict_path(&rel, &bytes);
            staged.stage(&path, bytes, None);
            kept = Some(path);
        }
        match theirs {
            Some(bytes) => staged.stage(&rel, bytes, None),
            None => {
                let _ = std::fs::remove_file(repo.root().join(&rel));
            }
        }
        let what = if edited { "edit of" } else { "deletion of" };
        let at = kept.map(|k| format!(" (kept at {k})")).unwrap_or_default();
        out.problems.push(Problem::new(
            rel.clone(),
            format!(
                "a hand {what} {owner}'s file was not committed{at}: {owner}/ and events/{owner}/ change only through {owner}'s own commits, which every other clone checks; the file is back as {owner} wrote it — ask {owner}, or make the change on a clone that writes as {owner}"
            ),
        ));
    }
    Ok(())
}

/// A file's bytes with its secrets redacted, when it held any (a file that
/// is not UTF-8 is left as it is).
fn redacted(bytes: &[u8]) -> Option<Vec<u8>> {
    match std::str::from_utf8(bytes).map(redact::redact) {
        Ok(std::borrow::Cow::Owned(clean)) => Some(clean.into_bytes()),
        _ => None,
    }
}

/// An adopted file's bytes with its secrets redacted, kept byte for byte
/// around them; but a learning that the redaction of its raw text would
/// leave unparsable (a secret's end inside a quoted YAML escape, `\"` cut in
/// two) is redacted field by field and written canonically instead.
fn adopted_redacted(rel: &str, bytes: &[u8]) -> Option<Vec<u8>> {
    let clean = redacted(bytes)?;
    if !matches!(paths::classify(rel), RepoPath::Learning { .. })
        || Learning::parse_at(rel, &clean).is_ok()
    {
        return Some(clean);
    }
    match Learning::parse_at(rel, bytes) {
        Ok(mut learning) => {
            learning.redact();
            Some(learning.to_markdown().into_bytes())
        }
        // Unreadable before: kept as the raw redaction made it, and reported.
        Err(_) => Some(clean),
    }
}

/// What the sync says of a learning file that does not parse (§6 step 1).
const UNREADABLE_COMMITTED: &str =
    "committed as it is, and left out of trust, search and publishing until it is fixed";

/// The largest work-tree file a sync commits: a learning is at most this
/// long (§3), and nothing else a person keeps in the dir needs more; a
/// larger file would be pushed to every clone. Events files are exempt:
/// the sync appends to them itself, and a busy month may outgrow it.
pub const MAX_WORKTREE_BYTES: usize = crate::learning::MAX_FILE_BYTES;

/// True when the work-tree file `rel` of `len` bytes is too large to commit.
fn over_limit(rel: &str, len: u64) -> bool {
    len > MAX_WORKTREE_BYTES as u64 && !matches!(paths::classify(rel), RepoPath::Events { .. })
}

/// A file left out for its size, said with its size, the limit and what to do.
fn too_large(rel: &str, len: u64) -> Problem {
    Problem::new(
        rel,
        format!(
            "{len} bytes, over the {MAX_WORKTREE_BYTES}-byte limit: not committed or pushed, \
             and left here as it is; make it smaller, or move it out of the learnings dir"
        ),
    )
}

/// Identifies one version of a file too large to read for a hash.
fn too_large_fingerprint(file: &FileState) -> String {
    let mtime = file.stat.map(|s| (s.mtime.secs, s.mtime.nsecs));
    format!("too large {} {mtime:?}", file.len)
}

/// What [`Reported`] notes for a folder holding a repository of its own.
const NESTED_REPO: &str = "nested repository";

/// A folder left out because it holds a repository of its own.
fn nested_repo(folder: &str) -> Problem {
    Problem::new(
        format!("{folder}/"),
        "holds a git repository of its own (a .git inside): left out of the sync, as git \
         leaves out a nested repository; move it out of the learnings dir, or remove its \
         .git to sync its files",
    )
}

/// The work-tree files a sync leaves out and why, said for `doctor` every
/// time (the sync says each once): symlinks and names git cannot hold,
/// folders holding a repository of their own, files over the size limit.
pub fn left_out(repo: &Repo) -> Result<Vec<Problem>> {
    let status = repo.status()?;
    let mut problems: Vec<Problem> = status
        .skipped
        .iter()
        .map(|(path, why)| Problem::new(path.clone(), why.clone()))
        .collect();
    problems.extend(status.nested_repos.iter().map(|f| nested_repo(f)));
    problems.extend(
        status
            .changed
            .iter()
            .filter(|f| over_limit(&f.path, f.len))
            .map(|f| too_large(&f.path, f.len)),
    );
    Ok(problems)
}

/// The blob id of `bytes`, in hex: a file's version, for [`Reported`].
fn blob_hex(repo: &Repo, bytes: &[u8]) -> String {
    gix::objs::compute_hash(repo.gix().object_hash(), gix::object::Kind::Blob, bytes)
        .map(|id| id.to_string())
        .unwrap_or_default()
}

/// Inbox: learnings by last-writer-wins against the tree (or an edit), event
/// lines gathered by file; unreadable inbox files are set aside.
fn stage_inbox(
    repo: &Repo,
    dir: &LearningsDir,
    head_tree: ObjectId,
    staged: &mut Staged,
    out: &mut CommitOutcome,
) -> Result<()> {
    for item in dir.inbox().items() {
        match item.payload {
            Ok(InboxPayload::Learning(mut incoming)) => {
                let Ok(rel) = paths::learning_path(&incoming.agent_id, &incoming.id) else {
                    continue;
                };
                if incoming.redact() {
                    out.redacted.push(rel.clone());
                }
                let current = match staged.learnings.get(&incoming.id) {
                    Some((_, l)) => Some(l.clone()),
                    None => repo
                        .blob_at(head_tree, &rel)?
                        .and_then(|b| Learning::parse_at(&rel, &b).ok()),
                };
                let winner = match &current {
                    Some(c) => crate::learning::newer(c, &incoming).clone(),
                    None => *incoming,
                };
                if current.is_none()
                    && let Some(broken) = staged.pending.remove(&rel)
                {
                    // The work tree holds an unreadable version: keep its bytes.
                    let kept = crate::merge::conflict_path(&rel, &broken.bytes);
                    out.problems.push(Problem::new(
                        rel.clone(),
                        format!("unreadable version kept as {kept}"),
                    ));
                    staged.stage(&kept, broken.bytes, None);
                }
                staged.touched.insert(winner.id.clone());
                staged
                    .learnings
                    .insert(winner.id.clone(), (rel.clone(), winner));
                staged.deletes.remove(&rel);
                out.inbox_learnings += 1;
                staged.consumed.push(item.path);
            }
            Ok(InboxPayload::Event(e)) => staged.inbox_events.push((item.path, e)),
            Err(message) => {
                let shown = item.path.display().to_string();
                let kept = quarantine(dir, &item.path);
                out.problems.push(Problem::new(
                    shown,
                    format!("{message}; moved to {}", kept.display()),
                ));
            }
        }
    }
    Ok(())
}

/// The inbox's events join the commit, unless `batch` lets them wait: a
/// cycle that commits nothing else holds them until enough wait or the
/// oldest is old enough. Held ones stay in the inbox, untouched.
fn take_inbox_events(
    staged: &mut Staged,
    out: &mut CommitOutcome,
    batch: Option<super::EvidenceBatch>,
) {
    let events = std::mem::take(&mut staged.inbox_events);
    let commits_anyway =
        !(staged.pending.is_empty() && staged.deletes.is_empty() && staged.learnings.is_empty());
    let oldest = events.iter().map(|(_, e)| e.at).min();
    let hold = batch.is_some_and(|b| {
        !commits_anyway && !b.due(events.len(), oldest, crate::timestamp::Timestamp::now())
    });
    if hold {
        out.held_events = events.len();
        return;
    }
    for (path, e) in events {
        staged.touched.insert(e.learning.clone());
        staged
            .new_events
            .entry(e.file_path())
            .or_default()
            .push(e.to_line());
        out.inbox_events += 1;
        staged.consumed.push(path);
    }
}

/// Inbox events go into their events files by union (§4).
fn stage_inbox_events(repo: &Repo, head_tree: ObjectId, staged: &mut Staged) -> Result<()> {
    for (rel, lines) in std::mem::take(&mut staged.new_events) {
        let base = match staged.pending.get(&rel) {
            Some(p) => String::from_utf8_lossy(&p.bytes).into_owned(),
            None => repo
                .blob_at(head_tree, &rel)?
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default(),
        };
        let merged = event::union(&[&base, &lines.join("\n")]);
        staged.stage(&rel, merged.into_bytes(), None);
    }
    Ok(())
}

/// Recomputes derived state for every learning whose file or events moved,
/// staging its canonical bytes and noting trust changes against HEAD.
fn recompute_touched(
    repo: &Repo,
    dir: &LearningsDir,
    settings: &Settings,
    head_tree: ObjectId,
    staged: &mut Staged,
    out: &mut CommitOutcome,
) -> Result<()> {
    if staged.touched.is_empty() {
        return Ok(());
    }
    let hub = settings.hub.as_deref();
    let policy = match staged.pending.get(POLICY_PATH) {
        // A local edit of the policy counts at once only without a hub (§5.2).
        Some(p) if hub.is_none() => Policy::read(Some(&String::from_utf8_lossy(&p.bytes))).0,
        _ => derive::policy_in(repo, hub, head_tree)?,
    };
    let mut index = EventIndex::kept(dir);
    index.ensure(repo, head_tree)?;
    for (rel, p) in &staged.pending {
        if matches!(paths::classify(rel), RepoPath::Events { .. }) {
            index.update(rel, Some(&crate::event::decode(&p.bytes)));
        }
    }
    let events = index.for_ids(&staged.touched)?;
    index.persist();
    let hub = settings.hub.as_deref();
    let main = crate::hub::read(repo, &dir.state(), hub, Some(&staged.touched))?;
    let overrides: BTreeMap<String, Option<String>> = staged
        .pending
        .iter()
        .filter(|(rel, _)| {
            matches!(
                paths::classify(rel),
                RepoPath::Rejection { .. } | RepoPath::Pulled { .. }
            )
        })
        .map(|(rel, p)| {
            (
                rel.clone(),
                Some(String::from_utf8_lossy(&p.bytes).into_owned()),
            )
        })
        .chain(
            staged
                .deletes
                .iter()
                .filter(|rel| {
                    matches!(
                        paths::classify(rel),
                        RepoPath::Rejection { .. } | RepoPath::Pulled { .. }
                    )
                })
                .map(|rel| (rel.clone(), None)),
        )
        .collect();
    let decisions = crate::hub::decisions_with(repo, main, Some(head_tree), &overrides)?;
    for id in staged.touched.clone() {
        if !staged.learnings.contains_key(&id) {
            match derive::find_learning(repo, head_tree, &id)? {
                // Deleted by hand in this cycle: the deletion wins; its
                // events stay in the events files as evidence.
                Some((rel, _)) if staged.deletes.contains(&rel) => continue,
                Some((rel, l)) => {
                    staged.learnings.insert(id.clone(), (rel, l));
                }
                None => continue,
            }
        }
        let Some((rel, learning)) = staged.learnings.get_mut(&id) else {
            continue;
        };
        let mine: Vec<&Event> = events
            .get(&id)
            .map(|v| v.iter().collect())
            .unwrap_or_default();
        let derived = trust::derive(learning, &mine, &decisions.for_id(&id), &policy);
        trust::apply(learning, derived);
        out.recomputed += 1;
        // Compare with the level last committed (a new learning starts at L1).
        let committed = repo
            .blob_at(head_tree, rel)?
            .and_then(|b| Learning::parse_at(rel, &b).ok())
            .map_or(TrustLevel::L1, |l| l.trust_level);
        if learning.trust_level != committed
            && learning.trust_level.max(committed) >= TrustLevel::L2
        {
            out.changes.push(LevelChange {
                id: id.clone(),
                from: committed.to_string(),
                to: learning.trust_level.to_string(),
            });
        }
        let canonical = learning.to_markdown().into_bytes();
        let read_stat = staged
            .pending
            .get(rel.as_str())
            .and_then(|p| (p.bytes == canonical).then_some(p.read_stat).flatten());
        let rel = rel.clone();
        staged.stage(&rel, canonical, read_stat);
    }
    Ok(())
}

/// The tree changes: staged files that differ from HEAD (a normalisation
/// that changed nothing is dropped), then deletions, deletions first.
fn changes_against(repo: &Repo, head_tree: ObjectId, staged: &Staged) -> Result<Vec<Change>> {
    let mut changes = Vec::new();
    for (rel, p) in &staged.pending {
        let id =
            gix::objs::compute_hash(repo.gix().object_hash(), gix::object::Kind::Blob, &p.bytes)
                .map_err(crate::repo::fail(format!("hash {rel}")))?;
        if repo.blob_id_at(head_tree, rel)? != Some(id) {
            changes.push(Change::Upsert {
                path: rel.clone(),
                bytes: p.bytes.clone(),
            });
        }
    }
    for rel in &staged.deletes {
        if !staged.pending.contains_key(rel) && repo.blob_id_at(head_tree, rel)?.is_some() {
            changes.push(Change::Delete { path: rel.clone() });
        }
    }
    deletions_first(&mut changes);
    Ok(changes)
}

/// Objects, then the cycle marker, the ref, the work tree and index (the
/// crash-safe order of docs/sync.md).
#[allow(clippy::too_many_arguments)]
fn write_commit(
    repo: &Repo,
    dir: &LearningsDir,
    settings: &Settings,
    head: Option<ObjectId>,
    head_tree: ObjectId,
    changes: &[Change],
    staged: &Staged,
    out: &CommitOutcome,
    lap: &mut super::Lap,
) -> Result<ObjectId> {
    let tree = repo.write_tree(head_tree, changes)?;
    lap.done("  write the tree");
    recover::begin(
        dir,
        &recover::Marker {
            tree: tree.to_string(),
            paths: changes.iter().map(|c| c.path().to_string()).collect(),
        },
    )?;
    let parents: Vec<ObjectId> = head.into_iter().collect();
    let message = commit_message(settings, out, changes);
    crate::fault::point("commit:before-ref");
    let commit = repo.commit(tree, &parents, &message, &settings.identity)?;
    crate::fault::point("commit:after-ref");
    lap.done("  commit");
    finish_worktree(repo, tree, &staged.pending)?;
    lap.done("  work tree and index");
    crate::fault::point("commit:after-worktree");
    recover::end(dir);
    Ok(commit)
}

/// Commits every work-tree file as it is (only secrets are redacted), how
/// `init` adopts an existing directory without rewriting anyone's files,
/// except that no adopted learning may claim derived state (§5) its evidence
/// does not give: those fields, and only those, are set to what §5 computes,
/// in the same commit, with the rest of each file kept byte for byte.
/// Files over the size limit and folders holding a repository of their
/// own are left out (and said, in `left_out`).
pub fn commit_as_is(
    repo: &Repo,
    dir: &LearningsDir,
    message: &str,
    settings: &Settings,
) -> Result<Adopted> {
    let head = repo.head_commit()?;
    let head_tree = repo.head_tree()?;
    let status = repo.status()?;
    let mut pending: BTreeMap<String, Pending> = BTreeMap::new();
    let mut redacted = Vec::new();
    // Said now, so the first sync does not say it again.
    let mut reported = Reported::load(repo.root());
    let mut left_out = Vec::new();
    for folder in &status.nested_repos {
        reported.first_time(folder, NESTED_REPO);
        left_out.push(nested_repo(folder));
    }
    for file in &status.changed {
        if over_limit(&file.path, file.len) {
            reported.first_time(&file.path, &too_large_fingerprint(file));
            left_out.push(too_large(&file.path, file.len));
            continue;
        }
        let Ok(bytes) = std::fs::read(repo.root().join(&file.path)) else {
            continue;
        };
        let (bytes, read_stat) = match adopted_redacted(&file.path, &bytes) {
            Some(clean) => {
                redacted.push(file.path.clone());
                (clean, None)
            }
            None => (bytes, file.stat),
        };
        pending.insert(file.path.clone(), Pending { bytes, read_stat });
    }
    let upserts = |pending: &BTreeMap<String, Pending>| -> Vec<Change> {
        pending
            .iter()
            .map(|(path, p)| Change::Upsert {
                path: path.clone(),
                bytes: p.bytes.clone(),
            })
            .collect()
    };
    let deletes: Vec<Change> = status
        .deleted
        .iter()
        .map(|path| Change::Delete { path: path.clone() })
        .collect();
    let mut changes = upserts(&pending);
    changes.extend(deletes.iter().cloned());
    deletions_first(&mut changes);
    let adopted = repo.write_tree(head_tree, &changes)?;
    for (rel, bytes) in derived_fixes(repo, dir, settings, adopted)? {
        pending.insert(
            rel,
            Pending {
                bytes,
                read_stat: None,
            },
        );
    }
    let mut changes = upserts(&pending);
    changes.extend(deletes);
    deletions_first(&mut changes);
    reported.save();
    let mut adopted = Adopted {
        commit: None,
        redacted,
        left_out,
    };
    if changes.is_empty() {
        return Ok(adopted);
    }
    let tree = repo.write_tree(head_tree, &changes)?;
    let parents: Vec<ObjectId> = head.into_iter().collect();
    adopted.commit = Some(repo.commit(tree, &parents, message, &settings.identity)?);
    finish_worktree(repo, tree, &pending)?;
    Ok(adopted)
}

/// What [`commit_as_is`] did.
#[derive(Debug)]
pub struct Adopted {
    pub commit: Option<ObjectId>,
    /// Files whose secrets the commit has redacted.
    pub redacted: Vec<String>,
    /// What it left out and why: folders holding a repository of their
    /// own, files over the size limit.
    pub left_out: Vec<Problem>,
}

/// The learning files of `tree` whose derived fields are not what §5
/// computes from the tree's events, the hub's reviews and policy, with new
/// bytes: edited in place where the file allows it, else canonical.
fn derived_fixes(
    repo: &Repo,
    dir: &LearningsDir,
    settings: &Settings,
    tree: ObjectId,
) -> Result<Vec<(String, Vec<u8>)>> {
    let mut files: Vec<(String, Learning, Vec<u8>)> = Vec::new();
    for folder in repo.tree(tree)?.entries().filter(|e| e.is_tree) {
        for entry in repo.tree(folder.id)?.entries().filter(|e| e.is_blob) {
            let rel = format!("{}/{}", folder.name, entry.name);
            if !matches!(paths::classify(&rel), RepoPath::Learning { .. }) {
                continue;
            }
            let bytes = repo.read_blob(entry.id)?;
            if let Ok(learning) = Learning::parse_at(&rel, &bytes) {
                files.push((rel, learning, bytes));
            }
        }
    }
    if files.is_empty() {
        return Ok(Vec::new());
    }
    let ids: BTreeSet<String> = files.iter().map(|(_, l, _)| l.id.clone()).collect();
    let hub = settings.hub.as_deref();
    let policy = derive::policy_in(repo, hub, tree)?;
    let mut index = EventIndex::kept(dir);
    index.ensure(repo, tree)?;
    let events = index.for_ids(&ids)?;
    index.persist();
    let main = crate::hub::read(repo, &dir.state(), hub, Some(&ids))?;
    let decisions = crate::hub::decisions(repo, main, Some(tree))?;
    let mut fixes = Vec::new();
    for (rel, mut learning, bytes) in files {
        let mine: Vec<&Event> = events
            .get(&learning.id)
            .map(|v| v.iter().collect())
            .unwrap_or_default();
        let derived = trust::derive(&learning, &mine, &decisions.for_id(&learning.id), &policy);
        if !trust::apply(&mut learning, derived) {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        let fixed = learning
            .rewrite_derived_in(&text)
            .unwrap_or_else(|| learning.to_markdown());
        fixes.push((rel, fixed.into_bytes()));
    }
    Ok(fixes)
}

/// Puts deletions before upserts (keeping each group's order): a file
/// replaced by a folder of the same name (`a` → `a/x`) must lose `a` before
/// `a/x` goes in, or the deletion takes the new folder with it.
fn deletions_first(changes: &mut [Change]) {
    changes.sort_by_key(|c| !matches!(c, Change::Delete { .. }));
}

/// Writes pending bytes that differ from the work tree, then the index.
fn finish_worktree(repo: &Repo, tree: ObjectId, pending: &BTreeMap<String, Pending>) -> Result<()> {
    let mut fresh: HashMap<String, Stat> = HashMap::new();
    for (rel, p) in pending {
        match p.read_stat {
            Some(stat) => {
                fresh.insert(rel.clone(), stat);
            }
            None => {
                let on_disk = std::fs::read(repo.root().join(rel)).ok();
                if on_disk.as_deref() != Some(p.bytes.as_slice())
                    && let Some(stat) = repo.write_file(rel, &p.bytes)?
                {
                    fresh.insert(rel.clone(), stat);
                }
            }
        }
    }
    repo.write_index(tree, &fresh)
}

fn remove_consumed(paths: &[PathBuf]) {
    for p in paths {
        let _ = std::fs::remove_file(p);
    }
}

/// Moves an unreadable inbox file aside (never deleted) and says where.
fn quarantine(dir: &LearningsDir, path: &std::path::Path) -> PathBuf {
    let target_dir = dir.state().inbox_rejected();
    let _ = std::fs::create_dir_all(&target_dir);
    let target = target_dir.join(path.file_name().unwrap_or_default());
    match std::fs::rename(path, &target) {
        Ok(()) => target,
        Err(_) => path.to_path_buf(),
    }
}

fn commit_message(settings: &Settings, out: &CommitOutcome, changes: &[Change]) -> String {
    let mut msg = format!(
        "learnsync: {} file(s) from {}\n\n",
        changes.len(),
        settings.home
    );
    if out.inbox_learnings + out.inbox_events > 0 {
        msg.push_str(&format!(
            "Inbox: {} learning(s), {} event(s).\n",
            out.inbox_learnings, out.inbox_events
        ));
    }
    for c in &out.changes {
        msg.push_str(&format!("Trust: {} {} -> {}\n", c.id, c.from, c.to));
    }
    msg
}
