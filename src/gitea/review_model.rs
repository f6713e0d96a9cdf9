//! Payloads of the review API — users, permissions, branches, branch
//! protection, contents, pulls, issues, comments, labels, timeline — named
//! and spelt as in Gitea 1.25.4's swagger. Only the fields learnsync reads
//! are kept; unknown ones are ignored and a JSON `null` reads as empty.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Deserializer, Serialize};

use super::model::CommitUser;

/// Gitea marshals Go nil slices and pointers as `null`.
fn null_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// `User`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct User {
    #[serde(default)]
    pub id: i64,
    #[serde(default, deserialize_with = "null_default")]
    pub login: String,
    #[serde(default, deserialize_with = "null_default")]
    pub full_name: String,
    #[serde(default, deserialize_with = "null_default")]
    pub email: String,
    /// Site administrator (shown to admins only).
    #[serde(default)]
    pub is_admin: bool,
}

/// `Permission`: the caller's rights in `GET /repos/{o}/{r}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Permission {
    #[serde(default)]
    pub admin: bool,
    #[serde(default)]
    pub push: bool,
    #[serde(default)]
    pub pull: bool,
}

/// An access level as the permission endpoint names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum AccessLevel {
    None,
    Read,
    Write,
    Admin,
    Owner,
}

/// `RepoCollaboratorPermission`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepoPermission {
    /// `none`, `read`, `write`, `admin` or `owner`.
    #[serde(default, deserialize_with = "null_default")]
    pub permission: String,
    #[serde(default, deserialize_with = "null_default")]
    pub role_name: String,
    #[serde(default)]
    pub user: Option<User>,
}

impl RepoPermission {
    /// The level; an unknown word reads as `None`.
    pub fn level(&self) -> AccessLevel {
        match self.permission.as_str() {
            "read" => AccessLevel::Read,
            "write" => AccessLevel::Write,
            "admin" => AccessLevel::Admin,
            "owner" => AccessLevel::Owner,
            _ => AccessLevel::None,
        }
    }

    /// Write, admin or owner: a trusted maintainer (API-NOTES §e).
    pub fn can_write(&self) -> bool {
        self.level() >= AccessLevel::Write
    }
}

/// `BranchProtection` (readable by repo admins only: others get 403).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BranchProtection {
    #[serde(default, deserialize_with = "null_default")]
    pub rule_name: String,
    /// Deprecated alias of `rule_name`.
    #[serde(default, deserialize_with = "null_default")]
    pub branch_name: String,
    #[serde(default)]
    pub enable_push: bool,
    #[serde(default)]
    pub enable_push_whitelist: bool,
    #[serde(default, deserialize_with = "null_default")]
    pub push_whitelist_usernames: Vec<String>,
    #[serde(default)]
    pub enable_force_push: bool,
    #[serde(default)]
    pub enable_merge_whitelist: bool,
    #[serde(default, deserialize_with = "null_default")]
    pub merge_whitelist_usernames: Vec<String>,
    #[serde(default)]
    pub required_approvals: i64,
    #[serde(default)]
    pub enable_approvals_whitelist: bool,
    #[serde(default, deserialize_with = "null_default")]
    pub approvals_whitelist_username: Vec<String>,
    #[serde(default)]
    pub block_admin_merge_override: bool,
}

impl BranchProtection {
    /// Whether `user` may push to the branch (`CanUserPush`), given whether
    /// they have write access.
    pub fn allows_push(&self, user: &str, has_write: bool) -> bool {
        if !self.enable_push {
            return false;
        }
        if self.enable_push_whitelist {
            return self
                .push_whitelist_usernames
                .iter()
                .any(|u| u.eq_ignore_ascii_case(user));
        }
        has_write
    }

    /// Whether `user` may merge into the branch (`IsUserMergeWhitelisted`).
    pub fn allows_merge(&self, user: &str, has_write: bool) -> bool {
        if self.enable_merge_whitelist {
            return self
                .merge_whitelist_usernames
                .iter()
                .any(|u| u.eq_ignore_ascii_case(user));
        }
        has_write
    }
}

/// `PayloadUser`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PayloadUser {
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    #[serde(default, deserialize_with = "null_default")]
    pub email: String,
    #[serde(default, deserialize_with = "null_default")]
    pub username: String,
}

/// `PayloadCommit`: a branch's tip.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PayloadCommit {
    #[serde(default, deserialize_with = "null_default")]
    pub id: String,
    #[serde(default, deserialize_with = "null_default")]
    pub message: String,
    #[serde(default, deserialize_with = "null_default")]
    pub timestamp: String,
    #[serde(default)]
    pub author: Option<PayloadUser>,
    #[serde(default)]
    pub committer: Option<PayloadUser>,
}

/// `Branch`, with what the caller may do on it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Branch {
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    #[serde(default)]
    pub commit: Option<PayloadCommit>,
    /// A protection rule matches this branch.
    #[serde(default)]
    pub protected: bool,
    #[serde(default)]
    pub required_approvals: i64,
    /// The caller may push to it (the protection rule's push settings).
    #[serde(default)]
    pub user_can_push: bool,
    /// The caller may merge into it (the rule's merge whitelist, or write).
    #[serde(default)]
    pub user_can_merge: bool,
    /// The matching rule's name; empty unless the caller is a repo admin.
    #[serde(default, deserialize_with = "null_default")]
    pub effective_branch_protection_name: String,
}

impl Branch {
    /// The tip's sha.
    pub fn sha(&self) -> &str {
        self.commit.as_ref().map(|c| c.id.as_str()).unwrap_or("")
    }
}

