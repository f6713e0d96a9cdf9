//! Where an assignment's value starts and ends in each syntax (`value_at`),
//! the separators of lists and query strings, `name`/`value` pairs, and a
//! value quoted near its key in a message.

use super::*;

/// The value starting at `i`: inside its quotes, a YAML block's first line, a braced
/// connection-string value, or up to a delimiter.
pub(super) fn value_at(b: &[u8], i: usize, ks: usize) -> Option<(usize, usize)> {
    let i = literal_inside(b, i);
    let first = at(b, i)?;
    let cap = (i + MAX_VALUE).min(b.len());
    let (q, start) = if first == b'\\' && at(b, i + 1).is_some_and(is_quote) {
        (Some(b[i + 1]), i + 2)
    } else if is_quote(first) {
        (Some(first), i + 1)
    } else {
        (None, i)
    };
    if let Some(q) = q {
        let escaped = first == b'\\';
        let mut k = start;
        while k < cap {
            let c = b[k];
            if c == b'\n' || c == q && !escaped {
                break;
            }
            if c == b'\\' {
                if escaped && at(b, k + 1) == Some(q) {
                    break;
                }
                k += 2;
                continue;
            }
            k += 1;
        }
        let end = k.min(cap);
        return (end > start).then_some((start, end));
    }
    if matches!(first, b'|' | b'>') {
        // A YAML block scalar: the value is the next line.
        let rest = run(b, i + 1, |c| matches!(c, b'-' | b'+' | b' ' | b'\t'));
        if at(b, rest) != Some(b'\n') {
            return None;
        }
        let s = skip_blanks(b, rest + 1);
        let e = line_end(b, s, MAX_VALUE);
        return (e > s).then_some((s, e));
    }
    if first == b'{'
        && (before(b, ks).is_none_or(|c| c == b';' || c.is_ascii_whitespace()))
        && b[i..cap].contains(&b'}')
    {
        // ODBC `PWD={p@ss;word}`.
        let e = run(&b[..cap], i + 1, |c| c != b'}' && c != b'\n');
        // `{cipher}<hex>` is one token that starts with a tag, not a braced value.
        let closes = at(b, e + 1).is_none_or(|c| !is_word(c));
        if at(b, e) == Some(b'}')
            && closes
            && e > i + 1
            && !b[i + 1..e].contains(&b'{')
            && !b[i + 1..e].contains(&b' ')
        {
            return Some((i + 1, e));
        }
    }
    // `-var 'db_password=Zd)V|I'`: an assignment quoted whole as one shell word or
    // string; its value runs to the closing quote, through `)`, `|` and `&`.
    if let Some(q) = before(b, ks).filter(|&c| c == b'\'' || c == b'"')
        && b[ks..i].ends_with(b"=")
        && let Some(close) = b[i..line_end(b, i, MAX_VALUE)].iter().position(|&c| c == q)
        && close > 0
        && !b[i..i + close].contains(&b' ')
    {
        return Some((i, i + close));
    }
    // `key: # comment`; but `PASSWORD=#x` is a value (no blank, no comment), and so is
    // what follows a network device's type digit (`secret 0 #x`).
    let type_digit = i >= 3 && b[i - 2].is_ascii_digit() && b[i - 3] == b' ' && b[i - 1] == b' ';
    let comment =
        first == b'#' && before(b, i).is_some_and(|c| c.is_ascii_whitespace()) && !type_digit;
    if placeholder_start(first) || comment {
        return None;
    }
    // YAML's `  auth_token: drot)20}q8G[b`: a plain scalar is the rest of its line,
    // brackets and all, when the key starts an indented line (a mapping's, not an HTTP
    // header's) and the rest is one word. A prompt's echo at a line's start
    // (`Password: PF)Gx>WA…`) is read the same way.
    if i >= 2 && b[i - 2..i] == *b": " && {
        let ls = line_start(b, ks);
        let prompt = ks == ls && contains_ci(&b[ks..i], b"pass");
        prompt || ks >= ls + 2 && b[ls..ks].iter().all(|&c| c == b' ' || c == b'-')
    } {
        let le = line_end(b, i, MAX_VALUE);
        let word = b[i..le].trim_ascii_end();
        let word = word.strip_suffix(b",").unwrap_or(word);
        // Only where the delimiters below would cut it: inside the word, not closing it.
        let inner = word.len() > 1 && word[..word.len() - 1].iter().any(|c| b")}]<>".contains(c));
        if inner && !word.iter().any(u8::is_ascii_whitespace) && !word.ends_with(b"(") {
            return Some((i, i + word.len()));
        }
    }
    // The shell reads `PASSPHRASE=a,b=c cmd` as one value: after an environment
    // variable's name a `,` or `;` starts a list only before another such name.
    let env_name = is_env_name(&b[ks..run(b, ks, is_key_char)]);
    let mut end = i;
    while end < cap {
        let c = b[end];
        let stop = c.is_ascii_whitespace()
            || matches!(
                c,
                b'"' | b'\'' | b'`' | b'<' | b'>' | b'|' | b')' | b'}' | b']'
            )
            || matches!(c, b',' | b';')
                && list_separator(&b[end + 1..cap], end == i)
                && (!env_name || is_env_name(&b[end + 1..run(b, end + 1, is_key_char)]))
            || c == b'&' && query_separator(&b[end + 1..cap]);
        if stop {
            break;
        }
        end += 1;
    }
    // A sentence's full stop, a label's colon.
    if end > i + 1 && matches!(b[end - 1], b'.' | b':') {
        end -= 1;
    }
    (end > i).then_some((i, end))
}

