//! Gitea v1.25.4's API behaviour for the routes learnsync uses: auth and scope
//! checks, repository, version, and the wiki endpoints with their quirks.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use learnsync::gitea::page_name::{
    RESERVED_NAMES, git_path_to_sub_url, query_unescape, sub_url_to_git_path, sub_url_to_title,
    title_to_sub_url,
};
use serde_json::{Value, json};

use super::http::{Request, Response};
use super::wiki_git::{CommitInfo, Ident};
use super::{Scope, State};

/// `[api] DEFAULT_PAGING_NUM`.
const DEFAULT_PAGING_NUM: i64 = 30;
/// `[git] COMMITS_RANGE_SIZE`, the fixed page size of revisions.
const COMMITS_RANGE_SIZE: usize = 50;
/// `[api] DEFAULT_MAX_BLOB_SIZE`: bigger pages come back with empty content.
const MAX_BLOB_SIZE: usize = 10 * 1024 * 1024;

impl State {
    fn error(&self, status: u16, message: &str) -> Response {
        Response::json(
            status,
            &json!({"message": message, "url": format!("{}/api/swagger", self.base_url)}),
        )
    }

    fn not_found(&self, errors: &[&str]) -> Response {
        Response::json(
            404,
            &json!({"message": "not found", "url": format!("{}/api/swagger", self.base_url), "errors": errors}),
        )
    }

    pub(super) fn handle(&mut self, req: &Request) -> Response {
        let path = req.path().to_string();
        let Some(rest) = path.strip_prefix("/api/v1/") else {
            return self.not_found(&[]);
        };
        let scope = match self.authenticate(req) {
            Ok(scope) => scope,
            Err(response) => return response,
        };
        if rest == "version" {
            return match req.method.as_str() {
                "GET" => Response::json(200, &json!({"version": self.config.version})),
                _ => Response::empty(405),
            };
        }
        let Some(repo_rest) = rest.strip_prefix("repos/") else {
            return self.not_found(&[]);
        };
        let is_write = !matches!(req.method.as_str(), "GET" | "HEAD");
        if is_write && scope == Some(Scope::Read) {
            return self.error(
                403,
                "token does not have at least one of required scope(s), required=[write:repository], token scope=read:repository",
            );
        }
        let mut parts = repo_rest.splitn(3, '/');
        let (owner, name) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        let tail = parts.next();
        if !owner.eq_ignore_ascii_case(&self.config.owner)
            || !name.eq_ignore_ascii_case(&self.config.repo)
            || (self.config.private && scope.is_none())
        {
            return self.not_found(&[]);
        }
        let Some(tail) = tail else {
            return match req.method.as_str() {
                "GET" => Response::json(200, &self.repository_json()),
                _ => Response::empty(405),
            };
        };
        let Some(wiki) = tail.strip_prefix("wiki/") else {
            return self.not_found(&[]);
        };
        if !self.config.has_wiki {
            return self.not_found(&[]);
        }
        if is_write {
            if scope.is_none() {
                return self.error(401, "token is required");
            }
            if self.config.archived {
                return self.error(423, "repo is archived");
            }
        }
        let method = req.method.as_str();
        if wiki == "pages" {
            return match method {
                "GET" => self.list_pages(req),
                _ => Response::empty(405),
            };
        }
        if wiki == "new" {
            return match method {
                "POST" => self.create_page(req),
                _ => Response::empty(405),
            };
        }
        if let Some(raw) = wiki.strip_prefix("page/").filter(|r| !r.contains('/')) {
            let web = web_path_from_request(raw);
            return match method {
                "GET" => self.get_page(&web),
                "PATCH" => self.edit_page(&web, req),
                "DELETE" => self.delete_page(&web),
                _ => Response::empty(405),
            };
        }
        if let Some(raw) = wiki.strip_prefix("revisions/").filter(|r| !r.contains('/')) {
            let raw = if raw.is_empty() { "Home" } else { raw };
            return match method {
                "GET" => self.revisions(&web_path_from_request(raw), req),
                _ => Response::empty(405),
            };
        }
        self.not_found(&[])
    }

