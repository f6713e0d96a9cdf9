//! Keyword assignments: a key that names a secret (`DB_PASSWORD`, `apiKey`, `X-Auth-Key`,
//! `client_secret`, `--account-key`, `rootpasswd`) and its value, in the syntaxes tools
//! print: shell and `.env`, YAML, INI and TOML, JSON, HTTP headers, XML, code in Python,
//! Ruby, JS, PHP and Go, command-line flags, `name`/`value` pairs, and a value quoted
//! near the key in an error message, and the answer a script sends to a quoted
//! password prompt. The weaker the syntax, the more random the value must look
//! (`text::Need`); a value that is itself the name of a secret (`DB_PASSWORD`,
//! `process.env.X`, `redis-password`) refers to one and is left alone.

pub(in crate::redact) mod foreign;
mod label;
pub(in crate::redact) use label::is_chat;
mod value;
mod words;

use value::*;
use words::*;

use super::text::{
    Need, at, before, contains_ci, escaped_quote, has_digit, has_lower, has_upper, interleaved,
    is_placeholder, is_word, line_body, line_end, line_start, placeholder_start, plausible,
    random_alnum, run, run_back, skip_blanks,
};

/// What a key names, which decides the marker and how strict the value test is.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(super) enum Family {
    Auth,
    Salt,
    Signature,
    Key,
    Credential,
    Token,
    Secret,
    Password,
}

/// Longest key (`FOO_BAR_TOKEN`) an assignment may have; bounds the scan around a keyword.
const MAX_KEY: usize = 256;
/// Longest value looked at; a longer one is cut there (and still redacted).
const MAX_VALUE: usize = 2048;
/// How far from a keyword a quoted value in prose may be.
const NEAR: usize = 96;

pub(super) struct Found {
    pub kind: &'static str,
    pub start: usize,
    pub end: usize,
    /// The value followed a separator (`=`, `:`, a flag); a quoted value nearby is weaker.
    pub direct: bool,
}

fn is_key_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.')
}

/// Up to 12 words of a key, split at `_ - .` and camel-case boundaries.
struct Words {
    ranges: [(usize, usize); 12],
    n: usize,
}

impl Words {
    fn of(key: &[u8]) -> Option<Words> {
        let mut w = Words {
            ranges: [(0, 0); 12],
            n: 0,
        };
        let mut start = None;
        for i in 0..=key.len() {
            let c = key.get(i).copied();
            // A blank only joins the words of a label (`Secret ID`).
            let sep = c.is_none_or(|c| matches!(c, b'_' | b'-' | b'.' | b' '));
            let camel = c.is_some_and(|c| c.is_ascii_uppercase())
                && i > 0
                && (key[i - 1].is_ascii_lowercase()
                    || key[i - 1].is_ascii_digit()
                    || key[i - 1].is_ascii_uppercase()
                        && key.get(i + 1).is_some_and(u8::is_ascii_lowercase));
            if let Some(s) = start
                && (sep || camel)
            {
                if w.n == w.ranges.len() {
                    return None;
                }
                w.ranges[w.n] = (s, i);
                w.n += 1;
                start = None;
            }
            if !sep && start.is_none() {
                start = Some(i);
            }
        }
        Some(w)
    }

    fn get<'k>(&self, key: &'k [u8], i: usize) -> &'k [u8] {
        let (s, e) = self.ranges[i];
        &key[s..e]
    }
}

fn lower<const N: usize>(w: &[u8]) -> Option<([u8; N], usize)> {
    if w.len() > N {
        return None;
    }
    let mut out = [0u8; N];
    for (o, c) in out.iter_mut().zip(w) {
        *o = c.to_ascii_lowercase();
    }
    Some((out, w.len()))
}

fn one_of(w: &[u8], set: &[&[u8]]) -> bool {
    // Length first: it rules out nearly every entry without reading it.
    set.iter()
        .any(|s| s.len() == w.len() && w.eq_ignore_ascii_case(s))
}

fn classify_word(w: &[u8]) -> Option<Family> {
    let (buf, n) = lower::<40>(w)?;
    let w = &buf[..n];
    let ends = |s: &[u8]| w.ends_with(s);
    let stem = |s: &[u8]| &w[..w.len() - s.len()];
    if [
        "password",
        "passwd",
        "passphrase",
        "passcode",
        "passwort",
        "passwords",
    ]
    .iter()
    .any(|s| ends(s.as_bytes()))
    {
        return Some(Family::Password);
    }
    if (ends(b"pwd") && w != b"oldpwd") || w == b"pw" || w == b"psk" || ends(b"pw") && w.len() <= 6
    {
        return Some(Family::Password);
    }
    if w == b"pass" || ends(b"pass") && one_of(stem(b"pass"), PASS_STEMS) {
        return Some(Family::Password);
    }
    if ends(b"secret") {
        return Some(Family::Secret);
    }
    // sssd's `ldap_default_authtok`, a PKCE or OAuth 1 `code_verifier`, a session's id
    // in a cookie or a URL (`jsessionid`, `PHPSESSID`, `session_id`).
    if ends(b"token")
        || ends(b"authtok")
        || ends(b"verifier")
        || w == b"bearer"
        || w == b"ticket"
        || w == b"session"
        || ends(b"sessionid")
        || ends(b"sessid")
    {
        return Some(Family::Token);
    }
    // SNMP's community string is the agent's password; `--authenticate=…` takes one.
    if w == b"community" || w == b"authenticate" {
        return Some(Family::Password);
    }
    // OpenWeatherMap's and others' `appid=`, Duo's `skey`, Consul's and Nomad's gossip
    // `encrypt` key, Erlang's distribution cookie.
    // LND's macaroon is the node's bearer credential.
    if ends(b"macaroon") {
        return Some(Family::Token);
    }
    if w == b"appid" || w == b"skey" || w == b"encrypt" || w == b"setcookie" {
        return Some(Family::Key);
    }
    // Substrate's `--suri`: a key's secret URI (its seed or mnemonic).
    if w == b"suri" {
        return Some(Family::Secret);
    }
    if w == b"key" || ends(b"key") && one_of(stem(b"key"), KEY_STEMS) {
        return Some(Family::Key);
    }
    if w == b"auth" {
        return Some(Family::Auth);
    }
    if w == b"masterauth" {
        return Some(Family::Password);
    }
    if WEAK_WORDS.contains(&w) {
        return Some(Family::Key);
    }
    if ends(b"credential") || ends(b"credentials") || w == b"creds" || w == b"cred" {
        return Some(Family::Credential);
    }
    if w == b"signature" {
        return Some(Family::Signature);
    }
    // `passwordsalt`, `secretsalt`: a salt of the password hashes, secret like a key.
    if w == b"salt" || ends(b"salt") && w.len() > 4 && classify_word(stem(b"salt")).is_some() {
        return Some(Family::Salt);
    }
    // A long name is found at a key's end too (`DBKENNWORT`, like `DBPASSWORD`); a short
    // one only whole (`enclave` is no `clave`).
    // Only a word longer than the shortest such name plus a prefix is read for its end:
    // most words are shorter, and this runs for every word of every key.
    let exact = foreign::ASCII_WORDS.iter().find(|(x, _)| x.as_bytes() == w);
    exact
        .or_else(|| {
            (w.len() >= 9)
                .then(|| {
                    foreign::ASCII_WORDS
                        .iter()
                        .find(|(x, _)| x.len() >= 7 && w.len() > x.len() && ends(x.as_bytes()))
                })
                .flatten()
        })
        .map(|&(_, f)| f)
}

