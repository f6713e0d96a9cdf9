//! The opencode shapes, normalised: our plugin's document
//! ([`OPENCODE_PAYLOAD_DOC`]) and opencode's two hook arguments spread into
//! one object, as other integrations send them.

use super::event::{AgentKind, HookEvent, Outcome, ToolEvent};
use super::lenient::{Lenient, StringOr, Text};
use super::wire::{Raw, is_shell_tool};

/// The exact JSON document our opencode plugin writes on `learnsync capture
/// --format opencode`'s stdin, one per bash call (`tool.execute.after`).
pub const OPENCODE_PAYLOAD_DOC: &str = r#"{
  "source": "opencode",
  "hook": "tool.execute.after",
  "cwd": "/home/me/project",
  "input": {
    "tool": "bash",
    "sessionID": "ses_…",
    "callID": "call_…",
    "args": { "command": "git push -f", "description": "Push" }
  },
  "output": {
    "title": "Push",
    "output": "<stdout and stderr as opencode shows them, tail-truncated to 64 KiB>",
    "metadata": { "exit": 1, "description": "Push" }
  }
}"#;

/// Both opencode shapes: our plugin's `{"input":{…},"output":{…}}`, and the
/// hook's two arguments spread into one object (`tool`, `sessionID`,
/// `callID`, `args`, `title`, `output` as text, `metadata.exit`).
pub(super) fn opencode<'a>(
    raw: Raw<'a>,
    event_override: Option<HookEvent>,
) -> Option<ToolEvent<'a>> {
    let spread = raw.oc_input.is_none();
    let (tool, session_id, call_id, args) = match raw.oc_input {
        Some(Lenient(input)) => (input.tool, input.session_id, input.call_id, input.args),
        None => (raw.tool, raw.oc_session_id, raw.oc_call_id, raw.oc_args),
    };
    let (output, meta) = match raw.oc_output {
        Some(StringOr::Object(out)) => (out.output, out.metadata.or(raw.oc_metadata)),
        Some(StringOr::Text(text)) => (Text(Some(text)), raw.oc_metadata),
        Some(StringOr::Other) | None => (Text(None), raw.oc_metadata),
    };
    let has_result = output.is_some() || meta.is_some();
    let event = match event_override {
        Some(e) => e,
        None => match raw.hook.as_deref() {
            Some("tool.execute.after") => HookEvent::PostToolUse,
            Some("tool.execute.before") => HookEvent::PreToolUse,
            // The spread `before` hook has only the call and its args.
            None if !has_result && spread => HookEvent::PreToolUse,
            None => HookEvent::PostToolUse,
            Some(_) => return None,
        },
    };
    if !tool.0.as_deref().is_some_and(is_shell_tool) {
        return None;
    }
    let command = args.and_then(|a| a.0.command.0);
    command.as_ref()?;
    let mut ev = ToolEvent {
        agent: AgentKind::Opencode,
        event,
        session_id: session_id.0,
        cwd: raw.cwd.0,
        turn_id: None,
        tool_use_id: call_id.0,
        transcript_path: None,
        tool_name: tool.0,
        command,
        outcome: Outcome::Unknown,
        stdout: None,
        stderr: None,
        error_text: None,
        prompt: None,
        interrupted: false,
    };
    if has_result {
        let meta = meta.map(|m| m.0).unwrap_or_default();
        let code = meta.exit.0.or(meta.exit_code_camel.0).or(meta.exit_code.0);
        if event != HookEvent::PreToolUse {
            ev.outcome = Outcome::from_exit(code);
        }
        ev.stdout = output.0.or(meta.output.0);
    }
    Some(ev)
}
