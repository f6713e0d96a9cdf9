//! The one YAML codec: `serde_norway` (a maintained drop-in fork of
//! `serde_yaml`) for reading, and a small deterministic emitter for writing.
//!
//! Writing by hand keeps the bytes identical on every machine whatever the
//! library version: plain scalars when unambiguous, literal blocks for
//! multi-line text, JSON-style double quotes for everything else.

pub use serde_norway::{Mapping, Value};

/// Parses YAML text into a value.
pub fn parse(text: &str) -> Result<Value, serde_norway::Error> {
    serde_norway::from_str(text)
}

/// Parses a frontmatter the way [`parse`] would, but only when every line
/// is in the shape our own writer produces (plain scalars we would write
/// plain, JSON-quoted strings, `|-`/`|`/`|+` blocks at two spaces, flow
/// lists of plain items, one nested mapping level). Anything else returns
/// `None` and the caller falls back to the full YAML parser. Loading a
/// 10,000-file directory is dominated by YAML parsing; this is ~20× faster.
///
/// The top level comes back as its entries in order, keys borrowed from
/// `text` and distinct (what [`parse`]'s mapping holds, without hashing
/// every key into one: a learning's reader looks each up once).
pub fn parse_canonical(text: &str) -> Option<Vec<(&str, Value)>> {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut i = 0;
    let entries = parse_block(&lines, &mut i, 0)?;
    // Only a final empty piece (the text ends with a newline) may remain.
    (i == lines.len() || (i + 1 == lines.len() && lines[i].is_empty())).then_some(entries)
}

/// Entries as the mapping [`parse`] would give, in order.
fn mapping(entries: Vec<(&str, Value)>) -> Mapping {
    entries
        .into_iter()
        .map(|(k, v)| (Value::String(k.to_string()), v))
        .collect()
}

/// Keys in one block of a frontmatter the fast path reads (a learning has
/// about 20).
const MAX_KEYS: usize = 64;

