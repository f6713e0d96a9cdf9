//! Folding a capture log into the snapshot entry by entry: each part file
//! is read and rewritten as a stream, so a sync holds the log, its own
//! delta and one entry of the snapshot, never the whole index (decoded,
//! ~22 MiB at 10,000 learnings and ten times that at 100,000, and its
//! serialised copy beside it: the synced-before peak of issue 32).
//!
//! Not for readers: a hook looks up in a whole part ([`CaptureIndex::load`]).
//! What a fold writes is what loading the snapshot, applying the log and
//! the delta and saving wrote, byte for byte (tested).

use serde::Serialize;
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor,
};
use std::collections::{BTreeMap, HashSet};
use std::io::{BufReader, BufWriter, Write};
use std::path::Path;

use super::{Advice, CaptureIndex, Known, PatternAdvice, VERSION};
use crate::store::StateDir;

/// What a fold lays over the snapshot: the log's lines and then the sync's
/// delta, applied in order to an empty index, and every learning any of
/// them forgets, whose snapshot entries go.
pub(super) struct Overlay {
    index: CaptureIndex,
    gone: HashSet<String>,
}

impl Overlay {
    /// The log's deltas (oldest first), then `delta`.
    pub(super) fn of(log: Vec<CaptureIndex>, delta: CaptureIndex) -> Overlay {
        let gone: HashSet<String> = log
            .iter()
            .chain([&delta])
            .flat_map(|d| d.forget.iter().cloned())
            .collect();
        let mut index = CaptureIndex::default();
        index.apply_deltas(log);
        index.merge(delta);
        Overlay { index, gone }
    }

    fn gone(&self, id: &str) -> bool {
        self.gone.contains(id)
    }
}

/// Rewrites both part files with `overlay` folded in, advice first (as
/// [`CaptureIndex::save`]). An error leaves a part as it was; one that is
/// missing, of another version or not in the shape a save writes is an
/// error too (the caller rebuilds the index).
pub(super) fn fold(state: &StateDir, overlay: &Overlay) -> std::io::Result<()> {
    fold_part(&state.capture_advice(), Half::Advice, overlay)?;
    fold_part(&state.capture_index(), Half::Failures, overlay)
}

/// Which half of the index a part file holds; the other half's fields are
/// written empty.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Half {
    Failures,
    Advice,
}

fn fold_part(path: &Path, half: Half, overlay: &Overlay) -> std::io::Result<()> {
    let old = std::fs::File::open(path)?;
    crate::store::replace_file_with(path, |file| {
        let mut out = BufWriter::with_capacity(64 << 10, file);
        let mut de = serde_json::Deserializer::from_reader(BufReader::with_capacity(64 << 10, old));
        Part {
            half,
            overlay,
            out: &mut out,
        }
        .deserialize(&mut de)
        .and_then(|()| de.end())
        .map_err(std::io::Error::other)?;
        out.flush()?;
        Ok(true)
    })
    .map(drop)
}

fn write_err<E: de::Error>(e: std::io::Error) -> E {
    E::custom(format!("writing the capture index: {e}"))
}

/// A part file, `{"version":…,"failures":{…},"warnings":{…},"patterns":[…]}`
/// in that order, read and written field by field.
struct Part<'a, W> {
    half: Half,
    overlay: &'a Overlay,
    out: &'a mut W,
}

const FIELDS: [&str; 4] = ["version", "failures", "warnings", "patterns"];

impl<'de, W: Write> DeserializeSeed<'de> for Part<'_, W> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, W: Write> Visitor<'de> for Part<'_, W> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a capture index part")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Part { half, overlay, out } = self;
        let ours = &overlay.index;
        for (i, field) in FIELDS.into_iter().enumerate() {
            let key: Option<String> = map.next_key()?;
            if key.as_deref() != Some(field) {
                return Err(de::Error::custom(format!(
                    "expected field `{field}`, found {key:?}"
                )));
            }
            let sep = if i == 0 { '{' } else { ',' };
            write!(out, "{sep}\"{field}\":").map_err(write_err)?;
            match (field, half) {
                ("version", _) => {
                    let version: u32 = map.next_value()?;
                    if version != VERSION {
                        return Err(de::Error::custom(format!("version {version}")));
                    }
                    write!(out, "{VERSION}").map_err(write_err)?;
                }
                ("failures", Half::Failures) => map.next_value_seed(SortedMerge {
                    ours: &ours.failures,
                    out: &mut *out,
                    combine: |old: Known, new: Option<&Known>| match new {
                        Some(new) => Some(new.clone()),
                        None => (!overlay.gone(&old.id)).then_some(old),
                    },
                })?,
                ("warnings", Half::Advice) => map.next_value_seed(SortedMerge {
                    ours: &ours.warnings,
                    out: &mut *out,
                    combine: |mut old: Vec<Advice>, new: Option<&Vec<Advice>>| {
                        old.retain(|a| {
                            !overlay.gone(&a.id)
                                && new.is_none_or(|new| new.iter().all(|n| n.id != a.id))
                        });
                        old.extend(new.into_iter().flatten().cloned());
                        (!old.is_empty()).then_some(old)
                    },
                })?,
                ("patterns", Half::Advice) => map.next_value_seed(Patterns {
                    overlay,
                    out: &mut *out,
                })?,
                // The other half's field: written empty, as a save does.
                (field, _) => {
                    map.next_value::<IgnoredAny>()?;
                    let empty = if field == "patterns" { "[]" } else { "{}" };
                    out.write_all(empty.as_bytes()).map_err(write_err)?;
                }
            }
        }
        if let Some(extra) = map.next_key::<String>()? {
            return Err(de::Error::custom(format!("unexpected field `{extra}`")));
        }
        out.write_all(b"}").map_err(write_err)
    }
}

