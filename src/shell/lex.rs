//! Quoting, read once: the lexer every other file of `shell/` scans command
//! lines with, and the quote pairs of text written for people.
//!
//! The shell lexer cuts a line into [`Token`]s: quoted spans (`'…'`, `"…"`
//! with any `$(…)` inside it, `` `…` ``), backslash escapes, blanks, the
//! chain operators and comments outside parentheses, and word material.
//! Parentheses are word material too, but the lexer counts their depth: no
//! operator or comment is found inside a subshell or a `$(…)`. It is the
//! bash of the lines agents run, read closely enough for our heuristics, not
//! a shell parser: no here-documents, no `case` patterns, no `$'…'`.
//!
//! Prose (error output, prompts) quotes differently: no escapes, curly
//! quotes, and a quote mark counts only when it is closed ([`prose_closer`],
//! [`closed_quote_len`]).

/// The three shell quotes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Quote {
    /// `'…'`: nothing inside is special.
    Single,
    /// `"…"`: backslash escapes; a `$(…)` inside is taken whole, so its own
    /// quotes do not close the string.
    Double,
    /// `` `…` ``: backslash escapes.
    Backtick,
}

/// The operator that joins a chain part to the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChainOp {
    /// `&&`: runs only if the previous part succeeded.
    And,
    /// `||`: runs only if the previous part failed.
    Or,
    /// `;`, a newline or a background `&`: runs regardless.
    Seq,
}

impl ChainOp {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            ChainOp::And => "&&",
            ChainOp::Or => "||",
            ChainOp::Seq => ";",
        }
    }
}

/// What a run of the input is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// A quoted span, quotes included; an unclosed one runs to the end.
    Quoted { quote: Quote, closed: bool },
    /// A backslash and the character after it (alone at the end of input).
    Escape,
    /// One unquoted ASCII whitespace byte that does not end a command.
    Blank,
    /// A chain operator outside parentheses: `&&`, `||`, `;`, a newline or a
    /// background `&` (not the `&` of `2>&1`, `&>` or `|&`).
    Op(ChainOp),
    /// `#` at a word start outside parentheses, to the end of its line (the
    /// newline excluded).
    Comment,
    /// Anything else: word material, parentheses, pipes and redirections.
    Other,
}

/// One run of the input: `line[start..end]`, always on character boundaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Token {
    pub kind: Kind,
    pub start: usize,
    pub end: usize,
}

/// The tokens of a command line, in order, covering every byte of it.
pub(super) struct Lexer<'a> {
    line: &'a str,
    at: usize,
    /// Parenthesis depth; a stray `)` leaves it at 0.
    depth: usize,
    /// Where the last operator ended: a `|` just before is that operator's.
    op_end: usize,
}

impl<'a> Lexer<'a> {
    pub(super) fn new(line: &'a str) -> Lexer<'a> {
        Lexer {
            line,
            at: 0,
            depth: 0,
            op_end: 0,
        }
    }
}

impl Iterator for Lexer<'_> {
    type Item = Token;

