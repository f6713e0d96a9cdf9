//! The work tree and index: what changed since the last commit (a stat-first
//! status like git's), and bringing index and files in line with a tree.

use super::{GitError, Repo, Result, fail};
use crate::store::IgnoreRules;
use gix::ObjectId;
use gix::bstr::ByteSlice;
use gix::index::entry::Stat;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;
use std::rc::Rc;

/// A work-tree file as seen by a status: its stat before its bytes were
/// read, and its length.
#[derive(Debug, Clone)]
pub struct FileState {
    pub path: String,
    pub stat: Option<Stat>,
    pub len: u64,
}

/// Differences between the work tree and the last commit: what the work
/// tree holds that the index does not, and what the index holds (staged
/// with the user's git) that HEAD does not.
#[derive(Debug, Default)]
pub struct WorktreeStatus {
    /// Added or modified files (relative paths, `/`-separated), sorted.
    pub changed: Vec<FileState>,
    /// Tracked files missing from the work tree, sorted.
    pub deleted: Vec<String>,
    /// Files that cannot be committed as learnings (symlinks, odd names).
    pub skipped: Vec<(String, String)>,
    /// Work-tree files looked at (all of them for a full status).
    pub scanned: usize,
    /// Untracked temp files a write killed before its rename left
    /// ([`crate::store::is_temp_name`]): never changes, for the caller to
    /// remove.
    pub leftovers: Vec<String>,
    /// Folders holding a repository of their own (a `.git` inside), sorted:
    /// left out whole, as git leaves out an untracked nested repository.
    /// What the index has below one stays as it is (neither changed nor
    /// deleted).
    pub nested_repos: Vec<String>,
}

impl WorktreeStatus {
    /// True when `rel` is inside one of the nested repositories.
    fn in_nested_repo(&self, rel: &str) -> bool {
        self.nested_repos.iter().any(|n| {
            rel.strip_prefix(n.as_str())
                .is_some_and(|r| r.starts_with('/'))
        })
    }

    /// Sorts each list and drops repeats.
    fn settle(&mut self) {
        self.changed.sort_by(|a, b| a.path.cmp(&b.path));
        self.changed.dedup_by(|a, b| a.path == b.path);
        self.deleted.sort();
        self.deleted.dedup();
        self.nested_repos.sort();
        self.nested_repos.dedup();
    }

    /// An untracked work-tree file: a killed write's leftover, ignored
    /// (said nowhere), or new. One HEAD has but the index no longer does
    /// (`git rm --cached`) and that the rules ignore leaves the commit.
    fn untracked(&mut self, file: FileState, staged: &Staged, ignore: &mut IgnoreRules) {
        if is_leftover(&file.path) {
            self.leftovers.push(file.path);
        } else if ignore.ignores(&file.path) {
            if staged.get(&file.path) == Some(&StagedAs::OnlyInHead) {
                self.deleted.push(file.path);
            }
        } else {
            self.changed.push(file);
        }
    }

    /// Symlinks and nested repositories the rules ignore go unsaid.
    fn drop_ignored(&mut self, ignore: &mut IgnoreRules) {
        self.skipped.retain(|(rel, _)| !ignore.ignores(rel));
        self.nested_repos.retain(|rel| !ignore.ignores_folder(rel));
    }

    /// Paths HEAD has, the index does not and the work tree does not
    /// either: a `git rm`, which the commit carries out.
    fn staged_deletions(&mut self, root: &Path, staged: &Staged) {
        for (rel, how) in staged {
            if *how == StagedAs::OnlyInHead
                && !self.in_nested_repo(rel)
                && std::fs::symlink_metadata(root.join(rel)).is_err()
            {
                self.deleted.push(rel.clone());
            }
        }
    }
}

/// How a path the index and HEAD disagree about stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StagedAs {
    /// Added or changed with `git add` (or HEAD moved under the index).
    InIndex,
    /// Removed from the index (`git rm`, `git rm --cached`).
    OnlyInHead,
}

/// The paths where the index is not HEAD's tree.
type Staged = HashMap<String, StagedAs>;

/// An index's blob entries (no gitlinks, no conflict stages), by path.
fn blobs(file: &gix::index::File) -> Vec<(&gix::bstr::BStr, (ObjectId, gix::index::entry::Mode))> {
    file.entries()
        .iter()
        .filter(|e| e.stage_raw() == 0 && e.mode != gix::index::entry::Mode::COMMIT)
        .map(|e| (e.path(file), (e.id, e.mode)))
        .collect()
}

/// What [`Repo::staged`] keeps to know the index is HEAD's tree: the tree
/// and the index file's stat (git replaces the file, never edits it in
/// place, so a new one has a new inode or mtime; the ctime is left out, as
/// the rename that puts a file in place moves it).
fn index_record(tree: ObjectId, s: &Stat) -> String {
    format!(
        "{tree} {}.{} {} {} {}\n",
        s.mtime.secs, s.mtime.nsecs, s.size, s.dev, s.ino
    )
}

/// True when an untracked work-tree file is a killed write's temp file.
fn is_leftover(rel: &str) -> bool {
    crate::store::is_temp_name(rel.rsplit('/').next().unwrap_or(rel))
}

/// True when a folder entry named `name` makes its folder a repository of
/// its own (a `.git` folder, or a `.git` file pointing elsewhere, as a
/// submodule or a linked work tree has).
fn is_git_entry(name: &std::ffi::OsStr) -> bool {
    name.eq_ignore_ascii_case(".git")
}

