//! What a tool result says about the learnings shown to its session
//! (DESIGN §4.1), as pure functions: whether a command runs a learning's
//! correction, and the outcome that gives.
//!
//! "Runs the correction": one simple command of the line (chains split,
//! `cd … &&` and `FOO=1` prefixes dropped, quoting resolved) has the
//! correction's words, or starts with them when the correction names at
//! least program, subcommand and one option; or the line matches a
//! `verify_pattern` that recognises the correction, in a part of the
//! learning's own program and subcommand (`pattern_subjects`: a pattern is
//! its writer's, and cannot make `git status` evidence for a lesson about
//! `npm test`). Running the mistaken
//! command itself is never following the correction, and a correction in
//! prose is decided only through `verify_pattern`.

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
pub fn correction_words(correction: &str) -> Vec<String> {
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

/// The words of each simple command a learning is about (its original
/// command and failing part): what "the mistake again" looks like.
pub fn failure_words<'a>(commands: impl IntoIterator<Item = &'a str>) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    for c in commands {
        for words in shell::simple_commands(c) {
            if !out.contains(&words) {
                out.push(words);
            }
        }
    }
    out
}

/// Whether a `verify_pattern` recognises the correction rather than the
/// mistake: it must not match the learning's own mistaken command (a
/// pattern like `^git push (-f|--force)\b` names the mistake, and the
/// warning uses it so).
pub fn verify_for_outcome(pattern: Option<&str>, mistaken: &[&str]) -> Option<String> {
    let p = pattern.map(str::trim).filter(|p| !p.is_empty())?;
    let candidates: Vec<String> = mistaken
        .iter()
        .flat_map(|m| {
            let mut c = vec![shell::normalise_command(m)];
            c.extend(
                shell::split_chain(m)
                    .iter()
                    .map(|x| shell::normalise_command(x.text)),
            );
            c
        })
        .collect();
    if shell::pattern_problem(p).is_some() || shell::command_matches(p, &candidates) {
        return None;
    }
    Some(p.to_string())
}

/// The subjects (program and subcommand, [`shell::subject`]) a learning's
/// `verify_pattern` may speak for: those of its mistaken commands, and of
/// its correction's parts when the correction is a command. Empty without
/// a pattern: nothing to bound.
pub fn pattern_subjects(pattern: Option<&str>, mistaken: &[&str], correction: &str) -> Vec<String> {
    if pattern.is_none_or(|p| p.trim().is_empty()) {
        return Vec::new();
    }
    let command = !correction_words(correction).is_empty();
    let mut out: Vec<String> = Vec::new();
    let texts = mistaken
        .iter()
        .copied()
        .chain(command.then_some(correction));
    for (subject, _) in texts.flat_map(shell::subject_parts) {
        if let Some(s) = subject
            && !out.contains(&s)
        {
            out.push(s);
        }
    }
    out
}

/// A finished command as outcomes read it: its simple commands, and (on
/// demand) the normal forms a `verify_pattern` is matched against. Read
/// once per tool result, whatever the number of showings followed.
pub struct Ran<'a> {
    command: &'a str,
    parts: Vec<Vec<String>>,
    candidates: std::cell::OnceCell<Vec<String>>,
}

impl<'a> Ran<'a> {
    pub fn new(command: &'a str) -> Self {
        Ran {
            command,
            parts: shell::simple_commands(command),
            candidates: std::cell::OnceCell::new(),
        }
    }

    fn candidates(&self) -> &[String] {
        self.candidates.get_or_init(|| {
            let mut c = vec![shell::normalise_command(self.command)];
            c.extend(
                shell::split_chain(self.command)
                    .iter()
                    .map(|p| shell::normalise_command(p.text)),
            );
            c
        })
    }
}

