//! The `git-wiki` target: the same pages pushed as one commit to any
//! `<repo>.wiki.git` (Gitea, GitHub, GitLab) with the `git` CLI, from a
//! temporary clone; files are named exactly as Gitea names them. Nothing
//! changed → no commit, no push.

use super::plan::{self, ActionKind, PublishPlan, RemotePage, RemoteWiki};
use super::state::{PageRecord, TargetState};
use super::{PageOutcome, PublishError, WriteResult};
use crate::gitea::page_name::{git_path_to_sub_url, sub_url_to_git_path, title_to_git_path};
use crate::render::{Site, content_hash};
use crate::repo::Identity;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where and as whom to push.
#[derive(Debug, Clone)]
pub struct GitWiki {
    /// Any URL or path `git clone` accepts.
    pub url: String,
    /// The wiki branch; default: the remote's HEAD.
    pub branch: Option<String>,
    pub identity: Identity,
}

/// A temporary clone, removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn git(dir: Option<&Path>, args: &[&str]) -> Result<String, PublishError> {
    let mut cmd = Command::new("git");
    if let Some(dir) = dir {
        cmd.arg("-C").arg(dir);
    }
    let out = cmd
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .map_err(|e| PublishError::Git(format!("cannot run git (is it on PATH?): {e}")))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(PublishError::Git(
            crate::redact::redact(&format!(
                "git {} failed: {}",
                args.first().copied().unwrap_or(""),
                stderr.trim()
            ))
            .into_owned(),
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The wiki's root `.md` files, by the `sub_url` Gitea would list them under.
fn snapshot(root: &Path) -> Result<RemoteWiki, PublishError> {
    let mut remote = RemoteWiki::new();
    let entries = std::fs::read_dir(root)
        .map_err(|e| PublishError::Git(format!("cannot read the wiki clone: {e}")))?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let Some(sub_url) = git_path_to_sub_url(&name) else {
            continue;
        };
        let bytes = std::fs::read(entry.path())
            .map_err(|e| PublishError::Git(format!("cannot read {name} in the wiki clone: {e}")))?;
        remote.insert(
            sub_url,
            RemotePage {
                last_commit: None,
                content_hash: Some(content_hash(&bytes)),
            },
        );
    }
    Ok(remote)
}

/// Clones, plans, writes the files, commits once and pushes.
pub fn publish(
    wiki: &GitWiki,
    site: &Site,
    state: &mut TargetState,
    dry_run: bool,
    force: bool,
) -> Result<(PublishPlan, Vec<PageOutcome>), PublishError> {
    let scratch = Scratch(
        std::env::temp_dir().join(format!("learnsync-wiki-{}", uuid::Uuid::new_v4().simple())),
    );
    let root = scratch.0.clone();
    let root_text = root.to_string_lossy().into_owned();
    git(
        None,
        &["clone", "--quiet", "--no-tags", &wiki.url, &root_text],
    )?;
    let branch = match &wiki.branch {
        Some(b) => {
            let remote_ref = format!("refs/remotes/origin/{b}");
            if git(
                Some(&root),
                &["rev-parse", "--verify", "--quiet", &remote_ref],
            )
            .is_ok()
            {
                git(Some(&root), &["checkout", "--quiet", "-B", b, &remote_ref])?;
            } else {
                git(Some(&root), &["checkout", "--quiet", "--orphan", b])?;
                git(Some(&root), &["rm", "-rfq", "--ignore-unmatch", "."])?;
            }
            b.clone()
        }
        None => git(Some(&root), &["symbolic-ref", "--short", "HEAD"])?,
    };

    let remote = snapshot(&root)?;
    let plan = plan::plan(&site.pages, &site.withheld, state, &remote, force);
    let mut outcomes: Vec<PageOutcome> = plan.actions.iter().map(PageOutcome::planned).collect();
    if dry_run || plan.writes() == 0 {
        if !dry_run {
            record(&plan, site, state, &mut outcomes);
        }
        return Ok((plan, outcomes));
    }

    let file_error =
        |e: std::io::Error| PublishError::Git(format!("cannot write the wiki clone: {e}"));
    for action in &plan.actions {
        let page = action.page.and_then(|i| site.pages.get(i));
        match (action.kind, page) {
            (ActionKind::Create | ActionKind::Update, Some(page)) => {
                if let Some(from) = &action.from_sub_url {
                    let old = root.join(sub_url_to_git_path(from));
                    if old.is_file() {
                        std::fs::remove_file(old).map_err(file_error)?;
                    }
                }
                std::fs::write(root.join(title_to_git_path(&page.title)), &page.content)
                    .map_err(file_error)?;
            }
            (ActionKind::Delete, _) if action.remote_present => {
                let path = root.join(sub_url_to_git_path(&action.sub_url));
                if path.is_file() {
                    std::fs::remove_file(path).map_err(file_error)?;
                }
            }
            _ => {}
        }
    }
    git(Some(&root), &["add", "--all", "--", "."])?;
    let changed = git(Some(&root), &["diff", "--cached", "--quiet"]).is_err();
    if changed {
        let message = format!(
            "learnsync publish: {} created, {} updated, {} deleted",
            plan.count(ActionKind::Create),
            plan.count(ActionKind::Update),
            plan.count(ActionKind::Delete)
        );
        let name = format!("user.name={}", wiki.identity.name);
        let email = format!("user.email={}", wiki.identity.email);
        git(
            Some(&root),
            &[
                "-c",
                &name,
                "-c",
                &email,
                "-c",
                "commit.gpgsign=false",
                "commit",
                "--quiet",
                "--no-verify",
                "-m",
                &message,
            ],
        )?;
        let refspec = format!("HEAD:refs/heads/{branch}");
        if let Err(e) = git(Some(&root), &["push", "--quiet", "origin", &refspec]) {
            for (outcome, action) in outcomes.iter_mut().zip(&plan.actions) {
                if action.sends_request() {
                    outcome.result = WriteResult::Failed(e.to_string());
                }
            }
            return Ok((plan, outcomes));
        }
    }
    record(&plan, site, state, &mut outcomes);
    Ok((plan, outcomes))
}

/// After a successful push (or when nothing needed one): the state follows the wiki.
fn record(plan: &PublishPlan, site: &Site, state: &mut TargetState, outcomes: &mut [PageOutcome]) {
    for (action, outcome) in plan.actions.iter().zip(outcomes.iter_mut()) {
        let page = action.page.and_then(|i| site.pages.get(i));
        match (action.kind, page) {
            (ActionKind::Create | ActionKind::Update | ActionKind::Unchanged, Some(page)) => {
                state.pages.insert(
                    action.key.clone(),
                    PageRecord {
                        title: page.title.clone(),
                        sub_url: page.sub_url.clone(),
                        content_hash: Some(page.hash.clone()),
                        last_commit: None,
                        attempted: Vec::new(),
                    },
                );
                outcome.result = WriteResult::Done;
            }
            (ActionKind::Delete, _) => {
                state.pages.remove(&action.key);
                outcome.result = WriteResult::Done;
            }
            _ => outcome.result = WriteResult::Done,
        }
    }
}
