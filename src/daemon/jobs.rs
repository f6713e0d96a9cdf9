//! The four job bodies over the workflows — sync (`crate::sync::run`),
//! review (`crate::review_pass::run`, DESIGN §8), publish
//! (`crate::publish::publish`) and export (`crate::export::export`, once
//! per `export.targets` entry) — and what every run shares: a job that is
//! not configured is skipped with the one thing to do about it; publish
//! skips its work when nothing it reads changed since its last success
//! ([`inputs_key`]); a panic is a failed run, never a dead daemon.
//! Each body turns its workflow's report into one [`RunResult`].

use super::{ErrorClass, Job, RunOutcome};
use crate::config::Config;
use crate::export::{ExportError, ExportOptions, Format};
use crate::publish::{PublishError, PublishOptions, Target};
use crate::repo::Repo;
use crate::review_pass::{ReviewError, ReviewOptions};
use crate::store::LearningsDir;
use crate::sync::{SyncError, SyncOptions, SyncReport};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// What a run is given.
#[derive(Debug, Clone)]
pub struct JobInput {
    pub config: Arc<Config>,
    /// Set when the daemon is told to exit: stop at the next safe point.
    pub stop: Arc<AtomicBool>,
    /// [`inputs_key`] at the job's last success.
    pub last_success_key: Option<String>,
    /// The `learnsync` executable, for the work-tree watcher sync may start.
    pub exe: Option<PathBuf>,
    /// Count the learnings after this sync even if HEAD did not move (the
    /// daemon has no count yet).
    pub count_learnings: bool,
}

/// How a run went.
#[derive(Debug, Clone, PartialEq)]
pub struct RunResult {
    pub outcome: RunOutcome,
    pub summary: String,
    pub error_class: Option<ErrorClass>,
    /// What the job read, when it succeeded (kept for the next run).
    pub key: Option<String>,
    /// Learnings by trust level, the inbox size and what the learnings
    /// did, counted after a sync that moved HEAD (or the first one).
    pub learnings: Option<super::metrics::DirCounts>,
    /// Learnings an export run wrote, by format.
    pub exported: Option<BTreeMap<String, u64>>,
}

impl RunResult {
    fn new(outcome: RunOutcome, summary: impl Into<String>, class: Option<ErrorClass>) -> Self {
        RunResult {
            outcome,
            summary: summary.into(),
            error_class: class,
            key: None,
            learnings: None,
            exported: None,
        }
    }
}

/// Runs one job to its end.
pub fn run(job: Job, input: &JobInput) -> RunResult {
    if let Some((class, note)) = not_configured_class(job, &input.config) {
        return RunResult::new(RunOutcome::Skipped, note, Some(class));
    }
    // Review always runs: what it follows (a person merging, closing or
    // reporting on Gitea) changes no git ref, and its no-op pass is three
    // reads.
    let key = match job {
        // Export compares bytes itself and writes only what changed; its
        // staleness rule moves with the clock, so it always looks.
        Job::Sync | Job::Review | Job::Export => None,
        Job::Publish => inputs_key(job, &input.config),
    };
    if let (Some(now), Some(last)) = (&key, &input.last_success_key)
        && now == last
    {
        let mut r = RunResult::new(
            RunOutcome::Unchanged,
            "nothing it reads changed since its last success (tree, hub main, templates, settings); nothing to do",
            None,
        );
        r.key = key;
        return r;
    }
    let body = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match job {
        Job::Sync => sync_job(input),
        Job::Review => review_job(input),
        Job::Publish => publish_job(input),
        Job::Export => export_job(input),
    }));
    match body {
        Ok(mut r) => {
            if r.outcome.is_success() {
                r.key = key;
            }
            r
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".into());
            RunResult::new(
                RunOutcome::Failed,
                format!("the {job} job panicked ({what}); this is a bug, the daemon carries on"),
                Some(ErrorClass::Panic),
            )
        }
    }
}

