//! The index file, `.git/learnsync/search/segment.bin`: an [`Index`] written
//! once so a query reads only what it needs — the small sections whole
//! (header, bucket table, attributes, the JSON of tables, graph and
//! statistics) and, per query term, one slice of the term table and that
//! term's postings; per hit, one learning's metadata. Nothing in it is
//! parsed per learning.
//!
//! Layout (little-endian): magic and version; a header of section offsets;
//! a fanout table (the top 12 bits of a term's FNV-1a hash → the first
//! entry of the sorted term table with those bits, as git's pack index
//! does); the term table (hash, postings offset, count, byte length: 24
//! bytes a term); postings (doc delta as a varint, pseudo-frequency × 256
//! as u16); attributes (12 bytes a learning); metadata offsets and JSON
//! metadata; the info JSON, whose SHA-256 prefix is in the header. Two
//! terms with the same 64-bit hash would share postings: at a million
//! terms the chance is about 1 in 30 million, and the cost a wrong hit.
//!
//! Every read is bounds-checked: a truncated or corrupted file is an error
//! (the caller rebuilds), never a panic or a wild allocation.

use super::doc::Meta;
use super::kg::Graph;
use super::postings::{Attrs, Index, IndexParams, Source, Stats, Tables};
use crate::learning::TrustLevel;
use serde::{Deserialize, Serialize};
use sha2::Digest;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

const MAGIC: &[u8; 8] = b"LSRCHIX\0";
/// 2: evidence carries the agent count. 3: error signatures (`\u{1}s:` terms).
/// 4: a long sentence of an error line is a signature too. 5: error words
/// (`\u{1}w:` terms). 6: a KG synonym said whole owns its phrase before one read
/// short (`ld` over `ld.so`).
pub const VERSION: u32 = 7;
const FANOUT_BITS: u32 = 12;
const HEADER_LEN: usize = 8 + 4 + 4 + 4 + 8 * 8 + 16;
const TERM_ENTRY: usize = 24;
const ATTR_LEN: usize = 12;

/// What a segment says about itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Info {
    /// The commit the segment reflects (hex), if any.
    pub head: Option<String>,
    /// Names this build, so a delta written for it is never applied to another.
    pub build: String,
    pub params: IndexParams,
    pub stats: Stats,
    pub tables: Tables,
    pub graph: Graph,
}

#[derive(Debug, thiserror::Error)]
pub enum SegmentError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("search index is damaged: {0}")]
    Damaged(String),
}

impl From<SegmentError> for std::io::Error {
    fn from(e: SegmentError) -> Self {
        match e {
            SegmentError::Io(e) => e,
            other => std::io::Error::new(std::io::ErrorKind::InvalidData, other.to_string()),
        }
    }
}

fn damaged(what: impl Into<String>) -> SegmentError {
    SegmentError::Damaged(what.into())
}

/// FNV-1a, 64 bits: stable across versions and machines.
pub fn hash(term: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in term.as_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn put_varint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub(super) fn quantise(f: f32) -> u16 {
    if f <= 0.0 {
        0
    } else {
        (f * 256.0).round().clamp(1.0, u16::MAX as f32) as u16
    }
}

fn encode_attrs(a: &Attrs, out: &mut Vec<u8>) {
    out.push(a.trust as u8);
    out.push((a.success.clamp(0.0, 1.0) * 255.0).round() as u8);
    for v in [a.agent, a.project, a.applicable, a.kind, a.day] {
        out.extend_from_slice(&v.to_le_bytes());
    }
}

fn decode_attrs(b: &[u8]) -> Option<Attrs> {
    let trust = match b.first()? {
        0 => TrustLevel::L0,
        1 => TrustLevel::L1,
        2 => TrustLevel::L2,
        3 => TrustLevel::L3,
        _ => return None,
    };
    let u = |i: usize| -> Option<u16> { Some(u16::from_le_bytes([*b.get(i)?, *b.get(i + 1)?])) };
    Some(Attrs {
        trust,
        success: f32::from(*b.get(1)?) / 255.0,
        agent: u(2)?,
        project: u(4)?,
        applicable: u(6)?,
        kind: u(8)?,
        day: u(10)?,
    })
}

/// [`encode_to`] in memory.
#[cfg(test)]
pub fn encode(index: &Index, head: Option<&str>, build: &str) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    encode_to(index, head, build, &mut out).expect("a segment encodes in memory");
    out.into_inner()
}

