//! Capture: turning an agent hook's payload into a normalised tool event.
//!
//! `payload` parses what Claude Code, opencode and Codex send; `shell` reads
//! the command lines inside them. Neither writes anything: the inbox does that.

pub mod payload;
pub mod shell;
