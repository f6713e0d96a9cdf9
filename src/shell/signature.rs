//! Error signatures: the dedup key of a failure's output, its first
//! meaningful line with colours, numbers, ids, paths, URLs and quoted values
//! masked, so the same error on another day or machine reads the same.
//!
//! Output is prose, not shell: quotes are [`super::lex`]'s prose pairs (no
//! escapes, curly quotes too, counted only when closed).

use super::lex;

/// Words that mark a line as the error worth signing.
const ERROR_MARKERS: &[&str] = &[
    "error",
    "fatal",
    "failed",
    "failure",
    "not found",
    "denied",
    "refused",
    "no such",
    "panicked",
    "exception",
    "cannot",
    "can't",
    "unable",
    "invalid",
    "rejected",
    "unknown",
    "unrecognized",
    "not a ",
    "traceback",
    "err!",
    "abort",
    "segmentation fault",
    "timed out",
];

/// A dedup key for an error: its first meaningful line (the first line with
/// an error marker, else the first non-blank one) with ANSI colours removed,
/// whitespace collapsed, and numbers (`<n>`), hex ids (`<hex>`), paths
/// (`<path>`), URLs (`<url>`) and quoted values (`<q>`) masked. At most 200
/// characters.
pub fn error_signature(text: &str) -> String {
    let clean = crate::text::strip_ansi(text);
    let mut chosen = None;
    let mut first = None;
    for line in clean.lines() {
        let t = line.trim();
        if t.is_empty() || t.chars().all(|c| !c.is_alphanumeric()) {
            continue;
        }
        first.get_or_insert(t);
        let lower = t.to_ascii_lowercase();
        if ERROR_MARKERS.iter().any(|m| lower.contains(m)) {
            chosen = Some(t);
            break;
        }
    }
    let Some(line) = chosen.or(first) else {
        return String::new();
    };
    let masked = mask(line);
    match masked.char_indices().nth(200) {
        Some((i, _)) => masked[..i].to_string(),
        None => masked,
    }
}

fn mask(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut last_space = false;
    for tok in tokens(line) {
        match tok {
            Tok::Space => {
                if !last_space && !out.is_empty() {
                    out.push(' ');
                }
                last_space = true;
                continue;
            }
            Tok::Quoted => out.push_str("<q>"),
            Tok::Word(w) => push_masked_word(&mut out, w),
        }
        last_space = false;
    }
    out.trim_end().to_string()
}

enum Tok<'a> {
    Space,
    Quoted,
    Word(&'a str),
}

/// Whitespace runs, closed quotes and the words between them. A word ends
/// at whitespace or at a quote mark, closed or not.
fn tokens(line: &str) -> Vec<Tok<'_>> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        if c.is_whitespace() {
            let end = rest
                .find(|c: char| !c.is_whitespace())
                .unwrap_or(rest.len());
            out.push(Tok::Space);
            rest = &rest[end..];
            continue;
        }
        if let Some(close) = lex::prose_closer(c)
            && let Some(len) = lex::closed_quote_len(rest, c, close)
        {
            out.push(Tok::Quoted);
            rest = &rest[len..];
            continue;
        }
        let end = rest
            .char_indices()
            .skip(1)
            .find(|&(_, c)| c.is_whitespace() || lex::prose_closer(c).is_some())
            .map_or(rest.len(), |(i, _)| i);
        out.push(Tok::Word(&rest[..end]));
        rest = &rest[end..];
    }
    out
}

fn push_masked_word(out: &mut String, w: &str) {
    // Keep leading/trailing punctuation, mask the core.
    let core_start = w
        .find(|c: char| c.is_alphanumeric() || matches!(c, '/' | '.' | '~' | '$'))
        .unwrap_or(w.len());
    let core_end = w
        .rfind(|c: char| c.is_alphanumeric() || c == '/')
        .map_or(core_start, |i| {
            i + w[i..].chars().next().map_or(1, char::len_utf8)
        });
    if core_start >= core_end {
        out.push_str(w);
        return;
    }
    let (pre, core, post) = (&w[..core_start], &w[core_start..core_end], &w[core_end..]);
    out.push_str(pre);
    if core.contains("://") {
        out.push_str("<url>");
    } else if core.contains('/') && core.len() > 1 {
        out.push_str("<path>");
    } else {
        mask_numbers(out, core);
    }
    out.push_str(post);
}

/// Mask hex ids and digit runs inside a word, keeping letters
/// (`E0425` → `E<n>`, `0x7ffd` → `<hex>`, `a1b2c3d4e5` → `<hex>`).
fn mask_numbers(out: &mut String, word: &str) {
    let is_hexish = |s: &str| {
        s.len() >= 7
            && s.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
            && s.chars().any(|c| c.is_ascii_digit())
    };
    if let Some(hex) = word.strip_prefix("0x")
        && !hex.is_empty()
        && hex.chars().all(|c| c.is_ascii_hexdigit())
    {
        out.push_str("<hex>");
        return;
    }
    if is_hexish(word) {
        out.push_str("<hex>");
        return;
    }
    let mut chars = word.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            while chars
                .peek()
                .is_some_and(|c| c.is_ascii_digit() || *c == '.' || *c == ',')
            {
                chars.next();
            }
            out.push_str("<n>");
        } else {
            out.push(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_signature_masks_volatile_parts() {
        let cases = [
            (
                "   Compiling foo v0.1.0\nerror[E0425]: cannot find value `x` in this scope\n --> src/main.rs:3:5",
                "error[E<n>]: cannot find value <q> in this scope",
            ),
            (
                "To github.com:me/repo.git\n ! [rejected]        main -> main (non-fast-forward)\nerror: failed to push some refs to 'github.com:me/repo.git'",
                "! [rejected] main -> main (non-fast-forward)",
            ),
            (
                "fatal: '/home/me/x' does not appear to be a git repository",
                "fatal: <q> does not appear to be a git repository",
            ),
            (
                "Error: open /var/lib/app/config.yaml: no such file or directory",
                "Error: open <path>: no such file or directory",
            ),
            (
                "\u{1b}[31merror\u{1b}[0m: port 8080 in use",
                "error: port <n> in use",
            ),
            (
                "panicked at 0x7ffd1234 with id 3f2a9c1e8b7d",
                "panicked at <hex> with id <hex>",
            ),
            ("see https://example.com/a/b failed", "see <url> failed"),
            ("all good", "all good"),
            ("", ""),
        ];
        for (text, want) in cases {
            assert_eq!(error_signature(text), want, "{text:?}");
        }
    }

    #[test]
    fn prose_quotes_in_output_mask_only_when_closed() {
        let cases = [
            ("error: no “main” here", "error: no <q> here"),
            ("error: bad ‘x’ and 'y'", "error: bad <q> and <q>"),
            ("error: unclosed 'quote here", "error: unclosed 'quote here"),
            // Prose has no escapes: the first closing mark ends the quote.
            (
                r#"error: parsing "a\"b": bad"#,
                r#"error: parsing <q>b": bad"#,
            ),
        ];
        for (text, want) in cases {
            assert_eq!(error_signature(text), want, "{text:?}");
        }
    }
}
