//! Writing trees: a set of changes applied to a tree, folder by folder.
//!
//! The folders a change touches are read from the [`Repo`]'s decoded-tree
//! cache. The trees written are not kept decoded: a sync's merges write new
//! versions of the same big folders one after another, and the next merge
//! decodes the previous one's result from the object memory (no inflate).
//! Going through gix's tree editor instead inflated and decoded every such
//! folder twice more per merge (once to diff it, once to edit it).
//!
//! The result is the tree gix's editor writes for the same changes, in the
//! same order (the property test below holds the two together): blobs are
//! written as `100644`; an upsert through a path holding a file turns it
//! into a folder; a deletion through a missing or non-folder path does
//! nothing; a folder left empty goes; other entries keep their modes.

use super::{Change, Repo, Result, fail};
use gix::ObjectId;
use gix::bstr::{BString, ByteSlice};
use gix::objs::WriteTo;
use gix::objs::tree::{Entry, EntryKind, EntryMode};
use gix::prelude::Write;
use std::collections::{BTreeMap, HashMap};

/// The changes under one folder, by entry name.
#[derive(Default)]
struct Folder {
    edits: BTreeMap<String, Edit>,
    /// Start from nothing rather than the folder's current entries: an
    /// earlier change in the list replaced or removed it.
    fresh: bool,
    /// An upsert went through this folder: it exists afterwards even where
    /// a file stood (a deletion alone never turns a file into a folder).
    upserted: bool,
}

enum Edit {
    /// The entry becomes this blob, or goes (`None`).
    Set(Option<ObjectId>),
    /// Changes inside the folder of this name.
    Into(Folder),
}

impl Folder {
    /// Records a change at `path` (every component a [`super::safe_name`]).
    fn apply(&mut self, path: &str, blob: Option<ObjectId>) {
        let Some((name, rest)) = path.split_once('/') else {
            self.edits.insert(path.to_string(), Edit::Set(blob));
            return;
        };
        let edit = match self.edits.get_mut(name) {
            Some(edit) => edit,
            None => self
                .edits
                .entry(name.to_string())
                .or_insert_with(|| Edit::Into(Folder::default())),
        };
        if let Edit::Set(_) = edit {
            if blob.is_none() {
                // Deleting under a file, or under something already gone.
                return;
            }
            *edit = Edit::Into(Folder {
                fresh: true,
                ..Folder::default()
            });
        }
        let Edit::Into(folder) = edit else {
            unreachable!("made a folder above")
        };
        folder.upserted |= blob.is_some();
        folder.apply(rest, blob)
    }
}

impl Repo {
    /// Applies `changes` to `base`, in order, and writes the resulting tree.
    pub fn write_tree(&self, base: ObjectId, changes: &[Change]) -> Result<ObjectId> {
        let mut root = Folder::default();
        for change in changes {
            if !change.path().split('/').all(super::safe_name) {
                return Err(fail(format!("write tree: {:?}", change.path()))(
                    "not a path git would check out (an empty, `.`, `..` or `.git` component)",
                ));
            }
            let blob = match change {
                Change::Upsert { bytes, .. } => Some(self.write_blob(bytes)?),
                Change::Existing { id, .. } => Some(*id),
                Change::Delete { .. } => None,
            };
            root.apply(change.path(), blob);
        }
        match self.write_folder(Some(base), &root)? {
            Some(id) => Ok(id),
            None => self.write_entries(Vec::new()),
        }
    }

    /// Writes `base` with `folder`'s changes; `None` when nothing is left.
    fn write_folder(&self, base: Option<ObjectId>, folder: &Folder) -> Result<Option<ObjectId>> {
        let mut entries = match base {
            Some(id) if !folder.fresh => self.entries_of(id)?,
            _ => Vec::new(),
        };
        let mut at: HashMap<BString, usize> = entries
            .iter()
            .enumerate()
            .filter(|(_, e)| {
                folder
                    .edits
                    .contains_key(e.filename.to_str_lossy().as_ref())
            })
            .map(|(i, e)| (e.filename.clone(), i))
            .collect();
        let mut gone = vec![false; entries.len()];
        for (name, edit) in &folder.edits {
            let key = BString::from(name.as_str());
            let current = at.get(&key).copied();
            let new = match edit {
                Edit::Set(blob) => blob.map(|id| (EntryMode::from(EntryKind::Blob), id)),
                Edit::Into(inner) => {
                    let existing = current
                        .map(|i| &entries[i])
                        .filter(|e| e.mode.is_tree())
                        .map(|e| (e.mode, e.oid));
                    if existing.is_none() && !inner.upserted {
                        continue;
                    }
                    // A folder written through keeps its mode as spelled
                    // (`040000` stays), as gix's editor does.
                    let mode = existing.map_or(EntryKind::Tree.into(), |(mode, _)| mode);
                    self.write_folder(existing.map(|(_, id)| id), inner)?
                        .map(|id| (mode, id))
                }
            };
            match (current, new) {
                (Some(i), Some((mode, id))) => {
                    entries[i].mode = mode;
                    entries[i].oid = id;
                }
                (Some(i), None) => gone[i] = true,
                (None, Some((mode, id))) => {
                    at.insert(key.clone(), entries.len());
                    gone.push(false);
                    entries.push(Entry {
                        mode,
                        filename: key,
                        oid: id,
                    });
                }
                (None, None) => {}
            }
        }
        let mut kept: Vec<Entry> = entries
            .into_iter()
            .zip(gone)
            .filter_map(|(e, gone)| (!gone).then_some(e))
            .collect();
        if kept.is_empty() {
            return Ok(None);
        }
        // Git's order (a folder sorts as if its name ended in `/`); a new
        // entry or a file turned folder can be out of place.
        kept.sort();
        self.write_entries(kept).map(Some)
    }

