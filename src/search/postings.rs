//! The inverted index in memory: built from documents (pure), and the
//! [`Source`] view that ranking reads through, whatever holds the postings —
//! this in-memory index, the file segment, or the segment with the learnings
//! changed since and the inbox laid over it.
//!
//! Each posting carries the learning's BM25F pseudo-frequency for the term,
//! `Σ_field weight · tf / (1 − b + b · len / avg_len)`, computed once when
//! the learning is indexed; a query only saturates and sums them.

use super::doc::{Doc, FIELD_COUNT, Meta};
use super::kg::{Graph, Matcher};
use crate::learning::TrustLevel;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Terms that are not words: a concept, a keyword phrase, a learning's id.
pub const CONCEPT: &str = "\u{1}c:";
pub const KEYWORD: &str = "\u{1}k:";
pub const ID: &str = "\u{1}id:";
/// The program (and program + subcommand) of a learning's command.
pub const PROGRAM: &str = "\u{1}p:";

/// `git` and `git push` for `sudo git push -f origin main`; none for text
/// that is not a command.
pub fn program_terms(command: &str) -> Vec<String> {
    let Some((program, sub)) = crate::shell::program_key(command) else {
        return Vec::new();
    };
    let program = program.to_lowercase();
    if program.is_empty()
        || !program
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return Vec::new();
    }
    let mut out = vec![format!("{PROGRAM}{program}")];
    if let Some(sub) = sub {
        out.push(format!("{PROGRAM}{program} {}", sub.to_lowercase()));
    }
    out
}

/// What is fixed when a learning is indexed (changing it means a rebuild).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct IndexParams {
    /// Per field, in [`Field::ALL`](super::doc::Field::ALL) order.
    pub field_weights: [f32; FIELD_COUNT],
    pub b: f32,
    /// Pseudo-frequency of one mention of a KG concept.
    pub concept_weight: f32,
    /// Pseudo-frequency of a multi-word keyword.
    pub keyword_weight: f32,
    /// Pseudo-frequency of the command's program (and subcommand).
    #[serde(default = "default_program_weight")]
    pub program_weight: f32,
}

fn default_program_weight() -> f32 {
    2.0
}

impl Default for IndexParams {
    fn default() -> Self {
        IndexParams {
            // title, keywords, command, error, correction, body
            field_weights: [3.0, 1.0, 1.5, 1.5, 2.5, 0.8],
            b: 0.75,
            concept_weight: 1.5,
            keyword_weight: 2.0,
            program_weight: default_program_weight(),
        }
    }
}

/// Field length averages: the base of every later learning's length norm.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    pub avg_len: [f32; FIELD_COUNT],
    /// The fields' total lengths over the learnings indexed, and how many
    /// there are: kept exact when a segment is folded, so the averages the
    /// postings were weighed with are known to still hold (zero in an index
    /// written before they were kept).
    #[serde(default)]
    pub total_len: [u64; FIELD_COUNT],
    #[serde(default)]
    pub docs: u64,
}

impl Default for Stats {
    fn default() -> Self {
        Stats {
            avg_len: [1.0; FIELD_COUNT],
            total_len: [0; FIELD_COUNT],
            docs: 0,
        }
    }
}

impl Stats {
    /// The averages to weigh learnings laid over a segment of `segment_len`
    /// learnings with (the inbox's, at query time): the segment's totals
    /// with `lens` counted in, so that a learning over a segment of a few
    /// unlike learnings, or of none, scores as it will once a sync has
    /// indexed it. A segment that does not know its totals keeps its
    /// averages.
    pub fn counting<'a>(
        &self,
        segment_len: u32,
        lens: impl Iterator<Item = &'a [u32; FIELD_COUNT]>,
    ) -> Stats {
        if self.docs == 0 && segment_len > 0 {
            return *self;
        }
        let mut out = *self;
        for l in lens {
            for (total, &len) in out.total_len.iter_mut().zip(l) {
                *total += u64::from(len);
            }
            out.docs += 1;
        }
        if out.docs > self.docs {
            for (avg, &total) in out.avg_len.iter_mut().zip(&out.total_len) {
                *avg = (total as f32 / out.docs as f32).max(1.0);
            }
        }
        out
    }

    /// How far the true average of a field is from the one weighed with, as
    /// a share of it (the largest over the fields); `None` when the totals
    /// are not known.
    pub fn drift(&self) -> Option<f32> {
        if self.docs == 0 {
            return None;
        }
        Some(
            (0..FIELD_COUNT)
                .map(|f| {
                    let now = (self.total_len[f] as f32 / self.docs as f32).max(1.0);
                    let was = self.avg_len[f].max(1.0);
                    (now - was).abs() / was
                })
                .fold(0.0, f32::max),
        )
    }
}

