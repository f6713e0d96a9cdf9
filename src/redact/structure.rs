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
    plausible, random_alnum, run, run_back, skip_blanks,
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

/// `s.login("ops@example.org", "…")` (Python's smtplib, imaplib, ftplib, poplib's
/// `pass_`): the second literal of a login call is its password; Google's app
/// passwords come as four groups of four letters. `e` is after `login(`.
pub(super) fn login_call(b: &[u8], e: usize) -> Option<Hit> {
    let le = line_end(b, e, 512);
    let quoted = |i: usize| -> Option<(usize, usize)> {
        let q = at(b, i).filter(|&c| c == b'"' || c == b'\'')?;
        let ve = run(&b[..le], i + 1, |c| c != q);
        (ve < le).then_some((i + 1, ve))
    };
    let (_, ue) = quoted(skip_blanks(b, e))?;
    if at(b, ue + 1) != Some(b',') {
        return None;
    }
    let (vs, ve) = quoted(skip_blanks(b, ue + 2))?;
    let v = &b[vs..ve];
    let groups: Vec<&[u8]> = v.split(|&c| c == b' ').collect();
    let app_password = groups.len() == 4
        && groups
            .iter()
            .all(|g| g.len() == 4 && g.iter().all(u8::is_ascii_lowercase));
    if app_password {
        return hit("password", vs, ve);
    }
    (v.len() >= 6 && !is_placeholder(v)).then(|| password_value(b, vs, ve))?
}

/// `expect "assword:"; send "pw\r"` (an expect script, or its `expect -c '…'` one-liner
/// in a crontab): what a script sends to a password prompt. `e` is after `send "`.
pub(super) fn expect_send(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    let head = &b[s.saturating_sub(200)..s];
    let at_expect = super::text::rfind(head, b"expect ")?;
    let prompt = &head[at_expect + 7..];
    let asks = contains_ci(prompt, b"assword") || contains_ci(prompt, b"passphrase");
    if !asks || super::text::find(prompt, b"send ").is_some() {
        return None;
    }
    let le = line_end(b, e, 512);
    let mut ve = run(&b[..le], e, |c| c != b'"');
    if ve >= le {
        return None;
    }
    // The carriage return a prompt wants is the script's, not the password's.
    for tail in [b"\\r".as_slice(), b"\\n"] {
        if b[e..ve].ends_with(tail) {
            ve -= tail.len();
        }
    }
    password_value(b, e, ve)
}

/// `Use this recovery code to sign in: 4ml7a-49sfd`, `backup code …: 1745 2740 8750`,
/// BitLocker's `Recovery key: 140316-971487-…`: after the label, on its line, the first
/// `: ` and then groups of letters and digits, each with a digit, joined by dashes or
/// single blanks. The key's `ID:` is not the key. `e` is after the label.
pub(super) fn recovery_code(b: &[u8], e: usize) -> Option<Hit> {
    let le = line_end(b, e, 160);
    // `… my backup code? ve8z-i7g6-n4gi`: a question's mark ends the label too.
    // `your recovery key is 124245-…`: a sentence's verb ends it as well.
    // `the backup code from the admin is k7m2p-x9qr4`: a few words, then the verb.
    let is = super::text::find(&b[e..(e + 48).min(le)], b" is ").filter(|&p| {
        b[e..e + p]
            .iter()
            .all(|c| c.is_ascii_alphabetic() || *c == b' ')
    });
    let sep = super::text::find(&b[e..le], b": ")
        .or_else(|| super::text::find(&b[e..le], b"? "))
        .or_else(|| is.map(|p| p + 2));
    let Some(colon) = sep.map(|c| c + e) else {
        return code_line_below(b, le);
    };
    let between = &b[e..colon];
    if between
        .split(|c| !c.is_ascii_alphanumeric())
        .any(|w| w.eq_ignore_ascii_case(b"id") || w.eq_ignore_ascii_case(b"identifier"))
    {
        return None;
    }
    let vs = skip_blanks(b, colon + 1);
    let mut ve = vs;
    let mut groups = 0usize;
    let mut alnum = 0usize;
    loop {
        let ge = run(&b[..le], ve, |c| c.is_ascii_alphanumeric());
        let group = &b[ve..ge];
        if group.is_empty() || group.len() > 10 || !group.iter().any(u8::is_ascii_digit) {
            break;
        }
        groups += 1;
        alnum += group.len();
        ve = ge;
        let joined = matches!(at(b, ve), Some(b'-' | b' '))
            && at(b, ve + 1).is_some_and(|c| c.is_ascii_alphanumeric());
        if !joined {
            break;
        }
        ve += 1;
    }
    // A group that failed ends the code before its joiner.
    while ve > vs && matches!(b[ve - 1], b'-' | b' ') {
        ve -= 1;
    }
    if !(alnum >= 8 && (groups >= 2 || alnum >= 10)) {
        return None;
    }
    // A list of codes (`codes: I3NMD5JNYI, PRYSNGPPVS, …`): each the first's length.
    let n = ve - vs;
    while b[ve..].starts_with(b", ") {
        let ce = run(&b[..le], ve + 2, |c| c.is_ascii_alphanumeric() || c == b'-');
        if ce - (ve + 2) != n {
            break;
        }
        ve = ce;
    }
    hit("recovery-code", vs, ve)
}

/// Lines that are only codes (GitHub's `f8a8e-6o3ds`, Google's `4319 9462   5743 3350`),
/// four or more in a row, within thirty lines of a label that says recovery or backup
/// codes, above or below it: a saved list of one-time codes.
pub(super) fn code_block(b: &[u8], s: usize, out: &mut Vec<Hit>) {
    let coded = |line: &[u8]| {
        let words: Vec<&[u8]> = line
            .split(|c| c.is_ascii_whitespace())
            .filter(|w| !w.is_empty())
            .collect();
        // Each word digits or dash-joined groups, never a word of prose.
        (1..=4).contains(&words.len())
            && words.iter().all(|w| {
                w.split(|&c| c == b'-')
                    .all(|g| (4..=6).contains(&g.len()) && g.iter().all(u8::is_ascii_alphanumeric))
                    && (w.contains(&b'-') || w.iter().all(u8::is_ascii_digit))
            })
    };
    // From thirty lines above the label to thirty below.
    let mut ls = line_start(b, s);
    for _ in 0..30 {
        if ls == 0 {
            break;
        }
        ls = line_start(b, ls - 1);
    }
    let mut run_lines: Vec<(usize, usize)> = Vec::new();
    let flush = |lines: &mut Vec<(usize, usize)>, out: &mut Vec<Hit>| {
        if lines.len() >= 4 {
            out.extend(lines.iter().map(|&(a, z)| ("recovery-code", a, z)));
        }
        lines.clear();
    };
    for _ in 0..61 {
        if ls >= b.len() {
            break;
        }
        let le = line_end(b, ls, 256);
        let line = &b[ls..le];
        let body = line.trim_ascii();
        if !body.is_empty() && coded(body) {
            let a = ls + (line.len() - line.trim_ascii_start().len());
            run_lines.push((a, a + body.len()));
        } else {
            flush(&mut run_lines, out);
        }
        ls = le + 1;
    }
    flush(&mut run_lines, out);
}

