//! Objects held until a ref needs them: a sync writes thousands of small
//! objects (merged events files, recomputed learnings, their trees), and
//! one loose file each costs a create, a write and a rename. Held in
//! memory instead (gix's object memory: every read of this `Repo` sees
//! them), they are written as one pack, as `git fetch` keeps what it
//! receives, before anything on disk can name them: a ref, the index, or
//! the `git push` that reads them. A process killed while they are held
//! leaves nothing behind but what no ref names.

use super::{Repo, Result, fail};
use gix::features::zlib::stream::deflate::{Compress, FlushCompress};
use std::io::Write;
use std::path::Path;

/// Fewer objects than this are written loose, as git unpacks a fetch of
/// fewer than `transfer.unpackLimit` (100) objects: a pack per handful
/// would only crowd the pack directory.
const LOOSE_BELOW: usize = 100;

impl Repo {
    /// Holds every object written from now on in memory until
    /// [`Repo::persist_objects`] (called before a ref or the index moves).
    pub fn hold_objects(&mut self) {
        self.git.objects.enable_object_memory();
    }

    /// Writes the objects held so far to the object store: loose when they
    /// are few, else as one pack with its index. A no-op when none are
    /// held, or when objects are not held at all.
    pub fn persist_objects(&self) -> Result<()> {
        let Some(mut held) = self.git.objects.reset_object_memory() else {
            return Ok(());
        };
        self.written.set(self.written.get() + held.len());
        if held.len() < LOOSE_BELOW {
            // Past the memory, to the loose object store.
            let store: &gix::odb::Handle = &self.git.objects;
            for (id, (kind, data)) in held.iter() {
                gix::objs::Write::write_buf(store, *kind, data)
                    .map_err(fail(format!("write object {id}")))?;
            }
        } else {
            let mut objects: Vec<_> = held.iter().collect();
            // Kind by kind (commits, trees, blobs), as git groups a pack.
            objects.sort_unstable_by_key(|(id, (kind, _))| (type_code(*kind), **id));
            let dir = self.git.objects.store_ref().path().join("pack");
            write_pack(&dir, &objects, self.git.object_hash()).map_err(fail(format!(
                "write a pack of {} objects to {}",
                objects.len(),
                dir.display()
            )))?;
        }
        // The blobs' bytes now go to the blob cache, one at a time (the
        // object memory is freed as they go), for the work tree to copy.
        let mut cache = self.blobs.borrow_mut();
        let held = std::mem::take(&mut *held);
        for (id, (kind, data)) in held {
            if kind == gix::object::Kind::Blob {
                cache.unhold(id, &data);
            }
        }
        Ok(())
    }
}

/// One object of a pack being written: its id, kind and bytes.
type Held<'a> = (&'a gix::ObjectId, &'a (gix::object::Kind, Vec<u8>));

/// Writes `objects` as one pack and its index into `dir`: both to
/// temporary names first, then the pack moved into place, then the index
/// (git reads a pack only through its index, so a pack is never seen
/// half-written, and one killed before its index is merely unused).
fn write_pack(dir: &Path, objects: &[Held<'_>], hash: gix::hash::Kind) -> std::io::Result<()> {
    let stamp = format!("{}-{}", std::process::id(), uuid::Uuid::new_v4().simple());
    let (tmp_pack, tmp_index) = (
        dir.join(format!("tmp_pack_{stamp}")),
        dir.join(format!("tmp_idx_{stamp}")),
    );
    let written = stream_pack(&tmp_pack, objects, hash).and_then(|(entries, sum)| {
        let index = encode_index(objects, &entries, &sum, hash)?;
        std::fs::write(&tmp_index, &index)?;
        Ok(sum)
    });
    let sum = match written {
        Ok(sum) => sum,
        Err(e) => {
            // Half-written temporaries are no use to anyone.
            let _ = std::fs::remove_file(&tmp_pack);
            let _ = std::fs::remove_file(&tmp_index);
            return Err(e);
        }
    };
    let name = format!("pack-{}", hex::encode(&sum));
    std::fs::rename(&tmp_pack, dir.join(format!("{name}.pack")))?;
    crate::fault::point("objects:before-index");
    std::fs::rename(&tmp_index, dir.join(format!("{name}.idx")))
}

/// Where an entry lies in the pack and the CRC-32 of its bytes there.
#[derive(Clone, Copy)]
struct Placed {
    offset: u64,
    crc: u32,
}

/// Input bytes deflated per batch (half on each thread) before the batch
/// is written out: what a pack costs in memory, whatever its size. At 2
/// MiB the two output buffers were ~0.4 MiB more of an own-workload
/// sync's peak at 10,000 learnings (benches/README.md, issue 32).
const BATCH_BYTES: usize = 512 << 10;

/// A file being written and the hash of everything written to it.
struct Hashing {
    file: std::io::BufWriter<std::fs::File>,
    hasher: gix::hash::Hasher,
    written: u64,
}

impl Hashing {
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.hasher.update(bytes);
        self.written += bytes.len() as u64;
        self.file.write_all(bytes)
    }
}