/// Calls that turn a literal into the bytes of a key (`Convert.FromHexString("…")`,
/// `Base64.getDecoder().decode("…")`, `bytes.fromhex("…")`, `Buffer.from("…", "base64")`),
/// by the end of their name, in lower case.
const DECODERS: &[&[u8]] = &[
    b"fromhexstring",
    b"frombase64string",
    b"decode",
    b"decodestring",
    b"decodehex",
    b"fromhex",
    b"b64decode",
    b"unhexlify",
    b"a2b_hex",
    b"a2b_base64",
    b"buffer.from",
    b"decodebase64",
    b"parsehexbinary",
    b"parsebase64binary",
];

/// Where the literal a value holds starts, when it is wrapped: an Objective-C or C#
/// `@"…"`, a string prefix (`b"…"`, `rb'…'`, `u8"…"`, `L"…"`, SQL's `N'…'`), a list of one string as
/// gRPC metadata and header maps print it (`["…"]`), PHP's `var_dump` (`string(9)
/// "…"`), or a decoder's call ([`DECODERS`]). Anything else starts at `i`.
pub(super) fn literal_inside(b: &[u8], i: usize) -> usize {
    let quote_at = |k: usize| at(b, k).is_some_and(is_quote);
    match at(b, i) {
        Some(b'@') if quote_at(i + 1) => return i + 1,
        // Erlang's and Elixir's binary: `<<"…">>`.
        Some(b'<') if b[i..].starts_with(b"<<") && quote_at(i + 2) => return i + 2,
        // A process substitution that echoes the value: `<(echo …)`.
        Some(b'<') if b[i..].starts_with(b"<(echo ") => return skip_blanks(b, i + 7),
        Some(b'[') => {
            let k = skip_blanks(b, i + 1);
            if matches!(at(b, k), Some(b'"' | b'\'')) {
                return k;
            }
            return i;
        }
        _ => {}
    }
    let word = run(b, i, |c| c.is_ascii_alphanumeric());
    // PHP's `var_dump`: `string(21) "…"`.
    if &b[i..word] == b"string" && at(b, word) == Some(b'(') {
        let close = run(b, word + 1, |c| c.is_ascii_digit());
        if close > word + 1 && at(b, close) == Some(b')') && quote_at(close + 2) {
            return close + 2;
        }
    }
    if word > i && word - i <= 2 && quote_at(word) {
        let prefix = &b[i..word];
        let string_prefix = [
            b"b".as_slice(),
            b"r",
            b"rb",
            b"br",
            b"u",
            b"u8",
            b"L",
            b"B",
            b"R",
            // SQL's national and PostgreSQL's escape strings: `N'…'`, `E'…'`.
            b"N",
            b"E",
        ]
        .iter()
        .any(|p| prefix.eq_ignore_ascii_case(p));
        if string_prefix {
            return word;
        }
    }
    // A decoder's call: a dotted name (`Base64.getDecoder().decode`), its open
    // parenthesis, then the literal.
    let name_end = run(&b[..(i + 128).min(b.len())], i, |c| {
        c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b':' | b'(' | b')')
    });
    let mut name_end = name_end;
    while name_end > i && b[name_end - 1] != b'(' {
        name_end -= 1;
    }
    if name_end <= i + 1 {
        return i;
    }
    let name = &b[i..name_end - 1];
    let decoder = DECODERS
        .iter()
        .any(|d| name.len() >= d.len() && name[name.len() - d.len()..].eq_ignore_ascii_case(d));
    let k = skip_blanks(b, name_end);
    if decoder && quote_at(k) { k } else { i }
}

