//! One hook call, end to end: given a parsed [`ToolEvent`], read only the
//! state the event needs (session file, capture index, search index, config),
//! write the inbox, the session and the index, and say what the agent should
//! read on stdout. The decisions are in `decide.rs`; what a session start or
//! a prompt is told comes from `crate::search`.
//!
//! Cost is proportional to what the payload means: a success with no pending
//! failure in its session stats two paths and returns; the YAML config is
//! loaded only when a learning or event is about to be written.
//!
//! What an agent is told respects the learnings' `applicable_agents` for the
//! acting agent: `--agent` when the hook passes it, else the agent whose
//! payload it is (`claude`, `codex`, `opencode`).

use std::path::PathBuf;

use super::decide::{self, FailureKey, FixMatch};
use super::index::{self, CaptureIndex};
use super::payload::{self, CommandResult, HookEvent, ToolEvent};
use super::session::{self, PendingFailure, SessionState};
use crate::config::{Config, Env, FileConfig, Flags};
use crate::event::{self, Event};
use crate::learning::Learning;
use crate::store::{LearningsDir, StateDir};
use crate::timestamp::Timestamp;

/// Where a capture runs: the command-line flags and environment, from which
/// the dir is resolved at once and the full config only on demand.
pub struct Setup {
    pub flags: Flags,
    pub env: Env,
}

impl Setup {
    /// The learnings dir (flags and environment only; no file is read).
    pub fn dir(&self) -> LearningsDir {
        LearningsDir::new(Config::resolve_dir(&self.flags, &self.env, &FileConfig::default()).value)
    }

    fn config(&self) -> Result<Config, String> {
        Config::load(&self.flags, &self.env).map_err(|e| format!("configuration: {e}"))
    }
}

/// What one hook call answers: what the agent reads on stdout, and what was
/// recorded (or the one line for stderr). Both can be there: a prompt's
/// suggestion is printed even when recording its correction failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub stdout: Option<String>,
    pub outcome: Result<Handled, String>,
}

impl Reply {
    fn of(outcome: Result<Handled, String>) -> Reply {
        Reply {
            stdout: None,
            outcome,
        }
    }
}

/// What a capture did, for `-v` and for tests of the library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Handled {
    /// Nothing to do, and why.
    Ignored(&'static str),
    /// A new L0 learning in the inbox.
    Captured { id: String },
    /// A known failure happened again: a `recurred` event.
    Recurred { id: String },
    /// A remembered failure got its correction (from a command or a prompt).
    Corrected { id: String },
    /// A prompt's correction matched no failure: a new L1 learning.
    PromptLearning { id: String },
    /// A PreToolUse warning (printed) and its `applied` event.
    Warned { id: String },
    /// A session start told about this many learnings (none: nothing printed).
    Context { shown: usize },
}

/// The most characters a session start's block may have: the `context`
/// command's default, well inside what Claude Code adds to its context
/// (10,000).
pub const CONTEXT_MAX_CHARS: usize = 4000;

/// The most characters of a prompt a suggestion is looked up with: its
/// head and its tail (a pasted log's error is at one end or the other),
/// so that a huge paste costs the ranking no more than a long question.
const PROMPT_LOOKUP_CHARS: usize = 8 * 1024;

/// Parses and handles one payload.
pub fn capture(
    bytes: &[u8],
    format: payload::Format,
    event: Option<HookEvent>,
    setup: &Setup,
) -> Reply {
    match payload::parse(bytes, format, event) {
        Ok(Some(ev)) => handle(&ev, setup),
        Ok(None) => Reply::of(Ok(Handled::Ignored(
            "not a shell command, prompt or session event we handle",
        ))),
        Err(e) => Reply::of(Err(e.to_string())),
    }
}

/// Handles one parsed event.
pub fn handle(ev: &ToolEvent<'_>, setup: &Setup) -> Reply {
    match ev.event {
        HookEvent::PostToolUse | HookEvent::PostToolUseFailure => Reply::of(match ev.outcome {
            CommandResult::Failure { .. } => on_failure(ev, setup),
            CommandResult::Success => on_success(ev, setup),
            CommandResult::Unknown => Ok(Handled::Ignored(
                "the payload does not say how the command ended",
            )),
        }),
        HookEvent::PreToolUse => on_pre_tool_use(ev, setup),
        HookEvent::UserPromptSubmit => on_prompt(ev, setup),
        HookEvent::SessionStart => on_session_start(ev, setup),
    }
}

