//! The repository routes of the review API over the hub repo: contents
//! (read, create with `new_branch`, update with `sha`, delete), branches
//! (list, get, delete — which closes the deleted head's pulls) and branch
//! protections, as Gitea 1.25 answers them.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::Deserialize;
use serde_json::{Value, json};

use super::State;
use super::api::{Caller, Reply, decode_rest, decode_segment, json_list};
use super::http::{Request, Response};
use super::hub_git::{CommitInfo, Sig};
use super::json::rfc3339;
use super::now;
use super::store::{Protection, first_matching, page_of};
use super::wiki_api::decode_go_base64;

#[derive(Debug, Default, Deserialize)]
struct Identity {
    #[serde(default)]
    name: String,
    #[serde(default)]
    email: String,
}

#[derive(Debug, Default, Deserialize)]
struct Dates {
    #[serde(default)]
    author: Option<String>,
    #[serde(default)]
    committer: Option<String>,
}

/// `CreateFileOptions`, `UpdateFileOptions` and `DeleteFileOptions` in one.
#[derive(Debug, Default, Deserialize)]
struct FileOptions {
    #[serde(default)]
    message: String,
    #[serde(default)]
    branch: String,
    #[serde(default)]
    new_branch: String,
    #[serde(default)]
    author: Identity,
    #[serde(default)]
    committer: Identity,
    #[serde(default)]
    dates: Dates,
    #[serde(default)]
    content: String,
    #[serde(default)]
    sha: String,
    #[serde(default)]
    from_path: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FileOp {
    Create,
    Update,
    Delete,
}

/// `CleanGitTreePath`: `path.Clean("/" + p)` without the slash; `.git`
/// components and the empty path are invalid.
fn clean_tree_path(raw: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in raw.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    if parts.is_empty() || parts.iter().any(|p| p.eq_ignore_ascii_case(".git")) {
        return None;
    }
    Some(parts.join("/"))
}

fn parse_date(text: &Option<String>) -> Option<i64> {
    let text = text.as_deref()?;
    time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
        .ok()
        .map(|t| t.unix_timestamp())
}

impl State {
    pub(super) fn repo_routes(
        &mut self,
        segments: &[&str],
        req: &Request,
        caller: &Caller,
    ) -> Reply {
        let method = req.method.as_str();
        match segments {
            ["branches"] => match method {
                "GET" => self.list_branches(req, caller),
                _ => Ok(Response::empty(405)),
            },
            ["branches", rest @ ..] => {
                let branch = decode_rest(rest);
                match method {
                    "GET" => self.get_branch(&branch, caller),
                    "DELETE" => self.delete_branch_route(&branch, caller),
                    _ => Ok(Response::empty(405)),
                }
            }
            ["branch_protections", rest @ ..] => self.protections_route(rest, req, caller),
            ["contents", rest @ ..] => {
                let path = decode_rest(rest);
                match method {
                    "GET" => self.get_contents(&path, req),
                    "POST" if !path.is_empty() => {
                        self.change_file(FileOp::Create, &path, req, caller)
                    }
                    "PUT" if !path.is_empty() => {
                        self.change_file(FileOp::Update, &path, req, caller)
                    }
                    "DELETE" if !path.is_empty() => {
                        self.change_file(FileOp::Delete, &path, req, caller)
                    }
                    _ => Ok(Response::empty(405)),
                }
            }
            _ => Err(self.not_found(&[])),
        }
    }

    fn verification_json(&self) -> Value {
        json!({"verified": false, "reason": "gpg.error.not_signed_commit", "signature": "", "signer": null, "payload": ""})
    }

    /// `convert.ToPayloadCommit`.
    fn payload_commit_json(&self, commit: &CommitInfo) -> Value {
        let user = |sig: &Sig| {
            let username = self
                .users
                .iter()
                .find(|u| u.email() == sig.email)
                .map(|u| u.login.clone())
                .unwrap_or_default();
            json!({"name": sig.name, "email": sig.email, "username": username})
        };
        json!({
            "id": commit.sha,
            "message": format!("{}\n", commit.message),
            "url": format!("{}/commit/{}", self.html_url(), commit.sha),
            "author": user(&commit.author),
            "committer": user(&commit.committer),
            "verification": self.verification_json(),
            "timestamp": rfc3339(commit.committer.when),
            "added": null,
            "removed": null,
            "modified": null,
        })
    }