/// What filters and the ranking know about every learning, fixed width.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Attrs {
    pub trust: TrustLevel,
    /// [`Evidence::success`](super::doc::Evidence::success), 0..1.
    pub success: f32,
    /// Indices into [`Tables`]; 0 is "none" (and, for `applicable`, "every agent").
    pub agent: u16,
    pub project: u16,
    pub applicable: u16,
    pub kind: u16,
    /// Days since the Unix epoch of `updated_at`.
    pub day: u16,
}

/// The strings attributes point at.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tables {
    pub agents: Vec<String>,
    pub projects: Vec<String>,
    pub kinds: Vec<String>,
    /// Sets of agent names (`applicable_agents`), sorted.
    pub applicable: Vec<Vec<String>>,
}

impl Default for Tables {
    fn default() -> Self {
        Tables {
            agents: vec![String::new()],
            projects: vec![String::new()],
            kinds: vec![String::new()],
            applicable: vec![Vec::new()],
        }
    }
}

/// Index of `value` in `list`, appended when new; 0 (none) past u16.
fn intern<T: PartialEq + Clone>(
    list: &mut Vec<T>,
    value: &T,
    lookup: &mut HashMap<String, u16>,
    key: String,
) -> u16 {
    if let Some(&i) = lookup.get(&key) {
        return i;
    }
    if list.len() > u16::MAX as usize {
        return 0;
    }
    let i = list.len() as u16;
    list.push(value.clone());
    lookup.insert(key, i);
    i
}

/// Interning into [`Tables`], with the lookups that make it cheap.
#[derive(Default)]
pub struct Interner {
    pub tables: Tables,
    agents: HashMap<String, u16>,
    projects: HashMap<String, u16>,
    kinds: HashMap<String, u16>,
    applicable: HashMap<String, u16>,
}

impl Interner {
    pub fn new(tables: Tables) -> Interner {
        let mut me = Interner {
            tables,
            ..Interner::default()
        };
        let index = |list: &[String]| -> HashMap<String, u16> {
            list.iter()
                .enumerate()
                .map(|(i, s)| (s.clone(), i as u16))
                .collect()
        };
        me.agents = index(&me.tables.agents);
        me.projects = index(&me.tables.projects);
        me.kinds = index(&me.tables.kinds);
        me.applicable = me
            .tables
            .applicable
            .iter()
            .enumerate()
            .map(|(i, s)| (s.join("\n"), i as u16))
            .collect();
        me
    }

    fn string(list: &mut Vec<String>, lookup: &mut HashMap<String, u16>, s: Option<&str>) -> u16 {
        match s.filter(|s| !s.is_empty()) {
            None => 0,
            Some(s) => intern(list, &s.to_string(), lookup, s.to_string()),
        }
    }

    /// The attributes of a learning, interning its strings.
    pub fn attrs(&mut self, meta: &Meta, trust: TrustLevel) -> Attrs {
        let mut set = meta.applicable.clone();
        set.sort();
        set.dedup();
        let applicable = if set.is_empty() {
            0
        } else {
            intern(
                &mut self.tables.applicable,
                &set,
                &mut self.applicable,
                set.join("\n"),
            )
        };
        Attrs {
            trust,
            // As the segment stores it (a byte), so file and memory agree.
            success: (meta.evidence.success() * 255.0).round() / 255.0,
            agent: Self::string(&mut self.tables.agents, &mut self.agents, Some(&meta.agent)),
            project: Self::string(
                &mut self.tables.projects,
                &mut self.projects,
                meta.project.as_deref(),
            ),
            applicable,
            kind: Self::string(
                &mut self.tables.kinds,
                &mut self.kinds,
                meta.kind.as_deref(),
            ),
            day: (meta.updated_at.max(0) / 86_400).min(u16::MAX as i64) as u16,
        }
    }
}

