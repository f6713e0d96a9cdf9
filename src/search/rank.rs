//! Ranking (§9): which learnings answer a text, in which order, and when the
//! answer is "none". Pure over a [`Source`].
//!
//! 1. A pasted log is read as the failure it carries ([`logtext`]: stack
//!    frames, runner framing, each line's prefix and, beside an error
//!    line, its info lines taken out). The text's terms, and the KG
//!    concepts it names (plus their strongest
//!    neighbours in the co-occurrence graph, and keyword phrases), are the
//!    query's *units*; each scores a learning `idf · f / (k1 + f)` from its
//!    indexed pseudo-frequency `f` (BM25F, saturating below `idf`).
//! 2. **Relevance** is the sum over units divided by the most the text's
//!    own terms and concepts could score: a share in [0, 1] that does not
//!    grow with the length of the text. Words the index has never seen count
//!    in that maximum at a fraction of their weight, so a question about
//!    something no learning covers stays below the threshold instead of
//!    matching on its one common word.
//! 3. Below `min_relevance`, or matching fewer than two of the text's units,
//!    a learning is not an answer: a text with nothing relevant gets nothing.
//!    For that test only, a learning holding a rare KG concept the text
//!    names is credited the words of the synonym that named it (commitlint's
//!    "subject may not be empty" answers a convention that says
//!    "commitlint"): the team wrote them down as meaning that concept. The
//!    credit admits; it never reorders, since a learning that holds the
//!    text's own words is the better match. A learning that holds a
//!    *telling* concept the text names (one few learnings hold) is admitted
//!    from a lower relevance and on that one unit: a paraphrase shares the
//!    concept and few words. A common concept counts as a unit for a
//!    learning that holds it but not the word that named it (a bridge).
//!    A log that says what failed is answered only by a learning that
//!    holds much of one of its failure lines, or whose error the log
//!    repeats much of, unless a signature or half the text vouches: one
//!    that shares the log's program, files and framing records another
//!    failure ([`failure_cover`]).
//!    For a text of several lines (a log), the learning with the highest
//!    relevance is admitted from a lower one when it clearly leads every
//!    other and matches much of the text: log framing lowers every
//!    learning's relevance alike, the lead survives it. A how-to question
//!    ("how do I …") needs a higher relevance unless a signature or a
//!    telling concept vouches: a learning that shares its program and a
//!    word records a failure, not the capability asked about. One that
//!    holds none of the concepts the question names must cover nearly all
//!    of its words (those asking for a way out, "fix", "get past", aside).
//!    Any one-line question in prose that names no trouble asks for a
//!    capability ([`asking`]): a learning records a failure, and one that
//!    shares such a question's program and a word is about another feature
//!    of it. It answers only when it covers most of the question, or holds a
//!    KG concept the question names in other words than the question's.
//! 4. The rest are ordered by relevance × trust × evidence × project: L2
//!    and L3 ahead of an equally relevant L1; a correction that keeps
//!    failing (ineffective, recurred) behind one that works; the agent's
//!    own project ahead. Trust and evidence reorder answers but never make
//!    an irrelevant learning one.

use super::asking;
use super::doc::Meta;
use super::kg::{self, Matcher};
use super::logtext;
use super::postings::{Attrs, CONCEPT, KEYWORD, Source, program_terms};
use super::signature;
use super::tokenize;
pub use super::tuning::Tuning;
use crate::learning::TrustLevel;
use std::collections::{HashMap, HashSet};

/// What is asked, and of whom.
#[derive(Debug, Clone, Default)]
pub struct Request<'a> {
    pub text: &'a str,
    /// The agent the answer is for: learnings whose `applicable_agents`
    /// leave it out are not shown. `None` (a person asking) shows all.
    pub agent: Option<&'a str>,
    pub project: Option<&'a str>,
    pub limit: usize,
    /// Only these levels (empty: any).
    pub trust: &'a [TrustLevel],
    /// Only learnings captured by this agent.
    pub from: Option<&'a str>,
    pub kind: Option<&'a str>,
    /// Learnings pulled by an open problem report (§8): never shown. The
    /// review work fills this set; until then callers pass it empty.
    pub pulled: Option<&'a HashSet<String>>,
}

/// One answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub doc: u32,
    pub meta: Meta,
    /// The ranking score (relevance × trust × evidence × project).
    pub score: f32,
    /// The share of the text's weight this learning matched, 0..1.
    pub relevance: f32,
    /// The words of the text it matched.
    pub terms: Vec<String>,
    /// The KG concepts (and keyword phrases) it matched.
    pub concepts: Vec<String>,
    /// Why it was admitted and how sure the ranking is (`suggest --json`).
    pub signals: Signals,
}

impl Hit {
    /// Why this learning was chosen, as `suggest --json` and `query --json`
    /// show it: the words and concepts it matched, what admitted it, the
    /// share of its error line the text repeats, how much of what was asked
    /// it covers (and the words it does not), how many of the text's
    /// concepts it holds, and the outcomes that moved it in the order.
    pub fn why(&self) -> serde_json::Value {
        let round = |x: f32| (f64::from(x) * 1e3).round() / 1e3;
        let e = &self.meta.evidence;
        serde_json::json!({
            "terms": self.terms,
            "concepts": self.concepts,
            "admitted_by": self.signals.admitted_by,
            "relevance": round(self.relevance),
            "signature": round(self.signals.signature),
            "coverage": round(self.signals.coverage),
            "failure_line": self.signals.failure_line.map(round),
            "error_words": round(self.signals.error_words),
            "missing": self.signals.missing,
            "agreement": round(self.signals.agreement),
            "units": self.signals.units,
            "outcomes": {
                "effective": e.effective,
                "ineffective": e.ineffective,
                "recurred": e.recurred,
            },
        })
    }
}

