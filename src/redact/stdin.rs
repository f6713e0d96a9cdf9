//! Credentials fed to a command's standard input, where no flag or key names them:
//! `echo 'pw' | kinit u`, `printf '%s' pw | docker login --password-stdin`,
//! `kinit u <<< 'pw'`, `echo -e "pw\npw" | passwd u`, `echo pw | sudo -S …`.
//!
//! What makes the fed word a credential is the reader: a command that reads a password
//! or a token there (`READERS`, matched as anchors by `detect.rs`). What is fed is the
//! word of a here-string on the reader's command, or the last argument of the `echo` or
//! `printf` piped into it; `cat file |` and `"$VAR" |` feed nothing we can see. The
//! readers that say only `login` or `/dev/stdin` need a machine-made value; a
//! here-string of a long random value is a credential whatever reads it.

use super::context::Hit;
use super::structure::{argument, arguments, chosen_secret, password_value};
use super::text::{Need, at, before, line_end, line_start, plausible, run, run_back, skip_blanks};

/// How a reader is written: the anchor `detect.rs` matches, and what must follow it.
pub(super) const READERS: &[&str] = &[
    // Registry and forge logins: docker, podman, helm, skopeo, oras, crane, nerdctl.
    "--password-stdin",
    // `gh auth login --with-token`, `glab auth login --stdin`.
    "--with-token",
    // Kerberos reads the password from a pipe when it is not a terminal.
    "kinit",
    // `passwd --stdin`, `smbpasswd -s`, `htpasswd -i`: all end in `passwd`; `chpasswd`
    // takes `user:password` lines and is [`chpasswd`]'s.
    "passwd",
    // `sudo -S` reads the password from standard input.
    "sudo -S",
    // Any `… login` fed by a pipe (`echo tok | az devops login`), and any command told
    // to read a file argument from standard input (`wg set wg0 private-key /dev/stdin`).
    "login",
    "/dev/stdin",
    // `cryptsetup` reads a LUKS passphrase from a pipe when it is not a terminal.
    "cryptsetup",
    // `pass insert` reads the entry from standard input (`-m`: its first line is the
    // password).
    "pass insert",
];

