//! Byte-level helpers every detector shares: character classes, runs, and the value tests
//! that tell a credential from a word, a path, a version, an id or a placeholder.

mod stop_words;

pub(super) use stop_words::is_stop_word;

/// How much the context already says "credential", and so how random a value must look.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Need {
    /// The key names a password: people choose those, so anything that is not a
    /// placeholder, a word of prose or a reference in code counts.
    Password,
    /// The key names a token, secret or key: the value must look machine-made.
    Token,
    /// Nothing but a nearby word says "secret": only a clearly random value counts.
    Strong,
}

pub(super) fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

pub(super) fn is_b64url(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-' || c == b'_'
}

pub(super) fn is_b64(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'+' || c == b'/' || c == b'='
}

pub(super) fn is_hex(c: u8) -> bool {
    c.is_ascii_hexdigit()
}

/// End of the run of bytes accepted by `pred` starting at `from`.
pub(super) fn run(b: &[u8], from: usize, pred: impl Fn(u8) -> bool) -> usize {
    let mut i = from;
    while i < b.len() && pred(b[i]) {
        i += 1;
    }
    i
}

/// Start of the run of bytes accepted by `pred` that ends at `to`, looking back no further
/// than `lo`.
pub(super) fn run_back(b: &[u8], to: usize, lo: usize, pred: impl Fn(u8) -> bool) -> usize {
    let mut i = to;
    while i > lo && pred(b[i - 1]) {
        i -= 1;
    }
    i
}

pub(super) fn at(b: &[u8], i: usize) -> Option<u8> {
    b.get(i).copied()
}

pub(super) fn before(b: &[u8], i: usize) -> Option<u8> {
    i.checked_sub(1).and_then(|j| b.get(j).copied())
}

/// No word character right before `i`: the token starts here, not mid-word.
pub(super) fn starts_word(b: &[u8], i: usize) -> bool {
    // `…\ndapi…` in a printf format or a JSON string: an escaped line break ends a word.
    let escaped_break = i >= 2 && b[i - 2] == b'\\' && matches!(b[i - 1], b'n' | b't' | b'r');
    !before(b, i).is_some_and(is_word) || escaped_break
}

pub(super) fn skip_blanks(b: &[u8], i: usize) -> usize {
    run(b, i, |c| c == b' ' || c == b'\t')
}

pub(super) fn has_digit(v: &[u8]) -> bool {
    v.iter().any(u8::is_ascii_digit)
}

pub(super) fn has_upper(v: &[u8]) -> bool {
    v.iter().any(u8::is_ascii_uppercase)
}

pub(super) fn has_lower(v: &[u8]) -> bool {
    v.iter().any(u8::is_ascii_lowercase)
}

pub(super) fn has_alpha(v: &[u8]) -> bool {
    v.iter().any(u8::is_ascii_alphabetic)
}

/// Start of the line holding `i`, looking back at most 512 bytes (a command line's head).
pub(super) fn line_start(b: &[u8], i: usize) -> usize {
    let lo = i.saturating_sub(512);
    b[lo..i]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(lo, |p| lo + p + 1)
}

/// End of the line holding `i`, looking ahead at most `max` bytes.
/// Where the content of the line starting at `ls` starts, after the line number a tool
/// prints before each line of a file (`    17\t`, `  17→`): indentation is measured from
/// there.
pub(super) fn line_body(b: &[u8], ls: usize) -> usize {
    let digits_at = run(b, ls, |c| c == b' ');
    let digits_end = run(b, digits_at, |c| c.is_ascii_digit());
    if digits_end == digits_at || digits_end - digits_at > 7 {
        return ls;
    }
    if at(b, digits_end) == Some(b'\t') {
        return digits_end + 1;
    }
    if b[digits_end..].starts_with("\u{2192}".as_bytes()) {
        return digits_end + "\u{2192}".len();
    }
    ls
}

pub(super) fn line_end(b: &[u8], i: usize, max: usize) -> usize {
    let hi = (i + max).min(b.len());
    b[i..hi]
        .iter()
        .position(|&c| c == b'\n' || c == b'\r')
        .map_or(hi, |p| i + p)
}

pub(super) fn contains_ci(hay: &[u8], needle: &[u8]) -> bool {
    needle.len() <= hay.len()
        && hay
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle))
}

/// Where `needle` first stands in `hay`, ASCII case ignored.
pub(super) fn find_ci(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || needle.len() > hay.len() {
        return None;
    }
    hay.windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
}

/// Where `needle` first occurs in `hay`. The first byte is compared alone before the
/// rest, so most windows cost one comparison, not a call to compare slices.
pub(super) fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let &first = needle.first()?;
    if needle.len() > hay.len() {
        return None;
    }
    hay.windows(needle.len())
        .position(|w| w[0] == first && w == needle)
}

/// Where `needle` last occurs in `hay` ([`find`] from the end).
pub(super) fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let &first = needle.first()?;
    if needle.len() > hay.len() {
        return None;
    }
    hay.windows(needle.len())
        .rposition(|w| w[0] == first && w == needle)
}

/// Shannon entropy of `v` in bits per byte.
pub(super) fn entropy(v: &[u8]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &c in v {
        counts[usize::from(c)] += 1;
    }
    let n = v.len() as f64;
    counts
        .iter()
        .filter(|&&k| k > 0)
        .map(|&k| {
            let p = f64::from(k) / n;
            -p * p.log2()
        })
        .sum()
}