/// The stage-0 entries of the index file at `path` whose path is in
/// `wanted`, each with its blob and stat, read entry by entry without
/// decoding the index. Versions 2 and 3 with SHA-1 ids, the ones gix and
/// git write by default; `None` for anything else (version 4's compressed
/// paths, a name of 4,095 bytes or more, a file cut short, a split or
/// sparse index), which the caller decodes whole. An index that is missing
/// tracks nothing.
fn scan_index(path: &Path, wanted: &HashSet<&str>) -> Option<HashMap<String, (ObjectId, Stat)>> {
    let Some(mut entries) = super::index_file::Entries::open(path).ok()? else {
        return Some(HashMap::new());
    };
    let mut out = HashMap::with_capacity(wanted.len());
    let mut raw = super::index_file::Raw::default();
    for _ in 0..entries.count {
        entries.next_into(&mut raw)?;
        let Ok(rel) = std::str::from_utf8(raw.name()) else {
            continue;
        };
        if raw.stage() != 0 || !wanted.contains(rel) {
            continue;
        }
        out.insert(rel.to_string(), (raw.id()?, raw.stat()));
    }
    entries.ends_with_optional_extensions().then_some(out)
}

pub(super) fn stat_of(path: &Path) -> Option<Stat> {
    std::fs::symlink_metadata(path).ok().map(|m| stat_from(&m))
}

/// The index's view of a file's metadata (the fields git records).
fn stat_from(m: &std::fs::Metadata) -> Stat {
    use gix::index::entry::stat::Time;
    use std::os::unix::fs::MetadataExt;
    let time = |secs: i64, nsecs: i64| Time {
        secs: u32::try_from(secs).unwrap_or(0),
        nsecs: u32::try_from(nsecs).unwrap_or(0),
    };
    Stat {
        mtime: time(m.mtime(), m.mtime_nsec()),
        ctime: time(m.ctime(), m.ctime_nsec()),
        // Truncated to 32 bits on purpose, as git does.
        dev: m.dev() as u32,
        ino: m.ino() as u32,
        uid: m.uid(),
        gid: m.gid(),
        size: m.size() as u32,
    }
}

fn same_file(a: &Stat, b: &Stat) -> bool {
    a.mtime == b.mtime && a.size == b.size && a.ino == b.ino
}

/// What the index recorded of some tracked files: the blob each was and
/// the work-tree file's stat then ([`Repo::indexed`]).
pub struct Indexed(HashMap<String, (ObjectId, Stat)>);

impl Indexed {
    /// True when the work-tree file `rel` is, by its stat, the file the
    /// index recorded as blob `id`: as the last checkout or commit left it,
    /// known without reading it (the test [`Repo::status`] makes).
    pub fn holds(&self, root: &Path, rel: &str, id: ObjectId) -> bool {
        self.0.get(rel).is_some_and(|(was, s)| {
            *was == id && stat_of(&root.join(rel)).is_some_and(|now| same_file(&now, s))
        })
    }
}

impl Repo {
    /// The index file as it is now (empty when there is none): decoded
    /// again only when its stat changed since the last read. Not gix's
    /// shared copy, which stays in memory for as long as the repository is
    /// open (15 MiB at 100,000 learnings, through a whole sync that read it
    /// at the start): this one goes with [`Repo::release_trees`].
    fn read_index(&self) -> Result<Rc<gix::index::File>> {
        let path = self.git.index_path();
        let now = stat_of(&path);
        if let (Some(now), Some((was, index))) = (now.as_ref(), self.index.borrow().as_ref())
            && same_file(now, was)
        {
            return Ok(index.clone());
        }
        let index = Rc::new(match self.git.open_index() {
            Ok(index) => index,
            Err(gix::worktree::open_index::Error::IndexFile(
                gix::index::file::init::Error::Io(e),
            )) if e.kind() == std::io::ErrorKind::NotFound => {
                gix::index::File::from_state(gix::index::State::new(self.git.object_hash()), path)
            }
            Err(e) => return Err(fail("read the index")(e)),
        });
        *self.index.borrow_mut() = now.map(|now| (now, index.clone()));
        Ok(index)
    }

