//! The lookup indexes that follow HEAD: the capture hook's
//! (`.git/learnsync/capture-*`) and the search index
//! (`.git/learnsync/search/`). Both are caches of the tree a sync ends on,
//! kept in step by whoever runs the sync (the CLI, the daemon, review)
//! through the hook the cycle accepts ([`crate::sync::SyncOptions::on_head`]),
//! and built by `learnsync index`.
//!
//! A first build reads every learning; on a large dir it outlasts git's
//! whole fetch, merge and push. So the CLI's sync hands a first build of a
//! dir of [`DETACH_FROM`] learnings or more to a detached `learnsync index`,
//! as git leaves its `gc --auto` to a detached process, and returns. That
//! process waits for the sync lock (the cycle that started it holds it),
//! so it builds the tree the cycle ended on and no cycle moves HEAD under
//! it. Until it is done a hook says nothing rather than build one itself,
//! and `suggest`/`query` wait for it.

use crate::config::Config;
use crate::repo::Repo;
use crate::store::{LearningsDir, LockError, SyncLock};
use crate::sync::{HeadMoved, Lap, OnHead};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// A dir of at least this many learnings gets its first build from a
/// detached process when the CLI syncs: at 2,000 the build takes ~0.15 s,
/// at 10,000 ~0.7 s and at 100,000 ~7 s, against git's 1.5 and 5 s for the
/// whole cycle (benches/README.md, issue 32).
pub const DETACH_FROM: usize = 2_000;

/// Where a first build (no index of either kind yet) runs.
#[derive(Debug, Clone)]
pub enum FirstBuild {
    /// In the cycle, while the push runs: the daemon and review, which
    /// nobody waits for at a prompt.
    Here,
    /// In a detached `learnsync index` started from this executable when
    /// the dir holds [`DETACH_FROM`] learnings or more; here otherwise.
    Detached(PathBuf),
}

/// The hook a sync keeps the indexes with.
pub fn keeper(config: &Config, first: FirstBuild) -> OnHead {
    let dir = LearningsDir::new(config.dir.value.clone());
    let hub = config.hub_name().map(str::to_owned);
    OnHead(Arc::new(move |moved: &HeadMoved<'_>| {
        keep(moved, &dir, hub.as_deref(), &first)
    }))
}

/// Brings the capture index and the search index from the tree of
/// `moved.from` to that of `moved.to`. Both are caches: a failure is logged
/// by them, never returned.
/// The view's review records come from `hub`'s `main`.
fn keep(moved: &HeadMoved<'_>, dir: &LearningsDir, hub: Option<&str>, first: &FirstBuild) {
    let repo = moved.repo;
    let mut lap = Lap::start();
    let capture_missing = !crate::capture::index::exists(dir) || moved.changed.is_none();
    if capture_missing && !crate::search::on_disk::exists(dir) {
        // A build this cycle already started (its push was rejected and it
        // merged again) waits for our lock: it will read the final tree.
        if crate::store::index_build_running(&dir.state()) {
            return;
        }
        if let FirstBuild::Detached(exe) = first
            && moved
                .to
                .is_some_and(|to| learnings_at(repo, to) >= DETACH_FROM)
        {
            spawn(exe, dir);
            lap.done("indexes: a detached first build started");
            return;
        }
        build_both(dir, hub, Some(repo));
        lap.done("capture and search indexes");
        return;
    }
    match &moved.changed {
        Some(paths) if !capture_missing => {
            if !paths.is_empty() {
                crate::capture::index::update(dir, hub, paths);
            }
        }
        _ => crate::capture::index::refresh(dir, hub),
    }
    lap.done("capture index");
    if moved.from != moved.to || !crate::search::on_disk::exists(dir) {
        // It reads each events file it reads ahead once: none need stay
        // cached through its fold, the synced-before peak.
        repo.reading_blobs_once(|| crate::search::update(dir, hub, &[], repo));
        lap.done("search index");
    }
}

