//! A secret that a sentence or a label names, with its value further along the sentence
//! or on the lines below rather than after a separator of its own: `the password is X`,
//! `master password for the ops database: X`, `Recovery Key:` over an indented value,
//! `which key is it using?` answered by a chat line, `os.environ['X_TOKEN']` over a
//! REPL's `Out[3]: '…'`, a comment that says token over the line that holds it, and
//! the cells of a table column whose header names a secret (`column_below`).
//!
//! Only words say "secret" here, so the value must look machine-made: random by the
//! strict test, a generated passphrase where the word says password, or a code printed
//! in groups (`jfpn-ojcn-ywou-kypy`, `uaqc dkwx oyvk c4sv`) under a label. Public
//! material is let through by the resolver, as for every finding below `SPECIFIC`.

use super::{DENY_KEY_BEFORE, DENY_TOKEN_BEFORE, Family, Found, one_of};
use crate::redact::context::Hit;
use crate::redact::text::{
    Need, at, escaped_quote, find_ci, has_alpha, has_digit, has_lower, has_upper, is_passphrase,
    is_spaced_passphrase, is_stop_word, is_uuid, line_end, line_start, looks_like_word_list,
    plausible, random_alnum, skip_blanks,
};

/// Words a sentence may put between the secret's name and its value.
const MAX_GAP_WORDS: usize = 10;
/// How far along its line a sentence's value may stand.
const REACH: usize = 160;
/// Words after the name that make a phrase about the secret, not the secret: `key id`,
/// `token expired`, `password policy`.
const ABOUT_THE_SECRET: &[&[u8]] = &[
    b"id",
    b"ids",
    b"fingerprint",
    b"hash",
    b"digest",
    b"name",
    b"names",
    b"file",
    b"path",
    b"type",
    b"length",
    b"size",
    b"format",
    b"expired",
    b"expires",
    b"expiry",
    b"rotation",
    b"policy",
    b"prompt",
    b"env",
    b"variable",
    b"header",
    b"field",
    b"param",
    b"store",
    b"manager",
    b"vault",
    b"reset",
    b"change",
    b"changed",
    b"hint",
    b"requirements",
];
/// Lines below a label (blank ones included) its value may stand on.
const LINES_BELOW: usize = 3;

/// The value a sentence or a label around the key at `ks..ke` names.
pub(super) fn labelled(
    b: &[u8],
    ks: usize,
    ke: usize,
    family: Family,
    kind: &'static str,
) -> Option<Found> {
    let found = |(start, end): (usize, usize)| Found {
        kind,
        start,
        end,
        direct: false,
    };
    // `the key for staging is <random>`, `A chave da API … é <random>`: after an article
    // the name may be a sort key's or a page token's, so only a value that is random in
    // every class (not a word, an id or a digest) makes it a secret's.
    let public = qualified_public(b, ks, ke, family);
    if public
        && matches!(family, Family::Key | Family::Token)
        && one_of(
            last_word(b[line_start(b, ks)..ks].trim_ascii_end()),
            &[b"the", b"a", b"this"],
        )
        && !on_prompt_line(b, ks)
    {
        return along_sentence(b, ke, family)
            .filter(|&(vs, ve)| {
                let v = &b[vs..ve];
                has_upper(v) && has_lower(v) && random_alnum(v, 20)
            })
            .map(found);
    }
    if !matches!(
        family,
        Family::Password | Family::Token | Family::Secret | Family::Key | Family::Credential
    ) || public
        // `private.key`, `/etc/ssl/key`: a file's name, not a label.
        || ks > 0 && matches!(b[ks - 1], b'/' | b'\\' | b'.')
        || on_prompt_line(b, ks)
    {
        return None;
    }
    // Prose names a secret in a word of its own (`password`, `Token`); a name in code
    // (`API_KEY`, `applicationServerKey`) has its assignment's rules, and only a REPL's
    // answer below it counts here.
    // A comment is prose, whatever the name in it: `# HARBOR_SECRET was …`.
    let in_comment = {
        let head = b[line_start(b, ks)..ks].trim_ascii_start();
        head.starts_with(b"#") || head.starts_with(b"//")
    };
    if !plain_word(&b[ks..ke]) && !in_comment {
        return below_repl(b, ke, family).map(found);
    }
    if let Some(range) = along_sentence(b, ke, family).or_else(|| aligned(b, ks, ke, family)) {
        return Some(found(range));
    }
    below(b, ks, ke, family).map(found)
}