    /// The index's record of `paths` (those it tracks): read from the file
    /// entry by entry when it is not decoded already (the whole index is
    /// 15 MiB in memory at 100,000 learnings, for the few thousand a sync
    /// asks about).
    pub fn indexed<'a>(&self, paths: impl IntoIterator<Item = &'a str>) -> Result<Indexed> {
        let wanted: HashSet<&str> = paths.into_iter().collect();
        if self.index.borrow().is_none()
            && self.git.object_hash() == gix::hash::Kind::Sha1
            && let Some(found) = scan_index(&self.git.index_path(), &wanted)
        {
            return Ok(Indexed(found));
        }
        let index = self.read_index()?;
        let mut out = HashMap::with_capacity(wanted.len());
        for e in index.entries() {
            if let Ok(p) = e.path(&index).to_str()
                && wanted.contains(p)
            {
                out.insert(p.to_string(), (e.id, e.stat));
            }
        }
        Ok(Indexed(out))
    }

    /// Compares the work tree with the index, and the index with HEAD.
    /// Files whose stat matches the index are not read; others are hashed
    /// and compared by content. Untracked files are matched against the
    /// ignore rules; folders holding a repository of their own are left
    /// out.
    pub fn status(&self) -> Result<WorktreeStatus> {
        let index = self.read_index()?;
        let staged = self.staged(Some(&index))?;
        let mut ignore = IgnoreRules::read(&self.root, self.git_dir());
        let mut tracked: HashMap<&[u8], (usize, &Stat, ObjectId)> = HashMap::new();
        for (i, entry) in index.entries().iter().enumerate() {
            tracked.insert(entry.path(&index).as_bytes(), (i, &entry.stat, entry.id));
        }
        let mut seen: HashSet<usize> = HashSet::new();
        let walked = walk_all(&self.root)?;
        let mut status = WorktreeStatus {
            scanned: walked.files.len(),
            skipped: walked.skipped,
            nested_repos: walked.nested,
            ..WorktreeStatus::default()
        };
        for file in walked.files {
            match tracked.get(file.path.as_bytes()) {
                Some(&(i, indexed, id)) => {
                    seen.insert(i);
                    if (!staged.is_empty() && staged.contains_key(&file.path))
                        || self.differs(&file.path, file.stat.as_ref(), indexed, id)?
                    {
                        status.changed.push(file);
                    }
                }
                None => status.untracked(file, &staged, &mut ignore),
            }
        }
        for (i, entry) in index.entries().iter().enumerate() {
            if seen.contains(&i) {
                continue;
            }
            let rel = entry.path(&index).to_str_lossy();
            if !status.in_nested_repo(&rel) {
                status.deleted.push(rel.into_owned());
            }
        }
        status.staged_deletions(&self.root, &staged);
        status.drop_ignored(&mut ignore);
        status.settle();
        Ok(status)
    }

    /// The paths where the index is not HEAD's tree: what the user staged
    /// with their own git (`git add`, `git rm`), which a comparison of the
    /// work tree with the index cannot see. Free when the index file is the
    /// one the last [`Repo::write_index`] wrote for HEAD's tree (or one found
    /// equal to it since): that tree and the index file's stat are kept in
    /// `.git/learnsync/` ([`crate::store::StateDir::index_record`]); else
    /// HEAD's tree is read as an index and the two are compared. Gitlinks
    /// and conflict stages are left out.
    fn staged(&self, index: Option<&gix::index::File>) -> Result<Staged> {
        let mut staged = Staged::new();
        let head_tree = self.head_tree()?;
        let record = crate::store::StateDir::of(&self.root).index_record();
        let now = self.index_record(head_tree);
        if now.is_some() && std::fs::read_to_string(&record).ok() == now {
            return Ok(staged);
        }
        tracing::debug!("the index is not the one last written for HEAD: comparing them");
        let read;
        let index = match index {
            Some(index) => index,
            None => {
                read = self.read_index()?;
                &*read
            }
        };
        let head = if head_tree == self.empty_tree() {
            None
        } else {
            Some(
                self.git
                    .index_from_tree(&head_tree)
                    .map_err(fail("read HEAD's tree as an index"))?,
            )
        };
        let ours = blobs(index);
        let theirs = head.as_ref().map(blobs).unwrap_or_default();
        // Both are sorted by path: one pass, as a merge.
        let (mut i, mut j) = (0, 0);
        while i < ours.len() || j < theirs.len() {
            let order = match (ours.get(i), theirs.get(j)) {
                (Some(o), Some(t)) => o.0.cmp(t.0),
                (Some(_), None) => std::cmp::Ordering::Less,
                _ => std::cmp::Ordering::Greater,
            };
            let (path, how) = match order {
                std::cmp::Ordering::Less => {
                    i += 1;
                    (ours[i - 1].0, Some(StagedAs::InIndex))
                }
                std::cmp::Ordering::Greater => {
                    j += 1;
                    (theirs[j - 1].0, Some(StagedAs::OnlyInHead))
                }
                std::cmp::Ordering::Equal => {
                    i += 1;
                    j += 1;
                    let same = ours[i - 1].1 == theirs[j - 1].1;
                    (ours[i - 1].0, (!same).then_some(StagedAs::InIndex))
                }
            };
            if let Some(how) = how {
                staged.insert(path.to_str_lossy().into_owned(), how);
            }
        }
        if staged.is_empty()
            && let Some(now) = now
        {
            // A cache: losing it costs one comparison.
            let _ = crate::store::replace_file(&record, now.as_bytes());
        }
        Ok(staged)
    }

    /// [`index_record`] of the index file as it is now; `None` without one.
    fn index_record(&self, tree: ObjectId) -> Option<String> {
        stat_of(&self.git.index_path()).map(|s| index_record(tree, &s))
    }

    /// True when a tracked work-tree file's content is not `id`: its stat
    /// says it is unchanged, else its bytes are hashed (git's racy check).
    fn differs(
        &self,
        rel: &str,
        stat: Option<&Stat>,
        indexed: &Stat,
        id: ObjectId,
    ) -> Result<bool> {
        if stat.is_some_and(|s| same_file(s, indexed)) {
            return Ok(false);
        }
        let bytes = std::fs::read(self.root.join(rel)).map_err(fail(format!("read {rel}")))?;
        Ok(!self.is_blob(&bytes, id))
    }

    /// True when `bytes` are the content of blob `id`.
    fn is_blob(&self, bytes: &[u8], id: ObjectId) -> bool {
        gix::objs::compute_hash(self.git.object_hash(), gix::object::Kind::Blob, bytes)
            .is_ok_and(|h| h == id)
    }

    /// A work-tree file's bytes when it is a regular file of at most
    /// `max_bytes` whose content is blob `id` (read without inflating the
    /// blob); `None` otherwise.
    pub fn work_tree_copy(&self, rel: &str, id: ObjectId, max_bytes: usize) -> Option<Vec<u8>> {
        let full = self.root.join(rel);
        std::fs::symlink_metadata(&full)
            .ok()
            .filter(|m| m.is_file() && m.len() <= max_bytes as u64)
            .and_then(|_| std::fs::read(&full).ok())
            .filter(|b| self.is_blob(b, id))
    }

    /// Like [`Repo::status`], for only these paths (files or folders, present
    /// or gone; what a watcher reported) and those the user staged with
    /// their own git: nothing is read when there are none, so a sync with
    /// nothing new does not touch the rest of the tree.
    pub fn status_of(&self, paths: &[String]) -> Result<WorktreeStatus> {
        let mut status = WorktreeStatus::default();
        let staged = self.staged(None)?;
        if paths.is_empty() && staged.is_empty() {
            return Ok(status);
        }
        let index = self.read_index()?;
        let mut ignore = IgnoreRules::read(&self.root, self.git_dir());
        let mut walked = Walked::default();
        let mut candidates: BTreeSet<String> = BTreeSet::new();
        let mut repos = NestedRepos::default();
        for p in paths.iter().chain(staged.keys()) {
            if p.is_empty() || p == ".git" || p.starts_with(".git/") {
                // The root itself (moved or deleted) or git's own files: the
                // root's entries were reported one by one.
                continue;
            }
            if let Some(repo) = repos.around(&self.root, p) {
                walked.nested.push(repo);
                continue;
            }
            let full = self.root.join(p);
            match std::fs::symlink_metadata(&full) {
                Ok(m) if m.is_dir() => {
                    walk_dir(&self.root, p.clone(), true, &mut walked, &mut Vec::new())?;
                }
                Ok(m) if m.is_file() => walked.files.push(FileState {
                    path: p.clone(),
                    stat: Some(stat_from(&m)),
                    len: m.len(),
                }),
                Ok(_) => walked.skipped.push((
                    p.clone(),
                    "not a regular file (symlinks are not synced)".into(),
                )),
                Err(_) => {}
            }
            let folder = format!("{p}/");
            for e in index
                .prefixed_entries(p.as_bytes().as_bstr())
                .unwrap_or_default()
            {
                let path = e.path(&index);
                if path == p.as_bytes() || path.starts_with(folder.as_bytes()) {
                    candidates.insert(path.to_str_lossy().into_owned());
                }
            }
        }
        status.scanned = walked.files.len();
        status.skipped = walked.skipped;
        status.nested_repos = walked.nested;
        let mut present: BTreeSet<String> = BTreeSet::new();
        for file in walked.files {
            if !present.insert(file.path.clone()) {
                continue;
            }
            match index.entry_by_path(file.path.as_bytes().as_bstr()) {
                Some(entry) => {
                    if (!staged.is_empty() && staged.contains_key(&file.path))
                        || self.differs(&file.path, file.stat.as_ref(), &entry.stat, entry.id)?
                    {
                        status.changed.push(file);
                    }
                }
                None => status.untracked(file, &staged, &mut ignore),
            }
        }
        status.deleted = candidates
            .difference(&present)
            .filter(|rel| !status.in_nested_repo(rel))
            .cloned()
            .collect();
        status.staged_deletions(&self.root, &staged);
        status.drop_ignored(&mut ignore);
        status.settle();
        Ok(status)
    }

    /// Brings the index from `from` to `to` by `edits`, every path whose
    /// blob differs between the two trees with its blob in `to` (`None`:
    /// gone), all of them plain files (mode 100644), when the index is
    /// known to be `from` exactly (the record the last [`Repo::write_index`]
    /// kept); else as [`Repo::write_index`] does. The new file is written
    /// from the old one an entry at a time ([`super::index_file`]: one entry
    /// in memory, where a decoded index was 15 MiB at 100,000 learnings), or,
    /// for an index that reader does not take, decoded and edited in place;
    /// `to` is not read. Stats as [`Repo::write_index`] takes them.
    pub fn update_index<'a>(
        &self,
        from: ObjectId,
        to: ObjectId,
        edits: impl IntoIterator<Item = (&'a str, Option<ObjectId>)>,
        fresh: &HashMap<String, Stat>,
    ) -> Result<()> {
        let record = crate::store::StateDir::of(&self.root).index_record();
        let known = self
            .index_record(from)
            .is_some_and(|now| std::fs::read_to_string(&record).ok() == Some(now));
        if !known {
            return self.write_index(to, fresh);
        }
        self.persist_objects()?;
        let stat = |rel: &str| {
            fresh
                .get(rel)
                .copied()
                .or_else(|| stat_of(&self.root.join(rel)))
                .unwrap_or_default()
        };
        let mut edits: Vec<(&str, Option<ObjectId>)> = edits.into_iter().collect();
        // By path, the last edit of a path winning (as applied in order).
        edits.reverse();
        edits.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        edits.dedup_by(|a, b| a.0 == b.0);
        if self.git.object_hash() == gix::hash::Kind::Sha1 {
            let streamed: Vec<super::index_file::Edit<'_>> = edits
                .iter()
                .map(|&(rel, id)| (rel.as_bytes(), id.map(|id| (id, stat(rel)))))
                .collect();
            self.release_index();
            let path = self.git.index_path();
            // Left to the decode below, with nothing written, when the
            // file is not one the entry reader takes.
            let mut unread = false;
            let written = self.commit_index_with(to, |out| {
                super::index_file::rewrite(&path, &streamed, out).unwrap_or_else(|| {
                    unread = true;
                    Err(std::io::Error::other("not an index read entry by entry"))
                })
            });
            if !unread {
                return written;
            }
        }
        let cached = self.read_index()?;
        self.release_index();
        let mut index = Rc::try_unwrap(cached).unwrap_or_else(|shared| (*shared).clone());
        // Both describe entries that may now be gone or changed.
        index.remove_tree();
        index.remove_resolve_undo();
        let (mut added, mut removed) = (Vec::new(), false);
        for (rel, id) in edits {
            match (index.entry_index_by_path(rel.as_bytes().as_bstr()), id) {
                (Ok(i), Some(id)) => {
                    let stat = stat(rel);
                    let entry = &mut index.entries_mut()[i];
                    (entry.id, entry.mode, entry.stat) = (id, gix::index::entry::Mode::FILE, stat);
                }
                (Ok(i), None) => {
                    index.entries_mut()[i].flags |= gix::index::entry::Flags::REMOVE;
                    removed = true;
                }
                (Err(_), Some(id)) => added.push((rel, id)),
                (Err(_), None) => {}
            }
        }
        if removed {
            index.remove_entries(|_, _, e| e.flags.contains(gix::index::entry::Flags::REMOVE));
        }
        for &(rel, id) in &added {
            index.dangerously_push_entry(
                stat(rel),
                id,
                gix::index::entry::Flags::empty(),
                gix::index::entry::Mode::FILE,
                rel.as_bytes().as_bstr(),
            );
        }
        if !added.is_empty() {
            index.sort_entries();
        }
        self.commit_index(index, to)
    }

    /// Rewrites the index to match `tree`. Stats come from `fresh` (taken
    /// before the committed bytes were read, so a later edit still shows),
    /// else from the old index when the blob is unchanged, else from disk.
    pub fn write_index(&self, tree: ObjectId, fresh: &HashMap<String, Stat>) -> Result<()> {
        self.persist_objects()?;
        let old = self.read_index()?;
        let mut index = self
            .git
            .index_from_tree(&tree)
            .map_err(fail("build the index"))?;
        // Both indexes are sorted by path: the old one's stats are found in
        // one walk along the new one, without a map of either.
        let (old_entries, mut j) = (old.entries(), 0);
        for (entry, path) in index.entries_mut_with_paths() {
            while j < old_entries.len() && old_entries[j].path(&old) < path {
                j += 1;
            }
            let same_in_old = old_entries
                .get(j)
                .filter(|o| o.path(&old) == path && o.id == entry.id);
            let rel = path.to_str_lossy();
            let stat = match fresh.get(rel.as_ref()) {
                Some(s) => Some(*s),
                None => match same_in_old {
                    Some(o) => Some(o.stat),
                    None => stat_of(&self.root.join(rel.as_ref())),
                },
            };
            if let Some(stat) = stat {
                entry.stat = stat;
            }
        }
        // The file is about to change: its decoded copy is of no more use.
        self.release_index();
        drop(old);
        self.commit_index(index, tree)
    }

    /// Writes `index`, which is `tree`'s, as the index file, and records
    /// that it is.
    fn commit_index(&self, index: gix::index::File, tree: ObjectId) -> Result<()> {
        self.commit_index_with(tree, |out| {
            index
                .write_to(out, Default::default())
                .map(|_| ())
                .map_err(std::io::Error::other)
        })
    }

    /// Writes the index file with `write`, under the index lock, as
    /// `tree`'s index, and records that it is. Nothing changes when `write`
    /// fails.
    fn commit_index_with(
        &self,
        tree: ObjectId,
        write: impl FnOnce(&mut std::io::BufWriter<gix::lock::File>) -> std::io::Result<()>,
    ) -> Result<()> {
        let path = self.git.index_path();
        // The index lock is taken here, not by `File::write` (which fails at
        // once): a user's git may hold it for a moment.
        let lock = gix::lock::File::acquire_to_update_resource(
            &path,
            gix::lock::acquire::Fail::AfterDurationWithBackoff(super::locks::IN_CYCLE_WAIT),
            None,
        )
        .map_err(|e| {
            let lock = path.with_extension("lock");
            GitError {
                action: "write the index".into(),
                message: format!(
                    "{e}: {}",
                    super::locks::held_now(self.git_dir(), &lock, super::locks::IN_CYCLE_WAIT)
                ),
            }
        })?;
        let mut out = std::io::BufWriter::with_capacity(64 * 1024, lock);
        write(&mut out).map_err(fail("write the index"))?;
        let lock = out
            .into_inner()
            .map_err(|e| fail("write the index")(e.into_error()))?;
        // Taken from the file before it becomes the index, so an index a
        // user's git writes the moment after is not mistaken for ours.
        let ours = stat_of(lock.lock_path());
        lock.commit().map_err(fail("write the index"))?;
        // The index is now HEAD's tree, if `tree` is HEAD's: the next status
        // need not compare them. A cache: losing it costs one comparison.
        if let Some(stat) = ours
            && self.head_tree().ok() == Some(tree)
        {
            let _ = crate::store::replace_file(
                &crate::store::StateDir::of(&self.root).index_record(),
                index_record(tree, &stat).as_bytes(),
            );
        }
        Ok(())
    }

    /// Writes `bytes` to a work-tree path, atomically, creating folders.
    pub fn write_file(&self, rel: &str, bytes: &[u8]) -> Result<Option<Stat>> {
        write_one(&self.root, rel, bytes)
    }

    /// Brings many work-tree files to bytes a commit already holds, as a
    /// checkout does ([`crate::store::overwrite_file`]: in place, not
    /// atomic, the cycle marker covering a crash), on every core (creating a
    /// file is mostly the filesystem's inode work, which runs in parallel
    /// across folders), returning each path's new stat.
    pub fn write_files(&self, files: &[(String, Vec<u8>)]) -> Result<Vec<Written>> {
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(8);
        if threads == 1 || files.len() < 64 {
            return files
                .iter()
                .map(|(rel, bytes)| Ok((rel.clone(), check_out(&self.root, rel, bytes)?)))
                .collect();
        }
        let root = &self.root;
        let chunk = files.len().div_ceil(threads);
        let results: Vec<Result<Vec<Written>>> = std::thread::scope(|s| {
            let handles: Vec<_> = files
                .chunks(chunk)
                .map(|part| {
                    s.spawn(move || {
                        part.iter()
                            .map(|(rel, bytes)| Ok((rel.clone(), check_out(root, rel, bytes)?)))
                            .collect()
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(fail("write work-tree files")("a writer thread panicked"))
                    })
                })
                .collect()
        });
        let mut out = Vec::with_capacity(files.len());
        for r in results {
            out.extend(r?);
        }
        Ok(out)
    }

    /// Removes a work-tree file and any folders it leaves empty.
    pub fn remove_file(&self, rel: &str) -> Result<()> {
        let full = self.root.join(rel);
        match std::fs::remove_file(&full) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(fail(format!("remove {rel}"))(e)),
        }
        let mut dir = full.parent();
        while let Some(d) = dir {
            if d == self.root || std::fs::remove_dir(d).is_err() {
                break;
            }
            dir = d.parent();
        }
        Ok(())
    }
}

