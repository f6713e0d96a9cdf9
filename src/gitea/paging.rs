//! Reading every page of a Gitea list (API-NOTES §f's robust loop): ask for
//! 50 a page, stop on a short page or once `X-Total-Count` items are in —
//! except where Gitea's total counts only the page (the timeline).

use reqwest::Method;
use serde::de::DeserializeOwned;

use super::client::GiteaClient;
use super::error::GiteaError;

/// Items asked for per page: `[api] MAX_RESPONSE_ITEMS`' default. Gitea clamps
/// larger limits to it, so a server configured lower would make full pages
/// look short; the loop then stops early (see [`is_last_page`]).
pub const PAGE_SIZE: u32 = 50;

/// Upper bound on pages fetched, against a server that never says stop.
const MAX_PAGES: u32 = 10_000;

/// What a list's `X-Total-Count` means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Total {
    /// All matching items (issues, pulls, labels, branches).
    All,
    /// Only the items on this page: the timeline sets it to
    /// `len(apiComments)` (routers/api/v1/repo/issue_comment.go), so it must
    /// not be used to stop — a full first page would look like the end.
    ThisPage,
}

/// Whether the page just read is the last one. `seen` counts every item read
/// so far, this page included.
pub(crate) fn is_last_page(
    batch_len: usize,
    seen: usize,
    total: Option<u64>,
    meaning: Total,
) -> bool {
    if batch_len < PAGE_SIZE as usize {
        return true;
    }
    match (meaning, total) {
        (Total::All, Some(total)) => seen as u64 >= total,
        _ => false,
    }
}

impl GiteaClient {
    /// Every item of a paged list at `path` (relative to `/api/v1`), with the
    /// filters in `query`.
    pub(crate) async fn get_all_pages<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, String)],
        meaning: Total,
    ) -> Result<Vec<T>, GiteaError> {
        Ok(self.get_all_pages_at(path, query, meaning).await?.0)
    }

    /// [`Self::get_all_pages`], and the server's clock when it answered the
    /// first page: everything updated after that time is newer than what
    /// the listing can have missed.
    pub(crate) async fn get_all_pages_at<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, String)],
        meaning: Total,
    ) -> Result<(Vec<T>, Option<String>), GiteaError> {
        let mut items = Vec::new();
        let mut first_date = None;
        for page in 1..=MAX_PAGES {
            let mut q: Vec<(&str, String)> = query.to_vec();
            q.push(("page", page.to_string()));
            q.push(("limit", PAGE_SIZE.to_string()));
            let reply = self.send::<()>(Method::GET, path, &q, None, &[]).await?;
            if page == 1 {
                first_date = reply.date.clone();
            }
            let batch: Vec<T> = self.decode(&reply)?;
            let batch_len = batch.len();
            items.extend(batch);
            if is_last_page(batch_len, items.len(), reply.total_count, meaning) {
                break;
            }
        }
        Ok((items, first_date))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loop_stops_on_a_short_page_or_the_total() {
        let full = PAGE_SIZE as usize;
        let cases: &[(usize, usize, Option<u64>, Total, bool)] = &[
            // (batch, seen, X-Total-Count, meaning, last?)
            (0, 0, Some(0), Total::All, true),
            (3, 3, Some(3), Total::All, true),
            (full, full, Some(50), Total::All, true),
            (full, full, Some(51), Total::All, false),
            (full, full, None, Total::All, false),
            (full, 2 * full, Some(120), Total::All, false),
            (20, 120, Some(120), Total::All, true),
            // The timeline's total is the page's own length: never a stop.
            (full, full, Some(50), Total::ThisPage, false),
            (full, 2 * full, Some(50), Total::ThisPage, false),
            (7, 107, Some(7), Total::ThisPage, true),
        ];
        for &(batch, seen, total, meaning, last) in cases {
            assert_eq!(
                is_last_page(batch, seen, total, meaning),
                last,
                "batch={batch} seen={seen} total={total:?} {meaning:?}"
            );
        }
    }
}