/// The entries of a block at `indent`, in order; `None` on a repeated key.
fn parse_block<'a>(
    lines: &[&'a str],
    i: &mut usize,
    indent: usize,
) -> Option<Vec<(&'a str, Value)>> {
    let mut entries: Vec<(&'a str, Value)> = Vec::new();
    while *i < lines.len() {
        let line = lines[*i];
        if line.is_empty() && *i + 1 == lines.len() {
            break;
        }
        let lead = line.len() - line.trim_start_matches(' ').len();
        if lead < indent && indent > 0 {
            break;
        }
        if lead != indent {
            return None;
        }
        // Keys are short: a byte loop finds the colon sooner than a search.
        let line = &line[indent..];
        let colon = line.bytes().position(|b| b == b':')?;
        let (key, rest) = (&line[..colon], &line[colon + 1..]);
        if key.is_empty()
            || !key
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        {
            return None;
        }
        // A repeated key is checked by comparing with those before it: a
        // block of more keys than our writer ever puts in one (a hostile
        // file of 100,000) is left to the full parser, which hashes them.
        if entries.len() >= MAX_KEYS {
            return None;
        }
        *i += 1;
        let value = if rest.is_empty() {
            if indent > 0 {
                return None;
            }
            let nested = parse_block(lines, i, indent + 2)?;
            if nested.is_empty() {
                return None;
            }
            Value::Mapping(mapping(nested))
        } else {
            let rest = rest.strip_prefix(' ')?;
            match rest {
                "|-" | "|" | "|+" => Value::String(literal(lines, i, indent + 2, rest)?),
                _ => scalar(rest)?,
            }
        };
        if entries.iter().any(|(k, _)| *k == key) {
            return None;
        }
        entries.push((key, value));
    }
    Some(entries)
}

fn literal(lines: &[&str], i: &mut usize, indent: usize, style: &str) -> Option<String> {
    let pad = " ".repeat(indent);
    let mut content: Vec<&str> = Vec::new();
    while *i < lines.len() {
        let line = lines[*i];
        if line.is_empty() {
            if *i + 1 == lines.len() {
                break;
            }
            content.push("");
        } else if let Some(body) = line.strip_prefix(&pad) {
            if content.is_empty() && body.starts_with([' ', '\t']) {
                return None;
            }
            content.push(body);
        } else if line.starts_with(' ') || line.starts_with('\t') {
            return None;
        } else {
            break;
        }
        *i += 1;
    }
    if content.first().is_none_or(|l| l.is_empty()) {
        return None;
    }
    let mut text = content.join("\n");
    match style {
        "|-" => {
            if text.ends_with('\n') {
                return None;
            }
        }
        "|" => {
            if text.ends_with('\n') {
                return None;
            }
            text.push('\n');
        }
        _ => text.push('\n'),
    }
    Some(text)
}

fn scalar(raw: &str) -> Option<Value> {
    if raw == "null" {
        return Some(Value::Null);
    }
    if raw.starts_with('"') {
        return serde_json::from_str::<String>(raw).ok().map(Value::String);
    }
    if let Some(inner) = raw.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        if inner.is_empty() {
            return Some(Value::Sequence(Vec::new()));
        }
        let items: Option<Vec<Value>> = inner
            .split(", ")
            .map(|item| is_plain_safe(item).then(|| Value::String(item.to_string())))
            .collect();
        return items.map(Value::Sequence);
    }
    if is_timestamp(raw) {
        return Some(Value::String(raw.to_string()));
    }
    if !raw.is_empty()
        && raw.len() < 20
        && raw.bytes().all(|b| b.is_ascii_digit())
        && !(raw.len() > 1 && raw.starts_with('0'))
    {
        return raw.parse::<u64>().ok().map(|n| Value::Number(n.into()));
    }
    if raw.starts_with(|c: char| c.is_ascii_digit())
        && let Some((a, b)) = raw.split_once('.')
        && !a.is_empty()
        && !b.is_empty()
        && a.bytes().all(|c| c.is_ascii_digit())
        && b.bytes().all(|c| c.is_ascii_digit())
        && !(a.len() > 1 && a.starts_with('0'))
    {
        return raw.parse::<f64>().ok().map(|f| Value::Number(f.into()));
    }
    is_plain_safe(raw).then(|| Value::String(raw.to_string()))
}

/// `YYYY-MM-DDTHH:MM:SSZ`, as we write timestamps.
fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 20
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            10 => *c == b'T',
            13 | 16 => *c == b':',
            19 => *c == b'Z',
            _ => c.is_ascii_digit(),
        })
}

/// True when `s` can be written as a plain scalar and read back as the same
/// string (no indicator, no reserved word, no number-like start).
fn is_plain_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if s.ends_with(' ') || s.len() > 200 {
        return false;
    }
    if !(first.is_alphabetic() || matches!(first, '_' | '/' | '(' | '$')) {
        return false;
    }
    let reserved = [
        "true", "false", "null", "yes", "no", "on", "off", "y", "n", "nan", "inf",
    ];
    if reserved.iter().any(|r| s.eq_ignore_ascii_case(r)) {
        return false;
    }
    s.chars().all(|c| {
        c.is_alphanumeric()
            || matches!(
                c,
                ' ' | '_'
                    | '-'
                    | '.'
                    | '/'
                    | '+'
                    | '='
                    | '('
                    | ')'
                    | '~'
                    | '^'
                    | '$'
                    | ';'
                    | '<'
                    | '?'
            )
    })
}

/// True when a multi-line string survives a literal block unchanged.
fn is_literal_safe(s: &str) -> bool {
    s.contains('\n')
        && !s.starts_with([' ', '\t', '\n'])
        && s.chars()
            .all(|c| c == '\n' || (c != '\t' && c != '\r' && is_yaml_printable(c)))
        && s.lines().all(|l| !l.ends_with([' ', '\t']))
}

