//! Credentials a person typed into a command, found by what the command is rather than by
//! which program it is: a credential verb in the command's own words (`register`, `user
//! add`, `AUTH`, `unseal`, `addauth`, a `…-login` or `…_passwd` program), a flag beside a
//! user flag or in a command that names a password (`vsql -U u -w '…'`, `security
//! add-generic-password -w '…'`), a value echoed into a command that reads a secret
//! (`echo '…' | gpg --passphrase-fd 0`, `echo 'u:p' > /etc/…-pwdb`), `user u using p`,
//! and an FTP script's `user u p`.
//!
//! A person's password is not random, so these rules accept what people choose
//! (`Walnut@7729nectar`, `harbor.autumn.sequoia.293`) where the command says credential,
//! and only machine-made values where it merely might. What decides "command" is
//! position: the verb is among the first words of a shell segment or follows a REPL
//! prompt, and the words before it are a program's and sub-commands', not prose.

use super::context::Hit;
use super::structure::{argument, arguments, chosen_secret, is_host, password_shaped};
use super::text::{
    Need, at, before, contains_ci, has_alpha, has_digit, is_email, is_path_like, line_end,
    line_start, plausible, run, skip_blanks,
};

/// Where the shell command holding byte `i` starts on its line: after a pipe, `;`, `&&`,
/// `(`, a backquote, or a prompt that ends in `> `, `$ `, `# `, `% ` or `] `
/// (`cache-1:6379> AUTH …`, `[zk: host(CONNECTED) 0] addauth …`).
pub(super) fn segment_start(b: &[u8], i: usize) -> usize {
    let ls = line_start(b, i);
    let mut start = ls;
    // zsh themes' prompts end in `❯ `, `➜ ` or a dirty tree's `✗ `.
    for glyph in ["\u{276f} ", "\u{279c} ", "\u{2717} "] {
        let Some(p) = super::text::find(&b[ls..i], glyph.as_bytes()) else {
            continue;
        };
        let mut after = ls + p + glyph.len();
        // Oh My Zsh's default theme, `➜  dir git:(main) ✗ cmd`: the folder's name and
        // the branch come before the command.
        if glyph == "\u{279c} " {
            let dir = skip_blanks(b, after);
            let k = run(&b[..i], dir, |c| !c.is_ascii_whitespace());
            if k > dir && at(b, k) == Some(b' ') {
                after = skip_blanks(b, k);
                if b[after..i].starts_with(b"git:(") {
                    after = skip_blanks(b, run(&b[..i], after, |c| c != b' '));
                }
            }
        }
        start = start.max(after.min(i));
    }
    // cmd.exe's prompt, glued to the command (`C:\backup>7z a -p… …`).
    let t = skip_blanks(b, start);
    if b[t..i].len() > 3
        && b[t].is_ascii_alphabetic()
        && b[t + 1..].starts_with(b":\\")
        && let Some(gt) = b[t..i].iter().position(|&c| c == b'>')
        && !b[t..t + gt].contains(&b' ')
    {
        start = t + gt + 1;
    }
    // `history`'s numbered lines (`  513  vault operator unseal …`).
    let t = skip_blanks(b, start);
    let d = run(&b[..i], t, |c| c.is_ascii_digit());
    if d > t && b[d..i].starts_with(b"  ") {
        start = d + 2;
    }
    let from = start;
    for k in from..i {
        let c = b[k];
        if matches!(c, b'|' | b';' | b'&' | b'(' | b'`') {
            start = k + 1;
        } else if matches!(c, b'>' | b'$' | b'#' | b'%' | b']') && at(b, k + 1) == Some(b' ') {
            // `2>&1 ` and `> file` redirect rather than prompt: a prompt ends its word.
            let fd = |j: usize| {
                before(b, j).is_some_and(|p| p.is_ascii_digit())
                    && before(b, j - 1).is_none_or(|p| p == b' ')
            };
            let redirect = c == b'>' && k > ls && (before(b, k) == Some(b' ') || fd(k));
            if !redirect {
                start = k + 2;
            }
        }
    }
    start
}

