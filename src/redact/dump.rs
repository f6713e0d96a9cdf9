//! What a command printed from a file whose name says it holds secrets
//! (`cat /etc/rsyncd.secrets`, `tail keys.log`, `sudo cat ~/.pgpass`, `cat privatekey`,
//! and a decrypter's `gpg -d creds.txt.gpg`, read by the file's plain name):
//! the file's lines carry no key that names each value, so every field that looks like a
//! password or a machine-made token is one. It owns the file-name test and the field
//! test; which command read the file is `detect.rs`'s anchor (`READERS`).
//!
//! The same holds for the line a shell or a REPL printed for a name that says secret
//! (`echo $DB_PASSWORD`, terraform console's `> var.admin_password`, `>>> settings.SECRET_KEY`):
//! the next line is its value (`printed`).
//!
//! And the lines a command printed when its job is to make or fetch a secret
//! (`generated`): a generator (`openssl rand`, `pwgen`, `consul keygen`, `wg genkey`), a
//! credential store's getter (`op read`, `bw get password`, `secret-tool lookup`,
//! `security find-generic-password -w`, `pass show`, `vault kv get -field`,
//! `akeyless get-secret-value`, `conjur variable get`), a cloud
//! CLI's token printer (`gcloud auth print-access-token`, `aws ecr get-login-password`,
//! `gh auth token`), a Kubernetes secret piped through `base64 -d`, a getter asked for a
//! name that says secret (`heroku config:get SESSION_SECRET`, `terraform output -raw
//! admin_password`), random bytes made on a command line (`head -c 32 /dev/urandom |
//! base64`), or a REPL that calls a random generator (`>>> secrets.token_urlsafe(32)`). What such a command
//! prints on a line of its own is the secret, whatever its shape: nothing names it.
//!
//! Public files are kept out by name (`*.pub`, certificates, `known_hosts`,
//! `authorized_keys`, `/etc/passwd`), and public blobs by `allow.rs` like any context
//! finding. Cost: one anchor per reader word; the line is read only when the reader is a
//! command word, and the output only when an argument names a secret.

use super::assign::classify_key;
use super::context::Hit;
use super::text::{
    Need, at, contains_ci, find, has_alpha, has_digit, is_dotted_identifier, is_email,
    is_numeric_shape, is_passphrase, is_path_like, is_placeholder, is_version, line_end,
    looks_like_word_list, plausible, random_letters, run, skip_blanks,
};

/// Commands that print a file, as anchors (case-insensitive, `Get-Content` included).
pub(super) const READERS: &[&str] = &[
    "cat ",
    "tail ",
    "head ",
    "get-content ",
    "less ",
    "more ",
    "bat ",
    // Dumpers print the same file's bytes (`xxd -p ~/.lightning/bitcoin/hsm_secret`).
    "xxd ",
    "hexdump ",
    "od ",
    "strings ",
    // `tr '\0' '\n' < /proc/1/environ`: a NUL-separated file made readable.
    "tr ",
    "base64 ",
    // Decrypters print the plaintext of an encrypted secret's file.
    "gpg -d ",
    "gpg --decrypt ",
    "sops -d ",
    "sops --decrypt ",
    "age -d ",
    "age --decrypt ",
    "ansible-vault view ",
];

/// The readers of [`READERS`] that decrypt: the file's encrypted suffix (`.gpg`) does not
/// make its output ciphertext.
const DECRYPTERS: &[&[u8]] = &[b"gpg ", b"sops ", b"age ", b"ansible-vault "];

/// Commands that print one value, as anchors: `echo $NAME`, `printenv NAME`, a REPL's
/// prompt (`> `, `>>> `) before an expression, and a debugger's ([`DEBUGGER_PRINT`]).
pub(super) const PRINTERS: &[&str] = &[
    "echo $",
    "printenv ",
    "\n> ",
    "\n>>> ",
    "(gdb) ",
    "(pdb) ",
    "(lldb) ",
    "ipdb> ",
    "(dlv) ",
    "(rr) ",
    "(pdb++) ",
    // IPython's and Jupyter's `In [7]: print(os.environ["TOKEN"])`.
    "]: print(",
];

/// A debugger's commands that print an expression's value: `(gdb) p cfg->pw`,
/// `(Pdb) pp self.token`, `(lldb) po key`, `(dlv) print pw`. Pdb also prints a bare
/// expression.
const DEBUGGER_PRINT: &[&[u8]] = &[
    b"p ",
    b"pp ",
    b"print ",
    b"po ",
    b"expr ",
    b"display ",
    b"call ",
];