/// A run of letters and digits that a machine made: mixed classes in random proportions,
/// not words, not an id in one case of hex. Separators are the caller's business.
pub(super) fn random_alnum(v: &[u8], min: usize) -> bool {
    if v.len() < min || !v.iter().all(u8::is_ascii_alphanumeric) {
        return false;
    }
    let n = v.len();
    let upper = v.iter().filter(|c| c.is_ascii_uppercase()).count();
    let lower = v.iter().filter(|c| c.is_ascii_lowercase()).count();
    let digit = n - upper - lower;
    if v.iter().all(|&c| is_hex(c)) && (upper == 0 || lower == 0) {
        // One-case hex: ids and digests look exactly like this, so only length speaks.
        return n >= 32 && digit > 0 && upper + lower > 0 && entropy(v) >= 3.3;
    }
    if upper > 0 && lower > 0 {
        // Words in camel case keep capitals apart and use vowels like language does;
        // random text puts capitals side by side and vowels in a fifth of its letters.
        let caps_together = v
            .windows(2)
            .filter(|w| w[0].is_ascii_uppercase() && w[1].is_ascii_uppercase())
            .count();
        let mixed = upper * 6 >= n && lower * 6 >= n;
        let wordy =
            vowel_share(v) >= 0.35 && caps_together <= 1 || caps_together == 0 && digit == 0;
        return mixed && !wordy && (digit > 0 || n >= 24) && entropy(v) >= 3.5;
    }
    // One case and digits: base36.
    digit * 10 >= n && (upper + lower) * 3 >= n && vowel_share(v) < 0.35 && entropy(v) >= 3.5
}

/// 20+ letters in one case with few vowels and no long repeats: what a generator of
/// one-case tokens prints (`nstocoghijunrlwnijzplxqeqjwbmaml`, an Erlang cookie).
/// Over 20 letters, chance alone puts a third of them among the vowels one time in
/// ten and repeats enough letters to bring entropy near 3.6 (at 0.3 and 3.8, only one
/// random 20-letter string in five passed); words in capitals stay above 0.34 or below
/// 3.5 (`CONFIGURATIONMANAGEMENT`, `MAINTENANCEWINDOWSTART`).
pub(super) fn random_letters(v: &[u8]) -> bool {
    v.len() >= 20
        && (v.iter().all(u8::is_ascii_lowercase) || v.iter().all(u8::is_ascii_uppercase))
        && vowel_share(v) < 0.34
        && entropy(v) >= 3.6
}

/// Share of vowels among the letters: about 0.4 in words, 0.2 in random letters.
fn vowel_share(v: &[u8]) -> f64 {
    let letters = v.iter().filter(|c| c.is_ascii_alphabetic()).count();
    if letters == 0 {
        return 0.0;
    }
    let vowels = v
        .iter()
        .filter(|c| matches!(c.to_ascii_lowercase(), b'a' | b'e' | b'i' | b'o' | b'u'))
        .count();
    vowels as f64 / letters as f64
}

/// `1.2.3`, `v2.0.1-beta.4+build.5`.
pub(super) fn is_version(v: &[u8]) -> bool {
    let v = v
        .strip_prefix(b"v")
        .or_else(|| v.strip_prefix(b"V"))
        .unwrap_or(v);
    let core_end = run(v, 0, |c| c.is_ascii_digit() || c == b'.');
    let core = &v[..core_end];
    core.first().is_some_and(u8::is_ascii_digit)
        && core.contains(&b'.')
        && (core_end == v.len() || matches!(v[core_end], b'-' | b'+'))
}

/// `8-4-4-4-12` hex.
pub(super) fn is_uuid(v: &[u8]) -> bool {
    v.len() == 36
        && v.iter().enumerate().all(|(i, &c)| match i {
            8 | 13 | 18 | 23 => c == b'-',
            _ => is_hex(c),
        })
}

/// `Linux-cargo-9f86d081…`, `node-modules-<hash>`: words and a digest, a cache key or an id.
pub(super) fn is_named_digest(v: &[u8]) -> bool {
    let mut parts = v.split(|&c| c == b'-' || c == b'_' || c == b'.');
    let Some(last) = v
        .rsplit(|&c| c == b'-' || c == b'_' || c == b'.')
        .next()
        .filter(|p| p.len() >= 7 && p.iter().all(|&c| is_hex(c)))
    else {
        return false;
    };
    let Some(name) = parts.next() else {
        return false;
    };
    // A name and one hash (`web-3f9a1c2`, `Linux-node-<sha256>`); a UUID or several
    // long hex parts after the name are a token's body (`sdk-<uuid>`,
    // `st.<uuid>.<hex>.<hex>`, `APP_USR-<hex>-…-<hex>`).
    let tail = v.get(name.len() + 1..).unwrap_or_default();
    let hashes = parts
        .filter(|p| p.len() >= 7 && p.iter().all(|&c| is_hex(c)))
        .count();
    // Digests are printed in lower case; `api-1D27A08A…` is a token's body. A short
    // prefix without a vowel before 32 hex (`fhb-<hex>`, `fc-<hex>`) is a vendor's
    // marker on a 128-bit token; a cache key's name is a word (`node-`, `web-`).
    let upper_hex = last.iter().any(u8::is_ascii_uppercase);
    let vendor_marker = name.len() <= 4
        && last.len() == 32
        && !name.iter().any(|c| {
            matches!(
                c.to_ascii_lowercase(),
                b'a' | b'e' | b'i' | b'o' | b'u' | b'y'
            )
        });
    !upper_hex
        && !vendor_marker
        && name.len() >= 2
        && name.iter().all(u8::is_ascii_alphabetic)
        && name.len() < v.len()
        && v.contains(&b'-')
        && !tail.get(..36).is_some_and(is_uuid)
        && hashes <= 1
}

/// A version, a date, a time, an IP address, a port mapping: digits and punctuation.
pub(super) fn is_numeric_shape(v: &[u8]) -> bool {
    // `0x7f0b2a79`: an integer written in hex, as code and resource tables do.
    if let Some(hex) = v.strip_prefix(b"0x")
        && hex.len() <= 16
        && hex.iter().all(u8::is_ascii_hexdigit)
    {
        return true;
    }
    let v = v.strip_prefix(b"v").unwrap_or(v);
    v.iter().all(|&c| {
        c.is_ascii_digit()
            || matches!(
                c,
                b'.' | b':' | b'-' | b'_' | b'/' | b'+' | b'T' | b'Z' | b','
            )
    })
}