/// A work-tree file written, and its stat after the write.
pub type Written = (String, Option<Stat>);

fn write_one(root: &Path, rel: &str, bytes: &[u8]) -> Result<Option<Stat>> {
    let full = root.join(rel);
    if let Some(parent) = full.parent() {
        make_folder(root, rel, parent)?;
    }
    crate::store::replace_file(&full, bytes).map_err(fail(format!("write {rel}")))?;
    Ok(stat_of(&full))
}

/// Makes the folder `rel` goes in. A file standing where one of its
/// folders must be (`newbie` for `newbie/x.md`: a peer's file named like an
/// agent's folder that has not been written yet, which the new tree
/// replaces, as a checkout would) is moved out of the way first, into
/// `.git/learnsync/displaced/`, never deleted: otherwise that agent's every
/// sync stopped here and nothing of its reached the hub.
fn make_folder(root: &Path, rel: &str, parent: &Path) -> Result<()> {
    if std::fs::create_dir_all(parent).is_ok() {
        return Ok(());
    }
    // Writer threads meet here one at a time, and each looks again: the
    // file another one moved is a folder by now, never to be moved itself.
    static DISPLACING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = DISPLACING.lock().unwrap_or_else(|e| e.into_inner());
    let made = std::fs::create_dir_all(parent);
    if made.is_ok() || !displace_file_ancestor(root, rel)? {
        return made.map_err(fail(format!("create folder for {rel}")));
    }
    std::fs::create_dir_all(parent).map_err(fail(format!("create folder for {rel}")))
}

