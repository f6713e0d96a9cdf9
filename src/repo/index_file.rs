//! The index file read and rewritten an entry at a time, without decoding
//! it whole: versions 2 and 3 with SHA-1 ids, the ones gix and git write by
//! default. Anything else (version 4's compressed paths, a name of 4,095
//! bytes or more, a conflict stage, a file cut short, an extension a reader
//! must understand, such as a split index's `link` or a sparse index's
//! `sdir`) is `None`, and the caller decodes the index whole instead.

use gix::ObjectId;
use gix::index::entry::Stat;
use std::io::{BufReader, Read, Seek, Write};
use std::path::Path;

/// An entry's fixed part: ten stat words, the id, the flags.
const FIXED: usize = 62;
/// A flag of the 16-bit flags: two more bytes of flags follow (version 3).
const EXTENDED: u16 = 0x4000;
/// The flags' name length when the name is this long or longer.
const LONG_NAME: u16 = 0x0fff;
const MODE_FILE: u32 = 0o100644;

/// An index file opened for reading its entries in order.
pub(super) struct Entries {
    r: BufReader<std::fs::File>,
    /// The file's length, to tell its extensions from its checksum.
    len: u64,
    pub version: u32,
    pub count: u32,
}

/// One entry as the file holds it, its padding included.
#[derive(Default)]
pub(super) struct Raw {
    pub bytes: Vec<u8>,
    /// Where its name starts (after the flags, and the extended flags).
    head: usize,
    len: usize,
}

impl Raw {
    pub fn name(&self) -> &[u8] {
        &self.bytes[self.head..self.head + self.len]
    }

    pub fn stage(&self) -> u16 {
        (self.flags() >> 12) & 3
    }

    fn flags(&self) -> u16 {
        u16::from_be_bytes([self.bytes[60], self.bytes[61]])
    }

    pub fn id(&self) -> Option<ObjectId> {
        ObjectId::try_from(&self.bytes[40..60]).ok()
    }

    pub fn stat(&self) -> Stat {
        use gix::index::entry::stat::Time;
        let b = &self.bytes;
        let time = |at: usize| Time {
            secs: be(&b[at..]),
            nsecs: be(&b[at + 4..]),
        };
        Stat {
            ctime: time(0),
            mtime: time(8),
            dev: be(&b[16..]),
            ino: be(&b[20..]),
            uid: be(&b[28..]),
            gid: be(&b[32..]),
            size: be(&b[36..]),
        }
    }
}

fn be(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

impl Entries {
    /// `Ok(None)` when the file is missing; `Err(())` when it is not an
    /// index this module reads.
    pub fn open(path: &Path) -> Result<Option<Entries>, ()> {
        let file = match std::fs::File::open(path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(_) => return Err(()),
        };
        let len = file.metadata().map_err(|_| ())?.len();
        let mut r = BufReader::with_capacity(1 << 16, file);
        let mut header = [0u8; 12];
        r.read_exact(&mut header).map_err(|_| ())?;
        let version = be(&header[4..]);
        if &header[..4] != b"DIRC" || !(2..=3).contains(&version) {
            return Err(());
        }
        Ok(Some(Entries {
            r,
            len,
            version,
            count: be(&header[8..]),
        }))
    }

    /// After the last entry: whether every extension that follows is one
    /// a reader may ignore (git's format: its signature starts with an
    /// upper-case letter), and the checksum ends the file. A split index
    /// (`link`: its entries are partly in another file, nameless here) or
    /// a sparse one (`sdir`) is not: read or rewritten entry by entry, it
    /// would lose entries.
    pub fn ends_with_optional_extensions(&mut self) -> bool {
        const CHECKSUM: u64 = 20;
        let Ok(mut at) = self.r.stream_position() else {
            return false;
        };
        while at + CHECKSUM < self.len {
            let mut header = [0u8; 8];
            if self.r.read_exact(&mut header).is_err() || !header[0].is_ascii_uppercase() {
                return false;
            }
            let size = u64::from(be(&header[4..]));
            if self.r.seek_relative(size as i64).is_err() {
                return false;
            }
            at += 8 + size;
        }
        at + CHECKSUM == self.len
    }

    /// Reads the next entry into `raw` (the caller counts them).
    pub fn next_into(&mut self, raw: &mut Raw) -> Option<()> {
        raw.bytes.resize(FIXED, 0);
        self.r.read_exact(&mut raw.bytes).ok()?;
        let flags = raw.flags();
        let mut head = FIXED;
        if flags & EXTENDED != 0 {
            if self.version < 3 {
                return None;
            }
            raw.bytes.resize(FIXED + 2, 0);
            self.r.read_exact(&mut raw.bytes[FIXED..]).ok()?;
            head += 2;
        }
        let len = usize::from(flags & LONG_NAME);
        if flags & LONG_NAME == LONG_NAME {
            return None;
        }
        // The name, then 1 to 8 NULs to a multiple of 8.
        let end = head + len + (8 - (head + len) % 8);
        raw.bytes.resize(end, 0);
        self.r.read_exact(&mut raw.bytes[head..]).ok()?;
        if raw.bytes[head + len..].iter().any(|&b| b != 0) {
            return None;
        }
        (raw.head, raw.len) = (head, len);
        Some(())
    }
}

/// An edit of the index: a path's new blob and stat, or `None` (gone).
pub(super) type Edit<'a> = (&'a [u8], Option<(ObjectId, Stat)>);

