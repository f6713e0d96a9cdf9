//! Gitea v1.25.4's wiki API (API-NOTES §a–§b): pages listed, read, created,
//! edited (always renamed to the title) and deleted over the bare wiki repo,
//! with Gitea's naming, paging and status-code quirks.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use learnsync::gitea::page_name::{
    RESERVED_NAMES, git_path_to_sub_url, query_unescape, sub_url_to_git_path, sub_url_to_title,
    title_to_sub_url,
};
use serde_json::{Value, json};

use super::State;
use super::http::{Request, Response};
use super::json::rfc3339;
use super::wiki_git::{CommitInfo, Ident};

/// `[api] DEFAULT_PAGING_NUM`.
const DEFAULT_PAGING_NUM: i64 = 30;
/// `[git] COMMITS_RANGE_SIZE`, the fixed page size of revisions.
const COMMITS_RANGE_SIZE: usize = 50;
/// `[api] DEFAULT_MAX_BLOB_SIZE`: bigger pages come back with empty content.
const MAX_BLOB_SIZE: usize = 10 * 1024 * 1024;

impl State {
    /// `/repos/{o}/{r}/wiki/...` after the repo and token checks.
    pub(super) fn wiki_route(&mut self, wiki: &str, req: &Request) -> Response {
        if !self.config.has_wiki {
            return self.not_found(&[]);
        }
        let is_write = !matches!(req.method.as_str(), "GET" | "HEAD");
        if is_write {
            if self.doer.is_none() {
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
        let who = self.wiki_ident();
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
        let who = self.wiki_ident();
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
        let who = self.wiki_ident();
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

    /// Author and committer of a wiki write: the API caller.
    fn wiki_ident(&self) -> Ident {
        let login = self
            .doer
            .clone()
            .unwrap_or_else(|| self.config.api_user.clone());
        let sig = self.sig(&login, 0);
        Ident {
            name: sig.name,
            email: sig.email,
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
pub(super) fn decode_go_base64(text: &str) -> Result<Vec<u8>, String> {
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
