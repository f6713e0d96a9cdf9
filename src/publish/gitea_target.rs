//! The Gitea target: one list of the wiki, a read of the few pages whose
//! last commit is not ours, the plan, then one write per changed page (sent
//! one at a time, as Gitea serialises wiki writes anyway), recorded in the
//! publish state as each answer comes back.

use super::plan::{self, ActionKind, PublishPlan, RemotePage, RemoteWiki};
use super::state::{PageRecord, TargetState};
use super::{PageOutcome, PublishError, WriteResult};
use crate::gitea::GiteaClient;
use crate::render::{Site, content_hash};
use std::collections::HashMap;

/// Writes between two saves of the publish state during a long publish.
const SAVE_EVERY: usize = 20;

/// What the wiki holds: every page's last commit, from the (paged) list.
async fn snapshot(client: &GiteaClient) -> Result<RemoteWiki, PublishError> {
    let listed = client.list_wiki_pages().await?;
    Ok(listed
        .into_iter()
        .map(|meta| {
            let last_commit = meta.last_commit.map(|c| c.sha).filter(|s| !s.is_empty());
            (
                meta.sub_url,
                RemotePage {
                    last_commit,
                    content_hash: None,
                },
            )
        })
        .collect())
}

/// Plans against the live wiki and, unless `dry_run`, carries the plan out.
/// `progress(done, total)` is called after each write; `save` with the state
/// every few writes, so an interrupted publish loses little.
// Eight: the daemon's stop flag joined the seven; a struct for three flags
// would only move the list.
#[allow(clippy::too_many_arguments)]
pub async fn publish(
    client: &GiteaClient,
    site: &Site,
    state: &mut TargetState,
    dry_run: bool,
    force: bool,
    stop: Option<&std::sync::atomic::AtomicBool>,
    progress: &mut dyn FnMut(usize, usize),
    save: &mut dyn FnMut(&TargetState),
) -> Result<(PublishPlan, Vec<PageOutcome>), PublishError> {
    let mut remote = snapshot(client).await?;
    let mut read_errors: HashMap<String, String> = HashMap::new();
    for sub_url in plan::pages_to_read(&site.pages, state, &remote) {
        match client.get_wiki_page(&sub_url).await {
            Ok(Some(page)) => {
                let hash = page.content().ok().map(|bytes| content_hash(&bytes));
                if let Some(found) = remote.get_mut(&sub_url) {
                    found.content_hash = hash;
                    if let Some(sha) = page.last_commit_sha().filter(|s| !s.is_empty()) {
                        found.last_commit = Some(sha.to_string());
                    }
                }
            }
            Ok(None) => {
                remote.remove(&sub_url);
            }
            Err(e) => {
                read_errors.insert(sub_url, e.to_string());
            }
        }
    }
    let plan = plan::plan(&site.pages, &site.withheld, state, &remote, force);
    let mut outcomes = Vec::with_capacity(plan.actions.len());
    let total = plan.writes();
    let mut done = 0;
    for action in &plan.actions {
        let page = action.page.and_then(|i| site.pages.get(i));
        let mut outcome = PageOutcome::planned(action);
        if let Some(error) = read_errors.get(&action.sub_url)
            && action.kind == ActionKind::Kept
        {
            outcome.result =
                WriteResult::Failed(format!("could not read the page to check it: {error}"));
            outcomes.push(outcome);
            continue;
        }
        if dry_run {
            outcomes.push(outcome);
            continue;
        }
        if action.sends_request()
            && stop.is_some_and(|s| s.load(std::sync::atomic::Ordering::SeqCst))
        {
            outcome.result = WriteResult::Failed(
                "not sent: publishing stopped at a safe point (the daemon is exiting); the next publish sends it".into(),
            );
            outcomes.push(outcome);
            continue;
        }
        let message = format!("learnsync publish: {}", action.title);
        let result = match (action.kind, page) {
            (ActionKind::Create | ActionKind::Update, Some(page)) => {
                let record = state
                    .pages
                    .entry(action.key.clone())
                    .or_insert_with(|| PageRecord {
                        title: page.title.clone(),
                        sub_url: page.sub_url.clone(),
                        ..PageRecord::default()
                    });
                record.attempt(&page.hash);
                let sent = if action.kind == ActionKind::Create {
                    client
                        .upsert_wiki_page(&page.title, page.content.as_bytes(), Some(&message))
                        .await
                        .map(|u| u.page)
                } else {
                    let from = action.from_sub_url.as_deref().unwrap_or(&page.sub_url);
                    client
                        .edit_wiki_page(from, &page.title, page.content.as_bytes(), Some(&message))
                        .await
                };
                done += 1;
                match sent {
                    Ok(answer) => {
                        let sub_url = Some(answer.meta.sub_url.clone())
                            .filter(|s| !s.is_empty())
                            .unwrap_or_else(|| page.sub_url.clone());
                        *record = PageRecord {
                            title: page.title.clone(),
                            sub_url,
                            content_hash: Some(page.hash.clone()),
                            last_commit: answer.last_commit_sha().map(str::to_string),
                            attempted: Vec::new(),
                        };
                        WriteResult::Done
                    }
                    Err(e) => WriteResult::Failed(e.to_string()),
                }
            }
            (ActionKind::Delete, _) if action.remote_present => {
                done += 1;
                match client.delete_wiki_page(&action.sub_url).await {
                    Ok(_) => {
                        state.pages.remove(&action.key);
                        WriteResult::Done
                    }
                    Err(e) => WriteResult::Failed(e.to_string()),
                }
            }
            (ActionKind::Delete, _) => {
                state.pages.remove(&action.key);
                WriteResult::Done
            }
            (ActionKind::Unchanged, Some(page)) => {
                if let Some(sha) = &action.adopt_commit {
                    state.pages.insert(
                        action.key.clone(),
                        PageRecord {
                            title: page.title.clone(),
                            sub_url: page.sub_url.clone(),
                            content_hash: Some(page.hash.clone()),
                            last_commit: Some(sha.clone()).filter(|s| !s.is_empty()),
                            attempted: Vec::new(),
                        },
                    );
                }
                WriteResult::Done
            }
            _ => WriteResult::Done,
        };
        if action.sends_request() {
            progress(done, total);
            if done % SAVE_EVERY == 0 {
                save(state);
            }
        }
        outcome.result = result;
        outcomes.push(outcome);
    }
    Ok((plan, outcomes))
}
