//! Server, repository and user lookups: `GET /version`, `GET /repos/{o}/{r}`
//! (with the caller's `permissions`), `GET /user`, and a user's effective
//! permission on the repository.

use super::client::{GiteaClient, escape_segment};
use super::error::GiteaError;
use super::model::{RepoPermission, Repository, ServerVersion, User};

impl GiteaClient {
    /// The server's version (`{"version":"1.25.4"}`), for feature gating.
    pub async fn server_version(&self) -> Result<ServerVersion, GiteaError> {
        self.get("/version", &[]).await
    }

    /// The configured repository; 404 when it does not exist or is hidden.
    /// `permissions` are the token user's (`admin`, `push`, `pull`).
    pub async fn get_repository(&self) -> Result<Repository, GiteaError> {
        self.get(&self.repo_path(""), &[]).await
    }

    /// The token's user (`GET /user`; needs the `read:user` scope).
    pub async fn current_user(&self) -> Result<User, GiteaError> {
        self.get("/user", &[]).await
    }

    /// `username`'s effective access (owner, teams, public read included).
    /// Gitea answers only a site admin, a repo admin, or a user asking about
    /// themselves; anyone else gets 403 ([`GiteaError::is_auth`]). 404: no
    /// such user.
    pub async fn repo_permission(&self, username: &str) -> Result<RepoPermission, GiteaError> {
        let path = self.repo_path(&format!(
            "/collaborators/{}/permission",
            escape_segment(username)?
        ));
        self.get(&path, &[]).await
    }
}
