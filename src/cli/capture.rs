//! `learnsync capture`: the hook entry point. Reads one payload (stdin, or the
//! last argument for Codex `notify`), hands it to `capture::hook`, prints
//! what the agent should read (a PreToolUse warning, a session's context, a
//! prompt's suggestion) if there is one, and always exits 0: one stderr line
//! says what went wrong, so a hook never breaks the agent that runs it.

use std::io::{IsTerminal, Read};

use crate::capture::hook::{self, Setup};
use crate::capture::payload::{Format, HookEvent};
use crate::config::{Env, Flags};

/// Largest payload read; a larger one is drained and ignored.
pub const MAX_PAYLOAD_BYTES: usize = 16 * 1024 * 1024;

#[derive(clap::Args, Debug, PartialEq)]
pub struct Args {
    /// Payload shape: auto (sniff it), claude, opencode or codex.
    #[arg(long, default_value = "auto", value_name = "FORMAT")]
    format: String,
    /// Hook event, when the payload does not name it: post-tool-use,
    /// post-tool-use-failure, pre-tool-use, user-prompt-submit or
    /// session-start.
    #[arg(long, value_name = "EVENT")]
    event: Option<String>,
    /// The payload itself instead of stdin (Codex `notify` passes its JSON as
    /// the last argument).
    #[arg(value_name = "PAYLOAD")]
    payload: Option<std::ffi::OsString>,
}

/// The common hook command lines (`learnsync capture --format claude`, the
/// Codex `notify` payload argument, the global `--dir`/`--agent`/`-v`) read
/// without building clap's whole command tree, which is a third of the
/// instructions of a capture that has nothing to do. `None` for anything
/// else (`--help`, an unknown flag, …): clap then parses, and reports.
/// `Cli`'s and [`Args`]' clap definitions stay the one documented syntax;
/// a test checks that both readings agree.
pub fn fast_args(argv: &[std::ffi::OsString]) -> Option<(Flags, u8, Args)> {
    let mut flags = Flags::default();
    let mut verbose = 0u8;
    let mut args = Args {
        format: "auto".into(),
        event: None,
        payload: None,
    };
    let mut seen_capture = false;
    let mut it = argv.iter().skip(1);
    while let Some(arg) = it.next() {
        let Some(text) = arg.to_str() else {
            // A non-UTF-8 payload argument: only after `capture`.
            if seen_capture && args.payload.is_none() {
                args.payload = Some(arg.clone());
                continue;
            }
            return None;
        };
        let (name, inline) = match text.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (text, None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| it.next()?.to_str().map(str::to_string))
        };
        match name {
            "capture" if !seen_capture => seen_capture = true,
            "--dir" => flags.dir = Some(value()?.into()),
            "--agent" => flags.agent = Some(value()?),
            "--format" if seen_capture => args.format = value()?,
            "--event" if seen_capture => args.event = Some(value()?),
            "-v" | "--verbose" => verbose = verbose.saturating_add(1),
            "-vv" => verbose = verbose.saturating_add(2),
            "-q" | "--quiet" | "--json" => {}
            _ if seen_capture && args.payload.is_none() && !text.starts_with('-') => {
                args.payload = Some(arg.clone());
            }
            _ => return None,
        }
    }
    seen_capture.then_some((flags, verbose, args))
}

/// Runs a capture and returns the exit code, which is always 0.
pub fn run(flags: Flags, args: Args) -> i32 {
    let reply = match capture(flags, args) {
        Ok(reply) => reply,
        Err(message) => hook::Reply {
            stdout: None,
            outcome: Err(message),
        },
    };
    if let Some(out) = &reply.stdout {
        // Not through `super::stdout`: a hook never fails its agent, so a
        // closed pipe or a full disk here is not worth an exit code.
        use std::io::Write;
        let _ = writeln!(std::io::stdout().lock(), "{out}");
    }
    match reply.outcome {
        Ok(handled) => tracing::debug!("capture: {handled:?}"),
        Err(message) => eprintln!("learnsync: capture: {message}"),
    }
    super::exit::OK
}

/// Reads the flags and the payload; `Err` when they are unusable.
fn capture(flags: Flags, args: Args) -> Result<hook::Reply, String> {
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
    Ok(hook::capture(&bytes, format, event, &setup))
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[test]
    fn the_fast_reading_agrees_with_clap_or_leaves_it_to_clap() {
        let cases: &[&[&str]] = &[
            &["capture"],
            &["capture", "--format", "claude"],
            &[
                "capture",
                "--format=codex",
                "{\"type\":\"agent-turn-complete\"}",
            ],
            &["--dir", "/d", "capture", "--event", "pre-tool-use", "-v"],
            &["-vv", "--agent", "ci", "capture", "--format", "opencode"],
            &["capture", "--json", "-q", "--dir=/x"],
        ];
        for case in cases {
            let argv: Vec<std::ffi::OsString> = std::iter::once("learnsync")
                .chain(case.iter().copied())
                .map(Into::into)
                .collect();
            let (flags, verbose, args) = fast_args(&argv).unwrap_or_else(|| panic!("{case:?}"));
            let cli = crate::cli::Cli::try_parse_from(&argv).expect("clap parses it too");
            let crate::cli::Command::Capture(clap_args) = cli.command else {
                panic!("{case:?} is not capture to clap");
            };
            assert_eq!(args, clap_args, "{case:?}");
            assert_eq!((flags.dir, flags.agent), (cli.dir, cli.agent), "{case:?}");
            assert_eq!(verbose, cli.verbose, "{case:?}");
        }
        for other in [
            &["capture", "--help"][..],
            &["capture", "--bogus"],
            &["capture", "a", "b"],
            &["list"],
            &["capture", "--format"],
        ] {
            let argv: Vec<std::ffi::OsString> = std::iter::once("learnsync")
                .chain(other.iter().copied())
                .map(Into::into)
                .collect();
            assert!(fast_args(&argv).is_none(), "{other:?}");
        }
    }
}
