//! The retrieval harness of `benches/search.sh` (`harness = false`; it
//! measures quality, and writes the large dirs whose speed the script times).
//!
//!   search_eval eval DIR QUERIES [--misses]
//!       (`--misses`: the tune half's queries not answered first, with where
//!       the answer was: at N, not in the top 5, or answered when it should
//!       be empty)
//!       recall@1, recall@5 and MRR per query kind, and the share of
//!       unanswerable queries answered with nothing, for (a) learnsync
//!       (through the on-disk index, as `suggest` runs), (b) plain BM25 over
//!       the same learnings (one field, no KG, trust, evidence or project; the
//!       same tokeniser and the same never-L0/rejected/inapplicable filter),
//!       (c) `rg -i -l` over the same dir: the query's words, files ranked
//!       by how many of them they contain, and (c') the whole text as one
//!       fixed string. All on every query, then on the `tune` and `test`
//!       halves apart (the defaults were tuned on `tune` only).
//!   search_eval tune DIR QUERIES [--report DIR2 QUERIES2]...
//!       a grid over the query-side knobs, on the `tune` half, in memory;
//!       then the tuning found, beside the defaults and plain BM25, on the
//!       `test` half, and on all of each DIR2 (other corpora: generalisation).
//!   search_eval explain DIR TEXT
//!       the text's units and the maximum, then the top 5 with relevance,
//!       those below the threshold too (marked): how far a refusal was.
//!   search_eval margins DIR QUERIES
//!       per query of the tune half (only): the relevance and place of the
//!       expected learning with no threshold, beside the best other one;
//!       for an unanswerable query, the best relevance. How near each
//!       answer or refusal is to the threshold.
//!   search_eval dump DIR QUERIES
//!       per query of the tune half (only), as one JSON line: its units
//!       (label, df, weight), the maximum, and the top 10 with the
//!       threshold off, each with its `why` signals and whether it is the
//!       expected one. What an admission rule is fitted on, offline.
//!   search_eval blind FIXTURE OUT
//!       the blind corpus (tests/fixtures/search-blind: learnings.jsonl,
//!       kg/, queries.jsonl) as a learnings dir OUT (one `<agent>/<id>.md`
//!       per learning, L1, and kg/) and OUT.queries.jsonl in the harness's
//!       shape, its split `a` as the `tune` half and `b` as `test`. Never
//!       reads query_notes.jsonl (for people only).
//!   search_eval gen FIXTURE_LEARNINGS OUT N [SEED]
//!       N synthetic learnings in OUT/<agent>/<id>.md, varied from the
//!       fixture's shapes (other projects, paths, numbers and names), one in
//!       twenty without a correction (L0).

use learnsync::config::{Config, Env, Flags};
use learnsync::learning::{Learning, TrustLevel};
use learnsync::search::doc::retrievable;
use learnsync::search::postings::{Index, IndexParams};
use learnsync::search::{self, Request, Tuning, on_disk, rank, tokenize};
use learnsync::store::LearningsDir;
use learnsync::timestamp::Timestamp;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
struct Query {
    kind: String,
    q: String,
    expect: Option<String>,
    project: Option<String>,
    agent: Option<String>,
    split: String,
    /// The answer has a failing twin (same failure, a correction that did not work).
    twin: bool,
}

fn read_queries(path: &Path) -> Vec<Query> {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| die(&format!("{}: {e}", path.display())));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l)
                .unwrap_or_else(|e| die(&format!("bad query line {l}: {e}")));
            let s = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
            Query {
                kind: s("kind").unwrap_or_default(),
                q: s("q").unwrap_or_default(),
                expect: s("expect"),
                project: s("project"),
                agent: s("agent"),
                split: s("split").unwrap_or_else(|| "test".into()),
                twin: v.get("twin").and_then(|x| x.as_bool()).unwrap_or(false),
            }
        })
        .collect()
}

fn die(msg: &str) -> ! {
    eprintln!("search_eval: {msg}");
    std::process::exit(1)
}

fn config_for(dir: &Path) -> Config {
    let flags = Flags {
        dir: Some(dir.to_path_buf()),
        agent: None,
    };
    Config::load(&flags, &Env::from_process()).unwrap_or_else(|e| die(&e.to_string()))
}

/// Ranked ids per query, for one system.
type Answers = Vec<Vec<String>>;

#[derive(Default, Clone, Copy)]
struct Score {
    n: usize,
    at1: usize,
    at5: usize,
    rr: f64,
    empty: usize,
}

