//! `learnsync man`: one roff page, `learnsync(1)`, with every command and
//! flag, built from the clap definitions (clap_mangen for the head, our own
//! section per command below it, since we ship one page and not one per
//! subcommand), plus the exit codes and environment that help cannot show.

use super::{CliError, CliResult, exit};
use clap_mangen::roff::{Inline, Roff, bold, italic, roman};

pub fn run() -> CliResult {
    let page = page(super::command())
        .map_err(|e| CliError::failure(format!("cannot render the man page: {e}")))?;
    super::stdout::write_bytes(&page);
    Ok(exit::OK)
}

/// The whole page for `cmd` (the `learnsync` command tree).
pub fn page(mut cmd: clap::Command) -> std::io::Result<Vec<u8>> {
    cmd.build();
    let man = clap_mangen::Man::new(cmd.clone()).manual("learnsync manual");
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    let mut roff = Roff::default();
    // clap_mangen's synopsis lists every global flag without its value;
    // the commands below each have their own.
    roff.control("SH", ["SYNOPSIS"]);
    roff.text([
        bold("learnsync"),
        roman(" ["),
        italic("GLOBAL OPTIONS"),
        roman("] "),
        italic("COMMAND"),
        roman(" ["),
        italic("ARGS"),
        roman("]"),
    ]);
    roff.to_writer(&mut out)?;
    man.render_description_section(&mut out)?;
    let mut roff = Roff::default();
    roff.control("SH", ["GLOBAL OPTIONS"]);
    roff.text([roman(
        "These apply to every command and may stand before or after it.",
    )]);
    options(&mut roff, &cmd);
    roff.control("SH", ["COMMANDS"]);
    for sub in visible_subcommands(&cmd) {
        command_section(&mut roff, sub, cmd.get_name());
    }
    tail(&mut roff);
    roff.to_writer(&mut out)?;
    Ok(out)
}

fn visible_subcommands(cmd: &clap::Command) -> impl Iterator<Item = &clap::Command> {
    cmd.get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
}

/// `.SS learnsync <path>`, its usage, its long help and its options; then its
/// own subcommands the same way (`hooks install`, `kg check`).
fn command_section(roff: &mut Roff, cmd: &clap::Command, parent: &str) {
    let path = format!("{parent} {}", cmd.get_name());
    roff.control("SS", [path.as_str()]);
    let mut usage = vec![bold(path.clone())];
    for arg in cmd
        .get_arguments()
        .filter(|a| shown(a) && !a.is_global_set())
    {
        usage.push(roman(" "));
        usage.extend(synopsis_of(arg));
    }
    if cmd.has_subcommands() {
        usage.push(roman(" "));
        usage.push(italic("COMMAND"));
    }
    roff.text(usage);
    if let Some(about) = cmd.get_long_about().or_else(|| cmd.get_about()) {
        roff.control("PP", []);
        let mut about = about.to_string();
        end_sentence(&mut about);
        paragraphs(roff, &about);
    }
    options(roff, cmd);
    for sub in visible_subcommands(cmd) {
        command_section(roff, sub, &path);
    }
}

/// Help's own `--help`/`--version` are left out: every command has them.
fn shown(arg: &clap::Arg) -> bool {
    !arg.is_hide_set() && !matches!(arg.get_id().as_str(), "help" | "version")
}

fn synopsis_of(arg: &clap::Arg) -> Vec<Inline> {
    let value = value_name(arg);
    let mut parts = Vec::new();
    let required = arg.is_required_set();
    if !required {
        parts.push(roman("["));
    }
    if let Some(long) = arg.get_long() {
        parts.push(bold(format!("--{long}")));
        if takes_value(arg) {
            parts.push(roman(" "));
            parts.push(italic(value));
        }
    } else if let Some(short) = arg.get_short() {
        parts.push(bold(format!("-{short}")));
    } else {
        parts.push(italic(value));
    }
    if !required {
        parts.push(roman("]"));
    }
    if arg.get_num_args().is_some_and(|n| n.max_values() > 1)
        || matches!(arg.get_action(), clap::ArgAction::Append)
    {
        parts.push(roman("..."));
    }
    parts
}

fn takes_value(arg: &clap::Arg) -> bool {
    arg.get_num_args().is_some_and(|n| n.takes_values())
}