/// Whether the command runs the correction of a learning shown so.
pub fn runs_correction(s: &Showing, ran: &Ran<'_>) -> bool {
    // The mistake itself, even in a chain with the correction, decides nothing.
    if ran.parts.iter().any(|p| s.failure.contains(p)) {
        return false;
    }
    let c = &s.correction;
    let by_words = !c.is_empty()
        && ran.parts.iter().any(|p| {
            p == c || (c.len() >= MIN_PREFIX_WORDS && p.len() > c.len() && p[..c.len()] == c[..])
        });
    if by_words {
        return true;
    }
    match s.verify.as_deref() {
        Some(pattern) => {
            shell::command_matches(pattern, ran.candidates())
                && shell::match_within(pattern, &s.subjects, ran.command)
        }
        None => false,
    }
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

    fn showing(correction: &str, mistaken: &str, verify: Option<&str>) -> Showing {
        Showing {
            id: "learning-1".into(),
            via: "pre-tool-use".into(),
            at: 0,
            calls: 0,
            window_calls: 10,
            window_minutes: 30,
            correction: correction_words(correction),
            verify: verify_for_outcome(verify, &[mistaken]),
            subjects: pattern_subjects(verify, &[mistaken], correction),
            failure: failure_words([mistaken]),
        }
    }

    #[test]
    fn the_correction_run_in_any_shape_is_recognised() {
        let s = showing(
            "git push --force-with-lease origin main",
            "git push -f origin main",
            None,
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
        let s = showing("git push --force-with-lease", "git push -f", None);
        assert!(runs_correction(
            &s,
            &Ran::new("git push --force-with-lease origin topic")
        ));
        let s = showing("npm ci", "npm install", None);
        assert!(runs_correction(&s, &Ran::new("npm ci")));
        assert!(!runs_correction(&s, &Ran::new("npm ci --ignore-scripts")));
    }

    #[test]
    fn prose_is_decided_only_by_a_pattern_that_recognises_the_fix() {
        assert!(correction_words("use --force-with-lease instead").is_empty());
        assert!(correction_words("Run the migrations first. Then retry.").is_empty());
        assert!(correction_words("line one\nline two").is_empty());
        assert_eq!(correction_words("cd app && npm ci"), ["npm", "ci"]);
        // Commands that end in a path, or run `make`, are commands.
        for command in [
            "go run .",
            "docker build -f docker/Dockerfile .",
            "make -j1 test",
            "make install PREFIX=/home/dev/.local",
            "tar xf archive.tar.gz",
        ] {
            assert!(!correction_words(command).is_empty(), "{command}");
        }
        let s = showing(
            "use --force-with-lease",
            "git push -f origin main",
            Some(r"--force-with-lease\b"),
        );
        assert!(runs_correction(
            &s,
            &Ran::new("git push --force-with-lease origin main")
        ));
        assert!(!runs_correction(&s, &Ran::new("git push origin main")));
        // A pattern that names the mistake is the warning's, not evidence.
        let s = showing(
            "use --force-with-lease",
            "git push -f origin main",
            Some(r"^git push (-f|--force)\b"),
        );
        assert_eq!(s.verify, None);
        assert!(!runs_correction(&s, &Ran::new("git push -f origin other")));
    }

    #[test]
    fn a_broad_pattern_speaks_only_for_the_learnings_own_commands() {
        // The laundering shape: a lesson about `npm test` whose pattern
        // matches any git, ls or make command. None of those is evidence.
        let s = showing(
            "use the team mirror",
            "npm test",
            Some(r"^(git|ls|cat|make)\b"),
        );
        assert_eq!(s.subjects, ["npm test"]);
        for no in [
            "git status",
            "ls -la",
            "make build",
            "cd app && git status",
            // A part of the learning's subject does not carry another part.
            "npm test --ci && git status",
        ] {
            assert!(!runs_correction(&s, &Ran::new(no)), "{no}");
        }
        // A command correction bounds its pattern to its own parts too.
        let s = showing(
            "npm config set registry https://mirror.example/ && npm ci",
            "npm test",
            Some(r"^npm (ci|install)\b|^git\b"),
        );
        assert_eq!(s.subjects, ["npm test", "npm config", "npm ci"]);
        assert!(runs_correction(&s, &Ran::new("npm ci --prefer-offline")));
        assert!(!runs_correction(&s, &Ran::new("npm install")));
        assert!(!runs_correction(&s, &Ran::new("git status")));
        // A pattern for the right command still works in any shape: alone,
        // in a chain, with wrappers, or matched against the whole line when
        // every part that does something is the learning's.
        let s = showing(
            "use --force-with-lease",
            "git push -f origin main",
            Some(r"git push --force-with-lease"),
        );
        for yes in [
            "git push --force-with-lease origin main",
            "git fetch && git push --force-with-lease origin main",
            "cd repo && git push --force-with-lease",
            "GIT_TRACE=1 git push --force-with-lease origin topic",
        ] {
            assert!(runs_correction(&s, &Ran::new(yes)), "{yes}");
        }
        let s = showing(
            "build from the app folder",
            "make build",
            Some(r"^cd app && make build V=1$"),
        );
        assert!(runs_correction(&s, &Ran::new("cd app && make build V=1")));
        // No pattern, nothing to bound.
        assert!(pattern_subjects(None, &["npm test"], "npm ci").is_empty());
    }
}
