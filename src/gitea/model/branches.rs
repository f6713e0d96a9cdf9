//! Branches and their protection: a branch with its tip and what the caller
//! may do on it, and a protection rule (readable by repo admins only).

use serde::{Deserialize, Serialize};

use super::json::null_default;

/// `BranchProtection` (readable by repo admins only: others get 403).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BranchProtection {
    #[serde(default, deserialize_with = "null_default")]
    pub rule_name: String,
    /// Deprecated alias of `rule_name`.
    #[serde(default, deserialize_with = "null_default")]
    pub branch_name: String,
    #[serde(default)]
    pub enable_push: bool,
    #[serde(default)]
    pub enable_push_whitelist: bool,
    #[serde(default, deserialize_with = "null_default")]
    pub push_whitelist_usernames: Vec<String>,
    #[serde(default)]
    pub enable_force_push: bool,
    #[serde(default)]
    pub enable_merge_whitelist: bool,
    #[serde(default, deserialize_with = "null_default")]
    pub merge_whitelist_usernames: Vec<String>,
    #[serde(default)]
    pub required_approvals: i64,
    #[serde(default)]
    pub enable_approvals_whitelist: bool,
    #[serde(default, deserialize_with = "null_default")]
    pub approvals_whitelist_username: Vec<String>,
    #[serde(default)]
    pub block_admin_merge_override: bool,
}

impl BranchProtection {
    /// Whether `user` may push to the branch (`CanUserPush`), given whether
    /// they have write access.
    pub fn allows_push(&self, user: &str, has_write: bool) -> bool {
        if !self.enable_push {
            return false;
        }
        if self.enable_push_whitelist {
            return self
                .push_whitelist_usernames
                .iter()
                .any(|u| u.eq_ignore_ascii_case(user));
        }
        has_write
    }

    /// Whether `user` may merge into the branch (`IsUserMergeWhitelisted`).
    pub fn allows_merge(&self, user: &str, has_write: bool) -> bool {
        if self.enable_merge_whitelist {
            return self
                .merge_whitelist_usernames
                .iter()
                .any(|u| u.eq_ignore_ascii_case(user));
        }
        has_write
    }
}

/// `PayloadUser`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PayloadUser {
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    #[serde(default, deserialize_with = "null_default")]
    pub email: String,
    #[serde(default, deserialize_with = "null_default")]
    pub username: String,
}

/// `PayloadCommit`: a branch's tip.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PayloadCommit {
    #[serde(default, deserialize_with = "null_default")]
    pub id: String,
    #[serde(default, deserialize_with = "null_default")]
    pub message: String,
    #[serde(default, deserialize_with = "null_default")]
    pub timestamp: String,
    #[serde(default)]
    pub author: Option<PayloadUser>,
    #[serde(default)]
    pub committer: Option<PayloadUser>,
}

/// `Branch`, with what the caller may do on it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Branch {
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    #[serde(default)]
    pub commit: Option<PayloadCommit>,
    /// A protection rule matches this branch.
    #[serde(default)]
    pub protected: bool,
    #[serde(default)]
    pub required_approvals: i64,
    /// The caller may push to it (the protection rule's push settings).
    #[serde(default)]
    pub user_can_push: bool,
    /// The caller may merge into it (the rule's merge whitelist, or write).
    #[serde(default)]
    pub user_can_merge: bool,
    /// The matching rule's name; empty unless the caller is a repo admin.
    #[serde(default, deserialize_with = "null_default")]
    pub effective_branch_protection_name: String,
}

impl Branch {
    /// The tip's sha.
    pub fn sha(&self) -> &str {
        self.commit.as_ref().map(|c| c.id.as_str()).unwrap_or("")
    }
}
