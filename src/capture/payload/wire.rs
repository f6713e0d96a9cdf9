//! What agents send: one struct for the union of every payload shape, built
//! from [`super::lenient`]'s leaves so that no field's type can fail a
//! parse; which shape a payload is; which tool names run a shell.

use serde::Deserialize;

use super::lenient::{Flag, Int, Lenient, StringOr, Text, present};

/// Every field any shape has, each optional and lenient about its type.
#[derive(Default, Deserialize)]
pub(super) struct Raw<'a> {
    #[serde(borrow, default)]
    pub(super) hook_event_name: Text<'a>,
    #[serde(borrow, default)]
    pub(super) session_id: Text<'a>,
    #[serde(borrow, default)]
    pub(super) transcript_path: Text<'a>,
    #[serde(borrow, default)]
    pub(super) cwd: Text<'a>,
    #[serde(borrow, default)]
    pub(super) turn_id: Text<'a>,
    #[serde(borrow, default)]
    pub(super) tool_name: Text<'a>,
    #[serde(borrow, default)]
    pub(super) tool_use_id: Text<'a>,
    #[serde(borrow, default)]
    pub(super) prompt: Text<'a>,
    #[serde(borrow, default)]
    pub(super) error: Text<'a>,
    #[serde(default)]
    pub(super) is_interrupt: Flag,
    #[serde(borrow, default)]
    pub(super) tool_input: Option<Lenient<ToolInput<'a>>>,
    #[serde(borrow, default)]
    pub(super) tool_response: Option<ToolResponse<'a>>,
    #[serde(borrow, default)]
    pub(super) tool_result: Option<Lenient<ToolResult<'a>>>,
    #[serde(default, deserialize_with = "present")]
    pub(super) model: bool,
    // Codex notify
    #[serde(borrow, default, rename = "type")]
    pub(super) kind: Text<'a>,
    #[serde(default, rename = "thread-id", deserialize_with = "present")]
    pub(super) thread_id: bool,
    // opencode plugin
    #[serde(borrow, default)]
    pub(super) source: Text<'a>,
    #[serde(borrow, default)]
    pub(super) hook: Text<'a>,
    #[serde(borrow, default, rename = "input")]
    pub(super) oc_input: Option<Lenient<OcInput<'a>>>,
    #[serde(borrow, default, rename = "output")]
    pub(super) oc_output: Option<StringOr<'a, OcOutput<'a>>>,
    // opencode's two hook arguments spread into one object, the shape other
    // integrations (terraphim's among them) send: the `input` keys beside
    // `title`, `output` (the text) and `metadata`.
    #[serde(borrow, default)]
    pub(super) tool: Text<'a>,
    #[serde(borrow, default, rename = "sessionID")]
    pub(super) oc_session_id: Text<'a>,
    #[serde(borrow, default, rename = "callID")]
    pub(super) oc_call_id: Text<'a>,
    #[serde(borrow, default, rename = "args")]
    pub(super) oc_args: Option<Lenient<ToolInput<'a>>>,
    #[serde(borrow, default, rename = "metadata")]
    pub(super) oc_metadata: Option<Lenient<OcMeta<'a>>>,
}

impl Raw<'_> {
    /// opencode's hook arguments spread into one object: `tool` with the
    /// ids or args opencode passes beside it (Claude sends `tool_name`).
    pub(super) fn is_spread_opencode(&self) -> bool {
        self.tool.is_some()
            && (self.oc_call_id.is_some() || self.oc_session_id.is_some() || self.oc_args.is_some())
    }

    pub(super) fn is_codex_notify(&self) -> bool {
        self.kind.is_some()
            && (self.thread_id || self.kind.as_deref() == Some("agent-turn-complete"))
    }
}

#[derive(Default, Deserialize)]
pub(super) struct ToolInput<'a> {
    #[serde(borrow, default)]
    pub(super) command: Text<'a>,
}

#[derive(Default, Deserialize)]
pub(super) struct ToolResult<'a> {
    #[serde(default)]
    pub(super) exit_code: Int,
    #[serde(borrow, default)]
    pub(super) stdout: Text<'a>,
    #[serde(borrow, default)]
    pub(super) stderr: Text<'a>,
}

#[derive(Default, Deserialize)]
pub(super) struct ResponseObject<'a> {
    #[serde(borrow, default)]
    pub(super) stdout: Text<'a>,
    #[serde(borrow, default)]
    pub(super) stderr: Text<'a>,
    #[serde(default)]
    pub(super) interrupted: Flag,
    #[serde(default)]
    pub(super) exit_code: Int,
    #[serde(default, rename = "exitCode")]
    pub(super) exit_code_camel: Int,
    #[serde(default, rename = "is_error")]
    pub(super) is_error: Flag,
}

#[derive(Default, Deserialize)]
pub(super) struct OcInput<'a> {
    #[serde(borrow, default)]
    pub(super) tool: Text<'a>,
    #[serde(borrow, default, rename = "sessionID")]
    pub(super) session_id: Text<'a>,
    #[serde(borrow, default, rename = "callID")]
    pub(super) call_id: Text<'a>,
    #[serde(borrow, default)]
    pub(super) args: Option<Lenient<ToolInput<'a>>>,
}

#[derive(Default, Deserialize)]
pub(super) struct OcOutput<'a> {
    #[serde(borrow, default)]
    pub(super) output: Text<'a>,
    #[serde(borrow, default)]
    pub(super) metadata: Option<Lenient<OcMeta<'a>>>,
}

#[derive(Default, Deserialize)]
pub(super) struct OcMeta<'a> {
    #[serde(default)]
    pub(super) exit: Int,
    #[serde(default, rename = "exitCode")]
    pub(super) exit_code_camel: Int,
    #[serde(default)]
    pub(super) exit_code: Int,
    #[serde(borrow, default)]
    pub(super) output: Text<'a>,
}

/// Claude's response object or Codex's output string.
pub(super) type ToolResponse<'a> = StringOr<'a, ResponseObject<'a>>;

/// Which agent's shape a payload is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    Claude,
    Terraphim,
    Codex,
    CodexNotify,
    Opencode,
}

pub(super) fn sniff(raw: &Raw<'_>) -> Option<Shape> {
    if raw.source.as_deref() == Some("opencode")
        || raw.oc_input.is_some()
        || raw.is_spread_opencode()
    {
        return Some(Shape::Opencode);
    }
    if raw.is_codex_notify() {
        return Some(Shape::CodexNotify);
    }
    if raw.turn_id.is_some() || raw.model {
        return Some(Shape::Codex);
    }
    if raw.tool_result.is_some() {
        return Some(Shape::Terraphim);
    }
    if raw.hook_event_name.is_some()
        || raw.tool_name.is_some()
        || raw.tool_input.is_some()
        || raw.prompt.is_some()
    {
        return Some(Shape::Claude);
    }
    None
}

/// Tool names that run a shell command line, across agents.
pub(super) fn is_shell_tool(name: &str) -> bool {
    [
        "bash",
        "shell",
        "local_shell",
        "exec_command",
        "shell_command",
    ]
    .iter()
    .any(|t| name.eq_ignore_ascii_case(t))
}
