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
//!   `UserPromptSubmit` carries `prompt`.
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
//!   `tool.execute.before` hook).

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;
use std::str::FromStr;

use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};

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

/// Which agent's payload shape to expect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// Sniff the shape (the default for `learnsync capture`).
    #[default]
    Auto,
    Claude,
    Opencode,
    Codex,
}

impl FromStr for Format {
    type Err = PayloadError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Format::Auto),
            "claude" | "claude-code" => Ok(Format::Claude),
            "opencode" => Ok(Format::Opencode),
            "codex" => Ok(Format::Codex),
            _ => Err(PayloadError::UnknownFormat(s.to_string())),
        }
    }
}

/// The hook event a payload reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookEvent {
    PostToolUse,
    PostToolUseFailure,
    PreToolUse,
    UserPromptSubmit,
}

impl HookEvent {
    /// The `--event` spelling on learnsync's command line.
    pub fn as_cli_str(self) -> &'static str {
        match self {
            HookEvent::PostToolUse => "post-tool-use",
            HookEvent::PostToolUseFailure => "post-tool-use-failure",
            HookEvent::PreToolUse => "pre-tool-use",
            HookEvent::UserPromptSubmit => "user-prompt-submit",
        }
    }

    /// The `hook_event_name` spelling Claude Code and Codex use.
    pub fn hook_event_name(self) -> &'static str {
        match self {
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::PostToolUseFailure => "PostToolUseFailure",
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
        }
    }

    /// Parse either spelling; `None` for events learnsync does not handle
    /// (`Stop`, `SessionStart`, …).
    pub fn parse(s: &str) -> Option<HookEvent> {
        match s.trim() {
            "post-tool-use" | "PostToolUse" => Some(HookEvent::PostToolUse),
            "post-tool-use-failure" | "PostToolUseFailure" => Some(HookEvent::PostToolUseFailure),
            "pre-tool-use" | "PreToolUse" => Some(HookEvent::PreToolUse),
            "user-prompt-submit" | "UserPromptSubmit" => Some(HookEvent::UserPromptSubmit),
            _ => None,
        }
    }
}

impl FromStr for HookEvent {
    type Err = PayloadError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        HookEvent::parse(s).ok_or_else(|| PayloadError::UnknownEvent(s.to_string()))
    }
}

impl fmt::Display for HookEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_cli_str())
    }
}

/// Who sent the payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentKind {
    Claude,
    Opencode,
    Codex,
    /// terraphim-ai's Claude Code wrapper scripts (`tool_result` with an exit code).
    TerraphimWrapper,
}

impl AgentKind {
    pub fn as_str(self) -> &'static str {
        match self {
            AgentKind::Claude => "claude",
            AgentKind::Opencode => "opencode",
            AgentKind::Codex => "codex",
            AgentKind::TerraphimWrapper => "terraphim-wrapper",
        }
    }
}

impl fmt::Display for AgentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What became of the command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Success,
    Failure {
        exit_code: Option<i32>,
    },
    /// Not known (a pre-tool event, a prompt, or Codex's bare output string).
    Unknown,
}

impl Outcome {
    pub fn is_failure(self) -> bool {
        matches!(self, Outcome::Failure { .. })
    }
    fn from_exit(code: Option<i64>) -> Outcome {
        match code {
            None => Outcome::Unknown,
            Some(0) => Outcome::Success,
            Some(n) => Outcome::Failure {
                exit_code: i32::try_from(n).ok(),
            },
        }
    }
}

/// One normalised hook payload. Strings borrow from the input where they had
/// no JSON escapes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolEvent<'a> {
    pub agent: AgentKind,
    pub event: HookEvent,
    pub session_id: Option<Cow<'a, str>>,
    pub cwd: Option<Cow<'a, str>>,
    /// Codex's `turn_id`.
    pub turn_id: Option<Cow<'a, str>>,
    /// Claude/Codex `tool_use_id`, opencode `callID`.
    pub tool_use_id: Option<Cow<'a, str>>,
    pub transcript_path: Option<Cow<'a, str>>,
    pub tool_name: Option<Cow<'a, str>>,
    pub command: Option<Cow<'a, str>>,
    pub outcome: Outcome,
    pub stdout: Option<Cow<'a, str>>,
    pub stderr: Option<Cow<'a, str>>,
    /// Claude's `PostToolUseFailure.error` without its `Exit code N` line.
    pub error_text: Option<Cow<'a, str>>,
    /// The user's prompt (`UserPromptSubmit`).
    pub prompt: Option<Cow<'a, str>>,
    /// The user interrupted the call (Claude `is_interrupt` / `interrupted`).
    pub interrupted: bool,
}

