//! `learnsync completions <SHELL>`: the shell completion script, generated
//! by clap_complete from the same clap definitions as `--help` and the man
//! page, so a new flag completes the day it exists.

use super::{CliResult, exit};
use clap_complete::Shell;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The shell to write the completion script for.
    #[arg(value_name = "SHELL", value_enum)]
    shell: Shell,
}

pub fn run(args: Args) -> CliResult {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut super::command(), "learnsync", &mut script);
    super::stdout::write_bytes(&script);
    Ok(exit::OK)
}
