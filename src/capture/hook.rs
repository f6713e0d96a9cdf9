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
use super::index::{self, Advice, CaptureIndex};
use super::outcome;
use super::payload::{self, CommandResult, HookEvent, ToolEvent};
use super::session::{self, PendingFailure, SessionLine, SessionState, Showing};
use crate::config::{Config, Env, FileConfig, Flags};
use crate::event::{self, Event, Outcome, Via};
use crate::learning::Learning;
use crate::store::LearningsDir;
use crate::store::hook_policy::{self as in_force, HookPolicy};
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
    /// A PreToolUse denial (printed): the command does not run.
    Denied { id: String },
    /// A tool result decided the outcome of learnings shown to its session.
    Observed { outcomes: Vec<(String, Outcome)> },
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
        return Ok(Handled::Ignored(
            "a success with no pending failure or learning shown",
        ));
    };
    let now = now_secs();
    let observed = observe(&dir, &mut state, command, true, now, setup);
    state.expire(now.unix());
    let found = state
        .failures
        .iter()
        .rposition(|f| decide::fix_match(&key_of(f), command) != FixMatch::Unrelated);
    let result = match found {
        Some(i) => {
            let failure = state.failures.remove(i);
            let result = match decide::fix_match(&key_of(&failure), command) {
                FixMatch::Fix => attach_correction(&dir, &failure, command, now),
                _ => Ok(Handled::Ignored("the failed command succeeded on a retry")),
            };
            state.note(SessionLine::done(&failure.id));
            result
        }
        None => Ok(Handled::Ignored(
            "a success unrelated to the pending failures",
        )),
    };
    state
        .flush(&session_file)
        .map_err(write_err("the session"))?;
    match (observed?, result) {
        (Some(observed), Ok(Handled::Ignored(_))) => Ok(observed),
        (_, result) => result,
    }
}

