//! What a captured tool call means, as pure functions: the L0 learning for a
//! failure, whether a later command fixes it, the correction a prompt gives.
//!
//! No I/O here (`hook.rs` reads and writes); every text that may hold a
//! secret is redacted before it is returned, and every long text is bounded.

use std::borrow::Cow;

use super::payload::ToolEvent;
use crate::learning::{Learning, TrustLevel};
use crate::shell;
use crate::timestamp::Timestamp;
use crate::yaml::Value;

/// Most bytes of command output kept in `error_context` (head and tail).
pub const MAX_ERROR_BYTES: usize = 4 * 1024;
/// Most bytes of a command kept in `original_command` / `correction`.
pub const MAX_COMMAND_BYTES: usize = 2 * 1024;
/// Longest piece of a command or error line shown in a title.
const TITLE_PIECE_CHARS: usize = 80;

/// `text` if it fits in `max` bytes, else its head and tail around a
/// `…[truncated N bytes]…` marker; cuts fall on character boundaries.
pub fn bound(text: &str, max: usize) -> Cow<'_, str> {
    match ends(text, max) {
        None => Cow::Borrowed(text),
        Some((head, tail)) => {
            let dropped = text.len() - head.len() - tail.len();
            Cow::Owned(format!("{head}\n…[truncated {dropped} bytes]…\n{tail}"))
        }
    }
}

/// `text` if it fits in `max` bytes, else its head and tail joined by a
/// line break, with no marker: what a lookup reads, where a marker's words
/// would be matched like the text's own.
pub fn head_and_tail(text: &str, max: usize) -> Cow<'_, str> {
    match ends(text, max) {
        None => Cow::Borrowed(text),
        Some((head, tail)) => Cow::Owned(format!("{head}\n{tail}")),
    }
}

/// The first and last `max / 2` bytes of a text longer than `max`, cut on
/// character boundaries; `None` when it fits.
fn ends(text: &str, max: usize) -> Option<(&str, &str)> {
    if text.len() <= max {
        return None;
    }
    let half = max / 2;
    let mut head_end = half;
    while !text.is_char_boundary(head_end) {
        head_end -= 1;
    }
    let mut tail_start = text.len() - half;
    while !text.is_char_boundary(tail_start) {
        tail_start += 1;
    }
    Some((&text[..head_end], &text[tail_start..]))
}

/// Text as a person would read it on a terminal: ANSI escape sequences
/// removed, `\r\n` and lone `\r` as `\n`, and every other control character
/// (C0 but tab and newline, DEL, C1) dropped. Terminal output is full of
/// them, and YAML forbids several (a raw DEL made a learning unreadable).
pub fn printable(text: &str) -> Cow<'_, str> {
    let clean = |c: char| c == '\n' || c == '\t' || !c.is_control();
    if text.chars().all(clean) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.next() {
                // CSI `ESC [ … final`; OSC `ESC ] … BEL` (or `ESC \\`); else ESC + one char.
                Some('[') => {
                    for n in chars.by_ref() {
                        if ('\u{40}'..='\u{7e}').contains(&n) {
                            break;
                        }
                    }
                }
                Some(']') => {
                    while let Some(n) = chars.next() {
                        if n == '\u{7}' || (n == '\u{1b}' && chars.next_if_eq(&'\\').is_some()) {
                            break;
                        }
                    }
                }
                _ => {}
            },
            '\r' if chars.peek() != Some(&'\n') => out.push('\n'),
            c if clean(c) => out.push(c),
            _ => {}
        }
    }
    Cow::Owned(out)
}

/// First `n` characters of one line, with `…` when cut.
fn clip(line: &str, n: usize) -> String {
    let line = line.trim();
    match line.char_indices().nth(n) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_string(),
    }
}