/// The family and marker kind a key names, if it names a secret.
pub(super) fn classify_key(key: &[u8]) -> Option<(Family, &'static str)> {
    // No language or shell lets a name start with a digit: `1Password` is a product.
    if key.first().is_some_and(u8::is_ascii_digit) {
        return None;
    }
    // A key is named by people: one with a random run in it (`acct_twyETxpwBq1Y0`, where
    // `pw` is chance) is an id or a token, not the name of a secret.
    if key
        .split(|c| !c.is_ascii_alphanumeric())
        .any(|part| random_alnum(part, 12))
    {
        return None;
    }
    // sudoers' `NOPASSWD:` tag; a WebSocket handshake's nonce and its answer.
    // A `WWW-Authenticate` challenge names what the server wants, never a credential.
    if key.eq_ignore_ascii_case(b"nopasswd")
        || contains_ci(key, b"websocket")
        || contains_ci(key, b"www-authenticate")
        || contains_ci(key, b"proxy-authenticate")
    {
        return None;
    }
    // A key that is only `sk`: the secret half of Huawei's, Baidu's and Volcengine's
    // `ak`/`sk` pair.
    if key.eq_ignore_ascii_case(b"sk") {
        return Some((Family::Key, "key"));
    }
    // OAuth's device flow: the `device_code` the client polls with turns into the
    // user's tokens. AWS KMS's `Plaintext`: the data key it decrypted or generated.
    let squeezed = |w: &[u8]| {
        key.len() <= w.len() + 1
            && key
                .iter()
                .filter(|&&c| c != b'_' && c != b'-')
                .map(u8::to_ascii_lowercase)
                .eq(w.iter().copied())
    };
    if squeezed(b"devicecode") {
        return Some((Family::Token, "token"));
    }
    if key == b"Plaintext" {
        return Some((Family::Key, "key"));
    }
    let words = Words::of(key)?;
    // `auth_tag`, `authTag`: an AEAD's tag, stored beside its ciphertext.
    if words.n > 1 && words.get(key, words.n - 1).eq_ignore_ascii_case(b"tag") {
        return None;
    }
    let mut best: Option<(Family, usize)> = None;
    let mut first = None;
    let mut last = 0;
    for i in 0..words.n {
        if let Some(f) = classify_word(words.get(key, i)) {
            first.get_or_insert(i);
            last = i;
            if best.is_none_or(|(b, _)| f >= b) {
                best = Some((f, i));
            }
        }
    }
    let (family, best_at) = best?;
    let first = first?;
    let word = |i: usize| words.get(key, i);
    if WEAK_WORDS
        .iter()
        .any(|w| word(best_at).eq_ignore_ascii_case(w))
        && best_at + 1 != words.n
    {
        return None;
    }
    let has = |w: &[u8]| (0..words.n).any(|i| word(i).eq_ignore_ascii_case(w));
    let private = has(b"private") || contains_ci(word(last), b"private");
    // `hashed_secret`, `ENCRYPTED_PASSWORD`: what a tool stores in the secret's place.
    if first > 0 && one_of(word(first - 1), STORED_FORMS) {
        return None;
    }
    // A key a page ships: `KAKAO_JS_APP_KEY`, `NEXT_PUBLIC_MIXPANEL_TOKEN`,
    // `VITE_PUSHER_APP_KEY` (build tools hand only these prefixes to the browser).
    let shipped = (0..first).any(|i| one_of(word(i), SHIPPED_WORDS));
    let privileged = [
        b"secret".as_slice(),
        b"admin",
        b"service",
        b"master",
        b"server",
    ]
    .iter()
    .any(|w| has(w));
    if shipped && matches!(family, Family::Key | Family::Token) && !private && !privileged {
        return None;
    }
    for i in last + 1..words.n {
        let w = word(i);
        let session = word(last).eq_ignore_ascii_case(b"session");
        let id_ok = one_of(w, &[b"id"]) && (private || family == Family::Secret || session);
        if one_of(w, DENY_TAIL) && !id_ok || w.iter().all(u8::is_ascii_digit) && w.len() > 4 {
            return None;
        }
    }
    if first > 0 {
        let prev = word(first - 1);
        let head = classify_word(word(first));
        // An environment variable's `…_RECORD_KEY`, `…_CACHE_KEY` is configuration a
        // program reads, so a secret unless its qualifier says public.
        let env_name = key.len() > 4
            && key.contains(&b'_')
            && key
                .iter()
                .all(|&c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_');
        // `GEM_HOST_API_KEY`: the qualifier stands before `api`, and an API key of a
        // host is still an API key; only words that say public reach past `api`.
        let past_weak = one_of(word(first), WEAK_WORDS) && first != best_at;
        let denied = if past_weak {
            one_of(prev, &[b"public", b"pub", b"publishable", b"anon"])
        } else if env_name {
            one_of(prev, PUBLIC_KEY_BEFORE)
        } else {
            one_of(prev, DENY_KEY_BEFORE)
        };
        // A browser SDK's `clientKey` (Adyen, GrowthBook): the page's half, shipped in
        // it; kubeconfig's `client-key-data` goes on to name the private key.
        let client_side = prev.eq_ignore_ascii_case(b"client") && first + 1 == words.n;
        if head == Some(Family::Key) && (denied || client_side)
            || head == Some(Family::Token) && one_of(prev, DENY_TOKEN_BEFORE)
        {
            return None;
        }
    }
    let aws =
        has(b"aws") || contains_ci(key, b"secretaccess") || contains_ci(key, b"secret_access");
    let kind = match family {
        Family::Password => "password",
        Family::Secret if aws => "aws-secret-key",
        Family::Secret | Family::Salt => "secret",
        Family::Token if key.eq_ignore_ascii_case(b"_authtoken") || has(b"npm") => "npm-token",
        Family::Token => "token",
        Family::Key
            if private && (last + 1..words.n).any(|i| word(i).eq_ignore_ascii_case(b"id")) =>
        {
            "private-key-id"
        }
        Family::Key
            if private
                || contains_ci(key, b"client-key-data")
                || contains_ci(key, b"clientkeydata") =>
        {
            "private-key"
        }
        Family::Key if aws && (has(b"secret") || has(b"access")) => "aws-secret-key",
        Family::Key if has(b"api") || contains_ci(key, b"apikey") => "api-key",
        Family::Key if has(b"access") || has(b"secret") || contains_ci(key, b"accesskey") => {
            "secret"
        }
        Family::Key => "key",
        Family::Auth if key.eq_ignore_ascii_case(b"_auth") => "npm-token",
        Family::Auth if words.n == 1 => "docker-auth",
        Family::Auth => "token",
        Family::Credential => "credential",
        Family::Signature => "signature",
    };
    Some((family, kind))
}

/// The value test a family needs after a direct separator.
fn need_for(family: Family) -> Need {
    match family {
        Family::Password => Need::Password,
        Family::Token | Family::Secret | Family::Key | Family::Auth | Family::Credential => {
            Need::Token
        }
        Family::Signature | Family::Salt => Need::Strong,
    }
}

/// The cells under a table header whose column the keyword at `s..e` names, into `out`
/// (`label.rs`).
pub(super) fn table_column(
    b: &[u8],
    s: usize,
    e: usize,
    reach: &mut Reach,
    out: &mut Vec<super::context::Hit>,
) {
    let mut ks = run_back(b, s, s.saturating_sub(64), is_key_char);
    let mut ke = run(&b[..(e + 64).min(b.len())], e, is_key_char);
    // Cheap tests first, once per line: a header names its column in a word of its
    // own, on a line with cells (this runs for every secret word no assignment took).
    if ks < reach.table || !label::header_word(&b[ks..ke]) {
        return;
    }
    // A cell of a few words (`Secret access key` in a console's credentials CSV).
    let cs = run_back(b, ks, ks.saturating_sub(40), |c| {
        c.is_ascii_alphabetic() || c == b' '
    });
    let ce = run(&b[..(ke + 40).min(b.len())], ke, |c| {
        c.is_ascii_alphabetic() || c == b' '
    });
    if (cs, ce) != (ks, ke) && label::cell_name(b[cs..ce].trim_ascii()) {
        ks = cs + (b[cs..ce].len() - b[cs..ce].trim_ascii_start().len());
        ke = ks + b[cs..ce].trim_ascii().len();
    }
    let le = line_end(b, ke, 1024);
    let line = &b[line_start(b, ks)..le];
    let cells = |sep: u8| line.iter().filter(|&&c| c == sep).count() >= 2;
    if ![b',', b'\t', b'|', b';'].into_iter().any(cells) {
        // No cells: no other word of this line heads a column either.
        reach.table = le;
        return;
    }
    // A header may name several such columns (`site,login,password`): each is read.
    if let Some(named) = classify_key(&b[ks..ke]) {
        label::column_below(b, ks, ke, named, out);
    }
}

/// How far the assignment scanner has looked: keys already classified and values already
/// taken are not looked at again (which keeps `password=password=…` linear).
#[derive(Default)]
pub(super) struct Reach {
    pub key: usize,
    pub value: usize,
    /// End of the last line whose words were read as a label (`label.rs`).
    pub label: usize,
    /// End of the last line read as a table's header.
    pub table: usize,
}

/// A keyword found at `s..e`: the key around it, and its value if it names a secret.
pub(super) fn assignment(b: &[u8], s: usize, e: usize, reach: &mut Reach) -> Option<Found> {
    if s < reach.key || s < reach.value {
        return None;
    }
    let lo = s.saturating_sub(MAX_KEY);
    let mut ks = run_back(b, s, lo, is_key_char);
    let ke_cap = (e + MAX_KEY).min(b.len());
    let mut ke = run(&b[..ke_cap], e, is_key_char);
    reach.key = ke;
    if ks == lo && lo > 0 || ke == ke_cap && ke_cap < b.len() {
        return None;
    }
    // A sentence's full stop or a flag's dashes are not the key's.
    while ke > e && matches!(b[ke - 1], b'.' | b'-') {
        ke -= 1;
    }
    let key_quote = quote_before(b, ks);
    let dashes = run(b, ks, |c| c == b'-') - ks;
    let flag = dashes > 0
        && dashes <= 2
        && before(b, ks)
            .is_none_or(|c| c.is_ascii_whitespace() || matches!(c, b'"' | b'\'' | b'='));
    ks += dashes;
    while ks < s && matches!(b[ks], b'.' | b'_') && !b[ks..].starts_with(b"_auth") {
        ks += 1;
    }
    // `bw get password "prod db"`, `op read token …`: a getter's argument names the
    // item to fetch, it is not the secret.
    if before(b, ks) == Some(b' ') {
        let prev_end = ks - 1;
        let prev_start = run_back(b, prev_end, prev_end.saturating_sub(16), |c| {
            c.is_ascii_alphabetic()
        });
        // `group=read password=…` (RouterOS): a value, not the getter's verb.
        if one_of(&b[prev_start..prev_end], GETTERS) && before(b, prev_start) != Some(b'=') {
            return None;
        }
    }
    // `Secret ID    = …` (Nomad, Consul): a two-word label whose value follows.
    if b[ke..].len() > 3
        && b[ke] == b' '
        && b[ke + 1..ke + 3].eq_ignore_ascii_case(b"id")
        && !at(b, ke + 3).is_some_and(|c| c.is_ascii_alphanumeric())
        && matches!(at(b, skip_blanks(b, ke + 3)), Some(b'=' | b':'))
    {
        ke += 3;
    }
    let key = &b[ks..ke];
    // `<add key="Web:ApiKey" value="…"/>`: the `key` attribute names the setting.
    if (key.eq_ignore_ascii_case(b"key") || key.eq_ignore_ascii_case(b"name"))
        && b.get(ke) == Some(&b'=')
        && value::value_attribute_follows(b, ke)
    {
        return None;
    }
    // `--no-password`, `--insecure-no-password`: a switch that turns the secret off.
    if flag && {
        let k = &b[ks..ke];
        k.len() > 3 && k[..3].eq_ignore_ascii_case(b"no-") || contains_ci(k, b"-no-")
    } {
        return None;
    }
    // `…/api:1.1.0`, `gcloud run deploy api --image …`: a weak word alone (`api`,
    // `seed`) is a path's or a service's name unless a separator gives it a value.
    if one_of(key, WEAK_WORDS) && !flag {
        let sep = skip_blanks(b, past_key_closing(b, ks, ke));
        if before(b, ks) == Some(b'/') || !matches!(at(b, sep), Some(b'=' | b':')) {
            return None;
        }
    }
    // `"private": "f32d…"` beside `"public": "ed10…"` (a TUF or securesystemslib key
    // file, a wallet's key pair): the private half of the pair.
    let pair_half = || {
        (key_quote.is_some()
            && key.eq_ignore_ascii_case(b"private")
            && contains_ci(&b[ks.saturating_sub(400)..ks], b"\"public\""))
        .then_some((Family::Key, "private-key"))
    };
    let (family, kind) = match classify_key(key).or_else(pair_half)? {
        // `--auth <token>` is a flag, not docker's `"auth": "<base64>"`.
        (Family::Auth, "docker-auth") if flag => (Family::Auth, "token"),
        // Prose: "Incorrect API key provided".
        (Family::Key, "key")
            if b[..ks].trim_ascii_end().len() + 1 == ks && {
                let w = &b[..ks - 1];
                w.len() >= 3 && w[w.len() - 3..].eq_ignore_ascii_case(b"api")
            } =>
        {
            (Family::Key, "api-key")
        }
        other => other,
    };
    let key_at = Key {
        start: ks,
        end: ke,
        flag,
        quote: key_quote,
        family,
        kind,
    };
    // `key: 'anon'`: a key given its own quoted literal has that value or none; a
    // literal elsewhere on its line is another's.
    let own_literal = {
        let i = past_key_closing(b, ks, ke);
        let sp = skip_blanks(b, i);
        matches!(at(b, sp), Some(b':' | b'='))
            && !matches!(at(b, sp + 1), Some(b'=' | b':'))
            && at(b, skip_blanks(b, sp + 1)).is_some_and(|c| c == b'\'' || c == b'"')
    };
    let found = direct_value(b, &key_at).or_else(|| {
        if own_literal {
            return None;
        }
        apart_value(b, ks, ke, family, kind).or_else(|| {
            // Once per line: a second secret word on it reads the same sentence and the
            // same lines below.
            if ks < reach.label {
                return None;
            }
            reach.label = line_end(b, ke, 512);
            label::labelled(b, ks, ke, family, kind)
        })
    });
    // `Provider public key: …`, `Key Exchange: …`: a label in words whose other word
    // says the key is public (DNSCrypt's resolver info, tshark's handshake). Read only
    // once a value is found: most `key`s have none.
    if found.is_some()
        && family == Family::Key
        && key.eq_ignore_ascii_case(b"key")
        && (prose_public_label(b, ks, ke) || under_public_type(b, ks))
    {
        return None;
    }
    if let Some(f) = found.as_ref().filter(|f| f.direct) {
        reach.value = f.end;
    }
    found
}

/// Whether the lone word `key` at `ks..ke` sits in a label of words, one of which
/// qualifies it as public: `Provider public key:`, `Key Exchange:`.
fn prose_public_label(b: &[u8], ks: usize, ke: usize) -> bool {
    let ls = line_start(b, ks);
    let words_before = b[ls..ks].trim_ascii();
    let prev_is_word = before(b, ks) == Some(b' ')
        && words_before
            .split(|&c| c == b' ')
            .next_back()
            .is_some_and(|w| w.iter().all(u8::is_ascii_alphabetic) && one_of(w, PUBLIC_KEY_BEFORE));
    let next_word = at(b, ke) == Some(b' ')
        && b[ke + 1..]
            .split(|&c| !c.is_ascii_alphabetic())
            .next()
            .is_some_and(|w| one_of(w, &[b"exchange", b"share", b"fingerprint", b"thumbprint"]));
    prev_is_word || next_word
}

/// Whether a lone `key` field sits in an object typed or named as a public key, a few
/// lines up with no blank line between: Cosmos' `consensus_pubkey: {'@type':
/// /cosmos.crypto.ed25519.PubKey, key: …}`.
fn under_public_type(b: &[u8], ks: usize) -> bool {
    let lo = ks.saturating_sub(200);
    let from = super::text::rfind(&b[lo..ks], b"\n\n").map_or(lo, |i| lo + i + 2);
    let above = &b[from..line_start(b, ks).max(from)];
    [
        b"pubkey".as_slice(),
        b"pub_key",
        b"public_key",
        b"publickey",
    ]
    .iter()
    .any(|w| contains_ci(above, w))
        && !contains_ci(above, b"priv")
}

/// The value a key at `ks..ke` is given apart from it: written out as bytes, in the
/// next element, as a `name`/`value` pair, or quoted near it.
pub(super) fn apart_value(
    b: &[u8],
    ks: usize,
    ke: usize,
    family: Family,
    kind: &'static str,
) -> Option<Found> {
    value::byte_array(b, ke, family, kind)
        .or_else(|| value::escaped_bytes(b, ke, family, kind))
        .or_else(|| value::xml_name_value(b, ks, ke, family, kind))
        .or_else(|| value::named_element(b, ks, ke, family, kind))
        .or_else(|| value::next_cell(b, ke, family, kind))
        .or_else(|| name_value_pair(b, ks, ke, family, kind))
        .or_else(|| near_quoted(b, ks, ke, family, kind))
        .or_else(|| value::value_child(b, ks, ke, family, kind))
}

/// A key that names a secret, where it is and how it was written.
#[derive(Clone, Copy)]
struct Key {
    /// `start..end`: the key without its quotes or a flag's dashes.
    start: usize,
    end: usize,
    /// Written as a command-line flag (`--token`).
    flag: bool,
    /// The quote just before the key, if it is quoted.
    quote: Option<u8>,
    family: Family,
    kind: &'static str,
}

/// What the separator after a key decided.
enum AfterKey {
    /// A value to read and check.
    Value(ValueAt),
    /// Its syntax read the value itself (an element, a prompt's answer, a default in the
    /// mapping below) or ruled one out.
    Decided(Option<Found>),
}

/// Where a value starts after its separator, and how it is judged.
struct ValueAt {
    /// Where it starts, with the blanks before it not yet skipped.
    j: usize,
    need: Need,
    /// Only a quoted value counts (`define('KEY', 'v')`, `setPassword("v")`).
    must_quote: bool,
}

/// Colons of other scripts that end a label: the full-width `：` (Chinese, Japanese),
/// Ethiopic's `፦` and `፡`, Armenian's `՝` and Khmer's `៖`.
const WIDE_COLONS: [&str; 5] = ["：", "፦", "፡", "՝", "៖"];

/// The value right after the key: `KEY=v`, `key: v`, `"key": "v"`, `['KEY'] = 'v'`,
/// `key => v`, `<key>v</key>`, `define('KEY', 'v')`, `--key v`, `set key v`.
fn direct_value(b: &[u8], key: &Key) -> Option<Found> {
    let (ks, ke) = (key.start, key.end);
    let i = past_key_closing(b, ks, ke);
    let sp = skip_blanks(b, i);
    let need = need_for(key.family);
    if let Some(range) = element_value(b, ks, ke) {
        return judged(b, range, need, key.kind);
    }
    // `${DB_PASSWORD:-changeme}`, Spring's `${DB_PASS:default}`: the key is a variable
    // read, and what follows is a default (kept to the value test), an error message
    // (`:?`) or an alternative (`:+`).
    if ks >= 2 && &b[ks - 2..ks] == b"${" {
        return shell_default(b, key, i, need);
    }
    match after_separator(b, key, i, sp, need) {
        AfterKey::Value(value) => {
            spaced_passphrase(b, key, value.j).or_else(|| checked_value(b, key, sp, value))
        }
        AfterKey::Decided(found) => found,
    }
}

/// `encryption passphrase: drum poppy whisker granite desert`: under a name that says
/// passphrase, the rest of the line (or of its quotes) when it is a diceware phrase.
fn spaced_passphrase(b: &[u8], key: &Key, j: usize) -> Option<Found> {
    if !crate::redact::text::contains_ci(&b[key.start..key.end], b"passphrase") {
        return None;
    }
    let vs = skip_blanks(b, j);
    let (start, end) = label::spaced_phrase(b, vs, line_end(b, vs, 256))?;
    Some(Found {
        kind: key.kind,
        start,
        end,
        direct: true,
    })
}

/// The quoted string a flow list holds alone (`[ "…" ]`, over lines or not); `i` is
/// after its `[`.
fn sole_element(b: &[u8], i: usize) -> Option<(usize, usize)> {
    let ws = |i: usize| run(&b[..(i + 256).min(b.len())], i, |c| c.is_ascii_whitespace());
    let open = ws(i);
    let q = at(b, open).filter(|&c| c == b'"' || c == b'\'')?;
    let close = run(&b[..line_end(b, open, 1024)], open + 1, |c| c != q);
    (at(b, close) == Some(q) && at(b, ws(close + 1)) == Some(b']')).then_some((open + 1, close))
}

/// Where the closing of a quoted or indexed key (`"`, `\"`, `]`) ends.
fn past_key_closing(b: &[u8], ks: usize, ke: usize) -> usize {
    let mut i = ke;
    if at(b, i) == Some(b'\\') && at(b, i + 1).is_some_and(is_quote) {
        i += 2;
    } else if at(b, i).is_some_and(is_quote) {
        i += 1;
    }
    if at(b, i) == Some(b']') {
        i += 1;
    }
    // Lisp's earmuffs: `(defparameter *api-secret* "…")`.
    if at(b, i) == Some(b'*') && before(b, ks) == Some(b'*') {
        i += 1;
    }
    i
}

/// The default of a variable read at `i` (`:-v`, `:=v`, `:v`), held to the key's test;
/// an error message (`:?`) or an alternative (`:+`) is none.
fn shell_default(b: &[u8], key: &Key, i: usize, need: Need) -> Option<Found> {
    if at(b, i) != Some(b':') || matches!(at(b, i + 1), Some(b'?' | b'+')) {
        return None;
    }
    let skip = if matches!(at(b, i + 1), Some(b'-' | b'=')) {
        2
    } else {
        1
    };
    judged(b, value_at(b, i + skip, key.start)?, need, key.kind)
}

/// `=~` at `sp` as Perl's, Ruby's or bash's match operator (`$pw =~ /x/`), not a
/// value that starts with a tilde (`Password=~x9…;`).
fn regex_match(b: &[u8], sp: usize) -> bool {
    at(b, sp + 1) == Some(b'~')
        && (before(b, sp).is_some_and(|c| c.is_ascii_whitespace())
            || at(b, sp + 2).is_none_or(|c| c.is_ascii_whitespace() || c == b'/'))
}

/// What the separator at `sp` (the key's closing ends at `i`) makes of what follows:
/// where the value starts and the test it needs, or the value its syntax reads.
fn after_separator(b: &[u8], key: &Key, i: usize, sp: usize, need: Need) -> AfterKey {
    let (ks, ke) = (key.start, key.end);
    let mut need = need;
    let mut must_quote = false;
    let j = match at(b, sp) {
        Some(b'=') if at(b, sp + 1) != Some(b'=') && !regex_match(b, sp) => {
            if at(b, sp + 1) == Some(b'>') {
                sp + 2
            } else {
                sp + 1
            }
        }
        Some(b':') if at(b, sp + 1) == Some(b'=') => sp + 2,
        // `'Password: '`: the colon is inside the key's quotes, a prompt's text; its
        // answer is what a script sends next (`expect "password:"; send "x\r"`).
        Some(b':')
            if key.quote.is_some() && i == ke && at(b, skip_blanks(b, sp + 1)) == key.quote =>
        {
            let answer = skip_blanks(b, sp + 1) + 1;
            return AfterKey::Decided(prompt_answer(b, answer, key.family, key.kind));
        }
        Some(b':') if at(b, skip_blanks(b, sp + 1)).is_none_or(|c| c == b'\n' || c == b'\r') => {
            // CloudFormation's `DBPassword:` whose `Default:` (or an SSM-style
            // `Value:`) sits in the mapping below it.
            let below = child_default(b, ks, sp + 1).or_else(|| list_item_below(b, ks, sp + 1));
            return AfterKey::Decided(below.and_then(|range| judged(b, range, need, key.kind)));
        }
        // Keycloak's realm export, `"secret": [ "…" ]`: a list of the one value.
        Some(b':') if at(b, skip_blanks(b, sp + 1)) == Some(b'[') => {
            let range = sole_element(b, skip_blanks(b, sp + 1) + 1);
            return AfterKey::Decided(range.and_then(|range| judged(b, range, need, key.kind)));
        }
        // An ARM template's `"adminPassword": { "value": "…" }`, Remote Config's
        // `"api_key": { "defaultValue": { "value": "…" } }`: the value in the object.
        Some(b':') if at(b, skip_blanks(b, sp + 1)) == Some(b'{') => {
            let range = object_value(b, skip_blanks(b, sp + 1), 2);
            return AfterKey::Decided(range.and_then(|range| judged(b, range, need, key.kind)));
        }
        Some(b':')
            if !matches!(at(b, sp + 1), Some(b':' | b'/' | b'\\'))
                || at(b, sp + 1) == Some(b'\\') && at(b, sp + 2).is_some_and(is_quote) =>
        {
            // `PASS: test_name` is a test runner's verdict, not a password.
            if key.family == Family::Password
                && key_is(b, ks, ke, b"pass")
                && at(b, sp + 1) == Some(b' ')
            {
                need = Need::Token;
            }
            sp + 1
        }
        Some(b'?') if at(b, sp + 1) == Some(b'=') => sp + 2,
        // A Markdown table's row: `| `API_KEY` | `v` |`, the key alone in its cell.
        Some(b'|') if at(b, sp + 1) != Some(b'|') && first_cell(b, ks) => sp + 1,
        Some(b'|') if at(b, sp + 1) == Some(b'|') => {
            if at(b, sp + 2) == Some(b'=') {
                sp + 3
            } else {
                sp + 2
            }
        }
        Some(b',') if key.quote.is_some() || before(b, ks) == Some(b'{') => {
            must_quote = true;
            sp + 1
        }
        // LaTeX's `\newcommand{\apitoken}{…}`, `\def\apitoken{…}`: the macro's body.
        Some(b'}') if b[sp..].starts_with(b"}{") && b[..ks].ends_with(b"{\\") => sp + 2,
        Some(b'{') if b[..ks].ends_with(b"\\def\\") => sp + 1,
        Some(b'>') if before(b, ks) == Some(b'<') => {
            return AfterKey::Decided(tag_value(b, key, sp + 1, need));
        }
        Some(b'(') if at(b, skip_blanks(b, sp + 1)).is_some_and(is_quote) && setter(&b[ks..ke]) => {
            must_quote = true;
            sp + 1
        }
        // `Property: spring.datasource.password` then `Value: "…"` on the next line
        // (Spring's failure analysis): the key ends its line, a `Value:` line follows.
        Some(b'\n') => match value_line_below(b, sp) {
            Some(j) => j,
            None => return AfterKey::Decided(path_line_value(b, key, sp)),
        },
        // R's `pw <- "…"`, `pw <<- "…"`: an assignment whose value is a quoted literal.
        Some(b'<') if b[sp..].starts_with(b"<-") || b[sp..].starts_with(b"<<-") => {
            must_quote = true;
            sp + if at(b, sp + 1) == Some(b'<') { 3 } else { 2 }
        }
        // A full-width colon (`Token：…` in Chinese or Japanese text), Ethiopic's `፦`;
        // what the script says after it (`（请向管理员索取）`) is not a value.
        _ if let Some(c) = WIDE_COLONS
            .iter()
            .find(|c| b[sp..].starts_with(c.as_bytes())) =>
        {
            let j = skip_blanks(b, sp + c.len());
            if !at(b, j).is_some_and(|c| c.is_ascii()) {
                return AfterKey::Decided(None);
            }
            j
        }
        _ if let Some(j) = typed_declaration(b, sp) => {
            must_quote = true;
            j
        }
        _ => match unseparated_value(b, key, i, sp, need) {
            Some((j, bare_need)) => {
                need = bare_need;
                j
            }
            None => return AfterKey::Decided(None),
        },
    };
    AfterKey::Value(ValueAt {
        j,
        need,
        must_quote,
    })
}

/// A declaration's type between the name and its value, in the languages that write it
/// there: `pw As String = "…"` (VB), `pw string = "…"` (Go), `pw TYPE string VALUE '…'`
/// (ABAP), `WS-PW PIC X(16) VALUE '…'` (COBOL). Up to four type words, each perhaps
/// sized (`X(16)`) or marked (`*string`, `[]byte`), on the key's line; where the value
/// starts after its `=`, `:=` or `VALUE`.
fn typed_declaration(b: &[u8], sp: usize) -> Option<usize> {
    let end = line_end(b, sp, 64);
    let mut i = sp;
    for _ in 0..4 {
        let marked = run(&b[..end], i, |c| matches!(c, b'*' | b'&' | b'[' | b']'));
        let word = run(&b[..end], marked, |c| {
            c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.')
        });
        if word == marked || !b[marked].is_ascii_alphabetic() {
            return None;
        }
        let mut next = word;
        if at(b, next) == Some(b'(') {
            let close = run(&b[..end], next + 1, |c| c.is_ascii_digit() || c == b',');
            if at(b, close) != Some(b')') || close == next + 1 {
                return None;
            }
            next = close + 1;
        }
        if i > sp && b[marked..word].eq_ignore_ascii_case(b"value") {
            return (at(b, next) == Some(b' ')).then_some(next + 1);
        }
        let op = skip_blanks(b, next);
        if op == next {
            return None;
        }
        if at(b, op) == Some(b'=') && at(b, op + 1) != Some(b'=') {
            return Some(op + 1);
        }
        if b[op..].starts_with(b":=") {
            return Some(op + 2);
        }
        i = op;
    }
    None
}

/// The string of an object at `open` (its `{`) that holds its value (`"value"`,
/// `"defaultValue"`, `"Value"`) among its first four members, the others plain strings
/// (`"type": "securestring"`), through at most `depth` such objects.
fn object_value(b: &[u8], open: usize, depth: u8) -> Option<(usize, usize)> {
    if depth == 0 {
        return None;
    }
    let mut q = skip_ws(b, open + 1, 64);
    for _ in 0..4 {
        if !at(b, q).is_some_and(is_quote) {
            return None;
        }
        let name_end = run(b, q + 1, |c| c.is_ascii_alphabetic());
        let name = &b[q + 1..name_end];
        let colon = skip_blanks(b, name_end + 1);
        if at(b, name_end) != Some(b[q]) || at(b, colon) != Some(b':') {
            return None;
        }
        let v = skip_blanks(b, colon + 1);
        if name.eq_ignore_ascii_case(b"value") || name.eq_ignore_ascii_case(b"defaultvalue") {
            return match at(b, v) {
                Some(b'{') => object_value(b, v, depth - 1),
                Some(c) if is_quote(c) => value_at(b, v, open),
                _ => None,
            };
        }
        // Past this member's string to the next member's name.
        let (_, end) = value_at(b, v, open).filter(|_| at(b, v).is_some_and(is_quote))?;
        let comma = skip_blanks(b, end + 1);
        if at(b, comma) != Some(b',') {
            return None;
        }
        q = skip_ws(b, comma + 1, 64);
    }
    None
}

/// A key-value store's listing (`etcdctl get --prefix`, ZooKeeper's `get`): the key's
/// path alone on its line (`/config/shop/api_secret`), its value alone on the next. `sp`
/// is the end of the key's line.
fn path_line_value(b: &[u8], key: &Key, sp: usize) -> Option<Found> {
    let ls = line_start(b, key.start);
    let path = &b[ls..key.start];
    if path.first() != Some(&b'/')
        || path.last() != Some(&b'/')
        || !path
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'/' | b'_' | b'-' | b'.'))
    {
        return None;
    }
    let vs = sp + 1;
    let ve = line_end(b, vs, MAX_VALUE);
    let v = &b[vs..ve];
    if v.is_empty() || v.iter().any(u8::is_ascii_whitespace) {
        return None;
    }
    judged(b, (vs, ve), Need::Token, key.kind)
}