/// Appends `key: <string>` (with a trailing newline) at `indent` spaces.
pub fn write_str(out: &mut String, indent: usize, key: &str, value: &str) {
    push_indent(out, indent);
    out.push_str(key);
    out.push(':');
    if is_plain_safe(value) {
        out.push(' ');
        out.push_str(value);
        out.push('\n');
    } else if is_literal_safe(value) {
        let trailing = value.len() - value.trim_end_matches('\n').len();
        out.push_str(match trailing {
            0 => " |-\n",
            1 => " |\n",
            _ => " |+\n",
        });
        let content = if trailing == 0 {
            value
        } else {
            &value[..value.len() - 1]
        };
        for line in content.split('\n') {
            if !line.is_empty() {
                push_indent(out, indent + 2);
                out.push_str(line);
            }
            out.push('\n');
        }
    } else {
        out.push(' ');
        out.push_str(&quote(value));
        out.push('\n');
    }
}

/// True for characters YAML allows unescaped (`c-printable`), minus the
/// ones some readers take as line breaks or byte-order marks.
fn is_yaml_printable(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{7e}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
        && !matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}')
}

/// A double-quoted scalar; everything YAML does not print is escaped.
pub fn quote(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if is_yaml_printable(c) => out.push(c),
            c => out.push_str(&format!("\\u{:04x}", u32::from(c))),
        }
    }
    out.push('"');
    out
}

/// Appends `key: <string or null>`.
pub fn write_opt_str(out: &mut String, indent: usize, key: &str, value: Option<&str>) {
    match value {
        Some(v) => write_str(out, indent, key, v),
        None => write_raw(out, indent, key, "null"),
    }
}

/// Appends `key: raw` where raw is already valid YAML (numbers, null, dates).
pub fn write_raw(out: &mut String, indent: usize, key: &str, raw: &str) {
    push_indent(out, indent);
    out.push_str(key);
    out.push_str(": ");
    out.push_str(raw);
    out.push('\n');
}

/// Appends `key: [a, b]` as a flow list of strings.
pub fn write_list(out: &mut String, indent: usize, key: &str, items: &[String]) {
    push_indent(out, indent);
    out.push_str(key);
    out.push_str(": [");
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        if is_plain_safe(item) {
            out.push_str(item);
        } else {
            out.push_str(&quote(item));
        }
    }
    out.push_str("]\n");
}

/// Appends an arbitrary value under `key` (unknown keys kept on round-trip).
pub fn write_value(out: &mut String, key: &str, value: &Value) {
    let mut map = Mapping::new();
    map.insert(Value::String(key.to_string()), value.clone());
    match serde_norway::to_string(&map) {
        Ok(text) => out.push_str(&text),
        Err(_) => write_raw(out, 0, key, "null"),
    }
}

