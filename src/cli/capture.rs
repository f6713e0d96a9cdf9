//! `learnsync capture`: the hook entry point. Reads one payload (stdin, or the
//! last argument for Codex `notify`), hands it to `capture::hook`, prints a
//! PreToolUse warning if there is one, and always exits 0: one stderr line
//! says what went wrong, so a hook never breaks the agent that runs it.

use std::io::{IsTerminal, Read};

use crate::capture::hook::{self, Setup};
use crate::capture::payload::{Format, HookEvent};
use crate::config::{Env, Flags};

/// Largest payload read; a larger one is drained and ignored.
pub const MAX_PAYLOAD_BYTES: usize = 16 * 1024 * 1024;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Payload shape: auto (sniff it), claude, opencode or codex.
    #[arg(long, default_value = "auto", value_name = "FORMAT")]
    format: String,
    /// Hook event, when the payload does not name it: post-tool-use,
    /// post-tool-use-failure, pre-tool-use or user-prompt-submit.
    #[arg(long, value_name = "EVENT")]
    event: Option<String>,
    /// The payload itself instead of stdin (Codex `notify` passes its JSON as
    /// the last argument).
    #[arg(value_name = "PAYLOAD")]
    payload: Option<std::ffi::OsString>,
}

/// Runs a capture and returns the exit code, which is always 0.
pub fn run(flags: Flags, args: Args) -> i32 {
    match capture(flags, args) {
        Ok(handled) => {
            tracing::debug!("capture: {handled:?}");
            if let Some(out) = handled.stdout() {
                println!("{out}");
            }
        }
        Err(message) => eprintln!("learnsync: capture: {message}"),
    }
    super::exit::OK
}

fn capture(flags: Flags, args: Args) -> Result<hook::Handled, String> {
    if let Some(agent) = &flags.agent {
        crate::paths::validate_agent(agent).map_err(|e| format!("--agent: {e}"))?;
    }
    let format: Format = args.format.parse().map_err(|e| format!("--format: {e}"))?;
    let event = args
        .event
        .as_deref()
        .map(str::parse::<HookEvent>)
        .transpose()
        .map_err(|e| format!("--event: {e}"))?;
    let bytes = match args.payload {
        Some(p) => p.into_encoded_bytes(),
        None => read_stdin()?,
    };
    let setup = Setup {
        flags,
        env: Env::from_process(),
    };
    hook::capture(&bytes, format, event, &setup)
}

/// Reads stdin up to [`MAX_PAYLOAD_BYTES`]; a larger payload is read to its
/// end (so the agent writing it never sees a broken pipe) and refused.
fn read_stdin() -> Result<Vec<u8>, String> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Err("no payload: pipe one JSON object on stdin or pass it as an argument".into());
    }
    let mut lock = stdin.lock();
    let mut buf = Vec::with_capacity(16 * 1024);
    (&mut lock)
        .take(MAX_PAYLOAD_BYTES as u64 + 1)
        .read_to_end(&mut buf)
        .map_err(|e| format!("cannot read stdin: {e}"))?;
    if buf.len() > MAX_PAYLOAD_BYTES {
        let rest = std::io::copy(&mut lock, &mut std::io::sink()).unwrap_or(0);
        return Err(format!(
            "payload of {} bytes is over the 16 MiB limit; ignored",
            buf.len() as u64 + rest
        ));
    }
    Ok(buf)
}
