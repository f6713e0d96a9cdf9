//! The events index kept between cycles (`.git/learnsync/events.redb`): every
//! event line of the tree, grouped by the learning it is about, and the id of
//! the `events/` tree it reflects. A cycle brings it to the tree it works on
//! by diffing the two `events/` trees and reading only the files that
//! changed, then reads the lines of just the learnings it recomputes; so a
//! recompute costs what changed, not the million events a large repository
//! holds. It is a cache: it can always be rebuilt from the tree. A store of
//! another layout, or whose tree's objects are gone, is rebuilt; one that
//! cannot be read or written is moved aside and rebuilt; one another
//! process holds makes the caller read the tree instead.

use crate::paths::{self, RepoPath};
use crate::repo::{GitError, Repo, Result, fail};
use gix::ObjectId;
use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::Path;

/// `"tree"` → hex id of the `events/` tree reflected (absent: none);
/// `"version"` → the layout version below; `"gens"` → the generations,
/// oldest first (`Gens`).
const META: TableDefinition<&str, &str> = TableDefinition::new("meta");
/// Version 1 kept one value per learning (table `lines`), version 2 a
/// learning's segments side by side (table `segments`): a cycle that added
/// a line to most learnings rewrote nearly every page of the file (37 MB
/// written per own-workload cycle at 10,000 learnings, 4.5 now). Version 3
/// keeps generations.
const VERSION: &str = "3";
/// Generations kept before the newest two are merged whatever their sizes.
const MAX_GENS: usize = 8;
/// A generation holding up to this many learnings per one asked for (a
/// recompute asks 128 at a time) is read through in key order; a larger
/// one, learning by learning.
const SCAN_PER_ASKED: u64 = 16;
/// Values shorter than this are stored plain.
const PLAIN_BELOW: usize = 512;
const NO_TREE: &str = "none";
/// The largest value `unpack` will inflate (a corrupt length is refused).
const MAX_VALUE: usize = 256 << 20;

/// Generation `n`'s table, `gen-<n>`: learning id → the lines of that
/// learning one catch-up added (or several, merged), each `<events
/// path>\t<line>\n`, deflated (`Codec`): a learning's lines repeat their
/// keys, so they shrink ~5×. A catch-up writes its lines as a new table,
/// pages of its own, instead of inserting them among the stored ones; the
/// newest two generations are merged into one when the older is no larger
/// than the newer (so, after appends, sizes fall from the oldest on, and a
/// line is rewritten about log₂ of the generations' sizes times), or when
/// there are more than `MAX_GENS`. A learning's lines are those of every
/// generation: the recompute sorts events, so their order does not matter.
fn gen_table(name: &str) -> TableDefinition<'_, &'static str, &'static [u8]> {
    TableDefinition::new(name)
}

/// One generation: its number (its table is `gen-<n>`), and how many
/// learnings and stored bytes it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Gen {
    n: u64,
    entries: u64,
    bytes: u64,
}

impl Gen {
    fn name(&self) -> String {
        format!("gen-{}", self.n)
    }
}

/// The generations, oldest first, as META's `"gens"` holds them:
/// `<n>:<entries>:<bytes>` joined by `,`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Gens(Vec<Gen>);

impl Gens {
    /// The generations a META table records (none when it records none).
    fn of(meta: &impl ReadableTable<&'static str, &'static str>) -> Result<Gens> {
        match meta.get("gens").map_err(redb_err("read"))? {
            None => Ok(Gens::default()),
            Some(text) => Gens::parse(text.value()).ok_or_else(corrupt),
        }
    }

    fn parse(text: &str) -> Option<Gens> {
        let generation = |g: &str| {
            let mut parts = g.split(':').map(str::parse::<u64>);
            match (parts.next(), parts.next(), parts.next(), parts.next()) {
                (Some(Ok(n)), Some(Ok(entries)), Some(Ok(bytes)), None) => {
                    Some(Gen { n, entries, bytes })
                }
                _ => None,
            }
        };
        let gens = text
            .split(',')
            .filter(|g| !g.is_empty())
            .map(generation)
            .collect::<Option<Vec<_>>>()?;
        // Numbered in order, oldest first.
        gens.windows(2)
            .all(|w| w[0].n < w[1].n)
            .then_some(Gens(gens))
    }

    fn text(&self) -> String {
        let parts: Vec<String> = self
            .0
            .iter()
            .map(|g| format!("{}:{}:{}", g.n, g.entries, g.bytes))
            .collect();
        parts.join(",")
    }

    /// A new, empty generation, numbered after every other.
    fn fresh(&self) -> Gen {
        Gen {
            n: self.0.last().map_or(0, |g| g.n + 1),
            entries: 0,
            bytes: 0,
        }
    }

    /// The newest two, when they are to be merged.
    fn due(&self) -> Option<(Gen, Gen)> {
        match self.0.as_slice() {
            [.., older, newer] if self.0.len() > MAX_GENS || older.bytes <= newer.bytes => {
                Some((*older, *newer))
            }
            _ => None,
        }
    }
}

pub struct EventStore {
    db: Database,
}

/// What bringing the store to a tree took.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Caught {
    /// Events files read (changed since the tree the store reflected).
    pub files: usize,
    /// True when the store was (re)built from nothing.
    pub rebuilt: bool,
}

/// The events that bringing the store to a tree adds and drops, read but
/// not yet stored (`EventStore::delta_to`).
#[derive(Default)]
pub struct Delta {
    /// The `events/` tree the store reflects once this is applied (itself
    /// `None` for a tree without events); `None`: nothing to apply.
    tree: Option<Option<ObjectId>>,
    /// The store's lines are replaced, not added to (a rebuild).
    clear: bool,
    /// Learning → lines added, as stored (`push_line`).
    added: Added,
    /// Learning → (path, line) pairs dropped.
    removed: BTreeMap<String, HashSet<(String, String)>>,
    pub caught: Caught,
}

impl Delta {
    /// True when the store already reflects the tree.
    pub fn is_empty(&self) -> bool {
        self.tree.is_none()
    }
}

/// The lines a delta adds, by learning, in one buffer in the order they
/// were read, each learning's chained through its records. A buffer per
/// learning (a few hundred bytes each, grown by doubling) was 3 MiB of
/// small heap blocks at 10,000 learnings, alive through the recompute
/// until the store is written; one buffer is about the lines' own size, and
/// glibc maps it apart from the heap and returns it when it is dropped.
#[derive(Default)]
struct Added {
    /// `path\tline\n` records (`push_line`), as read.
    bytes: Vec<u8>,
    records: Vec<Record>,
    /// Learning → its first and last record.
    by_id: BTreeMap<String, (u32, u32)>,
}

/// Where a record lies in [`Added::bytes`], and its learning's next one.
struct Record {
    start: usize,
    len: u32,
    next: u32,
}

/// No next record.
const LAST: u32 = u32::MAX;

