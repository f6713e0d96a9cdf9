//! The publish plan, purely: given the pages the wiki should hold, what the
//! publish state says we wrote, and what the wiki holds now, decide per page
//! create / update / delete / unchanged / keep (a person's edit), and which
//! pages must be read first to tell our own landed writes from a person's.

use super::state::{PageRecord, TargetState};
use crate::render::{Page, PageKind, Withheld};
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// What the wiki holds at one `sub_url`, as far as we looked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RemotePage {
    /// The last commit that touched the page (gitea target; the list gives it).
    pub last_commit: Option<String>,
    /// Hash of the page's bytes, once read.
    pub content_hash: Option<String>,
}

/// The wiki's pages by `sub_url`.
pub type RemoteWiki = HashMap<String, RemotePage>;

/// What happens to one page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ActionKind {
    Create,
    Update,
    Delete,
    Unchanged,
    /// Left alone: a person changed it since we published (no `--force`).
    Kept,
}

impl ActionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ActionKind::Create => "create",
            ActionKind::Update => "update",
            ActionKind::Delete => "delete",
            ActionKind::Unchanged => "unchanged",
            ActionKind::Kept => "kept",
        }
    }

    /// Whether carrying it out may send a write.
    pub fn writes(self) -> bool {
        matches!(
            self,
            ActionKind::Create | ActionKind::Update | ActionKind::Delete
        )
    }
}

/// One step of the plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Action {
    pub key: String,
    pub kind: ActionKind,
    pub title: String,
    /// The page's name after the action (for a delete: the page deleted).
    pub sub_url: String,
    /// Update only: the page's current name when the update renames it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_sub_url: Option<String>,
    /// Index into the desired pages, for create, update and unchanged.
    #[serde(skip)]
    pub page: Option<usize>,
    /// Delete only: false when the page is already gone (no request needed).
    #[serde(skip)]
    pub remote_present: bool,
    /// Unchanged only: a commit to record, when the state lagged behind the
    /// wiki (our own write landed but its answer was lost).
    #[serde(skip)]
    pub adopt_commit: Option<String>,
    /// Why, when it is not obvious (kept pages, forced overwrites).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Every action of one publish, learning pages first, then index pages, then deletes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PublishPlan {
    pub actions: Vec<Action>,
}

impl PublishPlan {
    pub fn count(&self, kind: ActionKind) -> usize {
        self.actions.iter().filter(|a| a.kind == kind).count()
    }

    /// Actions that send a request when carried out.
    pub fn writes(&self) -> usize {
        self.actions.iter().filter(|a| a.sends_request()).count()
    }
}