/// Writes to `out` the index at `path` with `edits` (sorted by path, one
/// per path) applied: every other entry copied as it is, an edited one
/// given its blob, plain-file mode and stat (its flags kept), a new one
/// placed in order. The extensions are left out (each describes entries
/// that may have changed; git rebuilds what it misses). Reads the file
/// twice, as its header counts the entries, and holds one entry at a time.
pub(super) fn rewrite(
    path: &Path,
    edits: &[Edit<'_>],
    out: &mut impl Write,
) -> Option<std::io::Result<()>> {
    if edits
        .iter()
        .any(|(name, _)| name.len() >= usize::from(LONG_NAME))
    {
        return None;
    }
    // First pass: how many entries the edits remove and add.
    let mut entries = Entries::open(path).ok()??;
    let (version, count) = (entries.version, entries.count);
    let mut raw = Raw::default();
    let (mut removed, mut added) = (0u32, 0u32);
    let walked = merge(&mut entries, &mut raw, edits, |step| {
        match step {
            Step::New(..) => added += 1,
            Step::Gone => removed += 1,
            Step::Kept(_) | Step::Edited(..) => {}
        }
        Ok::<(), Unread>(())
    });
    if walked.is_err() || !entries.ends_with_optional_extensions() {
        return None;
    }

    // Second pass: the new file, hashed as it is written.
    let mut entries = Entries::open(path).ok()??;
    let mut w = Hashed {
        out,
        hasher: gix::hash::hasher(gix::hash::Kind::Sha1),
    };
    let mut header = Vec::with_capacity(12);
    header.extend_from_slice(b"DIRC");
    header.extend_from_slice(&version.to_be_bytes());
    header.extend_from_slice(&(count - removed + added).to_be_bytes());
    let mut new = Vec::new();
    let written = w.put(&header).map_err(Failed::Io).and_then(|()| {
        merge(&mut entries, &mut raw, edits, |step| {
            match step {
                Step::New(name, id, stat) => {
                    put_new(&mut new, name, id, stat);
                    w.put(&new)
                }
                Step::Edited(raw, id, stat) => {
                    put_stat(&mut raw.bytes, id, stat);
                    w.put(&raw.bytes)
                }
                Step::Kept(raw) => w.put(&raw.bytes),
                Step::Gone => Ok(()),
            }
            .map_err(Failed::Io)
        })
    });
    Some(match written {
        Ok(()) => w
            .hasher
            .try_finalize()
            .map_err(std::io::Error::other)
            .and_then(|sum| w.out.write_all(sum.as_slice())),
        Err(Failed::Io(e)) => Err(e),
        // Read under the index lock: the first pass read the same file.
        Err(Failed::Unread) => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "the index changed while it was rewritten",
        )),
    })
}