/// `Access Token     00D…!AQ…`: a CLI's table of labels and values lined up in
/// columns (`sf org display`, `kubectl describe`), the label opening its line in a few
/// words and the value alone after a run of blanks.
fn aligned(b: &[u8], ks: usize, ke: usize, family: Family) -> Option<(usize, usize)> {
    let ls = line_start(b, ks);
    let end = line_end(b, ke, REACH + 512);
    let line = &b[ls..end];
    let indent = line.iter().take_while(|&&c| c == b' ').count();
    // The label runs to the first run of two blanks or a tab.
    let label_end = (indent..line.len())
        .find(|&i| line[i] == b'\t' || line[i..].starts_with(b"  "))
        .map(|i| ls + i)?;
    let label = &b[ls + indent..label_end];
    let words = label.split(|&c| c == b' ');
    if ke > label_end || words.clone().count() > 3 || !words.clone().all(plain_word) {
        return None;
    }
    let vs = label_end
        + b[label_end..end]
            .iter()
            .take_while(|&&c| c == b' ' || c == b'\t')
            .count();
    let (vs, ve) = value_token(b, vs, end)?;
    let alone = b[ve..end].trim_ascii().is_empty();
    (alone && machine_made(&b[vs..ve], family)).then_some((vs, ve))
}

/// Most rows of a table read under its header.
const MAX_ROWS: usize = 24;