/// The evidence beside relevance: what `suggest --json` shows under `why`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Signals {
    /// The share of one of the learning's error lines the text repeats
    /// (normalised), 0 when none.
    pub signature: f32,
    /// For a pasted log: the most of any one of its failure lines the
    /// learning holds (idf-weighed; see [`failure_cover`]).
    pub failure_line: Option<f32>,
    /// The share of the learning's error words the text holds.
    pub error_words: f32,
    /// The share of the text's distinctive words the learning covers.
    pub coverage: f32,
    /// Distinctive words of the text the learning does not cover.
    pub missing: Vec<String>,
    /// The share of the KG concepts the text names that the learning holds
    /// (idf-weighed; 0 when the text names none).
    pub agreement: f32,
    /// What admitted it: `signature`, `relevance`, `concepts` or `lead`.
    pub admitted_by: &'static str,
    /// The matched units toward `min_units` (a word 1, a concept 0–2).
    pub units: u32,
}

enum Label {
    Word(String),
    Concept(String),
}

struct Unit {
    postings: Vec<(u32, f32)>,
    idf: f32,
    weight: f32,
    /// Counts in the maximum a learning could score (the text's own terms
    /// and concepts; neighbours and phrases are a bonus only).
    own: bool,
    /// What matching it counts toward `min_units`: 1 for a word; 2 for a
    /// concept named by several words (a team wrote them down as meaning one
    /// thing); for a concept named by one word, 1 when it is rare and 0 when
    /// common (then it counts only as that word).
    counts: u32,
    label: Label,
    /// For a rare concept the text names: the word units of the synonyms
    /// that named it (the synonym credit).
    words: Vec<usize>,
    /// For any concept the text names: the same, for the coverage.
    names: Vec<usize>,
    /// A word of the text that says what is asked (not the program's name):
    /// counted in the coverage.
    distinct: bool,
    /// A concept the text names that few learnings hold (see
    /// [`Tuning::concept_df_share`]): holding it is evidence of relevance.
    telling: bool,
}

/// A text as ranking reads it.
struct Query {
    units: Vec<Unit>,
    /// The most a learning could score.
    maximum: f32,
    /// Words no learning holds: never covered, unless they name a concept.
    unknown: Vec<Unknown>,
}

/// A word of the text that no learning holds.
struct Unknown {
    term: String,
    word: String,
    weight: f32,
    /// The unit of the concept whose synonym in the text it is part of: a
    /// learning that holds the concept covers it.
    concept: Option<usize>,
}

/// A term in most learnings says nothing (and its postings cost the most).
/// In a small dir every word is common, so there it is kept.
fn common(df: usize, n: u32, t: &Tuning) -> bool {
    n >= 100 && df as f32 > t.max_df_share * n as f32
}