/// Longest name of a displaced file before it is cut and hashed (a
/// file-system name is at most 255 bytes).
const MAX_DISPLACED_NAME: usize = 160;

/// Moves the first file (or symlink) among `rel`'s folders into the state
/// dir's `displaced/`; true when there was one. Called under
/// `make_folder`'s lock.
fn displace_file_ancestor(root: &Path, rel: &str) -> Result<bool> {
    let Some((folders, _)) = rel.rsplit_once('/') else {
        return Ok(false);
    };
    let mut at = root.to_path_buf();
    let mut seen = String::new();
    for part in folders.split('/') {
        at.push(part);
        if !seen.is_empty() {
            seen.push('/');
        }
        seen.push_str(part);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.is_dir() => continue,
            Ok(_) => {}
            Err(_) => return Ok(false),
        }
        let dir = crate::store::StateDir::of(root).displaced();
        std::fs::create_dir_all(&dir).map_err(fail("create .git/learnsync/displaced"))?;
        let stamp = time::OffsetDateTime::now_utc().unix_timestamp_nanos();
        let mut name = seen.replace('/', "%2F");
        if name.len() > MAX_DISPLACED_NAME {
            let cut = name.floor_char_boundary(MAX_DISPLACED_NAME);
            use sha2::Digest;
            let whole = hex::encode(sha2::Sha256::digest(seen.as_bytes()));
            name = format!("{}-{}", &name[..cut], &whole[..16]);
        }
        let to = dir.join(format!("{name}.{stamp}"));
        std::fs::rename(&at, &to).map_err(fail(format!("move {seen} out of the way of {rel}")))?;
        tracing::warn!(
            "{seen} was a file where the folder of {rel} goes; moved to {}",
            to.display()
        );
        return Ok(true);
    }
    Ok(false)
}