/// The terms of one learning with their pseudo-frequencies.
pub fn weigh(
    doc: &Doc,
    matcher: &Matcher,
    graph: &Graph,
    params: &IndexParams,
    stats: &Stats,
) -> Terms {
    let mut out: HashMap<String, f32> = HashMap::new();
    for (f, terms) in doc.fields.iter().enumerate() {
        if terms.is_empty() {
            continue;
        }
        let norm = 1.0 - params.b + params.b * terms.len() as f32 / stats.avg_len[f].max(1e-3);
        let w = params.field_weights[f] / norm;
        for t in terms {
            *out.entry(t.clone()).or_default() += w;
        }
    }
    for m in matcher.mentions(&doc.phrase) {
        if let Some(c) = graph.concepts.get(m.concept as usize) {
            out.insert(
                format!("{CONCEPT}{}", c.name),
                params.concept_weight * m.count.min(3) as f32,
            );
        }
    }
    for k in &doc.keyword_phrases {
        out.insert(format!("{KEYWORD}{k}"), params.keyword_weight);
    }
    for (term, share) in &doc.signatures {
        out.insert(term.clone(), *share);
    }
    if let Some(command) = &doc.meta.command {
        for p in program_terms(command) {
            out.insert(p, params.program_weight);
        }
    }
    out.insert(format!("{ID}{}", doc.meta.id), 0.0);
    let mut v: Vec<(String, f32)> = out.into_iter().map(|(t, f)| (t, stored(f))).collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    Terms::from_iter(v)
}

/// A pseudo-frequency rounded as the segment stores it (1/256 steps), so
/// the file and memory rank alike.
pub fn stored(f: f32) -> f32 {
    if f > 0.0 {
        (f * 256.0).round().clamp(1.0, 65_535.0) / 256.0
    } else {
        0.0
    }
}

/// The concepts a weighed learning mentions, as the graph's ranks count
/// them: what a build and a fold recount from the concept terms, and the
/// reference their tests hold them to.
#[cfg(test)]
pub fn mentioned(terms: &Terms, graph: &Graph) -> Vec<u32> {
    terms
        .iter()
        .filter_map(|(t, _)| {
            let name = t.strip_prefix(CONCEPT)?;
            let c = graph.concepts.iter().position(|c| c.name == name)?;
            Some(c as u32)
        })
        .collect()
}

/// A learning with its weighed terms, as an update keeps it between queries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WeighedDoc {
    pub meta: Meta,
    pub terms: Terms,
}

/// A learning's weighed terms, in the order given: their text laid end to
/// end in one string, so a learning costs two allocations rather than one
/// per term. A sync that re-weighs 7,335 learnings at 100,000 holds 272,000
/// terms until it folds them; one `String` each was 17 MiB of its peak.
/// Serialised as the list of `[term, weight]` pairs it stands for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Terms {
    text: String,
    /// Per term: where its text ends in `text`, and its weight.
    ends: Vec<(u32, f32)>,
}

impl Terms {
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Each term and its weight.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, f32)> + '_ {
        let mut start = 0;
        self.ends.iter().map(move |&(end, w)| {
            let t = self.text.get(start..end as usize).unwrap_or_default();
            start = end as usize;
            (t, w)
        })
    }
}

impl<S: AsRef<str>> FromIterator<(S, f32)> for Terms {
    fn from_iter<I: IntoIterator<Item = (S, f32)>>(pairs: I) -> Self {
        let mut terms = Terms::default();
        for (t, w) in pairs {
            terms.text.push_str(t.as_ref());
            // A learning's text is capped far below 4 GiB (MAX_FILE_BYTES).
            let end = u32::try_from(terms.text.len()).unwrap_or(u32::MAX);
            terms.ends.push((end, w));
        }
        terms.text.shrink_to_fit();
        terms
    }
}