/// Commands whose output is a secret they made or fetched (module doc): the anchor, what
/// the output is — what a person chose (`Password`: a store's getter prints
/// `Harbor-Quill-5521`) or what a machine made (`Token`) — and a word the command's line
/// must hold for its output to be the secret alone (`-w`, `-field`, `base64 -d`).
pub(super) const GENERATORS: &[(&str, Need, Requires)] = &[
    ("openssl rand ", Need::Token, Requires::Nothing),
    ("pwgen", Need::Token, Requires::Nothing),
    ("keygen", Need::Token, Requires::Nothing),
    ("genkey", Need::Token, Requires::Nothing),
    ("print-access-token", Need::Token, Requires::Nothing),
    ("print-identity-token", Need::Token, Requires::Nothing),
    ("get-login-password", Need::Token, Requires::Nothing),
    ("get-access-token", Need::Token, Requires::Nothing),
    ("auth token", Need::Token, Requires::Nothing),
    ("auth:token", Need::Token, Requires::Nothing),
    ("get secret ", Need::Password, Requires::Word(b"base64")),
    ("op read ", Need::Password, Requires::Nothing),
    ("bw get password", Need::Password, Requires::Nothing),
    ("secret-tool lookup", Need::Password, Requires::Nothing),
    (
        "find-generic-password",
        Need::Password,
        Requires::Word(b" -w"),
    ),
    (
        "find-internet-password",
        Need::Password,
        Requires::Word(b" -w"),
    ),
    ("pass show ", Need::Password, Requires::Nothing),
    ("vault kv get ", Need::Password, Requires::Word(b"-field")),
    ("vault read ", Need::Password, Requires::Word(b"-field")),
    ("vault write ", Need::Password, Requires::Word(b"-field")),
    // Frameworks' secret generators, and a swarm's unlock key.
    ("key:generate", Need::Token, Requires::Word(b"--show")),
    ("gen.secret", Need::Token, Requires::Nothing),
    ("unlock-key", Need::Token, Requires::Nothing),
    // A wallet's export prints its private key (lotus, geth's `account export`).
    ("wallet export", Need::Token, Requires::Nothing),
    ("account export", Need::Token, Requires::Nothing),
    // A vendor CLI making a credential prints it once: `… tokens create --name ci`,
    // `… api-key new`; on a line of its own, or in a `| token | … |` table row.
    ("token create", Need::Token, Requires::Nothing),
    ("tokens create", Need::Token, Requires::Nothing),
    ("key create", Need::Token, Requires::Nothing),
    ("keys create", Need::Token, Requires::Nothing),
    ("api-key create", Need::Token, Requires::Nothing),
    ("api-key new", Need::Token, Requires::Nothing),
    ("apikey create", Need::Token, Requires::Nothing),
    ("token new", Need::Token, Requires::Nothing),
    ("secret create", Need::Token, Requires::Nothing),
    // Getters that print one named value: the value is a secret's when the name says so
    // (`heroku config:get SESSION_SECRET`, `terraform output -raw admin_password`).
    ("config:get ", Need::Password, Requires::SecretName),
    ("output -raw ", Need::Password, Requires::SecretName),
    ("keyring get ", Need::Password, Requires::Nothing),
    (
        "secrets versions access ",
        Need::Password,
        Requires::Nothing,
    ),
    ("get-secret-value", Need::Password, Requires::Nothing),
    ("conjur variable get", Need::Password, Requires::Nothing),
    // Random bytes made on the command line: `head -c 32 /dev/urandom | base64`,
    // `python3 -c 'import secrets; print(secrets.token_urlsafe(32))'`, `rails secret`.
    ("/dev/urandom", Need::Token, Requires::Nothing),
    ("token_urlsafe(", Need::Token, Requires::Nothing),
    ("token_hex(", Need::Token, Requires::Nothing),
    ("token_bytes(", Need::Token, Requires::Nothing),
    // Node's `crypto.randomBytes(32).toString('hex')`, PHP's `random_bytes(32)`,
    // Python's `os.urandom(32)`.
    ("randombytes(", Need::Token, Requires::Nothing),
    ("random_bytes(", Need::Token, Requires::Nothing),
    // .NET's `[System.Web.Security.Membership]::GeneratePassword(20, 4)`.
    ("generatepassword(", Need::Password, Requires::Nothing),
    ("urandom(", Need::Token, Requires::Nothing),
    // `jq -r .shared_secret f.json`: one field printed raw, a secret's when its name
    // says so.
    ("jq -r ", Need::Password, Requires::FilteredSecret),
    ("jq --raw-output ", Need::Password, Requires::FilteredSecret),
    ("yq -r ", Need::Password, Requires::FilteredSecret),
    ("rails secret", Need::Token, Requires::Nothing),
    ("rake secret", Need::Token, Requires::Nothing),
    // git-crypt's symmetric key, exported to stdout (`git-crypt export-key - | base64`).
    ("export-key", Need::Token, Requires::Nothing),
    // More generators and getters: Django's key maker in a one-liner, password managers'
    // generators and revealed fields, secret managers' plain values, a service's first
    // or reset password, a configuration getter asked for a secret's name.
    ("get_random_secret_key(", Need::Token, Requires::Nothing),
    ("keepassxc-cli generate", Need::Password, Requires::Nothing),
    (
        "keepassxc-cli show",
        Need::Password,
        Requires::Word(b"-a password"),
    ),
    ("bw generate", Need::Password, Requires::Nothing),
    ("lpass show", Need::Password, Requires::Word(b"--password")),
    ("item get ", Need::Password, Requires::Word(b"--reveal")),
    ("secrets get ", Need::Password, Requires::Word(b"--plain")),
    (
        "keyvault secret show",
        Need::Password,
        Requires::Word(b"tsv"),
    ),
    (
        "get-parameter ",
        Need::Password,
        Requires::Word(b"--with-decryption"),
    ),
    ("initial-password", Need::Password, Requires::Nothing),
    ("reset-password", Need::Password, Requires::Nothing),
    ("config get ", Need::Password, Requires::SecretName),
    ("diceware", Need::Password, Requires::Nothing),
    ("xkcdpass", Need::Password, Requires::Nothing),
    // A cluster's gossip encryption key (`nomad operator gossip keyring generate`).
    ("keyring generate", Need::Token, Requires::Nothing),
    // A whole environment printed (`env | grep -v PATH`, and `printenv | sort`, which
    // ends in it): each value long and random, whatever its name (`environ_field`).
    ("env |", Need::Strong, Requires::Nothing),
    // `klist -k -K` prints each key of a keytab after its principal, `(0x…)`.
    ("klist ", Need::Token, Requires::Word(b"-K")),
    // A cloud CLI asked for one field as text (`aws sts assume-role --query
    // Credentials.SecretAccessKey --output text`): its value when the field says secret.
    ("--output text", Need::Token, Requires::QueriedSecret),
];