/// What the walk of an index and its edits meets, in path order.
enum Step<'e, 'r> {
    /// An edit of a path the index does not hold.
    New(&'e [u8], ObjectId, &'e Stat),
    /// An entry an edit gives a new blob and stat.
    Edited(&'r mut Raw, ObjectId, &'e Stat),
    /// An entry an edit removes.
    Gone,
    /// An entry no edit touches.
    Kept(&'r mut Raw),
}

/// An entry the reader could not take (see [`Entries::next_into`]).
struct Unread;

/// Why the second pass stopped.
enum Failed {
    Unread,
    Io(std::io::Error),
}

impl From<Unread> for Failed {
    fn from(_: Unread) -> Self {
        Failed::Unread
    }
}

/// Walks the `entries` left and `edits` (sorted, one per path) together,
/// handing `each` every step in path order; the removal of a path the
/// index does not hold is no step. An entry the reader does not take, or
/// of a conflict stage, ends the walk with [`Unread`].
fn merge<E: From<Unread>>(
    entries: &mut Entries,
    raw: &mut Raw,
    edits: &[Edit<'_>],
    mut each: impl FnMut(Step<'_, '_>) -> Result<(), E>,
) -> Result<(), E> {
    let (mut at, mut left) = (0, entries.count);
    loop {
        let entry = left > 0;
        if entry {
            entries.next_into(raw).ok_or(Unread)?;
            // A conflict's stages share a path: not an index to edit so.
            if raw.stage() != 0 {
                return Err(Unread.into());
            }
            left -= 1;
        }
        // Edits that sort before this entry (all that are left, after the
        // last) are of paths the index does not hold.
        while let Some((name, edit)) = edits.get(at)
            && (!entry || *name < raw.name())
        {
            if let Some((id, stat)) = edit {
                each(Step::New(name, *id, stat))?;
            }
            at += 1;
        }
        if !entry {
            return Ok(());
        }
        match edits.get(at) {
            Some((name, edit)) if *name == raw.name() => {
                at += 1;
                match edit {
                    Some((id, stat)) => each(Step::Edited(raw, *id, stat))?,
                    None => each(Step::Gone)?,
                }
            }
            _ => each(Step::Kept(raw))?,
        }
    }
}

/// `entry`'s stat words, mode and id set; its flags and name kept.
fn put_stat(entry: &mut [u8], id: ObjectId, s: &Stat) {
    let words = [
        s.ctime.secs,
        s.ctime.nsecs,
        s.mtime.secs,
        s.mtime.nsecs,
        s.dev,
        s.ino,
        MODE_FILE,
        s.uid,
        s.gid,
        s.size,
    ];
    for (i, w) in words.iter().enumerate() {
        entry[i * 4..i * 4 + 4].copy_from_slice(&w.to_be_bytes());
    }
    entry[40..60].copy_from_slice(id.as_slice());
}

/// A new stage-0 entry of a plain file `name` into `out`.
fn put_new(out: &mut Vec<u8>, name: &[u8], id: ObjectId, s: &Stat) {
    out.clear();
    out.resize(FIXED, 0);
    put_stat(out, id, s);
    // Shorter than LONG_NAME: checked before anything was written.
    let len = name.len().min(usize::from(LONG_NAME)) as u16;
    out[60..62].copy_from_slice(&len.to_be_bytes());
    out.extend_from_slice(name);
    out.resize(FIXED + name.len() + (8 - (FIXED + name.len()) % 8), 0);
}

/// A writer and the SHA-1 of what went through it.
struct Hashed<'a, W> {
    out: &'a mut W,
    hasher: gix::hash::Hasher,
}

impl<W: Write> Hashed<'_, W> {
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.hasher.update(bytes);
        self.out.write_all(bytes)
    }
}

#[cfg(test)]
mod tests {
    //! A rewrite is the index git itself makes of the same edits.
    use super::*;
    use crate::repo::test_git as git;

