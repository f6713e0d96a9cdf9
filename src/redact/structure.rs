//! Credentials by their position in a command line or a connection string, where no
//! key names them: Windows-style `/p:` options, `ConvertTo-SecureString '…' -AsPlainText`,
//! positional passwords of account verbs (`rabbitmqctl add_user u p`, `htpasswd -b f u p`, `net use … p`,
//! `net user u p /add`), Go MySQL DSNs (`user:pass@tcp(…)`), Oracle EZConnect and JDBC
//! thin (`user/pass@host`), Postfix `sasl_passwd` lines (`[host]:port user:pass`), the
//! machine-made arguments of a login sub-command (`wandb login <key>`, `snyk auth
//! <uuid>`), and the two words after an endpoint URL (`mc alias set N URL AK SK`).

use super::context::Hit;
use super::text::{
    Need, at, before, contains_ci, has_alpha, has_digit, has_lower, has_upper, is_email,
    is_file_name, is_passphrase, is_placeholder, is_uuid, is_version, line_end, line_start,
    plausible, run, run_back, skip_blanks,
};

fn hit(kind: &'static str, start: usize, end: usize) -> Option<Hit> {
    (start < end).then_some((kind, start, end))
}

fn is_arg_char(c: u8) -> bool {
    !c.is_ascii_whitespace() && !matches!(c, b'"' | b'\'' | b'`')
}

/// The argument starting at `i`: inside its quotes, or up to a blank.
pub(super) fn argument(b: &[u8], i: usize) -> Option<(usize, usize)> {
    let first = at(b, i)?;
    if matches!(first, b'"' | b'\'') {
        let end = run(&b[..line_end(b, i + 1, 1024)], i + 1, |c| c != first);
        return (at(b, end) == Some(first) && end > i + 1).then_some((i + 1, end));
    }
    let end = run(&b[..line_end(b, i, 1024)], i, is_arg_char);
    (end > i).then_some((i, end))
}

/// The arguments of a command line from `i` to `end`, each inside its quotes: quoted
/// when the byte before it is a quote.
pub(super) fn arguments(
    b: &[u8],
    mut i: usize,
    end: usize,
) -> impl Iterator<Item = (usize, usize)> {
    std::iter::from_fn(move || {
        if i >= end {
            return None;
        }
        let k = skip_blanks(b, i);
        let (vs, ve) = argument(b, k)?;
        if ve > end {
            return None;
        }
        i = ve + usize::from(vs > k);
        Some((vs, ve))
    })
}

/// `b[vs..ve]` as a password, unless it is a placeholder, a reference or a variable.
pub(super) fn password_value(b: &[u8], vs: usize, ve: usize) -> Option<Hit> {
    let v = &b[vs..ve];
    (plausible(v, Need::Password) && !v.starts_with(b"$") && !v.starts_with(b"%"))
        .then(|| hit("password", vs, ve))?
}

/// `/p:secret`, `/pass:secret`, `/password:secret` (xfreerdp, cmdkey, wmic, …); `s..e`
/// is the anchor, `/p:` or `/rp ` (schtasks' run-as password).
pub(super) fn slash_option(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    if !before(b, s).is_some_and(|c| c == b' ' || c == b'\t') {
        return None;
    }
    let (vs, ve) = argument(b, skip_blanks(b, e))?;
    password_value(b, vs, ve)
}

/// `ConvertTo-SecureString [-String] '…' -AsPlainText`: the literal is a password.
pub(super) fn secure_string(b: &[u8], e: usize) -> Option<Hit> {
    let le = line_end(b, e, 1024);
    if !contains_ci(&b[e..le], b"-AsPlainText") {
        return None;
    }
    let mut i = skip_blanks(b, e);
    if b[i..le].len() >= 7 && b[i..i + 7].eq_ignore_ascii_case(b"-String") {
        i = skip_blanks(b, i + 7);
    }
    if !matches!(at(b, i), Some(b'"' | b'\'')) {
        return None;
    }
    let (vs, ve) = argument(b, i)?;
    password_value(b, vs, ve)
}

/// Account verbs whose positional argument is the password: `(anchor, arguments to skip
/// after the anchor)`. Flags (`-b`, `/add`) are not counted.
const POSITIONAL: &[(&[u8], usize)] = &[
    // unixODBC's `isql DSN USER PASSWORD`.
    (b"isql", 2),
    (b"add_user", 1),
    (b"change_password", 1),
    (b"authenticate_user", 1),
];