/// A `,` or `;` that ends a value: one before a blank, a quote, a bracket, the end or
/// the next `name=`/`name:` of a list (`user=a,password=b`); any other is a character of
/// the value (`-w x,=y`, `--password ,S…`). A value never starts at its separator, so
/// one at the value's first byte is part of it.
pub(super) fn list_separator(rest: &[u8], first: bool) -> bool {
    if first {
        return false;
    }
    let mut name_end = run(rest, 0, is_key_char);
    // A connection string's names of capitalised words: `;Connection Timeout=30`.
    let capitalised = |from: usize, to: usize| {
        to > from + 1
            && rest[from].is_ascii_uppercase()
            && rest[from..to].iter().all(u8::is_ascii_alphabetic)
    };
    if capitalised(0, name_end) {
        for _ in 0..2 {
            let next = run(rest, name_end + 1, |c| c.is_ascii_alphabetic());
            if at(rest, name_end) == Some(b' ') && capitalised(name_end + 1, next) {
                name_end = next;
            }
        }
    }
    // A list's next name is a word (`user=`, `port2=`), not a run of a password's
    // characters (`mF5Q0vo=`): no digit inside it is followed by a letter.
    let wordy = !rest[..name_end]
        .windows(2)
        .any(|w| w[0].is_ascii_digit() && w[1].is_ascii_alphabetic());
    rest.first().is_none_or(|&c| {
        c.is_ascii_whitespace()
            || matches!(c, b'"' | b'\'' | b'`' | b')' | b'}' | b']' | b',' | b';')
    }) || name_end > 0 && wordy && matches!(at(rest, name_end), Some(b'=' | b':'))
}

