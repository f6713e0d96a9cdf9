//! Chains (`a && b || c; d`): their parts, the part that most likely failed,
//! the program key of the whole line, and the normal form a recurrence is
//! matched by.
//!
//! Where a part starts and ends is the lexer's call ([`super::lex`]); what a
//! part's program is, [`super::program`]'s.

pub use super::lex::ChainOp;
use super::lex::{self, Kind, Lexer};
use super::program;

/// One command of a chain, trimmed, with the operator that precedes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChainPart<'a> {
    pub op: Option<ChainOp>,
    pub text: &'a str,
}

/// Split a command line at `&&`, `||`, `;`, newlines and background `&`,
/// outside quotes, backslash escapes, `$(…)`, backticks and `(…)` subshells.
/// Pipes stay inside a part (a pipeline is one command); `2>&1`, `&>` and `|&`
/// are not separators. A comment ends its part. Empty parts are dropped.
pub fn split_chain(cmd: &str) -> Vec<ChainPart<'_>> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut pending: Option<ChainOp> = None;
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
    for t in Lexer::new(cmd) {
        let next = match t.kind {
            Kind::Op(op) => op,
            // Comment to end of line: the part ends where it starts.
            Kind::Comment => ChainOp::Seq,
            _ => continue,
        };
        push(start, t.start, &mut pending, Some(next));
        start = t.end;
    }
    push(start, cmd.len(), &mut pending, None);
    parts
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
        .map(|p| program::simple_key(p.text).map(|(prog, _)| prog))
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
            && !program::is_trivial(prog)
            && first_words.contains(&prog.as_str())
        {
            return Some(part.text);
        }
    }
    // `cd: no such file` style evidence for a trivial part.
    for (part, prog) in parts.iter().zip(&programs).rev() {
        if let Some(prog) = prog
            && program::is_trivial(prog)
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
        .find(|p| !program::is_trivial_command(p.text))
        .or(parts.last())
        .map(|p| p.text)
}

/// Program and subcommand of a command, for grouping learnings:
/// `git -C dir push -f` → `("git", Some("push"))`, `FOO=1 sudo -E make build`
/// → `("make", Some("build"))`, `npx prettier --check .` → `("prettier",
/// None)`, `python -m pytest` → `("pytest", None)`. For a chain, the part
/// [`failing_subcommand`] would pick without output evidence (the last
/// non-trivial one); for one command, [`program`]'s table decides.
pub fn program_key(cmd: &str) -> Option<(String, Option<String>)> {
    let part = failing_subcommand(cmd, None, "")?;
    program::simple_key(part)
}

/// Programs whose part of a chain changes nothing a correction is about:
/// moving around and printing, when the part is only that (no
/// redirection, pipe or substitution: `echo x >> ~/.npmrc` changes a
/// file). A correction's other parts (`export`, `source`, `set`, a part
/// of `NAME=value` only) are part of what it says to run.
const NO_EFFECT: &[&str] = &[
    "cd", "pushd", "popd", "echo", "printf", "true", ":", "sleep",
];

/// Every part of a line as its program receives its words (quotes
/// removed), leading `NAME=value` assignments kept, parts that only move
/// around or print left out: what "ran all of this correction" compares.
pub fn command_parts(cmd: &str) -> Vec<Vec<String>> {
    split_chain(cmd)
        .into_iter()
        .filter(|p| !only_moves_or_prints(p.text))
        .map(|p| lex::words(p.text))
        .filter(|w| !w.is_empty())
        .collect()
}

fn only_moves_or_prints(part: &str) -> bool {
    let words = lex::raw_words(part);
    let program = words.iter().find(|w| !lex::is_assignment(w));
    // `$` too: `: ${PATH:=…}` assigns, `echo $(…)` runs; and `printf -v`
    // sets a variable.
    program.is_some_and(|p| NO_EFFECT.contains(p))
        && words.iter().all(|w| !lex::is_assignment(w) && *w != "-v")
        && !part.contains(['>', '<', '|', '`', '$'])
}

