//! Recording by hand: a learning a person types (`add`) and one event of
//! evidence (`apply`), queued in the inbox without waiting for the sync
//! lock. What the CLI's `add` and `apply` (and any other front end) call.

use crate::event::{Event, Outcome};
use crate::learning::{Kind, Learning, MAX_FILE_BYTES, TrustLevel};
use crate::store::LearningsDir;
use crate::timestamp::Timestamp;

/// What a person says about a new learning.
#[derive(Debug, Clone, Default)]
pub struct Manual {
    pub title: String,
    pub correction: String,
    pub command: Option<String>,
    pub error: Option<String>,
    pub keywords: Vec<String>,
    pub kind: Kind,
    pub body: Option<String>,
}

/// A learning queued by [`add`].
#[derive(Debug)]
pub struct Added {
    pub learning: Learning,
    /// Secrets were found in what was typed and replaced.
    pub redacted: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("no learning with id {id} in {dir} (nor in its inbox)")]
    Unknown { id: String, dir: String },
    #[error("the {0} is blank: a learning typed by hand needs one")]
    Blank(&'static str),
    #[error(
        "the learning would be {bytes} bytes, over the {limit} byte limit for a learning; nothing was written"
    )]
    TooLarge { bytes: usize, limit: usize },
    #[error("cannot write to the inbox {path}: {source}")]
    Inbox {
        path: String,
        source: std::io::Error,
    },
}

/// Builds the learning `agent` typed (`source: manual`, L1 once it has a
/// correction), redacts it, and queues it. A blank title or correction, or
/// a file over [`MAX_FILE_BYTES`] that no reader would parse, is refused
/// before anything is written.
pub fn add(
    dir: &LearningsDir,
    agent: &str,
    manual: Manual,
    now: Timestamp,
) -> Result<Added, RecordError> {
    for (field, text) in [("title", &manual.title), ("correction", &manual.correction)] {
        if text.trim().is_empty() {
            return Err(RecordError::Blank(field));
        }
    }
    let mut l = Learning::new(Learning::new_id(), agent.to_string(), manual.title, now);
    l.correction = Some(manual.correction);
    l.original_command = manual.command;
    l.error_context = manual.error;
    l.keywords = manual.keywords;
    l.kind = Some(manual.kind.as_str().to_string());
    l.body = manual
        .body
        .map(|b| if b.ends_with('\n') { b } else { b + "\n" })
        .unwrap_or_default();
    l.trust_level = if l.has_correction() {
        TrustLevel::L1
    } else {
        TrustLevel::L0
    };
    let redacted = l.redact();
    let bytes = l.to_markdown().len();
    if bytes > MAX_FILE_BYTES {
        return Err(RecordError::TooLarge {
            bytes,
            limit: MAX_FILE_BYTES,
        });
    }
    let inbox = dir.inbox();
    inbox
        .write_learning(&l)
        .map_err(|source| RecordError::Inbox {
            path: inbox.dir().display().to_string(),
            source,
        })?;
    Ok(Added {
        learning: l,
        redacted,
    })
}

/// Queues one event by `agent` about the learning `id`, which must exist in
/// the work tree or the inbox.
pub fn apply(
    dir: &LearningsDir,
    agent: &str,
    id: &str,
    outcome: Outcome,
    now: Timestamp,
) -> Result<Event, RecordError> {
    if !dir.knows(id) {
        return Err(RecordError::Unknown {
            id: id.to_string(),
            dir: dir.root.display().to_string(),
        });
    }
    let event = Event::new(id, agent, outcome, now).via(crate::event::Via::Manual);
    let inbox = dir.inbox();
    inbox
        .write_event(&event)
        .map_err(|source| RecordError::Inbox {
            path: inbox.dir().display().to_string(),
            source,
        })?;
    Ok(event)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manual(title: &str, correction: &str, body: Option<String>) -> Manual {
        Manual {
            title: title.into(),
            correction: correction.into(),
            body,
            ..Manual::default()
        }
    }

    fn queued(dir: &LearningsDir) -> usize {
        dir.inbox().items().len()
    }

    #[test]
    fn a_blank_title_or_correction_is_refused_before_anything_is_written() {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = LearningsDir::new(tmp.path());
        let now = Timestamp::from_unix(1_780_000_000);
        for (title, correction, field) in [
            ("", "c", "title"),
            (" \t\n", "c", "title"),
            ("t", "", "correction"),
            ("t", "  ", "correction"),
        ] {
            let err = add(&dir, "me", manual(title, correction, None), now).expect_err(title);
            assert!(matches!(err, RecordError::Blank(f) if f == field), "{err}");
        }
        assert_eq!(queued(&dir), 0);
        add(&dir, "me", manual("t", "c", None), now).expect("a real one");
        assert_eq!(queued(&dir), 1);
    }

    #[test]
    fn a_learning_over_the_file_limit_is_refused_and_nothing_is_written() {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = LearningsDir::new(tmp.path());
        let now = Timestamp::from_unix(1_780_000_000);
        // The body alone fits; with the frontmatter the file would not.
        let body = "b".repeat(MAX_FILE_BYTES - 10);
        let err = add(&dir, "me", manual("t", "c", Some(body)), now).expect_err("too large");
        assert!(
            matches!(err, RecordError::TooLarge { bytes, limit } if bytes > limit && limit == MAX_FILE_BYTES),
            "{err}"
        );
        assert_eq!(queued(&dir), 0);
        let fits = "b".repeat(MAX_FILE_BYTES / 2);
        let added = add(&dir, "me", manual("t", "c", Some(fits)), now).expect("fits");
        assert!(added.learning.to_markdown().len() <= MAX_FILE_BYTES);
    }
}
