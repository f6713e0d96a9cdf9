//! Shell command lines as agents run them: chain splitting, the program and
//! subcommand, normal forms, error signatures, ignore globs and prompt corrections.
//!
//! Pure string functions, no regex, no allocation where a slice will do; they
//! are heuristics for bash-like lines, not a shell parser.

/// Ignore patterns used when the configuration names none: test runners fail
/// by design, and a red test is not a mistaken command.
pub const DEFAULT_IGNORE: &[&str] = &[
    "cargo test*",
    "npm test*",
    "yarn test*",
    "pytest*",
    "go test*",
];

/// The operator that joins a chain part to the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChainOp {
    /// `&&`: runs only if the previous part succeeded.
    And,
    /// `||`: runs only if the previous part failed.
    Or,
    /// `;`, a newline or a background `&`: runs regardless.
    Seq,
}

impl ChainOp {
    fn as_str(self) -> &'static str {
        match self {
            ChainOp::And => "&&",
            ChainOp::Or => "||",
            ChainOp::Seq => ";",
        }
    }
}

/// One command of a chain, trimmed, with the operator that precedes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChainPart<'a> {
    pub op: Option<ChainOp>,
    pub text: &'a str,
}

/// Split a command line at `&&`, `||`, `;`, newlines and background `&`,
/// outside quotes, backslash escapes, `$(…)`, backticks and `(…)` subshells.
/// Pipes stay inside a part (a pipeline is one command); `2>&1`, `&>` and `|&`
/// are not separators. Empty parts are dropped.
pub fn split_chain(cmd: &str) -> Vec<ChainPart<'_>> {
    let b = cmd.as_bytes();
    let mut parts = Vec::new();
    let mut start = 0;
    let mut pending: Option<ChainOp> = None;
    let mut depth = 0usize;
    let mut in_single = false;
    let mut in_double = false;
    let mut in_backtick = false;
    let mut i = 0;
    let mut push = |from: usize, to: usize, op: &mut Option<ChainOp>, next: Option<ChainOp>| {
        let text = cmd.get(from..to).unwrap_or("").trim();
        if !text.is_empty() {
            parts.push(ChainPart {
                op: if parts.is_empty() { None } else { *op },
                text,
            });
            *op = next;
        } else if op.is_none() || next == Some(ChainOp::Seq) {
            // `a;; b` or a leading separator: keep the stronger operator seen.
            if op.is_none() {
                *op = next;
            }
        } else {
            *op = next;
        }
    };
    while i < b.len() {
        let c = b[i];
        if in_single {
            if c == b'\'' {
                in_single = false;
            }
            i += 1;
            continue;
        }
        if c == b'\\' {
            i += 2;
            continue;
        }
        if in_double {
            match c {
                b'"' => in_double = false,
                b'$' if b.get(i + 1) == Some(&b'(') => {
                    // `"$(…)"`: skip the substitution as a unit.
                    i = skip_parens(b, i + 1);
                    continue;
                }
                _ => {}
            }
            i += 1;
            continue;
        }
        if in_backtick {
            if c == b'`' {
                in_backtick = false;
            }
            i += 1;
            continue;
        }
        match c {
            b'\'' => in_single = true,
            b'"' => in_double = true,
            b'`' => in_backtick = true,
            b'(' => depth += 1,
            b')' => depth = depth.saturating_sub(1),
            b'#' if depth == 0
                && (i == 0
                    || b[i - 1].is_ascii_whitespace()
                    || matches!(b[i - 1], b';' | b'&' | b'|')) =>
            {
                // Comment to end of line: the part ends where it starts.
                let comment = i;
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                push(start, comment, &mut pending, Some(ChainOp::Seq));
                start = i;
                continue;
            }
            _ if depth > 0 => {}
            b'&' if b.get(i + 1) == Some(&b'&') => {
                push(start, i, &mut pending, Some(ChainOp::And));
                i += 2;
                start = i;
                continue;
            }
            b'|' if b.get(i + 1) == Some(&b'|') => {
                push(start, i, &mut pending, Some(ChainOp::Or));
                i += 2;
                start = i;
                continue;
            }
            b'&' => {
                let redirect = b.get(i + 1) == Some(&b'>')
                    || (i > start && matches!(b[i - 1], b'>' | b'<' | b'|'));
                if !redirect {
                    push(start, i, &mut pending, Some(ChainOp::Seq));
                    start = i + 1;
                }
            }
            b';' | b'\n' => {
                push(start, i, &mut pending, Some(ChainOp::Seq));
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    push(start, b.len().max(start), &mut pending, None);
    parts
}

/// Index just past the `)` matching the `(` at `open` (or the end of input).
fn skip_parens(b: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    let mut i = open;
    let mut in_single = false;
    let mut in_double = false;
    while i < b.len() {
        let c = b[i];
        if in_single {
            in_single = c != b'\'';
        } else if c == b'\\' {
            i += 1;
        } else if in_double {
            in_double = c != b'"';
        } else {
            match c {
                b'\'' => in_single = true,
                b'"' => in_double = true,
                b'(' => depth += 1,
                b')' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return i + 1;
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    b.len()
}

/// Programs that change nothing worth learning about and almost never fail
/// in a chain (`cd dir && cargo build`): skipped when picking the part that
/// matters.
const TRIVIAL: &[&str] = &[
    "cd", "pushd", "popd", "export", "set", "source", ".", "true", ":", "echo", "printf", "sleep",
    "unset", "shopt",
];

fn is_trivial(part: &str) -> bool {
    let words = words(part);
    let mut it = words.iter().map(|w| w.as_str());
    let first = it.find(|w| !is_assignment(w));
    first.is_none_or(|w| TRIVIAL.contains(&w))
}

/// Which part of a failed chain most likely failed.
///
/// The rule: the exit status of a list is that of the last command executed,
/// and in `a && b` a failing `a` stops the chain, so either part could be the
/// one. Evidence first: with exit 127 the part whose program the output names
/// as `not found`; otherwise the last part whose program name starts an
/// output line (`git: 'pussh' is not a git command`, `cd: no such file…`).
/// Without evidence, the last non-trivial part (`cd x && cargo build` →
/// `cargo build`): the last part that could have run, assuming the earlier
/// ones did what they usually do. `a; b` and `a || b` follow the same rule:
/// their status is the last part's.
pub fn failing_subcommand<'a>(
    cmd: &'a str,
    exit_code: Option<i32>,
    output: &str,
) -> Option<&'a str> {
    let parts = split_chain(cmd);
    if parts.len() <= 1 {
        return parts.first().map(|p| p.text);
    }
    let programs: Vec<Option<String>> = parts
        .iter()
        .map(|p| program_key_single(p.text).map(|(prog, _)| prog))
        .collect();
    if exit_code == Some(127) {
        for (part, prog) in parts.iter().zip(&programs).rev() {
            if let Some(prog) = prog
                && output
                    .lines()
                    .any(|l| l.contains(prog.as_str()) && l.contains("not found"))
            {
                return Some(part.text);
            }
        }
    }
    let first_words: Vec<&str> = output
        .lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let end = l.find([':', ' ']).unwrap_or(l.len());
            let w = &l[..end];
            let w = w.rsplit('/').next().unwrap_or(w);
            (!w.is_empty()).then_some(w)
        })
        .take(200)
        .collect();
    for (part, prog) in parts.iter().zip(&programs).rev() {
        if let Some(prog) = prog
            && !TRIVIAL.contains(&prog.as_str())
            && first_words.contains(&prog.as_str())
        {
            return Some(part.text);
        }
    }
    // `cd: no such file` style evidence for a trivial part.
    for (part, prog) in parts.iter().zip(&programs).rev() {
        if let Some(prog) = prog
            && TRIVIAL.contains(&prog.as_str())
            && output.lines().any(|l| {
                let l = l.trim_start();
                l.starts_with(&format!("{prog}:"))
                    || l.contains(&format!(": {prog}: "))
                    || l.contains(&format!(": line 1: {prog}:"))
            })
        {
            return Some(part.text);
        }
    }
    parts
        .iter()
        .rev()
        .find(|p| !is_trivial(p.text))
        .or(parts.last())
        .map(|p| p.text)
}

/// Split one simple command into words, removing quotes and backslashes.
fn words(cmd: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut has = false;
    let mut chars = cmd.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                has = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    cur.push(c);
                }
            }
            '"' => {
                has = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => {
                            if let Some(n) = chars.next() {
                                cur.push(n);
                            }
                        }
                        _ => cur.push(c),
                    }
                }
            }
            '\\' => {
                has = true;
                if let Some(n) = chars.next()
                    && n != '\n'
                {
                    cur.push(n);
                }
            }
            c if c.is_whitespace() => {
                if has {
                    out.push(std::mem::take(&mut cur));
                    has = false;
                }
            }
            c => {
                has = true;
                cur.push(c);
            }
        }
    }
    if has {
        out.push(cur);
    }
    out
}