    /// `Authorization: token|bearer <T>`; a bad credential is 401 everywhere.
    fn authenticate(&self, req: &Request) -> Result<Option<Scope>, Response> {
        let Some(value) = req.header("authorization") else {
            return Ok(None);
        };
        let parts: Vec<&str> = value.split_whitespace().collect();
        if let [scheme, token] = parts.as_slice()
            && (scheme.eq_ignore_ascii_case("token") || scheme.eq_ignore_ascii_case("bearer"))
            && let Some(scope) = self.tokens.get(*token)
        {
            return Ok(Some(*scope));
        }
        Err(self.error(401, "invalid username, password or token"))
    }

    fn html_url(&self) -> String {
        format!(
            "{}/{}/{}",
            self.base_url, self.config.owner, self.config.repo
        )
    }

    fn repository_json(&self) -> Value {
        let c = &self.config;
        let created = "2026-01-20T10:00:00Z";
        let owner = json!({
                "id": 1, "login": c.owner, "login_name": "", "source_id": 0,
                "full_name": "", "email": format!("{}@noreply.localhost", c.owner),
                "avatar_url": format!("{}/avatars/1", self.base_url),
                "html_url": format!("{}/{}", self.base_url, c.owner),
                "language": "", "is_admin": false, "last_login": created, "created": created,
                "restricted": false, "active": true, "prohibit_login": false, "location": "",
                "website": "", "description": "", "visibility": "public",
                "followers_count": 0, "following_count": 0, "starred_repos_count": 0
        });
        let mut repo = json!({
            "id": 1,
            "owner": owner,
            "name": c.repo,
            "full_name": format!("{}/{}", c.owner, c.repo),
            "description": "",
            "empty": false,
            "private": c.private,
            "fork": false,
            "template": false,
            "parent": null,
            "mirror": false,
            "size": 0,
            "language": "",
            "languages_url": format!("{}/api/v1/repos/{}/{}/languages", self.base_url, c.owner, c.repo),
            "html_url": self.html_url(),
            "url": format!("{}/api/v1/repos/{}/{}", self.base_url, c.owner, c.repo),
            "link": "",
            "ssh_url": format!("git@127.0.0.1:{}/{}.git", c.owner, c.repo),
            "clone_url": format!("{}.git", self.html_url()),
            "original_url": "",
            "website": "",
            "stars_count": 0, "forks_count": 0, "watchers_count": 1,
            "open_issues_count": 0, "open_pr_counter": 0, "release_counter": 0,
            "default_branch": "main",
            "archived": c.archived,
            "created_at": created,
            "updated_at": created,
            "archived_at": "1970-01-01T00:00:00Z",
            "permissions": {"admin": true, "push": true, "pull": true},
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
            "allow_merge_commits": true,
            "allow_rebase": true,
            "allow_rebase_explicit": true,
            "allow_squash_merge": true,
            "allow_fast_forward_only_merge": true,
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

    fn commit_json(&self, c: &CommitInfo) -> Value {
        let user = |(name, email, at): &(String, String, i64)| json!({"name": name, "email": email, "date": rfc3339(*at)});
        json!({"sha": c.sha, "author": user(&c.author), "commiter": user(&c.committer), "message": c.message})
    }

    fn metadata_json(&self, head: &str, web: &str, git_path: &str) -> Value {
        let last = self.wiki.log(head, git_path, 0, 1);
        json!({
            "title": sub_url_to_title(web),
            "html_url": format!("{}/wiki/{}", self.html_url(), web),
            "sub_url": web,
            "last_commit": last.first().map(|c| self.commit_json(c)),
        })
    }

    fn page_json(&self, head: &str, web: &str, git_path: &str) -> Value {
        let mut value = self.metadata_json(head, web, git_path);
        let content = self.wiki.read(head, git_path).unwrap_or_default();
        let b64 = |bytes: Option<Vec<u8>>| bytes.map(|b| STANDARD.encode(b)).unwrap_or_default();
        if let Some(obj) = value.as_object_mut() {
            let content = if content.len() > MAX_BLOB_SIZE {
                String::new()
            } else {
                STANDARD.encode(&content)
            };
            obj.insert("content_base64".into(), json!(content));
            obj.insert(
                "commit_count".into(),
                json!(self.wiki.commit_count(head, git_path)),
            );
            obj.insert(
                "sidebar".into(),
                json!(b64(self.wiki.read(head, "_Sidebar.md"))),
            );
            obj.insert(
                "footer".into(),
                json!(b64(self.wiki.read(head, "_Footer.md"))),
            );
        }
        value
    }

    /// `findEntryForFile`: the canonical git path, then its unescaped form.
    fn find_page_file(&self, head: &str, web: &str) -> Option<String> {
        let git_path = sub_url_to_git_path(web);
        if self.wiki.has_file(head, &git_path) {
            return Some(git_path);
        }
        let unescaped = query_unescape(&git_path)?;
        self.wiki.has_file(head, &unescaped).then_some(unescaped)
    }

    /// `prepareGitPath`: is there a file for this web path, and which one.
    fn prepare_git_path(&self, web: &str) -> (bool, String) {
        let unescaped = format!("{web}.md");
        let git_path = sub_url_to_git_path(web);
        let Some(head) = self.wiki.head() else {
            return (false, git_path);
        };
        if self.wiki.has_file(&head, &unescaped) {
            return (true, unescaped);
        }
        let exists = self.wiki.has_file(&head, &git_path);
        (exists, git_path)
    }

    fn list_pages(&self, req: &Request) -> Response {
        let Some(head) = self.wiki.head() else {
            return self.not_found(&["no such file or directory"]);
        };
        let form_int = |key: &str| {
            req.query(key)
                .and_then(|v| v.parse::<i64>().ok())
                .unwrap_or(0)
        };
        let page = form_int("page").max(1);
        let mut limit = form_int("limit");
        if limit <= 1 {
            limit = DEFAULT_PAGING_NUM;
        }
        let skip = (page - 1).saturating_mul(limit);
        let max = page.saturating_mul(limit);
        let entries = self.wiki.root_entries(&head);
        let mut pages = Vec::new();
        for (i, entry) in entries.iter().enumerate() {
            let i = i as i64;
            if i < skip || i >= max || entry.mode != "100644" {
                continue;
            }
            let Some(web) = git_path_to_sub_url(&entry.name) else {
                continue;
            };
            pages.push(self.metadata_json(&head, &web, &entry.name));
        }
        Response::json(200, &Value::Array(pages))
            .with_header("X-Total-Count", &entries.len().to_string())
    }

    fn get_page(&self, web: &str) -> Response {
        let Some(head) = self.wiki.head() else {
            return self.not_found(&["no such file or directory"]);
        };
        match self.find_page_file(&head, web) {
            Some(git_path) => Response::json(200, &self.page_json(&head, web, &git_path)),
            None => self.not_found(&[]),
        }
    }

    fn parse_options(&self, req: &Request) -> Result<WikiOptions, Response> {
        let value: Value =
            serde_json::from_slice(&req.body).map_err(|e| self.error(422, &format!("[]: {e}")))?;
        let field = |key: &str| -> Result<String, Response> {
            match value.get(key) {
                None | Some(Value::Null) => Ok(String::new()),
                Some(Value::String(s)) => Ok(s.clone()),
                Some(_) => Err(self.error(422, &format!("[{key}]: must be a string"))),
            }
        };
        Ok(WikiOptions {
            title: field("title")?,
            content_base64: field("content_base64")?,
            message: field("message")?,
        })
    }

    fn create_page(&mut self, req: &Request) -> Response {
        let form = match self.parse_options(req) {
            Ok(form) => form,
            Err(response) => return response,
        };
        if form.title.trim().is_empty() {
            return self.error(400, "%!s(<nil>)");
        }
        let web = title_to_sub_url(&form.title);
        let message = if form.message.is_empty() {
            format!("Add {:?}", form.title)
        } else {
            form.message.clone()
        };
        let content = match decode_go_base64(&form.content_base64) {
            Ok(content) => content,
            Err(message) => return self.error(400, &message),
        };
        if let Some(reserved) = reserved_segment(&web) {
            return self.error(400, &format!("wiki title is reserved: {reserved}"));
        }
        let (exists, git_path) = self.prepare_git_path(&web);
        if exists {
            return self.error(
                400,
                &format!("wiki page already exists [title: {git_path}]"),
            );
        }
        let who = self.api_user();
        if let Err(e) = self
            .wiki
            .commit(&[], Some((&git_path, &content)), &message, &who)
        {
            return self.error(500, &e);
        }
        self.page_response(201, &web)
    }

    fn edit_page(&mut self, old: &str, req: &Request) -> Response {
        let form = match self.parse_options(req) {
            Ok(form) => form,
            Err(response) => return response,
        };
        // An empty title becomes "unnamed" (go-gitea/gitea#39179): the page is renamed.
        let new = title_to_sub_url(&form.title);
        let message = if form.message.is_empty() {
            format!("Update {new:?}")
        } else {
            form.message.clone()
        };
        let content = match decode_go_base64(&form.content_base64) {
            Ok(content) => content,
            Err(message) => return self.error(400, &message),
        };
        if reserved_segment(&new).is_some() {
            return self.error(500, "");
        }
        let (new_exists, new_path) = self.prepare_git_path(&new);
        let mut remove = Vec::new();
        if old != new {
            let (old_exists, old_path) = self.prepare_git_path(old);
            if old_exists {
                remove.push(old_path);
            }
        } else if new_exists {
            remove.push(new_path.clone());
        }
        let who = self.api_user();
        if let Err(e) = self
            .wiki
            .commit(&remove, Some((&new_path, &content)), &message, &who)
        {
            return self.error(500, &e);
        }
        self.page_response(200, &new)
    }

    fn delete_page(&mut self, web: &str) -> Response {
        if self.wiki.head().is_none() {
            // Gitea initialises the wiki, then fails to clone the missing branch.
            let _ = self.wiki.init();
            return self.error(500, "");
        }
        let (found, git_path) = self.prepare_git_path(web);
        if !found {
            return self.not_found(&[]);
        }
        let who = self.api_user();
        let message = format!("Delete page {web:?}");
        match self.wiki.commit(&[git_path], None, &message, &who) {
            Ok(_) => Response::empty(204),
            Err(e) => self.error(500, &e),
        }
    }

    fn revisions(&self, web: &str, req: &Request) -> Response {
        let Some(head) = self.wiki.head() else {
            return self.not_found(&["no such file or directory"]);
        };
        let Some(git_path) = self.find_page_file(&head, web) else {
            return self.not_found(&[]);
        };
        let page = req
            .query("page")
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or(1)
            .max(1);
        let count = self.wiki.commit_count(&head, &git_path);
        let commits: Vec<Value> = self
            .wiki
            .log(
                &head,
                &git_path,
                (page - 1) * COMMITS_RANGE_SIZE,
                COMMITS_RANGE_SIZE,
            )
            .iter()
            .map(|c| self.commit_json(c))
            .collect();
        Response::json(200, &json!({"commits": commits, "count": count}))
            .with_header("X-Total-Count", &count.to_string())
    }

    /// The answer to a write: the page as a following GET would show it.
    fn page_response(&self, status: u16, web: &str) -> Response {
        let page = self
            .wiki
            .head()
            .and_then(|head| {
                let path = self.find_page_file(&head, web)?;
                Some(self.page_json(&head, web, &path))
            })
            .unwrap_or(Value::Null);
        Response::json(status, &page)
    }

    fn api_user(&self) -> Ident {
        Ident {
            name: self.config.api_user.clone(),
            email: format!("{}@noreply.localhost", self.config.api_user),
        }
    }
}

struct WikiOptions {
    title: String,
    content_base64: String,
    message: String,
}

/// `WebPathFromRequest`: the raw segment, cleaned, with `/` kept escaped.
fn web_path_from_request(raw: &str) -> String {
    match raw {
        "" | "." | ".." => String::new(),
        _ => raw.replace('/', "%2F"),
    }
}

fn reserved_segment(web: &str) -> Option<String> {
    web.split('/')
        .map(sub_url_to_title)
        .find(|s| RESERVED_NAMES.contains(&s.as_str()))
}

/// Go's `base64.StdEncoding.DecodeString`: padded standard alphabet only
/// (CR and LF are skipped, as Go does).
fn decode_go_base64(text: &str) -> Result<Vec<u8>, String> {
    let cleaned: String = text.chars().filter(|c| *c != '\r' && *c != '\n').collect();
    STANDARD.decode(cleaned.as_bytes()).map_err(|e| {
        let at = match e {
            base64::DecodeError::InvalidByte(offset, _) => offset,
            base64::DecodeError::InvalidLastSymbol(offset, _) => offset,
            _ => cleaned.len(),
        };
        format!("illegal base64 data at input byte {at}")
    })
}

fn rfc3339(unix: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp(unix)
        .ok()
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_default()
}
