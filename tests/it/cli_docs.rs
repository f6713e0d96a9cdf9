//! `docs/cli.md` checked against the clap definitions (`learnsync::cli::command()`):
//! every command, nested ones included, has a `###` section and every long
//! option is named in it; the page names no command or option that does not
//! exist. And the completion scripts and man page made from the same
//! definitions, through the real binary.
//!
//! How the page is read: a `### \`sync [--no-fetch] …\`` heading opens the
//! section of `sync`; `### \`hooks install|uninstall …\`` one section for
//! both, as does a heading of several code spans; `## Global flags` is the
//! section of the global options. A `--flag` belongs to the section it is
//! in, unless it stands in a code span that starts with a command
//! (`` `watch --stop` ``, `` `learnsync --agent codex apply` ``), which it
//! then belongs to.

use super::common::bin;
use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// A command path: `[]` is `learnsync` itself, `["hooks", "install"]`.
type Path = Vec<String>;

/// What clap says exists: each command's long options (without the
/// `--help`/`--version` every command has).
struct Tree {
    longs: BTreeMap<Path, BTreeSet<String>>,
    children: BTreeMap<Path, BTreeSet<String>>,
}

impl Tree {
    fn of(mut cmd: clap::Command) -> Tree {
        cmd.build();
        let mut tree = Tree {
            longs: BTreeMap::new(),
            children: BTreeMap::new(),
        };
        tree.add(&cmd, Vec::new());
        tree
    }

    fn add(&mut self, cmd: &clap::Command, path: Path) {
        let longs = cmd
            .get_arguments()
            // A global is the root's: clap copies it into every command.
            .filter(|a| !a.is_hide_set() && (path.is_empty() || !a.is_global_set()))
            .filter_map(|a| a.get_long())
            .filter(|l| !matches!(*l, "help" | "version"))
            .map(str::to_string)
            .collect();
        self.longs.insert(path.clone(), longs);
        let mut children = BTreeSet::new();
        if path.is_empty() {
            // `learnsync help <command>` may be named; clap's `help`
            // commands need no section of their own.
            children.insert("help".to_string());
        }
        let real = |s: &&clap::Command| !s.is_hide_set() && s.get_name() != "help";
        for sub in cmd.get_subcommands().filter(real) {
            children.insert(sub.get_name().to_string());
            let mut p = path.clone();
            p.push(sub.get_name().to_string());
            self.add(sub, p);
        }
        self.children.insert(path, children);
    }

    /// Every command that must be documented.
    fn commands(&self) -> impl Iterator<Item = &Path> {
        self.longs.keys().filter(|p| !p.is_empty())
    }

    /// `hooks install|uninstall claude …` → the commands the words name, and
    /// how many words that took; `None` when the first word is no command.
    fn resolve(&self, words: &[&str]) -> Option<(Vec<Path>, usize)> {
        let mut paths: Vec<Path> = vec![Vec::new()];
        let mut used = 0;
        for word in words {
            let names: Vec<&str> = word.split('|').collect();
            let all_children = names.iter().all(|n| {
                paths
                    .iter()
                    .all(|p| self.children.get(p).is_some_and(|c| c.contains(*n)))
            });
            if !all_children {
                break;
            }
            paths = paths
                .iter()
                .flat_map(|p| {
                    names.iter().map(move |n| {
                        let mut q = p.clone();
                        q.push(n.to_string());
                        q
                    })
                })
                .collect();
            used += 1;
        }
        (used > 0).then_some((paths, used))
    }

    /// `kg verify`: a word after a command with subcommands that is none of
    /// them.
    fn unknown_child(&self, paths: &[Path], words: &[&str], used: usize) -> Option<String> {
        let next = words.get(used)?;
        let bare = next
            .chars()
            .all(|c| c.is_ascii_lowercase() || c == '-' || c == '|');
        let parent = paths.first()?;
        let has_children = self.children.get(parent).is_some_and(|c| !c.is_empty());
        (bare && has_children).then(|| format!("{} {next}", show(parent)))
    }

    /// The options a `--flag` in `path`'s section may be: its own and the globals.
    fn has(&self, path: &Path, long: &str) -> bool {
        let own = self.longs.get(path).is_some_and(|l| l.contains(long));
        let global = self
            .longs
            .get(&Vec::new())
            .is_some_and(|l| l.contains(long));
        own || global || matches!(long, "help" | "version")
    }