fn is_assignment(word: &str) -> bool {
    let Some((name, _)) = word.split_once('=') else {
        return false;
    };
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Programs whose first non-option word is a subcommand worth keeping.
const HAS_SUBCOMMANDS: &[&str] = &[
    "git",
    "cargo",
    "npm",
    "yarn",
    "pnpm",
    "bun",
    "deno",
    "docker",
    "podman",
    "kubectl",
    "helm",
    "go",
    "gh",
    "tea",
    "pip",
    "pip3",
    "uv",
    "poetry",
    "pipenv",
    "conda",
    "terraform",
    "tofu",
    "systemctl",
    "journalctl",
    "apt",
    "apt-get",
    "dnf",
    "yum",
    "brew",
    "make",
    "just",
    "rustup",
    "dotnet",
    "gradle",
    "mvn",
    "composer",
    "bundle",
    "rails",
    "mix",
    "stack",
    "cabal",
    "aws",
    "gcloud",
    "az",
    "nix",
    "jj",
    "hg",
    "svn",
    "zig",
    "swift",
    "flutter",
    "dart",
    "sqlx",
    "diesel",
    "wrangler",
    "vercel",
    "fly",
    "flyctl",
    "heroku",
    "ansible-galaxy",
    "openssl",
    "rails",
    "rake",
    "terraphim-agent",
    "learnsync",
    "codex",
    "claude",
    "opencode",
    "task",
    "turbo",
    "nx",
    "lerna",
    "bazel",
    "buck2",
    "meson",
    "ninja",
    "kind",
    "minikube",
    "k3d",
    "vagrant",
    "ollama",
];

/// Options that take a separate value, per program (`git -C dir`).
fn option_takes_value(program: &str, opt: &str) -> bool {
    match program {
        "git" => matches!(
            opt,
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--exec-path"
        ),
        "cargo" => matches!(opt, "-Z" | "--color" | "--config" | "-C"),
        "docker" | "podman" => matches!(
            opt,
            "-H" | "--host" | "--context" | "-c" | "--config" | "--log-level" | "-l"
        ),
        "kubectl" | "helm" => matches!(
            opt,
            "-n" | "--namespace" | "--context" | "--kubeconfig" | "-s" | "--server" | "--cluster"
        ),
        "npm" | "pnpm" | "yarn" => matches!(
            opt,
            "--prefix" | "-C" | "--dir" | "--filter" | "-w" | "--workspace"
        ),
        "make" => matches!(opt, "-C" | "-f" | "--file" | "-j" | "--directory"),
        "gh" | "tea" => matches!(opt, "-R" | "--repo"),
        "terraform" | "tofu" => opt == "-chdir",
        "go" => opt == "-C",
        "uv" | "poetry" => matches!(opt, "--directory" | "--project" | "-C"),
        _ => false,
    }
}

fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Program and subcommand of a command, for grouping learnings:
/// `git -C dir push -f` → `("git", Some("push"))`, `FOO=1 sudo -E make build`
/// → `("make", Some("build"))`, `npx prettier --check .` → `("prettier",
/// None)`, `python -m pytest` → `("pytest", None)`. For a chain, the part
/// [`failing_subcommand`] would pick without output evidence (the last
/// non-trivial one).
pub fn program_key(cmd: &str) -> Option<(String, Option<String>)> {
    let part = failing_subcommand(cmd, None, "")?;
    program_key_single(part)
}

fn program_key_single(cmd: &str) -> Option<(String, Option<String>)> {
    let words = words(cmd);
    let mut i = 0;
    // Leading wrappers, env assignments and their options.
    loop {
        let w = words.get(i)?.as_str();
        if is_assignment(w) {
            i += 1;
            continue;
        }
        let prog = basename(w);
        let (skip_opts_with_value, positional_args): (&[&str], usize) = match prog {
            "sudo" | "doas" => (&["-u", "-g", "-C", "-D", "-h", "-p", "-U", "-r", "-t"], 0),
            "env" => (&["-u", "-C", "-S", "--unset", "--chdir"], 0),
            "time" | "nohup" | "exec" | "command" | "builtin" | "stdbuf" | "caffeinate" => (&[], 0),
            "nice" => (&["-n"], 0),
            "ionice" => (&["-c", "-n", "-p"], 0),
            "timeout" => (&["-s", "-k", "--signal", "--kill-after"], 1),
            "npx" | "bunx" | "pnpx" | "uvx" => {
                (&["-p", "--package", "--from", "--with", "--python"], 0)
            }
            "xargs" => (&["-I", "-n", "-P", "-d", "-L", "-s", "-E"], 0),
            _ => {
                // Two-word wrappers: `uv run`, `poetry run`, `pnpm exec`, …
                let next = words.get(i + 1).map(String::as_str);
                let two = matches!(
                    (prog, next),
                    (
                        "uv" | "poetry" | "pipenv" | "pdm" | "hatch" | "rye",
                        Some("run")
                    ) | ("pnpm" | "npm" | "bundle" | "mise", Some("exec"))
                        | ("yarn" | "pnpm", Some("dlx"))
                        | ("pipx", Some("run"))
                        | ("nix", Some("run" | "shell" | "develop"))
                );
                if two && words.get(i + 2).is_some() {
                    i += 2;
                    // Skip the wrapper's own options (`uv run --with x pytest`).
                    while let Some(w) = words.get(i) {
                        if w == "--" {
                            i += 1;
                            break;
                        }
                        if !w.starts_with('-') {
                            break;
                        }
                        let takes = matches!(
                            w.as_str(),
                            "--with" | "--from" | "--python" | "-p" | "--package"
                        );
                        i += if takes { 2 } else { 1 };
                    }
                    continue;
                }
                // `python -m module` → the module.
                if (prog.starts_with("python")
                    && prog[6..].chars().all(|c| c.is_ascii_digit() || c == '.'))
                    && words.get(i + 1).map(String::as_str) == Some("-m")
                    && let Some(module) = words.get(i + 2)
                {
                    return Some((module.clone(), None));
                }
                break;
            }
        };
        i += 1;
        let mut positional = positional_args;
        while let Some(w) = words.get(i) {
            if w == "--" {
                i += 1;
                break;
            }
            if w.starts_with('-') && w.len() > 1 {
                i += if skip_opts_with_value.contains(&w.as_str()) {
                    2
                } else {
                    1
                };
                continue;
            }
            if prog == "env" && is_assignment(w) {
                i += 1;
                continue;
            }
            if positional > 0 {
                positional -= 1;
                i += 1;
                continue;
            }
            break;
        }
    }
    let program = basename(words.get(i)?).to_string();
    if program.is_empty() {
        return None;
    }
    if !HAS_SUBCOMMANDS.contains(&program.as_str()) {
        return Some((program, None));
    }
    let mut j = i + 1;
    let mut sub = None;
    while let Some(w) = words.get(j) {
        if w == "--" {
            break;
        }
        if w.starts_with('+') && program == "cargo" {
            j += 1; // toolchain `cargo +nightly build`
            continue;
        }
        if w.starts_with('-') {
            let takes = !w.contains('=') && option_takes_value(&program, w);
            j += if takes { 2 } else { 1 };
            continue;
        }
        let looks_like_word = w
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.'));
        if looks_like_word && !w.is_empty() {
            sub = Some(w.clone());
        }
        break;
    }
    Some((program, sub))
}

/// A command's normal form for matching a recurring failure: parts of the
/// chain without leading `FOO=bar` assignments, words separated by one space
/// (quoting kept as written), operators as ` && `, ` || `, `; `.
pub fn normalise_command(cmd: &str) -> String {
    let mut out = String::with_capacity(cmd.len());
    for part in split_chain(cmd) {
        let words: Vec<&str> = raw_words(part.text)
            .into_iter()
            .skip_while(|w| is_assignment(w))
            .collect();
        if words.is_empty() {
            continue;
        }
        if !out.is_empty() {
            match part.op.unwrap_or(ChainOp::Seq) {
                ChainOp::Seq => out.push_str("; "),
                op => {
                    out.push(' ');
                    out.push_str(op.as_str());
                    out.push(' ');
                }
            }
        }
        out.push_str(&words.join(" "));
    }
    out
}

/// Words of a simple command as written (quotes kept), split on unquoted
/// whitespace.
fn raw_words(cmd: &str) -> Vec<&str> {
    let b = cmd.as_bytes();
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut in_single = false;
    let mut in_double = false;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if in_single {
            in_single = c != b'\'';
        } else if in_double {
            if c == b'\\' {
                i += 1;
            } else {
                in_double = c != b'"';
            }
        } else if c == b'\\' {
            start.get_or_insert(i);
            i += 1;
        } else if c.is_ascii_whitespace() {
            if let Some(s) = start.take() {
                out.push(&cmd[s..i]);
            }
        } else {
            start.get_or_insert(i);
            match c {
                b'\'' => in_single = true,
                b'"' => in_double = true,
                _ => {}
            }
        }
        i += 1;
    }
    if let Some(s) = start {
        out.push(cmd.get(s..).unwrap_or(""));
    }
    out
}

