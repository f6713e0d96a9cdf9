//! One review pass as the list of its steps (§8): what is open or changed
//! on Gitea, the reviews that closed, the pulled and rejection records, the
//! plan and its actions, the approvals outcomes question, the queue issue,
//! and the watermark. What each step sends or reads is in `writes.rs`.

use super::*;

impl Pass<'_> {
    /// Where a cut pull request body links the whole learning.
    pub(super) fn full_text(
        &self,
        l: &crate::learning::Learning,
    ) -> crate::render::limit::FullText {
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
    pub(super) async fn run(
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
        let Listing {
            mut open,
            gone,
            mut clean,
            next_watermark,
        } = self
            .listing(since.as_ref(), review_label, &bot, cache, report)
            .await?;
        let mut wrote = false;

        // 2. Reviews that closed.
        clean &= self
            .closed_reviews(gone, &mut open, &bot, cache, report)
            .await;
        wrote |= !report.rejected.is_empty();

        // 3. The pulled records in step with the open problem reports.
        let problems: Vec<(u64, String, String, Vec<String>)> = cache
            .problems
            .iter()
            .map(|(n, p)| (*n, p.title.clone(), p.author.clone(), p.ids.clone()))
            .collect();
        wrote |= self.sync_pulled(&problems, cache, report).await;

        // 4. Rejection records nobody here checked yet.
        wrote |= self.verify_rejections(cache, &bot, report).await;

        // 5. Plan against the learnings as they now are, and act on it.
        let view = crate::view::load(self.dir, self.config.hub_name());
        let learnings: HashMap<&str, &Learning> = view
            .learnings
            .iter()
            .filter(|l| !l.in_inbox)
            .map(|l| (l.learning.id.as_str(), &l.learning))
            .collect();
        let plan = self.plan(&learnings, &view, cache, report);
        report.held_back = plan.held_back.clone();
        clean &= self
            .act(
                &plan,
                &learnings,
                &open,
                &view.policy,
                review_label,
                &bot,
                cache,
                report,
            )
            .await?;
        report.open_reviews = cache.open.len();

        // 5b. Approvals their outcomes question, only when the open problem
        //     reports were read (else one may exist already).
        if clean {
            self.question_approvals(&learnings, &view.policy.trust, &bot, cache, report)
                .await;
        }

        // 6. The queue issue.
        let full_listing = since.is_none();
        clean &= self
            .update_queue(
                &learnings,
                &plan.held_back,
                full_listing,
                &bot,
                cache,
                report,
            )
            .await;

        // 7. The watermark.
        if clean && !self.dry_run {
            self.move_watermark(next_watermark, full_listing, now, &bot, cache, report)
                .await;
        }
        wrote |= !report.pulled.is_empty()
            || !report.restored.is_empty()
            || !report.unconfirmed.is_empty();
        Ok(wrote && !self.dry_run)
    }

    /// Step 2: the reviews that closed since the last pass (one found
    /// still open joins `open`); then every open review is tracked in the
    /// cache, a full listing being the truth about what is open. False
    /// when a review could not be read.
    async fn closed_reviews(
        &self,
        gone: Vec<(u64, Tracked)>,
        open: &mut Vec<Open>,
        bot: &str,
        cache: &mut ReviewCache,
        report: &mut ReviewReport,
    ) -> bool {
        let mut clean = true;
        for (number, tracked) in gone {
            match self.closed(number, &tracked, bot, report).await {
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
        // A full listing is the truth about what is open.
        for o in open.iter() {
            cache.open.insert(
                o.pull.number as u64,
                Tracked {
                    learning: o.id.clone(),
                    hash: o.hash.clone(),
                },
            );
        }
        clean
    }

    /// Step 5's plan: which learnings to propose, which reviews to follow
    /// or withdraw, against the learnings as they now are (an approval
    /// merged in this pass counts already).
    fn plan(
        &self,
        learnings: &HashMap<&str, &Learning>,
        view: &crate::view::View,
        cache: &ReviewCache,
        report: &ReviewReport,
    ) -> review_rules::Plan {
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
        review_rules::plan(&candidates, &open_reviews, limits)
    }

    /// Step 5: the plan's actions, each whole. False when asked to stop
    /// between two (the next pass does the rest).
    #[allow(clippy::too_many_arguments)]
    async fn act(
        &self,
        plan: &review_rules::Plan,
        learnings: &HashMap<&str, &Learning>,
        open: &[Open],
        policy: &crate::policy::Policy,
        review_label: Option<i64>,
        bot: &str,
        cache: &mut ReviewCache,
        report: &mut ReviewReport,
    ) -> Result<bool, ReviewError> {
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
                return Ok(false);
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
                            bot,
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
                        self.open_pull(open, *number).await,
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
                Action::Withdraw { number, id, why } => match self.open_pull(open, *number).await {
                    Ok(Some(o)) => self.withdraw(&o, id, why, cache, report).await,
                    Ok(None) => Ok(()),
                    Err(e) => Err(e.into()),
                },
            };
            if let Err(e) = result {
                report.errors.push(format!("{}: {e}", describe(action)));
            }
        }
        Ok(true)
    }

    /// Step 5b: approvals whose outcomes question them (§5.1): people are
    /// asked to look again, once per learning, in an issue.
    async fn question_approvals(
        &self,
        learnings: &HashMap<&str, &Learning>,
        trust: &crate::policy::TrustPolicy,
        bot: &str,
        cache: &mut ReviewCache,
        report: &mut ReviewReport,
    ) {
        let label = cache.labels.get(PROBLEM_LABEL).copied();
        let mut questioned: Vec<&Learning> = learnings
            .values()
            .copied()
            .filter(|l| crate::trust::approval_questioned(l))
            .filter(|l| !cache.problems.values().any(|p| p.ids.contains(&l.id)))
            .collect();
        questioned.sort_by(|a, b| a.id.cmp(&b.id));
        for l in questioned {
            match self.question(l, label, trust, bot, cache).await {
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

    /// Step 6: the queue issue, rewritten when what it lists changed: the
    /// open reviews, those held back, rejections and pulled learnings.
    /// False when it could not be written.
    async fn update_queue(
        &self,
        learnings: &HashMap<&str, &Learning>,
        held_back: &[String],
        full_listing: bool,
        bot: &str,
        cache: &mut ReviewCache,
        report: &mut ReviewReport,
    ) -> bool {
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
        for id in held_back {
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
            None => queue.is_empty() && !full_listing,
        };
        if !known && let Err(e) = self.queue_issue(&queue, bot, cache).await {
            report.errors.push(format!("the review queue issue: {e}"));
            return false;
        }
        true
    }

    /// Step 7: the watermark moves on, every change before it handled. Our
    /// own writes come back in the next listing; they are read now, so a
    /// pass after this one with nothing new costs one read.
    async fn move_watermark(
        &self,
        next_watermark: Option<String>,
        full_listing: bool,
        now: i64,
        bot: &str,
        cache: &mut ReviewCache,
        report: &ReviewReport,
    ) {
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
                        .all(|i| changes::classify(i, cache, bot).is_none())
                    {
                        watermark = later;
                    }
                }
                Err(e) => tracing::debug!("not moving the review watermark on: {e}"),
            }
        }
        if full_listing {
            cache.full_at = Some(now);
        }
        cache.watermark = watermark;
    }

    /// Step 1: every review open now (a full listing, with the problem
    /// reports), or only what changed since the watermark `since`. A
    /// failure stops the pass before any write.
    async fn listing(
        &self,
        since: Option<&String>,
        review_label: Option<i64>,
        bot: &str,
        cache: &mut ReviewCache,
        report: &mut ReviewReport,
    ) -> Result<Listing, ReviewError> {
        let mut open: Vec<Open> = Vec::new();
        let mut gone: Vec<(u64, Tracked)> = Vec::new();
        // Every change up to the next watermark handled: then it moves on.
        let mut clean = true;
        let next_watermark;
        match since {
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
                    match changes::classify(item, cache, bot) {
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
        Ok(Listing {
            open,
            gone,
            clean,
            next_watermark,
        })
    }
}

/// What step 1 found: the reviews open now, those that were open and are
/// not, whether everything up to `next_watermark` was read, and the
/// watermark the listing ends at.
struct Listing {
    open: Vec<Open>,
    gone: Vec<(u64, Tracked)>,
    clean: bool,
    next_watermark: Option<String>,
}