    fn next(&mut self) -> Option<Token> {
        let b = self.line.as_bytes();
        let start = self.at;
        let c = *b.get(start)?;
        if !is_special(c) {
            // Most of a line: word material up to the next special byte.
            let end = run_end(b, start, |c| !is_special(c));
            self.at = end;
            return Some(Token {
                kind: Kind::Other,
                start,
                end,
            });
        }
        let next = b.get(start + 1).copied();
        let (kind, end) = match c {
            b'\'' | b'"' | b'`' => {
                let quote = match c {
                    b'\'' => Quote::Single,
                    b'"' => Quote::Double,
                    _ => Quote::Backtick,
                };
                let (end, closed) = quote_end(b, start);
                (Kind::Quoted { quote, closed }, end)
            }
            b'\\' => (Kind::Escape, escape_end(self.line, start)),
            b'(' => {
                self.depth += 1;
                (Kind::Other, start + 1)
            }
            b')' => {
                self.depth = self.depth.saturating_sub(1);
                (Kind::Other, start + 1)
            }
            c if c.is_ascii_whitespace() && !(c == b'\n' && self.depth == 0) => {
                let depth = self.depth;
                let blank = |c: u8| c.is_ascii_whitespace() && !(c == b'\n' && depth == 0);
                (Kind::Blank, run_end(b, start, blank))
            }
            b'#' | b';' | b'&' | b'|' | b'\n' if self.depth > 0 => (Kind::Other, start + 1),
            b'#' if start == 0
                || b[start - 1].is_ascii_whitespace()
                || matches!(b[start - 1], b';' | b'&' | b'|') =>
            {
                let end = b[start..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(b.len(), |n| start + n);
                (Kind::Comment, end)
            }
            b'&' if next == Some(b'&') => (Kind::Op(ChainOp::And), start + 2),
            b'|' if next == Some(b'|') => (Kind::Op(ChainOp::Or), start + 2),
            b'&' if next == Some(b'>')
                || (start > self.op_end && matches!(b[start - 1], b'>' | b'<' | b'|')) =>
            {
                (Kind::Other, start + 1)
            }
            b'&' | b';' | b'\n' => (Kind::Op(ChainOp::Seq), start + 1),
            _ => (Kind::Other, start + 1),
        };
        if let Kind::Op(_) = kind {
            self.op_end = end;
        }
        self.at = end;
        Some(Token { kind, start, end })
    }
}

/// Bytes that may start a token of their own: quotes, a backslash,
/// parentheses, `#`, `;`, `&`, `|` and ASCII whitespace.
fn is_special(c: u8) -> bool {
    SPECIAL[usize::from(c)]
}

const SPECIAL: [bool; 256] = {
    let mut table = [false; 256];
    let special = b"'\"`\\()#;&| \t\n\r\x0c";
    let mut i = 0;
    while i < special.len() {
        table[special[i] as usize] = true;
        i += 1;
    }
    table
};

/// The end of the run of bytes from `start` that `keep` accepts.
fn run_end(b: &[u8], start: usize, keep: impl Fn(u8) -> bool) -> usize {
    b[start..]
        .iter()
        .position(|&c| !keep(c))
        .map_or(b.len(), |n| start + n)
}

/// Just past a backslash escape at `at`: the escaped character is whole.
fn escape_end(line: &str, at: usize) -> usize {
    let escaped = line
        .get(at + 1..)
        .and_then(|rest| rest.chars().next())
        .map_or(0, char::len_utf8);
    at + 1 + escaped
}

/// Just past the quoted span opening at `open`, and whether it closed.
fn quote_end(b: &[u8], open: usize) -> (usize, bool) {
    match b[open] {
        b'\'' => single_end(b, open),
        b'`' => backtick_end(b, open),
        _ => double_end(b, open),
    }
}

fn single_end(b: &[u8], open: usize) -> (usize, bool) {
    match b[open + 1..].iter().position(|&c| c == b'\'') {
        Some(n) => (open + n + 2, true),
        None => (b.len(), false),
    }
}

fn backtick_end(b: &[u8], open: usize) -> (usize, bool) {
    let mut i = open + 1;
    while let Some(&c) = b.get(i) {
        match c {
            b'\\' => i += 2,
            b'`' => return (i + 1, true),
            _ => i += 1,
        }
    }
    (b.len(), false)
}

/// A double-quoted string, with the `$(…)` groups inside it and the quotes
/// and groups inside those: what is open is kept on a stack, so any nesting
/// is read without recursion (a hostile command line cannot overflow ours).
fn double_end(b: &[u8], open: usize) -> (usize, bool) {
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Frame {
        Double,
        Paren,
    }
    // Frames below the current one; empty for a string without `$(`.
    let mut below: Vec<Frame> = Vec::new();
    let mut frame = Frame::Double;
    let mut i = open + 1;
    while let Some(&c) = b.get(i) {
        match (frame, c) {
            (_, b'\\') => {
                i += 2;
                continue;
            }
            (Frame::Double, b'"') | (Frame::Paren, b')') => match below.pop() {
                Some(f) => frame = f,
                None => return (i + 1, true),
            },
            (Frame::Double, b'$') if b.get(i + 1) == Some(&b'(') => {
                below.push(frame);
                frame = Frame::Paren;
                i += 2;
                continue;
            }
            (Frame::Paren, b'(') => below.push(Frame::Paren),
            (Frame::Paren, b'"') => {
                below.push(frame);
                frame = Frame::Double;
            }
            (Frame::Paren, b'\'') => {
                i = single_end(b, i).0;
                continue;
            }
            (Frame::Paren, b'`') => {
                i = backtick_end(b, i).0;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    (b.len(), false)
}

/// Words of a simple command as written (quotes kept), split at unquoted
/// blanks.
pub(super) fn raw_words(cmd: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut word: Option<(usize, usize)> = None;
    for t in Lexer::new(cmd) {
        match t.kind {
            Kind::Blank | Kind::Op(_) | Kind::Comment => {
                if let Some((s, e)) = word.take() {
                    out.push(&cmd[s..e]);
                }
            }
            _ => word = Some((word.map_or(t.start, |(s, _)| s), t.end)),
        }
    }
    if let Some((s, e)) = word {
        out.push(&cmd[s..e]);
    }
    out
}

/// Words of a simple command as the program receives them: quotes removed,
/// backslash escapes resolved (a backslash-newline is a line continuation).
/// Backticks are kept as written.
pub(super) fn words(cmd: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut has = false;
    for t in Lexer::new(cmd) {
        let text = &cmd[t.start..t.end];
        match t.kind {
            Kind::Blank | Kind::Op(_) | Kind::Comment => {
                if has {
                    out.push(std::mem::take(&mut cur));
                    has = false;
                }
                continue;
            }
            Kind::Quoted { quote, closed } => {
                let inner = &text[1..text.len() - usize::from(closed)];
                match quote {
                    Quote::Single => cur.push_str(inner),
                    Quote::Double => push_unescaped(&mut cur, inner),
                    Quote::Backtick => cur.push_str(text),
                }
            }
            Kind::Escape => {
                let escaped = &text[1..];
                if escaped != "\n" {
                    cur.push_str(escaped);
                }
            }
            Kind::Other => cur.push_str(text),
        }
        has = true;
    }
    if has {
        out.push(cur);
    }
    out
}

/// Inside double quotes: a backslash stands for the character after it.
fn push_unescaped(out: &mut String, inner: &str) {
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
}

/// `NAME=value`, a variable assignment before (or, for `env`, inside) a command.
pub(super) fn is_assignment(word: &str) -> bool {
    let Some((name, _)) = word.split_once('=') else {
        return false;
    };
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The quote pairs of prose, in the order a correction prefers them.
pub(super) const PROSE_QUOTES: [(char, char); 5] =
    [('`', '`'), ('"', '"'), ('\'', '\''), ('“', '”'), ('‘', '’')];

/// The closing mark of a prose quote that opens with `c`.
pub(super) fn prose_closer(c: char) -> Option<char> {
    PROSE_QUOTES
        .iter()
        .find_map(|&(open, close)| (open == c).then_some(close))
}

/// Length of the quoted span `text` opens with (`open`, then up to the first
/// `close`), or `None` when it never closes.
pub(super) fn closed_quote_len(text: &str, open: char, close: char) -> Option<usize> {
    let from = open.len_utf8();
    let n = text.get(from..)?.find(close)?;
    Some(from + n + close.len_utf8())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(line: &str) -> Vec<(Kind, &str)> {
        Lexer::new(line)
            .map(|t| (t.kind, &line[t.start..t.end]))
            .collect()
    }

    #[test]
    fn tokens_cover_the_line_and_keep_quotes_whole() {
        let lines = [
            "echo 'a && b' && ls",
            r#"git commit -m "$(cat <<'EOF'
it is "done"
EOF
)" && git push"#,
            "make 2>&1 | tee log &> out & sleep 1",
            "a \\\n b # c; d\n(e; f) `g; h`",
            "caf\u{e9} \\\u{e9}t\u{e9} \"\\",
        ];
        for line in lines {
            let mut at = 0;
            for t in Lexer::new(line) {
                assert_eq!(t.start, at, "{line:?}");
                assert!(t.end > t.start, "{line:?}");
                at = t.end;
            }
            assert_eq!(at, line.len(), "{line:?}");
        }
        let heredoc = kinds(lines[1]);
        assert!(
            heredoc.iter().any(|(k, text)| matches!(
                k,
                Kind::Quoted {
                    quote: Quote::Double,
                    closed: true
                }
            ) && text.ends_with(")\"")),
            "{heredoc:?}"
        );
        let ops: Vec<_> = heredoc
            .iter()
            .filter(|(k, _)| matches!(k, Kind::Op(_)))
            .collect();
        assert_eq!(ops, [&(Kind::Op(ChainOp::And), "&&")]);
    }

    #[test]
    fn operators_redirections_and_comments() {
        fn ops(line: &str) -> Vec<&str> {
            kinds(line)
                .into_iter()
                .filter(|(k, _)| matches!(k, Kind::Op(_) | Kind::Comment))
                .map(|(_, text)| text)
                .collect()
        }
        assert_eq!(
            ops("make 2>&1 | tee log &> out & sleep 1"),
            ["&"],
            "2>&1 and &> redirect"
        );
        assert_eq!(ops("a |& b"), Vec::<&str>::new());
        assert_eq!(ops("a ||& b"), ["||", "&"], "`&` after `||` is its own");
        assert_eq!(ops("a # c; d\nb"), ["# c; d", "\n"]);
        assert_eq!(ops("a#b"), Vec::<&str>::new(), "`#` inside a word");
        assert_eq!(ops("(a; b # c) ; d"), [";"], "nothing inside parentheses");
        assert_eq!(ops("a ) ; b"), [";"], "a stray `)` is word material");
    }

    #[test]
    fn unclosed_quotes_run_to_the_end() {
        for (line, quote) in [
            ("echo 'abc", Quote::Single),
            ("echo \"a\\\"", Quote::Double),
            ("echo \"$(a \")\"", Quote::Double),
            ("echo `a", Quote::Backtick),
        ] {
            let last = Lexer::new(line).last().expect("a token");
            assert_eq!(
                (last.kind, last.end),
                (
                    Kind::Quoted {
                        quote,
                        closed: false
                    },
                    line.len()
                ),
                "{line:?}"
            );
        }
    }

    #[test]
    fn deep_nesting_does_not_recurse() {
        let line = "\"$(".repeat(200_000);
        let t = Lexer::new(&line).next().expect("a token");
        assert_eq!(t.end, line.len());
    }

    #[test]
    fn words_cooked_and_raw() {
        let cases: &[(&str, &[&str], &[&str])] = &[
            (
                "git  push\t-f",
                &["git", "push", "-f"],
                &["git", "push", "-f"],
            ),
            (
                r#"echo 'a  b' "c \" d" e\ f"#,
                &["echo", "a  b", "c \" d", "e f"],
                &["echo", "'a  b'", r#""c \" d""#, r"e\ f"],
            ),
            ("a \\\n b", &["a", "", "b"], &["a", "\\\n", "b"]),
            ("''", &[""], &["''"]),
            ("x=`date  +%s`", &["x=`date  +%s`"], &["x=`date  +%s`"]),
            (
                r#"say "$(echo "a  b")""#,
                &["say", r#"$(echo "a  b")"#],
                &["say", r#""$(echo "a  b")""#],
            ),
            ("\\", &[""], &["\\"]),
        ];
        for (cmd, cooked, raw) in cases {
            assert_eq!(words(cmd), *cooked, "words({cmd:?})");
            assert_eq!(raw_words(cmd), *raw, "raw_words({cmd:?})");
        }
    }

    #[test]
    fn prose_quotes_count_only_when_closed() {
        assert_eq!(prose_closer('“'), Some('”'));
        assert_eq!(prose_closer('x'), None);
        assert_eq!(closed_quote_len("'ab' c", '\'', '\''), Some(4));
        assert_eq!(closed_quote_len("“ab” c", '“', '”'), Some(8));
        assert_eq!(closed_quote_len("'ab c", '\'', '\''), None);
    }
}