    #[test]
    fn a_rewritten_index_is_the_one_git_makes_of_the_same_edits() {
        let tmp = tempfile::tempdir().expect("tmp");
        let root = tmp.path();
        git(root, &["init", "-q"]);
        // Every padding length, and names that sort around a folder's.
        let mut names: Vec<String> = (1..=9).map(|n| format!("{}.md", "x".repeat(n))).collect();
        names.extend(["a-b.md", "a.md", "a/b.md", "a/c.md", "b.md"].map(String::from));
        for n in &names {
            let file = root.join(n);
            std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
            std::fs::write(&file, n).expect("write");
        }
        git(root, &["add", "-A"]);
        // An extended flag: the index becomes version 3.
        git(root, &["update-index", "--skip-worktree", "xx.md"]);
        let index = root.join(".git/index");

        std::fs::write(root.join("a.md"), "changed").expect("write");
        std::fs::remove_file(root.join("a/b.md")).expect("rm");
        std::fs::write(root.join("0.md"), "first").expect("write");
        std::fs::create_dir_all(root.join("zz")).expect("mkdir");
        std::fs::write(root.join("zz/new.md"), "last").expect("write");
        let blob = |rel: &str| {
            let hex = git(root, &["hash-object", "-w", rel]);
            let id = ObjectId::from_hex(hex.trim().as_bytes()).expect("id");
            let stat = crate::repo::worktree::stat_of(&root.join(rel)).expect("stat");
            Some((id, stat))
        };
        let edits: Vec<Edit<'_>> = vec![
            (b"0.md", blob("0.md")),
            (b"a.md", blob("a.md")),
            (b"a/b.md", None),
            (b"gone-already.md", None),
            (b"zz/new.md", blob("zz/new.md")),
        ];
        let mut out = Vec::new();
        rewrite(&index, &edits, &mut out)
            .expect("an index this module reads")
            .expect("written");

        // git's own: the same edits through update-index, on a copy.
        let theirs = tmp.path().join("theirs");
        git(root, &["clone", "-q", "--no-checkout", ".", "theirs"]);
        std::fs::copy(&index, theirs.join(".git/index")).expect("copy");
        let ls = |dir: &std::path::Path| git(dir, &["ls-files", "-s", "-v"]);
        std::fs::write(&index, &out).expect("install");
        let ours = ls(root);
        for rel in ["0.md", "a.md", "zz/new.md"] {
            let id = blob(rel).expect("blob").0.to_string();
            git(
                &theirs,
                &[
                    "update-index",
                    "--add",
                    "--cacheinfo",
                    &format!("100644,{id},{rel}"),
                ],
            );
        }
        git(&theirs, &["update-index", "--force-remove", "a/b.md"]);
        assert_eq!(ours, ls(&theirs), "the same entries, flags and order");
        assert!(
            ours.contains("S 100644") && ours.starts_with("H 100644"),
            "{ours}"
        );
        // git read it (its checksum holds), and the stats given are the
        // work tree's: nothing differs, not even by stat.
        assert_eq!(git(root, &["diff-files", "--", "0.md", "a.md", "zz"]), "");
    }
}

#[cfg(test)]
mod split {
    //! An index whose entries live partly in another file, and one with
    //! extensions a reader may ignore.
    use super::*;
    use crate::repo::test_git as git;

    fn edit_of(root: &Path, rel: &str) -> (ObjectId, Stat) {
        let hex = git(root, &["hash-object", "-w", rel]);
        let id = ObjectId::from_hex(hex.trim().as_bytes()).expect("id");
        (
            id,
            crate::repo::worktree::stat_of(&root.join(rel)).expect("stat"),
        )
    }

    #[test]
    fn a_split_index_is_left_to_the_whole_decode_and_a_cache_tree_is_dropped() {
        let tmp = tempfile::tempdir().expect("tmp");
        let root = tmp.path();
        git(root, &["init", "-q"]);
        for n in ["a.md", "b.md", "c.md", "d/e.md"] {
            std::fs::create_dir_all(root.join(n).parent().expect("parent")).expect("mkdir");
            std::fs::write(root.join(n), n).expect("write");
        }
        git(root, &["add", "-A"]);
        // A commit leaves a cache tree (`TREE`), an optional extension.
        git(
            root,
            &[
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "commit",
                "-qm",
                "m",
            ],
        );
        let index = root.join(".git/index");
        std::fs::write(root.join("b.md"), "changed").expect("write");
        let edit = edit_of(root, "b.md");
        let edits: Vec<Edit<'_>> = vec![(b"b.md", Some(edit))];
        let mut out = Vec::new();
        rewrite(&index, &edits, &mut out)
            .expect("a cache tree is no reason to decode the index whole")
            .expect("written");
        std::fs::write(&index, &out).expect("install");
        // b.md staged as changed, nothing else: the checksum holds.
        assert_eq!(git(root, &["status", "--porcelain"]), "M  b.md\n");

        // Split: most entries in `sharedindex.*`, the main file's nameless.
        git(root, &["update-index", "--split-index"]);
        std::fs::write(root.join("c.md"), "changed too").expect("write");
        git(root, &["add", "c.md"]);
        let before = git(root, &["ls-files", "-s"]);
        assert_eq!(before.lines().count(), 4, "{before}");
        let edit = edit_of(root, "a.md");
        let edits: Vec<Edit<'_>> = vec![(b"a.md", Some(edit))];
        assert!(
            rewrite(&index, &edits, &mut Vec::new()).is_none(),
            "a split index is not rewritten entry by entry"
        );
        let mut entries = Entries::open(&index).expect("version 2").expect("there");
        let mut raw = Raw::default();
        for _ in 0..entries.count {
            entries.next_into(&mut raw).expect("entry");
        }
        assert!(
            !entries.ends_with_optional_extensions(),
            "`link` must be understood"
        );
        assert_eq!(git(root, &["ls-files", "-s"]), before, "nothing written");
    }