/// The words of `b[from..to]` are a program and its sub-commands: at most four, each a
/// lower-case name (a path's last part) or, after the program, an upper-case command
/// (`redis-cli ACL SETUSER`), none a word of prose. A leading label (`Command:`, `Run:`)
/// is a log's, not the command's.
fn command_prefix(b: &[u8], from: usize, to: usize) -> bool {
    let mut words = b[from..to]
        .split(|c| c.is_ascii_whitespace())
        .filter(|w| !w.is_empty())
        .peekable();
    let label = |w: &[u8]| {
        w.len() > 1 && w.ends_with(b":") && w[..w.len() - 1].iter().all(u8::is_ascii_alphabetic)
    };
    if words.peek().is_some_and(|w| label(w)) {
        words.next();
    }
    let mut n = 0;
    for w in words {
        n += 1;
        let base = w.rsplit(|&c| c == b'/').next().unwrap_or(w);
        let lower = base.iter().all(|&c| {
            c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'-' | b'_' | b'.' | b'\\')
        });
        let upper = n > 1 && base.iter().all(|&c| c.is_ascii_uppercase() || c == b'_');
        let named = base
            .first()
            .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'\\')
            && (lower || upper);
        if n > 4 || !named || PROSE_WORDS.contains(&base) {
            return false;
        }
    }
    true
}

/// Words that make a line prose rather than a command (`we failed to register …`).
const PROSE_WORDS: &[&[u8]] = &[
    b"a", b"an", b"the", b"to", b"of", b"for", b"and", b"or", b"in", b"on", b"with", b"we", b"i",
    b"you", b"it", b"is", b"was", b"be", b"please", b"then", b"failed", b"could", b"not",
    b"cannot", b"when", b"if", b"by", b"from", b"that", b"this", b"will", b"can", b"should",
    b"must", b"how", b"why", b"what", b"did", b"does", b"do", b"have", b"has",
];

/// `8080:localhost:80`, `db.internal:5432`: a port forward or an endpoint, not a secret.
fn endpoint(v: &[u8]) -> bool {
    v.contains(&b':')
        && v.split(|&c| c == b':').all(|p| {
            p.iter().all(u8::is_ascii_digit)
                || p.iter().all(|&c| {
                    c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'.' | b'-')
                })
        })
}

/// Whether the anchor at `s` starts a credential verb's word where a command stands.
/// Programs named for it (`mega-login`, `mosquitto_passwd`) glue the verb to their name.
pub(super) fn verb_in_command(b: &[u8], s: usize) -> bool {
    let word_start = {
        let mut k = s;
        while k > 0 && !b[k - 1].is_ascii_whitespace() {
            k -= 1;
        }
        k
    };
    if word_start != s && !matches!(before(b, s), Some(b'-' | b'_' | b'/')) {
        return false;
    }
    let seg = segment_start(b, s);
    let seg = skip_blanks(b, seg);
    // `sudo`, `Run`, `$ ` and the like are a prefix the words test accepts.
    seg <= word_start && command_prefix(b, seg, word_start)
}