/// The segment for `index`, reflecting commit `head` (`build` names this
/// build: any unique string), written to `out` as it is laid out (see
/// [`Writer::finish_to`]); the length written.
pub fn encode_to<W: Write + Seek>(
    index: &Index,
    head: Option<&str>,
    build: &str,
    out: &mut W,
) -> std::io::Result<u64> {
    let mut terms: Vec<(u64, &str, u32)> = index
        .dict
        .iter()
        .map(|(t, &id)| (hash(t), t.as_str(), id))
        .collect();
    terms.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(b.1)));
    terms.retain(|(_, _, id)| !index.postings[*id as usize].is_empty());
    let mut w = Writer::start(out, terms.len() as u32)?;
    for (h, _, id) in &terms {
        let list = &index.postings[*id as usize];
        w.term(out, *h, list.iter().map(|&(doc, f)| (doc, quantise(f))))?;
    }
    // Serialised one at a time: the metadata is most of a segment.
    let metas = index
        .metas
        .iter()
        .map(|m| Ok(serde_json::to_vec(m).unwrap_or_default()));
    w.finish_to(
        out,
        &index.attrs,
        metas,
        &Info {
            head: head.map(str::to_string),
            build: build.to_string(),
            params: index.params,
            stats: index.stats,
            tables: index.tables.clone(),
            graph: index.graph.clone(),
        },
    )
}

/// Lays a segment out term by term, in hash order (what [`encode`] and a
/// fold of an existing segment both write), its postings written to the
/// file as they come: only the term table (24 bytes a term) is held.
pub(super) struct Writer {
    counts: Vec<u32>,
    table: Vec<u8>,
    /// One term's postings, reused.
    list: Vec<u8>,
    /// Bytes of postings written so far.
    postings: u64,
    terms: u32,
    /// The terms the file has room for ([`Writer::start`]).
    room: u32,
    last: Option<u64>,
}

/// The fanout table's length in bytes.
const FANOUT_LEN: usize = ((1 << FANOUT_BITS) + 1) * 4;

impl Writer {
    /// Starts a segment of exactly `terms` terms (non-empty posting lists)
    /// in `out`: room for the header, the fanout and the term table, which
    /// [`Writer::finish_to`] fills once they are known.
    pub(super) fn start<W: Write>(out: &mut W, terms: u32) -> std::io::Result<Writer> {
        let room = (HEADER_LEN + FANOUT_LEN) as u64 + u64::from(terms) * TERM_ENTRY as u64;
        std::io::copy(&mut std::io::repeat(0).take(room), out)?;
        Ok(Writer {
            counts: vec![0; (1 << FANOUT_BITS) + 1],
            table: Vec::with_capacity(terms as usize * TERM_ENTRY),
            list: Vec::new(),
            postings: 0,
            terms: 0,
            room: terms,
            last: None,
        })
    }