fn score(
    queries: &[Query],
    answers: &Answers,
    only: &dyn Fn(&Query) -> bool,
) -> BTreeMap<String, Score> {
    let mut out: BTreeMap<String, Score> = BTreeMap::new();
    for (q, a) in queries.iter().zip(answers) {
        if !only(q) {
            continue;
        }
        let s = out.entry(q.kind.clone()).or_default();
        s.n += 1;
        match &q.expect {
            None => s.empty += usize::from(a.is_empty()),
            Some(want) => {
                if let Some(pos) = a.iter().position(|x| x == want) {
                    s.at1 += usize::from(pos == 0);
                    s.at5 += usize::from(pos < 5);
                    s.rr += 1.0 / (pos as f64 + 1.0);
                }
            }
        }
    }
    out
}

fn table(
    title: &str,
    systems: &[(&str, &Answers)],
    queries: &[Query],
    only: &dyn Fn(&Query) -> bool,
) {
    println!("\n### {title}\n");
    println!("| system | kind | queries | recall@1 | recall@5 | MRR | unanswerable empty |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    for (name, answers) in systems {
        let mut by_kind = score(queries, answers, only);
        let all = by_kind.iter().filter(|(k, _)| k.as_str() != "none").fold(
            Score::default(),
            |a, (_, s)| Score {
                n: a.n + s.n,
                at1: a.at1 + s.at1,
                at5: a.at5 + s.at5,
                rr: a.rr + s.rr,
                empty: 0,
            },
        );
        by_kind.insert("~answerable".into(), all);
        for (kind, s) in by_kind {
            let n = s.n.max(1) as f64;
            if kind == "none" {
                println!(
                    "| {name} | none | {} | | | | {:.2} |",
                    s.n,
                    s.empty as f64 / n
                );
            } else {
                println!(
                    "| {name} | {kind} | {} | {:.2} | {:.2} | {:.3} | |",
                    s.n,
                    s.at1 as f64 / n,
                    s.at5 as f64 / n,
                    s.rr / n
                );
            }
        }
    }
}

/// (a): the product path, through the on-disk index.
fn learnsync_answers(dir: &LearningsDir, config: &Config, queries: &[Query]) -> Answers {
    queries
        .iter()
        .map(|q| {
            let req = Request {
                text: &q.q,
                agent: Some(q.agent.as_deref().unwrap_or("claude")),
                project: q.project.as_deref(),
                limit: 5,
                ..Request::default()
            };
            search::search(dir, config, &req)
                .unwrap_or_else(|e| die(&e))
                .into_iter()
                .map(|h| h.meta.id)
                .collect()
        })
        .collect()
}

/// The same, in memory with other knobs (for `tune`, and to check the file
/// index ranks exactly as the in-memory one).
fn memory_answers(index: &Index, queries: &[Query], t: &Tuning) -> Answers {
    queries
        .iter()
        .map(|q| {
            let req = Request {
                text: &q.q,
                agent: Some(q.agent.as_deref().unwrap_or("claude")),
                project: q.project.as_deref(),
                limit: 5,
                ..Request::default()
            };
            rank::rank(index, &req, t)
                .into_iter()
                .map(|h| h.meta.id)
                .collect()
        })
        .collect()
}

/// (b): textbook BM25 (k1 1.2, b 0.75) over all text as one field.
fn bm25_answers(learnings: &[Learning], queries: &[Query]) -> Answers {
    let docs: Vec<(&Learning, HashMap<String, f64>, f64)> = learnings
        .iter()
        .filter(|l| retrievable(l))
        .map(|l| {
            let text = [
                l.title.as_str(),
                &l.keywords.join(" "),
                l.original_command.as_deref().unwrap_or(""),
                l.error_context.as_deref().unwrap_or(""),
                l.correction.as_deref().unwrap_or(""),
                &l.body,
            ]
            .join("\n");
            let terms = tokenize::terms(&text);
            let mut tf = HashMap::new();
            for t in &terms {
                *tf.entry(t.clone()).or_insert(0.0) += 1.0;
            }
            (l, tf, terms.len() as f64)
        })
        .collect();
    let n = docs.len() as f64;
    let avg = docs.iter().map(|d| d.2).sum::<f64>() / n.max(1.0);
    let mut df: HashMap<&str, f64> = HashMap::new();
    for (_, tf, _) in &docs {
        for t in tf.keys() {
            *df.entry(t.as_str()).or_default() += 1.0;
        }
    }
    queries
        .iter()
        .map(|q| {
            let agent = q.agent.as_deref().unwrap_or("claude");
            let terms: HashSet<String> = tokenize::terms(&q.q).into_iter().collect();
            let mut scored: Vec<(f64, &str)> = docs
                .iter()
                .filter(|(l, _, _)| {
                    l.applicable_agents.is_empty() || l.applicable_agents.iter().any(|a| a == agent)
                })
                .filter_map(|(l, tf, len)| {
                    let s: f64 = terms
                        .iter()
                        .filter_map(|t| {
                            let f = *tf.get(t)?;
                            let d = df.get(t.as_str()).copied().unwrap_or(0.0);
                            let idf = (1.0 + (n - d + 0.5) / (d + 0.5)).ln();
                            Some(idf * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * len / avg)))
                        })
                        .sum();
                    (s > 0.0).then_some((s, l.id.as_str()))
                })
                .collect();
            scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
            scored
                .into_iter()
                .take(5)
                .map(|(_, id)| id.to_string())
                .collect()
        })
        .collect()
}

