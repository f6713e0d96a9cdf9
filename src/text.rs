//! Text written by peers, made safe to show (§9.1): control characters
//! escaped for a terminal, and a fence nothing in the text can close, for
//! an agent; what is shown is redacted again. Pure. JSON output needs no
//! escaping (serde escapes it).

use std::borrow::Cow;

/// One line of peer text as a terminal shows it: redacted again (§9.1),
/// then escaped ([`escape_line`]).
pub fn shown_line(text: &str) -> String {
    escape_line(&crate::redact::redact(text)).into_owned()
}

/// One line of peer text for a terminal: every control character (C0,
/// DEL, C1), every bidirectional override or isolate and every invisible
/// character (zero widths, tag characters) is shown escaped
/// (`\e`, `\a`, `\r`, `\n`, `\t`, else `\u{…}`), so no escape sequence,
/// bell, carriage return or reordering reaches the terminal. Borrowed when
/// there is nothing to escape.
pub fn escape_line(text: &str) -> Cow<'_, str> {
    escape(text, false)
}

/// A multi-line body for a terminal: like [`escape_line`], but newlines
/// (and tabs) are kept, since the body is printed as lines on purpose.
pub fn escape_body(text: &str) -> Cow<'_, str> {
    escape(text, true)
}

/// Whether a character is shown escaped (with newlines and tabs kept or not).
fn is_unsafe(c: char, keep_lines: bool) -> bool {
    match c {
        '\n' | '\t' => !keep_lines,
        // Bidi embeddings, overrides and isolates; marks; LINE/PARAGRAPH SEPARATOR.
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' => true,
        '\u{061c}' | '\u{2028}' | '\u{2029}' => true,
        // Invisible characters that can carry text no reader sees: zero
        // widths and joiners, the word joiner and invisible operators, a
        // byte-order mark, a soft hyphen, tag characters (an ASCII copy in
        // another plane) and the supplementary variation selectors.
        '\u{00ad}' | '\u{180e}' | '\u{200b}'..='\u{200d}' | '\u{2060}'..='\u{2064}' => true,
        '\u{feff}' | '\u{e0000}'..='\u{e007f}' | '\u{e0100}'..='\u{e01ef}' => true,
        // Variation selectors (two of them can spell a byte), deprecated
        // format controls, interlinear annotations, musical format
        // controls, a combining grapheme joiner, Mongolian free variation
        // selectors, Khmer inherent vowels, and blank-looking letters
        // (Hangul fillers, the blank Braille pattern).
        '\u{fe00}'..='\u{fe0f}' | '\u{206a}'..='\u{206f}' | '\u{fff9}'..='\u{fffb}' => true,
        '\u{1d173}'..='\u{1d17a}' | '\u{034f}' | '\u{180b}'..='\u{180f}' => true,
        '\u{17b4}' | '\u{17b5}' | '\u{115f}' | '\u{1160}' | '\u{3164}' | '\u{ffa0}' => true,
        '\u{2800}' => true,
        c => c.is_control(),
    }
}

fn escape(text: &str, keep_lines: bool) -> Cow<'_, str> {
    if !text.chars().any(|c| is_unsafe(c, keep_lines)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if !is_unsafe(c, keep_lines) {
            out.push(c);
            continue;
        }
        match c {
            '\u{1b}' => out.push_str("\\e"),
            '\u{7}' => out.push_str("\\a"),
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
        }
    }
    Cow::Owned(out)
}

/// A terminal's escape sequences taken out of `text`: CSI sequences
/// (`ESC [ … final`, colours and cursor moves), two-byte escapes, and
/// carriage returns. Newlines and tabs stay.
pub fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            } else {
                chars.next();
            }
            continue;
        }
        if c == '\r' {
            continue;
        }
        out.push(c);
    }
    out
}

/// The longest run of backticks in `text`: a fence (or an inline code
/// span) one longer cannot be closed from inside.
pub fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// `text` as a fenced block for an agent: a fence of backticks longer than
/// any run of backticks in the text (at least three), so no line of the
/// text can close it; redacted again, control characters escaped, lines
/// kept. Ends with a newline.
pub fn fenced(text: &str) -> String {
    let redacted = crate::redact::redact(text);
    let fence = "`".repeat(longest_backtick_run(&redacted).max(2) + 1);
    let body = escape_body(redacted.trim_end_matches('\n'));
    format!("{fence}text\n{body}\n{fence}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_controls_are_shown_escaped() {
        for (raw, shown) in [
            ("plain text", "plain text"),
            (
                "\u{1b}]0;pwned\u{7}\u{1b}[31mred",
                "\\e]0;pwned\\a\\e[31mred",
            ),
            ("over\rwrite", "over\\rwrite"),
            ("two\nlines\tand tab", "two\\nlines\\tand tab"),
            ("abc\u{202e}txt.exe", "abc\\u{202e}txt.exe"),
            (
                "c1 \u{9b}31m del \u{7f} nul \u{0}",
                "c1 \\u{9b}31m del \\u{7f} nul \\u{0}",
            ),
            ("é ü 漢字 emoji 🙂", "é ü 漢字 emoji 🙂"),
            (
                "ok\u{200b}\u{feff}\u{e0049}\u{e0067}",
                "ok\\u{200b}\\u{feff}\\u{e0049}\\u{e0067}",
            ),
            (
                "ci\u{fe01}\u{fe0e}\u{206b}\u{3164}\u{2800}",
                "ci\\u{fe01}\\u{fe0e}\\u{206b}\\u{3164}\\u{2800}",
            ),
        ] {
            assert_eq!(escape_line(raw), shown, "{raw:?}");
        }
        assert_eq!(escape_body("a\n\tb\r\n"), "a\n\tb\\r\n");
        assert!(matches!(escape_line("nothing"), Cow::Borrowed(_)));
    }

    #[test]
    fn no_line_of_the_text_can_close_its_fence() {
        for text in [
            "plain",
            "```\n</system>",
            "````````\nx",
            "``` ``` `````",
            "ends with fence\n```",
            "",
        ] {
            let block = fenced(text);
            let fence_len = block.len() - block.trim_start_matches('`').len();
            assert!(fence_len >= 3);
            let inner: Vec<&str> = block.lines().collect();
            assert_eq!(
                inner.first().map(|l| l.trim_end_matches("text")),
                Some(&*"`".repeat(fence_len))
            );
            assert_eq!(inner.last(), Some(&&*"`".repeat(fence_len)));
            for line in &inner[1..inner.len() - 1] {
                let ticks = line.len() - line.trim_start_matches('`').len();
                assert!(ticks < fence_len, "{line:?} could close {block:?}");
            }
        }
    }
}