/// The line of an error worth a title: the first with an error word, else
/// the first non-blank one.
fn headline(text: &str) -> Option<&str> {
    let mut first = None;
    for line in text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(400)
    {
        let lower = line.to_ascii_lowercase();
        if [
            "error",
            "fatal",
            "denied",
            "rejected",
            "not found",
            "failed",
            "no such",
        ]
        .iter()
        .any(|w| lower.contains(w))
        {
            return Some(line);
        }
        first.get_or_insert(line);
    }
    first
}

/// Everything a failure is filed under: its normal form and error signature
/// (the recurrence key) and the program and subcommand a fix must share.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailureKey {
    pub normalised: String,
    pub signature: String,
    pub program: Option<(String, Option<String>)>,
}

/// An L0 learning for a failed shell command, redacted, plus its key.
/// `None` when the event is not a failed command or the command is ignored.
pub fn failure_learning(
    ev: &ToolEvent<'_>,
    agent: &str,
    ignore: &[String],
    now: Timestamp,
) -> Option<(Learning, FailureKey)> {
    let super::payload::CommandResult::Failure { exit_code } = ev.outcome else {
        return None;
    };
    if ev.interrupted {
        // The user stopped it: not a mistaken command.
        return None;
    }
    let raw_command = printable(ev.command.as_deref()?);
    let raw_command = raw_command.trim();
    if raw_command.is_empty() || shell::matches_ignore(raw_command, ignore) {
        return None;
    }
    // Redact whole texts first, so a cut can never leave half a secret behind.
    let output = printable(&error_text(ev)).into_owned();
    let (command, output_redacted) = redact_together(raw_command, &output);
    let command = bound(&command, MAX_COMMAND_BYTES).into_owned();
    let error_context = bound(output_redacted.trim_end(), MAX_ERROR_BYTES).into_owned();

    let parts = shell::split_chain(&command);
    let failing = if parts.len() > 1 {
        shell::failing_subcommand(&command, exit_code, &output_redacted).map(str::to_string)
    } else {
        None
    };
    let key_command = failing.as_deref().unwrap_or(&command);
    let program = shell::program_key(key_command);

    let shown = clip(key_command, TITLE_PIECE_CHARS);
    let title = match headline(&error_context) {
        Some(line) => format!("`{shown}` failed: {}", clip(line, TITLE_PIECE_CHARS)),
        None => match exit_code {
            Some(code) => format!("`{shown}` failed with exit code {code}"),
            None => format!("`{shown}` failed"),
        },
    };

    let mut l = Learning::new(Learning::new_id(), agent.to_string(), title, now);
    l.trust_level = TrustLevel::L0;
    l.source = "bash_hook".into();
    if let Some((prog, sub)) = &program {
        l.keywords.push(prog.clone());
        if let Some(sub) = sub {
            l.keywords.push(sub.clone());
        }
    }
    l.original_command = Some(command.clone());
    l.error_context = (!error_context.is_empty()).then_some(error_context);
    let mut extra = |k: &str, v: Option<&str>| {
        if let Some(v) = v.map(printable).filter(|v| !v.trim().is_empty()) {
            let v = bound(&crate::redact::redact(v.trim()), MAX_COMMAND_BYTES).into_owned();
            l.extra.push((k.to_string(), Value::String(v)));
        }
    };
    extra("session_id", ev.session_id.as_deref());
    extra("project", ev.cwd.as_deref().and_then(project_name));
    extra("failing_subcommand", failing.as_deref());
    extra("capture_agent", Some(ev.agent.as_str()));
    if let Some(code) = exit_code {
        l.extra
            .push(("exit_code".into(), Value::Number(i64::from(code).into())));
    }
    l.redact();
    let key = failure_key(&l)?;
    Some((l, key))
}