/// `rabbitmqctl add_user u p`, `htpasswd -b file u p`, `net user u p /add`,
/// `net use Z: \\h\s p /user:d\u`: the password by its place.
pub(super) fn positional(b: &[u8], s: usize, e: usize, literal: &str) -> Option<Hit> {
    if before(b, s).is_some_and(|c| !c.is_ascii_whitespace() && c != b'/' && c != b'>') {
        return None;
    }
    let lit = literal.as_bytes().trim_ascii_end();
    let le = line_end(b, e, 1024);
    let mut args = Vec::new();
    let mut i = e;
    while i < le && args.len() < 6 {
        i = skip_blanks(b, i);
        let Some((vs, ve)) = argument(b, i) else {
            break;
        };
        if ve > le {
            break;
        }
        let a = &b[vs..ve];
        if !(a.starts_with(b"-") || windows_switch(a)) {
            args.push((vs, ve));
        }
        i = ve + usize::from(matches!(at(b, ve), Some(b'"' | b'\'')));
    }
    let index = if lit.eq_ignore_ascii_case(b"htpasswd") {
        // Only batch mode takes the password on the command line: file, user, password.
        let flags = &b[e..le];
        let batch = flags
            .split(|c| c.is_ascii_whitespace())
            .any(|w| w.starts_with(b"-") && !w.starts_with(b"--") && w.contains(&b'b'));
        if !batch || contains_ci(flags, b" -n") {
            return None;
        }
        2
    } else if lit.eq_ignore_ascii_case(b"net user") {
        // `net user NAME PASSWORD` sets it; with `/add` or `/domain` it may be anything.
        let switch = contains_ci(&b[e..le], b"/add") || contains_ci(&b[e..le], b"/domain");
        let chosen = args
            .get(1)
            .is_some_and(|&(vs, ve)| chosen_secret(&b[vs..ve]));
        if !switch && !chosen {
            return None;
        }
        1
    } else if lit.eq_ignore_ascii_case(b"net use") {
        // `net use [drive:] \\host\share password /user:…`.
        let share = args
            .iter()
            .position(|&(vs, _)| b[vs..].starts_with(b"\\\\"))?;
        if !contains_ci(&b[e..le], b"/user:") {
            return None;
        }
        share + 1
    } else {
        POSITIONAL
            .iter()
            .find(|(p, _)| p.eq_ignore_ascii_case(lit))
            .map(|&(_, skip)| skip)?
    };
    let &(vs, ve) = args.get(index)?;
    if b[vs..ve] == *b"*" {
        return None;
    }
    password_value(b, vs, ve)
}

/// `wandb login <key>`, `snyk auth <uuid>`, `b2 account authorize <id> <key>`, `bw login
/// <email> '<password>'`: the arguments of a sub-command that logs in are credentials
/// when they look machine-made (or are a UUID, the shape many services issue keys in).
/// Flags and the word after a flag (its value, which other rules judge) are skipped, and
/// so are hosts, addresses, URLs and paths: `docker login ghcr.io` names a registry.
///
/// Returns how far it read: a later anchor inside those arguments need not read them
/// again (`login login login …` stays linear).
pub(super) fn auth_verb(b: &[u8], s: usize, e: usize, out: &mut Vec<Hit>) -> usize {
    if before(b, s).is_none_or(|c| c != b' ') {
        return e;
    }
    let le = line_end(b, e, 1024);
    let cmd_end = b[e..le]
        .iter()
        .position(|&c| matches!(c, b'|' | b';' | b'&' | b'>' | b'<'))
        .map_or(le, |p| e + p);
    let mut after_flag = false;
    for (vs, ve) in arguments(b, e, cmd_end) {
        let a = &b[vs..ve];
        let quoted = before(b, vs).is_some_and(|c| matches!(c, b'"' | b'\''));
        if a.starts_with(b"-") {
            after_flag = !a.contains(&b'=');
            continue;
        }
        if std::mem::take(&mut after_flag) {
            continue;
        }
        // `.netrc`'s `login u password p`: a word that names a secret takes the next as
        // its value, which the assignment rules judge.
        if super::assign::classify_key(a).is_some() {
            after_flag = true;
            continue;
        }
        let machine_made =
            is_uuid(a) || plausible(a, Need::Strong) || quoted && plausible(a, Need::Token);
        if machine_made && !is_host(a) && !is_email(a) {
            out.push(("token", vs, ve));
        }
    }
    cmd_end
}

