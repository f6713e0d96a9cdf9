//! The detectors behind the redactor: one aho-corasick pass over literal anchors, then a
//! hand-written validator per anchor that inspects the bytes around the hit. No regex.

use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};

/// A possible secret; the resolver in `mod.rs` picks non-overlapping ones by priority.
#[derive(Debug, Clone, Copy)]
pub(super) struct Candidate {
    pub kind: &'static str,
    pub start: usize,
    pub end: usize,
    pub priority: u8,
}

/// A known token format: its prefix alone says "credential".
const SPECIFIC: u8 = 3;
/// A credential position (URL userinfo, Authorization header, connection string).
const CONTEXT: u8 = 2;
/// A `key = value` assignment whose key names a secret.
const ASSIGNMENT: u8 = 1;

#[derive(Clone, Copy)]
enum Body {
    /// `[A-Za-z0-9]`
    Alnum,
    /// `[A-Za-z0-9_]`
    Word,
    /// `[A-Za-z0-9_-]` (base64url)
    B64Url,
    /// `[A-Za-z0-9_.-]`
    B64UrlDot,
    /// `[A-Za-z0-9-]`
    AlnumDash,
    /// `[A-Z0-9]`
    Upper,
}

impl Body {
    fn accepts(self, c: u8) -> bool {
        match self {
            Body::Alnum => c.is_ascii_alphanumeric(),
            Body::Word => is_word(c),
            Body::B64Url => is_b64url(c),
            Body::B64UrlDot => is_b64url(c) || c == b'.',
            Body::AlnumDash => c.is_ascii_alphanumeric() || c == b'-',
            Body::Upper => c.is_ascii_uppercase() || c.is_ascii_digit(),
        }
    }
}

/// Extra shape check on a prefixed token's body.
#[derive(Clone, Copy)]
enum Shape {
    Any,
    HasDigit,
    MixedCase,
}

#[derive(Clone, Copy)]
struct Prefixed {
    kind: &'static str,
    body: Body,
    min: usize,
    max: usize,
    shape: Shape,
    /// Also look for the AWS secret key that usually travels with an access key id.
    aws_pair: bool,
}

/// What a keyword names, which decides the kind and how strict the value check is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Family {
    Password,
    /// `pwd` is also the shell's working directory; only `FOO_PWD=` counts.
    Pwd,
    Token,
    Secret,
    ApiKey,
    AccessKey,
    PrivateKey,
    /// `"auth": "<base64>"` (docker config) and `_auth=` (.npmrc).
    Auth,
}

#[derive(Clone, Copy)]
enum Anchor {
    Prefixed(Prefixed),
    OpenAi,
    Jwt,
    Pem,
    SlackWebhook,
    Azure,
    SasSignature,
    Url,
    AuthHeader,
    Bearer,
    CurlUser,
    Keyword(Family),
    Marker,
}

const fn token(kind: &'static str, body: Body, min: usize, max: usize, shape: Shape) -> Anchor {
    Anchor::Prefixed(Prefixed {
        kind,
        body,
        min,
        max,
        shape,
        aws_pair: false,
    })
}

const fn aws(kind: &'static str) -> Anchor {
    Anchor::Prefixed(Prefixed {
        kind,
        body: Body::Upper,
        min: 16,
        max: 16,
        shape: Shape::Any,
        aws_pair: true,
    })
}

const MAX: usize = usize::MAX;

const AWS_KEY_ID: Anchor = aws("aws-access-key-id");
const GITHUB: Anchor = token("github-token", Body::Alnum, 30, MAX, Shape::Any);
const GITHUB_PAT: Anchor = token("github-token", Body::Word, 30, MAX, Shape::Any);
const GITLAB: Anchor = token("gitlab-token", Body::B64UrlDot, 20, MAX, Shape::Any);
const SLACK: Anchor = token("slack-token", Body::AlnumDash, 10, MAX, Shape::HasDigit);
const STRIPE: Anchor = token("stripe-key", Body::Alnum, 16, MAX, Shape::Any);
const STRIPE_WEBHOOK: Anchor = token("stripe-key", Body::Alnum, 24, MAX, Shape::Any);
/// Google API keys are exactly 39 characters.
const GOOGLE: Anchor = token("google-api-key", Body::B64Url, 35, 35, Shape::Any);
const NPM: Anchor = token("npm-token", Body::Alnum, 36, 36, Shape::Any);
const PYPI: Anchor = token("pypi-token", Body::B64Url, 50, MAX, Shape::Any);
const DOCKER: Anchor = token("docker-token", Body::B64Url, 20, MAX, Shape::Any);
const HUGGING_FACE: Anchor = token("huggingface-token", Body::Alnum, 30, 40, Shape::MixedCase);
/// HashiCorp Vault service, batch and recovery tokens.
const VAULT: Anchor = token("vault-token", Body::B64Url, 20, MAX, Shape::HasDigit);
const PASSWORD: Anchor = Anchor::Keyword(Family::Password);
const API_KEY: Anchor = Anchor::Keyword(Family::ApiKey);
const ACCESS_KEY: Anchor = Anchor::Keyword(Family::AccessKey);
const PRIVATE_KEY: Anchor = Anchor::Keyword(Family::PrivateKey);

