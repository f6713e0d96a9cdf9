//! The tokeniser: one function turns a learning's fields, a query and a KG
//! synonym into the same terms, so they meet. Lower case, split on anything
//! that is not a letter or digit, compounds kept whole beside their parts
//! (`force-with-lease`, `package-lock.json`), stop words and noise dropped,
//! and a light suffix stemmer so "pushing", "pushed" and "pushes" agree.
//!
//! Noise is what changes every time a failure recurs and so can only hurt a
//! match: commit and container ids (hex runs), uuids, long numbers. Short
//! numbers stay (ports, exit and HTTP codes, `E0599`).

/// Words that carry no meaning in an error message or a question.
const STOP: &[&str] = &[
    "a", "about", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as", "at",
    "be", "been", "before", "being", "but", "by", "can", "could", "did", "do", "does", "doing",
    "each", "even", "for", "from", "get", "gets", "getting", "got", "had", "has", "have", "having",
    "he", "her", "here", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself",
    "just", "keep", "let", "me", "might", "more", "most", "much", "must", "my", "now", "of", "off",
    "on", "once", "only", "onto", "or", "other", "our", "out", "over", "own", "please", "same",
    "she", "should", "so", "some", "still", "such", "than", "that", "the", "their", "them", "then",
    "there", "these", "they", "this", "those", "through", "to", "too", "try", "up", "us", "very",
    "want", "was", "way", "we", "were", "what", "when", "where", "which", "while", "who", "why",
    "will", "with", "would", "you", "your",
];

fn is_stop(word: &str) -> bool {
    // No stop word is longer than "through": most words skip the search.
    word.len() <= 7 && STOP.binary_search(&word).is_ok()
}

/// The terms of `text`, in order (duplicates kept: they are term frequencies).
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    walk(text, false, |t, _, _, _| out.push(t));
    out
}

/// [`terms`] and [`phrase`] of one text from one pass: the index needs both
/// of every field, and tokenising is most of what indexing a learning costs.
pub fn terms_and_phrase(text: &str) -> (Vec<String>, String) {
    let mut terms = Vec::new();
    let mut phrase = String::new();
    walk(text, false, |t, _, _, compound| {
        if !compound {
            if !phrase.is_empty() {
                phrase.push(' ');
            }
            phrase.push_str(&t);
        }
        terms.push(t);
    });
    (terms, phrase)
}

/// One term of a query, with what it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryTerm {
    pub term: String,
    /// The word of the text, for saying which words matched.
    pub word: String,
    /// It came from a directory of a path (`/home/runner/work/…/mod.rs`
    /// gives `home`, `runner`, `work`): the part of an error that names
    /// this machine and checkout, and so changes every time it recurs.
    pub in_dir: bool,
}

/// The terms of `text` with the word each came from.
pub fn query_terms(text: &str) -> Vec<QueryTerm> {
    let mut out = Vec::new();
    walk(text, true, |term, word, in_dir, _| {
        out.push(QueryTerm {
            term,
            word: word.to_string(),
            in_dir,
        })
    });
    out
}

/// Calls `f` with each term of `text`, the word it came from, whether
/// that word is a directory of a path (looked for only when `dirs`: the
/// index's own terms never need it), and whether the term is a compound
/// (which [`phrase`] leaves out).
fn walk(text: &str, dirs: bool, mut f: impl FnMut(String, &str, bool, bool)) {
    for chunk in chunks(text) {
        let lower = chunk.to_lowercase();
        let parts = parts(&lower);
        if parts.len() > 1
            && let Some(t) = compound(&lower)
        {
            f(t, &lower, false, true);
        }
        let dirs = if dirs { dir_words(&lower) } else { 0 };
        for (i, p) in parts.into_iter().enumerate() {
            if let Some(t) = term(p) {
                f(t, p, i < dirs, false);
            }
        }
    }
}

/// How many of a chunk's alphanumeric runs are directories of a path: all
/// before its last `/` when it has at least two (`app/models/user.py`,
/// `/var/run/docker.sock`); none for `feature/x` or a plain word.
fn dir_words(chunk: &str) -> usize {
    if chunk.matches('/').count() < 2 {
        return 0;
    }
    chunk
        .rsplit_once('/')
        .map_or(0, |(dirs, _)| each_part(dirs).count())
}

