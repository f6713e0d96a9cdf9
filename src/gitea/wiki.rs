//! Wiki endpoints: list (paged), get, create, edit, upsert, delete, revisions,
//! with Gitea's quirks handled here (404 empty wiki, 400 on existing page).

use reqwest::Method;

use super::client::{DeleteOutcome, GiteaClient, Resend};
use super::error::GiteaError;
use super::model::{CreateWikiPageOptions, WikiCommitList, WikiPage, WikiPageMetaData};
use super::page_name::{is_reserved_title, title_to_sub_url};

/// Page size requested from the list endpoint. Gitea does not clamp the wiki
/// list, but 50 matches `MAX_RESPONSE_ITEMS` elsewhere and keeps calls short.
pub const LIST_PAGE_SIZE: u32 = 50;

/// Upper bound on list pages fetched, against a server that never says stop.
const MAX_LIST_PAGES: u32 = 10_000;

/// Whether an upsert created the page or replaced an existing one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpsertOutcome {
    Created,
    Updated,
}

/// The page as Gitea stored it, and how it got there.
#[derive(Debug, Clone)]
pub struct Upserted {
    pub page: WikiPage,
    pub outcome: UpsertOutcome,
}

impl GiteaClient {
    /// All pages of the wiki (including `_Sidebar` and `_Footer`). An empty
    /// wiki is an empty list, although Gitea answers 404 for it.
    ///
    /// Gitea pages over *all* root entries before dropping non-pages, so a page
    /// of results can be short; only `X-Total-Count` says when to stop.
    pub async fn list_wiki_pages(&self) -> Result<Vec<WikiPageMetaData>, GiteaError> {
        let path = self.repo_path("/wiki/pages");
        let mut pages = Vec::new();
        for page in 1..=MAX_LIST_PAGES {
            let query = [
                ("page", page.to_string()),
                ("limit", LIST_PAGE_SIZE.to_string()),
            ];
            let reply = self
                .send::<()>(Method::GET, &path, &query, None, &[404])
                .await?;
            if reply.status == 404 {
                if page == 1 {
                    tracing::debug!(repo = %self.repo(), "wiki has no pages yet (404)");
                    return Ok(pages);
                }
                return Err(GiteaError::Status {
                    method: reply.method.to_string(),
                    endpoint: path,
                    status: 404,
                    message: "the wiki disappeared while it was being listed".into(),
                });
            }
            let batch: Vec<WikiPageMetaData> = self.decode(&reply)?;
            let batch_len = batch.len();
            pages.extend(batch);
            let done = match reply.total_count {
                Some(total) => u64::from(page) * u64::from(LIST_PAGE_SIZE) >= total,
                None => batch_len == 0,
            };
            if done {
                break;
            }
        }
        Ok(pages)
    }

    /// One page by its `sub_url` (verbatim, as Gitea gave it or as
    /// `page_name::title_to_sub_url` computes it); `None` on 404.
    pub async fn get_wiki_page(&self, sub_url: &str) -> Result<Option<WikiPage>, GiteaError> {
        let path = self.repo_path(&format!("/wiki/page/{}", checked_sub_url(sub_url)?));
        self.get_optional(&path, &[]).await
    }

    /// Creates a page; Gitea answers 400 (not 409) when it already exists, see
    /// [`GiteaError::is_page_exists`] and [`GiteaClient::upsert_wiki_page`].
    pub async fn create_wiki_page(
        &self,
        title: &str,
        content: &[u8],
        message: Option<&str>,
    ) -> Result<WikiPage, GiteaError> {
        check_title(title)?;
        let path = self.repo_path("/wiki/new");
        let body = CreateWikiPageOptions::new(title, content, message);
        tracing::info!(title, sub_url = %title_to_sub_url(title), "creating wiki page");
        self.write(Method::POST, &path, &body, Resend::Always).await
    }

