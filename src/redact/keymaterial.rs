//! Key material recognised by its encoding, whatever names it: base64, base64url and hex
//! blobs decoded and read as DER private keys, PKCS#12, JKS/JCEKS, Kerberos keytabs,
//! OpenPGP secret-key packets, OpenSSH and minisign secret keys; base58check strings
//! whose payload is a WIF key or an extended private key; bech32 strings whose prefix
//! names a secret; Stellar StrKey seeds; JSON Web Keys' private members; JSON arrays of
//! 64 bytes (a keypair file); a `"value"` whose sibling `"type"`/`"typeUrl"` names a
//! private or symmetric key (Tink keysets, Tendermint's `priv_validator_key.json`); a libgcrypt
//! `(private-key …)` S-expression's secret members (GnuPG's key files). Public halves (an
//! extended public key, an address, a certificate) fail these tests by construction.
//!
//! Cost: one pass over the bytes that skips every run shorter than [`MIN_BLOB`]; only
//! longer runs are decoded, and only their first bytes.

use sha2::{Digest, Sha256};

use super::context::Hit;
use std::sync::LazyLock;

use super::text::{
    at, b64_decode_prefix, before, contains_ci, is_b64url, is_hex, line_end, line_start, run,
    run_back, skip_blanks,
};

/// Shortest run looked at: a compressed WIF key is 52 characters, a base64 DER key far
/// more; shorter runs are words, ids and digests.
const MIN_BLOB: usize = 44;
/// Longest run decoded; a longer blob is still redacted whole.
const MAX_BLOB: usize = 1 << 20;
/// Bytes decoded to read a blob's header.
const HEAD: usize = 64;

/// Bytes of base64, base64url, hex, base58 and bech32, as a table: the scan reads every
/// byte of every text the hook sees, so the test is one load.
static BLOB_CHARS: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'_' | b'-');
        c += 1;
    }
    t
};

fn is_blob_char(c: u8) -> bool {
    BLOB_CHARS[usize::from(c)]
}

/// Every key-material blob in `b`.
pub(super) fn scan(b: &[u8], out: &mut Vec<Hit>) {
    let mut i = 0;
    // End of the run `i` is in, found once per run: `KEY=…=…` splits one run into many
    // blobs, and finding the run's end again for each would be quadratic.
    let mut run_end = 0;
    while i < b.len() {
        let c = b[i];
        if !is_blob_char(c) {
            if c == b'['
                && let Some(end) = byte_array(b, i)
            {
                out.push(("private-key", i, end));
                i = end;
                continue;
            }
            i += 1;
            continue;
        }
        // `…\nMIIE…` in a JSON string: the `n` is the escape's, not the blob's.
        if i > 0 && b[i - 1] == b'\\' && matches!(c, b'n' | b'r' | b't') {
            i += 1;
            continue;
        }
        if run_end <= i {
            run_end = run(b, i, is_blob_char);
        }
        if run_end - i < MIN_BLOB {
            // Too short as a whole, so too short in every part.
            i = run_end;
            continue;
        }
        let end = blob_end(b, i);
        if end - i >= MIN_BLOB
            && let Some(hit) = blob(b, i, end)
        {
            out.push(hit);
        }
        i = end;
    }
}

/// End of the blob starting at `i`. An `=` inside a run is an assignment
/// (`KEY=MIIE…`), not padding: the blob ends there and the next one starts after it.
fn blob_end(b: &[u8], i: usize) -> usize {
    let mut k = i;
    while k < b.len() && is_blob_char(b[k]) {
        if b[k] == b'=' && b.get(k + 1).is_some_and(|&c| c != b'=' && is_blob_char(c)) {
            return k + 1;
        }
        k += 1;
    }
    k
}

/// What the run `s..e` is, if it is key material.
fn blob(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    let v = &b[s..e];
    if v.iter().all(|&c| is_hex(c)) {
        return hex_blob(b, s, e);
    }
    // Checksummed encodings are alphanumeric: a descriptor's `xprv…/84h/0h` or a
    // `name:nsec1…` holds one inside a longer run.
    let mut k = s;
    while k < e {
        let ae = run(&b[..e], k, |c| c.is_ascii_alphanumeric());
        if ae - k >= MIN_BLOB {
            if let Some(kind) = base58_key(&b[k..ae]) {
                return Some((kind, k, ae));
            }
            if bech32_secret(&b[k..ae]) || strkey_secret(&b[k..ae]) {
                return Some(("private-key", k, ae));
            }
        }
        k = ae + 1;
    }
    // A blob wrapped at a fixed width continues on the next lines.
    let end = wrapped_end(b, e);
    let v = &b[s..end.min(s + MAX_BLOB)];
    let head = b64_decode_prefix(&strip_breaks(&v[..v.len().min(HEAD * 2)]), HEAD);
    // A keytab's header alone (`05 02`) is two bytes: named by its line, it is enough.
    let keytab_named = head.len() >= 2
        && head[0] == 0x05
        && matches!(head[1], 0x01 | 0x02)
        && contains_ci(&b[line_start(b, s)..s], b"keytab");
    if secret_structure(&head)
        || nix_secret(b, s, v)
        || keytab_named
        || v.len() >= 136 && signify_secret(&head)
    {
        return Some(("private-key", s, end));
    }
    None
}