/// A table whose header names a secret column: CSV, TSV, a Markdown or `psql` table, or
/// a `SELECT a, token FROM …` over rows split by `|` (sqlite). The first row's cell in
/// that column that pass the value test, into `out`.
pub(super) fn column_below(
    b: &[u8],
    ks: usize,
    ke: usize,
    (family, kind): (Family, &'static str),
    out: &mut Vec<Hit>,
) {
    if !header_word(&b[ks..ke]) && !cell_name(&b[ks..ke]) {
        return;
    }
    let ls = line_start(b, ks);
    let le = line_end(b, ke, 1024);
    let header = &b[ls..le];
    let Some((sep, column)) = header_column(header, ks - ls, ke - ls) else {
        return;
    };
    let mut i = le;
    for _ in 0..MAX_ROWS {
        i += usize::from(at(b, i) == Some(b'\r'));
        if at(b, i) != Some(b'\n') {
            return;
        }
        let s = i + 1;
        let e = line_end(b, s, 2048);
        i = e;
        let row = &b[s..e];
        if row.trim_ascii().is_empty() {
            return;
        }
        // `|---|---|`, `----+----`: a rule, not a row.
        if row
            .iter()
            .all(|c| matches!(c, b'-' | b'|' | b'+' | b':' | b' ' | b'='))
        {
            continue;
        }
        let Some((cs, ce)) = cell(row, sep, column) else {
            continue;
        };
        let (cs, ce) = unquote(row, cs, ce);
        let v = &row[cs..ce];
        let need = if family == Family::Password {
            Need::Password
        } else {
            Need::Token
        };
        let chosen = v.len() >= 6
            && !v.contains(&b' ')
            && plausible(v, need)
            && (family != Family::Password || v.iter().any(|c| !c.is_ascii_lowercase()));
        if chosen {
            out.push((kind, s + cs, s + ce));
        }
    }
}

/// The separator of a header line and the index of the column starting at `k`, when the
/// line is a header: the name at `k..kend` is a whole cell, and there are at least three.
fn header_column(header: &[u8], k: usize, kend: usize) -> Option<(u8, usize)> {
    if let Some(sel) = find_ci(&header[..k], b"select ")
        && let Some(from) = find_ci(&header[k..], b" from ")
    {
        let list = &header[sel + 7..k + from];
        let column = header[sel + 7..k].iter().filter(|&&c| c == b',').count();
        return (list.iter().filter(|&&c| c == b',').count() >= 2).then_some((b'|', column));
    }
    for sep in [b',', b'\t', b'|', b';'] {
        if header.iter().filter(|&&c| c == sep).count() < 2 {
            continue;
        }
        let column = header[..k].iter().filter(|&&c| c == sep).count();
        // The name is the whole cell (`password`, not `old password hint`).
        let name = &header[k..kend];
        if cell(header, sep, column) == Some((k, kend)) && (header_word(name) || cell_name(name)) {
            return Some((sep, column));
        }
    }
    None
}

/// The byte range of cell `n` of a row split by `sep`, blanks trimmed.
fn cell(row: &[u8], sep: u8, n: usize) -> Option<(usize, usize)> {
    let mut start = 0;
    for (i, part) in row.split(|&c| c == sep).enumerate() {
        if i == n {
            let lead = part.len() - part.trim_ascii_start().len();
            let t = part.trim_ascii();
            return Some((start + lead, start + lead + t.len()));
        }
        start += part.len() + 1;
    }
    None
}

/// A cell's value without the quotes or backticks around it.
fn unquote(row: &[u8], s: usize, e: usize) -> (usize, usize) {
    if e >= s + 2 && matches!(row[s], b'"' | b'\'' | b'`') && row[e - 1] == row[s] {
        (s + 1, e - 1)
    } else {
        (s, e)
    }
}

/// `Secret access key`, `Access Token`: two to four plain words, one blank between
/// them, naming a column. Whether they name a secret is `classify_key`'s to say (`old
/// password hint` names none).
pub(super) fn cell_name(w: &[u8]) -> bool {
    let words = w.split(|&c| c == b' ');
    (2..=4).contains(&words.clone().count()) && words.into_iter().all(plain_word)
}

/// `password`, `Token`, `KEY`: one word of letters, in one case or capitalised.
pub(super) fn plain_word(w: &[u8]) -> bool {
    !w.is_empty()
        && w.iter().all(u8::is_ascii_alphabetic)
        && (w[1..].iter().all(u8::is_ascii_lowercase) || w.iter().all(u8::is_ascii_uppercase))
}

/// A column's name in a header: a plain word, or words joined by `_` in one case
/// (`ld_sdk_key`, `API_TOKEN`), in any script (`ключ_api`).
pub(super) fn header_word(w: &[u8]) -> bool {
    if plain_word(w) {
        return true;
    }
    let Ok(w) = std::str::from_utf8(w) else {
        return false;
    };
    let one_case =
        !w.bytes().any(|c| c.is_ascii_lowercase()) || !w.bytes().any(|c| c.is_ascii_uppercase());
    one_case
        && w.chars().next().is_some_and(char::is_alphabetic)
        && w.chars()
            .all(|c| c == '_' || c.is_ascii_digit() || c.is_alphabetic())
}

/// A shell prompt before the name: the line is a command, and what follows it is the
/// command's output, which its arguments do not label.
fn on_prompt_line(b: &[u8], ks: usize) -> bool {
    let line = &b[line_start(b, ks)..ks];
    let t = line.trim_ascii_start();
    // `root@host:/srv# ` and `host% ` end a prompt; a `# ` that opens a line is a comment.
    let glued = |p: &[u8]| {
        line.windows(2)
            .enumerate()
            .any(|(i, w)| w == p && i > 0 && !line[i - 1].is_ascii_whitespace())
    };
    t.starts_with(b"$")
        || [&b"$ "[..], "❯ ".as_bytes(), "➜ ".as_bytes(), b">>> "]
            .iter()
            .any(|p| line.windows(p.len()).any(|w| w == *p))
        || glued(b"# ")
        || glued(b"% ")
}

/// `os.environ['X_TOKEN']` over `Out[3]: '…'`, `localStorage.getItem('auth_token')`
/// over `< '…'`: a REPL printed the value of the name on the line above.
fn below_repl(b: &[u8], ke: usize, family: Family) -> Option<(usize, usize)> {
    let le = line_end(b, ke, 256);
    let s = le + 1 + usize::from(at(b, le) == Some(b'\r'));
    if at(b, s - 1) != Some(b'\n') {
        return None;
    }
    let e = line_end(b, s, 512);
    let line = &b[s..e];
    if !is_output(line) {
        return None;
    }
    // A prefix's blanks may run past a line cut at its bound.
    let body = strip_prefixes(b, s, e);
    (body < e)
        .then(|| only_value(b, body, e, family, false))
        .flatten()
}

/// `public key`, `cache key`, `key id`, `token expired`: the words beside the name make
/// it about something public, or about the secret rather than the secret itself.
fn qualified_public(b: &[u8], ks: usize, ke: usize, family: Family) -> bool {
    let ls = line_start(b, ks);
    let before = b[ls..ks].trim_ascii_end();
    let prev = last_word(before);
    let deny_before = match family {
        Family::Key => DENY_KEY_BEFORE,
        Family::Token => DENY_TOKEN_BEFORE,
        _ => &[],
    };
    // "here is the key …:" over its value: an article before the name does not make
    // a label's secret a sort key or a page token.
    let article = one_of(prev, &[b"the", b"a", b"this"]);
    let label = b[ls..line_end(b, ke, 512)].trim_ascii_end().ends_with(b":");
    if one_of(prev, deny_before) && !(article && label) {
        return true;
    }
    let le = line_end(b, ke, 64);
    let after = &b[skip_blanks(b, ke).min(le)..le];
    let next: &[u8] = after
        .split(|c| !c.is_ascii_alphanumeric())
        .next()
        .unwrap_or_default();
    one_of(next, ABOUT_THE_SECRET)
}

fn last_word(v: &[u8]) -> &[u8] {
    let start = v
        .iter()
        .rposition(|c| !c.is_ascii_alphanumeric())
        .map_or(0, |p| p + 1);
    &v[start..]
}

/// `…password for the shared database: X`, `…passphrase … is X`: a separator a few words
/// on, in the same sentence, then the value.
pub(super) fn along_sentence(b: &[u8], ke: usize, family: Family) -> Option<(usize, usize)> {
    let end = line_end(b, ke, REACH);
    // Most lines hold no separator of a sentence's value: leave before the walk.
    let rest = &b[ke..end];
    let has = |w: &[u8]| rest.windows(w.len()).any(|x| x == w);
    // `is` in the languages whose names of secrets `foreign` knows, too.
    const VERBS: &[&[u8]] = &[
        b"is ",
        b"was ",
        b"= ",
        // `set staging db pw to v!Usq…`, `changed the password to …`.
        b"to ",
        b"ist ",
        b"est ",
        b"es ",
        "é ".as_bytes(),
        // German's `lautet`, Italian's `è`, Swedish's `är`, Polish's `jest`,
        // Indonesian's `adalah`.
        b"lautet ",
        "è ".as_bytes(),
        "är ".as_bytes(),
        b"jest ",
        b"adalah ",
    ];
    if !(has(b": ")
        || VERBS.iter().any(|v| {
            rest.windows(v.len() + 1)
                .any(|x| x[0] == b' ' && &x[1..] == *v)
        }))
    {
        return None;
    }
    let mut i = ke;
    let mut words = 0;
    while i < end {
        let c = b[i];
        if c == b' ' && at(b, i + 1).is_some_and(|n| n != b' ') {
            words += 1;
            if words > MAX_GAP_WORDS {
                return None;
            }
        }
        // A sentence ends: what follows is about something else.
        if c == b'.' && at(b, i + 1) == Some(b' ') {
            return None;
        }
        let sep = if c == b':' && at(b, i + 1) == Some(b' ') {
            Some(i + 2)
        } else if c == b' ' {
            VERBS
                .iter()
                .find(|w| b[i + 1..].starts_with(w))
                .map(|w| i + 1 + w.len())
        } else {
            None
        };
        if let Some(vs) = sep
            && let Some(range) = value_token(b, skip_blanks(b, vs), end)
            && machine_made(&b[range.0..range.1], family)
        {
            return Some(range);
        }
        if let Some(vs) = sep
            && family == Family::Password
            && let Some(range) = spaced_phrase(b, skip_blanks(b, vs), end)
        {
            return Some(range);
        }
        i += 1;
    }
    None
}

/// The value on a line below the one naming it: after a label (`Recovery Key:`, `which
/// key is it using?`), the only thing a line holds (a chat message, a REPL's output), or
/// the quoted value of the line under a comment that names it.
fn below(b: &[u8], ks: usize, ke: usize, family: Family) -> Option<(usize, usize)> {
    let ls = line_start(b, ks);
    let le = line_end(b, ke, 512);
    let line = b[ls..le].trim_ascii_end();
    // A label ends in `:` or asks a question; a heading ends with the name itself
    // (`Export Private Key`, `Personal access token`).
    let heading = ke >= ls + line.len()
        && !line.contains(&b':')
        && line.split(|&c| c == b' ').filter(|w| !w.is_empty()).count() <= 8;
    let label = line.ends_with(b":") || line.ends_with(b"?") || heading;
    // A comment that gives the key its own value (`# test case 2 (key = 'Jefe')`)
    // labels nothing below it.
    let valued = {
        let k = skip_blanks(b, ke);
        matches!(at(b, k), Some(b'=' | b':'))
            && at(b, skip_blanks(b, k + 1)).is_some_and(|c| c != b'\n' && c != b'\r')
    };
    let comment = !valued && {
        let t = line.trim_ascii_start();
        t.starts_with(b"#") || t.starts_with(b"//") || t.starts_with(b"--") || t.starts_with(b";")
    };
    let chat = is_chat(line);
    let mut i = le;
    for _ in 0..LINES_BELOW {
        i += usize::from(at(b, i) == Some(b'\r'));
        if at(b, i) != Some(b'\n') {
            return None;
        }
        let s = i + 1;
        let e = line_end(b, s, 512);
        i = e;
        let body = strip_prefixes(b, s, e);
        // A quoted reply's empty line is its marker alone (`>`, `> >`).
        let marker_only = b[body..e]
            .iter()
            .all(|&c| c == b'>' || c.is_ascii_whitespace());
        if body >= e || marker_only {
            continue;
        }
        // Without a label, only a chat's next message or a REPL's answer is the value
        // a line names: after anything else a lone token is the next thing printed.
        let answer = label || chat || body > s && is_output(&b[s..body]);
        return answer
            .then(|| only_value(b, body, e, family, label))
            .flatten()
            .or_else(|| {
                comment
                    .then(|| assigned_quoted(b, body, e, family))
                    .flatten()
            });
    }
    None
}

/// `[10:33] li: …`: a chat message, whose next message may answer it.
pub(in crate::redact) fn is_chat(line: &[u8]) -> bool {
    let t = line.trim_ascii_start();
    t.starts_with(b"[") && strip_prefixes(t, 0, t.len()) > 0
}

/// A REPL's output marker (`Out[3]:`, `< `, `=> `) before a line's content.
fn is_output(prefix: &[u8]) -> bool {
    let t = prefix.trim_ascii_start();
    t.starts_with(b"Out[") || t.starts_with(b"< ") || t.starts_with(b"=> ")
}

/// Where a line's own content starts, past indentation, a quote marker, a chat's time
/// and name (`[10:33] li: `), a REPL's output (`Out[3]: `, `< `, `=> `) or a numbered
/// list's number.
fn strip_prefixes(b: &[u8], s: usize, e: usize) -> usize {
    let mut i = s + b[s..e].len() - b[s..e].trim_ascii_start().len();
    for _ in 0..3 {
        let rest = &b[i..e];
        let skip = if rest.starts_with(b"[") {
            // `[10:33] name: ` or `[10:33] <name> `.
            let close = rest.iter().position(|&c| c == b']').filter(|&p| {
                p <= 24
                    && rest[1..p]
                        .iter()
                        .all(|c| c.is_ascii_digit() || matches!(c, b':' | b'-' | b' ' | b'.'))
            });
            close.map(|p| {
                let after = skip_blanks(rest, p + 1);
                let name_end = after
                    + rest[after..]
                        .iter()
                        .take(32)
                        .take_while(|&&c| {
                            c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'<')
                        })
                        .count();
                match rest.get(name_end) {
                    Some(b':') => name_end + 1,
                    Some(b'>') => name_end + 1,
                    _ => p + 1,
                }
            })
        } else if rest.starts_with(b"Out[") {
            rest.iter().position(|&c| c == b':').map(|p| p + 1)
        } else if rest.starts_with(b"< ") || rest.starts_with(b"> ") || rest.starts_with(b"=> ") {
            rest.iter().position(|&c| c == b' ')
        } else {
            let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
            (digits > 0 && digits <= 3 && rest.get(digits) == Some(&b'.')).then_some(digits + 1)
        };
        match skip {
            // The blanks may run past a line cut at its bound.
            Some(k) => i = skip_blanks(b, i + k).min(e),
            None => break,
        }
    }
    i
}