/// Generators whose output is a passphrase of words and blanks (module doc).
const PHRASE_MAKERS: &[&str] = &["diceware", "xkcdpass"];

/// The label a generator puts before the value it made or reset (`New value: …`).
const OUTPUT_LABELS: &[&[u8]] = &[
    b"new value:",
    b"new password:",
    b"generated password:",
    b"new token:",
];

/// What a generator's command line must hold for its output to be the secret alone.
#[derive(Clone, Copy)]
pub(super) enum Requires {
    Nothing,
    /// A word (`-w`, `-field`, `base64`).
    Word(&'static [u8]),
    /// An argument that names a secret (`SESSION_SECRET`, `admin_password`).
    SecretName,
    /// A `--query` whose last field names a secret (`Credentials.SecretAccessKey`).
    QueriedSecret,
    /// A jq or yq filter, the first argument, whose last field names a secret
    /// (`.shared_secret`).
    FilteredSecret,
}

/// Calls that return random bytes or a random secret, in a REPL's expression.
const RANDOM_CALLS: &[&[u8]] = &[
    b"token_urlsafe(",
    b"token_hex(",
    b"token_bytes(",
    b"randombytes(",
    b"random_bytes(",
    b"urandom(",
    b"get_random_secret_key(",
    b"generate_key(",
    b"securerandom",
    b"randomuuid(",
];

/// The prompts that start the next command after a command's output (`$ `, `# `,
/// `❯ `).
const PROMPTS: [&str; 6] = ["$ ", "# ", "% ", "> ", "\u{276f} ", "\u{279c} "];

/// Output lines read after a generator's command (a table's frame and header rows
/// come before its values).
const GENERATED_LINES: usize = 10;

/// The lines the command at the generator anchor `s..e` printed, each a value of its
/// own (module doc). The command must stand where a command does, and the getters that
/// print more than the secret unless told not to need the flag that tells them.
pub(super) fn generated(b: &[u8], s: usize, e: usize, literal: &str, out: &mut Vec<Hit>) {
    let Some(&(_, need, needs)) = GENERATORS.iter().find(|g| g.0 == literal) else {
        return;
    };
    // Where a command stands: its first words, or anywhere in a command after a
    // prompt (`❯ kubectl -n argocd get secret …`: flags before the verb).
    let seg = super::command::segment_start(b, s);
    let prompted = seg > super::text::line_start(b, s) && seg <= s;
    if !prompted && !super::command::verb_in_command(b, s) {
        return;
    }
    let le = line_end(b, e, 1024);
    // `ssh-keygen` prints fingerprints and public keys; `wg pubkey` is not here.
    let from = s.saturating_sub(64);
    let word_start = b[from..s]
        .iter()
        .rposition(|c| c.is_ascii_whitespace())
        .map_or(from, |p| from + p + 1);
    if literal == "keygen" && contains_ci(&b[word_start..s], b"ssh") {
        return;
    }
    let holds = match needs {
        Requires::Nothing => true,
        Requires::Word(w) => contains_ci(&b[s..le], w),
        // The first argument that is not a flag is the name.
        Requires::SecretName => b[e..le]
            .split(|c| c.is_ascii_whitespace() || matches!(c, b'"' | b'\''))
            .find(|w| !w.is_empty() && !w.starts_with(b"-"))
            .is_some_and(|w| classify_key(w).is_some()),
        Requires::QueriedSecret | Requires::FilteredSecret => {
            let line = &b[super::text::line_start(b, s)..le];
            let filter = if matches!(needs, Requires::QueriedSecret) {
                find(line, b"--query ").map(|q| q + 8)
            } else {
                Some(e - super::text::line_start(b, s))
            };
            filter.is_some_and(|q| {
                line[q..]
                    .split(|c| c.is_ascii_whitespace())
                    .find(|w| !w.is_empty())
                    .and_then(|w| {
                        w.split(|&c| matches!(c, b'.' | b'[' | b']' | b'"' | b'\''))
                            .rfind(|p| !p.is_empty())
                    })
                    .is_some_and(|field| classify_key(field).is_some())
            })
        }
    };
    if !holds {
        if literal == "vault kv get " {
            vault_data(b, le, out);
        }
        return;
    }
    if literal.ends_with(" |") || literal == "klist " {
        lines_below(
            b,
            le,
            |ls, end, out| {
                if literal == "klist " {
                    klist_key(b, ls, end, out);
                } else {
                    environ_field(b, ls, end, out);
                }
            },
            out,
        );
        return;
    }
    values_below(b, le, need, PHRASE_MAKERS.contains(&literal), out);
}

/// Each line of a command's output below `le`, up to the next prompt ([`MAX_LINES`]).
fn lines_below(
    b: &[u8],
    le: usize,
    mut each: impl FnMut(usize, usize, &mut Vec<Hit>),
    out: &mut Vec<Hit>,
) {
    let mut ls = le + 1;
    for _ in 0..MAX_LINES {
        if ls >= b.len() {
            return;
        }
        let end = line_end(b, ls, MAX_LINE);
        if prompt(&b[ls..end]) {
            return;
        }
        each(ls, end, out);
        ls = end + 1;
    }
}

/// `   3 host/db@EXAMPLE.COM (aes256-cts-hmac-sha1-96)  (0x<hex>)`: a keytab's key as
/// `klist -K` prints it.
fn klist_key(b: &[u8], ls: usize, le: usize, out: &mut Vec<Hit>) {
    let Some(p) = find(&b[ls..le], b"(0x") else {
        return;
    };
    let vs = ls + p + 3;
    let ve = run(&b[..le], vs, |c| c.is_ascii_hexdigit());
    if ve - vs >= 32 && at(b, ve) == Some(b')') {
        out.push(("kerberos-key", vs, ve));
    }
}

/// `vault kv get`'s table without `-field`: under its `=== Data ===` banner, each row
/// is a key and its value. A value is a secret's when its key says so or it is
/// machine-made (a key named `value` holds whatever the secret is).
fn vault_data(b: &[u8], le: usize, out: &mut Vec<Hit>) {
    let mut ls = le + 1;
    let mut data = false;
    for _ in 0..40 {
        if ls >= b.len() {
            return;
        }
        let end = line_end(b, ls, MAX_LINE);
        let line = &b[ls..end];
        let t = line.trim_ascii();
        if t.starts_with(b"=") {
            data = find(t, b" Data ").is_some();
        } else if prompt(line) || t.is_empty() && data {
            return;
        } else if data && !t.starts_with(b"---") && t != b"Key         Value" {
            let ks = ls + (line.len() - line.trim_ascii_start().len());
            let ke = run(b, ks, |c| !c.is_ascii_whitespace());
            let vs = skip_blanks(b, ke);
            let ve = vs + b[vs..end].trim_ascii_end().len();
            let (k, v) = (&b[ks..ke], &b[vs..ve]);
            let named = classify_key(k).is_some() || k == b"value";
            if ve > vs
                && !v.contains(&b' ')
                && (named && plausible(v, Need::Password) || plausible(v, Need::Strong))
            {
                out.push(("secret", vs, ve));
            }
        }
        ls = end + 1;
    }
}

/// Each line below `le` (until a prompt, at most [`GENERATED_LINES`]) that is one value
/// and a secret's: quoted or bare, no blank inside.
fn values_below(b: &[u8], le: usize, need: Need, phrase: bool, out: &mut Vec<Hit>) {
    let mut ls = le + 1;
    for _ in 0..GENERATED_LINES {
        if ls >= b.len() {
            return;
        }
        let le = line_end(b, ls, MAX_LINE);
        let line = &b[ls..le];
        // A value printed without a newline, the next prompt glued to it
        // (`zO7S…$ `): the value, then the output ends.
        if let Some(v) = PROMPTS
            .iter()
            .find_map(|p| line.strip_suffix(p.as_bytes()))
            .filter(|v| v.len() >= 8 && !v.iter().any(u8::is_ascii_whitespace))
            && plausible(v, need)
        {
            out.push(("secret", ls, ls + v.len()));
            return;
        }
        // The next command's prompt (`$ `, `# `, `❯ `, `>>> `) ends the output; a value
        // has no blank in it, so no value is mistaken for one.
        let next_command = PROMPTS
            .iter()
            .any(|p| super::text::find(line, p.as_bytes()).is_some());
        if prompt(line) || next_command {
            return;
        }
        if let Some(hit) = table_value(b, ls, le) {
            out.push(hit);
            ls = le + 1;
            continue;
        }
        let mut vs = ls + (line.len() - line.trim_ascii_start().len());
        let mut ve = vs + line.trim_ascii().len();
        if phrase && generated_phrase(&b[vs..ve]) {
            out.push(("secret", vs, ve));
            return;
        }
        if let Some(label) = OUTPUT_LABELS
            .iter()
            .find(|l| b[vs..ve].len() > l.len() && b[vs..vs + l.len()].eq_ignore_ascii_case(l))
        {
            vs = super::text::skip_blanks(b, vs + label.len()).min(ve);
        }
        (vs, ve) = unquoted(b, vs, ve);
        let v = &b[vs..ve];
        let shaped = match need {
            Need::Password => !is_path_like(v) && !is_email(v) && !is_version(v),
            _ => secret_field(v) || plausible(v, Need::Strong),
        };
        if v.len() >= 8 && !v.iter().any(u8::is_ascii_whitespace) && plausible(v, need) && shaped {
            out.push(("secret", vs, ve));
        }
        ls = le + 1;
    }
}

/// `reed comet lantern lemon garnet`: four to twelve words of letters, one blank or
/// dash between them, as a passphrase generator prints them.
fn generated_phrase(v: &[u8]) -> bool {
    let Some(&sep) = v.iter().find(|&&c| c == b' ' || c == b'-') else {
        return false;
    };
    let words = v.split(|&c| c == sep);
    let n = words.clone().count();
    (4..=12).contains(&n)
        && words
            .into_iter()
            .all(|w| (2..=12).contains(&w.len()) && w.iter().all(u8::is_ascii_alphanumeric))
}

/// The value of a table row `| token | sdk-… |` (two cells between pipes) whose first
/// cell names a secret, as a CLI prints a credential it made.
fn table_value(b: &[u8], ls: usize, le: usize) -> Option<Hit> {
    let line = &b[ls..le];
    let cells: Vec<(usize, usize)> = {
        let mut out = Vec::new();
        let mut start = 0;
        for (i, &c) in line.iter().enumerate() {
            if c == b'|' {
                out.push((start, i));
                start = i + 1;
            }
        }
        out.push((start, line.len()));
        out.into_iter()
            .map(|(s, e)| {
                let cell = &line[s..e];
                let lead = cell.len() - cell.trim_ascii_start().len();
                (s + lead, s + lead + cell.trim_ascii().len())
            })
            .filter(|(s, e)| e > s)
            .collect()
    };
    let [(ks, ke), (vs, ve)] = cells[..] else {
        return None;
    };
    classify_key(&line[ks..ke])?;
    let v = &line[vs..ve];
    (v.len() >= 8
        && !v.iter().any(u8::is_ascii_whitespace)
        && plausible(v, Need::Token)
        && !is_placeholder(v))
    .then_some(("secret", ls + vs, ls + ve))
}

/// The value printed on the line after `echo $NAME`, `printenv NAME` or a REPL's
/// `> var.name`, when the name says secret; `s..e` is the printer's anchor.
pub(super) fn printed(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    // A command word: after a blank, a prompt's `$`, or the quote of `sh -c 'echo $X'`.
    let ipython = b[s] == b']' && b[super::text::line_start(b, s)..s].starts_with(b"In [");
    if b[s] != b'\n'
        && s > 0
        && !ipython
        && !matches!(b[s - 1], b' ' | b'\t' | b'\n' | b'$' | b'\'' | b'"')
    {
        return None;
    }
    let le = line_end(b, e, 256);
    let mut expr = b[e..le].trim_ascii();
    let debugger = b[s] == b'(' || b[s..e].ends_with(b"> ") && b[s] != b'\n';
    if debugger && let Some(cmd) = DEBUGGER_PRINT.iter().find(|c| expr.starts_with(c)) {
        expr = expr[cmd.len()..].trim_ascii_start();
    }
    // One expression: a name, a path of names (`cfg->pw` too), an index (`ENV['X']`),
    // `${X}`, a getter called with the name (`localStorage.getItem("id_token")`).
    let simple = !expr.is_empty()
        && expr.iter().all(|&c| {
            c.is_ascii_alphanumeric()
                || matches!(
                    c,
                    b'_' | b'.'
                        | b'['
                        | b']'
                        | b'\''
                        | b'"'
                        | b'{'
                        | b'}'
                        | b'$'
                        | b'('
                        | b')'
                        | b'-'
                        | b'>'
                        | b'*'
                        | b'&'
                )
        });
    if !simple {
        return None;
    }
    if RANDOM_CALLS.iter().any(|c| contains_ci(expr, c)) {
        let mut hits = Vec::new();
        values_below(b, le, Need::Token, false, &mut hits);
        return hits.into_iter().next();
    }
    let name = expr
        .split(|&c| {
            matches!(
                c,
                b'.' | b'['
                    | b']'
                    | b'\''
                    | b'"'
                    | b'{'
                    | b'}'
                    | b'$'
                    | b'('
                    | b')'
                    | b'-'
                    | b'>'
                    | b'*'
                    | b'&'
            )
        })
        .rfind(|p| !p.is_empty())?;
    classify_key(name)?;
    let vs0 = le + 1;
    if vs0 >= b.len() {
        return None;
    }
    let ve0 = line_end(b, vs0, 1024);
    // Blanks may run past a line cut at its bound.
    let mut vs = skip_blanks(b, vs0).min(ve0);
    let ve = vs + b[vs..ve0].trim_ascii_end().len();
    // irb's `=> `, a browser console's `< ` before the answer.
    if b[vs..ve].starts_with(b"=> ") {
        vs += 3;
    } else if b[vs..ve].starts_with(b"< ") {
        vs += 2;
    }
    if debugger {
        vs = debugger_value(b, vs, ve);
    }
    let (vs, ve) = unquoted(b, vs, ve);
    let v = &b[vs..ve];
    if v.len() < 6 || v.iter().any(u8::is_ascii_whitespace) || !plausible(v, Need::Password) {
        return None;
    }
    Some(("password", vs, ve))
}

/// Where a debugger's printed value starts: past gdb's `$1 = ` or lldb's `(std::string)
/// $0 = `, and past the address gdb prints before a `char *`'s string (`0x55… "…"`).
fn debugger_value(b: &[u8], vs: usize, ve: usize) -> usize {
    let line = &b[vs..ve];
    let mut v = match find(line, b" = ") {
        Some(eq) if line[..eq].contains(&b'$') => vs + eq + 3,
        _ => vs,
    };
    if b[v..ve].starts_with(b"0x") {
        let addr = run(&b[..ve], v + 2, |c| c.is_ascii_hexdigit());
        if at(b, addr) == Some(b' ') && at(b, addr + 1) == Some(b'"') {
            v = addr + 1;
        }
    }
    v
}

/// The inside of a value a REPL printed as a literal (`"…"`, `'…'`, bytes' `b'…'`).
fn unquoted(b: &[u8], vs: usize, ve: usize) -> (usize, usize) {
    let vs = vs + usize::from(ve >= vs + 3 && b[vs] == b'b' && b[vs + 1] == b[ve - 1]);
    if ve >= vs + 2 && b[vs] == b[ve - 1] && matches!(b[vs], b'"' | b'\'') {
        (vs + 1, ve - 1)
    } else {
        (vs, ve)
    }
}

/// Lines of output read at most, and bytes per line.
const MAX_LINES: usize = 64;
const MAX_LINE: usize = 4096;

/// Words of a path that say the file holds secrets.
const SECRET_WORDS: &[&[u8]] = &[
    b"secret",
    b"passw",
    b"token",
    b"credential",
    b"private",
    b"keylog",
    b"keys.log",
    b"keystore",
    b"pgpass",
    b"netrc",
    b"cookie",
    // PAM's TOTP seed file: its first line is the seed.
    b"google_authenticator",
    b"keytab",
    b"keyfile",
    // A directory of keys (`/etc/zfs/keys/`, `/etc/wireguard/keys/`).
    b"/keys/",
    // A process's environment (`/proc/1/environ`), where its secrets are handed over.
    b"/environ",
];

/// The fields of the output of the reader at `s..e`, when it reads a secret's file.
pub(super) fn scan(b: &[u8], s: usize, out: &mut Vec<Hit>) {
    // A command word: at a line's start, after a prompt, a blank or `sudo`.
    if s > 0 && !matches!(b[s - 1], b' ' | b'\t' | b'\n' | b'$' | b'>' | b'|' | b'(') {
        return;
    }
    // `X="$(cat /run/secrets/x)"`: a command substitution's output goes into the
    // variable, not to the terminal; the lines after it are the script's own.
    if s >= 2 && &b[s - 2..s] == b"$(" {
        return;
    }
    let le = line_end(b, s, 1024);
    let decrypting = DECRYPTERS
        .iter()
        .any(|d| b[s..le].len() >= d.len() && b[s..s + d.len()].eq_ignore_ascii_case(d));
    let secret_arg = b[s..le]
        .split(|c| c.is_ascii_whitespace() || matches!(c, b'"' | b'\''))
        .skip(1)
        .any(|w| !w.starts_with(b"-") && secret_file(if decrypting { plain_name(w) } else { w }));
    if !secret_arg || le >= b.len() {
        return;
    }
    let environ = find(&b[s..le], b"/environ").is_some();
    // A dumper prints the file's bytes in hex: each line of them is the key's.
    let dumper = [b"xxd ".as_slice(), b"od ", b"hexdump "]
        .iter()
        .any(|d| b[s..le].len() >= d.len() && b[s..s + d.len()].eq_ignore_ascii_case(d));
    lines_below(
        b,
        le,
        |ls, le, out| {
            let line = &b[ls..le];
            if dumper && let Some((hs, he)) = hex_bytes(line) {
                out.push(("private-key", ls + hs, ls + he));
            } else if environ {
                environ_field(b, ls, le, out);
            } else if !line.trim_ascii_start().starts_with(b"#") {
                fields(b, ls, le, out);
            }
        },
        out,
    );
}

/// A line of a process's environment, `NAME=value`: whatever the name, a value that
/// is long and random (a key handed over as `K=…`); names that say secret are the
/// assignments' business. Container ids, commit ids and words stay.
fn environ_field(b: &[u8], ls: usize, le: usize, out: &mut Vec<Hit>) {
    let Some(eq) = b[ls..le].iter().position(|&c| c == b'=') else {
        return;
    };
    let (vs, ve) = (ls + eq + 1, le);
    let v = &b[vs..ve];
    let alnum: Vec<u8> = v
        .iter()
        .copied()
        .filter(u8::is_ascii_alphanumeric)
        .collect();
    if v.len() >= 24
        && v.iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'+' | b'/' | b'='))
        && !v.iter().all(u8::is_ascii_hexdigit)
        && super::text::random_alnum(&alnum, 24)
        && plausible(v, Need::Strong)
    {
        out.push(("secret", vs, ve));
    }
}

