//! Pull requests over the hub repo (routers/api/v1/repo/pull.go,
//! services/pull/): list, get, create (409 for a duplicate), edit (201),
//! merged check (204/404) and a real two-parent merge commit; plus what
//! Gitea's post-receive does when a branch is pushed (a `pull_push` event,
//! the head followed) or deleted (its open pulls closed by the deleter).

use serde::Deserialize;
use serde_json::json;

use super::State;
use super::api::{Caller, Reply, json_list, path_int};
use super::hooks::parse_spool;
use super::http::{Request, Response};
use super::hub_git::ZERO_SHA;
use super::now;
use super::store::{CommentKind, Issue, Merged, Pull, first_matching, page_of};

#[derive(Debug, Deserialize)]
struct CreatePullForm {
    #[serde(default)]
    head: String,
    #[serde(default)]
    base: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    body: String,
    #[serde(default)]
    labels: Vec<i64>,
}

#[derive(Debug, Deserialize)]
struct EditPullForm {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    state: Option<String>,
    #[serde(default)]
    labels: Option<Vec<i64>>,
}

/// `forms.MergePullRequestForm`.
#[derive(Debug, Deserialize)]
struct MergeForm {
    #[serde(default, rename = "Do")]
    action: String,
    #[serde(default, rename = "MergeTitleField")]
    title: String,
    #[serde(default, rename = "MergeMessageField")]
    message: String,
    #[serde(default)]
    delete_branch_after_merge: bool,
    #[serde(default)]
    force_merge: bool,
    #[serde(default)]
    head_commit_id: String,
}

/// `issues_model.IsWorkInProgress`'s default prefixes.
const WIP_PREFIXES: &[&str] = &["WIP:", "[WIP]"];

impl State {
    pub(super) fn pull_routes(&mut self, rest: &[&str], req: &Request, caller: &Caller) -> Reply {
        let method = req.method.as_str();
        match rest {
            [] => match method {
                "GET" => self.list_pulls(req, caller),
                "POST" => self.create_pull(req, caller),
                _ => Ok(Response::empty(405)),
            },
            [index] => match method {
                "GET" => self.get_pull(path_int(index), caller),
                "PATCH" => self.edit_pull(path_int(index), req, caller),
                _ => Ok(Response::empty(405)),
            },
            [index, "merge"] => match method {
                "GET" => self.is_merged(path_int(index)),
                "POST" => self.merge_pull(path_int(index), req, caller),
                _ => Ok(Response::empty(405)),
            },
            _ => Err(self.not_found(&[])),
        }
    }

    fn pull(&self, index: i64) -> Option<&Issue> {
        self.issue(index).filter(|i| i.pull.is_some())
    }

    /// `GET /pulls`: `state` open, closed or all — and, unlike the swagger's
    /// "default: open", an omitted state lists **all** (pull_list.go
    /// `listPullRequestStatement` filters only on "open"/"closed"); `labels`
    /// are IDs (repeated `labels=`), any of them matching, a pull carrying
    /// several listed once per match (an INNER JOIN); newest first unless
    /// `sort` says otherwise; paged with `Link` and `X-Total-Count`.
    fn list_pulls(&self, req: &Request, caller: &Caller) -> Reply {
        let state = req.query("state").unwrap_or_default();
        let labels: Vec<i64> = req
            .query_all("labels")
            .iter()
            .filter_map(|v| v.trim().parse().ok())
            .collect();
        let base = req.query("base_branch").unwrap_or_default();
        let poster = req.query("poster").unwrap_or_default();
        let mut found: Vec<&Issue> = Vec::new();
        for issue in self.issues.iter().filter(|i| i.pull.is_some()) {
            let pull = issue.pull.as_ref().map(|p| p.base.as_str()).unwrap_or("");
            let state_ok = match state.as_str() {
                "open" => !issue.closed,
                "closed" => issue.closed,
                _ => true,
            };
            if !state_ok
                || (!base.is_empty() && pull != base)
                || (!poster.is_empty() && !issue.poster.eq_ignore_ascii_case(&poster))
            {
                continue;
            }
            if labels.is_empty() {
                found.push(issue);
            } else {
                for _ in issue.labels.iter().filter(|l| labels.contains(l)) {
                    found.push(issue);
                }
            }
        }
        match req.query("sort").unwrap_or_default().as_str() {
            "oldest" => found.sort_by(|a, b| a.created.cmp(&b.created).then(a.index.cmp(&b.index))),
            "recentupdate" => {
                found.sort_by(|a, b| b.updated.cmp(&a.updated).then(b.index.cmp(&a.index)))
            }
            "leastupdate" => {
                found.sort_by(|a, b| a.updated.cmp(&b.updated).then(a.index.cmp(&b.index)))
            }
            _ => found.sort_by(|a, b| b.created.cmp(&a.created).then(b.index.cmp(&a.index))),
        }
        let (page, limit) = self.paging(req);
        let items = page_of(&found, page, limit)
            .into_iter()
            .map(|i| self.pull_json(i, caller.access))
            .collect();
        Ok(self.list_headers(json_list(items), req, found.len(), true))
    }