fn rg_files(dir: &Path, args: &[&str]) -> Vec<String> {
    let out = std::process::Command::new("rg")
        .args([
            "-i",
            "-l",
            "--no-messages",
            "--sort",
            "path",
            "-g",
            "*.md",
            "-g",
            "!kg/**",
            "-g",
            "!events/**",
        ])
        .args(args)
        .arg(dir)
        .output()
        .unwrap_or_else(|e| die(&format!("cannot run rg: {e}")));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|p| {
            Path::new(p)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
        })
        .collect()
}

/// (c): `rg -i -l` for each word of the query; files ranked by how many
/// words they contain (ties by path).
fn rg_word_answers(dir: &Path, queries: &[Query]) -> Answers {
    queries
        .iter()
        .map(|q| {
            let words: HashSet<String> =
                q.q.split(|c: char| !c.is_alphanumeric() && c != '-' && c != '_')
                    .map(|w| w.trim_matches('-').to_lowercase())
                    .filter(|w| {
                        w.len() >= 3
                            && !matches!(
                                w.as_str(),
                                "the"
                                    | "and"
                                    | "how"
                                    | "for"
                                    | "not"
                                    | "with"
                                    | "that"
                                    | "this"
                                    | "from"
                                    | "what"
                                    | "why"
                                    | "does"
                                    | "when"
                                    | "can"
                                    | "but"
                            )
                    })
                    .collect();
            let mut count: HashMap<String, usize> = HashMap::new();
            for w in &words {
                for f in rg_files(dir, &["-F", "--", w]) {
                    *count.entry(f).or_default() += 1;
                }
            }
            let mut ranked: Vec<(usize, String)> = count.into_iter().map(|(f, c)| (c, f)).collect();
            ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            ranked.into_iter().take(5).map(|(_, f)| f).collect()
        })
        .collect()
}

/// (c'): the whole text as one fixed string.
fn rg_literal_answers(dir: &Path, queries: &[Query]) -> Answers {
    queries
        .iter()
        .map(|q| {
            rg_files(dir, &["-F", "--", &q.q])
                .into_iter()
                .take(5)
                .collect()
        })
        .collect()
}