/// `Save your Security Key` … then a line that is only the key in groups (Element's
/// `EsUH 4sC7 PXoJ …`, a disk's recovery key): within the three lines below the
/// label's, four or more groups of 3 to 10 letters and digits, one blank or dash
/// between them, with digits among them.
fn code_line_below(b: &[u8], le: usize) -> Option<Hit> {
    let mut ls = le + 1;
    for _ in 0..3 {
        if ls >= b.len() {
            return None;
        }
        let end = line_end(b, ls, 256);
        // A symbol before the code (systemd's `🔐 `) is the tool's, not the code's.
        let mut vs = skip_blanks(b, ls).min(end);
        if at(b, vs).is_some_and(|c| !c.is_ascii()) {
            vs = skip_blanks(b, run(&b[..end], vs, |c| !c.is_ascii_whitespace())).min(end);
        }
        let line = b[vs..end].trim_ascii();
        let groups: Vec<&[u8]> = line.split(|&c| c == b' ' || c == b'-').collect();
        let shaped = groups.len() >= 4
            && groups
                .iter()
                .all(|g| (3..=10).contains(&g.len()) && g.iter().all(u8::is_ascii_alphanumeric))
            && line.iter().filter(|c| c.is_ascii_digit()).count() >= 2
            && line.iter().any(u8::is_ascii_alphabetic);
        // systemd-cryptenroll's and YubiKey's modhex: eight groups of eight letters from
        // `cbdefghijklnrtuv`, no digit.
        let modhex = groups.len() == 8
            && groups
                .iter()
                .all(|g| g.len() == 8 && g.iter().all(|c| b"cbdefghijklnrtuv".contains(c)));
        let shaped = shaped || modhex;
        if shaped {
            return hit("recovery-code", vs, vs + line.len());
        }
        ls = end + 1;
    }
    None
}

/// `here you go: <value>`, or `ok here it is` and the value as the next message: in a
/// chat, the one word a person hands over after saying so is what was asked for. The
/// word must be shaped like a password (letters with digits or symbols, no blank);
/// `e` is after the phrase.
pub(super) fn handed_over(b: &[u8], e: usize) -> Option<Hit> {
    let le = line_end(b, e, 256);
    // Letters alone, when their cases are mixed through the word (`PvMesOSqpgWR`),
    // not words in camel case (`StagingBox`).
    let mixed = |v: &[u8]| {
        let upper = v.iter().filter(|c| c.is_ascii_uppercase()).count();
        let longest_lower = v
            .split(|c| !c.is_ascii_lowercase())
            .map(<[u8]>::len)
            .max()
            .unwrap_or(0);
        v.iter().all(u8::is_ascii_alphabetic) && upper >= 4 && has_lower(v) && longest_lower <= 4
    };
    let word = |vs: usize, ve: usize| -> Option<Hit> {
        let v = b[vs..ve].trim_ascii_end();
        (v.len() >= 12 && !v.contains(&b' ') && (password_shaped(v) || mixed(v)))
            .then(|| hit("password", vs, vs + v.len()))?
    };
    let rest = run(&b[..le], e, |c| {
        matches!(c, b':' | b',' | b' ' | b'-' | b'!' | b'.')
    });
    // An emoji or a pointing hand after the phrase says the value comes next.
    if rest < le && b[rest..le].iter().any(u8::is_ascii_alphanumeric) {
        return word(rest, le);
    }
    // The next message: its text after the sender (`[10:16] <ana> `, `… Lukas: `), or
    // the whole next line in a chat that puts the sender above the message.
    let ns = le + 1;
    let ne = line_end(b, ns, 512);
    let line = &b[ns.min(ne)..ne];
    let head = &line[..line.len().min(80)];
    let sender_end = [&b"> "[..], b": "]
        .iter()
        .filter_map(|sep| super::text::rfind(head, sep).map(|p| p + 2))
        .max()
        .unwrap_or(0);
    word(ns + sender_end, ne)
}

/// `[02:17] dmytro: they revoked the old key, new one -> <token>`: in a chat message,
/// the one word an arrow points at, when it is random, or an id the message calls a
/// key, token or password. `s..e` is `-> `.
pub(super) fn pointed_at(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    let ls = line_start(b, s);
    let le = line_end(b, e, 512);
    if !super::assign::is_chat(&b[ls..le]) {
        return None;
    }
    let (vs, ve) = trimmed(b, e, le);
    let v = &b[vs..ve];
    if v.len() < 16 || v.contains(&b' ') || is_placeholder(v) {
        return None;
    }
    let named = [b"key".as_slice(), b"token", b"password", b"secret", b"cred"]
        .iter()
        .any(|w| contains_ci(&b[ls..s], w));
    (plausible(v, Need::Strong) || named && (is_uuid(v) || random_alnum(v, 24)))
        .then(|| hit("secret", vs, ve))?
}

/// An askpass helper (`SSH_ASKPASS`, `GIT_ASKPASS`, `SUDO_ASKPASS`): a script whose
/// output is the password, so the literal its first `echo`/`printf` prints within a
/// few lines of the name is one. `e` is after `askpass`.
pub(super) fn askpass(b: &[u8], e: usize) -> Option<Hit> {
    let mut ls = line_start(b, e);
    for _ in 0..6 {
        let le = line_end(b, ls, 512);
        let line = &b[ls..le];
        let body = line.trim_ascii_start();
        let off = ls + (line.len() - body.len());
        for cmd in [b"echo ".as_slice(), b"printf "] {
            if body.starts_with(cmd) {
                let mut vs = skip_blanks(b, off + cmd.len());
                let quote = at(b, vs).filter(|&c| c == b'\'' || c == b'"');
                vs += usize::from(quote.is_some());
                let ve = match quote {
                    Some(q) => run(&b[..le], vs, |c| c != q),
                    None => run(&b[..le], vs, |c| !c.is_ascii_whitespace()),
                };
                let v = &b[vs..ve];
                // `echo "$PASSWORD"` prints a variable, not a literal.
                if v.len() >= 8 && !v.starts_with(b"$") && plausible(v, Need::Password) {
                    return hit("password", vs, ve);
                }
                return None;
            }
        }
        if le >= b.len() {
            return None;
        }
        ls = le + 1;
    }
    None
}

