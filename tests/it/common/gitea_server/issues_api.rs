//! The issue routes (scope category `issue`): issues and pulls in one index
//! space, their comments and timeline, repo labels and issue labels, with
//! Gitea 1.25's status codes and quirks (routers/api/v1/repo/issue.go,
//! issue_comment.go, issue_label.go, label.go); and the state changes the
//! other routes share (close, reopen, label and timeline events).

use serde::Deserialize;
use serde_json::Value;

use super::State;
use super::api::{Caller, Reply, json_list, path_int};
use super::http::{Request, Response};
use super::now;
use super::store::{
    Comment, CommentKind, Issue, Label, issue_label_filter, normalize_color, page_of,
};

#[derive(Debug, Deserialize)]
struct CreateIssueForm {
    #[serde(default)]
    title: String,
    #[serde(default)]
    body: String,
    #[serde(default)]
    labels: Vec<i64>,
    #[serde(default)]
    closed: bool,
}

#[derive(Debug, Deserialize)]
struct EditIssueForm {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    state: Option<String>,
}

#[derive(Debug, Deserialize)]
struct CommentForm {
    #[serde(default)]
    body: String,
}

#[derive(Debug, Deserialize)]
struct LabelForm {
    #[serde(default)]
    name: String,
    #[serde(default)]
    color: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    exclusive: bool,
    #[serde(default)]
    is_archived: bool,
}

#[derive(Debug, Deserialize)]
struct IssueLabelsForm {
    #[serde(default)]
    labels: Vec<Value>,
}

fn parse_time(text: &str) -> Option<i64> {
    time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
        .ok()
        .map(|t| t.unix_timestamp())
}

impl State {
    pub(super) fn issue(&self, index: i64) -> Option<&Issue> {
        self.issues.iter().find(|i| i.index == index)
    }

    fn issue_mut(&mut self, index: i64) -> Option<&mut Issue> {
        self.issues.iter_mut().find(|i| i.index == index)
    }

    /// One timeline entry on issue `index`.
    pub(super) fn add_comment(
        &mut self,
        index: i64,
        kind: CommentKind,
        poster: &str,
        body: &str,
        at: i64,
    ) -> i64 {
        let id = self.new_id();
        self.comments.push(Comment {
            id,
            issue: index,
            kind,
            poster: poster.to_string(),
            body: body.to_string(),
            created: at,
            updated: at,
            label: None,
            old_ref: String::new(),
            old_title: String::new(),
            new_title: String::new(),
        });
        if let Some(issue) = self.issue_mut(index) {
            issue.updated = at;
        }
        id
    }

    /// `issue_service.CloseIssue`: state, `closed_at` and a `close` event by
    /// `doer`; closing a closed issue does nothing.
    pub(super) fn close_issue(&mut self, index: i64, doer: &str) {
        let at = now();
        let Some(issue) = self.issue_mut(index) else {
            return;
        };
        if issue.closed {
            return;
        }
        issue.closed = true;
        issue.closed_at = Some(at);
        self.add_comment(index, CommentKind::Close, doer, "", at);
    }

    pub(super) fn reopen_issue(&mut self, index: i64, doer: &str) {
        let at = now();
        let Some(issue) = self.issue_mut(index) else {
            return;
        };
        if !issue.closed {
            return;
        }
        issue.closed = false;
        issue.closed_at = None;
        self.add_comment(index, CommentKind::Reopen, doer, "", at);
    }

    /// Sets an issue's labels to `ids` (repo labels only), recording a
    /// `label` event per change: body `"1"` for added, `""` for removed.
    pub(super) fn set_labels(&mut self, index: i64, ids: &[i64], doer: &str) {
        let at = now();
        let known: Vec<i64> = ids
            .iter()
            .copied()
            .filter(|id| self.labels.iter().any(|l| l.id == *id))
            .collect();
        let Some(current) = self.issue(index).map(|i| i.labels.clone()) else {
            return;
        };
        for id in current.iter().filter(|id| !known.contains(id)) {
            self.label_event(index, *id, false, doer, at);
        }
        let mut next = current.clone();
        next.retain(|id| known.contains(id));
        for id in known {
            if !next.contains(&id) {
                next.push(id);
                self.label_event(index, id, true, doer, at);
            }
        }
        if let Some(issue) = self.issue_mut(index) {
            issue.labels = next;
            issue.updated = at;
        }
    }