/// The agent whose `applicable_agents` decide what it is told.
fn acting_agent<'a>(ev: &ToolEvent<'_>, setup: &'a Setup) -> std::borrow::Cow<'a, str> {
    match &setup.flags.agent {
        Some(agent) => agent.as_str().into(),
        None => ev.agent.applicability_name().into(),
    }
}

/// The project a session works in: the base name of its cwd.
fn project<'a>(ev: &'a ToolEvent<'_>) -> Option<&'a str> {
    ev.cwd.as_deref().and_then(decide::project_name)
}

/// The dir, which must be a learnings repository (one stat).
fn initialised(setup: &Setup) -> Result<LearningsDir, String> {
    let dir = setup.dir();
    if dir.is_initialised() {
        Ok(dir)
    } else {
        Err(format!(
            "{} is not a learnings dir; run `learnsync init` (nothing captured)",
            dir.root.display()
        ))
    }
}

fn now_secs() -> Timestamp {
    Timestamp::now()
}

fn write_err(what: &str) -> impl Fn(std::io::Error) -> String + '_ {
    move |e| format!("cannot write {what}: {e}")
}

fn on_success(ev: &ToolEvent<'_>, setup: &Setup) -> Result<Handled, String> {
    let (Some(session_id), Some(command)) = (ev.session_id.as_deref(), ev.command.as_deref())
    else {
        return Ok(Handled::Ignored("a success outside a session"));
    };
    let dir = initialised(setup)?;
    let state_dir = dir.state();
    let session_file = session::session_path(&state_dir, session_id);
    let Some(mut state) = SessionState::load(&session_file) else {
        return Ok(Handled::Ignored("a success with no pending failure"));
    };
    let now = now_secs();
    state.expire(now.unix());
    let found = state
        .failures
        .iter()
        .rposition(|f| decide::fix_match(&key_of(f), command) != FixMatch::Unrelated);
    let Some(i) = found else {
        return Ok(Handled::Ignored(
            "a success unrelated to the pending failures",
        ));
    };
    let failure = state.failures.remove(i);
    let result = match decide::fix_match(&key_of(&failure), command) {
        FixMatch::Fix => attach_correction(&dir, &failure, command, now),
        _ => Ok(Handled::Ignored("the failed command succeeded on a retry")),
    };
    state
        .append_done(&session_file, &failure.id)
        .map_err(write_err("the session"))?;
    result
}

fn key_of(f: &PendingFailure) -> FailureKey {
    FailureKey {
        normalised: f.normalised.clone(),
        signature: String::new(),
        program: Some((f.program.clone(), f.subcommand.clone())),
    }
}

/// The newest version of a remembered learning: its inbox file while it is
/// waiting for a sync, else its file in the tree.
fn read_learning(dir: &LearningsDir, f: &PendingFailure) -> Option<Learning> {
    let from_inbox = f
        .inbox
        .as_deref()
        .filter(|p| p.starts_with(dir.inbox().dir()))
        .and_then(|p| std::fs::read(p).ok())
        .and_then(|b| Learning::parse(&b).ok())
        .filter(|l| l.id == f.id);
    from_inbox
        .or_else(|| {
            let rel = crate::paths::learning_path(&f.agent, &f.id).ok()?;
            let bytes = std::fs::read(dir.root.join(&rel)).ok()?;
            Learning::parse_at(&rel, &bytes).ok()
        })
        .or_else(|| newest_in_inbox(dir, &f.id))
}

/// The newest inbox version of a learning (inbox files are named
/// `<nanos>-<id>.md`): for a failure whose session did not see its capture.
fn newest_in_inbox(dir: &LearningsDir, id: &str) -> Option<Learning> {
    let suffix = format!("-{id}.md");
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir.inbox().dir())
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| !n.starts_with('.') && n.ends_with(&suffix))
        })
        .collect();
    names.sort();
    let bytes = std::fs::read(names.last()?).ok()?;
    Learning::parse(&bytes).ok().filter(|l| l.id == id)
}

