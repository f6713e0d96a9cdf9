//! Public material that must never be redacted, however close it stands to the word
//! "key", "token" or "ID": digests with their algorithm, commit ids, UUIDs, ULIDs,
//! KSUIDs, MongoDB ObjectIds, Cloudflare Ray ids, Go build ids, git-annex keys, public
//! keys recognised by their own markers or structure (SSH wire blobs, minisign, Nix
//! cache keys, EC points as VAPID keys, extended public keys, publishable `pk_` keys),
//! addresses, and values inside a reference to a secret kept elsewhere (ARNs, sops).
//!
//! Only candidates found by context (assignments, flags, a nearby word) pass through
//! here; a vendor's format or a decoded private structure is specific enough already.

use super::keymaterial::{base58check, bech32, strkey};
use super::text::{b64_decode_prefix, before, is_b64, is_b64url, is_hex, run_back};

/// True when `b[s..e]` is a public identifier, digest, address or public key.
///
/// `named` says a key, flag or header named the value a secret: then an id's bare shape
/// (UUID, ULID, ObjectId) proves nothing, since vendors issue tokens in exactly those
/// shapes (`HEROKU_API_KEY=<uuid>`); only a structure or a label that says "public" does.
pub(super) fn is_public(b: &[u8], s: usize, e: usize, named: bool) -> bool {
    let v = &b[s..e];
    digest_with_algorithm(b, s, v)
        || !named && (is_uuid_like(v) || is_ulid(v) || object_id(v))
        || ray_id(v)
        || annex_key(b, s, v)
        || build_id(b, s, v)
        || eth_address(b, s, v)
        || public_key_blob(b, s, v)
        || address(v)
        || stellar_public(v)
        || labelled_public(b, s, v)
        || typed_public(b, s)
        || eth_signature(v)
        || anon_jwt(v)
        || der_signature(v)
        || ciphertext(v)
        || column_says_public(b, s)
        || annotated_public(b, e)
        || in_page_script(b, s)
        || browser_sdk_key(b, s)
        || under_ciphertext(b, s)
        || publishable(v)
        || in_reference(b, s)
        || in_template(b, s)
        || v.starts_with(b"AIza") && firebase_web_config(b, s, e)
        || key_id_field(b, s)
        || aws_key_id_listed(b, s, e)
        || sql_column_type(b, v, e)
        || solana_pay(b, s)
        || v.starts_with(b"type.googleapis.com/")
        // A DID's method-specific id: `did:key:z6Mk…` is the public key; an Ethereum
        // node's `enode://<public key>@host:port` names the node by its public key.
        || b[..s].ends_with(b"did:key:")
        || b[..s].ends_with(b"enode://")
        || solana_program(v)
        || public_session_id(b, s, v)
        || unsigned_json(v)
        // Tailscale's public keys name themselves: `nodekey:`, `mkey:`, `discokey:`
        // (the private ones are `privkey:`, `nlpriv:`).
        || [b"nodekey:".as_slice(), b"mkey:", b"discokey:", b"nlpub:"]
            .iter()
            .any(|p| b[..s].ends_with(p) || v.starts_with(p))
        || jwk_public_member(b, s, e)
        || data_uri(b, s, v)
        || openpgp_fingerprint(b, v)
}

/// Solana's own programs, named in every client's code: the token programs, the
/// associated-token and memo programs, and the sysvars and native programs whose ids
/// are a word padded with `1`s (`ComputeBudget111…`).
fn solana_program(v: &[u8]) -> bool {
    const PROGRAMS: [&[u8]; 5] = [
        b"TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
        b"TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb",
        b"ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL",
        b"MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr",
        b"metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s",
    ];
    let padded = (32..=44).contains(&v.len()) && v.ends_with(b"1111111111") && {
        let word = &v[..v.len() - v.iter().rev().take_while(|&&c| c == b'1').count()];
        !word.is_empty() && word.iter().all(u8::is_ascii_alphabetic)
    };
    PROGRAMS.contains(&v) || padded
}

/// A session id that is public by what carries it: a TLS handshake's (a dissector's
/// `Session ID:` under `Handshake Protocol`, sent in the clear), and the Session
/// messenger's account id (`05` and an X25519 public key in hex, 66 digits).
fn public_session_id(b: &[u8], s: usize, v: &[u8]) -> bool {
    let head = &b[super::text::line_start(b, s)..s];
    if !super::text::contains_ci(head, b"session id") {
        return false;
    }
    let messenger = v.len() == 66 && v.starts_with(b"05") && v.iter().all(|&c| is_hex(c));
    let tls = super::text::find(&b[s.saturating_sub(600)..s], b"Handshake Protocol").is_some();
    messenger || tls
}

/// A cookie's or a field's value that is JSON in base64 and nothing else
/// (`ui_prefs=eyJ0aGVtZSI6…`): anyone can write it, so nothing can trust it as a
/// credential. A session's JSON carries a signature after a `.` (Flask's, a JWT's),
/// and JSON that names a secret or a session inside, or holds a machine-made value,
/// stays redacted.
fn unsigned_json(v: &[u8]) -> bool {
    if !v.starts_with(b"eyJ") || v.len() > 2048 || !v.iter().all(|&c| is_b64(c) || is_b64url(c)) {
        return false;
    }
    let json = super::text::b64_decode_prefix(v, 2048);
    let whole = json.len() + 3 >= v.len() * 3 / 4;
    let named = [
        b"token".as_slice(),
        b"secret",
        b"session",
        b"passw",
        b"key",
        b"auth",
        b"sid",
        b"user",
    ]
    .iter()
    .any(|w| super::text::contains_ci(&json, w));
    // Preferences are words; a value machine-made (a tunnel's secret, an account's id)
    // makes the JSON a token whatever its keys are called.
    // A UUID in it (a V2Ray link's `id`, a device's) is one too.
    let random = json
        .split(|c| !c.is_ascii_alphanumeric())
        .any(|w| w.len() >= 16)
        || json
            .split(|&c| !(c.is_ascii_alphanumeric() || c == b'-'))
            .any(super::text::is_uuid);
    whole && json.starts_with(b"{") && json.ends_with(b"}") && !named && !random
}

