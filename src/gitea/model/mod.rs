//! Gitea API payloads that learnsync reads and writes, one file per API area,
//! named and spelt as in Gitea 1.25.4's swagger (including `commiter`). Only
//! the fields learnsync reads are kept; unknown ones are ignored and a JSON
//! `null` reads as empty. `users.rs` and `json.rs` are shared; no file here
//! imports one that imports it back.

mod branches;
mod comments;
mod contents;
mod error;
mod issues;
mod json;
mod labels;
mod pulls;
mod repo;
mod timeline;
mod users;
mod wiki;

pub use branches::{Branch, BranchProtection, PayloadCommit, PayloadUser};
pub use comments::Comment;
pub use contents::{CommitMeta, ContentsResponse, FileCommit, FileOptions, FileResponse, Identity};
pub(crate) use error::ApiErrorBody;
pub use issues::{
    CreateIssueOption, EditIssueOption, Issue, IssueFilter, IssueKind, PullRequestMeta, State,
    StateFilter,
};
pub use labels::{CreateLabelOption, IssueLabels, Label};
pub use pulls::{
    CreatePullRequestOption, EditPullRequestOption, MergePullRequestOption, MergeStyle,
    PrBranchInfo, PullFilter, PullRequest,
};
pub use repo::{AccessLevel, Permission, RepoPermission, Repository, ServerVersion};
pub use timeline::{TimelineComment, TimelineEvent};
pub use users::{CommitUser, User};
pub use wiki::{CreateWikiPageOptions, WikiCommit, WikiCommitList, WikiPage, WikiPageMetaData};
