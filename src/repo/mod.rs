//! The git edge: the learnings dir as a repository, through gix. Reading
//! trees and blobs, writing commits, moving refs; no domain rules here.

mod batch;
mod index_file;
#[cfg(test)]
pub(crate) use batch::tests::git as test_git;
pub mod locks;
mod remote;
pub mod sshsig;
mod tree_write;
mod worktree;

pub use remote::{HttpAuth, PendingPush, PushOutcome, check_git_binary, fetch_refspecs};

pub use worktree::{FileState, WorktreeStatus};

use gix::ObjectId;
use gix::bstr::ByteSlice;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// A git failure, with what we were doing when it happened.
#[derive(Debug, thiserror::Error)]
#[error("{action}: {message}")]
pub struct GitError {
    pub action: String,
    pub message: String,
}

pub type Result<T> = std::result::Result<T, GitError>;

pub(crate) fn fail<E: std::fmt::Display>(action: impl Into<String>) -> impl FnOnce(E) -> GitError {
    let action = action.into();
    move |e| GitError {
        action,
        message: e.to_string(),
    }
}

/// Like [`fail`], for an error whose cause is in its source chain (gix's
/// fetch says only "Failed to update references" at the top): the message
/// carries every cause not already in it.
pub(crate) fn fail_chain<E: std::error::Error>(
    action: impl Into<String>,
) -> impl FnOnce(E) -> GitError {
    let action = action.into();
    move |e| {
        let mut message = e.to_string();
        let mut source = e.source();
        while let Some(cause) = source {
            let text = cause.to_string();
            if !message.contains(&text) {
                message = format!("{message}: {text}");
            }
            source = cause.source();
        }
        GitError { action, message }
    }
}

/// Whether `name` may be a tree entry that becomes a file or folder in a
/// work tree: git's own rule for checkouts (not empty, no `/`, not `.` or
/// `..`, no `.git` in any spelling NTFS or HFS+ would treat as `.git`). A
/// peer's tree can hold any name; one that fails this never reaches our
/// trees or our disk.
pub fn safe_name(name: &str) -> bool {
    let options = gix::validate::path::component::Options {
        // Windows device names (`aux`, `con`) are valid agent names here.
        protect_windows: false,
        protect_hfs: true,
        protect_ntfs: true,
    };
    gix::validate::path::component(name.into(), None, options).is_ok()
}

/// One change to a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Upsert {
        path: String,
        bytes: Vec<u8>,
    },
    /// A blob already in the object store (theirs, taken as it is).
    Existing {
        path: String,
        id: ObjectId,
    },
    Delete {
        path: String,
    },
}

impl Change {
    pub fn path(&self) -> &str {
        match self {
            Change::Upsert { path, .. }
            | Change::Existing { path, .. }
            | Change::Delete { path } => path,
        }
    }

    /// The same change with its bytes written to `repo`'s object store:
    /// for a caller that gathers many before writing their tree, so each
    /// is held once.
    pub fn stored(self, repo: &Repo) -> Result<Change> {
        Ok(match self {
            Change::Upsert { path, bytes } => Change::Existing {
                id: repo.write_blob(&bytes)?,
                path,
            },
            other => other,
        })
    }
}

/// Who a commit is by.
#[derive(Debug, Clone)]
pub struct Identity {
    pub name: String,
    pub email: String,
    /// Signs the commits written as this identity (§5.2), when set.
    pub signing_key: Option<PathBuf>,
}

impl Identity {
    /// The same identity, signing nothing: for the commits a cycle writes
    /// on its way and replaces before its ref moves.
    pub fn unsigned(&self) -> Identity {
        Identity {
            signing_key: None,
            ..self.clone()
        }
    }
}

/// A [`Repo`] on its way to another thread ([`Repo::share`]).
pub struct SharedRepo {
    git: gix::ThreadSafeRepository,
    root: PathBuf,
}

impl SharedRepo {
    /// The handle, on the thread that uses it.
    pub fn open(self) -> Repo {
        Repo {
            git: self.git.to_thread_local(),
            root: self.root,
            trees: RefCell::default(),
            blobs: RefCell::default(),
            index: RefCell::default(),
            written: std::cell::Cell::default(),
            blobs_once: std::cell::Cell::default(),
        }
    }
}