/// Gives the learnings shown to this session the outcome this tool result
/// says (§4.1), writing their events, and counts the result against their
/// windows. Nothing is read beyond the session when nothing is followed.
fn observe(
    dir: &LearningsDir,
    state: &mut SessionState,
    command: &str,
    succeeded: bool,
    now: Timestamp,
    setup: &Setup,
) -> Result<Option<Handled>, String> {
    let (calls, at) = (state.calls, now.unix());
    if !state.following(at) {
        return Ok(None);
    }
    let ran = outcome::Ran::new(command);
    let decided: Vec<(Showing, Outcome)> = state
        .showings
        .iter()
        .filter(|s| s.open(calls, at) && state.may_observe(&s.id))
        .filter_map(|s| outcome::verdict(s, &ran, succeeded).map(|o| (s.clone(), o)))
        .collect();
    state.note(SessionLine::call());
    if decided.is_empty() {
        return Ok(None);
    }
    let config = setup.config()?;
    let agent = &config.acting_agent;
    let mut outcomes = Vec::new();
    for (shown, outcome) in decided {
        let via = Via::parse(&shown.via);
        let event = |o| {
            let e = Event::new(&shown.id, agent, o, now);
            match via {
                Some(v) => e.via(v),
                None => e,
            }
        };
        if !state.applied.contains(&shown.id) {
            // A context entry counts as applied once it was acted on.
            dir.inbox()
                .write_event(&event(Outcome::Applied))
                .map_err(write_err("the inbox"))?;
            state.note(SessionLine::applied(&shown.id));
        }
        dir.inbox()
            .write_event(&event(outcome))
            .map_err(write_err("the inbox"))?;
        state.note(SessionLine::decided(&shown.id));
        outcomes.push((shown.id, outcome));
    }
    Ok(Some(Handled::Observed { outcomes }))
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
    let Some(command) = ev.command.as_deref().filter(|c| !c.trim().is_empty()) else {
        return Ok(Handled::Ignored("a failure without a command"));
    };
    let dir = initialised(setup)?;
    let state_dir = dir.state();
    let now = now_secs();
    let session = ev
        .session_id
        .as_deref()
        .map(|id| session::session_path(&state_dir, id));
    let mut state = session.as_deref().and_then(SessionState::load);
    let observed = match state.as_mut() {
        Some(state) => observe(&dir, state, command, false, now, setup)?,
        None => None,
    };
    let config = setup.config()?;
    let agent = &config.acting_agent;
    let captured = decide::failure_learning(ev, agent, &config.capture_ignore.value, now);
    let Some((learning, key)) = captured else {
        if let (Some(file), Some(state)) = (&session, state.as_mut()) {
            state.flush(file).map_err(write_err("the session"))?;
        }
        return Ok(observed.unwrap_or(Handled::Ignored("the command matches an ignore pattern")));
    };
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
    if let (Some(_), Some(mut pending), Some((program, sub))) = (&session, pending, key.program) {
        pending.program = program;
        pending.subcommand = sub;
        if state.is_none() {
            // A new session is rare: the moment to forget the stale ones.
            session::prune(&state_dir);
        }
        let state = state.get_or_insert_with(SessionState::default);
        state.expire(now.unix());
        state.note(SessionLine::failure(pending));
    }
    if let (Some(file), Some(state)) = (&session, state.as_mut()) {
        state.flush(file).map_err(write_err("the session"))?;
    }
    Ok(handled)
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
    let hit = crate::search::suggest_for_hook(&dir, &lookup, Some(&agent), project(ev));
    let stdout = hit.as_ref().and_then(|(text, m)| {
        let out = payload::additional_context(ev.agent, ev.event, text)?;
        let shown = Shown::Entry {
            id: &m.id,
            correction: &m.correction,
            command: m.command.as_deref(),
        };
        let policy = in_force::load(&dir.state());
        if let Err(err) = record_showing(&dir, ev, setup, &policy, shown, Via::Prompt) {
            tracing::warn!("showing not recorded: {err}");
        }
        Some(out)
    });
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
            state.note(SessionLine::done(&failure.id));
            state.flush(&file).map_err(write_err("the session"))?;
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
    if let Some(session_id) = ev.session_id.as_deref() {
        // Its own correction is no evidence for it in this session.
        let file = session::session_path(&state_dir, session_id);
        let mut state = SessionState::load(&file).unwrap_or_default();
        state.note(SessionLine::own(&l.id));
        state.flush(&file).map_err(write_err("the session"))?;
    }
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
        crate::search::Freshness::CatchUpInHook,
    ) {
        Ok(block) => block,
        Err(e) => return Reply::of(Err(format!("no session context: {e}"))),
    };
    let stdout = Some(block.markdown.as_str())
        .filter(|m| !m.trim().is_empty())
        .and_then(|m| payload::additional_context(ev.agent, ev.event, m));
    if stdout.is_some()
        && let Some(session_id) = ev.session_id.as_deref()
        && let Err(err) = follow_session_block(&dir, session_id, &block.shown)
    {
        tracing::warn!("session block not followed: {err}");
    }
    Reply {
        stdout,
        outcome: Ok(Handled::Context {
            shown: block.shown.len(),
        }),
    }
}

/// Follows every entry of a session's block (§4.1). No `applied` yet: an
/// entry counts as applied when a decisive result follows it.
fn follow_session_block(
    dir: &LearningsDir,
    session_id: &str,
    shown: &[crate::search::context::Shown],
) -> Result<(), String> {
    let state_dir = dir.state();
    let policy = in_force::load(&state_dir);
    let file = session::session_path(&state_dir, session_id);
    let mut state = SessionState::load(&file).unwrap_or_default();
    let now = now_secs().unix();
    for s in shown {
        if !state.may_observe(&s.id) {
            continue;
        }
        let entry = Shown::Entry {
            id: &s.id,
            correction: &s.correction,
            command: s.command.as_deref(),
        };
        let showing = entry.showing(Via::SessionStart, now, state.calls, &policy);
        state.note(SessionLine::shown(showing));
    }
    state.flush(&file).map_err(write_err("the session"))
}

fn on_pre_tool_use(ev: &ToolEvent<'_>, setup: &Setup) -> Reply {
    match pre_tool(ev, setup) {
        Ok((stdout, handled)) => Reply {
            stdout,
            outcome: Ok(handled),
        },
        Err(e) => Reply::of(Err(e)),
    }
}

