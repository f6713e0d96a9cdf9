//! Error signatures: an error line as it reads every time it recurs, with
//! what changes between recurrences taken out — ANSI colours, log prefixes
//! (glog's `E1203 12:00:00.123 1234 file.go:42]`, ISO timestamps, levels,
//! `svc-1 |`), `file:line` positions, paths, URLs, numbers, hex ids — and
//! SQL context lines (`LINE 3: …`, a caret line) dropped whole. Pure.
//!
//! A learning is indexed under the tails of its error lines (the last 3 to
//! [`MAX_WORDS`] words of each); a query looks up the tails of its own
//! lines. Matching on tails is what makes a prefix not matter, whatever log
//! framework wrote it: an error message ends its line. The posting carries
//! the share of the learning's line the tail covers, so the longest tail
//! that meets says how much of the learning's error the text repeats.

use super::tokenize;

/// Term prefix of a signature tail in the index.
pub const SIGNATURE: &str = "\u{1}s:";
/// Term prefix of one of a learning's error words in the index; its
/// posting carries one over the number of such words the learning has.
pub const WORD: &str = "\u{1}w:";
/// Fewer words than this are not a signature ("permission denied").
pub const MIN_WORDS: usize = 3;
/// A learning whose error has fewer distinct words than this is not
/// indexed by them: a question naming a program covers a short error.
pub const MIN_ERROR_TERMS: usize = 4;
/// Words every failure says, which tell no failure from another.
const GENERIC: &[&str] = &["cannot", "error", "fail", "fatal", "unable"];
/// A line's words beyond this many from its end are not looked at.
pub const MAX_WORDS: usize = 16;
/// Lines of a text looked at (a stack trace is long; its error is early or late).
const MAX_LINES: usize = 40;

/// One tail of a normalised error line: the index term and how many words
/// it holds, beside the number of words of the whole line.
#[derive(Debug, Clone, PartialEq)]
pub struct Tail {
    pub term: String,
    pub words: usize,
    pub line_words: usize,
}

/// The distinct terms of error lines as [`lines`] reads them, in the
/// tokeniser's form, without the words every failure says. A text that
/// repeats most of them repeats the error, in whatever order and framing it
/// prints it.
fn terms_of(lines: &[Vec<String>]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in lines {
        for term in tokenize::terms(&line.join(" ")) {
            if !out.contains(&term) && !GENERIC.contains(&term.as_str()) {
                out.push(term);
            }
        }
    }
    out
}

/// The normalised words of each error line of `text`, lines with fewer
/// than [`MIN_WORDS`] left out.
pub fn lines(text: &str) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    for line in text.lines().take(MAX_LINES) {
        let clean = super::logtext::strip_controls(line);
        // A Python frame (`File "/srv/a.py", line 3, in <module>`) says where, not what.
        let frame = clean.trim_start().starts_with("File \"")
            && clean
                .split_once(", line ")
                .and_then(|(_, rest)| rest.split_once(", in "))
                .is_some_and(|(_, name)| !name.trim().contains(' '));
        if frame || is_context_line(&clean) {
            continue;
        }
        let words = words(&clean);
        if words.len() >= MIN_WORDS && !out.contains(&words) && !is_trace_header(&words) {
            out.push(words);
        }
        // A closing parenthesis is a detail a tool's versions word
        // differently (`You must be logged in to the server (Unauthorized)`,
        // `… (the server has asked for the client to provide credentials)`):
        // the line without it is a signature too.
        if let Some(head) = without_closing_detail(&clean) {
            let words = self::words(head);
            if words.len() >= MIN_WORDS && !out.contains(&words) {
                out.push(words);
            }
        }
        // A message of several sentences is cut at a sentence when it is
        // reprinted (a log keeps its first two): each long sentence is a line.
        let sentences: Vec<&str> = clean.split(". ").collect();
        if sentences.len() > 1 {
            for sentence in sentences {
                let words = self::words(sentence);
                if words.len() >= MIN_SENTENCE_WORDS && !out.contains(&words) {
                    out.push(words);
                }
            }
        }
    }
    out
}

/// A line that ends in a parenthesis, without it: `None` when it does not,
/// or when nothing is left before it.
fn without_closing_detail(line: &str) -> Option<&str> {
    let line = line.trim_end().strip_suffix(')')?;
    let head = line[..line.rfind('(')?].trim_end();
    (!head.is_empty()).then_some(head)
}

/// A sentence of an error line is a signature of its own from this many words:
/// shorter ones ("Please try again") end many messages.
const MIN_SENTENCE_WORDS: usize = 6;