    fn get_pull(&self, index: i64, caller: &Caller) -> Reply {
        match self.pull(index) {
            Some(issue) => Ok(Response::json(200, &self.pull_json(issue, caller.access))),
            None => Err(self.not_found(&[])),
        }
    }

    /// Whether `head` merges cleanly into `base`, and their merge base.
    fn check_merge(&self, base: &str, head: &str) -> (bool, String) {
        let (Some(base_sha), Some(head_sha)) = (self.hub.branch(base), self.hub.resolve(head))
        else {
            return (false, String::new());
        };
        let clean = self.hub.merge_tree(&base_sha, &head_sha).is_ok();
        let merge_base = self
            .hub
            .merge_base(&base_sha, &head_sha)
            .unwrap_or_default();
        (clean, merge_base)
    }

    /// `POST /pulls` (pull.go `CreatePullRequest`, `parseCompareInfo`):
    /// 201; `head == base` is 422; a head or base that is no ref is 404 and a
    /// tag or commit 422; an open unmerged pull with the same head and base
    /// is **409**. Labels are IDs; unknown ones are dropped.
    fn create_pull(&mut self, req: &Request, caller: &Caller) -> Reply {
        let doer = self.require_token(caller)?;
        self.require_not_archived()?;
        let form: CreatePullForm = self.body(req)?;
        if form.head == form.base {
            return Err(self.error(
                422,
                "Invalid PullRequest: There are no changes between the head and the base",
            ));
        }
        let head = match form.head.split_once(':') {
            None => form.head.clone(),
            Some((owner, branch)) if owner.eq_ignore_ascii_case(&self.config.owner) => {
                branch.to_string()
            }
            Some(_) => return Err(self.not_found(&[])),
        };
        if form.title.is_empty() {
            return Err(self.error(422, "[Title]: Required"));
        }
        self.check_text_column("content", &form.body)?;
        let is_branch = |name: &str| self.hub.branch(name).is_some();
        let is_other_ref = |name: &str| {
            self.hub.resolve(&format!("refs/tags/{name}")).is_some()
                || (name.len() >= 7
                    && name.chars().all(|c| c.is_ascii_hexdigit())
                    && self.hub.resolve(name).is_some())
        };
        let (base_ok, head_ok) = (is_branch(&form.base), is_branch(&head));
        if (!base_ok && !is_other_ref(&form.base)) || (!head_ok && !is_other_ref(&head)) {
            return Err(self.not_found(&[]));
        }
        if !base_ok || !head_ok {
            return Err(self.error(422, "Invalid PullRequest: base and head must be branches"));
        }
        if let Some(existing) = self.issues.iter().find(|i| {
            !i.closed
                && i.pull
                    .as_ref()
                    .is_some_and(|p| p.merged.is_none() && p.head == head && p.base == form.base)
        }) {
            let pull_id = existing.pull.as_ref().map(|p| p.id).unwrap_or(0);
            return Err(self.error(
                409,
                &format!(
                    "pull request already exists for these targets [id: {pull_id}, issue_id: {}, head_repo_id: 1, base_repo_id: 1, head_branch: {head}, base_branch: {}]",
                    existing.index, form.base
                ),
            ));
        }
        let head_sha = self.hub.branch(&head).unwrap_or_default();
        let (mergeable, merge_base) = self.check_merge(&form.base, &head);
        let pull = Pull {
            id: self.new_id(),
            head: head.clone(),
            base: form.base.clone(),
            head_sha: head_sha.clone(),
            merge_base,
            merged: None,
            mergeable,
        };
        let index = self.new_issue(
            &doer.login,
            &form.title,
            &form.body,
            &form.labels,
            Some(pull),
        );
        let _ = self
            .hub
            .update_ref(&format!("refs/pull/{index}/head"), &head_sha, None);
        let issue = self.pull(index).ok_or_else(|| self.error(500, ""))?;
        Ok(Response::json(201, &self.pull_json(issue, caller.access)))
    }