/// `ContentsResponse`: one file (or directory entry) at a ref.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContentsResponse {
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    #[serde(default, deserialize_with = "null_default")]
    pub path: String,
    /// The blob id: `sha` for the next `PUT`.
    #[serde(default, deserialize_with = "null_default")]
    pub sha: String,
    #[serde(default, deserialize_with = "null_default")]
    pub last_commit_sha: String,
    /// `file`, `dir`, `symlink` or `submodule`.
    #[serde(rename = "type", default, deserialize_with = "null_default")]
    pub kind: String,
    #[serde(default)]
    pub size: i64,
    #[serde(default)]
    pub encoding: Option<String>,
    #[serde(default)]
    pub content: Option<String>,
}

impl ContentsResponse {
    /// The file's bytes, when the answer carried them (base64).
    pub fn bytes(&self) -> Result<Option<Vec<u8>>, base64::DecodeError> {
        match (&self.content, self.encoding.as_deref()) {
            (Some(text), Some("base64")) => {
                // Gitea's encoder does not wrap, but other servers might.
                let cleaned: String = text.chars().filter(|c| !c.is_whitespace()).collect();
                STANDARD.decode(cleaned).map(Some)
            }
            _ => Ok(None),
        }
    }
}

/// `CommitMeta`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommitMeta {
    #[serde(default, deserialize_with = "null_default")]
    pub sha: String,
}

/// `FileCommitResponse`: the commit a contents write made.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileCommit {
    #[serde(default, deserialize_with = "null_default")]
    pub sha: String,
    #[serde(default, deserialize_with = "null_default")]
    pub message: String,
    #[serde(default)]
    pub author: Option<CommitUser>,
    #[serde(default)]
    pub committer: Option<CommitUser>,
    #[serde(default, deserialize_with = "null_default")]
    pub parents: Vec<CommitMeta>,
}

/// `FileResponse`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileResponse {
    /// `null` after a delete.
    #[serde(default)]
    pub content: Option<ContentsResponse>,
    #[serde(default)]
    pub commit: Option<FileCommit>,
}

/// `Identity`: a commit author or committer (defaults to the token's user).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    pub name: String,
    pub email: String,
}

/// `CreateFileOptions`, and with `sha` `UpdateFileOptions` (`PUT`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileOptions {
    /// The bytes in standard padded base64.
    pub content: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The branch to start from; the default branch when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// Commit to this new branch (made from `branch`) instead; Gitea refuses
    /// with 422 when it exists.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_branch: Option<String>,
    /// The blob id of the file being replaced (required on update).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author: Option<Identity>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub committer: Option<Identity>,
}

impl FileOptions {
    /// Options writing `content`, encoded the only way Gitea accepts.
    pub fn new(content: &[u8]) -> Self {
        FileOptions {
            content: STANDARD.encode(content),
            ..FileOptions::default()
        }
    }

    pub fn message(mut self, message: &str) -> Self {
        self.message = Some(message.to_string());
        self
    }

    pub fn branch(mut self, branch: &str) -> Self {
        self.branch = Some(branch.to_string());
        self
    }

    pub fn new_branch(mut self, branch: &str) -> Self {
        self.new_branch = Some(branch.to_string());
        self
    }

    pub fn sha(mut self, sha: &str) -> Self {
        self.sha = Some(sha.to_string());
        self
    }

    /// The bytes these options write.
    pub fn content_bytes(&self) -> Option<Vec<u8>> {
        STANDARD.decode(&self.content).ok()
    }
}

/// `StateType`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    #[default]
    Open,
    Closed,
}

/// `Label`. `color` comes without its `#`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Label {
    #[serde(default)]
    pub id: i64,
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    #[serde(default, deserialize_with = "null_default")]
    pub color: String,
    #[serde(default, deserialize_with = "null_default")]
    pub description: String,
    #[serde(default)]
    pub exclusive: bool,
    #[serde(default)]
    pub is_archived: bool,
}

/// `CreateLabelOption`. Gitea does not refuse a duplicate name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateLabelOption {
    pub name: String,
    /// `#rrggbb`, `rrggbb` or the 3-digit forms.
    pub color: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
}

/// The labels to add to or set on an issue: IDs or names, never both (400).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IssueLabels {
    Ids(Vec<i64>),
    /// Names of repo labels (Gitea ≥ 1.22); unknown names are ignored.
    Names(Vec<String>),
}

impl Serialize for IssueLabels {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(1))?;
        match self {
            IssueLabels::Ids(ids) => map.serialize_entry("labels", ids)?,
            IssueLabels::Names(names) => map.serialize_entry("labels", names)?,
        }
        map.end()
    }
}

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

/// `Comment`: a plain conversation comment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Comment {
    #[serde(default)]
    pub id: i64,
    #[serde(default, deserialize_with = "null_default")]
    pub body: String,
    #[serde(default)]
    pub user: Option<User>,
    #[serde(default, deserialize_with = "null_default")]
    pub created_at: String,
    #[serde(default, deserialize_with = "null_default")]
    pub updated_at: String,
    #[serde(default, deserialize_with = "null_default")]
    pub html_url: String,
}

impl Comment {
    pub fn author(&self) -> &str {
        self.user.as_ref().map(|u| u.login.as_str()).unwrap_or("")
    }
}

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

/// `GET /pulls` filters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PullFilter {
    pub state: StateFilter,
    /// Label IDs; a pull matching any of them is listed.
    pub labels: Vec<i64>,
    pub base: Option<String>,
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
}