/// An environment variable's name as a shell sets it: `PASSPHRASE`, `AWS_PROFILE`,
/// `A1` (capitals, digits and `_`, a capital first, two characters or more).
fn is_env_name(name: &[u8]) -> bool {
    name.len() >= 2
        && name[0].is_ascii_uppercase()
        && name
            .iter()
            .all(|&c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
}

/// An `&` that ends a value: `&&`, a blank, the end, or the next `name=` of a query
/// string. Any other `&` is a character of a password (`Winter&3175`).
pub(super) fn query_separator(rest: &[u8]) -> bool {
    let name_end = run(rest, 0, |c| {
        is_key_char(c) || matches!(c, b'[' | b']' | b'%')
    });
    rest.first()
        .is_none_or(|&c| c == b'&' || c.is_ascii_whitespace())
        || name_end > 0 && at(rest, name_end) == Some(b'=')
        || rest.starts_with(b"amp;")
}

/// Keys whose value is another key's name (`name: DB_PASSWORD` … `value: x`).
pub(super) const NAME_KEYS: &[&[u8]] = &[
    b"name",
    b"key",
    // WiX's `<Property Id="SERVICEPASSWORD" Value="…"/>`.
    b"id",
    b"parameterkey",
    b"parameter_key",
    b"variable",
    b"var",
    b"env",
    b"label",
    b"--name",
    b"-n",
    b"set",
    b"--secret-id",
    b"--key",
    b"secret",
];
pub(super) const VALUE_KEYS: &[&[u8]] = &[
    b"value",
    b"parametervalue",
    b"parameter_value",
    b"--value",
    b"--body",
    b"-b",
    b"--secret-string",
    b"defaultvalue",
    b"default",
];

/// `- name: DB_PASSWORD\n  value: x`, `<add key="Password" value="x"/>`,
/// `ParameterKey=DbPassword,ParameterValue=x`, `--name …/password --value x`,
/// `gh secret set API_TOKEN --body x`.
pub(super) fn name_value_pair(
    b: &[u8],
    ks: usize,
    ke: usize,
    family: Family,
    kind: &'static str,
) -> Option<Found> {
    // The word before the key's own word, skipping quotes, a path and a separator.
    let mut word_start = run_back(b, ks, ks.saturating_sub(MAX_KEY), |c| {
        !c.is_ascii_whitespace() && !matches!(c, b'"' | b'\'' | b'=' | b':' | b'>' | b'{' | b',')
    });
    // `key="Backend:ApiToken"`: .NET's section path is part of the quoted name.
    let sectioned = run_back(b, ks, ks.saturating_sub(MAX_KEY), |c| {
        is_key_char(c) || c == b':'
    });
    if sectioned < word_start
        && before(b, sectioned).is_some_and(is_quote)
        && sectioned >= 2
        && b[sectioned - 2] == b'='
    {
        word_start = sectioned;
    }
    let mut i = word_start;
    i = run_back(b, i, i.saturating_sub(8), |c| {
        matches!(c, b'"' | b'\'' | b' ' | b'\t')
    });
    let sep = before(b, i);
    if matches!(sep, Some(b':' | b'=')) {
        i -= 1;
        i = run_back(b, i, i.saturating_sub(8), |c| {
            matches!(c, b'"' | b'\'' | b' ' | b'\t')
        });
    } else if word_start == ks && before(b, ks).is_none_or(|c| c != b' ' && !is_quote(c)) {
        return None;
    }
    let name_start = run_back(b, i, i.saturating_sub(32), |c| is_key_char(c) || c == b'-');
    let name = &b[name_start..i];
    if !one_of(name, NAME_KEYS) {
        return None;
    }
    // The value key within a few lines.
    let hi = (ke + 320).min(b.len());
    let mut k = ke;
    while k < hi {
        let c = b[k];
        if is_key_char(c) && !before(b, k).is_some_and(|p| is_word(p) || p == b'-') {
            let we = run(&b[..hi], k, is_key_char);
            let word = &b[k..we];
            let dash_word = run_back(b, k, k.saturating_sub(2), |c| c == b'-');
            let full = &b[dash_word..we];
            if one_of(word, VALUE_KEYS) || one_of(full, VALUE_KEYS) {
                let flag = dash_word < k || word.starts_with(b"-");
                let key = Key {
                    start: k,
                    end: we,
                    flag,
                    quote: quote_before(b, dash_word),
                    family,
                    kind,
                };
                return direct_value(b, &key).map(|mut f| {
                    f.direct = true;
                    f
                });
            }
            if one_of(word, NAME_KEYS) && we > ke + 1 {
                // The next pair started: this name had no value here.
                return None;
            }
            k = we;
        } else {
            k += 1;
        }
    }
    None
}

/// After `key=` or `name=`: a `value=` attribute further on the line, so the first one
/// names the setting (`<add key="Web:ApiKey" value="…"/>`).
pub(super) fn value_attribute_follows(b: &[u8], ke: usize) -> bool {
    let le = line_end(b, ke, 400);
    let line = &b[ke..le];
    line.windows(6)
        .enumerate()
        .any(|(i, w)| w.eq_ignore_ascii_case(b"value=") && i > 0 && line[i - 1] == b' ')
}

/// A quoted value near the key in prose or an error message, on the same line:
/// ``password: cannot unmarshal !!str `S3cr3t!` into int``,
/// `invalid value "…" for flag -token`.
pub(super) fn near_quoted(
    b: &[u8],
    ks: usize,
    ke: usize,
    family: Family,
    kind: &'static str,
) -> Option<Found> {
    // Prose's verb "pass" names no password (`unseparated_value`).
    let verb = b[ks..ke].eq_ignore_ascii_case(b"pass");
    let need = if family == Family::Password && !verb {
        Need::Password
    } else {
        Need::Strong
    };
    // A few words of prose between the key and the value, no more: `password '…'`,
    // `for flag -token`, `provided: …`.
    // Words of the gap so far, counted as the scan moves (a word starts after a blank).
    const MAX_GAP_WORDS: usize = 4;
    let starts_word_at =
        |k: usize| !b[k].is_ascii_whitespace() && (k == 0 || b[k - 1].is_ascii_whitespace());
    // `Run the `rotate-db` job; it sets the password`: another clause's word (but a
    // statement's `…'); // admin key` is code, then its comment).
    let clause_end = |k: usize| {
        matches!(b[k], b';' | b'.')
            && at(b, k + 1).is_some_and(|c| c.is_ascii_whitespace())
            && before(b, k).is_some_and(|c| c.is_ascii_alphabetic())
    };
    let key = &b[ks..ke];
    let ok = |v: &[u8]| {
        // `password=` between two quotes is a key, not its value.
        let keyish = v.ends_with(b"=") && v.len() < 16 || v.ends_with(b":") || contains_ci(v, key);
        // `bam.eu01.nr-data.net`: a host name, in lower case with a word for its top level.
        let host = v.contains(&b'.')
            && v.iter()
                .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'.' | b'-'))
            && v.rsplit(|&c| c == b'.').next().is_some_and(|tld| {
                (2..=12).contains(&tld.len()) && tld.iter().all(u8::is_ascii_lowercase)
            });
        !keyish
            && !host
            && plausible(v, need)
            && !names_a_secret(v)
            && !v.contains(&b' ')
            && !v[..v.len().saturating_sub(2)].contains(&b'=')
            // `` `--token-file` ``: documentation quoting a flag.
            && !v.starts_with(b"-")
            // `` `env:"DB_PASSWORD"` ``: a struct tag, quoted names inside quotes.
            && !v.windows(2).any(|w| w == b":\"")
            && (need != Need::Password
                || v.len() >= 6
                    && v.iter().any(|c| !c.is_ascii_lowercase())
                    && super::super::text::has_alpha(v))
    };
    // Forward.
    let end = line_end(b, ke, NEAR);
    let mut i = ke;
    let mut colon_seen = false;
    let mut words = 0;
    while i < end {
        words += usize::from(i > ke && starts_word_at(i));
        if words > MAX_GAP_WORDS || clause_end(i) {
            break;
        }
        if b[i] == b':' && at(b, i + 1) == Some(b' ') && !colon_seen {
            // `Incorrect API key provided: <value>.`, but not `Signature Algorithm: …`.
            colon_seen = true;
            let about = b[ke..i]
                .split(|c| !c.is_ascii_alphanumeric())
                .any(|w| one_of(w, DENY_TAIL));
            if about {
                i += 1;
                continue;
            }
            if let Some((s, e)) = value_at(b, i + 2, ks)
                && !before(b, s).is_some_and(is_quote)
                && !b[s..e.saturating_sub(2).max(s)].contains(&b'=')
                && plausible(&b[s..e], Need::Strong)
            {
                return Some(Found {
                    kind,
                    start: s,
                    end: e,
                    direct: false,
                });
            }
        }
        if is_quote(b[i]) {
            let q = b[i];
            let shut = run(&b[..end], i + 1, |c| c != q);
            if shut < end {
                // `\"x\"` inside a quoted string: the backslash escapes the quote.
                let vend = if shut > i + 1 && escaped_quote(b, shut - 1) {
                    shut - 1
                } else {
                    shut
                };
                let v = &b[i + 1..vend];
                // `"valueFrom": …`: a quoted string before a colon is the next key.
                let next_key = at(b, skip_blanks(b, shut + 1)) == Some(b':');
                if ok(v) && !is_placeholder(v) && !next_key && !code_not_value(b, i + 1, vend) {
                    return Some(Found {
                        kind,
                        start: i + 1,
                        end: vend,
                        direct: false,
                    });
                }
                i = shut + 1;
                continue;
            }
            break;
        }
        i += 1;
    }
    // Backward: the value comes first and the key names it after (`… into config.Password`),
    // unless the name is code with its own value: a call's other argument (`join('…',
    // channel, tokenFromServer)`) or a key set to a variable (`f('…', { key: userId })`).
    let ws = run_back(b, ks, ks.saturating_sub(64), |c| {
        c.is_ascii_alphanumeric() || c == b'_'
    });
    let we = run(b, ke, |c| c.is_ascii_alphanumeric() || c == b'_');
    let prev = b[..ws].trim_ascii_end().last().copied();
    let next = at(b, skip_blanks(b, we));
    if matches!(prev, Some(b',' | b'(' | b'{')) && matches!(next, Some(b',' | b')' | b':')) {
        return None;
    }
    let start = line_start(b, ks).max(ks.saturating_sub(NEAR));
    let mut j = ks;
    let mut words = 0;
    while j > start {
        j -= 1;
        words += usize::from(j + 1 < ks && starts_word_at(j + 1));
        if words > MAX_GAP_WORDS || clause_end(j) {
            break;
        }
        if is_quote(b[j]) {
            let q = b[j];
            let open = run_back(b, j, start, |c| c != q);
            if open > start {
                let v = &b[open..j];
                let next_key = at(b, skip_blanks(b, j + 1)) == Some(b':');
                if ok(v) && !is_placeholder(v) && !next_key {
                    return Some(Found {
                        kind,
                        start: open,
                        end: j,
                        direct: false,
                    });
                }
                j = open - 1;
                continue;
            }
            break;
        }
    }
    None
}