impl Added {
    /// Adds a line of `learning`'s. Fails past 4 GiB in one line or 4
    /// billion lines (the cycle then reads every events file instead).
    fn push(&mut self, learning: String, path: &str, line: &str) -> Result<()> {
        let start = self.bytes.len();
        push_line(&mut self.bytes, path, line);
        let at = u32::try_from(self.records.len())
            .ok()
            .filter(|&at| at != LAST);
        let (Ok(len), Some(at)) = (u32::try_from(self.bytes.len() - start), at) else {
            self.bytes.truncate(start);
            return Err(fail("events index: catch up")(format!(
                "a line of {path} past 4 GiB, or past 4 billion lines"
            )));
        };
        self.records.push(Record {
            start,
            len,
            next: LAST,
        });
        match self.by_id.entry(learning) {
            Entry::Vacant(e) => {
                e.insert((at, at));
            }
            Entry::Occupied(mut e) => {
                let (_, last) = e.get_mut();
                self.records[*last as usize].next = at;
                *last = at;
            }
        }
        Ok(())
    }

    fn ids(&self) -> impl Iterator<Item = &String> {
        self.by_id.keys()
    }

    /// The records of `id`, in the order they were read.
    fn records_of(&self, id: &str) -> impl Iterator<Item = &[u8]> {
        let mut at = self.by_id.get(id).map_or(LAST, |(first, _)| *first);
        std::iter::from_fn(move || {
            let r = self.records.get(at as usize)?;
            at = r.next;
            self.bytes.get(r.start..r.start + r.len as usize)
        })
    }

    /// The lines of `id` as one value (in `out`), or `None` when it has none.
    fn value_of<'a>(&self, id: &str, out: &'a mut Vec<u8>) -> Option<&'a [u8]> {
        out.clear();
        for record in self.records_of(id) {
            out.extend_from_slice(record);
        }
        (!out.is_empty()).then_some(out.as_slice())
    }
}

/// The events index's page cache: a cycle reads each learning's lines
/// about once, so the cache buys little; 2 MiB cost 2 MiB of a 10,000
/// learnings sync's peak for ~15 ms less recompute.
const CACHE_BYTES: usize = 512 << 10;

fn redb_err<E: Into<redb::Error>>(action: &str) -> impl FnOnce(E) -> GitError + '_ {
    move |e| fail(format!("events index: {action}"))(e.into())
}

impl EventStore {
    /// Opens (or creates) the store at `path`.
    pub fn open(path: &Path) -> Result<Self> {
        // redb's default page cache (1 GiB) would let one cycle's reads
        // grow the process by tens of MiB; a cycle reads each page about
        // once, so a small cache costs no speed.
        let builder = || {
            let mut b = Database::builder();
            b.set_cache_size(CACHE_BYTES);
            b
        };
        let db = match builder().create(path) {
            Ok(db) => db,
            Err(e @ redb::DatabaseError::DatabaseAlreadyOpen) => return Err(redb_err("open")(e)),
            // Unreadable: moved aside (never deleted) and started afresh, so
            // one bad file does not slow every later cycle.
            Err(e) => {
                Self::set_aside(path, &e.to_string())?;
                builder().create(path).map_err(redb_err("open"))?
            }
        };
        let store = EventStore { db };
        match store.meta("version") {
            Ok(None) => {}
            Ok(Some(v)) if v == VERSION && store.gens_stored() => {}
            // Another layout (or one this version cannot read): start over,
            // it is only a cache.
            _ => store.write(true, None, &Added::default(), &BTreeMap::new())?,
        }
        Ok(store)
    }

    /// Moves a store that cannot be used to `events.redb.unreadable` (never
    /// deleted), so the next cycle builds a new one.
    pub fn set_aside(path: &Path, why: &str) -> Result<()> {
        let aside = path.with_extension("redb.unreadable");
        tracing::warn!(
            "events index {} unreadable ({why}); moved to {} and rebuilt",
            path.display(),
            aside.display()
        );
        std::fs::rename(path, &aside).map_err(fail("events index: move aside"))
    }

    /// True when META's generations parse and each has its table.
    fn gens_stored(&self) -> bool {
        let Ok(Some(text)) = self.meta("gens") else {
            return false;
        };
        let (Some(gens), Ok(tx)) = (Gens::parse(&text), self.db.begin_read()) else {
            return false;
        };
        gens.0
            .iter()
            .all(|g| tx.open_table(gen_table(&g.name())).is_ok())
    }