    /// Replaces the page at `sub_url` with `title` and `content`. Gitea renames
    /// the page to `title`, so pass the page's current title to keep its name;
    /// a missing page is created (Gitea's PATCH is an upsert).
    pub async fn edit_wiki_page(
        &self,
        sub_url: &str,
        title: &str,
        content: &[u8],
        message: Option<&str>,
    ) -> Result<WikiPage, GiteaError> {
        check_title(title)?;
        let path = self.repo_path(&format!("/wiki/page/{}", checked_sub_url(sub_url)?));
        let body = CreateWikiPageOptions::new(title, content, message);
        tracing::info!(title, sub_url, "editing wiki page");
        self.write(Method::PATCH, &path, &body, Resend::Always)
            .await
    }

    /// Creates the page, or edits it when it exists. Safe to retry: a create
    /// that landed but answered 500 is retried, sees 400 "already exists", and
    /// turns into an edit, so no duplicate appears.
    pub async fn upsert_wiki_page(
        &self,
        title: &str,
        content: &[u8],
        message: Option<&str>,
    ) -> Result<Upserted, GiteaError> {
        match self.create_wiki_page(title, content, message).await {
            Ok(page) => Ok(Upserted {
                page,
                outcome: UpsertOutcome::Created,
            }),
            Err(e) if e.is_page_exists() => {
                tracing::debug!(title, "page exists; editing instead");
                let sub_url = title_to_sub_url(title);
                let page = self
                    .edit_wiki_page(&sub_url, title, content, message)
                    .await?;
                Ok(Upserted {
                    page,
                    outcome: UpsertOutcome::Updated,
                })
            }
            Err(e) => Err(e),
        }
    }

    /// Deletes the page at `sub_url`. A 404 is [`DeleteOutcome::NotFound`],
    /// which also covers a retried delete whose first attempt landed.
    pub async fn delete_wiki_page(&self, sub_url: &str) -> Result<DeleteOutcome, GiteaError> {
        let path = self.repo_path(&format!("/wiki/page/{}", checked_sub_url(sub_url)?));
        tracing::info!(sub_url, "deleting wiki page");
        self.delete_optional(&path).await
    }

    /// One page (1-based, 50 commits each, newest first) of a page's history.
    pub async fn wiki_page_revisions(
        &self,
        sub_url: &str,
        page: u32,
    ) -> Result<WikiCommitList, GiteaError> {
        let path = self.repo_path(&format!("/wiki/revisions/{}", checked_sub_url(sub_url)?));
        let query = [("page", page.max(1).to_string())];
        self.get(&path, &query).await
    }
}

/// A title Gitea would reject or silently rename is refused before sending.
fn check_title(title: &str) -> Result<(), GiteaError> {
    if title.trim().is_empty() {
        return Err(GiteaError::Invalid(
            "a wiki page needs a non-empty title (Gitea renames untitled pages to `unnamed`)"
                .into(),
        ));
    }
    if is_reserved_title(title) {
        return Err(GiteaError::Invalid(format!(
            "{title:?} is a reserved wiki page name in Gitea"
        )));
    }
    Ok(())
}

/// A `sub_url` goes into the path verbatim, so it must be one escaped segment.
fn checked_sub_url(sub_url: &str) -> Result<&str, GiteaError> {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_.~%+".contains(c);
    if sub_url.is_empty() || sub_url == "." || sub_url == ".." || !sub_url.chars().all(plain) {
        return Err(GiteaError::Invalid(format!(
            "{sub_url:?} is not an escaped wiki sub_url; compute it with page_name::title_to_sub_url"
        )));
    }
    Ok(sub_url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_and_sub_urls_are_checked_before_sending() {
        assert!(check_title("  ").is_err());
        assert!(check_title("_new").is_err());
        assert!(check_title("Getting Started").is_ok());
        assert!(checked_sub_url("2024-05-01+Meeting.-").is_ok());
        assert!(checked_sub_url("Caf%C3%A9-Menu").is_ok());
        for bad in ["", "..", "a/b", "a b", "a?b", "a#b", "é"] {
            assert!(checked_sub_url(bad).is_err(), "{bad:?}");
        }
    }
}