/// Why `job` does nothing even when due (for `--check` and the run line),
/// or `None` when it can run.
pub fn not_configured(job: Job, config: &Config) -> Option<String> {
    not_configured_class(job, config).map(|(_, note)| note)
}

fn not_configured_class(job: Job, config: &Config) -> Option<(ErrorClass, String)> {
    match job {
        Job::Sync => None,
        Job::Export => {
            if !config.export_targets.value.is_empty() {
                return None;
            }
            let file = crate::store::StateDir::of(&config.dir.value).config();
            Some((
                ErrorClass::NotConfigured,
                format!(
                    "nothing to export to (export.targets is unset); configure a target with: \
                     printf \"export:\\n  targets:\\n    - format: agents-md\\n      to: $HOME/src/project/AGENTS.md\\n\" >> {}",
                    shell_quote(&file.display().to_string())
                ),
            ))
        }
        Job::Review => {
            if config.gitea_url.is_none() || config.gitea_repo.is_none() {
                return Some((
                    ErrorClass::NotConfigured,
                    "review needs the hub's Gitea repository (gitea.url and gitea.repo are unset; see docs/review.md)".into(),
                ));
            }
            config
                .token_source(crate::config::GiteaUse::Review)
                .err()
                .map(|e| (ErrorClass::NotConfigured, e.to_string()))
        }
        Job::Publish => {
            let gitea = config.gitea_url.is_some() && config.gitea_repo.is_some();
            if gitea {
                return config
                    .token_source(crate::config::GiteaUse::Publish)
                    .err()
                    .map(|e| (ErrorClass::NotConfigured, e.to_string()));
            }
            if config.wiki_git_url.is_some() {
                return None;
            }
            let file = crate::store::StateDir::of(&config.dir.value).config();
            Some((
                ErrorClass::NotConfigured,
                format!(
                    "no wiki to publish to (gitea.url and gitea.repo, or wiki.git_url, are unset); configure one with: \
                     printf \"gitea:\\n  url: https://gitea.example.com\\n  repo: owner/name\\n  token_file: $HOME/.config/learnsync/gitea-token\\n\" >> {}",
                    shell_quote(&file.display().to_string())
                ),
            ))
        }
    }
}

fn shell_quote(text: &str) -> String {
    if text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c))
    {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// A digest of everything publish reads: HEAD's tree (learnings,
/// events, policy), the hub's `main`, the inbox, the settings that pick the
/// target, the user's templates — and today's date, so that a wiki edited
/// or emptied by hand is put right at least once a day. `None` when it
/// cannot be read (then the job runs).
pub fn inputs_key(job: Job, config: &Config) -> Option<String> {
    use sha2::Digest;
    let repo = Repo::open(&config.dir.value).ok()?;
    let head = repo.head_commit().ok()??;
    let tree = repo.commit_tree(head).ok()?;
    let mut h = sha2::Sha256::new();
    let mut put = |label: &str, value: &[u8]| {
        h.update(label.as_bytes());
        h.update((value.len() as u64).to_be_bytes());
        h.update(value);
    };
    put("job", job.as_str().as_bytes());
    put("tree", tree.to_string().as_bytes());
    if let Some(hub) = &config.hub
        && let Ok(Some(main)) = repo.ref_commit(&crate::hub::main_ref(&hub.value))
    {
        put("hub main", main.to_string().as_bytes());
    }
    let dir = LearningsDir::new(config.dir.value.clone());
    for item in dir.inbox().items() {
        put("inbox", item.path.display().to_string().as_bytes());
    }
    for (name, value) in [
        ("gitea.url", &config.gitea_url),
        ("gitea.repo", &config.gitea_repo),
        ("wiki.git_url", &config.wiki_git_url),
        ("wiki.branch", &config.wiki_branch),
    ] {
        put(
            name,
            value.as_ref().map_or("", |s| s.value.as_str()).as_bytes(),
        );
    }
    if let Some(templates) = &config.wiki_template_dir {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&templates.value)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        files.sort();
        for file in files {
            put("template", file.display().to_string().as_bytes());
            put("bytes", &std::fs::read(&file).unwrap_or_default());
        }
    }
    put(
        "day",
        chrono::Utc::now().date_naive().to_string().as_bytes(),
    );
    Some(hex::encode(h.finalize()))
}