/// Where the value of a `Value:` (or `Value =`) line right below `sp`, the end of
/// the key's line, starts.
fn value_line_below(b: &[u8], sp: usize) -> Option<usize> {
    let next = skip_ws(b, sp, 32);
    let word = run(b, next, |c| c.is_ascii_alphabetic());
    if !b[next..word].eq_ignore_ascii_case(b"value") {
        return None;
    }
    let sep = skip_blanks(b, word);
    matches!(at(b, sep), Some(b':' | b'=')).then_some(sep + 1)
}

/// `<password>v</password>`: the text from `start` up to the closing tag, only in a real
/// element. Windows' unattend files wrap it once more: `<AdministratorPassword><Value>v</Value>`.
fn tag_value(b: &[u8], key: &Key, start: usize, need: Need) -> Option<Found> {
    let kind = key.kind;
    let inner = skip_ws(b, start, 64);
    if b[inner..].starts_with(b"<Value>") {
        let vs = inner + "<Value>".len();
        let ve = run(&b[..(vs + MAX_VALUE).min(b.len())], vs, |c| {
            c != b'<' && c != b'\n'
        });
        let v = &b[vs..ve];
        return (b[ve..].starts_with(b"</Value>") && plausible(v, need)).then_some(Found {
            kind,
            start: vs,
            end: ve,
            direct: true,
        });
    }
    let end = run(&b[..(start + MAX_VALUE).min(b.len())], start, |c| {
        c != b'<' && c != b'\n'
    });
    let v = b[start..end].trim_ascii();
    let off = start + (b[start..end].len() - b[start..end].trim_ascii_start().len());
    // Only a real element: `</key>` closes it (`<PASSWORD>  Password for…` is help text).
    let closed = b[end..].starts_with(b"</") && b[end + 2..].starts_with(&b[key.start..key.end]);
    (closed && plausible(v, need)).then_some(Found {
        kind,
        start: off,
        end: off + v.len(),
        direct: true,
    })
}