/// `5E53F5352BFC6607572792A3C2092D0B49FA23A7`: an OpenPGP key's fingerprint (v4: 40
/// upper-case hex digits, v5/v6: 64) in a text about PGP keys. Tools print fingerprints
/// in capitals; secrets in hex come in lower case.
fn openpgp_fingerprint(b: &[u8], v: &[u8]) -> bool {
    (v.len() == 40 || v.len() == 64)
        && v.iter()
            .all(|c| c.is_ascii_digit() || (b'A'..=b'F').contains(c))
        && v.iter().any(u8::is_ascii_alphabetic)
        && v.iter().any(u8::is_ascii_digit)
        && [
            b"PGP".as_slice(),
            b"GPG",
            b"gpg",
            b"fingerprint",
            b"Fingerprint",
        ]
        .iter()
        .any(|w| super::text::find(b, w).is_some())
}

/// `"n": "…"` of `{"kty": "RSA", …, "n": "…", "e": "AQAB"}`: a public member of a JSON
/// Web Key (`n`, `e`, `x`, `y`) in an object that holds no private one (`d`, `p`, `q`).
fn jwk_public_member(b: &[u8], s: usize, e: usize) -> bool {
    let head = b[s.saturating_sub(8)..s].trim_ascii_end();
    let head = head.strip_suffix(b"\"").unwrap_or(head).trim_ascii_end();
    let head = head.strip_suffix(b":").unwrap_or(head).trim_ascii_end();
    let public = [b"\"n\"", b"\"e\"", b"\"x\"", b"\"y\""];
    if !public.iter().any(|m| head.ends_with(*m)) {
        return false;
    }
    let before = &b[s.saturating_sub(600)..s];
    let Some(open) = before.iter().rposition(|&c| c == b'{') else {
        return false;
    };
    let after = &b[e..(e + 2400).min(b.len())];
    let close = after.iter().position(|&c| c == b'}').unwrap_or(after.len());
    let object = [&before[open..], &after[..close]];
    let private = [b"\"d\"", b"\"p\"", b"\"q\"", b"\"k\""];
    let has = |m: &[u8]| {
        object
            .iter()
            .any(|part| super::text::find(part, m).is_some())
    };
    has(b"\"kty\"") && !private.iter().any(|m| has(*m))
}

/// `url(data:image/png;base64,iVBOR…)`: an image, a font or a sound inlined in a page or
/// a style sheet, public like the file it stands for.
fn data_uri(b: &[u8], s: usize, v: &[u8]) -> bool {
    let media = |rest: &[u8]| {
        [
            "image/",
            "font/",
            "audio/",
            "video/",
            "application/font",
            "application/x-font",
        ]
        .iter()
        .any(|m| rest.starts_with(m.as_bytes()))
    };
    let inner = v.strip_prefix(b"url(").unwrap_or(v);
    let inner = inner
        .strip_prefix(b"'")
        .or_else(|| inner.strip_prefix(b"\""))
        .unwrap_or(inner);
    if let Some(rest) = inner.strip_prefix(b"data:") {
        return media(rest);
    }
    let head = &b[s.saturating_sub(96)..s];
    head.ends_with(b";base64,")
        && super::text::find(head, b"data:").is_some_and(|d| media(&head[d + 5..]))
}

/// `"kid": "…"`: a JOSE header's key id, which names the key and is sent with every token.
fn key_id_field(b: &[u8], s: usize) -> bool {
    let head = b[s.saturating_sub(12)..s].trim_ascii_end();
    let head = head.strip_suffix(b"\"").unwrap_or(head).trim_ascii_end();
    let head = head.strip_suffix(b":").unwrap_or(head).trim_ascii_end();
    head.ends_with(b"\"kid\"") || head.ends_with(b"'kid'")
}

/// `password_salt bytea NOT NULL`: the type a table's column is declared with.
fn sql_column_type(b: &[u8], v: &[u8], e: usize) -> bool {
    const TYPES: &[&[u8]] = &[
        b"bytea",
        b"blob",
        b"longblob",
        b"mediumblob",
        b"tinyblob",
        b"varbinary",
        b"binary",
        b"varchar",
        b"nvarchar",
        b"varchar2",
        b"nvarchar2",
        b"nchar",
        b"text",
        b"longtext",
        b"mediumtext",
        b"tinytext",
        b"citext",
        b"clob",
        b"nclob",
        b"uuid",
        b"jsonb",
        b"bytes",
        b"string",
        b"raw",
    ];
    let after = &b[e..];
    let ends = [
        b" NOT NULL".as_slice(),
        b" not null",
        b" NULL",
        b" DEFAULT",
        b" default",
        b" PRIMARY",
        b" UNIQUE",
        b" REFERENCES",
        b",",
        b")",
        b";",
        b"(",
    ];
    TYPES.iter().any(|t| v.eq_ignore_ascii_case(t)) && ends.iter().any(|x| after.starts_with(x))
}

/// A value inside a Solana Pay URI (`solana:<recipient>?spl-token=<mint>&reference=…`):
/// accounts and mints, public by design, put in a QR code for anyone to pay.
fn solana_pay(b: &[u8], s: usize) -> bool {
    let start = run_back(b, s, s.saturating_sub(300), |c| {
        !c.is_ascii_whitespace() && !matches!(c, b'"' | b'\'' | b'`' | b'<' | b'(')
    });
    b[start..s].starts_with(b"solana:")
}

/// An AWS access key id where AWS prints it as the name of a key, not beside its secret:
/// a SigV4 credential scope (`Credential=AKIA…/20250809/eu-west-1/s3/aws4_request`) or
/// an API's `AccessKeyId` field (`iam list-access-keys`, a CloudTrail event). The id
/// alone grants nothing; the secret beside it, when one is, is found on its own.
pub(super) fn aws_key_id_listed(b: &[u8], s: usize, e: usize) -> bool {
    let id = |v: &[u8]| v.len() >= 20 && v[..4].iter().all(u8::is_ascii_uppercase);
    let scope = |rest: &[u8]| {
        rest.len() > 10
            && rest[0] == b'/'
            && rest[1..9].iter().all(u8::is_ascii_digit)
            && rest[9] == b'/'
    };
    let v = &b[s..e];
    if id(v) && scope(&b[s + 20..]) {
        return true;
    }
    let head = b[s.saturating_sub(16)..s].trim_ascii_end();
    let head = head.strip_suffix(b"\"").unwrap_or(head).trim_ascii_end();
    let head = head.strip_suffix(b":").unwrap_or(head).trim_ascii_end();
    let head = head.strip_suffix(b"\"").unwrap_or(head);
    id(v) && (head.ends_with(b"AccessKeyId") || head.ends_with(b"accessKeyId"))
}

