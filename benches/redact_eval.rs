//! Redaction measured on a corpus the redactor was not built from
//! (`harness = false`; quality, not speed):
//!
//!   cargo bench --bench redact_eval -- [DIR]
//!
//! DIR (default `tests/fixtures/redact-blind`) holds `positives.tsv`
//! (`family kind secret text`) and `negatives.tsv` (`family kind text`),
//! texts with `\n`, `\t`, `\r`, `\\` escaped. A positive is caught when no
//! 8-character window of its secret survives redaction (the corpus's own
//! rule, README.md beside it) other than one the text also holds outside
//! the secret; a negative is a false positive when
//! redaction changes it at all. Prints recall and false positives per
//! family, and the kinds missed, so issue 35's held-out figures can be
//! compared run to run. `--summary` prints the family table only: use it on
//! a corpus you must not tune on (redact-blind), so no kind is looked at.
//! `--misses` also prints each missed positive and changed negative after
//! redaction: for a development corpus only, never for a blind one.
//! Families named `*-heldout` (tests/fixtures/redact-structure) hold kinds
//! no rule was written for; they are totalled apart as "held out".

use std::collections::BTreeMap;

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
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// Whether any 8-character piece of `secret` is still in `redacted`. A piece
/// that also occurs in the text outside the secret (the indentation between a
/// YAML block's PEM lines, a certificate's algorithm identifier next to the
/// key it certifies) proves nothing, so it does not count as a survivor.
fn survives(secret: &str, text: &str, redacted: &str) -> bool {
    let chars: Vec<char> = secret.chars().collect();
    if chars.len() < 8 {
        return redacted.contains(secret);
    }
    let outside = text.replacen(secret, "\u{0}", 1);
    chars.windows(8).any(|w| {
        let piece: String = w.iter().collect();
        redacted.contains(&piece) && !outside.contains(&piece)
    })
}

#[derive(Default)]
struct Tally {
    total: usize,
    hit: usize,
    missed_kinds: BTreeMap<String, usize>,
}

fn main() {
    let summary = std::env::args().any(|a| a == "--summary");
    let misses = std::env::args().any(|a| a == "--misses");
    let dir = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .unwrap_or_else(|| "tests/fixtures/redact-blind".into());
    let read = |name: &str| {
        std::fs::read_to_string(format!("{dir}/{name}"))
            .unwrap_or_else(|e| panic!("{dir}/{name}: {e}"))
    };
    let mut positives: BTreeMap<String, Tally> = BTreeMap::new();
    for line in read("positives.tsv").lines().skip(1) {
        let cols: Vec<&str> = line.splitn(4, '\t').collect();
        let [family, kind, secret, text] = cols[..] else {
            continue;
        };
        let (secret, text) = (unescape(secret), unescape(text));
        let redacted = learnsync::redact::redact(&text);
        let t = positives.entry(family.to_string()).or_default();
        t.total += 1;
        if survives(&secret, &text, &redacted) {
            *t.missed_kinds.entry(kind.to_string()).or_default() += 1;
            if misses {
                println!("missed {family}/{kind}: {redacted:?}");
            }
        } else {
            t.hit += 1;
        }
    }
    let mut negatives: BTreeMap<String, Tally> = BTreeMap::new();
    for line in read("negatives.tsv").lines().skip(1) {
        let cols: Vec<&str> = line.splitn(3, '\t').collect();
        let [family, kind, text] = cols[..] else {
            continue;
        };
        let text = unescape(text);
        let t = negatives.entry(family.to_string()).or_default();
        t.total += 1;
        let redacted = learnsync::redact::redact(&text);
        if redacted != text {
            if misses {
                println!("changed {family}/{kind}: {redacted:?}");
            }
            t.hit += 1;
            *t.missed_kinds.entry(kind.to_string()).or_default() += 1;
        }
    }
    println!("| family | recall | false positives |");
    println!("|---|---:|---:|");
    let families: std::collections::BTreeSet<&String> =
        positives.keys().chain(negatives.keys()).collect();
    let (mut pt, mut ph, mut nt, mut nh) = (0, 0, 0, 0);
    let (mut held_total, mut held_hit) = (0, 0);
    for f in families {
        let p = positives.get(f);
        let n = negatives.get(f);
        let recall = p.map_or("—".into(), |p| {
            format!(
                "{}/{} ({:.3})",
                p.hit,
                p.total,
                p.hit as f64 / p.total.max(1) as f64
            )
        });
        let fp = n.map_or("—".into(), |n| {
            format!(
                "{}/{} ({:.3})",
                n.hit,
                n.total,
                n.hit as f64 / n.total.max(1) as f64
            )
        });
        println!("| {f} | {recall} | {fp} |");
        if let Some(p) = p {
            pt += p.total;
            ph += p.hit;
            if f.ends_with("-heldout") {
                held_total += p.total;
                held_hit += p.hit;
            }
        }
        if let Some(n) = n {
            nt += n.total;
            nh += n.hit;
        }
    }
    println!(
        "| all | {ph}/{pt} ({:.3}) | {nh}/{nt} ({:.3}) |",
        ph as f64 / pt.max(1) as f64,
        nh as f64 / nt.max(1) as f64
    );
    if held_total > 0 {
        println!(
            "| held out | {held_hit}/{held_total} ({:.3}) | |",
            held_hit as f64 / held_total as f64
        );
    }
    if summary {
        return;
    }
    println!("\nkinds missed (positives) and kinds changed (negatives):");
    list_kinds("missed", &positives);
    list_kinds("false positive", &negatives);
}

/// One line per family: the kinds that went wrong, with how often.
fn list_kinds(what: &str, tallies: &BTreeMap<String, Tally>) {
    for (family, t) in tallies.iter().filter(|(_, t)| !t.missed_kinds.is_empty()) {
        let kinds: Vec<String> = t
            .missed_kinds
            .iter()
            .map(|(k, n)| format!("{k}×{n}"))
            .collect();
        println!("  {what} {family}: {}", kinds.join(", "));
    }
}