/// Words that mark a line as the error worth signing.
const ERROR_MARKERS: &[&str] = &[
    "error",
    "fatal",
    "failed",
    "failure",
    "not found",
    "denied",
    "refused",
    "no such",
    "panicked",
    "exception",
    "cannot",
    "can't",
    "unable",
    "invalid",
    "rejected",
    "unknown",
    "unrecognized",
    "not a ",
    "traceback",
    "err!",
    "abort",
    "segmentation fault",
    "timed out",
];

/// A dedup key for an error: its first meaningful line (the first line with
/// an error marker, else the first non-blank one) with ANSI colours removed,
/// whitespace collapsed, and numbers (`<n>`), hex ids (`<hex>`), paths
/// (`<path>`), URLs (`<url>`) and quoted values (`<q>`) masked. At most 200
/// characters.
pub fn error_signature(text: &str) -> String {
    let clean = strip_ansi(text);
    let mut chosen = None;
    let mut first = None;
    for line in clean.lines() {
        let t = line.trim();
        if t.is_empty() || t.chars().all(|c| !c.is_alphanumeric()) {
            continue;
        }
        first.get_or_insert(t);
        let lower = t.to_ascii_lowercase();
        if ERROR_MARKERS.iter().any(|m| lower.contains(m)) {
            chosen = Some(t);
            break;
        }
    }
    let Some(line) = chosen.or(first) else {
        return String::new();
    };
    let masked = mask(line);
    match masked.char_indices().nth(200) {
        Some((i, _)) => masked[..i].to_string(),
        None => masked,
    }
}

fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            } else {
                chars.next();
            }
            continue;
        }
        if c == '\r' {
            continue;
        }
        out.push(c);
    }
    out
}

fn mask(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut last_space = false;
    for tok in tokens(line) {
        let piece: &str = match tok {
            Tok::Space => {
                if !last_space && !out.is_empty() {
                    out.push(' ');
                }
                last_space = true;
                continue;
            }
            Tok::Quoted => "<q>",
            Tok::Word(w) => {
                last_space = false;
                push_masked_word(&mut out, w);
                continue;
            }
        };
        last_space = false;
        out.push_str(piece);
    }
    out.trim_end().to_string()
}

enum Tok<'a> {
    Space,
    Quoted,
    Word(&'a str),
}

fn tokens(line: &str) -> Vec<Tok<'_>> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        if c.is_whitespace() {
            let end = rest
                .find(|c: char| !c.is_whitespace())
                .unwrap_or(rest.len());
            out.push(Tok::Space);
            rest = &rest[end..];
            continue;
        }
        let close = match c {
            '\'' | '"' | '`' => Some(c),
            '‘' => Some('’'),
            '“' => Some('”'),
            _ => None,
        };
        if let Some(close) = close
            && let Some(end) = rest[c.len_utf8()..].find(close)
        {
            // An apostrophe inside a word (`can't`) is not a quote: require the
            // opening quote at a word start, which holds here.
            out.push(Tok::Quoted);
            rest = &rest[c.len_utf8() + end + close.len_utf8()..];
            continue;
        }
        let end = rest
            .char_indices()
            .skip(1)
            .find(|&(_, c)| c.is_whitespace() || matches!(c, '\'' | '"' | '`' | '‘' | '“'))
            .map_or(rest.len(), |(i, _)| i);
        out.push(Tok::Word(&rest[..end]));
        rest = &rest[end..];
    }
    out
}