impl ToolEvent<'_> {
    /// Everything the command printed that we know of, error text first:
    /// what an error signature should be computed from.
    pub fn output_text(&self) -> String {
        let mut out = String::new();
        for part in [&self.error_text, &self.stderr, &self.stdout]
            .into_iter()
            .flatten()
        {
            if part.trim().is_empty() {
                continue;
            }
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(part);
        }
        out
    }

    /// Detach from the input buffer.
    pub fn into_owned(self) -> ToolEvent<'static> {
        fn own(c: Option<Cow<'_, str>>) -> Option<Cow<'static, str>> {
            c.map(|c| Cow::Owned(c.into_owned()))
        }
        ToolEvent {
            agent: self.agent,
            event: self.event,
            session_id: own(self.session_id),
            cwd: own(self.cwd),
            turn_id: own(self.turn_id),
            tool_use_id: own(self.tool_use_id),
            transcript_path: own(self.transcript_path),
            tool_name: own(self.tool_name),
            command: own(self.command),
            outcome: self.outcome,
            stdout: own(self.stdout),
            stderr: own(self.stderr),
            error_text: own(self.error_text),
            prompt: own(self.prompt),
            interrupted: self.interrupted,
        }
    }
}

/// Why a payload could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PayloadError {
    #[error("empty payload (expected one JSON object on stdin)")]
    Empty,
    #[error("payload is not valid JSON: {0}")]
    InvalidJson(String),
    #[error("unknown payload format {0:?} (expected auto, claude, opencode or codex)")]
    UnknownFormat(String),
    #[error(
        "unknown hook event {0:?} (expected post-tool-use, post-tool-use-failure, pre-tool-use or user-prompt-submit)"
    )]
    UnknownEvent(String),
}

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
    match agent {
        AgentKind::Claude | AgentKind::Codex => Some(
            serde_json::json!({
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "additionalContext": message,
                }
            })
            .to_string(),
        ),
        AgentKind::Opencode | AgentKind::TerraphimWrapper => None,
    }
}

fn short_error(e: &serde_json::Error) -> String {
    let msg = e.to_string();
    match msg.char_indices().nth(120) {
        Some((i, _)) => format!("{}…", &msg[..i]),
        None => msg,
    }
}

// ---------------------------------------------------------------------------
// Normalisation

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
        Shape::Opencode => opencode(raw, event_override),
        Shape::Claude | Shape::Terraphim | Shape::Codex => claude_like(raw, shape, event_override),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Claude,
    Terraphim,
    Codex,
    CodexNotify,
    Opencode,
}

