//! Makes untrusted markdown safe for a wiki: raw HTML (blocks and inline) is
//! escaped so it shows as text, and links or images whose URL scheme could run
//! code (`javascript:`, `data:`, …) are turned into inline code. Everything
//! else stays the markdown the author wrote. Not a general HTML sanitiser.

use pulldown_cmark::{Event, Options, Parser, Tag};
use std::ops::Range;

/// URL schemes a link may use; anything else with a scheme is defused.
const SAFE_SCHEMES: [&str; 5] = ["http", "https", "mailto", "ftp", "ftps"];

fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES
}

/// Returns `text` with raw HTML escaped and unsafe links defused.
///
/// If a first pass still leaves something unsafe (escaping can, in theory,
/// change how neighbouring text parses), the whole text is shown as a code
/// block instead: safe beats pretty.
pub fn sanitize_markdown(text: &str) -> String {
    let once = rewrite(text);
    if is_safe(&once) {
        return once;
    }
    code_block(text, "text")
}

/// True when `text` parses with no raw HTML and no unsafe link or image.
pub fn is_safe(text: &str) -> bool {
    Parser::new_ext(text, options()).all(|event| match event {
        Event::Html(_) | Event::InlineHtml(_) => false,
        Event::Start(Tag::Link { dest_url, .. }) | Event::Start(Tag::Image { dest_url, .. }) => {
            !is_dangerous_url(&dest_url)
        }
        _ => true,
    })
}

fn rewrite(text: &str) -> String {
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    for (event, range) in Parser::new_ext(text, options()).into_offset_iter() {
        let source = text.get(range.clone()).unwrap_or("");
        let replacement = match event {
            Event::Html(_) | Event::InlineHtml(_) => escape_html(source),
            Event::Start(Tag::Link { dest_url, .. })
            | Event::Start(Tag::Image { dest_url, .. })
                if is_dangerous_url(&dest_url) =>
            {
                inline_code(source)
            }
            _ => continue,
        };
        // Events come outer-first; an edit inside one already made is dropped.
        if edits.last().is_some_and(|(last, _)| range.start < last.end) {
            continue;
        }
        edits.push((range, replacement));
    }
    let mut out = String::with_capacity(text.len() + edits.len() * 8);
    let mut at = 0;
    for (range, replacement) in edits {
        out.push_str(text.get(at..range.start).unwrap_or(""));
        out.push_str(&replacement);
        at = range.end;
    }
    out.push_str(text.get(at..).unwrap_or(""));
    out
}

/// A URL with a scheme outside [`SAFE_SCHEMES`]; browsers ignore control
/// characters and whitespace inside a scheme, so those are dropped first.
pub fn is_dangerous_url(url: &str) -> bool {
    let squeezed: String = url
        .chars()
        .filter(|c| !c.is_whitespace() && !c.is_control())
        .collect::<String>()
        .to_ascii_lowercase();
    let Some((scheme, _)) = squeezed.split_once(':') else {
        return false;
    };
    let looks_like_scheme = scheme
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    // `./a:b` or `a/b:c` are relative paths, not schemes.
    looks_like_scheme && !SAFE_SCHEMES.contains(&scheme)
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Escapes text for use inside a markdown line (titles, keywords, link
/// texts): every markdown or HTML special character gets a backslash, line
/// breaks become spaces.
pub fn escape_inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' | '\r' | '\t' => out.push(' '),
            // Entities, not backslashes: the text `<script` never appears at all.
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\\' | '`' | '*' | '_' | '{' | '}' | '[' | ']' | '(' | ')' | '#' | '+' | '!' | '|'
            | '~' | '$' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// The longest run of backticks in `text`.
fn longest_backtick_run(text: &str) -> usize {
    let (mut longest, mut run) = (0, 0);
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}

/// `text` as a fenced code block whose fence no line of it can close.
pub fn code_block(text: &str, language: &str) -> String {
    let fence = "`".repeat((longest_backtick_run(text) + 1).max(3));
    let body = text.trim_end_matches(['\n', '\r']);
    format!("{fence}{language}\n{body}\n{fence}")
}

/// `text` as an inline code span on one line.
pub fn inline_code(text: &str) -> String {
    let one_line = text.replace(['\n', '\r'], " ");
    let fence = "`".repeat(longest_backtick_run(&one_line) + 1);
    let pad = if one_line.starts_with('`') || one_line.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{one_line}{pad}{fence}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_tags_never_survive_as_html() {
        for body in [
            "<script>alert(1)</script>",
            "before\n\n<script>\nalert(1)\n</script>\n\nafter",
            "inline <script>alert(1)</script> text",
            "<img src=x onerror=alert(1)>",
            "<div>\n<iframe src=\"https://evil\"></iframe>\n</div>",
            "<!-- hidden --><b>bold</b>",
            "* item <span onclick=x>y</span>",
        ] {
            let out = sanitize_markdown(body);
            assert!(is_safe(&out), "{body:?} -> {out:?}");
            assert!(!out.contains("<script"), "{out}");
            assert!(!out.contains("<img"), "{out}");
        }
    }

    #[test]
    fn dangerous_links_are_defused_and_safe_ones_kept() {
        let out = sanitize_markdown("[click](javascript:alert(1)) and ![i](data:text/html,x)");
        assert!(is_safe(&out), "{out}");
        assert!(out.contains('`'), "{out}");
        let out = sanitize_markdown("<javascript:alert(1)>");
        assert!(is_safe(&out), "{out}");
        let fine = "See [docs](https://example.com/a) and [rel](Other-Page).";
        assert_eq!(sanitize_markdown(fine), fine);
        assert!(is_dangerous_url(" JaVa\tScript:alert(1)"));
        assert!(!is_dangerous_url("Getting-Started"));
        assert!(!is_dangerous_url("./a:b"));
    }

    #[test]
    fn ordinary_markdown_is_left_as_written() {
        let text = "# Title\n\nSome *text* with `code < 3` and\n\n```sh\necho '<b>'\n```\n";
        assert_eq!(sanitize_markdown(text), text);
    }

    #[test]
    fn code_blocks_cannot_be_closed_by_their_content() {
        let block = code_block("a ``` b\n````\n", "sh");
        assert!(block.starts_with("`````sh\n"), "{block}");
        assert!(block.ends_with("\n`````"), "{block}");
        assert_eq!(inline_code("a`b"), "``a`b``");
    }

    #[test]
    fn inline_escaping_makes_text_inert() {
        let t = escape_inline("<b>[x](javascript:y)</b>\nnext");
        assert!(is_safe(&t), "{t}");
        assert!(!t.contains('\n'));
    }
}