/// The learnings dir's repository.
pub struct Repo {
    git: gix::Repository,
    root: PathBuf,
    /// Decoded trees by id. Trees never change, and a cycle looks up the
    /// same folders over and over: decoding each once keeps lookups cheap.
    trees: RefCell<TreeCache>,
    /// Blobs this process wrote or read, up to [`BLOB_CACHE_BYTES`]: a merge
    /// reads back what it just wrote (to compare, to check out), and
    /// inflating a loose object costs more than copying it.
    blobs: RefCell<BlobCache>,
    /// The index file as last decoded, with its stat then: reused while
    /// the file is unchanged, dropped with the trees (`Repo::read_index`).
    index: RefCell<Option<(gix::index::entry::Stat, Rc<gix::index::File>)>>,
    /// Objects this handle wrote to the object store, for the push to
    /// choose how it packs them ([`Repo::start_push_as`]).
    written: std::cell::Cell<usize>,
    /// Inside [`Repo::reading_blobs_once`]: a cached blob leaves the cache
    /// when it is read, and a blob read from the store is not kept.
    blobs_once: std::cell::Cell<bool>,
}

/// Decoded trees by id, and how many entries they hold together.
#[derive(Default)]
struct TreeCache {
    by_id: HashMap<ObjectId, Rc<Tree>>,
    entries: usize,
}

/// Decoded tree entries a [`Repo`] keeps at most (~50 bytes each: a slot,
/// its place in the name index, its name).
const TREE_CACHE_ENTRIES: usize = 1_000_000;

/// Bytes of blob content a [`Repo`] keeps in memory at most.
const BLOB_CACHE_BYTES: usize = 64 << 20;

#[derive(Default)]
struct BlobCache {
    by_id: HashMap<ObjectId, Rc<[u8]>>,
    bytes: usize,
    /// Blobs written while objects are held in memory
    /// ([`Repo::hold_objects`]): gix's object memory has them already, and
    /// a read of one there is a copy too, so they are not kept twice until
    /// [`Repo::persist_objects`] hands them over.
    held: HashSet<ObjectId>,
}

impl BlobCache {
    fn get(&self, id: &ObjectId) -> Option<Vec<u8>> {
        self.by_id.get(id).map(|b| b.to_vec())
    }

    /// Hands a cached blob out and forgets it.
    fn take(&mut self, id: &ObjectId) -> Option<Vec<u8>> {
        let bytes = self.by_id.remove(id)?;
        self.bytes -= bytes.len();
        Some(bytes.to_vec())
    }

    fn keep(&mut self, id: ObjectId, bytes: &[u8]) {
        if self.bytes + bytes.len() <= BLOB_CACHE_BYTES
            && !self.by_id.contains_key(&id)
            && !self.held.contains(&id)
        {
            self.bytes += bytes.len();
            self.by_id.insert(id, Rc::from(bytes));
        }
    }

    /// A blob that left the object memory for the object store: kept from
    /// now on like any other.
    fn unhold(&mut self, id: ObjectId, bytes: &[u8]) {
        if self.held.remove(&id) {
            self.keep(id, bytes);
        }
    }
}

/// A decoded tree: entries in git order, and an index by name. The names
/// sit in one buffer and each entry is a fixed-size slot, so a folder of
/// 5,000 learnings is three allocations, not 5,000 (at 100,000 learnings a
/// sync's cached trees were a quarter of its peak heap, in small pieces a
/// later large buffer could not reuse).
pub struct Tree {
    /// Every entry's name, one after another.
    names: String,
    slots: Vec<Slot>,
    /// Entry indices sorted by name, for binary search (git's own order
    /// sorts a folder as if its name ended in `/`).
    by_name: Vec<u32>,
    /// Every name is UTF-8, so the entries can be written back as they are.
    lossless: bool,
}

/// One entry of a [`Tree`]: where its name ends in `names`, and the rest.
struct Slot {
    name_end: u32,
    mode: gix::objs::tree::EntryMode,
    id: ObjectId,
}

/// An entry of a [`Tree`], borrowed from it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EntryRef<'a> {
    pub name: &'a str,
    pub is_tree: bool,
    pub is_blob: bool,
    pub mode: gix::objs::tree::EntryMode,
    pub id: ObjectId,
}

/// An entry of a tree, owned.
#[derive(Debug, Clone)]
pub struct TreeEntry {
    pub name: String,
    pub is_tree: bool,
    pub is_blob: bool,
    pub mode: gix::objs::tree::EntryMode,
    pub id: ObjectId,
}

impl EntryRef<'_> {
    pub fn to_owned(self) -> TreeEntry {
        TreeEntry {
            name: self.name.to_string(),
            is_tree: self.is_tree,
            is_blob: self.is_blob,
            mode: self.mode,
            id: self.id,
        }
    }
}

