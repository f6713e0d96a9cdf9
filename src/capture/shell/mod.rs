//! Shell command lines as agents run them: chain splitting, the program and
//! subcommand, normal forms, error signatures, ignore globs and prompt
//! corrections.
//!
//! Pure string functions, no regex, no allocation where a slice will do; they
//! are heuristics for bash-like lines, not a shell parser. One lexer reads
//! the quoting of every command line (`lex`); `chain` cuts lines into parts,
//! `program` holds the one table of programs, `signature` keys error output,
//! `ignore` matches ignore globs, `correction` reads prompts.

mod chain;
mod correction;
mod ignore;
mod lex;
mod program;
mod signature;

pub use chain::{
    ChainOp, ChainPart, failing_subcommand, normalise_command, program_key, split_chain,
};
pub use correction::parse_correction;
pub use ignore::{default_ignore_patterns, glob_match, matches_ignore};
pub use signature::error_signature;