    /// `convert.ToBranch`: `user_can_push` and `user_can_merge` are the
    /// caller's, through the matching protection rule if any; the rule's name
    /// is shown to repo admins only.
    fn branch_json(&self, name: &str, sha: &str, caller: &Caller) -> Value {
        let commit = self
            .hub
            .commit_info(sha)
            .map(|c| self.payload_commit_json(&c))
            .unwrap_or(Value::Null);
        let rule = first_matching(&self.protections, name);
        let (can_push, can_merge) = match (&caller.user, rule) {
            (None, _) => (false, false),
            (Some(_), None) => (caller.access.can_write(), caller.access.can_write()),
            (Some(u), Some(rule)) => {
                let mut user = u.clone();
                user.access = caller.access;
                (rule.can_user_push(&user), rule.can_user_merge(&user))
            }
        };
        json!({
            "name": name,
            "commit": commit,
            "protected": rule.is_some(),
            "required_approvals": rule.map(|r| r.required_approvals).unwrap_or(0),
            "enable_status_check": false,
            "status_check_contexts": [],
            "user_can_push": can_push,
            "user_can_merge": can_merge,
            "effective_branch_protection_name": match rule {
                Some(r) if caller.access.is_admin() => r.rule_name.clone(),
                _ => String::new(),
            },
        })
    }

    /// `GET /branches`: paged, with `Link` and `X-Total-Count`.
    fn list_branches(&self, req: &Request, caller: &Caller) -> Reply {
        let branches = self.hub.branches();
        let (page, limit) = self.paging(req);
        let items: Vec<Value> = page_of(&branches, page, limit)
            .iter()
            .map(|(name, sha)| self.branch_json(name, sha, caller))
            .collect();
        Ok(self.list_headers(json_list(items), req, branches.len(), true))
    }

    fn get_branch(&self, branch: &str, caller: &Caller) -> Reply {
        match self.hub.branch(branch) {
            Some(sha) => Ok(Response::json(200, &self.branch_json(branch, &sha, caller))),
            None => Err(self.not_found(&[])),
        }
    }

    /// `DELETE /branches/*` (routers/api/v1/repo/branch.go `DeleteBranch`,
    /// services/repository/branch.go `CanDeleteBranch`): 403 for the default
    /// or a protected branch, 404 for a missing one, 204 when gone; then the
    /// push-update of the deletion closes the branch's open pulls.
    fn delete_branch_route(&mut self, branch: &str, caller: &Caller) -> Reply {
        let doer = self.require_token(caller)?;
        self.require_writer(caller)?;
        self.require_not_archived()?;
        if self.hub.branches().is_empty() {
            return Err(self.error(404, "Git Repository is empty."));
        }
        let Some(_) = self.hub.branch(branch) else {
            return Err(self.error(
                404,
                &format!("branch does not exist [repo_id: 1 name: {branch}]"),
            ));
        };
        if branch == self.config.default_branch {
            return Err(self.error(403, "can not delete default branch"));
        }
        if first_matching(&self.protections, branch).is_some() {
            return Err(self.error(403, "branch protected"));
        }
        self.hub
            .delete_ref(&format!("refs/heads/{branch}"))
            .map_err(|e| self.error(500, &e))?;
        self.branch_deleted(branch, &doer.login);
        Ok(Response::empty(204))
    }

    /// `/branch_protections[/{name}]`: behind `reqToken` and `reqAdmin`, so a
    /// bot with write access gets 403 — it learns its rights on a branch from
    /// `GET /branches/{name}` (`protected`, `user_can_push`, `user_can_merge`).
    fn protections_route(&self, rest: &[&str], req: &Request, caller: &Caller) -> Reply {
        self.require_token(caller)?;
        if !caller.access.is_admin() {
            return Err(self.error(
                403,
                "user should be an owner or a collaborator with admin write of a repository",
            ));
        }
        if req.method != "GET" {
            return Ok(Response::empty(405));
        }
        match rest {
            [] => Ok(json_list(
                self.protections
                    .iter()
                    .map(|p| self.protection_json(p))
                    .collect(),
            )),
            [name] => {
                let name = decode_segment(name);
                match self.protections.iter().find(|p| p.rule_name == name) {
                    Some(p) => Ok(Response::json(200, &self.protection_json(p))),
                    None => Err(self.not_found(&[])),
                }
            }
            _ => Err(self.not_found(&[])),
        }
    }