    /// Writes the postings of the term with hash `h` (doc order, weights as
    /// stored) to `out`; terms come in hash order. An empty list adds
    /// nothing.
    pub(super) fn term<W: Write>(
        &mut self,
        out: &mut W,
        h: u64,
        list: impl Iterator<Item = (u32, u16)>,
    ) -> std::io::Result<()> {
        debug_assert!(self.last.is_none_or(|l| l <= h), "terms out of hash order");
        self.last = Some(h);
        self.list.clear();
        let mut last = 0u32;
        let mut count = 0u32;
        for (doc, q) in list {
            put_varint(&mut self.list, if count == 0 { doc } else { doc - last });
            self.list.extend_from_slice(&q.to_le_bytes());
            last = doc;
            count += 1;
        }
        if count == 0 {
            return Ok(());
        }
        if self.terms == self.room {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "search segment: more terms than announced",
            ));
        }
        out.write_all(&self.list)?;
        self.counts[(h >> (64 - FANOUT_BITS)) as usize + 1] += 1;
        self.table.extend_from_slice(&h.to_le_bytes());
        self.table.extend_from_slice(&self.postings.to_le_bytes());
        self.table.extend_from_slice(&count.to_le_bytes());
        self.table
            .extend_from_slice(&(self.list.len() as u32).to_le_bytes());
        self.postings += self.list.len() as u64;
        self.terms += 1;
        Ok(())
    }

    /// The rest of the file, written to `out` after the postings: every
    /// learning's attributes and metadata (JSON), in doc order, and `info`.
    /// The metadata, most of a segment, is never in memory whole; the
    /// header, fanout, term table and metadata offsets are written last,
    /// into the room left for them. Returns the length written.
    pub(super) fn finish_to<M: AsRef<[u8]>, W: Write + Seek>(
        mut self,
        out: &mut W,
        attrs: &[Attrs],
        metas: impl Iterator<Item = std::io::Result<M>>,
        info: &Info,
    ) -> std::io::Result<u64> {
        if self.terms != self.room {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "search segment: fewer terms than announced",
            ));
        }
        let n = attrs.len();
        for i in 1..self.counts.len() {
            self.counts[i] += self.counts[i - 1];
        }
        let mut attr_bytes = Vec::with_capacity(n * ATTR_LEN);
        for a in attrs {
            encode_attrs(a, &mut attr_bytes);
        }
        let info = serde_json::to_vec(info).unwrap_or_default();
        let offsets_len = (n as u64 + 1) * 8;
        let mut offsets = [0u64; 8];
        offsets[0] = HEADER_LEN as u64;
        offsets[1] = offsets[0] + FANOUT_LEN as u64;
        offsets[2] = offsets[1] + self.table.len() as u64;
        offsets[3] = offsets[2] + self.postings;
        offsets[4] = offsets[3] + attr_bytes.len() as u64;
        offsets[5] = offsets[4] + offsets_len;
        out.write_all(&attr_bytes)?;
        drop(attr_bytes);
        std::io::copy(&mut std::io::repeat(0).take(offsets_len), out)?;
        let mut meta_offsets = Vec::with_capacity(offsets_len as usize);
        let mut at = 0u64;
        for m in metas {
            let m = m?;
            meta_offsets.extend_from_slice(&at.to_le_bytes());
            out.write_all(m.as_ref())?;
            at += m.as_ref().len() as u64;
        }
        meta_offsets.extend_from_slice(&at.to_le_bytes());
        if meta_offsets.len() as u64 != offsets_len {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "search segment: not one metadata entry per learning",
            ));
        }
        offsets[6] = offsets[5] + at;
        out.write_all(&info)?;
        offsets[7] = offsets[6] + info.len() as u64;
        out.seek(SeekFrom::Start(offsets[4]))?;
        out.write_all(&meta_offsets)?;
        let mut header = Vec::with_capacity(HEADER_LEN);
        header.extend_from_slice(MAGIC);
        header.extend_from_slice(&VERSION.to_le_bytes());
        header.extend_from_slice(&(n as u32).to_le_bytes());
        header.extend_from_slice(&self.terms.to_le_bytes());
        for o in offsets {
            header.extend_from_slice(&o.to_le_bytes());
        }
        header.extend_from_slice(&sha2::Sha256::digest(&info)[..16]);
        debug_assert_eq!(header.len(), HEADER_LEN);
        out.seek(SeekFrom::Start(0))?;
        out.write_all(&header)?;
        for c in &self.counts {
            out.write_all(&c.to_le_bytes())?;
        }
        out.write_all(&self.table)?;
        out.seek(SeekFrom::Start(offsets[7]))?;
        Ok(offsets[7])
    }
}

/// What a fold rewrites from a segment: its term table and postings,
/// streamed from the file in hash order ([`Whole::terms`], a buffer at a
/// time: held whole they were 13 MiB of a sync's peak at 100,000
/// learnings), and its metadata offsets, read whole (the metadata itself,
/// most of a segment, it reads in one pass with [`Segment::metas_of`]);
/// checked as a query checks what it reads.
pub(super) struct Whole<'a> {
    file: &'a File,
    /// Where the term table and the postings lie in the file.
    table: (u64, u64),
    postings: (u64, u64),
    meta_offsets: Vec<u8>,
    /// The metadata section's length.
    metas_len: u64,
    n: u32,
}

