//! Files on a branch through the contents API: read one at a ref, create one
//! (possibly on a new branch made in the same commit), update it by its blob
//! `sha`, delete it. A write Gitea refuses with 422 because its bytes are
//! already there — typically a retried write whose first attempt landed —
//! is reported as [`FileOutcome::AlreadyThere`], not as an error.

use reqwest::Method;
use serde::Serialize;

use super::client::{DeleteOutcome, GiteaClient, Resend};
use super::error::GiteaError;
use super::model::{ContentsResponse, FileOptions, FileResponse};

/// `DeleteFileOptions`: no `content`, which that schema does not have.
#[derive(Serialize)]
struct DeleteFileOptions<'a> {
    sha: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    branch: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
}

/// What a create or update did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileOutcome {
    /// One new commit holds the file.
    Committed(Box<FileResponse>),
    /// Gitea refused (422: the branch or file exists, or the `sha` is stale)
    /// and the target branch already has exactly these bytes at the path.
    AlreadyThere(ContentsResponse),
}

impl GiteaClient {
    /// The file at `path` on `reference` (a branch, tag or commit; the
    /// default branch when `None`). `None` when the ref or the file is
    /// missing; a directory is an error.
    pub async fn get_file(
        &self,
        path: &str,
        reference: Option<&str>,
    ) -> Result<Option<ContentsResponse>, GiteaError> {
        let endpoint = self.repo_path_with("contents", path)?;
        let query: Vec<(&str, String)> = reference
            .map(|r| vec![("ref", r.to_string())])
            .unwrap_or_default();
        let Some(reply) = self.get_reply_optional(&endpoint, &query).await? else {
            return Ok(None);
        };
        if reply.body.first() == Some(&b'[') {
            return Err(GiteaError::Invalid(format!(
                "{path} is a directory, not a file"
            )));
        }
        self.decode(&reply).map(Some)
    }

    /// Creates `path` with `options` — on `new_branch` when set, which Gitea
    /// makes from `branch` in the same commit (422 if it exists). One request.
    pub async fn create_file(
        &self,
        path: &str,
        options: &FileOptions,
    ) -> Result<FileOutcome, GiteaError> {
        let endpoint = self.repo_path_with("contents", path)?;
        tracing::info!(path, new_branch = ?options.new_branch, "creating file");
        let result = self
            .write(Method::POST, &endpoint, options, Resend::Always)
            .await;
        self.file_outcome(path, options, result).await
    }

    /// Replaces `path`, whose current blob id must be `options.sha` (422 when
    /// stale, 404 when the file is missing).
    pub async fn update_file(
        &self,
        path: &str,
        options: &FileOptions,
    ) -> Result<FileOutcome, GiteaError> {
        if options.sha.as_deref().is_none_or(str::is_empty) {
            return Err(GiteaError::Invalid(format!(
                "updating {path} needs the sha of the file it replaces"
            )));
        }
        let endpoint = self.repo_path_with("contents", path)?;
        tracing::info!(path, branch = ?options.branch, "updating file");
        let result = self
            .write(Method::PUT, &endpoint, options, Resend::Always)
            .await;
        self.file_outcome(path, options, result).await
    }

    /// Deletes `path`, whose blob id is `sha`, on `branch` (the default
    /// branch when `None`); 404 is [`DeleteOutcome::NotFound`].
    pub async fn delete_file(
        &self,
        path: &str,
        sha: &str,
        branch: Option<&str>,
        message: Option<&str>,
    ) -> Result<DeleteOutcome, GiteaError> {
        let endpoint = self.repo_path_with("contents", path)?;
        let body = DeleteFileOptions {
            sha,
            branch,
            message,
        };
        self.delete_optional_with(&endpoint, Some(&body)).await
    }

    /// A write's outcome: its commit, or a 422 for bytes already in place.
    async fn file_outcome(
        &self,
        path: &str,
        options: &FileOptions,
        result: Result<FileResponse, GiteaError>,
    ) -> Result<FileOutcome, GiteaError> {
        match result {
            Ok(file) => Ok(FileOutcome::Committed(Box::new(file))),
            Err(e) if e.is_unprocessable() => {
                let target = options.new_branch.as_deref().or(options.branch.as_deref());
                let wanted = options.content_bytes();
                match self.get_file(path, target).await? {
                    Some(found) if found.bytes().ok().flatten() == wanted => {
                        tracing::debug!(path, ?target, "file already has these bytes");
                        Ok(FileOutcome::AlreadyThere(found))
                    }
                    _ => Err(e),
                }
            }
            Err(e) => Err(e),
        }
    }
}