fn attach_correction(
    dir: &LearningsDir,
    failure: &PendingFailure,
    correction: &str,
    now: Timestamp,
) -> Result<Handled, String> {
    let Some(learning) = read_learning(dir, failure) else {
        return Ok(Handled::Ignored("the failure's learning is gone"));
    };
    if learning.has_correction() {
        return Ok(Handled::Ignored(
            "the failure's learning already has a correction",
        ));
    }
    let fixed = decide::with_correction(learning, correction, now);
    dir.inbox()
        .write_learning(&fixed)
        .map_err(write_err("the inbox"))?;
    index::append(&dir.state(), &fixed);
    Ok(Handled::Corrected { id: fixed.id })
}

fn on_failure(ev: &ToolEvent<'_>, setup: &Setup) -> Result<Handled, String> {
    if ev.command.as_deref().is_none_or(|c| c.trim().is_empty()) {
        return Ok(Handled::Ignored("a failure without a command"));
    }
    let dir = initialised(setup)?;
    let config = setup.config()?;
    let now = now_secs();
    let agent = &config.acting_agent;
    let Some((learning, key)) =
        decide::failure_learning(ev, agent, &config.capture_ignore.value, now)
    else {
        return Ok(Handled::Ignored("the command matches an ignore pattern"));
    };
    let state_dir = dir.state();
    let idx = CaptureIndex::load_failures(&state_dir);
    let (handled, pending) = match idx.recurrence(&key) {
        Some(known) => {
            let e = Event::new(&known.id, agent, event::Outcome::Recurred, now);
            dir.inbox()
                .write_event(&e)
                .map_err(write_err("the inbox"))?;
            let pending = (!known.corrected).then(|| PendingFailure {
                id: known.id.clone(),
                agent: known.agent.clone(),
                program: String::new(),
                subcommand: None,
                normalised: key.normalised.clone(),
                inbox: None,
                at: now.unix(),
            });
            (
                Handled::Recurred {
                    id: known.id.clone(),
                },
                pending,
            )
        }
        None => {
            let path = dir
                .inbox()
                .write_learning(&learning)
                .map_err(write_err("the inbox"))?;
            index::append(&state_dir, &learning);
            let pending = PendingFailure {
                id: learning.id.clone(),
                agent: learning.agent_id.clone(),
                program: String::new(),
                subcommand: None,
                normalised: key.normalised.clone(),
                inbox: Some(path),
                at: now.unix(),
            };
            (Handled::Captured { id: learning.id }, Some(pending))
        }
    };
    if let (Some(mut pending), Some(session_id), Some((program, sub))) =
        (pending, ev.session_id.as_deref(), key.program)
    {
        pending.program = program;
        pending.subcommand = sub;
        remember(&state_dir, session_id, pending, now)?;
    }
    Ok(handled)
}

fn remember(
    state_dir: &StateDir,
    session_id: &str,
    pending: PendingFailure,
    now: Timestamp,
) -> Result<(), String> {
    let file: PathBuf = session::session_path(state_dir, session_id);
    let existing = SessionState::load(&file);
    if existing.is_none() {
        // A new session is rare: the moment to forget the stale ones.
        session::prune(state_dir);
    }
    let mut state = existing.unwrap_or_default();
    state.expire(now.unix());
    state.remember(pending.clone());
    state
        .append_failure(&file, &pending)
        .map_err(write_err("the session"))
}

/// A prompt: tell the agent about a learning that confidently matches it
/// (looked up first, so a correction this prompt files is not suggested
/// back to it), and record the correction the prompt gives, if any.
fn on_prompt(ev: &ToolEvent<'_>, setup: &Setup) -> Reply {
    let Some(prompt) = ev.prompt.as_deref().filter(|p| !p.trim().is_empty()) else {
        return Reply::of(Ok(Handled::Ignored("a prompt event without a prompt")));
    };
    let dir = match initialised(setup) {
        Ok(dir) => dir,
        Err(e) => return Reply::of(Err(e)),
    };
    let agent = acting_agent(ev, setup);
    let lookup = decide::head_and_tail(prompt, PROMPT_LOOKUP_CHARS);
    let stdout = crate::search::suggest_for_hook(&dir, &lookup, Some(&agent), project(ev))
        .and_then(|block| payload::additional_context(ev.agent, ev.event, &block));
    Reply {
        stdout,
        outcome: record_prompt_correction(ev, prompt, &dir, setup),
    }
}