/// A section of a segment file, read through positional reads (the file's
/// own cursor is another reader's).
struct Section<'a> {
    file: &'a File,
    at: u64,
    end: u64,
}

impl std::io::Read for Section<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let want = (self.end - self.at).min(buf.len() as u64) as usize;
        let got = self.file.read_at(&mut buf[..want], self.at)?;
        self.at += got as u64;
        Ok(got)
    }
}

impl Whole<'_> {
    /// Every term: (hash, postings as stored), in hash order.
    pub(super) fn terms(
        &self,
    ) -> impl Iterator<Item = Result<(u64, Vec<(u32, u16)>), SegmentError>> + '_ {
        use std::io::Read;
        let section = |(at, end)| {
            std::io::BufReader::with_capacity(
                64 * 1024,
                Section {
                    file: self.file,
                    at,
                    end,
                },
            )
        };
        let (mut table, mut postings) = (section(self.table), section(self.postings));
        let count = (self.table.1 - self.table.0) / TERM_ENTRY as u64;
        // Where `postings` is in its section; a list is read as one buffer.
        let (mut read_to, mut buf) = (0u64, Vec::new());
        let cut = |_| damaged("a posting list runs past its section");
        (0..count).map(move |_| {
            let mut e = [0u8; TERM_ENTRY];
            table
                .read_exact(&mut e)
                .map_err(|_| damaged("the term table is cut short"))?;
            let word = |i: usize| {
                let mut x = [0u8; 8];
                x.copy_from_slice(&e[i..i + 8]);
                u64::from_le_bytes(x)
            };
            let count = u32::from_le_bytes([e[16], e[17], e[18], e[19]]);
            let bytes = u32::from_le_bytes([e[20], e[21], e[22], e[23]]);
            let offset = word(8);
            // The lists lie in table order, as the writer laid them.
            let gap = offset
                .checked_sub(read_to)
                .ok_or_else(|| damaged("posting lists out of order"))?;
            std::io::copy(&mut (&mut postings).take(gap), &mut std::io::sink())?;
            buf.resize(bytes as usize, 0);
            postings.read_exact(&mut buf).map_err(cut)?;
            read_to = offset + u64::from(bytes);
            Ok((word(0), decode_list(&buf, count, self.n)?))
        })
    }

    /// Where the stored metadata (JSON) of `doc` lies in its section.
    fn meta_range(&self, doc: u32) -> Result<(u64, u64), SegmentError> {
        let at = |i: usize| -> Option<u64> {
            let b = self.meta_offsets.get(i * 8..i * 8 + 8)?;
            Some(u64::from_le_bytes(b.try_into().ok()?))
        };
        at(doc as usize)
            .zip(at(doc as usize + 1))
            .filter(|&(s, e)| s <= e && e <= self.metas_len)
            .ok_or_else(|| damaged("a learning's metadata runs past its section"))
    }
}

/// Decodes `count` postings of a segment with `n` learnings.
fn decode_list(buf: &[u8], count: u32, n: u32) -> Result<Vec<(u32, u16)>, SegmentError> {
    if count > n || u64::from(count) * 3 > buf.len() as u64 {
        return Err(damaged("a posting list runs past its section"));
    }
    let mut out = Vec::with_capacity(count as usize);
    let mut at = 0usize;
    let mut doc = 0u32;
    for i in 0..count {
        let mut v = 0u32;
        let mut shift = 0;
        loop {
            let b = *buf
                .get(at)
                .ok_or_else(|| damaged("a posting list is cut short"))?;
            at += 1;
            v |= u32::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
            if shift > 28 {
                return Err(damaged("a posting's doc number is malformed"));
            }
        }
        doc = if i == 0 {
            v
        } else {
            doc.checked_add(v)
                .ok_or_else(|| damaged("doc numbers overflow"))?
        };
        if doc >= n {
            return Err(damaged("a posting names a learning past the end"));
        }
        let q = buf
            .get(at..at + 2)
            .ok_or_else(|| damaged("a posting list is cut short"))?;
        at += 2;
        out.push((doc, u16::from_le_bytes([q[0], q[1]])));
    }
    Ok(out)
}