    fn label_event(&mut self, index: i64, label: i64, added: bool, doer: &str, at: i64) {
        let id = self.add_comment(
            index,
            CommentKind::Label,
            doer,
            if added { "1" } else { "" },
            at,
        );
        if let Some(c) = self.comments.iter_mut().find(|c| c.id == id) {
            c.label = Some(label);
        }
    }

    /// A new issue or pull with the next index; labels get their events.
    pub(super) fn new_issue(
        &mut self,
        poster: &str,
        title: &str,
        body: &str,
        labels: &[i64],
        pull: Option<super::store::Pull>,
    ) -> i64 {
        let at = now();
        let index = self.issues.iter().map(|i| i.index).max().unwrap_or(0) + 1;
        let id = self.new_id();
        self.issues.push(Issue {
            index,
            id,
            poster: poster.to_string(),
            title: title.to_string(),
            body: body.to_string(),
            closed: false,
            created: at,
            updated: at,
            closed_at: None,
            labels: Vec::new(),
            pull,
        });
        self.set_labels(index, labels, poster);
        index
    }

    /// `PATCH` of a title: a `change_title` event when it really changes.
    pub(super) fn change_title(&mut self, index: i64, title: &str, doer: &str) {
        let at = now();
        let Some(old) = self.issue(index).map(|i| i.title.clone()) else {
            return;
        };
        if old == title {
            return;
        }
        if let Some(issue) = self.issue_mut(index) {
            issue.title = title.to_string();
        }
        let id = self.add_comment(index, CommentKind::ChangeTitle, doer, "", at);
        if let Some(c) = self.comments.iter_mut().find(|c| c.id == id) {
            c.old_title = old;
            c.new_title = title.to_string();
        }
    }

    pub(super) fn issue_routes(
        &mut self,
        segments: &[&str],
        req: &Request,
        caller: &Caller,
    ) -> Reply {
        let method = req.method.as_str();
        match segments {
            ["issues"] => match method {
                "GET" => self.list_issues(req),
                "POST" => self.create_issue(req, caller),
                _ => Ok(Response::empty(405)),
            },
            ["issues", "comments", id] => match method {
                "PATCH" => self.edit_comment(path_int(id), req, caller),
                "DELETE" => self.delete_comment(path_int(id), caller),
                _ => Ok(Response::empty(405)),
            },
            ["issues", index] => match method {
                "GET" => self.get_issue(path_int(index)),
                "PATCH" => self.edit_issue(path_int(index), req, caller),
                _ => Ok(Response::empty(405)),
            },
            ["issues", index, "comments"] => match method {
                "GET" => self.list_comments(path_int(index)),
                "POST" => self.create_comment(path_int(index), req, caller),
                _ => Ok(Response::empty(405)),
            },
            ["issues", index, "timeline"] => match method {
                "GET" => self.timeline(path_int(index), req),
                _ => Ok(Response::empty(405)),
            },
            ["issues", index, "labels"] => match method {
                "GET" => self.issue_labels(path_int(index)),
                "POST" => self.change_issue_labels(path_int(index), req, caller, false),
                "PUT" => self.change_issue_labels(path_int(index), req, caller, true),
                "DELETE" => self.clear_issue_labels(path_int(index), caller),
                _ => Ok(Response::empty(405)),
            },
            ["issues", index, "labels", id] => match method {
                "DELETE" => self.remove_issue_label(path_int(index), path_int(id), caller),
                _ => Ok(Response::empty(405)),
            },
            ["labels"] => match method {
                "GET" => self.list_labels(req),
                "POST" => self.create_label(req, caller),
                _ => Ok(Response::empty(405)),
            },
            ["labels", id] => match method {
                "GET" => {
                    let id = path_int(id);
                    match self.labels.iter().find(|l| l.id == id) {
                        Some(l) => Ok(Response::json(200, &self.label_json(l))),
                        None => Err(self.not_found(&[])),
                    }
                }
                _ => Ok(Response::empty(405)),
            },
            _ => Err(self.not_found(&[])),
        }
    }

