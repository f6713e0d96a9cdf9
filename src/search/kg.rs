//! The knowledge graph (DESIGN §2, §9): `kg/*.md` files in terraphim's
//! format — one concept per file, the file name is the concept, `synonyms::`
//! lines list the words that name it, `related::` lines name other concepts
//! (other `key:: value` lines are kept for terraphim and ignored here).
//! Single-colon lines (`Type: Concept`, `Domain: …`, `Related: raft, paxos`,
//! as terraphim documents them) are metadata, not mistakes: a `Related:`
//! line links the concepts it names that the graph defines, and is not
//! checked (it may name concepts kept elsewhere). Only `synonyms:` with one
//! colon is reported: terraphim would read no synonyms from it either.
//!
//! Pure: parsing and checking files, one Aho-Corasick automaton over every
//! synonym (matched on whole normalised words, longest first), and the
//! rolegraph's co-occurrence ranks — a concept's node rank is how many
//! learnings mention it, an edge's rank how many mention both ends — from
//! which a query's concepts reach their neighbours.

use super::tokenize;
use aho_corasick::{AhoCorasick, MatchKind};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// A KG file that cannot be used as it is, said for a person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KgProblem {
    pub path: String,
    /// 1-based; 0 for the whole file.
    pub line: usize,
    pub message: String,
}

impl KgProblem {
    /// Where it is, as `kg check` and `doctor` show it: `kg/<file>.md:<line>`,
    /// or the path alone for a problem with the whole file.
    pub fn location(&self) -> String {
        match self.line {
            0 => self.path.clone(),
            line => format!("{}:{line}", self.path),
        }
    }
}

/// One concept as its file defines it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConceptFile {
    pub name: String,
    pub path: String,
    /// As written, the concept's own name first.
    pub synonyms: Vec<(String, usize)>,
    /// `related::` names as written, with their line.
    pub related: Vec<(String, usize)>,
    /// `Related:` (one colon, metadata) names, lower case: links to the
    /// concepts among them that the graph defines; never reported.
    pub see_also: Vec<String>,
}

/// Parses one file (`path` is `kg/<name>.md`). Problems do not stop the
/// parse: the usable synonyms of a file with one bad line still count.
pub fn parse_file(path: &str, bytes: &[u8]) -> (Option<ConceptFile>, Vec<KgProblem>) {
    let mut problems = Vec::new();
    let problem = |line: usize, message: String| KgProblem {
        path: path.to_string(),
        line,
        message,
    };
    let stem = path
        .rsplit('/')
        .next()
        .and_then(|f| f.strip_suffix(".md"))
        .unwrap_or("")
        .trim();
    if !stem.chars().any(char::is_alphanumeric) {
        problems.push(problem(
            0,
            "the file name names no concept (it needs a word, like `force-push.md`)".into(),
        ));
        return (None, problems);
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        problems.push(problem(0, "the file is not valid UTF-8".into()));
        return (None, problems);
    };
    let mut concept = ConceptFile {
        name: stem.to_lowercase(),
        path: path.to_string(),
        synonyms: vec![(stem.replace(['-', '_'], " "), 0)],
        related: Vec::new(),
        see_also: Vec::new(),
    };
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let trimmed = line.trim();
        let lower = trimmed.to_ascii_lowercase();
        if let Some(rest) = lower.strip_prefix("synonyms:")
            && !rest.starts_with(':')
        {
            problems.push(problem(
                n,
                "`synonyms:` needs two colons: `synonyms:: a, b, c`".into(),
            ));
        }
        if let Some(rest) = lower.strip_prefix("related:")
            && !rest.starts_with(':')
        {
            let names = rest.split(',').map(|r| r.trim().to_lowercase());
            concept.see_also.extend(names.filter(|r| !r.is_empty()));
            continue;
        }
        let (list, is_synonyms) = if lower.starts_with("synonyms::") {
            (&trimmed["synonyms::".len()..], true)
        } else if lower.starts_with("related::") {
            (&trimmed["related::".len()..], false)
        } else {
            continue;
        };
        let key = if is_synonyms { "synonyms" } else { "related" };
        if list.trim().is_empty() {
            problems.push(problem(n, format!("`{key}::` lists nothing")));
            continue;
        }
        let items: Vec<&str> = list.split(',').map(str::trim).collect();
        let last = items.len() - 1;
        for (k, item) in items.into_iter().enumerate() {
            if item.is_empty() {
                // A trailing comma is harmless; an empty entry inside is a typo.
                if k != last {
                    problems.push(problem(
                        n,
                        format!("`{key}::` has an empty entry between commas"),
                    ));
                }
                continue;
            }
            if is_synonyms {
                if tokenize::phrase(item).is_empty() {
                    problems.push(problem(
                        n,
                        format!("synonym `{item}` has no word that can be searched (too short, or only stop words)"),
                    ));
                    continue;
                }
                concept.synonyms.push((item.to_string(), n));
            } else {
                concept.related.push((item.to_lowercase(), n));
            }
        }
    }
    (Some(concept), problems)
}

