//! Folding the learnings changed since a segment was written into a new
//! segment, at the level the file stores them: postings by term hash. A
//! learning the segment keeps is never parsed, tokenised or weighed again,
//! so a sync that changed a third of a large dir rewrites the index in a
//! fraction of a rebuild's time and memory.
//!
//! What a fold keeps exact: every posting, attribute and metadata of the
//! learnings kept; the graph's ranks (recounted from the concept terms);
//! the fields' total lengths. What it keeps as it was: the average field
//! lengths the postings were weighed with (the learnings added were weighed
//! with them too). When the true averages have drifted more than
//! [`MAX_DRIFT`] from them, a fold declines and the caller rebuilds.

use super::doc::{Evidence, FIELD_COUNT, Meta};
use super::postings::{CONCEPT, Interner, Stats, WeighedDoc};
use super::segment::{Info, Segment, SegmentError, Writer, hash, quantise};
use crate::learning::TrustLevel;
use std::collections::{BTreeMap, HashMap, HashSet};

/// A tenth: BM25's length norm moves by less than that share of `b`.
pub const MAX_DRIFT: f32 = 0.1;

/// What changed since the segment was written.
pub struct Changes<'a> {
    /// Segment learnings replaced or deleted.
    pub removed: &'a [u32],
    /// Newer evidence of segment learnings whose events alone changed.
    pub evidence: &'a BTreeMap<u32, Evidence>,
    /// Learnings added or replaced, weighed against the segment's
    /// statistics and graph (kept in this order, after the segment's).
    pub added: &'a [WeighedDoc],
}

/// True when `changes` would move a field's average length more than
/// [`MAX_DRIFT`] from the one `segment`'s postings (and the added
/// learnings) were weighed with, or the segment does not know its totals:
/// the index must then be rebuilt rather than carry the changes. A delta
/// is checked on every update, not only when it is folded: laid over a
/// segment of a few learnings, a handful of longer ones would otherwise
/// be weighed against averages they do not resemble until the fold.
pub fn drifted(segment: &Segment, changes: &Changes<'_>) -> Result<bool, SegmentError> {
    let n = segment.len();
    let removed: HashSet<u32> = changes.removed.iter().copied().filter(|&d| d < n).collect();
    let lens = |doc| segment.read_meta(doc).map(|m| m.lens);
    Ok(match stats_after(segment, &removed, changes.added, lens)? {
        Some(stats) => stats.drift().is_some_and(|d| d > MAX_DRIFT),
        None => true,
    })
}

/// The segment's totals after `removed` left and `added` came (`None` when
/// the segment does not know its totals); `lens` reads a segment
/// learning's field lengths.
fn stats_after(
    segment: &Segment,
    removed: &HashSet<u32>,
    added: &[WeighedDoc],
    lens: impl Fn(u32) -> Result<[u32; FIELD_COUNT], SegmentError>,
) -> Result<Option<Stats>, SegmentError> {
    let mut stats = segment.info.stats;
    let n = segment.len();
    if stats.docs == 0 && n > 0 {
        return Ok(None);
    }
    for &doc in removed {
        for (total, len) in stats.total_len.iter_mut().zip(lens(doc)?) {
            *total = total.saturating_sub(u64::from(len));
        }
    }
    for d in added {
        for f in 0..FIELD_COUNT {
            stats.total_len[f] += u64::from(d.meta.lens[f]);
        }
    }
    stats.docs = u64::from(n - removed.len() as u32) + added.len() as u64;
    Ok(Some(stats))
}

/// [`fold_to`] in memory: the bytes, or `None`.
#[cfg(test)]
pub fn fold(
    segment: &Segment,
    changes: &Changes<'_>,
    head: Option<&str>,
    build: &str,
) -> Result<Option<Vec<u8>>, SegmentError> {
    let mut out = std::io::Cursor::new(Vec::new());
    Ok(fold_to(segment, changes, head, build, &mut out)?.map(|_| out.into_inner()))
}