/// The hex a dump line shows, past its offset (`00000010: `, `0000020 `): groups of hex
/// digits, 16 bytes or more in all (`xxd -p`'s 60 digits, `od -tx1`'s spaced bytes).
/// `xxd`'s character column after two blanks is not part of it.
fn hex_bytes(line: &[u8]) -> Option<(usize, usize)> {
    let mut i = line.len() - line.trim_ascii_start().len();
    let first = run(line, i, |c| !c.is_ascii_whitespace());
    let word = &line[i..first];
    // An offset: digits ending in `:`, or a first group of 7+ octal/hex digits.
    if word.ends_with(b":") || word.len() >= 7 && first < line.len() && word.len() != 60 {
        i = skip_blanks(line, first);
    }
    let mut end = i;
    let mut digits = 0;
    let mut k = i;
    while k < line.len() {
        let g = run(line, k, |c| c.is_ascii_hexdigit());
        if g == k || g < line.len() && !line[g].is_ascii_whitespace() {
            break;
        }
        digits += g - k;
        end = g;
        // Two blanks end the groups where a character column follows.
        if line[g..].starts_with(b"  ") && word.ends_with(b":") {
            break;
        }
        k = skip_blanks(line, g);
    }
    (digits >= 32).then_some((i, end))
}

/// BIND's `Kexample.com.+013+12345.key`: a zone key's DNSKEY record, public; its
/// secret half is the `.private` file next to it.
fn bind_public_key(name: &[u8]) -> bool {
    let Some(stem) = name.strip_suffix(b".key") else {
        return false;
    };
    let mut parts = stem.rsplit(|&c| c == b'+');
    let id = parts.next().unwrap_or_default();
    let algorithm = parts.next().unwrap_or_default();
    name.starts_with(b"K")
        && parts.next().is_some()
        && (1..=5).contains(&id.len())
        && id.iter().all(u8::is_ascii_digit)
        && algorithm.len() == 3
        && algorithm.iter().all(u8::is_ascii_digit)
}