/// `SECRET_KEY = b'\x57\x19…'`: a key as a bytes literal of hex escapes (Python's,
/// Rust's `b"…"`, a C string), 16 or more of them, after the key's `=` or `:`.
pub(super) fn escaped_bytes(
    b: &[u8],
    ke: usize,
    family: Family,
    kind: &'static str,
) -> Option<Found> {
    if !matches!(
        family,
        Family::Key | Family::Secret | Family::Salt | Family::Token
    ) {
        return None;
    }
    let le = line_end(b, ke, 2048);
    let head = &b[ke..le];
    let sep = head.iter().take(8).position(|&c| c == b'=' || c == b':')?;
    let mut i = skip_blanks(b, ke + sep + 1);
    if at(b, i) == Some(b'b') {
        i += 1;
    }
    let q = at(b, i).filter(|&c| c == b'"' || c == b'\'')?;
    let vs = i + 1;
    let ve = run(&b[..le], vs, |c| c != q);
    let v = &b[vs..ve];
    let escapes = v.windows(2).filter(|w| w == b"\\x").count();
    (ve < le && escapes >= 16 && escapes * 4 * 2 >= v.len()).then_some(Found {
        kind,
        start: vs,
        end: ve,
        direct: true,
    })
}

/// `network_key: [128, 65, …]`, `byte[] KEY = new byte[] { (byte) 0x44, … }`: a key
/// written out as its bytes, 16 or more of them, decimal or `0x`, after the key's `=` or
/// `:`. A run counted up or one byte repeated is a test vector or a buffer, not a key.
pub(super) fn byte_array(b: &[u8], ke: usize, family: Family, kind: &'static str) -> Option<Found> {
    if !matches!(
        family,
        Family::Key | Family::Secret | Family::Salt | Family::Token
    ) {
        return None;
    }
    let le = line_end(b, ke, 128);
    let head = &b[ke..le];
    let mut sep = head.iter().position(|&c| c == b'=' || c == b':')?;
    // `COOKIE_KEY: [u8; 32] = [29, …]`: a type annotation between the colon and the `=`.
    if head[sep] == b':'
        && let Some(eq) = head[sep..].iter().position(|&c| c == b'=')
        && !head[sep..sep + eq]
            .iter()
            .any(|&c| matches!(c, b',' | b'"' | b'\''))
    {
        sep += eq;
    }
    let open = head[sep..].iter().position(|&c| c == b'[' || c == b'{')? + sep;
    // `= new byte[] {`: the type's empty brackets come before the list's.
    let open = match head.get(open + 1) {
        Some(b']') => head[open + 2..].iter().position(|&c| c == b'{')? + open + 2,
        _ => open,
    };
    let mut i = ke + open + 1;
    let cap = (i + MAX_VALUE).min(b.len());
    let mut bytes = Vec::new();
    let (mut first, mut last, mut cast) = (None, i, None);
    while i < cap {
        let c = b[i];
        if matches!(c, b']' | b'}') {
            break;
        }
        if c == b'(' {
            // A cast: `(byte)`, `(uint8_t)`; the first byte's is part of the value.
            cast.get_or_insert(i);
            i = run(&b[..cap], i, |c| c != b')') + 1;
            continue;
        }
        if c.is_ascii_digit() || c == b'-' {
            let s = i;
            let e = run(&b[..cap], i + 1, |c| c.is_ascii_alphanumeric());
            let t = &b[s..e];
            let n = match t.strip_prefix(b"0x").or_else(|| t.strip_prefix(b"0X")) {
                Some(h) if (1..=2).contains(&h.len()) => std::str::from_utf8(h)
                    .ok()
                    .and_then(|h| i16::from_str_radix(h, 16).ok()),
                Some(_) => None,
                None => std::str::from_utf8(t)
                    .ok()
                    .and_then(|d| d.parse::<i16>().ok()),
            }
            .filter(|n| (-128..=255).contains(n))?;
            bytes.push(n);
            first.get_or_insert(cast.unwrap_or(s));
            last = e;
            i = e;
            continue;
        }
        if !(c.is_ascii_whitespace() || c == b',') {
            return None;
        }
        i += 1;
    }
    let counted = bytes.windows(2).all(|w| w[1] == w[0] + 1);
    let repeated = bytes.windows(2).all(|w| w[1] == w[0]);
    let distinct = {
        let mut d = bytes.clone();
        d.sort_unstable();
        d.dedup();
        d.len()
    };
    (bytes.len() >= 16 && !counted && !repeated && distinct * 2 > bytes.len()).then(|| Found {
        kind,
        start: first.unwrap_or(last),
        end: last,
        direct: true,
    })
}