    fn meta(&self, key: &str) -> Result<Option<String>> {
        let tx = self.db.begin_read().map_err(redb_err("read"))?;
        let table = match tx.open_table(META) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(None),
            Err(e) => return Err(redb_err("read")(e)),
        };
        Ok(table
            .get(key)
            .map_err(redb_err("read"))?
            .map(|v| v.value().to_string()))
    }

    /// The `events/` tree the store reflects: `Some(None)` = a tree without
    /// events; `None` = nothing recorded yet.
    fn reflected(&self) -> Result<Option<Option<ObjectId>>> {
        Ok(match self.meta("tree")?.as_deref() {
            None => None,
            Some(NO_TREE) => Some(None),
            Some(hex) => ObjectId::from_hex(hex.as_bytes()).ok().map(Some),
        })
    }

    /// Brings the store to the events of `tree`.
    pub fn bring_to(&mut self, repo: &Repo, tree: ObjectId) -> Result<Caught> {
        let delta = self.delta_to(repo, tree)?;
        self.apply(&delta)?;
        Ok(delta.caught)
    }

    /// What bringing the store to the events of `tree` takes, read from
    /// the events files that changed but not yet written: `each_line_of` lays
    /// it over what is stored, `apply` stores it. A store that cannot be
    /// caught up (its tree's objects are gone) is rebuilt.
    pub fn delta_to(&self, repo: &Repo, tree: ObjectId) -> Result<Delta> {
        let target = repo.subtree(tree, "events")?;
        let from = self.reflected()?;
        if from == Some(target) {
            return Ok(Delta::default());
        }
        if let Some(from) = from {
            match catch_up(repo, from, target, false) {
                Ok(delta) => return Ok(delta),
                Err(e) => tracing::debug!("events index: rebuilding ({e})"),
            }
        }
        catch_up(repo, None, target, true)
    }

    /// Stores a delta in one transaction. A rebuild's transaction leaves
    /// its copy-on-write pages free, for `compact` to return.
    pub fn apply(&mut self, delta: &Delta) -> Result<()> {
        let Some(tree) = delta.tree else {
            return Ok(());
        };
        self.write(delta.clear, tree, &delta.added, &delta.removed)?;
        if delta.clear {
            self.db.compact().map_err(redb_err("compact"))?;
        }
        Ok(())
    }

    /// One transaction: (optionally clear,) drop `removed` where they are
    /// stored, store `added` as a new generation, merge the generations
    /// due, record `tree`.
    fn write(
        &self,
        clear: bool,
        tree: Option<ObjectId>,
        added: &Added,
        removed: &BTreeMap<String, HashSet<(String, String)>>,
    ) -> Result<()> {
        let mut tx = self.db.begin_write().map_err(redb_err("write"))?;
        tx.set_quick_repair(true);
        let mut gens = if clear {
            // Every table, of whatever layout.
            let tables: Vec<_> = tx.list_tables().map_err(redb_err("clear"))?.collect();
            for table in tables {
                tx.delete_table(table).map_err(redb_err("clear"))?;
            }
            Gens::default()
        } else {
            Gens::of(&tx.open_table(META).map_err(redb_err("write"))?)?
        };
        let mut codec = Codec::new();
        if !removed.is_empty() {
            drop_lines(&tx, &mut gens, removed, &mut codec)?;
        }
        if added.ids().next().is_some() {
            let mut generation = gens.fresh();
            let mut table = fresh_table(&tx, &generation.name())?;
            let mut buf = Vec::new();
            for id in added.ids() {
                if let Some(value) = added.value_of(id, &mut buf) {
                    let packed = codec.pack(value);
                    table
                        .insert(id.as_str(), packed.as_slice())
                        .map_err(redb_err("write"))?;
                    generation.entries += 1;
                    generation.bytes += packed.len() as u64;
                }
            }
            gens.0.push(generation);
        }
        while let Some((older, newer)) = gens.due() {
            let merged = merge(&tx, older, newer, gens.fresh(), &mut codec)?;
            gens.0.truncate(gens.0.len() - 2);
            gens.0.push(merged);
        }
        let mut meta = tx.open_table(META).map_err(redb_err("write"))?;
        let hex = tree.map_or_else(|| NO_TREE.to_string(), |t| t.to_string());
        meta.insert("tree", hex.as_str())
            .map_err(redb_err("write"))?;
        meta.insert("version", VERSION).map_err(redb_err("write"))?;
        meta.insert("gens", gens.text().as_str())
            .map_err(redb_err("write"))?;
        drop(meta);
        tx.commit().map_err(redb_err("commit"))
    }

    /// Calls `f(learning, events path, line)` for every line of `ids`:
    /// what is stored, with `delta` (read, not yet applied) laid over it.
    /// A learning's lines come generation by generation, not together.
    pub fn each_line_of(
        &self,
        ids: &BTreeSet<String>,
        delta: &Delta,
        f: impl FnMut(&str, &str, &str),
    ) -> Result<()> {
        self.lines_of(ids, delta, SCAN_PER_ASKED, f)
    }

    /// `each_line_of`, a generation read through when it holds up to
    /// `scan_per_asked` learnings per one asked for.
    fn lines_of(
        &self,
        ids: &BTreeSet<String>,
        delta: &Delta,
        scan_per_asked: u64,
        mut f: impl FnMut(&str, &str, &str),
    ) -> Result<()> {
        let tx = self.db.begin_read().map_err(redb_err("read"))?;
        // A rebuild replaces whatever is stored. (The generations as this
        // very transaction sees them.)
        let gens = match tx.open_table(META) {
            _ if delta.clear => Gens::default(),
            Ok(meta) => Gens::of(&meta)?,
            Err(redb::TableError::TableDoesNotExist(_)) => Gens::default(),
            Err(e) => return Err(redb_err("read")(e)),
        };
        let mut codec = Codec::new();
        let mut buf = Vec::new();
        let mut emit = |id: &str, stored: &[u8]| -> Result<()> {
            let gone = delta.removed.get(id);
            for_each_line(codec.unpack(stored, &mut buf)?, |path, line| {
                let dropped =
                    gone.is_some_and(|gone| gone.contains(&(path.to_string(), line.to_string())));
                if !dropped {
                    f(id, path, line);
                }
            });
            Ok(())
        };
        if let (Some(first), Some(last)) = (ids.first(), ids.last()) {
            for generation in &gens.0 {
                let table = tx
                    .open_table(gen_table(&generation.name()))
                    .map_err(redb_err("read"))?;
                if generation.entries <= (ids.len() as u64).saturating_mul(scan_per_asked) {
                    // Read through, in step with the (sorted) ids.
                    let mut asked = ids.iter().peekable();
                    let range = table
                        .range(first.as_str()..=last.as_str())
                        .map_err(redb_err("read"))?;
                    for entry in range {
                        let (key, value) = entry.map_err(redb_err("read"))?;
                        let key = key.value();
                        while asked.next_if(|id| id.as_str() < key).is_some() {}
                        if asked.peek().is_some_and(|id| id.as_str() == key) {
                            emit(key, value.value())?;
                        }
                    }
                } else {
                    for id in ids {
                        if let Some(value) = table.get(id.as_str()).map_err(redb_err("read"))? {
                            emit(id, value.value())?;
                        }
                    }
                }
            }
        }
        for id in ids {
            for more in delta.added.records_of(id) {
                for_each_line(more, |path, line| f(id, path, line));
            }
        }
        Ok(())
    }
}

/// Drops the `removed` lines from every generation that holds them (a
/// hand edit or a rewritten history; rare), and the generations left empty.
fn drop_lines(
    tx: &redb::WriteTransaction,
    gens: &mut Gens,
    removed: &BTreeMap<String, HashSet<(String, String)>>,
    codec: &mut Codec,
) -> Result<()> {
    let mut buf = Vec::new();
    for generation in &mut gens.0 {
        let mut table = tx
            .open_table(gen_table(&generation.name()))
            .map_err(redb_err("write"))?;
        for (id, gone) in removed {
            let Some(stored) = table
                .get(id.as_str())
                .map_err(redb_err("read"))?
                .map(|v| v.value().to_vec())
            else {
                continue;
            };
            let value = codec.unpack(&stored, &mut buf)?;
            let kept = retain_lines(value, |path, line| {
                !gone.contains(&(path.to_string(), line.to_string()))
            });
            if kept.len() == value.len() {
                continue;
            }
            generation.bytes = generation.bytes.saturating_sub(stored.len() as u64);
            if kept.is_empty() {
                table.remove(id.as_str()).map_err(redb_err("write"))?;
                generation.entries = generation.entries.saturating_sub(1);
            } else {
                let packed = codec.pack(&kept);
                generation.bytes += packed.len() as u64;
                table
                    .insert(id.as_str(), packed.as_slice())
                    .map_err(redb_err("write"))?;
            }
        }
    }
    for generation in gens.0.iter().filter(|g| g.entries == 0) {
        tx.delete_table(gen_table(&generation.name()))
            .map_err(redb_err("write"))?;
    }
    gens.0.retain(|g| g.entries > 0);
    Ok(())
}