/// No separator: `--token abc`, `.netrc`'s `password abc`, `set key value`, `PASSWORD 'x'`
/// in SQL, or a random value right after the word. Where the value starts and the test it
/// needs, which the line's context decides; `None` when what follows is not a value.
fn unseparated_value(
    b: &[u8],
    key: &Key,
    i: usize,
    sp: usize,
    need: Need,
) -> Option<(usize, Need)> {
    let ks = key.start;
    let blanks = sp - i;
    if blanks == 0 || at(b, sp).is_none_or(|c| c == b'\n') {
        return None;
    }
    let typed = after_directive_words(b, ks, sp);
    // `secret 0 v`, `password cipher v`: a device's configuration says how it stores
    // what comes next, which is the value.
    let device = typed != sp && at(b, sp) != Some(b'-');
    let sp = typed;
    // The value first: when even the key's own test rejects it (prose: `token
    // expired`), the line need not be read for a context.
    let (vs, ve) = value_at(b, sp, ks)?;
    if !plausible(&b[vs..ve], if device { Need::Password } else { need }) {
        return None;
    }
    if code_not_value(b, vs, ve) {
        return None;
    }
    let line = &b[line_start(b, ks)..ks];
    // `vault kv get`'s table: `password    hunter2` alone on its line; a
    // directive (`requirepass …`) as `grep -n` prints it (`1036:requirepass …`).
    let grep_n = grep_prefix(line);
    let table = (grep_n || line.iter().all(|c| c.is_ascii_whitespace())) && {
        let ve = run(b, sp, |c| !c.is_ascii_whitespace());
        ve > sp
            && at(b, skip_blanks(b, ve)).is_none_or(|c| c == b'\n' || c == b'\r')
            && !title(b, ks, sp, ve)
    };
    if blanks > 4 && !table || b[sp] == b'-' && !table && !super::text::dash_random(b, sp) {
        return None;
    }
    // `machine host login user password pw`: the user's name right before the key;
    // not prose that says login somewhere before `pass`.
    let netrc = key.family == Family::Password && {
        let mut words = line
            .split(u8::is_ascii_whitespace)
            .filter(|w| !w.is_empty())
            .rev();
        words.next().is_some() && words.next() == Some(b"login".as_slice())
    };
    let set = set_context(line);
    let quoted = at(b, sp).is_some_and(is_quote);
    // Prose's verb "pass" (`or pass "latin-1" to open()`, ``pass `gcc-12` as CC``)
    // names no password: only a machine-made value after it is one.
    let verb = key_is(b, ks, key.end, b"pass");
    // `:api-key "8cbb…-…"` (EDN, Lisp): a quoted UUID the key is given is a token
    // (Heroku's, SmartThings', Consul's), where prose would not quote one.
    let quoted_uuid = quoted
        && matches!(key.family, Family::Key | Family::Token | Family::Secret)
        && value_at(b, sp, ks).is_some_and(|(vs, ve)| super::text::is_uuid(&b[vs..ve]));
    let need = if device {
        Need::Password
    } else if key.flag || set || netrc || table || quoted_uuid {
        need
    } else if quoted && key.family == Family::Password && !verb {
        Need::Password
    } else {
        Need::Strong
    };
    Some((sp, need))
}