/// `<masterKey p4:requiresEncryption="true">` then, a line or two below, `<value>…
/// </value>` (ASP.NET's data-protection key ring): an element named for the secret
/// whose `value` child holds it.
pub(super) fn value_child(
    b: &[u8],
    ks: usize,
    ke: usize,
    family: Family,
    kind: &'static str,
) -> Option<Found> {
    if before(b, ks) != Some(b'<') {
        return None;
    }
    let le = line_end(b, ke, 512);
    let close = b[ke..le].iter().position(|&c| c == b'>')? + ke;
    if b[close - 1] == b'/' {
        return None;
    }
    let hi = (close + 400).min(b.len());
    let tag = crate::redact::text::find_ci(&b[close..hi], b"<value>")? + close + 7;
    let end = run(&b[..hi], tag, |c| c != b'<');
    if !b[end..].starts_with(b"</") {
        return None;
    }
    let (vs, ve) = (
        skip_blanks(b, tag),
        tag + b[tag..end].trim_ascii_end().len(),
    );
    (ve > vs && plausible(&b[vs..ve], super::need_for(family))).then_some(Found {
        kind,
        start: vs,
        end: ve,
        direct: false,
    })
}

/// `<name>fs.s3a.secret.key</name><value>…</value>` (Hadoop's, Spring's and many XML
/// configurations), `<stringProp name="Argument.name">password</stringProp>` over its
/// `Argument.value` (JMeter): the key is an element's text, and its value the text of
/// the next element, whose tag or `name` says value.
pub(super) fn xml_name_value(
    b: &[u8],
    ks: usize,
    ke: usize,
    family: Family,
    kind: &'static str,
) -> Option<Found> {
    if before(b, ks) != Some(b'>') || !b[ke..].starts_with(b"</") {
        return None;
    }
    let ls = line_start(b, ks);
    let open = b[ls..ks].iter().rposition(|&c| c == b'<')? + ls;
    let says = |tag: &[u8], word: &[u8]| {
        let t = tag.trim_ascii_end();
        let name_end = run(t, 0, |c| c != b' ');
        let (name, attrs) = t.split_at(name_end);
        let ends = |v: &[u8]| {
            let v = v.trim_ascii_end();
            v.len() >= word.len() && v[v.len() - word.len()..].eq_ignore_ascii_case(word)
        };
        ends(name) || attrs.split(|&c| c == b'"' || c == b'\'').any(ends)
    };
    if !says(&b[open + 1..ks - 1], b"name") && !says(&b[open + 1..ks - 1], b"key") {
        return None;
    }
    let close = run(b, ke, |c| c != b'>') + 1;
    if close >= b.len() {
        return None;
    }
    let hi = (close + 320).min(b.len());
    let next = close + b[close..hi].iter().position(|&c| c == b'<')?;
    let tag_end = run(&b[..hi], next, |c| c != b'>');
    if tag_end >= hi || !says(&b[next + 1..tag_end], b"value") {
        return None;
    }
    let vs = tag_end + 1;
    let ve = run(&b[..hi], vs, |c| c != b'<' && c != b'\n');
    let v = &b[vs..ve];
    let need = if family == Family::Password {
        Need::Password
    } else {
        Need::Token
    };
    (ve < hi && b[ve] == b'<' && plausible(v, need)).then_some(Found {
        kind,
        start: vs,
        end: ve,
        direct: true,
    })
}