/// Redacts a command and its output as one: a secret the redactor recognises
/// in one of them (by its format or its context, `GITEA_TOKEN=…`) is a secret
/// wherever else it appears, even bare (`invalid token 3f9a…` in the output).
pub fn redact_together(command: &str, output: &str) -> (String, String) {
    let mut values: Vec<(String, &'static str)> = Vec::new();
    for text in [command, output] {
        for f in crate::redact::findings(text) {
            let Some(found) = text.get(f.start..f.end) else {
                continue;
            };
            // The value inside a finding that also covers its context
            // (`Authorization: token <value>`, `KEY=<value>`).
            let value = found
                .split(|c: char| {
                    !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '+' | '~'))
                })
                .max_by_key(|w| w.len())
                .unwrap_or(found);
            if value.len() >= 12 && !values.iter().any(|(v, _)| v == value) {
                values.push((value.to_string(), f.kind));
            }
        }
    }
    let redact = |text: &str| {
        let mut out = crate::redact::redact(text).into_owned();
        for (value, kind) in &values {
            if out.contains(value.as_str()) {
                out = out.replace(value.as_str(), &format!("[REDACTED:{kind}]"));
            }
        }
        out
    };
    (redact(command), redact(output))
}

/// The recurrence key of a stored learning: normal form of its command and
/// signature of its stored (redacted, bounded) error. The index is built
/// with the same function, so a capture and a sync agree.
pub fn failure_key(l: &Learning) -> Option<FailureKey> {
    let command = l.original_command.as_deref()?;
    let failing = l.extra_str("failing_subcommand");
    Some(FailureKey {
        normalised: shell::normalise_command(command),
        signature: shell::error_signature(l.error_context.as_deref().unwrap_or("")),
        program: shell::program_key(failing.unwrap_or(command)),
    })
}

/// The error a failure showed: Claude's `error` text, else stderr, else stdout.
fn error_text<'a>(ev: &'a ToolEvent<'_>) -> Cow<'a, str> {
    for part in [&ev.error_text, &ev.stderr, &ev.stdout]
        .into_iter()
        .flatten()
    {
        if !part.trim().is_empty() {
            return Cow::Borrowed(part.as_ref());
        }
    }
    Cow::Borrowed("")
}

/// The basename of a working directory: the project a capture records and
/// a suggestion favours.
pub fn project_name(cwd: &str) -> Option<&str> {
    cwd.trim_end_matches(['/', '\\'])
        .rsplit(['/', '\\'])
        .next()
        .filter(|s| !s.is_empty())
}

/// How a successful command relates to a remembered failure of the same session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FixMatch {
    /// Another program or subcommand: unrelated.
    Unrelated,
    /// The same command again: the failure was transient, not a mistake.
    Retry,
    /// Same program and subcommand, different command: the correction.
    Fix,
}

/// Whether `command` (which succeeded) fixes a failure with this key.
pub fn fix_match(failed: &FailureKey, command: &str) -> FixMatch {
    let Some(program) = &failed.program else {
        return FixMatch::Unrelated;
    };
    if shell::program_key(command).as_ref() != Some(program) {
        return FixMatch::Unrelated;
    }
    let normalised = shell::normalise_command(command);
    let failed_part = failed.normalised.rsplit(" && ").next().unwrap_or("");
    if normalised == failed.normalised || normalised == failed_part {
        FixMatch::Retry
    } else {
        FixMatch::Fix
    }
}

/// The learning with `correction` attached: L1, `source: auto_extract`, and
/// an `updated_at` strictly after the previous one, so the corrected version
/// wins the last-writer-wins merge with the capture it replaces (§6).
pub fn with_correction(mut l: Learning, correction: &str, now: Timestamp) -> Learning {
    let correction = printable(correction);
    let correction =
        bound(&crate::redact::redact(correction.trim()), MAX_COMMAND_BYTES).into_owned();
    l.correction = Some(correction);
    l.source = "auto_extract".into();
    l.trust_level = TrustLevel::L1;
    if l.kind.is_none() {
        l.kind = Some("correction".into());
    }
    l.updated_at = now.max(Timestamp::from_unix(l.updated_at.unix() + 1));
    l.redact();
    l
}