/// signify's secret key: algorithm `Ed`, KDF `BK` (bcrypt) or none, 104 bytes in all
/// (140 in base64); its public key is `Ed`, a key number and 32 bytes, 42 in all.
fn signify_secret(d: &[u8]) -> bool {
    d.len() >= 8 && d.starts_with(b"Ed") && (&d[2..4] == b"BK" || d[2..4] == [0, 0])
}

/// The BIP-39 English word list: a wallet's recovery phrase is 12 to 24 of its words.
static BIP39: &str = include_str!("bip39-english.txt");

fn bip39_word(w: &[u8]) -> bool {
    static WORDS: LazyLock<Vec<&'static [u8]>> =
        LazyLock::new(|| BIP39.lines().map(str::as_bytes).collect());
    WORDS.binary_search(&w).is_ok()
}

/// Recovery phrases: 12 or more words of the BIP-39 list in a row, one blank apart. Such
/// a run is at least 47 bytes of lower-case letters and blanks, so the text is sampled
/// every 47 bytes and only a sample inside a long enough stretch of those bytes is read
/// further; prose breaks such a stretch within a few words (capitals, punctuation), and
/// its short words (`the`, `a`, `to`, `of`) are not in the list.
pub(super) fn mnemonics(b: &[u8], out: &mut Vec<Hit>) {
    const MIN_WORDS: usize = 12;
    const MIN_SPAN: usize = MIN_WORDS * 4 - 1;
    let phrase_byte = |c: u8| c.is_ascii_lowercase() || c == b' ';
    let mut i = MIN_SPAN - 1;
    while i < b.len() {
        if !phrase_byte(b[i]) {
            i += MIN_SPAN;
            continue;
        }
        let mut s = i;
        while s > 0 && phrase_byte(b[s - 1]) {
            s -= 1;
        }
        let e = run(b, i, phrase_byte);
        if e - s >= MIN_SPAN {
            phrases_in(b, s, e, MIN_WORDS, out);
        }
        i = e + MIN_SPAN;
    }
}

/// The phrases in `b[s..e]`, a stretch of lower-case letters and blanks: the longest runs
/// of at least `min` listed words, each of 3 to 8 letters, one blank apart.
fn phrases_in(b: &[u8], s: usize, e: usize, min: usize, out: &mut Vec<Hit>) {
    // A word glued to the stretch's neighbour (`xabandon`, `abandon_2`) is not a word.
    let glued = |k: usize| {
        b.get(k)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
    };
    let mut run_from: Option<usize> = None;
    let mut count = 0;
    let mut last_end = s;
    let mut k = s;
    let flush = |from: Option<usize>, count: usize, end: usize, out: &mut Vec<Hit>| {
        if let Some(from) = from
            && count >= min
        {
            out.push(("mnemonic", from, end));
        }
    };
    while k < e {
        let we = run(&b[..e], k, |c| c.is_ascii_lowercase());
        let edge_glued = k == s && s > 0 && glued(s - 1) || we == e && glued(e);
        let listed = (3..=8).contains(&(we - k)) && !edge_glued && bip39_word(&b[k..we]);
        let one_blank = k == s || b[k - 1] == b' ' && (k < 2 || b[k - 2] != b' ');
        if listed && one_blank && run_from.is_some() {
            count += 1;
        } else {
            flush(run_from, count, last_end, out);
            run_from = listed.then_some(k);
            count = usize::from(listed);
        }
        last_end = we;
        k = run(&b[..e], we, |c| c == b' ');
        if k == we {
            break;
        }
    }
    flush(run_from, count, last_end, out);
}

/// `Fernet(b"…")`, `Fernet("…")`: a Fernet key, 32 random bytes in URL-safe base64. `e`
/// is just after the call's `(`.
pub(super) fn fernet(b: &[u8], e: usize) -> Option<Hit> {
    let mut i = e;
    if at(b, i) == Some(b'b') {
        i += 1;
    }
    let q = at(b, i).filter(|&c| c == b'"' || c == b'\'')?;
    let vs = i + 1;
    let ve = run(&b[..(vs + 64).min(b.len())], vs, |c| {
        is_b64url(c) || c == b'='
    });
    let v = &b[vs..ve];
    (at(b, ve) == Some(q)
        && v.len() == 44
        && v.ends_with(b"=")
        && super::text::random_alnum(
            &v.iter()
                .copied()
                .filter(u8::is_ascii_alphanumeric)
                .collect::<Vec<u8>>(),
            20,
        ))
    .then_some(("private-key", vs, ve))
}

