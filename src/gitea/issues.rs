//! Issues (and pulls, which share their index space): list every page by
//! state, type, labels and author, get, create, edit and close, and read an
//! issue's whole timeline.

use reqwest::Method;

use super::client::{GiteaClient, Resend};
use super::error::GiteaError;
use super::paging::Total;
use super::review_model::{
    CreateIssueOption, EditIssueOption, Issue, IssueFilter, IssueKind, State, TimelineComment,
};

impl GiteaClient {
    /// Every issue matching `filter`, newest first.
    ///
    /// Gitea drops label names it does not know, and with none known it
    /// filters nothing and returns every issue. So the repo's labels are read
    /// first (one more request) and a filter naming an unknown label answers
    /// no issues, without asking Gitea.
    pub async fn list_issues(&self, filter: &IssueFilter) -> Result<Vec<Issue>, GiteaError> {
        if !filter.labels.is_empty() && !filter.labels_known {
            let known = self.list_labels().await?;
            if let Some(missing) = filter
                .labels
                .iter()
                .find(|name| !known.iter().any(|l| l.name == **name))
            {
                tracing::debug!(label = %missing, "no such label: no issue can carry it");
                return Ok(Vec::new());
            }
        }
        let path = self.repo_path("/issues");
        let mut query = vec![("state", filter.state.as_str().to_string())];
        match filter.kind {
            IssueKind::All => {}
            IssueKind::Issues => query.push(("type", "issues".to_string())),
            IssueKind::Pulls => query.push(("type", "pulls".to_string())),
        }
        if !filter.labels.is_empty() {
            query.push(("labels", filter.labels.join(",")));
        }
        if let Some(author) = &filter.created_by {
            query.push(("created_by", author.clone()));
        }
        self.get_all_pages(&path, &query, Total::All).await
    }

    /// One issue (or pull) by index; `None` on 404.
    pub async fn get_issue(&self, index: i64) -> Result<Option<Issue>, GiteaError> {
        let path = self.repo_path(&format!("/issues/{index}"));
        let reply = self
            .send::<()>(Method::GET, &path, &[], None, &[404])
            .await?;
        if reply.status == 404 {
            return Ok(None);
        }
        self.decode("GET", &path, &reply).map(Some)
    }

    /// Opens an issue. Not resent after an answer that may mean it landed
    /// (see [`GiteaError::may_have_landed`]): look for it before retrying.
    pub async fn create_issue(&self, options: &CreateIssueOption) -> Result<Issue, GiteaError> {
        let path = self.repo_path("/issues");
        tracing::info!(title = %options.title, "opening issue");
        let reply = self
            .send_with(
                Method::POST,
                &path,
                &[],
                Some(options),
                &[],
                Resend::IfNotSent,
            )
            .await?;
        self.decode("POST", &path, &reply)
    }

    /// Edits an issue or pull (Gitea answers 201, not 200).
    pub async fn edit_issue(
        &self,
        index: i64,
        options: &EditIssueOption,
    ) -> Result<Issue, GiteaError> {
        let path = self.repo_path(&format!("/issues/{index}"));
        let reply = self
            .send(Method::PATCH, &path, &[], Some(options), &[])
            .await?;
        self.decode("PATCH", &path, &reply)
    }

    /// Closes an issue or pull; closing a closed one changes nothing.
    pub async fn close_issue(&self, index: i64) -> Result<Issue, GiteaError> {
        self.edit_issue(
            index,
            &EditIssueOption {
                state: Some(State::Closed),
                ..EditIssueOption::default()
            },
        )
        .await
    }

    /// Every event and comment of an issue or pull, oldest first. Gitea's
    /// `X-Total-Count` here counts only the page, so only a short page ends
    /// the loop.
    pub async fn issue_timeline(&self, index: i64) -> Result<Vec<TimelineComment>, GiteaError> {
        let path = self.repo_path(&format!("/issues/{index}/timeline"));
        self.get_all_pages(&path, &[], Total::ThisPage).await
    }
}
