//! Server and repository lookups: `GET /version` and `GET /repos/{owner}/{repo}`,
//! used to check the target before publishing.

use reqwest::Method;

use super::client::GiteaClient;
use super::error::GiteaError;
use super::model::{Repository, ServerVersion};

impl GiteaClient {
    /// The server's version (`{"version":"1.25.4"}`), for feature gating.
    pub async fn server_version(&self) -> Result<ServerVersion, GiteaError> {
        let path = "/version";
        let reply = self.send::<()>(Method::GET, path, &[], None, &[]).await?;
        self.decode("GET", path, &reply)
    }

    /// The configured repository; 404 when it does not exist or is hidden.
    pub async fn get_repository(&self) -> Result<Repository, GiteaError> {
        let path = self.repo_path("");
        let reply = self.send::<()>(Method::GET, &path, &[], None, &[]).await?;
        self.decode("GET", &path, &reply)
    }
}
