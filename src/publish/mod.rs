//! Publishing trusted learnings to a wiki (DESIGN.md §7): render the pages
//! (`render`, pure), compare with the publish state and the wiki (`plan`,
//! pure), then carry the plan out on a target (`gitea_target` over the REST
//! API, `git_wiki` with git push), recording what was written (`state`).
//! The command line only calls [`publish`] and prints its [`PublishReport`].

pub mod check;
pub mod git_wiki;
pub mod gitea_target;
pub mod plan;
pub mod state;

use crate::render::{self, PageKind, Site, Templates, Withheld, limit};
pub use plan::{Action, ActionKind, PublishPlan};

use crate::config::Config;
use crate::config::GiteaUse;
use crate::gitea::{ClientOptions, GiteaClient, GiteaError, RepoRef};
use crate::store::LearningsDir;
use serde::Serialize;
use std::collections::HashMap;
use std::path::PathBuf;

/// Why a publish could not run at all.
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    /// A setting the command needs is not configured.
    #[error(transparent)]
    MissingSetting(#[from] crate::config::MissingSetting),
    #[error(transparent)]
    Template(#[from] crate::render::TemplateError),
    #[error(transparent)]
    Gitea(#[from] GiteaError),
    #[error("git-wiki: {0}")]
    Git(String),
    #[error("publish state: {0}")]
    State(String),
    #[error("{0}")]
    Other(String),
}

/// Where pages go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Target {
    /// The Gitea wiki of `gitea.repo`, through the REST API.
    #[default]
    Gitea,
    /// Any `<repo>.wiki.git` (`wiki.git_url`), as one pushed commit.
    GitWiki,
}

/// How to publish.
#[derive(Debug, Clone, Default)]
pub struct PublishOptions {
    pub target: Target,
    /// Plan and print, send no write.
    pub dry_run: bool,
    /// Overwrite (or delete) pages a person edited on the wiki.
    pub force: bool,
    /// HTTP timeouts and retries for the Gitea target.
    pub client: ClientOptions,
    /// Set by the daemon when told to exit: no further page is sent (those
    /// not sent fail with a note; the state holds what landed, so the next
    /// publish sends the rest).
    pub stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

/// What happened to one page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", content = "error", rename_all = "lowercase")]
pub enum WriteResult {
    /// Dry run, or not reached.
    Planned,
    Done,
    Failed(String),
}

/// One line of the report.
#[derive(Debug, Clone, Serialize)]
pub struct PageOutcome {
    pub key: String,
    pub title: String,
    pub sub_url: String,
    pub action: ActionKind,
    #[serde(flatten)]
    pub result: WriteResult,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl PageOutcome {
    pub fn planned(action: &Action) -> Self {
        PageOutcome {
            key: action.key.clone(),
            title: action.title.clone(),
            sub_url: action.sub_url.clone(),
            action: action.kind,
            result: WriteResult::Planned,
            note: action.note.clone(),
        }
    }
}

/// Counts of a publish, for people and for `--json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub created: usize,
    pub updated: usize,
    pub deleted: usize,
    pub unchanged: usize,
    /// Left alone because a person edited them.
    pub kept: usize,
    /// Not published: the redactor found a secret.
    pub withheld: usize,
    pub failed: usize,
}

/// The result of one publish.
#[derive(Debug, Clone, Serialize)]
pub struct PublishReport {
    pub target: Target,
    /// Where people read the wiki (Gitea) or the repository pushed to (git-wiki).
    pub wiki_url: String,
    pub dry_run: bool,
    pub counts: Counts,
    pub pages: Vec<PageOutcome>,
    pub withheld: Vec<Withheld>,
}

impl PublishReport {
    fn new(
        target: Target,
        wiki_url: String,
        dry_run: bool,
        pages: Vec<PageOutcome>,
        withheld: Vec<Withheld>,
    ) -> Self {
        let mut counts = Counts {
            withheld: withheld.len(),
            ..Counts::default()
        };
        for p in &pages {
            if matches!(p.result, WriteResult::Failed(_)) {
                counts.failed += 1;
                continue;
            }
            match p.action {
                ActionKind::Create => counts.created += 1,
                ActionKind::Update => counts.updated += 1,
                ActionKind::Delete => counts.deleted += 1,
                ActionKind::Unchanged => counts.unchanged += 1,
                ActionKind::Kept => counts.kept += 1,
            }
        }
        PublishReport {
            target,
            wiki_url,
            dry_run,
            counts,
            pages,
            withheld,
        }
    }

    /// Pages that did not get where they should: failed writes and withheld pages.
    pub fn problems(&self) -> usize {
        self.counts.failed + self.counts.withheld
    }

    /// Pages that went through (written, deleted, or already right).
    pub fn successes(&self) -> usize {
        self.counts.created + self.counts.updated + self.counts.deleted + self.counts.unchanged
    }
}

/// The human wiki URL of a Gitea repository.
pub fn gitea_wiki_url(base_url: &str, repo: &RepoRef) -> String {
    let root = base_url.trim().trim_end_matches('/');
    let root = root.strip_suffix("/api/v1").unwrap_or(root);
    format!("{root}/{}/{}/wiki", repo.owner, repo.name)
}

/// Every learning as the view sees it, rendered with the policy's wiki
/// layout and the configured templates; learnings the target published
/// before and no longer trusts get a retraction notice instead.
pub fn render_dir(
    dir: &LearningsDir,
    config: &Config,
    published: &state::TargetState,
) -> Result<Site, PublishError> {
    let view = crate::view::load(dir, config.hub_name());
    for p in &view.problems {
        tracing::warn!(path = %p.path, problem = %p.message, "left out of publishing");
    }
    // The policy in force (§5.2); the view reported a problem with it above.
    let policy = view.policy.clone();
    let template_dir: Option<PathBuf> = config.wiki_template_dir.as_ref().map(|s| s.value.clone());
    let templates = Templates::load(template_dir.as_deref())?;
    // A learning an open problem report names is off the wiki until the
    // report is closed: no page, and its old page becomes a retraction.
    let pulled: HashMap<String, u64> = view
        .learnings
        .iter()
        .filter_map(|l| {
            Some((
                l.learning.id.clone(),
                view.decisions.pulled_by(&l.learning.id)?,
            ))
        })
        .collect();
    // This month's (UTC) events: Home changes with the month, and only then.
    let month = render::MonthImpact::of(&view.events, &crate::timestamp::Timestamp::now().month());
    let learnings: Vec<_> = view.learnings.into_iter().map(|l| l.learning).collect();
    let shown: Vec<_> = learnings
        .iter()
        .filter(|l| !pulled.contains_key(&l.id))
        .cloned()
        .collect();
    let mut site = render::render_site_with(&shown, month.as_ref(), &policy.wiki, &templates)?;
    let hub = config
        .gitea_settings(GiteaUse::Publish)
        .ok()
        .map(|(url, repo)| (url, repo.to_string()));
    cap_pages(&mut site, &shown, hub);
    render::add_retractions(
        &mut site,
        &learnings,
        &pulled,
        &|id| published.title_of(id),
        &templates,
    )?;
    Ok(site)
}

/// Cuts a learning page past [`limit::MAX_TEXT_BYTES`], linking the whole
/// learning on the hub (`hub`: the Gitea server and repository, when set).
fn cap_pages(
    site: &mut Site,
    learnings: &[crate::learning::Learning],
    hub: Option<(String, String)>,
) {
    for page in &mut site.pages {
        if page.kind != PageKind::Learning || page.content.len() <= limit::MAX_TEXT_BYTES {
            continue;
        }
        let Some(l) = learnings.iter().find(|l| l.id == page.key) else {
            continue;
        };
        let full = limit::FullText::of(
            &l.agent_id,
            &l.id,
            hub.as_ref().map(|(u, r)| (u.as_str(), r.as_str())),
        );
        page.content = limit::fit(&page.content, limit::MAX_TEXT_BYTES, &full, "");
        page.hash = render::content_hash(page.content.as_bytes());
    }
}

/// Publishes the learnings dir to the chosen target. `progress(done, total)`
/// is called after each write (for a progress bar).
pub fn publish(
    dir: &LearningsDir,
    config: &Config,
    options: &PublishOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<PublishReport, PublishError> {
    // Settings first: a missing one is reported before any work.
    let gitea = match options.target {
        Target::Gitea => {
            let (url, repo) = config.gitea_settings(GiteaUse::Publish)?;
            let token = config.token_source(GiteaUse::Publish)?.resolve()?;
            Some((url, repo, token))
        }
        Target::GitWiki => None,
    };
    let git_url = match options.target {
        Target::GitWiki => Some(
            config
                .wiki_git_url
                .as_ref()
                .map(|s| s.value.clone())
                .ok_or_else(|| crate::config::MissingSetting {
                    command: "publish",
                    setting: "wiki.git_url",
                    hint: "set wiki.git_url in .git/learnsync/config.yaml to the wiki's git URL \
                           (e.g. https://git.example.com/owner/repo.wiki.git)"
                        .into(),
                })?,
        ),
        Target::Gitea => None,
    };

    let state_path = dir.state().publish_state();
    let mut all = state::PublishState::load(&state_path).map_err(PublishError::State)?;
    let target_key = match (&gitea, &git_url) {
        (Some((url, repo, _)), _) => format!("gitea {} {repo}", url.trim().trim_end_matches('/')),
        (None, Some(url)) => format!("git-wiki {url}"),
        (None, None) => return Err(PublishError::Other("no publish target".into())),
    };
    let site = render_dir(
        dir,
        config,
        &all.targets.get(&target_key).cloned().unwrap_or_default(),
    )?;

    let (wiki_url, result) = match (gitea, git_url) {
        (Some((url, repo, token)), _) => {
            let wiki_url = gitea_wiki_url(&url, &repo);
            let client = GiteaClient::new(&url, repo, Some(token), options.client.clone())?;
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| PublishError::Other(format!("cannot start the async runtime: {e}")))?;
            let mut target_state = all.targets.get(&target_key).cloned().unwrap_or_default();
            let result = {
                let mut save = |s: &state::TargetState| {
                    if options.dry_run {
                        return;
                    }
                    let mut snapshot = all.clone();
                    snapshot.targets.insert(target_key.clone(), s.clone());
                    if let Err(e) = snapshot.save(&state_path) {
                        tracing::warn!(error = %e, "could not save the publish state mid-way");
                    }
                };
                runtime.block_on(gitea_target::publish(
                    &client,
                    &site,
                    &mut target_state,
                    options.dry_run,
                    options.force,
                    options.stop.as_deref(),
                    progress,
                    &mut save,
                ))
            };
            all.targets.insert(target_key.clone(), target_state);
            (wiki_url, result)
        }
        (None, Some(url)) => {
            let wiki = git_wiki::GitWiki {
                url: url.clone(),
                branch: config.wiki_branch.as_ref().map(|s| s.value.clone()),
                identity: config.identity(),
            };
            let target_state = all.target(&target_key);
            let result =
                git_wiki::publish(&wiki, &site, target_state, options.dry_run, options.force);
            (url, result)
        }
        (None, None) => return Err(PublishError::Other("no publish target".into())),
    };
    // The state is saved even when the run failed half-way: it holds what landed.
    if !options.dry_run {
        all.save(&state_path).map_err(PublishError::State)?;
    }
    let (_plan, outcomes) = result?;
    tracing::debug!(target = %target_key, "publish finished");
    Ok(PublishReport::new(
        options.target,
        wiki_url,
        options.dry_run,
        outcomes,
        site.withheld,
    ))
}