    /// `git update-index --index-info` with `lines` on stdin.
    pub(super) fn index_info(root: &Path, lines: &str) {
        use std::io::Write as _;
        let mut child = std::process::Command::new("git")
            .args(["update-index", "--index-info"])
            .current_dir(root)
            .stdin(std::process::Stdio::piped())
            .spawn()
            .expect("git");
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(lines.as_bytes()).expect("write");
        drop(stdin);
        assert!(child.wait().expect("wait").success());
    }

    #[test]
    fn a_conflict_or_a_name_of_4095_bytes_is_left_to_the_whole_decode() {
        let tmp = tempfile::tempdir().expect("tmp");
        let root = tmp.path();
        git(root, &["init", "-q"]);
        std::fs::write(root.join("a.md"), "a").expect("write");
        git(root, &["add", "a.md"]);
        let index = root.join(".git/index");
        let edit = edit_of(root, "a.md");
        let id = edit.0;
        let edits: Vec<Edit<'_>> = vec![(b"a.md", Some(edit))];
        assert!(
            rewrite(&index, &edits, &mut Vec::new()).is_some(),
            "a plain index"
        );

        // A merge conflict's stages of one path.
        index_info(
            root,
            &format!("100644 {id} 1\tc.md\n100644 {id} 2\tc.md\n100644 {id} 3\tc.md\n"),
        );
        assert!(git(root, &["ls-files", "-u"]).contains("c.md"));
        assert!(
            rewrite(&index, &edits, &mut Vec::new()).is_none(),
            "a conflict"
        );
        git(root, &["update-index", "--force-remove", "c.md"]);
        assert!(
            rewrite(&index, &edits, &mut Vec::new()).is_some(),
            "resolved"
        );

        // A path of 4,095 bytes or more: its flags cannot hold its length.
        let long = format!("{}/z.md", "d".repeat(4100));
        index_info(root, &format!("100644 {id}\t{long}\n"));
        assert!(
            rewrite(&index, &edits, &mut Vec::new()).is_none(),
            "a long name held"
        );
        git(root, &["update-index", "--force-remove", &long]);
        let new: Vec<Edit<'_>> = vec![(long.as_bytes(), Some(edit))];
        assert!(
            rewrite(&index, &new, &mut Vec::new()).is_none(),
            "a long name added"
        );
        assert!(rewrite(&index, &edits, &mut Vec::new()).is_some());
    }
}

#[cfg(test)]
mod against_git {
    //! Random indexes and edits: the rewrite is the index git makes of the
    //! same edits, entry for entry, and git reads it.
    use super::split::index_info;
    use super::*;
    use crate::repo::test_git as git;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    /// Names that sort around each other the ways git's order can trip:
    /// a folder beside a file of the same stem, `-` and `.` before `/`,
    /// every padding length, a multi-byte name.
    fn path() -> impl Strategy<Value = String> {
        let part = prop_oneof![
            Just("a".to_string()),
            Just("a-b".to_string()),
            Just("a.b".to_string()),
            Just("é".to_string()),
            (1usize..12).prop_map(|n| "x".repeat(n)),
        ];
        prop::collection::vec(part, 1..3).prop_map(|parts| format!("{}.md", parts.join("/")))
    }