/// An open segment: the small sections in memory, the rest read on demand.
pub struct Segment {
    file: File,
    n: u32,
    n_terms: u32,
    offsets: [u64; 8],
    fanout: Vec<u32>,
    attrs: Vec<Attrs>,
    pub info: Info,
}

impl Segment {
    pub fn open(path: &Path) -> Result<Segment, SegmentError> {
        let file = File::open(path)?;
        let size = file.metadata()?.len();
        let mut header = [0u8; HEADER_LEN];
        file.read_exact_at(&mut header, 0)
            .map_err(|_| damaged("the file is shorter than its header"))?;
        if &header[..8] != MAGIC {
            return Err(damaged("not a learnsync search index"));
        }
        let u32_at =
            |i: usize| u32::from_le_bytes([header[i], header[i + 1], header[i + 2], header[i + 3]]);
        if u32_at(8) != VERSION {
            return Err(damaged(format!(
                "index version {} (this learnsync reads {VERSION})",
                u32_at(8)
            )));
        }
        let n = u32_at(12);
        let n_terms = u32_at(16);
        let mut offsets = [0u64; 8];
        for (i, o) in offsets.iter_mut().enumerate() {
            let s = 20 + i * 8;
            let mut b = [0u8; 8];
            b.copy_from_slice(&header[s..s + 8]);
            *o = u64::from_le_bytes(b);
        }
        if offsets.windows(2).any(|w| w[0] > w[1])
            || offsets[0] != HEADER_LEN as u64
            || offsets[7] != size
        {
            return Err(damaged("section offsets do not fit the file"));
        }
        let len = |i: usize| offsets[i + 1] - offsets[i];
        let buckets = (1usize << FANOUT_BITS) + 1;
        if len(0) != buckets as u64 * 4
            || len(1) != u64::from(n_terms) * TERM_ENTRY as u64
            || len(3) != u64::from(n) * ATTR_LEN as u64
            || len(4) != (u64::from(n) + 1) * 8
        {
            return Err(damaged("section sizes do not match the counts"));
        }
        let read = |i: usize| -> Result<Vec<u8>, SegmentError> {
            let mut buf = vec![0u8; len(i) as usize];
            file.read_exact_at(&mut buf, offsets[i])?;
            Ok(buf)
        };
        let info_bytes = read(6)?;
        if sha2::Sha256::digest(&info_bytes)[..16] != header[HEADER_LEN - 16..] {
            return Err(damaged("its checksum does not match"));
        }
        let info: Info =
            serde_json::from_slice(&info_bytes).map_err(|e| damaged(format!("info: {e}")))?;
        let fanout: Vec<u32> = read(0)?
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        if fanout.windows(2).any(|w| w[0] > w[1]) || fanout.last() != Some(&n_terms) {
            return Err(damaged("the term buckets are out of order"));
        }
        let attrs = read(3)?
            .chunks_exact(ATTR_LEN)
            .map(decode_attrs)
            .collect::<Option<Vec<Attrs>>>()
            .ok_or_else(|| damaged("a learning's attributes are out of range"))?;
        let t = &info.tables;
        if attrs.iter().any(|a| {
            a.agent as usize >= t.agents.len()
                || a.project as usize >= t.projects.len()
                || a.applicable as usize >= t.applicable.len()
                || a.kind as usize >= t.kinds.len()
        }) {
            return Err(damaged("a learning's attributes name no table entry"));
        }
        Ok(Segment {
            file,
            n,
            n_terms,
            offsets,
            fanout,
            attrs,
            info,
        })
    }

