//! What we know about the programs agents run, in one table: which wrap
//! another command (`sudo`, `npx`, `uv run`) and which options they take a
//! value for, which have subcommands and their global options that take a
//! value (`git -C dir`), which are trivial (`cd`, `echo`). From it, the
//! program and subcommand of one simple command.
//!
//! A whole chain's key picks its part first: [`super::chain::program_key`].

use super::lex;

/// One program the table knows.
struct Program {
    name: &'static str,
    /// It runs the command that follows its own options (`sudo -u x make`).
    wrapper: Option<Wrapper>,
    /// Second words that make it a wrapper (`uv run pytest`): options up to
    /// the command are [`RUNNER_VALUE_OPTS`].
    runs: &'static [&'static str],
    /// Its first non-option word is a subcommand worth keeping, and these
    /// global options take a separate value (`git -C dir push`).
    subcommands: Option<&'static [&'static str]>,
    /// Changes nothing worth learning about and almost never fails in a
    /// chain (`cd dir && cargo build`): skipped when picking the part that
    /// matters.
    trivial: bool,
}

#[derive(Clone, Copy)]
struct Wrapper {
    /// Its options that take a separate value (`sudo -u admin`).
    value_opts: &'static [&'static str],
    /// Arguments before the command (`timeout 10s cmd`).
    positional: usize,
    /// `NAME=value` words may come between its options and the command (`env`).
    assignments: bool,
}

/// The options of package runners (`npx`, `uvx`) and of two-word wrappers
/// (`uv run`, `pnpm exec`) that take a separate value.
const RUNNER_VALUE_OPTS: &[&str] = &["-p", "--package", "--from", "--with", "--python"];

const NONE: Program = Program {
    name: "",
    wrapper: None,
    runs: &[],
    subcommands: None,
    trivial: false,
};

const fn sub(name: &'static str) -> Program {
    with_opts(name, &[])
}

const fn with_opts(name: &'static str, opts: &'static [&'static str]) -> Program {
    Program {
        name,
        subcommands: Some(opts),
        ..NONE
    }
}

const fn wrap(
    name: &'static str,
    value_opts: &'static [&'static str],
    positional: usize,
) -> Program {
    Program {
        name,
        wrapper: Some(Wrapper {
            value_opts,
            positional,
            assignments: false,
        }),
        ..NONE
    }
}

const fn runs(name: &'static str, verbs: &'static [&'static str]) -> Program {
    Program {
        name,
        runs: verbs,
        ..NONE
    }
}

const fn trivial(name: &'static str) -> Program {
    Program {
        name,
        trivial: true,
        ..NONE
    }
}

const SUDO: &[&str] = &["-u", "-g", "-C", "-D", "-h", "-p", "-U", "-r", "-t"];
const GIT: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--exec-path",
];
const CARGO: &[&str] = &["-Z", "--color", "--config", "-C"];
const DOCKER: &[&str] = &[
    "-H",
    "--host",
    "--context",
    "-c",
    "--config",
    "--log-level",
    "-l",
];
const KUBECTL: &[&str] = &[
    "-n",
    "--namespace",
    "--context",
    "--kubeconfig",
    "-s",
    "--server",
    "--cluster",
];
const NPM: &[&str] = &["--prefix", "-C", "--dir", "--filter", "-w", "--workspace"];
const MAKE: &[&str] = &["-C", "-f", "--file", "-j", "--directory"];
const GH: &[&str] = &["-R", "--repo"];
const TERRAFORM: &[&str] = &["-chdir"];
const UV: &[&str] = &["--directory", "--project", "-C"];