    /// A path's blob content in each state: `None` absent.
    fn states() -> impl Strategy<Value = Vec<(String, Option<u8>, Option<u8>)>> {
        prop::collection::vec(
            (path(), prop::option::of(0u8..3), prop::option::of(0u8..3)),
            1..40,
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
        #[test]
        fn a_rewrite_is_what_git_update_index_makes(states in states(), v3 in any::<bool>()) {
            // One state per path; a path that is also another's folder is
            // left out (a file and a folder cannot share a name).
            let mut by_path: BTreeMap<String, (Option<u8>, Option<u8>)> = BTreeMap::new();
            for (p, before, after) in states {
                by_path.insert(p, (before, after));
            }
            let folders: Vec<String> = by_path
                .keys()
                .flat_map(|p| {
                    let parts: Vec<&str> = p.split('/').collect();
                    (1..parts.len()).map(move |i| parts[..i].join("/")).collect::<Vec<_>>()
                })
                .collect();
            by_path.retain(|p, _| !folders.iter().any(|f| f == p || f.starts_with(&format!("{p}/"))));
            let tmp = tempfile::tempdir().expect("tmp");
            let root = tmp.path();
            git(root, &["init", "-q"]);
            let write = |rel: &str, v: u8| {
                let file = root.join(rel);
                std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
                std::fs::write(&file, format!("{rel} {v}")).expect("write");
            };
            let mut held = 0;
            for (p, (before, _)) in &by_path {
                if let Some(v) = before {
                    write(p, *v);
                    held += 1;
                }
            }
            // No entries, no index file: the caller decodes (an empty state).
            prop_assume!(held > 0);
            git(root, &["add", "-A"]);
            // An extended flag (version 3) on an entry no edit touches: an
            // edited entry keeps its flags here, where git's `--index-info`
            // makes a new one.
            let untouched = by_path.iter().find(|(_, (b, a))| b.is_some() && b == a);
            if v3 && let Some(p) = untouched.map(|(p, _)| p.clone()) {
                git(root, &["update-index", "--skip-worktree", &p]);
            }
            let index = root.join(".git/index");
            // The edits: every path whose state changes, sorted, one each.
            let mut edits: Vec<(String, Option<(ObjectId, Stat)>)> = Vec::new();
            let mut info = String::new();
            for (p, (before, after)) in &by_path {
                if before == after {
                    continue;
                }
                match after {
                    Some(v) => {
                        write(p, *v);
                        let hex = git(root, &["hash-object", "-w", p]);
                        let id = ObjectId::from_hex(hex.trim().as_bytes()).expect("id");
                        let stat = crate::repo::worktree::stat_of(&root.join(p)).expect("stat");
                        info.push_str(&format!("100644 {id}\t{p}\n"));
                        edits.push((p.clone(), Some((id, stat))));
                    }
                    None => {
                        info.push_str(&format!("0 {}\t{p}\n", ObjectId::null(gix::hash::Kind::Sha1)));
                        edits.push((p.clone(), None));
                    }
                }
            }
            let streamed: Vec<Edit<'_>> = edits.iter().map(|(p, e)| (p.as_bytes(), *e)).collect();
            let mut out = Vec::new();
            rewrite(&index, &streamed, &mut out)
                .expect("an index this module reads")
                .expect("written");

            let theirs = root.join("theirs");
            std::fs::create_dir_all(theirs.join(".git")).expect("mkdir");
            git(&theirs, &["init", "-q"]);
            std::fs::copy(&index, theirs.join(".git/index")).expect("copy");
            // git's copy reads the same objects.
            std::fs::remove_dir_all(theirs.join(".git/objects")).expect("rm");
            std::os::unix::fs::symlink(root.join(".git/objects"), theirs.join(".git/objects")).expect("link");
            if !info.is_empty() {
                index_info(&theirs, &info);
            }
            std::fs::write(&index, &out).expect("install");
            let ls = |dir: &Path| git(dir, &["ls-files", "-s", "-v"]);
            prop_assert_eq!(ls(root), ls(&theirs));
            // The stats are the work tree's: git sees no edited file changed.
            let edited: Vec<&str> = edits.iter().filter(|(_, e)| e.is_some()).map(|(p, _)| p.as_str()).collect();
            if !edited.is_empty() {
                let args: Vec<&str> = ["diff-files", "--name-only", "--"].into_iter().chain(edited).collect();
                prop_assert_eq!(git(root, &args), "");
            }
        }
    }
}