/// The value when it is all the line holds (a few short words before it after a label:
/// `this one X`), or a code printed in groups.
fn only_value(b: &[u8], s: usize, e: usize, family: Family, label: bool) -> Option<(usize, usize)> {
    let content = b[s..e].trim_ascii_end();
    let ce = s + content.len();
    if label && let Some(range) = grouped(b, s, ce) {
        return Some(range);
    }
    let mut vs = s;
    let mut words = 0;
    loop {
        let range = value_token(b, vs, ce)?;
        let tail = b[range.1..ce].trim_ascii();
        let closing = tail
            .iter()
            .all(|c| matches!(c, b'\'' | b'"' | b'`' | b';' | b','));
        if closing && machine_made(&b[range.0..range.1], family) {
            return Some(range);
        }
        // `this one X`: a label's answer may open with a couple of short words.
        let word = &b[range.0..range.1];
        words += 1;
        if !label || words > 2 || word.len() > 6 || !word.iter().all(u8::is_ascii_lowercase) {
            return None;
        }
        vs = skip_blanks(b, range.1);
    }
}

/// `const STAGING_ADMIN = "…";`: a quoted value assigned on the line under a comment.
fn assigned_quoted(b: &[u8], s: usize, e: usize, family: Family) -> Option<(usize, usize)> {
    let line = &b[s..e];
    let eq = line.iter().position(|&c| c == b'=' || c == b':')?;
    let q = skip_blanks(b, s + eq + 1);
    if q >= e {
        return None;
    }
    let quote = at(b, q).filter(|c| matches!(c, b'"' | b'\''))?;
    let close = b[q + 1..e].iter().position(|&c| c == quote)? + q + 1;
    machine_made(&b[q + 1..close], family).then_some((q + 1, close))
}

