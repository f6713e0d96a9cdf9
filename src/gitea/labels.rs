//! Repo labels (list every page, create) and an issue's or pull's labels
//! (add, replace, remove), by ID or by name.

use reqwest::Method;

use super::client::{GiteaClient, Resend};
use super::error::GiteaError;
use super::model::{CreateLabelOption, IssueLabels, Label};
use super::paging::Total;

impl GiteaClient {
    /// Every label of the repository, by name.
    pub async fn list_labels(&self) -> Result<Vec<Label>, GiteaError> {
        let path = self.repo_path("/labels");
        self.get_all_pages(&path, &[], Total::All).await
    }

    /// Creates a label (422 for a bad colour). Gitea makes a duplicate when
    /// the name exists, so list first; and it is not resent after an answer
    /// that may mean it landed.
    pub async fn create_label(&self, options: &CreateLabelOption) -> Result<Label, GiteaError> {
        let path = self.repo_path("/labels");
        tracing::info!(name = %options.name, "creating label");
        self.write(Method::POST, &path, options, Resend::IfNotSent)
            .await
    }

    /// Adds labels to an issue or pull; returns its whole label set.
    pub async fn add_issue_labels(
        &self,
        index: i64,
        labels: &IssueLabels,
    ) -> Result<Vec<Label>, GiteaError> {
        let path = self.repo_path(&format!("/issues/{index}/labels"));
        self.write(Method::POST, &path, labels, Resend::Always)
            .await
    }

    /// Sets an issue's or pull's labels to exactly `labels`.
    pub async fn replace_issue_labels(
        &self,
        index: i64,
        labels: &IssueLabels,
    ) -> Result<Vec<Label>, GiteaError> {
        let path = self.repo_path(&format!("/issues/{index}/labels"));
        self.write(Method::PUT, &path, labels, Resend::Always).await
    }

    /// Removes one label (by ID) from an issue or pull; 422 for a label that
    /// does not exist.
    pub async fn remove_issue_label(&self, index: i64, label_id: i64) -> Result<(), GiteaError> {
        let path = self.repo_path(&format!("/issues/{index}/labels/{label_id}"));
        self.send::<()>(Method::DELETE, &path, &[], None, &[])
            .await
            .map(|_| ())
    }
}