fn idf(n: u32, df: usize) -> f32 {
    let (n, df) = (n as f32, df as f32);
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

/// Ranks the learnings of `source` for a request.
pub fn rank(source: &dyn Source, req: &Request<'_>, t: &Tuning) -> Vec<Hit> {
    let n = source.live();
    if n == 0 || req.limit == 0 {
        return Vec::new();
    }
    // A pasted log's failure lines, and how much of the best of them each
    // learning holds (module doc, 3): none for a single line.
    let (focus, failing) = logtext::reading(req.text);
    let q = units(source, focus.as_deref().unwrap_or(req.text), t, n);
    let signatures = signature_matches(source, req.text, t, n);
    let error_words = error_word_cover(source, focus.as_deref().unwrap_or(req.text));
    let line_cover = failure_cover(source, &failing, t, n);
    if (q.units.is_empty() || q.maximum <= 0.0) && signatures.is_empty() {
        return Vec::new();
    }
    let units = &q.units;
    let own_units: u32 = units
        .iter()
        .filter(|u| !u.postings.is_empty())
        .map(|u| u.counts)
        .sum();
    let slots = source.doc_slots() as usize;
    let (score, matched) = bm25(units, slots, t);
    let credit = synonym_credit(units, &matched, slots, t);
    // The whole paste, to order what its failure's lines admit (`Tuning::context`).
    let whole = match &focus {
        Some(_) if t.context > 0.0 => {
            let w = self::units(source, req.text, t, n);
            let max = w.maximum.max(f32::MIN_POSITIVE);
            Some((bm25(&w.units, slots, t).0, max))
        }
        _ => None,
    };
    let need = (t.min_units as u32).min(own_units).max(1);
    let single_common = own_units == 1
        && units
            .iter()
            .filter(|u| u.counts > 0 && !u.postings.is_empty())
            .all(|u| u.postings.len() as f32 > (t.single_df_share * n as f32).max(1.0));
    let shape = Shape::of(&q);
    let pulled_docs = pulled_docs(source, req.pulled);
    let tables = source.tables();
    let maximum = q.maximum.max(f32::MIN_POSITIVE);
    let relevance_of =
        |d: usize| ((score[d] + credit.get(d).copied().unwrap_or(0.0)) / maximum).min(1.0);
    // The most relevant learning: the only one a log's lead or its error's words may
    // admit (a long paste holds many words, and some of every error of its program).
    let (best, first, second) = top_two(&score, &relevance_of);
    let lead = best.filter(|_| leads(first, second, req.text, t));
    let bar = if asking::asks_how(req.text) {
        t.howto_relevance.max(t.min_relevance)
    } else {
        0.0
    };
    // What a one-line question in prose must cover (module doc, 3): one that
    // names no trouble asks for a capability, and a learning records a
    // failure, so it answers only when it covers most of what is asked; any
    // other needs less (`Tuning::prose_coverage`), and a telling concept
    // vouches for it. A command or a log: nothing here.
    let (least, telling_vouches) = if !asking::asks_in_prose(req.text) {
        (0.0, false)
    } else if t.capability_coverage > 0.0 && !asking::names_trouble_in(req.text) {
        (t.capability_coverage, false)
    } else {
        (t.prose_coverage, true)
    };
    // A learning the request may see, with its order score.
    let shown = |doc: u32, own: f32, relevance: f32, signals: Signals| {
        let a = source.attrs(doc)?;
        (admits(&a, req, tables) && !pulled_docs.contains(&doc)).then(|| {
            (
                doc,
                order_score(own, &a, req, tables, t),
                relevance,
                signals,
            )
        })
    };
    let mut hits: Vec<(u32, f32, f32, Signals)> = Vec::new();
    // Learnings not admitted that could follow an answer (`Tuning::companion_ratio`).
    let mut companions: Vec<(u32, f32, f32, Signals)> = Vec::new();
    let mut best_relevance = 0f32;
    for (d, &s) in score.iter().enumerate() {
        let sig = signatures.get(&(d as u32)).copied().unwrap_or(0.0);
        if s <= 0.0 && sig <= 0.0 {
            continue;
        }
        let relevance = relevance_of(d);
        best_relevance = best_relevance.max(relevance);
        let coverage = shape.coverage(units, matched[d], &q.unknown);
        let agreement = shape.agreement(units, matched[d]);
        let telling = units
            .iter()
            .enumerate()
            .any(|(i, u)| u.telling && matched[d] & (1u64 << i) != 0);
        let evidence: u32 = units
            .iter()
            .enumerate()
            .filter(|(i, _)| matched[d] & (1u64 << i) != 0)
            .map(|(_, u)| {
                // A common concept named by one word counts as that word,
                // unless the learning holds the concept and not the word:
                // then the KG bridged a paraphrase, and that is evidence.
                let bridged = u.counts == 0
                    && u.own
                    && matches!(u.label, Label::Concept(_))
                    && u.names.iter().all(|&j| matched[d] & (1u64 << j) == 0);
                if bridged { t.bridge_units } else { u.counts }
            })
            .sum();
        let admitted_by = if sig >= t.signature_min {
            "signature"
        } else if !single_common
            && evidence >= need
            && relevance >= t.min_relevance
            && coverage >= t.min_coverage
        {
            "relevance"
        } else if telling
            && evidence >= (t.concept_units as u32).min(need)
            && relevance >= t.concept_relevance
        {
            "concepts"
        } else if lead == Some(d)
            && relevance >= t.lead_relevance
            && evidence as f32 >= t.lead_units * own_units as f32
        {
            "lead"
        } else if best == Some(d)
            && error_words
                .get(&(d as u32))
                .is_some_and(|&c| c >= t.error_words_min)
        {
            "error words"
        } else if t.companion_ratio > 0.0
            && !single_common
            && evidence >= need
            && coverage >= t.min_coverage
        {
            "companion"
        } else {
            continue;
        };
        // A pasted failure's answer holds much of one of its failure lines,
        // or the log holds much of its error, unless its signature admitted
        // it or it matches much of the text: one that shares only the log's
        // program, files and framing words is another failure.
        let failure = line_cover.get(&(d as u32)).copied().unwrap_or(0.0);
        let held = error_words.get(&(d as u32)).copied().unwrap_or(0.0);
        if !failing.is_empty()
            && t.failure_cover > 0.0
            && admitted_by != "signature"
            && relevance < t.failure_relevance
            && failure < t.failure_cover
            && held < t.failure_error_words
        {
            continue;
        }
        // A how-to question's answer covers what it asks beyond the program's
        // name, unless a signature or a telling concept vouches for it.
        let vouched = matches!(admitted_by, "signature" | "concepts") || telling;
        let covers = if agreement > 0.0 {
            t.howto_coverage
        } else {
            t.howto_coverage.max(t.howto_unbridged_coverage)
        };
        if bar > 0.0 && !vouched && (relevance < bar || coverage < covers) {
            continue;
        }
        // A question in prose covered that little is about something else
        // its program does, unless the KG ties the two in other words than
        // the question's.
        if admitted_by != "signature"
            && coverage < least
            && !(telling_vouches && telling)
            && !bridged(units, &q.unknown, matched[d])
        {
            continue;
        }
        let around = whole
            .as_ref()
            .map_or(0.0, |(w, max)| t.context * (w[d] / max).min(1.0));
        let own = (s / maximum).min(1.0) + t.signature_bonus * sig + around;
        let signals = Signals {
            signature: sig,
            failure_line: (!failing.is_empty()).then_some(failure),
            error_words: held,
            coverage,
            // Said for the learnings shown only, below.
            missing: Vec::new(),
            agreement,
            admitted_by,
            units: evidence,
        };
        // A companion's attributes are read only if it comes near enough.
        if admitted_by == "companion" {
            companions.push((d as u32, own, relevance, signals));
        } else if let Some(found) = shown(d as u32, own, relevance, signals) {
            hits.push(found);
        }
    }
    hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    if !hits.is_empty() && hits.len() < req.limit {
        // After every answer, in their own order.
        let floor = hits.iter().map(|h| h.1).fold(f32::INFINITY, f32::min);
        let mut companions: Vec<_> = companions
            .into_iter()
            .filter(|c| c.2 >= t.companion_ratio * best_relevance)
            .filter_map(|(doc, own, relevance, signals)| shown(doc, own, relevance, signals))
            .collect();
        companions.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let top = companions
            .first()
            .map_or(1.0, |c| c.1.max(f32::MIN_POSITIVE));
        hits.extend(
            companions.into_iter().map(|(doc, s, relevance, signals)| {
                (doc, floor * 0.5 * s / top, relevance, signals)
            }),
        );
    }
    hits.truncate(req.limit);
    hits.into_iter()
        .filter_map(|(doc, s, relevance, mut signals)| {
            let meta = source.meta(doc)?;
            let (terms, concepts) = matched_labels(units, matched[doc as usize]);
            signals.missing = missing_words(units, matched[doc as usize], &q.unknown);
            Some(Hit {
                doc,
                meta,
                score: s,
                relevance,
                terms,
                concepts,
                signals,
            })
        })
        .collect()
}

/// Each document's BM25 score over the query's units, and which units
/// matched it (bit i: unit i).
fn bm25(units: &[Unit], slots: usize, t: &Tuning) -> (Vec<f32>, Vec<u64>) {
    let mut score = vec![0f32; slots];
    let mut matched = vec![0u64; slots];
    for (i, u) in units.iter().enumerate() {
        let bit = 1u64 << i;
        for &(doc, f) in &u.postings {
            let d = doc as usize;
            if d < slots && f > 0.0 {
                score[d] += u.weight * u.idf * f / (t.k1 + f);
                matched[d] |= bit;
            }
        }
    }
    (score, matched)
}

/// The words and concepts of the units a hit matched (`matched`: its bits),
/// each once, for `why`.
fn matched_labels(units: &[Unit], matched: u64) -> (Vec<String>, Vec<String>) {
    let mut terms = Vec::new();
    let mut concepts = Vec::new();
    for (i, u) in units.iter().enumerate() {
        if matched & (1u64 << i) == 0 {
            continue;
        }
        match &u.label {
            Label::Word(w) if !terms.contains(w) => terms.push(w.clone()),
            Label::Word(_) => {}
            Label::Concept(c) if !concepts.contains(c) => concepts.push(c.clone()),
            Label::Concept(_) => {}
        }
    }
    (terms, concepts)
}

/// Whether a learning (`matched`: its bits) holds a KG concept the text
/// names through other words than the text's: the team's vocabulary says a
/// paraphrase means the same thing. Holding the very words that named it
/// is no evidence beyond those words.
/// A word of the text that no learning holds and that names the concept
/// is one the learning does not hold.
fn bridged(units: &[Unit], unknown: &[Unknown], matched: u64) -> bool {
    units.iter().enumerate().any(|(i, u)| {
        u.own
            && matches!(u.label, Label::Concept(_))
            && matched & (1u64 << i) != 0
            && (u.names.iter().any(|&j| matched & (1u64 << j) == 0)
                || unknown.iter().any(|w| w.concept == Some(i)))
    })
}

/// The most relevant learning (the first on a tie), its relevance and the
/// next best relevance.
fn top_two(score: &[f32], relevance_of: &dyn Fn(usize) -> f32) -> (Option<usize>, f32, f32) {
    let (mut best, mut first, mut second) = (None, 0f32, 0f32);
    for (d, _) in score.iter().enumerate().filter(|(_, s)| **s > 0.0) {
        let r = relevance_of(d);
        if r > first {
            (best, first, second) = (Some(d), r, first);
        } else if r > second {
            second = r;
        }
    }
    (best, first, second)
}

/// Whether, for a text of several lines, the most relevant learning leads
/// every other's relevance by the margin of [`Tuning::lead_ratio`] (module
/// doc, 3).
fn leads(first: f32, second: f32, text: &str, t: &Tuning) -> bool {
    t.lead_ratio < 1.0 && text.trim().lines().nth(1).is_some() && second <= t.lead_ratio * first
}

/// Per learning, toward `min_relevance` only: the words of the synonyms
/// that named a rare concept it holds, as if it held them (module doc, 3).
fn synonym_credit(units: &[Unit], matched: &[u64], slots: usize, t: &Tuning) -> Vec<f32> {
    let mut credit: Vec<f32> = Vec::new();
    if t.synonym_credit <= 0.0 || units.iter().all(|u| u.words.is_empty()) {
        return credit;
    }
    credit = vec![0f32; slots];
    let mut credited = vec![0u64; slots];
    for u in units.iter().filter(|u| !u.words.is_empty()) {
        for &(doc, f) in &u.postings {
            let d = doc as usize;
            if d >= slots || f <= 0.0 {
                continue;
            }
            for &j in &u.words {
                let bit = 1u64 << j;
                if (matched[d] | credited[d]) & bit == 0 {
                    let w = &units[j];
                    credit[d] += t.synonym_credit * w.weight * w.idf * f / (t.k1 + f);
                    credited[d] |= bit;
                }
            }
        }
    }
    credit
}

/// The learnings whose error lines the text repeats: per learning, the
/// largest share of one of its (normalised) error lines that a tail of a
/// line of the text covers. Tails that many learnings end with are skipped.
fn signature_matches(source: &dyn Source, text: &str, t: &Tuning, n: u32) -> HashMap<u32, f32> {
    let mut out: HashMap<u32, f32> = HashMap::new();
    let limit = (t.signature_df_share * n as f32).max(3.0) as usize;
    // A CI runner's closing line (`Exited with code exit status 1`) recurs in
    // every failed job: it is not the failure's signature.
    // Most texts have none: they are looked up as they are, without a copy.
    let framing = |l: &str| super::logtext::is_runner_framing(l);
    let own: std::borrow::Cow<str> = if text.lines().any(framing) {
        let kept: Vec<&str> = text.lines().filter(|l| !framing(l)).collect();
        kept.join("\n").into()
    } else {
        text.into()
    };
    for tail in signature::tails(&own) {
        let postings = source.postings(&tail.term);
        if postings.is_empty() || postings.len() > limit {
            continue;
        }
        for (doc, share) in postings {
            let e = out.entry(doc).or_default();
            *e = e.max(share.min(1.0));
        }
    }
    out
}

/// For each learning, the most of any one failure line (see
/// [`logtext::reading`]) it holds: the idf of the line's words it
/// holds over the idf of all of them, a word no learning holds counting at
/// `Tuning::failure_unknown` of its idf. Words with digits and a path's directories
/// change between recurrences and are left out, as are words most
/// learnings hold. The whole paste's coverage mixes the failure with the
/// lines around it; one line is what a reader checks a learning against.
fn failure_cover(source: &dyn Source, lines: &[String], t: &Tuning, n: u32) -> HashMap<u32, f32> {
    let mut out: HashMap<u32, f32> = HashMap::new();
    let mut postings: HashMap<String, Vec<(u32, f32)>> = HashMap::new();
    for line in lines {
        let mut seen: HashSet<String> = HashSet::new();
        let mut total = 0f32;
        let mut held: HashMap<u32, f32> = HashMap::new();
        for q in tokenize::query_terms(line) {
            if q.in_dir
                || q.term.bytes().any(|b| b.is_ascii_digit())
                || !seen.insert(q.term.clone())
            {
                continue;
            }
            let list = postings
                .entry(q.term.clone())
                .or_insert_with(|| source.postings(&q.term));
            if common(list.len(), n, t) {
                continue;
            }
            let w = if list.is_empty() {
                t.failure_unknown * idf(n, 0)
            } else {
                idf(n, list.len())
            };
            total += w;
            for &(doc, _) in list.iter() {
                *held.entry(doc).or_default() += w;
            }
        }
        if total <= 0.0 {
            continue;
        }
        for (doc, w) in held {
            let e = out.entry(doc).or_default();
            *e = e.max((w / total).min(1.0));
        }
    }
    out
}

/// The share of each learning's error words (see
/// [`signature::index_terms`]) that `text` holds, for the learnings that
/// share any. A paste is read for its first distinct terms only.
fn error_word_cover(source: &dyn Source, text: &str) -> HashMap<u32, f32> {
    const MAX_TERMS: usize = 256;
    let mut out: HashMap<u32, f32> = HashMap::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut term = String::with_capacity(32);
    for t in tokenize::terms(text) {
        if seen.len() >= MAX_TERMS {
            break;
        }
        if !seen.insert(t.clone()) {
            continue;
        }
        term.clear();
        term.push_str(signature::WORD);
        term.push_str(&t);
        for (doc, share) in source.postings(&term) {
            *out.entry(doc).or_default() += share;
        }
    }
    out
}

/// Words a question uses to ask for a way out ("how do I get past …", "fix
/// …", "work around …"), whatever failed: what is asked is the rest, so a
/// learning need not hold them to cover it.
const REMEDY: &[&str] = &[
    "avoid",
    "fix",
    "fixing",
    "get",
    "past",
    "prevent",
    "resolve",
    "solve",
    "workaround",
];

/// The parts of a text that the coverage and the agreement weigh.
struct Shape {
    /// Total weight of the distinctive words, known and unknown.
    distinct: f32,
    /// Total idf of the concepts the text names.
    concepts: f32,
}

impl Shape {
    fn of(q: &Query) -> Shape {
        let distinct = q
            .units
            .iter()
            .filter(|u| u.distinct)
            .map(|u| u.weight * u.idf)
            .sum::<f32>()
            + q.unknown.iter().map(|u| u.weight).sum::<f32>();
        let concepts = q
            .units
            .iter()
            .filter(|u| u.own && matches!(u.label, Label::Concept(_)))
            .map(|u| u.idf)
            .sum();
        Shape { distinct, concepts }
    }

    /// The share of the distinctive words a learning covers (1 when the
    /// text has none). Asked of every learning that matched anything, so it
    /// allocates nothing; [`missing_words`] says which words, for an answer.
    fn coverage(&self, units: &[Unit], matched: u64, unknown: &[Unknown]) -> f32 {
        let covered = covered_units(units, matched);
        let got: f32 = units
            .iter()
            .enumerate()
            .filter(|(i, u)| u.distinct && covered & (1u64 << i) != 0)
            .map(|(_, u)| u.weight * u.idf)
            .sum::<f32>()
            + unknown
                .iter()
                .filter(|u| u.concept.is_some_and(|c| matched & (1u64 << c) != 0))
                .map(|u| u.weight)
                .sum::<f32>();
        if self.distinct <= 0.0 {
            return 1.0;
        }
        (got / self.distinct).min(1.0)
    }

    /// The share of the text's concepts (idf-weighed) a learning holds.
    fn agreement(&self, units: &[Unit], matched: u64) -> f32 {
        if self.concepts <= 0.0 {
            return 0.0;
        }
        let held: f32 = units
            .iter()
            .enumerate()
            .filter(|(i, u)| {
                u.own && matches!(u.label, Label::Concept(_)) && matched & (1u64 << i) != 0
            })
            .map(|(_, u)| u.idf)
            .sum();
        (held / self.concepts).min(1.0)
    }
}

/// The units a learning covers: those it matched, and the words of a
/// concept it matched (a KG synonym's words are covered by the concept).
fn covered_units(units: &[Unit], matched: u64) -> u64 {
    let mut covered = matched;
    for (i, u) in units.iter().enumerate() {
        if matched & (1u64 << i) != 0 {
            for &j in &u.names {
                covered |= 1u64 << j;
            }
        }
    }
    covered
}

/// The distinctive words of the text a learning does not cover (see
/// [`Shape::coverage`]), in the text's order.
fn missing_words(units: &[Unit], matched: u64, unknown: &[Unknown]) -> Vec<String> {
    let covered = covered_units(units, matched);
    let mut missing: Vec<String> = Vec::new();
    for (i, u) in units.iter().enumerate().filter(|(_, u)| u.distinct) {
        if covered & (1u64 << i) == 0
            && let Label::Word(w) = &u.label
            && !missing.contains(w)
        {
            missing.push(w.clone());
        }
    }
    for u in unknown {
        if u.concept.is_none_or(|c| matched & (1u64 << c) == 0) && !missing.contains(&u.word) {
            missing.push(u.word.clone());
        }
    }
    missing
}

/// One unit of a query, said for a person (what `units` made of a text).
#[derive(Debug, Clone, PartialEq)]
pub struct UnitInfo {
    pub label: String,
    pub df: usize,
    pub idf: f32,
    pub weight: f32,
    pub own: bool,
    /// What matching it counts toward `min_units`.
    pub counts: u32,
}

/// What a text becomes: its units and the most a learning could score.
pub fn explain(source: &dyn Source, text: &str, t: &Tuning) -> (Vec<UnitInfo>, f32) {
    let focus = logtext::salient(text);
    let body = focus.as_deref().unwrap_or(text);
    let Query { units, maximum, .. } = units(source, body, t, source.live());
    let info = units
        .iter()
        .map(|u| UnitInfo {
            label: match &u.label {
                Label::Word(w) => w.clone(),
                Label::Concept(c) => format!("~{c}"),
            },
            df: u.postings.len(),
            idf: u.idf,
            weight: u.weight,
            own: u.own,
            counts: u.counts,
        })
        .collect();
    (info, maximum)
}

/// What the steps of [`units`] read: the index, the tuning and how many
/// learnings are live.
struct Corpus<'a> {
    source: &'a dyn Source,
    t: &'a Tuning,
    n: u32,
}