/// The token starting at `i` (inside quotes or backticks if it opens with one), with
/// a sentence's closing punctuation left out.
fn value_token(b: &[u8], i: usize, end: usize) -> Option<(usize, usize)> {
    // `\"x\"` inside a quoted string: quotes escaped with a backslash.
    let escaped = escaped_quote(b, i);
    let q = if escaped { i + 1 } else { i };
    let quote = at(b, q).filter(|c| matches!(c, b'"' | b'\'' | b'`'));
    let vs = if quote.is_some() { q + 1 } else { i };
    let mut ve = vs;
    while ve < end {
        let c = b[ve];
        if c.is_ascii_whitespace()
            || Some(c) == quote
            || quote.is_none() && c == b'`'
            || escaped && escaped_quote(b, ve)
        {
            break;
        }
        // A call, an index or a markup tag is code, not a value.
        if matches!(c, b'(' | b')' | b'[' | b']' | b'{' | b'}' | b'<' | b'>') {
            return None;
        }
        ve += 1;
    }
    if quote.is_none() {
        while ve > vs && matches!(b[ve - 1], b'.' | b',' | b';' | b')' | b'"' | b'\'') {
            ve -= 1;
        }
    }
    (ve > vs).then_some((vs, ve))
}

/// A diceware phrase from `i` to the end of its quotes or of the line (`: "desert delta
/// rosemary basil ember"`).
pub(super) fn spaced_phrase(b: &[u8], i: usize, end: usize) -> Option<(usize, usize)> {
    if i >= end {
        return None;
    }
    let quote = at(b, i).filter(|c| matches!(c, b'"' | b'\''));
    let vs = i + usize::from(quote.is_some());
    let ve = match quote {
        Some(q) => crate::redact::text::run(&b[..end], vs, |c| c != q),
        None => vs + b[vs..end].trim_ascii_end().len(),
    };
    is_spaced_passphrase(&b[vs..ve]).then_some((vs, ve))
}

