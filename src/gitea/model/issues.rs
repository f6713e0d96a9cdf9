//! Issues (pulls share their index space and their state): an issue, its
//! create and edit bodies, the open/closed state and the list filters.

use serde::{Deserialize, Serialize};

use super::json::null_default;
use super::labels::Label;
use super::users::User;

/// `StateType`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    #[default]
    Open,
    Closed,
}

/// Which pulls or issues a list returns, by state. Always sent explicitly:
/// `GET /pulls` without `state` lists all, despite the swagger's "open".
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum StateFilter {
    #[default]
    Open,
    Closed,
    All,
}

impl StateFilter {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            StateFilter::Open => "open",
            StateFilter::Closed => "closed",
            StateFilter::All => "all",
        }
    }
}

/// `PullRequestMeta`: set on an issue that is a pull.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PullRequestMeta {
    #[serde(default)]
    pub merged: bool,
    #[serde(default)]
    pub merged_at: Option<String>,
    #[serde(default, deserialize_with = "null_default")]
    pub html_url: String,
}

/// `Issue` (also returned for pulls, with `pull_request` set).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Issue {
    #[serde(default)]
    pub id: i64,
    #[serde(default)]
    pub number: i64,
    #[serde(default, deserialize_with = "null_default")]
    pub title: String,
    #[serde(default, deserialize_with = "null_default")]
    pub body: String,
    #[serde(default)]
    pub state: State,
    #[serde(default)]
    pub user: Option<User>,
    #[serde(default, deserialize_with = "null_default")]
    pub labels: Vec<Label>,
    #[serde(default)]
    pub pull_request: Option<PullRequestMeta>,
    #[serde(default)]
    pub comments: i64,
    #[serde(default)]
    pub closed_at: Option<String>,
    #[serde(default, deserialize_with = "null_default")]
    pub created_at: String,
    #[serde(default, deserialize_with = "null_default")]
    pub updated_at: String,
    #[serde(default, deserialize_with = "null_default")]
    pub html_url: String,
}

impl Issue {
    pub fn is_pull(&self) -> bool {
        self.pull_request.is_some()
    }

    pub fn author(&self) -> &str {
        self.user.as_ref().map(|u| u.login.as_str()).unwrap_or("")
    }

    pub fn has_label(&self, name: &str) -> bool {
        self.labels.iter().any(|l| l.name == name)
    }
}

/// `CreateIssueOption`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateIssueOption {
    pub title: String,
    pub body: String,
    /// Label IDs; Gitea drops them silently unless the caller has issue write.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<i64>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub closed: bool,
}

/// `EditIssueOption`: only the fields set are sent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditIssueOption {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<State>,
}

/// Issues, pulls or both.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum IssueKind {
    /// Both (Gitea's default when `type` is unset).
    #[default]
    All,
    Issues,
    Pulls,
}

/// `GET /issues` filters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IssueFilter {
    pub state: StateFilter,
    pub kind: IssueKind,
    /// Label names, all required. Gitea drops unknown names, and with none
    /// known it filters nothing: the client refuses to send unknown names.
    pub labels: Vec<String>,
    /// The author's login.
    pub created_by: Option<String>,
    /// The caller has just seen these labels exist: skip the check that
    /// costs one more request.
    pub labels_known: bool,
    /// Only what was updated at or after this time (RFC 3339, the server's
    /// clock: an `updated_at` it returned). Closing, merging, reopening,
    /// editing, labelling and commenting all update it.
    pub since: Option<String>,
}