/// `/etc/x`, `./x`, `~/x`, `C:\x`, `refs/heads/main`, `app.kubernetes.io/name`.
pub(super) fn is_path_like(v: &[u8]) -> bool {
    // `@/run/secrets/x`: curl's and many CLIs' "read the value from this file".
    if let Some(rest) = v.strip_prefix(b"@") {
        return rest.starts_with(b"/") && is_path_like(rest);
    }
    // Base64 may start with `/` too: padding, `+`, or a long random segment says which.
    let base64 = v.iter().all(|&c| is_b64(c))
        && (v.ends_with(b"=")
            || v.contains(&b'+')
            || v.split(|&c| c == b'/').any(|seg| random_alnum(seg, 16)));
    if base64 {
        return false;
    }
    // Paths do not hold the symbols people put in passwords (`/+!7y.$!@Pm…`).
    if v.iter()
        .any(|c| matches!(c, b'!' | b'*' | b'^' | b'@' | b'#' | b'?'))
    {
        return false;
    }
    if v.starts_with(b"/") || v.starts_with(b"./") || v.starts_with(b"../") || home_path(v) {
        return true;
    }
    // systemd's `LoadCredential=name:/etc/credstore/name`, a mount's `src:/dst`.
    let name_end = run(v, 0, |c| is_word(c) || matches!(c, b'-' | b'.'));
    if name_end > 0 && v[name_end..].starts_with(b":/") && !v[name_end..].starts_with(b"://") {
        return is_path_like(&v[name_end + 1..]);
    }
    if v.len() > 2 && v[0].is_ascii_alphabetic() && v[1] == b':' && matches!(v[2], b'\\' | b'/') {
        return true;
    }
    // `src\Api\Api.csproj`: a relative Windows path to a file.
    if v.contains(&b'\\') {
        let segs = v.split(|&c| c == b'\\');
        let file = v.rsplit(|&c| c == b'\\').next().unwrap_or_default();
        let ext = file.rsplit(|&c| c == b'.').next().unwrap_or_default();
        return segs.clone().all(|seg| {
            !seg.is_empty()
                && seg
                    .iter()
                    .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-' | b'_'))
                && !random_alnum(seg, 16)
        }) && file.contains(&b'.')
            && (1..=8).contains(&ext.len())
            && ext.iter().all(u8::is_ascii_alphanumeric);
    }
    // `src/Cobalt.Api`: segments of lower-case or capitalised words.
    v.contains(&b'/')
        && v.split(|&c| c == b'/').all(|seg| {
            seg.split(|&c| matches!(c, b'.' | b'-' | b'_')).all(|w| {
                w.iter()
                    .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit())
                    || camel_words(w)
            })
        })
}

/// `Cobalt`, `WebApi`: capitalised words glued, as names in code are; `Xk9Qp` is not.
fn camel_words(w: &[u8]) -> bool {
    !w.is_empty()
        && w[0].is_ascii_uppercase()
        && w.iter().all(u8::is_ascii_alphabetic)
        && w.windows(2)
            .all(|p| !(p[0].is_ascii_uppercase() && p[1].is_ascii_uppercase()))
}

/// `~`, `~/x`, `~deploy/x`: a home directory. A password may start with `~` too
/// (`~Vl.yAC7D_N…`): one with no `/` after a user name is not a path.
fn home_path(v: &[u8]) -> bool {
    let Some(rest) = v.strip_prefix(b"~") else {
        return false;
    };
    let user = run(rest, 0, |c| {
        c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'-' | b'_' | b'.')
    });
    rest.is_empty() || rest.get(user) == Some(&b'/')
}

const FILE_EXTENSIONS: &[&[u8]] = &[
    b".json",
    b".pem",
    b".key",
    b".crt",
    b".cer",
    b".p12",
    b".pfx",
    b".txt",
    b".yaml",
    b".yml",
    b".env",
    b".gpg",
    b".asc",
    b".pub",
    b".jks",
    b".keystore",
    b".ppk",
    b".toml",
    b".ini",
    b".conf",
    b".cfg",
    b".xml",
    b".properties",
    b".der",
    b".csr",
    b".kdbx",
    b".enc",
    b".age",
];

pub(super) fn is_file_name(v: &[u8]) -> bool {
    FILE_EXTENSIONS
        .iter()
        .any(|ext| v.len() > ext.len() && v[v.len() - ext.len()..].eq_ignore_ascii_case(ext))
}

/// `os.environ.TOKEN`, `config.secret`: a reference in code, not a value. A segment
/// with digits and both cases (`hvs.CAES…9fL`) is random, so not a name.
pub(super) fn is_dotted_identifier(v: &[u8]) -> bool {
    // A kubeadm bootstrap token, `[a-z0-9]{6}.[a-z0-9]{16}`, however few digits it drew.
    let bootstrap = v.len() == 23
        && v[6] == b'.'
        && v.iter()
            .enumerate()
            .all(|(i, &c)| i == 6 || c.is_ascii_lowercase() || c.is_ascii_digit());
    !bootstrap
        && v.contains(&b'.')
        && v.split(|&c| c == b'.').all(|part| {
            part.first()
                .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_')
                && part.iter().all(|&c| is_word(c))
                && !(has_digit(part) && has_upper(part) && has_lower(part))
                && !random_alnum(part, 16)
                // kubeadm's `abcdef.<16 random>`: a machine-made part.
                && !interleaved(part)
        })
}

/// `\"` or `\'` at `k`: a quote escaped inside a quoted string (JSON, YAML), which
/// closes a value quoted the same way.
pub(super) fn escaped_quote(b: &[u8], k: usize) -> bool {
    b.get(k) == Some(&b'\\') && matches!(b.get(k + 1), Some(b'"' | b'\''))
}

/// `c22mx5kumu7oaowm83i`: 12+ letters and digits mixed through the run, not a word
/// with a number after it (`sha256`, `utf8`, `v2`): a machine-made body.
pub(super) fn interleaved(w: &[u8]) -> bool {
    let digits = w.iter().filter(|c| c.is_ascii_digit()).count();
    let switches = w
        .windows(2)
        .filter(|p| p[0].is_ascii_digit() != p[1].is_ascii_digit())
        .count();
    w.len() >= 12 && w.iter().all(u8::is_ascii_alphanumeric) && digits >= 3 && switches >= 4
}

/// `$VAR`, `<your-key>`, `{{ tpl }}`, `[REDACTED:…]`: a value that stands for another.
pub(super) fn placeholder_start(c: u8) -> bool {
    matches!(c, b'$' | b'<' | b'{' | b'[')
}