/// A path whose words say "secret", unless its name says public.
fn secret_file(path: &[u8]) -> bool {
    let name = path
        .rsplit(|&c| c == b'/' || c == b'\\')
        .next()
        .unwrap_or(path);
    let public = [
        b".pub".as_slice(),
        b".crt",
        b".cer",
        b".csr",
        b"public",
        b"known_hosts",
        b"authorized_keys",
    ]
    .iter()
    .any(|w| contains_ci(name, w))
        || name.eq_ignore_ascii_case(b"passwd")
        // Encrypted at rest (`credentials.yml.enc`, `secrets.env.gpg`, a KeePass
        // database): ciphertext, whose key is elsewhere.
        || [b".enc".as_slice(), b".gpg", b".age", b".asc", b".sops", b".kdbx"]
            .iter()
            .any(|x| name.len() > x.len() && name[name.len() - x.len()..].eq_ignore_ascii_case(x))
        // `auth.log` is sshd's log of logins, not a file of credentials.
        || contains_ci(name, b".log") && !contains_ci(name, b"key")
        || bind_public_key(name);
    let stem = name.split(|&c| c == b'.').next().unwrap_or(name);
    let named = SECRET_WORDS.iter().any(|w| contains_ci(path, w))
        || name.len() > 4 && name[name.len() - 4..].eq_ignore_ascii_case(b".key")
        // A pre-shared key (`agent.psk`), a signify or minisign secret key (`x.sec`).
        || [b".psk".as_slice(), b".sec"]
            .iter()
            .any(|x| name.len() > 4 && name[name.len() - 4..].eq_ignore_ascii_case(x))
        // Key stores and key files by their suffix: PKCS #12, Java's and Bouncy
        // Castle's stores, PuTTY's keys.
        || [b".p12".as_slice(), b".pfx", b".jks", b".bks", b".jceks", b".ppk"]
            .iter()
            .any(|x| name.len() > x.len() && name[name.len() - x.len()..].eq_ignore_ascii_case(x))
        || stem.eq_ignore_ascii_case(b"auth")
        || stem.eq_ignore_ascii_case(b"creds")
        // `.vault_pass.txt`, `db-pw`, `admin.pwd`: a word of the name says password.
        || name
            .split(|&c| matches!(c, b'.' | b'_' | b'-'))
            .any(|w| [b"pass".as_slice(), b"pw", b"pwd"].iter().any(|p| w.eq_ignore_ascii_case(p)));
    named && !public
}