/// Sorted by name (bytewise), one entry per program: a test holds it so.
static PROGRAMS: &[Program] = &[
    trivial("."),
    trivial(":"),
    sub("ansible-galaxy"),
    sub("apt"),
    sub("apt-get"),
    sub("aws"),
    sub("az"),
    sub("bazel"),
    sub("brew"),
    sub("buck2"),
    wrap("builtin", &[], 0),
    sub("bun"),
    Program {
        runs: &["exec"],
        ..sub("bundle")
    },
    wrap("bunx", RUNNER_VALUE_OPTS, 0),
    sub("cabal"),
    wrap("caffeinate", &[], 0),
    with_opts("cargo", CARGO),
    trivial("cd"),
    sub("claude"),
    sub("codex"),
    wrap("command", &[], 0),
    sub("composer"),
    sub("conda"),
    sub("dart"),
    sub("deno"),
    sub("diesel"),
    sub("dnf"),
    wrap("doas", SUDO, 0),
    with_opts("docker", DOCKER),
    sub("dotnet"),
    trivial("echo"),
    Program {
        name: "env",
        wrapper: Some(Wrapper {
            value_opts: &["-u", "-C", "-S", "--unset", "--chdir"],
            positional: 0,
            assignments: true,
        }),
        ..NONE
    },
    wrap("exec", &[], 0),
    trivial("export"),
    sub("flutter"),
    sub("fly"),
    sub("flyctl"),
    sub("gcloud"),
    with_opts("gh", GH),
    with_opts("git", GIT),
    with_opts("go", &["-C"]),
    sub("gradle"),
    runs("hatch", &["run"]),
    with_opts("helm", KUBECTL),
    sub("heroku"),
    sub("hg"),
    wrap("ionice", &["-c", "-n", "-p"], 0),
    sub("jj"),
    sub("journalctl"),
    sub("just"),
    sub("k3d"),
    sub("kind"),
    with_opts("kubectl", KUBECTL),
    sub("learnsync"),
    sub("lerna"),
    with_opts("make", MAKE),
    sub("meson"),
    sub("minikube"),
    runs("mise", &["exec"]),
    sub("mix"),
    sub("mvn"),
    wrap("nice", &["-n"], 0),
    sub("ninja"),
    Program {
        runs: &["run", "shell", "develop"],
        ..sub("nix")
    },
    wrap("nohup", &[], 0),
    Program {
        runs: &["exec"],
        ..with_opts("npm", NPM)
    },
    wrap("npx", RUNNER_VALUE_OPTS, 0),
    sub("nx"),
    sub("ollama"),
    sub("opencode"),
    sub("openssl"),
    runs("pdm", &["run"]),
    sub("pip"),
    sub("pip3"),
    Program {
        runs: &["run"],
        ..sub("pipenv")
    },
    runs("pipx", &["run"]),
    Program {
        runs: &["exec", "dlx"],
        ..with_opts("pnpm", NPM)
    },
    wrap("pnpx", RUNNER_VALUE_OPTS, 0),
    with_opts("podman", DOCKER),
    Program {
        runs: &["run"],
        ..with_opts("poetry", UV)
    },
    trivial("popd"),
    trivial("printf"),
    trivial("pushd"),
    sub("rails"),
    sub("rake"),
    sub("rustup"),
    runs("rye", &["run"]),
    trivial("set"),
    trivial("shopt"),
    trivial("sleep"),
    trivial("source"),
    sub("sqlx"),
    sub("stack"),
    wrap("stdbuf", &[], 0),
    wrap("sudo", SUDO, 0),
    sub("svn"),
    sub("swift"),
    sub("systemctl"),
    sub("task"),
    with_opts("tea", GH),
    with_opts("terraform", TERRAFORM),
    sub("terraphim-agent"),
    wrap("time", &[], 0),
    wrap("timeout", &["-s", "-k", "--signal", "--kill-after"], 1),
    with_opts("tofu", TERRAFORM),
    trivial("true"),
    sub("turbo"),
    trivial("unset"),
    Program {
        runs: &["run"],
        ..with_opts("uv", UV)
    },
    wrap("uvx", RUNNER_VALUE_OPTS, 0),
    sub("vagrant"),
    sub("vercel"),
    sub("wrangler"),
    wrap("xargs", &["-I", "-n", "-P", "-d", "-L", "-s", "-E"], 0),
    Program {
        runs: &["dlx"],
        ..with_opts("yarn", NPM)
    },
    sub("yum"),
    sub("zig"),
];

