//! `verify_pattern` (DESIGN §3): what re-confirms that a learning applies
//! to a command. terraphim writes a regex (`^git push (-f|--force)\b`);
//! learnsync's own files have held globs (`git push --force*`) and plain
//! prefixes (`git push --force`), which keep their meaning.
//!
//! Which one a pattern is depends on its text alone, so every clone and
//! both tools agree: a pattern with regex syntax — any of `^ $ \ ( ) [ ] {
//! } | +`, or `.*` — is a regex; any other is a legacy pattern, a `*` glob
//! when it has a `*`, else a prefix ending at a word. A regex is compiled
//! only when a command is checked against it (the capture hook runs on
//! every tool call and most calls never reach a pattern), with size limits,
//! by the `regex` crate, whose matching time is linear in the command.

use super::{glob_match, normalise_command};

/// Longest pattern compiled as a regex, in bytes.
const MAX_REGEX_BYTES: usize = 1024;
/// Memory a compiled regex (and its lazy DFA) may use.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// How a `verify_pattern` is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatternKind {
    /// terraphim's meaning: a regex searched for in the command.
    Regex,
    /// A `*` glob over the whole command (learnsync's files before regexes).
    Glob,
    /// The command, or its start up to a word boundary.
    Prefix,
}

/// Which kind `pattern` is, from its text alone (see the module doc).
pub fn pattern_kind(pattern: &str) -> PatternKind {
    const REGEX_SYNTAX: [char; 11] = ['^', '$', '\\', '(', ')', '[', ']', '{', '}', '|', '+'];
    if pattern.contains(REGEX_SYNTAX) || pattern.contains(".*") {
        PatternKind::Regex
    } else if pattern.contains('*') {
        PatternKind::Glob
    } else {
        PatternKind::Prefix
    }
}

/// A pattern ready to match commands.
#[derive(Debug, Clone)]
pub enum VerifyPattern {
    Regex(regex::Regex),
    /// A glob or a prefix, over the command's normal form.
    Legacy {
        kind: PatternKind,
        normalised: String,
    },
}

impl VerifyPattern {
    /// Reads a pattern; the error says why a regex cannot be used, for a
    /// person (`doctor` reports it; the learning works without it).
    pub fn compile(pattern: &str) -> Result<VerifyPattern, String> {
        let pattern = pattern.trim();
        match pattern_kind(pattern) {
            PatternKind::Regex => {
                if pattern.len() > MAX_REGEX_BYTES {
                    return Err(format!(
                        "verify_pattern is a regex of {} bytes; at most {MAX_REGEX_BYTES} are read",
                        pattern.len()
                    ));
                }
                regex::RegexBuilder::new(pattern)
                    .size_limit(REGEX_SIZE_LIMIT)
                    .dfa_size_limit(REGEX_SIZE_LIMIT)
                    .build()
                    .map(VerifyPattern::Regex)
                    .map_err(|e| {
                        let why = match e {
                            regex::Error::CompiledTooBig(_) => "it compiles too big".to_string(),
                            other => other.to_string(),
                        };
                        format!(
                            "verify_pattern {pattern:?} is not a regex this tool can use ({}); the learning is still matched by its command",
                            why.lines().last().unwrap_or("").trim_start_matches("error: ")
                        )
                    })
            }
            kind => Ok(VerifyPattern::Legacy {
                kind,
                normalised: normalise_command(pattern),
            }),
        }
    }

    /// Whether any of `candidates` (a command's normal form and the normal
    /// forms of its chain's parts) matches.
    pub fn matches_any(&self, candidates: &[String]) -> bool {
        match self {
            VerifyPattern::Regex(re) => candidates.iter().any(|c| re.is_match(c)),
            VerifyPattern::Legacy { normalised, .. } if normalised.is_empty() => false,
            VerifyPattern::Legacy {
                kind: PatternKind::Glob,
                normalised,
            } => candidates.iter().any(|c| glob_match(normalised, c)),
            VerifyPattern::Legacy { normalised, .. } => candidates.iter().any(|c| {
                c == normalised
                    || c.strip_prefix(normalised.as_str())
                        .is_some_and(|rest| rest.starts_with(' '))
            }),
        }
    }
}