/// The KG concepts a text names: its phrase, the stretches of it that name
/// a concept, and the word unit each of its terms became.
struct Named<'a> {
    phrase: &'a str,
    cover: &'a [kg::Stretch],
    word_unit: &'a HashMap<String, usize>,
}

/// The query's units and the most a learning could score.
fn units(source: &dyn Source, text: &str, t: &Tuning, n: u32) -> Query {
    let corpus = Corpus { source, t, n };
    let mut q = Query {
        units: Vec::new(),
        maximum: 0.0,
        unknown: Vec::new(),
    };
    // Which word unit each term became, for the synonyms that name concepts.
    let word_unit = q.add_words(&corpus, weighed_terms(text, t));
    let phrase = tokenize::phrase(text);
    q.add_concepts(&corpus, &phrase, &word_unit);
    // A text that reads as a command: its program and subcommand are the
    // strongest key a learning's command offers.
    q.add_programs(&corpus, text);
    q.add_keyword_phrases(&corpus, &phrase);
    // A bitmask of 64 units: keep the most telling ones.
    q.keep_most_telling();
    q
}

/// Each term of `text` once (term, word, weight), at full weight unless
/// every use of it is a directory of a path (which names the machine, not
/// the failure).
fn weighed_terms(text: &str, t: &Tuning) -> Vec<(String, String, f32)> {
    let mut terms: Vec<(String, String, f32)> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    for q in tokenize::query_terms(text) {
        let weight = if q.in_dir { t.path_dir } else { 1.0 };
        match at.get(&q.term) {
            Some(&i) => terms[i].2 = terms[i].2.max(weight),
            None => {
                at.insert(q.term.clone(), terms.len());
                terms.push((q.term, q.word, weight));
            }
        }
    }
    terms
}

