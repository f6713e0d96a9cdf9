//! `learnsync daemon`: run sync, review, publish and export on their schedules
//! (`crate::daemon`), `--check` their next times, or `install`/`uninstall`
//! the daemon as a user service. Also sets up the daemon's logging: a line
//! per run at info level, timestamps unless journald adds its own, JSON
//! with `--log-format json`.

use super::stdout::{out, outln};
use super::{CliError, CliResult, Context, exit};
use crate::daemon::service::{self, Manager, ServiceSpec};
use crate::daemon::{DaemonError, DaemonOptions, LogFormat};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    action: Option<Action>,
    /// Print each job's schedule and next fire times, then exit; a bad
    /// schedule is explained in words.
    #[arg(long)]
    check: bool,
    /// Serve /livez, /readyz and /metrics on ADDR (host:port, or a port
    /// alone for 127.0.0.1); default: `daemon.listen`, else nowhere.
    #[arg(long, value_name = "ADDR")]
    listen: Option<String>,
    /// Log lines for people, or one JSON object a line for log shippers.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
}

#[derive(clap::Subcommand, Debug)]
enum Action {
    /// Write a systemd user unit (Linux) or launchd agent (macOS) that runs
    /// this daemon on this dir, then enable and start it.
    Install(InstallArgs),
    /// Stop the service and remove its file.
    Uninstall(UninstallArgs),
}

#[derive(clap::Args, Debug)]
struct InstallArgs {
    /// Print the service file instead of writing it.
    #[arg(long)]
    print: bool,
    /// The service manager (default: this system's).
    #[arg(long, value_enum)]
    manager: Option<Manager>,
    /// Write the file only; do not call systemctl or launchctl.
    #[arg(long)]
    no_start: bool,
    /// The daemon serves /livez, /readyz and /metrics on ADDR.
    #[arg(long, value_name = "ADDR")]
    listen: Option<String>,
    /// The daemon logs JSON lines.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
}

#[derive(clap::Args, Debug)]
struct UninstallArgs {
    /// The service manager (default: this system's).
    #[arg(long, value_enum)]
    manager: Option<Manager>,
    /// Remove the file only; do not call systemctl or launchctl.
    #[arg(long)]
    no_start: bool,
}

impl Args {
    /// The log format the daemon itself will use.
    pub fn log_format(&self) -> LogFormat {
        match &self.action {
            None if !self.check => self.log_format,
            _ => LogFormat::Text,
        }
    }

    /// True when this runs the daemon (not `--check`, `install`, …).
    pub fn runs_daemon(&self) -> bool {
        self.action.is_none() && !self.check
    }
}

/// The daemon's logging: learnsync's lines at info (`-v` debug, `-q` warn),
/// other crates' at warn; `LEARNSYNC_LOG` overrides as everywhere.
pub fn init_logging(verbose: u8, quiet: bool, format: LogFormat) {
    use tracing::Level;
    use tracing_subscriber::filter::Targets;
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let level = match (quiet, verbose) {
        (true, _) => Level::WARN,
        (false, 0) => Level::INFO,
        (false, 1) => Level::DEBUG,
        _ => Level::TRACE,
    };
    let from_env = std::env::var("LEARNSYNC_LOG").ok().and_then(|v| {
        v.parse::<Targets>()
            .map_err(|e| eprintln!("learnsync: ignoring LEARNSYNC_LOG={v:?}: {e}"))
            .ok()
    });
    let filter = from_env.unwrap_or_else(|| {
        Targets::new()
            .with_default(Level::WARN)
            .with_target("learnsync", level)
    });
    let registry = tracing_subscriber::registry().with(filter);
    match format {
        LogFormat::Json => {
            let layer = tracing_subscriber::fmt::layer()
                .json()
                .flatten_event(true)
                .with_current_span(false)
                .with_span_list(false)
                .with_writer(std::io::stderr);
            let _ = registry.with(layer).try_init();
        }
        LogFormat::Text if std::env::var_os("JOURNAL_STREAM").is_some() => {
            // journald stamps every line itself.
            let layer = tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(false)
                .without_time()
                .with_target(false);
            let _ = registry.with(layer).try_init();
        }
        LogFormat::Text => {
            let layer = tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
                .with_target(false);
            let _ = registry.with(layer).try_init();
        }
    }
}

fn listen_address(
    flag: Option<&str>,
    ctx: &Context,
) -> Result<Option<std::net::SocketAddr>, CliError> {
    match flag {
        Some(text) => crate::config::parse_listen(text)
            .map(Some)
            .map_err(|e| CliError::usage(format!("--listen: {e}"))),
        None => Ok(ctx.config.daemon.listen),
    }
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    match args.action {
        Some(Action::Install(install)) => return run_install(ctx, install),
        Some(Action::Uninstall(uninstall)) => return run_uninstall(ctx, uninstall),
        None => {}
    }
    if args.check {
        return run_check(ctx);
    }
    let listen = listen_address(args.listen.as_deref(), ctx)?;
    if crate::init::ensure(&ctx.config, &ctx.flags, &ctx.env)
        .map_err(|e| CliError::failure(e.to_string()))?
    {
        tracing::info!(
            "created the learnings dir {} on agents/{}",
            ctx.config.dir.value.display(),
            ctx.config.home_agent.value
        );
    }
    ctx.initialised_dir()?;
    let options = DaemonOptions {
        listen,
        flags: ctx.flags.clone(),
        env: ctx.env.clone(),
        exe: std::env::current_exe().ok(),
    };
    crate::daemon::run(ctx.config.clone(), options).map_err(|e| match e {
        DaemonError::AlreadyRunning { .. } => CliError::new(exit::BUSY, e.to_string()),
        DaemonError::Listen { .. } | DaemonError::Schedule { .. } => CliError::usage(e.to_string()),
        DaemonError::Io(_) => CliError::failure(e.to_string()),
    })?;
    Ok(exit::OK)
}