/// `mc alias set NAME https://host ACCESS SECRET`: a URL argument followed by exactly
/// two words, the second a password or token, is an endpoint and its credentials
/// (`s..e` is the URL's `://`). The first word goes too when it is machine-made.
pub(super) fn after_url_pair(b: &[u8], s: usize, e: usize, out: &mut Vec<Hit>) {
    let url_start = run_back(b, s, s.saturating_sub(32), |c| c.is_ascii_alphanumeric());
    if url_start == s || before(b, url_start) != Some(b' ') {
        return;
    }
    let le = line_end(b, e, 1024);
    let url_end = run(&b[..le], e, is_arg_char);
    let mut args = Vec::new();
    let mut i = url_end;
    while i < le && args.len() < 3 {
        i = skip_blanks(b, i);
        let Some((vs, ve)) = argument(b, i) else {
            break;
        };
        if ve > le || b[vs..ve].starts_with(b"-") || matches!(b[vs], b'|' | b';' | b'&' | b'>') {
            break;
        }
        args.push((vs, ve));
        i = ve + usize::from(vs > i);
    }
    let [(us, ue), (ps, pe)] = args[..] else {
        return;
    };
    let pass = &b[ps..pe];
    if !plausible(pass, Need::Token) || pass.windows(3).any(|w| w == b"://") || is_host(pass) {
        return;
    }
    let user = &b[us..ue];
    if plausible(user, Need::Strong) {
        out.push(("token", us, ue));
    }
    out.push(("password", ps, pe));
}

/// `ghcr.io`, `123456789012.dkr.ecr.us-east-1.amazonaws.com:443`: a host name.
pub(super) fn is_host(v: &[u8]) -> bool {
    let host = v.split(|&c| c == b':').next().unwrap_or(v);
    host.contains(&b'.')
        && host
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-'))
        && host
            .rsplit(|&c| c == b'.')
            .next()
            .is_some_and(|tld| tld.len() >= 2 && tld.iter().all(u8::is_ascii_lowercase))
}

/// `/add`, `/user:CORP\svc`, `/persistent:no`: a Windows switch, not a path.
fn windows_switch(a: &[u8]) -> bool {
    let name_end = run(a, 1, |c| c.is_ascii_alphabetic());
    a.first() == Some(&b'/') && name_end > 1 && (name_end == a.len() || a[name_end] == b':')
}

/// `user:pass@tcp(host:3306)/db`, `…@unix(/path)/db`: Go's MySQL DSN; `s` is the `@`.
pub(super) fn go_mysql_dsn_at(b: &[u8], s: usize) -> Option<Hit> {
    let rest = &b[s + 1..];
    if !(rest.starts_with(b"tcp(") || rest.starts_with(b"unix(") || rest.starts_with(b"(")) {
        return None;
    }
    let start = run_back(b, s, s.saturating_sub(256), |c| {
        is_arg_char(c) && !matches!(c, b'(' | b'=' | b',')
    });
    let colon = b[start..s].iter().position(|&c| c == b':')? + start;
    let pass = &b[colon + 1..s];
    (!pass.is_empty() && !is_placeholder(pass)).then(|| hit("password", colon + 1, s))?
}

/// `\\connect admin:pw@host:3306` (MySQL Shell), `sip:1001:pw@pbx.example.net` (a SIP
/// URI, whose scheme has no `//`): a user and a password before `@host` with no URL
/// scheme to say so. Only a chosen password before a host name counts, so `git@host:`
/// and `image:tag@sha256:…` stay. `s` is the `@`.
pub(super) fn bare_userinfo(b: &[u8], s: usize) -> Option<Hit> {
    let start = run_back(b, s, s.saturating_sub(256), |c| {
        is_arg_char(c) && !matches!(c, b'(' | b'=' | b',' | b'/' | b'@' | b'\\')
    });
    let token = &b[start..s];
    let parts: Vec<&[u8]> = token.split(|&c| c == b':').collect();
    let (user, pass) = match parts[..] {
        [user, pass] => (user, pass),
        [scheme, user, pass]
            if scheme.eq_ignore_ascii_case(b"sip") || scheme.eq_ignore_ascii_case(b"sips") =>
        {
            (user, pass)
        }
        _ => return None,
    };
    let host_end = run(&b[..(s + 256).min(b.len())], s + 1, |c| {
        c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-')
    });
    let host = &b[s + 1..host_end];
    let user_ok = !user.is_empty()
        && user
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'));
    let host_ok = host.len() >= 3 && host.iter().any(u8::is_ascii_alphabetic);
    let pass_start = s - pass.len();
    (user_ok && host_ok && chosen_secret(pass) && !is_placeholder(pass))
        .then(|| hit("password", pass_start, s))?
}

