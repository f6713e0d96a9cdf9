//! Conversation comments on issues and pulls: list (all of them: Gitea does
//! not page this list), create, edit and delete.

use reqwest::Method;
use serde::Serialize;

use super::client::{DeleteOutcome, GiteaClient, Resend};
use super::error::GiteaError;
use super::model::Comment;

#[derive(Serialize)]
struct CommentBody<'a> {
    body: &'a str,
}

impl GiteaClient {
    /// The plain comments of an issue or pull, oldest first (no events: see
    /// [`GiteaClient::issue_timeline`]). Gitea answers 500, not 404, for a
    /// missing issue.
    pub async fn list_comments(&self, index: i64) -> Result<Vec<Comment>, GiteaError> {
        let path = self.repo_path(&format!("/issues/{index}/comments"));
        self.get(&path, &[]).await
    }

    /// Adds a comment. Not resent after an answer that may mean it landed.
    pub async fn create_comment(&self, index: i64, body: &str) -> Result<Comment, GiteaError> {
        let path = self.repo_path(&format!("/issues/{index}/comments"));
        self.write(
            Method::POST,
            &path,
            &CommentBody { body },
            Resend::IfNotSent,
        )
        .await
    }

    /// Replaces a comment's text; `None` when Gitea answers 204 (the id is
    /// an event without text).
    pub async fn edit_comment(&self, id: i64, body: &str) -> Result<Option<Comment>, GiteaError> {
        let path = self.repo_path(&format!("/issues/comments/{id}"));
        let reply = self
            .send(Method::PATCH, &path, &[], Some(&CommentBody { body }), &[])
            .await?;
        if reply.status == 204 {
            return Ok(None);
        }
        self.decode(&reply).map(Some)
    }

    pub async fn delete_comment(&self, id: i64) -> Result<DeleteOutcome, GiteaError> {
        let path = self.repo_path(&format!("/issues/comments/{id}"));
        self.delete_optional(&path).await
    }
}