    pub fn len(&self) -> u32 {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The term table entry of `term`: (postings offset, count, byte length).
    fn lookup(&self, term: &str) -> Result<Option<(u64, u32, u32)>, SegmentError> {
        let h = hash(term);
        let b = (h >> (64 - FANOUT_BITS)) as usize;
        let (lo, hi) = (self.fanout[b], self.fanout[b + 1]);
        if lo >= hi || hi > self.n_terms {
            return Ok(None);
        }
        let mut buf = vec![0u8; (hi - lo) as usize * TERM_ENTRY];
        self.file.read_exact_at(
            &mut buf,
            self.offsets[1] + u64::from(lo) * TERM_ENTRY as u64,
        )?;
        for e in buf.chunks_exact(TERM_ENTRY) {
            let word = |i: usize| {
                let mut x = [0u8; 8];
                x.copy_from_slice(&e[i..i + 8]);
                u64::from_le_bytes(x)
            };
            if word(0) == h {
                let count = u32::from_le_bytes([e[16], e[17], e[18], e[19]]);
                let bytes = u32::from_le_bytes([e[20], e[21], e[22], e[23]]);
                return Ok(Some((word(8), count, bytes)));
            }
        }
        Ok(None)
    }

    /// The postings of `term`: (doc, pseudo-frequency), by doc.
    pub fn read_postings(&self, term: &str) -> Result<Vec<(u32, f32)>, SegmentError> {
        let Some((offset, count, bytes)) = self.lookup(term)? else {
            return Ok(Vec::new());
        };
        let section = self.offsets[3] - self.offsets[2];
        if offset + u64::from(bytes) > section {
            return Err(damaged("a posting list runs past its section"));
        }
        let mut buf = vec![0u8; bytes as usize];
        self.file
            .read_exact_at(&mut buf, self.offsets[2] + offset)?;
        Ok(decode_list(&buf, count, self.n)?
            .into_iter()
            .map(|(doc, q)| (doc, f32::from(q) / 256.0))
            .collect())
    }

    /// The sections a fold rewrites ([`Whole`]).
    pub(super) fn whole(&self) -> Result<Whole<'_>, SegmentError> {
        let read = |i: usize| -> Result<Vec<u8>, SegmentError> {
            let mut buf = vec![0u8; (self.offsets[i + 1] - self.offsets[i]) as usize];
            self.file.read_exact_at(&mut buf, self.offsets[i])?;
            Ok(buf)
        };
        Ok(Whole {
            file: &self.file,
            table: (self.offsets[1], self.offsets[2]),
            postings: (self.offsets[2], self.offsets[3]),
            meta_offsets: read(4)?,
            metas_len: self.offsets[6] - self.offsets[5],
            n: self.n,
        })
    }

    /// The stored metadata (JSON) of each of `docs` (ascending), read in one
    /// pass over its section, a buffer at a time: a fold copies most of it
    /// as it is, and holding it whole was most of a fold's memory.
    pub(super) fn metas_of<'a>(
        &'a self,
        whole: &'a Whole<'a>,
        docs: impl Iterator<Item = u32> + 'a,
    ) -> impl Iterator<Item = Result<Vec<u8>, SegmentError>> + 'a {
        let mut reader = std::io::BufReader::with_capacity(64 * 1024, &self.file);
        // Where the reader is in the section (`None`: not yet placed).
        let mut at: Option<u64> = None;
        docs.map(move |doc| {
            let (start, end) = whole.meta_range(doc)?;
            match at {
                Some(a) if a <= start => reader.seek_relative((start - a) as i64)?,
                Some(_) => return Err(damaged("metadata read out of order")),
                None => {
                    reader.seek(SeekFrom::Start(self.offsets[5] + start))?;
                }
            }
            let mut buf = vec![0u8; (end - start) as usize];
            reader.read_exact(&mut buf)?;
            at = Some(end);
            Ok(buf)
        })
    }

    pub fn read_meta(&self, doc: u32) -> Result<Meta, SegmentError> {
        if doc >= self.n {
            return Err(damaged("no such learning"));
        }
        let mut b = [0u8; 16];
        self.file
            .read_exact_at(&mut b, self.offsets[4] + u64::from(doc) * 8)?;
        let mut lo = [0u8; 8];
        let mut hi = [0u8; 8];
        lo.copy_from_slice(&b[..8]);
        hi.copy_from_slice(&b[8..]);
        let (start, end) = (u64::from_le_bytes(lo), u64::from_le_bytes(hi));
        if start > end || end > self.offsets[6] - self.offsets[5] {
            return Err(damaged("a learning's metadata runs past its section"));
        }
        let mut buf = vec![0u8; (end - start) as usize];
        self.file.read_exact_at(&mut buf, self.offsets[5] + start)?;
        serde_json::from_slice(&buf).map_err(|e| damaged(format!("metadata: {e}")))
    }

    pub fn attrs_of(&self, doc: u32) -> Option<Attrs> {
        self.attrs.get(doc as usize).copied()
    }

    /// The file's size in bytes.
    pub fn bytes(&self) -> u64 {
        self.offsets[7]
    }
}