/// Whether a line holds a comment (`# …` outside quotes): text shown with
/// a command that no one runs.
pub fn has_comment(cmd: &str) -> bool {
    Lexer::new(cmd).any(|t| matches!(t.kind, Kind::Comment))
}

/// How many leading words of a part are `NAME=value` assignments.
pub fn assignments(words: &[String]) -> usize {
    words.iter().take_while(|w| lex::is_assignment(w)).count()
}

/// The subject of the part of a line that most likely failed (see
/// [`failing_subcommand`]): what a learning about that line is about.
pub fn failing_subject(cmd: &str) -> Option<String> {
    failing_subcommand(cmd, None, "").and_then(subject)
}

/// The subject of one simple command: its program, and its subcommand when
/// it has one (`git -C x push -f` → `git push`, `curl -sSL u` → `curl`).
/// What bounds a `verify_pattern` to the commands its learning is about.
fn subject(cmd: &str) -> Option<String> {
    program::simple_key(cmd).map(|(program, sub)| match sub {
        Some(sub) => format!("{program} {sub}"),
        None => program,
    })
}

/// The parts of a line, each with its subject (`subject`) and its normal
/// form (trivial parts too: a learning about `source` has that subject).
pub fn subject_parts(cmd: &str) -> Vec<(Option<String>, String)> {
    split_chain(cmd)
        .into_iter()
        .map(|p| (subject(p.text), normalise_command(p.text)))
        .filter(|(_, n)| !n.is_empty())
        .collect()
}

/// The simple commands of a line that do something, as their programs
/// receive their words: quotes removed, leading `FOO=bar` assignments
/// dropped, trivial parts (`cd dir`, `echo …`) left out. What "runs this
/// command" compares, whatever the quoting, chaining or environment.
pub fn simple_commands(cmd: &str) -> Vec<Vec<String>> {
    split_chain(cmd)
        .into_iter()
        .filter(|p| !program::is_trivial_command(p.text))
        .map(|p| {
            lex::words(p.text)
                .into_iter()
                .skip_while(|w| lex::is_assignment(w))
                .collect::<Vec<_>>()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// A command's normal form for matching a recurring failure: parts of the
/// chain without leading `FOO=bar` assignments, words separated by one space
/// (quoting kept as written), operators as ` && `, ` || `, `; `.
pub fn normalise_command(cmd: &str) -> String {
    let mut out = String::with_capacity(cmd.len());
    for part in split_chain(cmd) {
        let words: Vec<&str> = lex::raw_words(part.text)
            .into_iter()
            .skip_while(|w| lex::is_assignment(w))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_commands_ignore_quoting_env_and_trivial_parts() {
        let w = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            simple_commands("cd app && FOO=1 git commit -m 'fix it' ; echo done"),
            [w(&["git", "commit", "-m", "fix it"])]
        );
        assert_eq!(
            simple_commands(r#"git commit -m "fix it""#),
            simple_commands("git commit -m 'fix it'")
        );
        assert!(simple_commands("cd /tmp").is_empty());
    }

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
    fn split_chain_reads_nested_substitutions_in_double_quotes() {
        let cases: &[(&str, &[&str])] = &[
            (
                r#"echo "$(echo "a && b")" && ls"#,
                &[r#"echo "$(echo "a && b")""#, "ls"],
            ),
            (
                r#"echo "$(echo ')' "(")" ; ls"#,
                &[r#"echo "$(echo ')' "(")""#, "ls"],
            ),
            (
                r#"git commit -m "$(cat <<'EOF'
Fix "the" total
EOF
)" && git push"#,
                &[
                    "git commit -m \"$(cat <<'EOF'\nFix \"the\" total\nEOF\n)\"",
                    "git push",
                ],
            ),
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
    fn normal_form_keeps_backticks_and_quoted_substitutions_whole() {
        let cases = [
            ("echo `date  +%s`", "echo `date  +%s`"),
            (r#"say   "$(echo "a  b")""#, r#"say "$(echo "a  b")""#),
            // Parentheses outside quotes are word material: split as before.
            ("(cd x  &&  make)", "(cd x && make)"),
        ];
        for (cmd, want) in cases {
            assert_eq!(normalise_command(cmd), want, "{cmd:?}");
        }
    }
}