impl Serialize for Terms {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Terms {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Vec::<(String, f32)>::deserialize(d)?.into_iter().collect())
    }
}

/// An index held in memory.
#[derive(Debug, Clone, Default)]
pub struct Index {
    pub params: IndexParams,
    pub stats: Stats,
    pub graph: Graph,
    pub tables: Tables,
    pub dict: HashMap<String, u32>,
    /// Per term id: (doc, pseudo-frequency), by doc.
    pub postings: Vec<Vec<(u32, f32)>>,
    pub attrs: Vec<Attrs>,
    pub metas: Vec<Meta>,
}

impl Index {
    /// An index of `docs` weighed against another index's statistics and
    /// graph (the learnings changed since a segment was built, the inbox),
    /// its tables continuing `tables`.
    pub fn overlay(
        docs: &[Doc],
        graph: &Graph,
        params: IndexParams,
        stats: Stats,
        tables: Tables,
    ) -> Index {
        let matcher = Matcher::new(graph);
        let weighed = docs
            .iter()
            .map(|d| weigh(d, &matcher, graph, &params, &stats))
            .collect();
        Self::assemble_docs(docs, weighed, graph.clone(), params, stats, tables)
    }

    /// An index of learnings already weighed (kept from an earlier overlay).
    pub fn assemble(
        docs: &[WeighedDoc],
        graph: Graph,
        params: IndexParams,
        stats: Stats,
        tables: Tables,
    ) -> Index {
        let metas: Vec<(Meta, TrustLevel)> = docs
            .iter()
            .map(|d| {
                (
                    d.meta.clone(),
                    TrustLevel::parse(&d.meta.trust).unwrap_or(TrustLevel::L1),
                )
            })
            .collect();
        let weighed = docs.iter().map(|d| d.terms.clone()).collect();
        Self::assemble_parts(metas, weighed, graph, params, stats, tables)
    }

    fn assemble_docs(
        docs: &[Doc],
        weighed: Vec<Terms>,
        graph: Graph,
        params: IndexParams,
        stats: Stats,
        tables: Tables,
    ) -> Index {
        let metas = docs.iter().map(|d| (d.meta.clone(), d.trust)).collect();
        Self::assemble_parts(metas, weighed, graph, params, stats, tables)
    }

    fn assemble_parts(
        docs: Vec<(Meta, TrustLevel)>,
        weighed: Vec<Terms>,
        graph: Graph,
        params: IndexParams,
        stats: Stats,
        tables: Tables,
    ) -> Index {
        let mut interner = Interner::new(tables);
        let mut dict: HashMap<String, u32> = HashMap::new();
        let mut postings: Vec<Vec<(u32, f32)>> = Vec::new();
        let mut attrs = Vec::with_capacity(docs.len());
        for (n, ((meta, trust), terms)) in docs.iter().zip(weighed).enumerate() {
            attrs.push(interner.attrs(meta, *trust));
            for (t, w) in terms.iter() {
                let id = match dict.get(t) {
                    Some(&id) => id,
                    None => {
                        let id = postings.len() as u32;
                        dict.insert(t.to_string(), id);
                        postings.push(Vec::new());
                        id
                    }
                };
                postings[id as usize].push((n as u32, w));
            }
        }
        Index {
            params,
            stats,
            graph,
            tables: interner.tables,
            dict,
            postings,
            attrs,
            metas: docs.into_iter().map(|(m, _)| m).collect(),
        }
    }
}

/// What ranking reads. Doc numbers run over every layer; a doc that a later
/// layer replaced or that was deleted has no attributes.
pub trait Source {
    /// Doc numbers are below this.
    fn doc_slots(&self) -> u32;
    /// Live learnings (the N of idf).
    fn live(&self) -> u32;
    fn postings(&self, term: &str) -> Vec<(u32, f32)>;
    fn attrs(&self, doc: u32) -> Option<Attrs>;
    fn meta(&self, doc: u32) -> Option<Meta>;
    fn tables(&self) -> &Tables;
    fn graph(&self) -> &Graph;
}