/// Checks a whole KG: every file's problems, plus what only the set shows —
/// `related::` names no file defines, a synonym claimed by two concepts.
pub fn check(files: &[(String, Vec<u8>)]) -> (Vec<ConceptFile>, Vec<KgProblem>) {
    let mut concepts = Vec::new();
    let mut problems = Vec::new();
    for (path, bytes) in files {
        let (concept, mut p) = parse_file(path, bytes);
        problems.append(&mut p);
        concepts.extend(concept);
    }
    concepts.sort_by(|a, b| a.name.cmp(&b.name).then(a.path.cmp(&b.path)));
    let mut names: HashMap<String, String> = HashMap::new();
    for c in &concepts {
        if let Some(first) = names.insert(c.name.clone(), c.path.clone()) {
            problems.push(KgProblem {
                path: c.path.clone(),
                line: 0,
                message: format!("concept `{}` is also defined by {first}", c.name),
            });
        }
    }
    // Whole synonyms claim their phrase first, as `Graph::from_files` reads them.
    let mut owner: HashMap<String, &str> = HashMap::new();
    for whole in [true, false] {
        for c in &concepts {
            for (syn, line) in &c.synonyms {
                let key = tokenize::phrase(syn);
                if is_whole(syn, &key) != whole {
                    continue;
                }
                let read_as = if whole {
                    String::new()
                } else {
                    format!(" (read as `{key}`)")
                };
                match owner.get(&key) {
                    Some(other) if *other != c.name => problems.push(KgProblem {
                        path: c.path.clone(),
                        line: *line,
                        message: format!(
                            "`{syn}`{read_as} already names concept `{other}`; a term can name one concept"
                        ),
                    }),
                    Some(_) => {}
                    None => {
                        owner.insert(key, &c.name);
                    }
                }
            }
        }
    }
    for c in &concepts {
        for (rel, line) in &c.related {
            if !names.contains_key(rel) {
                problems.push(KgProblem {
                    path: c.path.clone(),
                    line: *line,
                    message: format!("related:: names `{rel}`, which no kg file defines"),
                });
            }
        }
    }
    problems.sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
    (concepts, problems)
}

/// Whether `phrase`, a synonym's normalised form, keeps every word of `syn`: `ld.so`
/// read as `ld` (its stop word dropped) does not, and yields to a concept that says
/// `ld` itself.
fn is_whole(syn: &str, phrase: &str) -> bool {
    let words = syn
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .count();
    phrase.split(' ').count() == words
}

/// The concepts as the index stores them: normalised synonyms and ranks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Graph {
    pub concepts: Vec<Concept>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Concept {
    pub name: String,
    /// Normalised phrases (see [`tokenize::phrase`]).
    pub phrases: Vec<String>,
    /// Node rank: learnings that mention the concept.
    #[serde(default)]
    pub rank: u32,
    /// Edges: (other concept, learnings that mention both), by concept index.
    #[serde(default)]
    pub edges: Vec<(u32, u32)>,
    /// `related::` concepts, by index.
    #[serde(default)]
    pub related: Vec<u32>,
}