/// YAML's `!tag`, `&anchor`, `*alias` (a name after the sigil), `***` masks, `%s` formats.
fn sigil_name(v: &[u8]) -> bool {
    let Some((&first, rest)) = v.split_first() else {
        return false;
    };
    match first {
        b'!' | b'&' | b'*' => {
            rest.first() == Some(&first)
                || !rest.is_empty() && rest.iter().all(|&c| c.is_ascii_alphabetic() || c == b'_')
        }
        b'%' => matches!(rest.first(), Some(b'(' | b'{' | b's' | b'd')),
        _ => false,
    }
}

/// Not a secret: a variable, a template, a mask, an example, or our own marker.
pub(super) fn is_placeholder(v: &[u8]) -> bool {
    let Some(&first) = v.first() else {
        return true;
    };
    if placeholder_start(first) && !braced_blob(v) && !dollar_token(v) || sigil_name(v) {
        return true;
    }
    if v.iter().all(|&c| c == first) || masked(v) {
        return true;
    }
    if v.iter().all(|&c| {
        matches!(
            c,
            b'*' | b'x' | b'X' | b'.' | b'#' | b'-' | b'_' | b'\xe2' | b'\x80' | b'\xa2'
        )
    }) {
        return true;
    }
    // `AKIAIOSFODNN7EXAMPLE`: documentation marks its sample keys in capitals.
    // GitLab's `[MASKED]`, a CI's `***`: the tool already hid the value.
    if contains_ci(v, b"redacted")
        || contains_ci(v, b"[masked")
        || contains_ci(v, b"example") && !has_digit(v)
        || find(v, b"EXAMPLE").is_some()
        || [
            b"dummy".as_slice(),
            b"placeholder",
            b"notreal",
            b"not-a-real",
            b"not_a_real",
        ]
        .iter()
        .any(|w| contains_ci(v, w))
    {
        return true;
    }
    if percent_variable(v)
        || angle_slot(v)
        || v == b"DATA+OMITTED"
        || v.starts_with(b"ENC[")
        || v.starts_with(b"ENC(")
        // Spring Cloud Config's encrypted property, opened by the config server.
        || v.starts_with(b"{cipher}")
        || is_reference(v)
        || delimited_name(v)
        || prefixed_filler(v)
        || elided_prefix(v)
        || sequential(v)
        || counted_hex_bytes(v)
        || filler_words(v)
        || sample_password(v)
        || PUBLISHED_EXAMPLES.iter().any(|x| v == x.as_bytes())
    {
        return true;
    }
    // The field's own name as its value: `user:password@`, `USER:PASSWORD@`.
    if [
        b"password".as_slice(),
        b"passwd",
        b"pass",
        b"pwd",
        b"secret",
        b"token",
        b"changeme",
        b"changeit",
        // Appliances' and routers' documented first login, SNMP's default communities.
        b"admin",
        b"public",
        b"private",
        // RabbitMQ's documented default login.
        b"guest",
        // The Android debug keystore's documented store and key password.
        b"android",
        b"foobar",
        b"foo",
        b"bar",
        b"baz",
        b"qux",
    ]
    .iter()
    .any(|w| v.eq_ignore_ascii_case(w))
    {
        return true;
    }
    contains_ci(v, b"your")
        && (contains_ci(v, b"token")
            || contains_ci(v, b"key")
            || contains_ci(v, b"password")
            || contains_ci(v, b"secret"))
}

/// `eyJhbGciOi….<payload>.<signature>`: a named slot in angle brackets anywhere in
/// the value, where documentation leaves a part out.
fn angle_slot(v: &[u8]) -> bool {
    v.iter().enumerate().any(|(i, &c)| {
        c == b'<' && {
            let name = run(v, i + 1, |c| {
                c.is_ascii_alphabetic() || matches!(c, b'_' | b'-' | b' ')
            });
            name >= i + 3 && at(v, name) == Some(b'>')
        }
    })
}

/// `@@PASSWORD@@`, `__DB_PASSWORD__`, `((db_password))`, `#{SECRET}#`: a name between
/// mirrored delimiters, the slot a deploy tool fills in. The delimiters are the
/// template sigils, not the `!` or `.` a person puts around a weak password, and the
/// name is words, not random.
fn delimited_name(v: &[u8]) -> bool {
    const SIGILS: &[u8] = b"@%#_~([{<$:";
    let mirror = |c: u8| match c {
        b'(' => b')',
        b'[' => b']',
        b'{' => b'}',
        b'<' => b'>',
        c => c,
    };
    let open = run(v, 0, |c| SIGILS.contains(&c));
    if !(1..=3).contains(&open) || v.len() < 2 * open + 2 {
        return false;
    }
    let inner = &v[open..v.len() - open];
    let closes = v[..open]
        .iter()
        .rev()
        .zip(&v[v.len() - open..])
        .all(|(&o, &c)| mirror(o) == c);
    closes
        && inner.first().is_some_and(u8::is_ascii_alphabetic)
        && inner.last().is_some_and(u8::is_ascii_alphanumeric)
        && inner
            .iter()
            .all(|&c| is_word(c) || matches!(c, b'.' | b'-'))
        && !inner
            .split(|&c| !c.is_ascii_alphanumeric())
            .any(|p| random_alnum(p, 12) || has_digit(p) && has_upper(p) && has_lower(p))
}

/// `ghp_xxxxxxxxxxxx`, `xoxb-0000-0000-xxxx`, `sk_live_****`: a vendor's prefix with a
/// filler body, however the value was cut around it.
fn prefixed_filler(v: &[u8]) -> bool {
    let mut i = 0;
    for _ in 0..3 {
        let w = run(v, i, |c| c.is_ascii_alphanumeric());
        if w == i || w - i > 12 || !matches!(at(v, w), Some(b'_' | b'-')) {
            break;
        }
        let body = &v[w + 1..];
        if body.len() >= 6 && is_filler(body) && body.iter().any(|&c| c != b'-' && c != b'_') {
            return true;
        }
        i = w + 1;
    }
    false
}