/// A new segment, `segment` with `changes` applied, reflecting `head`,
/// named `build`, written to `out` as it is laid out (its metadata is never
/// in memory whole): the length written. `None`, with nothing written, when
/// the field lengths drifted too far from the averages weighed with (or the
/// segment does not know its totals): rebuild instead.
pub fn fold_to<W: std::io::Write + std::io::Seek>(
    segment: &Segment,
    changes: &Changes<'_>,
    head: Option<&str>,
    build: &str,
    out: &mut W,
) -> Result<Option<u64>, SegmentError> {
    let info = &segment.info;
    let whole = segment.whole()?;
    let n = segment.len();
    let removed: HashSet<u32> = changes.removed.iter().copied().filter(|&d| d < n).collect();

    // Only the learnings removed: a read each.
    let lens = |doc| segment.read_meta(doc).map(|m| m.lens);
    let Some(stats) = stats_after(segment, &removed, changes.added, lens)? else {
        return Ok(None);
    };
    if stats.drift().is_some_and(|d| d > MAX_DRIFT) {
        return Ok(None);
    }
    let kept = n - removed.len() as u32;

    // Doc numbers: the learnings kept, in order, then the ones added.
    let mut renumber = vec![u32::MAX; n as usize];
    let mut next = 0u32;
    for (doc, slot) in renumber.iter_mut().enumerate() {
        if !removed.contains(&(doc as u32)) {
            *slot = next;
            next += 1;
        }
    }
    let mut added: Vec<(u64, u32, u16)> = Vec::new();
    for (i, d) in changes.added.iter().enumerate() {
        let doc = kept + i as u32;
        added.extend(d.terms.iter().map(|(t, f)| (hash(t), doc, quantise(f))));
    }
    added.sort_unstable();

    // Concepts by the hash of their term, to recount the graph's ranks.
    let concepts: HashMap<u64, u32> = info
        .graph
        .concepts
        .iter()
        .enumerate()
        .map(|(i, c)| (hash(&format!("{CONCEPT}{}", c.name)), i as u32))
        .collect();
    let total = stats.docs as usize;

    // Two passes over the merged lists: the first counts the terms (and the
    // concepts' postings), so the second writes each list to the file as it
    // comes.
    let (mut terms, mut mentioned) = (0u32, 0usize);
    each_list(&whole, &added, &renumber, |h, list| {
        terms += u32::from(!list.is_empty());
        if concepts.contains_key(&h) {
            mentioned += list.len();
        }
        Ok(())
    })?;
    // (learning, concept), each once: a concept is one term.
    let mut mentions: Vec<(u32, u32)> = Vec::with_capacity(mentioned);
    let mut w = Writer::start(out, terms)?;
    each_list(&whole, &added, &renumber, |h, list| {
        if let Some(&c) = concepts.get(&h) {
            mentions.extend(list.iter().map(|&(doc, _)| (doc, c)));
        }
        w.term(out, h, list.iter().copied())?;
        Ok(())
    })?;

    // Attributes and metadata: the kept learnings' as stored (newer
    // evidence laid in), then the added ones', their strings interned into
    // the segment's tables. The metadata is read and written a learning at
    // a time.
    let kept_docs = || (0..n).filter(|d| !removed.contains(d));
    let mut attrs = Vec::with_capacity(total);
    for doc in kept_docs() {
        let mut a = segment
            .attrs_of(doc)
            .ok_or_else(|| SegmentError::Damaged("no attributes".into()))?;
        if let Some(e) = changes.evidence.get(&doc) {
            a.success = (e.success() * 255.0).round() / 255.0;
        }
        attrs.push(a);
    }
    let mut interner = Interner::new(info.tables.clone());
    for d in changes.added {
        let trust = TrustLevel::parse(&d.meta.trust).unwrap_or(TrustLevel::L1);
        attrs.push(interner.attrs(&d.meta, trust));
    }
    let stored = segment.metas_of(&whole, kept_docs()).zip(kept_docs()).map(
        |(bytes, doc)| -> std::io::Result<Vec<u8>> {
            let bytes = bytes?;
            let Some(e) = changes.evidence.get(&doc) else {
                return Ok(bytes);
            };
            let mut meta: Meta = serde_json::from_slice(&bytes)
                .map_err(|e| SegmentError::Damaged(format!("metadata: {e}")))?;
            meta.evidence = *e;
            Ok(serde_json::to_vec(&meta).unwrap_or_default())
        },
    );
    let added_metas = changes
        .added
        .iter()
        .map(|d| Ok(serde_json::to_vec(&d.meta).unwrap_or_default()));
    let metas = stored.chain(added_metas);
    let mut graph = info.graph.clone();
    mentions.sort_unstable();
    graph.rank(&mentions);
    drop(mentions);
    Ok(Some(w.finish_to(
        out,
        &attrs,
        metas,
        &Info {
            head: head.map(str::to_string),
            build: build.to_string(),
            params: info.params,
            stats,
            tables: interner.tables,
            graph,
        },
    )?))
}