impl Graph {
    /// The graph of the usable concepts of a checked KG (ranks still zero).
    pub fn from_files(files: &[ConceptFile]) -> Graph {
        let mut seen = HashMap::new();
        let mut concepts: Vec<Concept> = Vec::new();
        // The files that define a concept: a second file of the same name adds nothing.
        let mut defining: Vec<&ConceptFile> = Vec::new();
        for f in files {
            if seen.contains_key(&f.name) {
                continue;
            }
            seen.insert(f.name.clone(), concepts.len() as u32);
            defining.push(f);
            concepts.push(Concept {
                name: f.name.clone(),
                phrases: Vec::new(),
                rank: 0,
                edges: Vec::new(),
                related: Vec::new(),
            });
        }
        // A phrase two concepts give names the first that gives it whole: `linker`'s
        // `ld` before `dynamic-loader`'s `ld.so`, which normalises to `ld` once its
        // stop word is dropped. Among equals, the first file's.
        let mut claimed: HashMap<String, ()> = HashMap::new();
        for whole in [true, false] {
            for (me, f) in defining.iter().enumerate() {
                for (syn, _) in &f.synonyms {
                    let p = tokenize::phrase(syn);
                    if p.is_empty() || is_whole(syn, &p) != whole {
                        continue;
                    }
                    if claimed.insert(p.clone(), ()).is_none() {
                        concepts[me].phrases.push(p);
                    }
                }
            }
        }
        for f in files {
            let Some(&me) = seen.get(&f.name) else {
                continue;
            };
            let related: Vec<u32> = f
                .related
                .iter()
                .map(|(r, _)| r)
                .chain(&f.see_also)
                .filter_map(|r| seen.get(r).copied())
                .filter(|&r| r != me)
                .collect();
            let c = &mut concepts[me as usize];
            if c.related.is_empty() {
                c.related = related;
            }
        }
        Graph { concepts }
    }

    pub fn is_empty(&self) -> bool {
        self.concepts.is_empty()
    }

    /// Sets node and edge ranks from the concepts each learning mentions:
    /// `mentions` holds each (learning, concept) once, a learning's
    /// together. One flat list, not a list per learning: a fold of 100,000
    /// learnings held 7 MiB of small lists.
    pub fn rank(&mut self, mentions: &[(u32, u32)]) {
        let mut edges: BTreeMap<(u32, u32), u32> = BTreeMap::new();
        for c in &mut self.concepts {
            c.rank = 0;
            c.edges.clear();
        }
        for doc in mentions.chunk_by(|a, b| a.0 == b.0) {
            for &(_, a) in doc {
                if let Some(c) = self.concepts.get_mut(a as usize) {
                    c.rank += 1;
                }
                for &(_, b) in doc {
                    if a != b {
                        *edges.entry((a, b)).or_default() += 1;
                    }
                }
            }
        }
        for ((a, b), n) in edges {
            if let Some(c) = self.concepts.get_mut(a as usize) {
                c.edges.push((b, n));
            }
        }
    }

    /// Concepts one hop from `concept` with how strongly they go together:
    /// the share of `concept`'s learnings that also mention the other (a
    /// conditional probability from co-occurrence), or `related_floor` for a
    /// `related::` line, whichever is larger.
    pub fn neighbours(&self, concept: u32, related_floor: f32) -> Vec<(u32, f32)> {
        let Some(c) = self.concepts.get(concept as usize) else {
            return Vec::new();
        };
        let mut out: BTreeMap<u32, f32> = BTreeMap::new();
        if c.rank > 0 {
            for &(other, n) in &c.edges {
                out.insert(other, n as f32 / c.rank as f32);
            }
        }
        for &r in &c.related {
            let e = out.entry(r).or_insert(0.0);
            *e = e.max(related_floor);
        }
        out.into_iter().collect()
    }
}

/// The automaton over every synonym of a graph.
pub struct Matcher {
    ac: Option<AhoCorasick>,
    /// Pattern index → concept index.
    owner: Vec<u32>,
}

/// A concept found in a text: which, and how often.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mention {
    pub concept: u32,
    pub count: u32,
    /// Words in its longest matched stretch (one for `docker`, three for
    /// `protected branch hook`).
    pub words: u32,
}

impl Matcher {
    pub fn new(graph: &Graph) -> Matcher {
        let mut patterns = Vec::new();
        let mut owner = Vec::new();
        for (i, c) in graph.concepts.iter().enumerate() {
            for p in &c.phrases {
                patterns.push(p.as_str());
                owner.push(i as u32);
            }
        }
        let ac = (!patterns.is_empty())
            .then(|| {
                AhoCorasick::builder()
                    .match_kind(MatchKind::Standard)
                    .build(&patterns)
                    .ok()
            })
            .flatten();
        Matcher { ac, owner }
    }