/// [`write_one`] for a file a commit holds: in place, creating folders.
fn check_out(root: &Path, rel: &str, bytes: &[u8]) -> Result<Option<Stat>> {
    let full = root.join(rel);
    let written = match crate::store::overwrite_file(&full, bytes) {
        // Its folder is missing (or a file stands in its place): made, then
        // the file.
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            if let Some(parent) = full.parent() {
                make_folder(root, rel, parent)?;
            }
            crate::store::overwrite_file(&full, bytes)
        }
        other => other,
    };
    written.map_err(fail(format!("write {rel}")))?;
    Ok(stat_of(&full))
}

/// What one walker thread found: files, files skipped (with the reason),
/// and folders holding a repository of their own.
#[derive(Default)]
struct Walked {
    files: Vec<FileState>,
    skipped: Vec<(String, String)>,
    nested: Vec<String>,
}

impl Walked {
    fn extend(&mut self, other: Walked) {
        self.files.extend(other.files);
        self.skipped.extend(other.skipped);
        self.nested.extend(other.nested);
    }
}

/// Lists work-tree files (relative, `/`-separated) with their stats,
/// skipping `.git` and nested repositories; top-level folders are walked
/// on every core.
fn walk_all(root: &Path) -> Result<Walked> {
    let mut walked = Walked::default();
    let mut dirs = Vec::new();
    walk_dir(root, String::new(), false, &mut walked, &mut dirs)?;
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    let chunk = dirs.len().div_ceil(threads).max(1);
    let results: Vec<Result<Walked>> = std::thread::scope(|s| {
        let handles: Vec<_> = dirs
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    let mut mine = Walked::default();
                    for d in part {
                        walk_dir(root, d.clone(), true, &mut mine, &mut Vec::new())?;
                    }
                    Ok(mine)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                // A part of the tree not listed must not read as deleted.
                h.join()
                    .unwrap_or_else(|_| Err(fail("list the work tree")("a walker thread panicked")))
            })
            .collect()
    });
    for r in results {
        walked.extend(r?);
    }
    Ok(walked)
}

/// Lists one folder; with `recurse` descends, else hands sub-folders back.
/// A folder (other than the root) with a `.git` entry is a repository of
/// its own: noted, not entered.
fn walk_dir(
    root: &Path,
    prefix: String,
    recurse: bool,
    out: &mut Walked,
    dirs: &mut Vec<String>,
) -> Result<()> {
    let dir = if prefix.is_empty() {
        root.to_path_buf()
    } else {
        root.join(&prefix)
    };
    let entries = std::fs::read_dir(&dir)
        .and_then(|d| d.collect::<std::io::Result<Vec<_>>>())
        .map_err(fail(format!("list {}", dir.display())))?;
    if !prefix.is_empty() && entries.iter().any(|e| is_git_entry(&e.file_name())) {
        out.nested.push(prefix);
        return Ok(());
    }
    for entry in entries {
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            out.skipped.push((
                format!("{prefix}/{}", entry.file_name().to_string_lossy()),
                "file name is not UTF-8; not synced".into(),
            ));
            continue;
        };
        if prefix.is_empty() && name == ".git" {
            continue;
        }
        let rel = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        let kind = entry.file_type().map_err(fail(format!("stat {rel}")))?;
        if kind.is_dir() {
            if recurse {
                walk_dir(root, rel, true, out, dirs)?;
            } else {
                dirs.push(rel);
            }
        } else if kind.is_file() {
            let meta = entry.metadata().ok();
            out.files.push(FileState {
                path: rel,
                stat: meta.as_ref().map(stat_from),
                len: meta.map_or(0, |m| m.len()),
            });
        } else {
            out.skipped
                .push((rel, "not a regular file (symlinks are not synced)".into()));
        }
    }
    Ok(())
}