/// Every tail of every error line of `text` (the index side, and the query
/// side's lookups), each term once: where two lines share a tail, the first
/// line's.
pub fn tails(text: &str) -> Vec<Tail> {
    tails_of(&lines(text))
}

/// The terms a learning's error is indexed under, each with its posting's
/// share: every [`tails`] term (the share of its line it covers) and, for an
/// error of at least [`MIN_ERROR_TERMS`] distinct words, each of those words
/// ([`WORD`], one over their number). The lines are read once for both.
pub fn index_terms(error: &str) -> Vec<(String, f32)> {
    let lines = lines(error);
    let mut out: Vec<(String, f32)> = tails_of(&lines)
        .into_iter()
        .map(|t| {
            let share = t.words as f32 / t.line_words.max(1) as f32;
            (t.term, share)
        })
        .collect();
    let words = terms_of(&lines);
    if words.len() >= MIN_ERROR_TERMS {
        let share = 1.0 / words.len() as f32;
        out.extend(words.into_iter().map(|w| (format!("{WORD}{w}"), share)));
    }
    out
}

fn tails_of(lines: &[Vec<String>]) -> Vec<Tail> {
    let mut out: Vec<Tail> = Vec::new();
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    for words in lines {
        let start = words.len().saturating_sub(MAX_WORDS);
        let kept = &words[start..];
        for k in MIN_WORDS..=kept.len() {
            let term = format!("{SIGNATURE}{}", kept[kept.len() - k..].join(" "));
            if seen.insert(term.clone()) {
                out.push(Tail {
                    term,
                    words: k,
                    line_words: kept.len(),
                });
            }
        }
    }
    out
}

/// A line every stack trace of a language prints around its failure
/// (`Traceback (most recent call last):`, Python's chained-exception
/// separators, Go's `WARNING: DATA RACE`): it says a trace follows, not which
/// failure, so it is no signature however few learnings hold it.
fn is_trace_header(words: &[String]) -> bool {
    const HEADERS: &[&str] = &[
        "traceback most recent call last",
        "during handling of the above exception another exception occurred",
        "the above exception was the direct cause of the following exception",
        "warning data race",
        "exception in thread main",
    ];
    // Compared as the same words a line becomes (the tokeniser drops some).
    let line = words.join(" ");
    HEADERS
        .iter()
        .any(|h| line.ends_with(&self::words(h).join(" ")))
}

/// An SQL client's context around an error (`LINE 3: select …`, the caret
/// under it, `HINT:`-free query echoes): the user's query, not the failure.
fn is_context_line(line: &str) -> bool {
    let t = line.trim();
    if !t.is_empty() && t.chars().all(|c| c == '^' || c == '~' || c.is_whitespace()) {
        return true;
    }
    let upper = t.to_ascii_uppercase();
    upper.starts_with("LINE ")
        && upper[5..]
            .split(':')
            .next()
            .is_some_and(|n| !n.is_empty() && n.trim().chars().all(|c| c.is_ascii_digit()))
}

/// The words of one line that stay the same when the failure recurs:
/// pieces holding a path, URL or `file:line` position are dropped whole,
/// then the tokeniser's words without the ones that hold a digit
/// (timestamps, pids, ports, versions, glog's `E1203`).
fn words(line: &str) -> Vec<String> {
    let kept: Vec<&str> = line
        .split_whitespace()
        .filter(|piece| !is_location(piece))
        .collect();
    tokenize::phrase(&kept.join(" "))
        .split(' ')
        .filter(|w| !w.is_empty() && !w.bytes().any(|b| b.is_ascii_digit()))
        .map(str::to_string)
        .collect()
}