/// `<string name="client_secret">…</string>` (Android resources), `<Data
/// Name="ApiKey">…</Data>` (a Windows event), `<entry key="db.password">…</entry>`
/// (Java's XML properties): the key is the element's name attribute, its value the
/// element's text.
pub(super) fn named_element(
    b: &[u8],
    ks: usize,
    ke: usize,
    family: Family,
    kind: &'static str,
) -> Option<Found> {
    let q = before(b, ks).filter(|&c| is_quote(c))?;
    let attr_end = ks - 1;
    if attr_end < 2 || b[attr_end - 1] != b'=' {
        return None;
    }
    let an = run_back(b, attr_end - 1, attr_end.saturating_sub(8), |c| {
        c.is_ascii_alphabetic()
    });
    let attr = &b[an..attr_end - 1];
    let tag_start = run_back(b, an, an.saturating_sub(64), |c| {
        c != b'<' && c != b'>' && c != b'\n'
    });
    if !(attr.eq_ignore_ascii_case(b"name") || attr.eq_ignore_ascii_case(b"key"))
        || before(b, tag_start) != Some(b'<')
        || at(b, ke) != Some(q)
    {
        return None;
    }
    let le = line_end(b, ke, 512);
    let close = ke + b[ke..le].iter().position(|&c| c == b'>')?;
    if b[close - 1] == b'/' {
        return None;
    }
    let vs = close + 1;
    let ve = run(&b[..le], vs, |c| c != b'<');
    if !b[ve..].starts_with(b"</") {
        return None;
    }
    let need = need_for(family);
    plausible(&b[vs..ve], need).then_some(Found {
        kind,
        start: vs,
        end: ve,
        direct: true,
    })
}