/// Every anchor, matched ASCII-case-insensitively; validators re-check case where it matters.
#[rustfmt::skip]
const ANCHORS: &[(&str, Anchor)] = &[
    // AWS access key ids: the 4-character prefix names the key type.
    ("AKIA", AWS_KEY_ID), ("ASIA", AWS_KEY_ID), ("AGPA", AWS_KEY_ID), ("AIDA", AWS_KEY_ID),
    ("AROA", AWS_KEY_ID), ("AIPA", AWS_KEY_ID), ("ANPA", AWS_KEY_ID), ("ANVA", AWS_KEY_ID),
    ("ABIA", AWS_KEY_ID), ("ACCA", AWS_KEY_ID),
    ("ghp_", GITHUB), ("gho_", GITHUB), ("ghu_", GITHUB), ("ghs_", GITHUB), ("ghr_", GITHUB),
    ("github_pat_", GITHUB_PAT),
    ("glpat-", GITLAB), ("gldt-", GITLAB), ("glrt-", GITLAB), ("glptt-", GITLAB),
    ("glft-", GITLAB), ("glsoat-", GITLAB), ("glcbt-", GITLAB), ("glimt-", GITLAB),
    ("glagent-", GITLAB), ("gloas-", GITLAB),
    ("xoxb-", SLACK), ("xoxp-", SLACK), ("xoxa-", SLACK), ("xoxr-", SLACK), ("xoxs-", SLACK),
    ("xoxe-", SLACK), ("xapp-", SLACK),
    ("hooks.slack.com/", Anchor::SlackWebhook),
    ("sk_live_", STRIPE), ("sk_test_", STRIPE), ("rk_live_", STRIPE), ("rk_test_", STRIPE),
    ("whsec_", STRIPE_WEBHOOK),
    // OpenAI and Anthropic share `sk-`.
    ("sk-", Anchor::OpenAi),
    ("AIza", GOOGLE),
    ("npm_", NPM),
    ("pypi-Ag", PYPI),
    ("dckr_pat_", DOCKER), ("dckr_oat_", DOCKER),
    ("hf_", HUGGING_FACE),
    ("hvs.", VAULT), ("hvb.", VAULT), ("hvr.", VAULT),
    // Structured credentials and credential positions.
    ("eyJ", Anchor::Jwt),
    ("-----BEGIN ", Anchor::Pem),
    ("AccountKey=", Anchor::Azure), ("SharedAccessKey=", Anchor::Azure),
    ("sig=", Anchor::SasSignature),
    ("://", Anchor::Url),
    ("authorization", Anchor::AuthHeader),
    ("bearer ", Anchor::Bearer),
    ("-u", Anchor::CurlUser), ("--user", Anchor::CurlUser),
    // Assignment keywords.
    ("password", PASSWORD), ("passwd", PASSWORD), ("passphrase", PASSWORD),
    ("pwd", Anchor::Keyword(Family::Pwd)),
    ("secret", Anchor::Keyword(Family::Secret)),
    ("token", Anchor::Keyword(Family::Token)),
    ("api_key", API_KEY), ("api-key", API_KEY), ("apikey", API_KEY),
    ("access_key", ACCESS_KEY), ("access-key", ACCESS_KEY), ("accesskey", ACCESS_KEY),
    ("private_key", PRIVATE_KEY), ("private-key", PRIVATE_KEY), ("privatekey", PRIVATE_KEY),
    ("auth", Anchor::Keyword(Family::Auth)),
    // Our own output, which must never be found again.
    ("[REDACTED:", Anchor::Marker),
];

