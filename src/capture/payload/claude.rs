//! The Claude-like shapes, normalised: Claude Code itself, terraphim's
//! wrapper (`tool_result` with an exit code) and Codex hooks (Claude's
//! fields plus `turn_id`, and `tool_response` as the model-facing string).

use std::borrow::Cow;

use super::event::{AgentKind, HookEvent, Outcome, ToolEvent};
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
    if event != HookEvent::UserPromptSubmit {
        // A tool event is only worth anything with a shell command in it.
        if command.is_none() || raw.tool_name.as_deref().is_some_and(|n| !is_shell_tool(n)) {
            return None;
        }
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
        outcome: Outcome::Unknown,
        stdout: None,
        stderr: None,
        error_text: None,
        prompt: None,
        interrupted: raw.is_interrupt.unwrap_or(false),
    };

    match event {
        HookEvent::UserPromptSubmit => {
            ev.prompt = raw.prompt.0;
        }
        HookEvent::PreToolUse => {}
        HookEvent::PostToolUseFailure => {
            let (code, rest) = match raw.error.0 {
                Some(err) => split_exit_code_line(err),
                None => (None, None),
            };
            ev.error_text = rest;
            ev.outcome = Outcome::Failure {
                exit_code: code.and_then(|c| i32::try_from(c).ok()),
            };
            fill_from_response(&mut ev, raw.tool_response, raw.tool_result.map(|r| r.0));
            if let Some(code) = code {
                // The error line is the authority for Claude's failures.
                ev.outcome = Outcome::Failure {
                    exit_code: i32::try_from(code).ok(),
                };
            } else if !ev.outcome.is_failure() {
                ev.outcome = Outcome::Failure { exit_code: None };
            }
        }
        HookEvent::PostToolUse => {
            // Claude fires PostToolUse only on success; a payload that carries
            // an exit code (terraphim wrapper, future versions) says otherwise.
            ev.outcome = match shape {
                Shape::Claude => Outcome::Success,
                _ => Outcome::Unknown,
            };
            fill_from_response(&mut ev, raw.tool_response, raw.tool_result.map(|r| r.0));
            if let Some(err) = raw.error.0 {
                let (code, rest) = split_exit_code_line(err);
                ev.error_text = rest;
                if code.is_some() {
                    ev.outcome = Outcome::from_exit(code);
                }
            }
        }
    }
    if ev.interrupted && ev.outcome == Outcome::Success {
        ev.outcome = Outcome::Unknown;
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
            // Codex: the output string the model saw, maybe with an exit header.
            if let Some(code) = codex_exit_header(&text) {
                ev.outcome = Outcome::from_exit(Some(code));
            }
            ev.stdout = Some(text);
        }
        Some(ToolResponse::Object(obj)) => {
            ev.stdout = obj.stdout.0;
            ev.stderr = obj.stderr.0;
            if obj.interrupted.0 == Some(true) {
                ev.interrupted = true;
            }
            let code = obj.exit_code.0.or(obj.exit_code_camel.0);
            if code.is_some() {
                ev.outcome = Outcome::from_exit(code);
            } else if obj.is_error.0 == Some(true) {
                ev.outcome = Outcome::Failure { exit_code: None };
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
            ev.outcome = Outcome::from_exit(res.exit_code.0);
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
    let rest = match err {
        Cow::Borrowed(s) => Cow::Borrowed(&s[rest_start..]),
        Cow::Owned(s) => Cow::Owned(s[rest_start..].to_string()),
    };
    (Some(code), non_empty(rest))
}

fn non_empty(s: Cow<'_, str>) -> Option<Cow<'_, str>> {
    if s.trim().is_empty() { None } else { Some(s) }
}

/// Codex's shell output headers, looked for in the first few lines only:
/// `Exit code: N` (exec tool) or `Process exited with code N` (unified exec).
fn codex_exit_header(text: &str) -> Option<i64> {
    for line in text.lines().take(6) {
        let line = line.trim();
        let n = line
            .strip_prefix("Exit code:")
            .or_else(|| line.strip_prefix("Process exited with code"));
        if let Some(n) = n
            && let Ok(code) = n.trim().parse::<i64>()
        {
            return Some(code);
        }
        if line == "Output:" || line == "Final output:" {
            break;
        }
    }
    None
}
