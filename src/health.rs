//! Everything `learnsync doctor` reports, found without changing anything:
//! unreadable learnings and event lines, work-tree files a sync leaves out
//! (over the size limit, nested repositories, symlinks), set-aside inbox
//! files, the branch, the git binary sync needs, git lock files (live or
//! left by a dead process), an interrupted cycle, wiki templates whose pages would not
//! render as meant, `verify_pattern`s that are not usable regexes and what
//! `kg check` reports; and `status`: the dir, its learnings, the last sync and
//! each daemon job's last run, last success, next run and failures (from
//! the daemon's records, whether or not it runs). The command line only
//! prints what this returns.

use crate::config::Config;
use crate::repo::Repo;
use crate::repo::locks::{self, Holder};
use crate::store::{LearningsDir, LockError, Problem, SyncLock};
use std::time::Duration;

/// What `status` shows: where the dir is, its branch and head, learnings
/// by trust level, the inbox, remotes, problems, the last sync, and the
/// daemon's jobs.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Status {
    pub dir: String,
    pub agent: String,
    pub branch: Option<String>,
    pub head: Option<String>,
    pub learnings: usize,
    pub by_trust: std::collections::BTreeMap<String, usize>,
    pub inbox: usize,
    /// Learnings by review state: pending, approved, rejected, pulled.
    pub reviews: std::collections::BTreeMap<String, usize>,
    pub problems: usize,
    pub remotes: Vec<String>,
    pub last_sync: Option<crate::sync::LastSync>,
    pub daemon: crate::daemon::DaemonStatus,
    /// What trust does to agents: enforced learnings, questioned approvals,
    /// risky learnings, the roster (see [`trust_notes`]).
    pub trust: Vec<Note>,
}

/// Something a person should know that is not a problem (`status` and
/// `doctor` print it; it does not fail `doctor`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Note {
    /// The learning's path, or what the note is about.
    pub path: String,
    pub kind: &'static str,
    pub message: String,
}

/// What the policy in force does with the learnings (§5.1, §5.2, §9.1):
/// which a PreToolUse match denies, which approvals their outcomes
/// question, which are flagged risky, and whose evidence counts.
pub fn trust_notes(view: &crate::view::View) -> Vec<Note> {
    use crate::learning::TrustLevel;
    let mut notes = Vec::new();
    if view.policy.agents.is_empty() {
        notes.push(Note {
            path: crate::policy::POLICY_PATH.into(),
            kind: "roster",
            message: "no roster (`agents:`): every agent's evidence counts for L2, including agents nobody listed".into(),
        });
    }
    for l in &view.learnings {
        let learning = &l.learning;
        let risky = crate::risk::risky(learning);
        let command = learning
            .original_command
            .as_deref()
            .unwrap_or("its command");
        if crate::trust::approval_questioned(learning) {
            notes.push(Note {
                path: l.path.clone(),
                kind: "questioned",
                message: format!(
                    "approved, but its outcomes since the approval meet the demotion rule: it is {} until people approve it again (`learnsync review` opens a learning-problem issue)",
                    learning.trust_level
                ),
            });
        }
        if let Some(reason) = risky {
            if learning.trust_level >= TrustLevel::L1 {
                notes.push(Note {
                    path: l.path.clone(),
                    kind: "risky",
                    message: format!(
                        "flagged risky ({reason}): never enforced, exported or injected below L3"
                    ),
                });
            }
        } else if learning.has_correction()
            && learning.suggestion_status != crate::learning::SuggestionStatus::Rejected
            && view.policy.enforce.action(learning.trust_level) == crate::policy::Action::Deny
        {
            notes.push(Note {
                path: l.path.clone(),
                kind: "enforced",
                message: format!(
                    "{}: a PreToolUse match of `{}` is denied, with the correction given instead (policy `enforce`)",
                    learning.trust_level,
                    crate::text::escape_line(command)
                ),
            });
        }
    }
    notes
}