/// Writes a version 2 pack of `objects` to `path`, each object whole (no
/// deltas): the header, each object's type and size then its deflated
/// bytes, and the checksum. Deflated a batch at a time, on two threads,
/// and written as each batch is done. Returns where each entry lies and
/// the pack's checksum.
fn stream_pack(
    path: &Path,
    objects: &[Held<'_>],
    hash: gix::hash::Kind,
) -> std::io::Result<(Vec<Placed>, Vec<u8>)> {
    let count = u32::try_from(objects.len()).map_err(std::io::Error::other)?;
    let mut out = Hashing {
        file: std::io::BufWriter::with_capacity(1 << 18, std::fs::File::create(path)?),
        hasher: gix::hash::hasher(hash),
        written: 0,
    };
    out.put(b"PACK")?;
    out.put(&2u32.to_be_bytes())?;
    out.put(&count.to_be_bytes())?;
    let mut placed = Vec::with_capacity(objects.len());
    let (mut zlib_a, mut zlib_b) = (Compress::new(), Compress::new());
    let (mut buf_a, mut buf_b) = (Vec::new(), Vec::new());
    let mut rest = objects;
    while !rest.is_empty() {
        let mut take = 0;
        let mut bytes = 0;
        while take < rest.len() && (take == 0 || bytes < BATCH_BYTES) {
            bytes += rest[take].1.1.len();
            take += 1;
        }
        let (batch, after) = rest.split_at(take);
        rest = after;
        let (first, second) = batch.split_at(batch.len() / 2);
        let (a, b) = std::thread::scope(|s| {
            let other = s.spawn(|| encode_entries(&mut zlib_b, second, &mut buf_b));
            (encode_entries(&mut zlib_a, first, &mut buf_a), other.join())
        });
        let (a, b) = (
            a?,
            b.map_err(|_| std::io::Error::other("a deflate thread panicked"))??,
        );
        for (buf, entries) in [(&buf_a, a), (&buf_b, b)] {
            let base = out.written;
            placed.extend(entries.into_iter().map(|e| Placed {
                offset: base + e.offset,
                ..e
            }));
            out.put(buf)?;
        }
    }
    let sum = out.hasher.try_finalize().map_err(std::io::Error::other)?;
    // The checksum closes the pack and is not part of what it sums.
    out.file.write_all(sum.as_slice())?;
    out.file.flush()?;
    Ok((placed, sum.as_slice().to_vec()))
}

/// The entries of `objects`, back to back in `out` (cleared first), and
/// where each starts in it.
fn encode_entries(
    zlib: &mut Compress,
    objects: &[Held<'_>],
    out: &mut Vec<u8>,
) -> std::io::Result<Vec<Placed>> {
    out.clear();
    let mut placed = Vec::with_capacity(objects.len());
    for (_, (kind, data)) in objects {
        let start = out.len();
        entry_header(*kind, data.len(), out);
        deflate(zlib, data, out)?;
        placed.push(Placed {
            offset: start as u64,
            crc: gix::features::hash::crc32(&out[start..]),
        });
    }
    Ok(placed)
}

/// The version 2 index of a pack: the fan-out table, the ids in order,
/// each entry's CRC-32, its offset (31 bits, or a pointer into a table of
/// 64-bit ones), the pack's checksum and the index's own.
fn encode_index(
    objects: &[Held<'_>],
    placed: &[Placed],
    pack_sum: &[u8],
    hash: gix::hash::Kind,
) -> std::io::Result<Vec<u8>> {
    let mut order: Vec<usize> = (0..objects.len()).collect();
    order.sort_unstable_by_key(|&i| objects[i].0);
    let mut out = Vec::with_capacity(8 + 1024 + objects.len() * (hash.len_in_bytes() + 8) + 40);
    out.extend_from_slice(&[0xff, b't', b'O', b'c']);
    out.extend_from_slice(&2u32.to_be_bytes());
    let mut fanout = [0u32; 256];
    for (id, _) in objects {
        fanout[usize::from(id.as_slice()[0])] += 1;
    }
    let mut total = 0u32;
    for n in fanout {
        total += n;
        out.extend_from_slice(&total.to_be_bytes());
    }
    for &i in &order {
        out.extend_from_slice(objects[i].0.as_slice());
    }
    for &i in &order {
        out.extend_from_slice(&placed[i].crc.to_be_bytes());
    }
    let mut large = Vec::new();
    for &i in &order {
        let offset = placed[i].offset;
        let small = match u32::try_from(offset) {
            Ok(o) if o < 0x8000_0000 => o,
            _ => {
                let at = u32::try_from(large.len()).map_err(std::io::Error::other)?;
                large.push(offset);
                0x8000_0000 | at
            }
        };
        out.extend_from_slice(&small.to_be_bytes());
    }
    for offset in large {
        out.extend_from_slice(&offset.to_be_bytes());
    }
    out.extend_from_slice(pack_sum);
    let mut hasher = gix::hash::hasher(hash);
    hasher.update(&out);
    let sum = hasher.try_finalize().map_err(std::io::Error::other)?;
    out.extend_from_slice(sum.as_slice());
    Ok(out)
}

/// A kind's type number in a pack entry's header.
fn type_code(kind: gix::object::Kind) -> u8 {
    match kind {
        gix::object::Kind::Commit => 1,
        gix::object::Kind::Tree => 2,
        gix::object::Kind::Blob => 3,
        gix::object::Kind::Tag => 4,
    }
}

/// An entry's header: its type in bits 4–6 of the first byte, its size
/// in the low 4 bits and then 7 bits a byte, low first.
fn entry_header(kind: gix::object::Kind, size: usize, out: &mut Vec<u8>) {
    let mut byte = (type_code(kind) << 4) | (size & 0x0f) as u8;
    let mut rest = size >> 4;
    while rest > 0 {
        out.push(byte | 0x80);
        byte = (rest & 0x7f) as u8;
        rest >>= 7;
    }
    out.push(byte);
}

/// Appends `data` as one zlib stream, reusing the compressor's state.
fn deflate(zlib: &mut Compress, data: &[u8], out: &mut Vec<u8>) -> std::io::Result<()> {
    zlib.reset();
    let mut input = data;
    loop {
        let room = input.len() + input.len() / 8 + 64;
        let at = out.len();
        out.resize(at + room, 0);
        let (read, wrote) = (zlib.total_in(), zlib.total_out());
        let status = zlib
            .compress(input, &mut out[at..], FlushCompress::Finish)
            .map_err(std::io::Error::other)?;
        out.truncate(at + (zlib.total_out() - wrote) as usize);
        input = &input[(zlib.total_in() - read) as usize..];
        if matches!(status, gix::features::zlib::Status::StreamEnd) {
            return Ok(());
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    //! Held objects must reach disk as git itself would write them: git
    //! reads every one (`cat-file`), verifies the pack (`verify-pack`) and
    //! finds the repository sound (`fsck --strict`).
    use super::*;
    use crate::repo::Change;
    use std::process::Command;

    /// Runs git in `dir` without the user's configuration, failing the
    /// test unless it succeeds: its output.
    pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .expect("run git");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn files_in(dir: &Path, ext: &str) -> Vec<std::path::PathBuf> {
        std::fs::read_dir(dir)
            .map(|r| {
                r.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.to_string_lossy().ends_with(ext))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A repository holding objects, and `n` files of assorted sizes
    /// (empty, one byte, kilobytes, and one past 16 MiB's worth of size
    /// bits in its header) written into one tree.
    fn held(
        n: usize,
    ) -> (
        tempfile::TempDir,
        Repo,
        gix::ObjectId,
        Vec<(String, Vec<u8>)>,
    ) {
        let tmp = tempfile::tempdir().expect("tmp");
        let mut repo = Repo::init(tmp.path(), "agents/ann").expect("init");
        repo.hold_objects();
        let files: Vec<(String, Vec<u8>)> = (0..n)
            .map(|i| {
                let bytes = match i % 4 {
                    0 => Vec::new(),
                    1 => vec![b'x'],
                    2 => format!("line {i}\n").repeat(300).into_bytes(),
                    _ => (0..70_000u32).map(|k| (k * 7 + i as u32) as u8).collect(),
                };
                (format!("f{}/file-{i}.md", i % 3), bytes)
            })
            .collect();
        let changes: Vec<Change> = files
            .iter()
            .map(|(path, bytes)| Change::Upsert {
                path: path.clone(),
                bytes: bytes.clone(),
            })
            .collect();
        let tree = repo.write_tree(repo.empty_tree(), &changes).expect("tree");
        (tmp, repo, tree, files)
    }

    #[test]
    fn many_objects_become_one_pack_git_reads_and_verifies() {
        let (tmp, repo, tree, files) = held(250);
        let total: usize = files.iter().map(|(_, b)| b.len()).sum();
        assert!(
            total > 2 * BATCH_BYTES,
            "the pack is written in several batches"
        );
        let packs = tmp.path().join(".git/objects/pack");
        assert!(files_in(&packs, ".pack").is_empty());
        // Held, not on disk: git cannot see the tree yet, this Repo can.
        assert_eq!(repo.flatten(tree).expect("flatten").len(), files.len());
        assert!(
            Command::new("git")
                .args(["cat-file", "-e", &tree.to_string()])
                .current_dir(tmp.path())
                .status()
                .is_ok_and(|s| !s.success())
        );
        let who = crate::repo::Identity {
            name: "Ann".into(),
            email: "ann@example.com".into(),
            signing_key: None,
        };
        let commit = repo.write_commit(tree, &[], "many", &who).expect("commit");
        repo.fast_forward(None, commit, "many", &who).expect("ref");
        let written = files_in(&packs, ".pack");
        assert_eq!(written.len(), 1, "one pack");
        assert_eq!(files_in(&packs, ".idx").len(), 1, "and its index");
        assert!(files_in(&packs, ".keep").is_empty());
        assert!(
            files_in(&packs, "")
                .iter()
                .all(|p| !p.to_string_lossy().contains("tmp_"))
        );
        let verified = git(
            tmp.path(),
            &["verify-pack", "-v", &written[0].to_string_lossy()],
        );
        // Every file's distinct blob, the 1 + 3 trees and the commit.
        let distinct: std::collections::BTreeSet<&Vec<u8>> = files.iter().map(|(_, b)| b).collect();
        assert!(
            verified.contains(&format!("non delta: {} objects", distinct.len() + 5)),
            "{verified}"
        );
        git(tmp.path(), &["fsck", "--strict", "--no-dangling"]);
        for (path, bytes) in &files {
            let shown = Command::new("git")
                .args(["cat-file", "blob", &format!("HEAD:{path}")])
                .current_dir(tmp.path())
                .output()
                .expect("cat-file");
            assert_eq!(&shown.stdout, bytes, "{path}");
        }
        // This Repo reads them back from the new pack, held no more.
        assert_eq!(
            repo.blob_at(tree, &files[3].0).expect("read"),
            Some(files[3].1.clone())
        );
    }

    #[test]
    fn a_few_objects_are_written_loose_and_none_twice() {
        let (tmp, repo, tree, files) = held(6);
        repo.persist_objects().expect("persist");
        repo.persist_objects().expect("nothing more to write");
        assert!(files_in(&tmp.path().join(".git/objects/pack"), ".pack").is_empty());
        assert_eq!(
            git(tmp.path(), &["cat-file", "-t", &tree.to_string()]).trim(),
            "tree"
        );
        let (path, bytes) = &files[2];
        let blob = gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::object::Kind::Blob, bytes)
            .expect("hash");
        let shown = git(tmp.path(), &["cat-file", "blob", &blob.to_string()]);
        assert_eq!(shown.as_bytes(), bytes.as_slice(), "{path}");
    }

    #[test]
    fn held_blobs_are_kept_once_and_handed_to_the_blob_cache_when_written() {
        let (_tmp, repo, _, files) = held(150);
        let distinct: std::collections::BTreeSet<&Vec<u8>> = files.iter().map(|(_, b)| b).collect();
        {
            let cache = repo.blobs.borrow();
            assert!(cache.by_id.is_empty(), "held blobs are not copied");
            assert_eq!(cache.held.len(), distinct.len());
        }
        // Read while held: from the object memory, still not copied.
        let first =
            gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::object::Kind::Blob, &files[2].1)
                .expect("hash");
        assert_eq!(repo.read_blob(first).expect("read"), files[2].1);
        assert!(repo.blobs.borrow().by_id.is_empty());
        repo.persist_objects().expect("persist");
        let cache = repo.blobs.borrow();
        assert!(cache.held.is_empty());
        assert_eq!(cache.by_id.len(), distinct.len());
        for bytes in distinct {
            let id = gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::object::Kind::Blob, bytes)
                .expect("hash");
            assert_eq!(
                cache.by_id.get(&id).map(|b| b.to_vec()).as_ref(),
                Some(bytes)
            );
        }
    }

    #[test]
    fn objects_never_persisted_leave_nothing_behind() {
        let (tmp, repo, _, _) = held(150);
        drop(repo);
        let count = git(tmp.path(), &["count-objects", "-v"]);
        assert!(
            count.contains("count: 0") && count.contains("in-pack: 0"),
            "{count}"
        );
    }

    #[test]
    fn entry_headers_carry_type_and_size_seven_bits_at_a_time() {
        let mut out = Vec::new();
        entry_header(gix::object::Kind::Blob, 15, &mut out);
        assert_eq!(out, [0x3f]);
        out.clear();
        entry_header(gix::object::Kind::Tree, 16, &mut out);
        assert_eq!(out, [0xa0, 0x01]);
        out.clear();
        entry_header(gix::object::Kind::Commit, 70_000, &mut out);
        // 70,000 = 0b1_0001_0001_0111_0000: low 4 bits 0, then 0x117 in 7-bit groups.
        assert_eq!(out, [0x90, 0x97, 0x22]);
    }
}