fn push_masked_word(out: &mut String, w: &str) {
    // Keep leading/trailing punctuation, mask the core.
    let core_start = w
        .find(|c: char| c.is_alphanumeric() || matches!(c, '/' | '.' | '~' | '$'))
        .unwrap_or(w.len());
    let core_end = w
        .rfind(|c: char| c.is_alphanumeric() || c == '/')
        .map_or(core_start, |i| {
            i + w[i..].chars().next().map_or(1, char::len_utf8)
        });
    if core_start >= core_end {
        out.push_str(w);
        return;
    }
    let (pre, core, post) = (&w[..core_start], &w[core_start..core_end], &w[core_end..]);
    out.push_str(pre);
    if core.contains("://") {
        out.push_str("<url>");
    } else if core.contains('/') && core.len() > 1 {
        out.push_str("<path>");
    } else {
        mask_numbers(out, core);
    }
    out.push_str(post);
}

/// Mask hex ids and digit runs inside a word, keeping letters
/// (`E0425` → `E<n>`, `0x7ffd` → `<hex>`, `a1b2c3d4e5` → `<hex>`).
fn mask_numbers(out: &mut String, word: &str) {
    let is_hexish = |s: &str| {
        s.len() >= 7
            && s.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
            && s.chars().any(|c| c.is_ascii_digit())
    };
    if let Some(hex) = word.strip_prefix("0x")
        && !hex.is_empty()
        && hex.chars().all(|c| c.is_ascii_hexdigit())
    {
        out.push_str("<hex>");
        return;
    }
    if is_hexish(word) {
        out.push_str("<hex>");
        return;
    }
    let mut chars = word.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            while chars
                .peek()
                .is_some_and(|c| c.is_ascii_digit() || *c == '.' || *c == ',')
            {
                chars.next();
            }
            out.push_str("<n>");
        } else {
            out.push(c);
        }
    }
}