fn sniff(raw: &Raw<'_>) -> Option<Shape> {
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
fn is_shell_tool(name: &str) -> bool {
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

fn claude_like<'a>(
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

/// Both opencode shapes: our plugin's `{"input":{…},"output":{…}}`, and the
/// hook's two arguments spread into one object (`tool`, `sessionID`,
/// `callID`, `args`, `title`, `output` as text, `metadata.exit`).
fn opencode<'a>(raw: Raw<'a>, event_override: Option<HookEvent>) -> Option<ToolEvent<'a>> {
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

// ---------------------------------------------------------------------------
// Wire types: one struct for the union of every shape, lenient about types.

#[derive(Default, Deserialize)]
struct Raw<'a> {
    #[serde(borrow, default)]
    hook_event_name: Text<'a>,
    #[serde(borrow, default)]
    session_id: Text<'a>,
    #[serde(borrow, default)]
    transcript_path: Text<'a>,
    #[serde(borrow, default)]
    cwd: Text<'a>,
    #[serde(borrow, default)]
    turn_id: Text<'a>,
    #[serde(borrow, default)]
    tool_name: Text<'a>,
    #[serde(borrow, default)]
    tool_use_id: Text<'a>,
    #[serde(borrow, default)]
    prompt: Text<'a>,
    #[serde(borrow, default)]
    error: Text<'a>,
    #[serde(default)]
    is_interrupt: Flag,
    #[serde(borrow, default)]
    tool_input: Option<Lenient<ToolInput<'a>>>,
    #[serde(borrow, default)]
    tool_response: Option<ToolResponse<'a>>,
    #[serde(borrow, default)]
    tool_result: Option<Lenient<ToolResult<'a>>>,
    #[serde(default, deserialize_with = "present")]
    model: bool,
    // Codex notify
    #[serde(borrow, default, rename = "type")]
    kind: Text<'a>,
    #[serde(default, rename = "thread-id", deserialize_with = "present")]
    thread_id: bool,
    // opencode plugin
    #[serde(borrow, default)]
    source: Text<'a>,
    #[serde(borrow, default)]
    hook: Text<'a>,
    #[serde(borrow, default, rename = "input")]
    oc_input: Option<Lenient<OcInput<'a>>>,
    #[serde(borrow, default, rename = "output")]
    oc_output: Option<StringOr<'a, OcOutput<'a>>>,
    // opencode's two hook arguments spread into one object, the shape other
    // integrations (terraphim's among them) send: the `input` keys beside
    // `title`, `output` (the text) and `metadata`.
    #[serde(borrow, default)]
    tool: Text<'a>,
    #[serde(borrow, default, rename = "sessionID")]
    oc_session_id: Text<'a>,
    #[serde(borrow, default, rename = "callID")]
    oc_call_id: Text<'a>,
    #[serde(borrow, default, rename = "args")]
    oc_args: Option<Lenient<ToolInput<'a>>>,
    #[serde(borrow, default, rename = "metadata")]
    oc_metadata: Option<Lenient<OcMeta<'a>>>,
}

impl Raw<'_> {
    /// opencode's hook arguments spread into one object: `tool` with the
    /// ids or args opencode passes beside it (Claude sends `tool_name`).
    fn is_spread_opencode(&self) -> bool {
        self.tool.is_some()
            && (self.oc_call_id.is_some() || self.oc_session_id.is_some() || self.oc_args.is_some())
    }

    fn is_codex_notify(&self) -> bool {
        self.kind.is_some()
            && (self.thread_id || self.kind.as_deref() == Some("agent-turn-complete"))
    }
}

#[derive(Default, Deserialize)]
struct ToolInput<'a> {
    #[serde(borrow, default)]
    command: Text<'a>,
}

#[derive(Default, Deserialize)]
struct ToolResult<'a> {
    #[serde(default)]
    exit_code: Int,
    #[serde(borrow, default)]
    stdout: Text<'a>,
    #[serde(borrow, default)]
    stderr: Text<'a>,
}

#[derive(Default, Deserialize)]
struct ResponseObject<'a> {
    #[serde(borrow, default)]
    stdout: Text<'a>,
    #[serde(borrow, default)]
    stderr: Text<'a>,
    #[serde(default)]
    interrupted: Flag,
    #[serde(default)]
    exit_code: Int,
    #[serde(default, rename = "exitCode")]
    exit_code_camel: Int,
    #[serde(default, rename = "is_error")]
    is_error: Flag,
}

#[derive(Default, Deserialize)]
struct OcInput<'a> {
    #[serde(borrow, default)]
    tool: Text<'a>,
    #[serde(borrow, default, rename = "sessionID")]
    session_id: Text<'a>,
    #[serde(borrow, default, rename = "callID")]
    call_id: Text<'a>,
    #[serde(borrow, default)]
    args: Option<Lenient<ToolInput<'a>>>,
}

#[derive(Default, Deserialize)]
struct OcOutput<'a> {
    #[serde(borrow, default)]
    output: Text<'a>,
    #[serde(borrow, default)]
    metadata: Option<Lenient<OcMeta<'a>>>,
}