/// A path (`/srv/app/x.py`, `C:\x`), a URL, or a source position
/// (`main.go:42`, `foo.rs:3:9`).
fn is_location(piece: &str) -> bool {
    let p =
        piece.trim_matches(|c: char| matches!(c, '"' | '\'' | '`' | '(' | ')' | '[' | ']' | ','));
    if p.matches('/').count() >= 2 || p.contains('\\') || p.contains("://") {
        return true;
    }
    // name.ext:12 or name.ext:12:3, with a trailing colon or bracket.
    let mut parts = p.trim_end_matches([':', ']']).split(':');
    let file = parts.next().unwrap_or("");
    let numbers: Vec<&str> = parts.collect();
    !numbers.is_empty()
        && file.contains('.')
        && numbers
            .iter()
            .all(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str) -> String {
        lines(text).first().map(|w| w.join(" ")).unwrap_or_default()
    }

    #[test]
    fn log_prefixes_colours_and_positions_do_not_change_an_error_line() {
        let plain = line("ModuleNotFoundError: No module named 'yaml'");
        assert!(!plain.is_empty());
        for noisy in [
            "\u{1b}[1m\u{1b}[31mModuleNotFoundError\u{1b}[0m: No module named 'yaml'",
            "2025-02-20T07:49:03.813Z ERR ModuleNotFoundError: No module named 'yaml'",
            "E1203 12:00:00.123456   4321 loader.go:42] ModuleNotFoundError: No module named 'yaml'",
            "  File \"/srv/app/main.py\", line 3: ModuleNotFoundError: No module named 'yaml'",
        ] {
            let tails: Vec<String> = tails(noisy).into_iter().map(|t| t.term).collect();
            assert!(
                tails.contains(&format!("{SIGNATURE}{plain}")),
                "{noisy:?} has no tail {plain:?}: {tails:?}"
            );
        }
    }

    #[test]
    fn the_name_in_an_error_stays_part_of_it() {
        assert_ne!(
            line("No module named 'yaml'"),
            line("No module named 'cv2'")
        );
    }

    #[test]
    fn a_stack_traces_own_header_is_not_a_signature() {
        let sig = lines(
            "Traceback (most recent call last):\n  File \"/srv/a.py\", line 3, in <module>\nRecursionError: maximum recursion depth exceeded\n",
        );
        assert_eq!(sig.len(), 1, "{sig:?}");
        assert_eq!(
            sig[0].first().map(String::as_str),
            Some("recursionerror"),
            "{sig:?}"
        );
        assert!(lines("WARNING: DATA RACE\nWrite at 0x00c0 by goroutine 7:").len() <= 1);
        assert!(
            lines("During handling of the above exception, another exception occurred:").is_empty()
        );
    }

    #[test]
    fn sql_context_lines_and_short_lines_are_not_signatures() {
        let sig = lines(
            "ERROR:  column \"nmae\" does not exist\nLINE 1: select nmae from users;\n               ^\nexit 1",
        );
        assert_eq!(sig.len(), 1, "{sig:?}");
        assert!(sig[0].contains(&"column".to_string()));
    }

    #[test]
    fn a_long_sentence_of_an_error_line_is_a_signature_when_the_line_is_cut() {
        let stored = "ERROR: THE WHEELS DO NOT MATCH THE PINNED DIGESTS IN THE LOCK FILE. If you changed the pinned package versions, regenerate the lock file digests. Otherwise, check what changed.";
        let reprinted = "level=error msg=\"If you changed the pinned package versions, regenerate the lock file digests.\"";
        let stored: Vec<String> = tails(stored).into_iter().map(|t| t.term).collect();
        assert!(
            tails(reprinted)
                .iter()
                .any(|t| t.words >= 6 && stored.contains(&t.term)),
            "no shared sentence tail"
        );
        // A short sentence ("Try again.") is no signature of its own.
        let short = lines("Connection reset. Try again later please.");
        assert_eq!(short.len(), 1, "{short:?}");
    }

    #[test]
    fn a_closing_parenthesis_another_version_words_differently_is_left_out() {
        let stored = "error: You must be logged in to the server (Unauthorized)";
        let reprinted = "E0204 07:40:24.037232    9239 memcache.go:476] error: You must be logged in to the server (the server has asked for the client to provide credentials)";
        let stored: Vec<Tail> = tails(stored);
        let shared: Vec<&Tail> = tails(reprinted)
            .into_iter()
            .filter_map(|t| stored.iter().find(|s| s.term == t.term))
            .collect();
        // The whole line but the detail (its words as signatures keep them:
        // "error log server"): all of the stored line's head.
        assert!(shared.iter().any(|t| t.words == t.line_words), "{shared:?}");
        // Nothing is left before it, or too little: no signature of its own.
        assert_eq!(without_closing_detail("(exit 1)"), None);
        // "permission denied" alone is too short; the whole line stays.
        assert_eq!(lines("Permission denied (publickey)").len(), 1);
        assert_eq!(without_closing_detail("a (b) c"), None);
    }

    #[test]
    fn tails_run_from_three_words_to_the_whole_line() {
        let t = tails("fatal: refusing to merge unrelated histories");
        let words: Vec<usize> = t.iter().map(|t| t.words).collect();
        assert_eq!(words.first(), Some(&MIN_WORDS));
        assert_eq!(words.last(), Some(&t[0].line_words));
        assert!(t.iter().all(|x| x.term.starts_with(SIGNATURE)));
    }
}