fn sync_job(input: &JobInput) -> RunResult {
    let config = &input.config;
    let dir = LearningsDir::new(config.dir.value.clone());
    let head_before = Repo::open(&dir.root)
        .ok()
        .and_then(|r| r.head_commit().ok().flatten());
    let options = SyncOptions {
        fetch: true,
        push: true,
        wait: Duration::from_secs(config.lock_wait_secs.value),
        watcher: input.exe.clone(),
        stop: Some(input.stop.clone()),
        progress: None,
        batch: Some(crate::sync::EvidenceBatch::from_config(&config.daemon)),
        on_head: Some(crate::indexes::keeper(
            config,
            crate::indexes::FirstBuild::Here,
        )),
    };
    let report = match crate::sync::run(config, &options) {
        Ok(report) => report,
        Err(e) => {
            let class = match &e {
                SyncError::Busy(_) | SyncError::GitLockHeld(_) => {
                    return RunResult::new(
                        RunOutcome::Skipped,
                        format!("{e}; this run is skipped, the next one syncs"),
                        Some(ErrorClass::Busy),
                    );
                }
                SyncError::NotInitialised(_)
                | SyncError::WrongBranch { .. }
                | SyncError::GitBinary(_) => ErrorClass::Config,
                SyncError::Git(_) => ErrorClass::Git,
                SyncError::Lock(_) => ErrorClass::Io,
            };
            return RunResult::new(RunOutcome::Failed, e.to_string(), Some(class));
        }
    };
    let head_after = Repo::open(&dir.root)
        .ok()
        .and_then(|r| r.head_commit().ok().flatten());
    let mut result = summarise_sync(&report);
    if head_before != head_after || input.count_learnings {
        result.learnings = Some(count_learnings(&dir, config.hub_name()));
    }
    result
}

/// A sync report as one run line.
fn summarise_sync(report: &SyncReport) -> RunResult {
    let mut parts = Vec::new();
    match &report.commit {
        Some(_) => parts.push(format!(
            "committed {} file(s) ({} learning(s) and {} event(s) from the inbox)",
            report.committed_files.len(),
            report.inbox_learnings,
            report.inbox_events
        )),
        None => parts.push("nothing new to commit".into()),
    }
    if report.held_events > 0 {
        parts.push(format!(
            "{} outcome event(s) held for the next batch",
            report.held_events
        ));
    }
    if !report.merged.is_empty() {
        parts.push(format!("merged {} head(s)", report.merged.len()));
    }
    if !report.promoted.is_empty() || !report.demoted.is_empty() {
        parts.push(format!(
            "{} promoted, {} demoted",
            report.promoted.len(),
            report.demoted.len()
        ));
    }
    let pushed: Vec<&str> = report
        .remotes
        .iter()
        .filter(|r| r.pushed)
        .map(|r| r.name.as_str())
        .collect();
    if !pushed.is_empty() {
        parts.push(format!("{} up to date", pushed.join(", ")));
    }
    let errors: Vec<String> = report
        .remotes
        .iter()
        .flat_map(|r| r.errors.iter().map(move |e| format!("{}: {e}", r.name)))
        .collect();
    if report.remotes.is_empty() {
        parts.push(
            "no remote configured, so nothing was fetched or pushed; connect one with \
             `learnsync init --remote hub=<git url>`"
                .into(),
        );
    }
    if report.stopped {
        parts.push(
            "stopped at a safe point (the daemon is exiting); the next sync does the rest".into(),
        );
        return RunResult::new(
            RunOutcome::Skipped,
            parts.join("; "),
            Some(ErrorClass::Stopped),
        );
    }
    if !errors.is_empty() {
        parts.push(errors.join("; "));
        return RunResult::new(
            RunOutcome::Partial,
            parts.join("; "),
            Some(ErrorClass::Remote),
        );
    }
    RunResult::new(RunOutcome::Ok, parts.join("; "), None)
}