/// `sk-ant-api03-...`, `ghp_…`: a vendor's prefix and an ellipsis where the value would
/// be, the way documentation elides a key. A real value cut short keeps a random
/// segment longer than any prefix word before its ellipsis, and still counts.
fn elided_prefix(v: &[u8]) -> bool {
    // A sentence's full stop may have taken one of the three dots.
    let Some(head) = v
        .strip_suffix(b"..")
        .or_else(|| v.strip_suffix("\u{2026}".as_bytes()))
    else {
        return false;
    };
    let head = head.trim_ascii_end();
    let head = &head[..head.len() - head.iter().rev().take_while(|&&c| c == b'.').count()];
    !head.is_empty()
        && head
            .split(|&c| matches!(c, b'-' | b'_'))
            .all(|seg| seg.len() <= 6 && seg.iter().all(u8::is_ascii_alphanumeric))
}

/// `12345678`, `abc123xyz`, `abcd1234abcd1234`: characters counted up in runs of three
/// or more, the value a person types when any value will do; random text breaks the
/// count at nearly every character.
/// `●●●●●●`, `••••`, `∗∗∗∗`: a form's mask, in the characters UIs draw it with.
fn masked(v: &[u8]) -> bool {
    std::str::from_utf8(v).is_ok_and(|t| {
        t.chars().count() >= 3
            && t.chars()
                .all(|c| matches!(c, '●' | '•' | '∗' | '·' | '■' | '○' | '⬤' | '*'))
    })
        // An elided value: `sk-proj-…Q0kK`, shown shortened by the tool that owns it;
        // with ASCII dots (`eyJhbGciOi...`, `ya29.a0Af...x9Q`) when no piece left is
        // long enough to be a secret's worth.
        || std::str::from_utf8(v).is_ok_and(|t| t.contains('…'))
        || find(v, b"...").is_some() && v.split(|&c| c == b'.').all(|p| p.len() <= 16)
}

/// `000102…1e1f`: hex of bytes counted up, a test vector's key, not a secret.
fn counted_hex_bytes(v: &[u8]) -> bool {
    if v.len() < 16 || !v.len().is_multiple_of(2) || !v.iter().all(u8::is_ascii_hexdigit) {
        return false;
    }
    let byte = |i: usize| {
        std::str::from_utf8(&v[i..i + 2])
            .ok()
            .and_then(|h| u8::from_str_radix(h, 16).ok())
    };
    (2..v.len()).step_by(2).all(|i| {
        byte(i)
            .zip(byte(i - 2))
            .is_some_and(|(b, a)| b == a.wrapping_add(1))
    })
}

/// `REPLACE_ME`, `CHANGE_ME`, `fill-me-in`, `INSERT_KEY_HERE`: words that ask for a
/// value, joined the way a name is.
fn filler_words(v: &[u8]) -> bool {
    const ASKING: &[&[u8]] = &[
        b"replace", b"change", b"fill", b"insert", b"todo", b"fixme", b"tbd", b"here", b"put",
        b"enter", b"set",
    ];
    let parts: Vec<&[u8]> = v.split(|&c| matches!(c, b'_' | b'-' | b'.')).collect();
    parts.len() >= 2
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.iter().all(u8::is_ascii_alphabetic))
        && parts
            .iter()
            .any(|p| ASKING.iter().any(|w| p.eq_ignore_ascii_case(w)))
}

fn sequential(v: &[u8]) -> bool {
    if v.len() < 6 || !v.iter().all(u8::is_ascii_alphanumeric) {
        return false;
    }
    let mut run_len = 1;
    for w in v.windows(2) {
        if w[0].wrapping_add(1) == w[1] || w[0] == b'9' && w[1] == b'0' {
            run_len += 1;
        } else if run_len < 3 {
            return false;
        } else {
            run_len = 1;
        }
    }
    run_len >= 3
}

/// `Password1!`, `admin123`, `secret2`: a word that says "password" or "default" and
/// counted-up digits, the sample password of a tutorial.
/// Values printed in specifications as examples, quoted by every tutorial that follows
/// them: RFC 6749's tokens and client secret, RFC 6750's bearer token, RFC 7617's
/// `Aladdin:open sesame`, and Stellar's network passphrases (public constants every
/// client signs with).
const PUBLISHED_EXAMPLES: &[&str] = &[
    "2YotnFZFEjr1zCsicMWpAA",
    "tGzv3JOkF0XG5Qx2TlKWIA",
    "SplxlOBeZQQYbYS6WxSbIA",
    "czZCaGRSa3F0MzpnWDFmQmF0M2JW",
    "mF_9.B5f-4.1JqM",
    "QWxhZGRpbjpvcGVuIHNlc2FtZQ==",
    "Public Global Stellar Network ; September 2015",
    "Test SDF Network ; September 2015",
];

fn sample_password(v: &[u8]) -> bool {
    let word_end = run(v, 0, |c| c.is_ascii_alphabetic() || c == b'0');
    let word = &v[..word_end];
    let digits_end = run(v, word_end, |c| c.is_ascii_digit());
    let digits = &v[word_end..digits_end];
    let rest = &v[digits_end..];
    [
        b"password".as_slice(),
        b"passw0rd",
        b"secret",
        b"admin",
        b"changeme",
        b"welcome",
        b"test",
    ]
    .iter()
    .any(|w| word.eq_ignore_ascii_case(w))
        && !digits.is_empty()
        && digits.len() <= 6
        && digits.windows(2).all(|w| w[0] + 1 == w[1])
        && digits[0] <= b'1'
        && rest.len() <= 1
        && rest.iter().all(|c| matches!(c, b'!' | b'.' | b'#' | b'?'))
}

/// `{RoHaDyvhDV0t…=}`: Maven's encrypted password, base64 in braces, not a template's
/// `{name}` or `{{ var }}`.
fn braced_blob(v: &[u8]) -> bool {
    let Some(inner) = v.strip_prefix(b"{").and_then(|r| r.strip_suffix(b"}")) else {
        return false;
    };
    inner.len() >= 20
        && inner.iter().all(|&c| is_b64(c))
        && has_digit(inner)
        && has_upper(inner)
        && has_lower(inner)
}

/// `$aact_prod_<120 random>`: a token whose vendor starts it with `$`; no one names a
/// variable with a random run that long.
fn dollar_token(v: &[u8]) -> bool {
    v.strip_prefix(b"$").is_some_and(|rest| {
        rest.len() >= 32
            && rest.iter().all(|&c| is_word(c))
            && rest.split(|&c| c == b'_').any(|seg| random_alnum(seg, 24))
    })
}

