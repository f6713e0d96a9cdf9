//! Capture: turning an agent hook's payload into learnings and evidence.
//!
//! `payload` parses what Claude Code, opencode and Codex send; `shell` reads
//! the command lines inside them; `decide` says what a call means (pure);
//! `hook` does the I/O for one call: the inbox, the per-session memory
//! (`session`) and the lookup index (`index`) that spares a scan per call.

pub mod decide;
pub mod hook;
pub mod index;
pub mod outcome;
pub mod payload;
pub mod session;