/// What a phrase that says "secret" (`do not share`, `don't paste it`) at `s..e` is
/// about: the value before it on its line ([`commented_secret`]); the line below a
/// line that ends in it and a colon (`exported from the wallet, do not share:` over
/// the key); or, said in a chat message, the last word of the message before it
/// (`[14:19] sven: yep -> <token>` then `[14:21] sven: pls don't paste it`). A word
/// on a line of its own or ending a message must be random (`plausible`'s strong
/// test).
pub(super) fn said_secret(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    if let Some(h) = commented_secret(b, s) {
        return Some(h);
    }
    let le = line_end(b, e, 512);
    let strong = |vs: usize, ve: usize| {
        let v = &b[vs..ve];
        (v.len() >= 16 && plausible(v, Need::Strong) && !is_placeholder(v))
            .then(|| hit("secret", vs, ve))
    };
    if b[e..le].trim_ascii() == b":" && le < b.len() {
        let ns = le + 1;
        let ne = line_end(b, ns, 1024);
        let (vs, ve) = trimmed(b, ns, ne);
        return if b[vs..ve].contains(&b' ') {
            None
        } else {
            strong(vs, ve)?
        };
    }
    let ls = line_start(b, s);
    if ls == 0 || !super::assign::is_chat(&b[ls..le]) {
        return None;
    }
    let ps = line_start(b, ls - 1);
    let prev = &b[ps..ls - 1];
    if !super::assign::is_chat(prev) {
        return None;
    }
    let (_, ve) = trimmed(b, ps, ls - 1);
    let vs = run_back(b, ve, ps, |c| !c.is_ascii_whitespace());
    strong(vs, ve)?
}

/// `b[s..e]` without its blanks at either end.
fn trimmed(b: &[u8], s: usize, e: usize) -> (usize, usize) {
    let v = &b[s..e];
    let lead = v.len() - v.trim_ascii_start().len();
    (s + lead, s + v.trim_ascii_end().len())
}

/// `hush: 04697e…  # hmac for rate-limit tokens, keep private`: a trailing comment that
/// says the value before it is secret, whatever its key's name. `s` is where the
/// comment's words start; the value is the last token of the code before `#` or `//`.
pub(super) fn commented_secret(b: &[u8], s: usize) -> Option<Hit> {
    let ls = line_start(b, s);
    let head = &b[ls..s];
    let mark = head
        .windows(2)
        .rposition(|w| w == b" #" || w == b"//")
        .map(|p| p + usize::from(head[p] == b' '))?;
    let code = head[..mark].trim_ascii_end();
    if code.is_empty() {
        return None;
    }
    let mut ve = ls + code.len();
    let quoted = matches!(b[ve - 1], b'"' | b'\'') && {
        ve -= 1;
        true
    };
    let vs = run_back(b, ve, ls, |c| {
        if quoted {
            c != b'"' && c != b'\''
        } else {
            !c.is_ascii_whitespace() && !matches!(c, b'=' | b':')
        }
    });
    let v = &b[vs..ve];
    (plausible(v, Need::Strong) && !is_placeholder(v)).then(|| hit("secret", vs, ve))?
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
    // drush's `user:password NAME PASSWORD` and its alias.
    (b"user:password", 1),
    (b"upwd", 1),
    (b"authenticate_user", 1),
    // `samba-tool user create NAME PASSWORD`.
    (b"samba-tool user create", 1),
    // `wpa_passphrase SSID PASSPHRASE`.
    (b"wpa_passphrase", 1),
    // `consul acl set-agent-token TYPE TOKEN`.
    (b"set-agent-token", 1),
    // The last argument: `openssl passwd -6 -salt S PASSWORD`, IRC's `/msg NickServ
    // IDENTIFY [ACCOUNT] PASSWORD`, `oathtool --totp -b SEED`.
    (b"openssl passwd", LAST),
    (b"nickserv identify", LAST),
    (b"oathtool", LAST),
];

