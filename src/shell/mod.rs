//! Shell command lines as agents run them: chain splitting, the program and
//! subcommand, normal forms, error signatures, ignore globs and prompt
//! corrections, `verify_pattern`s.
//!
//! Pure string functions, no allocation where a slice will do; they are
//! heuristics for bash-like lines, not a shell parser. One lexer reads the
//! quoting of every command line (`lex`); `chain` cuts lines into parts,
//! `program` holds the one table of programs, `signature` keys error output,
//! `ignore` matches ignore globs, `correction` reads prompts, `verify` reads
//! a learning's `verify_pattern` (the one regex use, compiled on demand).

mod chain;
mod correction;
pub mod ignore;
mod lex;
mod program;
mod signature;
mod verify;

pub use chain::{
    ChainOp, ChainPart, assignments, command_parts, failing_subcommand, failing_subject,
    has_comment, normalise_command, program_key, simple_commands, split_chain, subject_parts,
};
pub use correction::parse_correction;
pub use ignore::{default_ignore_patterns, glob_match, matches_ignore};
pub use signature::error_signature;
pub use verify::{PatternKind, VerifyPattern, match_within, pattern_kind, pattern_problem};