/// Calls `f` with each term's hash and its new posting list, in hash
/// order: the segment's list (renumbered, removed learnings left out) and
/// the added learnings' postings of that hash after it.
fn each_list(
    whole: &super::segment::Whole<'_>,
    added: &[(u64, u32, u16)],
    renumber: &[u32],
    mut f: impl FnMut(u64, &[(u32, u16)]) -> Result<(), SegmentError>,
) -> Result<(), SegmentError> {
    let mut from_segment = whole.terms().peekable();
    let mut from_added = added.iter().peekable();
    let mut list: Vec<(u32, u16)> = Vec::new();
    loop {
        let next_seg = match from_segment.peek() {
            Some(Ok((h, _))) => Some(*h),
            Some(Err(_)) => {
                return Err(from_segment
                    .next()
                    .and_then(Result::err)
                    .unwrap_or_else(|| SegmentError::Damaged("term table".into())));
            }
            None => None,
        };
        let next_add = from_added.peek().map(|(h, _, _)| *h);
        let Some(h) = next_seg.into_iter().chain(next_add).min() else {
            return Ok(());
        };
        list.clear();
        // Equal hashes in the segment (two terms that collide) share a list
        // here, as a lookup would have found only the first.
        while let Some(Ok((sh, _))) = from_segment.peek()
            && *sh == h
        {
            if let Some(Ok((_, postings))) = from_segment.next() {
                list.extend(
                    postings
                        .into_iter()
                        .map(|(doc, q)| (renumber[doc as usize], q))
                        .filter(|&(doc, _)| doc != u32::MAX),
                );
            }
        }
        list.sort_by_key(|&(doc, _)| doc);
        while let Some(&&(ah, doc, q)) = from_added.peek()
            && ah == h
        {
            list.push((doc, q));
            from_added.next();
        }
        f(h, &list)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learning::Learning;
    use crate::search::doc::{Doc, Tally};
    use crate::search::kg::{self, Graph, Matcher};
    use crate::search::postings::{Index, IndexParams, Source, Stats, weigh};
    use crate::search::rank::{Request, Tuning, rank};
    use crate::search::segment::{SegmentSource, encode};

    fn graph() -> Graph {
        let files: Vec<(String, Vec<u8>)> = [
            (
                "kg/protected-branch.md",
                "synonyms:: protected branch, GH006\n",
            ),
            ("kg/lockfile.md", "synonyms:: lockfile, lock file\n"),
            ("kg/timeout.md", "synonyms:: timed out, timeout\n"),
        ]
        .iter()
        .map(|(p, t)| (p.to_string(), t.as_bytes().to_vec()))
        .collect();
        let (concepts, problems) = kg::check(&files);
        assert!(problems.is_empty(), "{problems:?}");
        Graph::from_files(&concepts)
    }

    fn doc(i: usize, variant: &str) -> Doc {
        let topic = [
            "protected branch GH006",
            "stale lock file",
            "request timed out",
        ][i % 3];
        let mut l = Learning::new(
            format!("learning-{i:04}"),
            format!("agent{}", i % 4),
            format!("`tool{} run` failed on {topic} {variant}", i % 7),
            crate::timestamp::Timestamp::from_unix(1_800_000_000 + i as i64),
        );
        l.trust_level = [TrustLevel::L1, TrustLevel::L2, TrustLevel::L3][i % 3];
        l.correction = Some(format!("use tool{} --fixed {variant}", i % 5));
        l.original_command = Some(format!("tool{} run --n {i}", i % 7));
        l.body = "words ".repeat(i % 9) + variant;
        let agent = format!("agent{}", i % 4);
        Doc::new(&l, &format!("{agent}/learning-{i:04}.md"), Tally::default())
    }

    /// `index` written as a segment file in `dir`, opened.
    fn written(index: &Index, dir: &std::path::Path, head: Option<&str>) -> Segment {
        let path = dir.join("segment.bin");
        std::fs::write(&path, encode(index, head, "b1")).expect("write");
        Segment::open(&path).expect("opens")
    }

    fn weighed(d: &Doc, graph: &Graph, stats: &Stats) -> WeighedDoc {
        let m = Matcher::new(graph);
        WeighedDoc {
            meta: d.meta.clone(),
            terms: weigh(d, &m, graph, &IndexParams::default(), stats),
        }
    }

    /// Every term a set of docs has, to compare two sources list by list.
    fn all_terms(docs: &[WeighedDoc]) -> Vec<String> {
        let mut t: Vec<String> = docs
            .iter()
            .flat_map(|d| d.terms.iter().map(|(t, _)| t.to_string()))
            .collect();
        t.sort();
        t.dedup();
        t
    }

    #[test]
    fn a_fold_is_the_index_the_changed_learnings_would_have_been_assembled_into() {
        let tmp = tempfile::tempdir().expect("tmp");
        let docs: Vec<Doc> = (0..120).map(|i| doc(i, "first")).collect();
        let built = Index::build(&docs, graph(), IndexParams::default());
        let segment = written(&built, tmp.path(), Some("c1"));
        let stats = segment.info.stats;

        // Replace every third learning with a longer text, delete two, add
        // five, and give one kept learning newer evidence.
        let mut removed: Vec<u32> = (0..120).step_by(3).collect();
        removed.extend([1, 2]);
        let mut added: Vec<WeighedDoc> = (0..120)
            .step_by(3)
            .map(|i| weighed(&doc(i, "lockfile"), &segment.info.graph, &stats))
            .collect();
        added.extend((120..125).map(|i| weighed(&doc(i, "new"), &segment.info.graph, &stats)));
        let mut evidence = BTreeMap::new();
        let newer = Evidence {
            effective: 9,
            ineffective: 4,
            recurred: 1,
            agents: 2,
        };
        evidence.insert(4u32, newer);
        let changes = Changes {
            removed: &removed,
            evidence: &evidence,
            added: &added,
        };
        let bytes = fold(&segment, &changes, Some("c2"), "b2")
            .expect("folds")
            .expect("no drift");
        let folded_path = tmp.path().join("folded.bin");
        std::fs::write(&folded_path, bytes).expect("write");
        let folded = Segment::open(&folded_path).expect("opens");

        // The reference: the kept learnings as they were (newer evidence
        // in), then the added ones, assembled from their weighed terms, the
        // graph ranked from all of them.
        let mut reference: Vec<WeighedDoc> = (0..120u32)
            .filter(|d| !removed.contains(d))
            .map(|d| {
                let mut w = weighed(&docs[d as usize], &segment.info.graph, &stats);
                if let Some(e) = evidence.get(&d) {
                    w.meta.evidence = *e;
                }
                w
            })
            .collect();
        reference.extend(added.iter().cloned());
        let mut g = segment.info.graph.clone();
        let mentions: Vec<(u32, u32)> = reference
            .iter()
            .enumerate()
            .flat_map(|(n, d)| {
                crate::search::postings::mentioned(&d.terms, &g)
                    .into_iter()
                    .map(move |c| (n as u32, c))
            })
            .collect();
        g.rank(&mentions);
        let expected = Index::assemble(
            &reference,
            g,
            IndexParams::default(),
            stats,
            segment.info.tables.clone(),
        );

        assert_eq!(folded.len() as usize, reference.len());
        assert_eq!(folded.info.graph, expected.graph, "the ranks are recounted");
        assert_ne!(
            folded.info.graph, segment.info.graph,
            "the change moved the ranks (else the check above proves nothing)"
        );
        assert_eq!(folded.info.head.as_deref(), Some("c2"));
        let src = SegmentSource::new(&folded);
        for t in all_terms(&reference) {
            assert_eq!(src.postings(&t), expected.postings(&t), "postings of {t:?}");
        }
        for d in 0..reference.len() as u32 {
            assert_eq!(src.meta(d), expected.meta(d), "meta of {d}");
            assert_eq!(src.attrs(d), Source::attrs(&expected, d), "attrs of {d}");
        }
        for text in [
            "protected branch",
            "lock file tool3",
            "timed out --fixed new",
        ] {
            let req = Request {
                text,
                limit: 10,
                ..Request::default()
            };
            assert_eq!(
                rank(&src, &req, &Tuning::default()),
                rank(&expected, &req, &Tuning::default()),
                "{text}"
            );
        }
        // The totals are those of the learnings now in it.
        let mut totals = [0u64; FIELD_COUNT];
        for d in &reference {
            for (f, t) in totals.iter_mut().enumerate() {
                *t += u64::from(d.meta.lens[f]);
            }
        }
        assert_eq!(folded.info.stats.total_len, totals);
        assert_eq!(folded.info.stats.docs, reference.len() as u64);
        assert!(src.error.borrow().is_none());
    }

    #[test]
    fn a_delta_has_drifted_when_it_moves_a_small_index_s_averages() {
        let tmp = tempfile::tempdir().expect("tmp");
        let none = BTreeMap::new();
        let long = "a much longer body that goes on ".repeat(40);
        // Three short learnings and one long one: the body's average more
        // than doubles, whatever else the delta holds.
        let docs: Vec<Doc> = (0..3).map(|i| doc(i, "short")).collect();
        let segment = written(
            &Index::build(&docs, graph(), IndexParams::default()),
            tmp.path(),
            None,
        );
        let one_long = [weighed(
            &doc(3, &long),
            &segment.info.graph,
            &segment.info.stats,
        )];
        let changes = |added| Changes {
            removed: &[],
            evidence: &none,
            added,
        };
        assert!(drifted(&segment, &changes(&one_long)).expect("reads"));
        // A twin of the middle learning: no drift, the delta carries it.
        let one_short = [weighed(
            &doc(1, "short"),
            &segment.info.graph,
            &segment.info.stats,
        )];
        assert!(!drifted(&segment, &changes(&one_short)).expect("reads"));
        // Over two thousand learnings, the long one moves nothing much.
        let docs: Vec<Doc> = (0..2000).map(|i| doc(i, "short")).collect();
        let big = Index::build(&docs, graph(), IndexParams::default());
        let segment = written(&big, tmp.path(), None);
        let one_long = [weighed(
            &doc(2000, &long),
            &segment.info.graph,
            &segment.info.stats,
        )];
        assert!(!drifted(&segment, &changes(&one_long)).expect("reads"));
        // Totals unknown (a segment of an older learnsync): rebuild.
        let mut old = big;
        old.stats.docs = 0;
        let segment = written(&old, tmp.path(), None);
        assert!(drifted(&segment, &changes(&one_short)).expect("reads"));
    }

    #[test]
    fn a_fold_declines_when_the_lengths_drift_or_are_not_known() {
        let tmp = tempfile::tempdir().expect("tmp");
        let docs: Vec<Doc> = (0..50).map(|i| doc(i, "short")).collect();
        let built = Index::build(&docs, graph(), IndexParams::default());
        let segment = written(&built, tmp.path(), None);
        let long = "a much longer body that goes on ".repeat(40);
        let added: Vec<WeighedDoc> = (0..50)
            .map(|i| weighed(&doc(i, &long), &segment.info.graph, &segment.info.stats))
            .collect();
        let removed: Vec<u32> = (0..50).collect();
        let none = BTreeMap::new();
        let changes = Changes {
            removed: &removed,
            evidence: &none,
            added: &added,
        };
        assert!(
            fold(&segment, &changes, None, "b2")
                .expect("reads")
                .is_none()
        );
        // A small change of the same shape folds.
        let few = Changes {
            removed: &removed[..1],
            evidence: &none,
            added: &added[..0],
        };
        assert!(fold(&segment, &few, None, "b2").expect("reads").is_some());

        // A segment written before totals were kept: a rebuild is due.
        let mut old = built.clone();
        old.stats.docs = 0;
        old.stats.total_len = [0; FIELD_COUNT];
        let segment = written(&old, tmp.path(), None);
        assert!(fold(&segment, &few, None, "b2").expect("reads").is_none());
    }

    #[test]
    fn a_fold_over_damaged_metadata_is_an_error_not_a_panic() {
        let tmp = tempfile::tempdir().expect("tmp");
        let docs: Vec<Doc> = (0..30).map(|i| doc(i, "first")).collect();
        let built = Index::build(&docs, graph(), IndexParams::default());
        let mut bytes = encode(&built, None, "b1");
        // The header's fifth offset is the metadata offsets' table: make the
        // tenth learning's metadata end far past its section.
        let at = 20 + 4 * 8;
        let table = u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes")) as usize;
        bytes[table + 10 * 8..table + 11 * 8].copy_from_slice(&(1u64 << 40).to_le_bytes());
        let path = tmp.path().join("damaged.bin");
        std::fs::write(&path, &bytes).expect("write");
        let segment = Segment::open(&path).expect("the sections a query needs first are intact");
        let none = BTreeMap::new();
        let changes = Changes {
            removed: &[0],
            evidence: &none,
            added: &[],
        };
        let err = fold(&segment, &changes, None, "b2").expect_err("damaged");
        assert!(err.to_string().contains("metadata"), "{err}");
    }
}