pub(super) static AUTOMATON: LazyLock<AhoCorasick> = LazyLock::new(|| {
    AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::Standard)
        // The capture hook is a one-shot process that redacts a few KiB: the
        // build dominates there. A contiguous NFA builds several times faster
        // than a DFA (measured: ~2.9 M instructions for the DFA, about 1 ms of
        // the hook's failure path) and scans ~25 us per 4 KiB, which is still
        // small next to a sync's git work.
        .kind(Some(AhoCorasickKind::ContiguousNFA))
        .build(ANCHORS.iter().map(|(pattern, _)| pattern))
        .expect("the anchors are fixed short literals, which always build")
});

/// Builds the automaton now rather than on the first scan.
pub(super) fn warm_up() {
    LazyLock::force(&AUTOMATON);
}

/// Finds every candidate secret and every redaction marker in `text`.
pub(super) fn scan(text: &str, out: &mut Vec<Candidate>, markers: &mut Vec<(usize, usize)>) {
    let b = text.as_bytes();
    // How far each run-scanning detector has already looked: a later hit inside that
    // stretch would rescan it (quadratic on `password=password=…`) and find a sub-range.
    let mut reach = Reach::default();
    for m in AUTOMATON.find_overlapping_iter(text) {
        let Some(&(literal, anchor)) = ANCHORS.get(m.pattern().as_usize()) else {
            continue;
        };
        let (s, e) = (m.start(), m.end());
        match anchor {
            Anchor::Prefixed(p) => prefixed(b, s, e, literal, p, out),
            Anchor::OpenAi if s >= reach.openai => push(out, openai(b, s, e, &mut reach.openai)),
            Anchor::Jwt => push(out, jwt(b, s)),
            Anchor::Pem if s >= reach.pem => push(out, pem(text, s, e, &mut reach.pem)),
            Anchor::SlackWebhook => push(out, slack_webhook(b, s, e)),
            Anchor::Azure => push(out, azure(b, s, e)),
            Anchor::SasSignature => push(out, sas_signature(b, s, e)),
            Anchor::Url => push(out, url_credentials(b, s, e)),
            Anchor::AuthHeader if s >= reach.header => {
                push(out, auth_header(b, s, e, &mut reach.header))
            }
            Anchor::Bearer => push(out, bearer(b, s, e)),
            Anchor::CurlUser => push(out, curl_user(b, s, e)),
            Anchor::Keyword(family) if s >= reach.value => {
                push(out, assignment(b, s, e, family, &mut reach.value))
            }
            Anchor::Marker => {
                if let Some(end) = marker_end(b, e) {
                    markers.push((s, end));
                }
            }
            Anchor::OpenAi | Anchor::Pem | Anchor::AuthHeader | Anchor::Keyword(_) => {}
        }
    }
}

/// Per detector, the end of the furthest stretch already scanned.
#[derive(Default)]
struct Reach {
    openai: usize,
    pem: usize,
    header: usize,
    value: usize,
}

/// Longest key (`FOO_BAR_TOKEN`) an assignment may have; bounds the scan around a keyword.
const MAX_KEY: usize = 256;

fn push(out: &mut Vec<Candidate>, c: Option<Candidate>) {
    if let Some(c) = c {
        out.push(c);
    }
}

fn cand(kind: &'static str, start: usize, end: usize, priority: u8) -> Option<Candidate> {
    (start < end).then_some(Candidate {
        kind,
        start,
        end,
        priority,
    })
}

// ---------------------------------------------------------------------------
// Byte helpers

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn is_b64url(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-' || c == b'_'
}

fn is_b64(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'+' || c == b'/' || c == b'='
}

/// End of the run of bytes accepted by `pred` starting at `from`.
fn run(b: &[u8], from: usize, pred: impl Fn(u8) -> bool) -> usize {
    let mut i = from;
    while i < b.len() && pred(b[i]) {
        i += 1;
    }
    i
}

fn at(b: &[u8], i: usize) -> Option<u8> {
    b.get(i).copied()
}

fn before(b: &[u8], i: usize) -> Option<u8> {
    i.checked_sub(1).and_then(|j| b.get(j).copied())
}