/// `%DB_PASSWORD%`: a Windows `cmd` variable.
fn percent_variable(v: &[u8]) -> bool {
    v.len() >= 3
        && v.starts_with(b"%")
        && v.ends_with(b"%")
        && v[1..v.len() - 1].iter().all(|&c| is_word(c))
}

/// A filler body that stands for a token in documentation: `XXXX…`, `0000…`, `****`,
/// or two characters alternating — no issued token has two distinct bytes.
pub(super) fn is_filler(v: &[u8]) -> bool {
    let Some(&first) = v.first() else {
        return true;
    };
    let other = v.iter().find(|&&c| c != first).copied();
    v.iter().all(|&c| c == first || Some(c) == other)
        || v.iter()
            .all(|&c| matches!(c, b'x' | b'X' | b'0' | b'*' | b'.' | b'-' | b'_'))
        // `XXXX…_YYYY…` (a fine-grained GitHub token's two parts): each segment one
        // letter over and over.
        || v.split(|&c| c == b'_' || c == b'-')
            .all(|seg| seg.len() >= 4 && seg.iter().all(|&c| c == seg[0]))
}

/// A reference to a secret kept elsewhere, not the secret: a secret manager's URI
/// (`op://vault/item/field`, `vault://secret/app#password`, `sm://project/name`,
/// `ref+vault://…`) or a scheme and a path (`vault:secret/data/app#password`). The
/// path is lower-case words: a password with a colon and a slash has more in it. URLs
/// with credentials in them are `context.rs`'s, found before a value gets here.
pub(super) fn is_reference(v: &[u8]) -> bool {
    let scheme_end = run(v, 0, |c| {
        c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'+' | b'-' | b'.')
    });
    if scheme_end < 2 || at(v, scheme_end) != Some(b':') || !v[0].is_ascii_lowercase() {
        return false;
    }
    let scheme = &v[..scheme_end];
    if scheme == b"http" || scheme == b"https" {
        return false;
    }
    // openssl's pass-phrase sources other than `pass:`: a variable's name, a descriptor.
    let rest = &v[scheme_end + 1..];
    if scheme == b"env" && is_variable_name(rest) || scheme == b"fd" && is_digits(rest) {
        return true;
    }
    let slashes = v[scheme_end + 1..].starts_with(b"//");
    let path = v[scheme_end + 1..]
        .strip_prefix(b"//")
        .unwrap_or(&v[scheme_end + 1..]);
    // `dopplersecret://DB_PASSWORD`: a manager's scheme and the secret's name alone.
    let named = slashes
        && path.len() >= 3
        && path.iter().all(|&c| is_word(c) || c == b'-')
        && path.iter().any(u8::is_ascii_alphabetic)
        && !random_alnum(path, 12);
    named
        || path.contains(&b'/')
            && !path.contains(&b'@')
            && path.iter().all(|&c| {
                // 1Password's item names have blanks: `op://Prod/SMTP relay/api key`.
                c.is_ascii_alphanumeric()
                    || matches!(c, b'/' | b'.' | b'-' | b'_' | b'#' | b':')
                    || c == b' ' && slashes
            })
            && !path
                .split(|&c| !c.is_ascii_alphanumeric())
                .any(|seg| random_alnum(seg, 16))
}

/// `MY_PW`, `pw`: a name a shell or a program gives a variable.
fn is_variable_name(v: &[u8]) -> bool {
    v.first()
        .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_')
        && v.iter().all(|&c| is_word(c))
}

/// A run of ASCII digits, at least one.
fn is_digits(v: &[u8]) -> bool {
    !v.is_empty() && v.iter().all(u8::is_ascii_digit)
}

/// Whether `v` can be the value of a credential, given how sure the context is.
pub(super) fn plausible(v: &[u8], need: Need) -> bool {
    if v.is_empty() || v.len() > 8192 || is_placeholder(v) || is_stop_word(v) {
        return false;
    }
    if is_call(v) || is_dotted_identifier(v) && !dotted_passphrase(v) || is_lookup(v) {
        return false;
    }
    if v.starts_with(b"%s") || v.starts_with(b"${") || v.starts_with(b"#{") || is_pattern(v) {
        return false;
    }
    // `NX_USER`, `DB_PASS`: capitals joined by underscores, no digit, is a variable's
    // name (Jenkins' `usernameVariable: 'NX_USER'`), not its value.
    if v.len() <= 40
        && v.contains(&b'_')
        && v.split(|&c| c == b'_')
            .all(|p| p.len() >= 2 && p.iter().all(u8::is_ascii_uppercase))
    {
        return false;
    }
    // `b"1234…"` read from its prefix: the literal inside is the value, judged on its own.
    let prefix = run(v, 0, |c| c.is_ascii_alphabetic());
    if (1..=2).contains(&prefix) && matches!(at(v, prefix), Some(b'"' | b'\'')) {
        return false;
    }
    match need {
        Need::Password => {
            // Prose of many words is a sentence about the password, not the password.
            let sentence =
                v.contains(&b' ') && !has_digit(v) && v.split(|&c| c == b' ').count() > 6;
            let url = v.starts_with(b"http://") || v.starts_with(b"https://");
            !(v.len() < 3 || is_path_like(v) || url || sentence || is_command(v))
        }
        Need::Token | Need::Strong => {
            let strong = need == Need::Strong;
            let min = if strong { 12 } else { 8 };
            if v.len() < min
                || v.contains(&b' ')
                || v.contains(&b'\t')
                || is_path_like(v)
                || is_file_name(v)
                || is_email(v)
                || is_login_at_host(v)
                || v.windows(3).any(|w| w == b"://")
            {
                return false;
            }
            if v.iter().all(u8::is_ascii_digit) {
                return !strong && v.len() >= 20;
            }
            // `AADSTS50076`, `ORA12154`: capitals then digits, an error's code.
            let code = v.strip_suffix(b":").unwrap_or(v);
            let caps = run(code, 0, |c| c.is_ascii_uppercase());
            if code.len() <= 20
                && caps >= 2
                && code.len() > caps
                && code[caps..].iter().all(u8::is_ascii_digit)
            {
                return false;
            }
            if is_numeric_shape(v) || is_version(v) || is_named_digest(v) || encoded_path(v) {
                return false;
            }
            if strong && is_uuid(v) {
                return false;
            }
            let alpha = has_alpha(v);
            let symbols = v.iter().any(|c| !c.is_ascii_alphanumeric());
            let mixed = alpha && (has_digit(v) || symbols && v.len() >= 12);
            // Letters only: random only when the case flips like random text does, or,
            // in one case, when vowels are as rare as in random letters (a word has
            // about two in five) over a long run.
            if !has_digit(v) && !symbols && !random_alnum(v, 20) && !random_letters(v) {
                return false;
            }
            // Short one-case hex is an abbreviated hash or an id.
            let hex_id =
                v.len() < 16 && v.iter().all(|&c| is_hex(c)) && !(has_upper(v) && has_lower(v));
            if hex_id || looks_like_word_list(v) && !(need == Need::Token && is_passphrase(v)) {
                return false;
            }
            if is_passphrase(v) {
                return need == Need::Token;
            }
            let e = entropy(v);
            if strong {
                has_digit(v) && alpha && e >= 3.0
            } else {
                (mixed || v.len() >= 20) && e >= 2.5
            }
        }
    }
}