fn push_indent(out: &mut String, indent: usize) {
    out.extend(std::iter::repeat_n(' ', indent));
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn round_trip(value: &str) -> String {
        let mut out = String::new();
        write_str(&mut out, 0, "k", value);
        let parsed = parse(&out).unwrap_or_else(|e| panic!("{out:?}: {e}"));
        match parsed.get("k") {
            Some(Value::String(s)) => s.clone(),
            other => panic!("{out:?} read back as {other:?}"),
        }
    }

    #[test]
    fn strings_that_break_naive_yaml_read_back_unchanged() {
        for s in [
            "git push -f",
            "remote: rejected",
            "true",
            "123",
            "0x1f",
            "- item",
            "a # b",
            "line one\n---\nline three",
            "ends with newline\n",
            "two newlines\n\n",
            "  leading space\nx",
            "tab\there",
            "quote \" and 'single'",
            "unicode ✓ ünïcödé 日本",
            "",
            "~",
            "[not, a, list]",
            "{not: a map}",
            "*alias",
            "&anchor",
            "!tag",
            "%directive",
            "@at",
            "`backtick`",
            "cr\r\nlf",
            "trailing space \nnext",
            "\u{1b}[31mred",
            "del\u{7f}ete",
            "c1\u{85}\u{9b}controls",
            "nonchars\u{fffe}\u{ffff}",
            "line\u{2028}sep\u{2029}",
            "bom\u{feff}inside",
            "multi\nline with del \u{7f}",
        ] {
            assert_eq!(round_trip(s), s);
        }
    }

    proptest! {
        #[test]
        fn any_string_reads_back_unchanged(s in any::<String>()) {
            prop_assert_eq!(round_trip(&s), s);
        }

        #[test]
        fn characters_yaml_does_not_print_read_back_unchanged(
            s in "[\u{0}-\u{1f}\u{7f}-\u{a0}\u{2028}\u{2029}\u{feff}\u{fffe}\u{ffff}a \n\"\\\\:#-]{0,16}"
        ) {
            prop_assert_eq!(round_trip(&s), s);
        }

        #[test]
        fn the_fast_path_agrees_with_the_yaml_parser(s in any::<String>(), t in "[a-z0-9 :#|\\[\\]\"'-]{0,12}") {
            let mut out = String::new();
            write_str(&mut out, 0, "a", &s);
            write_list(&mut out, 0, "b", &[t.clone(), s.clone()]);
            out.push_str("c:\n");
            write_str(&mut out, 2, "d", &t);
            write_raw(&mut out, 2, "e", "0.25");
            write_str(&mut out, 0, "f", &t);
            if let Some(fast) = parse_canonical(&out) {
                let slow = parse(&out).map_err(|e| e.to_string());
                prop_assert_eq!(Ok(Value::Mapping(mapping(fast))), slow, "{}", out);
            }
        }

        #[test]
        fn the_fast_path_never_disagrees_on_arbitrary_lines(
            lines in proptest::collection::vec("[a-z]{1,3}:( [a-z0-9 :#|\\[\\],\"'-]{0,10})?|  [a-z ]{0,6}|[a-z -]{0,5}", 0..6)
        ) {
            let text = lines.join("\n") + "\n";
            if let Some(fast) = parse_canonical(&text) {
                let slow = parse(&text).map_err(|e| e.to_string());
                prop_assert_eq!(Ok(Value::Mapping(mapping(fast))), slow, "{:?}", text);
            }
        }
    }

    #[test]
    fn the_fast_path_reads_what_we_write() {
        let mut out = String::new();
        write_str(&mut out, 0, "title", "Use --force-with-lease");
        write_raw(&mut out, 0, "captured_at", "2026-08-15T12:00:00Z");
        write_str(&mut out, 0, "error", "remote: rejected");
        write_str(&mut out, 0, "cmd", "cat <<EOF\n---\nEOF");
        write_str(&mut out, 0, "body", "two\n\n");
        write_list(
            &mut out,
            0,
            "keywords",
            &["git".into(), "force-push".into()],
        );
        out.push_str("quality:\n");
        write_raw(&mut out, 2, "applied_count", "3");
        write_raw(&mut out, 2, "success_rate", "0.6667");
        write_raw(&mut out, 2, "last_applied_at", "null");
        let fast = parse_canonical(&out).expect("canonical");
        assert_eq!(
            Ok(Value::Mapping(mapping(fast))),
            parse(&out).map_err(|e| e.to_string())
        );
        let many: String = (0..MAX_KEYS + 1).map(|i| format!("k{i}: v\n")).collect();
        assert_eq!(
            parse_canonical(&many),
            None,
            "more keys than a learning has"
        );
        let enough: String = (0..MAX_KEYS).map(|i| format!("k{i}: v\n")).collect();
        assert_eq!(parse_canonical(&enough).map(|e| e.len()), Some(MAX_KEYS));
        for not_ours in [
            "title: a # comment\n",
            "title: foo\n  bar\n",
            "k: 'single'\n",
            "k: |2-\n   x\n",
            "k: yes\n",
            "k: [a, \"b\"]\n",
            "- a\n",
            "k: a\nk: b\n",
        ] {
            assert_eq!(parse_canonical(not_ours), None, "{not_ours:?}");
        }
    }
}