    /// `convert.ToBranchProtection`.
    fn protection_json(&self, p: &Protection) -> Value {
        let names = |list: &Option<Vec<String>>| list.clone().unwrap_or_default();
        json!({
            "branch_name": p.rule_name,
            "rule_name": p.rule_name,
            "priority": 0,
            "enable_push": p.enable_push,
            "enable_push_whitelist": p.push_whitelist.is_some(),
            "push_whitelist_usernames": names(&p.push_whitelist),
            "push_whitelist_teams": [],
            "push_whitelist_deploy_keys": false,
            "enable_force_push": p.enable_force_push,
            "enable_force_push_allowlist": false,
            "force_push_allowlist_usernames": [],
            "force_push_allowlist_teams": [],
            "force_push_allowlist_deploy_keys": false,
            "enable_merge_whitelist": p.merge_whitelist.is_some(),
            "merge_whitelist_usernames": names(&p.merge_whitelist),
            "merge_whitelist_teams": [],
            "enable_status_check": false,
            "status_check_contexts": [],
            "required_approvals": p.required_approvals,
            "enable_approvals_whitelist": p.approvals_whitelist.is_some(),
            "approvals_whitelist_username": names(&p.approvals_whitelist),
            "approvals_whitelist_teams": [],
            "block_on_rejected_reviews": false,
            "block_on_official_review_requests": false,
            "block_on_outdated_branch": false,
            "dismiss_stale_approvals": false,
            "ignore_stale_approvals": false,
            "require_signed_commits": false,
            "protected_file_patterns": "",
            "unprotected_file_patterns": "",
            "block_admin_merge_override": p.block_admin_merge_override,
            "created_at": rfc3339(p.created),
            "updated_at": rfc3339(p.created),
        })
    }

    /// The ref a `?ref=` names: a branch, a tag or a commit; default branch
    /// when empty (routers/api/v1/repo/file.go `resolveRefCommit`).
    fn resolve_ref(&self, reference: &str) -> Option<(String, String)> {
        let reference = if reference.is_empty() {
            self.config.default_branch.as_str()
        } else {
            reference
        };
        if let Some(sha) = self.hub.branch(reference) {
            return Some((reference.to_string(), sha));
        }
        if let Some(sha) = self.hub.resolve(&format!("refs/tags/{reference}")) {
            return Some((reference.to_string(), sha));
        }
        let looks_like_sha =
            reference.len() >= 7 && reference.chars().all(|c| c.is_ascii_hexdigit());
        looks_like_sha
            .then(|| self.hub.resolve(reference))
            .flatten()
            .map(|sha| (reference.to_string(), sha))
    }

    /// `ContentsResponse` of one entry; `content` only for a file requested
    /// on its own (not in a directory listing).
    fn contents_json(
        &self,
        commit: &str,
        reference: &str,
        path: &str,
        with_content: bool,
    ) -> Value {
        let Some(entry) = self.hub.entry(commit, path) else {
            return Value::Null;
        };
        let name = path.rsplit('/').next().unwrap_or(path);
        let kind = match (entry.kind.as_str(), entry.mode.as_str()) {
            ("tree", _) => "dir",
            ("commit", _) => "submodule",
            (_, "120000") => "symlink",
            _ => "file",
        };
        let blob = (entry.kind == "blob")
            .then(|| self.hub.blob(&entry.sha))
            .flatten()
            .unwrap_or_default();
        let last = self.hub.last_commit_for(commit, path);
        let self_url = format!("{}/contents/{path}?ref={reference}", self.api_url());
        let git_url = format!("{}/git/blobs/{}", self.api_url(), entry.sha);
        let html_url = format!("{}/src/branch/{reference}/{path}", self.html_url());
        let is_file = kind == "file";
        json!({
            "name": name,
            "path": path,
            "sha": entry.sha,
            "last_commit_sha": last.as_ref().map(|c| c.sha.clone()).unwrap_or_default(),
            "last_committer_date": last.as_ref().map(|c| rfc3339(c.committer.when)),
            "last_author_date": last.as_ref().map(|c| rfc3339(c.author.when)),
            "type": kind,
            "size": blob.len(),
            "encoding": (is_file && with_content).then_some("base64"),
            "content": (is_file && with_content).then(|| STANDARD.encode(&blob)),
            "target": (kind == "symlink").then(|| String::from_utf8_lossy(&blob).into_owned()),
            "url": self_url,
            "html_url": html_url,
            "git_url": git_url,
            "download_url": is_file.then(|| format!("{}/raw/branch/{reference}/{path}", self.html_url())),
            "submodule_git_url": null,
            "_links": {"self": self_url, "git": git_url, "html": html_url},
        })
    }