/// A heading in title case, not a key over its value: `Password Store` (what `pass ls`
/// prints first), `Token Exchange`. The key and the one word after it capitalised,
/// the word in letters alone.
fn title(b: &[u8], ks: usize, vs: usize, ve: usize) -> bool {
    b[ks].is_ascii_uppercase()
        && b[vs].is_ascii_uppercase()
        && b[vs + 1..ve].iter().all(u8::is_ascii_lowercase)
}

/// Prose's "pass `--region eu-west-1`", "set `AWS_PROFILE`", "pass `default=str`": a
/// Markdown code span near the word is a flag, a command, a variable's name or a keyword
/// argument, not the secret's value.
pub(super) fn code_not_value(b: &[u8], vs: usize, ve: usize) -> bool {
    if vs == 0 || b[vs - 1] != b'`' {
        return false;
    }
    let v = &b[vs..ve];
    let upper_name = v.len() > 1
        && v.iter()
            .all(|&c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
        && v.iter().any(u8::is_ascii_uppercase);
    let name_end = run(v, 0, |c| c.is_ascii_lowercase() || c == b'_');
    let keyword = name_end > 0 && at(v, name_end) == Some(b'=');
    v.starts_with(b"-") || v.contains(&b' ') || upper_name || keyword
}

/// The value from `value.j` as the key's own, unless it is not one: an unquoted value
/// where a quoted one is needed, a type annotation, prose, a cmdlet, a key id, the name of
/// a secret, or a value that fails the test. `sp` is where the separator stood.
fn checked_value(b: &[u8], key: &Key, sp: usize, value: ValueAt) -> Option<Found> {
    let ValueAt {
        j,
        need,
        must_quote,
    } = value;
    let (family, kind) = (key.family, key.kind);
    let mut vs = skip_blanks(b, j);
    // `PARTNER_KEY =` then the literal on the next line, indented (Java, C#).
    if at(b, vs) == Some(b'\n') && at(b, sp) == Some(b'=') {
        let next = skip_ws(b, vs, 64);
        if at(b, value::literal_inside(b, next)).is_some_and(is_quote) {
            vs = next;
        }
    }
    let (start, end) = value_at(b, vs, key.start)?;
    // `define('KEY', 'v')`, but not `{"name": "KEY", "valueFrom": …}`: a quoted string
    // before a colon is the next key of an object.
    if must_quote
        && (!before(b, start).is_some_and(is_quote) || at(b, skip_blanks(b, end + 1)) == Some(b':'))
    {
        return None;
    }
    let v = &b[start..end];
    let unquoted = !before(b, start).is_some_and(is_quote);
    // `let password: u32 = …` is a type annotation, not a value: the value is what
    // follows its `=` (`const TOKEN: &str = "…"`), or Ada's and Pascal's `:=` after
    // a keyword and the type (`Password : constant String := "…"`).
    let mut op = skip_blanks(b, end);
    // `@pw NVARCHAR(128) = N'…'`, `pw VARCHAR2(64) := '…'`: a sized type.
    let type_name = run(v, 0, |c| c.is_ascii_alphanumeric());
    if unquoted && type_name > 0 && v[0].is_ascii_alphabetic() && {
        let rest = &b[start + type_name..line_end(b, end, 32)];
        rest.first() == Some(&b'(')
    } {
        let close = run(&b[..line_end(b, end, 32)], start + type_name, |c| c != b')');
        if at(b, close) == Some(b')') {
            op = skip_blanks(b, close + 1);
            if at(b, op) == Some(b':') {
                op += 1;
            }
            if at(b, op) == Some(b'=') && at(b, op + 1) != Some(b'=') {
                return checked_value(
                    b,
                    key,
                    op + 1,
                    ValueAt {
                        j: skip_blanks(b, op + 1),
                        need,
                        must_quote: true,
                    },
                );
            }
            // A declaration without a value: `DECLARE @pw NVARCHAR(128);`.
            return None;
        }
    }
    if unquoted && v.iter().all(u8::is_ascii_alphabetic) {
        let typed = run(b, op, |c| c.is_ascii_alphanumeric() || c == b'_');
        if typed > op && at(b, skip_blanks(b, typed)) == Some(b':') {
            op = skip_blanks(b, typed) + 1;
        } else if at(b, op) == Some(b':') {
            op += 1;
        }
    }
    if unquoted && at(b, op) == Some(b'=') && at(b, op + 1) != Some(b'=') {
        let after = skip_blanks(b, op + 1);
        if j == after || !at(b, after).is_some_and(is_quote) {
            return None;
        }
        let value = ValueAt {
            j: after,
            need,
            must_quote: true,
        };
        return checked_value(b, key, after, value);
    }
    // `api_key.revoked key_id=key_…`: after a blank, a `name=` starts the next pair.
    // An element's next attribute (`<masterKey p4:requiresEncryption="true">`) too.
    let tag_open = before(b, key.start) == Some(b'<');
    let name_len = run(v, 0, |c| {
        c.is_ascii_lowercase()
            || c.is_ascii_digit()
            || matches!(c, b'_' | b'.')
            || tag_open && (c.is_ascii_uppercase() || matches!(c, b':' | b'-'))
    });
    if unquoted
        && (j == sp || tag_open)
        && !key.flag
        && name_len >= 2
        && at(v, name_len) == Some(b'=')
        && match at(v, name_len + 1) {
            Some(c) => c != b'=',
            // The attribute's quoted value starts right after: `p4:x="true"`.
            None => tag_open && at(b, end).is_some_and(is_quote),
        }
    {
        return None;
    }
    // `password: cannot be empty`, `password: usa `vault login``: prose.
    if unquoted
        && need == Need::Password
        && v.iter().all(u8::is_ascii_lowercase)
        && at(b, end) == Some(b' ')
        && at(b, end + 1).is_some_and(|c| c.is_ascii_lowercase() || c == b'`')
    {
        return None;
    }
    // `$pw = Read-Host -AsSecureString`: a PowerShell cmdlet's call, not a value.
    if unquoted && need == Need::Password && is_cmdlet(v) {
        return None;
    }
    // A bare `key`'s short hex is a key id (`user.signingkey=3AA5C34371567BD2`), and
    // upper-case hex of a fingerprint's length after a blank is one (gpg's `using RSA
    // key 7A66…`): tools print secrets in lower case or after a separator.
    let qualified = [
        b"license".as_slice(),
        b"licence",
        b"api",
        b"secret",
        b"access",
        b"private",
    ]
    .iter()
    .any(|w| contains_ci(&b[key.start..key.end], w));
    let key_id = family == Family::Key
        && !qualified
        && v.len() < 20
        && v.iter().all(|c| c.is_ascii_hexdigit())
        || j == sp
            && matches!(v.len(), 16 | 40 | 64)
            && v.iter()
                .all(|c| c.is_ascii_digit() || (b'A'..=b'F').contains(c));
    // `"auth": "…"` that is not Docker's base64 of `user:password`: a web app's stored
    // session token (`localStorage`'s `auth`), when it is long and machine-made.
    let docker = family == Family::Auth && kind == "docker-auth";
    let kind = if docker && !v.iter().all(|&c| super::text::is_b64(c)) {
        if v.len() < 32
            || !v.iter().all(|&c| super::text::is_b64url(c))
            || !plausible(v, Need::Strong)
        {
            return None;
        }
        "token"
    } else {
        kind
    };
    if key_id || names_a_secret(v) || !plausible(v, need) {
        return None;
    }
    Some(Found {
        kind,
        start,
        end,
        direct: true,
    })
}

/// The value at `start..end` as the key's own, when it passes the key's test and is not
/// itself the name of a secret.
fn judged(b: &[u8], (start, end): (usize, usize), need: Need, kind: &'static str) -> Option<Found> {
    let v = &b[start..end];
    (plausible(v, need) && !names_a_secret(v)).then_some(Found {
        kind,
        start,
        end,
        direct: true,
    })
}

/// `<property name="connection.password">v</property>`, `<string
/// name="client_secret">v</string>`, `<entry key="db.password">v</entry>`: an element
/// whose `name`/`key` attribute is the key (`ks..ke` inside its quotes); and a plist's
/// `<key>ApiSecret</key>` followed by its `<string>v</string>`.
fn element_value(b: &[u8], ks: usize, ke: usize) -> Option<(usize, usize)> {
    let text_of = |from: usize| {
        let end = run(&b[..(from + MAX_VALUE).min(b.len())], from, |c| {
            c != b'<' && c != b'\n'
        });
        (end > from && b[end..].starts_with(b"</")).then_some((from, end))
    };
    if b[..ks].ends_with(b"<key>") && b[ke..].starts_with(b"</key>") {
        let next = run(b, ke + "</key>".len(), |c| c.is_ascii_whitespace());
        return b[next..]
            .starts_with(b"<string>")
            .then(|| text_of(next + "<string>".len()))?;
    }
    let q = before(b, ks).filter(|&c| c == b'"' || c == b'\'')?;
    if at(b, ke) != Some(q) || at(b, ke + 1) != Some(b'>') {
        return None;
    }
    let attr = &b[..ks - 1];
    let named = [b"name=".as_slice(), b"key=", b"id="]
        .iter()
        .any(|a| attr.ends_with(a));
    let in_tag = b[line_start(b, ks)..ks].contains(&b'<');
    (named && in_tag).then(|| text_of(ke + 2))?
}

/// The value of a `Default:` or `Value:` key in the block mapping under the key at `ks`
/// whose line ends at its colon (`colon_end`): the lines below, more indented, up to 8.
fn child_default(b: &[u8], ks: usize, colon_end: usize) -> Option<(usize, usize)> {
    block_below(b, ks, colon_end, 8).find_map(|(body, le)| {
        let label = [b"Default:".as_slice(), b"Value:", b"value:", b"default:"]
            .into_iter()
            .find(|label| b[body..le].starts_with(label))?;
        value_at(b, skip_blanks(b, body + label.len()), ks)
    })
}

/// The one item of a sequence right under the key at `ks` (`secretKey:` then `- f277…`,
/// as Unity serialises a field), at the key's indent or deeper: its value.
fn list_item_below(b: &[u8], ks: usize, colon_end: usize) -> Option<(usize, usize)> {
    let indent = ks - line_body(b, line_start(b, ks));
    let ls = line_end(b, colon_end, 256) + 1;
    let content = line_body(b, ls.min(b.len()));
    let body = skip_blanks(b, content);
    if body - content < indent || !b[body..].starts_with(b"- ") {
        return None;
    }
    let (vs, ve) = value_at(b, skip_blanks(b, body + 2), ks)?;
    // One scalar: not a mapping's first pair (`- name: x`), nothing after it.
    let rest = skip_blanks(b, ve + usize::from(before(b, vs).is_some_and(is_quote)));
    (!b[vs..ve].contains(&b':') && at(b, rest).is_none_or(|c| c == b'\n' || c == b'\r'))
        .then_some((vs, ve))
}

/// The lines of the block under the key at `ks` (whose line ends after `from`), at most
/// `max`: each as where its content starts and where it ends, while more indented than
/// the key (measured after a tool's line number, `line_body`).
fn block_below(
    b: &[u8],
    ks: usize,
    from: usize,
    max: usize,
) -> impl Iterator<Item = (usize, usize)> {
    let indent = ks - line_body(b, line_start(b, ks));
    let mut i = line_end(b, from, 256) + 1;
    std::iter::from_fn(move || {
        if i >= b.len() {
            return None;
        }
        let le = line_end(b, i, 512);
        let content = line_body(b, i);
        // A line cut at its bound may be all blanks up to the cut: its body lies
        // past the cut, and the line holds nothing to read.
        let body = skip_blanks(b, content).min(le);
        i = le + 1;
        (body - content > indent).then_some((body, le))
    })
    .take(max)
}

/// `"securityKeys": {` (Z-Wave JS), `"tokens": {`: a JSON object of secrets by name,
/// one member a line, up to its `}`. A name that says public (`"publicKeys"`) holds
/// public keys. `s..e` is the anchor, from inside the quoted name to the brace.
fn json_keyed_map(b: &[u8], s: usize, e: usize, out: &mut Vec<super::context::Hit>) {
    let name_start = run_back(b, s, s.saturating_sub(64), |c| {
        c.is_ascii_alphanumeric() || c == b'_'
    });
    let qualifier = b[name_start..s]
        .strip_suffix(b"_")
        .unwrap_or(&b[name_start..s]);
    // Keys alone are as often public (a Matrix device's `"keys": {`): only keys a
    // qualifier calls secret are.
    let secret_keys = [
        b"security".as_slice(),
        b"secret",
        b"api",
        b"access",
        b"private",
        b"master",
        b"encryption",
        b"session",
    ]
    .iter()
    .any(|q| qualifier.eq_ignore_ascii_case(q));
    if contains_ci(qualifier, b"pub") || b[s..s + 4].eq_ignore_ascii_case(b"keys") && !secret_keys {
        return;
    }
    let mut ls = line_end(b, e, 64) + 1;
    for _ in 0..16 {
        if ls >= b.len() {
            return;
        }
        let le = line_end(b, ls, 512);
        let body = skip_blanks(b, ls);
        if at(b, body) != Some(b'"') {
            return;
        }
        let name_end = run(&b[..le], body + 1, |c| c != b'"');
        let colon = skip_blanks(b, name_end + 1);
        if at(b, colon) != Some(b':') {
            return;
        }
        if let Some((vs, ve)) = value_at(b, skip_blanks(b, colon + 1), body)
            && ve <= le
            && before(b, vs) == Some(b'"')
            && plausible(&b[vs..ve], Need::Strong)
        {
            out.push(("secret", vs, ve));
        }
        ls = le + 1;
    }
}

/// `keys:` (LiveKit's key/secret map), `secrets:`, `tokens:`, `credentials:` ending its
/// line: a mapping whose entries are `<key id>: <secret>`, so each value that looks
/// machine-made is a secret. `e` is the end of the anchor (`keys:`).
pub(super) fn keyed_map(b: &[u8], s: usize, e: usize, out: &mut Vec<super::context::Hit>) {
    if b[..e].ends_with(b"{") {
        return json_keyed_map(b, s, e, out);
    }
    if at(b, skip_blanks(b, e)).is_some_and(|c| c != b'\n' && c != b'\r')
        || before(b, s).is_some_and(|c| !c.is_ascii_whitespace())
    {
        return;
    }
    for (body, le) in block_below(b, s, e, 16) {
        let name_end = run(&b[..le], body, |c| {
            c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.')
        });
        if name_end > body && at(b, name_end) == Some(b':') {
            let vs = skip_blanks(b, name_end + 1);
            if let Some((vs, ve)) = value_at(b, vs, body) {
                let v = &b[vs..ve];
                if ve <= le && plausible(v, Need::Strong) {
                    out.push(("secret", vs, ve));
                }
            }
        }
    }
}

/// Where a directive's value starts after words that qualify it: Cisco's encryption type
/// (`password 0 v`, `key 7 v`, `community v RO`, `password cipher v`) and a directive's
/// flags (kickstart's `rootpw --plaintext v`). Only where the key starts its line (a configuration
/// directive), and only when a value follows.
fn after_directive_words(b: &[u8], ks: usize, sp: usize) -> usize {
    let line = &b[line_start(b, ks)..ks];
    let directive = line.iter().all(|c| c.is_ascii_whitespace())
        || b[..ks].ends_with(b" ")
        || grep_prefix(line);
    if !directive {
        return sp;
    }
    let mut i = sp;
    for _ in 0..2 {
        let w_end = run(b, i, |c| !c.is_ascii_whitespace());
        let w = &b[i..w_end];
        let type_digit = w.len() == 1 && w[0].is_ascii_digit();
        let flag = w.len() > 2
            && w.starts_with(b"--")
            && w[2..].iter().all(|c| c.is_ascii_lowercase() || *c == b'-');
        // Huawei's and H3C's `password cipher v`, `irreversible-cipher v`, `simple v`:
        // how the device is to store the password typed after it.
        let storage = [b"cipher".as_slice(), b"irreversible-cipher", b"simple"].contains(&w);
        let next = skip_blanks(b, w_end);
        if !(type_digit || flag || storage)
            || next == w_end
            || at(b, next).is_none_or(|c| c == b'\n')
        {
            break;
        }
        i = next;
    }
    i
}

/// `1036:` or `ks.cfg:3:` before a key: the line as `grep -n` (or `grep -rn`) prints it.
fn grep_prefix(line: &[u8]) -> bool {
    let Some(l) = line.strip_suffix(b":") else {
        return false;
    };
    let n = l.iter().rposition(|&c| c == b':').map_or(0, |p| p + 1);
    n < l.len() && l[n..].iter().all(u8::is_ascii_digit) && !l[..n].contains(&b' ')
}

/// `DB_PASSWORD`, `process.env.STRIPE_SECRET_KEY`, `redis-password`,
/// `KeyPairs[0].PublicKey`: a value that is itself the name of a secret refers to one
/// (an environment variable, a key inside a Kubernetes secret, a query), it is not one.
fn names_a_secret(v: &[u8]) -> bool {
    // TypeScript's non-null `!` and an index's `]` close a name; T-SQL's `@` and a
    // bind variable's `:` open one (`@rmtpassword = @db_password`); a secret manager's
    // version follows one (`db-password:latest`, `stripe-key:3`).
    let v = v
        .strip_prefix(b"@")
        .or_else(|| v.strip_prefix(b":"))
        .unwrap_or(v);
    let v = match v.iter().rposition(|&c| c == b':') {
        Some(c) if &v[c + 1..] == b"latest" || v[c + 1..].iter().all(u8::is_ascii_digit) => &v[..c],
        _ => v,
    };
    let name = v.strip_suffix(b"!").unwrap_or(v);
    let name = name.strip_suffix(b"]").unwrap_or(name);
    // A prompt asks for one: `InputBox("Password?")`, `getpass("Token: ")`.
    let name = name.trim_ascii_end();
    let name = name
        .strip_suffix(b"?")
        .or_else(|| name.strip_suffix(b":"))
        .unwrap_or(name);
    name.len() >= 3
        && name
            .iter()
            .all(|&c| is_key_char(c) || matches!(c, b'[' | b']'))
        && name.iter().any(u8::is_ascii_alphabetic)
        && {
            let mut parts = name
                .split(|&c| matches!(c, b'[' | b']' | b'.'))
                .filter(|p| !p.is_empty());
            // A name is words: a random part (`pat.UZO1HomAf…`) makes it a token.
            parts.clone().all(|p| {
                !(random_alnum(p, 12)
                    || has_digit(p) && has_upper(p) && has_lower(p)
                    || p.split(|&c| c == b'_' || c == b'-').any(interleaved)
                    || jumbled_case(p))
            }) && parts.any(|p| {
                classify_key(p).is_some()
                    || contains_ci(p, b"publickey")
                    || contains_ci(p, b"public_key")
            })
        }
}

/// `KVPwRXMvJm`: letters whose case changes so often that no word of a name is
/// left, only two-letter pieces (`KV`, `Pw`, `RX`, …); a name's words are longer
/// (`kVPNPassword`: `k`, `VPN`, `Password`). Four pieces or more, none over two.
fn jumbled_case(p: &[u8]) -> bool {
    let boundary = |i: usize| {
        p[i].is_ascii_uppercase()
            && (p[i - 1].is_ascii_lowercase()
                || p[i - 1].is_ascii_uppercase()
                    && p.get(i + 1).is_some_and(u8::is_ascii_lowercase))
    };
    let (mut pieces, mut longest, mut len) = (1, 0, 1);
    for i in 1..p.len() {
        if boundary(i) {
            pieces += 1;
            longest = longest.max(len);
            len = 1;
        } else {
            len += 1;
        }
    }
    pieces >= 4 && longest.max(len) <= 2
}

/// The quoted argument of the `send`/`sendline` that answers a prompt closing at `i`,
/// on the same line and within a few bytes (expect, pexpect, Ansible's `expect`).
fn prompt_answer(b: &[u8], i: usize, family: Family, kind: &'static str) -> Option<Found> {
    let mut le = line_end(b, i, 64);
    // expect's `send` usually stands on the line after its `expect "password:"`.
    if !contains_ci(&b[i..le], b"send") && matches!(at(b, le), Some(b'\n' | b'\r')) {
        let next = run(b, le, |c| c == b'\n' || c == b'\r');
        le = line_end(b, next, 64);
    }
    let rest = &b[i..le];
    let p = rest
        .windows(4)
        .position(|w| w.eq_ignore_ascii_case(b"send"))?;
    let mut j = i + p + 4;
    if b[j..le].starts_with(b"line") {
        j += 4;
    }
    while j < le && matches!(b[j], b' ' | b'(' | b'-') {
        j += 1;
    }
    let (vs, mut ve) = value_at(b, j, j)?;
    if !before(b, vs).is_some_and(is_quote) {
        return None;
    }
    // The keystroke that ends the answer is not part of it.
    for end in [b"\\r".as_slice(), b"\\n"] {
        if b[vs..ve].ends_with(end) {
            ve -= end.len();
        }
    }
    let need = if family == Family::Password {
        Need::Password
    } else {
        Need::Token
    };
    plausible(&b[vs..ve], need).then_some(Found {
        kind,
        start: vs,
        end: ve,
        direct: true,
    })
}

/// `Verb-Noun` in PowerShell's casing (`Read-Host`, `Get-Content`).
fn is_cmdlet(v: &[u8]) -> bool {
    let mut parts = v.split(|&c| c == b'-');
    let (Some(verb), Some(noun), None) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    [verb, noun].iter().all(|p| {
        p.len() >= 3
            && p[0].is_ascii_uppercase()
            && p.iter().all(u8::is_ascii_alphabetic)
            && p[1..].iter().any(u8::is_ascii_lowercase)
    })
}

/// `setPassword("…")`, `withToken("…")`: a call that stores its argument, unlike
/// `prompt_password("Password: ")`.
fn setter(key: &[u8]) -> bool {
    [b"set".as_slice(), b"with", b"put", b"use"]
        .iter()
        .any(|p| {
            key.len() > p.len()
                && key[..p.len()].eq_ignore_ascii_case(p)
                && (key[p.len()].is_ascii_uppercase() || key[p.len()] == b'_')
        })
        || classify_word(key).is_some() && !key.contains(&b'_')
}

/// Past blanks and line breaks, at most `max` bytes.
fn skip_ws(b: &[u8], i: usize, max: usize) -> usize {
    run(&b[..(i + max).min(b.len())], i, |c| c.is_ascii_whitespace())
}

/// Whether the key at `ks` is alone at the start of a table row's cell: only `|`,
/// blanks and a quote before it on its line.
fn first_cell(b: &[u8], ks: usize) -> bool {
    let head = &b[line_start(b, ks)..ks];
    head.trim_ascii_start().starts_with(b"|")
        && head
            .iter()
            .all(|&c| c == b'|' || c == b' ' || c == b'\t' || c == b'`')
}

fn is_quote(c: u8) -> bool {
    matches!(c, b'"' | b'\'' | b'`')
}

pub(super) fn quote_before(b: &[u8], i: usize) -> Option<u8> {
    before(b, i).filter(|&c| is_quote(c))
}

fn key_is(b: &[u8], ks: usize, ke: usize, word: &[u8]) -> bool {
    b[ks..ke].eq_ignore_ascii_case(word)
}

/// `aws configure set KEY V`, `ENV KEY V`, `setx KEY V`, `config set KEY V`,
/// `proxy_set_header X-Api-Key V`.
fn set_context(line: &[u8]) -> bool {
    // A device's prompt is glued to the command (`sw-01(config)#username …`).
    let words = line
        .split(|&c| c.is_ascii_whitespace() || c == b'#')
        .filter(|w| !w.is_empty());
    let mut set = false;
    for w in words {
        set |= one_of(
            w,
            &[
                b"set",
                b"setx",
                b"config",
                b"configure",
                b"ENV",
                b"add",
                b"put",
                b"--global",
                b"--secret",
                // A proxy's header directives (nginx, Caddy).
                b"proxy_set_header",
                b"add_header",
                b"grpc_set_header",
                b"header_up",
                // Network gear's configuration lines (`snmp-server community <x> RW`,
                // `username ops privilege 15 secret 0 <x>`).
                b"snmp-server",
                b"username",
            ],
        );
    }
    set
}

#[cfg(test)]
mod tests;
