//! Issues (and pulls, which share their index space): list every page by
//! state, type, labels and author, get, create, edit and close, and read an
//! issue's whole timeline.

use reqwest::Method;

use super::client::{GiteaClient, Resend};
use super::error::GiteaError;
use super::model::{
    CreateIssueOption, EditIssueOption, Issue, IssueFilter, IssueKind, State, TimelineComment,
};
use super::paging::Total;

impl GiteaClient {
    /// Every issue matching `filter`, newest first.
    ///
    /// Gitea drops label names it does not know, and with none known it
    /// filters nothing and returns every issue. So the repo's labels are read
    /// first (one more request) and a filter naming an unknown label answers
    /// no issues, without asking Gitea.
    pub async fn list_issues(&self, filter: &IssueFilter) -> Result<Vec<Issue>, GiteaError> {
        Ok(self.list_issues_at(filter).await?.0)
    }

    /// [`Self::list_issues`] and the server's clock at its first page
    /// (`None` when the server sent no `Date`).
    pub async fn list_issues_at(
        &self,
        filter: &IssueFilter,
    ) -> Result<(Vec<Issue>, Option<String>), GiteaError> {
        if !filter.labels.is_empty() && !filter.labels_known {
            let known = self.list_labels().await?;
            if let Some(missing) = filter
                .labels
                .iter()
                .find(|name| !known.iter().any(|l| l.name == **name))
            {
                tracing::debug!(label = %missing, "no such label: no issue can carry it");
                return Ok((Vec::new(), None));
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
        if let Some(since) = &filter.since {
            query.push(("since", since.clone()));
        }
        self.get_all_pages_at(&path, &query, Total::All).await
    }

    /// One issue (or pull) by index; `None` on 404.
    pub async fn get_issue(&self, index: i64) -> Result<Option<Issue>, GiteaError> {
        let path = self.repo_path(&format!("/issues/{index}"));
        self.get_optional(&path, &[]).await
    }

    /// Opens an issue. Not resent after an answer that may mean it landed
    /// (see [`GiteaError::may_have_landed`]): look for it before retrying.
    pub async fn create_issue(&self, options: &CreateIssueOption) -> Result<Issue, GiteaError> {
        let path = self.repo_path("/issues");
        tracing::info!(title = %options.title, "opening issue");
        self.write(Method::POST, &path, options, Resend::IfNotSent)
            .await
    }

    /// Edits an issue or pull (Gitea answers 201, not 200).
    pub async fn edit_issue(
        &self,
        index: i64,
        options: &EditIssueOption,
    ) -> Result<Issue, GiteaError> {
        let path = self.repo_path(&format!("/issues/{index}"));
        self.write(Method::PATCH, &path, options, Resend::Always)
            .await
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
