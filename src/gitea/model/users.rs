//! The people every other payload names: a Gitea account (`User`) and a
//! commit's author or committer (`CommitUser`).

use serde::{Deserialize, Serialize};

use super::json::null_default;

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

/// `CommitUser`: a name, an email and an RFC 3339 UTC date.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommitUser {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub email: String,
    #[serde(default)]
    pub date: String,
}