/// strace's `openat(AT_FDCWD, "/run/secrets/db_password", O_RDONLY) = 3`: when the
/// path says secret, what the next lines `read(3, "…", n)` from that descriptor is its
/// content. `e` is after `openat(` or `open("`.
pub(super) fn strace_read(b: &[u8], e: usize) -> Option<Hit> {
    let le = line_end(b, e, 1024);
    let q = e + b[e..le].iter().position(|&c| c == b'"')?;
    let path_end = q + 1 + b[q + 1..le].iter().position(|&c| c == b'"')?;
    if !secret_file(&b[q + 1..path_end]) {
        return None;
    }
    let eq = find(&b[path_end..le], b") = ")? + path_end + 4;
    let fd = &b[eq..run(&b[..le], eq, |c| c.is_ascii_digit())];
    if fd.is_empty() {
        return None;
    }
    let head = [b"read(".as_slice(), fd, b", \""].concat();
    let mut ls = le + 1;
    for _ in 0..8 {
        if ls >= b.len() {
            return None;
        }
        let lend = line_end(b, ls, MAX_LINE);
        if let Some(p) = find(&b[ls..lend], &head) {
            let vs = ls + p + head.len();
            let ve = vs + b[vs..lend].iter().position(|&c| c == b'"')?;
            let ve = if b[vs..ve].ends_with(b"\\n") {
                ve - 2
            } else {
                ve
            };
            let v = &b[vs..ve];
            return (v.len() >= 6 && plausible(v, Need::Password) && !is_placeholder(v))
                .then_some(("password", vs, ve));
        }
        ls = lend + 1;
    }
    None
}

