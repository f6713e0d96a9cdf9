//! The command line (§10): flags defined once with their help, one file per
//! command that only translates between the user and the library.
//! Everything printed on stdout goes through `stdout` (see there why).

#![deny(clippy::print_stdout)]

mod add;
mod allocator;
mod apply;
mod capture;
mod completions;
mod config;
mod context;
mod daemon;
mod doctor;
mod export;
mod hooks;
mod impact;
mod index;
mod init;
mod kg;
mod list;
mod man;
mod output;
mod publish;
mod query;
mod review;
mod show;
mod status;
mod stdout;
mod suggest;
mod sync;
mod watch;

use crate::config::{Config, Env, Flags};
use crate::store::LearningsDir;
use clap::{CommandFactory, Parser, Subcommand};
use std::path::PathBuf;

/// Exit codes of §10.
pub mod exit {
    pub const OK: i32 = 0;
    pub const FAILURE: i32 = 1;
    pub const USAGE: i32 = 2;
    pub const PARTIAL: i32 = 3;
    pub const BUSY: i32 = 4;
}

#[derive(Parser, Debug)]
#[command(
    name = "learnsync",
    version,
    about = "Git-native sync of AI coding agents' learnings",
    long_about = "learnsync turns AI coding agents' failed commands and their corrections into \
                  learnings, syncs them between machines through git, computes trust from the \
                  evidence and publishes trusted ones to a Gitea wiki."
)]
pub struct Cli {
    /// The learnings dir (default: $LEARNSYNC_DIR, $TERRAPHIM_LEARNINGS_DIR, $XDG_DATA_HOME/learnsync).
    #[arg(long, global = true, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// The agent acting (writer of add, apply, capture); defaults to the home agent.
    #[arg(long, global = true, value_name = "NAME")]
    pub agent: Option<String>,
    /// Machine output on stdout; diagnostics stay on stderr.
    #[arg(long, global = true)]
    pub json: bool,
    /// More diagnostics (-v, -vv).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Only errors.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Create or adopt a learnings dir as a git repository on agents/<home>.
    Init(init::Args),
    /// Record a learning by hand (L1); prints its id.
    Add(add::Args),
    /// Record evidence about a learning: applied, effective, ineffective, recurred.
    Apply(apply::Args),
    /// List learnings (inbox included).
    List(list::Args),
    /// Show one learning.
    Show(show::Args),
    /// Run one sync cycle: commit, fetch, merge, recompute, push.
    Sync(sync::Args),
    /// Publish L2/L3 learnings to the wiki, touching only what changed.
    Publish(publish::Args),
    /// Route L2 learnings to human review on Gitea: propose, follow, withdraw,
    /// record rejections and problem reports.
    Review(review::Args),
    /// What the learnings did: shown, denied, followed, effective,
    /// ineffective, recurred after being shown, failures avoided.
    Impact(impact::Args),
    /// Health: branch, counts by trust, inbox, last sync.
    Status,
    /// Find problems: unreadable files, bad events, configuration.
    Doctor,
    /// Show the effective configuration and where each value came from.
    Config,
    /// Hook entry: read one agent payload, write learnings and events to the
    /// inbox. Always exits 0; problems go to stderr as one line.
    Capture(capture::Args),
    /// Register or remove the capture hook in Claude Code, opencode or Codex.
    Hooks(hooks::Args),
    /// Build the capture and search indexes whole from HEAD (a sync keeps
    /// them in step, and starts this detached for a large dir's first build).
    Index(index::Args),
    /// Watch the work tree so a sync need not scan it (started by `sync`
    /// on large dirs; `--stop` ends it).
    Watch(watch::Args),
    /// The learnings an agent should see for a failing command, an error or
    /// a question; nothing when nothing fits.
    Suggest(suggest::Args),
    /// Search learnings as a person, with filters.
    Query(query::Args),
    /// The markdown block of learnings a session starts with.
    Context(context::Args),
    /// Write trusted learnings into an agent's instruction file (AGENTS.md,
    /// CLAUDE.md, Copilot, Cursor) or skills dir, between markers.
    Export(export::Args),
    /// The knowledge graph (`kg/*.md`): `kg check` reports broken files.
    Kg(kg::Args),
    /// Run sync, review, publish and export on their schedules (`--check` lists
    /// their next times); `install` makes it a user service.
    Daemon(daemon::Args),
    /// Print the shell completion script for bash, zsh, fish, elvish or
    /// powershell.
    Completions(completions::Args),
    /// Print the man page, learnsync(1), in roff.
    Man,
}

