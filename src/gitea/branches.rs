//! Branches and branch protection: read a branch (with what the caller may
//! do on it), delete one (Gitea then closes every open pull whose head it
//! was), and list protection rules — which only repo admins may read.

use super::client::{DeleteOutcome, GiteaClient, escape_segment};
use super::error::GiteaError;
use super::model::{Branch, BranchProtection};

impl GiteaClient {
    /// A branch and its tip; `None` on 404. `protected`, `user_can_push` and
    /// `user_can_merge` answer the preflight for a bot that is not a repo
    /// admin (it cannot read the protection rules themselves).
    pub async fn get_branch(&self, name: &str) -> Result<Option<Branch>, GiteaError> {
        let path = self.repo_path_with("branches", name)?;
        self.get_optional(&path, &[]).await
    }

    /// Deletes a branch. Gitea refuses the default or a protected branch
    /// (403), and closes each open pull with this head — a `close` and a
    /// `delete_branch` event by the token's user. A 404 (gone already, also
    /// after a retried delete that landed) is [`DeleteOutcome::NotFound`].
    pub async fn delete_branch(&self, name: &str) -> Result<DeleteOutcome, GiteaError> {
        let path = self.repo_path_with("branches", name)?;
        tracing::info!(branch = name, "deleting branch");
        self.delete_optional(&path).await
    }

    /// Every protection rule. Needs repo admin: a writer gets 403
    /// ([`GiteaError::is_auth`]) and should read [`GiteaClient::get_branch`].
    pub async fn branch_protections(&self) -> Result<Vec<BranchProtection>, GiteaError> {
        let path = self.repo_path("/branch_protections");
        self.get(&path, &[]).await
    }

    /// One protection rule by its name; `None` on 404. Needs repo admin.
    pub async fn branch_protection(
        &self,
        rule_name: &str,
    ) -> Result<Option<BranchProtection>, GiteaError> {
        // The rule name is one segment (`/{name}`), so a `/` in it is escaped.
        let path = self.repo_path(&format!(
            "/branch_protections/{}",
            escape_segment(rule_name)?
        ));
        self.get_optional(&path, &[]).await
    }
}