fn run_check(ctx: &Context) -> CliResult {
    let plans = crate::daemon::check(&ctx.config, chrono::Utc::now(), 3)
        .map_err(|e| CliError::failure(e.to_string()))?;
    if ctx.json {
        super::output::print_json(&serde_json::to_value(&plans).unwrap_or_default());
        return Ok(exit::OK);
    }
    for p in &plans {
        if p.off {
            outln!("{:<8} off  ({}: {})", p.job, p.job.schedule_key(), p.source);
            continue;
        }
        outln!(
            "{:<8} {}  ({}: {}; this machine {:+.1}s)",
            p.job,
            p.schedule,
            p.job.schedule_key(),
            p.source,
            p.offset_secs
        );
        outln!("         next: {}", p.next.join(", "));
        if let Some(note) = &p.note {
            outln!("         skips: {note}");
        }
    }
    let d = &ctx.config.daemon;
    outln!(
        "captures trigger a sync {}s after they arrive; listen: {}; ready while the last successful sync is at most {}s old and no job failed {} runs in a row",
        d.debounce_secs,
        d.listen
            .map_or_else(|| "off".to_string(), |a| a.to_string()),
        d.ready_sync_age_secs,
        d.ready_failures
    );
    Ok(exit::OK)
}

fn spec(ctx: &Context, listen: Option<&str>, format: LogFormat) -> Result<ServiceSpec, CliError> {
    let exe = std::env::current_exe().map_err(|e| {
        CliError::failure(format!("cannot tell where this learnsync binary is: {e}"))
    })?;
    let dir = &ctx.config.dir.value;
    let dir = if dir.is_absolute() {
        dir.clone()
    } else {
        std::env::current_dir()?.join(dir)
    };
    if let Some(text) = listen {
        crate::config::parse_listen(text).map_err(|e| CliError::usage(format!("--listen: {e}")))?;
    }
    Ok(ServiceSpec {
        exe,
        dir,
        listen: listen.map(str::to_string),
        json_logs: format == LogFormat::Json,
    })
}

fn home(ctx: &Context) -> Result<(std::path::PathBuf, Option<std::path::PathBuf>), CliError> {
    let home = ctx.env.home.clone().ok_or_else(|| {
        CliError::failure("HOME is not set: cannot tell where the service file goes")
    })?;
    Ok((home.into(), ctx.env.xdg_config_home.clone().map(Into::into)))
}

fn run_install(ctx: &Context, args: InstallArgs) -> CliResult {
    let manager = args.manager.unwrap_or_else(Manager::native);
    let spec = spec(ctx, args.listen.as_deref(), args.log_format)?;
    let (home, xdg) = home(ctx)?;
    if args.print {
        out!("{}", service::render(manager, &spec, &home));
        return Ok(exit::OK);
    }
    let done = service::install(manager, &spec, &home, xdg.as_deref(), !args.no_start)?;
    if ctx.json {
        super::output::print_json(&serde_json::to_value(&done).unwrap_or_default());
        return Ok(exit::OK);
    }
    ctx.say(format!("Wrote {}", done.path));
    for (command, result) in &done.ran {
        match result {
            Ok(()) => ctx.say(format!("Ran {command}")),
            Err(e) => eprintln!("learnsync: {command} failed: {e}"),
        }
    }
    if !done.hints.is_empty() {
        ctx.say("Then run:");
        for hint in &done.hints {
            ctx.say(format!("  {hint}"));
        }
    }
    let failed = done.ran.iter().any(|(_, r)| r.is_err());
    Ok(if failed { exit::PARTIAL } else { exit::OK })
}

fn run_uninstall(ctx: &Context, args: UninstallArgs) -> CliResult {
    let manager = args.manager.unwrap_or_else(Manager::native);
    let (home, xdg) = home(ctx)?;
    match service::uninstall(manager, &home, xdg.as_deref(), !args.no_start)? {
        None => ctx.say(format!(
            "No service file at {}; nothing to remove.",
            service::service_path(manager, &home, xdg.as_deref()).display()
        )),
        Some(done) => {
            ctx.say(format!("Removed {}", done.path));
            for (command, result) in &done.ran {
                if let Err(e) = result {
                    eprintln!("learnsync: {command} failed: {e}");
                }
            }
        }
    }
    Ok(exit::OK)
}