/// Hardhat's and Truffle's `accounts: ["0x<64 hex>", …]`: a network's signing keys,
/// which its config lists by the private key. `e` is the end of `accounts:`.
pub(super) fn account_keys(b: &[u8], e: usize, out: &mut Vec<Hit>) {
    let i = skip_blanks(b, e);
    if at(b, i) != Some(b'[') {
        return;
    }
    let le = line_end(b, i, 1024);
    let mut k = i + 1;
    while k < le {
        if b[k..].starts_with(b"0x") && !before(b, k).is_some_and(|c| c.is_ascii_alphanumeric()) {
            let he = run(&b[..le], k + 2, is_hex);
            if he - k - 2 == 64 && !at(b, he).is_some_and(|c| c.is_ascii_alphanumeric()) {
                out.push(("private-key", k, he));
            }
            k = he;
            continue;
        }
        k += 1;
    }
}

/// A hex blob that decodes to a DER private key or a keystore.
fn hex_blob(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    let v = &b[s..e];
    if !v.len().is_multiple_of(2) || v.len() < 64 {
        return None;
    }
    let head: Vec<u8> = v[..v.len().min(HEAD * 2)]
        .chunks(2)
        .filter_map(|p| std::str::from_utf8(p).ok())
        .filter_map(|p| u8::from_str_radix(p, 16).ok())
        .collect();
    secret_structure(&head).then_some(("private-key", s, e))
}

/// Line widths base64 tools wrap at.
const WRAP_WIDTHS: &[usize] = &[60, 64, 70, 72, 76];

/// End of a blob that `base64` or a PEM body wrapped: while a line is exactly one of the
/// usual widths, the next line continues it.
fn wrapped_end(b: &[u8], e: usize) -> usize {
    let mut end = e;
    let mut line_start = run_back(b, e, e.saturating_sub(80), is_blob_char);
    loop {
        let width = end - line_start;
        let next = match (b.get(end), b.get(end + 1)) {
            (Some(b'\n'), _) => end + 1,
            (Some(b'\r'), Some(b'\n')) => end + 2,
            _ => return end,
        };
        if !WRAP_WIDTHS.contains(&width) || !b.get(next).copied().is_some_and(is_blob_char) {
            return end;
        }
        let next_end = run(b, next, is_blob_char);
        if next_end - next > width {
            return end;
        }
        line_start = next;
        end = next_end;
    }
}

fn strip_breaks(v: &[u8]) -> Vec<u8> {
    v.iter()
        .copied()
        .filter(|c| !c.is_ascii_whitespace())
        .collect()
}

/// The header of a decoded blob says "private key" or "keystore".
pub(super) fn secret_structure(head: &[u8]) -> bool {
    der_private(head)
        || head.starts_with(&[0xFE, 0xED, 0xFE, 0xED])
        || head.starts_with(&[0xCE, 0xCE, 0xCE, 0xCE])
        || keytab(head)
        || openpgp_secret(head)
        || head.starts_with(b"openssh-key-v1\0")
        || private_key_blob(head)
        || minisign_secret(head)
        || bks_key_entry(head)
        // Tor's key files: `== ed25519v1-secret: type0 ==` and its kin.
        || head.starts_with(b"== ") && head.windows(8).take(32).any(|w| w == b"-secret:")
}

/// A BouncyCastle keystore (BKS, version 1 or 2) whose first entry holds a key: the
/// version, a 20-byte salt with its length, the iteration count, then an entry of type
/// key (2), secret (3) or sealed key (4) with a printable alias. A store of certificates
/// alone (type 1) is a truststore.
fn bks_key_entry(d: &[u8]) -> bool {
    let Some(&[t, hi, lo]) = d.get(32..35) else {
        return false;
    };
    let alias_len = usize::from(hi) << 8 | usize::from(lo);
    matches!(d[..8], [0, 0, 0, 1 | 2, 0, 0, 0, 20])
        && matches!(t, 2..=4)
        && (1..=64).contains(&alias_len)
        && d.get(35..35 + alias_len)
            .is_some_and(|a| a.iter().all(|c| c.is_ascii_graphic()))
}

/// CryptoAPI's PRIVATEKEYBLOB, as a .NET strong-name `.snk` holds it: type 7,
/// version 2, an algorithm id, then `RSA2` or `DSS2` (`RSA1`, a public key blob, is
/// type 6).
fn private_key_blob(d: &[u8]) -> bool {
    d.len() >= 12 && d[..4] == [0x07, 0x02, 0x00, 0x00] && matches!(&d[8..12], b"RSA2" | b"DSS2")
}

/// Length of a DER item's header and its content length, at `i`.
fn der_len(d: &[u8], i: usize) -> Option<(usize, usize)> {
    let first = *d.get(i + 1)?;
    if first < 0x80 {
        return Some((2, usize::from(first)));
    }
    let n = usize::from(first & 0x7F);
    if !(1..=3).contains(&n) {
        return None;
    }
    let mut len = 0usize;
    for k in 0..n {
        len = len << 8 | usize::from(*d.get(i + 2 + k)?);
    }
    Some((2 + n, len))
}

