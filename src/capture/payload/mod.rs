//! Hook payloads: the JSON that Claude Code, opencode (through our plugin) and
//! Codex hand to `learnsync capture`, normalised into one borrowed [`ToolEvent`].
//!
//! This runs on every agent tool call, so it borrows from the input, skips what
//! it does not need and never panics: any bytes give `Ok(Some)`, `Ok(None)`
//! (a payload we deliberately ignore) or a short [`PayloadError`].
//!
//! Shapes understood (field names as the agents send them):
//!
//! * **Claude Code** (`~/.claude/settings.json` hooks): common fields
//!   `session_id`, `transcript_path`, `cwd`, `hook_event_name`; tool events add
//!   `tool_name`, `tool_input.command`, `tool_use_id`. A failed Bash call fires
//!   `PostToolUseFailure` with `error` = `"Exit code N\n<mixed output>"` and no
//!   `tool_response`; a successful one fires `PostToolUse` with
//!   `tool_response {stdout, stderr, interrupted}` and no exit code.
//!   `UserPromptSubmit` carries `prompt`; `SessionStart` carries `source`
//!   (`startup`, `resume`, `clear`, `compact`) and no tool.
//! * **Terraphim wrapper** (terraphim-ai `.claude/hooks/learning-capture.sh`):
//!   Claude-shaped, with `tool_result {exit_code, stdout, stderr}`.
//! * **Codex hooks** (`[[hooks.PostToolUse]]` in `~/.codex/config.toml`):
//!   Claude-shaped plus `turn_id` and `model`; `PostToolUse.tool_response` is the
//!   model-facing output *string*, so the outcome is `Unknown` unless that
//!   string starts with Codex's own `Exit code: N` / `Process exited with code N`
//!   header line.
//! * **Codex notify**: `{"type":"agent-turn-complete","thread-id",…}`, given as
//!   the last argv item (the CLI passes it here as bytes) → `Ok(None)`.
//! * **opencode** (our plugin `hooks/opencode/learnsync.js`, see
//!   [`OPENCODE_PAYLOAD_DOC`]): `{"source":"opencode","hook":"tool.execute.after",
//!   "cwd", "input":{tool,sessionID,callID,args:{command}},
//!   "output":{title,output,metadata:{exit}}}`; and opencode's two hook
//!   arguments spread into one object, as other integrations (terraphim's)
//!   send them: `{"tool","sessionID","callID","args":{"command"},"title",
//!   "output":"<text>","metadata":{"exit"}}` (no `output`/`metadata`: the
//!   `tool.execute.before` hook). The plugin also sends
//!   `{"source":"opencode","hook":"session.start","cwd","input":{"sessionID"}}`
//!   at a session's first message and `{…,"hook":"chat.message",
//!   "prompt":"<the user's text>"}` for every message.
//!
//! Files: `event` (the normalised [`ToolEvent`] and its parts), `wire` (the
//! one struct every shape deserialises into, and telling shapes apart),
//! `lenient` (the never-failing leaf types it is built of), `claude` (Claude
//! Code, the terraphim wrapper and Codex) and `opencode`.

mod claude;
mod event;
mod lenient;
mod opencode;
mod wire;

pub use event::{AgentKind, CommandResult, Format, HookEvent, PayloadError, ToolEvent};
pub use opencode::OPENCODE_PAYLOAD_DOC;

use lenient::Lenient;
use wire::{Raw, Shape, sniff};

/// Parse one hook payload.
///
/// `event_override` (the CLI's `--event`) wins over what the payload says.
/// `Ok(None)` means a payload we deliberately ignore: a non-shell tool, an
/// event we do not handle, Codex's `agent-turn-complete`, or a shape we do not
/// recognise — the caller logs it at debug level and exits 0.
pub fn parse(
    bytes: &[u8],
    format: Format,
    event_override: Option<HookEvent>,
) -> Result<Option<ToolEvent<'_>>, PayloadError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(PayloadError::Empty);
    }
    let Lenient(raw): Lenient<Raw<'_>> =
        serde_json::from_slice(bytes).map_err(|e| PayloadError::InvalidJson(short_error(&e)))?;
    Ok(normalise(raw, format, event_override))
}

