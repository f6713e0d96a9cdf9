//! `learnsync completions <SHELL>`: the shell completion script, generated
//! by clap_complete from the same clap definitions as `--help` and the man
//! page, so a new flag completes the day it exists.

use super::{CliError, CliResult, exit};
use clap_complete::Shell;
use std::io::Write;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The shell to write the completion script for.
    #[arg(value_name = "SHELL", value_enum)]
    shell: Shell,
}

pub fn run(args: Args) -> CliResult {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut super::command(), "learnsync", &mut script);
    std::io::stdout()
        .write_all(&script)
        .map_err(|e| CliError::failure(format!("cannot write the completion script: {e}")))?;
    Ok(exit::OK)
}