/// The name a decrypted file had before it was encrypted (`creds.txt.gpg` → `creds.txt`).
fn plain_name(path: &[u8]) -> &[u8] {
    [
        b".gpg".as_slice(),
        b".asc",
        b".age",
        b".enc",
        b".sops",
        b".vault",
    ]
    .iter()
    .find_map(|x| {
        (path.len() > x.len() && path[path.len() - x.len()..].eq_ignore_ascii_case(x))
            .then(|| &path[..path.len() - x.len()])
    })
    .unwrap_or(path)
}

/// The next command's line: the reader's output ends there.
fn prompt(line: &[u8]) -> bool {
    [b"$ ".as_slice(), b"> ", b"+ ", b"PS ", b"C:\\"]
        .iter()
        .any(|p| line.starts_with(p))
}

/// Each field of `b[ls..le]` (split at blanks, quotes, `=` and `:`) that is a secret.
fn fields(b: &[u8], ls: usize, le: usize, out: &mut Vec<Hit>) {
    let mut i = ls;
    while i < le {
        let sep = |c: u8| {
            c.is_ascii_whitespace()
                || matches!(
                    c,
                    b'"' | b'\'' | b'=' | b':' | b',' | b'{' | b'}' | b'[' | b']'
                )
        };
        if sep(b[i]) && !(b[i] == b',' && i + 1 < le && !sep(b[i + 1])) {
            i += 1;
            continue;
        }
        let start = i;
        // A `,` inside a field is the password's (`WXIJr?b,jdM98X`).
        while i < le && !(sep(b[i]) && !(b[i] == b',' && i + 1 < le && !sep(b[i + 1]))) {
            i += 1;
        }
        if secret_field(&b[start..i]) {
            out.push(("secret", start, i));
        }
    }
}

