//! Credentials recognised by where they stand or by a structure, not by a key name:
//! URL userinfo, `Authorization` and cookie headers (and curl's `-b`), `Basic <base64>`
//! anywhere by what it decodes to, a command's password flag (`mysql -pX`, `sshpass -p
//! X`, `curl -u u:p`, any program's `-P` after a user flag, `-u user,pass`, `-t <uuid>`),
//! connection strings, webhook URLs and routes (every random segment after a hook word
//! or a `hook.` host), PEM
//! blocks (also base64-wrapped, as kubeconfig's `client-key-data`), JWTs, and the few
//! vendor formats whose anchor sits inside the token (`…Q~…`, `….atlasv1.…`).

mod urls;

pub(super) use urls::*;

use super::text::{
    Need, at, b64_decode_prefix, before, contains_ci, find, has_alpha, has_digit, has_lower,
    has_upper, is_b64, is_b64url, is_placeholder, is_uuid, is_word, line_end, line_start,
    plausible, random_alnum, run, run_back, skip_blanks, starts_word,
};

/// One credential: its marker kind and byte range.
pub(super) type Hit = (&'static str, usize, usize);

fn hit(kind: &'static str, start: usize, end: usize) -> Option<Hit> {
    (start < end).then_some((kind, start, end))
}

/// End of an unquoted credential in a header or on a command line.
fn cred_end(b: &[u8], from: usize) -> usize {
    let cap = (from + 4096).min(b.len());
    let mut i = from;
    while i < cap {
        let c = b[i];
        if c.is_ascii_whitespace()
            || matches!(c, b'"' | b'\'' | b'`')
            // `\"` closes a quote inside a quoted string (JSON, YAML).
            || super::text::escaped_quote(b, i)
            // On a command line a `,` or `;` ends a value only before a blank or a quote:
            // `-p[x],Dln=y` is one password, not a list.
            || matches!(c, b',' | b';')
                && i > from
                && b.get(i + 1).is_none_or(|&n| {
                    n.is_ascii_whitespace() || matches!(n, b'"' | b'\'' | b'`' | b')' | b']')
                })
        {
            break;
        }
        i += 1;
    }
    i
}

// ---------------------------------------------------------------------------
// Headers

/// Schemes whose credential is one token after a space.
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
    b"jwt",
    b"session",
    b"splunk",
    b"klaviyo-api-key",
    b"dsn",
    b"ghost",
    b"pat",
    b"secret",
];

/// A web server's directive that sets a header by name and value, blank-separated:
/// nginx's `proxy_set_header` and `add_header`, Apache's `RequestHeader set`.
fn header_directive(head: &[u8]) -> bool {
    let head = head.trim_ascii();
    [
        "set_header",
        "add_header",
        "RequestHeader set",
        "RequestHeader append",
        "Header set",
    ]
    .iter()
    .any(|d| head.ends_with(d.as_bytes()))
}