/// A correction typed by the user: `(use X, instead of Y)` with both sides
/// trimmed of quotes, or `None` when the prompt gives none.
pub fn prompt_correction(prompt: &str) -> Option<(String, String)> {
    let (x, y) = shell::parse_correction(prompt)?;
    let clean = |s: &str| {
        s.trim()
            .trim_matches(|c| matches!(c, '`' | '"' | '\'' | ' '))
            .to_string()
    };
    let (x, y) = (clean(x), clean(y));
    (!x.is_empty() && !y.is_empty() && x != y).then_some((x, y))
}

/// Whether a prompt's "instead of Y" names a command worth a learning of its
/// own when no failure of the session matches: quoted in the prompt, or more
/// than one word ("use tabs instead of spaces" is a style, not a command).
pub fn names_a_command(prompt: &str, mistaken: &str) -> bool {
    let quoted = ['`', '"', '\'']
        .iter()
        .any(|q| prompt.contains(&format!("{q}{mistaken}{q}")));
    quoted || mistaken.split_whitespace().count() > 1
}

/// A new L1 learning for a prompt correction that matched no failure.
pub fn prompt_learning(
    correction: &str,
    mistaken: &str,
    agent: &str,
    session: Option<&str>,
    now: Timestamp,
) -> Learning {
    let title = format!(
        "Use `{}` instead of `{}`",
        clip(&printable(correction), TITLE_PIECE_CHARS),
        clip(&printable(mistaken), TITLE_PIECE_CHARS)
    );
    let mut l = Learning::new(Learning::new_id(), agent.to_string(), title, now);
    l.original_command = Some(bound(&printable(mistaken), MAX_COMMAND_BYTES).into_owned());
    if let Some((prog, _)) = shell::program_key(mistaken) {
        l.keywords.push(prog);
    }
    if let Some(s) = session {
        l.extra.push((
            "session_id".into(),
            Value::String(crate::redact::redact(s).into_owned()),
        ));
    }
    with_correction(l, correction, now)
}

