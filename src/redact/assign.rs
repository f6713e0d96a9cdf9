//! Keyword assignments: a key that names a secret (`DB_PASSWORD`, `apiKey`, `X-Auth-Key`,
//! `client_secret`, `--account-key`, `rootpasswd`) and its value, in the syntaxes tools
//! print: shell and `.env`, YAML, INI and TOML, JSON, HTTP headers, XML, code in Python,
//! Ruby, JS, PHP and Go, command-line flags, `name`/`value` pairs, and a value quoted
//! near the key in an error message, and the answer a script sends to a quoted
//! password prompt. The weaker the syntax, the more random the value must look
//! (`text::Need`); a value that is itself the name of a secret (`DB_PASSWORD`,
//! `process.env.X`, `redis-password`) refers to one and is left alone.

use super::text::{
    Need, at, before, contains_ci, has_digit, has_lower, has_upper, is_placeholder, is_word,
    line_body, line_end, line_start, placeholder_start, plausible, random_alnum, run, run_back,
    skip_blanks,
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

/// Glued stems before `pass` that make it a password (`storepass`, `dbpass`), unlike
/// `bypass` or `compass`.
const PASS_STEMS: &[&[u8]] = &[
    b"store",
    b"key",
    b"srcstore",
    b"deststore",
    b"srckey",
    b"destkey",
    b"root",
    b"db",
    b"admin",
    b"user",
    b"smtp",
    b"ftp",
    b"sftp",
    b"mail",
    b"proxy",
    b"ldap",
    b"bind",
    b"sudo",
    b"login",
    b"auth",
    b"master",
    b"app",
    b"client",
    b"server",
    b"redis",
    b"mq",
    b"vnc",
    b"wifi",
    b"my",
    b"sa",
    b"sys",
    b"new",
    b"ssh",
    b"http",
    b"web",
    b"api",
    b"sql",
    b"pg",
    b"mysql",
    b"require",
    b"bridge",
    b"rpc",
    b"remote",
    b"local",
    b"imap",
    b"pop",
    b"vpn",
    b"wpa",
    b"guest",
    b"repo",
];

/// Glued stems before `key` that make it a credential (`apikey`, `accountkey`).
const KEY_STEMS: &[&[u8]] = &[
    b"api",
    b"access",
    b"secret",
    b"private",
    b"priv",
    b"master",
    b"license",
    b"licence",
    b"encryption",
    b"encrypt",
    b"signing",
    b"sign",
    b"auth",
    b"client",
    b"app",
    b"service",
    b"shared",
    b"storage",
    b"subscription",
    b"consumer",
    b"webhook",
    b"session",
    b"sas",
    b"account",
    b"crypt",
    b"enc",
    b"hmac",
    b"jwt",
    b"cipher",
    b"aes",
    b"kms",
    b"root",
    b"admin",
    b"deploy",
    b"ingest",
    b"write",
    b"read",
    b"x",
    b"sk",
    b"user",
    b"dev",
    b"prod",
    b"live",
    b"mgmt",
    b"management",
    b"server",
    b"partner",
    b"merchant",
    b"developer",
    b"rest",
    b"app",
    b"org",
    b"project",
    b"personal",
    b"install",
    b"instance",
    b"vault",
    b"backup",
    b"wrap",
    b"wrapping",
    b"unseal",
    b"recovery",
    b"data",
    b"db",
    b"cookie",
    b"csrf",
    b"cache",
];

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
    if w == b"appid" || w == b"skey" || w == b"encrypt" || w == b"setcookie" {
        return Some(Family::Key);
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
    None
}

/// Words that name a credential only as a key's last word (`SHODAN_API`, `FOO_ACCESS`),
/// never as a qualifier (`api_url`, `access_log`).
/// `pat` (a personal access token), `sk` (the secret half of an AK/SK pair), `seed`
/// (a TOTP or wallet seed) and `login` (a token some CIs take as the login) name a
/// secret only as the last word (`ASANA_PAT`, `HUAWEICLOUD_SDK_SK`, `SONAR_LOGIN`).
const WEAK_WORDS: &[&[u8]] = &[
    b"api", b"access", b"hmac", b"apikeys", b"pat", b"sk", b"seed", b"login",
];

/// Words after the secret's name that make the key about the secret, not the secret:
/// `token_type`, `password_min_length`, `secret_name`, `key_file`.
const DENY_TAIL: &[&[u8]] = &[
    // Where a credential is used, not the credential: `authDomain`, `token_host`.
    b"domain",
    b"domains",
    b"host",
    b"hostname",
    b"origin",
    b"callback",
    b"redirect",
    b"algorithm",
    b"encryption",
    b"file",
    b"files",
    b"path",
    b"dir",
    b"directory",
    b"url",
    b"uri",
    b"endpoint",
    b"type",
    b"name",
    b"names",
    b"length",
    b"len",
    b"size",
    b"count",
    b"max",
    b"min",
    b"limit",
    b"ttl",
    b"expiry",
    b"expires",
    b"expiration",
    b"expire",
    b"expired",
    b"lifetime",
    b"timeout",
    b"ids",
    b"env",
    b"var",
    b"variable",
    b"prompt",
    b"policy",
    b"rotation",
    b"header",
    b"field",
    b"param",
    b"parameter",
    b"cmd",
    b"command",
    b"stdin",
    b"fd",
    b"helper",
    b"manager",
    b"provider",
    b"source",
    b"ref",
    b"refs",
    b"format",
    b"mode",
    b"hint",
    b"reset",
    b"change",
    b"changed",
    b"confirm",
    b"confirmation",
    b"required",
    b"strength",
    b"regex",
    b"pattern",
    b"validation",
    b"label",
    b"placeholder",
    b"title",
    b"msg",
    b"message",
    b"error",
    b"errors",
    b"valid",
    b"invalid",
    b"enabled",
    b"disabled",
    b"location",
    b"version",
    b"scope",
    b"scopes",
    b"audience",
    b"issuer",
    b"algorithm",
    b"alg",
    b"usage",
    b"kind",
    b"class",
    b"spec",
    b"schema",
    b"template",
    b"index",
    b"offset",
    b"page",
    b"status",
    b"state",
    b"backend",
    b"method",
    b"methods",
    b"request",
    b"response",
    b"fingerprint",
    b"checksum",
    b"digest",
    b"pub",
    b"public",
    b"cert",
    b"certificate",
    b"ca",
    b"chain",
    b"bits",
    b"arn",
    b"resource",
    b"selector",
    b"mount",
    b"volume",
    b"store",
    b"storage",
    b"exists",
    b"set",
    b"given",
    b"used",
    b"in",
    b"at",
    b"on",
    b"lock",
    b"hash",
    b"hashed",
    b"encrypted",
    b"pair",
    b"ring",
    b"alias",
    b"count",
    b"created",
    b"updated",
    b"last",
    b"id",
    b"uuid",
    b"accessor",
    b"handle",
    b"label",
    b"slot",
    b"pem",
    b"der",
    b"b",
    b"s",
    b"stats",
];

/// Words right before a `key` that make it a database, cache or public key.
const DENY_KEY_BEFORE: &[&[u8]] = &[
    b"public",
    b"pub",
    // The names vendors give the half of a pair that ships in a web page: a CAPTCHA's
    // site key, Stripe's publishable key, Supabase's anon key.
    b"publishable",
    b"site",
    b"anon",
    b"primary",
    b"foreign",
    b"sort",
    b"partition",
    b"hash",
    b"range",
    b"cache",
    b"idempotency",
    b"row",
    b"object",
    b"s3",
    b"ssh",
    b"gpg",
    b"pgp",
    b"group",
    b"unique",
    b"composite",
    b"natural",
    b"surrogate",
    b"lookup",
    b"dedup",
    b"dedupe",
    b"shard",
    b"sharding",
    b"hot",
    b"map",
    b"dict",
    b"registry",
    b"column",
    b"index",
    b"attribute",
    b"attr",
    b"translation",
    b"i18n",
    b"message",
    b"msg",
    b"label",
    b"foreign",
    b"candidate",
    b"search",
    b"host",
    b"known",
    b"authorized",
    b"sign",
    b"verify",
    b"verification",
    b"cert",
    b"ca",
    b"tls",
    b"config",
    b"metadata",
    b"meta",
    b"field",
    b"column",
    b"json",
    b"yaml",
    b"dictionary",
    b"record",
    b"item",
    b"entry",
    b"state",
    b"lock",
    b"concurrency",
    b"continuation",
    b"resume",
    b"sequence",
    b"seq",
    b"ordering",
    b"order",
    b"group",
    b"pk",
    b"fk",
    b"the",
    b"this",
    b"a",
    b"any",
    b"each",
    b"by",
    b"no",
    b"map",
    b"with",
    b"of",
    b"for",
    b"cursor",
    b"page",
    b"next",
    b"bucket",
    b"prefix",
];

/// Words right before a `token` that make it pagination, a model's vocabulary or a count.
/// Verbs that fetch a secret by name: the word after them names what to fetch.
const GETTERS: &[&[u8]] = &[
    b"get",
    b"read",
    b"show",
    b"fetch",
    b"lookup",
    b"describe",
    b"reveal",
    b"copy",
];

/// The part of `DENY_KEY_BEFORE` that says a key is public in an environment name too.
const PUBLIC_KEY_BEFORE: &[&[u8]] = &[
    b"public",
    b"pub",
    b"publishable",
    b"site",
    b"anon",
    b"ssh",
    b"gpg",
    b"pgp",
    b"host",
    b"known",
    b"authorized",
    b"verify",
    b"verification",
    b"cert",
    b"ca",
    b"tls",
    b"primary",
    b"foreign",
    b"sort",
    b"partition",
];

const DENY_TOKEN_BEFORE: &[&[u8]] = &[
    b"page",
    b"next",
    b"prev",
    b"previous",
    b"continuation",
    b"sync",
    b"pagination",
    b"resume",
    b"cancellation",
    b"cancel",
    b"csrf",
    b"xsrf",
    b"max",
    b"num",
    b"total",
    b"input",
    b"output",
    b"prompt",
    b"completion",
    b"public",
    b"bos",
    b"eos",
    b"pad",
    b"unk",
    b"sep",
    b"mask",
    b"cls",
    b"special",
    b"first",
    b"last",
    b"end",
    b"start",
    b"stop",
    b"lexer",
    b"parse",
    b"invalid",
    b"unexpected",
    b"the",
    b"a",
    b"this",
    b"no",
    b"each",
    b"by",
    b"cursor",
    b"continue",
    b"wait",
    b"request",
    b"idempotency",
    b"lock",
    b"fencing",
];

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
    let words = Words::of(key)?;
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
        let denied = if env_name {
            one_of(prev, PUBLIC_KEY_BEFORE)
        } else {
            one_of(prev, DENY_KEY_BEFORE)
        };
        if head == Some(Family::Key) && denied
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

/// How far the assignment scanner has looked: keys already classified and values already
/// taken are not looked at again (which keeps `password=password=…` linear).
#[derive(Default)]
pub(super) struct Reach {
    pub key: usize,
    pub value: usize,
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
        if one_of(&b[prev_start..prev_end], GETTERS) {
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
    let (family, kind) = match classify_key(key)? {
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
    let found = direct_value(b, ks, ke, flag, key_quote, family, kind)
        .or_else(|| name_value_pair(b, ks, ke, family, kind))
        .or_else(|| near_quoted(b, ks, ke, family, kind));
    if let Some(f) = found.as_ref().filter(|f| f.direct) {
        reach.value = f.end;
    }
    found
}

/// The value right after the key: `KEY=v`, `key: v`, `"key": "v"`, `['KEY'] = 'v'`,
/// `key => v`, `<key>v</key>`, `define('KEY', 'v')`, `--key v`, `set key v`.
#[allow(clippy::too_many_arguments)]
fn direct_value(
    b: &[u8],
    ks: usize,
    ke: usize,
    flag: bool,
    key_quote: Option<u8>,
    family: Family,
    kind: &'static str,
) -> Option<Found> {
    let mut i = ke;
    // The closing of a quoted or indexed key.
    if at(b, i) == Some(b'\\') && at(b, i + 1).is_some_and(is_quote) {
        i += 2;
    } else if at(b, i).is_some_and(is_quote) {
        i += 1;
    }
    if at(b, i) == Some(b']') {
        i += 1;
    }
    let sp = skip_blanks(b, i);
    let mut need = need_for(family);
    let mut must_quote = false;
    if let Some(range) = element_value(b, ks, ke) {
        return judged(b, range, need, kind);
    }
    // `${DB_PASSWORD:-changeme}`, Spring's `${DB_PASS:default}`: the key is a variable
    // read, and what follows is a default (kept to the value test), an error message
    // (`:?`) or an alternative (`:+`).
    let shell_default = ks >= 2 && &b[ks - 2..ks] == b"${";
    if shell_default {
        if at(b, i) != Some(b':') || matches!(at(b, i + 1), Some(b'?' | b'+')) {
            return None;
        }
        let skip = if matches!(at(b, i + 1), Some(b'-' | b'=')) {
            2
        } else {
            1
        };
        return judged(b, value_at(b, i + skip, ks)?, need, kind);
    }
    let j = match at(b, sp) {
        Some(b'=') if !matches!(at(b, sp + 1), Some(b'=' | b'~')) => {
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
            if key_quote.is_some() && i == ke && at(b, skip_blanks(b, sp + 1)) == key_quote =>
        {
            return prompt_answer(b, skip_blanks(b, sp + 1) + 1, family, kind);
        }
        Some(b':') if at(b, skip_blanks(b, sp + 1)).is_none_or(|c| c == b'\n' || c == b'\r') => {
            // CloudFormation's `DBPassword:` whose `Default:` (or an SSM-style
            // `Value:`) sits in the mapping below it.
            return judged(b, child_default(b, ks, sp + 1)?, need, kind);
        }
        Some(b':')
            if !matches!(at(b, sp + 1), Some(b':' | b'/' | b'\\'))
                || at(b, sp + 1) == Some(b'\\') && at(b, sp + 2).is_some_and(is_quote) =>
        {
            // `PASS: test_name` is a test runner's verdict, not a password.
            if family == Family::Password
                && key_is(b, ks, ke, b"pass")
                && at(b, sp + 1) == Some(b' ')
            {
                need = Need::Token;
            }
            sp + 1
        }
        Some(b'?') if at(b, sp + 1) == Some(b'=') => sp + 2,
        Some(b'|') if at(b, sp + 1) == Some(b'|') => {
            if at(b, sp + 2) == Some(b'=') {
                sp + 3
            } else {
                sp + 2
            }
        }
        Some(b',') if key_quote.is_some() || before(b, ks) == Some(b'{') => {
            must_quote = true;
            sp + 1
        }
        Some(b'>') if before(b, ks) == Some(b'<') => {
            // `<password>v</password>`: up to the closing tag. Windows' unattend files
            // wrap it once more: `<AdministratorPassword><Value>v</Value>`.
            let start = sp + 1;
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
            let closed = b[end..].starts_with(b"</") && b[end + 2..].starts_with(&b[ks..ke]);
            return (closed && plausible(v, need)).then_some(Found {
                kind,
                start: off,
                end: off + v.len(),
                direct: true,
            });
        }
        Some(b'(') if at(b, skip_blanks(b, sp + 1)).is_some_and(is_quote) && setter(&b[ks..ke]) => {
            must_quote = true;
            sp + 1
        }
        _ => {
            // No separator: `--token abc`, `.netrc`'s `password abc`, `set key value`,
            // `PASSWORD 'x'` in SQL, or a random value right after the word.
            let blanks = sp - i;
            if blanks == 0 || at(b, sp).is_none_or(|c| c == b'\n') {
                return None;
            }
            let sp = after_directive_words(b, ks, sp);
            // The value first: when even the key's own test rejects it (prose: `token
            // expired`), the line need not be read for a context.
            let (vs, ve) = value_at(b, sp, ks)?;
            if !plausible(&b[vs..ve], need) {
                return None;
            }
            let line = &b[line_start(b, ks)..ks];
            // `vault kv get`'s table: `password    hunter2` alone on its line; a
            // directive (`requirepass …`) as `grep -n` prints it (`1036:requirepass …`).
            let grep_n = line.ends_with(b":")
                && line.len() > 1
                && line[..line.len() - 1].iter().all(u8::is_ascii_digit);
            let table = (grep_n || line.iter().all(|c| c.is_ascii_whitespace())) && {
                let ve = run(b, sp, |c| !c.is_ascii_whitespace());
                ve > sp && at(b, skip_blanks(b, ve)).is_none_or(|c| c == b'\n' || c == b'\r')
            };
            if blanks > 4 && !table || b[sp] == b'-' && !table && !dash_random(b, sp) {
                return None;
            }
            let netrc = family == Family::Password && contains_ci(line, b"login ");
            let set = set_context(line);
            let quoted = at(b, sp).is_some_and(is_quote);
            need = if flag || set || netrc || table {
                need
            } else if quoted && family == Family::Password {
                Need::Password
            } else {
                Need::Strong
            };
            sp
        }
    };
    let (start, end) = value_at(b, skip_blanks(b, j), ks)?;
    // `define('KEY', 'v')`, but not `{"name": "KEY", "valueFrom": …}`: a quoted string
    // before a colon is the next key of an object.
    if must_quote
        && (!before(b, start).is_some_and(is_quote) || at(b, skip_blanks(b, end + 1)) == Some(b':'))
    {
        return None;
    }
    let v = &b[start..end];
    let unquoted = !before(b, start).is_some_and(is_quote);
    // `let password: u32 = …` is a type annotation, not a value.
    if unquoted
        && at(b, skip_blanks(b, end)) == Some(b'=')
        && at(b, skip_blanks(b, end) + 1) != Some(b'=')
    {
        return None;
    }
    // `password: cannot be empty`: prose.
    if unquoted
        && need == Need::Password
        && v.iter().all(u8::is_ascii_lowercase)
        && at(b, end) == Some(b' ')
        && at(b, end + 1).is_some_and(|c| c.is_ascii_lowercase())
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
    let key_id = family == Family::Key && v.len() < 20 && v.iter().all(|c| c.is_ascii_hexdigit())
        || j == sp
            && matches!(v.len(), 16 | 40 | 64)
            && v.iter()
                .all(|c| c.is_ascii_digit() || (b'A'..=b'F').contains(c));
    if key_id
        || names_a_secret(v)
        || !plausible(v, need)
        || family == Family::Auth
            && kind == "docker-auth"
            && !v.iter().all(|&c| super::text::is_b64(c))
    {
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
        let body = skip_blanks(b, content);
        i = le + 1;
        (body - content > indent).then_some((body, le))
    })
    .take(max)
}

/// `keys:` (LiveKit's key/secret map), `secrets:`, `tokens:`, `credentials:` ending its
/// line: a mapping whose entries are `<key id>: <secret>`, so each value that looks
/// machine-made is a secret. `e` is the end of the anchor (`keys:`).
pub(super) fn keyed_map(b: &[u8], s: usize, e: usize, out: &mut Vec<super::context::Hit>) {
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
/// (`password 0 v`, `key 7 v`, `community v RO`) and a directive's flags (kickstart's
/// `rootpw --plaintext v`). Only where the key starts its line (a configuration
/// directive), and only when a value follows.
fn after_directive_words(b: &[u8], ks: usize, sp: usize) -> usize {
    let directive = b[line_start(b, ks)..ks]
        .iter()
        .all(|c| c.is_ascii_whitespace())
        || b[..ks].ends_with(b" ");
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
        let next = skip_blanks(b, w_end);
        if !(type_digit || flag) || next == w_end || at(b, next).is_none_or(|c| c == b'\n') {
            break;
        }
        i = next;
    }
    i
}

/// `DB_PASSWORD`, `process.env.STRIPE_SECRET_KEY`, `redis-password`,
/// `KeyPairs[0].PublicKey`: a value that is itself the name of a secret refers to one
/// (an environment variable, a key inside a Kubernetes secret, a query), it is not one.
fn names_a_secret(v: &[u8]) -> bool {
    // TypeScript's non-null `!` and an index's `]` close a name.
    let name = v.strip_suffix(b"!").unwrap_or(v);
    let name = name.strip_suffix(b"]").unwrap_or(name);
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
            parts
                .clone()
                .all(|p| !(random_alnum(p, 12) || has_digit(p) && has_upper(p) && has_lower(p)))
                && parts.any(|p| {
                    classify_key(p).is_some()
                        || contains_ci(p, b"publickey")
                        || contains_ci(p, b"public_key")
                })
        }
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

/// A random value that happens to start with `-` (`--token -0g5g…`), not another flag.
pub(super) fn dash_random(b: &[u8], i: usize) -> bool {
    let end = run(&b[..(i + 512).min(b.len())], i, |c| {
        !c.is_ascii_whitespace()
    });
    let w = &b[i..end];
    w.len() >= 17 && w[1] != b'-' && !w.contains(&b'=') && plausible(&w[1..], Need::Strong)
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

fn is_quote(c: u8) -> bool {
    matches!(c, b'"' | b'\'' | b'`')
}

fn quote_before(b: &[u8], i: usize) -> Option<u8> {
    before(b, i).filter(|&c| is_quote(c))
}

fn key_is(b: &[u8], ks: usize, ke: usize, word: &[u8]) -> bool {
    b[ks..ke].eq_ignore_ascii_case(word)
}

/// `aws configure set KEY V`, `ENV KEY V`, `setx KEY V`, `config set KEY V`.
fn set_context(line: &[u8]) -> bool {
    let words = line
        .split(|c| c.is_ascii_whitespace())
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
            ],
        );
    }
    set
}

/// The value starting at `i`: inside its quotes, a YAML block's first line, a braced
/// connection-string value, or up to a delimiter.
fn value_at(b: &[u8], i: usize, ks: usize) -> Option<(usize, usize)> {
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
        if at(b, e) == Some(b'}')
            && e > i + 1
            && !b[i + 1..e].contains(&b'{')
            && !b[i + 1..e].contains(&b' ')
        {
            return Some((i + 1, e));
        }
    }
    // `key: # comment`; but `PASSWORD=#x` is a value (no blank, no comment).
    let comment = first == b'#' && before(b, i).is_some_and(|c| c.is_ascii_whitespace());
    if placeholder_start(first) || comment {
        return None;
    }
    let mut end = i;
    while end < cap {
        let c = b[end];
        let stop = c.is_ascii_whitespace()
            || matches!(
                c,
                b'"' | b'\'' | b'`' | b'<' | b'>' | b'|' | b')' | b'}' | b']'
            )
            || matches!(c, b',' | b';') && list_separator(&b[end + 1..cap], end == i)
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

/// A `,` or `;` that ends a value: one before a blank, a quote, a bracket, the end or
/// the next `name=`/`name:` of a list (`user=a,password=b`); any other is a character of
/// the value (`-w x,=y`, `--password ,S…`). A value never starts at its separator, so
/// one at the value's first byte is part of it.
pub(super) fn list_separator(rest: &[u8], first: bool) -> bool {
    if first {
        return false;
    }
    let name_end = run(rest, 0, is_key_char);
    rest.first().is_none_or(|&c| {
        c.is_ascii_whitespace()
            || matches!(c, b'"' | b'\'' | b'`' | b')' | b'}' | b']' | b',' | b';')
    }) || name_end > 0 && matches!(at(rest, name_end), Some(b'=' | b':'))
}

/// An `&` that ends a value: `&&`, a blank, the end, or the next `name=` of a query
/// string. Any other `&` is a character of a password (`Winter&3175`).
fn query_separator(rest: &[u8]) -> bool {
    let name_end = run(rest, 0, |c| {
        is_key_char(c) || matches!(c, b'[' | b']' | b'%')
    });
    rest.first()
        .is_none_or(|&c| c == b'&' || c.is_ascii_whitespace())
        || name_end > 0 && at(rest, name_end) == Some(b'=')
        || rest.starts_with(b"amp;")
}

/// Keys whose value is another key's name (`name: DB_PASSWORD` … `value: x`).
const NAME_KEYS: &[&[u8]] = &[
    b"name",
    b"key",
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
const VALUE_KEYS: &[&[u8]] = &[
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
fn name_value_pair(
    b: &[u8],
    ks: usize,
    ke: usize,
    family: Family,
    kind: &'static str,
) -> Option<Found> {
    // The word before the key's own word, skipping quotes, a path and a separator.
    let word_start = run_back(b, ks, ks.saturating_sub(MAX_KEY), |c| {
        !c.is_ascii_whitespace() && !matches!(c, b'"' | b'\'' | b'=' | b':' | b'>' | b'{' | b',')
    });
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
                return direct_value(b, k, we, flag, quote_before(b, dash_word), family, kind).map(
                    |mut f| {
                        f.direct = true;
                        f
                    },
                );
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

/// A quoted value near the key in prose or an error message, on the same line:
/// ``password: cannot unmarshal !!str `S3cr3t!` into int``,
/// `invalid value "…" for flag -token`.
fn near_quoted(
    b: &[u8],
    ks: usize,
    ke: usize,
    family: Family,
    kind: &'static str,
) -> Option<Found> {
    let need = if family == Family::Password {
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
    let key = &b[ks..ke];
    let ok = |v: &[u8]| {
        // `password=` between two quotes is a key, not its value.
        let keyish = v.ends_with(b"=") && v.len() < 16 || v.ends_with(b":") || contains_ci(v, key);
        !keyish
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
                    && super::text::has_alpha(v))
    };
    // Forward.
    let end = line_end(b, ke, NEAR);
    let mut i = ke;
    let mut colon_seen = false;
    let mut words = 0;
    while i < end {
        words += usize::from(i > ke && starts_word_at(i));
        if words > MAX_GAP_WORDS {
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
                let v = &b[i + 1..shut];
                // `"valueFrom": …`: a quoted string before a colon is the next key.
                let next_key = at(b, skip_blanks(b, shut + 1)) == Some(b':');
                if ok(v) && !is_placeholder(v) && !next_key {
                    return Some(Found {
                        kind,
                        start: i + 1,
                        end: shut,
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
    // Backward: the value comes first and the key names it after (`… into config.Password`).
    let start = line_start(b, ks).max(ks.saturating_sub(NEAR));
    let mut j = ks;
    let mut words = 0;
    while j > start {
        j -= 1;
        words += usize::from(j + 1 < ks && starts_word_at(j + 1));
        if words > MAX_GAP_WORDS {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_classified_by_their_words() {
        let kind = |k: &str| classify_key(k.as_bytes()).map(|(_, kind)| kind);
        assert_eq!(kind("DB_PASSWORD"), Some("password"));
        assert_eq!(kind("rootpasswd"), Some("password"));
        assert_eq!(kind("X-Auth-Key"), Some("key"));
        assert_eq!(kind("apiKey"), Some("api-key"));
        assert_eq!(kind("client-key-data"), Some("private-key"));
        assert_eq!(kind("aws_secret_access_key"), Some("aws-secret-key"));
        assert_eq!(kind("SECRET_KEY_BASE"), Some("secret"));
        assert_eq!(kind("private_key_id"), Some("private-key-id"));
        assert_eq!(kind("token_type"), None);
        assert_eq!(kind("max_tokens"), None);
        assert_eq!(kind("public_key"), None);
        assert_eq!(kind("primaryKey"), None);
        assert_eq!(kind("keyboard"), None);
        assert_eq!(kind("monkey"), None);
        assert_eq!(kind("bypass"), None);
        assert_eq!(kind("secretName"), None);
        assert_eq!(kind("next_page_token"), None);
        assert_eq!(kind("OLDPWD"), None);
        assert_eq!(kind("author"), None);
        assert_eq!(kind("storepass"), Some("password"));
    }
}