/// PKCS#8 (`SEQUENCE { INTEGER 0|1, SEQUENCE algorithm, … }`), PKCS#1 RSA and DSA
/// (`SEQUENCE { INTEGER 0, INTEGER … }`), SEC1 EC (`SEQUENCE { INTEGER 1, OCTET STRING }`),
/// PKCS#12 (`SEQUENCE { INTEGER 3, SEQUENCE … }`) and an encrypted PKCS#8
/// (`SEQUENCE { SEQUENCE { OID pbes2 | pkcs12-pbe } … }`). A certificate opens with a
/// SEQUENCE inside a SEQUENCE and a public key with an algorithm SEQUENCE: neither has the
/// version INTEGER first.
fn der_private(d: &[u8]) -> bool {
    if d.first() != Some(&0x30) {
        return false;
    }
    let Some((h, len)) = der_len(d, 0) else {
        return false;
    };
    if len < 32 {
        return false;
    }
    let body = &d[h.min(d.len())..];
    let version = |v: u8, next: &[u8]| {
        body.starts_with(&[0x02, 0x01, v]) && body.get(3).is_some_and(|c| next.contains(c))
    };
    // Explicit ECParameters (`openssl ecparam -param_enc explicit`) open like a
    // version 1 key, then name a field type (1.2.840.10045.1.x): a curve, public.
    const FIELD_TYPE: &[u8] = &[0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x01];
    let curve = version(0x01, &[0x30])
        && der_len(body, 3)
            .is_some_and(|(h2, _)| body[(3 + h2).min(body.len())..].starts_with(FIELD_TYPE));
    if !curve
        && (version(0x00, &[0x30, 0x02]) || version(0x01, &[0x30, 0x04]) || version(0x03, &[0x30]))
    {
        return true;
    }
    // EncryptedPrivateKeyInfo: the algorithm's OID comes first.
    if body.first() == Some(&0x30)
        && let Some((h2, _)) = der_len(body, 0)
    {
        let inner = &body[h2.min(body.len())..];
        let inner = if inner.first() == Some(&0x30) {
            der_len(inner, 0).map_or(&[][..], |(h3, _)| &inner[h3.min(inner.len())..])
        } else {
            inner
        };
        const PBES2: &[u8] = &[
            0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x05, 0x0D,
        ];
        const PKCS12_PBE: &[u8] = &[0x06, 0x0A, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x0C];
        return inner.starts_with(PBES2) || inner.starts_with(PKCS12_PBE);
    }
    false
}

/// MIT keytab: `05 01|02`, then entries that each open with a positive 32-bit size and a
/// principal of a few components.
fn keytab(d: &[u8]) -> bool {
    if d.len() < 12 || d[0] != 0x05 || !matches!(d[1], 0x01 | 0x02) {
        return false;
    }
    let size = i32::from_be_bytes([d[2], d[3], d[4], d[5]]);
    let components = u16::from_be_bytes([d[6], d[7]]);
    let realm_len = u16::from_be_bytes([d[8], d[9]]);
    (16..=65536).contains(&size) && (1..=8).contains(&components) && (1..=255).contains(&realm_len)
}

/// An OpenPGP secret-key or secret-subkey packet (tags 5 and 7), old or new format,
/// holding a version 3–6 key.
fn openpgp_secret(d: &[u8]) -> bool {
    let Some(&first) = d.first() else {
        return false;
    };
    if first & 0x80 == 0 {
        return false;
    }
    let (tag, len_bytes) = if first & 0x40 != 0 {
        let len_bytes = match d.get(1) {
            Some(&l) if l < 192 => 1,
            Some(&l) if l < 224 => 2,
            Some(&255) => 5,
            _ => return false,
        };
        (first & 0x3F, len_bytes)
    } else {
        let len_bytes = match first & 0x03 {
            0 => 1,
            1 => 2,
            2 => 4,
            _ => return false,
        };
        ((first >> 2) & 0x0F, len_bytes)
    };
    matches!(tag, 5 | 7) && d.get(1 + len_bytes).is_some_and(|v| (3..=6).contains(v))
}

/// minisign's secret key: signature algorithm `Ed`, a KDF (`Sc` or none) and the `B2`
/// checksum algorithm. The public key is `Ed` and the key bytes, 42 in all.
fn minisign_secret(d: &[u8]) -> bool {
    d.len() >= 6
        && d.starts_with(b"Ed")
        && (&d[2..4] == b"Sc" || d[2..4] == [0, 0])
        && &d[4..6] == b"B2"
}

/// A Nix binary-cache signing key, `name:base64(seed ‖ public key)`: 64 bytes; the public
/// key beside it in `trusted-public-keys` has 32.
fn nix_secret(b: &[u8], s: usize, v: &[u8]) -> bool {
    if before(b, s) != Some(b':') || !(86..=88).contains(&v.len()) {
        return false;
    }
    let name_start = run_back(b, s - 1, (s - 1).saturating_sub(128), |c| {
        c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-' | b'_')
    });
    let name = &b[name_start..s - 1];
    let numbered = name
        .rsplit(|&c| c == b'-')
        .next()
        .is_some_and(|n| !n.is_empty() && n.iter().all(u8::is_ascii_digit));
    numbered && b64_decode_prefix(v, 80).len() == 64
}

