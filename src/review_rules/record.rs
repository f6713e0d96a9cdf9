//! The review records and markers: their YAML, their paths, and the hidden
//! marker that ties a pull request or issue comment to one learning version.

use crate::paths::{self, NameError};
use crate::timestamp::Timestamp;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Approved,
    Rejected,
}

/// `reviews/<id>.yaml`: a decision about one learning's exact content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Review {
    pub learning: String,
    pub decision: Decision,
    /// SHA-256 of the learning's content bytes (`Learning::content_hash`).
    pub content_hash: String,
    /// The learning's title when proposed, for people reading the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Who proposed it (the bot's login) and when.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposed_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposed_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reviewer: Option<String>,
    /// When it was decided. For a record on the hub's `main` the time of the
    /// commit that brought it there is used instead (see the hub module), so an
    /// approval's `promoted_at` is the merge's time on every machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pull_request: Option<u64>,
}

impl Review {
    pub fn parse(text: &str) -> Result<Self, String> {
        serde_norway::from_str(text).map_err(|e| e.to_string())
    }

    pub fn to_yaml(&self) -> String {
        serde_norway::to_string(self).unwrap_or_default()
    }

    pub fn decided_at(&self) -> Option<Timestamp> {
        self.decided_at.as_deref().and_then(Timestamp::parse)
    }

    /// The approval the review pass proposes for a learning version.
    pub fn proposal(id: &str, hash: &str, title: &str, by: &str, at: Timestamp) -> Review {
        Review {
            learning: id.to_string(),
            decision: Decision::Approved,
            content_hash: hash.to_string(),
            title: Some(title.to_string()),
            proposed_by: Some(by.to_string()),
            proposed_at: Some(at.to_string()),
            reviewer: None,
            decided_at: None,
            pull_request: None,
        }
    }
}

/// `.learnsync/rejections/<id>.<hash16>.yaml`: a person closed the review of
/// this version unmerged. Every field comes from Gitea, so two machines
/// recording the same rejection write the same bytes (no merge conflict).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rejection {
    pub learning: String,
    pub content_hash: String,
    pub pull_request: u64,
    pub closed_by: String,
    pub closed_at: String,
}

impl Rejection {
    pub fn parse(text: &str) -> Result<Self, String> {
        serde_norway::from_str(text).map_err(|e| e.to_string())
    }
    pub fn to_yaml(&self) -> String {
        serde_norway::to_string(self).unwrap_or_default()
    }
}

/// `.learnsync/pulled/<id>.<issue>.yaml`: an open `learning-problem` issue
/// names the learning.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pulled {
    pub learning: String,
    pub issue: u64,
    pub title: String,
    pub opened_by: String,
}

impl Pulled {
    pub fn parse(text: &str) -> Result<Self, String> {
        serde_norway::from_str(text).map_err(|e| e.to_string())
    }
    pub fn to_yaml(&self) -> String {
        serde_norway::to_string(self).unwrap_or_default()
    }
}

/// Where the rejection of `(id, hash)` is recorded.
pub fn rejection_path(id: &str, hash: &str) -> Result<String, NameError> {
    paths::validate_id(id)?;
    let short: String = hash
        .chars()
        .filter(char::is_ascii_hexdigit)
        .take(16)
        .collect();
    Ok(format!("{}/{id}.{short}.yaml", paths::REJECTIONS_DIR))
}

/// Where issue `issue`'s report about `id` is recorded.
pub fn pulled_path(id: &str, issue: u64) -> Result<String, NameError> {
    paths::validate_id(id)?;
    Ok(format!("{}/{id}.{issue}.yaml", paths::PULLED_DIR))
}

/// The hidden marker in a review pull request's body, or one of our
/// comments: which learning version it is about, and what it says.
pub fn marker(kind: &str, id: &str, hash: &str) -> String {
    format!("<!-- learnsync:{kind} id={id} hash={hash} -->")
}

/// `(id, hash)` of the first `kind` marker in `text`, if any (and valid).
pub fn parse_marker<'a>(text: &'a str, kind: &str) -> Option<(&'a str, &'a str)> {
    let start = format!("<!-- learnsync:{kind} id=");
    let at = text.find(&start)? + start.len();
    let rest = &text[at..];
    let end = rest.find(" -->")?;
    let (id, hash) = rest[..end].split_once(" hash=")?;
    (paths::validate_id(id).is_ok()
        && !hash.is_empty()
        && hash.chars().all(|c| c.is_ascii_hexdigit()))
    .then_some((id, hash))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_their_paths_are_safe() {
        let r = Review::proposal("learning-x", "ab12", "T", "bot", Timestamp::from_unix(0));
        assert_eq!(Review::parse(&r.to_yaml()), Ok(r));
        // Older records carry decided_at and no title: still read.
        let old = "learning: learning-x\ndecision: approved\ncontent_hash: ab\nreviewer: alice\ndecided_at: 2026-09-01T00:00:00Z\npull_request: 12\n";
        let parsed = Review::parse(old).expect("old shape");
        assert_eq!(parsed.pull_request, Some(12));
        assert_eq!(
            rejection_path("learning-x", "0123456789abcdef0123").as_deref(),
            Ok(".learnsync/rejections/learning-x.0123456789abcdef.yaml")
        );
        assert!(rejection_path("../x", "ab").is_err());
        assert_eq!(
            pulled_path("learning-x", 7).as_deref(),
            Ok(".learnsync/pulled/learning-x.7.yaml")
        );
    }

    #[test]
    fn markers_name_one_version_and_nothing_else_parses_as_one() {
        let body = format!("text\n{}\nmore", marker("review", "learning-x", "ab12"));
        assert_eq!(parse_marker(&body, "review"), Some(("learning-x", "ab12")));
        assert_eq!(parse_marker(&body, "rejected"), None);
        for bad in [
            "<!-- learnsync:review id=../etc hash=ab -->",
            "<!-- learnsync:review id=learning-x hash=zz -->",
            "<!-- learnsync:review id=learning-x -->",
        ] {
            assert_eq!(parse_marker(bad, "review"), None, "{bad}");
        }
    }
}