impl Source for Index {
    fn doc_slots(&self) -> u32 {
        self.attrs.len() as u32
    }
    fn live(&self) -> u32 {
        self.attrs.len() as u32
    }
    fn postings(&self, term: &str) -> Vec<(u32, f32)> {
        self.dict
            .get(term)
            .map(|&id| self.postings[id as usize].clone())
            .unwrap_or_default()
    }
    fn attrs(&self, doc: u32) -> Option<Attrs> {
        self.attrs.get(doc as usize).copied()
    }
    fn meta(&self, doc: u32) -> Option<Meta> {
        self.metas.get(doc as usize).cloned()
    }
    fn tables(&self) -> &Tables {
        &self.tables
    }
    fn graph(&self) -> &Graph {
        &self.graph
    }
}

/// A base source with newer learnings laid over it: the learnings changed
/// since the base was written, and the inbox. A base learning the overlay
/// replaces (or that was deleted) is dead; so is an overlay learning a
/// later overlay entry replaces. Overlay doc numbers follow the base's.
pub struct Layered<'a> {
    pub base: &'a dyn Source,
    pub overlay: Index,
    pub dead: std::collections::HashSet<u32>,
    /// Newer evidence for base learnings whose events alone changed.
    pub success: HashMap<u32, f32>,
}

impl Source for Layered<'_> {
    fn doc_slots(&self) -> u32 {
        self.base.doc_slots() + self.overlay.attrs.len() as u32
    }
    fn live(&self) -> u32 {
        self.doc_slots().saturating_sub(self.dead.len() as u32)
    }
    /// Dead learnings are left out, so a term's document frequency (and its
    /// idf) counts only learnings that exist.
    fn postings(&self, term: &str) -> Vec<(u32, f32)> {
        let offset = self.base.doc_slots();
        let mut out = self.base.postings(term);
        if !self.dead.is_empty() {
            out.retain(|(d, _)| !self.dead.contains(d));
        }
        out.extend(
            self.overlay
                .postings(term)
                .into_iter()
                .map(|(d, f)| (d + offset, f))
                .filter(|(d, _)| !self.dead.contains(d)),
        );
        out
    }
    fn attrs(&self, doc: u32) -> Option<Attrs> {
        if self.dead.contains(&doc) {
            return None;
        }
        let offset = self.base.doc_slots();
        if doc >= offset {
            return self.overlay.attrs.get((doc - offset) as usize).copied();
        }
        let mut a = self.base.attrs(doc)?;
        if let Some(&s) = self.success.get(&doc) {
            a.success = s;
        }
        Some(a)
    }
    fn meta(&self, doc: u32) -> Option<Meta> {
        let offset = self.base.doc_slots();
        if doc >= offset {
            return self.overlay.metas.get((doc - offset) as usize).cloned();
        }
        self.base.meta(doc)
    }
    fn tables(&self) -> &Tables {
        // The overlay's tables continue the base's: a superset.
        &self.overlay.tables
    }
    fn graph(&self) -> &Graph {
        self.base.graph()
    }
}

#[cfg(test)]
mod tests {
    //! The weighed terms' compact form reads and serialises as the pairs
    //! it stands for.
    use super::*;

    #[test]
    fn terms_read_back_and_serialise_as_the_pairs_they_were_made_of() {
        let pairs = [
            ("", 0.5),
            ("\u{1}id:learning-1", 0.0),
            ("café", 1.25),
            ("git", 2.0),
            ("", 3.0),
        ];
        let terms: Terms = pairs.iter().copied().collect();
        assert_eq!(terms.len(), 5);
        assert!(!terms.is_empty());
        assert_eq!(terms.iter().collect::<Vec<_>>(), pairs);
        // The delta file's shape is unchanged: a list of [term, weight].
        let json = serde_json::to_string(&terms).expect("serialise");
        let as_pairs = serde_json::to_string(&pairs).expect("serialise");
        assert_eq!(json, as_pairs);
        let back: Terms = serde_json::from_str(&json).expect("parse");
        assert_eq!(back, terms);
        assert!(Terms::default().is_empty());
        assert_eq!(Terms::default().iter().count(), 0);
    }
}