fn record_prompt_correction(
    ev: &ToolEvent<'_>,
    prompt: &str,
    dir: &LearningsDir,
    setup: &Setup,
) -> Result<Handled, String> {
    let Some((correction, mistaken)) = decide::prompt_correction(prompt) else {
        return Ok(Handled::Ignored("the prompt gives no correction"));
    };
    let state_dir = dir.state();
    let now = now_secs();
    if let Some(session_id) = ev.session_id.as_deref() {
        let file = session::session_path(&state_dir, session_id);
        if let Some(mut state) = SessionState::load(&file)
            && let Some(i) = state
                .failures
                .iter()
                .rposition(|f| decide::mentions(&f.normalised, &mistaken))
        {
            let failure = state.failures.remove(i);
            let result = attach_correction(dir, &failure, &correction, now);
            state
                .append_done(&file, &failure.id)
                .map_err(write_err("the session"))?;
            if !matches!(result, Ok(Handled::Ignored(_))) {
                return result;
            }
        }
    }
    if !decide::names_a_command(prompt, &mistaken) {
        return Ok(Handled::Ignored("the prompt's correction names no command"));
    }
    let config = setup.config()?;
    let l = decide::prompt_learning(
        &correction,
        &mistaken,
        &config.acting_agent,
        ev.session_id.as_deref(),
        now,
    );
    dir.inbox()
        .write_learning(&l)
        .map_err(write_err("the inbox"))?;
    index::append(&state_dir, &l);
    Ok(Handled::PromptLearning { id: l.id })
}

/// A session starts: the block of learnings most worth knowing for this
/// agent and project, as added context; nothing when there is none.
fn on_session_start(ev: &ToolEvent<'_>, setup: &Setup) -> Reply {
    let dir = match initialised(setup) {
        Ok(dir) => dir,
        Err(e) => return Reply::of(Err(e)),
    };
    let agent = acting_agent(ev, setup);
    let block = match crate::search::context_block(
        &dir,
        None,
        Some(&agent),
        project(ev),
        CONTEXT_MAX_CHARS,
    ) {
        Ok(block) => block,
        Err(e) => return Reply::of(Err(format!("no session context: {e}"))),
    };
    let stdout = Some(block.markdown.as_str())
        .filter(|m| !m.trim().is_empty())
        .and_then(|m| payload::additional_context(ev.agent, ev.event, m));
    Reply {
        stdout,
        outcome: Ok(Handled::Context {
            shown: block.shown.len(),
        }),
    }
}

fn on_pre_tool_use(ev: &ToolEvent<'_>, setup: &Setup) -> Reply {
    match pre_tool_warning(ev, setup) {
        Ok((stdout, handled)) => Reply {
            stdout,
            outcome: Ok(handled),
        },
        Err(e) => Reply::of(Err(e)),
    }
}

fn pre_tool_warning(
    ev: &ToolEvent<'_>,
    setup: &Setup,
) -> Result<(Option<String>, Handled), String> {
    let ignored = |why| Ok((None, Handled::Ignored(why)));
    let Some(command) = ev.command.as_deref() else {
        return ignored("a pre-tool event without a command");
    };
    let dir = initialised(setup)?;
    let state_dir = dir.state();
    let idx = CaptureIndex::load_advice(&state_dir);
    let agent = acting_agent(ev, setup);
    // Read only once some advice names the command: one readdir, usually
    // of a folder that does not exist.
    let pulled = std::cell::OnceCell::new();
    let admit = |a: &index::Advice| {
        a.applies_to(&agent)
            && !pulled
                .get_or_init(|| crate::search::pulled_ids(&dir))
                .contains(&a.id)
    };
    let Some(advice) = idx.advice_for(command, admit) else {
        return ignored("no learning about this command");
    };
    let message = advice.warning();
    let Some(stdout) = payload::additional_context(ev.agent, ev.event, &message) else {
        return ignored("this agent reads no pre-tool output");
    };
    // The warning matters more than its evidence: print it even if the
    // config cannot be read, and say why the event is missing.
    match setup.config() {
        Ok(config) => {
            let e = Event::new(
                &advice.id,
                &config.acting_agent,
                event::Outcome::Applied,
                now_secs(),
            );
            if let Err(err) = dir.inbox().write_event(&e) {
                tracing::warn!("applied event not recorded: {err}");
            }
        }
        Err(err) => tracing::warn!("applied event not recorded: {err}"),
    }
    Ok((
        Some(stdout),
        Handled::Warned {
            id: advice.id.clone(),
        },
    ))
}