/// `"app" "2fHAda1cosVfZXX…"` alone on a line (pgbouncer's `userlist.txt`, and any
/// two-column list of a quoted name and its quoted secret), or after an IMAP client's
/// `a001 LOGIN ` in a protocol trace; `s` is the `" "` between.
pub(super) fn quoted_pair(b: &[u8], s: usize) -> Option<Hit> {
    let mut ls = super::text::line_body(b, super::text::line_start(b, s));
    let le = line_end(b, s, 1024);
    // IMAP's tagged command: `a001 LOGIN "user" "password"`.
    let tag = run(&b[..le], ls, |c| c.is_ascii_alphanumeric());
    if tag > ls && b[tag..le].len() > 7 && b[tag..tag + 7].eq_ignore_ascii_case(b" LOGIN ") {
        ls = tag + 7;
    }
    let line = &b[ls..le];
    let lead = line.len() - line.trim_ascii_start().len();
    let line = line.trim_ascii();
    let [b'"', rest @ ..] = line else {
        return None;
    };
    let name_end = rest.iter().position(|&c| c == b'"')?;
    let name = &rest[..name_end];
    let tail = rest.get(name_end + 1..)?;
    let gap = tail
        .iter()
        .take_while(|&&c| c == b' ' || c == b'\t')
        .count();
    let [b'"', value @ .., b'"'] = &tail[gap..] else {
        return None;
    };
    let plain_name = !name.is_empty()
        && name
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'@'));
    if !plain_name || value.contains(&b'"') || !secret_field(value) {
        return None;
    }
    let vs = ls + lead + 1 + name_end + 1 + gap + 1;
    Some(("password", vs, vs + value.len()))
}

/// A password or a machine-made token, not a name, an address, a path or a number.
fn secret_field(v: &[u8]) -> bool {
    v.len() >= 8
        && has_alpha(v)
        && (has_digit(v) || v.iter().any(|c| b"!@#$%^&*?~+/".contains(c)) || random_letters(v))
        && !is_email(v)
        && !is_path_like(v)
        && !is_numeric_shape(v)
        && !is_version(v)
        && !is_placeholder(v)
        && !is_dotted_identifier(v)
        && (!looks_like_word_list(v) || is_passphrase(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_secret_by_their_name() {
        for p in [
            "/etc/rsyncd.secrets",
            "/etc/ppp/chap-secrets",
            "config/master.key",
            "privatekey",
            "~/.pgpass",
            "/etc/openvpn/client/auth.txt",
            "$SSLKEYLOGFILE",
            "~/.bce/credentials",
            "/run/secrets/db_password",
        ] {
            assert!(secret_file(p.as_bytes()), "{p}");
        }
        for p in [
            "~/.ssh/id_ed25519.pub",
            "~/.ssh/authorized_keys",
            "/etc/passwd",
            "server.crt",
            "/var/log/auth.log.1",
            "notes.txt",
        ] {
            assert!(!secret_file(p.as_bytes()), "{p}");
        }
    }

    #[test]
    fn fields_are_secrets_when_they_look_like_passwords_or_tokens() {
        for v in [
            "Pepper2349@Maple",
            "b35d5d3d0f10cca49394a6704a2553d5",
            "Fjord.Sierra.Orbit.54",
        ] {
            assert!(secret_field(v.as_bytes()), "{v}");
        }
        for v in [
            "monitor",
            "oskar@tyrell.example.com",
            "10.195.51.25",
            "aes-128-ctr",
            "CLIENT_RANDOM",
        ] {
            assert!(!secret_field(v.as_bytes()), "{v}");
        }
    }
}