    /// `PATCH /pulls/{index}`: answers **201** ("TODO this should be 200" in
    /// pull.go); title, body, labels (IDs, replacing, writers only) and state;
    /// 412 for the state of a merged pull; 403 (empty) for a non-poster
    /// without write.
    fn edit_pull(&mut self, index: i64, req: &Request, caller: &Caller) -> Reply {
        let doer = self.require_token(caller)?;
        let form: EditPullForm = self.body(req)?;
        let Some(issue) = self.pull(index).cloned() else {
            return Err(self.not_found(&[]));
        };
        if let Some(body) = &form.body {
            self.check_text_column("content", body)?;
        }
        if !issue.poster.eq_ignore_ascii_case(&doer.login) && !caller.access.can_write() {
            return Err(Response::empty(403));
        }
        if let Some(title) = form.title.as_deref().filter(|t| !t.is_empty()) {
            self.change_title(index, title, &doer.login);
        }
        if let Some(body) = &form.body
            && let Some(issue) = self.issues.iter_mut().find(|i| i.index == index)
        {
            issue.body = body.clone();
            issue.updated = now();
        }
        if let Some(labels) = &form.labels
            && caller.access.can_write()
        {
            self.set_labels(index, labels, &doer.login);
        }
        if let Some(state) = &form.state {
            if issue.pull.as_ref().is_some_and(|p| p.merged.is_some()) {
                return Err(self.error(
                    412,
                    "cannot change state of this pull request, it was already merged",
                ));
            }
            self.close_or_reopen(index, state, &doer.login)?;
        }
        let issue = self.pull(index).ok_or_else(|| self.error(500, ""))?;
        Ok(Response::json(201, &self.pull_json(issue, caller.access)))
    }

    /// `GET /pulls/{index}/merge`: 204 when merged, else (or no such pull) 404.
    fn is_merged(&self, index: i64) -> Reply {
        match self.pull(index).and_then(|i| i.pull.as_ref()) {
            Some(p) if p.merged.is_some() => Ok(Response::empty(204)),
            _ => Err(self.not_found(&[])),
        }
    }

