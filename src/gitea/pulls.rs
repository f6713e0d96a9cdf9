//! Pull requests: list (every page, by state, label and base), get, create
//! (a retried create that meets Gitea's 409 finds the open pull instead),
//! edit (title, body, labels, state), the merged check and the merge itself.

use reqwest::Method;

use super::client::{GiteaClient, Resend};
use super::error::GiteaError;
use super::model::{
    CreatePullRequestOption, EditPullRequestOption, MergePullRequestOption, PullFilter,
    PullRequest, StateFilter,
};
use super::paging::Total;

/// Whether [`GiteaClient::create_pull`] made the pull.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PullOutcome {
    Created,
    /// Gitea answered 409: an open pull with this head and base exists
    /// (possibly our own, from a first attempt that landed).
    AlreadyOpen,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullCreated {
    pub pull: PullRequest,
    pub outcome: PullOutcome,
}

/// What [`GiteaClient::merge_pull`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeOutcome {
    Merged,
    /// Gitea answered 405 and the pull is merged (by us on a retry, or by
    /// someone else).
    AlreadyMerged,
}

impl GiteaClient {
    /// Every pull matching `filter`, newest first. The state is always sent:
    /// without it Gitea lists all pulls.
    pub async fn list_pulls(&self, filter: &PullFilter) -> Result<Vec<PullRequest>, GiteaError> {
        Ok(self.list_pulls_at(filter).await?.0)
    }

    /// [`Self::list_pulls`] and the server's clock at its first page.
    pub async fn list_pulls_at(
        &self,
        filter: &PullFilter,
    ) -> Result<(Vec<PullRequest>, Option<String>), GiteaError> {
        let path = self.repo_path("/pulls");
        let mut query = vec![("state", filter.state.as_str().to_string())];
        query.extend(filter.labels.iter().map(|id| ("labels", id.to_string())));
        if let Some(base) = &filter.base {
            query.push(("base_branch", base.clone()));
        }
        let (mut pulls, date): (Vec<PullRequest>, _) =
            self.get_all_pages_at(&path, &query, Total::All).await?;
        // Gitea lists a pull once per matching label (an INNER JOIN).
        let mut seen = std::collections::HashSet::new();
        pulls.retain(|p| seen.insert(p.number));
        Ok((pulls, date))
    }

    /// One pull by its index; `None` on 404 (also for an issue's index).
    pub async fn get_pull(&self, index: i64) -> Result<Option<PullRequest>, GiteaError> {
        let path = self.repo_path(&format!("/pulls/{index}"));
        self.get_optional(&path, &[]).await
    }

    /// Opens a pull. Gitea's errors pass through (422 head == base or not
    /// branches, 404 an unknown branch), except 409 — an open pull with the
    /// same head and base — which returns that pull as
    /// [`PullOutcome::AlreadyOpen`].
    pub async fn create_pull(
        &self,
        options: &CreatePullRequestOption,
    ) -> Result<PullCreated, GiteaError> {
        let path = self.repo_path("/pulls");
        tracing::info!(head = %options.head, base = %options.base, "opening pull request");
        match self
            .write(Method::POST, &path, options, Resend::Always)
            .await
        {
            Ok(pull) => Ok(PullCreated {
                pull,
                outcome: PullOutcome::Created,
            }),
            Err(e) if e.is_conflict() => {
                let head = options
                    .head
                    .rsplit_once(':')
                    .map(|(_, branch)| branch)
                    .unwrap_or(&options.head);
                let open = self
                    .list_pulls(&PullFilter {
                        state: StateFilter::Open,
                        base: Some(options.base.clone()),
                        ..PullFilter::default()
                    })
                    .await?;
                match open.into_iter().find(|p| p.head_ref() == head) {
                    Some(pull) => Ok(PullCreated {
                        pull,
                        outcome: PullOutcome::AlreadyOpen,
                    }),
                    None => Err(e),
                }
            }
            Err(e) => Err(e),
        }
    }

    /// Edits a pull (Gitea answers 201); 412 when changing a merged pull's state.
    pub async fn edit_pull(
        &self,
        index: i64,
        options: &EditPullRequestOption,
    ) -> Result<PullRequest, GiteaError> {
        let path = self.repo_path(&format!("/pulls/{index}"));
        self.write(Method::PATCH, &path, options, Resend::Always)
            .await
    }

    /// `GET /pulls/{index}/merge`: 204 merged, 404 not merged (or no pull).
    pub async fn is_pull_merged(&self, index: i64) -> Result<bool, GiteaError> {
        let path = self.repo_path(&format!("/pulls/{index}/merge"));
        let reply = self.get_reply_optional(&path, &[]).await?;
        Ok(reply.is_some_and(|r| r.status == 204))
    }

    /// Merges a pull. Refusals are 405 ([`GiteaError::is_merge_refused`]: no
    /// permission, conflicts, missing approvals), 404 for a closed pull, 409
    /// for a stale `head_commit_id`; a 405 for a pull that is merged is
    /// [`MergeOutcome::AlreadyMerged`].
    pub async fn merge_pull(
        &self,
        index: i64,
        options: &MergePullRequestOption,
    ) -> Result<MergeOutcome, GiteaError> {
        let path = self.repo_path(&format!("/pulls/{index}/merge"));
        tracing::info!(index, style = ?options.style, "merging pull request");
        match self
            .send(Method::POST, &path, &[], Some(options), &[])
            .await
        {
            Ok(_) => Ok(MergeOutcome::Merged),
            Err(e) if e.is_merge_refused() => match self.get_pull(index).await? {
                Some(pull) if pull.merged => Ok(MergeOutcome::AlreadyMerged),
                _ => Err(e),
            },
            Err(e) => Err(e),
        }
    }
}