/// The arguments of a credential verb's command from `e`, up to the command's end:
/// `register user host PASSWORD`, `AUTH user PASSWORD`, `addauth digest user:PASSWORD`,
/// `ACL SETUSER u on '>PASSWORD'`, and a route's token (`join host:port/TOKEN`), the
/// only one read when `routes_only`. Flags and their values are other rules' business;
/// a `key=value` argument is an assignment's. Returns how far it read.
pub(super) fn verb_arguments(b: &[u8], e: usize, routes_only: bool, out: &mut Vec<Hit>) -> usize {
    let le = line_end(b, e, 1024);
    let cmd_end = b[e..le]
        .iter()
        .position(|&c| matches!(c, b'|' | b';' | b'&' | b'<'))
        .map_or(le, |p| e + p);
    let mut after_flag = false;
    for (vs, ve) in arguments(b, e, cmd_end) {
        let a = &b[vs..ve];
        if a.starts_with(b"-") {
            after_flag = !a.contains(&b'=');
            continue;
        }
        let user_at_host = a
            .iter()
            .position(|&c| c == b'@')
            .is_some_and(|p| is_host(&a[p + 1..]));
        // `name=value` is an assignment's; a password may hold a `=` of its own.
        let assignment = a.iter().position(|&c| c == b'=').is_some_and(|p| {
            p > 0
                && a[0].is_ascii_alphabetic()
                && a[..p]
                    .iter()
                    .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
        });
        if std::mem::take(&mut after_flag) || assignment || is_email(a) || user_at_host {
            continue;
        }
        // A join's `host:port/<token>/<hash>` (MicroK8s): the route's first part.
        if let Some(slash) = a.iter().position(|&c| c == b'/')
            && endpoint(&a[..slash])
            && a[..slash].contains(&b':')
        {
            let t = &a[slash + 1..];
            let t = &t[..t.iter().position(|&c| c == b'/').unwrap_or(t.len())];
            if t.len() >= 16 && plausible(t, Need::Token) {
                out.push(("token", vs + slash + 1, vs + slash + 1 + t.len()));
            }
            continue;
        }
        if routes_only {
            continue;
        }
        // Redis ACL's `>password` adds one; `user:password` for ZooKeeper's digest.
        let (vs, a) = match a.strip_prefix(b">") {
            Some(rest) => (vs + 1, rest),
            None => match a.iter().position(|&c| c == b':') {
                Some(p) if !endpoint(a) && !a[..p].is_empty() => (vs + p + 1, &a[p + 1..]),
                _ => (vs, a),
            },
        };
        if chosen_secret(a) && !endpoint(a) && !is_path_like(a) && !is_host(a) {
            out.push(("password", vs, vs + a.len()));
        }
    }
    cmd_end
}

/// Flags that name the user a command logs in as; the command's other flag that takes a
/// chosen secret is then its password (`vsql -U u -w …`, `sendemail -xu u -xp …`,
/// `swift -U t:u -K …`, `ldappasswd -D dn -s …`).
const USER_FLAGS: &[&[u8]] = &[
    b"-u",
    b"-U",
    b"--user",
    b"--username",
    b"-xu",
    b"-D",
    b"--login",
    b"--account",
];

/// Words that make a command about a credential wherever they stand in its words.
const CREDENTIAL_WORDS: &[&[u8]] = &[
    b"password",
    b"passwd",
    b"passphrase",
    b"secret",
    b"credential",
    b"keychain",
    b"keyring",
];

/// The value of the flag at `s..flag_end` when the command is about a credential (a user
/// flag or a credential word among its words) and the value is one a person or a
/// machine chose. Called for flags no program table knows.
pub(super) fn flag_value(b: &[u8], s: usize, flag_end: usize) -> Option<Hit> {
    let flag = &b[s..flag_end];
    if USER_FLAGS.contains(&flag) || at(b, flag_end) == Some(b'=') {
        return None;
    }
    let vi = skip_blanks(b, flag_end);
    if vi == flag_end {
        return None;
    }
    let (vs, ve) = argument(b, vi)?;
    let v = &b[vs..ve];
    // The value first: most flags' values are names, numbers and paths.
    if v.starts_with(b"-")
        || !chosen_secret(v)
        || endpoint(v)
        || is_path_like(v)
        || is_host(v)
        || v.contains(&b'=') && !has_digit(v)
        || option_list(v)
    {
        return None;
    }
    let seg = segment_start(b, s);
    let le = line_end(b, s, 1024);
    let end = b[s..le]
        .iter()
        .position(|&c| matches!(c, b'|' | b';' | b'&'))
        .map_or(le, |p| s + p);
    let words = &b[seg..end];
    let user_flag = words
        .split(|c| c.is_ascii_whitespace())
        .any(|w| USER_FLAGS.contains(&w));
    let named = CREDENTIAL_WORDS.iter().any(|w| contains_ci(&b[seg..s], w));
    // A passphrase of words is a name elsewhere (`-n api-gateway-prod-01`).
    let chosen =
        plausible(v, Need::Strong) || password_shaped(v) && !super::text::looks_like_word_list(v);
    (named || user_flag && chosen).then_some(("password", vs, ve))
}

