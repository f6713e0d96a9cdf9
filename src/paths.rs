//! The one place where names from outside become paths: agent names and
//! learning ids are validated here before they touch the filesystem (§2).

use std::fmt;

/// Agent names that would collide with the repository's own folders.
pub const RESERVED_AGENTS: [&str; 4] = ["events", "kg", "reviews", "shared"];

const MAX_NAME_LEN: usize = 100;

/// Why a name was refused, phrased for a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameError {
    pub what: &'static str,
    pub name: String,
    pub reason: &'static str,
}

impl fmt::Display for NameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Debug-escape the name: it may hold NUL, newlines or control bytes.
        write!(f, "invalid {} {:?}: {}", self.what, self.name, self.reason)
    }
}

impl std::error::Error for NameError {}

/// Checks `^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$`, not `.` or `..`.
fn check(what: &'static str, name: &str) -> Result<(), NameError> {
    let err = |reason| {
        Err(NameError {
            what,
            name: name.chars().take(120).collect(),
            reason,
        })
    };
    let bytes = name.as_bytes();
    let Some(&first) = bytes.first() else {
        return err("it is empty");
    };
    if bytes.len() > MAX_NAME_LEN {
        return err("it is longer than 100 characters");
    }
    if name == "." || name == ".." {
        return err("it names a directory, not a file");
    }
    if !(first.is_ascii_alphanumeric() || first == b'_') {
        return err("it must start with a letter, a digit or '_'");
    }
    if !bytes
        .iter()
        .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
    {
        return err("only letters, digits, '_', '.' and '-' are allowed");
    }
    Ok(())
}

/// Validates an agent name (a folder under the learnings dir and a branch).
pub fn validate_agent(name: &str) -> Result<(), NameError> {
    check("agent name", name)?;
    if RESERVED_AGENTS.contains(&name) {
        return Err(NameError {
            what: "agent name",
            name: name.to_string(),
            reason: "it is reserved (events, kg, reviews, shared)",
        });
    }
    Ok(())
}

/// Validates a learning id (the file stem of `<agent>/<id>.md`).
pub fn validate_id(id: &str) -> Result<(), NameError> {
    check("learning id", id)
}

/// Repository-relative path of a learning: `<agent>/<id>.md`.
pub fn learning_path(agent: &str, id: &str) -> Result<String, NameError> {
    validate_agent(agent)?;
    validate_id(id)?;
    Ok(format!("{agent}/{id}.md"))
}

/// Repository-relative path of an events file: `events/<agent>/<YYYY-MM>.jsonl`.
pub fn events_path(agent: &str, month: &str) -> Result<String, NameError> {
    validate_agent(agent)?;
    Ok(format!("events/{agent}/{month}.jsonl"))
}

/// Repository-relative path of a review record: `reviews/<id>.yaml`.
pub fn review_path(id: &str) -> Result<String, NameError> {
    validate_id(id)?;
    Ok(format!("reviews/{id}.yaml"))
}

/// Where rejection records live (see the review module).
pub const REJECTIONS_DIR: &str = ".learnsync/rejections";
/// Where problem-report records live (see the review module).
pub const PULLED_DIR: &str = ".learnsync/pulled";

/// The branch a clone of `agent` commits on and pushes: `agents/<agent>`.
pub fn agent_branch(agent: &str) -> String {
    format!("agents/{agent}")
}

/// What a repository-relative path holds, recognised from its shape alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RepoPath<'a> {
    Learning {
        agent: &'a str,
        id: &'a str,
    },
    /// A terraphim `shared/<agent>-<id>.md` copy; read, never written.
    SharedCopy {
        file: &'a str,
    },
    Events {
        agent: &'a str,
        month: &'a str,
    },
    Review {
        id: &'a str,
    },
    /// `.learnsync/rejections/<id>.<hash>.yaml`.
    Rejection {
        id: &'a str,
    },
    /// `.learnsync/pulled/<id>.<issue>.yaml`.
    Pulled {
        id: &'a str,
    },
    Other,
}