    /// `GET /issues`: `state` open (default), closed or all; `type` issues or
    /// pulls, unset for both; `labels` by name with the AND-and-drop-unknown
    /// quirk; `created_by`, `q`, `since`/`before`; newest first; paged with
    /// `Link` and `X-Total-Count`.
    fn list_issues(&self, req: &Request) -> Reply {
        let state = req.query("state").unwrap_or_default();
        let kind = req.query("type").unwrap_or_default();
        let names: Vec<String> = req
            .query("labels")
            .unwrap_or_default()
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        let label_ids = issue_label_filter(&self.labels, &names);
        let created_by = match req.query("created_by").filter(|s| !s.is_empty()) {
            Some(name) => match self.user(&name) {
                Some(u) => Some(u.login.clone()),
                None => {
                    return Err(
                        self.error(404, &format!("user does not exist [uid: 0, name: {name}]"))
                    );
                }
            },
            None => None,
        };
        let keyword = req.query("q").unwrap_or_default().to_lowercase();
        let since = req.query("since").and_then(|s| parse_time(&s));
        let before = req.query("before").and_then(|s| parse_time(&s));
        let mut found: Vec<&Issue> = self
            .issues
            .iter()
            .filter(|i| match state.as_str() {
                "closed" => i.closed,
                "all" => true,
                _ => !i.closed,
            })
            .filter(|i| match kind.as_str() {
                "pulls" => i.pull.is_some(),
                "issues" => i.pull.is_none(),
                _ => true,
            })
            .filter(|i| {
                label_ids
                    .as_ref()
                    .is_none_or(|ids| ids.iter().all(|id| i.labels.contains(id)))
            })
            .filter(|i| {
                created_by
                    .as_ref()
                    .is_none_or(|who| i.poster.eq_ignore_ascii_case(who))
            })
            .filter(|i| {
                keyword.is_empty()
                    || i.title.to_lowercase().contains(&keyword)
                    || i.body.to_lowercase().contains(&keyword)
            })
            .filter(|i| since.is_none_or(|t| i.updated >= t))
            .filter(|i| before.is_none_or(|t| i.updated <= t))
            .collect();
        found.sort_by(|a, b| b.created.cmp(&a.created).then(b.index.cmp(&a.index)));
        let (page, limit) = self.paging(req);
        let items = page_of(&found, page, limit)
            .into_iter()
            .map(|i| self.issue_json(i))
            .collect();
        Ok(self.list_headers(json_list(items), req, found.len(), true))
    }

    /// `POST /issues`: 201; labels (IDs) are silently dropped unless the
    /// caller has issue write (routers/api/v1/repo/issue.go `CreateIssue`).
    fn create_issue(&mut self, req: &Request, caller: &Caller) -> Reply {
        let doer = self.require_token(caller)?;
        self.require_not_archived()?;
        let form: CreateIssueForm = self.body(req)?;
        if form.title.trim().is_empty() {
            return Err(self.error(422, "[Title]: Required"));
        }
        self.check_text_column("content", &form.body)?;
        let labels = if caller.access.can_write() {
            form.labels
        } else {
            Vec::new()
        };
        let index = self.new_issue(&doer.login, &form.title, &form.body, &labels, None);
        if form.closed {
            self.close_issue(index, &doer.login);
        }
        let issue = self
            .issue(index)
            .ok_or_else(|| self.error(500, ""))?
            .clone();
        Ok(Response::json(201, &self.issue_json(&issue)))
    }

    fn get_issue(&self, index: i64) -> Reply {
        match self.issue(index) {
            Some(issue) => Ok(Response::json(200, &self.issue_json(issue))),
            None => Err(self.not_found(&[])),
        }
    }