/// Learnings by trust level (every level present, zero or not), the inbox
/// size and what the learnings did, from one view.
pub fn count_learnings(dir: &LearningsDir, hub: Option<&str>) -> super::metrics::DirCounts {
    let view = crate::view::load(dir, hub);
    let mut by_trust: BTreeMap<String, u64> =
        <crate::learning::TrustLevel as crate::names::Named>::ALL
            .iter()
            .map(|l| (l.to_string(), 0))
            .collect();
    for l in &view.learnings {
        *by_trust
            .entry(l.learning.trust_level.to_string())
            .or_default() += 1;
    }
    let impact = crate::impact::report(&view.events, &[], &Default::default());
    super::metrics::DirCounts {
        by_trust,
        inbox_files: inbox_files(dir),
        impact: super::metrics::Impact::of(&impact),
    }
}

/// Files waiting in the inbox (cheap: one directory listing).
pub fn inbox_files(dir: &LearningsDir) -> u64 {
    dir.inbox().items().len() as u64
}

/// The review job: one pass of DESIGN §8's workflow (`learnsync review`)
/// over the hub's Gitea repository. A SIGTERM stops it between two actions
/// (each whole: a proposal is its branch, file and pull request), and the
/// records it wrote are committed by the sync that follows.
fn review_job(input: &JobInput) -> RunResult {
    let config = &input.config;
    let dir = LearningsDir::new(config.dir.value.clone());
    let report = match crate::review_pass::run(
        &dir,
        config,
        &ReviewOptions {
            stop: Some(input.stop.clone()),
            ..ReviewOptions::default()
        },
    ) {
        Ok(report) => report,
        Err(e) => {
            let class = match &e {
                ReviewError::Missing(_) => {
                    return RunResult::new(
                        RunOutcome::Skipped,
                        e.to_string(),
                        Some(ErrorClass::NotConfigured),
                    );
                }
                ReviewError::Sync(SyncError::Busy(_) | SyncError::GitLockHeld(_)) => {
                    return RunResult::new(
                        RunOutcome::Skipped,
                        e.to_string(),
                        Some(ErrorClass::Busy),
                    );
                }
                ReviewError::Template(_) => ErrorClass::Config,
                ReviewError::Gitea(_) => ErrorClass::Gitea,
                ReviewError::Git(_) => ErrorClass::Git,
                ReviewError::Sync(_) => ErrorClass::Remote,
                ReviewError::Other(_) => ErrorClass::Io,
            };
            return RunResult::new(RunOutcome::Failed, e.to_string(), Some(class));
        }
    };
    let mut parts = Vec::new();
    for (what, list) in [
        ("proposed", &report.proposed),
        ("followed", &report.followed),
        ("withdrawn", &report.withdrawn),
        ("approved", &report.approved),
        ("rejected", &report.rejected),
        ("pulled", &report.pulled),
        ("restored", &report.restored),
    ] {
        if !list.is_empty() {
            parts.push(format!("{} {what}", list.len()));
        }
    }
    if parts.is_empty() {
        parts.push("nothing to propose or record".into());
    }
    parts.push(format!("{} open review(s)", report.open_reviews));
    if !report.held_back.is_empty() {
        parts.push(format!(
            "{} held back by the limits",
            report.held_back.len()
        ));
    }
    for w in &report.warnings {
        tracing::warn!("review: {w}");
    }
    if report.stopped {
        parts.push(
            "stopped at a safe point (the daemon is exiting); the next review does the rest".into(),
        );
        return RunResult::new(
            RunOutcome::Skipped,
            parts.join("; "),
            Some(ErrorClass::Stopped),
        );
    }
    if report.is_partial() {
        let mut errors = report.errors.clone();
        if let Some(sync) = report.sync.as_ref().filter(|s| s.is_partial()) {
            errors.push(format!(
                "sharing the records: {}",
                summarise_sync(sync).summary
            ));
        }
        parts.push(format!("failed: {}", errors.join("; ")));
        return RunResult::new(
            RunOutcome::Partial,
            parts.join("; "),
            Some(ErrorClass::Gitea),
        );
    }
    RunResult::new(RunOutcome::Ok, parts.join("; "), None)
}