/// The words of `text` as the KG matcher sees them: every alphanumeric part,
/// stemmed, stop words and noise kept out, joined by single spaces. The same
/// function normalises synonyms, so "Permission denied (publickey)" and
/// "permission denied: publickey" meet.
pub fn phrase(text: &str) -> String {
    let mut out = String::new();
    for chunk in chunks(text) {
        let lower = chunk.to_lowercase();
        for p in parts(&lower) {
            if let Some(t) = term(p) {
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(&t);
            }
        }
    }
    out
}

/// Whitespace-separated pieces, with the punctuation that cannot be inside a
/// compound stripped from their ends.
fn chunks(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '(' | ')'
                    | '['
                    | ']'
                    | '{'
                    | '}'
                    | '"'
                    | '\''
                    | '`'
                    | ','
                    | ';'
                    | '<'
                    | '>'
                    | '|'
                    | '='
            )
    })
    .map(|c| c.trim_matches(|c: char| !c.is_alphanumeric()))
    .filter(|c| !c.is_empty())
}

/// The alphanumeric runs of a chunk.
fn parts(chunk: &str) -> Vec<&str> {
    each_part(chunk).collect()
}

/// [`parts`], one at a time.
fn each_part(chunk: &str) -> impl Iterator<Item = &str> {
    chunk
        .split(|c: char| !c.is_alphanumeric())
        .filter(|p| !p.is_empty())
}

/// A chunk joined by `-`, `_` or `.` is also a term of its own
/// (`force-with-lease`, `err_require_esm`, `package-lock.json`); a path or a
/// URL is not (its parts are the terms).
fn compound(chunk: &str) -> Option<String> {
    if chunk.contains('/') || chunk.contains(':') || chunk.contains('\\') || chunk.len() > 40 {
        return None;
    }
    let joined = chunk.trim_matches(|c: char| !c.is_alphanumeric());
    if joined.is_empty() || !joined.contains(['-', '_', '.']) || is_noise(joined) {
        return None;
    }
    if joined
        .chars()
        .any(|c| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return None;
    }
    // Version numbers (`1.2.3`, `v0.9.102`) change between recurrences.
    if joined
        .trim_start_matches('v')
        .chars()
        .all(|c| c.is_ascii_digit() || c == '.')
    {
        return None;
    }
    Some(joined.to_string())
}

/// One alphanumeric run as a term, or `None` for a stop word or noise.
fn term(part: &str) -> Option<String> {
    if part.chars().count() < 2 || is_stop(part) || is_noise(part) {
        return None;
    }
    Some(stem(part))
}

/// Ids and long numbers: different every time the same failure recurs.
fn is_noise(word: &str) -> bool {
    let digits = word.chars().filter(|c| c.is_ascii_digit()).count();
    let len = word.chars().count();
    if digits == len {
        return len > 4;
    }
    let hex = word.chars().all(|c| c.is_ascii_hexdigit() || c == '-');
    hex && digits > 0 && len >= 7
}

/// A light suffix stemmer for English in technical text: plurals, `-ing`,
/// `-ed` and a final `-e`, with the doubled consonant of "running" undone.
/// Deliberately weaker than Porter: `docker`, `builder`, `cluster` stay whole.
pub fn stem(word: &str) -> String {
    if !word.is_ascii() || word.len() <= 3 || word.bytes().any(|b| b.is_ascii_digit()) {
        return word.to_string();
    }
    let mut w = word.to_string();
    if let Some(base) = w.strip_suffix("ies").filter(|b| b.len() >= 2) {
        w = format!("{base}y");
    } else if let Some(base) = w.strip_suffix("sses") {
        w = format!("{base}ss");
    } else if w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is") {
        w.pop();
    }
    for suffix in ["ing", "ed"] {
        if let Some(base) = w.strip_suffix(suffix)
            && base.len() >= 3
            && base.bytes().any(is_vowel)
        {
            w = undouble(base);
            break;
        }
    }
    if w.len() > 4 && w.ends_with('e') {
        w.pop();
    }
    w
}

fn is_vowel(b: u8) -> bool {
    matches!(b, b'a' | b'e' | b'i' | b'o' | b'u' | b'y')
}

