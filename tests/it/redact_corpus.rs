//! Corpus test for the redactor: fake credentials of every class in the places agents
//! leak them (recall ≥ 99 %, and no class below 80 %), and look-alikes it must leave
//! untouched (false positives ≤ 1 %). Prints a table per kind; `generate.py` beside the
//! fixtures builds both files.

use std::collections::BTreeMap;

use learnsync::redact::{contains_secret, findings, redact};

#[path = "redact_structure.rs"]
mod structure;

const POSITIVES: &str = include_str!("../fixtures/redact/positives.tsv");
const NEGATIVES: &str = include_str!("../fixtures/redact/negatives.tsv");

/// Every kind has two secrets in three placements: six samples, so one miss is 83 %.
/// A floor of 80 % lets one unlucky sample pass and fails a class that is not handled.
const KIND_RECALL_FLOOR: f64 = 0.8;
const RECALL: f64 = 0.99;
const MAX_FALSE_POSITIVES: f64 = 0.01;
/// Share of caught secrets whose marker names the expected kind.
const MARKER_ACCURACY: f64 = 0.95;

/// Undoes the `\n`, `\t` and `\\` escapes that keep each sample on one line.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

fn samples(file: &str) -> impl Iterator<Item = &str> {
    file.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
}

struct Positive {
    kind: String,
    marker: String,
    placement: String,
    secret: String,
    text: String,
}

fn positives() -> Vec<Positive> {
    samples(POSITIVES)
        .map(|line| {
            let cols: Vec<&str> = line.splitn(5, '\t').collect();
            let [kind, marker, placement, secret, text] = cols[..] else {
                panic!("malformed positive line: {line:?}");
            };
            let p = Positive {
                kind: kind.to_string(),
                marker: marker.to_string(),
                placement: placement.to_string(),
                secret: unescape(secret),
                text: unescape(text),
            };
            assert!(
                p.text.contains(&p.secret),
                "fixture secret not in its text: {line:?}"
            );
            p
        })
        .collect()
}

#[derive(Default)]
struct Tally {
    total: usize,
    caught: usize,
    right_marker: usize,
}

#[test]
fn corpus_positives_are_redacted_with_the_right_kind() {
    let all = positives();
    let mut by_kind: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut by_placement: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut misses = Vec::new();
    let mut wrong_markers = Vec::new();
    for p in &all {
        let out = redact(&p.text);
        let caught = !out.contains(&p.secret) && contains_secret(&p.text);
        let marker = format!("[REDACTED:{}]", p.marker);
        let right = caught && out.contains(&marker);
        for t in [
            by_kind.entry(&p.kind).or_default(),
            by_placement.entry(&p.placement).or_default(),
        ] {
            t.total += 1;
            t.caught += usize::from(caught);
            t.right_marker += usize::from(right);
        }
        if !caught {
            misses.push(format!(
                "{} ({}): {:?}\n    -> {:?}",
                p.kind, p.placement, p.text, out
            ));
        } else if !right {
            wrong_markers.push(format!("{} wants {marker}: {:?}", p.kind, out));
        }
    }
    let total = all.len();
    let caught: usize = by_kind.values().map(|t| t.caught).sum();
    let right: usize = by_kind.values().map(|t| t.right_marker).sum();
    let recall = caught as f64 / total as f64;
    let accuracy = right as f64 / caught.max(1) as f64;

    println!(
        "{:<34} {:>7} {:>7} {:>8} {:>8}",
        "kind", "samples", "caught", "recall", "marker"
    );
    for (kind, t) in &by_kind {
        println!(
            "{kind:<34} {:>7} {:>7} {:>7.1}% {:>7.1}%",
            t.total,
            t.caught,
            100.0 * t.caught as f64 / t.total as f64,
            100.0 * t.right_marker as f64 / t.caught.max(1) as f64
        );
    }
    for (placement, t) in &by_placement {
        println!(
            "placement {placement:<24} {:>7} {:>7} {:>7.1}%",
            t.total,
            t.caught,
            100.0 * t.caught as f64 / t.total as f64
        );
    }
    println!(
        "positives: {total} over {} kinds, caught {caught}, recall {:.2}%, right marker {:.2}%",
        by_kind.len(),
        recall * 100.0,
        accuracy * 100.0
    );
    for miss in &misses {
        println!("miss: {miss}");
    }
    for w in &wrong_markers {
        println!("marker: {w}");
    }

    assert!(
        total >= 500 && by_kind.len() >= 150,
        "corpus too small: {total} samples, {} kinds",
        by_kind.len()
    );
    assert!(
        recall >= RECALL,
        "recall {:.2}% < {RECALL}; misses:\n{}",
        recall * 100.0,
        misses.join("\n")
    );
    let weak: Vec<_> = by_kind
        .iter()
        .filter(|(_, t)| (t.caught as f64) < KIND_RECALL_FLOOR * t.total as f64)
        .map(|(k, t)| format!("{k}: {}/{}", t.caught, t.total))
        .collect();
    assert!(weak.is_empty(), "kinds below {KIND_RECALL_FLOOR}: {weak:?}");
    assert!(
        accuracy >= MARKER_ACCURACY,
        "right marker {:.2}% < {MARKER_ACCURACY}:\n{}",
        accuracy * 100.0,
        wrong_markers.join("\n")
    );
}

#[test]
fn corpus_negatives_are_left_alone() {
    let mut by_kind: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut false_positives = Vec::new();
    for line in samples(NEGATIVES) {
        let cols: Vec<&str> = line.splitn(3, '\t').collect();
        let [kind, _placement, text] = cols[..] else {
            panic!("malformed negative line: {line:?}");
        };
        let text = unescape(text);
        let found = findings(&text);
        let t = by_kind.entry(kind).or_default();
        t.0 += 1;
        if !found.is_empty() {
            t.1 += 1;
            let spans: Vec<_> = found
                .iter()
                .map(|f| format!("{}={:?}", f.kind, &text[f.start..f.end]))
                .collect();
            false_positives.push(format!("{kind}: {text:?}: {}", spans.join(", ")));
        }
    }
    let total: usize = by_kind.values().map(|t| t.0).sum();
    println!("{:<24} {:>7} {:>15}", "kind", "samples", "false positives");
    for (kind, (n, fp)) in &by_kind {
        println!("{kind:<24} {n:>7} {fp:>15}");
    }
    let rate = false_positives.len() as f64 / total as f64;
    println!(
        "negatives: {total} over {} kinds, false positives: {} ({:.2}%)",
        by_kind.len(),
        false_positives.len(),
        rate * 100.0
    );
    for fp in &false_positives {
        println!("false positive: {fp}");
    }
    assert!(total >= 200, "corpus too small: {total}");
    assert!(
        rate <= MAX_FALSE_POSITIVES,
        "false positives {:.2}% > 1%:\n{}",
        rate * 100.0,
        false_positives.join("\n")
    );
}

#[test]
fn corpus_redaction_is_idempotent() {
    for p in positives() {
        let once = redact(&p.text).into_owned();
        assert!(findings(&once).is_empty(), "finding left in {once:?}");
        assert_eq!(
            redact(&once),
            once.as_str(),
            "not idempotent on {:?}",
            p.text
        );
    }
}