fn publish_job(input: &JobInput) -> RunResult {
    let config = &input.config;
    let dir = LearningsDir::new(config.dir.value.clone());
    let target = if config.gitea_url.is_some() && config.gitea_repo.is_some() {
        Target::Gitea
    } else {
        Target::GitWiki
    };
    let options = PublishOptions {
        target,
        stop: Some(input.stop.clone()),
        ..PublishOptions::default()
    };
    let report = match crate::publish::publish(&dir, config, &options, &mut |_, _| {}) {
        Ok(report) => report,
        Err(e) => {
            let class = match &e {
                PublishError::MissingSetting(_) => {
                    return RunResult::new(
                        RunOutcome::Skipped,
                        e.to_string(),
                        Some(ErrorClass::NotConfigured),
                    );
                }
                PublishError::Template(_) => ErrorClass::Config,
                PublishError::Gitea(_) => ErrorClass::Gitea,
                PublishError::Git(_) => ErrorClass::Remote,
                PublishError::State(_) => ErrorClass::Io,
                PublishError::Other(_) => ErrorClass::Io,
            };
            return RunResult::new(RunOutcome::Failed, e.to_string(), Some(class));
        }
    };
    let c = &report.counts;
    let mut summary = format!(
        "{} created, {} updated, {} deleted, {} unchanged on {}",
        c.created, c.updated, c.deleted, c.unchanged, report.wiki_url
    );
    if c.kept > 0 {
        summary.push_str(&format!("; {} kept (edited on the wiki)", c.kept));
    }
    if c.withheld > 0 {
        summary.push_str(&format!("; {} withheld (secrets)", c.withheld));
    }
    let first_failure = report.pages.iter().find_map(|p| match &p.result {
        crate::publish::WriteResult::Failed(why) => Some(format!("{}: {why}", p.title)),
        _ => None,
    });
    let stopped = input.stop.load(std::sync::atomic::Ordering::SeqCst);
    if stopped && c.failed > 0 {
        summary.push_str(&format!(
            "; stopped at a safe point (the daemon is exiting): {} page(s) left for the next publish",
            c.failed
        ));
        return RunResult::new(RunOutcome::Skipped, summary, Some(ErrorClass::Stopped));
    }
    match (report.problems(), report.successes()) {
        (0, _) => RunResult::new(RunOutcome::Ok, summary, None),
        (_, successes) => {
            summary.push_str(&format!("; {} failed", c.failed));
            if let Some(first) = first_failure {
                summary.push_str(&format!(" (first: {first})"));
            }
            let outcome = if successes == 0 {
                RunOutcome::Failed
            } else {
                RunOutcome::Partial
            };
            RunResult::new(outcome, summary, Some(ErrorClass::Gitea))
        }
    }
}