/// No word character right before `i`: the token starts here, not mid-word.
fn starts_word(b: &[u8], i: usize) -> bool {
    !before(b, i).is_some_and(is_word)
}

fn skip_blanks(b: &[u8], i: usize) -> usize {
    run(b, i, |c| c == b' ' || c == b'\t')
}

fn has_digit(v: &[u8]) -> bool {
    v.iter().any(u8::is_ascii_digit)
}

fn has_upper(v: &[u8]) -> bool {
    v.iter().any(u8::is_ascii_uppercase)
}

fn has_lower(v: &[u8]) -> bool {
    v.iter().any(u8::is_ascii_lowercase)
}

/// Start of the line holding `i`, looking back at most 512 bytes (a command line's head).
fn line_start(b: &[u8], i: usize) -> usize {
    let lo = i.saturating_sub(512);
    b[lo..i]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(lo, |p| lo + p + 1)
}

fn contains_ci(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle))
}

/// End of a `[REDACTED:kind]` marker whose `[REDACTED:` ends at `e`.
pub(super) fn marker_end(b: &[u8], e: usize) -> Option<usize> {
    if b.get(e - "[REDACTED:".len()..e) != Some(b"[REDACTED:".as_slice()) {
        return None;
    }
    let k = run(b, e, |c| {
        c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-'
    });
    (k > e && k - e <= 40 && at(b, k) == Some(b']')).then_some(k + 1)
}

// ---------------------------------------------------------------------------
// Token formats

fn prefixed(b: &[u8], s: usize, e: usize, literal: &str, p: Prefixed, out: &mut Vec<Candidate>) {
    // The automaton is case-insensitive; token prefixes are not.
    if b[s..e] != *literal.as_bytes() || !starts_word(b, s) {
        return;
    }
    let mut end = run(b, e, |c| p.body.accepts(c));
    if matches!(p.body, Body::B64UrlDot) {
        while end > e && matches!(b[end - 1], b'.' | b'-') {
            end -= 1;
        }
    }
    let body = &b[e..end];
    if body.len() < p.min || body.len() > p.max {
        return;
    }
    // A neighbouring word character means this is part of something longer.
    if at(b, end).is_some_and(|c| is_word(c) && !p.body.accepts(c))
        && !matches!(p.body, Body::B64UrlDot)
    {
        return;
    }
    let shape_ok = match p.shape {
        Shape::Any => true,
        Shape::HasDigit => has_digit(body),
        Shape::MixedCase => has_upper(body) && has_lower(body),
    };
    if !shape_ok {
        return;
    }
    push(out, cand(p.kind, s, end, SPECIFIC));
    if p.aws_pair {
        push(out, aws_secret_near(b, end));
    }
}

/// A 40-character AWS secret key within a short distance after an access key id.
fn aws_secret_near(b: &[u8], from: usize) -> Option<Candidate> {
    let limit = (from + 120).min(b.len());
    let mut i = from;
    while i < limit {
        if !is_b64(b[i]) || b[i] == b'=' {
            i += 1;
            continue;
        }
        let end = run(b, i, |c| {
            c.is_ascii_alphanumeric() || c == b'+' || c == b'/'
        });
        let v = &b[i..end];
        let bounded = !before(b, i).is_some_and(is_b64) && !at(b, end).is_some_and(is_word);
        if bounded
            && v.len() == 40
            && has_upper(v)
            && has_lower(v)
            && (has_digit(v) || v.contains(&b'/') || v.contains(&b'+'))
        {
            return cand("aws-secret-key", i, end, SPECIFIC);
        }
        i = end.max(i + 1);
    }
    None
}