impl Tree {
    /// Decodes git's entries (name, mode, id), in git's order.
    fn new<'a>(
        git_entries: impl ExactSizeIterator<
            Item = (&'a gix::bstr::BStr, gix::objs::tree::EntryMode, ObjectId),
        >,
    ) -> Tree {
        let mut lossless = true;
        let mut names = String::new();
        let mut slots = Vec::with_capacity(git_entries.len());
        for (name, mode, id) in git_entries {
            lossless &= name.to_str().is_ok();
            names.push_str(&name.to_str_lossy());
            slots.push(Slot {
                name_end: u32::try_from(names.len()).unwrap_or(u32::MAX),
                mode,
                id,
            });
        }
        names.shrink_to_fit();
        let mut tree = Tree {
            names,
            slots,
            by_name: Vec::new(),
            lossless,
        };
        let mut by_name: Vec<u32> = (0..tree.slots.len() as u32).collect();
        by_name.sort_by(|&a, &b| tree.name(a as usize).cmp(tree.name(b as usize)));
        tree.by_name = by_name;
        tree
    }

    fn name(&self, i: usize) -> &str {
        let start = i
            .checked_sub(1)
            .map_or(0, |p| self.slots[p].name_end as usize);
        self.names
            .get(start..self.slots[i].name_end as usize)
            .unwrap_or("")
    }

    /// How many entries it holds.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Entry `i`, in git's order.
    pub fn at(&self, i: usize) -> Option<EntryRef<'_>> {
        (i < self.slots.len()).then(|| self.entry(i))
    }

    /// Entry `i` (`i` < `len()`).
    fn entry(&self, i: usize) -> EntryRef<'_> {
        let slot = &self.slots[i];
        EntryRef {
            name: self.name(i),
            is_tree: slot.mode.is_tree(),
            is_blob: slot.mode.is_blob(),
            mode: slot.mode,
            id: slot.id,
        }
    }

    /// Every entry, in git's order.
    pub fn entries(&self) -> impl ExactSizeIterator<Item = EntryRef<'_>> + '_ {
        (0..self.slots.len()).map(move |i| self.entry(i))
    }

    pub fn get(&self, name: &str) -> Option<EntryRef<'_>> {
        let at = self
            .by_name
            .binary_search_by(|&i| self.name(i as usize).cmp(name))
            .ok()?;
        Some(self.entry(self.by_name[at] as usize))
    }
}

impl Repo {
    /// Opens the repository whose work tree is `root`.
    pub fn open(root: &Path) -> Result<Repo> {
        let git =
            gix::open(root).map_err(fail(format!("open git repository {}", root.display())))?;
        Repo::wrap(git, root)
    }

    /// Ref writes wait (a bounded time) for a ref lock a live git holds
    /// instead of failing at once, as git's own `core.filesRefLockTimeout`
    /// does; set in memory only.
    fn wrap(mut git: gix::Repository, root: &Path) -> Result<Repo> {
        use gix::config::tree::{Core, Key};
        let millis = locks::IN_CYCLE_WAIT.as_millis().to_string();
        let mut config = git.config_snapshot_mut();
        for key in [
            &Core::FILES_REF_LOCK_TIMEOUT as &dyn Key,
            &Core::PACKED_REFS_TIMEOUT,
        ] {
            config
                .set_value(key, millis.as_str())
                .map_err(fail(format!("set {}", key.name())))?;
        }
        config.commit().map_err(fail("apply the lock timeouts"))?;
        Ok(Repo {
            git,
            root: root.to_path_buf(),
            trees: RefCell::default(),
            blobs: RefCell::default(),
            index: RefCell::default(),
            written: std::cell::Cell::default(),
            blobs_once: std::cell::Cell::default(),
        })
    }