/// In [`POSITIONAL`], the command's last argument.
const LAST: usize = usize::MAX;

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
    while i < le && args.len() < 8 {
        i = skip_blanks(b, i);
        let Some((vs, ve)) = argument(b, i) else {
            break;
        };
        if ve > le {
            break;
        }
        let a = &b[vs..ve];
        // A redirection, a pipe or the next command ends the arguments.
        if matches!(a.first(), Some(b'>' | b'<' | b'|' | b';' | b'&')) {
            break;
        }
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
    } else if lit.eq_ignore_ascii_case(b"bundle config") {
        // `bundle config [set] [--global] gems.contribsys.com USER:PASS`: a gem source's
        // login, not a setting (`set path vendor`, `build.nokogiri …`).
        if args.first().is_some_and(|&(vs, ve)| &b[vs..ve] == b"set") {
            args.remove(0);
        }
        let &(hs, he) = args.first()?;
        let host = &b[hs..he];
        let &(vs, ve) = args.get(1)?;
        let v = &b[vs..ve];
        if !host.contains(&b'.')
            || host.starts_with(b"build.")
            || !(v.contains(&b':') || chosen_secret(v))
        {
            return None;
        }
        1
    } else {
        POSITIONAL
            .iter()
            .find(|(p, _)| p.eq_ignore_ascii_case(lit))
            .map(|&(_, skip)| skip)?
    };
    let index = if index == LAST {
        // Cut at the bound, the last argument read need not be the last one.
        if args.len() == 8 {
            return None;
        }
        args.len().checked_sub(1)?
    } else {
        index
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
    // A name, or an IPv4 address (`'CORP/user:pw@10.0.0.5'`, impacket's target).
    let ipv4 = host.split(|&c| c == b'.').count() == 4
        && host
            .split(|&c| c == b'.')
            .all(|p| (1..=3).contains(&p.len()) && p.iter().all(u8::is_ascii_digit));
    let host_ok = host.len() >= 3 && host.iter().any(u8::is_ascii_alphabetic) || ipv4;
    // `UID:…@host` opening an iCalendar or a header-style line: a field's name in
    // capitals, not a user.
    let field = start == super::text::line_start(b, s)
        && user.len() >= 2
        && user.iter().all(|&c| c.is_ascii_uppercase() || c == b'-');
    let pass_start = s - pass.len();
    (user_ok && !field && host_ok && chosen_secret(pass) && !is_placeholder(pass))
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
pub(super) fn call_password(b: &[u8], e: usize, literal: &str) -> Option<Hit> {
    let strings: Vec<_> = call_strings(b, e, b"\"'")
        .into_iter()
        .filter(|&(_, _, depth)| depth == 0)
        .collect();
    // `database(name, user, password, 'Vendor', …)`, `Sql.newInstance(url, user,
    // password, driver)`: the third argument, options after it.
    let third = matches!(literal, "database(" | "sql.newinstance(");
    let &(vs, ve, _) = if third {
        strings.get(2)?
    } else {
        strings.last()?
    };
    let v = &b[vs..ve];
    (strings.len() >= 2 && password_shaped(v)).then(|| hit("password", vs, ve))?
}

/// The string literals among a call's arguments on its line, with how deep in nested
/// brackets each stands; `e` is just after the call's `(`. A quote left open on the line
/// (a cut line) gives none.
fn call_strings(b: &[u8], e: usize, quotes: &[u8]) -> Vec<(usize, usize, usize)> {
    let mut e = e;
    let mut le = line_end(b, e, 512);
    // `new SecretKeySpec(` with its arguments on the next line.
    if b[e..le].iter().all(u8::is_ascii_whitespace) && le < b.len() {
        e = le + 1;
        le = line_end(b, e, 512);
    }
    let mut depth = 0usize;
    let mut i = e;
    let mut out = Vec::new();
    while i < le {
        match b[i] {
            q if quotes.contains(&q) => {
                let end = run(&b[..le], i + 1, |c| c != q);
                if end >= le {
                    return Vec::new();
                }
                out.push((i + 1, end, depth));
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
    out
}

/// `mercadopago.SDK("APP_USR-…")`, `Client("AC…", "9c32…")`, `new Client(@"https://…",
/// @"XKsg…")`, `AlchemyProvider('mainnet', '…')`, `client.run('…')`: a client of a
/// service is built with its credential, a literal argument on the call's line (or
/// one call deeper: `LDClient(Config("sdk-…"))`). Only a machine-made literal counts;
/// names, regions, URLs and paths are the other arguments. `e` is just after `(`.
pub(super) fn client_credential(b: &[u8], e: usize) -> Option<Hit> {
    call_strings(b, e, b"\"'`")
        .into_iter()
        .rev()
        .find(|&(vs, ve, depth)| {
            depth <= 1 && machine_made_literal(&b[vs..ve]) && !named_otherwise(b, vs - 1)
        })
        .and_then(|(vs, ve, _)| hit("token", vs, ve))
}

/// A keyword argument whose name is not a secret's (`Client(wallet="f1…")`): the call
/// says what the literal is, and it is not the credential.
fn named_otherwise(b: &[u8], quote: usize) -> bool {
    let mut i = quote;
    while i > 0 && matches!(b[i - 1], b' ' | b'\t') {
        i -= 1;
    }
    if i == 0 || !matches!(b[i - 1], b'=' | b':') {
        return false;
    }
    i -= 1;
    while i > 0 && matches!(b[i - 1], b' ' | b'\t' | b'"' | b'\'') {
        i -= 1;
    }
    let ns = run_back(b, i, i.saturating_sub(40), |c| {
        c.is_ascii_alphanumeric() || c == b'_'
    });
    ns < i && super::assign::classify_key(&b[ns..i]).is_none()
}

/// `{{ db_password | default('…') }}`, `{{ .Values.redis.password | default "…" }}`, `env
/// "DB_PASSWORD" | default "…"`: a template's fallback for a secret is a literal value,
/// the one every render without the variable gets. `s..e` is the word `default`.
pub(super) fn template_default(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    let ls = line_start(b, s);
    let head = &b[ls..s];
    let open = super::text::rfind(head, b"{{")?;
    let expr = &head[open..];
    let names_secret = expr
        .split(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
        .any(|w| !w.is_empty() && super::assign::classify_key(w).is_some());
    if !names_secret || before(b, s).is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_') {
        return None;
    }
    let mut i = skip_blanks(b, e);
    if at(b, i) == Some(b'(') {
        i = skip_blanks(b, i + 1);
    }
    let q = at(b, i).filter(|c| matches!(c, b'"' | b'\''))?;
    let le = line_end(b, i, 512);
    let end = run(&b[..le], i + 1, |c| c != q);
    let v = &b[i + 1..end];
    (end < le && (password_shaped(v) || plausible(v, Need::Strong)))
        .then(|| hit("password", i + 1, end))?
}

/// Whether a template expression's text ends where a `default` filter's literal begins.
pub(super) fn default_literal(head: &[u8]) -> bool {
    let h = head.trim_ascii_end();
    let Some(h) = h.strip_suffix(b"\"").or_else(|| h.strip_suffix(b"'")) else {
        return false;
    };
    let h = h.trim_ascii_end();
    let h = h.strip_suffix(b"(").unwrap_or(h).trim_ascii_end();
    h.ends_with(b"default")
}

/// NTLM hashes, which log in as well as the password (pass-the-hash): impacket's
/// `-hashes LM:NT` and a dump's `user:rid:LM:NT:::`, found by the empty password's LM
/// hash (`aad3b435…`, which every modern dump prints) or by the flag.
pub(super) fn ntlm_hashes(b: &[u8], s: usize, e: usize, literal: &str) -> Option<Hit> {
    let hex32 = |i: usize| {
        let end = run(b, i, |c| c.is_ascii_hexdigit());
        (end - i == 32).then_some(end)
    };
    if literal.starts_with('-') {
        if before(b, s).is_some_and(|c| !c.is_ascii_whitespace()) {
            return None;
        }
        let i = skip_blanks(b, e);
        let lm = usize::from(at(b, i) == Some(b':'));
        let first = if lm == 1 { i + 1 } else { hex32(i)? + 1 };
        if at(b, first - 1) != Some(b':') {
            return None;
        }
        let end = hex32(first)?;
        return hit("ntlm-hash", i + lm, end);
    }
    let end = hex32(e)?;
    hit("ntlm-hash", e, end)
}

/// After `:aes256-cts-hmac-sha1-96:` (a secrets dump's Kerberos key, which logs in like
/// the password) the key's hex; after `AUTH PLAIN ` (SMTP, IMAP's `AUTHENTICATE`) the
/// base64 of `\0user\0password`.
/// curl's config file (`~/.curlrc`): `proxy-user = "user:password"`, with or without
/// `=` or quotes. The command line's `--proxy-user` is `context::user_flag`'s.
fn proxy_user(b: &[u8], e: usize) -> Option<Hit> {
    let ls = line_start(b, e);
    let lead = b[ls..e - "proxy-user".len()].trim_ascii();
    if !(lead.is_empty() || lead == b"--") {
        return None;
    }
    let le = line_end(b, e, 512);
    let mut i = skip_blanks(b, e);
    if matches!(at(b, i), Some(b'=' | b':')) {
        i = skip_blanks(b, i + 1);
    }
    let quote = at(b, i).filter(|&c| c == b'"' || c == b'\'');
    i += usize::from(quote.is_some());
    let end = run(&b[..le], i, |c| {
        Some(c) != quote && !c.is_ascii_whitespace()
    });
    let colon = b[i..end].iter().position(|&c| c == b':')? + i;
    password_value(b, colon + 1, end)
}

/// Teradata BTEQ's `.LOGON host/user,password;`: what follows the comma.
fn bteq_logon(b: &[u8], e: usize) -> Option<Hit> {
    let le = line_end(b, e, 512);
    let end = run(&b[..le], e, |c| c != b';');
    let comma = b[e..end].iter().position(|&c| c == b',')? + e;
    if !b[e..comma].contains(&b'/') {
        return None;
    }
    password_value(b, comma + 1, b[..end].trim_ascii_end().len())
}

pub(super) fn protocol_secret(b: &[u8], e: usize, literal: &str) -> Option<Hit> {
    if literal == "read(0, \"" {
        return stdin_read(b, e);
    }
    if literal.ends_with("ciphertext\":") {
        return keystore_ciphertext(b, e);
    }
    if literal == ":identify " {
        return nickserv_identify(b, e);
    }
    if literal == "ed25519 " {
        return synapse_signing_key(b, e);
    }
    if literal == "\"SecureString\"" {
        return secure_string_value(b, e);
    }
    if literal.starts_with(':') {
        let end = run(b, e, |c| c.is_ascii_hexdigit());
        return (end - e >= 32).then(|| hit("kerberos-key", e, end))?;
    }
    if literal == "UGFzc3dvcmQ6" {
        // Base64 is case-sensitive; the anchors are matched without case.
        return (&b[e - literal.len()..e] == literal.as_bytes())
            .then(|| login_password(b, e))
            .flatten();
    }
    if literal.starts_with('$') {
        // strace prints the bytes escaped: `$4\r\nAUTH\r\n$17\r\n…`.
        let newline: &[u8] = if literal.contains('\\') {
            b"\\r\\n"
        } else {
            b"\r\n"
        };
        return resp_auth(b, e, newline);
    }
    if literal.starts_with(" crypt ") {
        return dm_crypt_key(b, e);
    }
    if literal.ends_with("_SECRET") || literal.ends_with("SECRET ") || literal.ends_with("RANDOM ")
    {
        return keylog_secret(b, e - literal.len());
    }
    if literal.ends_with(':') {
        return spaced_hex_key(b, e);
    }
    if literal == " C=" {
        return snmp_community(b, e);
    }
    if literal == "simple: " {
        return ldap_simple_bind(b, e);
    }
    if literal.starts_with("<<0") {
        return amqp_plain_response(b, e);
    }
    if literal.ends_with("cmp(\"") {
        return compared_string(b, e);
    }
    if literal.ends_with(".|_") {
        // Roblox's `.ROBLOSECURITY` cookie: its warning, then the session in hex.
        let end = run(b, e, |c| c.is_ascii_hexdigit());
        return (end - e >= 64).then(|| hit("session-cookie", e, end))?;
    }
    if literal == "vmess://" {
        // A V2Ray share link: base64 of a JSON object whose `id` is the credential.
        let end = run(b, e, super::text::is_b64);
        return (end - e >= 40).then(|| hit("proxy-link", e, end))?;
    }
    if literal == "proxy-user" {
        return proxy_user(b, e);
    }
    if literal == ".logon " {
        return bteq_logon(b, e);
    }
    let end = run(b, e, super::text::is_b64);
    let decoded = super::text::b64_decode_prefix(&b[e..end], 256);
    (end - e >= 12 && decoded.contains(&0)).then(|| hit("password", e, end))?
}

/// ltrace's `strcmp("guess", "<stored>") = -1`: what a program compares its input with
/// is the password it checks; `e` is after the first argument's opening quote. The
/// second argument, else the first, when it is shaped like a password.
fn compared_string(b: &[u8], e: usize) -> Option<Hit> {
    let le = line_end(b, e, 512);
    if super::text::find(&b[e..le], b") ").is_none() || !b[e..le].contains(&b'=') {
        return None;
    }
    let first_end = e + b[e..le].iter().position(|&c| c == b'"')?;
    let second = super::text::find(&b[first_end..le], b", \"").map(|p| first_end + p + 3);
    let strong = |vs: usize, ve: usize| {
        (ve - vs >= 8 && password_shaped(&b[vs..ve])).then(|| hit("password", vs, ve))?
    };
    let second = second.and_then(|vs| {
        let ve = vs + b[vs..le].iter().position(|&c| c == b'"')?;
        strong(vs, ve)
    });
    second.or_else(|| strong(e, first_end))
}

/// A TLS key log line (NSS's format, what `SSLKEYLOGFILE` makes browsers, curl and
/// Go write): `<LABEL> <client random, 64 hex> <secret, hex>`, the label at the start
/// of its line. The client random is public; the secret decrypts the session. `s` is
/// where the anchor starts, inside the label.
fn keylog_secret(b: &[u8], s: usize) -> Option<Hit> {
    let label_char = |c: u8| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_';
    if before(b, run_back(b, s, 0, label_char)).is_some_and(|c| c != b'\n') {
        return None;
    }
    let random = skip_blanks(b, run(b, s, label_char));
    let random_end = run(b, random, |c| c.is_ascii_hexdigit());
    let secret = skip_blanks(b, random_end);
    let end = run(b, secret, |c| c.is_ascii_hexdigit());
    (random_end - random == 64 && secret > random_end && end - secret >= 32)
        .then(|| hit("tls-secret", secret, end))?
}

/// Wireshark's detail of an LDAP bind: `simple: <password>` under `authentication:
/// simple (0)`. `e` is after `simple: `.
fn ldap_simple_bind(b: &[u8], e: usize) -> Option<Hit> {
    let above = &b[e.saturating_sub(160)..line_start(b, e)];
    let v = b[e..line_end(b, e, 256)].trim_ascii_end();
    (super::text::find(above, b"authentication: simple").is_some() && plausible(v, Need::Password))
        .then(|| hit("password", e, e + v.len()))?
}

/// AMQP's PLAIN response as RabbitMQ's trace prints it, an Erlang binary of
/// `\0user\0password`: `<<0,"user",0,"password">>`. `e` is inside the user's string.
fn amqp_plain_response(b: &[u8], e: usize) -> Option<Hit> {
    let user_end = run(b, e, |c| c != b'"' && c != b'\n');
    let pw = b[user_end..line_end(b, user_end, 256)].strip_prefix(b"\",0,\"")?;
    let len = pw.iter().position(|&c| c == b'"')?;
    let vs = user_end + 5;
    (len > 0).then(|| hit("password", vs, vs + len))?
}

/// tcpdump's line for an SNMP packet: `C=<community>` (quoted in newer versions) then
/// the PDU. The community is SNMPv1/v2c's password; `public`, the default, is not.
fn snmp_community(b: &[u8], e: usize) -> Option<Hit> {
    let quoted = at(b, e) == Some(b'"');
    let vs = e + usize::from(quoted);
    let ve = run(b, vs, |c| !c.is_ascii_whitespace() && c != b'"');
    let pdu = skip_blanks(b, (ve + usize::from(quoted)).min(b.len()));
    const PDUS: &[&[u8]] = &[b"Get", b"Set", b"Trap", b"V2Trap", b"Inform", b"Report"];
    let v = &b[vs..ve];
    (v.len() >= 4
        && PDUS.iter().any(|p| b[pdu..].starts_with(p))
        && !v.eq_ignore_ascii_case(b"public"))
    .then(|| hit("password", vs, ve))?
}

/// A key printed as hex bytes apart (`27 48 90 11 …`), its lines after the first
/// indented, as `cryptsetup luksDump --dump-volume-key` prints the volume key; 16
/// bytes or more. `e` is after the label.
fn spaced_hex_key(b: &[u8], e: usize) -> Option<Hit> {
    let start = skip_blanks(b, e);
    let (mut i, mut end, mut bytes) = (start, start, 0);
    loop {
        let pair = at(b, i).is_some_and(|c| c.is_ascii_hexdigit())
            && at(b, i + 1).is_some_and(|c| c.is_ascii_hexdigit())
            && at(b, i + 2).is_none_or(|c| c.is_ascii_whitespace());
        if !pair {
            break;
        }
        bytes += 1;
        end = i + 2;
        i = skip_blanks(b, end);
        // The next line goes on only when indented.
        if at(b, i) == Some(b'\n') && at(b, i + 1).is_some_and(|c| c == b' ' || c == b'\t') {
            i = skip_blanks(b, i + 1);
        }
    }
    (bytes >= 16).then(|| hit("key", start, end))?
}

/// SMTP's `AUTH LOGIN`: after the server's `334 UGFzc3dvcmQ6` ("Password:" in
/// base64), the client's next line is the password in base64, however a transcript
/// frames it (`C: …`, `send: '…\r\n'`). `e` is after the challenge.
fn login_password(b: &[u8], e: usize) -> Option<Hit> {
    let ls = run(b, line_end(b, e, 256), |c| c == b'\r' || c == b'\n');
    if ls >= b.len() {
        return None;
    }
    let le = line_end(b, ls, 1024);
    // The longest base64 run on the line that decodes to printable text.
    let mut i = ls;
    while i < le {
        let end = run(&b[..le], i, super::text::is_b64);
        if end - i >= 8 && (i == ls || !super::text::is_b64(b[i - 1])) {
            let decoded = super::text::b64_decode_prefix(&b[i..end], 256);
            if !decoded.is_empty() && decoded.iter().all(|c| c.is_ascii_graphic() || *c == b' ') {
                return hit("password", i, end);
            }
        }
        i = end.max(i + 1);
    }
    None
}

/// A dm-crypt table line (`dmsetup table --showkeys`, a `crypt` target in a script):
/// `crypt <cipher> <key in hex> <iv offset> <device> …`. `e` is inside the cipher.
fn dm_crypt_key(b: &[u8], e: usize) -> Option<Hit> {
    let cipher_end = run(b, e, |c| !c.is_ascii_whitespace());
    let start = skip_blanks(b, cipher_end);
    let end = run(b, start, |c| c.is_ascii_hexdigit());
    let key = &b[start..end];
    (key.len() >= 32
        && at(b, end).is_none_or(|c| c.is_ascii_whitespace())
        && !super::text::is_filler(key))
    .then(|| hit("key", start, end))?
}

/// Where a JSON string value opens after a key that ends at `key`: `: "` with any
/// blanks between; the index of the opening quote.
fn json_string_after(b: &[u8], key: usize) -> Option<usize> {
    let colon = skip_blanks(b, key);
    let open = skip_blanks(b, colon + 1);
    (at(b, colon) == Some(b':') && at(b, open) == Some(b'"')).then_some(open)
}

/// A Terraform state's `"type": "random_password"` resource: the password it made is
/// its instance's `"result"` (sensitive in the plan, plain in the state file). `e` is
/// after the quoted type; the resource's next `"type"` ends the search.
pub(super) fn random_password(b: &[u8], e: usize) -> Option<Hit> {
    let hi = (e + 4096).min(b.len());
    let until = super::text::find(&b[e..hi], b"\"type\"").map_or(hi, |p| e + p);
    let key = super::text::find(&b[e..until], b"\"result\"")? + e + 8;
    let open = json_string_after(b, key)?;
    let end = run(&b[..until], open + 1, |c| c != b'"' && c != b'\n');
    (end - open > 8 && at(b, end) == Some(b'"')).then(|| hit("password", open + 1, end))?
}

/// The lines of a cookie jar in Netscape's format under its header: `domain, flag,
/// path, secure, expiry, name, value` between tabs. A value that is machine-made, or
/// carries a long random run (Roblox's warning before its token), is a session.
pub(super) fn cookie_jar(b: &[u8], e: usize, out: &mut Vec<Hit>) {
    let mut ls = line_end(b, e, 256) + 1;
    for _ in 0..256 {
        if ls >= b.len() {
            return;
        }
        let le = line_end(b, ls, 8192);
        let line = &b[ls..le];
        let fields: Vec<&[u8]> = line.split(|&c| c == b'\t').collect();
        if fields.len() == 7 {
            let v = fields[6];
            let vs = le - v.len();
            let random_run = v
                .split(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'_' | b'-')))
                .any(|r| r.len() >= 32 && plausible(r, Need::Token));
            if v.len() >= 16 && (plausible(v, Need::Strong) || random_run) {
                out.push(("cookie", vs, le));
            }
        } else if !line.is_empty() && !line.starts_with(b"#") {
            return;
        }
        ls = le + 1;
    }
}

/// The options of a JAAS login module (Kafka's and ZooKeeper's `PlainLoginModule`,
/// `DigestLoginModule`): each `user_<name>="…"` defines that user and its password, up
/// to the entry's closing `;`. `e` is after `LoginModule required`.
pub(super) fn jaas_users(b: &[u8], e: usize, out: &mut Vec<Hit>) {
    let end = (e + 4096).min(b.len());
    let close = super::text::find(&b[e..end], b";").map_or(end, |p| e + p);
    let mut i = e;
    while let Some(p) = super::text::find(&b[i..close], b"user_") {
        let ks = i + p;
        i = ks + 5;
        if before(b, ks).is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_') {
            continue;
        }
        let name = run(b, ks + 5, |c| {
            c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.')
        });
        if name == ks + 5 || at(b, name) != Some(b'=') || at(b, name + 1) != Some(b'"') {
            continue;
        }
        let vs = name + 2;
        let ve = run(&b[..close], vs, |c| c != b'"' && c != b'\n');
        if at(b, ve) == Some(b'"') && plausible(&b[vs..ve], Need::Password) {
            out.push(("password", vs, ve));
        }
        i = ve;
    }
}

/// A wallet's "Show private key" (`This is your private key. Never disclose it.` then
/// the key): a line of 64 hex digits, `0x` or not, within the two lines below the
/// words. `e` is after them.
pub(super) fn hex_key_below(b: &[u8], e: usize) -> Option<Hit> {
    // A digest of the key file is 64 hex digits too.
    let said = &b[line_start(b, e)..line_end(b, e, 512)];
    if ["sha", "digest", "checksum", "fingerprint", "hash", "public"]
        .iter()
        .any(|w| contains_ci(said, w.as_bytes()))
    {
        return None;
    }
    let mut ls = line_end(b, e, 512) + 1;
    for _ in 0..2 {
        if ls >= b.len() {
            return None;
        }
        let le = line_end(b, ls, 256);
        let body = skip_blanks(b, ls).min(le);
        let start = body + if b[body..le].starts_with(b"0x") { 2 } else { 0 };
        let end = run(&b[..le], start, |c| c.is_ascii_hexdigit());
        if end - start == 64
            && b[end..le].trim_ascii().is_empty()
            && !super::text::is_filler(&b[start..end])
        {
            return hit("private-key", start, end);
        }
        ls = le + 1;
    }
    None
}

/// Redis' `AUTH` as RESP puts it on the wire (`*3\r\n$4\r\nAUTH\r\n$7\r\ndefault\r\n$24
/// \r\n<password>\r\n`): the last bulk string of the command is the password. `e` is
/// after `AUTH\r\n`.
fn resp_auth(b: &[u8], e: usize, newline: &[u8]) -> Option<Hit> {
    let mut i = e;
    let mut last = None;
    for _ in 0..2 {
        if at(b, i) != Some(b'$') {
            break;
        }
        let digits = run(b, i + 1, |c| c.is_ascii_digit());
        let n: usize = std::str::from_utf8(&b[i + 1..digits]).ok()?.parse().ok()?;
        let start = digits + newline.len();
        if !b[digits..].starts_with(newline) || start + n > b.len() {
            break;
        }
        last = Some((start, start + n));
        i = start + n;
        if !b[i..].starts_with(newline) {
            break;
        }
        i += newline.len();
    }
    let (start, end) = last?;
    (end - start >= 6).then(|| hit("password", start, end))?
}

/// strace's `read(0, "<line>\\n", 4096) = N`: a line typed at a prompt, read from
/// standard input. A password-shaped word alone on it is what was typed at `Password:`.
/// `e` is after the opening quote.
fn stdin_read(b: &[u8], e: usize) -> Option<Hit> {
    let le = line_end(b, e, 256);
    let close = e + b[e..le].iter().position(|&c| c == b'"')?;
    let end = if b[e..close].ends_with(b"\\n") {
        close - 2
    } else {
        close
    };
    let v = &b[e..end];
    (b[close..le].starts_with(b"\", ") && !v.contains(&b'\\') && password_shaped(v))
        .then(|| hit("password", e, end))?
}

/// The `ciphertext` of an Ethereum keystore (Web3 Secret Storage): the private key,
/// encrypted under a password the same file's `kdfparams` make cheap to try. `e` is
/// after `"ciphertext":`.
fn keystore_ciphertext(b: &[u8], e: usize) -> Option<Hit> {
    let vs = skip_blanks(b, e);
    if at(b, vs) != Some(b'"') {
        return None;
    }
    let end = run(b, vs + 1, |c| c.is_ascii_hexdigit());
    let near = &b[e.saturating_sub(400)..(end + 400).min(b.len())];
    (end - vs > 32
        && at(b, end) == Some(b'"')
        && contains_ci(near, b"\"cipherparams\"")
        && contains_ci(near, b"\"kdf\""))
    .then(|| hit("private-key", vs + 1, end))?
}

/// IRC's `PRIVMSG NickServ :IDENTIFY [account] <password>`: the password is the last
/// word. `e` is after `:IDENTIFY `.
fn nickserv_identify(b: &[u8], e: usize) -> Option<Hit> {
    let ls = line_start(b, e);
    let le = line_end(b, e, 256);
    if !contains_ci(&b[ls..e], b"nickserv") {
        return None;
    }
    let rest = b[e..le].trim_ascii_end();
    let last = rest.iter().rposition(|&c| c == b' ').map_or(0, |p| p + 1);
    let v = &rest[last..];
    (v.len() >= 6 && plausible(v, Need::Password))
        .then(|| hit("password", e + last, e + rest.len()))?
}

/// `aws ssm get-parameter --with-decryption`: a `SecureString` parameter's `Value`,
/// decrypted, in the same object. `e` is after `"SecureString"`.
fn secure_string_value(b: &[u8], e: usize) -> Option<Hit> {
    let lo = e.saturating_sub(300);
    let hi = (e + 300).min(b.len());
    let window = &b[lo..hi];
    let key = super::text::find(window, b"\"Value\"")? + lo + 7;
    let vs = json_string_after(b, key)?;
    let end = vs
        + 1
        + b.get(vs + 1..hi)?
            .iter()
            .position(|&c| c == b'"' || c == b'\n')?;
    let v = &b[vs + 1..end];
    (at(b, end) == Some(b'"') && plausible(v, Need::Password))
        .then(|| hit("secret", vs + 1, end))?
}

/// A Synapse (Matrix) signing key file: one line `ed25519 <key id> <unpadded base64 of
/// the 32-byte seed>`. `e` is after `ed25519 `, which opens the line.
fn synapse_signing_key(b: &[u8], e: usize) -> Option<Hit> {
    let s = e - b"ed25519 ".len();
    if s > 0 && b[s - 1] != b'\n' {
        return None;
    }
    let id_end = run(b, e, |c| c.is_ascii_alphanumeric() || c == b'_');
    let vs = id_end + 1;
    let end = run(b, vs, super::text::is_b64);
    (id_end > e
        && at(b, id_end) == Some(b' ')
        && end - vs == 43
        && at(b, end).is_none_or(|c| c == b'\n' || c == b'\r'))
    .then(|| hit("private-key", vs, end))?
}

/// `WIFI:T:WPA;S:Lab-Net;P:<password>;;`: the network's password in a join code (the
/// text of a Wi-Fi QR code). `e` is after `WIFI:`.
pub(super) fn wifi_code(b: &[u8], e: usize) -> Option<Hit> {
    let le = line_end(b, e, 512);
    let mut i = e;
    while i < le {
        let field_end = run(&b[..le], i, |c| c != b';');
        if b[i..field_end].starts_with(b"P:") {
            return password_value(b, i + 2, field_end);
        }
        i = field_end + 1;
    }
    None
}

/// `    RECAPTCHA_SECRET_KEY    REG_SZ    6L9T…` (`reg query`'s output, a `.reg` listing,
/// `reg add`'s `/v NAME /t REG_SZ /d …`): a registry value whose name says secret. `s`
/// is where the type starts.
pub(super) fn registry_value(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    let ls = line_start(b, s);
    // `reg add … /v DefaultPassword /t REG_SZ /d <value>`: the name and the data are
    // the switches' arguments.
    if b[ls..s].ends_with(b"/t ") || b[ls..s].ends_with(b"/T ") {
        let le = line_end(b, e, 1024);
        let switch = |from: usize, to: usize, name: &[u8]| {
            b[from..to]
                .windows(3)
                .position(|w| w.eq_ignore_ascii_case(name))
                .and_then(|p| argument(b, skip_blanks(b, from + p + 3)))
        };
        let (ns, ne) = switch(ls, s, b"/v ")?;
        super::assign::classify_key(&b[ns..ne])?;
        let (vs, ve) = switch(e, le, b"/d ")?;
        return password_value(b, vs, ve);
    }
    let name = b[ls..s].trim_ascii();
    if name.is_empty() || name.contains(&b' ') {
        return None;
    }
    super::assign::classify_key(name)?;
    let le = line_end(b, e, 1024);
    let vs = skip_blanks(b, e);
    let ve = vs + b[vs..le].trim_ascii_end().len();
    let v = &b[vs..ve];
    (v.len() >= 8 && !v.contains(&b' ') && plausible(v, Need::Password))
        .then(|| hit("password", vs, ve))?
}

/// `---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----` (Tectia, the RFC 4716 style): the body
/// under its `Comment:` headers, to the END line. Public keys in this armour stay.
pub(super) fn ssh2_private(b: &[u8], e: usize) -> Option<Hit> {
    let le = line_end(b, e, 128);
    let label = &b[e..le];
    if !contains_ci(label, b"PRIVATE KEY") {
        return None;
    }
    let mut i = le + 1;
    let mut continued = false;
    // Headers: `Name: value`, continued while a line ends in `\`.
    while i < b.len() {
        let end = line_end(b, i, 1024);
        let line = &b[i..end];
        let header = continued || {
            let colon = line.iter().position(|&c| c == b':');
            colon.is_some_and(|c| {
                line[..c]
                    .iter()
                    .all(|&x| x.is_ascii_alphanumeric() || x == b'-')
            })
        };
        if !header {
            break;
        }
        continued = line.trim_ascii_end().ends_with(b"\\");
        i = end + 1;
    }
    let start = i.min(b.len());
    let stop =
        super::text::find(&b[start..(start + 16384).min(b.len())], b"---- END SSH2")? + start;
    let end = b[..stop].trim_ascii_end().len();
    (end > start).then(|| hit("private-key", start, end))?
}

/// `openssl enc … -K <hex> -iv <hex>`, `openssl enc … -k <password>`: the raw key and the
/// password of openssl's cipher commands. `s..e` is ` -K ` or ` -k `.
pub(super) fn openssl_key(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    let ls = line_start(b, s);
    if !contains_ci(&b[ls..s], b"openssl ") {
        return None;
    }
    let (vs, ve) = argument(b, skip_blanks(b, e))?;
    let v = &b[vs..ve];
    if b[s + 2] == b'K' {
        (v.len() >= 16 && v.iter().all(u8::is_ascii_hexdigit)).then(|| hit("key", vs, ve))?
    } else {
        password_value(b, vs, ve)
    }
}

/// `/query?u=grafana&p=<password>` (InfluxDB 1.x, and other APIs that take a login in
/// the query): `p` after a `u` in the same query. `e` is after `&p=`.
pub(super) fn query_login(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    let ls = line_start(b, s).max(s.saturating_sub(512));
    let query = &b[ls..s];
    let q = query.iter().rposition(|&c| c == b'?')?;
    let params = &query[q..];
    if !params.starts_with(b"?u=") && super::text::find(params, b"&u=").is_none() {
        return None;
    }
    let end = run(&b[..line_end(b, e, 512)], e, |c| {
        !c.is_ascii_whitespace() && !matches!(c, b'&' | b'"' | b'\'' | b'#')
    });
    password_value(b, e, end)
}

/// A literal no person typed as a name: random by the strict test, 16 characters or
/// more, not an id's bare shape.
fn machine_made_literal(v: &[u8]) -> bool {
    // 24 hex digits in lower case: an ObjectId, the shape of client-side ids
    // (LaunchDarkly's `LDClient.initialize('…')`).
    let object_id = v.len() == 24
        && v.iter()
            .all(|&c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c));
    v.len() >= 16
        && !is_uuid(v)
        && !object_id
        && has_digit(v)
        && plausible(v, Need::Strong)
        && !super::text::looks_like_word_list(v)
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