/// The export job: each `export.targets` entry written in turn; one that
/// fails (its markers broken, its dir unwritable) is named and the others
/// are still written.
fn export_job(input: &JobInput) -> RunResult {
    let config = &input.config;
    let dir = LearningsDir::new(config.dir.value.clone());
    let targets = &config.export_targets.value;
    let mut parts = Vec::new();
    let mut errors = Vec::new();
    let mut class = None;
    let mut exported: BTreeMap<String, u64> = BTreeMap::new();
    for (i, target) in targets.iter().enumerate() {
        if input.stop.load(std::sync::atomic::Ordering::SeqCst) {
            parts.push(format!(
                "stopped at a safe point (the daemon is exiting): {} target(s) left for the next export",
                targets.len() - i
            ));
            return RunResult::new(
                RunOutcome::Skipped,
                parts.join("; "),
                Some(ErrorClass::Stopped),
            );
        }
        let name = format!("{} {}", target.format, target.to.display());
        let Some(format) = <Format as crate::names::Named>::from_name(&target.format) else {
            errors.push(format!(
                "export.targets[{i}] ({name}): not a format learnsync knows"
            ));
            class.get_or_insert(ErrorClass::Config);
            continue;
        };
        let options = ExportOptions {
            format,
            to: target.to.clone(),
            min_trust: target.min_trust,
            project: target.project.clone(),
            dry_run: false,
        };
        match crate::export::export(&dir, config, &options) {
            Ok(report) => {
                *exported.entry(target.format.clone()).or_default() += report.shown.len() as u64;
                parts.push(summarise_export(&name, &report));
            }
            Err(e) => {
                class.get_or_insert(match e {
                    ExportError::Io { .. } => ErrorClass::Io,
                    ExportError::Markers { .. } | ExportError::Trust(_) => ErrorClass::Config,
                });
                errors.push(format!("export.targets[{i}] ({name}): {e}"));
            }
        }
    }
    let outcome = match errors.len() {
        0 => RunOutcome::Ok,
        n if n == targets.len() => RunOutcome::Failed,
        _ => RunOutcome::Partial,
    };
    if !errors.is_empty() {
        parts.push(format!("failed: {}", errors.join("; ")));
    }
    let mut result = RunResult::new(outcome, parts.join("; "), class);
    result.exported = Some(exported);
    result
}

/// One target's export as a part of the run line.
fn summarise_export(name: &str, report: &crate::export::ExportReport) -> String {
    let mut done = if report.written.is_empty() {
        "up to date".to_string()
    } else {
        format!("written {} file(s)", report.written.len())
    };
    if !report.removed.is_empty() {
        done.push_str(&format!(
            ", {} skill folder(s) removed",
            report.removed.len()
        ));
    }
    let left_out = report.left_out.values().sum::<usize>() + report.left_out_for_size;
    format!(
        "{name}: {done}, {} learning(s) shown, {left_out} left out",
        report.shown.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sync_report_becomes_one_line_and_a_failing_remote_a_partial_run() {
        let mut report = SyncReport::default();
        let r = summarise_sync(&report);
        assert_eq!(r.outcome, RunOutcome::Ok);
        assert!(
            r.summary.contains("learnsync init --remote hub="),
            "{}",
            r.summary
        );
        report.remotes.push(crate::sync::RemoteReport {
            name: "hub".into(),
            errors: vec!["connection refused".into()],
            ..Default::default()
        });
        let r = summarise_sync(&report);
        assert_eq!(
            (r.outcome, r.error_class),
            (RunOutcome::Partial, Some(ErrorClass::Remote))
        );
        assert!(
            r.summary.contains("hub: connection refused"),
            "{}",
            r.summary
        );
        report.stopped = true;
        let r = summarise_sync(&report);
        assert_eq!(r.error_class, Some(ErrorClass::Stopped));
        assert_eq!(r.outcome, RunOutcome::Skipped);
    }

    #[test]
    fn an_export_says_per_target_what_it_wrote_showed_and_left_out() {
        let mut report = crate::export::ExportReport {
            format: Format::AgentsMd,
            to: "/r/AGENTS.md".into(),
            dry_run: false,
            written: vec!["/r/AGENTS.md".into()],
            removed: Vec::new(),
            shown: vec!["a".into(), "b".into()],
            left_out_for_size: 1,
            left_out: BTreeMap::from([("stale (no recent evidence)".to_string(), 2)]),
        };
        assert_eq!(
            summarise_export("agents-md /r/AGENTS.md", &report),
            "agents-md /r/AGENTS.md: written 1 file(s), 2 learning(s) shown, 3 left out"
        );
        report.written.clear();
        assert!(summarise_export("x", &report).starts_with("x: up to date, "));
    }

    #[test]
    fn shell_quoting_leaves_plain_paths_alone() {
        assert_eq!(shell_quote("/a/b.yaml"), "/a/b.yaml");
        assert_eq!(shell_quote("/a b/it's"), r"'/a b/it'\''s'");
    }
}
