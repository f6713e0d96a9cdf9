//! Commands written as lists of arguments, not as a line: an audit log's
//! `type=EXECVE … a0="snmpwalk" a1="-c" a2="…"`, a Kubernetes container's `command:`
//! and `args:` (a flow list or a block of `- …` items), a JSON `"args": [ … ]` beside
//! its `"program"`, a Dockerfile's `CMD [ … ]`, strace's `execve("…", ["…", …])`. The
//! items are joined into the command line they stand for, the command-line rules read
//! that line (`mod.rs`'s findings without this view, handed down as a function, so it
//! never recurses), and each finding is found again inside the item it came from. Pure:
//! bytes in, ranges out.

use super::context::Hit;
use super::text::{line_end, line_start, run};

/// Items read from one list, at most.
const MAX_ITEMS: usize = 48;
/// How far a list may run from its anchor.
const MAX_SPAN: usize = 4096;

/// The secrets of the argument list whose anchor `literal` ends at `e`, as ranges of `b`.
pub(super) fn hits(
    b: &[u8],
    e: usize,
    literal: &str,
    line_findings: fn(&str) -> Vec<Hit>,
    out: &mut Vec<Hit>,
) {
    let mut items: Vec<(usize, usize)> = Vec::new();
    if literal == "type=EXECVE" {
        audit_items(b, e, &mut items);
    } else {
        // The program first, when a sibling key names it (`command: ["curl"]` above
        // `args:`, `"program": "…/neo4j-admin"` above `"args"`).
        if literal.contains("args") {
            program_before(b, e, &mut items);
        }
        let first = items.len();
        list_items(b, e, &mut items);
        if items.len() == first {
            return;
        }
    }
    if items.len() < 2 {
        return;
    }
    let mut line = String::new();
    let mut spans = Vec::with_capacity(items.len());
    for &(s, e) in &items {
        let Ok(item) = std::str::from_utf8(&b[s..e]) else {
            return;
        };
        if !line.is_empty() {
            line.push(' ');
        }
        let quote = item.contains(' ') && !item.contains('"');
        if quote {
            line.push('"');
        }
        let at = line.len();
        line.push_str(item);
        spans.push((at, line.len(), s));
        if quote {
            line.push('"');
        }
    }
    for (kind, f_start, f_end) in line_findings(&line) {
        // A finding inside one item maps back to the same bytes of the text.
        if let Some(&(at, end, s)) = spans
            .iter()
            .find(|&&(at, end, _)| at <= f_start && f_end <= end)
        {
            // An item is one argument: a full stop the line's rules took for the end of a
            // sentence is the password's (`"…^z."`).
            let tail = &line.as_bytes()[f_end..end];
            let f_end = if tail.len() <= 2 && tail.iter().all(u8::is_ascii_punctuation) {
                end
            } else {
                f_end
            };
            out.push((kind, s + f_start - at, s + f_end - at));
        }
    }
}

/// `a0="snmpwalk" a1="-c" a2="…"` on the record's line (hex-encoded arguments are
/// left out: they carry no quotes).
fn audit_items(b: &[u8], e: usize, items: &mut Vec<(usize, usize)>) {
    let le = line_end(b, e, MAX_SPAN);
    let mut i = e;
    while i + 4 < le && items.len() < MAX_ITEMS {
        let is_arg = b[i] == b' ' && b[i + 1] == b'a' && b[i + 2].is_ascii_digit() && {
            let d = run(&b[..le], i + 2, |c| c.is_ascii_digit());
            b[d..le].starts_with(b"=\"")
        };
        if !is_arg {
            i += 1;
            continue;
        }
        let vs = run(&b[..le], i + 2, |c| c.is_ascii_digit()) + 2;
        let ve = run(&b[..le], vs, |c| c != b'"');
        if ve >= le {
            return;
        }
        items.push((vs, ve));
        i = ve + 1;
    }
}

/// The items of the list that starts after the anchor: a flow list (`[ "a", "b" ]`,
/// across lines too) or, after a key that ends its line, a block of `- item` lines.
fn list_items(b: &[u8], e: usize, items: &mut Vec<(usize, usize)>) {
    let hi = (e + MAX_SPAN).min(b.len());
    let mut i = e;
    while i < hi && matches!(b[i], b' ' | b'\t' | b':' | b'"' | b'=' | b'(') {
        i += 1;
    }
    if b.get(i) == Some(&b'[') {
        flow_items(b, i + 1, hi, items);
    } else if matches!(b.get(i), Some(b'\n' | b'\r')) {
        block_items(b, i, hi, items);
    } else if b.get(i) == Some(&b'"') || b[e..i].ends_with(b"(\"") {
        // strace: `execve("/usr/bin/x", ["x", "-p", "…"], …)`: the list follows the path.
        let close = run(&b[..hi], i, |c| c != b'[');
        if close < hi {
            flow_items(b, close + 1, hi, items);
        }
    }
}

