//! A user's correction read out of a prompt: `use X instead of Y` and its
//! usual phrasings, giving the command to use and the mistaken one.
//!
//! A prompt is prose: its quotes are [`super::lex`]'s prose pairs.

use super::lex;

/// Read a user's correction out of a prompt: `use X instead of Y`,
/// `instead of Y, use X`, `don't use Y, use X` (also `do not`, `rather than`,
/// `not Y but X`-free forms). Returns `(correction X, mistaken Y)`. A quoted or
/// backticked piece inside either side is preferred over the surrounding words.
pub fn parse_correction(prompt: &str) -> Option<(&str, &str)> {
    let lower = prompt.to_ascii_lowercase();
    // "instead of Y, use X"
    if let Some(i) = find_word(&lower, "instead of", 0) {
        let before = &lower[..i];
        // "use X instead of Y"
        if let Some(u) = rfind_word(before, "use ") {
            let x = &prompt[u + 4..i];
            let y = clause(prompt, i + "instead of".len());
            return pick(x, y);
        }
        // "instead of Y, use X"
        let after = i + "instead of".len();
        if let Some(u) = find_word(&lower, "use ", after) {
            let y = &prompt[after..u];
            let x = clause(prompt, u + 4);
            return pick(x, y);
        }
    }
    // "use X rather than Y"
    if let Some(i) = find_word(&lower, "rather than", 0)
        && let Some(u) = rfind_word(&lower[..i], "use ")
    {
        return pick(&prompt[u + 4..i], clause(prompt, i + "rather than".len()));
    }
    // "don't use Y, use X" / "do not use Y; use X"
    for neg in [
        "don't use ",
        "dont use ",
        "do not use ",
        "don’t use ",
        "never use ",
    ] {
        if let Some(i) = find_word(&lower, neg, 0) {
            let after = i + neg.len();
            if let Some(u) = find_word(&lower, "use ", after) {
                let y = &prompt[after..u];
                let x = clause(prompt, u + 4);
                return pick(x, y);
            }
        }
    }
    None
}

fn find_word(hay: &str, needle: &str, from: usize) -> Option<usize> {
    let mut start = from;
    while let Some(rel) = hay.get(start..)?.find(needle) {
        let i = start + rel;
        let ok_before = i == 0
            || !hay[..i]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric);
        if ok_before {
            return Some(i);
        }
        start = i + needle.len();
    }
    None
}

fn rfind_word(hay: &str, needle: &str) -> Option<usize> {
    let mut end = hay.len();
    while let Some(i) = hay.get(..end)?.rfind(needle) {
        let ok_before = i == 0
            || !hay[..i]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric);
        if ok_before {
            return Some(i);
        }
        end = i;
    }
    None
}

/// From `start` up to the end of the clause (`.`, `!`, `?`, `,`, `;`, newline,
/// outside quotes/backticks). A quote that never closes runs to the end; an
/// apostrophe inside a word (`don't`) is not a quote.
fn clause(s: &str, start: usize) -> &str {
    let rest = s.get(start..).unwrap_or("");
    let mut i = 0;
    while let Some(c) = rest[i..].chars().next() {
        let opens = match c {
            '`' | '"' => true,
            '\'' => rest[..i]
                .chars()
                .next_back()
                .is_none_or(|p| !p.is_alphanumeric()),
            _ => false,
        };
        if opens {
            match lex::closed_quote_len(&rest[i..], c, c) {
                Some(len) => {
                    i += len;
                    continue;
                }
                None => return rest,
            }
        }
        let ends = matches!(c, '.' | '!' | '?' | ',' | ';' | '\n')
            && !(c == '.'
                && rest[i + 1..]
                    .chars()
                    .next()
                    .is_some_and(|n| !n.is_whitespace()));
        if ends {
            return &rest[..i];
        }
        i += c.len_utf8();
    }
    rest
}

fn pick<'a>(x: &'a str, y: &'a str) -> Option<(&'a str, &'a str)> {
    let x = best_piece(x)?;
    let y = best_piece(y)?;
    (x != y).then_some((x, y))
}

/// The first backticked or quoted piece of `s` (by kind, in
/// [`lex::PROSE_QUOTES`] order), else `s` trimmed of spaces and clause
/// punctuation.
fn best_piece(s: &str) -> Option<&str> {
    for (open, close) in lex::PROSE_QUOTES {
        if let Some(a) = s.find(open) {
            let from = a + open.len_utf8();
            if let Some(b) = s[from..].find(close) {
                let inner = s[from..from + b].trim();
                if !inner.is_empty() {
                    return Some(inner);
                }
            }
        }
    }
    let t = s
        .trim()
        .trim_matches(|c: char| matches!(c, ',' | ';' | ':' | '.' | '!' | '?'))
        .trim();
    let t = t.strip_prefix("the ").unwrap_or(t);
    (!t.is_empty() && t.chars().count() <= 120).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_correction_reads_common_phrasings() {
        let cases = [
            (
                "use `git push --force-with-lease` instead of `git push -f`",
                Some(("git push --force-with-lease", "git push -f")),
            ),
            ("Instead of npm, use bun.", Some(("bun", "npm"))),
            (
                "please use pnpm instead of npm install",
                Some(("pnpm", "npm install")),
            ),
            (
                "Don't use `rm -rf build`, use `cargo clean`",
                Some(("cargo clean", "rm -rf build")),
            ),
            ("do not use pip; use uv pip", Some(("uv pip", "pip"))),
            ("use \"yarn\" rather than \"npm\"", Some(("yarn", "npm"))),
            (
                "Use ripgrep instead of grep. Thanks!",
                Some(("ripgrep", "grep")),
            ),
            ("what does this function do?", None),
            ("use the force", None),
            ("use x instead of x", None),
        ];
        for (prompt, want) in cases {
            assert_eq!(parse_correction(prompt), want, "{prompt:?}");
        }
    }

    #[test]
    fn a_clause_ends_outside_quotes_only() {
        let cases = [
            (
                "use bun instead of `npm, yarn`, thanks",
                Some(("bun", "npm, yarn")),
            ),
            (
                "use bun instead of npm's cli, thanks",
                Some(("bun", "npm's cli")),
            ),
            (
                "use bun instead of \"npm, forever",
                Some(("bun", "\"npm, forever")),
            ),
            (
                "use bun instead of npm.cmd now.",
                Some(("bun", "npm.cmd now")),
            ),
        ];
        for (prompt, want) in cases {
            assert_eq!(parse_correction(prompt), want, "{prompt:?}");
        }
    }
}