    fn has_anywhere(&self, long: &str) -> bool {
        matches!(long, "help" | "version") || self.longs.values().any(|l| l.contains(long))
    }
}

fn show(path: &Path) -> String {
    if path.is_empty() {
        "learnsync (global)".to_string()
    } else {
        path.join(" ")
    }
}

/// The `--long` options named in `text`.
fn longs_in(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while let Some(at) = text[i..].find("--") {
        let start = i + at;
        let before_ok =
            start == 0 || !(bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'-');
        let name: String = text[start + 2..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')
            .collect();
        let name = name.trim_end_matches('-').to_string();
        if before_ok && name.starts_with(|c: char| c.is_ascii_lowercase()) {
            found.push(name.clone());
        }
        i = start + 2 + name.len();
    }
    found
}

/// The backtick spans closed on this line, and the text outside spans; a
/// span may open on an earlier line (`open` carries it over).
fn spans(line: &str, open: &mut Option<String>) -> (Vec<String>, String) {
    let mut closed = Vec::new();
    let mut outside = String::new();
    for c in line.chars() {
        match (c, open.as_mut()) {
            ('`', Some(_)) => closed.extend(open.take()),
            ('`', None) => *open = Some(String::new()),
            (c, Some(span)) => span.push(c),
            (c, None) => outside.push(c),
        }
    }
    if let Some(span) = open.as_mut() {
        span.push(' ');
    }
    (closed, outside)
}

/// Checks `doc` (the text of docs/cli.md) against `tree`; returns every
/// problem, each naming what and where.
fn check(doc: &str, tree: &Tree) -> Vec<String> {
    let mut problems = Vec::new();
    // The commands whose section we are in; `None` outside any (exit codes…).
    let mut section: Option<(Vec<Path>, usize)> = None;
    let mut sections: BTreeMap<Path, usize> = BTreeMap::new();
    let mut named: BTreeMap<Path, BTreeSet<String>> = BTreeMap::new();
    let mut in_fence = false;
    let mut open_span = None;
    for (n, line) in doc.lines().enumerate() {
        let at = n + 1;
        if line.starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if !in_fence && line.starts_with("## ") {
            section = (line.trim() == "## Global flags").then(|| (vec![Vec::new()], at));
            continue;
        }
        if !in_fence && line.starts_with("### ") {
            // `### \`daemon install …\`, \`daemon uninstall …\``: one section
            // for every command its code spans name.
            let (heading, _) = spans(line, &mut None);
            let mut covered: Vec<Path> = Vec::new();
            for span in &heading {
                let words: Vec<&str> = span.split_whitespace().collect();
                let words = match words.first() {
                    Some(&"learnsync") => &words[1..],
                    _ => &words[..],
                };
                if let Some((paths, used)) = tree.resolve(words) {
                    if let Some(bad) = tree.unknown_child(&paths, words, used) {
                        problems.push(format!(
                            "extra: docs/cli.md:{at}: the heading names `{bad}`, which is not a learnsync command"
                        ));
                    }
                    covered.extend(paths);
                }
            }
            if covered.is_empty() {
                problems.push(format!(
                    "extra: docs/cli.md:{at}: the heading {:?} names no learnsync command",
                    line.trim()
                ));
                section = None;
            } else {
                for p in &covered {
                    sections.entry(p.clone()).or_insert(at);
                }
                section = Some((covered, at));
            }
        }
        // A fenced line is one span: `learnsync completions bash > …`.
        let (code, outside) = if in_fence {
            (vec![line.trim().to_string()], String::new())
        } else {
            spans(line, &mut open_span)
        };
        let mut loose: Vec<String> = longs_in(&outside);
        for span in &code {
            let words: Vec<&str> = span.split_whitespace().collect();
            let (named_learnsync, rest) = match words.first() {
                Some(&"learnsync") => (true, &words[1..]),
                _ => (false, &words[..]),
            };
            // Skip leading global flags and their values to the command word.
            let mut k = 0;
            while k < rest.len() && rest[k].starts_with('-') {
                let takes_value = matches!(rest[k], "--dir" | "--agent");
                k += if takes_value { 2 } else { 1 };
            }
            let after_flags = rest.get(k.min(rest.len())..).unwrap_or(&[]);
            match tree.resolve(after_flags) {
                Some((paths, used)) => {
                    if let Some(bad) = tree.unknown_child(&paths, after_flags, used) {
                        problems.push(format!(
                            "extra: docs/cli.md:{at}: `{span}` names `{bad}`, which is not a learnsync command"
                        ));
                    }
                    for long in longs_in(span) {
                        if !paths.iter().any(|p| tree.has(p, &long)) {
                            problems.push(format!(
                                "extra: docs/cli.md:{at}: `{span}` names --{long}, which `{}` does not have",
                                show(&paths[0])
                            ));
                        }
                        for p in &paths {
                            if section.as_ref().is_some_and(|(s, _)| s.contains(p)) {
                                named.entry(p.clone()).or_default().insert(long.clone());
                            }
                        }
                    }
                }
                None => {
                    let word = after_flags.first().copied().unwrap_or("");
                    let is_word = !word.is_empty()
                        && word.chars().all(|c| c.is_ascii_lowercase() || c == '-');
                    if named_learnsync && is_word {
                        problems.push(format!(
                            "extra: docs/cli.md:{at}: `{span}` names `{word}`, which is not a learnsync command"
                        ));
                    }
                    loose.extend(longs_in(span));
                }
            }
        }
        for long in loose {
            match &section {
                Some((paths, _)) => {
                    if !paths.iter().any(|p| tree.has(p, &long)) {
                        problems.push(format!(
                            "extra: docs/cli.md:{at}: --{long} is in the section of `{}`, which has no such option",
                            show(&paths[0])
                        ));
                    }
                    for p in paths {
                        named.entry(p.clone()).or_default().insert(long.clone());
                    }
                }
                None => {
                    if !tree.has_anywhere(&long) {
                        problems.push(format!(
                            "extra: docs/cli.md:{at}: --{long} is no option of any learnsync command"
                        ));
                    }
                }
            }
        }
    }
    for path in tree.commands() {
        let covered = sections.keys().any(|s| s.starts_with(path));
        if !covered {
            problems.push(format!(
                "missing: `learnsync {}` has no `### ` section in docs/cli.md",
                show(path)
            ));
        }
    }
    for (path, longs) in &tree.longs {
        // A parent's options may be told in its own section or its children's.
        let told: BTreeSet<&String> = named
            .iter()
            .filter(|(p, _)| p.starts_with(path))
            .flat_map(|(_, l)| l)
            .collect();
        for long in longs {
            if !told.contains(long) {
                let whose = if path.is_empty() {
                    "the `## Global flags` section".to_string()
                } else {
                    match sections.get(path) {
                        Some(at) => format!("the section of `{}` (docs/cli.md:{at})", show(path)),
                        None => format!("a section of `{}`", show(path)),
                    }
                };
                problems.push(format!(
                    "missing: --{long} of `{}` is not named in {whose}",
                    show(path)
                ));
            }
        }
    }
    problems
}

fn repo_file(rel: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

#[test]
fn docs_cli_md_documents_every_command_and_option_and_nothing_else() {
    let tree = Tree::of(learnsync::cli::command());
    let problems = check(&repo_file("docs/cli.md"), &tree);
    assert!(
        problems.is_empty(),
        "docs/cli.md does not match the clap definitions in src/cli/ ({} problem(s)):\n  {}",
        problems.len(),
        problems.join("\n  ")
    );
}

/// The checker itself: a page missing a command and an option, and naming
/// ones that do not exist, gets each reported by name.
#[test]
fn the_docs_check_names_what_is_missing_and_what_is_extra() {
    let tree = Tree::of(learnsync::cli::command());
    let doc = "## Global flags\n`--dir`, `--agent`, `--json`, `--verbose`, `--quiet`\n\
               ## Commands\n### `sync [--no-fetch] [--fast]`\nSee `learnsync frobnicate`.\n\
               ### `kg verify`\n";
    let problems = check(doc, &tree);
    let has = |needle: &str| problems.iter().any(|p| p.contains(needle));
    assert!(has("missing: --no-push of `sync`"), "{problems:#?}");
    assert!(
        has("missing: `learnsync hooks install` has no"),
        "{problems:#?}"
    );
    assert!(has("missing: `learnsync kg check` has no"), "{problems:#?}");
    assert!(
        has("names --fast, which `sync` does not have"),
        "{problems:#?}"
    );
    assert!(
        has("names `frobnicate`, which is not a learnsync command"),
        "{problems:#?}"
    );
    assert!(has("names `kg verify`, which is not"), "{problems:#?}");
    assert!(
        !has("--dir"),
        "a global named in its section is documented: {problems:#?}"
    );
}

fn run_bin(args: &[&str]) -> String {
    let out = Command::new(bin())
        .args(args)
        .env_remove("LEARNSYNC_DIR")
        .output()
        .expect("run learnsync");
    assert!(
        out.status.success(),
        "learnsync {args:?} failed ({:?}): {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

fn top_level_commands() -> Vec<String> {
    let tree = Tree::of(learnsync::cli::command());
    tree.children[&Vec::new()]
        .iter()
        .filter(|c| *c != "help")
        .cloned()
        .collect()
}

#[test]
fn bash_completion_offers_every_command_and_is_valid_bash() {
    let script = run_bin(&["completions", "bash"]);
    for name in top_level_commands() {
        assert!(
            script
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .any(|w| w == name),
            "the bash completion script never mentions `{name}`"
        );
    }
    assert!(
        script.contains("--no-fetch"),
        "sync's flags are not completed"
    );
    let tmp = tempfile::tempdir().expect("temp dir");
    let file = tmp.path().join("learnsync.bash");
    std::fs::write(&file, &script).expect("write script");
    let out = Command::new("bash")
        .arg("-n")
        .arg(&file)
        .output()
        .expect("run bash -n");
    assert!(
        out.status.success(),
        "bash -n rejects the completion script: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn every_shell_gets_a_completion_script_and_an_unknown_one_is_bad_usage() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = run_bin(&["completions", shell]);
        assert!(
            script.contains("learnsync"),
            "{shell}: the script does not name learnsync"
        );
        assert!(
            script.contains("publish"),
            "{shell}: the script does not complete `publish`"
        );
    }
    let out = Command::new(bin())
        .args(["completions", "tcsh"])
        .output()
        .expect("run learnsync");
    assert_eq!(out.status.code(), Some(2), "an unknown shell is bad usage");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bash") && err.contains("zsh"),
        "the error lists the shells: {err}"
    );
}

#[test]
fn man_page_names_every_command_and_option_and_formats_cleanly() {
    let page = run_bin(&["man"]);
    assert!(
        page.starts_with(".ie") || page.contains(".TH learnsync 1"),
        "not roff: {page:.200}"
    );
    let tree = Tree::of(learnsync::cli::command());
    for path in tree.commands() {
        let heading = format!(".SS \"learnsync {}\"", path.join(" "));
        let plain = format!(".SS learnsync {}", path.join(" "));
        assert!(
            page.contains(&heading) || page.contains(&plain),
            "the man page has no section for `learnsync {}`",
            path.join(" ")
        );
    }
    // roff escapes a `-` as `\-`; an option's name is there either way.
    let unescaped = page.replace("\\-", "-");
    for (path, longs) in &tree.longs {
        for long in longs {
            assert!(
                unescaped.contains(&format!("--{long}")),
                "the man page does not name --{long} of `{}`",
                show(path)
            );
        }
    }
    for section in ["EXIT STATUS", "ENVIRONMENT", "LEARNSYNC_DIR", "GITEA_TOKEN"] {
        assert!(page.contains(section), "the man page has no {section}");
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let file = tmp.path().join("learnsync.1");
    std::fs::write(&file, &page).expect("write page");
    let mut checked = false;
    if let Ok(out) = Command::new("groff")
        .args(["-man", "-z", "-ww"])
        .arg(&file)
        .output()
    {
        checked = true;
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && err.trim().is_empty(),
            "groff -man -z -ww warns: {err}"
        );
    }
    if let Ok(out) = Command::new("man")
        .args(["--warnings", "-l"])
        .arg(&file)
        .env("MANPAGER", "cat")
        .env("MANWIDTH", "80")
        .output()
    {
        checked = true;
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && err.trim().is_empty(),
            "man --warnings warns: {err}"
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("learnsync sync"),
            "man renders no `learnsync sync`: {text:.400}"
        );
    }
    if !checked {
        eprintln!("skipped: neither groff nor man is installed, the page was not formatted");
    }
}
