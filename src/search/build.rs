//! Building a whole index learning by learning, holding each only as what
//! weighing needs: its words as ids of one dictionary with their counts per
//! field, and the terms whose weight is fixed (concepts, keyword phrases,
//! program, id). The text, token lists and phrase of a learning are dropped
//! as soon as it is added, so a build of 100,000 learnings holds a fraction
//! of their text. Weighing does exactly what [`weigh`](super::postings::weigh)
//! does, in the same order of float operations, so a built index and a
//! delta weighed later agree to the bit.

use super::doc::{Doc, FIELD_COUNT, Meta};
use super::kg::{Graph, Matcher};
use super::postings::{
    CONCEPT, ID, Index, IndexParams, Interner, KEYWORD, Stats, Tables, program_terms, stored,
};
use crate::learning::TrustLevel;
use std::collections::HashMap;

/// One learning as a build holds it (its fields' lengths are in `meta`).
struct Compact {
    meta: Meta,
    trust: TrustLevel,
    /// (term, field, occurrences), by term then field.
    words: Vec<(u32, u8, u32)>,
    /// Terms of fixed weight, and the concept each names (for the ranks).
    fixed: Vec<(u32, f32, Option<u32>)>,
}

/// An index being built.
pub struct Builder {
    graph: Graph,
    matcher: Matcher,
    params: IndexParams,
    dict: HashMap<String, u32>,
    docs: Vec<Compact>,
}

impl Builder {
    pub fn new(graph: Graph, params: IndexParams) -> Builder {
        Builder {
            matcher: Matcher::new(&graph),
            graph,
            params,
            dict: HashMap::new(),
            docs: Vec::new(),
        }
    }

    fn intern(&mut self, term: &str) -> u32 {
        if let Some(&id) = self.dict.get(term) {
            return id;
        }
        let id = self.dict.len() as u32;
        self.dict.insert(term.to_string(), id);
        id
    }

    /// Room for `n` more learnings, so a rebuild that knows how many it
    /// reads does not hold twice their room while the list grows.
    pub fn reserve(&mut self, n: usize) {
        self.docs.reserve_exact(n);
    }

    /// Adds a learning (its doc number is its position, unless sorted).
    pub fn add(&mut self, doc: &Doc) {
        let mut words = Vec::new();
        for (f, terms) in doc.fields.iter().enumerate() {
            for t in terms {
                let id = self.intern(t);
                words.push((id, f as u8, 1u32));
            }
        }
        words.sort_unstable();
        words.dedup_by(|cur, prev| {
            let same = cur.0 == prev.0 && cur.1 == prev.1;
            if same {
                prev.2 += cur.2;
            }
            same
        });
        // Kept until the postings are built: no room for what dedup removed.
        words.shrink_to_fit();
        let mut fixed: Vec<(String, f32, Option<u32>)> = Vec::new();
        for m in self.matcher.mentions(&doc.phrase) {
            if let Some(c) = self.graph.concepts.get(m.concept as usize) {
                fixed.push((
                    format!("{CONCEPT}{}", c.name),
                    self.params.concept_weight * m.count.min(3) as f32,
                    Some(m.concept),
                ));
            }
        }
        for k in &doc.keyword_phrases {
            fixed.push((format!("{KEYWORD}{k}"), self.params.keyword_weight, None));
        }
        for (term, share) in &doc.signatures {
            fixed.push((term.clone(), *share, None));
        }
        if let Some(command) = &doc.meta.command {
            for p in program_terms(command) {
                fixed.push((p, self.params.program_weight, None));
            }
        }
        fixed.push((format!("{ID}{}", doc.meta.id), 0.0, None));
        // A key set twice keeps its last weight, as a map insert would.
        let mut kept: Vec<(u32, f32, Option<u32>)> = Vec::with_capacity(fixed.len());
        for (term, w, concept) in fixed {
            let id = self.intern(&term);
            match kept.iter_mut().find(|k| k.0 == id) {
                Some(k) => *k = (id, w, concept),
                None => kept.push((id, w, concept)),
            }
        }
        self.docs.push(Compact {
            meta: doc.meta.clone(),
            trust: doc.trust,
            words,
            fixed: kept,
        });
    }

    /// Orders the learnings by id, then path (a rebuild's doc numbers).
    pub fn sort_by_id(&mut self) {
        self.docs
            .sort_by(|a, b| (&a.meta.id, &a.meta.path).cmp(&(&b.meta.id, &b.meta.path)));
    }

