//! Gitea REST client for the wiki publisher and the review workflow: HTTP,
//! retries, page naming, token sources and the API's data types (Gitea
//! 1.25; quirks in `../shared/gitea/API-NOTES.md`).
//!
//! One [`GiteaClient`] per repository. Every call retries transient failures
//! with the crate's one policy (`crate::retry`), honours `Retry-After`, and
//! keeps the token out of errors and logs. Errors carry the HTTP status and
//! Gitea's message ([`GiteaError::status`], `is_conflict` 409,
//! `is_unprocessable` 422, `is_merge_refused` 405, `is_precondition_failed`
//! 412, `is_auth`, `is_not_found`, `may_have_landed`). Lists read every page
//! (50 a page; the timeline's per-page `X-Total-Count` is not trusted).
//!
//! The review surface, by file:
//! - `repo.rs`: [`GiteaClient::get_repository`] (with the caller's
//!   `permissions`), [`GiteaClient::current_user`] (`read:user`),
//!   [`GiteaClient::repo_permission`] (403 unless admin or self).
//! - `branches.rs`: [`GiteaClient::get_branch`] (`protected`,
//!   `user_can_push`, `user_can_merge`: the bot's preflight, since
//!   [`GiteaClient::branch_protections`] needs repo admin),
//!   [`GiteaClient::delete_branch`] (closes the head's open pulls).
//! - `contents.rs`: [`GiteaClient::get_file`], [`GiteaClient::create_file`]
//!   (one request, `new_branch` allowed), [`GiteaClient::update_file`]
//!   (`sha` required), [`GiteaClient::delete_file`]; a 422 whose bytes are
//!   already in place is [`FileOutcome::AlreadyThere`].
//! - `pulls.rs`: [`GiteaClient::list_pulls`], [`GiteaClient::get_pull`],
//!   [`GiteaClient::create_pull`] (409 → [`PullOutcome::AlreadyOpen`]),
//!   [`GiteaClient::edit_pull`], [`GiteaClient::is_pull_merged`],
//!   [`GiteaClient::merge_pull`] (405 on a merged pull →
//!   [`MergeOutcome::AlreadyMerged`]).
//! - `issues.rs`: [`GiteaClient::list_issues`] (an unknown label name lists
//!   nothing instead of everything), [`GiteaClient::get_issue`],
//!   [`GiteaClient::create_issue`], [`GiteaClient::edit_issue`],
//!   [`GiteaClient::close_issue`], [`GiteaClient::issue_timeline`] (tell a
//!   person's `close` from a branch deletion's `close` + `delete_branch`).
//! - `comments.rs`: [`GiteaClient::list_comments`],
//!   [`GiteaClient::create_comment`], [`GiteaClient::edit_comment`],
//!   [`GiteaClient::delete_comment`].
//! - `labels.rs`: [`GiteaClient::list_labels`], [`GiteaClient::create_label`]
//!   (duplicates are not refused by Gitea: list first),
//!   [`GiteaClient::add_issue_labels`], [`GiteaClient::replace_issue_labels`],
//!   [`GiteaClient::remove_issue_label`].
//!
//! The payloads are in `model/`, one file per API area.
//!
//! Creates that Gitea would duplicate when repeated (issues, comments,
//! labels) are resent only when the first attempt surely did not arrive; the
//! others recognise their own landed retry (wiki 400, pull 409, file 422).

pub mod branches;
pub mod client;
pub mod comments;
pub mod contents;
pub mod error;
pub mod issues;
pub mod labels;
pub mod model;
/// Gitea's page naming is pure and shared with the derived `wiki_page_name`
/// (a core rule): it lives in `crate::page_name`.
pub use crate::page_name;
pub mod paging;
pub mod pulls;
pub mod repo;
pub mod scopes;
pub mod token;
pub mod wiki;

pub use client::{ClientOptions, DeleteOutcome, GiteaClient, RepoRef};
pub use contents::FileOutcome;
pub use error::GiteaError;
pub use model::{
    AccessLevel, Branch, BranchProtection, Comment, CommitMeta, CommitUser, ContentsResponse,
    CreateIssueOption, CreateLabelOption, CreatePullRequestOption, CreateWikiPageOptions,
    EditIssueOption, EditPullRequestOption, FileCommit, FileOptions, FileResponse, Identity, Issue,
    IssueFilter, IssueKind, IssueLabels, Label, MergePullRequestOption, MergeStyle, PayloadCommit,
    PayloadUser, Permission, PrBranchInfo, PullFilter, PullRequest, PullRequestMeta,
    RepoPermission, Repository, ServerVersion, State, StateFilter, TimelineComment, TimelineEvent,
    User, WikiCommit, WikiCommitList, WikiPage, WikiPageMetaData,
};
pub use pulls::{MergeOutcome, PullCreated, PullOutcome};
pub use scopes::TokenScopes;
pub use token::{TokenScope, TokenSource};
pub use wiki::{UpsertOutcome, Upserted};
