//! An issue's or pull's timeline: every event and comment, and what each
//! entry records (a close, a merge, a branch deletion, ...).

use serde::{Deserialize, Serialize};

use super::json::null_default;
use super::labels::Label;
use super::users::User;

/// What a timeline entry records (`TimelineComment.type`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimelineEvent {
    Comment,
    Close,
    Reopen,
    /// Merged (`merge_pull`); a merge records no `close`.
    MergePull,
    /// Commits pushed to the head (`pull_push`, body: JSON of commit ids).
    PullPush,
    /// The head branch was deleted (`delete_branch`, `old_ref`: the branch).
    DeleteBranch,
    /// A label added (body `"1"`) or removed (body `""`).
    Label,
    Review,
    ChangeTitle,
    Other(String),
}

/// `TimelineComment`: one event or comment of an issue or pull.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimelineComment {
    #[serde(default)]
    pub id: i64,
    #[serde(rename = "type", default, deserialize_with = "null_default")]
    pub kind: String,
    #[serde(default)]
    pub user: Option<User>,
    #[serde(default, deserialize_with = "null_default")]
    pub body: String,
    #[serde(default, deserialize_with = "null_default")]
    pub created_at: String,
    #[serde(default, deserialize_with = "null_default")]
    pub updated_at: String,
    #[serde(default, deserialize_with = "null_default")]
    pub old_ref: String,
    #[serde(default)]
    pub label: Option<Label>,
}

impl TimelineComment {
    pub fn event(&self) -> TimelineEvent {
        match self.kind.as_str() {
            "comment" => TimelineEvent::Comment,
            "close" => TimelineEvent::Close,
            "reopen" => TimelineEvent::Reopen,
            "merge_pull" => TimelineEvent::MergePull,
            "pull_push" => TimelineEvent::PullPush,
            "delete_branch" => TimelineEvent::DeleteBranch,
            "label" => TimelineEvent::Label,
            "review" => TimelineEvent::Review,
            "change_title" => TimelineEvent::ChangeTitle,
            other => TimelineEvent::Other(other.to_string()),
        }
    }

    pub fn author(&self) -> &str {
        self.user.as_ref().map(|u| u.login.as_str()).unwrap_or("")
    }
}