/// Before a command: advice about it, as a warning, or as a denial when
/// people approved it and the policy enforces its level (§5.1) — never for
/// a risky learning (§9.1) or a command that already holds the correction
/// (`advice_for` gives none then). Either is a showing (§4.1).
fn pre_tool(ev: &ToolEvent<'_>, setup: &Setup) -> Result<(Option<String>, Handled), String> {
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
    let admit = |a: &Advice| {
        a.applies_to(&agent)
            && !pulled
                .get_or_init(|| crate::search::pulled_ids(&dir))
                .contains(&a.id)
    };
    let Some(advice) = idx.advice_for(command, admit) else {
        return ignored("no learning about this command");
    };
    let policy = in_force::load(&state_dir);
    let deny = advice.risky.is_none()
        && policy.enforce.action(advice.level()) == crate::policy::Action::Deny;
    let (stdout, via) = if deny {
        (payload::deny(ev.agent, &advice.denial()), Via::Deny)
    } else {
        (payload::warn(ev.agent, &advice.warning()), Via::PreToolUse)
    };
    let Some(stdout) = stdout else {
        return ignored("this agent reads no pre-tool output");
    };
    // What the agent is told matters more than its evidence: print it even
    // if the evidence cannot be written, and say why.
    if let Err(err) = record_showing(&dir, ev, setup, &policy, Shown::Advice(advice), via) {
        tracing::warn!("showing not recorded: {err}");
    }
    let id = advice.id.clone();
    Ok((
        Some(stdout),
        if deny {
            Handled::Denied { id }
        } else {
            Handled::Warned { id }
        },
    ))
}

/// What was shown, with what outcomes need of it.
enum Shown<'a> {
    Advice(&'a Advice),
    /// A prompt suggestion or a session block entry: id, correction and
    /// the learning's command, from the search index.
    Entry {
        id: &'a str,
        correction: &'a str,
        command: Option<&'a str>,
    },
}

impl Shown<'_> {
    fn id(&self) -> &str {
        match self {
            Shown::Advice(a) => &a.id,
            Shown::Entry { id, .. } => id,
        }
    }

    fn showing(&self, via: Via, at: i64, calls: u32, policy: &HookPolicy) -> Showing {
        let (fix, failure) = match self {
            Shown::Advice(a) => (outcome::correction_parts(&a.correction), a.failure.clone()),
            Shown::Entry {
                correction,
                command,
                ..
            } => (
                outcome::correction_parts(correction),
                outcome::failure_words(command.iter().copied()),
            ),
        };
        Showing {
            id: self.id().to_string(),
            via: via.as_str().to_string(),
            at,
            calls,
            window_calls: policy.outcomes.window_calls,
            window_minutes: policy.outcomes.window_minutes,
            fix,
            failure,
        }
    }
}

/// Remembers that a learning was shown to the session (§4.1) and, for a
/// targeted showing, writes its one `applied` event of the session. A
/// session that captured the learning, or already decided it, records
/// nothing; a call outside a session gives its `applied` and is not
/// followed.
fn record_showing(
    dir: &LearningsDir,
    ev: &ToolEvent<'_>,
    setup: &Setup,
    policy: &HookPolicy,
    shown: Shown<'_>,
    via: Via,
) -> Result<(), String> {
    let now = now_secs();
    let Some(session_id) = ev.session_id.as_deref() else {
        return write_applied(dir, setup, shown.id(), via, now);
    };
    if let Shown::Advice(a) = &shown
        && a.session.as_deref() == Some(session_id)
    {
        return Ok(());
    }
    let file = session::session_path(&dir.state(), session_id);
    let mut state = SessionState::load(&file).unwrap_or_default();
    if !state.may_observe(shown.id()) {
        return Ok(());
    }
    if !state.applied.contains(shown.id()) {
        write_applied(dir, setup, shown.id(), via, now)?;
        state.note(SessionLine::applied(shown.id()));
    }
    state.note(SessionLine::shown(shown.showing(
        via,
        now.unix(),
        state.calls,
        policy,
    )));
    state.flush(&file).map_err(write_err("the session"))
}

fn write_applied(
    dir: &LearningsDir,
    setup: &Setup,
    id: &str,
    via: Via,
    now: Timestamp,
) -> Result<(), String> {
    let config = setup.config()?;
    let e = Event::new(id, &config.acting_agent, Outcome::Applied, now).via(via);
    dir.inbox()
        .write_event(&e)
        .map(|_| ())
        .map_err(write_err("the inbox"))
}