/// `<td class="e">$_SERVER['DD_APP_KEY']</td><td class="v">…</td>` (phpinfo, an HTML
/// report): a table row whose cell names the secret; the next cell holds it.
pub(super) fn next_cell(b: &[u8], ke: usize, family: Family, kind: &'static str) -> Option<Found> {
    let close = run(&b[..(ke + 3).min(b.len())], ke, |c| {
        matches!(c, b'\'' | b'"' | b']')
    });
    let rest = &b[close..line_end(b, close, 512)];
    let after = [b"</td>".as_slice(), b"</th>"]
        .iter()
        .find(|t| rest.len() >= t.len() && rest[..t.len()].eq_ignore_ascii_case(t))?
        .len();
    let open = skip_ws(b, close + after, 16);
    if !b[open..].starts_with(b"<td") {
        return None;
    }
    let vs = open
        + b[open..line_end(b, open, 512)]
            .iter()
            .position(|&c| c == b'>')?
        + 1;
    let vs = skip_blanks(b, vs);
    let ve = run(&b[..line_end(b, vs, MAX_VALUE)], vs, |c| c != b'<');
    let ve = vs + b[vs..ve].trim_ascii_end().len();
    (b[ve..].starts_with(b"</") && plausible(&b[vs..ve], need_for(family))).then_some(Found {
        kind,
        start: vs,
        end: ve,
        direct: true,
    })
}