/// `pattern` compiled, unless it cannot be used or cannot match any of
/// `candidates`: a regex that must start with a literal (`^git push (…)`
/// needs `git push `) is not compiled when no candidate holds that
/// literal, which is most of them for most commands.
fn compiled_for(pattern: &str, candidates: &[String]) -> Option<VerifyPattern> {
    let pattern = pattern.trim();
    if pattern_kind(pattern) == PatternKind::Regex
        && let Some(literal) = leading_literal(pattern)
        && !candidates.iter().any(|c| c.contains(literal))
    {
        return None;
    }
    VerifyPattern::compile(pattern).ok()
}

/// Whether a command, given as `candidates` (its normal form and the normal
/// forms of its chain's parts), matches `pattern`; a pattern that cannot be
/// used matches nothing.
#[cfg(test)]
fn command_matches(pattern: &str, candidates: &[String]) -> bool {
    compiled_for(pattern, candidates).is_some_and(|p| p.matches_any(candidates))
}

/// Whether `pattern` matches `command` within `subjects` (the programs and
/// subcommands its learning is about, as `subject_parts` names them): a
/// part of the line of one of those subjects matches on its own, or the
/// whole line matches and every part of it is of one of them or trivial
/// (`cd`, `echo`). A pattern is
/// its writer's text, and other agents' hooks act on it (§9.1): however
/// broad (`^(git|ls)`), it speaks only for commands of the learning's own
/// program and subcommand, never for `git status` after a lesson about
/// `npm test`. Compiled once, whatever the number of parts, and only when
/// the line has a part of those subjects.
pub fn match_within(pattern: &str, subjects: &[String], command: &str) -> bool {
    let parts = super::subject_parts(command);
    let ours = |s: &Option<String>| s.as_ref().is_some_and(|s| subjects.contains(s));
    let texts: Vec<String> = parts
        .iter()
        .filter(|(s, _)| ours(s))
        .map(|(_, text)| text.clone())
        .collect();
    if texts.is_empty() {
        return false;
    }
    let whole = normalise_command(command);
    let Some(compiled) = compiled_for(pattern, std::slice::from_ref(&whole)) else {
        return false;
    };
    // `cd app && make build`: a trivial part beside the learning's own
    // does not stop the whole line from being matched.
    let trivial = |s: &Option<String>| {
        s.as_deref()
            .and_then(|s| s.split(' ').next())
            .is_some_and(super::program::is_trivial)
    };
    compiled.matches_any(&texts)
        || (parts.iter().all(|(s, _)| ours(s) || trivial(s)) && compiled.matches_any(&[whole]))
}

/// The literal every match of `regex` contains: the run of plain characters
/// it starts with (after `^`), without a last one a quantifier makes
/// optional. `None` when there is none or a top-level `|` makes it optional.
fn leading_literal(regex: &str) -> Option<&str> {
    let mut depth = 0usize;
    let mut escaped = false;
    for c in regex.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '(' | '[' => depth += 1,
            ')' | ']' => depth = depth.saturating_sub(1),
            '|' if depth == 0 => return None,
            _ => {}
        }
    }
    let body = regex.strip_prefix('^').unwrap_or(regex);
    const SPECIAL: &[char] = &[
        '\\', '.', '[', ']', '(', ')', '{', '}', '*', '+', '?', '|', '^', '$',
    ];
    let end = body.find(SPECIAL).unwrap_or(body.len());
    let mut literal = &body[..end];
    if body[end..].starts_with(['*', '?', '{']) {
        // `ab*`: the `b` may be absent.
        literal = match literal.char_indices().last() {
            Some((i, _)) => &literal[..i],
            None => literal,
        };
    }
    (!literal.is_empty()).then_some(literal)
}

