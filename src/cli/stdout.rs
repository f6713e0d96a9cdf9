//! The one writer to stdout: everything a command prints goes through
//! [`out!`] and [`outln!`] (`clippy::print_stdout` is denied in `cli/`, so a
//! `println!` cannot slip back in), and [`finish`] turns a failed write
//! into the exit code once, for every command.
//!
//! A reader that went away (`learnsync list | head -1`: EPIPE) ends the
//! output quietly and the command's own exit code stands, as ripgrep and
//! git do. Any other failure (a full disk, `> /dev/full`: ENOSPC; EIO) is
//! said on stderr and exits 1, with what the command had already done
//! ([`on_failure`]), so nothing written is lost from sight. After the first
//! failure nothing more is written; the command still runs to its end.
//!
//! Not `capture`: a hook never fails its agent, so it writes its one reply
//! itself and ignores a failure.

use std::fmt;
use std::io::{self, Write};
use std::sync::{Mutex, MutexGuard};

struct State {
    /// The first write that failed.
    failed: Option<io::Error>,
    /// What stays true when the output is lost (`add`: the learning's id).
    done: Option<String>,
}

static STATE: Mutex<State> = Mutex::new(State {
    failed: None,
    done: None,
});

fn state() -> MutexGuard<'static, State> {
    STATE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Writes formatted text; the first failure is kept for [`finish`].
pub fn write_fmt(args: fmt::Arguments<'_>) {
    let mut state = state();
    if state.failed.is_none()
        && let Err(e) = io::stdout().lock().write_fmt(args)
    {
        state.failed = Some(e);
    }
}

/// Writes bytes as they are (a man page, a completion script, a markdown
/// block); the first failure is kept for [`finish`].
pub fn write_bytes(bytes: &[u8]) {
    let mut state = state();
    if state.failed.is_none()
        && let Err(e) = io::stdout().lock().write_all(bytes)
    {
        state.failed = Some(e);
    }
}

/// Says what the command has done that a reader of stdout would otherwise
/// learn only from the output, for the error if that output is lost.
pub fn on_failure(done: impl Into<String>) {
    state().done = Some(done.into());
}

/// Flushes stdout and gives the exit code: `code` when everything was
/// written or the reader went away; 1 (or `code` when the command itself
/// failed) after saying on stderr which write failed.
pub fn finish(code: i32) -> i32 {
    let mut state = state();
    if state.failed.is_none()
        && let Err(e) = io::stdout().lock().flush()
    {
        state.failed = Some(e);
    }
    match state.failed.take() {
        None => code,
        Some(e) if e.kind() == io::ErrorKind::BrokenPipe => code,
        Some(e) => {
            let done = state
                .done
                .take()
                .map(|d| format!("; {d}"))
                .unwrap_or_default();
            eprintln!("learnsync: error: cannot write to stdout: {e}{done}");
            if code == super::exit::OK {
                super::exit::FAILURE
            } else {
                code
            }
        }
    }
}

/// `print!` through the one writer.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::stdout::write_fmt(format_args!($($arg)*))
    };
}

/// `println!` through the one writer.
macro_rules! outln {
    () => {
        $crate::cli::stdout::write_fmt(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::cli::stdout::write_fmt(format_args!("{}\n", format_args!($($arg)*)))
    };
}

pub(crate) use {out, outln};