/// Bundler's mirror credentials: `BUNDLE_GEMS__EXAMPLE__COM: "user:password"`, a
/// setting named after a host (its dots as `__`) whose value is the login for it.
/// `e` is the end of the `BUNDLE_` anchor.
pub(super) fn bundler_credentials(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    if b[s..e] != *b"BUNDLE_" || before(b, s).is_some_and(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    let name_end = run(b, e, |c| {
        c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_'
    });
    if !b[e..name_end].windows(2).any(|w| w == b"__") {
        return None;
    }
    let mut i = name_end;
    if at(b, i) == Some(b'"') {
        i += 1;
    }
    if !matches!(at(b, i), Some(b':' | b'=')) {
        return None;
    }
    let (vs, ve) = argument(b, skip_blanks(b, i + 1))?;
    let colon = b[vs..ve].iter().position(|&c| c == b':')? + vs;
    let pass = &b[colon + 1..ve];
    (chosen_secret(pass) || plausible(pass, Need::Token)).then(|| hit("password", colon + 1, ve))?
}

/// Oracle's `user/pass@host:port/service`, `user/pass@//host/service`, JDBC thin's
/// `jdbc:oracle:thin:user/pass@…`; `s` is the `@`. Only where Oracle is named (a client
/// on the line, `thin:`) or the host is written as EZConnect (`@//`, `@host:port/`), so
/// `actions/checkout@v4` stays.
pub(super) fn ezconnect(b: &[u8], s: usize) -> Option<Hit> {
    // `system/'Spike91!Adult'@db`: the shell quotes only the password.
    let at_sign = s;
    // Where the user's token ends: the `@`, or the opening quote of a quoted password.
    let (s, quoted) = match before(b, at_sign) {
        Some(q @ (b'\'' | b'"')) => {
            let ls = line_start(b, at_sign);
            let open = b[ls..at_sign - 1].iter().rposition(|&c| c == q)? + ls;
            if before(b, open) != Some(b'/') {
                return None;
            }
            (open, Some(at_sign - 1))
        }
        _ => (at_sign, None),
    };
    let start = run_back(b, s, s.saturating_sub(256), |c| is_arg_char(c) && c != b'=');
    let token = &b[start..s];
    let slash = match quoted {
        Some(_) => s - 1,
        None => token.iter().position(|&c| c == b'/')? + start,
    };
    let user_start = run_back(b, slash, start, |c| c != b':');
    if user_start == slash {
        return None;
    }
    let user = &b[user_start..slash];
    if !user
        .iter()
        .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'#' | b'-' | b'.'))
    {
        return None;
    }
    let ls = line_start(b, s);
    let head = &b[ls..start];
    let after = &b[at_sign + 1..line_end(b, at_sign, 256)];
    let host_end = run(after, 0, is_arg_char);
    let host = &after[..host_end];
    let ez_host = host.starts_with(b"//") || {
        let colon = host.iter().position(|&c| c == b':');
        colon.is_some_and(|p| {
            let port = run(host, p + 1, |c| c.is_ascii_digit());
            port > p + 1 && matches!(host.get(port), Some(b'/' | b':'))
        })
    };
    let thin = contains_ci(&b[start.saturating_sub(20)..user_start], b"thin:");
    const CLIENTS: &[&[u8]] = &[
        b"sqlplus", b"rman", b"expdp", b"impdp", b"sqlldr", b"dgmgrl", b"sql ", b"exp ", b"imp ",
        b"tkprof", b"sqlcl",
    ];
    let client = CLIENTS.iter().any(|c| contains_ci(head, c));
    if !(ez_host || thin || client) {
        return None;
    }
    match quoted {
        Some(close) => password_value(b, s + 1, close),
        None => password_value(b, slash + 1, s),
    }
}