/// The credential fed to the reader whose anchor `literal` is at `s..e`.
pub(super) fn credential(b: &[u8], s: usize, e: usize, literal: &str) -> Option<Hit> {
    // Case matters for flags (`sudo -s` is a shell), and a reader is a whole word.
    if b[s..e] != *literal.as_bytes() || at(b, e).is_some_and(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    if literal == "passwd" {
        let word_start = run_back(b, s, s.saturating_sub(8), |c| c.is_ascii_alphanumeric());
        if b[word_start..s].eq_ignore_ascii_case(b"ch") || at(b, e) == Some(b':') {
            return None;
        }
    } else if before(b, s).is_some_and(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    let (vs, mut ve) = fed(b, s, e)?;
    // `echo -e "pw\npw"` and `printf 'pw\n'`: the first line is the password.
    if let Some(p) = b[vs..ve].windows(2).position(|w| w == b"\\n") {
        ve = vs + p;
    }
    // The readers that say only "login" or "a file from stdin" take a token or a key:
    // what is fed must look machine-made (`echo hello | ssh-keygen -lf /dev/stdin`).
    if matches!(literal, "login" | "/dev/stdin") && !plausible(&b[vs..ve], Need::Token) {
        return None;
    }
    password_value(b, vs, ve)
}

/// The word fed to the command around `s..e`: its here-string's, or the last argument
/// of the `echo`/`printf` piped into it. Also [`chpasswd`]'s source.
pub(super) fn fed(b: &[u8], s: usize, e: usize) -> Option<(usize, usize)> {
    let ls = line_start(b, s);
    let le = line_end(b, e, 1024);
    // The reader's command ends at the next pipe, `;` or `&&`.
    let cmd_end = b[e..le]
        .iter()
        .position(|&c| matches!(c, b'|' | b';' | b'&'))
        .map_or(le, |p| e + p);
    if let Some(p) = b[e..cmd_end].windows(3).position(|w| w == b"<<<") {
        return argument(b, skip_blanks(b, e + p + 3));
    }
    // A here-document (`chpasswd <<EOF`, `kinit u <<-'END'`): its first line.
    if let Some(p) = b[e..cmd_end].windows(2).position(|w| w == b"<<") {
        let tag_at = e + p + 2;
        let tag_at = tag_at + usize::from(at(b, tag_at) == Some(b'-'));
        let tag_at = skip_blanks(b, tag_at);
        let tag_at = tag_at + usize::from(at(b, tag_at).is_some_and(|c| c == b'\'' || c == b'"'));
        let tag_end = run(b, tag_at, |c| c.is_ascii_alphanumeric() || c == b'_');
        let body = le + 1;
        if tag_end == tag_at || body >= b.len() {
            return None;
        }
        let body_end = line_end(b, body, 1024);
        let line = b[body..body_end].trim_ascii();
        if line.is_empty() || line == &b[tag_at..tag_end] {
            return None;
        }
        let vs = body + (b[body..body_end].len() - b[body..body_end].trim_ascii_start().len());
        return Some((vs, vs + line.len()));
    }
    // The pipe into the reader's command, with no other command between.
    let pipe = b[ls..s].iter().rposition(|&c| c == b'|')? + ls;
    if b[pipe + 1..s].iter().any(|&c| matches!(c, b';' | b'&')) {
        return None;
    }
    echoed_word(b, ls, pipe)
}

/// The last argument of the `echo` or `printf` in `b[from..to]`, the word it prints.
pub(super) fn echoed_word(b: &[u8], from: usize, to: usize) -> Option<(usize, usize)> {
    let echo = b[from..to]
        .windows(5)
        .rposition(|w| w == b"echo " || w == b"print")?;
    arguments(b, from + echo, to).last()
}

/// Words a command's or a flag's name holds when what it is fed is a secret.
fn says_secret(name: &[u8]) -> bool {
    [
        b"pass".as_slice(),
        b"secret",
        b"token",
        b"_key",
        b"-key",
        b"apikey",
    ]
    .iter()
    .any(|w| super::text::contains_ci(name, w))
}

/// `--vault-password-file <(echo 'pw')`, `--password-file <(printf %s pw)`: a file made
/// on the command line for a flag whose name says secret holds the echoed word. `s..e`
/// is the `<(echo ` or `<(printf ` anchor.
pub(super) fn substituted(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    let flag_end = run_back(b, s, s.saturating_sub(2), |c| c == b' ' || c == b'=');
    let flag_start = run_back(b, flag_end, flag_end.saturating_sub(64), |c| {
        !c.is_ascii_whitespace()
    });
    let flag = &b[flag_start..flag_end];
    let named = flag.starts_with(b"-") && says_secret(flag);
    let close = e + b[e..line_end(b, e, 1024)].iter().position(|&c| c == b')')?;
    let (vs, ve) = arguments(b, e, close).last()?;
    (named && !b[vs..ve].starts_with(b"%")).then(|| password_value(b, vs, ve))?
}

/// `hcloud context create prod <<< <token>`: a here-string of a long machine-made value
/// is a credential whatever reads it (`bc <<< "2+2"`, `jq . <<< '{…}'` feed no such
/// word); `e` is the end of the `<<< ` anchor.
pub(super) fn here_string(b: &[u8], e: usize) -> Option<Hit> {
    let (vs, ve) = argument(b, skip_blanks(b, e))?;
    let v = &b[vs..ve];
    if v.len() >= 32 && plausible(v, Need::Strong) {
        return Some(("token", vs, ve));
    }
    // `vercel env add DB_PASSWORD production <<< '…'`: a command whose words name a
    // secret takes a chosen value too.
    (says_secret(&b[line_start(b, e)..e]) && chosen_secret(v)).then_some(("password", vs, ve))
}

/// `echo 'user:pass' | chpasswd`, `chpasswd <<< "user:pass"`: the part after the colon.
pub(super) fn chpasswd(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    let pair = fed(b, s, e)?;
    let (vs, ve) = pair;
    let colon = b[vs..ve].iter().position(|&c| c == b':')? + vs;
    let mut end = ve;
    // printf's and echo -e's line break is not the password's.
    while b[colon + 1..end].ends_with(b"\\n") {
        end -= 2;
    }
    password_value(b, colon + 1, end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fed_to(text: &str, reader: &str) -> Option<String> {
        let s = text.find(reader)?;
        credential(text.as_bytes(), s, s + reader.len(), reader)
            .map(|(_, a, z)| text[a..z].to_string())
    }

    #[test]
    fn passwords_piped_or_here_strung_into_readers() {
        let p = "Cobalt&4549cuB";
        let cases = [
            (format!("echo '{p}' | kinit admin@EXAMPLE.COM"), "kinit"),
            (
                format!(
                    "printf '%s' \"{p}\" | helm registry login ghcr.io -u bot --password-stdin"
                ),
                "--password-stdin",
            ),
            (format!("kinit svc@EXAMPLE.COM <<< '{p}'"), "kinit"),
            (
                format!("echo -e \"{p}\\n{p}\" | smbpasswd -s -a backup"),
                "passwd",
            ),
            (format!("echo {p} | sudo -S true"), "sudo -S"),
        ];
        for (text, reader) in cases {
            assert_eq!(fed_to(&text, reader).as_deref(), Some(p), "{text}");
        }
    }

    #[test]
    fn variables_files_and_prompts_feed_nothing_we_can_see() {
        for (text, reader) in [
            (
                "echo \"$REGISTRY_PASSWORD\" | docker login -u bot --password-stdin",
                "--password-stdin",
            ),
            (
                "cat ~/.secrets/registry | docker login -u ci --password-stdin",
                "--password-stdin",
            ),
            ("sudo -S -k true < /dev/null", "sudo -S"),
            ("echo 'deploy:x' | chpasswd", "passwd"),
            ("passwd: Authentication token manipulation error", "passwd"),
            ("echo done | tee log; kinit admin", "kinit"),
        ] {
            assert_eq!(fed_to(text, reader), None, "{text}");
        }
    }
}