/// Merges generations `older` and `newer` into a new one, `into`, and
/// deletes theirs: both read once in key order, a learning in only one
/// copied as stored, one in both unpacked and packed again.
fn merge(
    tx: &redb::WriteTransaction,
    older: Gen,
    newer: Gen,
    mut into: Gen,
    codec: &mut Codec,
) -> Result<Gen> {
    let (a_name, b_name, out_name) = (older.name(), newer.name(), into.name());
    {
        let a = tx
            .open_table(gen_table(&a_name))
            .map_err(redb_err("merge"))?;
        let b = tx
            .open_table(gen_table(&b_name))
            .map_err(redb_err("merge"))?;
        let mut out = fresh_table(tx, &out_name)?;
        let mut from_a = a.iter().map_err(redb_err("merge"))?;
        let mut from_b = b.iter().map_err(redb_err("merge"))?;
        let mut next_a = from_a.next().transpose().map_err(redb_err("merge"))?;
        let mut next_b = from_b.next().transpose().map_err(redb_err("merge"))?;
        let (mut plain, mut buf) = (Vec::new(), Vec::new());
        let mut put = |id: &str, value: &[u8]| -> Result<()> {
            out.insert(id, value).map_err(redb_err("merge"))?;
            into.entries += 1;
            into.bytes += value.len() as u64;
            Ok(())
        };
        loop {
            match (next_a.take(), next_b.take()) {
                (None, None) => break,
                (Some((k, v)), None) => {
                    put(k.value(), v.value())?;
                    next_a = from_a.next().transpose().map_err(redb_err("merge"))?;
                }
                (None, Some((k, v))) => {
                    put(k.value(), v.value())?;
                    next_b = from_b.next().transpose().map_err(redb_err("merge"))?;
                }
                (Some(a), Some(b)) => match a.0.value().cmp(b.0.value()) {
                    std::cmp::Ordering::Less => {
                        put(a.0.value(), a.1.value())?;
                        next_a = from_a.next().transpose().map_err(redb_err("merge"))?;
                        next_b = Some(b);
                    }
                    std::cmp::Ordering::Greater => {
                        put(b.0.value(), b.1.value())?;
                        next_b = from_b.next().transpose().map_err(redb_err("merge"))?;
                        next_a = Some(a);
                    }
                    std::cmp::Ordering::Equal => {
                        plain.clear();
                        plain.extend_from_slice(codec.unpack(a.1.value(), &mut buf)?);
                        plain.extend_from_slice(codec.unpack(b.1.value(), &mut buf)?);
                        put(a.0.value(), &codec.pack(&plain))?;
                        next_a = from_a.next().transpose().map_err(redb_err("merge"))?;
                        next_b = from_b.next().transpose().map_err(redb_err("merge"))?;
                    }
                },
            }
        }
    }
    tx.delete_table(gen_table(&a_name))
        .map_err(redb_err("merge"))?;
    tx.delete_table(gen_table(&b_name))
        .map_err(redb_err("merge"))?;
    Ok(into)
}

/// A generation's table, empty: one of that name left behind (a record
/// that lost it) is dropped first, never merged in.
fn fresh_table<'txn>(
    tx: &'txn redb::WriteTransaction,
    name: &str,
) -> Result<redb::Table<'txn, &'static str, &'static [u8]>> {
    tx.delete_table(gen_table(name))
        .map_err(redb_err("write"))?;
    tx.open_table(gen_table(name)).map_err(redb_err("write"))
}

fn corrupt() -> GitError {
    GitError {
        action: "events index".into(),
        message: "a stored value is corrupt".into(),
    }
}

/// What changed between two `events/` trees, file by file (`clear`: laid
/// onto an emptied store).
fn catch_up(
    repo: &Repo,
    from: Option<ObjectId>,
    to: Option<ObjectId>,
    clear: bool,
) -> Result<Delta> {
    // Every events file of both trees, compared by blob id: a few hundred
    // entries (agents × months) whatever the number of events, and no
    // change is missed (a file that became a folder included).
    let before = from
        .map(|t| event_files(repo, t))
        .transpose()?
        .unwrap_or_default();
    let after = to
        .map(|t| event_files(repo, t))
        .transpose()?
        .unwrap_or_default();
    let changed: Vec<(String, Option<ObjectId>, Option<ObjectId>)> = before
        .keys()
        .chain(after.keys())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .map(|p| (p.clone(), before.get(p).copied(), after.get(p).copied()))
        .filter(|(_, a, b)| a != b)
        .collect();
    let mut delta = Delta {
        tree: Some(to),
        clear,
        caught: Caught {
            files: changed.len(),
            rebuilt: clear,
        },
        ..Delta::default()
    };
    for (path, old, new) in &changed {
        let old = old.map(|id| blob_text(repo, id)).transpose()?;
        let new = new.map(|id| blob_text(repo, id)).transpose()?;
        let old_lines: HashSet<&str> = old.as_deref().map(lines).unwrap_or_default();
        let new_lines: HashSet<&str> = new.as_deref().map(lines).unwrap_or_default();
        for line in &new_lines {
            if !old_lines.contains(line)
                && let Some(learning) = learning_of(line)
            {
                delta.added.push(learning, path, line)?;
            }
        }
        for line in &old_lines {
            if !new_lines.contains(line)
                && let Some(learning) = learning_of(line)
            {
                delta
                    .removed
                    .entry(learning)
                    .or_default()
                    .insert((path.clone(), line.to_string()));
            }
        }
    }
    // Grown by doubling, the buffer may be twice the lines; it lives
    // through the recompute until the store is written. (Past 1 MiB glibc maps
    // it on its own, and shrinking it is a remap, not a copy.)
    delta.added.bytes.shrink_to_fit();
    delta.added.records.shrink_to_fit();
    Ok(delta)
}

/// Every events file under an `events/` tree, by repository path.
fn event_files(repo: &Repo, events: ObjectId) -> Result<BTreeMap<String, ObjectId>> {
    Ok(repo
        .flatten(events)?
        .into_iter()
        .map(|(rel, id)| (format!("events/{rel}"), id))
        .filter(|(p, _)| matches!(paths::classify(p), RepoPath::Events { .. }))
        .collect())
}

fn blob_text(repo: &Repo, id: ObjectId) -> Result<String> {
    // Line by line, as every reader decodes an events file (§4).
    Ok(crate::event::decode(&repo.read_blob(id)?).into_owned())
}

/// The non-empty lines of an events file, trimmed as the parser reads them.
fn lines(text: &str) -> HashSet<&str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect()
}

fn learning_of(line: &str) -> Option<String> {
    crate::event::learning_of(line).map(std::borrow::Cow::into_owned)
}

fn push_line(value: &mut Vec<u8>, path: &str, line: &str) {
    value.extend_from_slice(path.as_bytes());
    value.push(b'\t');
    value.extend_from_slice(line.as_bytes());
    value.push(b'\n');
}

/// Stored values, `[length: u32 LE][zlib stream]` (length 0: the bytes
/// plain). One compressor and one decompressor serve every value of a
/// transaction: setting up a zlib stream zeroes ~256 KiB of tables, which
/// cost ten times the compression of a learning's few kilobytes.
struct Codec {
    deflate: zlib_rs::Deflate,
    inflate: zlib_rs::Inflate,
}

impl Codec {
    fn new() -> Self {
        Codec {
            deflate: zlib_rs::Deflate::new(1, true, 15),
            inflate: zlib_rs::Inflate::new(true, 15),
        }
    }

