//! Pull requests: a pull with its head and base, its create, edit and
//! merge bodies, and the list filter.

use serde::{Deserialize, Serialize};

use super::issues::{State, StateFilter};
use super::json::null_default;
use super::labels::Label;
use super::users::User;

/// `PRBranchInfo`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrBranchInfo {
    #[serde(default, deserialize_with = "null_default")]
    pub label: String,
    #[serde(rename = "ref", default, deserialize_with = "null_default")]
    pub reference: String,
    #[serde(default, deserialize_with = "null_default")]
    pub sha: String,
    #[serde(default)]
    pub repo_id: i64,
}

/// `PullRequest`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PullRequest {
    #[serde(default)]
    pub id: i64,
    /// The index used in URLs (shared with issues); not `id`.
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
    pub head: Option<PrBranchInfo>,
    #[serde(default)]
    pub base: Option<PrBranchInfo>,
    #[serde(default)]
    pub merged: bool,
    #[serde(default)]
    pub merged_at: Option<String>,
    #[serde(default)]
    pub merged_by: Option<User>,
    #[serde(default)]
    pub merge_commit_sha: Option<String>,
    #[serde(default)]
    pub mergeable: bool,
    #[serde(default)]
    pub closed_at: Option<String>,
    #[serde(default, deserialize_with = "null_default")]
    pub created_at: String,
    #[serde(default, deserialize_with = "null_default")]
    pub updated_at: String,
    #[serde(default, deserialize_with = "null_default")]
    pub html_url: String,
}

impl PullRequest {
    /// The head branch's name.
    pub fn head_ref(&self) -> &str {
        self.head
            .as_ref()
            .map(|h| h.reference.as_str())
            .unwrap_or("")
    }

    pub fn base_ref(&self) -> &str {
        self.base
            .as_ref()
            .map(|b| b.reference.as_str())
            .unwrap_or("")
    }

    pub fn has_label(&self, name: &str) -> bool {
        self.labels.iter().any(|l| l.name == name)
    }

    /// Closed without being merged (by a person, a bot, or a branch deletion:
    /// read the timeline to tell which).
    pub fn closed_unmerged(&self) -> bool {
        self.state == State::Closed && !self.merged
    }
}

/// `CreatePullRequestOption`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreatePullRequestOption {
    /// `branch` or `owner:branch`.
    pub head: String,
    pub base: String,
    pub title: String,
    pub body: String,
    /// Label IDs (names are not accepted here).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<i64>,
}

/// `EditPullRequestOption`: only the fields set are sent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditPullRequestOption {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<State>,
    /// Replaces the label set (IDs); needs write on pulls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub labels: Option<Vec<i64>>,
}

/// How a pull is merged (`MergeStyle`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MergeStyle {
    /// A two-parent merge commit.
    #[default]
    Merge,
    Rebase,
    RebaseMerge,
    Squash,
    FastForwardOnly,
}

/// `MergePullRequestOption`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MergePullRequestOption {
    #[serde(rename = "Do")]
    pub style: MergeStyle,
    #[serde(rename = "MergeTitleField", skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(rename = "MergeMessageField", skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    pub delete_branch_after_merge: bool,
    /// Refuse (409) when the head is no longer this commit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head_commit_id: Option<String>,
    /// A repo admin's override of missing approvals.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub force_merge: bool,
}

/// `GET /pulls` filters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PullFilter {
    pub state: StateFilter,
    /// Label IDs; a pull matching any of them is listed.
    pub labels: Vec<i64>,
    pub base: Option<String>,
}
