//! JSON bodies as Gitea's `services/convert` builds them: `User`,
//! `Repository`, `Label`, `Issue`, `PullRequest`, `Comment`,
//! `TimelineComment`, named and spelt as in the 1.25.4 swagger.

use serde_json::{Value, json};

use super::State;
use super::store::{Access, Comment, CommentKind, Issue, Label};

/// RFC 3339 in UTC, seconds resolution, as Go's `time.Time` marshals it.
pub fn rfc3339(unix: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp(unix)
        .ok()
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_default()
}

impl State {
    pub(super) fn html_url(&self) -> String {
        format!(
            "{}/{}/{}",
            self.base_url, self.config.owner, self.config.repo
        )
    }

    pub(super) fn api_url(&self) -> String {
        format!(
            "{}/api/v1/repos/{}/{}",
            self.base_url, self.config.owner, self.config.repo
        )
    }

    /// `convert.ToUser`; an unknown login (a deleted user) is Gitea's ghost.
    pub(super) fn user_json(&self, login: &str) -> Value {
        let (id, login, full_name, is_admin, created) = match self.user(login) {
            Some(u) => (
                u.id,
                u.login.clone(),
                u.full_name.clone(),
                u.site_admin,
                u.created,
            ),
            None => (-1, "Ghost".to_string(), String::new(), false, 0),
        };
        json!({
            "id": id, "login": login, "login_name": "", "source_id": 0,
            "full_name": full_name, "email": format!("{login}@noreply.localhost"),
            "avatar_url": format!("{}/avatars/{id}", self.base_url),
            "html_url": format!("{}/{login}", self.base_url),
            "language": "", "is_admin": is_admin,
            "last_login": rfc3339(created), "created": rfc3339(created),
            "restricted": false, "active": true, "prohibit_login": false, "location": "",
            "website": "", "description": "", "visibility": "public",
            "followers_count": 0, "following_count": 0, "starred_repos_count": 0
        })
    }

    /// `convert.ToRepo`, with `permissions` for the caller's access.
    pub(super) fn repository_json(&self, access: Access) -> Value {
        let c = &self.config;
        let created = "2026-01-20T10:00:00Z";
        let open_issues = self
            .issues
            .iter()
            .filter(|i| i.pull.is_none() && !i.closed)
            .count();
        let open_pulls = self
            .issues
            .iter()
            .filter(|i| i.pull.is_some() && !i.closed)
            .count();
        let mut repo = json!({
            "id": 1,
            "owner": self.user_json(&c.owner),
            "name": c.repo,
            "full_name": format!("{}/{}", c.owner, c.repo),
            "description": "",
            "empty": self.hub.branches().is_empty(),
            "private": c.private,
            "fork": false,
            "template": false,
            "parent": null,
            "mirror": false,
            "size": 0,
            "language": "",
            "languages_url": format!("{}/languages", self.api_url()),
            "html_url": self.html_url(),
            "url": self.api_url(),
            "link": "",
            "ssh_url": format!("git@127.0.0.1:{}/{}.git", c.owner, c.repo),
            "clone_url": format!("{}.git", self.html_url()),
            "original_url": "",
            "website": "",
            "stars_count": 0, "forks_count": 0, "watchers_count": 1,
            "open_issues_count": open_issues, "open_pr_counter": open_pulls, "release_counter": 0,
            "default_branch": c.default_branch,
            "archived": c.archived,
            "created_at": created,
            "updated_at": created,
            "archived_at": "1970-01-01T00:00:00Z",
            "permissions": {
                "admin": access.is_admin(),
                "push": access.can_write(),
                "pull": access.can_read(),
            },
        });
        let settings = json!({
            "has_issues": true,
            "internal_tracker": {"enable_time_tracker": true, "allow_only_contributors_to_track_time": true, "enable_issue_dependencies": true},
            "has_wiki": c.has_wiki,
            "external_wiki": null,
            "has_pull_requests": true,
            "has_projects": true,
            "projects_mode": "all",
            "has_releases": true,
            "has_packages": true,
            "has_actions": true,
            "has_code": true,
            "ignore_whitespace_conflicts": false,
            // The merge route makes merge and squash commits only.
            "allow_merge_commits": true,
            "allow_rebase": false,
            "allow_rebase_explicit": false,
            "allow_squash_merge": true,
            "allow_fast_forward_only_merge": false,
            "allow_rebase_update": true,
            "allow_manual_merge": false,
            "autodetect_manual_merge": false,
            "default_delete_branch_after_merge": false,
            "default_merge_style": "merge",
            "default_allow_maintainer_edit": false,
            "avatar_url": "",
            "internal": false,
            "mirror_interval": "",
            "object_format_name": "sha1",
            "mirror_updated": "0001-01-01T00:00:00Z",
            "repo_transfer": null,
            "topics": [],
            "licenses": []
        });
        if let (Some(repo), Some(settings)) = (repo.as_object_mut(), settings.as_object()) {
            repo.extend(settings.clone());
        }
        repo
    }

