//! Issue 35's development corpus (`tests/fixtures/redact-structure`): secrets the
//! redactor must recognise by structure — key material by its encoding, credentials by
//! their place on a command line or in a connection string, assignments in any syntax —
//! and the public look-alikes it must leave alone (public keys, ids, digests,
//! addresses). Families named `*-heldout` hold kinds no rule was written for: they
//! measure what the structural layers catch on their own.

use std::collections::BTreeMap;

use learnsync::redact::redact;

use super::unescape;

const POSITIVES: &str = include_str!("../fixtures/redact-structure/positives.tsv");
const NEGATIVES: &str = include_str!("../fixtures/redact-structure/negatives.tsv");

/// Recall on the families the structural rules were written from, and a floor on the
/// held-out ones: issue 35 targets 0.95 there, reached on key material and DSNs but not
/// yet on command lines and assignment syntaxes (benches/README.md has the figures).
const KNOWN_RECALL: f64 = 0.99;
const HELD_OUT_RECALL: f64 = 0.90;
const MAX_FALSE_POSITIVES: f64 = 0.01;

/// The corpus's rule: caught when no 8-character window of the secret survives.
fn survives(secret: &str, redacted: &str) -> bool {
    let chars: Vec<char> = secret.chars().collect();
    chars
        .windows(8.min(chars.len()))
        .any(|w| redacted.contains(&w.iter().collect::<String>()))
}

fn rows(file: &str, columns: usize) -> impl Iterator<Item = Vec<String>> + '_ {
    file.lines()
        .skip(1)
        .filter(|l| !l.is_empty())
        .map(move |l| {
            let cols: Vec<String> = l.splitn(columns, '\t').map(unescape).collect();
            assert_eq!(cols.len(), columns, "malformed line: {l:?}");
            cols
        })
}

#[test]
fn structural_secrets_are_redacted_in_known_and_held_out_families() {
    // family -> (caught, total, missed kinds)
    let mut tally: BTreeMap<String, (usize, usize, Vec<String>)> = BTreeMap::new();
    for cols in rows(POSITIVES, 4) {
        let [family, kind, secret, text] = &cols[..] else {
            unreachable!("rows() checked the column count");
        };
        let out = redact(text);
        let t = tally.entry(family.clone()).or_default();
        t.1 += 1;
        if survives(secret, &out) {
            t.2.push(format!("{kind}: {out:?}"));
        } else {
            t.0 += 1;
        }
    }
    let total = |held: bool| {
        tally
            .iter()
            .filter(|(f, _)| f.ends_with("-heldout") == held)
            .fold((0, 0), |(c, n), (_, t)| (c + t.0, n + t.1))
    };
    let (known, known_n) = total(false);
    let (held, held_n) = total(true);
    for (family, (caught, n, missed)) in &tally {
        println!("{family}: {caught}/{n}");
        for m in missed {
            println!("  missed {m}");
        }
    }
    assert!(known_n > 100 && held_n > 50, "the corpus shrank");
    assert!(
        known as f64 / known_n as f64 >= KNOWN_RECALL,
        "known families: {known}/{known_n}"
    );
    assert!(
        held as f64 / held_n as f64 >= HELD_OUT_RECALL,
        "held-out families: {held}/{held_n}"
    );
}

#[test]
fn public_keys_ids_and_digests_are_left_alone() {
    let mut changed = Vec::new();
    let mut n = 0;
    for cols in rows(NEGATIVES, 3) {
        let [_family, kind, text] = &cols[..] else {
            unreachable!("rows() checked the column count");
        };
        n += 1;
        let out = redact(text);
        if out != text.as_str() {
            changed.push(format!("{kind}: {out:?}"));
        }
    }
    assert!(
        changed.len() as f64 / n as f64 <= MAX_FALSE_POSITIVES,
        "{} of {n} look-alikes changed:\n{}",
        changed.len(),
        changed.join("\n")
    );
}