/// Quoted strings up to the closing `]`; bare words between commas too (YAML).
fn flow_items(b: &[u8], mut i: usize, hi: usize, items: &mut Vec<(usize, usize)>) {
    while i < hi && items.len() < MAX_ITEMS {
        match b[i] {
            b']' => return,
            q @ (b'"' | b'\'') => {
                let mut k = i + 1;
                while k < hi && b[k] != q {
                    k += if b[k] == b'\\' { 2 } else { 1 };
                }
                if k >= hi {
                    return;
                }
                items.push((i + 1, k));
                i = k + 1;
            }
            c if c.is_ascii_whitespace() || c == b',' => i += 1,
            _ => {
                let k = run(&b[..hi], i, |c| c != b',' && c != b']' && c != b'\n');
                let t = trim_end(b, i, k);
                if t > i {
                    items.push((i, t));
                }
                i = k;
            }
        }
    }
}

/// `- item` lines right below the key, at one indent, quoted or bare.
fn block_items(b: &[u8], eol: usize, hi: usize, items: &mut Vec<(usize, usize)>) {
    let mut i = eol + usize::from(b.get(eol) == Some(&b'\r'));
    let mut indent = None;
    while i < hi && b[i] == b'\n' && items.len() < MAX_ITEMS {
        let ls = i + 1;
        let le = line_end(b, ls, MAX_SPAN).min(hi);
        let dash = run(&b[..le], ls, |c| c == b' ');
        if !b[dash..le].starts_with(b"- ") || indent.is_some_and(|n| n != dash - ls) {
            return;
        }
        indent = Some(dash - ls);
        let mut vs = dash + 2;
        let mut ve = trim_end(b, vs, le);
        if ve > vs + 1 && matches!(b[vs], b'"' | b'\'') && b[ve - 1] == b[vs] {
            vs += 1;
            ve -= 1;
        }
        items.push((vs, ve));
        i = le;
    }
}

/// The program a sibling key names above the `args` anchor: the last item of a
/// `command:` list within a few lines, or the file name of a `"program"` path.
fn program_before(b: &[u8], e: usize, items: &mut Vec<(usize, usize)>) {
    let anchor_line = line_start(b, e.saturating_sub(1));
    let mut ls = anchor_line;
    for _ in 0..6 {
        if ls == 0 {
            return;
        }
        ls = line_start(b, ls - 1);
        let le = line_end(b, ls, 512);
        let line = &b[ls..le];
        let t = line.trim_ascii_start();
        let off = ls + line.len() - t.len();
        if t.starts_with(b"command:") || t.starts_with(b"\"command\":") {
            let key_end = off + super::text::find(t, b":").unwrap_or(0) + 1;
            let mut found = Vec::new();
            list_items(b, key_end, &mut found);
            items.extend(found);
            return;
        }
        if t.starts_with(b"\"program\":") {
            let vs = run(b, off + 10, |c| c == b' ' || c == b'"');
            let ve = run(&b[..le], vs, |c| c != b'"');
            let name = b[vs..ve]
                .iter()
                .rposition(|&c| c == b'/' || c == b'\\')
                .map_or(vs, |p| vs + p + 1);
            if ve > name {
                items.push((name, ve));
            }
            return;
        }
    }
}

fn trim_end(b: &[u8], s: usize, mut e: usize) -> usize {
    while e > s && b[e - 1].is_ascii_whitespace() {
        e -= 1;
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items_of(text: &str, literal: &str) -> Vec<String> {
        let b = text.as_bytes();
        let e = text.find(literal).expect("anchor") + literal.len();
        let mut items = Vec::new();
        if literal == "type=EXECVE" {
            audit_items(b, e, &mut items);
        } else {
            list_items(b, e, &mut items);
        }
        items.iter().map(|&(s, e)| text[s..e].to_string()).collect()
    }

    #[test]
    fn lists_read_as_their_items() {
        assert_eq!(
            items_of(
                "type=EXECVE msg=audit(1.2:3): argc=3 a0=\"snmpwalk\" a1=\"-c\" a2=\"x y\"",
                "type=EXECVE"
            ),
            ["snmpwalk", "-c", "x y"]
        );
        assert_eq!(
            items_of("command: [\"curl\", '-s', --fail]", "command:"),
            ["curl", "-s", "--fail"]
        );
        assert_eq!(
            items_of(
                "  args:\n    - \"--proxy-user\"\n    - u:p\n  ports: []",
                "args:"
            ),
            ["--proxy-user", "u:p"]
        );
    }
}