/// `^gh[pousr]_[A-Za-z0-9]{36}$`: a regular expression (a scanner's rule for a token's
/// shape), not a token: a character class with a range, a class escape, a counted
/// repeat after a class or a group, or a non-capturing group.
pub(super) fn is_pattern(v: &[u8]) -> bool {
    let range = v
        .windows(3)
        .any(|w| matches!(w, b"A-Z" | b"a-z" | b"0-9" | b"a-f" | b"A-F"))
        && v.contains(&b'[')
        && v.contains(&b']');
    let class_escape = v
        .windows(2)
        .any(|w| w[0] == b'\\' && matches!(w[1], b'd' | b'w' | b's' | b'S' | b'W'));
    let counted = v
        .windows(3)
        .any(|w| matches!(w[0], b']' | b')') && w[1] == b'{' && w[2].is_ascii_digit());
    range || class_escape && v.contains(&b'[') || counted || contains_ci(v, b"(?:")
}

/// `cat /etc/secret/pass`, `vault read -field=x secret/app`: a command whose output
/// becomes the value (a backquoted substitution), not the value: a lower-case program
/// name, then a path or a flag among its words.
fn is_command(v: &[u8]) -> bool {
    let mut words = v.split(|&c| c == b' ').filter(|w| !w.is_empty());
    let Some(program) = words.next() else {
        return false;
    };
    program.len() >= 2
        && program
            .iter()
            .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
        && words
            .any(|w| w.starts_with(b"-") && w.len() > 1 || w.starts_with(b"/") && is_path_like(w))
}

/// `L3JlZ2lzdHJ5L3BvZHMv…=`: base64 of a path (etcd's keys, an object name), which a
/// store prints encoded; no key or token decodes to `/registry/pods/…`.
fn encoded_path(v: &[u8]) -> bool {
    if v.len() < 16 || !v.starts_with(b"L") || !v.iter().all(|&c| is_b64(c)) {
        return false;
    }
    let d = b64_decode_prefix(v, 512);
    d.len() >= 8
        && d.iter().all(|c| c.is_ascii_graphic())
        && is_path_like(&d)
        && d.split(|&c| c == b'/').filter(|p| !p.is_empty()).count() >= 2
}

/// `ops@example.com`: a local part and a dotted domain of name characters.
pub(super) fn is_email(v: &[u8]) -> bool {
    let Some(at_sign) = v.iter().position(|&c| c == b'@') else {
        return false;
    };
    let (local, domain) = (&v[..at_sign], &v[at_sign + 1..]);
    !local.is_empty()
        && local
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'+' | b'-'))
        && domain.contains(&b'.')
        && domain
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-'))
}

/// `deploy@app-01`: ssh's, scp's and rsync's login and host, lower-case names on both
/// sides of the `@` (a host without a domain is no e-mail address, and no token).
pub(super) fn is_login_at_host(v: &[u8]) -> bool {
    let Some(at_sign) = v.iter().position(|&c| c == b'@') else {
        return false;
    };
    let name = |part: &[u8]| {
        part.first().is_some_and(u8::is_ascii_lowercase)
            && part.iter().all(|&c| {
                c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'.' | b'-' | b'_')
            })
            && !random_alnum(part, 12)
    };
    name(&v[..at_sign]) && name(&v[at_sign + 1..])
}

/// `getenv("X")`, `Read-Host()`: a call in code, not a value. A random value may hold
/// a parenthesis (`…IQ)z7p…`), but not start with a name and end with the call's `)`.
pub(super) fn is_call(v: &[u8]) -> bool {
    let name_end = run(v, 0, |c| {
        is_word(c) || matches!(c, b'.' | b':' | b'$' | b'-' | b'@')
    });
    // `jsondecode(…)["password"]`, `Rails.application.credentials.dig(:x,` (a value cut
    // at the blank between arguments): a call indexed, or a method called on a path.
    // `jsondecode(data.x.secret_string` (cut at the `)`): a call on a dotted path.
    let method = v[..name_end].contains(&b'.') && v[..name_end].iter().any(u8::is_ascii_alphabetic);
    let args = v.get(name_end + 1..).unwrap_or_default();
    let args = &args[..run(args, 0, |c| c != b')')];
    // `app_store_connect_api_key(key_id: …)` cut at the keyword's colon: a snake-case
    // function given a named argument.
    let keyword_argument = v[..name_end].contains(&b'_')
        && args.first().is_some_and(u8::is_ascii_lowercase)
        && args.iter().all(|&c| is_word(c))
        && v.len() == name_end + 1 + args.len();
    // `load_token(path=settings.TOKEN_FILE` (cut at the `)`): a named argument given a
    // name or a path, in Python's or Kotlin's syntax.
    let named_path = args.iter().position(|&c| c == b'=').is_some_and(|eq| {
        let (name, value) = (&args[..eq], &args[eq + 1..]);
        !name.is_empty()
            && name.iter().all(|&c| is_word(c))
            && (is_dotted_identifier(value) || is_variable_name(value))
    });
    let path_argument = is_dotted_identifier(args) || keyword_argument || named_path;
    matches!(v.first(), Some(b'(' | b')'))
        || at(v, name_end) == Some(b'(')
            && (v.ends_with(b")") || v.ends_with(b"]") || method || path_argument)
}