    fn pack(&mut self, value: &[u8]) -> Vec<u8> {
        use zlib_rs::deflate::compress_bound;
        let plain = || [&[0u8; 4][..], value].concat();
        // A value of a line or two would shrink by little.
        let Ok(len) = u32::try_from(value.len()) else {
            return plain();
        };
        if value.len() < PLAIN_BELOW {
            return plain();
        }
        let mut out = vec![0u8; 4 + compress_bound(value.len())];
        out[..4].copy_from_slice(&len.to_le_bytes());
        self.deflate.reset();
        let done = self
            .deflate
            .compress(value, &mut out[4..], zlib_rs::DeflateFlush::Finish);
        if !matches!(done, Ok(zlib_rs::Status::StreamEnd)) {
            // Cannot happen with a bound-sized buffer.
            return plain();
        }
        out.truncate(4 + self.deflate.total_out() as usize);
        out
    }

    /// The plain bytes of a stored value: borrowed from it when it is
    /// stored plain, else inflated into `buf`.
    fn unpack<'a>(&mut self, stored: &'a [u8], buf: &'a mut Vec<u8>) -> Result<&'a [u8]> {
        let (head, body) = stored.split_at_checked(4).ok_or_else(corrupt)?;
        let len = u32::from_le_bytes([head[0], head[1], head[2], head[3]]) as usize;
        // A learning's lines are kilobytes; a huge length is a corrupt value.
        if len > MAX_VALUE {
            return Err(corrupt());
        }
        if len == 0 {
            return Ok(body);
        }
        buf.clear();
        buf.resize(len, 0);
        self.inflate.reset(true);
        let done = self
            .inflate
            .decompress(body, buf, zlib_rs::InflateFlush::Finish);
        if !matches!(done, Ok(zlib_rs::Status::StreamEnd)) || self.inflate.total_out() != len as u64
        {
            return Err(corrupt());
        }
        Ok(buf)
    }
}

fn for_each_line(value: &[u8], mut f: impl FnMut(&str, &str)) {
    // Stored lines are valid UTF-8 (`blob_text` decodes each file): checked
    // at `from_utf8`'s speed, the lossy decoder's only for a bad value (it
    // walks every byte, 4% of a recompute's time at 10,000 learnings).
    let text = match std::str::from_utf8(value) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(value),
    };
    for entry in text.lines() {
        if let Some((path, line)) = entry.split_once('\t') {
            f(path, line);
        }
    }
}

fn retain_lines(value: &[u8], keep: impl Fn(&str, &str) -> bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(value.len());
    for_each_line(value, |path, line| {
        if keep(path, line) {
            push_line(&mut out, path, line);
        }
    });
    out
}

#[cfg(test)]
mod tests {
    //! The kept index must answer exactly what reading the tree answers,
    //! whatever sequence of trees it is brought through (appends, hand
    //! edits that drop lines, deleted files, duplicates, odd spacing, lines
    //! that do not parse), and whatever became of the file in between.
    use super::*;
    use crate::event::{Event, Outcome};
    use crate::repo::Change;
    use crate::sync::derive::EventIndex;
    use crate::timestamp::Timestamp;
    use proptest::prelude::*;

    const LEARNINGS: [&str; 4] = ["l-a", "l-b", "l-c", "l-d"];
    const FILES: [&str; 3] = [
        "events/ann/2026-01.jsonl",
        "events/ann/2026-02.jsonl",
        "events/bob/2026-01.jsonl",
    ];

    /// One line of an events file, from a small alphabet so that lines
    /// repeat across files and steps.
    fn line(n: u8) -> String {
        let learning = LEARNINGS[usize::from(n) % LEARNINGS.len()];
        let mut e = Event::new(
            learning,
            "ann",
            Outcome::Applied,
            Timestamp::from_unix(1_700_000_000 + i64::from(n)),
        );
        e.id = format!("e{n}");
        match n % 7 {
            // Spacing learnsync never writes: found by the full parse.
            5 => e.to_line().replace("\":\"", "\": \""),
            // Not an event at all: skipped everywhere.
            6 => format!("not json {n}"),
            _ => e.to_line(),
        }
    }

    /// Every event each source answers, as comparable text (duplicates
    /// collapse: the recompute counts an event id once).
    /// What the index answers for every learning, asked all at once, one
    /// by one, and two apart; never about a learning not asked for.
    fn answers(index: &EventIndex) -> BTreeMap<String, BTreeSet<String>> {
        let ask = |ids: &[&str]| -> BTreeMap<String, BTreeSet<String>> {
            let ids: BTreeSet<String> = ids.iter().map(|s| s.to_string()).collect();
            let got = index.for_ids(&ids).expect("for_ids");
            assert!(got.keys().all(|id| ids.contains(id)), "{:?}", got.keys());
            got.into_iter()
                .map(|(id, events)| (id, events.iter().map(|e| format!("{e:?}")).collect()))
                .filter(|(_, set): &(String, BTreeSet<String>)| !set.is_empty())
                .collect()
        };
        let all = ask(&LEARNINGS);
        let mut one_by_one = BTreeMap::new();
        for id in LEARNINGS {
            one_by_one.extend(ask(&[id]));
        }
        assert_eq!(all, one_by_one, "asked one by one");
        let mut apart = ask(&[LEARNINGS[0], LEARNINGS[2]]);
        apart.extend(ask(&[LEARNINGS[1], LEARNINGS[3]]));
        assert_eq!(all, apart, "asked two apart");
        all
    }