impl Action {
    /// Whether carrying it out sends a write (a delete of a page that is
    /// already gone does not).
    pub fn sends_request(&self) -> bool {
        self.kind.writes() && (self.kind != ActionKind::Delete || self.remote_present)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owner {
    Us,
    Person,
    /// The commit differs and the content was not read yet.
    Unknown,
}

/// Whose the page at `remote` is. Ours when the wiki still shows the commit
/// our last confirmed write returned, or when its bytes are bytes we wrote,
/// tried to write, or are about to write (a write that landed although its
/// answer was an error looks exactly like that).
fn owner(record: Option<&PageRecord>, remote: &RemotePage, desired: Option<&str>) -> Owner {
    if let Some(r) = record
        && r.last_commit.is_some()
        && r.last_commit == remote.last_commit
    {
        return Owner::Us;
    }
    match &remote.content_hash {
        Some(h) if desired == Some(h.as_str()) || record.is_some_and(|r| r.knows(h)) => Owner::Us,
        Some(_) => Owner::Person,
        None => Owner::Unknown,
    }
}

/// Where a desired page lives now: its old name (a rename) or its new one.
fn locate<'a>(
    page: &Page,
    record: Option<&PageRecord>,
    remote: &'a RemoteWiki,
) -> Option<(String, &'a RemotePage)> {
    if let Some(r) = record
        && r.sub_url != page.sub_url
        && let Some(found) = remote.get(&r.sub_url)
    {
        return Some((r.sub_url.clone(), found));
    }
    remote
        .get(&page.sub_url)
        .map(|found| (page.sub_url.clone(), found))
}

/// The `sub_url`s whose content must be read before [`plan`] can tell whose
/// they are: their commit is not the one we recorded.
pub fn pages_to_read(pages: &[Page], state: &TargetState, remote: &RemoteWiki) -> Vec<String> {
    let mut out = Vec::new();
    let desired: HashSet<&str> = pages.iter().map(|p| p.key.as_str()).collect();
    for page in pages {
        let record = state.pages.get(&page.key);
        if let Some((at, found)) = locate(page, record, remote)
            && owner(record, found, Some(&page.hash)) == Owner::Unknown
        {
            out.push(at);
        }
    }
    for (key, record) in &state.pages {
        if !desired.contains(key.as_str())
            && let Some(found) = remote.get(&record.sub_url)
            && owner(Some(record), found, None) == Owner::Unknown
        {
            out.push(record.sub_url.clone());
        }
    }
    out.sort();
    out.dedup();
    out
}

const PERSON_EDIT: &str =
    "edited on the wiki since learnsync last published it; left alone (--force overwrites)";
const FOREIGN_PAGE: &str =
    "a page with this name exists that learnsync did not publish; left alone (--force overwrites)";

/// Decides what to do with every page. `withheld` pages keep whatever they
/// had (their old page is neither updated nor deleted).
pub fn plan(
    pages: &[Page],
    withheld: &[Withheld],
    state: &TargetState,
    remote: &RemoteWiki,
    force: bool,
) -> PublishPlan {
    let mut actions = Vec::new();
    let mut index_actions = Vec::new();
    for (i, page) in pages.iter().enumerate() {
        let record = state.pages.get(&page.key);
        let base = Action {
            key: page.key.clone(),
            kind: ActionKind::Create,
            title: page.title.clone(),
            sub_url: page.sub_url.clone(),
            from_sub_url: None,
            page: Some(i),
            remote_present: false,
            adopt_commit: None,
            note: None,
        };
        let action = match locate(page, record, remote) {
            None => base,
            Some((at, found)) => {
                let whose = owner(record, found, Some(&page.hash));
                let same_name = at == page.sub_url;
                let same_bytes = found.content_hash.as_deref() == Some(page.hash.as_str())
                    || record.is_some_and(|r| {
                        r.last_commit.is_some()
                            && r.last_commit == found.last_commit
                            && r.content_hash.as_deref() == Some(page.hash.as_str())
                    });
                if whose != Owner::Us && !force {
                    Action {
                        kind: ActionKind::Kept,
                        sub_url: at,
                        note: Some(
                            if record.is_some() {
                                PERSON_EDIT
                            } else {
                                FOREIGN_PAGE
                            }
                            .to_string(),
                        ),
                        ..base
                    }
                } else if same_name && same_bytes {
                    let recorded = record.and_then(|r| r.last_commit.as_ref());
                    let confirmed = record.and_then(|r| r.content_hash.as_deref());
                    let adopt = (recorded != found.last_commit.as_ref()
                        || confirmed != Some(page.hash.as_str()))
                    .then(|| found.last_commit.clone().unwrap_or_default());
                    Action {
                        kind: ActionKind::Unchanged,
                        adopt_commit: adopt,
                        ..base
                    }
                } else {
                    Action {
                        kind: ActionKind::Update,
                        from_sub_url: (!same_name).then_some(at),
                        note: (whose != Owner::Us)
                            .then(|| "overwrites a change made on the wiki (--force)".to_string()),
                        ..base
                    }
                }
            }
        };
        match page.kind {
            PageKind::Learning => actions.push(action),
            PageKind::Index => index_actions.push(action),
        }
    }
    actions.extend(index_actions);

    let desired: HashSet<&str> = pages.iter().map(|p| p.key.as_str()).collect();
    let held: HashSet<&str> = withheld.iter().map(|w| w.key.as_str()).collect();
    for (key, record) in &state.pages {
        if desired.contains(key.as_str()) || held.contains(key.as_str()) {
            continue;
        }
        let base = Action {
            key: key.clone(),
            kind: ActionKind::Delete,
            title: record.title.clone(),
            sub_url: record.sub_url.clone(),
            from_sub_url: None,
            page: None,
            remote_present: false,
            adopt_commit: None,
            note: None,
        };
        actions.push(match remote.get(&record.sub_url) {
            None => Action {
                note: Some("already gone from the wiki".into()),
                ..base
            },
            Some(found) => {
                if owner(Some(record), found, None) == Owner::Us || force {
                    Action {
                        remote_present: true,
                        ..base
                    }
                } else {
                    Action {
                        kind: ActionKind::Kept,
                        note: Some(
                            "no longer published, but edited on the wiki since; not deleted (--force deletes)"
                                .into(),
                        ),
                        ..base
                    }
                }
            }
        });
    }
    PublishPlan { actions }
}

#[cfg(test)]
mod tests;