/// A segment read as a [`Source`]. A read that fails mid-query (the file
/// was replaced under us, or is damaged past the header) records the error
/// and reads as empty, so the caller can rebuild and ask again.
pub struct SegmentSource<'a> {
    pub segment: &'a Segment,
    pub error: std::cell::RefCell<Option<String>>,
}

impl<'a> SegmentSource<'a> {
    pub fn new(segment: &'a Segment) -> Self {
        SegmentSource {
            segment,
            error: std::cell::RefCell::new(None),
        }
    }

    fn note<T: Default>(&self, r: Result<T, SegmentError>) -> T {
        r.unwrap_or_else(|e| {
            self.error.borrow_mut().get_or_insert(e.to_string());
            T::default()
        })
    }
}

impl Source for SegmentSource<'_> {
    fn doc_slots(&self) -> u32 {
        self.segment.n
    }
    fn live(&self) -> u32 {
        self.segment.n
    }
    fn postings(&self, term: &str) -> Vec<(u32, f32)> {
        self.note(self.segment.read_postings(term))
    }
    fn attrs(&self, doc: u32) -> Option<Attrs> {
        self.segment.attrs_of(doc)
    }
    fn meta(&self, doc: u32) -> Option<Meta> {
        self.note(self.segment.read_meta(doc).map(Some))
    }
    fn tables(&self) -> &Tables {
        &self.segment.info.tables
    }
    fn graph(&self) -> &Graph {
        &self.segment.info.graph
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_through_postings() {
        let mut out = Vec::new();
        for v in [0u32, 1, 127, 128, 16_383, 16_384, u32::MAX >> 4] {
            out.clear();
            put_varint(&mut out, v);
            let mut x = 0u32;
            for (i, b) in out.iter().enumerate() {
                x |= u32::from(b & 0x7f) << (7 * i);
            }
            assert_eq!(x, v);
        }
    }

    #[test]
    fn a_writer_refuses_a_term_count_other_than_the_one_it_made_room_for() {
        let info = || Info {
            head: None,
            build: "b".into(),
            params: IndexParams::default(),
            stats: Stats::default(),
            tables: Tables::default(),
            graph: Graph::default(),
        };
        let no_metas = std::iter::empty::<std::io::Result<Vec<u8>>>;
        let mut out = std::io::Cursor::new(Vec::new());
        let mut w = Writer::start(&mut out, 1).expect("room");
        w.term(&mut out, 1, [(0, 256)].into_iter()).expect("one");
        w.term(&mut out, 2, std::iter::empty())
            .expect("an empty list adds nothing");
        let more = w.term(&mut out, 3, [(0, 256)].into_iter());
        assert!(more.is_err(), "a second term past the room");
        let mut out = std::io::Cursor::new(Vec::new());
        let mut w = Writer::start(&mut out, 2).expect("room");
        w.term(&mut out, 1, [(0, 256)].into_iter()).expect("one");
        let fewer = w.finish_to(&mut out, &[], no_metas(), &info());
        assert!(fewer.is_err(), "a table with an unwritten entry");
        // The count it made room for: a segment that opens.
        let mut out = std::io::Cursor::new(Vec::new());
        let mut w = Writer::start(&mut out, 1).expect("room");
        w.term(&mut out, 1, [(0, 256)].into_iter()).expect("one");
        let a = Attrs {
            trust: TrustLevel::L1,
            success: 0.5,
            agent: 0,
            project: 0,
            applicable: 0,
            kind: 0,
            day: 0,
        };
        let metas = std::iter::once(Ok(b"{}".to_vec()));
        w.finish_to(&mut out, &[a], metas, &info())
            .expect("written");
        let tmp = tempfile::tempdir().expect("tmp");
        let path = tmp.path().join("segment.bin");
        std::fs::write(&path, out.into_inner()).expect("write");
        let segment = Segment::open(&path).expect("opens");
        assert_eq!(segment.len(), 1);
    }

    fn index() -> Index {
        use crate::learning::Learning;
        use crate::search::doc::{Doc, Tally};
        let docs: Vec<Doc> = (0..300)
            .map(|i| {
                let mut l = Learning::new(
                    format!("learning-{i:04}"),
                    format!("agent{}", i % 3),
                    format!(
                        "`tool{} run` failed: error number {} in module m{}",
                        i % 7,
                        i % 11,
                        i
                    ),
                    crate::timestamp::Timestamp::from_unix(1_800_000_000 + i),
                );
                l.trust_level = [TrustLevel::L1, TrustLevel::L2, TrustLevel::L3][i as usize % 3];
                l.correction = Some(format!("use tool{} --fixed", i % 5));
                l.original_command = Some(format!("tool{} run --n {}", i % 7, i));
                Doc::new(
                    &l,
                    &format!("agent{}/learning-{i:04}.md", i % 3),
                    Tally::default(),
                )
            })
            .collect();
        Index::build(&docs, Graph::default(), IndexParams::default())
    }

    #[test]
    fn a_segment_ranks_exactly_as_the_index_it_was_written_from() {
        use crate::search::rank::{Request, Tuning, rank};
        let index = index();
        let tmp = tempfile::tempdir().expect("tmp");
        let path = tmp.path().join("segment.bin");
        std::fs::write(&path, encode(&index, Some("abc"), "b1")).expect("write");
        let segment = Segment::open(&path).expect("opens");
        assert_eq!(segment.info.head.as_deref(), Some("abc"));
        let source = SegmentSource::new(&segment);
        for text in [
            "tool3 run failed error number 4",
            "use tool2 --fixed module m17",
            "tool6 run --n 5",
            "nothing here",
        ] {
            let req = Request {
                text,
                limit: 10,
                ..Request::default()
            };
            let a = rank(&index, &req, &Tuning::default());
            let b = rank(&source, &req, &Tuning::default());
            assert_eq!(a, b, "{text}");
        }
        assert!(source.error.borrow().is_none());
        assert_eq!(source.meta(42), index.metas.get(42).cloned());
    }

    #[test]
    fn a_damaged_segment_is_an_error_never_a_panic() {
        let bytes = encode(&index(), None, "b1");
        let tmp = tempfile::tempdir().expect("tmp");
        let path = tmp.path().join("segment.bin");
        for cut in [0, 7, 40, HEADER_LEN, bytes.len() / 2, bytes.len() - 1] {
            std::fs::write(&path, &bytes[..cut]).expect("write");
            assert!(Segment::open(&path).is_err(), "cut at {cut}");
        }
        // Flipped bytes past the header: open may succeed, reads must not panic.
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200 {
            let mut b = bytes.clone();
            for _ in 0..8 {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let at = (rng as usize) % b.len();
                b[at] ^= (rng >> 32) as u8 | 1;
            }
            std::fs::write(&path, &b).expect("write");
            if let Ok(s) = Segment::open(&path) {
                for t in ["tool1", "run", "fail", "\u{1}id:learning-0001"] {
                    let _ = s.read_postings(t);
                }
                for d in [0, 1, 150, 299, 300] {
                    let _ = s.read_meta(d);
                }
            }
        }
    }

    #[test]
    fn attributes_round_trip() {
        let a = Attrs {
            trust: TrustLevel::L2,
            success: 0.8,
            agent: 3,
            project: 65_535,
            applicable: 1,
            kind: 2,
            day: 20_000,
        };
        let mut b = Vec::new();
        encode_attrs(&a, &mut b);
        assert_eq!(b.len(), ATTR_LEN);
        let back = decode_attrs(&b).expect("decodes");
        assert_eq!(back.trust, a.trust);
        assert!((back.success - 0.8).abs() < 0.01);
        assert_eq!(
            (
                back.agent,
                back.project,
                back.applicable,
                back.kind,
                back.day
            ),
            (3, 65_535, 1, 2, 20_000)
        );
        assert!(
            decode_attrs(&[9; ATTR_LEN]).is_none(),
            "a trust level past L3 is damage"
        );
    }
}