    #[derive(Debug, Clone)]
    enum Step {
        /// Replace a file with these lines (none: delete it).
        Write(usize, Option<Vec<u8>>),
        /// Add these lines to a file (what most cycles do).
        Append(usize, Vec<u8>),
        /// Something happened to the store file between cycles.
        LoseStore,
        CorruptMeta,
        /// An agent's events folder replaced by a plain file (a peer can).
        FolderToFile(usize),
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            6 => (0..FILES.len(), proptest::option::weighted(0.85, proptest::collection::vec(0u8..40, 0..12)))
                .prop_map(|(f, lines)| Step::Write(f, lines)),
            6 => (0..FILES.len(), proptest::collection::vec(0u8..40, 1..4))
                .prop_map(|(f, lines)| Step::Append(f, lines)),
            1 => Just(Step::LoseStore),
            1 => Just(Step::CorruptMeta),
            1 => (0..FILES.len()).prop_map(Step::FolderToFile),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn kept_index_answers_like_the_tree(
            steps in proptest::collection::vec((step(), proptest::bool::weighted(0.7)), 1..24)
        ) {
            let tmp = tempfile::tempdir().expect("tmp");
            let repo = Repo::init(tmp.path(), "agents/ann").expect("init");
            let store_path = tmp.path().join("events.redb");
            let mut tree = repo.write_tree(ObjectId::empty_tree(gix::hash::Kind::Sha1), &[
                Change::Upsert { path: "ann/readme.md".into(), bytes: b"x".to_vec() },
            ]).expect("tree");
            for (step, stored) in steps {
                match step {
                    Step::Write(f, Some(lines)) => {
                        let text: String = lines.iter().map(|n| line(*n) + if n % 3 == 0 { "\r\n" } else { "\n" }).collect();
                        tree = repo.write_tree(tree, &[Change::Upsert { path: FILES[f].into(), bytes: text.into_bytes() }]).expect("write");
                    }
                    Step::Append(f, lines) => {
                        let mut text = repo
                            .blob_at(tree, FILES[f])
                            .ok()
                            .flatten()
                            .map(|b| String::from_utf8_lossy(&b).into_owned())
                            .unwrap_or_default();
                        if !text.is_empty() && !text.ends_with('\n') {
                            text.push('\n');
                        }
                        text.extend(lines.iter().map(|n| line(*n) + "\n"));
                        tree = repo.write_tree(tree, &[Change::Upsert { path: FILES[f].into(), bytes: text.into_bytes() }]).expect("append");
                    }
                    Step::Write(f, None) => {
                        if repo.blob_id_at(tree, FILES[f]).expect("lookup").is_some() {
                            tree = repo.write_tree(tree, &[Change::Delete { path: FILES[f].into() }]).expect("delete");
                        }
                    }
                    Step::LoseStore => {
                        let _ = std::fs::remove_file(&store_path);
                    }
                    Step::FolderToFile(f) => {
                        let folder = FILES[f].rsplit_once('/').map_or(FILES[f], |(d, _)| d);
                        tree = repo.write_tree(tree, &[Change::Upsert { path: folder.into(), bytes: b"now a file".to_vec() }]).expect("swap");
                    }
                    Step::CorruptMeta => {
                        // A tree id the repository does not have.
                        let store = EventStore::open(&store_path).expect("open");
                        let gone = ObjectId::from_hex(b"0123456789012345678901234567890123456789").expect("hex");
                        store.write(false, Some(gone), &Added::default(), &BTreeMap::new()).expect("write");
                    }
                }
                let mut kept = EventIndex::kept_at(store_path.clone());
                kept.ensure(&repo, tree).expect("kept");
                let mut read = EventIndex::default();
                read.ensure(&repo, tree).expect("read");
                prop_assert_eq!(answers(&kept), answers(&read));
                // Stored, or not (a cycle killed before it stored it): the
                // next step catches up from wherever the store was left.
                if stored {
                    drop(kept.persist_in_background());
                } else {
                    drop(kept);
                }
                // Below what the recompute filters: every line of every
                // events file, once, whichever way a generation is read.
                prop_assert_eq!(store_lines(&repo, tree, &store_path), tree_lines(&repo, tree));
                check_gens(&store_path);
            }
        }
    }

    type Lines = Vec<(String, String, String)>;

    /// Every (learning, events path, line) of the tree, as the store keeps
    /// them: each file's distinct lines that name a learning.
    fn tree_lines(repo: &Repo, tree: ObjectId) -> Lines {
        let mut out = Vec::new();
        if let Some(events) = repo.subtree(tree, "events").expect("subtree") {
            for (path, blob) in event_files(repo, events).expect("files") {
                let text = blob_text(repo, blob).expect("blob");
                for line in lines(&text) {
                    if let Some(id) = learning_of(line) {
                        out.push((id, path.clone(), line.to_string()));
                    }
                }
            }
        }
        out.sort();
        out
    }

    /// What the store at `path`, caught up to `tree` (not stored), gives
    /// for every learning of the tree and more: each generation read
    /// through, and each looked up in, must agree, line for line.
    fn store_lines(repo: &Repo, tree: ObjectId, path: &Path) -> Lines {
        let store = EventStore::open(path).expect("open");
        let delta = store.delta_to(repo, tree).expect("delta");
        let mut ids: BTreeSet<String> = LEARNINGS.iter().map(|s| s.to_string()).collect();
        ids.extend(tree_lines(repo, tree).into_iter().map(|(id, _, _)| id));
        let read = |scan_per_asked| {
            let mut out = Vec::new();
            store
                .lines_of(&ids, &delta, scan_per_asked, |id, path, line| {
                    out.push((id.to_string(), path.to_string(), line.to_string()));
                })
                .expect("lines");
            out.sort();
            out
        };
        let through = read(u64::MAX);
        assert_eq!(through, read(0), "read through and looked up differ");
        through
    }

    /// The generations META lists are the tables there are, each holding
    /// the learnings and bytes it says, none empty, at most `MAX_GENS`.
    fn check_gens(path: &Path) {
        let db = Database::open(path).expect("open");
        let tx = db.begin_read().expect("read");
        let Ok(meta) = tx.open_table(META) else {
            return;
        };
        let Some(text) = meta.get("gens").expect("get") else {
            return;
        };
        let gens = Gens::parse(text.value()).expect("parse");
        assert!(gens.0.len() <= MAX_GENS, "{gens:?}");
        for g in &gens.0 {
            let table = tx.open_table(gen_table(&g.name())).expect("table");
            let (mut entries, mut bytes) = (0, 0);
            for entry in table.iter().expect("iter") {
                entries += 1;
                bytes += entry.expect("entry").1.value().len() as u64;
            }
            assert_eq!((g.entries, g.bytes), (entries, bytes), "{g:?}");
            assert!(g.entries > 0, "{g:?}");
        }
        let tables: BTreeSet<String> = tx
            .list_tables()
            .expect("tables")
            .map(|t| redb::TableHandle::name(&t).to_string())
            .filter(|name| name.starts_with("gen-"))
            .collect();
        let listed: BTreeSet<String> = gens.0.iter().map(Gen::name).collect();
        assert_eq!(tables, listed);
    }

    /// The generations, as stored, and the learnings each table holds.
    fn stored_gens(path: &Path) -> (Gens, Vec<u64>) {
        let db = Database::open(path).expect("open");
        let tx = db.begin_read().expect("read");
        let meta = tx.open_table(META).expect("meta");
        let text = meta.get("gens").expect("get").expect("gens");
        let gens = Gens::parse(text.value()).expect("parse");
        let held = gens
            .0
            .iter()
            .map(|g| {
                let table = tx.open_table(gen_table(&g.name())).expect("table");
                table.iter().expect("iter").count() as u64
            })
            .collect();
        (gens, held)
    }