const BASE58: &[u8] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

fn base58_decode(v: &[u8]) -> Option<Vec<u8>> {
    let mut out: Vec<u8> = Vec::with_capacity(v.len());
    for &c in v {
        let mut carry = u32::try_from(BASE58.iter().position(|&d| d == c)?).ok()?;
        for byte in out.iter_mut().rev() {
            carry += u32::from(*byte) * 58;
            *byte = (carry & 0xFF) as u8;
            carry >>= 8;
        }
        while carry > 0 {
            out.insert(0, (carry & 0xFF) as u8);
            carry >>= 8;
        }
    }
    let zeros = v.iter().take_while(|&&c| c == b'1').count();
    let mut full = vec![0u8; zeros];
    full.extend(out);
    Some(full)
}

/// The payload of a base58check string whose checksum holds.
pub(super) fn base58check(v: &[u8]) -> Option<Vec<u8>> {
    if !(25..=120).contains(&v.len()) || !v.iter().all(|c| BASE58.contains(c)) {
        return None;
    }
    let mut d = base58_decode(v)?;
    if d.len() < 5 {
        return None;
    }
    let check = d.split_off(d.len() - 4);
    let hash = Sha256::digest(Sha256::digest(&d));
    (hash[..4] == check[..]).then_some(d)
}

/// A WIF private key (version byte and 32 bytes, `01` when compressed) or a BIP32
/// extended private key (78 bytes whose key data opens with `00`; a public key's opens
/// with `02` or `03`), of any coin or network.
fn base58_key(v: &[u8]) -> Option<&'static str> {
    if !(50..=115).contains(&v.len()) {
        return None;
    }
    let d = base58check(v)?;
    match d.len() {
        33 => Some("private-key"),
        34 if d[33] == 0x01 => Some("private-key"),
        78 if d[45] == 0x00 => Some("private-key"),
        _ => None,
    }
}

const BECH32: &[u8] = b"qpzry9x8gf2tvdw0s3jn54khce6mua7l";

/// The data part of a bech32 or bech32m string whose checksum holds, with its prefix.
pub(super) fn bech32(v: &[u8]) -> Option<(&[u8], usize)> {
    let lower = v.iter().all(|c| !c.is_ascii_uppercase());
    let upper = v.iter().all(|c| !c.is_ascii_lowercase());
    if !(lower || upper) || v.len() > 200 {
        return None;
    }
    let sep = v.iter().rposition(|&c| c == b'1')?;
    if sep == 0 || v.len() - sep < 7 {
        return None;
    }
    let hrp = &v[..sep];
    let mut values: Vec<u32> = Vec::with_capacity(hrp.len() * 2 + v.len());
    values.extend(hrp.iter().map(|&c| u32::from(c.to_ascii_lowercase() >> 5)));
    values.push(0);
    values.extend(hrp.iter().map(|&c| u32::from(c.to_ascii_lowercase() & 31)));
    for &c in &v[sep + 1..] {
        let d = BECH32.iter().position(|&x| x == c.to_ascii_lowercase())?;
        values.push(u32::try_from(d).ok()?);
    }
    let pm = polymod(&values);
    (pm == 1 || pm == 0x2BC8_30A3).then_some((hrp, v.len() - sep - 1))
}

fn polymod(values: &[u32]) -> u32 {
    const GEN: [u32; 5] = [
        0x3B6A_57B2,
        0x2650_8E6D,
        0x1EA1_19FA,
        0x3D42_33DD,
        0x2A14_62B3,
    ];
    let mut chk = 1u32;
    for &v in values {
        let top = chk >> 25;
        chk = ((chk & 0x1FF_FFFF) << 5) ^ v;
        for (i, g) in GEN.iter().enumerate() {
            if (top >> i) & 1 == 1 {
                chk ^= g;
            }
        }
    }
    chk
}

/// A bech32 string whose prefix names a secret (`nsec`, `…sk`, `…secret…`, `…priv…`).
fn bech32_secret(v: &[u8]) -> bool {
    let Some((hrp, _)) = bech32(v) else {
        return false;
    };
    let hrp = hrp.to_ascii_lowercase();
    hrp.ends_with(b"sec")
        || hrp.ends_with(b"sk")
        || hrp.ends_with(b"prv")
        || hrp.windows(6).any(|w| w == b"secret")
        || hrp.windows(4).any(|w| w == b"priv")
}

/// A Stellar secret seed: StrKey (base32 of a version byte, 32 bytes and a CRC16-XModem
/// checksum, little end first) whose version byte is the seed's, `S…`; account ids
/// (`G…`) carry another version byte.
fn strkey_secret(v: &[u8]) -> bool {
    // NATS nkey seeds: `S` + the key type (`SU` user, `SA` account, `SO` operator, …),
    // 58 characters of the same base32 with the same checksum.
    let nats = v.len() == 58 && v[0] == b'S' && b"UAONCXP".contains(&v[1]);
    if !(v.len() == 56 || nats) || v[0] != b'S' {
        return false;
    }
    strkey(v)
        .is_some_and(|bytes| bytes.len() == 33 && bytes[0] == 18 << 3 || nats && bytes.len() == 34)
}