    pub fn len(&self) -> usize {
        self.docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// The index: statistics from every learning's lengths, each weighed
    /// against them, the graph's ranks from the concepts they mention.
    pub fn finish(self) -> Index {
        let Builder {
            mut graph,
            params,
            dict,
            docs,
            ..
        } = self;
        let mut stats = Stats::default();
        if !docs.is_empty() {
            for f in 0..FIELD_COUNT {
                let total: usize = docs.iter().map(|d| d.meta.lens[f] as usize).sum();
                stats.avg_len[f] = (total as f32 / docs.len() as f32).max(1.0);
                stats.total_len[f] = total as u64;
            }
            stats.docs = docs.len() as u64;
        }
        let mut postings: Vec<Vec<(u32, f32)>> = vec![Vec::new(); dict.len()];
        let mut mentions: Vec<(u32, u32)> = Vec::new();
        let mut interner = Interner::new(Tables::default());
        let mut attrs = Vec::with_capacity(docs.len());
        let mut metas = Vec::with_capacity(docs.len());
        for (n, d) in docs.into_iter().enumerate() {
            let n = n as u32;
            let mut w = [0f32; FIELD_COUNT];
            for (f, wf) in w.iter_mut().enumerate() {
                if d.meta.lens[f] > 0 {
                    let norm = 1.0 - params.b
                        + params.b * d.meta.lens[f] as f32 / stats.avg_len[f].max(1e-3);
                    *wf = params.field_weights[f] / norm;
                }
            }
            let mut i = 0;
            while i < d.words.len() {
                let term = d.words[i].0;
                let mut acc = 0f32;
                while i < d.words.len() && d.words[i].0 == term {
                    let (_, f, count) = d.words[i];
                    for _ in 0..count {
                        acc += w[f as usize];
                    }
                    i += 1;
                }
                if let Some(list) = postings.get_mut(term as usize) {
                    list.push((n, stored(acc)));
                }
            }
            for &(term, weight, concept) in &d.fixed {
                let weight = stored(weight);
                if let Some(c) = concept {
                    mentions.push((n, c));
                }
                if let Some(list) = postings.get_mut(term as usize) {
                    list.push((n, weight));
                }
            }
            attrs.push(interner.attrs(&d.meta, d.trust));
            metas.push(d.meta);
        }
        graph.rank(&mentions);
        Index {
            params,
            stats,
            graph,
            tables: interner.tables,
            dict,
            postings,
            attrs,
            metas,
        }
    }
}

impl Index {
    /// Builds an index of `docs` (in the order given: doc numbers are
    /// positions). The graph's ranks are recomputed from these learnings.
    pub fn build(docs: &[Doc], graph: Graph, params: IndexParams) -> Index {
        let mut b = Builder::new(graph, params);
        for d in docs {
            b.add(d);
        }
        b.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learning::Learning;
    use crate::search::doc::Tally;
    use crate::search::kg;
    use crate::search::postings::{mentioned, weigh};

    /// The retrieval corpus's learnings and KG (tests/fixtures/search):
    /// the shapes captures really have.
    fn corpus() -> (Vec<Doc>, Graph) {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/search");
        let mut docs = Vec::new();
        for agent in std::fs::read_dir(root.join("learnings"))
            .expect("fixture")
            .flatten()
        {
            for f in std::fs::read_dir(agent.path()).expect("folder").flatten() {
                let bytes = std::fs::read(f.path()).expect("read");
                let l = Learning::parse(&bytes).expect("parses");
                let rel = format!(
                    "{}/{}",
                    agent.file_name().to_string_lossy(),
                    f.file_name().to_string_lossy()
                );
                docs.push(Doc::new(&l, &rel, Tally::default()));
            }
        }
        docs.sort_by(|a, b| a.meta.id.cmp(&b.meta.id));
        let mut files = Vec::new();
        for f in std::fs::read_dir(root.join("kg")).expect("kg").flatten() {
            let name = format!("kg/{}", f.file_name().to_string_lossy());
            files.push((name, std::fs::read(f.path()).expect("read")));
        }
        files.sort();
        let (concepts, _) = kg::check(&files);
        (docs, Graph::from_files(&concepts))
    }

    #[test]
    fn a_built_index_holds_exactly_what_weighing_each_learning_gives() {
        let (docs, graph) = corpus();
        assert!(docs.len() > 300 && graph.concepts.len() > 30);
        let params = IndexParams::default();
        let index = Index::build(&docs, graph.clone(), params);
        let matcher = Matcher::new(&index.graph);
        let mut expected: HashMap<String, Vec<(u32, f32)>> = HashMap::new();
        let mut all_mentions = Vec::new();
        for (n, d) in docs.iter().enumerate() {
            let terms = weigh(d, &matcher, &index.graph, &params, &index.stats);
            all_mentions.extend(mentioned(&terms, &graph).into_iter().map(|c| (n as u32, c)));
            for (t, w) in terms.iter() {
                expected
                    .entry(t.to_string())
                    .or_default()
                    .push((n as u32, w));
            }
        }
        assert_eq!(index.dict.len(), expected.len(), "the same terms");
        for (t, list) in &expected {
            let id = index.dict[t];
            assert_eq!(&index.postings[id as usize], list, "postings of {t:?}");
        }
        let mut ranked = graph.clone();
        ranked.rank(&all_mentions);
        assert_eq!(index.graph, ranked, "the ranks");
        assert!(
            index.graph.concepts.iter().any(|c| c.rank > 0),
            "the corpus mentions concepts"
        );
        // Averages from the fields' lengths, totals kept.
        for f in 0..FIELD_COUNT {
            let total: usize = docs.iter().map(|d| d.fields[f].len()).sum();
            assert_eq!(index.stats.total_len[f], total as u64);
            assert_eq!(
                index.stats.avg_len[f],
                (total as f32 / docs.len() as f32).max(1.0)
            );
        }
        assert_eq!(index.metas.len(), docs.len());
        assert_eq!(index.metas[7], docs[7].meta);
    }

    #[test]
    fn sorting_numbers_learnings_by_id_then_path() {
        let (mut docs, graph) = corpus();
        docs.reverse();
        let mut b = Builder::new(graph, IndexParams::default());
        for d in &docs {
            b.add(d);
        }
        b.sort_by_id();
        let index = b.finish();
        let ids: Vec<&str> = index.metas.iter().map(|m| m.id.as_str()).collect();
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(ids, sorted);
    }
}