/// `os.environ[`, `$ENV{`, `ENV.fetch(`: a value cut at the bracket that opens the name
/// of a secret kept elsewhere.
fn is_lookup(v: &[u8]) -> bool {
    let Some((&last, name)) = v.split_last() else {
        return false;
    };
    matches!(last, b'[' | b'{' | b'(')
        && !name.is_empty()
        && name
            .iter()
            .all(|&c| is_word(c) || matches!(c, b'.' | b'$' | b':'))
}

/// `desert-pepper-harbor-4446`, `Otter.Nebula.Summit.80`: a generated passphrase —
/// three or more words of letters joined by one separator and a group of digits. A
/// value of this shape only counts where a key already names a secret; elsewhere it
/// is a name (`api-gateway-prod-01`).
pub(super) fn is_passphrase(v: &[u8]) -> bool {
    let Some(&sep) = v.iter().find(|&&c| matches!(c, b'-' | b'.' | b'_')) else {
        return false;
    };
    if v.len() < 16 {
        return false;
    }
    let (mut words, mut numbers) = (0, 0);
    for p in v.split(|&c| c == sep) {
        if (3..=12).contains(&p.len()) && p.iter().all(u8::is_ascii_alphabetic) {
            words += 1;
        } else if (2..=6).contains(&p.len()) && p.iter().all(u8::is_ascii_digit) {
            numbers += 1;
        } else {
            return false;
        }
    }
    words >= 3 && numbers >= 1
}

/// `desert delta rosemary basil ember cougar`: five to twelve lower-case words of three
/// to nine letters, one blank apart, none a word prose needs (`and`, `the`, `your`): a
/// diceware passphrase, when a name says passphrase.
pub(in crate::redact) fn is_spaced_passphrase(v: &[u8]) -> bool {
    let words: Vec<&[u8]> = v.split(|&c| c == b' ').collect();
    (5..=12).contains(&words.len())
        && words.iter().all(|w| {
            (3..=9).contains(&w.len())
                && w.iter().all(u8::is_ascii_lowercase)
                && !stop_words::is_stop_word(w)
        })
}

/// `violet.honey.dagger.beacon921`: three or more words joined by dots, a number glued
/// to the last: a generated passphrase, not a property path.
fn dotted_passphrase(v: &[u8]) -> bool {
    let parts: Vec<&[u8]> = v.split(|&c| c == b'.').collect();
    let Some((last, words)) = parts.split_last() else {
        return false;
    };
    let letters = last.iter().take_while(|c| c.is_ascii_alphabetic()).count();
    // `juniper.nimbus.fennel.3254`: the number its own part after three words.
    let numbered = words.len() >= 3
        && letters == 0
        && (2..=6).contains(&last.len())
        && last.iter().all(u8::is_ascii_digit)
        && words
            .iter()
            .all(|w| (3..=12).contains(&w.len()) && w.iter().all(u8::is_ascii_lowercase));
    numbered
        || words.len() >= 2
            && words
                .iter()
                .all(|w| (3..=12).contains(&w.len()) && w.iter().all(u8::is_ascii_alphabetic))
            && (3..=12).contains(&letters)
            && (2..=6).contains(&(last.len() - letters))
            && last[letters..].iter().all(u8::is_ascii_digit)
}

/// `some_function_name_2`, `my-service-v2`: words joined by separators, not random bytes.
pub(super) fn looks_like_word_list(v: &[u8]) -> bool {
    let parts: Vec<&[u8]> = v
        .split(|&c| matches!(c, b'_' | b'-' | b'.' | b':'))
        .filter(|p| !p.is_empty())
        .collect();
    // Words have about two vowels in five; random capitals (`SXXEHQDOYP-SRMG…`, a
    // license key's groups) one in five.
    let letters = v.iter().filter(|c| c.is_ascii_alphabetic()).count();
    let vowels = v
        .iter()
        .filter(|c| matches!(c.to_ascii_lowercase(), b'a' | b'e' | b'i' | b'o' | b'u'))
        .count();
    let random = letters >= 20 && (vowels as f32) < 0.25 * letters as f32;
    parts.len() >= 2
        && !random
        && parts.iter().all(|p| {
            p.len() <= 12
                && (p.iter().all(u8::is_ascii_alphabetic)
                    || p.iter().all(u8::is_ascii_digit)
                    || p.len() <= 3)
        })
}

/// Decodes the start of a standard or URL-safe base64 run into at most `max` bytes.
pub(super) fn b64_decode_prefix(v: &[u8], max: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(max.min(v.len()));
    let mut acc = 0u32;
    let mut bits = 0;
    for &c in v {
        let d = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => break,
        };
        acc = (acc << 6) | u32::from(d);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            if out.len() >= max {
                break;
            }
        }
    }
    out
}

/// A random value that happens to start with `-` (`--token -0g5g…`), not another flag.
pub(super) fn dash_random(b: &[u8], i: usize) -> bool {
    let end = run(&b[..(i + 512).min(b.len())], i, |c| {
        !c.is_ascii_whitespace()
    });
    let w = &b[i..end];
    w.len() >= 17 && w[1] != b'-' && !w.contains(&b'=') && plausible(&w[1..], Need::Strong)
}

/// Supabase's anon key: a JWT whose payload gives the `anon` role, documented as the
/// key that ships in the page (row-level security guards the data, not the key).
pub(super) fn anon_payload(payload: &[u8]) -> bool {
    let json = b64_decode_prefix(payload, 512);
    let compact: Vec<u8> = json.iter().copied().filter(|c| *c != b' ').collect();
    find(&compact, b"\"role\":\"anon\"").is_some()
        // jwt.io's example token, the one documentation everywhere copies: John Doe's.
        || find(&compact, b"\"name\":\"JohnDoe\"").is_some()
            && find(&compact, b"\"iat\":1516239022").is_some()
}

#[cfg(test)]
mod tests;