fn openai(b: &[u8], s: usize, e: usize, reach: &mut usize) -> Option<Candidate> {
    if &b[s..e] != b"sk-" || before(b, s).is_some_and(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    let end = run(b, e, is_b64url);
    *reach = end;
    if b[e..].starts_with(b"ant-") {
        return (end - e - 4 >= 20).then(|| cand("anthropic-key", s, end, SPECIFIC))?;
    }
    let body = &b[e..end];
    (body.len() >= 20 && has_digit(body) && has_upper(body) && has_lower(body))
        .then(|| cand("openai-key", s, end, SPECIFIC))?
}

/// `eyJ<header>.eyJ<payload>.<signature>` (three or five dot-separated parts).
fn jwt(b: &[u8], s: usize) -> Option<Candidate> {
    if !b[s..].starts_with(b"eyJ") || before(b, s).is_some_and(|c| is_b64url(c) || c == b'.') {
        return None;
    }
    let h_end = run(b, s, is_b64url);
    if h_end - s < 10 || at(b, h_end) != Some(b'.') || !b[h_end + 1..].starts_with(b"eyJ") {
        return None;
    }
    let p_end = run(b, h_end + 1, is_b64url);
    if p_end - h_end - 1 < 10 || at(b, p_end) != Some(b'.') {
        return None;
    }
    let mut end = run(b, p_end + 1, is_b64url);
    // JWE has two more parts.
    for _ in 0..2 {
        if at(b, end) == Some(b'.') && at(b, end + 1).is_some_and(is_b64url) {
            end = run(b, end + 1, is_b64url);
        }
    }
    cand("jwt", s, end, SPECIFIC)
}

/// A PEM private key block (any algorithm, PGP too), BEGIN to END or to the end of text.
fn pem(text: &str, s: usize, e: usize, reach: &mut usize) -> Option<Candidate> {
    let b = text.as_bytes();
    if &b[s..e] != b"-----BEGIN " {
        return None;
    }
    let label_end = run(b, e, |c| {
        c.is_ascii_uppercase() || c.is_ascii_digit() || c == b' '
    });
    let label = &b[e..label_end];
    if !b[label_end..].starts_with(b"-----") || !contains_ci(label, b"PRIVATE KEY") {
        return None;
    }
    let mut from = label_end + 5;
    while let Some(off) = text.get(from..).and_then(|t| t.find("-----END ")) {
        let l = from + off + "-----END ".len();
        if b[l..].starts_with(label) && b[l + label.len()..].starts_with(b"-----") {
            *reach = l + label.len() + 5;
            return cand("private-key", s, *reach, SPECIFIC);
        }
        from = l;
    }
    *reach = b.len();
    cand("private-key", s, b.len(), SPECIFIC)
}

fn slack_webhook(b: &[u8], _s: usize, e: usize) -> Option<Candidate> {
    let path = ["services/", "workflows/", "triggers/"]
        .iter()
        .find(|p| b[e..].starts_with(p.as_bytes()))?;
    let start = e + path.len();
    let end = run(b, start, |c| is_b64url(c) || c == b'/');
    (end - start >= 20).then(|| cand("slack-webhook", start, end, SPECIFIC))?
}

/// `AccountKey=` / `SharedAccessKey=` in an Azure connection string.
fn azure(b: &[u8], s: usize, e: usize) -> Option<Candidate> {
    if before(b, s).is_some_and(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    let end = run(b, e, |c| is_b64(c) || c == b'%');
    (end - e >= 16).then(|| cand("azure-key", e, end, SPECIFIC))?
}

/// The `sig=` of an Azure SAS URL or token.
fn sas_signature(b: &[u8], s: usize, e: usize) -> Option<Candidate> {
    if !matches!(before(b, s), Some(b'?' | b'&' | b';')) {
        return None;
    }
    let end = run(b, e, |c| is_b64(c) || c == b'%');
    (end - e >= 20).then(|| cand("azure-key", e, end, SPECIFIC))?
}

// ---------------------------------------------------------------------------
// Credential positions

/// `scheme://user:password@host` — only the password (or a lone token user) goes.
fn url_credentials(b: &[u8], s: usize, e: usize) -> Option<Candidate> {
    let scheme_start = b[..s]
        .iter()
        .rposition(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-')))
        .map_or(0, |p| p + 1);
    if scheme_start == s || !b[scheme_start].is_ascii_alphabetic() {
        return None;
    }
    let auth_end = run(b, e, |c| {
        !(c.is_ascii_whitespace()
            || matches!(
                c,
                b'/' | b'?' | b'#' | b'"' | b'\'' | b'`' | b'<' | b'>' | b'\\'
            ))
    });
    let at_sign = b[e..auth_end].iter().rposition(|&c| c == b'@')? + e;
    let userinfo = &b[e..at_sign];
    match userinfo.iter().position(|&c| c == b':') {
        Some(colon) => {
            let start = e + colon + 1;
            let pass = &b[start..at_sign];
            (!is_placeholder(pass)).then(|| cand("url-password", start, at_sign, CONTEXT))?
        }
        None => {
            let looks_like_token = userinfo.len() >= 20
                && has_digit(userinfo)
                && userinfo.iter().any(u8::is_ascii_alphabetic)
                && !is_placeholder(userinfo);
            looks_like_token.then(|| cand("url-password", e, at_sign, CONTEXT))?
        }
    }
}

const AUTH_SCHEMES: &[&[u8]] = &[
    b"bearer",
    b"basic",
    b"token",
    b"bot",
    b"apikey",
    b"api-key",
    b"key",
    b"sso-key",
    b"negotiate",
    b"ntlm",
];

/// `Authorization: <scheme> <credential>` in any quoting (HTTP, curl -H, JSON, YAML).
fn auth_header(b: &[u8], s: usize, e: usize, reach: &mut usize) -> Option<Candidate> {
    if before(b, s).is_some_and(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    let mut i = e;
    if matches!(at(b, i), Some(b'"' | b'\'')) {
        i += 1;
    }
    i = skip_blanks(b, i);
    if !matches!(at(b, i), Some(b':' | b'=')) {
        return None;
    }
    i = skip_blanks(b, i + 1);
    if matches!(at(b, i), Some(b'"' | b'\'')) {
        i += 1;
    }
    let word_end = run(b, i, |c| c.is_ascii_alphanumeric() || c == b'-');
    let scheme = &b[i..word_end];
    let known = AUTH_SCHEMES.iter().any(|k| scheme.eq_ignore_ascii_case(k));
    let start = if known && at(b, word_end) == Some(b' ') {
        skip_blanks(b, word_end)
    } else if known {
        return None;
    } else {
        i
    };
    let end = run(b, start, |c| {
        !(c.is_ascii_whitespace() || matches!(c, b'"' | b'\'' | b'`' | b',' | b';'))
    });
    *reach = end;
    let cred = &b[start..end];
    if is_placeholder(cred) || !(known || cred.len() >= 8 && has_digit(cred)) {
        return None;
    }
    cand("auth-header", start, end, CONTEXT)
}

/// A bare `Bearer <token>` outside an Authorization header.
fn bearer(b: &[u8], s: usize, e: usize) -> Option<Candidate> {
    if before(b, s).is_some_and(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    let start = skip_blanks(b, e);
    let end = run(b, start, |c| {
        !(c.is_ascii_whitespace() || matches!(c, b'"' | b'\'' | b'`' | b',' | b';'))
    });
    let cred = &b[start..end];
    (cred.len() >= 16
        && has_digit(cred)
        && cred.iter().any(u8::is_ascii_alphabetic)
        && !is_placeholder(cred))
    .then(|| cand("auth-header", start, end, CONTEXT))?
}

/// `curl -u user:password` / `--user user:password`: the password goes, the user stays.
fn curl_user(b: &[u8], s: usize, e: usize) -> Option<Candidate> {
    if !before(b, s).is_some_and(|c| c == b' ' || c == b'\t') {
        return None;
    }
    let long = b[s..e].eq_ignore_ascii_case(b"--user");
    let mut i = e;
    if long && at(b, i) == Some(b'=') {
        i += 1;
    } else if long && !matches!(at(b, i), Some(b' ' | b'\t')) {
        return None;
    }
    i = skip_blanks(b, i);
    let quote = at(b, i).filter(|c| matches!(c, b'"' | b'\''));
    if quote.is_some() {
        i += 1;
    }
    let stop = |c: u8| c.is_ascii_whitespace() || matches!(c, b'"' | b'\'');
    let colon = run(b, i, |c| !(stop(c) || c == b':'));
    if at(b, colon) != Some(b':') {
        return None;
    }
    let line = &b[line_start(b, s)..s];
    if !contains_ci(line, b"curl") {
        return None;
    }
    let start = colon + 1;
    let end = match quote {
        Some(q) => run(b, start, |c| c != q && c != b'\n'),
        None => run(b, start, |c| !stop(c)),
    };
    let pass = &b[start..end];
    (!is_placeholder(pass)).then(|| cand("password", start, end, CONTEXT))?
}

// ---------------------------------------------------------------------------
// Assignments: `KEY=value`, `key: value`, `"key": "value"`, `--key value`, ...

/// What may follow the keyword inside the key (`SECRET_KEY`, `private_key_id`, ...).
fn rest_allowed(rest: &[u8], family: Family) -> bool {
    let mut norm = [0u8; 16];
    let mut n = 0;
    for &c in rest {
        if matches!(c, b'_' | b'-' | b'.') {
            continue;
        }
        if n == norm.len() {
            return false;
        }
        norm[n] = c.to_ascii_lowercase();
        n += 1;
    }
    let rest = &norm[..n];
    match family {
        Family::PrivateKey => matches!(rest, b"" | b"id"),
        Family::Auth => rest.is_empty(),
        _ => matches!(rest, b"" | b"key" | b"keybase" | b"value"),
    }
}

fn assignment(
    b: &[u8],
    s: usize,
    e: usize,
    family: Family,
    reach: &mut usize,
) -> Option<Candidate> {
    let is_key = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.');
    let window = s.saturating_sub(MAX_KEY);
    let key_start = b[window..s]
        .iter()
        .rposition(|&c| !is_key(c))
        .map_or(window, |p| window + p + 1);
    // Only the keyword's tail is scanned, and at most MAX_KEY of it (`tokentoken…`).
    let key_end = run(&b[..(e + MAX_KEY).min(b.len())], e, is_key);
    if (key_start == window && window > 0) || key_end - e >= MAX_KEY {
        return None;
    }
    if !rest_allowed(&b[e..key_end], family) {
        return None;
    }
    let key = &b[key_start..key_end];
    let flag = key.starts_with(b"-");
    let bare = key.trim_ascii_start_matches(b'-');
    let key_fits = match family {
        // FOO_PWD, never PWD / OLDPWD (the working directory).
        Family::Pwd => matches!(before(b, s), Some(b'_' | b'-' | b'.')) && s != key_start,
        Family::Auth => bare.eq_ignore_ascii_case(b"auth") || bare.eq_ignore_ascii_case(b"_auth"),
        _ => true,
    };
    if !key_fits {
        return None;
    }

    // Separator.
    let mut i = key_end;
    if matches!(at(b, i), Some(b'"' | b'\'')) {
        i += 1;
    }
    let spaced = skip_blanks(b, i);
    let mut j = spaced;
    match at(b, j) {
        Some(b'=') if !matches!(at(b, j + 1), Some(b'=' | b'~')) => {
            j += 1;
            if at(b, j) == Some(b'>') {
                j += 1;
            }
        }
        Some(b':') if at(b, j + 1) == Some(b'=') => j += 2,
        Some(b':') if !matches!(at(b, j + 1), Some(b':' | b'/')) => j += 1,
        _ => {
            // `--token abc`, and `.netrc`'s `password abc`.
            let netrc = bare.eq_ignore_ascii_case(b"password")
                && contains_ci(&b[line_start(b, s)..s], b"login ");
            if !(flag || netrc) || spaced == i || spaced != key_end + 1 {
                return None;
            }
            if at(b, j).is_none_or(|c| c == b'-') {
                return None;
            }
        }
    }
    let (start, end) = value_at(b, skip_blanks(b, j))?;
    *reach = end;
    let value = &b[start..end];
    // `let password: u32 = …` is a type annotation, not a value.
    if at(b, skip_blanks(b, end)) == Some(b'=') {
        return None;
    }
    if !plausible_value(value, family) {
        return None;
    }
    let kind = match family {
        Family::Password | Family::Pwd => "password",
        Family::Token if bare.eq_ignore_ascii_case(b"_authtoken") => "npm-token",
        Family::Token => "token",
        Family::ApiKey => "api-key",
        Family::Secret | Family::AccessKey
            if contains_ci(key, b"aws")
                || contains_ci(key, b"secretaccess")
                || contains_ci(key, b"secret_access") =>
        {
            "aws-secret-key"
        }
        Family::Secret | Family::AccessKey => "secret",
        Family::PrivateKey
            if key.ends_with(b"id") || key.ends_with(b"Id") || key.ends_with(b"ID") =>
        {
            "private-key-id"
        }
        Family::PrivateKey => "private-key",
        Family::Auth if bare.eq_ignore_ascii_case(b"_auth") => "npm-token",
        Family::Auth => "docker-auth",
    };
    cand(kind, start, end, ASSIGNMENT)
}

/// The value after a separator: inside its quotes, or up to a delimiter.
fn value_at(b: &[u8], i: usize) -> Option<(usize, usize)> {
    let first = at(b, i)?;
    if matches!(first, b'"' | b'\'' | b'`') {
        let start = i + 1;
        let mut k = start;
        while let Some(c) = at(b, k) {
            if c == first || c == b'\n' {
                break;
            }
            k += if c == b'\\' && at(b, k + 1).is_some_and(|n| n != b'\n') {
                2
            } else {
                1
            };
        }
        return Some((start, k.min(b.len())));
    }
    if placeholder_start(first) {
        return None;
    }
    let end = run(b, i, |c| {
        !(c.is_ascii_whitespace()
            || matches!(
                c,
                b'"' | b'\'' | b'`' | b'&' | b',' | b';' | b'<' | b'>' | b'|' | b')' | b'}' | b']'
            ))
    });
    Some((i, end))
}

const STOP_WORDS: &[&[u8]] = &[
    b"null",
    b"none",
    b"nil",
    b"true",
    b"false",
    b"undefined",
    b"string",
    b"str",
    b"bool",
    b"required",
    b"optional",
    b"empty",
    b"hidden",
    b"masked",
    b"redacted",
    b"secret",
    b"password",
    b"token",
    b"unset",
    b"yes",
    b"no",
    b"n/a",
    b"tbd",
    b"todo",
    b"prompt",
    b"incorrect",
    b"invalid",
    b"expired",
    b"missing",
    b"for",
    b"is",
    b"was",
    b"not",
    b"the",
    b"and",
    b"or",
    b"from",
    b"of",
    b"to",
    b"in",
    b"changed",
    b"updated",
    b"reset",
    b"ok",
    b"option",
    b"self",
    b"this",
    b"value",
    b"default",
    // Type names in code: `password: u32,`.
    b"u8",
    b"u16",
    b"u32",
    b"u64",
    b"u128",
    b"usize",
    b"i32",
    b"i64",
    b"int",
    b"char",
    b"bytes",
    b"vec",
];

fn plausible_value(v: &[u8], family: Family) -> bool {
    if is_placeholder(v) || STOP_WORDS.iter().any(|w| v.eq_ignore_ascii_case(w)) {
        return false;
    }
    if v.contains(&b'(') || is_dotted_identifier(v) {
        return false;
    }
    match family {
        Family::Password | Family::Pwd => v.len() >= 2,
        Family::Auth => v.len() >= 8 && v.iter().all(|&c| is_b64(c)),
        _ => {
            if v.len() < 8
                || v.iter().all(u8::is_ascii_digit)
                || matches!(v[0], b'/' | b'~')
                || v.starts_with(b"./")
            {
                return false;
            }
            has_digit(v) || (v.len() >= 20 && has_upper(v) && has_lower(v))
        }
    }
}

/// `os.environ.TOKEN`, `config.secret`: a reference in code, not a value. A segment
/// with digits and both cases (`hvs.CAES…9fL`) is random, so not a name.
fn is_dotted_identifier(v: &[u8]) -> bool {
    v.contains(&b'.')
        && v.split(|&c| c == b'.').all(|part| {
            part.first()
                .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_')
                && part.iter().all(|&c| is_word(c))
                && !(has_digit(part) && has_upper(part) && has_lower(part))
        })
}

/// `$VAR`, `<your-key>`, `{{ tpl }}`, `[REDACTED:…]`, `***`, YAML `!tag`/`&anchor`.
fn placeholder_start(c: u8) -> bool {
    matches!(c, b'$' | b'<' | b'{' | b'[' | b'*' | b'!' | b'&')
}

/// Not a secret: a variable, a template, a mask, an example, or our own marker.
pub(super) fn is_placeholder(v: &[u8]) -> bool {
    let Some(&first) = v.first() else {
        return true;
    };
    if placeholder_start(first) {
        return true;
    }
    if v.starts_with(b"%(") || v.starts_with(b"%{") {
        return true;
    }
    if v.iter().all(|&c| c == first) {
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
    contains_ci(v, b"your")
        && (contains_ci(v, b"token")
            || contains_ci(v, b"key")
            || contains_ci(v, b"password")
            || contains_ci(v, b"secret"))
}

trait TrimMatches {
    fn trim_ascii_start_matches(&self, c: u8) -> &Self;
}

impl TrimMatches for [u8] {
    fn trim_ascii_start_matches(&self, c: u8) -> &[u8] {
        let n = self.iter().take_while(|&&x| x == c).count();
        &self[n..]
    }
}