    /// `PATCH /issues/{index}`: answers **201**; 403 with an empty body for
    /// a caller who is neither the poster nor a writer; 412 for changing the
    /// state of a merged pull or an unknown state. Closing a pull here is the
    /// same as closing it through `PATCH /pulls/{index}`.
    fn edit_issue(&mut self, index: i64, req: &Request, caller: &Caller) -> Reply {
        let doer = self.require_token(caller)?;
        let form: EditIssueForm = self.body(req)?;
        let Some(issue) = self.issue(index).cloned() else {
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
            && let Some(issue) = self.issue_mut(index)
        {
            issue.body = body.clone();
            issue.updated = now();
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
        let issue = self.issue(index).ok_or_else(|| self.error(500, ""))?;
        Ok(Response::json(201, &self.issue_json(issue)))
    }

    /// `closeOrReopenIssue`.
    pub(super) fn close_or_reopen(
        &mut self,
        index: i64,
        state: &str,
        doer: &str,
    ) -> Result<(), Response> {
        match state {
            "closed" => self.close_issue(index, doer),
            "open" => self.reopen_issue(index, doer),
            other => return Err(self.error(412, &format!("unknown state: {other}"))),
        }
        Ok(())
    }

    /// `GET /issues/{index}/comments`: plain comments only, oldest first, all
    /// of them (no paging), `X-Total-Count`; a missing issue is **500**.
    fn list_comments(&self, index: i64) -> Reply {
        if self.issue(index).is_none() {
            return Err(self.error(500, ""));
        }
        let comments: Vec<Value> = self
            .comments
            .iter()
            .filter(|c| c.issue == index && c.kind == CommentKind::Comment)
            .map(|c| self.comment_json(c))
            .collect();
        let total = comments.len();
        Ok(json_list(comments).with_header("X-Total-Count", &total.to_string()))
    }

    /// `POST /issues/{index}/comments`: 201; readers may comment; a missing
    /// issue is 500 (GetIssueByIndex's error goes to `APIErrorInternal`).
    fn create_comment(&mut self, index: i64, req: &Request, caller: &Caller) -> Reply {
        let doer = self.require_token(caller)?;
        self.require_not_archived()?;
        let form: CommentForm = self.body(req)?;
        self.check_text_column("content", &form.body)?;
        if form.body.is_empty() {
            return Err(self.error(422, "[Body]: Required"));
        }
        if self.issue(index).is_none() {
            return Err(self.error(500, ""));
        }
        let id = self.add_comment(index, CommentKind::Comment, &doer.login, &form.body, now());
        let comment = self
            .comments
            .iter()
            .find(|c| c.id == id)
            .ok_or_else(|| self.error(500, ""))?;
        Ok(Response::json(201, &self.comment_json(comment)))
    }

    /// `PATCH /issues/comments/{id}`: 200; 403 (empty body) for someone
    /// else's comment without write; 204 for an event that has no text.
    fn edit_comment(&mut self, id: i64, req: &Request, caller: &Caller) -> Reply {
        self.require_not_archived()?;
        self.require_token(caller)?;
        let form: CommentForm = self.body(req)?;
        self.check_text_column("content", &form.body)?;
        if form.body.is_empty() {
            return Err(self.error(422, "[Body]: Required"));
        }
        let Some(comment) = self.comments.iter().find(|c| c.id == id).cloned() else {
            return Err(self.not_found(&[]));
        };
        let allowed = caller
            .login()
            .is_some_and(|who| who.eq_ignore_ascii_case(&comment.poster))
            || (caller.user.is_some() && caller.access.can_write());
        if !allowed {
            return Err(Response::empty(403));
        }
        if !comment.kind.has_content() {
            return Ok(Response::empty(204));
        }
        let at = now();
        if let Some(c) = self.comments.iter_mut().find(|c| c.id == id)
            && c.body != form.body
        {
            c.body = form.body.clone();
            c.updated = at;
        }
        let comment = self
            .comments
            .iter()
            .find(|c| c.id == id)
            .ok_or_else(|| self.error(500, ""))?;
        Ok(Response::json(200, &self.comment_json(comment)))
    }

    /// `DELETE /issues/comments/{id}`: 204; an event (not a plain comment)
    /// also answers 204 and stays.
    fn delete_comment(&mut self, id: i64, caller: &Caller) -> Reply {
        let doer = self.require_token(caller)?;
        let Some(comment) = self.comments.iter().find(|c| c.id == id).cloned() else {
            return Err(self.not_found(&[]));
        };
        if !doer.login.eq_ignore_ascii_case(&comment.poster) && !caller.access.can_write() {
            return Err(Response::empty(403));
        }
        if comment.kind == CommentKind::Comment {
            self.comments.retain(|c| c.id != id);
        }
        Ok(Response::empty(204))
    }

    /// `GET /issues/{index}/timeline`: every event, oldest first, paged like
    /// any list (limit default 30, max 50) — but `X-Total-Count` is the
    /// number of entries on *this page* (`SetTotalCountHeader(len(apiComments))`
    /// in issue_comment.go), and there is no `Link`. A missing issue is 500.
    fn timeline(&self, index: i64, req: &Request) -> Reply {
        if self.issue(index).is_none() {
            return Err(self.error(500, ""));
        }
        let since = req.query("since").and_then(|s| parse_time(&s));
        let before = req.query("before").and_then(|s| parse_time(&s));
        let mut events: Vec<&Comment> = self
            .comments
            .iter()
            .filter(|c| c.issue == index)
            .filter(|c| since.is_none_or(|t| c.updated >= t))
            .filter(|c| before.is_none_or(|t| c.updated <= t))
            .collect();
        events.sort_by(|a, b| a.created.cmp(&b.created).then(a.id.cmp(&b.id)));
        let (page, limit) = self.paging(req);
        let items: Vec<Value> = page_of(&events, page, limit)
            .into_iter()
            .map(|c| self.timeline_json(c))
            .collect();
        let on_page = items.len();
        Ok(json_list(items).with_header("X-Total-Count", &on_page.to_string()))
    }

    fn issue_labels(&self, index: i64) -> Reply {
        match self.issue(index) {
            Some(issue) => Ok(json_list(self.labels_of(issue))),
            None => Err(self.not_found(&[])),
        }
    }

    /// `POST` (add) or `PUT` (replace) `/issues/{index}/labels`
    /// (`prepareForReplaceOrAdd`): IDs or names, never mixed (400); unknown
    /// names ignored; 403 without issue write; 200 with the full set.
    fn change_issue_labels(
        &mut self,
        index: i64,
        req: &Request,
        caller: &Caller,
        replace: bool,
    ) -> Reply {
        let doer = self.require_token(caller)?;
        let form: IssueLabelsForm = self.body(req)?;
        let Some(issue) = self.issue(index).cloned() else {
            return Err(self.not_found(&[]));
        };
        if !caller.access.can_write() {
            return Err(self.error(403, "write permission is required"));
        }
        let mut ids = Vec::new();
        let mut names = Vec::new();
        for value in &form.labels {
            match value {
                Value::Number(n) => ids.push(n.as_f64().unwrap_or(0.0) as i64),
                Value::String(s) => names.push(s.clone()),
                _ => return Err(self.error(400, "a label must be an integer or a string")),
            }
        }
        if !ids.is_empty() && !names.is_empty() {
            return Err(self.error(400, "labels should be an array of strings or integers"));
        }
        for name in &names {
            ids.extend(self.labels.iter().filter(|l| l.name == *name).map(|l| l.id));
        }
        let wanted = if replace {
            ids
        } else {
            let mut all = issue.labels.clone();
            all.extend(ids);
            all
        };
        self.set_labels(index, &wanted, &doer.login);
        let issue = self.issue(index).ok_or_else(|| self.error(500, ""))?;
        Ok(json_list(self.labels_of(issue)))
    }

    fn clear_issue_labels(&mut self, index: i64, caller: &Caller) -> Reply {
        let doer = self.require_token(caller)?;
        if self.issue(index).is_none() {
            return Err(self.not_found(&[]));
        }
        if !caller.access.can_write() {
            return Err(Response::empty(403));
        }
        self.set_labels(index, &[], &doer.login);
        Ok(Response::empty(204))
    }

    /// `DELETE /issues/{index}/labels/{id}`: 204; an unknown label is 422.
    fn remove_issue_label(&mut self, index: i64, id: i64, caller: &Caller) -> Reply {
        let doer = self.require_token(caller)?;
        let Some(issue) = self.issue(index).cloned() else {
            return Err(self.not_found(&[]));
        };
        if !caller.access.can_write() {
            return Err(Response::empty(403));
        }
        if !self.labels.iter().any(|l| l.id == id) {
            return Err(self.error(422, &format!("label does not exist [label_id: {id}]")));
        }
        let rest: Vec<i64> = issue.labels.iter().copied().filter(|l| *l != id).collect();
        self.set_labels(index, &rest, &doer.login);
        Ok(Response::empty(204))
    }

    /// `GET /labels`: sorted by name, paged (max 50), `X-Total-Count`, no `Link`.
    fn list_labels(&self, req: &Request) -> Reply {
        let mut labels: Vec<&Label> = self.labels.iter().collect();
        labels.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
        let (page, limit) = self.paging(req);
        let items = page_of(&labels, page, limit)
            .into_iter()
            .map(|l| self.label_json(l))
            .collect();
        Ok(json_list(items).with_header("X-Total-Count", &labels.len().to_string()))
    }

    /// `POST /labels`: 201; 422 for a missing name or a bad colour;
    /// duplicate names are **not** refused (routers/api/v1/repo/label.go).
    fn create_label(&mut self, req: &Request, caller: &Caller) -> Reply {
        self.require_token(caller)?;
        self.require_writer(caller)?;
        let form: LabelForm = self.body(req)?;
        if form.name.is_empty() {
            return Err(self.error(422, "[Name]: Required"));
        }
        if form.color.is_empty() {
            return Err(self.error(422, "[Color]: Required"));
        }
        let Some(color) = normalize_color(&form.color) else {
            return Err(self.error(422, &format!("invalid color: {}", form.color)));
        };
        let id = self.new_id();
        let label = Label {
            id,
            name: form.name,
            color,
            description: form.description,
            exclusive: form.exclusive,
            archived: form.is_archived,
        };
        let body = self.label_json(&label);
        self.labels.push(label);
        Ok(Response::json(201, &body))
    }
}