impl Query {
    /// Adds a unit for each term some learning holds and that is not
    /// common, counts the unknown ones against the maximum, and says which
    /// unit each term became.
    fn add_words(
        &mut self,
        c: &Corpus,
        terms: Vec<(String, String, f32)>,
    ) -> HashMap<String, usize> {
        let (source, t, n) = (c.source, c.t, c.n);
        let unknown_idf = idf(n, 0);
        let mut word_unit: HashMap<String, usize> = HashMap::new();
        for (term, word, weight) in terms {
            if weight <= 0.0 {
                continue;
            }
            let postings = source.postings(&term);
            if postings.is_empty() {
                // A word no learning holds makes the text less answerable; one
                // with digits (a pod name, a size, a port) is the part of an
                // error that changes every time, and says nothing.
                if !term.bytes().any(|b| b.is_ascii_digit()) {
                    self.maximum += weight * t.unknown * unknown_idf;
                    if REMEDY.contains(&term.as_str()) {
                        continue;
                    }
                    self.unknown.push(Unknown {
                        term,
                        word,
                        weight: weight * t.unknown * unknown_idf,
                        concept: None,
                    });
                }
                continue;
            }
            if common(postings.len(), n, t) {
                continue;
            }
            let w = idf(n, postings.len());
            self.maximum += weight * w;
            let program = !source
                .postings(&format!("{}{term}", super::postings::PROGRAM))
                .is_empty();
            let distinct = !program && !REMEDY.contains(&term.as_str());
            word_unit.insert(term, self.units.len());
            self.units.push(Unit {
                postings,
                idf: w,
                weight,
                own: true,
                counts: 1,
                label: Label::Word(word),
                words: Vec::new(),
                names: Vec::new(),
                distinct,
                telling: false,
            });
        }
        word_unit
    }