/// The bytes a StrKey holds (Stellar's and NATS's base32 with a CRC16-XModem checksum,
/// little end first), checksum taken off, when the checksum holds.
pub(super) fn strkey(v: &[u8]) -> Option<Vec<u8>> {
    const B32: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut bytes = Vec::with_capacity(37);
    let (mut acc, mut bits) = (0u32, 0);
    for &c in v {
        let d = B32.iter().position(|&x| x == c)?;
        acc = (acc << 5) | d as u32;
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            bytes.push((acc >> bits) as u8);
        }
    }
    let n = bytes.len();
    if n < 3 {
        return None;
    }
    let mut crc: u16 = 0;
    for &byte in &bytes[..n - 2] {
        crc ^= u16::from(byte) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    (crc.to_le_bytes() == [bytes[n - 2], bytes[n - 1]]).then(|| {
        bytes.truncate(n - 2);
        bytes
    })
}

/// Members of a JSON Web Key that hold private or symmetric key material.
/// Keys of a JSON member that says what type its object is.
const TYPE_KEYS: &[&[u8]] = &[b"type", b"typeUrl", b"@type", b"kind", b"keyType"];

/// `{"type": "tendermint/PrivKeyEd25519", "value": "<base64>"}`,
/// `{"typeUrl": "…tink.AesGcmKey", "value": "<base64>"}`: the base64 `"value"` at
/// `s` (its opening quote after `"value":`) is key material when a sibling before it in
/// the same object names a type of private or secret key. A public key's type says
/// `Pub`/`Public`; any other type (`Coin`, `Address`) names no key.
pub(super) fn typed_value(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    // `s..e` is the anchor `"value"`; the value is the string after its colon.
    let mut i = e;
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\\')) {
        i += 1;
    }
    if b.get(i) != Some(&b':') {
        return None;
    }
    i += 1;
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\\' | b'"')) {
        i += 1;
    }
    let vs = i;
    let ve = run(&b[..(vs + 4096).min(b.len())], vs, |c| {
        c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=' | b'-' | b'_')
    });
    if ve - vs < 24 || b64_decode_prefix(&b[vs..ve], 16).len() < 16 {
        return None;
    }
    // The object so far: back to its `{`, not past a `}` (a sibling object's end).
    let lo = s.saturating_sub(512);
    let open = run_back(b, s, lo, |c| c != b'{' && c != b'}');
    if open == lo || b.get(open - 1) != Some(&b'{') {
        return None;
    }
    let object = &b[open..s];
    let named_type = TYPE_KEYS.iter().find_map(|k| {
        let mut quoted = Vec::with_capacity(k.len() + 2);
        quoted.push(b'"');
        quoted.extend_from_slice(k);
        quoted.push(b'"');
        let at = object
            .windows(quoted.len())
            .position(|w| w == quoted.as_slice())?;
        let rest = &object[at + quoted.len()..];
        let q = rest.iter().position(|&c| c.is_ascii_alphanumeric())?;
        let end = run(rest, q, |c| c != b'"' && c != b'\\' && c != b',');
        Some(&rest[q..end])
    })?;
    let lower: Vec<u8> = named_type.to_ascii_lowercase();
    let has = |w: &[u8]| lower.windows(w.len()).any(|x| x == w);
    let secret_type = has(b"priv")
        || has(b"secret")
        || has(b"symmetric")
        || has(b"signingkey")
        || lower.ends_with(b"key");
    (secret_type && !has(b"pub")).then_some(("private-key", vs, ve))
}

const JWK_PRIVATE: &[&[u8]] = &[b"d", b"p", b"q", b"dp", b"dq", b"qi", b"k"];

/// The private members of the JSON Web Key whose `"kty"` starts at `s`: its object is
/// read back to its `{` and forward to its `}`, and every private member's value goes.
/// A public JWK (`kty`, `crv`, `x`, `y`, `n`, `e`) has none.
pub(super) fn jwk(b: &[u8], s: usize, out: &mut Vec<Hit>) {
    // `"kty"` in JSON, `'kty'` in a Python literal, `kty:` in a JavaScript object.
    if yaml_jwk(b, s, out) {
        return;
    }
    let lo = s.saturating_sub(2048);
    let Some(open) = b[lo..s].iter().rposition(|&c| c == b'{').map(|p| lo + p) else {
        return;
    };
    let hi = (s + 8192).min(b.len());
    let Some(close) = b[s..hi].iter().position(|&c| c == b'}').map(|p| s + p) else {
        return;
    };
    let obj = &b[open..close];
    // Each member: a name (quoted or not), `:`, a quoted value.
    for (colon, _) in obj.iter().enumerate().filter(|&(_, &c)| c == b':') {
        let mut ne = colon;
        while ne > 0 && obj[ne - 1] == b' ' {
            ne -= 1;
        }
        let quote = obj[..ne]
            .last()
            .copied()
            .filter(|&c| c == b'"' || c == b'\'');
        let ne = ne - usize::from(quote.is_some());
        let ns = run_back(obj, ne, 0, |c| c.is_ascii_alphabetic());
        if ns == ne || !JWK_PRIVATE.contains(&&obj[ns..ne]) {
            continue;
        }
        if quote.is_some() && (ns == 0 || Some(obj[ns - 1]) != quote) {
            continue;
        }
        let vq = run(obj, colon + 1, |c| c == b' ');
        let Some(&vquote) = obj.get(vq).filter(|&&c| c == b'"' || c == b'\'') else {
            continue;
        };
        let ve = run(obj, vq + 1, |c| c != vquote);
        // A value its object's `}` cuts before its closing quote ends the object.
        if ve >= obj.len() {
            return;
        }
        if ve - vq > 16 {
            out.push(("private-key", open + vq + 1, open + ve));
        }
    }
}