    #[test]
    fn cycles_that_add_events_write_generations_and_merge_them_by_size() {
        let tmp = tempfile::tempdir().expect("tmp");
        let repo = Repo::init(tmp.path(), "agents/ann").expect("init");
        let store_path = tmp.path().join("events.redb");
        let mut tree = ObjectId::empty_tree(gix::hash::Kind::Sha1);
        let mut text = String::new();
        let (mut most, mut merged) = (0, false);
        for cycle in 0..40u8 {
            // One line a cycle, about one of the learnings in turn.
            text.push_str(&(line(cycle) + "\n"));
            tree = repo
                .write_tree(
                    tree,
                    &[Change::Upsert {
                        path: FILES[0].into(),
                        bytes: text.clone().into_bytes(),
                    }],
                )
                .expect("write");
            let before = if store_path.exists() {
                stored_gens(&store_path).0
            } else {
                Gens::default()
            };
            let mut kept = EventIndex::kept_at(store_path.clone());
            kept.ensure(&repo, tree).expect("kept");
            let mut read = EventIndex::default();
            read.ensure(&repo, tree).expect("read");
            assert_eq!(answers(&kept), answers(&read), "cycle {cycle}");
            kept.persist();
            let (gens, held) = stored_gens(&store_path);
            // What META says is what the tables hold.
            let entries: Vec<u64> = gens.0.iter().map(|g| g.entries).collect();
            assert_eq!(entries, held, "cycle {cycle}");
            assert!(gens.0.len() <= MAX_GENS, "cycle {cycle}: {gens:?}");
            // Sizes fall from the oldest on: the newest two were merged
            // whenever the older was no larger.
            assert!(
                gens.0.windows(2).all(|w| w[0].bytes > w[1].bytes),
                "cycle {cycle}: {gens:?}"
            );
            if cycle > 0 {
                // The older generations stay as they were, but the merged.
                let kept_whole = before.0.iter().filter(|g| gens.0.contains(g)).count();
                assert!(kept_whole + 1 >= gens.0.len(), "cycle {cycle}");
                // A merge's generation is numbered past the catch-up's.
                merged |= gens.0.iter().any(|g| g.n > before.fresh().n);
            }
            most = most.max(gens.0.len());
        }
        assert!(most >= 3, "appends kept generations apart ({most})");
        assert!(merged, "and merged them");
    }

    /// The kept index at `store_path`, brought to `tree`, after checking it
    /// answers what reading the tree answers (and that is something).
    fn kept_answers_like_the_tree(
        repo: &Repo,
        tree: ObjectId,
        store_path: &Path,
        case: &str,
    ) -> EventIndex {
        let mut kept = EventIndex::kept_at(store_path.to_path_buf());
        kept.ensure(repo, tree).expect("kept");
        let mut read = EventIndex::default();
        read.ensure(repo, tree).expect("read");
        assert!(!answers(&read).is_empty());
        assert_eq!(answers(&kept), answers(&read), "{case}");
        kept
    }

    /// A repository whose tree holds one events file of eight lines, and
    /// where its store goes.
    fn eight_lines(dir: &Path) -> (Repo, ObjectId, std::path::PathBuf) {
        let repo = Repo::init(dir, "agents/ann").expect("init");
        let text: String = (0..8u8).map(|n| line(n) + "\n").collect();
        let tree = repo
            .write_tree(
                ObjectId::empty_tree(gix::hash::Kind::Sha1),
                &[Change::Upsert {
                    path: FILES[0].into(),
                    bytes: text.into_bytes(),
                }],
            )
            .expect("write");
        (repo, tree, dir.join("events.redb"))
    }

    /// The kept index stored for `tree`, then changed by `damage` in a
    /// transaction of its own.
    fn stored_then(
        repo: &Repo,
        tree: ObjectId,
        store_path: &Path,
        damage: impl FnOnce(&redb::WriteTransaction),
    ) {
        let mut kept = EventIndex::kept_at(store_path.to_path_buf());
        kept.ensure(repo, tree).expect("kept");
        kept.persist();
        let db = Database::open(store_path).expect("open");
        let tx = db.begin_write().expect("write");
        damage(&tx);
        tx.commit().expect("commit");
    }

    /// `stored_then`, l-a's value then saying it inflates to 99 bytes and
    /// not being a zlib stream.
    fn stored_with_a_corrupt_value(repo: &Repo, tree: ObjectId, store_path: &Path) {
        stored_then(repo, tree, store_path, |tx| {
            tx.open_table(gen_table("gen-0"))
                .expect("table")
                .insert("l-a", [99u8, 0, 0, 0, 1, 2, 3].as_slice())
                .expect("insert");
        });
    }

    #[test]
    fn a_store_whose_generations_are_damaged_is_rebuilt() {
        for damage in ["record", "table"] {
            let tmp = tempfile::tempdir().expect("tmp");
            let (repo, tree, store_path) = eight_lines(tmp.path());
            stored_then(&repo, tree, &store_path, |tx| {
                if damage == "record" {
                    let mut meta = tx.open_table(META).expect("meta");
                    meta.insert("gens", "0:x").expect("gens");
                } else {
                    tx.delete_table(gen_table("gen-0")).expect("delete");
                }
            });
            kept_answers_like_the_tree(&repo, tree, &store_path, &format!("damaged {damage}"));
        }
    }

    #[test]
    fn a_store_that_cannot_take_a_cycle_is_set_aside_and_rebuilt() {
        let tmp = tempfile::tempdir().expect("tmp");
        let (repo, tree, store_path) = eight_lines(tmp.path());
        stored_with_a_corrupt_value(&repo, tree, &store_path);
        // The file deleted (its lines are dropped where they are stored,
        // which reads the corrupt value) and another written.
        let other: String = (8..12u8).map(|n| line(n) + "\n").collect();
        let tree = repo
            .write_tree(
                tree,
                &[
                    Change::Delete {
                        path: FILES[0].into(),
                    },
                    Change::Upsert {
                        path: FILES[1].into(),
                        bytes: other.into_bytes(),
                    },
                ],
            )
            .expect("write");
        let mut kept = EventIndex::kept_at(store_path.clone());
        kept.ensure(&repo, tree).expect("kept");
        kept.persist();
        assert!(store_path.with_extension("redb.unreadable").exists());
        kept_answers_like_the_tree(&repo, tree, &store_path, "rebuilt");
    }

    #[test]
    fn a_store_with_a_value_that_cannot_be_read_fails_one_cycle_and_is_rebuilt() {
        let tmp = tempfile::tempdir().expect("tmp");
        let (repo, tree, store_path) = eight_lines(tmp.path());
        stored_with_a_corrupt_value(&repo, tree, &store_path);
        let mut kept = EventIndex::kept_at(store_path.clone());
        kept.ensure(&repo, tree).expect("kept");
        let ids: BTreeSet<String> = LEARNINGS.iter().map(|s| s.to_string()).collect();
        assert!(kept.for_ids(&ids).is_err(), "never a partial answer");
        drop(kept);
        assert!(store_path.with_extension("redb.unreadable").exists());
        kept_answers_like_the_tree(&repo, tree, &store_path, "rebuilt");
    }

    #[test]
    fn a_generations_record_that_does_not_parse_is_refused() {
        for bad in ["1:2", "x:1:1", "2:1:1,1:1:1", "1:1:1:1"] {
            assert_eq!(Gens::parse(bad), None, "{bad}");
        }
        let gens = Gens::parse("0:10:900,3:2:40").expect("parse");
        assert_eq!(gens.text(), "0:10:900,3:2:40");
        assert_eq!(gens.fresh().n, 4);
        assert_eq!(Gens::parse(""), Some(Gens::default()));
        // Nine generations, each smaller than the one before: the newest
        // two are merged all the same.
        let falling: Vec<String> = (0..9u64)
            .map(|n| format!("{n}:1:{}", 1000 - n * 10))
            .collect();
        let nine = Gens::parse(&falling.join(",")).expect("parse");
        assert_eq!(nine.due().map(|(a, b)| (a.n, b.n)), Some((7, 8)));
        assert_eq!(Gens(nine.0[..8].to_vec()).due(), None);
        // A newer one no smaller than the one before it is merged.
        let even = Gens::parse("0:1:900,1:1:50,2:1:50").expect("parse");
        assert_eq!(even.due().map(|(a, b)| (a.n, b.n)), Some((1, 2)));
    }