fn eval(dir: &Path, queries_path: &Path, misses: bool) {
    let queries = read_queries(queries_path);
    let config = config_for(dir);
    let ld = LearningsDir::new(dir);
    let learnings: Vec<Learning> = learnsync::view::load(&ld, config.hub_name())
        .learnings
        .into_iter()
        .map(|l| l.learning)
        .collect();
    eprintln!(
        "search_eval: {} learnings, {} queries",
        learnings.len(),
        queries.len()
    );
    let a = learnsync_answers(&ld, &config, &queries);
    let docs = on_disk::documents(&ld, config.hub_name());
    let index = Index::build(&docs, on_disk::load_graph(dir), IndexParams::default());
    let mem = memory_answers(&index, &queries, &Tuning::default());
    let agree = a.iter().zip(&mem).filter(|(x, y)| x == y).count();
    let b = bm25_answers(&learnings, &queries);
    // rg is a baseline only: without it the tables leave its rows out.
    let has_rg = std::process::Command::new("rg")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let (c, c2) = if has_rg {
        (
            rg_word_answers(dir, &queries),
            rg_literal_answers(dir, &queries),
        )
    } else {
        eprintln!("search_eval: rg is not installed; its rows are left out");
        (Vec::new(), Vec::new())
    };
    let mut systems: Vec<(&str, &Answers)> = vec![("learnsync", &a), ("plain BM25", &b)];
    if has_rg {
        systems.push(("rg words", &c));
        systems.push(("rg literal", &c2));
    }
    println!(
        "\nCorpus: {} learnings, {} queries. The on-disk index ranked {agree}/{} queries exactly as the in-memory index.",
        learnings.len(),
        queries.len(),
        queries.len()
    );
    table("All queries", &systems, &queries, &|_| true);
    table(
        "Tune half (the defaults were tuned on these)",
        &systems,
        &queries,
        &|q| q.split == "tune",
    );
    table(
        "Test half (never looked at while tuning)",
        &systems,
        &queries,
        &|q| q.split == "test",
    );
    table(
        "Queries whose answer has a failing twin (same failure, a correction that did not work)",
        &systems,
        &queries,
        &|q| q.twin,
    );
    if misses {
        let title: HashMap<&str, &str> = learnings
            .iter()
            .map(|l| (l.id.as_str(), l.title.as_str()))
            .collect();
        // Only the tune half: the test half is for reporting, never for looking at.
        for (q, ans) in queries.iter().zip(&a).filter(|(q, _)| q.split == "tune") {
            let ok = match &q.expect {
                None => ans.is_empty(),
                Some(w) => ans.first() == Some(w),
            };
            if !ok {
                let at = match &q.expect {
                    None => "answered".to_string(),
                    Some(w) => ans
                        .iter()
                        .position(|x| x == w)
                        .map_or("not in the top 5".to_string(), |p| format!("at {}", p + 1)),
                };
                eprintln!("\nMISS [{}/{}] ({at}) {}", q.kind, q.split, q.q);
                if let Some(w) = &q.expect {
                    eprintln!("  want: {}", title.get(w.as_str()).unwrap_or(&"?"));
                }
                for id in ans {
                    eprintln!("  got:  {}", title.get(id.as_str()).unwrap_or(&"?"));
                }
            }
        }
    }
}

fn objective(queries: &[Query], answers: &Answers) -> f64 {
    let s = score(queries, answers, &|q| q.split == "tune");
    let get = |k: &str| s.get(k).copied().unwrap_or_default();
    let mrr = |k: &str| get(k).rr / get(k).n.max(1) as f64;
    let at5 = |k: &str| get(k).at5 as f64 / get(k).n.max(1) as f64;
    let empty = get("none").empty as f64 / get("none").n.max(1) as f64;
    mrr("error") + mrr("command") + mrr("intent") + at5("intent") + 2.0 * empty.min(0.95)
}

/// Sets one query-side knob.
type Knob = Box<dyn Fn(&mut Tuning, f32)>;

/// The tuning `tune` found, reported on what it did not see: this
/// corpus's `test` half, and all of another corpus (`--report DIR QUERIES`),
/// each beside the defaults and plain BM25.
fn report_tuned(dir: &Path, queries_path: &Path, t: &Tuning, params: IndexParams, only_test: bool) {
    let queries = read_queries(queries_path);
    let config = config_for(dir);
    let ld = LearningsDir::new(dir);
    let docs = on_disk::documents(&ld, config.hub_name());
    let graph = on_disk::load_graph(dir);
    let tuned = memory_answers(&Index::build(&docs, graph.clone(), params), &queries, t);
    let defaults = memory_answers(
        &Index::build(&docs, graph, IndexParams::default()),
        &queries,
        &Tuning::default(),
    );
    let learnings: Vec<Learning> = learnsync::view::load(&ld, config.hub_name())
        .learnings
        .into_iter()
        .map(|l| l.learning)
        .collect();
    let b = bm25_answers(&learnings, &queries);
    let systems: [(&str, &Answers); 3] = [
        ("learnsync, tuned here", &tuned),
        ("learnsync, defaults", &defaults),
        ("plain BM25", &b),
    ];
    let name = dir.display();
    if only_test {
        table(
            &format!("{name}: test half (not tuned on)"),
            &systems,
            &queries,
            &|q| q.split == "test",
        );
    } else {
        table(&format!("{name}: all queries"), &systems, &queries, &|_| {
            true
        });
        table(&format!("{name}: test half"), &systems, &queries, &|q| {
            q.split == "test"
        });
    }
}