fn lookup(name: &str) -> Option<&'static Program> {
    let first = *name.as_bytes().first()?;
    // First bytes settle most steps of the search without a string compare.
    PROGRAMS
        .binary_search_by(|p| {
            p.name.as_bytes()[0]
                .cmp(&first)
                .then_with(|| p.name.cmp(name))
        })
        .ok()
        .map(|i| &PROGRAMS[i])
}

/// A program that changes nothing worth learning about (`cd`, `echo`).
pub(super) fn is_trivial(program: &str) -> bool {
    lookup(program).is_some_and(|p| p.trivial)
}

/// Whether a simple command runs a trivial program (or only assigns).
pub(super) fn is_trivial_command(cmd: &str) -> bool {
    let words = lex::words(cmd);
    let first = words
        .iter()
        .map(String::as_str)
        .find(|w| !lex::is_assignment(w));
    first.is_none_or(is_trivial)
}

fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Program and subcommand of one simple command (no chain operators), past
/// leading assignments and wrappers.
pub(super) fn simple_key(cmd: &str) -> Option<(String, Option<String>)> {
    let words = lex::words(cmd);
    let mut i = 0;
    // Leading wrappers, env assignments and their options.
    let known = loop {
        let w = words.get(i)?.as_str();
        if lex::is_assignment(w) {
            i += 1;
            continue;
        }
        let name = basename(w);
        let known = lookup(name);
        if let Some(wrapper) = known.and_then(|p| p.wrapper) {
            i = skip_wrapper_args(&words, i + 1, wrapper);
            continue;
        }
        // Two-word wrappers: `uv run`, `poetry run`, `pnpm exec`, …
        let verb = words.get(i + 1).map(String::as_str);
        if known.is_some_and(|p| verb.is_some_and(|v| p.runs.contains(&v)))
            && words.get(i + 2).is_some()
        {
            i += 2;
            // Skip the wrapper's own options (`uv run --with x pytest`).
            while let Some(w) = words.get(i) {
                if w == "--" {
                    i += 1;
                    break;
                }
                if !w.starts_with('-') {
                    break;
                }
                i += if RUNNER_VALUE_OPTS.contains(&w.as_str()) {
                    2
                } else {
                    1
                };
            }
            continue;
        }
        // `python -m module` → the module.
        if name.starts_with("python")
            && name[6..].chars().all(|c| c.is_ascii_digit() || c == '.')
            && verb == Some("-m")
            && let Some(module) = words.get(i + 2)
        {
            return Some((module.clone(), None));
        }
        break known;
    };
    let program = basename(words.get(i)?).to_string();
    if program.is_empty() {
        return None;
    }
    let Some(value_opts) = known.and_then(|p| p.subcommands) else {
        return Some((program, None));
    };
    let mut j = i + 1;
    let mut sub = None;
    while let Some(w) = words.get(j) {
        if w == "--" {
            break;
        }
        if w.starts_with('+') && program == "cargo" {
            j += 1; // toolchain `cargo +nightly build`
            continue;
        }
        if w.starts_with('-') {
            let takes = !w.contains('=') && value_opts.contains(&w.as_str());
            j += if takes { 2 } else { 1 };
            continue;
        }
        let looks_like_word = w
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.'));
        if looks_like_word && !w.is_empty() {
            sub = Some(w.clone());
        }
        break;
    }
    Some((program, sub))
}