    /// The concepts a phrase (see [`tokenize::phrase`]) mentions, each once
    /// with its count, sorted by concept. Matches are whole words; where
    /// two overlap the longer one wins ("protected branch hook declined"
    /// over "branch"), so one stretch of text names one concept.
    pub fn mentions(&self, phrase: &str) -> Vec<Mention> {
        mentions_of(phrase, &self.cover(phrase))
    }

    /// The stretches of a phrase that name a concept, as byte ranges of it:
    /// the greedy, non-overlapping cover [`Matcher::mentions`] counts.
    pub fn cover(&self, phrase: &str) -> Vec<Stretch> {
        let Some(ac) = &self.ac else {
            return Vec::new();
        };
        let bytes = phrase.as_bytes();
        let mut found: Vec<Stretch> = ac
            .find_overlapping_iter(phrase)
            .filter(|m| {
                let (s, e) = (m.start(), m.end());
                (s == 0 || bytes[s - 1] == b' ') && (e == bytes.len() || bytes[e] == b' ')
            })
            .map(|m| Stretch {
                start: m.start(),
                end: m.end(),
                concept: self.owner[m.pattern().as_usize()],
            })
            .collect();
        // Longest first, then leftmost: a greedy cover without overlaps.
        found.sort_by(|a, b| {
            (b.end - b.start)
                .cmp(&(a.end - a.start))
                .then(a.start.cmp(&b.start))
        });
        let mut taken: Vec<Stretch> = Vec::new();
        for f in found {
            if !taken.iter().any(|t| f.start < t.end && t.start < f.end) {
                taken.push(f);
            }
        }
        taken
    }
}

/// A stretch of a phrase that names a concept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stretch {
    pub start: usize,
    pub end: usize,
    pub concept: u32,
}

