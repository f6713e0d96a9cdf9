//! Gitea REST client for the wiki publisher (and later the review workflow):
//! HTTP, retries, page naming, token sources and the API's data types.

pub mod client;
pub mod error;
pub mod model;
pub mod page_name;
pub mod repo;
pub mod token;
pub mod wiki;

pub use client::{ClientOptions, GiteaClient, RepoRef};
pub use error::GiteaError;
pub use model::{
    CommitUser, CreateWikiPageOptions, Repository, ServerVersion, WikiCommit, WikiCommitList,
    WikiPage, WikiPageMetaData,
};
pub use token::TokenSource;
pub use wiki::{DeleteOutcome, UpsertOutcome, Upserted};