/// `[smtp.example.com]:587 user@example.com:password` (Postfix `sasl_passwd`); `s` is
/// the `]:` after the relay host, which opens the line.
pub(super) fn sasl_passwd(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    let ls = line_start(b, s);
    if b.get(ls) != Some(&b'[') {
        return None;
    }
    let port_end = run(b, e, |c| c.is_ascii_digit());
    if port_end == e || !matches!(at(b, port_end), Some(b' ' | b'\t')) {
        return None;
    }
    let (vs, ve) = argument(b, skip_blanks(b, port_end))?;
    let colon = b[vs..ve].iter().position(|&c| c == b':')? + vs;
    password_value(b, colon + 1, ve)
}

/// `new PDO(dsn, 'user', 'pass')`, `s.login("u", "p")`, `Connection(server, dn, 'pw')`,
/// `username_pw_set("u", "p")`, `new JedisPool(cfg, "host", 6379, 2000, "pw")`: a call
/// that opens a session takes its password as the last string argument, after a user,
/// host or DSN. `e` is just after the call's `(`; the arguments are read on one line.
pub(super) fn call_password(b: &[u8], e: usize) -> Option<Hit> {
    let le = line_end(b, e, 512);
    let mut depth = 0usize;
    let mut i = e;
    let mut strings = 0;
    let mut last = None;
    while i < le {
        match b[i] {
            q @ (b'"' | b'\'') => {
                let end = run(&b[..le], i + 1, |c| c != q);
                if end >= le {
                    return None;
                }
                if depth == 0 {
                    strings += 1;
                    last = Some((i + 1, end));
                }
                i = end + 1;
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                if depth == 0 {
                    break;
                }
                depth -= 1;
            }
            _ => {}
        }
        i += 1;
    }
    let (vs, ve) = last?;
    let v = &b[vs..ve];
    (strings >= 2 && password_shaped(v)).then(|| hit("password", vs, ve))?
}

/// A value a person or a machine chose as a credential: a password's shape (both cases
/// or a symbol with digits), a generated passphrase, words glued to digits
/// (`birchvelvetnebulagravel430`), or a machine-made token.
pub(super) fn chosen_secret(v: &[u8]) -> bool {
    if v.len() < 8 || is_placeholder(v) || is_email(v) || is_version(v) || is_file_name(v) {
        return false;
    }
    let glued = {
        let letters = run(v, 0, |c| c.is_ascii_lowercase());
        letters >= 12
            && (2..=5).contains(&(v.len() - letters))
            && v[letters..].iter().all(u8::is_ascii_digit)
    };
    // `ec2-user`, `api-gateway-prod-01`: lower-case words joined with digits are names;
    // a generated passphrase (three words and a number, or capitalised words:
    // `Keep-Slight-96`) is not.
    let name = super::text::looks_like_word_list(v)
        && !is_passphrase(v)
        && !v.iter().any(u8::is_ascii_uppercase);
    !name && (password_shaped(v) || is_passphrase(v) || glued || plausible(v, Need::Strong))
}

/// A string argument that is a password rather than a user, host, DN, path or name:
/// no blanks, letters with digits or symbols, both cases or a symbol.
pub(super) fn password_shaped(v: &[u8]) -> bool {
    let symbols = v.iter().any(|c| !c.is_ascii_alphanumeric());
    let host = v
        .iter()
        .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'.' | b'-'))
        && v.contains(&b'.');
    (8..=128).contains(&v.len())
        && !v.iter().any(u8::is_ascii_whitespace)
        && has_alpha(v)
        && (has_digit(v) || symbols)
        && (has_upper(v) && has_lower(v) || symbols && has_digit(v))
        && !host
        && !is_email(v)
        && !(v.contains(&b'=') && v.contains(&b','))
        && !contains_ci(v, b"://")
        && !v.starts_with(b"mysql:")
        && !is_version(v)
        && !is_file_name(v)
        && plausible(v, Need::Password)
}