/// Member lines read on either side of a YAML JWK's `kty:` (a JWK has at most 18
/// members), so that a long mapping is not walked once per key.
const JWK_LINES: usize = 24;

/// A JWK as a YAML mapping (`- kty: oct` over `k: …`): `kty:` opens its line, after
/// the indent and a list's `- `, and its members are the lines at that column above
/// and below it. Each private member's value goes, quoted or not. Whether `s` was one.
fn yaml_jwk(b: &[u8], s: usize, out: &mut Vec<Hit>) -> bool {
    let ls = line_start(b, s);
    let head = &b[ls..s];
    let list = head.trim_ascii_end().ends_with(b"-");
    if !head.iter().all(|&c| c == b' ' || c == b'-')
        || head.iter().filter(|&&c| c == b'-').count() > 1
    {
        return false;
    }
    // `kty: 'EC',` is a JavaScript object's member: its braces say where it ends.
    if b[s..line_end(b, s, 256)].trim_ascii_end().ends_with(b",") {
        return false;
    }
    let column = s - ls;
    let at_column = |l: usize, e: usize| {
        let line = &b[l..e];
        let indent = line.iter().take_while(|&&c| c == b' ').count();
        indent == column && line.get(indent).is_some_and(|c| c.is_ascii_alphabetic())
    };
    // The member lines above `kty:` (not past a list's `- `, which opens the mapping).
    let mut first = ls;
    for _ in 0..JWK_LINES {
        if list || first == 0 {
            break;
        }
        let prev = line_start(b, first - 1);
        if !at_column(prev, first - 1) {
            break;
        }
        first = prev;
    }
    let mut l = first;
    let mut lines = 0;
    while l < b.len() && lines < 2 * JWK_LINES {
        let e = line_end(b, l, 4096);
        let member = l == ls || at_column(l, e);
        if !member {
            break;
        }
        let name_start = if l == ls { s } else { l + column };
        let name_end = run(b, name_start, |c| c.is_ascii_alphabetic());
        if at(b, name_end) == Some(b':') && JWK_PRIVATE.contains(&&b[name_start..name_end]) {
            let mut vs = skip_blanks(b, name_end + 1);
            let mut ve = run(&b[..e], vs, |c| !c.is_ascii_whitespace());
            if ve > vs + 1 && matches!(b[vs], b'"' | b'\'') && b[ve - 1] == b[vs] {
                vs += 1;
                ve -= 1;
            }
            if ve - vs > 16 {
                out.push(("private-key", vs, ve));
            }
        }
        lines += 1;
        l = e + 1;
    }
    true
}

/// `[n, n, …]` of exactly 64 integers 0–255: a keypair file (Solana's `id.json`).
fn byte_array(b: &[u8], s: usize) -> Option<usize> {
    let mut i = s + 1;
    let mut count = 0;
    loop {
        i = run(b, i, |c| {
            c == b' ' || c == b'\n' || c == b'\r' || c == b'\t'
        });
        let ne = run(b, i, |c| c.is_ascii_digit());
        if ne == i || ne - i > 3 {
            return None;
        }
        let n: u16 = std::str::from_utf8(&b[i..ne]).ok()?.parse().ok()?;
        if n > 255 {
            return None;
        }
        count += 1;
        i = run(b, ne, |c| {
            c == b' ' || c == b'\n' || c == b'\r' || c == b'\t'
        });
        match b.get(i) {
            Some(b',') => i += 1,
            Some(b']') => return (count == 64).then_some(i + 1),
            _ => return None,
        }
        if count > 64 {
            return None;
        }
    }
}