#[derive(Default, Deserialize)]
struct OcMeta<'a> {
    #[serde(default)]
    exit: Int,
    #[serde(default, rename = "exitCode")]
    exit_code_camel: Int,
    #[serde(default)]
    exit_code: Int,
    #[serde(borrow, default)]
    output: Text<'a>,
}

/// A field that is a string in some shapes and an object in others
/// (`tool_response`: Claude's object or Codex's plain string; opencode's
/// `output`: our plugin's object or the spread hook's plain string).
enum StringOr<'a, T> {
    Text(Cow<'a, str>),
    Object(T),
    Other,
}

type ToolResponse<'a> = StringOr<'a, ResponseObject<'a>>;

// --- lenient leaf types: a wrong JSON type reads as "absent", never an error.

/// A string field; numbers are kept as their text, other types read as absent.
#[derive(Default)]
struct Text<'a>(Option<Cow<'a, str>>);

impl<'a> std::ops::Deref for Text<'a> {
    type Target = Option<Cow<'a, str>>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

/// An integer field (also accepts integral floats and numeric strings).
#[derive(Default)]
struct Int(Option<i64>);

/// A boolean field.
#[derive(Default)]
struct Flag(Option<bool>);

impl Flag {
    fn unwrap_or(&self, d: bool) -> bool {
        self.0.unwrap_or(d)
    }
}

/// An object whose wrong-typed value reads as its default.
#[derive(Default)]
struct Lenient<T>(T);

fn present<'de, D: de::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    IgnoredAny::deserialize(d).map(|_| true)
}

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Text<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Text(Some(Cow::Borrowed(v))))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Text(Some(Cow::Owned(v))))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(Text(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(Text(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                d.deserialize_any(self)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Text(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Text(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Text(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Text(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Text(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Text(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Text(None))
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

impl<'de> Deserialize<'de> for Int {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Int;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an integer")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Int, E> {
                Ok(Int(Some(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Int, E> {
                Ok(Int(i64::try_from(v).ok()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Int, E> {
                let ok = v.is_finite() && v.fract() == 0.0 && v.abs() < 9.0e15;
                // The range check above makes the cast exact.
                Ok(Int(ok.then_some(v as i64)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Int, E> {
                Ok(Int(v.trim().parse().ok()))
            }
            fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Int, D::Error> {
                d.deserialize_any(self)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Int, E> {
                Ok(Int(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Int, E> {
                Ok(Int(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<Int, E> {
                Ok(Int(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Int, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Int(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Int, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Int(None))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Flag;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a boolean")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Flag, E> {
                Ok(Flag(Some(v)))
            }
            fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Flag, D::Error> {
                d.deserialize_any(self)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Flag, E> {
                Ok(Flag(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Flag, E> {
                Ok(Flag(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Flag, E> {
                Ok(Flag(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Flag, E> {
                Ok(Flag(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Flag, E> {
                Ok(Flag(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<Flag, E> {
                Ok(Flag(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Flag, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Flag(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Flag, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Flag(None))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de, T: Deserialize<'de> + Default> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de> + Default> Visitor<'de> for V<T> {
            type Value = Lenient<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Lenient)
            }
            fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                d.deserialize_any(self)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Lenient(T::default()))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Lenient(T::default()))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Lenient(T::default()))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Lenient(T::default()))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(Lenient(T::default()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Lenient(T::default()))
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Lenient(T::default()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Lenient(T::default()))
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

impl<'de: 'a, 'a, T: Deserialize<'de>> Deserialize<'de> for StringOr<'a, T> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a, T>(PhantomData<(&'a (), T)>);
        impl<'de: 'a, 'a, T: Deserialize<'de>> Visitor<'de> for V<'a, T> {
            type Value = StringOr<'a, T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an object")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(StringOr::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(StringOr::Text(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(StringOr::Text(Cow::Owned(v)))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(StringOr::Object)
            }
            fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                d.deserialize_any(self)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(StringOr::Other)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(StringOr::Other)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(StringOr::Other)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(StringOr::Other)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(StringOr::Other)
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(StringOr::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(StringOr::Other)
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}
