//! `learnsync review`: one idempotent pass over the hub's Gitea repository
//! (DESIGN §8). It reads what is open and what closed since the last pass,
//! decides with the pure plan of `crate::review_rules`, and carries it out:
//! proposes L2 learnings on `review/<id>` branches with one contents
//! request each and a pull request, follows edits, withdraws what is no
//! longer needed, records a person's close as a rejection and an open
//! `learning-problem` issue as a pull from the wiki and suggestions (both
//! committed in the learnings repo, then shared by a sync), and keeps one
//! queue issue. A pass with nothing new sends no write and three reads.
//!
//! Safety rules: a failed read of the open reviews means no writes at all;
//! a failed read of the problem reports means none is added or removed; the
//! queue issue is never created when looking for it failed; `--dry-run`
//! sends no write; every write is found again by its marker when retried.

mod changes;
mod pass;
mod text;
mod writes;

use crate::config::Config;
use crate::config::GiteaUse;
use crate::gitea::{
    ClientOptions, CreateIssueOption, CreateLabelOption, CreatePullRequestOption, EditIssueOption,
    EditPullRequestOption, FileOptions, FileOutcome, GiteaClient, GiteaError, IssueFilter,
    IssueKind, IssueLabels, PullFilter, PullOutcome, PullRequest, State, StateFilter,
};
use crate::learning::{Learning, TrustLevel};
use crate::problem::Problem;
use crate::review_rules::{
    self, Action, Candidate, CloseCause, Limits, OpenReview, PROBLEM_LABEL, Pulled, REVIEW_LABEL,
    Rejection, Review, SUPERSEDED_LABEL,
};
use crate::store::{LearningsDir, ReviewCache, Tracked};
use crate::timestamp::Timestamp;
use changes::Change;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// How long a pass may go on listing only what changed before it lists
/// everything open again (a safety net; what changed is enough).
const FULL_LISTING_EVERY_SECS: i64 = 24 * 60 * 60;

/// How long a branch-protection check is trusted.
const PREFLIGHT_EVERY_SECS: i64 = 24 * 60 * 60;