/// `Authorization: <scheme> <credential>` in any quoting (HTTP, curl -H, JSON, YAML,
/// git's `http.extraHeader`); `key=…` (FCM) and schemes with parameters (`Digest`,
/// `AWS4-HMAC-SHA256 Credential=…, Signature=…`) lose everything after the scheme.
pub(super) fn auth_header(b: &[u8], s: usize, e: usize, reach: &mut usize) -> Option<Hit> {
    if before(b, s).is_some_and(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    if let Some(h) = header_named_after(b, s) {
        return Some(h);
    }
    let mut i = e;
    let quoted = matches!(at(b, i), Some(b'"' | b'\''));
    if quoted {
        i += 1;
    }
    let blank = skip_blanks(b, i);
    if matches!(at(b, blank), Some(b':' | b'=')) {
        i = skip_blanks(b, blank + 1);
    } else if let Some(colon) = har_value(b, blank, quoted) {
        i = skip_blanks(b, colon + 1);
    } else if quoted
        && at(b, blank) == Some(b',')
        && matches!(at(b, skip_blanks(b, blank + 1)), Some(b'"' | b'\''))
    {
        // A call's name and value: `.header("Authorization", "…")`.
        i = skip_blanks(b, blank + 1);
    } else if blank > i && header_directive(&b[line_start(b, s)..s]) {
        i = blank;
    } else {
        return None;
    }
    if matches!(at(b, i), Some(b'"' | b'\'')) {
        i += 1;
    }
    let word_end = run(b, i, |c| c.is_ascii_alphanumeric() || c == b'-');
    let scheme = &b[i..word_end];
    let known = AUTH_SCHEMES.iter().any(|k| scheme.eq_ignore_ascii_case(k));
    let (start, end) = if known && at(b, word_end) == Some(b' ') {
        let start = skip_blanks(b, word_end);
        (start, cred_end(b, start))
    } else if known && matches!(at(b, word_end), Some(b'\r' | b'\n')) {
        // `strings` over a core dump: `Authorization: Bearer`, the token on the next line.
        let start = skip_blanks(
            b,
            word_end + usize::from(at(b, word_end) == Some(b'\r')) + 1,
        );
        let end = cred_end(b, start);
        let cred = &b[start..end];
        if !(cred.len() >= 16 && has_digit(cred) && has_alpha(cred)) {
            return None;
        }
        (start, end)
    } else if known && b[word_end..].starts_with(b"%20") {
        // URL-encoded, as OpenTelemetry's `OTEL_EXPORTER_OTLP_HEADERS` wants it.
        let start = word_end + 3;
        (start, cred_end(b, start))
    } else if at(b, word_end) == Some(b'=') && word_end > i {
        // `key=AAAA…`, `token=…`.
        let start = word_end + 1;
        (start, cred_end(b, start))
    } else if at(b, word_end) == Some(b' ') && scheme.len() >= 4 && !known {
        // A scheme with parameters: all of them are the credential.
        let start = skip_blanks(b, word_end);
        let end = run(&b[..line_end(b, start, 4096)], start, |c| {
            !matches!(c, b'"' | b'\'' | b'`')
        });
        (start, end)
    } else if known {
        return None;
    } else if at(b, word_end) == Some(b' ') && scheme.iter().all(u8::is_ascii_alphabetic) {
        // A short scheme of a vendor's own (`App <key>`): the word after it.
        let start = skip_blanks(b, word_end);
        (start, cred_end(b, start))
    } else {
        (i, cred_end(b, i))
    };
    *reach = end;
    let cred = &b[start..end];
    if is_placeholder(cred) || !(known || cred.len() >= 8 && has_digit(cred)) {
        return None;
    }
    if scheme.eq_ignore_ascii_case(b"basic") && sample_basic(&b64_decode_prefix(cred, 256)) {
        return None;
    }
    hit("auth-header", start, end)
}

/// A HAR's or a Postman collection's header object, over lines or not: `"name":
/// "Authorization", "value": "…"`; where the `:` after `"value"` is. `blank` is after the
/// name's closing quote.
fn har_value(b: &[u8], blank: usize, quoted: bool) -> Option<usize> {
    if !quoted || at(b, blank) != Some(b',') {
        return None;
    }
    let ws = run(b, blank + 1, |c| c.is_ascii_whitespace());
    let colon = skip_blanks(b, ws + 7);
    (b[ws..].starts_with(b"\"value\"") && at(b, colon) == Some(b':')).then_some(colon)
}

/// Swift's `request.setValue("<credential>", forHTTPHeaderField: "Authorization")`:
/// the value comes before the header's name. `s` is where the name starts.
fn header_named_after(b: &[u8], s: usize) -> Option<Hit> {
    let ls = line_start(b, s);
    let head = &b[ls..s];
    let head = head.strip_suffix(b"\"")?.trim_ascii_end();
    if !head.ends_with(b"forHTTPHeaderField:") {
        return None;
    }
    let open = find(head, b"Value(\"")? + ls + 7;
    let close = run(b, open, |c| c != b'"');
    let mut vs = open;
    let word_end = run(&b[..close], vs, |c| c.is_ascii_alphanumeric() || c == b'-');
    if at(b, word_end) == Some(b' ')
        && AUTH_SCHEMES
            .iter()
            .any(|k| b[vs..word_end].eq_ignore_ascii_case(k))
    {
        vs = skip_blanks(b, word_end);
    }
    let v = &b[vs..close];
    (v.len() >= 8 && has_digit(v) && !is_placeholder(v)).then(|| hit("auth-header", vs, close))?
}

/// `Basic <base64>` anywhere (an nginx `proxy_set_header`, a log's `header="Basic …"`):
/// the encoding of `user:password` is the credential, known by what it decodes to.
pub(super) fn basic(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    if before(b, s).is_some_and(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    let start = skip_blanks(b, e);
    let end = run(&b[..(start + 1024).min(b.len())], start, |c| {
        is_b64url(c) || matches!(c, b'+' | b'/' | b'=')
    });
    let v = &b[start..end];
    if v.len() < 8 || is_placeholder(v) {
        return None;
    }
    let decoded = b64_decode_prefix(v, 256);
    let colon = decoded.iter().position(|&c| c == b':')?;
    let printable = decoded.iter().all(|c| c.is_ascii_graphic() || *c == b' ');
    let filled = decoded.len() > colon + 1 || key_as_user(&decoded[..colon]);
    (printable && colon > 0 && filled && !sample_basic(&decoded))
        .then(|| hit("auth-header", start, end))?
}

/// `sk_live_…:`: an API key sent as Basic's user name with an empty password (Stripe,
/// Toss, ImageKit, HelloSign and many more): the key is the whole credential.
fn key_as_user(user: &[u8]) -> bool {
    let mixed = user.iter().any(u8::is_ascii_uppercase) && has_lower(user);
    user.len() >= 16
        && has_alpha(user)
        && (has_digit(user) || mixed && user.len() >= 20)
        && user
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
        && !is_placeholder(user)
}

/// An API key's password when the key is Basic's user name: empty (Stripe), or the
/// `x` that Freshdesk, BambooHR and Harvest ask for because some clients need one.
fn no_password(pass: &[u8]) -> bool {
    pass.is_empty() || pass.eq_ignore_ascii_case(b"x")
}

/// `username:password`, `admin:admin` (decoded from `Basic …`): documentation's sample
/// header, not a login.
fn sample_basic(decoded: &[u8]) -> bool {
    let Some(colon) = decoded.iter().position(|&c| c == b':') else {
        return false;
    };
    let (user, pass) = (&decoded[..colon], &decoded[colon + 1..]);
    if no_password(pass) {
        return !key_as_user(user);
    }
    pass == user || is_placeholder(pass)
}

/// A bare `Bearer <token>` outside an Authorization header.
pub(super) fn bearer(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    if before(b, s).is_some_and(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    let start = skip_blanks(b, e);
    let end = cred_end(b, start);
    let cred = &b[start..end];
    (cred.len() >= 16 && has_digit(cred) && has_alpha(cred) && !is_placeholder(cred))
        .then(|| hit("auth-header", start, end))?
}

/// `Cookie: a=b; session=<random>`, `Set-Cookie: sid=…`, `curl -b 'sid=…'`: each value
/// that looks machine-made, or that a session cookie's name announces.
pub(super) fn cookies(b: &[u8], s: usize, e: usize, out: &mut Vec<Hit>) {
    if before(b, s).is_some_and(|c| c.is_ascii_alphanumeric()) {
        return;
    }
    let mut i = e;
    if matches!(at(b, i), Some(b'"' | b'\'')) {
        i += 1;
    }
    i = skip_blanks(b, i);
    // A HAR's `{"name": "Cookie", "value": "…"}`; a console's `document.cookie -> "…"`.
    if at(b, i) == Some(b',') {
        let j = skip_blanks(b, i + 1);
        if b[j..].starts_with(b"\"value\"") {
            i = skip_blanks(b, j + 7);
        }
    }
    if b[i..].starts_with(b"->") || b[i..].starts_with(b"=>") {
        i = skip_blanks(b, i + 2);
    } else {
        match at(b, i) {
            Some(b':' | b'=') => i = skip_blanks(b, i + 1),
            _ if before(b, s).is_some_and(|c| c == b'-') && at(b, e) == Some(b' ') => {}
            _ => return,
        }
    }
    if matches!(at(b, i), Some(b'"' | b'\'')) {
        i += 1;
    }
    let end = line_end(b, i, 4096);
    while i < end {
        let name_end = run(&b[..end], i, |c| {
            c != b'=' && c != b';' && c != b'"' && c != b'\''
        });
        if at(b, name_end) != Some(b'=') {
            break;
        }
        let name = b[i..name_end].trim_ascii();
        let vs = name_end + 1;
        let ve = run(&b[..end], vs, |c| {
            !matches!(c, b';' | b'"' | b'\'' | b' ' | b',')
        });
        let v = &b[vs..ve];
        let session_name = [
            b"sess".as_slice(),
            b"sid",
            b"auth",
            b"token",
            b"jwt",
            b"remember",
            b"login",
        ]
        .iter()
        .any(|w| contains_ci(name, w));
        let attribute = [
            b"path".as_slice(),
            b"domain",
            b"expires",
            b"max-age",
            b"samesite",
        ]
        .iter()
        .any(|w| name.eq_ignore_ascii_case(w));
        if !attribute
            && (session_name && v.len() >= 8 || plausible(v, Need::Strong))
            && !is_placeholder(v)
        {
            out.push(("cookie", vs, ve));
        }
        i = skip_blanks(b, run(&b[..end], ve, |c| c == b';' || c == b' '));
    }
}

// ---------------------------------------------------------------------------
// Command lines

/// The words of the shell command that holds byte `i`, up to it: its segment after
/// `|`, `;`, `&&`, `(` or a backquote, on its line. Each word without its path and `.exe`,
/// so that `/usr/bin/mysql` and `Run mysql` (a CI log) both name `mysql`.
fn command_words(b: &[u8], i: usize) -> impl Iterator<Item = &[u8]> {
    let ls = line_start(b, i);
    let seg_start = b[ls..i]
        .iter()
        .rposition(|&c| matches!(c, b'|' | b';' | b'&' | b'(' | b'`'))
        .map_or(ls, |p| ls + p + 1);
    b[seg_start..i]
        .split(|c| c.is_ascii_whitespace())
        .map(|w| {
            // Argument lists quote each word: `["mysql",`, `'curl',`.
            let n = w
                .iter()
                .take_while(|c| matches!(c, b'[' | b'"' | b'\''))
                .count();
            let w = &w[n..];
            let m = w
                .iter()
                .rev()
                .take_while(|c| matches!(c, b',' | b'"' | b'\'' | b']'))
                .count();
            &w[..w.len() - m]
        })
        .filter(|w| !w.is_empty())
        .map(|w| {
            // `/usr/bin/mysql`, `C:\\Program Files\\7-Zip\\7z.exe`, and cmd.exe's
            // prompt glued to the program (`C:\\backup>7z`).
            let base = w
                .rsplit(|&c| c == b'/' || c == b'\\' || c == b'>')
                .next()
                .unwrap_or(w);
            base.strip_suffix(b".exe")
                .or_else(|| base.strip_suffix(b".EXE"))
                .unwrap_or(base)
        })
}

pub(super) fn runs_curl(b: &[u8], i: usize) -> bool {
    runs_one_of(b, i, &["curl"])
}

/// A `-u`/`-U`/`--user`/`--username` flag earlier in the same command: then the
/// command's `-p`/`-P` is the password that goes with it (`tsql -U sa -P …`,
/// `mosquitto_pub -u app -P …`), whatever the program.
fn user_flag_before(b: &[u8], i: usize) -> bool {
    command_words(b, i).any(|w| matches!(w, b"-u" | b"-U" | b"--user" | b"--username"))
}

fn runs_one_of(b: &[u8], i: usize, programs: &[&str]) -> bool {
    command_words(b, i).any(|w| programs.iter().any(|p| p.as_bytes() == w))
}

/// Programs whose short flag takes a password: `(programs, flag, glued value allowed,
/// spaced value allowed)`.
const PASSWORD_FLAGS: &[(&[&str], &str, bool, bool)] = &[
    (
        &[
            "mysql",
            "mysqldump",
            "mysqladmin",
            "mysqlimport",
            "mysqlshow",
            "mysqlcheck",
            "mysqlsh",
            "mariadb",
            "mariadb-dump",
            "mysqlpump",
        ],
        "-p",
        true,
        true,
    ),
    (&["sshpass"], "-p", true, true),
    (&["az"], "-p", false, true),
    (
        &[
            "docker", "podman", "nerdctl", "buildah", "skopeo", "helm", "oras", "crane", "regctl",
            "oc", "cf", "jfrog", "argocd", "vault",
        ],
        "-p",
        false,
        true,
    ),
    (
        &[
            "twine",
            "rabbitmqadmin",
            "psexec",
            "psexec.py",
            "rdesktop",
            "mongo",
            "mongosh",
            "mongodump",
            "mongorestore",
            "mongoexport",
            "mongoimport",
            "mongostat",
            "mongotop",
            "influx",
        ],
        "-p",
        false,
        true,
    ),
    (
        &[
            "sqlcmd",
            "bcp",
            "osql",
            "isql",
            "zip",
            "unzip",
            "ipmitool",
            "ssh-keygen",
            "sybase",
            "sqsh",
        ],
        "-P",
        true,
        true,
    ),
    (&["7z", "7za", "7zz", "rar", "unrar"], "-p", true, false),
    (
        &[
            "ldapsearch",
            "ldapadd",
            "ldapmodify",
            "ldapdelete",
            "ldapwhoami",
            "ldappasswd",
            "ldapcompare",
            "ldapmodrdn",
            "ldapexop",
        ],
        "-w",
        false,
        true,
    ),
    (
        &["redis-cli", "redis-benchmark", "keydb-cli", "valkey-cli"],
        "-a",
        false,
        true,
    ),
    (&["openssl"], "-k", false, true),
    // SNMPv1/v2c's community string, SNMPv3's authentication and privacy passphrases.
    (SNMP, "-c", false, true),
    (SNMP, "-A", false, true),
    (SNMP, "-X", false, true),
    (&["ssh-keygen"], "-N", false, true),
    (&["doctl", "vercel", "linode-cli"], "-t", false, true),
    (
        &["smbclient", "rpcclient", "smbmap", "crackmapexec", "nxc"],
        "-p",
        false,
        true,
    ),
];

const SNMP: &[&str] = &[
    "snmpwalk",
    "snmpbulkwalk",
    "snmpget",
    "snmpgetnext",
    "snmpbulkget",
    "snmpset",
    "snmptrap",
    "snmpinform",
    "snmptable",
    "snmpdelta",
    "snmpstatus",
    "snmpdf",
    "snmptranslate",
    "snmpusm",
];

/// A command's short password flag, `-pSECRET` or `-p SECRET`; any other program's
/// `-p`/`-P` counts only with a clearly random value.
pub(super) fn short_flag(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    // `s` is the blank or quote before the flag.
    let fs = s + 1;
    let flag = &b[fs..e];
    if !matches!(
        flag,
        b"-p" | b"-P" | b"-w" | b"-a" | b"-k" | b"-N" | b"-t" | b"-A" | b"-X" | b"-c"
    ) {
        return None;
    }
    let glued_start = e;
    let in_list = matches!(b[s], b'"' | b'\'');
    let glued =
        at(b, e).is_some_and(|c| !c.is_ascii_whitespace() && c != b'=' && !(in_list && c == b[s]));
    // The value first: it is cheap to reject, the program lookup reads the line.
    let spaced_at = if glued { None } else { next_argument(b, e) };
    let first = if glued {
        at(b, e)
    } else {
        spaced_at.and_then(|j| at(b, j))
    };
    if first.is_none_or(|c| c.is_ascii_whitespace())
        || first == Some(b'-')
            && !glued
            && !spaced_at.is_some_and(|j| super::text::dash_random(b, j))
    {
        return None;
    }
    let entry = PASSWORD_FLAGS
        .iter()
        .find(|(progs, f, _, _)| f.as_bytes() == flag && runs_one_of(b, fs, progs));
    let (start, need) = match entry {
        Some((_, _, true, _)) if glued => (glued_start, Need::Password),
        Some((progs, _, _, true)) if !glued => {
            // Registry and cluster clients take `-p` as a password only when logging in.
            let login_only = progs.contains(&"docker");
            if login_only && !command_words(b, fs).any(|w| w == b"login" || w == b"auth") {
                return None;
            }
            (spaced_at?, Need::Password)
        }
        Some(_) => return None,
        // A port is the other thing `-p` takes: digits only.
        None if !glued
            && matches!(flag, b"-p" | b"-P")
            && user_flag_before(b, fs)
            && spaced_at.is_some_and(|j| {
                !b[j..].first().is_some_and(u8::is_ascii_digit)
                    || !b[j..]
                        .iter()
                        .take_while(|c| !c.is_ascii_whitespace())
                        .all(u8::is_ascii_digit)
            }) =>
        {
            (spaced_at?, Need::Password)
        }
        None if !glued && matches!(flag, b"-p" | b"-P") => (spaced_at?, Need::Strong),
        // Any program's `-t <uuid>`: a token in the shape many services issue.
        None if !glued
            && flag == b"-t"
            && spaced_at.is_some_and(|j| {
                b.get(j..j + 36).is_some_and(is_uuid)
                    && !b
                        .get(j + 36)
                        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'-')
            }) =>
        {
            (spaced_at?, Need::Token)
        }
        None => return None,
    };
    // In an argument list a glued value ends at the item's closing quote.
    let list_quote = (glued && in_list).then_some(b[s]);
    let quote = list_quote.or(at(b, start).filter(|c| matches!(c, b'"' | b'\'')));
    let vs = start + usize::from(quote.is_some() && list_quote.is_none());
    let ve = match quote {
        Some(q) => run(&b[..line_end(b, vs, 1024)], vs, |c| c != q),
        None => cred_end(b, vs),
    };
    let v = &b[vs..ve];
    if v.starts_with(b"-") && quote.is_none() && !glued && !super::text::dash_random(b, vs)
        || !plausible(v, need)
    {
        return None;
    }
    // SNMP's well-known default community is no secret.
    if flag == b"-c" && v == b"public" {
        return None;
    }
    // `mysql -u root -p shop`: a spaced `-p` before a plain word names the database.
    if entry.is_some_and(|(p, _, g, _)| *g && p[0] == "mysql")
        && !glued
        && quote.is_none()
        && v.iter().all(|c| c.is_ascii_lowercase() || *c == b'_')
    {
        return None;
    }
    hit("password", vs, ve)
}

/// Where the argument after a flag starts: after blanks on a command line, or after the
/// `', '` between the items of an argument list (`['curl', '-u', 'u:p']`, JSON arrays).
fn next_argument(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i;
    if at(b, j).is_some_and(|c| matches!(c, b'"' | b'\'')) && at(b, j + 1) == Some(b',') {
        j = skip_blanks(b, j + 2);
        return at(b, j)
            .is_some_and(|c| matches!(c, b'"' | b'\''))
            .then_some(j);
    }
    let k = skip_blanks(b, j);
    (k > j).then_some(k)
}

/// `curl -u user:password`, `--user user:password`, httpie `-a`/`--auth`, smbclient
/// `-U user%password`: the password goes, the user stays.
pub(super) fn user_flag(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    user_flag_as(b, s, e, &b[s..e])
}

/// [`user_flag`] for the flag at `s..e` read as `f`: curl's `-su user:password` is
/// `-s -u`, so its cluster is read as the `-u` it ends in.
pub(super) fn user_flag_as(b: &[u8], s: usize, e: usize, f: &[u8]) -> Option<Hit> {
    if !before(b, s).is_some_and(|c| matches!(c, b' ' | b'\t' | b'"' | b'\'')) {
        return None;
    }
    let long = f.starts_with(b"--");
    let mut i = e;
    if long && at(b, i) == Some(b'=') {
        i += 1;
    } else {
        i = next_argument(b, i)?;
    }
    let quote = at(b, i).filter(|c| matches!(c, b'"' | b'\''));
    if quote.is_some() {
        i += 1;
    }
    let stop = |c: u8| c.is_ascii_whitespace() || matches!(c, b'"' | b'\'' | b'`');
    let colon = run(b, i, |c| !(stop(c) || c == b':' || c == b'%'));
    let found_sep = at(b, colon).filter(|&c| c == b':' || c == b'%');
    // `user:'pa ss'`: the shell quotes only the password.
    let quote = quote.or_else(|| at(b, colon + 1).filter(|c| matches!(c, b'"' | b'\'')));
    let colon = colon + usize::from(quote.is_some() && at(b, colon + 1) == quote);
    // The program is looked up only for a value with its separator: reading the command
    // for every `-u` would make `-u -u -u …` quadratic.
    let sep: u8 = match f {
        _ if found_sep.is_none() => 0,
        b"-u" | b"--user" | b"--proxy-user" if runs_one_of(b, s, &["curl", "wget"]) => b':',
        b"-a" | b"--auth" if runs_one_of(b, s, &["http", "https", "xh"]) => b':',
        b"-U" | b"--user" if runs_one_of(b, s, &["smbclient", "rpcclient", "smbmap"]) => b'%',
        _ => 0,
    };
    let colon = if sep == 0 {
        // Any other program's `-u user,pass` or `-u user:pass` (lftp, ftp clients): the
        // part after the separator counts when it is a password, not a group or an id
        // (`-u 1000:1000`, `-u www-data:www-data`).
        let comma = run(b, i, |c| !(stop(c) || matches!(c, b':' | b'%' | b',')));
        if !matches!(at(b, comma), Some(b':' | b'%' | b',')) {
            return None;
        }
        // `--user root:'pa ss!'`: the shell quotes only the password.
        let quoted_pass = at(b, comma + 1).filter(|c| matches!(c, b'"' | b'\''));
        let pass_start = comma + 1 + usize::from(quoted_pass.is_some());
        let after = match quoted_pass {
            Some(q) => run(&b[..line_end(b, pass_start, 512)], pass_start, |c| c != q),
            None => run(b, comma + 1, |c| !stop(c)),
        };
        let pass = &b[pass_start.min(after)..after];
        let user = &b[i..comma];
        let password_like = pass.len() >= 6
            && !pass.starts_with(b"/")
            && has_alpha(pass)
            && (has_digit(pass) || pass.iter().any(|c| !c.is_ascii_alphanumeric()))
            && !user.is_empty()
            // `CORP/anya%pw`, `CORP\\anya%pw`: Samba's `-U domain/user%password`.
            && user.iter().all(|&c| {
                c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-' | b'@' | b'/' | b'\\')
            })
            && pass != user
            && !is_placeholder(pass);
        if !password_like {
            return None;
        }
        pass_start - 1
    } else if found_sep != Some(sep) {
        return None;
    } else {
        colon
    };
    let start = colon + 1;
    let end = match quote {
        Some(q) => run(b, start, |c| c != q && c != b'\n'),
        None => run(b, start, |c| !stop(c)),
    };
    let pass = &b[start..end];
    // `curl -u <key>:` (Stripe, Mezmo, …), `-u <key>:x` (BambooHR): the API key is the
    // user and the password is empty or a fixed `x`, so the user is the credential.
    if no_password(pass) && sep == b':' {
        let user = &b[i..colon];
        return plausible(user, Need::Token).then(|| hit("token", i, colon))?;
    }
    // `-u admin:admin`: a default login, as in the URL form.
    let default_login = b.get(i..colon) == Some(pass);
    (!is_placeholder(pass) && !pass.is_empty() && !default_login)
        .then(|| hit("password", start, end))?
}

/// `CREATE USER … IDENTIFIED BY 'x'`.
pub(super) fn identified_by(b: &[u8], e: usize) -> Option<Hit> {
    let i = skip_blanks(b, e);
    let Some(q) = at(b, i).filter(|c| matches!(c, b'\'' | b'"' | b'`')) else {
        // Oracle takes the password bare (`IDENTIFIED BY Secret1 ACCOUNT UNLOCK`); a
        // hash (`BY VALUES '…'`, MySQL's `BY PASSWORD '*…'`) or a bind variable
        // (`:pw`, `&pw`, `?`) is not one.
        let end = run(&b[..line_end(b, i, 512)], i, |c| {
            !c.is_ascii_whitespace() && !matches!(c, b';' | b',' | b')')
        });
        let v = &b[i..end];
        let keyword = v.eq_ignore_ascii_case(b"values") || v.eq_ignore_ascii_case(b"password");
        let bound = v
            .first()
            .is_some_and(|c| matches!(c, b':' | b'&' | b'?' | b'$' | b'@' | b'<' | b'{'));
        return (v.len() >= 6 && !keyword && !bound && plausible(v, Need::Password))
            .then(|| hit("password", i, end))?;
    };
    let end = run(&b[..line_end(b, i + 1, 512)], i + 1, |c| c != q);
    (at(b, end) == Some(q) && plausible(&b[i + 1..end], Need::Password))
        .then(|| hit("password", i + 1, end))?
}

/// GitHub Actions' `::add-mask::VALUE`: the value is a secret by declaration.
pub(super) fn add_mask(b: &[u8], e: usize) -> Option<Hit> {
    let end = line_end(b, e, 4096);
    let v = b[e..end].trim_ascii_end();
    (!v.is_empty() && !is_placeholder(v)).then(|| hit("secret", e, e + v.len()))?
}

/// ``cannot unmarshal !!str `VALUE` into …``: YAML quoting a string it could not use.
/// The key is elsewhere, so only a value shaped like a password or a token counts.
pub(super) fn yaml_str(b: &[u8], e: usize) -> Option<Hit> {
    let end = run(&b[..line_end(b, e, 512)], e, |c| c != b'`');
    let v = &b[e..end];
    let shaped = v.len() >= 6
        && has_digit(v)
        && has_alpha(v)
        && !v.contains(&b' ')
        && plausible(v, Need::Password)
        && !super::text::is_numeric_shape(v)
        && !super::text::is_version(v)
        && !super::text::is_uuid(v)
        && !super::text::is_named_digest(v)
        && !super::text::looks_like_word_list(v);
    (at(b, end) == Some(b'`') && shaped).then(|| hit("secret", e, end))?
}

/// A `.pgpass` line, `host:port:database:user:password`, found by its port field.
pub(super) fn pgpass(b: &[u8], s: usize) -> Option<Hit> {
    // Indented as a block's content (`content: |` in Ansible, a heredoc in YAML).
    let ls = skip_blanks(b, line_start(b, s));
    let le = line_end(b, s, 512);
    let line = &b[ls..le];
    let fields: Vec<&[u8]> = line.split(|&c| c == b':').collect();
    if fields.len() != 5
        || fields
            .iter()
            .any(|f| f.is_empty() || f.iter().any(|c| c.is_ascii_whitespace()))
    {
        return None;
    }
    if !(fields[1] == b"*" || fields[1].iter().all(u8::is_ascii_digit)) {
        return None;
    }
    let pw = fields[4];
    (!is_placeholder(pw)).then(|| hit("password", le - pw.len(), le))?
}

// ---------------------------------------------------------------------------
// Structured credentials

/// `AccountKey=` / `SharedAccessKey=` in an Azure connection string.
pub(super) fn azure(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    if before(b, s).is_some_and(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    let end = run(b, e, |c| is_b64(c) || c == b'%');
    (end - e >= 16).then(|| hit("azure-key", e, end))?
}

/// The `sig=` of an Azure SAS URL or token, AWS's `X-Amz-Signature=`, GCS's `X-Goog-Signature=`.
pub(super) fn signature_param(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    if !matches!(before(b, s), Some(b'?' | b'&' | b';' | b'\'' | b'"' | b' ')) {
        return None;
    }
    let end = run(b, e, |c| is_b64(c) || c == b'%' || c == b'-' || c == b'_');
    (end - e >= 20)
        .then(|| hit("azure-key", e, end))
        .flatten()
        .map(|(_, s, e2)| {
            let kind = if contains_ci(&b[s.saturating_sub(20)..s], b"amz")
                || contains_ci(&b[s.saturating_sub(20)..s], b"goog")
            {
                "signature"
            } else {
                "azure-key"
            };
            (kind, s, e2)
        })
}

/// OpenAI (`sk-…`, `sk-proj-…`) and other `sk-` keys (DeepSeek, Moonshot).
pub(super) fn sk_dash(b: &[u8], s: usize, e: usize, reach: &mut usize) -> Option<Hit> {
    if &b[s..e] != b"sk-" || before(b, s).is_some_and(|c| c.is_ascii_alphanumeric() || c == b'-') {
        return None;
    }
    let end = run(&b[..(e + 512).min(b.len())], e, is_b64url);
    *reach = end;
    if b[e..].starts_with(b"ant-") || b[e..].starts_with(b"or-v1-") {
        return None;
    }
    let body = &b[e..end];
    if body.len() >= 20 && has_digit(body) && has_upper(body) && has_lower(body) {
        return hit("openai-key", s, end);
    }
    (body.len() >= 32
        && body.iter().all(u8::is_ascii_alphanumeric)
        && has_digit(body)
        && has_alpha(body))
    .then(|| hit("api-key", s, end))?
}

/// `…T3BlbkFJ…` ("OpenAI" in base64) marks an OpenAI key wherever it sits.
pub(super) fn openai_marker(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    let start = run_back(b, s, s.saturating_sub(200), is_b64url);
    let end = run(&b[..(e + 200).min(b.len())], e, is_b64url);
    (s - start >= 20 && end - e >= 20).then(|| hit("openai-key", start, end))?
}

/// `eyJ<header>.eyJ<payload>.<signature>` (three or five parts); an `eyJ` run with no dots
/// is base64 JSON, a credential when it decodes to a Grafana key or a service account.
pub(super) fn jwt(b: &[u8], s: usize) -> Option<Hit> {
    if !b[s..].starts_with(b"eyJ")
        || before(b, s).is_some_and(|c| is_b64url(c) || c == b'.' || c == b'+')
    {
        return None;
    }
    let h_end = run(b, s, is_b64url);
    if at(b, h_end) != Some(b'.') {
        return b64_json(b, s);
    }
    if h_end - s < 10 || !b[h_end + 1..].starts_with(b"ey") {
        return None;
    }
    let p_end = run(b, h_end + 1, is_b64url);
    if p_end - h_end - 1 < 10 || at(b, p_end) != Some(b'.') {
        return None;
    }
    if super::text::anon_payload(&b[h_end + 1..p_end]) {
        return None;
    }
    let mut end = run(b, p_end + 1, is_b64url);
    // JWE has two more parts.
    for _ in 0..2 {
        if at(b, end) == Some(b'.') && at(b, end + 1).is_some_and(is_b64url) {
            end = run(b, end + 1, is_b64url);
        }
    }
    hit("jwt", s, end)
}

fn b64_json(b: &[u8], s: usize) -> Option<Hit> {
    let end = run(&b[..(s + 65536).min(b.len())], s, |c| {
        is_b64(c) || c == b'-' || c == b'_'
    });
    if end - s < 60 {
        return None;
    }
    let head = b64_decode_prefix(&b[s..end], 4096);
    if head.starts_with(b"{\"k\":\"") {
        return hit("grafana-api-key", s, end);
    }
    (find(&head, b"private_key").is_some()
        || find(&head, b"PRIVATE KEY").is_some()
        || find(&head, b"refresh_token").is_some()
        || find(&head, b"client_secret").is_some())
    .then(|| hit("private-key", s, end))?
}

/// A base64 blob of a PEM private key (kubeconfig `client-key-data`, k8s `tls.key`).
pub(super) fn b64_pem(b: &[u8], s: usize) -> Option<Hit> {
    if before(b, s).is_some_and(|c| is_b64(c) && c != b'=') {
        return None;
    }
    let end = run(&b[..(s + 65536).min(b.len())], s, is_b64);
    let head = b64_decode_prefix(&b[s..end], 64);
    // git-crypt's exported key file opens with `\0GITCRYPTKEY`.
    let key_file = head.starts_with(b"\0GITCRYPTKEY");
    ((find(&head, b"PRIVATE KEY").is_some() || key_file) && end - s >= 40)
        .then(|| hit("private-key", s, end))?
}

/// A pretty-printed JSON document in base64 (`ewog…`, `{\n  "`): a credential when it
/// holds a private key or a secret (a service-account file passed as one variable).
pub(super) fn b64_pretty_json(b: &[u8], s: usize) -> Option<Hit> {
    if before(b, s).is_some_and(|c| is_b64(c) && c != b'=') {
        return None;
    }
    b64_json(b, s)
}

/// Armor labels of blocks that hold a secret: private keys of any algorithm (PGP too),
/// `… SECRET KEY`, OpenVPN's `Static key V1`. `PUBLIC KEY`, `CERTIFICATE` and
/// `SIGNATURE` blocks are public.
fn secret_armor(label: &[u8]) -> bool {
    contains_ci(label, b"PRIVATE KEY")
        || contains_ci(label, b"SECRET")
        || contains_ci(label, b"STATIC KEY")
        // OpenVPN's `tls-crypt-v2 client key` and `… server key`, and any other block
        // that names a key without saying it is public.
        || label.len() > 4
            && label[label.len() - 4..].eq_ignore_ascii_case(b" KEY")
            && !contains_ci(label, b"PUBLIC")
}

/// A PEM block that holds a secret, BEGIN to END or to the end of text.
pub(super) fn pem(text: &str, s: usize, e: usize, reach: &mut usize) -> Option<Hit> {
    let b = text.as_bytes();
    if &b[s..e] != b"-----BEGIN " {
        return None;
    }
    // The label runs to the dashes that close the line (`OpenVPN tls-crypt-v2 client
    // key` has dashes of its own).
    let le = line_end(b, e, 80);
    let label_end = find(&b[e..le], b"-----").map_or(e, |d| e + d);
    let label = &b[e..label_end];
    if !label
        .iter()
        .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b' ' | b'-'))
    {
        return None;
    }
    if !b[label_end..].starts_with(b"-----") || !secret_armor(label) {
        return None;
    }
    let mut from = label_end + 5;
    while let Some(off) = text.get(from..).and_then(|t| t.find("-----END ")) {
        let l = from + off + "-----END ".len();
        if b[l..].starts_with(label) && b[l + label.len()..].starts_with(b"-----") {
            *reach = l + label.len() + 5;
            // `<your private key here>`, `...`: a block with no key in it. A `>`
            // alone is no placeholder: a heredoc's continuation prompt (`> MIIE…`)
            // or a quote's marker starts each line of a real key.
            let body = &b[label_end + 5..l - "-----END ".len()];
            let key_bytes = body.iter().filter(|&&c| is_b64(c)).count();
            let elided =
                find(body, b"...").is_some() || find(body, "\u{2026}".as_bytes()).is_some();
            if key_bytes < 16 || body.contains(&b'<') || elided {
                return None;
            }
            return hit("private-key", s, *reach);
        }
        from = l;
    }
    // No END: a key cut short runs to the end of the text, but only if a body
    // follows; a sentence that names the header (`starts with -----BEGIN … KEY-----
    // then`) holds none.
    let mut k = label_end + 5;
    while let Some(c) = at(b, k) {
        match c {
            b'\\' if at(b, k + 1) == Some(b'n') => k += 2,
            c if c.is_ascii_whitespace() || matches!(c, b'"' | b'\'' | b'+') => k += 1,
            _ => break,
        }
    }
    if run(b, k, is_b64) - k < 16 {
        return None;
    }
    *reach = b.len();
    hit("private-key", s, b.len())
}

/// A PuTTY key file's private lines.
pub(super) fn putty(b: &[u8], e: usize) -> Option<Hit> {
    let start = skip_blanks(b, e);
    let count_end = run(b, start, |c| c.is_ascii_digit());
    let lines: usize = std::str::from_utf8(&b[start..count_end])
        .ok()?
        .parse()
        .ok()?;
    let mut end = count_end;
    for _ in 0..lines.min(64) {
        if at(b, end) == Some(b'\r') {
            end += 1;
        }
        if at(b, end) != Some(b'\n') {
            break;
        }
        end = line_end(b, end + 1, 256);
    }
    hit("private-key", skip_blanks(b, count_end), end)
}

/// Formats whose anchor is inside the token; `s..e` is the anchor.
pub(super) fn infix(b: &[u8], s: usize, e: usize, literal: &str) -> Option<Hit> {
    match literal {
        // Azure AD client secrets: `abc8Q~` + 31–34.
        "Q~" => {
            if &b[s..e] != b"Q~" || s < 4 || !before(b, s).is_some_and(|c| c.is_ascii_digit()) {
                return None;
            }
            let start = s - 4;
            if !b[start..s - 1]
                .iter()
                .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'~' | b'.'))
                || before(b, start).is_some_and(|c| {
                    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'~' | b'.' | b'-')
                })
            {
                return None;
            }
            let end = run(b, e, |c| {
                c.is_ascii_alphanumeric() || matches!(c, b'_' | b'~' | b'.' | b'-')
            });
            (31..=34)
                .contains(&(end - e))
                .then(|| hit("azure-client-secret", start, end))?
        }
        // Terraform Cloud: `<14>.atlasv1.<60-70>`.
        ".atlasv1." => {
            let start = run_back(b, s, s.saturating_sub(14), |c| c.is_ascii_alphanumeric());
            let end = run(b, e, |c| is_b64url(c) || c == b'=');
            (s - start == 14 && (60..=70).contains(&(end - e)))
                .then(|| hit("terraform-token", start, end))?
        }
        // MaxMind: `<6>_<29>_mmk`.
        "_mmk" => {
            let start = run_back(b, s, s.saturating_sub(40), |c| {
                c.is_ascii_alphanumeric() || c == b'_'
            });
            (s - start == 36 && !at(b, e).is_some_and(is_word))
                .then(|| hit("maxmind-license-key", start, e))?
        }
        // Mailgun private keys: `key-<32 hex>`.
        "key-" => {
            if &b[s..e] != b"key-" || before(b, s).is_some_and(|c| is_word(c) || c == b'-') {
                return None;
            }
            let end = run(b, e, |c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c));
            (end - e == 32 && !at(b, end).is_some_and(is_word))
                .then(|| hit("mailgun-key", s, end))?
        }
        // Mailchimp: `<32 hex>-us<dc>`.
        "-us" => {
            let start = run_back(b, s, s.saturating_sub(32), |c| {
                c.is_ascii_digit() || (b'a'..=b'f').contains(&c)
            });
            let end = run(b, e, |c| c.is_ascii_digit());
            (s - start == 32
                && (1..=2).contains(&(end - e))
                && starts_word(b, start)
                && !at(b, end).is_some_and(is_word))
            .then(|| hit("mailchimp-key", start, end))?
        }
        // Twitter/X app bearer tokens start with 22 `A`s.
        "AAAAAAAAAAAAAAAAAAAAA" => {
            if !starts_word(b, s) {
                return None;
            }
            let end = run(b, e, |c| c.is_ascii_alphanumeric() || c == b'%');
            (end - s >= 80).then(|| hit("twitter-bearer-token", s, end))?
        }
        // Stripe client secrets: `pi_<24>_secret_<25>`.
        "_secret_" => {
            let start = run_back(b, s, s.saturating_sub(40), |c| {
                c.is_ascii_alphanumeric() || c == b'_'
            });
            let end = run(b, e, |c| c.is_ascii_alphanumeric());
            let head = &b[start..s];
            let ok = (head.starts_with(b"pi_")
                || head.starts_with(b"seti_")
                || head.starts_with(b"pm_"))
                && end - e >= 20;
            ok.then(|| hit("stripe-key", start, end))?
        }
        // Telegram bot tokens: `<8-10 digits>:AA<33>`.
        ":AA" => {
            let start = run_back(b, s, s.saturating_sub(10), |c| c.is_ascii_digit());
            let end = run(b, e, is_b64url);
            let ok = (8..=10).contains(&(s - start))
                && (!before(b, start).is_some_and(is_word) || b[..start].ends_with(b"bot"))
                && (31..=35).contains(&(end - e))
                && random_alnum(
                    &b[e..end]
                        .iter()
                        .copied()
                        .filter(u8::is_ascii_alphanumeric)
                        .collect::<Vec<_>>(),
                    20,
                );
            ok.then(|| hit("telegram-bot-token", start, end))?
        }
        // DeepL's free-plan API keys: a UUID and `:fx`.
        ":fx" => {
            let start = s.checked_sub(36)?;
            (is_uuid(&b[start..s])
                && !before(b, start).is_some_and(is_word)
                && !at(b, e).is_some_and(is_word))
            .then(|| hit("deepl-key", start, e))?
        }
        // Tor's client authorization file: `<onion>:descriptor:x25519:<private key>`. The
        // service's own `.auth` file holds the public half, with no address before it.
        ":descriptor:x25519:" => {
            let onion = run_back(b, s, s.saturating_sub(56), |c| {
                c.is_ascii_lowercase() || (b'2'..=b'7').contains(&c)
            });
            let end = run(b, e, |c| {
                c.is_ascii_uppercase() || (b'2'..=b'7').contains(&c)
            });
            (s - onion == 56 && end - e == 52).then(|| hit("tor-client-key", e, end))?
        }
        _ => None,
    }
}
