//! `learnsync review`: one idempotent pass over the hub's Gitea repository
//! (DESIGN §8). It reads what is open and what closed since the last pass,
//! decides with the pure plan of `crate::review`, and carries it out:
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
mod text;

use crate::config::Config;
use crate::config::GiteaUse;
use crate::gitea::{
    ClientOptions, CreateIssueOption, CreateLabelOption, CreatePullRequestOption, EditIssueOption,
    EditPullRequestOption, FileOptions, FileOutcome, GiteaClient, GiteaError, IssueFilter,
    IssueKind, IssueLabels, PullFilter, PullOutcome, PullRequest, State, StateFilter,
};
use crate::learning::{Learning, TrustLevel};
use crate::problem::Problem;
use crate::review::{
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
    if let Some(hub) = config.hub.as_ref().map(|h| h.value.as_str())
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

impl Pass<'_> {
    /// Where a cut pull request body links the whole learning.
    fn full_text(&self, l: &crate::learning::Learning) -> crate::render::limit::FullText {
        let hub = self.config.gitea_settings(GiteaUse::Review).ok();
        crate::render::limit::FullText::of(
            &l.agent_id,
            &l.id,
            hub.as_ref()
                .map(|(url, repo)| (url.as_str(), repo.to_string()))
                .as_ref()
                .map(|(u, r)| (*u, r.as_str())),
        )
    }

    /// The whole pass; true when it wrote record files into the work tree.
    async fn run(
        &self,
        cache: &mut ReviewCache,
        report: &mut ReviewReport,
    ) -> Result<bool, ReviewError> {
        let bot = match &cache.bot {
            Some(b) => b.clone(),
            None => {
                let login = self.client.current_user().await?.login;
                cache.bot = Some(login.clone());
                login
            }
        };
        self.ensure_labels(cache, report).await?;
        self.preflight(cache, report).await;
        let review_label = cache.labels.get(REVIEW_LABEL).copied();

        // 1. What is open, or (with a warm cache) what changed since the
        //    watermark. A failure here stops the pass: no writes.
        let now = Timestamp::now().unix();
        let since = cache.watermark.clone().filter(|_| {
            cache
                .full_at
                .is_some_and(|at| now - at < FULL_LISTING_EVERY_SECS)
        });
        let mut open: Vec<Open> = Vec::new();
        let mut gone: Vec<(u64, Tracked)> = Vec::new();
        // Every change up to the next watermark handled: then it moves on.
        let mut clean = true;
        let next_watermark;
        match &since {
            Some(since) => {
                let (changed, at) = self
                    .client
                    .list_issues_at(&IssueFilter {
                        state: StateFilter::All,
                        since: Some(since.clone()),
                        ..IssueFilter::default()
                    })
                    .await?;
                next_watermark = at;
                for item in &changed {
                    match changes::classify(item, cache, &bot) {
                        None => {}
                        Some(Change::Closed(n)) => {
                            if let Some(t) = cache.open.get(&n) {
                                gone.push((n, t.clone()));
                            }
                        }
                        Some(Change::Adopt(n)) => match self.client.get_pull(n as i64).await {
                            Ok(pull) => {
                                if let Some(o) = pull.and_then(ours) {
                                    cache.open.insert(
                                        n,
                                        Tracked {
                                            learning: o.id.clone(),
                                            hash: o.hash.clone(),
                                        },
                                    );
                                    open.push(o);
                                }
                            }
                            Err(e) => {
                                clean = false;
                                report.errors.push(format!("pull request #{n}: {e}"));
                            }
                        },
                        Some(Change::Problem(n, Some(seen))) => {
                            cache.problems.insert(n, seen);
                        }
                        Some(Change::Problem(n, None)) => {
                            cache.problems.remove(&n);
                        }
                        Some(Change::Queue) => cache.queue_body = None,
                    }
                }
            }
            None => {
                let (listed, at) = self
                    .client
                    .list_pulls_at(&PullFilter {
                        state: StateFilter::Open,
                        labels: review_label.into_iter().collect(),
                        base: None,
                    })
                    .await?;
                next_watermark = at;
                open = listed.into_iter().filter_map(ours).collect();
                // Reviews that were open last time and are not now.
                gone = cache
                    .open
                    .iter()
                    .filter(|(n, _)| !open.iter().any(|o| o.pull.number as u64 == **n))
                    .map(|(n, t)| (*n, t.clone()))
                    .collect();
                // Problem reports (a failure leaves them as they are).
                match self.problem_reports(cache).await {
                    Ok(found) => cache.problems = found,
                    Err(e) => {
                        clean = false;
                        report
                            .errors
                            .push(format!("reading the problem reports: {e}"));
                    }
                }
                cache.queue_body = None;
            }
        }
        let mut wrote = false;

        // 2. Reviews that closed.
        for (number, tracked) in gone {
            match self.closed(number, &tracked, &bot, report).await {
                Ok(Some(still_open)) => {
                    if !open.iter().any(|o| o.pull.number == still_open.pull.number) {
                        open.push(still_open);
                    }
                }
                Ok(None) => {
                    cache.open.remove(&number);
                }
                Err(e) => {
                    clean = false;
                    report.errors.push(format!("pull request #{number}: {e}"));
                }
            }
        }
        wrote |= !report.rejected.is_empty();
        // A full listing is the truth about what is open.
        for o in &open {
            cache.open.insert(
                o.pull.number as u64,
                Tracked {
                    learning: o.id.clone(),
                    hash: o.hash.clone(),
                },
            );
        }

        // 3. The pulled records in step with the open problem reports.
        let problems: Vec<(u64, String, String, Vec<String>)> = cache
            .problems
            .iter()
            .map(|(n, p)| (*n, p.title.clone(), p.author.clone(), p.ids.clone()))
            .collect();
        wrote |= self.sync_pulled(&problems, cache, report).await;

        // 4. Rejection records nobody here checked yet.
        wrote |= self.verify_rejections(cache, &bot, report).await;

        // 5. Plan against the learnings as they now are.
        let view = crate::view::load(self.dir, self.config);
        let learnings: HashMap<&str, &Learning> = view
            .learnings
            .iter()
            .filter(|l| !l.in_inbox)
            .map(|l| (l.learning.id.as_str(), &l.learning))
            .collect();
        let just_merged: BTreeSet<(String, String)> = report
            .approved
            .iter()
            .filter_map(|d| Some((d.learning.clone(), d.why.clone()?)))
            .collect();
        let candidates: Vec<Candidate> = learnings
            .values()
            .map(|l| {
                let hash = l.content_hash();
                Candidate {
                    id: l.id.clone(),
                    title: l.title.clone(),
                    trust: l.trust_level,
                    rejected: l.suggestion_status == crate::learning::SuggestionStatus::Rejected,
                    pulled: view.is_pulled(&l.id),
                    approved: l.trust_level == TrustLevel::L3
                        || just_merged.contains(&(l.id.clone(), hash.clone())),
                    promoted_at: l.promoted_at,
                    hash,
                }
            })
            .collect();
        let open_reviews: Vec<OpenReview> = cache
            .open
            .iter()
            .map(|(n, t)| OpenReview {
                number: *n,
                id: t.learning.clone(),
                hash: t.hash.clone(),
            })
            .collect();
        let limits = Limits {
            max_open: self.config.review_max_open.value as usize,
            max_new: self.config.review_max_new_per_run.value as usize,
        };
        let plan = review::plan(&candidates, &open_reviews, limits);
        report.held_back = plan.held_back.clone();
        let events = if plan
            .actions
            .iter()
            .any(|a| !matches!(a, Action::Withdraw { .. }))
        {
            self.dir.read_events().0
        } else {
            Vec::new()
        };
        let templates = crate::render::Templates::load(
            self.config
                .wiki_template_dir
                .as_ref()
                .map(|s| s.value.as_path()),
        )?;
        // The policy in force (§5.2), as the view read it.
        let policy = &view.policy;
        if policy.agents.is_empty()
            && plan
                .actions
                .iter()
                .any(|a| matches!(a, Action::Propose { .. }))
        {
            report.warnings.push(
                "no roster (`agents:` in .learnsync/policy.yaml on main): every agent's evidence counted toward these L2 learnings, including agents nobody listed".into(),
            );
        }
        for action in &plan.actions {
            // Asked to stop (the daemon's SIGTERM): between two actions,
            // each of which is whole; the next pass does the rest.
            if self
                .stop
                .is_some_and(|s| s.load(std::sync::atomic::Ordering::SeqCst))
            {
                report.stopped = true;
                clean = false;
                break;
            }
            let result = match action {
                Action::Propose { id } => match learnings.get(id.as_str()) {
                    Some(l) => {
                        self.propose(
                            l,
                            &events,
                            &templates,
                            &policy.wiki,
                            review_label,
                            &bot,
                            cache,
                            report,
                        )
                        .await
                    }
                    None => Ok(()),
                },
                Action::Follow { number, id, from } => {
                    match (
                        learnings.get(id.as_str()),
                        self.open_pull(&open, *number).await,
                    ) {
                        (Some(l), Ok(Some(o))) => {
                            self.follow(
                                &o,
                                l,
                                from,
                                &events,
                                &templates,
                                &policy.wiki,
                                cache,
                                report,
                            )
                            .await
                        }
                        (_, Err(e)) => Err(e.into()),
                        _ => Ok(()),
                    }
                }
                Action::Withdraw { number, id, why } => {
                    match self.open_pull(&open, *number).await {
                        Ok(Some(o)) => self.withdraw(&o, id, why, cache, report).await,
                        Ok(None) => Ok(()),
                        Err(e) => Err(e.into()),
                    }
                }
            };
            if let Err(e) = result {
                report.errors.push(format!("{}: {e}", describe(action)));
            }
        }
        report.open_reviews = cache.open.len();

        // 5b. Approvals their outcomes question (§5.1): people are asked to
        //     look again, once per learning, only when the open problem
        //     reports were read (else one may exist already).
        if clean {
            let label = cache.labels.get(PROBLEM_LABEL).copied();
            let mut questioned: Vec<&Learning> = learnings
                .values()
                .copied()
                .filter(|l| crate::trust::approval_questioned(l))
                .filter(|l| !cache.problems.values().any(|p| p.ids.contains(&l.id)))
                .collect();
            questioned.sort_by(|a, b| a.id.cmp(&b.id));
            for l in questioned {
                match self.question(l, label, &policy.trust, &bot, cache).await {
                    Ok(issue) => report.questioned.push(Done {
                        learning: l.id.clone(),
                        pull_request: None,
                        issue,
                        why: Some("its outcomes since the approval meet the demotion rule".into()),
                    }),
                    Err(e) => report
                        .errors
                        .push(format!("asking people to look again at {}: {e}", l.id)),
                }
            }
        }

        // 6. The queue issue.
        let titles = |id: &str| {
            learnings
                .get(id)
                .map(|l| l.title.clone())
                .unwrap_or_default()
        };
        let mut queue = text::Queue {
            max_open: self.config.review_max_open.value,
            max_new: self.config.review_max_new_per_run.value,
            ..text::Queue::default()
        };
        for (n, t) in &cache.open {
            queue
                .open
                .push((*n, t.learning.clone(), titles(&t.learning)));
        }
        for id in &plan.held_back {
            queue.held_back.push((id.clone(), titles(id)));
        }
        let decisions = crate::hub::decisions_in_dir(&self.dir.root, Default::default());
        for (id, rejections) in &decisions.rejections {
            for r in rejections {
                queue
                    .rejected
                    .push((r.pull_request, id.clone(), titles(id)));
            }
        }
        for (id, pulls) in &decisions.pulled {
            for p in pulls {
                queue.pulled.push((p.issue, id.clone(), titles(id)));
            }
        }
        queue.rejected.sort();
        queue.pulled.sort();
        let body = queue.body();
        let known = match cache.queue_issue {
            Some(_) => cache.queue_body.as_deref() == Some(changes::digest(&body).as_str()),
            None => queue.is_empty() && since.is_some(),
        };
        if !known && let Err(e) = self.queue_issue(&queue, &bot, cache).await {
            clean = false;
            report.errors.push(format!("the review queue issue: {e}"));
        }

        // 7. The watermark: every change before it is handled. Our own
        //    writes come back in the next listing; read them now, so that a
        //    pass after this one with nothing new costs one read.
        if clean && !self.dry_run {
            let mut watermark = next_watermark;
            if wrote_to_gitea(report)
                && let Some(at) = watermark.clone()
            {
                match self
                    .client
                    .list_issues_at(&IssueFilter {
                        state: StateFilter::All,
                        since: Some(at),
                        ..IssueFilter::default()
                    })
                    .await
                {
                    Ok((ours, later)) => {
                        if ours
                            .iter()
                            .all(|i| changes::classify(i, cache, &bot).is_none())
                        {
                            watermark = later;
                        }
                    }
                    Err(e) => tracing::debug!("not moving the review watermark on: {e}"),
                }
            }
            if since.is_none() {
                cache.full_at = Some(now);
            }
            cache.watermark = watermark;
        }
        wrote |= !report.pulled.is_empty()
            || !report.restored.is_empty()
            || !report.unconfirmed.is_empty();
        Ok(wrote && !self.dry_run)
    }

    /// Opens the `learning-problem` issue that asks people to look again
    /// at an approval its outcomes question, naming the evidence; while it
    /// is open the learning is pulled from the wiki and suggestions. `None`
    /// in a dry run.
    async fn question(
        &self,
        l: &Learning,
        label: Option<i64>,
        trust: &crate::policy::TrustPolicy,
        bot: &str,
        cache: &mut ReviewCache,
    ) -> Result<Option<u64>, GiteaError> {
        let q = &l.quality;
        let shown: String = crate::text::shown_line(&l.title)
            .chars()
            .take(160)
            .collect();
        let title = format!("Approved learning fails since its approval: {shown}");
        let body = format!(
            "learnsync: the outcomes agents recorded since people approved `{id}` meet the \
             demotion rule (at least {min} outcomes, success rate below {below}), so it is no \
             longer enforced or injected as L3 (it is {level} now), and while this issue is open \
             it is out of the wiki and suggestions.\n\n\
             Evidence now: {effective} effective of {applied} applied, success rate {rate}, \
             agents: {agents}.\n\n\
             Fix the learning and approve it again through a review pull request, or close its \
             review to reject it; then close this issue.\n",
            id = l.id,
            min = trust.demote_min_outcomes,
            below = trust.demote_below_success_rate,
            level = l.trust_level,
            effective = q.effective_count,
            applied = q.applied_count,
            rate = q
                .success_rate
                .map_or_else(|| "none".to_string(), |r| format!("{r}")),
            agents = if q.agent_names.is_empty() {
                "none".to_string()
            } else {
                q.agent_names
                    .iter()
                    .map(|a| crate::text::shown_line(a))
                    .collect::<Vec<_>>()
                    .join(", ")
            },
        );
        if self.dry_run {
            return Ok(None);
        }
        let issue = self
            .client
            .create_issue(&CreateIssueOption {
                title: title.clone(),
                body,
                labels: label.into_iter().collect(),
                closed: false,
            })
            .await?;
        cache.problems.insert(
            issue.number as u64,
            crate::store::ProblemSeen {
                title,
                author: bot.to_string(),
                ids: vec![l.id.clone()],
            },
        );
        Ok(Some(issue.number as u64))
    }

    /// Creates the labels the pass uses when the repository lacks them
    /// (Gitea does not refuse duplicates: listed first).
    /// The open review pull request `number`: from this pass's listing,
    /// else read (a pass over changes lists only what changed).
    async fn open_pull(&self, listed: &[Open], number: u64) -> Result<Option<Open>, GiteaError> {
        if let Some(o) = listed.iter().find(|o| o.pull.number as u64 == number) {
            return Ok(Some(o.clone()));
        }
        Ok(self
            .client
            .get_pull(number as i64)
            .await?
            .filter(|p| p.state == State::Open)
            .and_then(ours))
    }

    async fn ensure_labels(
        &self,
        cache: &mut ReviewCache,
        report: &mut ReviewReport,
    ) -> Result<(), GiteaError> {
        let wanted = [
            (
                REVIEW_LABEL,
                "1d76db",
                "A learning proposed for human review by learnsync",
            ),
            (
                SUPERSEDED_LABEL,
                "c5def5",
                "A review learnsync withdrew (not a rejection)",
            ),
            (
                PROBLEM_LABEL,
                "d93f0b",
                "Reports a problem with a learning: pulls it from the wiki and suggestions while open",
            ),
        ];
        if wanted
            .iter()
            .all(|(name, ..)| cache.labels.contains_key(*name))
        {
            return Ok(());
        }
        let existing = self.client.list_labels().await?;
        cache.labels = existing.iter().map(|l| (l.name.clone(), l.id)).collect();
        for (name, color, description) in wanted {
            if cache.labels.contains_key(name) {
                continue;
            }
            if self.dry_run {
                report
                    .warnings
                    .push(format!("would create the label {name}"));
                continue;
            }
            let label = self
                .client
                .create_label(&CreateLabelOption {
                    name: name.into(),
                    color: color.into(),
                    description: description.into(),
                })
                .await?;
            cache.labels.insert(label.name, label.id);
        }
        Ok(())
    }

    /// L3 is only as safe as `main`'s protection: warn, naming the setting,
    /// when it is unprotected or the bot could merge its own reviews.
    async fn preflight(&self, cache: &mut ReviewCache, report: &mut ReviewReport) {
        let now = Timestamp::now().unix();
        // A warning is checked again every pass, so fixing it shows at once.
        let fresh = cache.preflight_warning.is_none()
            && cache
                .preflight_at
                .is_some_and(|at| now - at < PREFLIGHT_EVERY_SECS);
        if !fresh {
            match self.client.get_branch("main").await {
                Ok(branch) => {
                    cache.preflight_at = Some(now);
                    cache.preflight_warning = branch.and_then(|b| protection_warning(&b));
                }
                Err(e) => report
                    .warnings
                    .push(format!("could not check main's protection: {e}")),
            }
        }
        report.warnings.extend(cache.preflight_warning.clone());
    }

    /// A review that is no longer in the open list: merged, closed (by a
    /// person, a branch deletion, or us), or open after all (its label
    /// removed): then it is returned.
    async fn closed(
        &self,
        number: u64,
        tracked: &Tracked,
        bot: &str,
        report: &mut ReviewReport,
    ) -> Result<Option<Open>, GiteaError> {
        let Some(pull) = self.client.get_pull(number as i64).await? else {
            return Ok(None);
        };
        let (id, hash) = match review::parse_marker(&pull.body, "review") {
            Some((id, hash)) => (id.to_string(), hash.to_string()),
            None => (tracked.learning.clone(), tracked.hash.clone()),
        };
        if pull.state == State::Open {
            return Ok(Some(Open { pull, id, hash }));
        }
        if pull.merged {
            report.approved.push(Done {
                learning: id.clone(),
                pull_request: Some(number),
                issue: None,
                why: Some(hash),
            });
            if !self.dry_run {
                self.client
                    .delete_branch(&review::review_branch(&id))
                    .await?;
            }
            return Ok(None);
        }
        let timeline = self.timeline(number).await?;
        match review::close_cause(&timeline, bot) {
            CloseCause::Person { by, at } => {
                let rejection = Rejection {
                    learning: id.clone(),
                    content_hash: hash.clone(),
                    pull_request: number,
                    closed_by: by,
                    closed_at: at,
                };
                if !self.dry_run {
                    self.write_record(
                        &review::rejection_path(&id, &hash).map_err(invalid)?,
                        &rejection.to_yaml(),
                    )?;
                    self.comment_once(
                        number as i64,
                        "rejected",
                        &id,
                        &hash,
                        &text::rejected_comment(&id, &hash),
                    )
                    .await?;
                }
                report.rejected.push(Done {
                    learning: id,
                    pull_request: Some(number),
                    issue: None,
                    why: None,
                });
            }
            CloseCause::Open => return Ok(Some(Open { pull, id, hash })),
            CloseCause::Merged | CloseCause::Ours | CloseCause::BranchDeleted { .. } => {}
        }
        Ok(None)
    }

    async fn timeline(&self, number: u64) -> Result<Vec<review::Entry>, GiteaError> {
        Ok(self
            .client
            .issue_timeline(number as i64)
            .await?
            .iter()
            .map(|t| review::Entry {
                kind: t.kind.clone(),
                user: t.author().to_string(),
                at: t.created_at.clone(),
            })
            .collect())
    }

    /// Every open `learning-problem` issue, with the learning ids it names.
    async fn problem_reports(
        &self,
        cache: &ReviewCache,
    ) -> Result<BTreeMap<u64, crate::store::ProblemSeen>, GiteaError> {
        let issues = self
            .client
            .list_issues(&IssueFilter {
                state: StateFilter::Open,
                kind: IssueKind::Issues,
                labels: vec![PROBLEM_LABEL.into()],
                created_by: None,
                labels_known: cache.labels.contains_key(PROBLEM_LABEL),
                since: None,
            })
            .await?;
        Ok(issues
            .iter()
            .filter_map(|i| Some((i.number as u64, changes::problem_of(i)?)))
            .collect())
    }

    /// Brings the pulled records in step with the open reports: one per
    /// (issue, existing learning), acknowledged once; a record whose issue
    /// is not open any more is removed (the learning is back).
    async fn sync_pulled(
        &self,
        reports: &[(u64, String, String, Vec<String>)],
        cache: &mut ReviewCache,
        report: &mut ReviewReport,
    ) -> bool {
        let mut wrote = false;
        let mut wanted: BTreeMap<String, Pulled> = BTreeMap::new();
        for (issue, title, author, ids) in reports {
            for id in ids.iter().filter(|id| self.dir.knows(id)) {
                if let Ok(rel) = review::pulled_path(id, *issue) {
                    wanted.insert(
                        rel,
                        Pulled {
                            learning: id.clone(),
                            issue: *issue,
                            title: title.clone(),
                            opened_by: author.clone(),
                        },
                    );
                }
            }
        }
        let existing = record_files(&self.dir.root, crate::paths::PULLED_DIR);
        for (rel, record) in &wanted {
            let yaml = record.to_yaml();
            if existing.get(rel).map(String::as_str) != Some(yaml.as_str()) {
                if !self.dry_run {
                    if let Err(e) = self.write_record(rel, &yaml) {
                        report.errors.push(format!("{rel}: {e}"));
                        continue;
                    }
                    wrote = true;
                }
                if !existing.contains_key(rel) {
                    report.pulled.push(Done {
                        learning: record.learning.clone(),
                        pull_request: None,
                        issue: Some(record.issue),
                        why: None,
                    });
                }
            }
            let acked = cache
                .acked
                .get(&record.issue)
                .is_some_and(|ids| ids.contains(&record.learning));
            if !acked && !self.dry_run {
                let hash = format!("{:x}", record.issue);
                let body = text::ack_comment(&record.learning, record.issue);
                match self
                    .comment_once(record.issue as i64, "ack", &record.learning, &hash, &body)
                    .await
                {
                    Ok(()) => {
                        cache
                            .acked
                            .entry(record.issue)
                            .or_default()
                            .insert(record.learning.clone());
                    }
                    Err(e) => report
                        .errors
                        .push(format!("acknowledging issue #{}: {e}", record.issue)),
                }
            }
        }
        for rel in existing.keys() {
            if wanted.contains_key(rel) {
                continue;
            }
            let id = match crate::paths::classify(rel) {
                crate::paths::RepoPath::Pulled { id } => id.to_string(),
                _ => continue,
            };
            if !self.dry_run {
                if let Err(e) = std::fs::remove_file(self.dir.root.join(rel)) {
                    report.errors.push(format!("{rel}: {e}"));
                    continue;
                }
                wrote = true;
            }
            report.restored.push(Done {
                learning: id,
                pull_request: None,
                issue: rel.rsplit('.').nth(1).and_then(|n| n.parse().ok()),
                why: None,
            });
        }
        cache
            .acked
            .retain(|issue, _| reports.iter().any(|(n, ..)| n == issue));
        wrote
    }

    /// A rejection record is honoured by every machine, but only a pull
    /// request a person closed makes one: records this machine has not
    /// checked are checked against Gitea, and one it does not confirm (a
    /// peer's forgery) is removed and reported.
    async fn verify_rejections(
        &self,
        cache: &mut ReviewCache,
        bot: &str,
        report: &mut ReviewReport,
    ) -> bool {
        let mut wrote = false;
        for (rel, text) in record_files(&self.dir.root, crate::paths::REJECTIONS_DIR) {
            if cache.verified.contains(&rel) {
                continue;
            }
            let Ok(record) = Rejection::parse(&text) else {
                continue; // reported by the view; counts for nothing
            };
            let confirmed = match self.client.get_pull(record.pull_request as i64).await {
                Ok(Some(pull)) if pull.closed_unmerged() => {
                    let names = review::parse_marker(&pull.body, "review")
                        == Some((record.learning.as_str(), record.content_hash.as_str()));
                    match self.timeline(record.pull_request).await {
                        Ok(t) => {
                            names
                                && matches!(review::close_cause(&t, bot), CloseCause::Person { .. })
                        }
                        Err(e) => {
                            report.errors.push(format!("checking {rel}: {e}"));
                            continue;
                        }
                    }
                }
                Ok(_) => false,
                Err(e) => {
                    report.errors.push(format!("checking {rel}: {e}"));
                    continue;
                }
            };
            if confirmed {
                cache.verified.insert(rel);
                continue;
            }
            if !self.dry_run {
                if let Err(e) = std::fs::remove_file(self.dir.root.join(&rel)) {
                    report.errors.push(format!("{rel}: {e}"));
                    continue;
                }
                wrote = true;
            }
            report.unconfirmed.push(Done {
                learning: record.learning,
                pull_request: Some(record.pull_request),
                issue: None,
                why: Some(format!("{rel}: Gitea does not show pull request #{} closed unmerged by a person for this version", record.pull_request)),
            });
        }
        wrote
    }

    #[allow(clippy::too_many_arguments)]
    async fn propose(
        &self,
        l: &Learning,
        events: &[crate::event::Event],
        templates: &crate::render::Templates,
        wiki: &crate::policy::WikiPolicy,
        label: Option<i64>,
        bot: &str,
        cache: &mut ReviewCache,
        report: &mut ReviewReport,
    ) -> Result<(), ReviewError> {
        let hash = l.content_hash();
        let branch = review::review_branch(&l.id);
        if self.dry_run {
            report.proposed.push(done(&l.id, None));
            return Ok(());
        }
        let record = Review::proposal(&l.id, &hash, &l.title, bot, Timestamp::now());
        let path = crate::paths::review_path(&l.id).map_err(invalid)?;
        let options = FileOptions {
            content: base64_of(record.to_yaml().as_bytes()),
            message: Some(format!("learnsync: propose a review of {}", l.id)),
            branch: Some("main".into()),
            new_branch: Some(branch.clone()),
            ..FileOptions::default()
        };
        match self.client.create_file(&path, &options).await {
            Ok(FileOutcome::Committed(_) | FileOutcome::AlreadyThere(_)) => {}
            Err(e) if e.is_unprocessable() => {
                // Either the branch is left from an older attempt (with other
                // bytes, and no open review: we listed them), or main holds
                // the record of an earlier version. Start the branch again
                // from main, replacing main's record when there is one.
                if self.client.get_branch(&branch).await?.is_some() {
                    self.client.delete_branch(&branch).await?;
                }
                match self.client.get_file(&path, Some("main")).await? {
                    Some(on_main) => {
                        let update = FileOptions {
                            sha: Some(on_main.sha),
                            ..options.clone()
                        };
                        self.client.update_file(&path, &update).await?;
                    }
                    None => {
                        self.client.create_file(&path, &options).await?;
                    }
                }
            }
            Err(e) => return Err(e.into()),
        }
        let created = self
            .client
            .create_pull(&CreatePullRequestOption {
                head: branch,
                base: "main".into(),
                title: text::title(l),
                body: text::body(l, events, templates, wiki, &self.full_text(l))?,
                labels: label.into_iter().collect(),
            })
            .await?;
        let number = created.pull.number as u64;
        if created.outcome == PullOutcome::AlreadyOpen
            && let Some(label) = label
            && !created.pull.has_label(REVIEW_LABEL)
        {
            self.client
                .add_issue_labels(number as i64, &IssueLabels::Ids(vec![label]))
                .await?;
        }
        cache.open.insert(
            number,
            Tracked {
                learning: l.id.clone(),
                hash,
            },
        );
        report.proposed.push(done(&l.id, Some(number)));
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    async fn follow(
        &self,
        open: &Open,
        l: &Learning,
        from: &str,
        events: &[crate::event::Event],
        templates: &crate::render::Templates,
        wiki: &crate::policy::WikiPolicy,
        cache: &mut ReviewCache,
        report: &mut ReviewReport,
    ) -> Result<(), ReviewError> {
        let number = open.pull.number as u64;
        let hash = l.content_hash();
        report.followed.push(done(&l.id, Some(number)));
        if self.dry_run {
            return Ok(());
        }
        let path = crate::paths::review_path(&l.id).map_err(invalid)?;
        let branch = review::review_branch(&l.id);
        let record = Review::proposal(
            &l.id,
            &hash,
            &l.title,
            cache.bot.as_deref().unwrap_or(""),
            Timestamp::now(),
        );
        let current = self.client.get_file(&path, Some(&branch)).await?;
        let on_branch = current
            .as_ref()
            .and_then(|c| c.bytes().ok().flatten())
            .and_then(|b| Review::parse(&String::from_utf8_lossy(&b)).ok());
        if on_branch.as_ref().map(|r| r.content_hash.as_str()) != Some(hash.as_str()) {
            let options = FileOptions {
                content: base64_of(record.to_yaml().as_bytes()),
                message: Some(format!("learnsync: review the new version of {}", l.id)),
                branch: Some(branch.clone()),
                sha: current.as_ref().map(|c| c.sha.clone()),
                ..FileOptions::default()
            };
            match current {
                Some(_) => self.client.update_file(&path, &options).await?,
                None => {
                    self.client
                        .create_file(
                            &path,
                            &FileOptions {
                                sha: None,
                                ..options
                            },
                        )
                        .await?
                }
            };
        }
        let body = text::body(l, events, templates, wiki, &self.full_text(l))?;
        if open.pull.body != body || open.pull.title != text::title(l) {
            self.client
                .edit_pull(
                    number as i64,
                    &EditPullRequestOption {
                        title: Some(text::title(l)),
                        body: Some(body),
                        ..EditPullRequestOption::default()
                    },
                )
                .await?;
        }
        self.comment_once(
            number as i64,
            "changed",
            &l.id,
            &hash,
            &text::changed_comment(&l.id, from, &hash),
        )
        .await?;
        cache.open.insert(
            number,
            Tracked {
                learning: l.id.clone(),
                hash,
            },
        );
        Ok(())
    }

    async fn withdraw(
        &self,
        open: &Open,
        id: &str,
        why: &str,
        cache: &mut ReviewCache,
        report: &mut ReviewReport,
    ) -> Result<(), ReviewError> {
        let number = open.pull.number as u64;
        report.withdrawn.push(Done {
            learning: id.to_string(),
            pull_request: Some(number),
            issue: None,
            why: Some(why.to_string()),
        });
        if self.dry_run {
            return Ok(());
        }
        if let Some(label) = cache.labels.get(SUPERSEDED_LABEL)
            && !open.pull.has_label(SUPERSEDED_LABEL)
        {
            self.client
                .add_issue_labels(number as i64, &IssueLabels::Ids(vec![*label]))
                .await?;
        }
        self.comment_once(
            number as i64,
            "withdrawn",
            id,
            &open.hash,
            &text::withdrawn_comment(id, &open.hash, why),
        )
        .await?;
        self.client
            .edit_issue(
                number as i64,
                &EditIssueOption {
                    state: Some(State::Closed),
                    ..EditIssueOption::default()
                },
            )
            .await?;
        // Another review of the same learning may use the branch.
        let shared = cache
            .open
            .iter()
            .any(|(n, t)| *n != number && t.learning == id);
        if !shared && open.pull.head_ref() == review::review_branch(id) {
            self.client
                .delete_branch(&review::review_branch(id))
                .await?;
        }
        cache.open.remove(&number);
        Ok(())
    }

    /// Posts `body` on issue or pull `index` unless a comment of ours with
    /// the same marker is there already (a retried or repeated pass).
    async fn comment_once(
        &self,
        index: i64,
        kind: &str,
        id: &str,
        hash: &str,
        body: &str,
    ) -> Result<(), GiteaError> {
        let mark = review::marker(kind, id, hash);
        let comments = self.client.list_comments(index).await?;
        if comments.iter().any(|c| c.body.contains(&mark)) {
            return Ok(());
        }
        self.client.create_comment(index, body).await?;
        Ok(())
    }

    /// The queue issue: found by its author and marker, edited only when
    /// its content changes, created only when the lookup worked and there
    /// is something to list.
    async fn queue_issue(
        &self,
        queue: &text::Queue,
        bot: &str,
        cache: &mut ReviewCache,
    ) -> Result<(), GiteaError> {
        let mine = self
            .client
            .list_issues(&IssueFilter {
                state: StateFilter::Open,
                kind: IssueKind::Issues,
                labels: Vec::new(),
                created_by: Some(bot.to_string()),
                labels_known: true,
                since: None,
            })
            .await?;
        let found = mine
            .into_iter()
            .filter(|i| i.author() == bot && i.body.contains(text::QUEUE_MARKER))
            .min_by_key(|i| i.number);
        let body = queue.body();
        let digest = changes::digest(&body);
        match found {
            Some(issue) => {
                cache.queue_issue = Some(issue.number as u64);
                cache.queue_body = None;
                if issue.body != body && !self.dry_run {
                    self.client
                        .edit_issue(
                            issue.number,
                            &EditIssueOption {
                                body: Some(body),
                                ..EditIssueOption::default()
                            },
                        )
                        .await?;
                }
                cache.queue_body = Some(digest);
            }
            None if !queue.is_empty() && !self.dry_run => {
                let issue = self
                    .client
                    .create_issue(&CreateIssueOption {
                        title: text::QUEUE_TITLE.into(),
                        body,
                        labels: Vec::new(),
                        closed: false,
                    })
                    .await?;
                cache.queue_issue = Some(issue.number as u64);
                cache.queue_body = Some(digest);
            }
            None => {
                cache.queue_issue = None;
                cache.queue_body = None;
            }
        }
        Ok(())
    }

    /// Writes a record file into the work tree (the sync after the pass
    /// commits and shares it).
    fn write_record(&self, rel: &str, text: &str) -> Result<(), GiteaError> {
        let path = self.dir.root.join(rel);
        let result = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| crate::store::atomic_write(&path, text.as_bytes()));
        result.map_err(|e| GiteaError::Invalid(format!("cannot write {rel}: {e}")))
    }
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
    let (id, hash) = review::parse_marker(&pull.body, "review")?;
    let (id, hash) = (id.to_string(), hash.to_string());
    (pull.head_ref() == review::review_branch(&id)).then_some(Open { pull, id, hash })
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