/// The whole command tree as clap sees it: what help, the man page, the
/// completions and the docs check are all made from.
pub fn command() -> clap::Command {
    Cli::command()
}

/// A failure to report: the message for a person and the exit code.
#[derive(Debug)]
pub struct CliError {
    pub code: i32,
    pub message: String,
}

impl CliError {
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        CliError {
            code,
            message: message.into(),
        }
    }
    pub fn usage(message: impl Into<String>) -> Self {
        Self::new(exit::USAGE, message)
    }
    pub fn failure(message: impl Into<String>) -> Self {
        Self::new(exit::FAILURE, message)
    }
}

macro_rules! failure_from {
    ($($t:ty),*) => {$(
        impl From<$t> for CliError {
            fn from(e: $t) -> Self {
                CliError::failure(e.to_string())
            }
        }
    )*};
}
failure_from!(
    crate::repo::GitError,
    crate::config::ConfigError,
    std::io::Error
);

pub type CliResult = Result<i32, CliError>;

/// A flag value parser for a domain enum: its names (and aliases) are the
/// possible values help lists, so flags follow the domain types.
pub(crate) fn named<T: crate::names::Named + Clone>()
-> impl clap::builder::TypedValueParser<Value = T> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(
        T::ALL
            .iter()
            .map(|v| PossibleValue::new(v.as_str()).aliases(v.aliases().iter().copied())),
    )
    .try_map(|name: String| {
        T::from_name(&name).ok_or_else(|| format!("{name:?} is not one of {}", T::choices()))
    })
}

/// What every command gets: the parsed globals and the effective config.
pub struct Context {
    pub json: bool,
    pub quiet: bool,
    pub config: Config,
    pub flags: Flags,
    pub env: Env,
}

impl Context {
    pub fn dir(&self) -> LearningsDir {
        LearningsDir::new(self.config.dir.value.clone())
    }

    /// The dir, which must already be a learnings repository.
    pub fn initialised_dir(&self) -> Result<LearningsDir, CliError> {
        let dir = self.dir();
        if !dir.is_initialised() {
            return Err(CliError::failure(format!(
                "{} is not a learnings dir yet; run `learnsync init` (or pass --dir)",
                dir.root.display()
            )));
        }
        Ok(dir)
    }

    /// Prints a line for people unless `--quiet` or `--json`.
    pub fn say(&self, line: impl std::fmt::Display) {
        if !self.quiet && !self.json {
            stdout::outln!("{line}");
        }
    }
}

fn init_tracing(verbose: u8, quiet: bool) {
    use tracing_subscriber::filter::Targets;
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let level = match (quiet, verbose) {
        (true, _) => "error",
        (false, 0) => "warn",
        (false, 1) => "info",
        (false, 2) => "debug",
        _ => "trace",
    };
    // `LEARNSYNC_LOG` takes `level` or `target=level,…` (tracing's
    // `Targets` syntax). Not `EnvFilter`: its regex-based field filters link
    // ~190 KB of Unicode tables that every process start would relocate.
    let from_env = std::env::var("LEARNSYNC_LOG").ok().and_then(|v| {
        v.parse::<Targets>()
            .map_err(|e| eprintln!("learnsync: ignoring LEARNSYNC_LOG={v:?}: {e}"))
            .ok()
    });
    let filter = from_env.unwrap_or_else(|| {
        Targets::new().with_default(level.parse().unwrap_or(tracing::Level::WARN))
    });
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .without_time()
        .with_target(false);
    let _ = tracing_subscriber::registry()
        .with(layer)
        .with(filter)
        .try_init();
}