/// `api.example.com:443`: a host and its port (Deno's `Requires net access to …`).
fn host_port(v: &[u8]) -> bool {
    let Some(colon) = v.iter().rposition(|&c| c == b':') else {
        return false;
    };
    let (host, port) = (&v[..colon], &v[colon + 1..]);
    (1..=5).contains(&port.len())
        && port.iter().all(u8::is_ascii_digit)
        && host.contains(&b'.')
        && host
            .iter()
            .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'.' | b'-'))
}

/// Only a value that looks machine-made counts where nothing but words name it.
fn machine_made(v: &[u8], family: Family) -> bool {
    if family == Family::Password && (is_passphrase(v) || is_spaced_passphrase(v)) {
        return true;
    }
    if !plausible(v, Need::Strong) || looks_like_word_list(v) || host_port(v) {
        return false;
    }
    // A password a person chose passes the strict test too; ask for a mix of classes.
    has_alpha(v) && has_digit(v) && (has_upper(v) || v.len() >= 16)
}

/// A code printed in groups under its label: `3hlj-b0p8-2iy1-lrqc`, `uaqc dkwx oyvk
/// c4sv`, BitLocker's eight groups of six digits. Dates, ids and addresses have fewer
/// groups, or other separators.
fn grouped(b: &[u8], s: usize, e: usize) -> Option<(usize, usize)> {
    let v = &b[s..e];
    let sep = *v.iter().find(|c| matches!(c, b'-' | b' '))?;
    let groups: Vec<&[u8]> = v.split(|&c| c == sep).collect();
    let len = groups.first()?.len();
    let same = groups.iter().all(|g| {
        g.len() == len
            && g.iter()
                .all(|c| c.is_ascii_digit() || c.is_ascii_lowercase() || c.is_ascii_uppercase())
    });
    let digits_only = v.iter().all(|&c| c.is_ascii_digit() || c == sep);
    let one_case = !(v.iter().any(u8::is_ascii_lowercase) && v.iter().any(u8::is_ascii_uppercase));
    let enough = if digits_only {
        groups.len() >= 6
    } else {
        groups.len() >= 3
    };
    // Letters only: random groups, not a line of short words.
    let random = has_digit(v) || {
        let letters = v.iter().filter(|c| c.is_ascii_alphabetic()).count();
        let vowels = v
            .iter()
            .filter(|c| matches!(c.to_ascii_lowercase(), b'a' | b'e' | b'i' | b'o' | b'u'))
            .count();
        vowels * 10 < letters * 3 && !groups.iter().any(|g| is_stop_word(g))
    };
    let shaped = same && one_case && random && (4..=8).contains(&len) && enough;
    (shaped && !is_uuid(v) && v.len() >= 12).then_some((s, e))
}
