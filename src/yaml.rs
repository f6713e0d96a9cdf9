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
        && s.chars().all(|c| c == '\n' || !c.is_control())
        && !s
            .chars()
            .any(|c| matches!(c, '\u{feff}' | '\u{2028}' | '\u{2029}' | '\u{85}'))
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

/// A double-quoted scalar: JSON string escapes are valid YAML escapes.
pub fn quote(value: &str) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| String::from("\"\""))
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
        ] {
            assert_eq!(round_trip(s), s);
        }
    }

    proptest! {
        #[test]
        fn any_string_reads_back_unchanged(s in any::<String>()) {
            prop_assert_eq!(round_trip(&s), s);
        }
    }
}