/// `runn` → `run`, `stopp` → `stop`; `pull`, `pass`, `fizz` keep theirs.
fn undouble(base: &str) -> String {
    let b = base.as_bytes();
    let n = b.len();
    if n >= 2
        && b[n - 1] == b[n - 2]
        && !matches!(b[n - 1], b'l' | b's' | b'z')
        && !is_vowel(b[n - 1])
    {
        return base[..n - 1].to_string();
    }
    base.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        let mut sorted = STOP.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, STOP);
        assert!(
            STOP.iter().all(|w| w.len() <= 7),
            "is_stop skips longer words"
        );
    }

    #[test]
    fn inflections_meet() {
        for group in [
            ["push", "pushes", "pushed", "pushing"],
            ["rebase", "rebases", "rebased", "rebasing"],
            ["run", "runs", "running", "runs"],
            ["dependency", "dependencies", "dependency", "dependencies"],
        ] {
            let stems: Vec<String> = group.iter().map(|w| stem(w)).collect();
            assert!(
                stems.iter().all(|s| s == &stems[0]),
                "{group:?} -> {stems:?}"
            );
        }
        assert_eq!(stem("docker"), "docker");
        assert_eq!(stem("pull"), "pull");
        assert_eq!(stem("status"), "status");
        assert_eq!(stem("access"), "access");
    }

    #[test]
    fn errors_keep_their_meaning_and_lose_their_noise() {
        let t = terms(
            "error: pathspec 'feature/x' did not match; commit 3f2a9c1d4e5f in /home/dev/shop port 5432 pid 123456",
        );
        assert!(t.contains(&"pathspec".to_string()), "{t:?}");
        assert!(t.contains(&stem("feature")));
        assert!(t.contains(&"5432".to_string()), "short numbers stay");
        assert!(
            !t.iter().any(|x| x.contains("3f2a9c1")),
            "hex ids go: {t:?}"
        );
        assert!(!t.contains(&"123456".to_string()), "long numbers go");
        assert!(!t.contains(&"the".to_string()) && !t.contains(&"in".to_string()));
    }

    #[test]
    fn compounds_are_terms_beside_their_parts() {
        let t = terms("use git push --force-with-lease and package-lock.json");
        for want in [
            "force-with-lease",
            "force",
            "lease",
            "package-lock.json",
            "package",
            "lock",
            "json",
        ] {
            let want = if want.contains(['-', '.']) {
                want.to_string()
            } else {
                stem(want)
            };
            assert!(t.contains(&want), "{want} missing from {t:?}");
        }
        assert!(
            !terms("https://example.com/a-b/c")
                .iter()
                .any(|x| x.contains('/'))
        );
        assert!(
            !terms("v0.9.102").iter().any(|x| x.contains('.')),
            "versions are not compounds"
        );
    }

    #[test]
    fn a_paths_directories_are_marked() {
        let dirs = |text: &str| -> Vec<String> {
            query_terms(text)
                .into_iter()
                .filter(|q| q.in_dir)
                .map(|q| q.word)
                .collect()
        };
        assert_eq!(
            dirs("Diff in /home/runner/work/shop/src/main.rs at line 12"),
            ["home", "runner", "work", "shop", "src"]
        );
        assert_eq!(dirs("unix:///var/run/docker.sock"), ["unix", "var", "run"]);
        assert!(
            dirs("git push origin feature/cart-totals").is_empty(),
            "a branch name is not a checkout: {:?}",
            dirs("git push origin feature/cart-totals")
        );
        assert!(dirs("permission denied").is_empty());
    }

    #[test]
    fn phrases_normalise_punctuation_and_case() {
        assert_eq!(
            phrase("Permission denied (publickey)."),
            phrase("permission denied: publickey")
        );
        assert_eq!(phrase("The CONFLICT (content)"), "conflict content");
    }

    proptest! {
        #[test]
        fn tokenising_never_panics_and_terms_are_clean(s in "\\PC{0,200}") {
            for t in terms(&s) {
                prop_assert!(!t.is_empty());
                prop_assert!(!t.chars().any(char::is_whitespace));
                prop_assert_eq!(t.to_lowercase(), t.clone());
            }
            let _ = phrase(&s);
            let _ = query_terms(&s);
        }

        #[test]
        fn one_pass_gives_the_terms_and_the_phrase(
            s in "(\\PC{0,20}|force-with-lease|/home/runner/x.rs|Pushing|the|a1b2c3d4e5| |\n){0,12}"
        ) {
            prop_assert_eq!(terms_and_phrase(&s), (terms(&s), phrase(&s)));
        }

        #[test]
        fn query_terms_agree_with_terms(s in "[a-zA-Z0-9 ./_:-]{0,120}") {
            let plain = terms(&s);
            let with: Vec<String> = query_terms(&s).into_iter().map(|q| q.term).collect();
            prop_assert_eq!(plain, with);
        }

        #[test]
        fn a_stem_is_never_empty_nor_longer_than_its_word(w in "[a-z]{2,12}") {
            let s = stem(&w);
            prop_assert!(!s.is_empty());
            prop_assert!(s.len() <= w.len(), "{} -> {}", w, s);
        }
    }
}
