//! What a review pass reads from and writes to Gitea and the work tree,
//! one method per kind of change: questioning an approval, labels and the
//! protection preflight, a closed review, problem reports and pulled
//! records, rejections, proposing, following and withdrawing a review, the
//! queue issue, record files.

use super::*;

impl Pass<'_> {
    /// Opens the `learning-problem` issue that asks people to look again
    /// at an approval its outcomes question, naming the evidence; while it
    /// is open the learning is pulled from the wiki and suggestions. `None`
    /// in a dry run.
    pub(super) async fn question(
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
    pub(super) async fn open_pull(
        &self,
        listed: &[Open],
        number: u64,
    ) -> Result<Option<Open>, GiteaError> {
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

    pub(super) async fn ensure_labels(
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
    pub(super) async fn preflight(&self, cache: &mut ReviewCache, report: &mut ReviewReport) {
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
    pub(super) async fn closed(
        &self,
        number: u64,
        tracked: &Tracked,
        bot: &str,
        report: &mut ReviewReport,
    ) -> Result<Option<Open>, GiteaError> {
        let Some(pull) = self.client.get_pull(number as i64).await? else {
            return Ok(None);
        };
        let (id, hash) = match review_rules::parse_marker(&pull.body, "review") {
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
                    .delete_branch(&review_rules::review_branch(&id))
                    .await?;
            }
            return Ok(None);
        }
        let timeline = self.timeline(number).await?;
        match review_rules::close_cause(&timeline, bot) {
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
                        &review_rules::rejection_path(&id, &hash).map_err(invalid)?,
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

    pub(super) async fn timeline(
        &self,
        number: u64,
    ) -> Result<Vec<review_rules::Entry>, GiteaError> {
        Ok(self
            .client
            .issue_timeline(number as i64)
            .await?
            .iter()
            .map(|t| review_rules::Entry {
                kind: t.kind.clone(),
                user: t.author().to_string(),
                at: t.created_at.clone(),
            })
            .collect())
    }

    /// Every open `learning-problem` issue, with the learning ids it names.
    pub(super) async fn problem_reports(
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
    pub(super) async fn sync_pulled(
        &self,
        reports: &[(u64, String, String, Vec<String>)],
        cache: &mut ReviewCache,
        report: &mut ReviewReport,
    ) -> bool {
        let mut wrote = false;
        let mut wanted: BTreeMap<String, Pulled> = BTreeMap::new();
        for (issue, title, author, ids) in reports {
            for id in ids.iter().filter(|id| self.dir.knows(id)) {
                if let Ok(rel) = review_rules::pulled_path(id, *issue) {
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
    pub(super) async fn verify_rejections(
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
                    let names = review_rules::parse_marker(&pull.body, "review")
                        == Some((record.learning.as_str(), record.content_hash.as_str()));
                    match self.timeline(record.pull_request).await {
                        Ok(t) => {
                            names
                                && matches!(
                                    review_rules::close_cause(&t, bot),
                                    CloseCause::Person { .. }
                                )
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
    pub(super) async fn propose(
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
        let branch = review_rules::review_branch(&l.id);
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
    pub(super) async fn follow(
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
        let branch = review_rules::review_branch(&l.id);
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

    pub(super) async fn withdraw(
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
        if !shared && open.pull.head_ref() == review_rules::review_branch(id) {
            self.client
                .delete_branch(&review_rules::review_branch(id))
                .await?;
        }
        cache.open.remove(&number);
        Ok(())
    }

    /// Posts `body` on issue or pull `index` unless a comment of ours with
    /// the same marker is there already (a retried or repeated pass).
    pub(super) async fn comment_once(
        &self,
        index: i64,
        kind: &str,
        id: &str,
        hash: &str,
        body: &str,
    ) -> Result<(), GiteaError> {
        let mark = review_rules::marker(kind, id, hash);
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
    pub(super) async fn queue_issue(
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
    pub(super) fn write_record(&self, rel: &str, text: &str) -> Result<(), GiteaError> {
        let path = self.dir.root.join(rel);
        let result = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| crate::store::atomic_write(&path, text.as_bytes()));
        result.map_err(|e| GiteaError::Invalid(format!("cannot write {rel}: {e}")))
    }
}