/// Whether a remembered failure's command is the one a prompt's "instead of
/// Y" talks about.
pub fn mentions(failed_normalised: &str, mistaken: &str) -> bool {
    let y = shell::normalise_command(mistaken);
    !y.is_empty() && failed_normalised.contains(&y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::payload::{self, Format};

    fn ev(json: &str) -> ToolEvent<'_> {
        payload::parse(json.as_bytes(), Format::Auto, None)
            .expect("parses")
            .expect("an event")
    }

    const FAIL: &str = r#"{"session_id":"s1","cwd":"/home/me/shop","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"cd app && git push -f origin main"},"error":"Exit code 1\nTo example.com:shop.git\n ! [remote rejected] main -> main (protected branch)\nerror: failed to push some refs"}"#;

    #[test]
    fn a_failed_command_becomes_an_l0_learning_with_its_context() {
        let ignore = shell::default_ignore_patterns();
        let (l, key) = failure_learning(&ev(FAIL), "laptop", &ignore, Timestamp::from_unix(1))
            .expect("a learning");
        assert_eq!(l.trust_level, TrustLevel::L0);
        assert_eq!(l.source, "bash_hook");
        assert_eq!(l.agent_id, "laptop");
        assert_eq!(
            l.original_command.as_deref(),
            Some("cd app && git push -f origin main")
        );
        assert!(
            l.title.starts_with("`git push -f origin main` failed: "),
            "{}",
            l.title
        );
        assert!(
            l.error_context
                .as_deref()
                .is_some_and(|e| !e.contains("Exit code"))
        );
        assert_eq!(l.extra_str("project"), Some("shop"));
        assert_eq!(l.extra_str("session_id"), Some("s1"));
        assert_eq!(
            l.extra_str("failing_subcommand"),
            Some("git push -f origin main")
        );
        assert_eq!(key.program, Some(("git".into(), Some("push".into()))));
        assert_eq!(failure_key(&l), Some(key));
    }

    #[test]
    fn ignored_and_successful_commands_are_not_learnings() {
        let ignore = shell::default_ignore_patterns();
        let test = FAIL.replace("git push -f origin main", "cargo test --lib");
        assert!(failure_learning(&ev(&test), "a", &ignore, Timestamp::now()).is_none());
        let ok = r#"{"session_id":"s1","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{"stdout":"x"}}"#;
        assert!(failure_learning(&ev(ok), "a", &ignore, Timestamp::now()).is_none());
    }

    #[test]
    fn printable_text_loses_terminal_escapes_and_control_characters() {
        assert_eq!(printable("plain\ttext\n"), "plain\ttext\n");
        assert_eq!(
            printable("\u{1b}[31merror\u{1b}[0m: x\r\nnext\rover\u{7f}\u{85}\u{0}"),
            "error: x\nnext\nover"
        );
        assert_eq!(printable("\u{1b}]0;title\u{7}after"), "after");
    }

    #[test]
    fn whatever_a_payload_holds_the_learning_reads_back() {
        let nasty: String = (0u32..0x250).filter_map(char::from_u32).collect();
        let payload = serde_json::json!({
            "session_id": nasty, "cwd": nasty, "hook_event_name": "PostToolUseFailure",
            "tool_name": "Bash", "tool_input": {"command": format!("git push {nasty}")},
            "error": format!("Exit code 1\n{nasty}"),
        })
        .to_string();
        let (l, _) =
            failure_learning(&ev(&payload), "a", &[], Timestamp::from_unix(1)).expect("a learning");
        let text = l.to_markdown();
        assert_eq!(Learning::parse(text.as_bytes()).as_ref(), Ok(&l), "{text}");
    }

    #[test]
    fn bound_keeps_head_and_tail_and_says_how_much_went() {
        let text = "é".repeat(5000);
        let out = bound(&text, 1001);
        assert!(out.len() < 1100);
        assert!(out.contains("…[truncated "));
        assert!(out.starts_with('é') && out.ends_with('é'));
        assert_eq!(bound("short", 10), "short");
    }

    #[test]
    fn a_fix_shares_program_and_subcommand_but_is_not_a_retry() {
        let key = FailureKey {
            normalised: "git push -f origin main".into(),
            signature: String::new(),
            program: Some(("git".into(), Some("push".into()))),
        };
        assert_eq!(
            fix_match(&key, "git push --force-with-lease origin main"),
            FixMatch::Fix
        );
        assert_eq!(fix_match(&key, "git  push -f origin main"), FixMatch::Retry);
        assert_eq!(fix_match(&key, "git status"), FixMatch::Unrelated);
        assert_eq!(fix_match(&key, "ls"), FixMatch::Unrelated);
    }

    #[test]
    fn a_correction_moves_updated_at_past_the_capture() {
        let now = Timestamp::from_unix(100);
        let l = Learning::new("learning-x".into(), "a".into(), "t".into(), now);
        let fixed = with_correction(l, "git push --force-with-lease", now);
        assert_eq!(fixed.updated_at, Timestamp::from_unix(101));
        assert_eq!(fixed.source, "auto_extract");
        assert_eq!(fixed.trust_level, TrustLevel::L1);
    }

    #[test]
    fn prompts_give_corrections_and_commands_are_told_from_styles() {
        let p = "No. Use `git push --force-with-lease` instead of `git push -f` on this repo.";
        let (x, y) = prompt_correction(p).expect("a correction");
        assert_eq!(
            (x.as_str(), y.as_str()),
            ("git push --force-with-lease", "git push -f")
        );
        assert!(names_a_command(p, &y));
        assert!(!names_a_command("use tabs instead of spaces", "spaces"));
        assert!(prompt_correction("please fix the build").is_none());
        assert!(mentions("git push -f origin main", "git push -f"));
    }
}