    /// A ref write that failed: when a lock is what stopped it, the error
    /// says whose it is and what to do, as for the index.
    fn ref_failure<E: std::fmt::Display>(
        &self,
        action: &'static str,
    ) -> impl FnOnce(E) -> GitError + '_ {
        move |e| {
            let held = locks::scan(self.git_dir())
                .into_iter()
                .find(|l| l.path.file_name().is_some_and(|n| n != "index.lock"));
            match held {
                Some(lock) => GitError {
                    action: action.into(),
                    message: format!(
                        "{e}: {}",
                        locks::held_now(self.git_dir(), &lock.path, locks::IN_CYCLE_WAIT)
                    ),
                },
                None => fail(action)(e),
            }
        }
    }

    /// Creates a repository at `root` (or opens the one there) and points an
    /// unborn HEAD at `refs/heads/<branch>`.
    pub fn init(root: &Path, branch: &str) -> Result<Repo> {
        let git = if root.join(".git").exists() {
            gix::open(root).map_err(fail(format!("open {}", root.display())))?
        } else {
            gix::init(root).map_err(fail(format!("create git repository {}", root.display())))?
        };
        let repo = Repo::wrap(git, root)?;
        if repo.head_commit()?.is_none() {
            repo.set_head_symbolic(branch)?;
        }
        Ok(repo)
    }

    /// Sets the identity gix uses for reflogs (fetch, ref updates), in memory
    /// only: a machine with no global git identity must still work.
    pub fn with_identity(mut self, who: &Identity) -> Result<Repo> {
        use gix::config::tree::{Committer, Key, User};
        let mut config = self.git.config_snapshot_mut();
        for (key, value) in [
            (&User::NAME as &'static dyn Key, who.name.as_str()),
            (&User::EMAIL, who.email.as_str()),
            (&Committer::NAME, who.name.as_str()),
            (&Committer::EMAIL, who.email.as_str()),
        ] {
            config
                .set_value(key, value)
                .map_err(fail(format!("set {}", key.name())))?;
        }
        config.commit().map_err(fail("apply the identity"))?;
        Ok(self)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn git_dir(&self) -> &Path {
        self.git.git_dir()
    }

    pub fn gix(&self) -> &gix::Repository {
        &self.git
    }

    fn set_head_symbolic(&self, branch: &str) -> Result<()> {
        use gix::refs::transaction::{Change as RefChange, LogChange, PreviousValue, RefEdit};
        let target: gix::refs::FullName = format!("refs/heads/{branch}")
            .try_into()
            .map_err(fail(format!("branch name refs/heads/{branch}")))?;
        let head: gix::refs::FullName = "HEAD".try_into().map_err(fail("HEAD"))?;
        self.git
            .edit_reference(RefEdit {
                change: RefChange::Update {
                    log: LogChange::default(),
                    expected: PreviousValue::Any,
                    new: gix::refs::Target::Symbolic(target),
                },
                name: head,
                deref: false,
            })
            .map_err(fail("point HEAD at the agent branch"))?;
        Ok(())
    }

    /// The branch HEAD points at (`agents/claude`), if it is symbolic.
    pub fn head_branch(&self) -> Result<Option<String>> {
        let head = self.git.head_name().map_err(fail("read HEAD"))?;
        Ok(head.and_then(|name| {
            name.as_bstr()
                .to_str()
                .ok()
                .and_then(|s| s.strip_prefix("refs/heads/"))
                .map(str::to_string)
        }))
    }

    /// The commit HEAD points at; `None` on an unborn branch.
    pub fn head_commit(&self) -> Result<Option<ObjectId>> {
        let mut head = self.git.head().map_err(fail("read HEAD"))?;
        Ok(head
            .try_peel_to_id()
            .map_err(fail("resolve HEAD"))?
            .map(|id| id.detach()))
    }

    /// The commit a full ref name points at, if the ref exists.
    pub fn ref_commit(&self, name: &str) -> Result<Option<ObjectId>> {
        match self
            .git
            .try_find_reference(name)
            .map_err(fail(format!("read {name}")))?
        {
            None => Ok(None),
            Some(mut r) => Ok(Some(
                r.peel_to_id()
                    .map_err(fail(format!("resolve {name}")))?
                    .detach(),
            )),
        }
    }

    pub fn empty_tree(&self) -> ObjectId {
        ObjectId::empty_tree(self.git.object_hash())
    }

    /// A commit's parents and message.
    pub fn commit_parents(&self, commit: ObjectId) -> Result<(Vec<ObjectId>, String)> {
        let c = self
            .git
            .find_commit(commit)
            .map_err(fail(format!("read commit {commit}")))?;
        let parents = c.parent_ids().map(|id| id.detach()).collect();
        let message = c
            .message_raw()
            .map(|m| String::from_utf8_lossy(m).into_owned())
            .map_err(fail(format!("read the message of {commit}")))?;
        Ok((parents, message))
    }

    /// The tree of a commit.
    pub fn commit_tree(&self, commit: ObjectId) -> Result<ObjectId> {
        let c = self
            .git
            .find_commit(commit)
            .map_err(fail(format!("read commit {commit}")))?;
        c.tree_id()
            .map(|id| id.detach())
            .map_err(fail(format!("read tree of {commit}")))
    }

    /// The tree of HEAD, or the empty tree on an unborn branch.
    pub fn head_tree(&self) -> Result<ObjectId> {
        match self.head_commit()? {
            Some(c) => self.commit_tree(c),
            None => Ok(self.empty_tree()),
        }
    }

    pub fn read_blob(&self, id: ObjectId) -> Result<Vec<u8>> {
        if self.blobs_once.get() {
            let taken = self.blobs.borrow_mut().take(&id);
            return taken.map_or_else(|| self.read_blob_once(id), Ok);
        }
        self.cache_blob(id)
    }

    /// Reads a blob and keeps it in the cache (room permitting).
    fn cache_blob(&self, id: ObjectId) -> Result<Vec<u8>> {
        let bytes = self.read_blob_once(id)?;
        self.blobs.borrow_mut().keep(id, &bytes);
        Ok(bytes)
    }

    /// Runs `f`, a reader that reads each blob once (the lookup indexes
    /// following a sync's tree), with the blob cache handing each blob out
    /// once: what [`Repo::prefetch_blobs`] read ahead leaves the cache as
    /// `f` reads it, instead of staying to the end with the rest (3 MiB of
    /// events files at 10,000 learnings, beside the search index's fold).
    /// A blob read twice is read from the store again. The cached blobs
    /// are dropped after (the record of those held in the object memory
    /// stays, for [`Repo::persist_objects`]).
    pub fn reading_blobs_once<T>(&self, f: impl FnOnce() -> T) -> T {
        let was = self.blobs_once.replace(true);
        let out = f();
        self.blobs_once.set(was);
        // The blobs read; not the record of those held in the object
        // memory, which `persist_objects` hands to the cache for the work
        // tree.
        let mut cache = self.blobs.borrow_mut();
        let held = std::mem::take(&mut cache.held);
        *cache = BlobCache {
            held,
            ..BlobCache::default()
        };
        drop(cache);
        out
    }

    /// Another handle on this repository, to open on another thread: the
    /// object store is shared (a pack either reads is mapped once, and
    /// counts once in the process's memory); the caches are its own.
    pub fn share(&self) -> SharedRepo {
        SharedRepo {
            git: self.git.clone().into_sync(),
            root: self.root.clone(),
        }
    }

    /// Drops the decoded trees and blobs kept so far: for a caller done
    /// with this tree's objects, before work that does not need them (the
    /// caches are most of a sync's memory).
    pub fn release_caches(&self) {
        self.release_trees();
        self.release_blobs();
    }

    /// Drops the decoded trees and index kept so far (the blobs stay): for
    /// a caller done walking trees, before work that reads only blobs.
    pub fn release_trees(&self) {
        *self.trees.borrow_mut() = TreeCache::default();
        self.release_index();
    }

    /// Drops the decoded index: for a caller that will not read it for a
    /// while.
    pub fn release_index(&self) {
        *self.index.borrow_mut() = None;
    }

    /// Drops the blobs kept so far: for a caller done reading them.
    pub fn release_blobs(&self) {
        *self.blobs.borrow_mut() = BlobCache::default();
    }

    /// Reads `ids` into the blob cache, in the order they lie in their
    /// packs, so that a later [`Repo::read_blob`] of each is a copy.
    ///
    /// A packed blob is mostly a delta on an earlier object of its pack, up
    /// to 50 deep; read in any order, each blob inflates its whole chain
    /// (most of a sync's reading time, measured). In pack order the object
    /// a blob is a delta on was usually decoded just before it and is still
    /// in gix's delta-base cache, so each costs about one inflate. Best
    /// effort: what cannot be placed or read is left for `read_blob` to
    /// read (and report) itself.
    pub fn prefetch_blobs(&self, ids: impl IntoIterator<Item = ObjectId>) {
        let mut wanted: Vec<ObjectId> = {
            let cache = self.blobs.borrow();
            if cache.bytes >= BLOB_CACHE_BYTES {
                return;
            }
            ids.into_iter()
                .filter(|id| !cache.by_id.contains_key(id))
                .collect()
        };
        wanted.sort_unstable();
        wanted.dedup();
        if wanted.len() < 2 {
            return;
        }
        for id in self.in_pack_order(wanted) {
            if self.cache_blob(id).is_err() || self.blobs.borrow().bytes >= BLOB_CACHE_BYTES {
                return;
            }
        }
    }

    /// `ids` sorted by where they lie in the packs (loose objects last, by
    /// id), the order in which reading them costs about one inflate each
    /// (see [`Repo::prefetch_blobs`]).
    pub fn in_pack_order(&self, wanted: Vec<ObjectId>) -> Vec<ObjectId> {
        let packs = self.pack_indexes();
        let mut placed: Vec<(usize, u64, ObjectId)> = wanted
            .into_iter()
            .map(|id| {
                packs
                    .iter()
                    .enumerate()
                    .find_map(|(p, index)| {
                        index
                            .lookup(id)
                            .map(|i| (p, index.pack_offset_at_index(i), id))
                    })
                    .unwrap_or((usize::MAX, 0, id))
            })
            .collect();
        placed.sort_unstable();
        placed.into_iter().map(|(_, _, id)| id).collect()
    }

    /// A blob's bytes, read past the blob cache and not kept in it: for a
    /// caller that reads each blob of a large tree once.
    pub fn read_blob_once(&self, id: ObjectId) -> Result<Vec<u8>> {
        if let Some(bytes) = self.blobs.borrow().get(&id) {
            return Ok(bytes);
        }
        let blob = self
            .git
            .find_blob(id)
            .map_err(fail(format!("read blob {id}")))?;
        Ok(blob.detach().data)
    }

    /// The pack indexes of the object store, as they are now (a fetch
    /// adds packs, so they are not kept).
    fn pack_indexes(&self) -> Vec<gix::odb::pack::index::File> {
        let dir = self.git.common_dir().join("objects").join("pack");
        let Ok(read) = std::fs::read_dir(&dir) else {
            return Vec::new();
        };
        let mut paths: Vec<PathBuf> = read
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "idx"))
            .collect();
        paths.sort();
        paths
            .into_iter()
            .filter_map(|p| gix::odb::pack::index::File::at(&p, self.git.object_hash()).ok())
            .collect()
    }

    /// A tree, decoded once per process.
    pub fn tree(&self, id: ObjectId) -> Result<Rc<Tree>> {
        if let Some(t) = self.cached_tree(id) {
            return Ok(t);
        }
        let t = self
            .git
            .find_tree(id)
            .map_err(fail(format!("read tree {id}")))?;
        let decoded = t.decode().map_err(fail(format!("decode tree {id}")))?;
        let tree = Rc::new(Tree::new(
            decoded
                .entries
                .iter()
                .map(|e| (e.filename, e.mode, e.oid.to_owned())),
        ));
        self.keep_tree(id, tree.clone());
        Ok(tree)
    }

    /// The blob each of `names` is in tree `id` (`None`: no such file),
    /// without keeping the decoded tree when it was not decoded already: a
    /// lookup of a few names in a large folder the caller will not read
    /// again (the previous head's folders in a recompute: 5 MiB at 100,000
    /// learnings).
    pub fn blobs_named(&self, id: ObjectId, names: &[&str]) -> Result<Vec<Option<ObjectId>>> {
        if let Some(t) = self.cached_tree(id) {
            return Ok(names
                .iter()
                .map(|n| t.get(n).filter(|e| e.is_blob).map(|e| e.id))
                .collect());
        }
        let at: HashMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
        let mut found = vec![None; names.len()];
        let t = self
            .git
            .find_tree(id)
            .map_err(fail(format!("read tree {id}")))?;
        let decoded = t.decode().map_err(fail(format!("decode tree {id}")))?;
        for e in decoded.entries.iter().filter(|e| e.mode.is_blob()) {
            let name = std::str::from_utf8(e.filename).unwrap_or_default();
            if let Some(&i) = at.get(name) {
                found[i] = Some(e.oid.to_owned());
            }
        }
        Ok(found)
    }

    /// Tree `id` if it is decoded already.
    fn cached_tree(&self, id: ObjectId) -> Option<Rc<Tree>> {
        self.trees.borrow().by_id.get(&id).cloned()
    }

    fn keep_tree(&self, id: ObjectId, tree: Rc<Tree>) {
        let mut cache = self.trees.borrow_mut();
        if cache.by_id.contains_key(&id) {
            return;
        }
        if cache.entries + tree.len() > TREE_CACHE_ENTRIES {
            // A merge walks new versions of the same folders: older ones are
            // rarely asked again, so starting over costs a re-decode or two.
            cache.by_id.clear();
            cache.entries = 0;
        }
        cache.entries += tree.len();
        cache.by_id.insert(id, tree);
    }

    /// The entry at a `/`-separated path in `tree`, if any.
    pub fn entry_at(&self, tree: ObjectId, path: &str) -> Result<Option<TreeEntry>> {
        let mut current = tree;
        let mut parts = path.split('/').peekable();
        while let Some(part) = parts.next() {
            let t = self.tree(current)?;
            let Some(entry) = t.get(part) else {
                return Ok(None);
            };
            if parts.peek().is_none() {
                return Ok(Some(entry.to_owned()));
            }
            if !entry.is_tree {
                return Ok(None);
            }
            current = entry.id;
        }
        Ok(None)
    }

    /// The blob id at `path` in `tree`, if any.
    pub fn blob_id_at(&self, tree: ObjectId, path: &str) -> Result<Option<ObjectId>> {
        Ok(self
            .entry_at(tree, path)?
            .filter(|e| e.is_blob)
            .map(|e| e.id))
    }

    /// The id of the folder at `path` in `tree`, if any.
    pub fn subtree(&self, tree: ObjectId, path: &str) -> Result<Option<ObjectId>> {
        Ok(self
            .entry_at(tree, path)?
            .filter(|e| e.is_tree)
            .map(|e| e.id))
    }

    /// The bytes at `path` in `tree`, if any.
    pub fn blob_at(&self, tree: ObjectId, path: &str) -> Result<Option<Vec<u8>>> {
        match self.blob_id_at(tree, path)? {
            Some(id) => self.read_blob(id).map(Some),
            None => Ok(None),
        }
    }

    /// Every blob of a tree, by path. Used where a whole tree is needed.
    pub fn flatten(&self, tree: ObjectId) -> Result<BTreeMap<String, ObjectId>> {
        let mut out = BTreeMap::new();
        self.flatten_into(tree, String::new(), &mut out)?;
        Ok(out)
    }

    fn flatten_into(
        &self,
        tree: ObjectId,
        prefix: String,
        out: &mut BTreeMap<String, ObjectId>,
    ) -> Result<()> {
        for entry in self.tree(tree)?.entries() {
            let path = if prefix.is_empty() {
                entry.name.to_string()
            } else {
                format!("{prefix}/{}", entry.name)
            };
            if entry.is_tree {
                self.flatten_into(entry.id, path, out)?;
            } else if entry.is_blob {
                out.insert(path, entry.id);
            }
        }
        Ok(())
    }

    pub fn write_blob(&self, bytes: &[u8]) -> Result<ObjectId> {
        use gix::prelude::Write;
        // Straight to the object store, hashed once (see `write_entries`).
        let id = self
            .git
            .objects
            .write_buf(gix::object::Kind::Blob, bytes)
            .map_err(fail("write blob"))?;
        let mut cache = self.blobs.borrow_mut();
        if self.git.objects.num_objects_in_memory() > 0 {
            cache.held.insert(id);
        } else {
            cache.keep(id, bytes);
        }
        Ok(id)
    }

    /// Writes a commit of `tree` with `parents` and moves HEAD's branch to
    /// it, atomically, only if the branch still points at `parents[0]`.
    pub fn commit(
        &self,
        tree: ObjectId,
        parents: &[ObjectId],
        message: &str,
        who: &Identity,
    ) -> Result<ObjectId> {
        let id = self.write_commit(tree, parents, message, who)?;
        self.fast_forward(parents.first().copied(), id, message, who)?;
        Ok(id)
    }

    /// Adds or updates a git remote (`remote.<name>.url` and the fetch
    /// refspec `git remote add` writes, every branch into
    /// `refs/remotes/<name>/`); a sync fetches with its own refspecs
    /// ([`fetch_refspecs`]).
    pub fn set_remote(&self, name: &str, url: &str) -> Result<()> {
        use gix::bstr::BStr;
        let path = self.git.git_dir().join("config");
        let mut file =
            gix::config::File::from_path_no_includes(path.clone(), gix::config::Source::Local)
                .map_err(fail(format!("read {}", path.display())))?;
        let sub: &BStr = name.into();
        file.set_raw_value_by("remote", Some(sub), "url", url)
            .map_err(fail(format!("set remote.{name}.url")))?;
        let refspec = format!("+refs/heads/*:refs/remotes/{name}/*");
        file.set_raw_value_by("remote", Some(sub), "fetch", refspec.as_str())
            .map_err(fail(format!("set remote.{name}.fetch")))?;
        let mut out = Vec::new();
        file.write_to(&mut out)
            .map_err(fail("serialise git config"))?;
        crate::store::atomic_write(&path, &out)
            .map_err(fail(format!("write {}", path.display())))?;
        Ok(())
    }

    /// Names of the configured git remotes, sorted.
    pub fn remote_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .git
            .remote_names()
            .into_iter()
            .map(|n| n.to_string())
            .collect();
        names.sort();
        names
    }

    /// Writes a commit object without moving any ref.
    pub fn write_commit(
        &self,
        tree: ObjectId,
        parents: &[ObjectId],
        message: &str,
        who: &Identity,
    ) -> Result<ObjectId> {
        let sig = signature(who);
        let mut commit = gix::objs::Commit {
            tree,
            parents: parents.iter().copied().collect(),
            author: sig.clone(),
            committer: sig,
            encoding: None,
            message: message.into(),
            extra_headers: Vec::new(),
        };
        if let Some(key) = &who.signing_key {
            let mut payload = Vec::new();
            gix::objs::WriteTo::write_to(&commit, &mut payload)
                .map_err(fail("serialise the commit to sign"))?;
            let armored = sshsig::sign(&payload, key).map_err(|message| GitError {
                action: format!("sign the commit with signing.key {}", key.display()),
                message,
            })?;
            commit
                .extra_headers
                .push((sshsig::HEADER.into(), armored.into()));
        }
        self.git
            .write_object(&commit)
            .map(|id| id.detach())
            .map_err(fail("write commit"))
    }

    /// What `id`'s signature says about `key` (§5.2).
    pub fn verify_commit(&self, id: ObjectId, key: &sshsig::PublicKey) -> Result<sshsig::Verdict> {
        let object = self
            .git
            .find_object(id)
            .map_err(fail(format!("read commit {id}")))?;
        Ok(sshsig::verify(&object.data, key))
    }

    /// Writes `id` again as `who` (signed when `who` signs): same tree,
    /// parents and message.
    pub fn rewrite_commit(&self, id: ObjectId, who: &Identity) -> Result<ObjectId> {
        let (parents, message) = self.commit_parents(id)?;
        let tree = self.commit_tree(id)?;
        self.write_commit(tree, &parents, &message, who)
    }

    /// A commit's parents, committer time (unix seconds) and message.
    pub fn commit_info(&self, id: ObjectId) -> Result<CommitInfo> {
        let commit = self
            .git
            .find_commit(id)
            .map_err(fail(format!("read commit {id}")))?;
        let decoded = commit
            .decode()
            .map_err(fail(format!("decode commit {id}")))?;
        let time = decoded
            .committer()
            .map_err(fail(format!("read the committer of {id}")))?
            .time()
            .map_err(fail(format!("read the time of {id}")))?
            .seconds;
        Ok(CommitInfo {
            parents: decoded.parents().collect(),
            time,
            message: decoded.message.to_str_lossy().into_owned(),
        })
    }

    /// The best common ancestor of two commits, if they share history.
    pub fn merge_base(&self, a: ObjectId, b: ObjectId) -> Result<Option<ObjectId>> {
        match self.git.merge_base(a, b) {
            Ok(id) => Ok(Some(id.detach())),
            Err(gix::repository::merge_base::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(fail(format!("find the merge base of {a} and {b}"))(e)),
        }
    }

    /// Moves HEAD's branch to `commit` (a fast-forward), if it still points at `expected`.
    pub fn fast_forward(
        &self,
        expected: Option<ObjectId>,
        commit: ObjectId,
        message: &str,
        who: &Identity,
    ) -> Result<()> {
        use gix::refs::transaction::{
            Change as RefChange, LogChange, PreviousValue, RefEdit, RefLog,
        };
        self.persist_objects()?;
        let head: gix::refs::FullName = "HEAD".try_into().map_err(fail("HEAD"))?;
        let sig = signature(who);
        let mut buf = gix::date::parse::TimeBuf::default();
        self.git
            .edit_references_as(
                [RefEdit {
                    change: RefChange::Update {
                        log: LogChange {
                            mode: RefLog::AndReference,
                            force_create_reflog: false,
                            message: message.lines().next().unwrap_or_default().into(),
                        },
                        expected: match expected {
                            Some(id) => {
                                PreviousValue::MustExistAndMatch(gix::refs::Target::Object(id))
                            }
                            None => PreviousValue::MustNotExist,
                        },
                        new: gix::refs::Target::Object(commit),
                    },
                    name: head,
                    deref: true,
                }],
                Some(sig.to_ref(&mut buf)),
            )
            .map_err(self.ref_failure("move HEAD"))?;
        Ok(())
    }
}

/// What [`Repo::commit_info`] reads of a commit.
#[derive(Debug, Clone)]
pub struct CommitInfo {
    pub parents: Vec<ObjectId>,
    /// Committer time, unix seconds.
    pub time: i64,
    pub message: String,
}

/// A signature for `who`, stamped now.
fn signature(who: &Identity) -> gix::actor::Signature {
    gix::actor::Signature {
        name: who.name.as_str().into(),
        email: who.email.as_str().into(),
        time: gix::date::Time::now_local_or_utc(),
    }
}
