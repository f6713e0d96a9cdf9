//! The Claude-like shapes, normalised: Claude Code itself, terraphim's
//! wrapper (`tool_result` with an exit code) and Codex hooks (Claude's
//! fields plus `turn_id`, and `tool_response` as the model-facing string).

use std::borrow::Cow;

use super::event::{AgentKind, CommandResult, HookEvent, ToolEvent};
use super::wire::{Raw, Shape, ToolResponse, ToolResult, is_shell_tool};

/// A Claude-like payload as one event; `None` for a tool event without a
/// shell command and for a hook event learnsync does not handle.
pub(super) fn claude_like<'a>(
    raw: Raw<'a>,
    shape: Shape,
    event_override: Option<HookEvent>,
) -> Option<ToolEvent<'a>> {
    let event = match event_override {
        Some(e) => e,
        None => match raw.hook_event_name.as_deref() {
            Some(name) => HookEvent::parse(name)?,
            None => infer_event(&raw)?,
        },
    };
    let agent = match shape {
        Shape::Terraphim => AgentKind::TerraphimWrapper,
        Shape::Codex => AgentKind::Codex,
        _ => AgentKind::Claude,
    };
    let command = raw.tool_input.and_then(|t| t.0.command.0);
    let tool_event = !matches!(event, HookEvent::UserPromptSubmit | HookEvent::SessionStart);
    // A tool event is only worth anything with a shell command in it.
    if tool_event
        && (command.is_none() || raw.tool_name.as_deref().is_some_and(|n| !is_shell_tool(n)))
    {
        return None;
    }

    let mut ev = ToolEvent {
        agent,
        event,
        session_id: raw.session_id.0,
        cwd: raw.cwd.0,
        turn_id: raw.turn_id.0,
        tool_use_id: raw.tool_use_id.0,
        transcript_path: raw.transcript_path.0,
        tool_name: raw.tool_name.0,
        command,
        outcome: CommandResult::Unknown,
        stdout: None,
        stderr: None,
        error_text: None,
        prompt: None,
        source: None,
        interrupted: raw.is_interrupt.unwrap_or(false),
    };

    match event {
        HookEvent::UserPromptSubmit => {
            ev.prompt = raw.prompt.0;
        }
        HookEvent::SessionStart => {
            ev.source = raw.source.0;
        }
        HookEvent::PreToolUse => {}
        HookEvent::PostToolUseFailure => {
            let (code, rest) = match raw.error.0 {
                Some(err) => split_exit_code_line(err),
                None => (None, None),
            };
            ev.error_text = rest;
            ev.outcome = CommandResult::Failure {
                exit_code: code.and_then(|c| i32::try_from(c).ok()),
            };
            fill_from_response(&mut ev, raw.tool_response, raw.tool_result.map(|r| r.0));
            if let Some(code) = code {
                // The error line is the authority for Claude's failures.
                ev.outcome = CommandResult::Failure {
                    exit_code: i32::try_from(code).ok(),
                };
            } else if !ev.outcome.is_failure() {
                ev.outcome = CommandResult::Failure { exit_code: None };
            }
        }
        HookEvent::PostToolUse => {
            // Claude fires PostToolUse only on success; a payload that carries
            // an exit code (terraphim wrapper, future versions) says otherwise.
            ev.outcome = match shape {
                Shape::Claude => CommandResult::Success,
                _ => CommandResult::Unknown,
            };
            fill_from_response(&mut ev, raw.tool_response, raw.tool_result.map(|r| r.0));
            if let Some(err) = raw.error.0 {
                let (code, rest) = split_exit_code_line(err);
                ev.error_text = rest;
                if code.is_some() {
                    ev.outcome = CommandResult::from_exit(code);
                }
            }
        }
    }
    if ev.interrupted && ev.outcome == CommandResult::Success {
        ev.outcome = CommandResult::Unknown;
    }
    Some(ev)
}

fn infer_event(raw: &Raw<'_>) -> Option<HookEvent> {
    if raw.error.is_some() {
        Some(HookEvent::PostToolUseFailure)
    } else if raw.tool_response.is_some() || raw.tool_result.is_some() {
        Some(HookEvent::PostToolUse)
    } else if raw.tool_input.is_some() {
        Some(HookEvent::PreToolUse)
    } else if raw.prompt.is_some() {
        Some(HookEvent::UserPromptSubmit)
    } else {
        None
    }
}

fn fill_from_response<'a>(
    ev: &mut ToolEvent<'a>,
    response: Option<ToolResponse<'a>>,
    result: Option<ToolResult<'a>>,
) {
    match response {
        Some(ToolResponse::Text(text)) => {
            // Codex: the output string the model saw, maybe under a header
            // whose lines change every run (`Chunk ID`, `Wall time`): only
            // what the command printed is its output.
            let (code, body) = split_codex_header(&text);
            if code.is_some() {
                ev.outcome = CommandResult::from_exit(code);
            }
            ev.stdout = Some(tail_from(text, body));
        }
        Some(ToolResponse::Object(obj)) => {
            ev.stdout = obj.stdout.0;
            ev.stderr = obj.stderr.0;
            if obj.interrupted.0 == Some(true) {
                ev.interrupted = true;
            }
            let code = obj.exit_code.0.or(obj.exit_code_camel.0);
            if code.is_some() {
                ev.outcome = CommandResult::from_exit(code);
            } else if obj.is_error.0 == Some(true) {
                ev.outcome = CommandResult::Failure { exit_code: None };
            }
        }
        Some(ToolResponse::Other) | None => {}
    }
    if let Some(res) = result {
        if res.stdout.0.is_some() {
            ev.stdout = res.stdout.0;
        }
        if res.stderr.0.is_some() {
            ev.stderr = res.stderr.0;
        }
        if res.exit_code.0.is_some() {
            ev.outcome = CommandResult::from_exit(res.exit_code.0);
        }
    }
}

