//! Files through the contents API: a file at a ref, the options of a create
//! or update (with the identity to commit as), and the commit a write made.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};

use super::json::null_default;
use super::users::CommitUser;

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