    /// The entries of tree `id`, as written: from the decoded-tree cache
    /// unless a name is not UTF-8 (the cache holds it lossily), or decoded
    /// here and not kept when the cache does not hold it: a folder is
    /// written once, and a recompute at 100,000 learnings edits all of
    /// them.
    fn entries_of(&self, id: ObjectId) -> Result<Vec<Entry>> {
        if let Some(tree) = self.cached_tree(id)
            && tree.lossless
        {
            return Ok(tree
                .entries()
                .map(|e| Entry {
                    mode: e.mode,
                    filename: e.name.into(),
                    oid: e.id,
                })
                .collect());
        }
        let raw = self
            .git
            .find_tree(id)
            .map_err(fail(format!("read tree {id}")))?;
        let decoded = raw.decode().map_err(fail(format!("decode tree {id}")))?;
        Ok(decoded
            .entries
            .iter()
            .map(|e| e.to_owned().into())
            .collect())
    }

    /// Writes a tree of `entries` (in git's order). Not kept decoded: a
    /// later read decodes it from the object memory, and most trees a sync
    /// writes are read at most once more (at 100,000 learnings, keeping
    /// them was 12 MiB of the cycle's peak).
    fn write_entries(&self, entries: Vec<Entry>) -> Result<ObjectId> {
        let mut bytes = Vec::new();
        gix::objs::Tree { entries }
            .write_to(&mut bytes)
            .map_err(fail("serialise tree"))?;
        // Straight to the object store: `Repository::write_object` hashes
        // twice (once to skip an existing object), and SHA-1 with collision
        // detection is the dearest part of writing a 0.9 MB folder.
        let id = self
            .git
            .objects
            .write_buf(gix::object::Kind::Tree, &bytes)
            .map_err(fail("write tree"))?;
        Ok(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Names whose git order differs from byte order (`a-`, `a.b` and a
    /// folder `a` sort `a-` < `a.b` < `a/`), at up to three levels.
    const NAMES: [&str; 5] = ["a", "a-", "a.b", "b", "c"];

    fn path() -> impl Strategy<Value = String> {
        proptest::collection::vec(0..NAMES.len(), 1..4).prop_map(|parts| {
            parts
                .iter()
                .map(|&i| NAMES[i])
                .collect::<Vec<_>>()
                .join("/")
        })
    }

    #[derive(Debug, Clone)]
    enum Op {
        Upsert(String, u8),
        Existing(String, u8),
        Delete(String),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (path(), any::<u8>()).prop_map(|(p, b)| Op::Upsert(p, b)),
            (path(), any::<u8>()).prop_map(|(p, b)| Op::Existing(p, b)),
            path().prop_map(Op::Delete),
        ]
    }

    /// The same changes through gix's tree editor: the reference.
    fn with_gix_editor(repo: &Repo, base: ObjectId, changes: &[Change]) -> ObjectId {
        let mut editor = repo.git.edit_tree(base).expect("editor");
        for change in changes {
            match change {
                Change::Upsert { path, bytes } => {
                    let id = repo.git.write_blob(bytes).expect("blob").detach();
                    editor
                        .upsert(path.as_str(), EntryKind::Blob, id)
                        .expect("upsert");
                }
                Change::Existing { path, id } => {
                    editor
                        .upsert(path.as_str(), EntryKind::Blob, *id)
                        .expect("upsert");
                }
                Change::Delete { path } => {
                    editor.remove(path.as_str()).expect("remove");
                }
            }
        }
        editor.write().expect("write").detach()
    }

    fn path_of(op: &Op) -> &str {
        match op {
            Op::Upsert(p, _) | Op::Existing(p, _) | Op::Delete(p) => p,
        }
    }

    /// `ops` without those whose path lies inside another's (or holds
    /// another), as every change list a sync writes is: there gix's editor
    /// keeps a replaced folder's earlier edits, which is not a rule to copy
    /// (`a_folder_replaced_then_written_into_starts_empty` pins ours).
    fn prefix_free(ops: Vec<Op>) -> Vec<Op> {
        let inside = |a: &str, b: &str| {
            a.len() > b.len() && a.starts_with(b) && a.as_bytes()[b.len()] == b'/'
        };
        let mut kept: Vec<Op> = Vec::new();
        for op in ops {
            let p = path_of(&op);
            if kept
                .iter()
                .all(|k| !inside(p, path_of(k)) && !inside(path_of(k), p))
            {
                kept.push(op);
            }
        }
        kept
    }

    fn changes(repo: &Repo, ops: &[Op]) -> Vec<Change> {
        ops.iter()
            .map(|op| match op {
                Op::Upsert(path, b) => Change::Upsert {
                    path: path.clone(),
                    bytes: vec![*b; 3],
                },
                Op::Existing(path, b) => Change::Existing {
                    path: path.clone(),
                    id: repo.git.write_blob([*b, b'x']).expect("blob").detach(),
                },
                Op::Delete(path) => Change::Delete { path: path.clone() },
            })
            .collect()
    }

    /// Every entry under `tree`, with its `/`-separated path, through the
    /// decoded-tree cache of `repo`.
    fn walk(repo: &Repo, tree: ObjectId) -> Vec<(String, crate::repo::TreeEntry)> {
        let mut out = Vec::new();
        let mut todo = vec![(String::new(), tree)];
        while let Some((prefix, id)) = todo.pop() {
            for e in repo.tree(id).expect("tree").entries() {
                let path = format!("{prefix}{}", e.name);
                if e.is_tree {
                    todo.push((format!("{path}/"), e.id));
                }
                out.push((path, e.to_owned()));
            }
        }
        out
    }

    fn repo() -> (tempfile::TempDir, Repo) {
        let dir = tempfile::tempdir().expect("tempdir");
        let repo = Repo::init(dir.path(), "agents/t").expect("init");
        (dir, repo)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Whatever the base and the changes, the tree is byte for byte the
        /// one gix's editor writes, and the cached decode of it matches a
        /// fresh decode (a later merge reads it from the cache).
        #[test]
        fn writes_what_the_gix_editor_writes(
            base_ops in proptest::collection::vec(op(), 0..12),
            executable in proptest::option::of(path()),
            ops in proptest::collection::vec(op(), 1..12),
        ) {
            let (_dir, repo) = repo();
            let empty = ObjectId::empty_tree(gix::hash::Kind::Sha1);
            let mut base = with_gix_editor(&repo, empty, &changes(&repo, &base_ops));
            if let Some(path) = executable {
                // An entry whose mode a blob upsert would not give it.
                let id = repo.git.write_blob(b"#!/bin/sh\n").expect("blob").detach();
                let mut editor = repo.git.edit_tree(base).expect("editor");
                editor.upsert(path.as_str(), EntryKind::BlobExecutable, id).expect("upsert");
                base = editor.write().expect("write").detach();
            }
            let changes = changes(&repo, &prefix_free(ops));
            let want = with_gix_editor(&repo, base, &changes);
            // Read the base through the cache first, as a merge would.
            repo.tree(base).expect("base");
            let got = repo.write_tree(base, &changes).expect("write_tree");
            prop_assert_eq!(got, want);

            let fresh = Repo::open(_dir.path()).expect("reopen");
            let seen = |r: &Repo| -> Vec<(String, String, bool, bool)> {
                walk(r, got)
                    .into_iter()
                    .map(|(p, e)| (p, format!("{:?}{}", e.mode, e.id), e.is_tree, e.is_blob))
                    .collect()
            };
            prop_assert_eq!(seen(&repo), seen(&fresh));
        }
    }

    #[test]
    fn a_decoded_tree_finds_every_entry_by_name_and_position() {
        let (_dir, repo) = repo();
        let empty = ObjectId::empty_tree(gix::hash::Kind::Sha1);
        // Names of every length, some a prefix of another, a folder among
        // them (git sorts it as `a/`, after `a-` and `a.b`).
        let ops: Vec<Op> = ["a-", "a.b", "a/x", "bb", "b", "long-name-0123456789.md"]
            .iter()
            .enumerate()
            .map(|(i, p)| Op::Upsert(p.to_string(), i as u8))
            .collect();
        let id = with_gix_editor(&repo, empty, &changes(&repo, &ops));
        let tree = repo.tree(id).expect("tree");
        let raw = repo
            .git
            .find_tree(id)
            .expect("tree")
            .decode()
            .expect("decode")
            .entries
            .iter()
            .map(|e| (e.filename.to_string(), e.oid.to_owned()))
            .collect::<Vec<_>>();
        let ours: Vec<(String, ObjectId)> =
            tree.entries().map(|e| (e.name.to_string(), e.id)).collect();
        assert_eq!(ours, raw, "git's order, git's ids");
        assert_eq!(tree.len(), raw.len());
        for (i, (name, oid)) in raw.iter().enumerate() {
            assert_eq!(tree.get(name).map(|e| e.id), Some(*oid), "{name}");
            assert_eq!(tree.at(i).map(|e| e.name), Some(name.as_str()));
        }
        assert!(tree.get("a").is_some_and(|e| e.is_tree));
        assert!(tree.get("b").is_some_and(|e| e.is_blob));
        assert!(tree.get("long").is_none() && tree.get("a/x").is_none());
        assert!(tree.at(raw.len()).is_none());
    }

    #[test]
    fn a_folder_replaced_then_written_into_starts_empty() {
        let (_dir, repo) = repo();
        let empty = ObjectId::empty_tree(gix::hash::Kind::Sha1);
        let up = |path: &str| Change::Upsert {
            path: path.into(),
            bytes: path.as_bytes().to_vec(),
        };
        let base = repo
            .write_tree(empty, &[up("a/old"), up("b")])
            .expect("base");
        let names = |tree: ObjectId| -> Vec<String> {
            let mut files: Vec<String> = walk(&repo, tree)
                .into_iter()
                .filter(|(_, e)| !e.is_tree)
                .map(|(p, _)| p)
                .collect();
            files.sort();
            files
        };
        let replaced = repo
            .write_tree(base, &[up("a/mid"), up("a"), up("a/new")])
            .expect("replace");
        assert_eq!(names(replaced), ["a/new", "b"]);
        let deleted = repo
            .write_tree(base, &[Change::Delete { path: "a".into() }, up("a/new")])
            .expect("delete");
        assert_eq!(names(deleted), ["a/new", "b"]);
        // Deleting under a file, or under nothing, changes nothing.
        let untouched = repo
            .write_tree(
                base,
                &[
                    Change::Delete { path: "b/x".into() },
                    Change::Delete { path: "c/x".into() },
                ],
            )
            .expect("no-op");
        assert_eq!(untouched, base);
        // A folder emptied goes; an emptied root is the empty tree.
        let gone = repo
            .write_tree(
                base,
                &[Change::Delete {
                    path: "a/old".into(),
                }],
            )
            .expect("emptied");
        assert_eq!(names(gone), ["b"]);
        let nothing = repo
            .write_tree(gone, &[Change::Delete { path: "b".into() }])
            .expect("empty root");
        assert_eq!(nothing, empty);
    }

    #[test]
    fn a_name_that_is_not_utf8_is_written_back_as_it_was() {
        let (_dir, repo) = repo();
        let blob = repo.git.write_blob(b"x").expect("blob").detach();
        let odd = gix::objs::Tree {
            entries: vec![Entry {
                mode: EntryKind::Blob.into(),
                filename: BString::from(&b"caf\xe9.md"[..]),
                oid: blob,
            }],
        };
        let base = repo.git.write_object(&odd).expect("tree").detach();
        let tree = repo
            .write_tree(
                base,
                &[Change::Upsert {
                    path: "new.md".into(),
                    bytes: b"y".to_vec(),
                }],
            )
            .expect("write_tree");
        let names: Vec<BString> = repo
            .git
            .find_tree(tree)
            .expect("tree")
            .decode()
            .expect("decode")
            .entries
            .iter()
            .map(|e| e.filename.to_owned())
            .collect();
        assert_eq!(
            names,
            vec![BString::from(&b"caf\xe9.md"[..]), BString::from("new.md")]
        );
    }

    #[test]
    fn an_empty_path_component_is_an_error_naming_the_path() {
        let (_dir, repo) = repo();
        let empty = ObjectId::empty_tree(gix::hash::Kind::Sha1);
        let err = repo
            .write_tree(
                empty,
                &[Change::Delete {
                    path: "a//b".into(),
                }],
            )
            .expect_err("empty component");
        assert!(err.to_string().contains("a//b"), "{err}");
    }
}