/// The dir's status, read without changing anything.
pub fn status(dir: &LearningsDir, config: &Config) -> Result<Status, crate::repo::GitError> {
    let repo = Repo::open(&dir.root)?;
    let view = crate::view::load(dir, config.hub_name());
    let mut by_trust: std::collections::BTreeMap<String, usize> =
        <crate::learning::TrustLevel as crate::names::Named>::ALL
            .iter()
            .map(|l| (l.to_string(), 0))
            .collect();
    let mut reviews: std::collections::BTreeMap<String, usize> =
        ["pending", "approved", "rejected", "pulled"]
            .iter()
            .map(|s| (s.to_string(), 0))
            .collect();
    for l in &view.learnings {
        *by_trust
            .entry(l.learning.trust_level.to_string())
            .or_default() += 1;
        let state = match view.review_state(&l.learning) {
            crate::view::ReviewState::None => continue,
            crate::view::ReviewState::Pending { .. } => "pending",
            crate::view::ReviewState::Approved { .. } => "approved",
            crate::view::ReviewState::Rejected { .. } => "rejected",
            crate::view::ReviewState::Pulled { .. } => "pulled",
        };
        *reviews.entry(state.to_string()).or_default() += 1;
    }
    Ok(Status {
        dir: dir.root.display().to_string(),
        agent: config.home_agent.value.clone(),
        branch: repo.head_branch()?,
        head: repo.head_commit()?.map(|c| c.to_string()),
        learnings: view.learnings.len(),
        by_trust,
        inbox: dir.inbox().items().len(),
        reviews,
        problems: view.problems.len(),
        remotes: repo.remote_names(),
        last_sync: crate::sync::last(dir),
        daemon: crate::daemon::status(dir, config, chrono::Utc::now()),
        trust: trust_notes(&view),
    })
}

/// Every problem found in `dir`.
pub fn check(dir: &LearningsDir, config: &Config) -> Result<Vec<Problem>, crate::repo::GitError> {
    check_with_notes(dir, config).map(|(problems, _)| problems)
}

/// Every problem found in `dir`, and the trust notes of the same read of
/// it ([`trust_notes`]): what `doctor` prints.
pub fn check_with_notes(
    dir: &LearningsDir,
    config: &Config,
) -> Result<(Vec<Problem>, Vec<Note>), crate::repo::GitError> {
    let repo = Repo::open(&dir.root)?;
    // What a sync leaves out of the work tree, said in its own words, not
    // also as a learning that does not parse.
    let left_out = crate::sync::left_out(&repo)?;
    let view = crate::view::load(dir, config.hub_name());
    let notes = trust_notes(&view);
    let hosted = crate::sync::owners::hosted(&dir.state());
    let signing = crate::signing::problems(
        &config.home_agent.value,
        config.signing_key.as_ref().map(|k| k.value.as_path()),
        &view.policy,
        &hosted,
    );
    let policy_keys: std::collections::BTreeSet<String> = crate::signing::roster_keys(&view.policy)
        .into_keys()
        .chain(hosted)
        .collect();
    let mut problems: Vec<Problem> = view
        .problems
        .into_iter()
        .filter(|p| !left_out.iter().any(|q| q.path == p.path))
        .collect();
    problems.extend(left_out);
    problems.extend(signing);
    problems.extend(view.learnings.iter().filter_map(|l| {
        let pattern = l.learning.verify_pattern.as_deref()?;
        crate::shell::pattern_problem(pattern).map(|message| Problem {
            path: l.path.clone(),
            message,
        })
    }));
    problems.extend(crate::search::check_kg(dir).into_iter().map(|p| Problem {
        path: p.location(),
        message: p.message,
    }));
    // What the last sync refused from a head that does not own it (§6.1).
    let last = crate::sync::last(dir).map(|l| l.report["refused"].clone());
    for r in last
        .as_ref()
        .and_then(|r| r.as_array())
        .into_iter()
        .flatten()
    {
        let text = |key: &str| r[key].as_str().unwrap_or_default().to_string();
        problems.push(Problem {
            path: text("path"),
            message: format!(
                "the last sync refused {}'s change to it (owned by {}): it {}",
                text("head"),
                text("owner"),
                text("why")
            ),
        });
    }
    let want = crate::paths::agent_branch(&config.home_agent.value);
    match repo.head_branch()? {
        Some(b) if b == want => {}
        other => problems.push(Problem {
            path: "HEAD".into(),
            message: format!(
                "on {}, expected {want}",
                other.unwrap_or_else(|| "a detached HEAD".into())
            ),
        }),
    }
    if let Ok(rejected) = std::fs::read_dir(dir.state().inbox_rejected()) {
        for entry in rejected.flatten() {
            problems.push(Problem {
                path: entry.path().display().to_string(),
                message: "an inbox file that could not be read was set aside here".into(),
            });
        }
    }
    if let Err(message) = crate::repo::check_git_binary() {
        problems.push(Problem {
            path: "git".into(),
            message,
        });
    }
    problems.extend(cycle_and_locks(dir, &repo));
    problems.extend(templates(
        config.wiki_template_dir.as_ref().map(|d| d.value.as_path()),
    ));
    problems.extend(crate::review_pass::protection_problems(
        config,
        &unguarded_agents(
            &repo,
            config.hub_name(),
            &config.home_agent.value,
            &policy_keys,
        ),
    ));
    Ok((problems, notes))
}