/// `file=disk.luks,encrypt.format=luks`: a flag's comma-separated `name=value` options
/// (qemu, mount, docker's `--mount`), not one chosen value.
fn option_list(v: &[u8]) -> bool {
    let pairs = v.split(|&c| c == b',');
    pairs.clone().count() >= 2
        && pairs.clone().filter(|p| p.contains(&b'=')).count() >= 2
        && pairs.into_iter().all(|p| {
            let name = p.split(|&c| c == b'=').next().unwrap_or_default();
            !name.is_empty()
                && name
                    .iter()
                    .all(|&c| c.is_ascii_lowercase() || matches!(c, b'.' | b'-' | b'_'))
        })
}

/// `echo 'pw' | gpg --passphrase-fd 0`, `echo -n 'pw' | secret-tool store …`, `echo 'u:p'
/// > /etc/memcached-sasl-pwdb`: a value echoed into a command or a file that the
/// keyword at `s` makes about a credential. `None` unless the keyword's word comes after
/// the pipe or redirect of an `echo`/`printf` on the same line.
pub(super) fn echoed(b: &[u8], s: usize) -> Option<Hit> {
    let ls = line_start(b, s);
    let line = &b[ls..s];
    let into = line.iter().rposition(|&c| c == b'|' || c == b'>')? + ls;
    if b[into + 1..s]
        .iter()
        .any(|&c| matches!(c, b';' | b'&' | b'|'))
    {
        return None;
    }
    let (mut vs, mut ve) = super::stdin::echoed_word(b, ls, into)?;
    if b[ve..into].iter().any(|&c| matches!(c, b';' | b'&')) {
        return None;
    }
    // `printf 'pw\n'`: the line break is printf's.
    while b[vs..ve].ends_with(b"\\n") {
        ve -= 2;
    }
    let redirect = b[into] == b'>';
    if let Some(p) = b[vs..ve].iter().position(|&c| c == b':')
        && (redirect || !b[vs..ve].contains(&b' '))
        && p > 0
        && b[vs..vs + p]
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
    {
        vs += p + 1;
    }
    let v = &b[vs..ve];
    (has_alpha(v) && chosen_secret(v) && !v.starts_with(b"$")).then_some(("password", vs, ve))
}

/// `"AUTH" "password"` as `redis-cli MONITOR` prints a command, each word quoted; `e`
/// is the end of the `"AUTH" "` anchor (the password's or the user's opening quote).
pub(super) fn quoted_auth(b: &[u8], e: usize) -> Option<Hit> {
    let le = line_end(b, e, 512);
    let (vs, ve) = arguments(b, e - 1, le).take(2).last()?;
    chosen_secret(&b[vs..ve]).then_some(("password", vs, ve))
}

/// `db2 connect to DB user u using PASSWORD`: the word after `using` when `user <name>`
/// precedes it; `e` is the end of `using `.
pub(super) fn using_after_user(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    let ls = line_start(b, s);
    let before_words: Vec<&[u8]> = b[ls..s]
        .split(|c| c.is_ascii_whitespace())
        .filter(|w| !w.is_empty())
        .collect();
    let n = before_words.len();
    if n < 2 || !before_words[n - 2].eq_ignore_ascii_case(b"user") {
        return None;
    }
    let (vs, ve) = argument(b, skip_blanks(b, e))?;
    let v = &b[vs..ve];
    (chosen_secret(v) || plausible(v, Need::Password) && has_digit(v))
        .then_some(("password", vs, ve))
}