/// Glob match with `*` = any run of characters (including none); every other
/// character is literal.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if pi < p.len() && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Whether a command is ignored: its normal form ([`normalise_command`]), or
/// the part of its chain that [`program_key`] would pick, matches one of the
/// glob `patterns` (so `cd app && cargo test` is ignored by `cargo test*`).
pub fn matches_ignore(cmd: &str, patterns: &[String]) -> bool {
    if patterns.is_empty() {
        return false;
    }
    let whole = normalise_command(cmd);
    let last = failing_subcommand(cmd, None, "").map(normalise_command);
    patterns.iter().any(|p| {
        let p = p.trim();
        !p.is_empty()
            && (glob_match(p, &whole) || last.as_deref().is_some_and(|l| glob_match(p, l)))
    })
}

/// [`DEFAULT_IGNORE`] as owned patterns, for a configuration default.
pub fn default_ignore_patterns() -> Vec<String> {
    DEFAULT_IGNORE.iter().map(|s| s.to_string()).collect()
}

/// Read a user's correction out of a prompt: `use X instead of Y`,
/// `instead of Y, use X`, `don't use Y, use X` (also `do not`, `rather than`,
/// `not Y but X`-free forms). Returns `(correction X, mistaken Y)`. A quoted or
/// backticked piece inside either side is preferred over the surrounding words.
pub fn parse_correction(prompt: &str) -> Option<(&str, &str)> {
    let lower = prompt.to_ascii_lowercase();
    // "instead of Y, use X"
    if let Some(i) = find_word(&lower, "instead of", 0) {
        let before = &lower[..i];
        // "use X instead of Y"
        if let Some(u) = rfind_word(before, "use ") {
            let x = &prompt[u + 4..i];
            let y = clause(prompt, i + "instead of".len());
            return pick(x, y);
        }
        // "instead of Y, use X"
        let after = i + "instead of".len();
        if let Some(u) = find_word(&lower, "use ", after) {
            let y = &prompt[after..u];
            let x = clause(prompt, u + 4);
            return pick(x, y);
        }
    }
    // "use X rather than Y"
    if let Some(i) = find_word(&lower, "rather than", 0)
        && let Some(u) = rfind_word(&lower[..i], "use ")
    {
        return pick(&prompt[u + 4..i], clause(prompt, i + "rather than".len()));
    }
    // "don't use Y, use X" / "do not use Y; use X"
    for neg in [
        "don't use ",
        "dont use ",
        "do not use ",
        "don’t use ",
        "never use ",
    ] {
        if let Some(i) = find_word(&lower, neg, 0) {
            let after = i + neg.len();
            if let Some(u) = find_word(&lower, "use ", after) {
                let y = &prompt[after..u];
                let x = clause(prompt, u + 4);
                return pick(x, y);
            }
        }
    }
    None
}

fn find_word(hay: &str, needle: &str, from: usize) -> Option<usize> {
    let mut start = from;
    while let Some(rel) = hay.get(start..)?.find(needle) {
        let i = start + rel;
        let ok_before = i == 0
            || !hay[..i]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric);
        if ok_before {
            return Some(i);
        }
        start = i + needle.len();
    }
    None
}

fn rfind_word(hay: &str, needle: &str) -> Option<usize> {
    let mut end = hay.len();
    while let Some(i) = hay.get(..end)?.rfind(needle) {
        let ok_before = i == 0
            || !hay[..i]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric);
        if ok_before {
            return Some(i);
        }
        end = i;
    }
    None
}

/// From `start` up to the end of the clause (`.`, `!`, `?`, `,`, `;`, newline,
/// outside quotes/backticks).
fn clause(s: &str, start: usize) -> &str {
    let rest = s.get(start..).unwrap_or("");
    let mut quote: Option<char> = None;
    for (i, c) in rest.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '`' | '"' => quote = Some(c),
                '\'' if rest[..i]
                    .chars()
                    .next_back()
                    .is_none_or(|p| !p.is_alphanumeric()) =>
                {
                    quote = Some(c)
                }
                '.' | '!' | '?' | ',' | ';' | '\n'
                    if !(c == '.'
                        && rest[i + 1..]
                            .chars()
                            .next()
                            .is_some_and(|n| !n.is_whitespace())) =>
                {
                    return &rest[..i];
                }
                _ => {}
            },
        }
    }
    rest
}

fn pick<'a>(x: &'a str, y: &'a str) -> Option<(&'a str, &'a str)> {
    let x = best_piece(x)?;
    let y = best_piece(y)?;
    (x != y).then_some((x, y))
}