    #[test]
    fn stores_in_earlier_layouts_are_rebuilt_in_the_current_one() {
        for version in ["1", "2"] {
            let tmp = tempfile::tempdir().expect("tmp");
            let (repo, tree, store_path) = eight_lines(tmp.path());
            let events = repo
                .subtree(tree, "events")
                .expect("subtree")
                .expect("events");
            {
                // Version 1: one value per learning in `lines`; version 2:
                // segments in `segments`; both of this very tree.
                let db = Database::create(&store_path).expect("create");
                let tx = db.begin_write().expect("write");
                {
                    if version == "1" {
                        let old: TableDefinition<&str, &[u8]> = TableDefinition::new("lines");
                        let mut table = tx.open_table(old).expect("lines");
                        table
                            .insert("l-a", b"\0\0\0\0stale".as_slice())
                            .expect("insert");
                    } else {
                        let old: TableDefinition<(&str, u32), &[u8]> =
                            TableDefinition::new("segments");
                        let mut table = tx.open_table(old).expect("segments");
                        table
                            .insert(("l-a", 0), b"\0\0\0\0stale".as_slice())
                            .expect("insert");
                    }
                    let mut meta = tx.open_table(META).expect("meta");
                    meta.insert("tree", events.to_string().as_str())
                        .expect("tree");
                    meta.insert("version", version).expect("version");
                }
                tx.commit().expect("commit");
            }
            let kept =
                kept_answers_like_the_tree(&repo, tree, &store_path, &format!("layout {version}"));
            kept.persist();
            let db = Database::open(&store_path).expect("open");
            let tx = db.begin_read().expect("read");
            let names: Vec<String> = tx
                .list_tables()
                .expect("tables")
                .map(|t| redb::TableHandle::name(&t).to_string())
                .collect();
            assert_eq!(names, ["gen-0", "meta"], "layout {version}: {names:?}");
        }
    }

    #[test]
    fn added_lines_come_back_by_learning_in_the_order_they_were_read() {
        let mut added = Added::default();
        let pushes = [
            ("b", "events/x/2026-01.jsonl", "b1"),
            ("a", "events/x/2026-01.jsonl", "a1"),
            ("b", "events/y/2026-02.jsonl", "b2"),
            ("a", "events/y/2026-02.jsonl", "a2"),
            ("b", "events/y/2026-02.jsonl", "b3"),
        ];
        for (id, path, line) in pushes {
            added.push(id.to_string(), path, line).expect("push");
        }
        let lines = |id: &str| {
            let mut out = Vec::new();
            for record in added.records_of(id) {
                for_each_line(record, |path, line| out.push(format!("{path} {line}")));
            }
            out
        };
        assert_eq!(
            lines("b"),
            [
                "events/x/2026-01.jsonl b1",
                "events/y/2026-02.jsonl b2",
                "events/y/2026-02.jsonl b3"
            ]
        );
        assert_eq!(
            lines("a"),
            ["events/x/2026-01.jsonl a1", "events/y/2026-02.jsonl a2"]
        );
        assert!(lines("c").is_empty());
        assert_eq!(added.ids().collect::<Vec<_>>(), ["a", "b"]);
        let mut buf = Vec::new();
        assert_eq!(
            added.value_of("a", &mut buf),
            Some(&b"events/x/2026-01.jsonl\ta1\nevents/y/2026-02.jsonl\ta2\n"[..])
        );
        assert_eq!(added.value_of("c", &mut buf), None);
    }

    #[test]
    fn catching_up_reads_only_the_changed_files() {
        let tmp = tempfile::tempdir().expect("tmp");
        let repo = Repo::init(tmp.path(), "agents/ann").expect("init");
        let files: Vec<Change> = FILES
            .iter()
            .enumerate()
            .map(|(i, f)| Change::Upsert {
                path: f.to_string(),
                bytes: format!("{}\n", line(u8::try_from(i).expect("small"))).into_bytes(),
            })
            .collect();
        let first = repo
            .write_tree(ObjectId::empty_tree(gix::hash::Kind::Sha1), &files)
            .expect("tree");
        let mut store = EventStore::open(&tmp.path().join("events.redb")).expect("open");
        let built = store.bring_to(&repo, first).expect("build");
        assert_eq!(
            built,
            Caught {
                files: 3,
                rebuilt: true
            }
        );
        assert_eq!(
            store.bring_to(&repo, first).expect("again"),
            Caught::default()
        );

        let text = format!("{}\n{}\n", line(0), line(9));
        let second = repo
            .write_tree(
                first,
                &[Change::Upsert {
                    path: FILES[0].into(),
                    bytes: text.into_bytes(),
                }],
            )
            .expect("tree");
        let caught = store.bring_to(&repo, second).expect("catch up");
        assert_eq!(
            caught,
            Caught {
                files: 1,
                rebuilt: false
            }
        );
        let ids: BTreeSet<String> = ["l-b".to_string()].into();
        let mut got = BTreeSet::new();
        store
            .each_line_of(&ids, &Delta::default(), |id, path, _| {
                got.insert((id.to_string(), path.to_string()));
            })
            .expect("lines");
        // e9 is about l-b (9 % 4 = 1) and e1 (FILES[1]) too.
        let want = [FILES[0], FILES[1]].map(|f| ("l-b".to_string(), f.to_string()));
        assert_eq!(got, BTreeSet::from(want));
    }

    #[test]
    fn an_unreadable_store_is_moved_aside_and_rebuilt() {
        let tmp = tempfile::tempdir().expect("tmp");
        let repo = Repo::init(tmp.path(), "agents/ann").expect("init");
        let tree = repo
            .write_tree(
                ObjectId::empty_tree(gix::hash::Kind::Sha1),
                &[Change::Upsert {
                    path: FILES[0].into(),
                    bytes: format!("{}\n", line(0)).into_bytes(),
                }],
            )
            .expect("tree");
        let path = tmp.path().join("events.redb");
        std::fs::write(&path, b"this is not a database").expect("write");
        let mut index = EventIndex::kept_at(path.clone());
        index.ensure(&repo, tree).expect("rebuilt");
        let ids: BTreeSet<String> = ["l-a".to_string()].into();
        assert_eq!(index.for_ids(&ids).expect("ids")["l-a"].len(), 1);
        index.persist();
        // The bad bytes are kept beside it, not deleted.
        assert_eq!(
            std::fs::read(tmp.path().join("events.redb.unreadable")).expect("aside"),
            b"this is not a database"
        );
        assert_eq!(
            EventStore::open(&path)
                .expect("a real store now")
                .reflected()
                .expect("meta"),
            Some(repo.subtree(tree, "events").expect("events"))
        );
    }
}