/// An FTP script's or session's `user NAME PASSWORD` line (`ftp -n <<EOF`, `ftp> user …`);
/// `s` is the anchor `user `.
pub(super) fn ftp_user(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    let ls = line_start(b, s);
    let prompt = &b[ls..s];
    if !(prompt.is_empty() || prompt.ends_with(b"ftp> ")) || b[s..e] != *b"user " {
        return None;
    }
    let le = line_end(b, e, 256);
    let words: Vec<&[u8]> = b[e..le]
        .split(|c| c.is_ascii_whitespace())
        .filter(|w| !w.is_empty())
        .collect();
    let [_, pass] = words[..] else {
        return None;
    };
    let vs = e + super::text::find(&b[e..le], pass)?;
    let (vs, ve) = argument(b, vs)?;
    chosen_secret(&b[vs..ve]).then_some(("password", vs, ve))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str, verb: &str) -> Vec<String> {
        let s = text.find(verb).expect("verb in text");
        let mut out = Vec::new();
        if verb_in_command(text.as_bytes(), s) {
            verb_arguments(text.as_bytes(), s + verb.len(), false, &mut out);
        }
        out.iter()
            .map(|&(_, a, z)| text[a..z].to_string())
            .collect()
    }

    #[test]
    fn a_credential_verb_in_command_position_gives_away_chosen_passwords() {
        assert_eq!(
            args(
                "$ ejabberdctl register yuki chat.example.ai Canyon2012@Zinc",
                "register "
            ),
            ["Canyon2012@Zinc"]
        );
        assert_eq!(
            args("cache-1:6379> AUTH app thunder_harbor_plasma_477", "AUTH "),
            ["thunder_harbor_plasma_477"]
        );
        assert_eq!(
            args(
                "[zk: zk-0:2181(CONNECTED) 0] addauth digest lucas:zeQu8~UoxzP0wY",
                "addauth "
            ),
            ["zeQu8~UoxzP0wY"]
        );
        assert_eq!(
            args(
                "$ mc admin user add local jdoe panda.bramble.aspen.930",
                "user add "
            ),
            ["panda.bramble.aspen.930"]
        );
    }

    #[test]
    fn prose_names_and_hosts_are_not_arguments_of_a_verb() {
        assert!(args("we failed to register Service2Worker today", "register ").is_empty());
        assert!(args("$ prosodyctl register maria xmpp.example.org", "register ").is_empty());
        assert!(args("$ kubectl auth can-i create pods", "auth ").is_empty());
        assert!(
            args(
                "$ ssh -L 8080:localhost:80 host; login 8080:db:5432",
                "login "
            )
            .is_empty()
        );
    }

    #[test]
    fn flags_beside_a_user_flag_or_in_a_password_command() {
        let flag = |text: &str, f: &str| {
            let s = text.find(f).expect("flag in text");
            flag_value(text.as_bytes(), s, s + f.len()).map(|(_, a, z)| text[a..z].to_string())
        };
        assert_eq!(
            flag(
                "vsql -h db -U dbadmin -w 'Banjo#6883yarrow' -c 'select 1'",
                "-w"
            )
            .as_deref(),
            Some("Banjo#6883yarrow")
        );
        assert_eq!(
            flag(
                "security add-generic-password -a me -s svc -w 'harbor.autumn.sequoia.293'",
                "-w"
            )
            .as_deref(),
            Some("harbor.autumn.sequoia.293")
        );
        assert_eq!(flag("ssh -u me -L 8080:localhost:80 host", "-L"), None);
        assert_eq!(flag("docker compose -p api-gateway-prod-01 up", "-p"), None);
        assert_eq!(flag("tool -U me -n api-gateway-prod-01", "-n"), None);
    }

    #[test]
    fn values_echoed_into_a_secret_reader_or_file() {
        let echo = |text: &str, kw: &str| {
            let s = text.find(kw).expect("keyword in text");
            echoed(text.as_bytes(), s).map(|(_, a, z)| text[a..z].to_string())
        };
        assert_eq!(
            echo(
                "echo 'Dolphin^4053kelp' | gpg --batch --passphrase-fd 0 --sign f",
                "pass"
            )
            .as_deref(),
            Some("Dolphin^4053kelp")
        );
        assert_eq!(
            echo(
                "echo 'sofia:mAi8Muyy8DBsfU5cGFwtP3' > /etc/memcached-sasl-pwdb",
                "pwdb"
            )
            .as_deref(),
            Some("mAi8Muyy8DBsfU5cGFwtP3")
        );
        assert_eq!(
            echo("echo \"$PASSPHRASE\" | gpg --passphrase-fd 0", "pass"),
            None
        );
        assert_eq!(echo("echo hello | gpg --passphrase-fd 0", "pass"), None);
    }
}