/// Whether the folders around a path a watcher reported hold a repository
/// of their own, each folder asked once.
#[derive(Default)]
struct NestedRepos {
    known: HashMap<String, bool>,
}

impl NestedRepos {
    /// The outermost folder around `rel` (not the root) that holds a `.git`
    /// entry, if any: `rel` is inside a nested repository.
    fn around(&mut self, root: &Path, rel: &str) -> Option<String> {
        rel.match_indices('/')
            .map(|(at, _)| &rel[..at])
            .find_map(|folder| {
                let is_repo = *self.known.entry(folder.to_string()).or_insert_with(|| {
                    std::fs::symlink_metadata(root.join(folder).join(".git")).is_ok()
                });
                is_repo.then(|| folder.to_string())
            })
    }
}

#[cfg(test)]
mod tests {
    //! The index is decoded again when, and only when, its file changed.
    use super::*;
    use crate::repo::Change;

    #[test]
    fn writer_threads_move_a_file_in_a_folders_way_once_and_lose_nothing() {
        for _round in 0..20 {
            let tmp = tempfile::tempdir().expect("tmp");
            let root = tmp.path();
            std::fs::write(root.join("newbie"), "planted\n").expect("plant");
            std::thread::scope(|s| {
                for t in 0..8 {
                    s.spawn(move || {
                        for n in 0..25 {
                            let rel = format!("newbie/{t}-{n}.md");
                            check_out(root, &rel, rel.as_bytes()).expect("write");
                        }
                    });
                }
            });
            for t in 0..8 {
                for n in 0..25 {
                    let rel = format!("newbie/{t}-{n}.md");
                    assert_eq!(std::fs::read_to_string(root.join(&rel)).expect(&rel), rel);
                }
            }
            let kept: Vec<String> = std::fs::read_dir(crate::store::StateDir::of(root).displaced())
                .expect("displaced")
                .map(|e| std::fs::read_to_string(e.expect("entry").path()).expect("read"))
                .collect();
            assert_eq!(kept, ["planted\n"]);
        }
    }
    use crate::repo::test_git as git;
    use std::process::Command;

    fn git_add(dir: &Path, file: &str) {
        std::fs::write(dir.join(file), file).expect("write");
        let ok = Command::new("git")
            .args(["add", file])
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .status()
            .expect("git add");
        assert!(ok.success());
    }

    fn paths(index: &gix::index::File) -> Vec<String> {
        index
            .entries()
            .iter()
            .map(|e| e.path(index).to_string())
            .collect()
    }

    fn entries(index: &gix::index::File) -> Vec<(String, ObjectId, u32)> {
        let of = |e: &gix::index::Entry| (e.path(index).to_string(), e.id, e.mode.bits());
        index.entries().iter().map(of).collect()
    }

    #[test]
    fn an_index_brought_along_in_place_is_the_one_built_from_the_new_tree() {
        let tmp = tempfile::tempdir().expect("tmp");
        let root = tmp.path();
        let repo = Repo::init(root, "agents/ann").expect("init");
        for f in ["a.md", "b/c.md", "b/d.md", "e.md", "y/z.md"] {
            std::fs::create_dir_all(root.join(f).parent().expect("parent")).expect("mkdir");
            git_add(root, f);
        }
        git(
            root,
            &[
                "-c",
                "user.name=a",
                "-c",
                "user.email=a@b",
                "commit",
                "-qm",
                "from",
            ],
        );
        let from = repo.head_tree().expect("tree");
        let record = crate::store::StateDir::of(root).index_record();
        std::fs::create_dir_all(record.parent().expect("state dir")).expect("mkdir");
        repo.write_index(from, &HashMap::new())
            .expect("index of from");
        let was = std::fs::read_to_string(&record).expect("record of `from`");
        assert!(was.starts_with(&from.to_string()));
        // Moves HEAD to a commit of `tree`, as a sync does before the index.
        let move_head = |tree: ObjectId| {
            repo.persist_objects().expect("persist");
            let args = ["-c", "user.name=a", "-c", "user.email=a@b", "commit-tree"];
            let commit = git(
                root,
                &[&args[..], &[&tree.to_string(), "-p", "HEAD", "-m", "m"]].concat(),
            );
            git(root, &["update-ref", "HEAD", commit.trim()]);
        };
        let upsert = |path: &str, bytes: &str| Change::Upsert {
            path: path.into(),
            bytes: bytes.as_bytes().to_vec(),
        };
        let to = repo
            .write_tree(
                from,
                &[
                    upsert("b/c.md", "changed"),
                    upsert("b/f.md", "added"),
                    upsert("0.md", "added first"),
                    upsert("x/new.md", "in a new folder"),
                    Change::Delete {
                        path: "e.md".into(),
                    },
                    Change::Delete {
                        path: "y/z.md".into(),
                    },
                ],
            )
            .expect("tree");
        for (f, bytes) in [
            ("b/c.md", "changed"),
            ("b/f.md", "added"),
            ("0.md", "added first"),
        ] {
            std::fs::write(root.join(f), bytes).expect("write");
        }
        std::fs::create_dir_all(root.join("x")).expect("mkdir");
        std::fs::write(root.join("x/new.md"), "in a new folder").expect("write");
        std::fs::remove_file(root.join("e.md")).expect("rm");
        std::fs::remove_dir_all(root.join("y")).expect("rm");
        move_head(to);
        let blob = |p: &str| repo.blob_id_at(to, p).expect("read");
        let edits: Vec<(&str, Option<ObjectId>)> =
            ["0.md", "b/c.md", "b/f.md", "e.md", "x/new.md", "y/z.md"]
                .into_iter()
                .map(|p| (p, blob(p)))
                .collect();
        repo.update_index(from, to, edits, &HashMap::new())
            .expect("update");
        let built = repo.git.index_from_tree(&to).expect("built");
        assert_eq!(entries(&repo.read_index().expect("read")), entries(&built));
        let to_hex = to.to_string();
        assert_eq!(
            git(root, &["diff-index", "--cached", &to_hex]),
            "",
            "index is `to`"
        );
        assert_eq!(git(root, &["diff-files"]), "", "stats match the work tree");
        // Recorded as `to`'s: the next update starts from it.
        let now = std::fs::read_to_string(&record).expect("record");
        assert!(now.starts_with(&to_hex));
        assert!(repo.staged(None).expect("staged").is_empty());

        // An index the user's git changed since is not trusted to be
        // `from`: the update builds it from the tree instead.
        let again = repo
            .write_tree(to, &[upsert("a.md", "edited")])
            .expect("tree");
        move_head(again);
        std::fs::write(root.join("a.md"), "edited").expect("write");
        git_add(root, "b/f.md");
        git(root, &["rm", "--cached", "-q", "b/d.md"]);
        repo.update_index(
            to,
            again,
            [("a.md", blob_in(&repo, again, "a.md"))],
            &HashMap::new(),
        )
        .expect("update");
        let built = repo.git.index_from_tree(&again).expect("built");
        assert_eq!(entries(&repo.read_index().expect("read")), entries(&built));
    }

