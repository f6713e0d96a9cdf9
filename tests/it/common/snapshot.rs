//! Whole-output snapshots (as jj's tests compare them): a command's exit
//! code, stdout and stderr, with the parts that change from run to run
//! replaced by named placeholders, compared with `tests/snapshots/<name>.snap`.
//! A mismatch fails with a unified diff; `LEARNSYNC_UPDATE_SNAPSHOTS=1`
//! rewrites the files instead, for a person to review in `git diff`.

use regex::Regex;
use std::path::{Path, PathBuf};
use std::process::Output;

/// What replaces a volatile part.
enum Rule {
    /// This exact text, as `[NAME]`.
    Literal { text: String, name: &'static str },
    /// Each match, by a regex replacement (`${host}:[PORT]`).
    Pattern { regex: Regex, replacement: String },
    /// Each match as `[NAME-n]`, numbered by first appearance, where
    /// which-is-which matters (two commits, two ids).
    Numbered { regex: Regex, name: &'static str },
}

/// The replacements, applied in the order added.
pub struct Filters {
    rules: Vec<Rule>,
}

fn regex(name: &str, pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| panic!("snapshot filter {name}: {e}"))
}

impl Filters {
    /// The filters every learnsync output needs: the temp dir a test runs
    /// in, commit ids, learning ids with a random part, timestamps,
    /// durations, ports and pids.
    pub fn standard(tmp: &Path) -> Filters {
        let mut f = Filters { rules: Vec::new() };
        // The canonical form first: it may be longer than the path given.
        if let Ok(canonical) = tmp.canonicalize() {
            f = f.literal("TMP", canonical.display().to_string());
        }
        f.literal("TMP", tmp.display().to_string())
            .numbered("COMMIT", r"\b[0-9a-f]{40}\b")
            .numbered("LEARNING-ID", r"\blearning-[0-9a-f]{32}-[0-9]{13}\b")
            .pattern(
                "TIME",
                r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)",
                "[TIME]",
            )
            // A short commit id as sync prints it: `(9d78a7b06712)`.
            .numbered("SHORT-COMMIT", r"\b[0-9a-f]{12}\b")
            .pattern("DURATION", r"\b(\d+\.\d+s|\d+ms)\b", "[DURATION]")
            .pattern(
                "PORT",
                r"\b(?P<host>127\.0\.0\.1|localhost):\d+",
                "${host}:[PORT]",
            )
            .pattern("PID", r"\bpid \d+\b", "pid [PID]")
    }

    /// Replaces every `text` with `[NAME]`.
    pub fn literal(mut self, name: &'static str, text: impl Into<String>) -> Filters {
        let text = text.into();
        if !text.is_empty() {
            self.rules.push(Rule::Literal { text, name });
        }
        self
    }

    /// Replaces every match of `pattern` by `replacement` (regex syntax:
    /// `${group}` names a group); `name` only names the filter in errors.
    pub fn pattern(mut self, name: &str, pattern: &str, replacement: &str) -> Filters {
        self.rules.push(Rule::Pattern {
            regex: regex(name, pattern),
            replacement: replacement.to_string(),
        });
        self
    }

    /// Replaces every match of `pattern` by `[NAME-n]`, the same text by the
    /// same n.
    pub fn numbered(mut self, name: &'static str, pattern: &str) -> Filters {
        self.rules.push(Rule::Numbered {
            regex: regex(name, pattern),
            name,
        });
        self
    }

    pub fn apply(&self, text: &str) -> String {
        let mut out = text.to_string();
        for rule in &self.rules {
            out = match rule {
                Rule::Literal { text, name } => out.replace(text.as_str(), &format!("[{name}]")),
                Rule::Pattern { regex, replacement } => {
                    regex.replace_all(&out, replacement.as_str()).into_owned()
                }
                Rule::Numbered { regex, name } => {
                    let mut seen: Vec<String> = Vec::new();
                    regex
                        .replace_all(&out, |c: &regex::Captures| {
                            let n = match seen.iter().position(|s| *s == c[0]) {
                                Some(i) => i + 1,
                                None => {
                                    seen.push(c[0].to_string());
                                    seen.len()
                                }
                            };
                            format!("[{name}-{n}]")
                        })
                        .into_owned()
                }
            };
        }
        out
    }
}

/// A run as the snapshot shows it: the command line, the exit code, then
/// stdout and stderr (each only when not empty).
pub fn render(command_line: &str, out: &Output) -> String {
    let mut text = format!("$ {command_line}\n");
    match out.status.code() {
        Some(code) => text.push_str(&format!("[exit {code}]\n")),
        None => text.push_str("[killed by a signal]\n"),
    }
    for (label, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let s = String::from_utf8_lossy(bytes);
        if !s.is_empty() {
            text.push_str(&format!("--- {label}\n{s}"));
            if !s.ends_with('\n') {
                text.push_str("\n[no newline at the end]\n");
            }
        }
    }
    text
}

fn snapshot_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{name}.snap"))
}

/// Compares `actual` with the stored snapshot `name`, or stores it when
/// `LEARNSYNC_UPDATE_SNAPSHOTS=1`.
pub fn assert_snapshot(name: &str, actual: &str) {
    let path = snapshot_path(name);
    let update = std::env::var("LEARNSYNC_UPDATE_SNAPSHOTS").is_ok_and(|v| v == "1");
    let expected = std::fs::read_to_string(&path).ok();
    if expected.as_deref() == Some(actual) {
        return;
    }
    if update {
        std::fs::create_dir_all(path.parent().expect("snapshots dir")).expect("mkdir snapshots");
        std::fs::write(&path, actual).expect("write snapshot");
        eprintln!("updated snapshot {}", path.display());
        return;
    }
    match expected {
        None => panic!(
            "no snapshot {} yet; this run's output:\n{actual}\n\
             Run with LEARNSYNC_UPDATE_SNAPSHOTS=1 to store it, then review it.",
            path.display()
        ),
        Some(expected) => panic!(
            "output differs from snapshot {} (- snapshot, + this run):\n{}\n\
             If the change is meant, rerun with LEARNSYNC_UPDATE_SNAPSHOTS=1 and review the diff.",
            path.display(),
            diffy::create_patch(&expected, actual)
        ),
    }
}