/// The hub's agent branches, as last fetched, whose ownership rests on
/// Gitea alone: not this clone's own (`home`), hosted or signed ones (`skip`).
fn unguarded_agents(
    repo: &Repo,
    hub: Option<&str>,
    home: &str,
    skip: &std::collections::BTreeSet<String>,
) -> Vec<String> {
    let Some(hub) = hub else {
        return Vec::new();
    };
    repo.tracking_refs(hub)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(label, _)| crate::sync::owners::head_agent(&label).map(str::to_string))
        .filter(|a| a != home && !skip.contains(a))
        .collect()
}

/// Git lock files and an interrupted cycle, said as they are: who holds a
/// lock, and what the next sync will do about it.
fn cycle_and_locks(dir: &LearningsDir, repo: &Repo) -> Vec<Problem> {
    let mut problems = Vec::new();
    // A sync running now explains its own locks and marker.
    let running =
        match SyncLock::acquire(&dir.state().sync_lock(), Duration::ZERO, "learnsync doctor") {
            Ok(_released_at_once) => None,
            Err(LockError::Busy { holder, .. }) => Some(holder),
            Err(_) => None,
        };
    for lock in locks::scan(repo.git_dir()) {
        let message = match &lock.holder {
            Holder::Process { .. } => format!(
                "held by {}, working in this repository now; sync waits for it (up to lock_wait_secs), so nothing to do unless it stays",
                lock.holder.describe()
            ),
            Holder::Nobody => "a git lock left by a process that died (nothing holds it); the next `learnsync sync` moves it aside to .git/learnsync/stale-locks/ and carries on".into(),
            Holder::Unknown { age } if lock.holder.is_live() => format!(
                "a git lock {}s old and this system cannot say who holds it; sync waits for it, and treats it as stale after {} minutes; if no git command is running here, delete it",
                age.as_secs(),
                locks::STALE_AFTER.as_secs() / 60
            ),
            Holder::Unknown { .. } => format!(
                "a git lock older than {} minutes; the next `learnsync sync` takes it as left by a process that died and moves it aside",
                locks::STALE_AFTER.as_secs() / 60
            ),
        };
        problems.push(Problem {
            path: lock.path.display().to_string(),
            message,
        });
    }
    let marker = dir.state().cycle_marker();
    if marker.exists() {
        problems.push(Problem {
            path: marker.display().to_string(),
            message: match running {
                Some(holder) => format!("a sync cycle is running now ({holder})"),
                None => "a sync cycle was interrupted; the next `learnsync sync` moves aside any lock it left and finishes it (or rolls it back if its branch never moved)".into(),
            },
        });
    }
    problems
}

/// A user template dir whose pages would not render as meant.
fn templates(template_dir: Option<&std::path::Path>) -> Vec<Problem> {
    let Some(template_dir) = template_dir else {
        return Vec::new();
    };
    let dir_shown = template_dir.display().to_string();
    let loaded = crate::render::Templates::load(Some(template_dir))
        .and_then(|t| crate::publish::check::template_problems(&t));
    match loaded {
        Err(e) => vec![Problem {
            path: dir_shown,
            message: e.to_string(),
        }],
        Ok(found) => found
            .into_iter()
            .map(|p| Problem {
                path: template_dir.join(p.template).display().to_string(),
                message: format!("on the page {:?}, {}", p.page, p.message),
            })
            .collect(),
    }
}