    /// `convert.ToLabel`: the colour goes out without its `#`.
    pub(super) fn label_json(&self, label: &Label) -> Value {
        json!({
            "id": label.id,
            "name": label.name,
            "exclusive": label.exclusive,
            "is_archived": label.archived,
            "color": label.color.trim_start_matches('#'),
            "description": label.description,
            "url": format!("{}/labels/{}", self.api_url(), label.id),
        })
    }

    pub(super) fn labels_of(&self, issue: &Issue) -> Vec<Value> {
        let mut labels: Vec<&Label> = self
            .labels
            .iter()
            .filter(|l| issue.labels.contains(&l.id))
            .collect();
        labels.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
        labels.into_iter().map(|l| self.label_json(l)).collect()
    }

    fn issue_html_url(&self, issue: &Issue) -> String {
        let kind = if issue.pull.is_some() {
            "pulls"
        } else {
            "issues"
        };
        format!("{}/{kind}/{}", self.html_url(), issue.index)
    }

    fn plain_comment_count(&self, index: i64) -> usize {
        self.comments
            .iter()
            .filter(|c| c.issue == index && c.kind == CommentKind::Comment)
            .count()
    }

    /// `convert.ToAPIIssue`.
    pub(super) fn issue_json(&self, issue: &Issue) -> Value {
        let pull_request = issue.pull.as_ref().map(|p| {
            json!({
                "merged": p.merged.is_some(),
                "merged_at": p.merged.as_ref().map(|m| rfc3339(m.at)),
                "draft": false,
                "html_url": self.issue_html_url(issue),
            })
        });
        json!({
            "id": issue.id,
            "url": format!("{}/issues/{}", self.api_url(), issue.index),
            "html_url": self.issue_html_url(issue),
            "number": issue.index,
            "user": self.user_json(&issue.poster),
            "original_author": "",
            "original_author_id": 0,
            "title": issue.title,
            "body": issue.body,
            "ref": "",
            "assets": [],
            "labels": self.labels_of(issue),
            "milestone": null,
            "assignee": null,
            "assignees": null,
            "state": if issue.closed { "closed" } else { "open" },
            "is_locked": false,
            "comments": self.plain_comment_count(issue.index),
            "created_at": rfc3339(issue.created),
            "updated_at": rfc3339(issue.updated),
            "closed_at": issue.closed_at.map(rfc3339),
            "due_date": null,
            "time_estimate": 0,
            "pull_request": pull_request,
            "repository": {
                "id": 1,
                "name": self.config.repo,
                "owner": self.config.owner,
                "full_name": format!("{}/{}", self.config.owner, self.config.repo),
            },
            "pin_order": 0,
        })
    }

