//! What a payload means once read: the one borrowed [`ToolEvent`] every
//! agent's shape is normalised into, with the hook event, the agent, the
//! outcome, the `--format` choice and why a payload could not be read.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

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
    pub(super) fn from_exit(code: Option<i64>) -> Outcome {
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