    /// Adds a unit for each KG concept the text names, then for the
    /// strongest neighbours of those concepts that it does not name.
    fn add_concepts(&mut self, c: &Corpus, phrase: &str, word_unit: &HashMap<String, usize>) {
        let graph = c.source.graph();
        if graph.is_empty() {
            return;
        }
        let cover = Matcher::new(graph).cover(phrase);
        let mentions = kg::mentions_of(phrase, &cover);
        let named: HashSet<u32> = mentions.iter().map(|m| m.concept).collect();
        let text = Named {
            phrase,
            cover: &cover,
            word_unit,
        };
        let mut neighbours: HashMap<u32, f32> = HashMap::new();
        for m in &mentions {
            let Some(concept) = graph.concepts.get(m.concept as usize) else {
                continue;
            };
            self.add_named_concept(c, &text, m, &concept.name);
            for (other, strength) in graph.neighbours(m.concept, c.t.related_floor) {
                if strength >= c.t.related_min && !named.contains(&other) {
                    let e = neighbours.entry(other).or_default();
                    *e = e.max(strength);
                }
            }
        }
        self.add_neighbours(c, graph, neighbours);
    }

    /// Adds the unit of one concept the text names, if a learning holds it:
    /// what it counts toward `min_units`, the words that named it, and the
    /// unknown words it covers.
    fn add_named_concept(&mut self, c: &Corpus, text: &Named, m: &kg::Mention, name: &str) {
        let (t, n) = (c.t, c.n);
        let postings = c.source.postings(&format!("{CONCEPT}{name}"));
        if postings.is_empty() {
            return;
        }
        let w = idf(n, postings.len());
        self.maximum += t.concept * w;
        // A rare concept named by one word is still telling.
        let rare = postings.len() as f32 <= (t.single_df_share * n as f32).max(1.0);
        let names = synonym_words(text.phrase, text.cover, m.concept, text.word_unit);
        // A concept the text names only by a program's name (`kafka`) says which
        // tool, not what is asked: it is no evidence that a learning answers.
        let program_only = concept_words(text.phrase, text.cover, m.concept).all(|w| {
            text.word_unit
                .get(w)
                .is_some_and(|&j| !self.units[j].distinct)
        });
        let telling =
            postings.len() as f32 <= (t.concept_df_share * n as f32).max(1.0) && !program_only;
        self.units.push(Unit {
            postings,
            idf: w,
            weight: t.concept,
            own: true,
            counts: match (m.words >= 2, rare) {
                (true, _) => 2,
                (false, true) => 1,
                (false, false) => 0,
            },
            label: Label::Concept(name.to_string()),
            words: if rare { names.clone() } else { Vec::new() },
            names,
            distinct: false,
            telling,
        });
        let unit = self.units.len() - 1;
        for w in concept_words(text.phrase, text.cover, m.concept) {
            for u in self.unknown.iter_mut().filter(|u| u.term == w) {
                u.concept = Some(unit);
            }
        }
    }