/// The first backticked or quoted piece of `s`, else `s` trimmed of spaces
/// and clause punctuation.
fn best_piece(s: &str) -> Option<&str> {
    for (open, close) in [('`', '`'), ('"', '"'), ('\'', '\''), ('“', '”'), ('‘', '’')] {
        if let Some(a) = s.find(open) {
            let from = a + open.len_utf8();
            if let Some(b) = s[from..].find(close) {
                let inner = s[from..from + b].trim();
                if !inner.is_empty() {
                    return Some(inner);
                }
            }
        }
    }
    let t = s
        .trim()
        .trim_matches(|c: char| matches!(c, ',' | ';' | ':' | '.' | '!' | '?'))
        .trim();
    let t = t.strip_prefix("the ").unwrap_or(t);
    (!t.is_empty() && t.chars().count() <= 120).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(cmd: &str) -> Vec<&str> {
        split_chain(cmd).into_iter().map(|p| p.text).collect()
    }

    #[test]
    fn split_chain_respects_quotes_substitutions_and_redirects() {
        let cases: &[(&str, &[&str])] = &[
            ("cargo build", &["cargo build"]),
            ("cd app && cargo build", &["cd app", "cargo build"]),
            ("a || b; c\nd", &["a", "b", "c", "d"]),
            ("echo 'a && b' && ls", &["echo 'a && b'", "ls"]),
            (r#"echo "x; y" ; ls"#, &[r#"echo "x; y""#, "ls"]),
            (
                "echo $(cd /tmp && pwd) && ls",
                &["echo $(cd /tmp && pwd)", "ls"],
            ),
            (r#"echo "$(a; b)" && c"#, &[r#"echo "$(a; b)""#, "c"]),
            (
                "(cd x && make) || echo failed",
                &["(cd x && make)", "echo failed"],
            ),
            (
                "make 2>&1 | tee log && echo ok",
                &["make 2>&1 | tee log", "echo ok"],
            ),
            ("cargo build &> out.txt", &["cargo build &> out.txt"]),
            (
                "server & sleep 1; curl localhost",
                &["server", "sleep 1", "curl localhost"],
            ),
            (r"echo a \&\& b", &[r"echo a \&\& b"]),
            ("echo `date; id` && ls", &["echo `date; id`", "ls"]),
            ("ls # a comment; not split\npwd", &["ls", "pwd"]),
            ("  ;; && ", &[]),
            ("a && \\\n  b", &["a", "\\\n  b"]),
        ];
        for (cmd, want) in cases {
            assert_eq!(texts(cmd), *want, "split_chain({cmd:?})");
        }
    }

    #[test]
    fn split_chain_records_operators() {
        let ops: Vec<_> = split_chain("a && b || c; d").iter().map(|p| p.op).collect();
        assert_eq!(
            ops,
            vec![
                None,
                Some(ChainOp::And),
                Some(ChainOp::Or),
                Some(ChainOp::Seq)
            ]
        );
    }

    #[test]
    fn failing_subcommand_follows_the_documented_rule() {
        let cases: &[(&str, Option<i32>, &str, Option<&str>)] = &[
            ("git push -f", Some(1), "", Some("git push -f")),
            (
                "cd app && cargo build",
                Some(101),
                "error[E0425]",
                Some("cargo build"),
            ),
            (
                "cargo fmt && cargo build && echo done",
                Some(1),
                "",
                Some("cargo build"),
            ),
            ("make; make install", Some(2), "", Some("make install")),
            ("npm ci || yarn install", Some(1), "", Some("yarn install")),
            (
                "cd app && foo --bar && git status",
                Some(127),
                "bash: line 1: foo: command not found",
                Some("foo --bar"),
            ),
            (
                "git pussh && cargo build",
                Some(1),
                "git: 'pussh' is not a git command. See 'git --help'.",
                Some("git pussh"),
            ),
            (
                "cd nowhere && cargo build",
                Some(1),
                "bash: line 1: cd: nowhere: No such file or directory",
                Some("cd nowhere"),
            ),
            ("", None, "", None),
        ];
        for (cmd, code, out, want) in cases {
            assert_eq!(failing_subcommand(cmd, *code, out), *want, "{cmd:?}");
        }
    }

    #[test]
    fn program_key_skips_wrappers_and_global_options() {
        let s = |p: &str, sub: Option<&str>| Some((p.to_string(), sub.map(str::to_string)));
        let cases = [
            ("git push -f", s("git", Some("push"))),
            ("git -C dir push -f", s("git", Some("push"))),
            (
                "git -c core.pager=cat --no-pager log",
                s("git", Some("log")),
            ),
            (
                "FOO=1 BAR=2 cargo build --release",
                s("cargo", Some("build")),
            ),
            (
                "sudo -u admin -E apt-get install jq",
                s("apt-get", Some("install")),
            ),
            ("env -i PATH=/bin make test", s("make", Some("test"))),
            ("time cargo +nightly test", s("cargo", Some("test"))),
            ("timeout 10s curl https://x", s("curl", None)),
            ("npx -y prettier --check .", s("prettier", None)),
            ("uvx ruff check", s("ruff", None)),
            ("uv run --with rich pytest -x", s("pytest", None)),
            ("python3 -m pytest tests", s("pytest", None)),
            (
                "/usr/local/bin/docker -H tcp://h compose up",
                s("docker", Some("compose")),
            ),
            ("kubectl -n prod get pods", s("kubectl", Some("get"))),
            ("ls -la /tmp", s("ls", None)),
            ("cd app && npm run build", s("npm", Some("run"))),
            ("'./my tool' --flag", s("my tool", None)),
            ("FOO=1", None),
            ("", None),
        ];
        for (cmd, want) in cases {
            assert_eq!(program_key(cmd), want, "{cmd:?}");
        }
    }

    #[test]
    fn normalise_command_collapses_space_and_drops_assignments() {
        let cases = [
            ("  git   push  -f ", "git push -f"),
            ("RUST_LOG=debug  cargo run", "cargo run"),
            ("FOO=\"a b\" make", "make"),
            ("echo 'a   b'", "echo 'a   b'"),
            ("cd x&&make ;  make install", "cd x && make; make install"),
            ("a ||\n b", "a || b"),
            ("make VAR=1", "make VAR=1"),
        ];
        for (cmd, want) in cases {
            assert_eq!(normalise_command(cmd), want, "{cmd:?}");
        }
    }

    #[test]
    fn error_signature_masks_volatile_parts() {
        let cases = [
            (
                "   Compiling foo v0.1.0\nerror[E0425]: cannot find value `x` in this scope\n --> src/main.rs:3:5",
                "error[E<n>]: cannot find value <q> in this scope",
            ),
            (
                "To github.com:me/repo.git\n ! [rejected]        main -> main (non-fast-forward)\nerror: failed to push some refs to 'github.com:me/repo.git'",
                "! [rejected] main -> main (non-fast-forward)",
            ),
            (
                "fatal: '/home/me/x' does not appear to be a git repository",
                "fatal: <q> does not appear to be a git repository",
            ),
            (
                "Error: open /var/lib/app/config.yaml: no such file or directory",
                "Error: open <path>: no such file or directory",
            ),
            (
                "\u{1b}[31merror\u{1b}[0m: port 8080 in use",
                "error: port <n> in use",
            ),
            (
                "panicked at 0x7ffd1234 with id 3f2a9c1e8b7d",
                "panicked at <hex> with id <hex>",
            ),
            ("see https://example.com/a/b failed", "see <url> failed"),
            ("all good", "all good"),
            ("", ""),
        ];
        for (text, want) in cases {
            assert_eq!(error_signature(text), want, "{text:?}");
        }
    }

    #[test]
    fn ignore_patterns_match_test_runners_only() {
        let defaults = default_ignore_patterns();
        let cases = [
            ("cargo test", true),
            ("cargo test --all -- --nocapture", true),
            ("RUST_BACKTRACE=1 cargo test", true),
            ("cd crate && cargo test", true),
            ("cargo build", false),
            ("pytest -x tests/", true),
            ("go test ./...", true),
            ("npm test", true),
            ("npm install", false),
            ("yarn test --watch=false", true),
            ("git push", false),
        ];
        for (cmd, want) in cases {
            assert_eq!(matches_ignore(cmd, &defaults), want, "{cmd:?}");
        }
        assert!(!matches_ignore("cargo test", &[]));
        assert!(matches_ignore("make lint", &["make *".to_string()]));
    }

    #[test]
    fn glob_star_semantics() {
        let cases = [
            ("cargo test*", "cargo test", true),
            ("cargo test*", "cargo tests", true),
            ("*test*", "go test ./...", true),
            ("a*b*c", "aXXbYYc", true),
            ("a*b*c", "aXXbYY", false),
            ("", "", true),
            ("", "x", false),
            ("*", "", true),
            ("pytest", "pytest -x", false),
        ];
        for (p, t, want) in cases {
            assert_eq!(glob_match(p, t), want, "{p:?} vs {t:?}");
        }
    }

    #[test]
    fn parse_correction_reads_common_phrasings() {
        let cases = [
            (
                "use `git push --force-with-lease` instead of `git push -f`",
                Some(("git push --force-with-lease", "git push -f")),
            ),
            ("Instead of npm, use bun.", Some(("bun", "npm"))),
            (
                "please use pnpm instead of npm install",
                Some(("pnpm", "npm install")),
            ),
            (
                "Don't use `rm -rf build`, use `cargo clean`",
                Some(("cargo clean", "rm -rf build")),
            ),
            ("do not use pip; use uv pip", Some(("uv pip", "pip"))),
            ("use \"yarn\" rather than \"npm\"", Some(("yarn", "npm"))),
            (
                "Use ripgrep instead of grep. Thanks!",
                Some(("ripgrep", "grep")),
            ),
            ("what does this function do?", None),
            ("use the force", None),
            ("use x instead of x", None),
        ];
        for (prompt, want) in cases {
            assert_eq!(parse_correction(prompt), want, "{prompt:?}");
        }
    }
}