/// A TOTP seed on a line that says one-time password (`oathtool --totp -b SEED`,
/// `pyotp.TOTP('SEED')`): 16+ characters of base32 in capitals, digits among them, no
/// run of counted-up characters. `s` is the anchor; the line is read once per anchor.
pub(super) fn totp_seed(b: &[u8], s: usize) -> Option<Hit> {
    let ls = line_start(b, s);
    let le = line_end(b, s, 512);
    let b32 = |c: u8| c.is_ascii_uppercase() || (b'2'..=b'7').contains(&c);
    let mut i = ls;
    while i < le {
        if !b32(b[i]) || before(b, i).is_some_and(|c| c.is_ascii_alphanumeric()) {
            i += 1;
            continue;
        }
        let end = run(&b[..le], i, b32);
        let v = &b[i..end];
        let bounded = !at(b, end).is_some_and(|c| c.is_ascii_alphanumeric());
        let digits = v.iter().filter(|c| c.is_ascii_digit()).count();
        if bounded
            && (16..=128).contains(&v.len())
            && digits >= 2
            && v.len() - digits >= 8
            && !is_placeholder(v)
            && super::text::entropy(v) >= 3.5
        {
            return hit("totp-seed", i, end);
        }
        i = end.max(i + 1);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(
        text: &str,
        anchor: &str,
        f: impl Fn(&[u8], usize, usize) -> Option<Hit>,
    ) -> Option<String> {
        let s = text.find(anchor)?;
        f(text.as_bytes(), s, s + anchor.len()).map(|(_, a, z)| text[a..z].to_string())
    }

    #[test]
    fn passwords_by_position_in_command_lines() {
        let p = "Falcon#2291xQz";
        assert_eq!(
            found(
                &format!("xfreerdp /v:h /u:admin /p:{p} /cert:ignore"),
                "/p:",
                slash_option
            )
            .as_deref(),
            Some(p)
        );
        assert_eq!(
            found(
                &format!("$pw = ConvertTo-SecureString \"{p}\" -AsPlainText -Force"),
                "ConvertTo-SecureString",
                |b, _, e| secure_string(b, e)
            )
            .as_deref(),
            Some(p)
        );
        assert_eq!(
            found(
                &format!("echo 'deploy:{p}' | chpasswd"),
                "chpasswd",
                super::super::stdin::chpasswd
            )
            .as_deref(),
            Some(p)
        );
        assert_eq!(
            found(
                &format!("chpasswd <<< \"root:{p}\""),
                "chpasswd",
                super::super::stdin::chpasswd
            )
            .as_deref(),
            Some(p)
        );
        assert_eq!(
            found(
                &format!("rabbitmqctl add_user ci {p}"),
                "add_user",
                |b, s, e| positional(b, s, e, "add_user")
            )
            .as_deref(),
            Some(p)
        );
        assert_eq!(
            found(
                &format!("htpasswd -b -c /etc/h admin {p}"),
                "htpasswd",
                |b, s, e| positional(b, s, e, "htpasswd")
            )
            .as_deref(),
            Some(p)
        );
        let net = format!("C:\\> net use Z: \\\\fs01\\share {p} /user:CORP\\svc");
        assert_eq!(
            found(&net, "net use ", |b, s, e| positional(b, s, e, "net use ")).as_deref(),
            Some(p)
        );
    }

    #[test]
    fn prompts_and_references_stay() {
        assert_eq!(
            found(
                "xfreerdp /v:h /u:admin /p:$RDP_PASSWORD",
                "/p:",
                slash_option
            ),
            None
        );
        assert_eq!(
            found(
                "$pw = Read-Host -AsSecureString",
                "SecureString",
                |b, _, e| secure_string(b, e)
            ),
            None
        );
        assert_eq!(
            found(
                "htpasswd -c /etc/h admin",
                "htpasswd",
                |b, s, e| positional(b, s, e, "htpasswd")
            ),
            None
        );
    }

    #[test]
    fn connection_strings_by_shape() {
        let p = "Copper@1234abc";
        let dsn = format!("app:{p}@tcp(db:3306)/shop");
        assert_eq!(
            found(&dsn, "@tcp(", |b, s, _| go_mysql_dsn_at(b, s)).as_deref(),
            Some(p)
        );
        let ez = "sqlplus scott/Tiger9x2Q@//ora:1521/ORCL";
        assert_eq!(
            found(ez, "@//", |b, s, _| ezconnect(b, s)).as_deref(),
            Some("Tiger9x2Q")
        );
        assert_eq!(
            found("uses: actions/checkout@v4", "@", |b, s, _| ezconnect(b, s)),
            None
        );
        let sasl = format!("[smtp.example.com]:587 relay@example.com:{p}");
        assert_eq!(found(&sasl, "]:", sasl_passwd).as_deref(), Some(p));
    }
}