    fn blob_in(repo: &Repo, tree: ObjectId, path: &str) -> Option<ObjectId> {
        repo.blob_id_at(tree, path).expect("read")
    }

    #[test]
    fn an_index_read_entry_by_entry_finds_what_its_whole_decode_does() {
        let tmp = tempfile::tempdir().expect("tmp");
        let root = tmp.path();
        let repo = Repo::init(root, "agents/ann").expect("init");
        let missing = HashSet::from(["a.md"]);
        assert_eq!(
            scan_index(&repo.git.index_path(), &missing),
            Some(HashMap::new())
        );
        // Every padding length (a path of n bytes pads 8 - (62 + n) % 8),
        // in folders, and one name no one asks about.
        let names: Vec<String> = (1..=17)
            .map(|n| format!("{}.md", "x".repeat(n)))
            .chain([
                "agents/ann/one.md".into(),
                "kg/é-accent.md".into(),
                "skip.md".into(),
            ])
            .collect();
        for name in &names {
            std::fs::create_dir_all(root.join(name).parent().expect("parent")).expect("mkdir");
            git_add(root, name);
        }
        let check = |wanted: &HashSet<&str>| {
            let scanned = scan_index(&repo.git.index_path(), wanted).expect("version 2 or 3");
            let whole = repo.git.open_index().expect("decode");
            let mut expected = HashMap::new();
            for e in whole.entries() {
                let rel = e.path(&whole).to_string();
                if wanted.contains(rel.as_str()) {
                    expected.insert(rel, (e.id, e.stat));
                }
            }
            assert_eq!(scanned, expected);
            scanned.len()
        };
        let wanted: HashSet<&str> = names
            .iter()
            .map(String::as_str)
            .filter(|n| *n != "skip.md")
            .collect();
        assert_eq!(check(&wanted), names.len() - 1);
        // An intent-to-add entry carries extended flags: version 3.
        std::fs::write(root.join("later.md"), "later").expect("write");
        git(root, &["add", "-N", "later.md"]);
        let header = std::fs::read(repo.git.index_path()).expect("index");
        assert_eq!(header[4..8], [0, 0, 0, 3], "extended flags need version 3");
        let mut with_later = wanted.clone();
        with_later.insert("later.md");
        assert_eq!(check(&with_later), names.len());
        // Version 4 compresses its paths: decoded whole instead.
        git(root, &["update-index", "--index-version", "4"]);
        assert_eq!(scan_index(&repo.git.index_path(), &wanted), None);
        assert_eq!(
            repo.indexed(wanted.iter().copied())
                .expect("indexed")
                .0
                .len(),
            names.len() - 1
        );
        // A split index's main file holds nameless entries and a `link` to
        // the rest: decoded whole (gix joins the two), never scanned.
        git(root, &["update-index", "--index-version", "2"]);
        git(root, &["update-index", "--split-index"]);
        std::fs::write(root.join("x.md"), "changed").expect("write");
        git(root, &["add", "x.md"]);
        assert_eq!(scan_index(&repo.git.index_path(), &wanted), None);
        let indexed = repo.indexed(wanted.iter().copied()).expect("indexed");
        assert_eq!(indexed.0.len(), names.len() - 1);
        let blob = git(root, &["rev-parse", ":x.md"]);
        assert_eq!(indexed.0["x.md"].0.to_string(), blob.trim());
    }

    #[test]
    fn the_index_is_read_again_when_its_file_changes_and_dropped_with_the_trees() {
        let tmp = tempfile::tempdir().expect("tmp");
        let repo = Repo::init(tmp.path(), "agents/ann").expect("init");
        assert!(
            repo.read_index()
                .expect("no index yet")
                .entries()
                .is_empty()
        );
        git_add(tmp.path(), "a.md");
        let first = repo.read_index().expect("read");
        assert_eq!(paths(&first), ["a.md"]);
        let again = repo.read_index().expect("read");
        assert!(Rc::ptr_eq(&first, &again), "unchanged: not decoded again");
        git_add(tmp.path(), "b.md");
        assert_eq!(paths(&repo.read_index().expect("read")), ["a.md", "b.md"]);
        repo.release_trees();
        assert!(repo.index.borrow().is_none());
    }
}
