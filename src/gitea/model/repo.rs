//! The server and the repository: `ServerVersion`, `Repository` with the
//! caller's `Permission`, and a user's effective access (`RepoPermission`).

use serde::{Deserialize, Serialize};

use super::json::null_default;
use super::users::User;

/// `ServerVersion`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerVersion {
    #[serde(default)]
    pub version: String,
}

/// The fields of `Repository` that learnsync looks at.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Repository {
    #[serde(default)]
    pub id: i64,
    #[serde(default)]
    pub full_name: String,
    #[serde(default)]
    pub html_url: String,
    #[serde(default)]
    pub default_branch: String,
    #[serde(default)]
    pub has_wiki: bool,
    /// Set when the wiki lives elsewhere; then the API wiki is unusable.
    #[serde(default)]
    pub external_wiki: Option<serde_json::Value>,
    #[serde(default)]
    pub archived: bool,
    #[serde(default)]
    pub private: bool,
    #[serde(default)]
    pub empty: bool,
    #[serde(default)]
    pub owner: Option<User>,
    /// The caller's rights (Gitea fills it for the token's user).
    #[serde(default)]
    pub permissions: Option<Permission>,
}

impl Repository {
    /// Whether the wiki API can be used: wiki unit on, not external, writable.
    pub fn wiki_usable(&self) -> bool {
        self.has_wiki && self.external_wiki.is_none() && !self.archived
    }
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