/// The mentions a cover of `phrase` makes, sorted by concept.
pub fn mentions_of(phrase: &str, cover: &[Stretch]) -> Vec<Mention> {
    let mut counts: BTreeMap<u32, (u32, u32)> = BTreeMap::new();
    for s in cover {
        let words = phrase[s.start..s.end].split(' ').count() as u32;
        let entry = counts.entry(s.concept).or_default();
        entry.0 += 1;
        entry.1 = entry.1.max(words);
    }
    counts
        .into_iter()
        .map(|(concept, (count, words))| Mention {
            concept,
            count,
            words,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(list: &[(&str, &str)]) -> Vec<(String, Vec<u8>)> {
        list.iter()
            .map(|(p, t)| (p.to_string(), t.as_bytes().to_vec()))
            .collect()
    }

    #[test]
    fn a_terraphim_file_parses_with_its_name_as_a_synonym() {
        let (c, p) = parse_file(
            "kg/force-push.md",
            b"# Force push\n\nRewriting history.\n\nsynonyms:: push -f, push --force, force-with-lease\nrelated:: protected-branch\ncontext:: git\n",
        );
        assert!(p.is_empty(), "{p:?}");
        let c = c.expect("concept");
        assert_eq!(c.name, "force-push");
        let syns: Vec<&str> = c.synonyms.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(
            syns,
            ["force push", "push -f", "push --force", "force-with-lease"]
        );
        assert_eq!(c.related, vec![("protected-branch".to_string(), 6)]);
    }

    #[test]
    fn broken_lines_are_named_by_file_and_line() {
        let (_, p) = check(&files(&[
            ("kg/a.md", "synonyms: one, two\n"),
            (
                "kg/b.md",
                "# b\nsynonyms::\nsynonyms:: x1 y, , z1\nsynonyms:: the\n",
            ),
            ("kg/c.md", "synonyms:: widget\nrelated:: nowhere\n"),
            ("kg/d.md", "synonyms:: widget\n"),
        ]));
        let said: Vec<(String, usize)> = p.iter().map(|p| (p.path.clone(), p.line)).collect();
        assert!(said.contains(&("kg/a.md".into(), 1)), "{p:?}");
        assert!(said.contains(&("kg/b.md".into(), 2)), "{p:?}");
        assert!(said.contains(&("kg/b.md".into(), 3)), "{p:?}");
        assert!(said.contains(&("kg/b.md".into(), 4)), "{p:?}");
        assert!(said.contains(&("kg/c.md".into(), 2)), "{p:?}");
        assert!(
            said.contains(&("kg/d.md".into(), 1)),
            "a synonym of two concepts: {p:?}"
        );
        let (_, bad) = parse_file("kg/x.md", &[0xff, 0xfe]);
        assert_eq!(bad[0].line, 0);
        assert!(bad[0].message.contains("UTF-8"));
    }

    #[test]
    fn terraphim_metadata_lines_are_not_mistakes_and_related_links_known_concepts() {
        let (concepts, p) = check(&files(&[
            (
                "kg/consensus.md",
                "# Consensus\n\nsynonyms:: consensus algorithm, leader election\nType: Concept\nDomain: distributed systems\nRelated: raft, paxos\n",
            ),
            ("kg/raft.md", "synonyms:: raft log\n"),
        ]));
        assert!(p.is_empty(), "metadata reported: {p:?}");
        let consensus = &concepts[0];
        assert_eq!(consensus.name, "consensus");
        assert_eq!(consensus.see_also, vec!["raft", "paxos"]);
        let graph = Graph::from_files(&concepts);
        let raft = index_of(&graph, "raft");
        // `paxos` has no file: no link, and no problem.
        assert_eq!(graph.concepts[0].related, vec![raft]);
    }

    #[test]
    fn matches_are_whole_words_and_the_longest_wins() {
        let (concepts, p) = check(&files(&[
            (
                "kg/protected-branch.md",
                "synonyms:: protected branch hook declined, GH006\n",
            ),
            ("kg/branch.md", "synonyms:: branches\n"),
            ("kg/ssh.md", "synonyms:: ssh\n"),
        ]));
        assert!(p.is_empty(), "{p:?}");
        let graph = Graph::from_files(&concepts);
        let m = Matcher::new(&graph);
        let idx = |name: &str| {
            graph
                .concepts
                .iter()
                .position(|c| c.name == name)
                .expect("concept") as u32
        };
        let found = m.mentions(&tokenize::phrase(
            "! [remote rejected] main -> main (protected branch hook declined) and another branch",
        ));
        assert_eq!(
            found,
            vec![
                Mention {
                    concept: idx("branch"),
                    count: 1,
                    words: 1,
                },
                Mention {
                    concept: idx("protected-branch"),
                    count: 1,
                    words: 4,
                },
            ]
        );
        assert!(
            m.mentions(&tokenize::phrase("openssh sshd")).is_empty(),
            "no match inside a word"
        );
    }

    fn index_of(graph: &Graph, name: &str) -> u32 {
        graph
            .concepts
            .iter()
            .position(|c| c.name == name)
            .expect("concept") as u32
    }

    #[test]
    fn a_synonym_read_short_yields_to_the_concept_that_says_it_whole() {
        let (concepts, p) = check(&files(&[
            ("kg/dynamic-loader.md", "synonyms:: ld.so, dynamic loader\n"),
            ("kg/linker.md", "synonyms:: ld, linker\n"),
        ]));
        // The clash is reported on the synonym that lost a word, not on `ld`.
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!(p[0].location(), "kg/dynamic-loader.md:1");
        assert!(p[0].message.contains("`ld.so` (read as `ld`)"), "{p:?}");
        let graph = Graph::from_files(&concepts);
        let linker = index_of(&graph, "linker");
        let found = Matcher::new(&graph).mentions(&tokenize::phrase(
            "collect2: error: ld returned 1 exit status",
        ));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].concept, linker);
    }

    #[test]
    fn co_occurrence_ranks_reach_neighbours() {
        let (concepts, _) = check(&files(&[
            ("kg/a.md", "synonyms:: alpha\nrelated:: c\n"),
            ("kg/b.md", "synonyms:: beta\n"),
            ("kg/c.md", "synonyms:: gamma\n"),
        ]));
        let mut g = Graph::from_files(&concepts);
        // Four learnings mention a; three of them b as well.
        g.rank(&[(0, 0), (0, 1), (1, 0), (1, 1), (2, 1), (2, 0), (3, 0)]);
        assert_eq!(g.concepts[0].rank, 4);
        assert_eq!(g.neighbours(0, 0.5), vec![(1, 0.75), (2, 0.5)]);
        assert_eq!(g.neighbours(1, 0.5), vec![(0, 1.0)]);
    }
}