/// Both indexes built whole from one read of HEAD's tree (through `repo`
/// when given, so a sync's mapped packs are not mapped twice).
fn build_both(dir: &LearningsDir, hub: Option<&str>, repo: Option<&Repo>) -> Option<usize> {
    let mut capture = crate::capture::index::Rebuild::start(dir);
    let built = crate::search::on_disk::rebuild_seeing(dir, hub, &mut |l| capture.add(l), repo);
    if let Some(repo) = repo {
        repo.release_caches();
    }
    match built {
        Ok((report, true)) => {
            capture.finish();
            Some(report.learnings)
        }
        // Built from the view, or not at all: the capture index reads the
        // view itself.
        other => {
            let learnings = match other {
                Ok((report, _)) => Some(report.learnings),
                Err(e) => {
                    tracing::warn!("search index not built ({e}); the next query builds it");
                    None
                }
            };
            drop(capture);
            crate::capture::index::refresh(dir, hub);
            learnings
        }
    }
}

/// Learning files in a commit's tree, counted from its folders' listings
/// (no blob is read).
fn learnings_at(repo: &Repo, commit: gix::ObjectId) -> usize {
    let count = || -> Result<usize, crate::repo::GitError> {
        let root = repo.tree(repo.commit_tree(commit)?)?;
        let mut n = 0;
        for folder in root.entries().filter(|e| e.is_tree) {
            n += repo
                .tree(folder.id)?
                .entries()
                .filter(|e| {
                    let path = format!("{}/{}", folder.name, e.name);
                    matches!(
                        crate::paths::classify(&path),
                        crate::paths::RepoPath::Learning { .. }
                    )
                })
                .count();
        }
        Ok(n)
    };
    count().unwrap_or(0)
}

/// Starts `learnsync index` on `dir`, detached from this process and its
/// terminal; it waits for the sync lock this cycle holds.
fn spawn(exe: &std::path::Path, dir: &LearningsDir) {
    let wait = DETACHED_WAIT.as_secs().to_string();
    let args = [
        "--dir".as_ref(),
        dir.root.as_os_str(),
        "-q".as_ref(),
        "index".as_ref(),
        "--wait".as_ref(),
        wait.as_ref(),
    ];
    let result = crate::store::spawn_detached(exe, &args);
    match result {
        Ok(child) => {
            tracing::debug!("started the first index build (pid {})", child.id());
            // Written under the lock the build waits for: no reader sees
            // neither the mark nor the build.
            let mark = dir.state().index_build_pending();
            if let Err(e) = crate::store::atomic_write(&mark, child.id().to_string().as_bytes()) {
                tracing::debug!("index build not marked ({e}); readers build their own");
            }
        }
        // Nothing lost: the first query builds what is missing.
        Err(e) => {
            tracing::warn!("could not start the index build ({e}); the first query builds it")
        }
    }
}

/// How long a detached build waits for the cycle that started it: a push
/// of a large first cycle can take minutes on a slow link.
const DETACHED_WAIT: Duration = Duration::from_secs(900);

/// What `learnsync index` did.
#[derive(Debug, Serialize)]
pub struct Built {
    /// Learnings the search index holds: those that can be suggested (a
    /// correction, L1 or above, not rejected; §9).
    pub learnings: usize,
    pub millis: u128,
}

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("{0} is not a learnings dir (no .git); run `learnsync init` first")]
    NotInitialised(String),
    #[error("{0}")]
    Lock(#[from] LockError),
    #[error("the search index was not built (see the warning above); the next query tries again")]
    NotBuilt,
}

/// `learnsync index`: builds both indexes whole from HEAD, under the sync
/// lock (waiting up to `wait` for a cycle that holds it).
pub fn build(config: &Config, wait: Duration) -> Result<Built, IndexError> {
    let started = std::time::Instant::now();
    let dir = LearningsDir::new(config.dir.value.clone());
    if !dir.is_initialised() {
        return Err(IndexError::NotInitialised(dir.root.display().to_string()));
    }
    let _lock = SyncLock::acquire(&dir.state().sync_lock(), wait, crate::store::INDEX_BUILD)?;
    let learnings = build_both(&dir, config.hub_name(), None);
    let _ = std::fs::remove_file(dir.state().index_build_pending());
    let learnings = learnings.ok_or(IndexError::NotBuilt)?;
    Ok(Built {
        learnings,
        millis: started.elapsed().as_millis(),
    })
}