/// Classifies a path from a tree or the work tree.
pub fn classify(path: &str) -> RepoPath<'_> {
    let mut parts = path.split('/');
    let (Some(a), Some(b), c, None) = (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return RepoPath::Other;
    };
    match (a, c) {
        ("events", Some(file)) => match file.strip_suffix(".jsonl") {
            Some(month) if validate_agent(b).is_ok() && is_month(month) => {
                RepoPath::Events { agent: b, month }
            }
            _ => RepoPath::Other,
        },
        ("reviews", None) => match b.strip_suffix(".yaml") {
            Some(id) if validate_id(id).is_ok() => RepoPath::Review { id },
            _ => RepoPath::Other,
        },
        ("shared", None) if b.ends_with(".md") => RepoPath::SharedCopy { file: b },
        (".learnsync", Some(file)) => {
            let id = file
                .strip_suffix(".yaml")
                .and_then(|stem| stem.rsplit_once('.'))
                .map(|(id, _)| id)
                .filter(|id| validate_id(id).is_ok());
            match (b, id) {
                ("rejections", Some(id)) => RepoPath::Rejection { id },
                ("pulled", Some(id)) => RepoPath::Pulled { id },
                _ => RepoPath::Other,
            }
        }
        (agent, None) => match b.strip_suffix(".md") {
            Some(id) if validate_agent(agent).is_ok() && validate_id(id).is_ok() => {
                RepoPath::Learning { agent, id }
            }
            _ => RepoPath::Other,
        },
        _ => RepoPath::Other,
    }
}

fn is_month(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 7
        && b[4] == b'-'
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[5..].iter().all(u8::is_ascii_digit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_names_of_the_documented_shape() {
        for ok in [
            "claude",
            "ci-bot",
            "security_sentinel",
            "a",
            "_x",
            "v1.2",
            "learning-5f3e0c1d9a2b4c6d8e0f1a2b3c4d5e6f-1717432000123",
        ] {
            assert_eq!(validate_agent(ok), Ok(()), "{ok}");
            assert_eq!(validate_id(ok), Ok(()), "{ok}");
        }
    }

    #[test]
    fn refuses_anything_that_could_escape_or_confuse() {
        let long = "a".repeat(101);
        for bad in [
            "", ".", "..", "../x", "a/b", "/etc", "a\0b", "-x", ".hidden", "a b", "ü", "a\\b",
            &long,
        ] {
            assert!(validate_id(bad).is_err(), "{bad:?} accepted");
            assert!(validate_agent(bad).is_err(), "{bad:?} accepted");
        }
        assert!(validate_agent("events").is_err());
        assert!(validate_agent("shared").is_err());
        assert!(validate_id(&"a".repeat(100)).is_ok());
    }

    #[test]
    fn error_names_what_and_why() {
        let msg = validate_id("../etc/passwd").unwrap_err().to_string();
        assert!(
            msg.contains("learning id") && msg.contains("../etc/passwd"),
            "{msg}"
        );
    }

    #[test]
    fn classifies_repository_paths() {
        assert_eq!(
            classify("claude/learning-1.md"),
            RepoPath::Learning {
                agent: "claude",
                id: "learning-1"
            }
        );
        assert_eq!(
            classify("events/claude/2026-08.jsonl"),
            RepoPath::Events {
                agent: "claude",
                month: "2026-08"
            }
        );
        assert_eq!(classify("reviews/x1.yaml"), RepoPath::Review { id: "x1" });
        assert_eq!(
            classify("shared/claude-x1.md"),
            RepoPath::SharedCopy {
                file: "claude-x1.md"
            }
        );
        for other in [
            "README.md",
            "kg/git.md",
            ".learnsync/policy.yaml",
            "events/claude/bad.jsonl",
            "claude/sub/x.md",
            "claude/x.txt",
            "events/x.md",
        ] {
            assert_eq!(classify(other), RepoPath::Other, "{other}");
        }
    }
}