    /// `GET /contents/{path}?ref=`: a file's metadata and content, or a
    /// directory's entries as an array; 404 for a missing ref or path.
    fn get_contents(&self, path: &str, req: &Request) -> Reply {
        let reference = req.query("ref").unwrap_or_default();
        let Some((reference, commit)) = self.resolve_ref(reference.trim()) else {
            return Err(self.not_found(&["object does not exist"]));
        };
        let path = path.trim_matches('/');
        if path.is_empty()
            || self
                .hub
                .entry(&commit, path)
                .is_some_and(|e| e.kind == "tree")
        {
            let items = self
                .hub
                .list_dir(&commit, path)
                .into_iter()
                .map(|(name, _)| {
                    let full = if path.is_empty() {
                        name
                    } else {
                        format!("{path}/{name}")
                    };
                    self.contents_json(&commit, &reference, &full, false)
                })
                .collect();
            return Ok(json_list(items));
        }
        if self.hub.entry(&commit, path).is_none() {
            return Err(self.not_found(&[&format!(
                "object does not exist [id: {commit}, rel_path: {path}]"
            )]));
        }
        Ok(Response::json(
            200,
            &self.contents_json(&commit, &reference, path, true),
        ))
    }

    /// `FileCommitResponse`.
    fn file_commit_json(&self, commit: &CommitInfo) -> Value {
        let meta = |sha: &str, kind: &str| json!({"url": format!("{}/git/{kind}/{sha}", self.api_url()), "sha": sha, "created": rfc3339(commit.committer.when)});
        let user =
            |sig: &Sig| json!({"name": sig.name, "email": sig.email, "date": rfc3339(sig.when)});
        json!({
            "url": format!("{}/git/commits/{}", self.api_url(), commit.sha),
            "sha": commit.sha,
            "created": rfc3339(commit.committer.when),
            "html_url": format!("{}/commit/{}", self.html_url(), commit.sha),
            "author": user(&commit.author),
            "committer": user(&commit.committer),
            "parents": commit.parents.iter().map(|p| meta(p, "commits")).collect::<Vec<_>>(),
            "message": format!("{}\n", commit.message),
            "tree": meta(&commit.tree, "trees"),
        })
    }