/// A map field: the snapshot's entries in their (sorted) order, each
/// `combine`d with the overlay's entry of the same key, and the overlay's
/// other entries in their places. A snapshot whose keys are not in order
/// was not written by a save: an error.
struct SortedMerge<'a, V, W, F> {
    ours: &'a BTreeMap<String, V>,
    out: &'a mut W,
    combine: F,
}

impl<'de, V, W, F> DeserializeSeed<'de> for SortedMerge<'_, V, W, F>
where
    V: DeserializeOwned + Serialize,
    W: Write,
    F: Fn(V, Option<&V>) -> Option<V>,
{
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, V, W, F> Visitor<'de> for SortedMerge<'_, V, W, F>
where
    V: DeserializeOwned + Serialize,
    W: Write,
    F: Fn(V, Option<&V>) -> Option<V>,
{
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a map")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let SortedMerge { ours, out, combine } = self;
        let mut ours = ours.iter().peekable();
        let mut entries = Entries::new(out, b'{').map_err(write_err)?;
        let mut last: Option<String> = None;
        while let Some(key) = map.next_key::<String>()? {
            if last.as_ref().is_some_and(|last| *last >= key) {
                return Err(de::Error::custom(format!("key {key:?} out of order")));
            }
            let old: V = map.next_value()?;
            while let Some((k, v)) = ours.next_if(|(k, _)| k.as_str() < key.as_str()) {
                entries.entry(k, v).map_err(write_err)?;
            }
            let new = ours.next_if(|(k, _)| **k == key).map(|(_, v)| v);
            if let Some(v) = combine(old, new) {
                entries.entry(&key, &v).map_err(write_err)?;
            }
            last = Some(key);
        }
        for (k, v) in ours {
            entries.entry(k, v).map_err(write_err)?;
        }
        entries.close(b'}').map_err(write_err)
    }
}

/// The patterns: the snapshot's, less those of learnings the overlay
/// forgets or files again, then the overlay's.
struct Patterns<'a, W> {
    overlay: &'a Overlay,
    out: &'a mut W,
}

impl<'de, W: Write> DeserializeSeed<'de> for Patterns<'_, W> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, W: Write> Visitor<'de> for Patterns<'_, W> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a list of patterns")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let Patterns { overlay, out } = self;
        let ours = &overlay.index.patterns;
        let refiled: HashSet<&str> = ours.iter().map(|p| p.advice.id.as_str()).collect();
        let mut entries = Entries::new(out, b'[').map_err(write_err)?;
        while let Some(p) = seq.next_element::<PatternAdvice>()? {
            let id = p.advice.id.as_str();
            if !overlay.gone(id) && !refiled.contains(id) {
                entries.item(&p).map_err(write_err)?;
            }
        }
        for p in ours {
            entries.item(p).map_err(write_err)?;
        }
        entries.close(b']').map_err(write_err)
    }
}

/// A JSON object or array being written, compact as `serde_json::to_vec`.
struct Entries<'a, W> {
    out: &'a mut W,
    first: bool,
}

impl<'a, W: Write> Entries<'a, W> {
    fn new(out: &'a mut W, open: u8) -> std::io::Result<Self> {
        out.write_all(&[open])?;
        Ok(Entries { out, first: true })
    }

    fn separate(&mut self) -> std::io::Result<()> {
        if !std::mem::take(&mut self.first) {
            self.out.write_all(b",")?;
        }
        Ok(())
    }

    fn entry<V: Serialize>(&mut self, key: &str, value: &V) -> std::io::Result<()> {
        self.separate()?;
        serde_json::to_writer(&mut *self.out, key)?;
        self.out.write_all(b":")?;
        Ok(serde_json::to_writer(&mut *self.out, value)?)
    }

    fn item<V: Serialize>(&mut self, value: &V) -> std::io::Result<()> {
        self.separate()?;
        Ok(serde_json::to_writer(&mut *self.out, value)?)
    }

    fn close(self, end: u8) -> std::io::Result<()> {
        self.out.write_all(&[end])
    }
}