/// The secret members of a libgcrypt private key (GnuPG's `private-keys-v1.d/*.key`,
/// `gpg-agent`'s extended key format): `(private-key (ecc … (q #<public>#) (d #<secret>#)))`.
/// `e` is after `(private-key`; within its parentheses, each member the algorithm keeps
/// secret — RSA's `d`, `p`, `q`, `u`, DSA's and Elgamal's `x`, an ECC key's `d` — as
/// `#hex#`, `|base64|` or a quoted string. Returns where the reading stopped.
pub(super) fn gcrypt_private(b: &[u8], e: usize, out: &mut Vec<Hit>) -> usize {
    let hi = (e + 16384).min(b.len());
    let mut depth = 1usize;
    let mut secret: &[u8] = b"";
    let mut i = e;
    while i < hi && depth > 0 {
        match b[i] {
            b'(' => {
                depth += 1;
                let ns = skip_blanks(b, i + 1);
                let ne = run(&b[..hi], ns, |c| c.is_ascii_alphanumeric() || c == b'-');
                let name = &b[ns..ne];
                if secret.is_empty() {
                    secret = match name {
                        b"rsa" => b"dpqu",
                        b"dsa" | b"elg" => b"x",
                        b"ecc" | b"ecdsa" | b"eddsa" => b"d",
                        _ => b"",
                    };
                } else if name.len() == 1 && secret.contains(&name[0]) {
                    let vs = skip_blanks(&b[..hi], ne);
                    let close = match at(b, vs) {
                        Some(b'#') => b'#',
                        Some(b'|') => b'|',
                        Some(b'"') => b'"',
                        _ => 0,
                    };
                    // Hex between `#`s, base64 between `|`s, a string's bytes.
                    let inside = |c: u8| match close {
                        b'#' => c.is_ascii_hexdigit() || c == b' ' || c == b'\n',
                        b'|' => c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'='),
                        _ => c != b'"' && c != b'\n',
                    };
                    let ve = run(&b[..hi], vs + 1, inside);
                    if close != 0 && at(b, ve) == Some(close) && ve - (vs + 1) >= 16 {
                        out.push(("private-key", vs + 1, ve));
                        i = ve;
                    }
                }
            }
            b')' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base58check_tells_private_from_public_extended_keys() {
        // BIP32 test vector 1, master key: the private and public serialisations.
        let xprv = b"xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi";
        let xpub = b"xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8";
        assert_eq!(base58_key(xprv), Some("private-key"));
        assert_eq!(base58_key(xpub), None);
        // One changed character breaks the checksum.
        let mut broken = xprv.to_vec();
        broken[20] = b'a';
        assert_eq!(base58_key(&broken), None);
    }

    #[test]
    fn bech32_checksum_and_secret_prefixes() {
        // BIP173's valid test vector, then one with a changed character.
        assert!(bech32(b"abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw").is_some());
        assert!(bech32(b"abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxx").is_none());
        assert!(!bech32_secret(
            b"bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"
        ));
    }

    #[test]
    fn der_headers_of_private_keys_and_keystores() {
        // PKCS#8: SEQUENCE, INTEGER 0, SEQUENCE (algorithm).
        assert!(der_private(&[
            0x30, 0x82, 0x04, 0xBE, 0x02, 0x01, 0x00, 0x30, 0x0D
        ]));
        // A certificate: SEQUENCE, SEQUENCE (tbsCertificate), no version INTEGER first.
        assert!(!der_private(&[
            0x30, 0x82, 0x03, 0x00, 0x30, 0x82, 0x02, 0xE8, 0xA0
        ]));
        assert!(secret_structure(&[0xFE, 0xED, 0xFE, 0xED, 0, 0, 0, 2]));
        let mut bks = vec![0, 0, 0, 2, 0, 0, 0, 20];
        bks.extend([7u8; 20]);
        bks.extend([0, 0, 4, 0, 4, 0, 3]);
        bks.extend(b"app\0\0\x01");
        assert!(secret_structure(&bks));
        // A truststore's first entry is a certificate (type 1).
        bks[32] = 1;
        assert!(!secret_structure(&bks));
        assert!(keytab(&[5, 2, 0, 0, 0, 80, 0, 2, 0, 11, b'E', b'X']));
        // An OpenPGP public-key packet (tag 6) is public.
        assert!(!openpgp_secret(&[0x99, 0x01, 0x0D, 0x04]));
        assert!(openpgp_secret(&[0xC5, 0x58, 0x04]));
    }

    #[test]
    fn stellar_seed_checksum() {
        // Stellar's documented example seed, and the same with one character changed.
        assert!(strkey_secret(
            b"SBU2RRGLXH3E5CQHTD3ODLDF2BWDCYUSSBLLZ5GNW7JXHDIYKXZWHOKR"
        ));
        assert!(!strkey_secret(
            b"SBU2RRGLXH3E5CQHTD3ODLDF2BWDCYUSSBLLZ5GNW7JXHDIYKXZWHOKS"
        ));
    }

    #[test]
    fn a_64_byte_array_is_a_keypair_and_a_short_one_is_not() {
        let full = format!("[{}]", ["17"; 64].join(", "));
        assert_eq!(byte_array(full.as_bytes(), 0), Some(full.len()));
        let short = format!("[{}]", ["17"; 3].join(","));
        assert_eq!(byte_array(short.as_bytes(), 0), None);
    }
}