/// Parses the process arguments, runs the command, and returns the exit code.
pub fn main() -> i32 {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some((flags, verbose, args)) = capture::fast_args(&argv) {
        if verbose > 0 {
            init_tracing(verbose, false);
        }
        return capture::run(flags, args);
    }
    let cli = match Cli::try_parse_from(&argv) {
        Ok(cli) => cli,
        Err(e) => {
            if e.use_stderr() && argv.iter().skip(1).any(|a| a == "capture") {
                // A hook must never fail its agent, not even on a bad flag.
                let first = e.to_string();
                let first = first.lines().next().unwrap_or("bad arguments");
                eprintln!(
                    "learnsync: capture: {}",
                    first.trim_start_matches("error: ")
                );
                return exit::OK;
            }
            let code = if e.use_stderr() {
                exit::USAGE
            } else {
                exit::OK
            };
            let _ = e.print();
            return code;
        }
    };
    // `capture` runs on every agent tool call: no config, no tracing unless
    // asked, nothing before the payload says it matters.
    if let Command::Capture(args) = cli.command {
        if cli.verbose > 0 {
            init_tracing(cli.verbose, cli.quiet);
        }
        let flags = Flags {
            dir: cli.dir,
            agent: cli.agent,
        };
        return capture::run(flags, args);
    }
    // The long commands give freed memory back between their phases.
    let long = match &cli.command {
        Command::Sync(_) => true,
        Command::Daemon(args) => args.runs_daemon(),
        _ => false,
    };
    if long {
        allocator::reexec_tuned(&argv);
    }
    match &cli.command {
        Command::Daemon(args) if args.runs_daemon() => {
            daemon::init_logging(cli.verbose, cli.quiet, args.log_format());
        }
        _ => init_tracing(cli.verbose, cli.quiet),
    }
    if long {
        tracing::debug!(
            "allocator: {}",
            if allocator::tuned() {
                allocator::SETTINGS
            } else {
                "glibc's defaults (GLIBC_TUNABLES was set, or the exec failed)"
            }
        );
    }
    // Installing hooks, completions and the man page need no learnings dir
    // nor its config.
    let result = match cli.command {
        Command::Hooks(args) => hooks::run(cli.json, cli.quiet, args),
        Command::Completions(args) => completions::run(args),
        Command::Man => man::run(),
        command => run(Cli { command, ..cli }),
    };
    let code = match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("learnsync: error: {}", e.message);
            e.code
        }
    };
    stdout::finish(code)
}

fn run(cli: Cli) -> CliResult {
    if let Some(agent) = &cli.agent {
        crate::paths::validate_agent(agent)
            .map_err(|e| CliError::usage(format!("--agent: {e}")))?;
    }
    let flags = Flags {
        dir: cli.dir.clone(),
        agent: cli.agent.clone(),
    };
    let env = Env::from_process();
    // A dir that is a file is a bad argument (exit 2), not a broken config.
    let dir = Config::resolve_dir(&flags, &env, &Default::default());
    if let Some(problem) = crate::config::dir_problem(&dir) {
        return Err(CliError::usage(format!(
            "{}: {problem}",
            dir.value.display()
        )));
    }
    // `init --agent` names the home agent of the new dir, so it is not a config error to load first.
    let config = Config::load(&flags, &env)?;
    let ctx = Context {
        json: cli.json,
        quiet: cli.quiet,
        config,
        flags,
        env,
    };
    match cli.command {
        Command::Init(args) => init::run(&ctx, args),
        Command::Add(args) => add::run(&ctx, args),
        Command::Apply(args) => apply::run(&ctx, args),
        Command::List(args) => list::run(&ctx, args),
        Command::Show(args) => show::run(&ctx, args),
        Command::Sync(args) => sync::run(&ctx, args),
        Command::Index(args) => index::run(&ctx, args),
        Command::Publish(args) => publish::run(&ctx, args),
        Command::Review(args) => review::run(&ctx, args),
        Command::Impact(args) => impact::run(&ctx, args),
        Command::Status => status::run(&ctx),
        Command::Doctor => doctor::run(&ctx),
        Command::Config => config::run(&ctx),
        Command::Watch(args) => watch::run(&ctx, args),
        Command::Suggest(args) => suggest::run(&ctx, args),
        Command::Query(args) => query::run(&ctx, args),
        Command::Context(args) => context::run(&ctx, args),
        Command::Kg(args) => kg::run(&ctx, args),
        Command::Export(args) => export::run(&ctx, args),
        Command::Daemon(args) => daemon::run(&ctx, args),
        Command::Capture(_) | Command::Hooks(_) | Command::Completions(_) | Command::Man => Err(
            CliError::failure("internal: dispatched before the config load"),
        ),
    }
}
