//! Retrieval (§9): `suggest`, `query` and `context` — which learnings an
//! agent or a person should see for a text, or at the start of a session.
//!
//! The pure core: [`tokenize`] (terms), [`kg`] (the knowledge graph, its
//! automaton and co-occurrence ranks), [`doc`] (what a learning becomes),
//! [`postings`] (the index in memory and the source ranking reads),
//! [`rank`] (BM25F + KG + trust + evidence + project, filters, threshold)
//! and [`context`] (the session block). The edges: [`segment`] (the index
//! file) and [`on_disk`] (the index under `.git/learnsync/search/`, kept in
//! step with HEAD). How ranking works, in words: docs/retrieval.md.

pub mod asking;
pub mod build;
pub mod context;
pub mod doc;
pub mod fold;
pub mod frame;
pub mod fresh;
pub mod kg;
pub mod logtext;
pub mod on_disk;
pub mod postings;
pub mod rank;
pub mod segment;
pub mod signature;
pub mod tokenize;
pub mod tuning;

pub use on_disk::{BuildReport, Freshness, HubName};
pub use rank::{Hit, Request, Signals, Tuning};

use crate::config::Config;
use crate::store::LearningsDir;

/// Ranks the dir's learnings for a request, bringing the index to HEAD
/// first. A damaged index is rebuilt and the query asked again.
pub fn search(dir: &LearningsDir, config: &Config, req: &Request<'_>) -> Result<Vec<Hit>, String> {
    search_with(
        dir,
        HubName::Known(config.hub_name()),
        req,
        &Tuning::default(),
        Freshness::CatchUp,
    )
}

/// Learnings an open problem report pulls (`.learnsync/pulled/` in the work
/// tree, §8): never suggested. Names only, no parse: a record can only hide.
pub fn pulled_ids(dir: &LearningsDir) -> std::collections::HashSet<String> {
    let Ok(entries) = std::fs::read_dir(dir.root.join(crate::paths::PULLED_DIR)) else {
        return Default::default();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let rel = format!(
                "{}/{}",
                crate::paths::PULLED_DIR,
                e.file_name().to_string_lossy()
            );
            match crate::paths::classify(&rel) {
                crate::paths::RepoPath::Pulled { id } => Some(id.to_string()),
                _ => None,
            }
        })
        .collect()
}

fn search_with(
    dir: &LearningsDir,
    hub: HubName<'_>,
    req: &Request<'_>,
    tuning: &Tuning,
    freshness: Freshness,
) -> Result<Vec<Hit>, String> {
    let pulled = pulled_ids(dir);
    let with_pulled;
    let req = match req.pulled {
        Some(_) => req,
        None => {
            with_pulled = Request {
                pulled: Some(&pulled),
                ..req.clone()
            };
            &with_pulled
        }
    };
    let opened = fresh::open_fresh(dir, hub, freshness)?;
    match on_disk::with_source(dir, &opened, |s| rank::rank(s, req, tuning)) {
        Ok(hits) => Ok(hits),
        Err(e) => {
            tracing::warn!("{e}; rebuilding the search index");
            drop(opened);
            let hub = hub.read(dir)?;
            on_disk::rebuild(dir, hub.as_deref())?;
            let hub = HubName::Known(hub.as_deref());
            let opened = fresh::open_fresh(dir, hub, Freshness::AsItIs)?;
            on_disk::with_source(dir, &opened, |s| rank::rank(s, req, tuning))
        }
    }
}

/// What a hook shows an agent about to act on `text`: the top learning
/// when it is a confident match (relevance at least
/// [`Tuning::hook_relevance`]), as a short block; `None` otherwise. Never
/// waits for a rebuild of an existing index (a stale one answers); builds
/// one only when there is none. Errors are `None`: a hook must not fail.
pub fn suggest_for_hook(
    dir: &LearningsDir,
    text: &str,
    agent: Option<&str>,
    project: Option<&str>,
) -> Option<(String, doc::Meta)> {
    let tuning = Tuning::default();
    let req = Request {
        text,
        agent,
        project,
        limit: 1,
        ..Request::default()
    };
    let hit = search_with(dir, HubName::Unread, &req, &tuning, Freshness::AsItIs)
        .ok()?
        .into_iter()
        .next()
        .filter(|h| h.relevance >= tuning.hook_relevance)?;
    let m = &hit.meta;
    if m.is_stale(
        stale_after_days(dir),
        crate::timestamp::Timestamp::now().unix(),
    ) {
        return None;
    }
    let text = frame::single(
        "learnsync: a learning matches this prompt.",
        &frame::Provenance::of(m),
        &m.title,
        &m.correction,
    );
    Some((text, hit.meta))
}

/// The most learnings a session block considers: far more than a block
/// holds, so the "more exist" note stays honest, without reading every
/// learning's metadata on a large dir.
const MAX_CONTEXT_CANDIDATES: usize = 200;

/// Days without an event after which a learning leaves the session block
/// and prompt suggestions: the policy the last sync computed with.
fn stale_after_days(dir: &LearningsDir) -> u64 {
    crate::store::hook_policy::load(&dir.state()).stale_after_days
}

/// The session block for an agent and project (see [`context`]), within
/// `max_chars` characters.
pub fn context_block(
    dir: &LearningsDir,
    config: Option<&Config>,
    agent: Option<&str>,
    project: Option<&str>,
    max_chars: usize,
    freshness: Freshness,
) -> Result<context::Block, String> {
    let pulled = pulled_ids(dir);
    let hub = match config {
        Some(c) => HubName::Known(c.hub_name()),
        None => HubName::Unread,
    };
    let opened = fresh::open_fresh(dir, hub, freshness)?;
    let (stale_days, now) = (
        stale_after_days(dir),
        crate::timestamp::Timestamp::now().unix(),
    );
    on_disk::with_source(dir, &opened, |s| {
        let chosen = context::select(s, agent, project, &pulled);
        // Stale learnings leave the block (§9.1); metadata is read only for
        // the first candidates (the rest are counted as "more").
        let mut stale = 0;
        let mut metas: Vec<doc::Meta> = Vec::new();
        for m in chosen.iter().filter_map(|&d| s.meta(d)) {
            if m.is_stale(stale_days, now) {
                stale += 1;
            } else if metas.len() < MAX_CONTEXT_CANDIDATES {
                metas.push(m);
            } else {
                break;
            }
        }
        let total = chosen.len() - stale;
        context::render(metas, total, agent, project, max_chars)
    })
}

/// Brings the index up to date after a sync (see [`fresh::update`]),
/// reading through the sync's repository.
pub fn update(dir: &LearningsDir, hub: Option<&str>, changed: &[String], repo: &crate::repo::Repo) {
    fresh::update(dir, hub, changed, repo)
}

/// The problems of the dir's KG files (`learnsync kg check`).
pub fn check_kg(dir: &LearningsDir) -> Vec<kg::KgProblem> {
    kg::check(&on_disk::kg_files(&dir.root)).1
}
