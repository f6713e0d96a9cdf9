//! The work tree and index: what changed since the last commit (a stat-first
//! status like git's), and bringing index and files in line with a tree.

use super::{GitError, Repo, Result, fail};
use gix::ObjectId;
use gix::bstr::ByteSlice;
use gix::index::entry::Stat;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;

/// A work-tree file as seen by a status: its stat before its bytes were read.
#[derive(Debug, Clone)]
pub struct FileState {
    pub path: String,
    pub stat: Option<Stat>,
}

/// Differences between the work tree and the index.
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
}

/// True when an untracked work-tree file is a killed write's temp file.
fn is_leftover(rel: &str) -> bool {
    crate::store::is_temp_name(rel.rsplit('/').next().unwrap_or(rel))
}

fn stat_of(path: &Path) -> Option<Stat> {
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

impl Repo {
    /// Compares the work tree with the index. Files whose stat matches the
    /// index are not read; others are hashed and compared by content.
    pub fn status(&self) -> Result<WorktreeStatus> {
        let index = self.git.index_or_empty().map_err(fail("read the index"))?;
        let mut tracked: HashMap<&[u8], (usize, &Stat, ObjectId)> = HashMap::new();
        for (i, entry) in index.entries().iter().enumerate() {
            tracked.insert(entry.path(&index).as_bytes(), (i, &entry.stat, entry.id));
        }
        let mut seen: HashSet<usize> = HashSet::new();
        let mut status = WorktreeStatus::default();
        let files = walk_all(&self.root, &mut status.skipped)?;
        status.scanned = files.len();
        for (rel, stat) in files {
            match tracked.get(rel.as_bytes()) {
                Some(&(i, indexed, id)) => {
                    seen.insert(i);
                    if self.differs(&rel, stat.as_ref(), indexed, id)? {
                        status.changed.push(FileState { path: rel, stat });
                    }
                }
                None if is_leftover(&rel) => status.leftovers.push(rel),
                None => status.changed.push(FileState { path: rel, stat }),
            }
        }
        for (i, entry) in index.entries().iter().enumerate() {
            if !seen.contains(&i) {
                status
                    .deleted
                    .push(entry.path(&index).to_str_lossy().into_owned());
            }
        }
        status.changed.sort_by(|a, b| a.path.cmp(&b.path));
        status.deleted.sort();
        Ok(status)
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
    /// or gone; what a watcher reported): nothing is read when there are
    /// none, so a sync with nothing new does not touch the rest of the tree.
    pub fn status_of(&self, paths: &[String]) -> Result<WorktreeStatus> {
        let mut status = WorktreeStatus::default();
        if paths.is_empty() {
            return Ok(status);
        }
        let index = self.git.index_or_empty().map_err(fail("read the index"))?;
        let mut on_disk: Vec<Found> = Vec::new();
        let mut candidates: BTreeSet<String> = BTreeSet::new();
        for p in paths {
            if p.is_empty() || p == ".git" || p.starts_with(".git/") {
                // The root itself (moved or deleted) or git's own files: the
                // root's entries were reported one by one.
                continue;
            }
            let full = self.root.join(p);
            match std::fs::symlink_metadata(&full) {
                Ok(m) if m.is_dir() => {
                    walk_dir(
                        &self.root,
                        p.clone(),
                        true,
                        &mut on_disk,
                        &mut Vec::new(),
                        &mut status.skipped,
                    )?;
                }
                Ok(m) if m.is_file() => on_disk.push((p.clone(), Some(stat_from(&m)))),
                Ok(_) => status.skipped.push((
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
        status.scanned = on_disk.len();
        let mut present: BTreeSet<String> = BTreeSet::new();
        for (rel, stat) in on_disk {
            if !present.insert(rel.clone()) {
                continue;
            }
            match index.entry_by_path(rel.as_bytes().as_bstr()) {
                Some(entry) => {
                    if self.differs(&rel, stat.as_ref(), &entry.stat, entry.id)? {
                        status.changed.push(FileState { path: rel, stat });
                    }
                }
                None if is_leftover(&rel) => status.leftovers.push(rel),
                None => status.changed.push(FileState { path: rel, stat }),
            }
        }
        status.deleted = candidates.difference(&present).cloned().collect();
        status.changed.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(status)
    }

    /// Rewrites the index to match `tree`. Stats come from `fresh` (taken
    /// before the committed bytes were read, so a later edit still shows),
    /// else from the old index when the blob is unchanged, else from disk.
    pub fn write_index(&self, tree: ObjectId, fresh: &HashMap<String, Stat>) -> Result<()> {
        self.persist_objects()?;
        let old = self.git.index_or_empty().map_err(fail("read the index"))?;
        let mut old_stats: HashMap<&[u8], (ObjectId, Stat)> = HashMap::new();
        for e in old.entries() {
            old_stats.insert(e.path(&old).as_bytes(), (e.id, e.stat));
        }
        let mut index = self
            .git
            .index_from_tree(&tree)
            .map_err(fail("build the index"))?;
        let paths: Vec<(usize, String)> = index
            .entries()
            .iter()
            .enumerate()
            .map(|(i, e)| (i, e.path(&index).to_str_lossy().into_owned()))
            .collect();
        for (i, path) in paths {
            let stat = if let Some(s) = fresh.get(&path) {
                Some(*s)
            } else {
                let id = index.entries()[i].id;
                match old_stats.get(path.as_bytes()) {
                    Some((old_id, s)) if *old_id == id => Some(*s),
                    _ => stat_of(&self.root.join(&path)),
                }
            };
            if let Some(stat) = stat {
                index.entries_mut()[i].stat = stat;
            }
        }
        // The index lock is taken here, not by `File::write` (which fails at
        // once): a user's git may hold it for a moment.
        let lock = gix::lock::File::acquire_to_update_resource(
            index.path(),
            gix::lock::acquire::Fail::AfterDurationWithBackoff(super::locks::IN_CYCLE_WAIT),
            None,
        )
        .map_err(|e| {
            let lock = index.path().with_extension("lock");
            GitError {
                action: "write the index".into(),
                message: format!(
                    "{e}: {}",
                    super::locks::held_now(self.git_dir(), &lock, super::locks::IN_CYCLE_WAIT)
                ),
            }
        })?;
        let mut out = std::io::BufWriter::with_capacity(64 * 1024, lock);
        index
            .write_to(&mut out, Default::default())
            .map_err(fail("write the index"))?;
        out.into_inner()
            .map_err(|e| fail("write the index")(e.into_error()))?
            .commit()
            .map_err(fail("write the index"))?;
        Ok(())
    }

    /// Writes `bytes` to a work-tree path, atomically, creating folders.
    pub fn write_file(&self, rel: &str, bytes: &[u8]) -> Result<Option<Stat>> {
        write_one(&self.root, rel, bytes)
    }

    /// Writes many work-tree files, on every core (creating a file is
    /// mostly the filesystem's inode work, which runs in parallel across
    /// folders), returning each path's new stat.
    pub fn write_files(&self, files: &[(String, Vec<u8>)]) -> Result<Vec<Written>> {
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(8);
        if threads == 1 || files.len() < 64 {
            return files
                .iter()
                .map(|(rel, bytes)| Ok((rel.clone(), write_one(&self.root, rel, bytes)?)))
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
                            .map(|(rel, bytes)| Ok((rel.clone(), write_one(root, rel, bytes)?)))
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
        std::fs::create_dir_all(parent).map_err(fail(format!("create folder for {rel}")))?;
    }
    crate::store::replace_file(&full, bytes).map_err(fail(format!("write {rel}")))?;
    Ok(stat_of(&full))
}

/// A work-tree file and its metadata, read relative to its folder.
type Found = (String, Option<Stat>);

/// Files found and files skipped (with the reason) by one walker thread.
type Walked = (Vec<Found>, Vec<(String, String)>);

/// Lists work-tree files (relative, `/`-separated) with their stats,
/// skipping `.git`; top-level folders are walked on every core.
fn walk_all(root: &Path, skipped: &mut Vec<(String, String)>) -> Result<Vec<Found>> {
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    walk_dir(root, String::new(), false, &mut files, &mut dirs, skipped)?;
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    let chunk = dirs.len().div_ceil(threads).max(1);
    let results: Vec<Result<Walked>> = std::thread::scope(|s| {
        let handles: Vec<_> = dirs
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    let (mut f, mut sk) = (Vec::new(), Vec::new());
                    for d in part {
                        walk_dir(root, d.clone(), true, &mut f, &mut Vec::new(), &mut sk)?;
                    }
                    Ok((f, sk))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Ok((Vec::new(), Vec::new()))))
            .collect()
    });
    for r in results {
        let (f, sk) = r?;
        files.extend(f);
        skipped.extend(sk);
    }
    Ok(files)
}

/// Lists one folder; with `recurse` descends, else hands sub-folders back.
fn walk_dir(
    root: &Path,
    prefix: String,
    recurse: bool,
    out: &mut Vec<Found>,
    dirs: &mut Vec<String>,
    skipped: &mut Vec<(String, String)>,
) -> Result<()> {
    let dir = if prefix.is_empty() {
        root.to_path_buf()
    } else {
        root.join(&prefix)
    };
    let entries = std::fs::read_dir(&dir).map_err(fail(format!("list {}", dir.display())))?;
    for entry in entries {
        let entry = entry.map_err(fail(format!("list {}", dir.display())))?;
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            skipped.push((
                format!("{prefix}/{}", entry.file_name().to_string_lossy()),
                "file name is not UTF-8".into(),
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
                walk_dir(root, rel, true, out, dirs, skipped)?;
            } else {
                dirs.push(rel);
            }
        } else if kind.is_file() {
            let stat = entry.metadata().ok().map(|m| stat_from(&m));
            out.push((rel, stat));
        } else {
            skipped.push((rel, "not a regular file (symlinks are not synced)".into()));
        }
    }
    Ok(())
}