/// Why `pattern` cannot be used, if it cannot: what `doctor` reports.
pub fn pattern_problem(pattern: &str) -> Option<String> {
    VerifyPattern::compile(pattern).err()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, command: &str) -> bool {
        let candidates = vec![normalise_command(command)];
        VerifyPattern::compile(pattern)
            .unwrap_or_else(|e| panic!("{e}"))
            .matches_any(&candidates)
    }

    #[test]
    fn the_kind_of_a_pattern_is_read_from_its_text() {
        for (pattern, kind) in [
            (r"^git push (-f|--force)\b", PatternKind::Regex),
            ("^git push (-f|--force) .*", PatternKind::Regex),
            ("git push .* --force", PatternKind::Regex),
            ("npm publish$", PatternKind::Regex),
            ("rm -r[f]", PatternKind::Regex),
            ("a{2}", PatternKind::Regex),
            ("c\\+\\+", PatternKind::Regex),
            ("git push --force*", PatternKind::Glob),
            ("*.tmp", PatternKind::Glob),
            ("kubectl delete ns ?", PatternKind::Prefix),
            ("git push --force", PatternKind::Prefix),
        ] {
            assert_eq!(pattern_kind(pattern), kind, "{pattern}");
        }
    }

    #[test]
    fn terraphim_regexes_match_the_commands_they_describe() {
        let p = "^git push (-f|--force) .*";
        assert!(matches(p, "git push -f origin main"));
        assert!(matches(p, "git   push --force origin"));
        assert!(!matches(p, "git push --force-with-lease origin main"));
        assert!(!matches(p, "echo git push -f x"));
        assert!(matches(r"^git push (-f|--force)\b", "git push -f"));
        assert!(matches(
            r"^git push (-f|--force)\b",
            "GIT_SSH=x git push -f"
        ));
        // Unanchored: found anywhere, as terraphim searches.
        assert!(matches(
            "drop (table|database)",
            "psql -c 'drop table users'"
        ));
    }

    #[test]
    fn legacy_globs_and_prefixes_keep_their_meaning() {
        assert!(matches("git push --force*", "git push --force origin"));
        assert!(matches("git push --force*", "git push --force-with-lease"));
        assert!(!matches("git push --force*", "git pull"));
        assert!(matches("git push --force", "git push --force origin"));
        assert!(!matches("git push --force", "git push --force-with-lease"));
        assert!(matches("npm  publish", "npm publish"));
    }

    #[test]
    fn a_regex_is_skipped_uncompiled_only_when_it_cannot_match() {
        for (regex, literal) in [
            ("^git push (-f|--force) .*", Some("git push ")),
            (r"^git push (-f|--force)\b", Some("git push ")),
            ("npm publish$", Some("npm publish")),
            ("ab*c", Some("a")),
            ("rm -rf? /", Some("rm -r")),
            ("a{2}", None),
            ("^(git|hg) push", None),
            ("git push|hg push", None),
            ("(?i)^GIT PUSH", None),
            (".*force", None),
        ] {
            assert_eq!(leading_literal(regex), literal, "{regex}");
        }
        let candidates = vec![normalise_command("git push --force origin")];
        assert!(command_matches("^git push (-f|--force) .*", &candidates));
        assert!(!command_matches("^npm (publish|pack)", &candidates));
        assert!(command_matches("(?i)^GIT PUSH", &candidates));
        assert!(!command_matches("^git push (-f", &candidates), "unusable");
        assert!(command_matches("git push --force*", &candidates));
    }

    #[test]
    fn a_bad_regex_is_a_problem_said_for_a_person_not_a_panic() {
        for bad in ["^git push (-f", "(?<=x)y", "[z-a]"] {
            let why = pattern_problem(bad).unwrap_or_else(|| panic!("{bad} accepted"));
            assert!(why.contains("is not a regex"), "{why}");
            assert!(!why.contains('\n'), "{why}");
        }
        let huge = format!("^({})", "a|".repeat(600));
        assert!(pattern_problem(&huge).is_some());
        let blowup = "^(\\w{100}){100}$";
        let why = pattern_problem(blowup).expect("over the size limit");
        assert!(why.contains("too big"), "{why}");
        assert_eq!(pattern_problem("git push --force*"), None);
    }
}