fn value_name(arg: &clap::Arg) -> String {
    match arg.get_value_names() {
        Some(names) => names
            .iter()
            .map(|n| n.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        None => arg.get_id().as_str().to_uppercase(),
    }
}

/// One `.TP` entry per flag and positional: its name, its help, its choices
/// and default.
fn options(roff: &mut Roff, cmd: &clap::Command) {
    let parent_globals = |a: &clap::Arg| a.is_global_set() && cmd.get_name() != "learnsync";
    for arg in cmd
        .get_arguments()
        .filter(|a| shown(a) && !parent_globals(a))
    {
        let mut head = Vec::new();
        match (arg.get_short(), arg.get_long()) {
            (Some(s), Some(l)) => {
                head.push(bold(format!("-{s}")));
                head.push(roman(", "));
                head.push(bold(format!("--{l}")));
            }
            (None, Some(l)) => head.push(bold(format!("--{l}"))),
            (Some(s), None) => head.push(bold(format!("-{s}"))),
            (None, None) => {}
        }
        if takes_value(arg) {
            if !head.is_empty() {
                head.push(roman(" "));
            }
            head.push(italic(value_name(arg)));
        }
        roff.control("TP", []);
        roff.text(head);
        let mut body = String::new();
        if let Some(help) = arg.get_long_help().or_else(|| arg.get_help()) {
            body.push_str(help.to_string().trim());
        }
        end_sentence(&mut body);
        let choices: Vec<String> = arg
            .get_possible_values()
            .iter()
            .filter(|v| !v.is_hide_set())
            .map(|v| v.get_name().to_string())
            .collect();
        if !choices.is_empty() && takes_value(arg) {
            body.push_str(&format!(" One of: {}.", choices.join(", ")));
        }
        let defaults: Vec<String> = arg
            .get_default_values()
            .iter()
            .map(|v| v.to_string_lossy().into_owned())
            .collect();
        if !defaults.is_empty() && takes_value(arg) {
            body.push_str(&format!(" Default: {}.", defaults.join(", ")));
        }
        roff.text([roman(body.trim().to_string())]);
    }
}

/// clap drops the full stop of a one-sentence doc comment; a page reads
/// better with it.
fn end_sentence(text: &mut String) {
    let trimmed = text.trim_end().len();
    text.truncate(trimmed);
    if !text.is_empty() && !text.ends_with(['.', ')']) {
        text.push('.');
    }
}

fn paragraphs(roff: &mut Roff, text: &str) {
    let mut first = true;
    for para in text.split("\n\n") {
        if !first {
            roff.control("PP", []);
        }
        first = false;
        roff.text([roman(para.split_whitespace().collect::<Vec<_>>().join(" "))]);
    }
}

/// What help cannot say: exit codes, the environment, where the rest is.
fn tail(roff: &mut Roff) {
    roff.control("SH", ["EXIT STATUS"]);
    for (code, meaning) in [
        (exit::OK, "success"),
        (
            exit::FAILURE,
            "failure (the message says what and where); doctor found problems",
        ),
        (
            exit::USAGE,
            "bad usage: unknown flag, invalid id or agent name, bad value",
        ),
        (
            exit::PARTIAL,
            "partial: some remote, page or review step failed, the rest went through",
        ),
        (
            exit::BUSY,
            "busy: another sync holds the lock, or a git command holds a lock file past --wait",
        ),
    ] {
        roff.control("TP", []);
        roff.text([bold(code.to_string())]);
        roff.text([roman(meaning)]);
    }
    roff.control("SH", ["ENVIRONMENT"]);
    let dir = [
        (
            "LEARNSYNC_DIR".to_string(),
            "The learnings dir when --dir is not given.".to_string(),
        ),
        (
            "TERRAPHIM_LEARNINGS_DIR".to_string(),
            "The learnings dir when neither --dir nor LEARNSYNC_DIR is given; \
             else $XDG_DATA_HOME/learnsync."
                .to_string(),
        ),
        (
            "LEARNSYNC_LOG".to_string(),
            "The diagnostics filter: a level, or target=level,... \
             (e.g. learnsync=trace,gix=warn)."
                .to_string(),
        ),
    ];
    // The configuration keys own their variables: a new one shows up here.
    let keys = crate::config::KEYS.iter().filter_map(|k| {
        k.env.map(|var| {
            (
                var.to_string(),
                format!("Sets the configuration key {}.", k.name),
            )
        })
    });
    for (var, meaning) in dir.into_iter().chain(keys) {
        roff.control("TP", []);
        roff.text([bold(var)]);
        roff.text([roman(meaning)]);
    }
    roff.control("SH", ["SEE ALSO"]);
    roff.text([roman(
        "git(1). The documentation in the source tree: docs/cli.md (every command), \
         docs/format.md, docs/sync.md, docs/publish.md, docs/review.md, docs/security.md.",
    )]);
}