fn tune(dir: &Path, queries_path: &Path, report: &[(PathBuf, PathBuf)]) {
    let queries = read_queries(queries_path);
    let config = config_for(dir);
    let ld = LearningsDir::new(dir);
    let docs = on_disk::documents(&ld, config.hub_name());
    let graph = on_disk::load_graph(dir);
    let index = Index::build(&docs, graph.clone(), IndexParams::default());
    let base = Tuning::default();
    let mut best = (
        objective(&queries, &memory_answers(&index, &queries, &base)),
        base,
    );
    eprintln!("default: {:.4}", best.0);
    for round in 0..2 {
        let candidates: Vec<Knob> = vec![
            Box::new(|t, v| t.min_relevance = v),
            Box::new(|t, v| t.unknown = v),
            Box::new(|t, v| t.concept = v),
            Box::new(|t, v| t.related = v),
            Box::new(|t, v| t.keyword = v),
            Box::new(|t, v| t.k1 = v),
            Box::new(|t, v| t.max_df_share = v),
            Box::new(|t, v| t.program = v),
            Box::new(|t, v| t.trust[2] = v),
            Box::new(|t, v| t.evidence_up = v),
            Box::new(|t, v| t.evidence_down = v),
            Box::new(|t, v| t.project = v),
            Box::new(|t, v| t.path_dir = v),
            Box::new(|t, v| t.min_coverage = v),
            Box::new(|t, v| t.concept_df_share = v),
            Box::new(|t, v| t.concept_relevance = v),
            Box::new(|t, v| t.signature_min = v),
            Box::new(|t, v| t.signature_bonus = v),
            Box::new(|t, v| t.concept_units = v as usize),
            Box::new(|t, v| t.bridge_units = v as u32),
            Box::new(|t, v| t.lead_ratio = v),
            Box::new(|t, v| t.lead_units = v),
            Box::new(|t, v| t.lead_relevance = v),
            Box::new(|t, v| t.howto_relevance = v),
            Box::new(|t, v| t.howto_coverage = v),
            Box::new(|t, v| t.context = v),
            Box::new(|t, v| t.companion_ratio = v),
            Box::new(|t, v| t.error_words_min = v),
        ];
        let grids: [&[f32]; 28] = [
            &[0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4],
            &[0.0, 0.25, 0.5, 0.75, 1.0],
            &[0.5, 0.75, 1.0, 1.5, 2.0],
            &[0.0, 0.2, 0.4, 0.6, 0.8],
            &[0.0, 0.25, 0.5, 1.0],
            &[0.8, 1.2, 1.6, 2.0],
            &[0.2, 0.35, 0.5, 1.0],
            &[0.0, 0.5, 1.0, 1.5, 2.0],
            &[1.0, 1.1, 1.2, 1.4],
            &[0.0, 0.1, 0.2, 0.4],
            &[0.0, 0.4, 0.6, 0.8, 0.9],
            &[1.0, 1.1, 1.25, 1.5, 2.0],
            &[0.0, 0.1, 0.25, 0.5, 0.75, 1.0],
            &[0.0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
            &[0.01, 0.02, 0.03, 0.05],
            &[0.05, 0.1, 0.15, 0.2, 1.0],
            &[0.4, 0.5, 0.6, 0.75, 0.9, 1.1],
            &[0.0, 0.25, 0.5, 1.0],
            &[1.0, 2.0],
            &[0.0, 1.0],
            &[0.6, 0.7, 0.8, 0.9, 1.0],
            &[0.2, 0.3, 0.4, 0.5, 0.6],
            &[0.1, 0.15, 0.2, 0.25],
            &[0.0, 0.4, 0.45, 0.5, 0.55, 0.6],
            &[0.0, 0.4, 0.5, 0.6, 0.7, 0.8],
            &[0.0, 0.1, 0.25, 0.5, 1.0],
            &[0.0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
            &[0.6, 0.7, 0.8, 0.9, 1.1],
        ];
        for (set, grid) in candidates.iter().zip(grids) {
            for &v in grid {
                let mut t = best.1;
                set(&mut t, v);
                let o = objective(&queries, &memory_answers(&index, &queries, &t));
                if o > best.0 + 1e-9 {
                    best = (o, t);
                    eprintln!("round {round}: {o:.4} {t:?}");
                }
            }
        }
    }
    // The index-side weights need a rebuild per point: a smaller grid.
    let mut params = IndexParams::default();
    let mut best_p = best.0;
    for f in 0..6 {
        for &w in &[0.5f32, 1.0, 1.5, 2.0, 2.5, 3.0] {
            let mut p = params;
            p.field_weights[f] = w;
            let idx = Index::build(&docs, graph.clone(), p);
            let o = objective(&queries, &memory_answers(&idx, &queries, &best.1));
            if o > best_p + 1e-9 {
                best_p = o;
                params = p;
                eprintln!("fields: {o:.4} {:?}", p.field_weights);
            }
        }
    }
    println!(
        "best tuning: {:?}\nbest index params: {params:?}\nobjective {best_p:.4}",
        best.1
    );
    report_tuned(dir, queries_path, &best.1, params, true);
    for (other, other_queries) in report {
        report_tuned(other, other_queries, &best.1, params, false);
    }
}

/// The tune half's queries with the threshold off: where each answer stood.
fn margins(dir: &Path, queries_path: &Path) {
    let queries = read_queries(queries_path);
    let config = config_for(dir);
    let ld = LearningsDir::new(dir);
    let index = Index::build(
        &on_disk::documents(&ld, config.hub_name()),
        on_disk::load_graph(dir),
        IndexParams::default(),
    );
    let t = Tuning::default();
    let loose = Tuning {
        min_relevance: 0.0,
        min_units: 0,
        single_df_share: 1.0,
        ..t
    };
    for q in queries.iter().filter(|q| q.split == "tune") {
        let req = Request {
            text: &q.q,
            agent: Some(q.agent.as_deref().unwrap_or("claude")),
            project: q.project.as_deref(),
            limit: 50,
            ..Request::default()
        };
        let hits = rank::rank(&index, &req, &loose);
        let answered = !rank::rank(&index, &Request { limit: 5, ..req }, &t).is_empty();
        let top = |skip: Option<&str>| {
            hits.iter()
                .find(|h| Some(h.meta.id.as_str()) != skip)
                .map_or(0.0, |h| h.relevance)
        };
        match &q.expect {
            None => println!(
                "{:<7} best {:.3} {} | {}",
                q.kind,
                top(None),
                if answered { "ANSWERED" } else { "empty" },
                q.q
            ),
            Some(want) => {
                let at = hits.iter().position(|h| &h.meta.id == want);
                let rel = at.map_or(0.0, |i| hits[i].relevance);
                println!(
                    "{:<7} want {:.3} at {:>2} other {:.3} | {}",
                    q.kind,
                    rel,
                    at.map_or("--".to_string(), |i| (i + 1).to_string()),
                    top(Some(want)),
                    q.q
                );
            }
        }
    }
}

/// Per tune-half query, the top candidates with the threshold off and
/// their signals, as JSON lines: what an admission rule can be fitted on.
fn dump(dir: &Path, queries_path: &Path) {
    let queries = read_queries(queries_path);
    let config = config_for(dir);
    let ld = LearningsDir::new(dir);
    let index = Index::build(
        &on_disk::documents(&ld, config.hub_name()),
        on_disk::load_graph(dir),
        IndexParams::default(),
    );
    let loose = Tuning {
        min_relevance: 0.0,
        min_units: 0,
        single_df_share: 1.0,
        ..Tuning::default()
    };
    for q in queries.iter().filter(|q| q.split == "tune") {
        let req = Request {
            text: &q.q,
            agent: Some(q.agent.as_deref().unwrap_or("claude")),
            project: q.project.as_deref(),
            limit: 10,
            ..Request::default()
        };
        let hits: Vec<serde_json::Value> = rank::rank(&index, &req, &loose)
            .iter()
            .map(|h| {
                serde_json::json!({
                    "id": h.meta.id,
                    "ok": q.expect.as_deref() == Some(h.meta.id.as_str()),
                    "score": h.score,
                    "why": h.why(),
                })
            })
            .collect();
        // What the default tuning answers, and what admitted each.
        let real: Vec<serde_json::Value> = rank::rank(&index, &Request { limit: 5, ..req }, &Tuning::default())
            .iter()
            .map(|h| serde_json::json!({"id": h.meta.id, "ok": q.expect.as_deref() == Some(h.meta.id.as_str()), "by": h.signals.admitted_by, "rel": h.relevance}))
            .collect();
        let (units, maximum) = rank::explain(&index, &q.q, &loose);
        let units: Vec<serde_json::Value> = units
            .iter()
            .map(|u| serde_json::json!({"label": u.label, "df": u.df, "own": u.own, "counts": u.counts, "w": u.weight * u.idf}))
            .collect();
        // The program (and subcommand) the text reads as, and how many learnings' commands hold each.
        let programs: Vec<serde_json::Value> = search::postings::program_terms(&q.q)
            .iter()
            .map(|p| serde_json::json!({"term": p.trim_start_matches(search::postings::PROGRAM), "df": search::postings::Source::postings(&index, p).len()}))
            .collect();
        println!(
            "{}",
            serde_json::json!({"kind": q.kind, "q": q.q, "expect": q.expect, "real": real, "hits": hits, "units": units, "maximum": maximum, "programs": programs})
        );
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// A made-up word: the vocabulary of a large store keeps growing (service,
/// host and package names), which is what makes posting lists long.
fn word(rng: &mut Rng) -> String {
    const SYL: [&str; 16] = [
        "ka", "lo", "mi", "ne", "ru", "ta", "vo", "zi", "pe", "sa", "du", "gi", "ho", "ba", "fe",
        "xo",
    ];
    let n = 2 + rng.below(3);
    (0..n).map(|_| SYL[rng.below(SYL.len())]).collect()
}

fn vary(text: &str, rng: &mut Rng, names: &[String]) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for piece in text.split_inclusive(|c: char| c.is_whitespace() || c == '/') {
        let core = piece.trim_end_matches(|c: char| c.is_whitespace() || c == '/');
        let tail = &piece[core.len()..];
        if core.chars().all(|c| c.is_ascii_digit()) && !core.is_empty() {
            out.push_str(&(rng.below(9000) + 10).to_string());
        } else if core.len() > 3 && rng.below(12) == 0 {
            out.push_str(&names[rng.below(names.len())]);
        } else {
            out.push_str(core);
        }
        out.push_str(tail);
    }
    out
}

fn generate(from: &Path, out: &Path, n: usize, seed: u64) {
    let scan = LearningsDir::new(from).scan();
    let templates: Vec<Learning> = scan.learnings.into_iter().map(|l| l.learning).collect();
    if templates.is_empty() {
        die(&format!("no learnings in {}", from.display()));
    }
    let mut rng = Rng(seed);
    let names: Vec<String> = (0..(n / 4).max(200)).map(|_| word(&mut rng)).collect();
    let projects: Vec<String> = (0..60).map(|i| format!("{}-{i}", word(&mut rng))).collect();
    for i in 0..n {
        let t = &templates[rng.below(templates.len())];
        let agent = format!("a{}", rng.below(10));
        let hex: String = (0..2).map(|_| format!("{:016x}", rng.next())).collect();
        let millis = 1_767_225_600_000i64 + (rng.below(200 * 86_400) as i64) * 1000;
        let id = format!("learning-{hex}-{millis}");
        let at = Timestamp::from_unix(millis / 1000);
        let mut l = Learning::new(
            id.clone(),
            agent.clone(),
            vary(&t.title, &mut rng, &names),
            at,
        );
        l.source = t.source.clone();
        l.kind = t.kind.clone();
        l.keywords = t.keywords.clone();
        l.original_command = t
            .original_command
            .as_deref()
            .map(|s| vary(s, &mut rng, &names));
        l.error_context = t
            .error_context
            .as_deref()
            .map(|s| vary(s, &mut rng, &names));
        l.body = vary(&t.body, &mut rng, &names);
        if i % 20 != 0 {
            l.correction = t.correction.as_deref().map(|s| vary(s, &mut rng, &names));
            l.trust_level = TrustLevel::L1;
        }
        l.extra.push((
            "project".into(),
            learnsync::yaml::Value::String(projects[rng.below(projects.len())].clone()),
        ));
        let folder = out.join(&agent);
        std::fs::create_dir_all(&folder).unwrap_or_else(|e| die(&e.to_string()));
        std::fs::write(folder.join(format!("{id}.md")), l.to_markdown())
            .unwrap_or_else(|e| die(&e.to_string()));
    }
}

/// The blind corpus as a learnings dir and a queries file (see the module doc).
fn load_blind(fixture: &Path, out: &Path) {
    let read = |name: &str| {
        let p = fixture.join(name);
        std::fs::read_to_string(&p).unwrap_or_else(|e| die(&format!("{}: {e}", p.display())))
    };
    let at = Timestamp::from_unix(1_767_225_600);
    for line in read("learnings.jsonl")
        .lines()
        .filter(|l| !l.trim().is_empty())
    {
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| die(&format!("bad learning: {e}")));
        let s = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
        let (Some(id), Some(agent)) = (s("id"), s("agent")) else {
            die("a learning without id or agent")
        };
        let mut l = Learning::new(
            id.clone(),
            agent.clone(),
            s("title").unwrap_or_default(),
            at,
        );
        l.kind = s("kind");
        l.keywords = v
            .get("keywords")
            .and_then(|k| k.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        l.original_command = s("command");
        l.error_context = s("error");
        l.correction = s("correction");
        l.body = s("body").unwrap_or_default();
        l.trust_level = TrustLevel::L1;
        if let Some(p) = s("project") {
            l.extra
                .push(("project".into(), learnsync::yaml::Value::String(p)));
        }
        let folder = out.join(&agent);
        std::fs::create_dir_all(&folder).unwrap_or_else(|e| die(&e.to_string()));
        std::fs::write(folder.join(format!("{id}.md")), l.to_markdown())
            .unwrap_or_else(|e| die(&e.to_string()));
    }
    let kg = out.join("kg");
    std::fs::create_dir_all(&kg).unwrap_or_else(|e| die(&e.to_string()));
    let entries = std::fs::read_dir(fixture.join("kg")).unwrap_or_else(|e| die(&e.to_string()));
    for e in entries.flatten() {
        std::fs::copy(e.path(), kg.join(e.file_name())).unwrap_or_else(|e| die(&e.to_string()));
    }
    let mut queries = String::new();
    for line in read("queries.jsonl")
        .lines()
        .filter(|l| !l.trim().is_empty())
    {
        let mut v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| die(&format!("bad query: {e}")));
        let split = match v.get("split").and_then(|x| x.as_str()) {
            Some("a") => "tune",
            _ => "test",
        };
        v["split"] = serde_json::Value::String(split.into());
        queries.push_str(&v.to_string());
        queries.push('\n');
    }
    let path = PathBuf::from(format!("{}.queries.jsonl", out.display()));
    std::fs::write(&path, queries).unwrap_or_else(|e| die(&e.to_string()));
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let path = |i: usize| {
        PathBuf::from(
            args.get(i)
                .unwrap_or_else(|| die("missing argument; see the module doc")),
        )
    };
    match args.first().map(String::as_str) {
        Some("eval") => eval(&path(1), &path(2), args.iter().any(|a| a == "--misses")),
        Some("tune") => {
            let report: Vec<(PathBuf, PathBuf)> = args
                .iter()
                .enumerate()
                .filter(|(_, a)| *a == "--report")
                .map(|(i, _)| (path(i + 1), path(i + 2)))
                .collect();
            tune(&path(1), &path(2), &report)
        }
        Some("explain") => {
            let dir = path(1);
            let config = config_for(&dir);
            let ld = LearningsDir::new(&dir);
            let index = Index::build(
                &on_disk::documents(&ld, config.hub_name()),
                on_disk::load_graph(&dir),
                IndexParams::default(),
            );
            let text = args.get(2).cloned().unwrap_or_default();
            let (units, max) = rank::explain(&index, &text, &Tuning::default());
            println!("maximum {max:.3}");
            for u in units {
                println!(
                    "{:<40} df {:>4} idf {:.2} weight {:.2} own {}",
                    u.label, u.df, u.idf, u.weight, u.own
                );
            }
            let req = Request {
                text: &text,
                agent: Some("claude"),
                limit: 5,
                ..Request::default()
            };
            // Below the threshold too (marked), to see how far a refused
            // answer was from it.
            let t = Tuning::default();
            let loose = Tuning {
                min_relevance: 0.0,
                ..t
            };
            for h in rank::rank(&index, &req, &loose) {
                let below = if h.relevance < t.min_relevance {
                    " (below the threshold)"
                } else {
                    ""
                };
                println!(
                    "{:.3} {:.3} {}  {:?}{below}",
                    h.relevance, h.score, h.meta.title, h.terms
                );
            }
        }
        Some("margins") => margins(&path(1), &path(2)),
        Some("dump") => dump(&path(1), &path(2)),
        Some("blind") => load_blind(&path(1), &path(2)),
        Some("gen") => {
            let n = args
                .get(3)
                .and_then(|s| s.parse().ok())
                .unwrap_or_else(|| die("gen: N"));
            let seed = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(7);
            generate(&path(1), &path(2), n, seed);
        }
        // `cargo bench` with no arguments: nothing to time here.
        _ => eprintln!("search_eval: see benches/search.sh"),
    }
}