/// Index of the first word after a wrapper's options, assignments and
/// positional arguments, starting at `i`.
fn skip_wrapper_args(words: &[String], mut i: usize, wrapper: Wrapper) -> usize {
    let mut positional = wrapper.positional;
    while let Some(w) = words.get(i) {
        if w == "--" {
            return i + 1;
        }
        if w.starts_with('-') && w.len() > 1 {
            i += if wrapper.value_opts.contains(&w.as_str()) {
                2
            } else {
                1
            };
            continue;
        }
        if wrapper.assignments && lex::is_assignment(w) {
            i += 1;
            continue;
        }
        if positional > 0 {
            positional -= 1;
            i += 1;
            continue;
        }
        break;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::super::chain::program_key;
    use super::*;

    #[test]
    fn the_table_is_sorted_with_one_entry_per_program() {
        for pair in PROGRAMS.windows(2) {
            assert!(
                pair[0].name < pair[1].name,
                "{:?} then {:?}",
                pair[0].name,
                pair[1].name
            );
        }
        for p in PROGRAMS {
            assert!(
                lookup(p.name).is_some_and(|q| std::ptr::eq(p, q)),
                "{}",
                p.name
            );
            let roles = usize::from(p.wrapper.is_some()) + usize::from(p.trivial);
            assert!(roles <= 1, "{} is a wrapper and trivial", p.name);
            assert!(
                p.wrapper.is_none() || p.runs.is_empty(),
                "{} wraps with and without a verb",
                p.name
            );
        }
    }

    #[test]
    fn program_key_skips_wrappers_and_global_options() {
        let s = |p: &str, sub: Option<&str>| Some((p.to_string(), sub.map(str::to_string)));
        let cases = [
            ("git push -f", s("git", Some("push"))),
            ("git -C dir push -f", s("git", Some("push"))),
            (
                "git -c core.pager=cat --no-pager log",
                s("git", Some("log")),
            ),
            (
                "FOO=1 BAR=2 cargo build --release",
                s("cargo", Some("build")),
            ),
            (
                "sudo -u admin -E apt-get install jq",
                s("apt-get", Some("install")),
            ),
            ("env -i PATH=/bin make test", s("make", Some("test"))),
            ("time cargo +nightly test", s("cargo", Some("test"))),
            ("timeout 10s curl https://x", s("curl", None)),
            ("npx -y prettier --check .", s("prettier", None)),
            ("uvx ruff check", s("ruff", None)),
            ("uv run --with rich pytest -x", s("pytest", None)),
            ("python3 -m pytest tests", s("pytest", None)),
            (
                "/usr/local/bin/docker -H tcp://h compose up",
                s("docker", Some("compose")),
            ),
            ("kubectl -n prod get pods", s("kubectl", Some("get"))),
            ("ls -la /tmp", s("ls", None)),
            ("cd app && npm run build", s("npm", Some("run"))),
            ("'./my tool' --flag", s("my tool", None)),
            ("FOO=1", None),
            ("", None),
        ];
        for (cmd, want) in cases {
            assert_eq!(program_key(cmd), want, "{cmd:?}");
        }
    }

    #[test]
    fn two_word_wrappers_and_their_bare_forms() {
        let s = |p: &str, sub: Option<&str>| Some((p.to_string(), sub.map(str::to_string)));
        let cases = [
            ("pnpm exec eslint .", s("eslint", None)),
            ("yarn dlx create-vite app", s("create-vite", None)),
            ("poetry run -- pytest -x", s("pytest", None)),
            ("nix develop -c cargo build", s("cargo", Some("build"))),
            ("nix build .#app", s("nix", Some("build"))),
            ("uv run", s("uv", Some("run"))),
            ("pipx run --python 3.12 black .", s("black", None)),
            ("nice -n 5 ionice -c 3 make -j8 all", s("make", Some("all"))),
            ("sudo env FOO=1 -- make install", s("make", Some("install"))),
        ];
        for (cmd, want) in cases {
            assert_eq!(program_key(cmd), want, "{cmd:?}");
        }
    }
}
