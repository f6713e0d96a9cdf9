//! Corpus test for the redactor: realistic leaks it must catch (recall ≥ 99 %) and
//! realistic look-alikes it must leave untouched (zero false positives).

use learnsync::redact::{contains_secret, findings, redact};

const POSITIVES: &str = include_str!("../fixtures/redact/positives.tsv");
const NEGATIVES: &str = include_str!("../fixtures/redact/negatives.txt");

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

#[test]
fn corpus_positives_are_redacted_with_the_right_kind() {
    let mut total = 0;
    let mut misses = Vec::new();
    for line in samples(POSITIVES) {
        let mut cols = line.splitn(3, '\t');
        let (Some(kind), Some(secret), Some(text)) = (cols.next(), cols.next(), cols.next()) else {
            panic!("malformed positive line: {line:?}");
        };
        total += 1;
        let (secret, text) = (unescape(secret), unescape(text));
        assert!(
            text.contains(&secret),
            "fixture secret not in its text: {line:?}"
        );
        let out = redact(&text);
        let marker = format!("[REDACTED:{kind}]");
        if out.contains(&secret) || !out.contains(&marker) || !contains_secret(&text) {
            misses.push(format!("{kind}: {text:?}\n    -> {out:?}"));
        }
    }
    assert!(total >= 150, "corpus too small: {total}");
    let recall = 1.0 - misses.len() as f64 / total as f64;
    println!(
        "positives: {total}, misses: {}, recall: {:.2}%",
        misses.len(),
        recall * 100.0
    );
    for miss in &misses {
        println!("miss: {miss}");
    }
    assert!(
        recall >= 0.99,
        "recall {:.2}% < 99%; misses:\n{}",
        recall * 100.0,
        misses.join("\n")
    );
}

#[test]
fn corpus_negatives_are_left_alone() {
    let mut total = 0;
    let mut false_positives = Vec::new();
    for line in samples(NEGATIVES) {
        total += 1;
        let text = unescape(line);
        let found = findings(&text);
        if !found.is_empty() {
            let spans: Vec<_> = found
                .iter()
                .map(|f| format!("{}={:?}", f.kind, &text[f.start..f.end]))
                .collect();
            false_positives.push(format!("{text:?}: {}", spans.join(", ")));
        }
    }
    assert!(total >= 100, "corpus too small: {total}");
    println!(
        "negatives: {total}, false positives: {}",
        false_positives.len()
    );
    assert!(
        false_positives.is_empty(),
        "false positives:\n{}",
        false_positives.join("\n")
    );
}

#[test]
fn corpus_redaction_is_idempotent() {
    for line in samples(POSITIVES) {
        let text = unescape(line.splitn(3, '\t').nth(2).unwrap_or_default());
        let once = redact(&text).into_owned();
        assert_eq!(redact(&once), once.as_str(), "not idempotent on {text:?}");
    }
}