/// `{"@type":"/cosmos.crypto.secp256k1.PubKey","key":"…"}`: a value whose object's type
/// names a public key; and a value inside an object a key opened that says public
/// (`"pub_key": {…}`, Matrix's `"verify_keys": {"ed25519:a": {"key": "…"}}`), up to two
/// levels up and over its lines.
fn typed_public(b: &[u8], s: usize) -> bool {
    let head = &b[s.saturating_sub(320)..s];
    let open = head.iter().rposition(|&c| c == b'{');
    if let Some(o) = open {
        let object = &head[o..];
        // `"@type": "…PubKey"`, also inside a JSON string (`\"@type\":\"…\"`).
        let typed = super::text::find(object, b"type\"")
            .or_else(|| super::text::find(object, b"type\\\""))
            .or_else(|| super::text::find(object, b"typeUrl\""));
        if let Some(t) = typed {
            let after = &object[t..];
            if super::text::contains_ci(after, b"pubkey")
                || super::text::contains_ci(after, b"publickey")
            {
                return true;
            }
        }
    }
    // The keys that opened the objects still open around the value.
    let mut depth = 0usize;
    let mut i = head.len();
    let mut levels = 0;
    while i > 0 && levels < 2 {
        i -= 1;
        match head[i] {
            b'}' => depth += 1,
            b'{' if depth > 0 => depth -= 1,
            b'{' => {
                levels += 1;
                let before = head[..i].trim_ascii_end();
                let Some(before) = before.strip_suffix(b":") else {
                    continue;
                };
                let before = before.trim_ascii_end();
                let before = before
                    .strip_suffix(b"\"")
                    .or_else(|| before.strip_suffix(b"'"))
                    .unwrap_or(before);
                let ks = run_back(before, before.len(), 0, |c| {
                    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.')
                });
                let key = &before[ks..];
                if [
                    b"pubkey".as_slice(),
                    b"pub_key",
                    b"publickey",
                    b"public_key",
                    b"verify_key",
                ]
                .iter()
                .any(|w| super::text::contains_ci(key, w))
                {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

/// A Stellar account id (`G…`, 56 characters of StrKey): a version byte, a public key
/// and its checksum, as a `stellar.toml` publishes it. Secret seeds start with `S`.
fn stellar_public(v: &[u8]) -> bool {
    v.len() == 56 && v[0] == b'G' && strkey(v).is_some_and(|d| d.len() == 33 && d[0] == 6 << 3)
}

/// Whether the value at `s..e`, found under a `signature` name, is a signature rather
/// than a secret: [`signature_shaped`], or a webhook scheme's version just before it
/// (`v1,…`), unless it is a signed URL's query parameter.
pub(super) fn signature_at(b: &[u8], s: usize, e: usize) -> bool {
    let head = &b[s.saturating_sub(8)..s];
    // The scheme's version before the value: `v1,` or `v0=`.
    let versioned_before = head.len() >= 3 && matches!(head[head.len() - 1], b'=' | b',') && {
        let digits = head[..head.len() - 1]
            .iter()
            .rev()
            .take_while(|c| c.is_ascii_digit())
            .count();
        digits > 0 && head.len() >= digits + 2 && head[head.len() - 2 - digits] == b'v'
    };
    // A signed URL's signature (`?…&X-Goog-Signature=…`) grants what the URL does
    // until it expires: a credential, whatever its length.
    let name_start = run_back(b, s.saturating_sub(1), s.saturating_sub(40), |c| {
        c.is_ascii_alphanumeric() || c == b'-' || c == b'_'
    });
    let in_query =
        s > 0 && b[s - 1] == b'=' && name_start > 0 && matches!(b[name_start - 1], b'?' | b'&');
    !in_query
        && (versioned_before && e - s >= 20
            || signature_shaped(&b[s..e])
            || request_signature(b, s)
            || signature_reference(&b[s..e]))
}

/// A signature one request carries in a header of its own (`Stripe-Signature: t=…,v1=…`,
/// `X-Twilio-Signature: …`, RFC 9421's `Signature: sig1=:…:`): it proves that request
/// and no other, unlike a signed URL's, which grants what the URL does to whoever holds
/// it. An `Authorization` header's signature (SigV4's) stays redacted with the header:
/// it is that request's credential, replayable while it is fresh.
fn request_signature(b: &[u8], s: usize) -> bool {
    let ls = super::text::line_start(b, s);
    let head = &b[ls..s];
    let Some(name) = head.trim_ascii_end().strip_suffix(b":") else {
        return false;
    };
    let ns = run_back(name, name.len(), 0, |c| {
        c.is_ascii_alphanumeric() || c == b'-'
    });
    let name = &name[ns..];
    let name = name.trim_ascii_end();
    // `X-Hub-Signature-256`: the digest's size after the name.
    let digits = name.iter().rev().take_while(|c| c.is_ascii_digit()).count();
    let name = &name[..name.len() - digits];
    let name = name.strip_suffix(b"-").unwrap_or(name);
    let header = name.len() >= 9 && name[name.len() - 9..].eq_ignore_ascii_case(b"signature");
    header && (name.contains(&b'-') || name == b"Signature")
}

/// `ghcr.io/org/app:sha256-….sig`: where a signature is kept, not the signature.
fn signature_reference(v: &[u8]) -> bool {
    v.ends_with(b".sig") && v.contains(&b'/')
}

/// What a value named signature holds when it is one: a webhook's versioned scheme
/// (Slack's `v0=…`, Svix's `v1,…`, Stripe's `t=…,v1=…`), or 64 bytes and more in hex or
/// base64 (Ed25519, BLS, RSA). A secret named signature is a key's length, 32 bytes.
fn signature_shaped(v: &[u8]) -> bool {
    let versioned = v.first() == Some(&b'v') && {
        let n = v[1..].iter().take_while(|c| c.is_ascii_digit()).count();
        n > 0 && matches!(v.get(1 + n), Some(b'=' | b','))
    };
    let stripe = v.starts_with(b"t=") && super::text::find(v, b",v1=").is_some();
    let body = v.strip_prefix(b"0x").unwrap_or(v);
    let hex = body.len() >= 128 && body.iter().all(|&c| is_hex(c));
    let b64 = body.len() >= 86 && body.iter().all(|&c| is_b64(c) || is_b64url(c));
    versioned && v.len() >= 24 || stripe || hex || b64
}

/// `0x` and 130 hex digits: an Ethereum signature (r, s, v), published with what it signs.
fn eth_signature(v: &[u8]) -> bool {
    v.len() == 132 && v.starts_with(b"0x") && v[2..].iter().all(|&c| is_hex(c))
}

/// `MEUCIQ…`: an ECDSA signature in base64, DER's `SEQUENCE { INTEGER r, INTEGER s }`
/// and nothing else (cosign's annotation, a JWS or a webhook's DER signature). A signature
/// is public like the data it signs; a private key's structure never ends after two
/// integers.
fn der_signature(v: &[u8]) -> bool {
    if !(v.starts_with(b"M") && (60..=200).contains(&v.len()) && v.iter().all(|&c| is_b64(c))) {
        return false;
    }
    let d = b64_decode_prefix(v, 150);
    let total = d.len();
    let int_at = |i: usize| {
        (d.get(i) == Some(&0x02))
            .then(|| d.get(i + 1).map(|&l| usize::from(l)))
            .flatten()
            .filter(|l| (16..=70).contains(l))
    };
    let Some(r) = int_at(2) else {
        return false;
    };
    let Some(s) = int_at(4 + r) else {
        return false;
    };
    d[0] == 0x30 && usize::from(d[1]) + 2 == total && 6 + r + s == total
}

/// An encryption tool's envelope around a value: Vault transit (`vault:v1:…`), dotenvx
/// (`encrypted:…`), ejson (`EJ[1:…`), Jenkins (`{AQAAABAAAA…}`). Committing these is
/// what the tools are for; the key to open them is elsewhere.
fn ciphertext(v: &[u8]) -> bool {
    let body = |rest: &[u8]| rest.len() >= 16 && rest.iter().all(|&c| is_b64(c) || c == b':');
    if let Some(rest) = v.strip_prefix(b"vault:v") {
        let n = rest.iter().take_while(|c| c.is_ascii_digit()).count();
        return n > 0 && rest.get(n) == Some(&b':') && body(&rest[n + 1..]);
    }
    // Vault's audit log prints each secret as its HMAC (`hmac-sha256:…`).
    if let Some(rest) = v.strip_prefix(b"hmac-sha256:") {
        return rest.len() >= 32 && rest.iter().all(|&c| is_hex(c));
    }
    // AWS KMS's CiphertextBlob (SSM's SecureString read without decryption).
    v.starts_with(b"AQICAH") && v.len() >= 100 && v.iter().all(|&c| is_b64(c))
        || v.strip_prefix(b"encrypted:").is_some_and(body)
        || v.strip_prefix(b"EJ[1:")
            .is_some_and(|rest| body(rest.strip_suffix(b"]").unwrap_or(rest)))
        || v.starts_with(b"{AQAAAB") && v.ends_with(b"}")
        // OpenSSL's `enc -a` output: base64 of `Salted__`, the salt, the ciphertext.
        || v.starts_with(b"U2FsdGVkX1") && v.len() >= 44 && v.iter().all(|&c| is_b64(c))
        || bitwarden_enc_string(v)
        || dpapi_blob(v.strip_prefix(b"51:b:").unwrap_or(v))
}

/// Bitwarden's EncString, `2.<iv>|<ciphertext>|<mac>` in base64: what its encrypted
/// export and its vault hold, openable only with the account's key.
fn bitwarden_enc_string(v: &[u8]) -> bool {
    let Some(rest) = v.strip_prefix(b"2.").or_else(|| v.strip_prefix(b"0.")) else {
        return false;
    };
    let parts: Vec<&[u8]> = rest.split(|&c| c == b'|').collect();
    parts.len() >= 2
        && parts
            .iter()
            .all(|p| p.len() >= 16 && p.iter().all(|&c| is_b64(c)))
}

/// A Windows DPAPI blob in hex (an `.rdp` file's `password 51:b:…`): version 1 and
/// the DPAPI provider's GUID lead every one; only the user's logon opens it.
fn dpapi_blob(v: &[u8]) -> bool {
    v.len() >= 100
        && v[..40].eq_ignore_ascii_case(b"01000000D08C9DDF0115D1118C7A00C04FC297EB")
        && v.iter().all(|&c| is_hex(c))
}

/// A value in a table column whose header says digest or id (`fly secrets list`'s
/// `NAME  DIGEST  CREATED AT`): the tool printed a fingerprint of the secret, not it.
fn column_says_public(b: &[u8], s: usize) -> bool {
    let ls = super::text::line_start(b, s);
    let col = s - ls;
    if col == 0 || ls == 0 {
        return false;
    }
    // The header is the first line of the block: walk up over the table's rows.
    let mut line = ls;
    for _ in 0..20 {
        if line == 0 {
            return false;
        }
        let prev = super::text::line_start(b, line - 1);
        let row = &b[prev..line - 1];
        if row.trim_ascii().is_empty() {
            return false;
        }
        let header = row.len() > col
            && row
                .iter()
                .all(|&c| c.is_ascii_uppercase() || c.is_ascii_whitespace() || c == b'_');
        if header {
            let ws = run_back(row, col, 0, |c| !c.is_ascii_whitespace());
            if ws != col || row[col].is_ascii_whitespace() {
                return false;
            }
            let we = super::text::run(row, col, |c| !c.is_ascii_whitespace());
            let word = &row[ws..we];
            return [
                b"DIGEST".as_slice(),
                b"HASH",
                b"CHECKSUM",
                b"FINGERPRINT",
                b"SHA256",
                b"ID",
            ]
            .contains(&word);
        }
        line = prev;
    }
    false
}

/// A comment after the value, on its line, says the key is meant to be public:
/// `// search-only API key, safe for the browser`, `# client-side token`.
fn annotated_public(b: &[u8], e: usize) -> bool {
    let le = super::text::line_end(b, e, 512);
    let rest = &b[e..le];
    let Some(c) = [b"//".as_slice(), b" #", b"/*", b"<!--"]
        .iter()
        .filter_map(|m| super::text::find(rest, m))
        .min()
    else {
        return false;
    };
    let comment = &rest[c..];
    let says_private = super::text::contains_ci(comment, b"secret")
        || super::text::contains_ci(comment, b"private")
        || super::text::contains_ci(comment, b"admin");
    !says_private
        && [
            b"search-only".as_slice(),
            b"search only",
            b"search api key",
            b"client-side",
            b"client side",
            b"browser",
            b"publishable",
            b"public",
            b"read-only",
            b"read only",
            b"frontend",
            b"safe to expose",
            b"post_client_item",
            b"javascript key",
            b"js key",
        ]
        .iter()
        .any(|w| super::text::contains_ci(comment, w))
}

/// Inside a `<script>` element or its `src` URL, on the value's line: shipped to every
/// visitor of the page, so a key there is a browser key.
fn in_page_script(b: &[u8], s: usize) -> bool {
    let ls = super::text::line_start(b, s);
    if super::text::contains_ci(&b[ls..s], b"<script") {
        return true;
    }
    // The tag's attributes over several lines (`<script async\n  src="…?key=…">`).
    let head = &b[s.saturating_sub(200)..s];
    head.windows(7)
        .rposition(|w| w.eq_ignore_ascii_case(b"<script"))
        .is_some_and(|o| !head[o..].contains(&b'>'))
}

/// A key a browser SDK is started with, which its vendor documents as public: Paddle's
/// client-side token (`Paddle.Initialize({ token: … })`), Pusher's app key (Laravel
/// Echo's `broadcaster: 'pusher', key: …`) and Rollbar's client token (`_rollbarConfig`). Their secrets (Paddle's API key, Pusher's
/// app secret) never go to a browser.
fn browser_sdk_key(b: &[u8], s: usize) -> bool {
    let head = &b[s.saturating_sub(240)..s];
    super::text::find(head, b"Paddle.Initialize(").is_some_and(|i| !head[i..].contains(&b')'))
        // Rollbar's `post_client_item` token, in the snippet every page carries.
        || super::text::find(head, b"_rollbarConfig").is_some_and(|i| !head[i..].contains(&b'}'))
        || super::text::find(head, b"broadcaster").is_some_and(|i| {
            super::text::contains_ci(&head[i..], b"pusher") && !head[i..].contains(&b'}')
        })
}

/// A value under `encryptedData:` (a SealedSecret) is ciphertext only the cluster's
/// controller can open: safe to commit by design.
fn under_ciphertext(b: &[u8], s: usize) -> bool {
    // A sealed value is hundreds of bytes: the block's key may be a few of them back.
    let from = s.saturating_sub(8192);
    let Some(k) = super::text::rfind(&b[from..s], b"encryptedData:") else {
        return false;
    };
    let parent = from + k;
    let indent = parent - super::text::line_start(b, parent);
    // Every line from the parent's to the value's is inside its block; a value on the
    // parent's own line is not under it.
    let (parent_end, value_line) = (
        super::text::line_end(b, parent, 512),
        super::text::line_start(b, s),
    );
    if value_line <= parent_end {
        return false;
    }
    let block = &b[parent_end..value_line];
    block
        .split(|&c| c == b'\n')
        .all(|line| line.is_empty() || line.iter().take_while(|&&c| c == b' ').count() > indent)
        && b[super::text::line_start(b, s)..s]
            .iter()
            .take_while(|&&c| c == b' ')
            .count()
            > indent
}

/// A whole JWT whose payload is an anon key's.
fn anon_jwt(v: &[u8]) -> bool {
    let mut parts = v.split(|&c| c == b'.');
    v.starts_with(b"eyJ") && parts.nth(1).is_some_and(super::text::anon_payload) || jwt_header(v)
}

/// `eyJhbGciOiJSUzI1NiIs…` alone: a JWT's header (`{"alg": …}`), the same for every
/// token its issuer signs; documentation shows it before `.<payload>.<signature>`.
fn jwt_header(v: &[u8]) -> bool {
    v.starts_with(b"eyJ") && !v.contains(&b'.') && {
        let json = super::text::b64_decode_prefix(v, 256);
        json.ends_with(b"}") && super::text::find(&json, b"\"alg\"").is_some()
    }
}

/// Keys a vendor issues to be published in a web page, by the marker its documentation
/// gives them: Stripe's and Paddle's `pk_live_…`/`pk_test_…` (a publishable key names
/// the environment it is published for), Mapbox's `pk.…`, `pub_…`, a `publishable`
/// segment (`sb_publishable_…`), PostHog's project keys `phc_…`, a `public-token-…`,
/// Flutterwave's `FLWPUBK…`, Razorpay's key ids `rzp_live_…`, and the `pub` + 32 hex of browser client tokens. Their
/// secret halves (`sk_…`, `sk.…`, `phx_…`, `sb_secret_…`) have other prefixes; a `pk_`
/// without an environment (`pk_<user id>_<random>`) is a personal key.
pub(super) fn publishable(v: &[u8]) -> bool {
    let marked = [
        b"pk_live_".as_slice(),
        b"pk_test_",
        b"pk.",
        b"pub_",
        b"publishable_",
        b"phc_",
        b"public-token-",
        b"public_token_",
        b"FLWPUBK",
        // New Relic's browser agent key, documented as shipped in every page.
        b"NRJS-",
        // Razorpay's key id goes into Checkout in the page; its secret has no prefix.
        b"rzp_live_",
        b"rzp_test_",
        // Statsig's client SDK keys, made for the browser and the app.
        b"client-",
        // RevenueCat's public SDK keys, one per store (`appl_`, `goog_`, `amzn_`).
        b"appl_",
        b"goog_",
        b"amzn_",
        // PubNub's publish and subscribe keys; its secret key is `sec-c-`.
        b"pub-c-",
        b"sub-c-",
        // Branch's keys go into the app's manifest; its secret is `secret_live_`.
        b"key_live_",
        b"key_test_",
        // A Stripe Checkout Session's id, in the URL the customer is sent to.
        b"cs_live_",
        b"cs_test_",
    ]
    .iter()
    .any(|p| v.starts_with(p));
    // Braintree's tokenization key (`production_<8>_<16>`), made for the page.
    let tokenization = [&b"production_"[..], b"sandbox_"].iter().any(|p| {
        v.strip_prefix(*p).is_some_and(|rest| {
            let parts: Vec<&[u8]> = rest.split(|&c| c == b'_').collect();
            parts.len() == 2
                && parts[0].len() == 8
                && parts[1].len() == 16
                && rest
                    .iter()
                    .all(|&c| c == b'_' || c.is_ascii_lowercase() || c.is_ascii_digit())
        })
    });
    let segment = v
        .split(|&c| c == b'_' || c == b'-')
        .take(3)
        .any(|w| w.eq_ignore_ascii_case(b"publishable") || w.eq_ignore_ascii_case(b"public"));
    let client_token = v.len() == 35
        && v.starts_with(b"pub")
        && v[3..]
            .iter()
            .all(|&c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c));
    marked || segment || client_token || tokenization
}

/// Inside a template expression still open on this line (`{{ lookup('…', 'secret=…') }}`,
/// `${{ … }}`): code that fetches a value when the template renders, not a value. A
/// literal the expression gives (`{{ $pw := "…" }}`, `| default("…")`) is a value, and
/// so is text in a wiki's monospace (`{{Authorization: Bearer …}}`: no code has `: `).
fn in_template(b: &[u8], s: usize) -> bool {
    let ls = super::text::line_start(b, s);
    let head = &b[ls..s];
    let Some(open) = super::text::rfind(head, b"{{") else {
        return false;
    };
    let expr = &head[open + 2..];
    let assigned = {
        let h = head.trim_ascii_end();
        h.strip_suffix(b"\"")
            .or_else(|| h.strip_suffix(b"'"))
            .is_some_and(|h| {
                let h = h.trim_ascii_end();
                h.ends_with(b":=") || h.ends_with(b"=") && !h.ends_with(b"==")
            })
    };
    let prose = super::text::find(expr, b": ").is_some() && !expr.contains(&b'(');
    !expr.windows(2).any(|w| w == b"}}")
        && !super::structure::default_literal(head)
        && !assigned
        && !prose
}

/// A Google API key in a Firebase app's configuration: a web app's (`apiKey` beside
/// `authDomain`, `messagingSenderId` or a `firebaseapp.com` host), an Android app's
/// `google-services.json` (`mobilesdk_app_id`, `current_key`) or an iOS app's
/// `GoogleService-Info.plist` (`GOOGLE_APP_ID`, `GCM_SENDER_ID`). Firebase documents
/// these keys as identifiers meant to ship in the app. The same `AIza…` key elsewhere
/// stays secret.
pub(super) fn firebase_web_config(b: &[u8], s: usize, e: usize) -> bool {
    let lo = s.saturating_sub(400);
    let hi = (e + 400).min(b.len());
    let near = &b[lo..hi];
    [
        b"authDomain".as_slice(),
        b"messagingSenderId",
        b"firebaseapp.com",
        b"mobilesdk_app_id",
        b"current_key",
        b"GOOGLE_APP_ID",
        b"GCM_SENDER_ID",
    ]
    .iter()
    .any(|m| super::text::contains_ci(near, m))
}

/// A Google API key in the Maps JavaScript API's script URL (`maps.googleapis.com/maps/
/// api/js?key=…`): the browser key Google tells to ship in the page, held by referrer.
pub(super) fn maps_script_key(b: &[u8], s: usize) -> bool {
    let head = &b[s.saturating_sub(120)..s];
    head.ends_with(b"key=") && super::text::find(head, b"maps.googleapis.com/maps/api/js").is_some()
}

/// A value inside an AWS ARN (`arn:aws:secretsmanager:…:secret:prod/db-AbCdEf`) or a
/// sops envelope (`ENC[AES256_GCM,data:…]`): the name of a secret kept elsewhere, or
/// its ciphertext, not the secret.
fn in_reference(b: &[u8], s: usize) -> bool {
    let start = run_back(b, s, s.saturating_sub(200), |c| {
        !c.is_ascii_whitespace() && !matches!(c, b'"' | b'\'' | b'`')
    });
    let token = &b[start..s];
    let opens_at = |i: usize| i == 0 || token[i - 1] == b'=';
    let arn = token
        .windows(4)
        .enumerate()
        .any(|(i, w)| w == b"arn:" && opens_at(i));
    let sops = super::text::rfind(token, b"ENC[").is_some_and(|i| !token[i..].contains(&b']'));
    arn || sops
}

/// Algorithms that label a digest (`sha256:…`, `sha512-…`, go.sum's `h1:…`).
pub(super) const DIGEST_ALGORITHMS: &[&[u8]] = &[
    b"sha1",
    b"sha224",
    b"sha256",
    b"sha384",
    b"sha512",
    b"md5",
    b"blake2b",
    b"blake2s",
    b"blake3",
    b"sha3-256",
    b"sha3-512",
    b"h1",
    b"xxh64",
    b"crc32",
];

/// A digest whose algorithm is written before it: in the value (`sha256:ab…`) or glued
/// right before it (`@sha256:`, `integrity="sha512-`, `--hash=sha256:`).
fn digest_with_algorithm(b: &[u8], s: usize, v: &[u8]) -> bool {
    let labelled = |algo_end: usize, text: &[u8]| {
        let start = run_back(text, algo_end, algo_end.saturating_sub(10), |c| {
            c.is_ascii_alphanumeric() || c == b'-'
        });
        let word = &text[start..algo_end];
        DIGEST_ALGORITHMS
            .iter()
            .any(|a| word.eq_ignore_ascii_case(a))
    };
    // `sha256:` inside the value.
    if let Some(p) = v.iter().position(|&c| matches!(c, b':' | b'-' | b'='))
        && p <= 8
        && labelled(p, v)
    {
        return true;
    }
    matches!(before(b, s), Some(b':' | b'-' | b'=')) && labelled(s - 1, b)
}

/// `8-4-4-4-12` hex, in any case.
fn is_uuid_like(v: &[u8]) -> bool {
    v.len() == 36
        && v.iter().enumerate().all(|(i, &c)| match i {
            8 | 13 | 18 | 23 => c == b'-',
            _ => is_hex(c),
        })
}

/// A ULID: 26 characters of Crockford's base32, upper case, the first at most `7`.
fn is_ulid(v: &[u8]) -> bool {
    v.len() == 26
        && matches!(v[0], b'0'..=b'7')
        && v.iter().all(|&c| {
            c.is_ascii_digit() || c.is_ascii_uppercase() && !matches!(c, b'I' | b'L' | b'O' | b'U')
        })
        && v.iter().filter(|c| c.is_ascii_digit()).count() >= 4
}

/// A MongoDB ObjectId: 24 hex in one case whose first four bytes are a plausible
/// creation time (2009–2038).
fn object_id(v: &[u8]) -> bool {
    if v.len() != 24 || !v.iter().all(|&c| is_hex(c)) {
        return false;
    }
    let one_case =
        v.iter().all(|c| !c.is_ascii_uppercase()) || v.iter().all(|c| !c.is_ascii_lowercase());
    let Ok(ts) = std::str::from_utf8(&v[..8]).map(|t| u32::from_str_radix(t, 16)) else {
        return false;
    };
    one_case && ts.is_ok_and(|t| (0x4A00_0000..=0x8000_0000).contains(&t))
}

/// A Cloudflare Ray id: 16 hex and a colo code, `8a1b2c3d4e5f6a7b-FRA`.
fn ray_id(v: &[u8]) -> bool {
    v.len() == 20
        && v[..16]
            .iter()
            .all(|&c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
        && v[16] == b'-'
        && v[17..].iter().all(u8::is_ascii_uppercase)
}

/// A git-annex key, `SHA256E-s1048576--<hex>.tar.gz`: backend, size, digest.
fn annex_key(b: &[u8], s: usize, v: &[u8]) -> bool {
    let start = run_back(b, s, s.saturating_sub(40), |c| {
        c.is_ascii_alphanumeric() || c == b'-'
    });
    let whole = &b[start..s.max(start)];
    let token = [whole, v].concat();
    let Some(dd) = token.windows(2).position(|w| w == b"--") else {
        return false;
    };
    let head = &token[..dd];
    let backend_end = head.iter().position(|&c| c == b'-').unwrap_or(head.len());
    let backend = &head[..backend_end];
    let fields = &head[backend_end..];
    backend.len() >= 3
        && backend
            .iter()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        && fields.starts_with(b"-s")
        && token[dd + 2..].iter().take_while(|&&c| is_hex(c)).count() >= 32
}

/// A Go build id, `<20>/<20>[/<20>/<20>]` of base64url, named as one nearby.
fn build_id(b: &[u8], s: usize, v: &[u8]) -> bool {
    let parts: Vec<&[u8]> = v.split(|&c| c == b'/').collect();
    let shaped = (2..=4).contains(&parts.len())
        && parts
            .iter()
            .all(|p| (20..=22).contains(&p.len()) && p.iter().all(|&c| is_b64url(c)));
    let near = &b[s.saturating_sub(40)..s];
    shaped
        && (super::text::contains_ci(near, b"build") || super::text::contains_ci(near, b"buildid"))
}

/// `0x` and 40 hex: an Ethereum address (a private key has 64).
fn eth_address(b: &[u8], s: usize, v: &[u8]) -> bool {
    let body = v
        .strip_prefix(b"0x")
        .or_else(|| (s >= 2 && &b[s - 2..s] == b"0x").then_some(v));
    body.is_some_and(|h| h.len() == 40 && h.iter().all(|&c| is_hex(c)))
}

/// A public key recognised by its bytes: an SSH wire-format blob (`AAAAC3NzaC1lZDI1NTE5…`),
/// a minisign public key (`Ed`, key id, key: 42 bytes), an uncompressed EC point (65
/// bytes from `04`: VAPID and other P-256 public keys), a Nix cache public key
/// (`name-1:` and 32 bytes), or a value that follows an SSH key type.
fn public_key_blob(b: &[u8], s: usize, v: &[u8]) -> bool {
    let line_head = &b[s.saturating_sub(40)..s];
    const SSH_TYPES: &[&[u8]] = &[
        b"ssh-ed25519 ",
        b"ssh-rsa ",
        b"ssh-dss ",
        b"ecdsa-sha2-",
        b"sk-ssh-",
        b"sk-ecdsa-",
    ];
    if SSH_TYPES
        .iter()
        .any(|t| line_head.windows(t.len()).any(|w| w == *t))
        && v.starts_with(b"AAAA")
    {
        return true;
    }
    let body: &[u8] = v.strip_suffix(b"=").unwrap_or(v);
    if body.len() < 40 || body.len() > 120 {
        return false;
    }
    let d = b64_decode_prefix(body, 96);
    let ssh_blob = d.len() > 8
        && d[..3] == [0, 0, 0]
        && (7..=40).contains(&d[3])
        && (d[4..].starts_with(b"ssh-")
            || d[4..].starts_with(b"ecdsa-")
            || d[4..].starts_with(b"sk-"));
    let minisign = d.len() == 42 && d.starts_with(b"Ed");
    let ec_point = d.len() == 65 && d[0] == 0x04;
    let nix = d.len() == 32 && before(b, s) == Some(b':') && {
        let name_start = run_back(b, s - 1, (s - 1).saturating_sub(96), |c| {
            c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-' | b'_')
        });
        b[name_start..s - 1]
            .rsplit(|&c| c == b'-')
            .next()
            .is_some_and(|n| !n.is_empty() && n.iter().all(u8::is_ascii_digit))
    };
    ssh_blob || minisign || ec_point || nix
}

/// A base58check address or extended public key, or a bech32 string whose prefix does
/// not name a secret (addresses, `age1…` recipients, `npub…`).
fn address(v: &[u8]) -> bool {
    // Nano's `nano_` + 60 characters of its base32 (key and checksum).
    let nano = v.strip_prefix(b"nano_").or_else(|| v.strip_prefix(b"xrb_"));
    if let Some(rest) = nano {
        const NANO32: &[u8] = b"13456789abcdefghijkmnopqrstuwxyz";
        return rest.len() == 60 && rest.iter().all(|c| NANO32.contains(c));
    }
    // A compressed secp256k1 public key in hex (a Lightning node's id): 33 bytes that
    // open with 02 or 03, where a private key is 32.
    if v.len() == 66
        && (v.starts_with(b"02") || v.starts_with(b"03"))
        && v.iter().all(|&c| is_hex(c))
    {
        return true;
    }
    if let Some(d) = base58check(v) {
        // Tezos' public keys carry their own prefix bytes and key length: `edpk` (32),
        // `sppk` and `p2pk` (33).
        const TEZOS_PUBLIC: [(&[u8], usize); 3] = [
            (&[13, 15, 37, 217], 32),
            (&[3, 254, 226, 86], 33),
            (&[3, 178, 139, 127], 33),
        ];
        return match d.len() {
            21 => true,
            78 => matches!(d[45], 0x02 | 0x03),
            36 | 37 => TEZOS_PUBLIC
                .iter()
                .any(|&(p, n)| d.len() == p.len() + n && d.starts_with(p)),
            _ => false,
        };
    }
    bech32(v).is_some_and(|(hrp, _)| {
        let h = hrp.to_ascii_lowercase();
        !(h.ends_with(b"sec")
            || h.ends_with(b"sk")
            || h.ends_with(b"prv")
            || h.windows(6).any(|w| w == b"secret"))
    })
}

/// Words that, as the last word of the label before a value, say the value is an id, a
/// digest or a public key, not a secret.
const PUBLIC_LABELS: &[&[u8]] = &[
    b"id",
    b"ids",
    b"hash",
    b"digest",
    b"sha",
    b"commit",
    b"checksum",
    b"fingerprint",
    b"thumbprint",
    b"etag",
    b"rev",
    b"revision",
    b"oid",
    b"ray",
    b"trace",
    b"span",
    b"public",
    b"pub",
    b"pubkey",
    b"publickey",
    b"objectid",
    b"ksuid",
    b"ulid",
    b"uuid",
    b"recipient",
    b"address",
    b"addr",
];

/// The label right before the value on its line (`KEY_ID: …`, `public key: …`,
/// `"publicKey": "…"`) ends with a word that names an id or a public half. The value must
/// still look like one: hex, base64 or base62, no punctuation a password would have.
fn labelled_public(b: &[u8], s: usize, v: &[u8]) -> bool {
    // An escaped closing quote's backslash (`\"…-3\""`) belongs to the quoting.
    let v = v.strip_suffix(b"\\").unwrap_or(v);
    let idish = v
        .iter()
        .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=' | b'-' | b'_'));
    if !idish {
        return false;
    }
    // Skip the separator: quotes (escaped ones too: `"ETag": "\"…`, Markdown's code
    // span), blanks, `:`, `=`, `(`.
    let sep_start = run_back(b, s, s.saturating_sub(8), |c| {
        matches!(
            c,
            b' ' | b'\t' | b'"' | b'\'' | b'`' | b':' | b'=' | b'(' | b'\\' | b'|'
        )
    });
    // `Implicit account ID (public, derived from your public key): …`: an aside in
    // parentheses is part of the label.
    let label_start = run_back(b, sep_start, sep_start.saturating_sub(80), |c| {
        c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b' ' | b'(' | b')' | b',')
    });
    let label = &b[label_start..sep_start];
    // `\\fs1\public pw`: the last segment of a path, not a label.
    if matches!(before(b, label_start), Some(b'\\' | b'/')) {
        return false;
    }
    // `private_key_id`, `SecretId` and `session_id` are named as secrets (a session's id
    // is its bearer credential): their owner decides.
    if super::text::contains_ci(label, b"private")
        || super::text::contains_ci(label, b"secret")
        || super::text::contains_ci(label, b"session")
    {
        return false;
    }
    let last = label
        .rsplit(|&c| matches!(c, b'_' | b'-' | b'.' | b' ' | b'(' | b')'))
        .find(|w| !w.is_empty());
    let last = match last {
        Some(w) => camel_tail(w),
        None => return false,
    };
    // `public const string ApiToken = …`: in a declaration, `public` is the field's
    // visibility, so only the name itself may say "public".
    let declaration = label.split(|&c| c == b' ').any(|w| {
        [
            b"const".as_slice(),
            b"static",
            b"final",
            b"readonly",
            b"string",
            b"var",
            b"val",
            b"let",
            b"internal",
            b"override",
            b"export",
        ]
        .iter()
        .any(|k| w.eq_ignore_ascii_case(k))
    });
    let scope = if declaration {
        label
            .rsplit(|&c| c == b' ')
            .find(|w| !w.is_empty())
            .unwrap_or(label)
    } else {
        label
    };
    // A payment form's or a widget's `clientKey`: the browser half, by its vendor's
    // design (its secret is the `client_secret` or the API key).
    let client_key = [b"clientKey".as_slice(), b"client_key", b"client-key"]
        .iter()
        .any(|k| label.ends_with(k));
    client_key
        || PUBLIC_LABELS.iter().any(|p| last.eq_ignore_ascii_case(p))
        || scope.windows(6).any(|w| w.eq_ignore_ascii_case(b"public"))
            && !scope.windows(7).any(|w| w.eq_ignore_ascii_case(b"private"))
        // An Ethereum validator's `withdrawal_credentials`: an address, by its name.
        || super::text::contains_ci(label, b"withdrawal_credentials")
        // A PSBT's or a descriptor's Taproot keys are x-only public keys.
        || super::text::contains_ci(label, b"taproot")
}

/// The last camel-case word of `w` (`publicKey` → `Key`, `keyId` → `Id`), or `w`.
fn camel_tail(w: &[u8]) -> &[u8] {
    match w.iter().rposition(u8::is_ascii_uppercase) {
        Some(p) if p > 0 && w[p - 1].is_ascii_lowercase() => &w[p..],
        _ => w,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn public(text: &str, value: &str) -> bool {
        let s = text.find(value).expect("value in text");
        is_public(text.as_bytes(), s, s + value.len(), false)
    }

    #[test]
    fn ids_and_digests_are_public() {
        let digest = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
        assert!(public(&format!("image@sha256:{digest}"), digest));
        assert!(public(
            "request 01HZX3J8K9QW5T7V2M4N6P8R0S",
            "01HZX3J8K9QW5T7V2M4N6P8R0S"
        ));
        assert!(public(
            "_id: 65f1c2a9e4b0a1b2c3d4e5f6",
            "65f1c2a9e4b0a1b2c3d4e5f6"
        ));
        let uuid = "123e4567-e89b-12d3-a456-426614174000";
        let text = format!("HEROKU_API_KEY={uuid}");
        let s = text.find(uuid).expect("uuid in text");
        assert!(
            !is_public(text.as_bytes(), s, s + uuid.len(), true),
            "a token in a UUID's shape"
        );
        assert!(public(
            "Ray ID: 8a1b2c3d4e5f6a7b-FRA",
            "8a1b2c3d4e5f6a7b-FRA"
        ));
        let sha1 = "3f786850e387550fdab836ed7e6dc881de23001b";
        assert!(public(&format!("KEY_ID: {sha1}"), sha1));
        let annex = format!("SHA256E-s1048576--{digest}.tar.gz");
        assert!(public(&annex, &annex));
    }

    #[test]
    fn a_secret_next_to_an_id_is_not_public() {
        let hex = "3f786850e387550fdab836ed7e6dc881de23001b3f786850e387550fdab836ed";
        assert!(!public(&format!("--signing-secret {hex}"), hex));
        assert!(!public("password: Winter!2024xyz", "Winter!2024xyz"));
        assert!(!public("private key id: Winter!2024xyz", "Winter!2024xyz"));
    }

    #[test]
    fn public_keys_are_recognised_by_their_structure() {
        let ssh = "AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl";
        assert!(public(&format!("ssh-ed25519 {ssh} a@b"), ssh));
        assert!(public(&format!("key: {ssh}"), ssh));
    }
}