/// The JSON a PreToolUse hook prints on stdout so the *agent* reads `message`
/// before the command runs, without changing the permission decision.
///
/// Claude Code: `hookSpecificOutput.additionalContext` of a `PreToolUse` hook
/// ("added to Claude's context", https://code.claude.com/docs/en/hooks
/// § PreToolUse decision control); Codex accepts the same object
/// (codex-rs/hooks/schema/generated/pre-tool-use.command.output.schema.json).
/// opencode's plugin and the terraphim wrapper read no hook stdout → `None`.
pub fn pretool_warning_json(agent: AgentKind, message: &str) -> Option<String> {
    additional_context(agent, HookEvent::PreToolUse, message)
}

/// What a hook prints on stdout so the agent reads `text` as added context,
/// for the events whose output an agent reads; `None` when it reads none.
///
/// * Claude Code and Codex: `{"hookSpecificOutput":{"hookEventName":<event>,
///   "additionalContext":<text>}}` for `PreToolUse`, `UserPromptSubmit` and
///   `SessionStart` (Claude: https://code.claude.com/docs/en/hooks; Codex:
///   codex-rs/hooks/schema/generated/{pre-tool-use,user-prompt-submit,
///   session-start}.command.output.schema.json).
/// * opencode: our plugin awaits `session.start` and `chat.message` and puts
///   stdout, as it is, into the session's system prompt; it does not wait for
///   `tool.execute.*`, so a pre-tool warning has no reader.
/// * terraphim's wrapper reads no hook stdout.
pub fn additional_context(agent: AgentKind, event: HookEvent, text: &str) -> Option<String> {
    let read = matches!(
        event,
        HookEvent::PreToolUse | HookEvent::UserPromptSubmit | HookEvent::SessionStart
    );
    match agent {
        AgentKind::Claude | AgentKind::Codex if read => Some(
            serde_json::json!({
                "hookSpecificOutput": {
                    "hookEventName": event.hook_event_name(),
                    "additionalContext": text,
                }
            })
            .to_string(),
        ),
        AgentKind::Opencode
            if matches!(event, HookEvent::UserPromptSubmit | HookEvent::SessionStart) =>
        {
            Some(text.trim_end().to_string())
        }
        _ => None,
    }
}

/// What a PreToolUse hook prints to stop the command (§5.1), with `reason`
/// for the agent; `None` for an agent whose hook cannot stop it.
///
/// * Claude Code and Codex: `{"hookSpecificOutput":{"hookEventName":
///   "PreToolUse","permissionDecision":"deny","permissionDecisionReason":…}}`
///   (the reason is shown to the model).
/// * opencode: our plugin awaits `tool.execute.before` and throws an error
///   with the reason when it reads `{"learnsync":"deny","reason":…}`.
pub fn deny(agent: AgentKind, reason: &str) -> Option<String> {
    match agent {
        AgentKind::Claude | AgentKind::Codex => Some(
            serde_json::json!({
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": reason,
                }
            })
            .to_string(),
        ),
        AgentKind::Opencode => {
            Some(serde_json::json!({"learnsync": "deny", "reason": reason}).to_string())
        }
        _ => None,
    }
}

/// What a PreToolUse hook prints to warn: the added context of
/// [`additional_context`], and for opencode a line our plugin reads
/// (`{"learnsync":"warn","context":…}`) and adds to the session's next
/// model call.
pub fn warn(agent: AgentKind, text: &str) -> Option<String> {
    match agent {
        AgentKind::Opencode => {
            Some(serde_json::json!({"learnsync": "warn", "context": text}).to_string())
        }
        _ => additional_context(agent, HookEvent::PreToolUse, text),
    }
}

fn short_error(e: &serde_json::Error) -> String {
    let msg = e.to_string();
    match msg.char_indices().nth(120) {
        Some((i, _)) => format!("{}…", &msg[..i]),
        None => msg,
    }
}

/// The shape `format` names (or the one sniffed), read by its normaliser.
fn normalise<'a>(
    raw: Raw<'a>,
    format: Format,
    event_override: Option<HookEvent>,
) -> Option<ToolEvent<'a>> {
    let shape = match format {
        Format::Auto => sniff(&raw)?,
        Format::Claude => {
            if raw.tool_result.is_some() {
                Shape::Terraphim
            } else {
                Shape::Claude
            }
        }
        Format::Codex => {
            if raw.is_codex_notify() {
                Shape::CodexNotify
            } else {
                Shape::Codex
            }
        }
        Format::Opencode => Shape::Opencode,
    };
    match shape {
        Shape::CodexNotify => None,
        Shape::Opencode => opencode::opencode(raw, event_override),
        Shape::Claude | Shape::Terraphim | Shape::Codex => {
            claude::claude_like(raw, shape, event_override)
        }
    }
}