    /// `POST /pulls/{index}/merge` (pull.go `MergePullRequest`,
    /// services/pull/check.go `CheckPullMergeable`): 200 with an empty body;
    /// 404 when closed; **405** when already merged (empty message), when
    /// the caller may not merge (no write, or not on the merge whitelist),
    /// for a WIP title, a conflicting pull ("Please try again later") or
    /// missing approvals (unless an admin forces it); 409 when
    /// `head_commit_id` is stale. `merge` makes a real two-parent merge
    /// commit on the base, by the merging user, now.
    fn merge_pull(&mut self, index: i64, req: &Request, caller: &Caller) -> Reply {
        let doer = self.require_token(caller)?;
        self.require_not_archived()?;
        let form: MergeForm = self.body(req)?;
        let valid = [
            "merge",
            "rebase",
            "rebase-merge",
            "squash",
            "fast-forward-only",
            "manually-merged",
        ];
        if !valid.contains(&form.action.as_str()) {
            return Err(self.error(422, "[Do]: Required"));
        }
        let Some(issue) = self.pull(index).cloned() else {
            return Err(self.not_found(&[]));
        };
        let Some(pull) = issue.pull.clone() else {
            return Err(self.not_found(&[]));
        };
        if pull.merged.is_some() {
            return Err(self.error(405, ""));
        }
        if issue.closed {
            return Err(self.not_found(&[]));
        }
        let mut user = doer.clone();
        user.access = caller.access;
        let rule = first_matching(&self.protections, &pull.base).cloned();
        let allowed = match &rule {
            None => caller.access.can_write(),
            Some(rule) => rule.can_user_merge(&user),
        };
        if !allowed {
            return Err(self.error(405, "User not allowed to merge PR"));
        }
        if WIP_PREFIXES
            .iter()
            .any(|p| issue.title.to_uppercase().starts_with(&p.to_uppercase()))
        {
            return Err(self.error(405, "Work in progress PRs cannot be merged"));
        }
        let (mergeable, _) = self.check_merge(&pull.base, &pull.head_sha);
        if !mergeable {
            return Err(self.error(405, "Please try again later"));
        }
        if let Some(rule) = &rule {
            let approvals = self
                .approvals
                .iter()
                .filter(|(i, _)| *i == index)
                .filter(|(_, who)| self.user(who).is_some_and(|u| rule.is_official_reviewer(u)))
                .map(|(_, who)| who.to_lowercase())
                .collect::<std::collections::BTreeSet<_>>()
                .len() as i64;
            if approvals < rule.required_approvals {
                let admin_override = form.force_merge
                    && caller.access.is_admin()
                    && !rule.block_admin_merge_override;
                if !admin_override {
                    return Err(self.error(405, "Does not have enough approvals"));
                }
            }
        }
        if !matches!(form.action.as_str(), "merge" | "squash") {
            return Err(self.error(
                405,
                &format!(
                    "{} is not allowed an allowed merge style for this repository",
                    form.action
                ),
            ));
        }
        if !form.head_commit_id.is_empty() && form.head_commit_id != pull.head_sha {
            return Err(self.error(409, "head out of date"));
        }
        let base_sha = self
            .hub
            .branch(&pull.base)
            .ok_or_else(|| self.error(500, ""))?;
        let tree = self
            .hub
            .merge_tree(&base_sha, &pull.head_sha)
            .map_err(|_| self.error(409, "merge conflicts"))?;
        let mut message = form.title.trim().to_string();
        if message.is_empty() {
            message = if form.action == "squash" {
                format!("{} (#{index})", issue.title)
            } else {
                format!(
                    "Merge pull request '{}' (#{index}) from {} into {}",
                    issue.title, pull.head, pull.base
                )
            };
        }
        if !form.message.trim().is_empty() {
            message = format!("{message}\n\n{}", form.message.trim());
        }
        let at = now();
        let sig = self.sig(&doer.login, at);
        let parents: Vec<&str> = if form.action == "squash" {
            vec![base_sha.as_str()]
        } else {
            vec![base_sha.as_str(), pull.head_sha.as_str()]
        };
        let sha = self
            .hub
            .commit_tree(&tree, &parents, &message, &sig, &sig)
            .map_err(|e| self.error(500, &e))?;
        self.hub
            .update_ref(&format!("refs/heads/{}", pull.base), &sha, Some(&base_sha))
            .map_err(|_| self.error(409, "merge push out of date"))?;
        if let Some(issue) = self.issues.iter_mut().find(|i| i.index == index) {
            issue.closed = true;
            issue.closed_at = Some(at);
            issue.updated = at;
            if let Some(p) = issue.pull.as_mut() {
                p.merged = Some(Merged {
                    at,
                    by: doer.login.clone(),
                    sha: sha.clone(),
                });
                p.merge_base = self
                    .hub
                    .merge_base(&base_sha, &pull.head_sha)
                    .unwrap_or_default();
            }
        }
        self.add_comment(index, CommentKind::MergePull, &doer.login, "", at);
        self.branch_pushed(&pull.base, Some(&base_sha), &sha, &doer.login);
        if form.delete_branch_after_merge {
            self.delete_merged_head(index, &pull, &doer.login, caller);
        }
        Ok(Response::empty(200))
    }

    /// `delete_branch_after_merge`: only when the merger could delete the
    /// branch (`CanDeleteBranch`) and no other open pull uses it; the merged
    /// pull gets a `delete_branch` event.
    fn delete_merged_head(&mut self, index: i64, pull: &Pull, doer: &str, caller: &Caller) {
        let can_delete = pull.head != self.config.default_branch
            && caller.access.can_write()
            && first_matching(&self.protections, &pull.head).is_none();
        let others = self.issues.iter().any(|i| {
            i.index != index
                && !i.closed
                && i.pull
                    .as_ref()
                    .is_some_and(|p| p.merged.is_none() && p.head == pull.head)
        });
        if !can_delete || others || self.hub.branch(&pull.head).is_none() {
            return;
        }
        if self
            .hub
            .delete_ref(&format!("refs/heads/{}", pull.head))
            .is_ok()
        {
            let id = self.add_comment(index, CommentKind::DeleteBranch, doer, "", now());
            if let Some(c) = self.comments.iter_mut().find(|c| c.id == id) {
                c.old_ref = pull.head.clone();
            }
            self.branch_deleted(&pull.head, doer);
        }
    }

