//! Conversation comments on issues and pulls: list (all of them: Gitea does
//! not page this list), create, edit and delete.

use reqwest::Method;
use serde::Serialize;

use super::client::{GiteaClient, Resend};
use super::error::GiteaError;
use super::review_model::Comment;
use super::wiki::DeleteOutcome;

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
        let reply = self.send::<()>(Method::GET, &path, &[], None, &[]).await?;
        self.decode("GET", &path, &reply)
    }

    /// Adds a comment. Not resent after an answer that may mean it landed.
    pub async fn create_comment(&self, index: i64, body: &str) -> Result<Comment, GiteaError> {
        let path = self.repo_path(&format!("/issues/{index}/comments"));
        let reply = self
            .send_with(
                Method::POST,
                &path,
                &[],
                Some(&CommentBody { body }),
                &[],
                Resend::IfNotSent,
            )
            .await?;
        self.decode("POST", &path, &reply)
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
        self.decode("PATCH", &path, &reply).map(Some)
    }

    pub async fn delete_comment(&self, id: i64) -> Result<DeleteOutcome, GiteaError> {
        let path = self.repo_path(&format!("/issues/comments/{id}"));
        let reply = self
            .send::<()>(Method::DELETE, &path, &[], None, &[404])
            .await?;
        Ok(if reply.status == 404 {
            DeleteOutcome::NotFound
        } else {
            DeleteOutcome::Deleted
        })
    }
}
