//! Plain conversation comments on issues and pulls (events are in
//! `timeline.rs`).

use serde::{Deserialize, Serialize};

use super::json::null_default;
use super::users::User;

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