    /// `convert.ToAPIPullRequest`.
    pub(super) fn pull_json(&self, issue: &Issue, access: Access) -> Value {
        let Some(pull) = &issue.pull else {
            return Value::Null;
        };
        let repo = self.repository_json(access);
        let branch_info = |name: &str, sha: &str| {
            json!({
                "label": name,
                "ref": name,
                "sha": sha,
                "repo_id": 1,
                "repo": repo,
            })
        };
        let base_sha = self.hub.branch(&pull.base).unwrap_or_default();
        let html = self.issue_html_url(issue);
        json!({
            "id": pull.id,
            "url": html,
            "number": issue.index,
            "user": self.user_json(&issue.poster),
            "title": issue.title,
            "body": issue.body,
            "labels": self.labels_of(issue),
            "milestone": null,
            "assignee": null,
            "assignees": null,
            "requested_reviewers": [],
            "requested_reviewers_teams": [],
            "state": if issue.closed { "closed" } else { "open" },
            "draft": false,
            "is_locked": false,
            "comments": self.plain_comment_count(issue.index),
            "review_comments": 0,
            "additions": 0,
            "deletions": 0,
            "changed_files": 0,
            "html_url": html,
            "diff_url": format!("{html}.diff"),
            "patch_url": format!("{html}.patch"),
            "mergeable": pull.mergeable && pull.merged.is_none(),
            "merged": pull.merged.is_some(),
            "merged_at": pull.merged.as_ref().map(|m| rfc3339(m.at)),
            "merge_commit_sha": pull.merged.as_ref().map(|m| m.sha.clone()),
            "merged_by": pull.merged.as_ref().map(|m| self.user_json(&m.by)),
            "allow_maintainer_edit": false,
            "base": branch_info(&pull.base, &base_sha),
            "head": branch_info(&pull.head, &pull.head_sha),
            "merge_base": pull.merge_base,
            "due_date": null,
            "created_at": rfc3339(issue.created),
            "updated_at": rfc3339(issue.updated),
            "closed_at": issue.closed_at.map(rfc3339),
            "pin_order": 0,
        })
    }

    fn comment_urls(&self, comment: &Comment) -> (String, String, String) {
        let Some(issue) = self.issues.iter().find(|i| i.index == comment.issue) else {
            return Default::default();
        };
        let html = self.issue_html_url(issue);
        let anchor = format!("{html}#issuecomment-{}", comment.id);
        if issue.pull.is_some() {
            (anchor, html, String::new())
        } else {
            (anchor, String::new(), html)
        }
    }

    /// `convert.ToAPIComment`.
    pub(super) fn comment_json(&self, comment: &Comment) -> Value {
        let (html_url, pull_request_url, issue_url) = self.comment_urls(comment);
        json!({
            "id": comment.id,
            "html_url": html_url,
            "pull_request_url": pull_request_url,
            "issue_url": issue_url,
            "user": self.user_json(&comment.poster),
            "original_author": "",
            "original_author_id": 0,
            "body": comment.body,
            "assets": [],
            "created_at": rfc3339(comment.created),
            "updated_at": rfc3339(comment.updated),
        })
    }

    /// `convert.ToTimelineComment`: every key is present; those a kind does
    /// not use are null, `""` or 0.
    pub(super) fn timeline_json(&self, comment: &Comment) -> Value {
        let (html_url, pull_request_url, issue_url) = self.comment_urls(comment);
        let label = comment
            .label
            .and_then(|id| self.labels.iter().find(|l| l.id == id))
            .map(|l| self.label_json(l));
        json!({
            "id": comment.id,
            "type": comment.kind.as_str(),
            "html_url": html_url,
            "pull_request_url": pull_request_url,
            "issue_url": issue_url,
            "user": self.user_json(&comment.poster),
            "body": comment.body,
            "created_at": rfc3339(comment.created),
            "updated_at": rfc3339(comment.updated),
            "old_project_id": 0,
            "project_id": 0,
            "old_milestone": null,
            "milestone": null,
            "tracked_time": null,
            "old_title": comment.old_title,
            "new_title": comment.new_title,
            "old_ref": comment.old_ref,
            "new_ref": "",
            "ref_issue": null,
            "ref_comment": null,
            "ref_action": "",
            "ref_commit_sha": "",
            "review_id": 0,
            "label": label,
            "assignee": null,
            "assignee_team": null,
            "removed_assignee": false,
            "resolve_doer": null,
            "dependent_issue": null,
        })
    }
}