/// `"Exit code 2\nrest"` → `(Some(2), Some("rest"))`; anything else is all rest.
fn split_exit_code_line(err: Cow<'_, str>) -> (Option<i64>, Option<Cow<'_, str>>) {
    let (first, rest_start) = match err.find('\n') {
        Some(i) => (&err[..i], i + 1),
        None => (&err[..], err.len()),
    };
    let Some(code) = first
        .trim_end_matches('\r')
        .trim()
        .strip_prefix("Exit code ")
        .and_then(|n| n.trim().parse::<i64>().ok())
    else {
        return (None, non_empty(err));
    };
    (Some(code), non_empty(tail_from(err, rest_start)))
}

/// `text` from byte `start` on (a line boundary), borrowed when it was.
fn tail_from(text: Cow<'_, str>, start: usize) -> Cow<'_, str> {
    match text {
        Cow::Borrowed(s) => Cow::Borrowed(&s[start..]),
        Cow::Owned(s) => Cow::Owned(s[start..].to_string()),
    }
}

fn non_empty(s: Cow<'_, str>) -> Option<Cow<'_, str>> {
    if s.trim().is_empty() { None } else { Some(s) }
}

/// Lines of a Codex output header, at most: a longer run is not one.
const CODEX_HEADER_LINES: usize = 8;

/// Codex's shell output as the model saw it, split at the end of its header:
/// the exit code the header gives, and the byte where the command's own
/// output starts (0 when the text has no header). Codex writes two shapes
/// (codex-rs `format_exec_output_for_model`, unified exec's
/// `format_response`), each a few `Name: value` lines, then `Output:`, then
/// the output:
///
/// ```text
/// Exit code: 1                    Chunk ID: 61b1
/// Wall time: 0.3 seconds          Wall time: 0.0521 seconds
/// Total output lines: 420         Process exited with code 1
/// Output:                         Original token count: 42
/// <output>                        Output:
///                                 <output>
/// ```
///
/// `Total output lines`, `Original token count`, `Process running with
/// session ID` and `Chunk ID` come and go; the header is recognised only
/// from the first line, so output that merely contains such a line stays
/// whole. Chunk ids and wall times change on every run: kept, they made
/// each repeat of a failure look new (another L0 learning, a title
/// "…failed: Chunk ID: 61b1").
fn split_codex_header(text: &str) -> (Option<i64>, usize) {
    let mut code = None;
    let mut at = 0;
    for line in text.split_inclusive('\n').take(CODEX_HEADER_LINES) {
        let t = line.trim();
        if t == "Output:" || t == "Final output:" {
            return (code, at + line.len());
        }
        match codex_header_line(t) {
            Some(exit) => code = exit.or(code),
            None => break,
        }
        at += line.len();
    }
    // Header lines and no `Output:` (nothing printed, or a shape to come):
    // the output is what follows them.
    (code, at)
}

/// One line of a Codex output header: `Some(exit code it gives)`, `None`
/// for a line that is not one.
fn codex_header_line(line: &str) -> Option<Option<i64>> {
    const EXIT: [&str; 2] = ["Exit code:", "Process exited with code"];
    const OTHER: [&str; 5] = [
        "Chunk ID:",
        "Wall time:",
        "Total output lines:",
        "Original token count:",
        "Process running with session ID",
    ];
    if let Some(n) = EXIT.iter().find_map(|p| line.strip_prefix(p)) {
        return Some(n.trim().parse::<i64>().ok());
    }
    OTHER.iter().any(|p| line.starts_with(p)).then_some(None)
}

#[cfg(test)]
mod tests {
    use super::split_codex_header;

    #[test]
    fn codex_headers_are_split_from_the_output_they_head() {
        let cases: [(&str, Option<i64>, &str); 7] = [
            (
                "Exit code: 1\nWall time: 0.3 seconds\nOutput:\nerror: boom\n",
                Some(1),
                "error: boom\n",
            ),
            (
                "Exit code: 2\nWall time: 1.1 seconds\nTotal output lines: 900\nOutput:\nfatal\n",
                Some(2),
                "fatal\n",
            ),
            (
                "Chunk ID: 61b1\nWall time: 0.0521 seconds\nProcess exited with code 127\nOriginal token count: 9\nOutput:\nsh: nope: not found\n",
                Some(127),
                "sh: nope: not found\n",
            ),
            (
                "Chunk ID: 9f\r\nWall time: 5.0002 seconds\r\nProcess running with session ID 3\r\nOutput:\r\nwaiting\r\n",
                None,
                "waiting\r\n",
            ),
            // Header lines with nothing printed after them.
            ("Exit code: 3\nWall time: 0 seconds", Some(3), ""),
            // Output that only mentions such a line is all output.
            (
                "building\nExit code: 1\nOutput:\nx\n",
                None,
                "building\nExit code: 1\nOutput:\nx\n",
            ),
            (
                "ERR_PNPM_NO_SCRIPT  Missing script: lint\n",
                None,
                "ERR_PNPM_NO_SCRIPT  Missing script: lint\n",
            ),
        ];
        for (text, code, output) in cases {
            let (got_code, start) = split_codex_header(text);
            assert_eq!((got_code, &text[start..]), (code, output), "{text:?}");
        }
    }
}