    /// Adds the eight strongest neighbours some learning holds, as a bonus
    /// weighed by how strongly they co-occur.
    fn add_neighbours(&mut self, c: &Corpus, graph: &kg::Graph, neighbours: HashMap<u32, f32>) {
        let mut neighbours: Vec<(u32, f32)> = neighbours.into_iter().collect();
        neighbours.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        for (other, strength) in neighbours.into_iter().take(8) {
            let Some(concept) = graph.concepts.get(other as usize) else {
                continue;
            };
            let postings = c.source.postings(&format!("{CONCEPT}{}", concept.name));
            if postings.is_empty() {
                continue;
            }
            self.units.push(Unit {
                idf: idf(c.n, postings.len()),
                postings,
                weight: c.t.related * strength,
                own: false,
                counts: 0,
                label: Label::Concept(concept.name.clone()),
                words: Vec::new(),
                names: Vec::new(),
                distinct: false,
                telling: false,
            });
        }
    }

    /// Adds a unit for the program and subcommand of a text that reads as a
    /// command, unless no learning or most learnings hold them.
    fn add_programs(&mut self, c: &Corpus, text: &str) {
        for p in program_terms(text) {
            let postings = c.source.postings(&p);
            if postings.is_empty() || common(postings.len(), c.n, c.t) {
                continue;
            }
            let w = idf(c.n, postings.len());
            self.maximum += c.t.program * w;
            self.units.push(Unit {
                postings,
                idf: w,
                weight: c.t.program,
                own: true,
                counts: 1,
                label: Label::Word(p.trim_start_matches(super::postings::PROGRAM).to_string()),
                words: Vec::new(),
                names: Vec::new(),
                distinct: false,
                telling: false,
            });
        }
    }