    /// `POST|PUT|DELETE /contents/{path}` (routers/api/v1/repo/file.go and
    /// services/repository/files/update.go `ChangeRepoFiles`): one real
    /// commit on `new_branch` (made from `branch`) or on `branch` itself.
    /// Statuses: 422 when `new_branch` exists, the file exists on create, the
    /// `sha` is stale or missing, or the base64 is bad; 404 for a missing
    /// `branch` or (update/delete) file; 403 without write access, or when
    /// the commit would land directly on a branch the caller may not push to.
    /// There is no 409 on this route.
    fn change_file(&mut self, op: FileOp, path: &str, req: &Request, caller: &Caller) -> Reply {
        let doer = self.require_token(caller)?;
        let form: FileOptions = self.body(req)?;
        if op != FileOp::Create && form.sha.is_empty() {
            // DeleteFileOptions.SHA is `binding:"Required"`.
            return Err(self.error(422, "[SHA]: Required"));
        }
        if !caller.access.can_write() {
            return Err(self.error(
                403,
                "user should have a permission to write to the target branch",
            ));
        }
        self.require_not_archived()?;
        let content = match op {
            FileOp::Delete => None,
            _ => Some(decode_go_base64(&form.content).map_err(|m| self.error(422, &m))?),
        };
        let old_branch = if form.branch.is_empty() {
            self.config.default_branch.clone()
        } else {
            form.branch.clone()
        };
        let new_branch = if form.new_branch.is_empty() {
            old_branch.clone()
        } else {
            form.new_branch.clone()
        };
        let empty_repo = self.hub.branches().is_empty();
        let parent = self.hub.branch(&old_branch);
        if parent.is_none() && !empty_repo {
            return Err(self.error(
                404,
                &format!("branch does not exist [repo_id: 1 name: {old_branch}]"),
            ));
        }
        let Some(tree_path) = clean_tree_path(path) else {
            return Err(self.error(
                422,
                &format!("path contains a malformed path component [path: {path}]"),
            ));
        };
        let from_path = if form.from_path.is_empty() {
            tree_path.clone()
        } else {
            clean_tree_path(&form.from_path).ok_or_else(|| {
                self.error(
                    422,
                    &format!(
                        "path contains a malformed path component [path: {}]",
                        form.from_path
                    ),
                )
            })?
        };
        if new_branch != old_branch {
            if self.hub.branch(&new_branch).is_some() {
                return Err(self.error(422, &format!("branch already exists [name: {new_branch}]")));
            }
        } else if let Some(rule) = first_matching(&self.protections, &old_branch) {
            // VerifyBranchProtection: only a direct commit to the branch is checked.
            let mut user = doer.clone();
            user.access = caller.access;
            if !rule.can_user_push(&user) {
                return Err(self.error(
                    403,
                    &format!(
                        "user cannot commit to repo [user: {}]",
                        doer.login.to_lowercase()
                    ),
                ));
            }
        }
        if let Some(parent) = &parent {
            self.check_file_change(op, parent, &tree_path, &from_path, &form.sha)?;
        } else if op == FileOp::Delete {
            return Err(self.error(
                404,
                &format!("branch does not exist [repo_id: 1 name: {old_branch}]"),
            ));
        }
        let mut changes: Vec<(String, Option<Vec<u8>>)> = Vec::new();
        if from_path != tree_path {
            changes.push((from_path.clone(), None));
        }
        changes.push((tree_path.clone(), content));
        let message = if form.message.trim().is_empty() {
            let verb = match op {
                FileOp::Create => "Add",
                FileOp::Update => "Update",
                FileOp::Delete => "Delete",
            };
            format!("{verb} {tree_path}")
        } else {
            form.message.trim().to_string()
        };
        let at = now();
        let doer_sig = self.sig(&doer.login, at);
        let identity = |id: &Identity| {
            (!id.name.is_empty() || !id.email.is_empty()).then(|| Sig {
                name: id.name.clone(),
                email: id.email.clone(),
                when: at,
            })
        };
        // Only one of author and committer given: it is used for both.
        let (mut author, mut committer) = match (identity(&form.author), identity(&form.committer))
        {
            (Some(a), Some(c)) => (a, c),
            (Some(a), None) => (a.clone(), a),
            (None, Some(c)) => (c.clone(), c),
            (None, None) => (doer_sig.clone(), doer_sig),
        };
        if let Some(when) = parse_date(&form.dates.author) {
            author.when = when;
        }
        if let Some(when) = parse_date(&form.dates.committer) {
            committer.when = when;
        }
        let tree = self
            .hub
            .tree_with(parent.as_deref(), &changes)
            .map_err(|e| self.error(500, &e))?;
        let parents: Vec<&str> = parent.iter().map(String::as_str).collect();
        let sha = self
            .hub
            .commit_tree(&tree, &parents, &message, &author, &committer)
            .map_err(|e| self.error(500, &e))?;
        let target_old = self.hub.branch(&new_branch);
        self.hub
            .update_ref(
                &format!("refs/heads/{new_branch}"),
                &sha,
                target_old.as_deref(),
            )
            .map_err(|e| self.error(500, &e))?;
        self.branch_pushed(&new_branch, target_old.as_deref(), &sha, &doer.login);
        let commit = self
            .hub
            .commit_info(&sha)
            .ok_or_else(|| self.error(500, "commit vanished"))?;
        let content_json = match op {
            FileOp::Delete => Value::Null,
            _ => self.contents_json(&sha, &new_branch, &tree_path, true),
        };
        let body = json!({
            "content": content_json,
            "commit": self.file_commit_json(&commit),
            "verification": self.verification_json(),
        });
        let status = if op == FileOp::Create { 201 } else { 200 };
        Ok(Response::json(status, &body))
    }

    /// `handleCheckErrors` against the branch's current commit.
    fn check_file_change(
        &self,
        op: FileOp,
        commit: &str,
        tree_path: &str,
        from_path: &str,
        sha: &str,
    ) -> Result<(), Response> {
        if op != FileOp::Create {
            let Some(from) = self.hub.entry(commit, from_path) else {
                return Err(self.error(
                    404,
                    &format!("object does not exist [id: , rel_path: {from_path}]"),
                ));
            };
            if sha != from.sha {
                return Err(self.error(
                    422,
                    &format!("sha does not match [given: {sha}, expected: {}]", from.sha),
                ));
            }
        }
        if op == FileOp::Delete {
            return Ok(());
        }
        let parts: Vec<&str> = tree_path.split('/').collect();
        let mut sub = String::new();
        for (i, part) in parts.iter().enumerate() {
            if !sub.is_empty() {
                sub.push('/');
            }
            sub.push_str(part);
            let Some(entry) = self.hub.entry(commit, &sub) else {
                break;
            };
            if i < parts.len() - 1 {
                if entry.kind != "tree" {
                    return Err(self.error(
                        422,
                        &format!("a file exists where you’re trying to create a subdirectory [path: {sub}]"),
                    ));
                }
            } else if entry.kind == "tree" {
                return Err(self.error(
                    422,
                    &format!(
                        "a directory exists where you’re trying to create a file [path: {sub}]"
                    ),
                ));
            } else if from_path != tree_path || op == FileOp::Create {
                return Err(self.error(
                    422,
                    &format!("repository file already exists [path: {tree_path}]"),
                ));
            }
        }
        Ok(())
    }
}