    /// Applies the ref updates the hub's post-receive hook spooled.
    pub(super) fn drain_pushes(&mut self) {
        let processing = self.spool.with_extension("processing");
        if std::fs::rename(&self.spool, &processing).is_err() {
            return;
        }
        let text = std::fs::read_to_string(&processing).unwrap_or_default();
        let _ = std::fs::remove_file(&processing);
        for push in parse_spool(&text) {
            let Some(branch) = push.reference.strip_prefix("refs/heads/") else {
                continue;
            };
            if push.new == ZERO_SHA {
                self.branch_deleted(branch, &push.pusher);
            } else {
                let old = (push.old != ZERO_SHA).then_some(push.old.as_str());
                self.branch_pushed(branch, old, &push.new, &push.pusher);
            }
        }
    }

    /// A branch moved from `old` to `new` by `pusher`: each open pull with
    /// it as head follows it (`refs/pull/<n>/head`) and records a `pull_push`
    /// event (services/pull/pull.go `AddTestPullRequestTask`,
    /// `CreatePushPullComment`: `{"is_force_push":…,"commit_ids":[…]}`, the
    /// new commits oldest first, or `[old, new]` for a force push); pulls
    /// with it as base get their conflict check redone.
    pub(super) fn branch_pushed(
        &mut self,
        branch: &str,
        old: Option<&str>,
        new: &str,
        pusher: &str,
    ) {
        let at = now();
        let heads: Vec<i64> = self
            .issues
            .iter()
            .filter(|i| {
                !i.closed
                    && i.pull.as_ref().is_some_and(|p| {
                        p.merged.is_none() && p.head == branch && p.head_sha != new
                    })
            })
            .map(|i| i.index)
            .collect();
        for index in heads {
            let previous = self
                .issue(index)
                .and_then(|i| i.pull.as_ref())
                .map(|p| p.head_sha.clone())
                .unwrap_or_default();
            let old = old.map(str::to_string).unwrap_or(previous);
            let force = !self.hub.is_ancestor(&old, new);
            let commit_ids: Vec<String> = if force {
                vec![old.clone(), new.to_string()]
            } else {
                let mut ids = self.hub.commits_between(Some(&old), new);
                ids.reverse();
                ids
            };
            let content = json!({"is_force_push": force, "commit_ids": commit_ids}).to_string();
            let _ = self
                .hub
                .update_ref(&format!("refs/pull/{index}/head"), new, Some(&old));
            if let Some(p) = self
                .issues
                .iter_mut()
                .find(|i| i.index == index)
                .and_then(|i| i.pull.as_mut())
            {
                p.head_sha = new.to_string();
            }
            self.add_comment(index, CommentKind::PullPush, pusher, &content, at);
            self.recheck(index);
        }
        let bases: Vec<i64> = self
            .issues
            .iter()
            .filter(|i| !i.closed && i.pull.as_ref().is_some_and(|p| p.base == branch))
            .map(|i| i.index)
            .collect();
        for index in bases {
            self.recheck(index);
        }
    }

    fn recheck(&mut self, index: i64) {
        let Some(pull) = self.pull(index).and_then(|i| i.pull.clone()) else {
            return;
        };
        let (mergeable, merge_base) = self.check_merge(&pull.base, &pull.head_sha);
        if let Some(p) = self
            .issues
            .iter_mut()
            .find(|i| i.index == index)
            .and_then(|i| i.pull.as_mut())
        {
            p.mergeable = mergeable;
            p.merge_base = merge_base;
        }
    }

    /// A branch was deleted by `doer` (API or `git push --delete`):
    /// services/pull/pull.go `AdjustPullsCausedByBranchDeleted` closes every
    /// open unmerged pull with it as head — a `close` event by the deleter,
    /// then a `delete_branch` event (`old_ref`: the branch) by the deleter.
    pub(super) fn branch_deleted(&mut self, branch: &str, doer: &str) {
        let heads: Vec<i64> = self
            .issues
            .iter()
            .filter(|i| {
                !i.closed
                    && i.pull
                        .as_ref()
                        .is_some_and(|p| p.merged.is_none() && p.head == branch)
            })
            .map(|i| i.index)
            .collect();
        for index in heads {
            self.close_issue(index, doer);
            let id = self.add_comment(index, CommentKind::DeleteBranch, doer, "", now());
            if let Some(c) = self.comments.iter_mut().find(|c| c.id == id) {
                c.old_ref = branch.to_string();
            }
        }
    }
}