    /// Adds a bonus unit for each run of two or three words of the text that
    /// is a learning's keyword phrase.
    fn add_keyword_phrases(&mut self, c: &Corpus, phrase: &str) {
        let words: Vec<&str> = phrase.split(' ').collect();
        let mut phrases = HashSet::new();
        for len in 2..=3 {
            for w in words.windows(len) {
                let p = w.join(" ");
                if !phrases.insert(p.clone()) {
                    continue;
                }
                let postings = c.source.postings(&format!("{KEYWORD}{p}"));
                if postings.is_empty() {
                    continue;
                }
                self.units.push(Unit {
                    idf: idf(c.n, postings.len()),
                    postings,
                    weight: c.t.keyword,
                    own: false,
                    counts: 0,
                    label: Label::Concept(p),
                    words: Vec::new(),
                    names: Vec::new(),
                    distinct: false,
                    telling: false,
                });
            }
        }
    }

    /// Keeps the 64 most telling units (weight × idf) a bitmask can hold,
    /// and moves the references to them to their new places.
    fn keep_most_telling(&mut self) {
        if self.units.len() <= 64 {
            return;
        }
        let units = std::mem::take(&mut self.units);
        let mut order: Vec<usize> = (0..units.len()).collect();
        order.sort_by(|&a, &b| {
            let (a, b) = (&units[a], &units[b]);
            (b.weight * b.idf).total_cmp(&(a.weight * a.idf))
        });
        order.truncate(64);
        let mut place = vec![usize::MAX; units.len()];
        for (new, &old) in order.iter().enumerate() {
            place[old] = new;
        }
        let mut slots: Vec<Option<Unit>> = units.into_iter().map(Some).collect();
        self.units = order.iter().filter_map(|&old| slots[old].take()).collect();
        let moved = |v: &[usize]| -> Vec<usize> {
            v.iter()
                .map(|&j| place[j])
                .filter(|&j| j != usize::MAX)
                .collect()
        };
        for u in &mut self.units {
            u.words = moved(&u.words);
            u.names = moved(&u.names);
        }
        for u in &mut self.unknown {
            u.concept = u.concept.map(|c| place[c]).filter(|&c| c != usize::MAX);
        }
    }
}

/// The word units of the stretches of `phrase` that name `concept`.
fn synonym_words(
    phrase: &str,
    cover: &[kg::Stretch],
    concept: u32,
    word_unit: &HashMap<String, usize>,
) -> Vec<usize> {
    let mut out: Vec<usize> = concept_words(phrase, cover, concept)
        .filter_map(|w| word_unit.get(w).copied())
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The words of the text's stretches that name `concept`.
fn concept_words<'a>(
    phrase: &'a str,
    cover: &'a [kg::Stretch],
    concept: u32,
) -> impl Iterator<Item = &'a str> {
    cover
        .iter()
        .filter(move |s| s.concept == concept)
        .flat_map(move |s| phrase[s.start..s.end].split(' '))
}

pub(super) fn pulled_docs(source: &dyn Source, pulled: Option<&HashSet<String>>) -> HashSet<u32> {
    pulled
        .into_iter()
        .flatten()
        .flat_map(|id| source.postings(&format!("{}{id}", super::postings::ID)))
        .map(|(doc, _)| doc)
        .collect()
}

/// The filters of a request.
pub fn admits(a: &Attrs, req: &Request<'_>, tables: &super::postings::Tables) -> bool {
    if a.trust < TrustLevel::L1 {
        return false;
    }
    if !req.trust.is_empty() && !req.trust.contains(&a.trust) {
        return false;
    }
    if let Some(agent) = req.agent
        && a.applicable != 0
        && !tables
            .applicable
            .get(a.applicable as usize)
            .is_some_and(|set| set.iter().any(|x| x == agent))
    {
        return false;
    }
    if let Some(from) = req.from
        && named(&tables.agents, a.agent) != from
    {
        return false;
    }
    if let Some(kind) = req.kind
        && named(&tables.kinds, a.kind) != kind
    {
        return false;
    }
    true
}

fn named(list: &[String], i: u16) -> &str {
    list.get(i as usize).map(String::as_str).unwrap_or("")
}

/// Trust, evidence and project applied to a relevance.
pub fn order_score(
    relevance: f32,
    a: &Attrs,
    req: &Request<'_>,
    tables: &super::postings::Tables,
    t: &Tuning,
) -> f32 {
    let trust = t.trust[a.trust as usize];
    let lean = 2.0 * a.success - 1.0;
    let evidence = if lean >= 0.0 {
        1.0 + t.evidence_up * lean
    } else {
        1.0 + t.evidence_down * lean
    };
    let same_project = req.project.is_some_and(|p| {
        a.project != 0
            && tables
                .projects
                .get(a.project as usize)
                .is_some_and(|x| x == p)
    });
    relevance * trust * evidence * if same_project { t.project } else { 1.0 }
}

#[cfg(test)]
mod tests;