/// How to run a pass.
#[derive(Debug, Clone, Default)]
pub struct ReviewOptions {
    /// Plan and report; send no write, write no record.
    pub dry_run: bool,
    pub client: ClientOptions,
    /// Passed to the sync that shares the pass's records (the daemon's
    /// SIGTERM): it stops at a safe point, the next sync does the rest.
    pub stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

/// One thing the pass did (or, in a dry run, would do).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Done {
    pub learning: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pull_request: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub issue: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// What a pass did.
#[derive(Debug, Default, Serialize)]
pub struct ReviewReport {
    pub dry_run: bool,
    pub proposed: Vec<Done>,
    pub followed: Vec<Done>,
    pub withdrawn: Vec<Done>,
    pub approved: Vec<Done>,
    pub rejected: Vec<Done>,
    pub pulled: Vec<Done>,
    pub restored: Vec<Done>,
    /// Rejection records Gitea does not confirm, removed.
    pub unconfirmed: Vec<Done>,
    /// Approvals their outcomes since question (§5.1): a learning-problem
    /// issue opened for each.
    pub questioned: Vec<Done>,
    pub held_back: Vec<String>,
    pub open_reviews: usize,
    /// Branch protection and other things a maintainer should fix.
    pub warnings: Vec<String>,
    /// Steps that failed; the rest went through (exit 3).
    pub errors: Vec<String>,
    /// Stopped at a safe point before the end (the daemon's SIGTERM).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub stopped: bool,
    /// The sync that shared the records this pass wrote, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sync: Option<crate::sync::SyncReport>,
}

impl ReviewReport {
    pub fn is_partial(&self) -> bool {
        !self.errors.is_empty() || self.sync.as_ref().is_some_and(|s| s.is_partial())
    }
}

/// Why a pass could not run at all.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error(transparent)]
    Missing(#[from] crate::config::MissingSetting),
    #[error(transparent)]
    Template(#[from] crate::render::TemplateError),
    #[error("{0}")]
    Gitea(#[from] GiteaError),
    #[error("{0}")]
    Git(#[from] crate::repo::GitError),
    #[error("{0}")]
    Sync(#[from] crate::sync::SyncError),
    #[error("{0}")]
    Other(String),
}

/// One review pass over the configured hub.
pub fn run(
    dir: &LearningsDir,
    config: &Config,
    options: &ReviewOptions,
) -> Result<ReviewReport, ReviewError> {
    let (url, repo_ref) = config.gitea_settings(GiteaUse::Review)?;
    let token = config.token_source(GiteaUse::Review)?.resolve()?;
    let hub_key = format!("{} {repo_ref}", url.trim().trim_end_matches('/'));
    let client = GiteaClient::new(&url, repo_ref, Some(token), options.client.clone())?;
    // The hub's main as it is now: a merge a person just made must not look
    // like a learning without a review.
    let repo = crate::repo::Repo::open(&dir.root)?.with_identity(&config.identity())?;
    if let Some(hub) = config.hub_name()
        && repo.remote_names().iter().any(|r| r == hub)
        && let Err(e) = repo.fetch(
            hub,
            crate::sync::remotes::http_auths(&repo, config, &[hub]).get(hub),
        )
    {
        tracing::warn!("could not fetch {hub} before reviewing: {e}");
    }
    let cache_path = dir.state().review_state();
    let mut cache = ReviewCache::read(&cache_path, &hub_key);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| ReviewError::Other(format!("cannot start the async runtime: {e}")))?;
    let mut report = ReviewReport {
        dry_run: options.dry_run,
        ..ReviewReport::default()
    };
    let pass = Pass {
        client: &client,
        dir,
        config,
        dry_run: options.dry_run,
        stop: options.stop.as_deref(),
    };
    let wrote = runtime.block_on(pass.run(&mut cache, &mut report))?;
    if !options.dry_run {
        if let Err(e) = cache.save(&cache_path) {
            tracing::warn!("review state not saved ({e}); the next pass reads more");
        }
        if wrote {
            // Share the records now: every machine honours them after its sync.
            let sync = crate::sync::run(
                config,
                &crate::sync::SyncOptions {
                    fetch: true,
                    push: true,
                    wait: std::time::Duration::from_secs(config.lock_wait_secs.value),
                    watcher: None,
                    stop: options.stop.clone(),
                    progress: None,
                    // It commits the records anyway: events go with them.
                    batch: None,
                    on_head: Some(crate::indexes::keeper(
                        config,
                        crate::indexes::FirstBuild::Here,
                    )),
                },
            )?;
            report.sync = Some(sync);
        }
    }
    Ok(report)
}

struct Pass<'a> {
    client: &'a GiteaClient,
    dir: &'a LearningsDir,
    config: &'a Config,
    dry_run: bool,
    stop: Option<&'a std::sync::atomic::AtomicBool>,
}

/// An open review pull request of ours.
#[derive(Clone)]
struct Open {
    pull: PullRequest,
    id: String,
    hash: String,
}

/// A review pull request of ours: its marker names the learning version,
/// and its head is that learning's review branch.
/// Whether the pass sent Gitea anything that comes back in a listing.
fn wrote_to_gitea(report: &ReviewReport) -> bool {
    !(report.proposed.is_empty()
        && report.followed.is_empty()
        && report.withdrawn.is_empty()
        && report.rejected.is_empty()
        && report.pulled.is_empty()
        && report.approved.is_empty()
        && report.questioned.is_empty())
}

fn ours(pull: PullRequest) -> Option<Open> {
    let (id, hash) = review_rules::parse_marker(&pull.body, "review")?;
    let (id, hash) = (id.to_string(), hash.to_string());
    (pull.head_ref() == review_rules::review_branch(&id)).then_some(Open { pull, id, hash })
}

/// The warning `main`'s protection calls for, if any.
/// What `doctor` learnt from Gitea: the scopes the token lacks, what is
/// wrong with main's protection, the other agents' branches it can push.
type Checked = (Vec<String>, Option<String>, Vec<String>);

/// Other agents' branches `doctor` asks Gitea about, at most.
pub const AGENT_BRANCHES_CHECKED: usize = 20;

/// What it means that learnsync's token can push `pushable` (of `asked`
/// other agents' branches).
fn agent_branches_warning(pushable: &[String], asked: usize) -> Option<String> {
    if pushable.is_empty() {
        return None;
    }
    let unasked = asked.saturating_sub(AGENT_BRANCHES_CHECKED);
    let more = if unasked > 0 {
        format!(" ({unasked} more not checked)")
    } else {
        String::new()
    };
    Some(format!(
        "learnsync's token can push other agents' branches ({}){more}, so any agent holding a token like it can write as another agent: give each agent its own Gitea user and a protection rule per agents/<name> whose push whitelist is that user, or give each agent a signing_key in the roster on main",
        pushable.join(", ")
    ))
}

fn protection_warning(main: &crate::gitea::Branch) -> Option<String> {
    if !main.protected {
        return Some(
            "the hub's main is not protected, so anyone who can push can forge an approval: \
             in the repository's Settings → Branches, add a protection rule for main that \
             disables push and limits merging to the reviewers"
                .into(),
        );
    }
    if main.user_can_push {
        return Some(
            "learnsync's token can push to the hub's main, so it could write an approval itself: \
             in Settings → Branches → main, disable push or leave the bot out of the push whitelist"
                .into(),
        );
    }
    if main.user_can_merge {
        return Some(
            "learnsync's token can merge into the hub's main, so it could approve its own reviews: \
             in Settings → Branches → main, enable the merge whitelist and leave the bot out of it"
                .into(),
        );
    }
    None
}

/// Learning ids a text names (an issue's title and body).
fn learning_ids(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| {
            w.len() > "learning-".len()
                && w.starts_with("learning-")
                && crate::paths::validate_id(w).is_ok()
        })
        .map(str::to_string)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The record files of a folder of the work tree: path → text.
fn record_files(root: &std::path::Path, dir: &str) -> BTreeMap<String, String> {
    let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
        return BTreeMap::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            if !name.ends_with(".yaml") {
                return None;
            }
            let rel = format!("{dir}/{name}");
            Some((rel, std::fs::read_to_string(e.path()).ok()?))
        })
        .collect()
}

fn base64_of(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn done(id: &str, pull_request: Option<u64>) -> Done {
    Done {
        learning: id.to_string(),
        pull_request,
        issue: None,
        why: None,
    }
}

fn invalid(e: crate::paths::NameError) -> GiteaError {
    GiteaError::Invalid(e.to_string())
}

fn describe(action: &Action) -> String {
    match action {
        Action::Propose { id } => format!("proposing {id}"),
        Action::Follow { number, id, .. } => format!("following #{number} ({id})"),
        Action::Withdraw { number, id, .. } => format!("withdrawing #{number} ({id})"),
    }
}

/// `doctor`'s checks of the hub's Gitea (when one is configured), asked of
/// Gitea now, so they tell the truth before any review ran: the token's
/// scopes against what `publish` and `review` need, and `main`'s protection.
/// `others`: the hub's agent branches this clone does not write as and
/// the roster gives no signing key (§6.1): if learnsync's token can push
/// them, so can any agent holding a token like it, and ownership is only
/// as strong as its honesty. At most [`AGENT_BRANCHES_CHECKED`] are asked.
pub fn protection_problems(config: &Config, others: &[String]) -> Vec<Problem> {
    let Ok((url, repo_ref)) = config.gitea_settings(GiteaUse::Doctor) else {
        return Vec::new();
    };
    let shown = format!("{}/{repo_ref} main", url.trim_end_matches('/'));
    let agents_shown = format!("{}/{repo_ref} agents/*", url.trim_end_matches('/'));
    let server = url.trim_end_matches('/').to_string();
    let checked = (|| -> Result<Checked, ReviewError> {
        let token = config.token_source(GiteaUse::Doctor)?.resolve()?;
        let client = GiteaClient::new(&url, repo_ref, Some(token), ClientOptions::default())?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| ReviewError::Other(e.to_string()))?;
        runtime.block_on(async {
            let scopes = client.token_scopes().await?;
            let lacking = [GiteaUse::Publish, GiteaUse::Review]
                .into_iter()
                .filter_map(|used_by| scope_problem(&scopes, used_by))
                .collect();
            let protection = client
                .get_branch("main")
                .await?
                .and_then(|b| protection_warning(&b));
            let mut pushable = Vec::new();
            for agent in others.iter().take(AGENT_BRANCHES_CHECKED) {
                let branch = crate::paths::agent_branch(agent);
                if client
                    .get_branch(&branch)
                    .await?
                    .is_some_and(|b| b.user_can_push)
                {
                    pushable.push(branch);
                }
            }
            Ok((lacking, protection, pushable))
        })
    })();
    match checked {
        Ok((lacking, protection, pushable)) => lacking
            .into_iter()
            .map(|w| Problem::new(format!("{server} token"), w))
            .chain(protection.map(|w| Problem::new(&shown, w)))
            .chain(
                agent_branches_warning(&pushable, others.len())
                    .map(|w| Problem::new(&agents_shown, w)),
            )
            .collect(),
        Err(e) => vec![Problem::new(
            &shown,
            format!("could not check the token and main's protection: {e}"),
        )],
    }
}

/// What `used_by` cannot do with a token of `scopes`, for a person.
fn scope_problem(scopes: &crate::gitea::TokenScopes, used_by: GiteaUse) -> Option<String> {
    let missing = scopes.missing(used_by.scopes());
    if missing.is_empty() {
        return None;
    }
    let has = match scopes {
        crate::gitea::TokenScopes::Known(have) if !have.is_empty() => have.join(", "),
        _ => "none".into(),
    };
    Some(format!(
        "the token lacks {} that `{}` needs (it has {has}); create a token with {}",
        missing.join(", "),
        used_by.command(),
        used_by.scopes().join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issues_name_learnings_by_id_anywhere_in_their_text() {
        assert_eq!(
            learning_ids(
                "Wrong advice in learning-5f3e-1717. See also (learning-abc) and learning-../x"
            ),
            ["learning-5f3e-1717", "learning-abc"]
        );
        assert!(learning_ids("nothing here").is_empty());
    }

    #[test]
    fn an_unprotected_or_bot_mergeable_main_is_named_with_the_setting() {
        let mut b = crate::gitea::Branch {
            name: "main".into(),
            ..Default::default()
        };
        assert!(protection_warning(&b).is_some_and(|w| w.contains("not protected")));
        b.protected = true;
        b.user_can_merge = true;
        assert!(protection_warning(&b).is_some_and(|w| w.contains("merge whitelist")));
        b.user_can_merge = false;
        assert_eq!(protection_warning(&b), None);
    }
}
