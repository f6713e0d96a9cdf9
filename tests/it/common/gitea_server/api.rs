//! The router of the test server (Gitea's `routers/api/v1/api.go`): token and
//! scope checks, repository assignment and visibility, then the handler of
//! each route; plus what every handler shares — error bodies, JSON bodies,
//! paging and `Link` headers, and `GET /version`, `/user`, `/repos/{o}/{r}`
//! and the collaborator permission lookup.

use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::State;
use super::http::{Request, Response};
use super::store::{Access, Category, User, list_options};

/// A handler's answer: `Err` short-circuits with an error response.
pub(super) type Reply = Result<Response, Response>;

/// Who is calling and what they may do here.
#[derive(Debug, Clone)]
pub(super) struct Caller {
    /// `None`: anonymous.
    pub user: Option<User>,
    /// Effective access to the repository (anonymous: read on a public repo).
    pub access: Access,
}

impl Caller {
    pub fn login(&self) -> Option<&str> {
        self.user.as_ref().map(|u| u.login.as_str())
    }
}

impl State {
    pub(super) fn error(&self, status: u16, message: &str) -> Response {
        Response::json(
            status,
            &json!({"message": message, "url": format!("{}/api/swagger", self.base_url)}),
        )
    }

    /// A Gitea on MySQL refuses a text longer than its `TEXT` column: the
    /// INSERT/UPDATE fails and the API answers 500 with the driver's words
    /// (Error 1406, as Renovate's users saw it).
    pub(super) fn check_text_column(&self, column: &str, text: &str) -> Result<(), Response> {
        match self.config.text_column_limit {
            Some(limit) if text.len() > limit => Err(self.error(
                500,
                &format!("Error 1406 (22001): Data too long for column '{column}' at row 1"),
            )),
            _ => Ok(()),
        }
    }

    pub(super) fn not_found(&self, errors: &[&str]) -> Response {
        Response::json(
            404,
            &json!({"message": "not found", "url": format!("{}/api/swagger", self.base_url), "errors": errors}),
        )
    }

    /// `reqToken`: writes need a signed-in caller.
    pub(super) fn require_token(&self, caller: &Caller) -> Result<User, Response> {
        caller
            .user
            .clone()
            .ok_or_else(|| self.error(401, "token is required"))
    }

    /// `mustNotBeArchived`.
    pub(super) fn require_not_archived(&self) -> Result<(), Response> {
        if self.config.archived {
            return Err(self.error(423, "repo is archived"));
        }
        Ok(())
    }

    /// `reqRepoWriter`.
    pub(super) fn require_writer(&self, caller: &Caller) -> Result<(), Response> {
        if !caller.access.can_write() {
            return Err(self.error(403, "user should have a permission to write to a repo"));
        }
        Ok(())
    }

    /// A JSON request body, bound as Gitea's binding does: a body that does
    /// not decode into the form is 422.
    pub(super) fn body<T: DeserializeOwned>(&self, req: &Request) -> Result<T, Response> {
        let bytes: &[u8] = if req.body.is_empty() {
            b"{}"
        } else {
            &req.body
        };
        serde_json::from_slice(bytes).map_err(|e| self.error(422, &format!("[]: {e}")))
    }

    /// `utils.GetListOptions(ctx)`: (page, limit) with Gitea's clamping.
    pub(super) fn paging(&self, req: &Request) -> (i64, i64) {
        let int = |key: &str| {
            req.query(key)
                .and_then(|v| v.trim().parse::<i64>().ok())
                .unwrap_or(0)
        };
        list_options(
            int("page"),
            int("limit"),
            self.config.default_paging_num,
            self.config.max_response_items,
        )
    }

    /// `ctx.SetTotalCountHeader` and, when `link`, `ctx.SetLinkHeader`: the
    /// absolute URLs come from ROOT_URL and the query is re-encoded with its
    /// keys sorted (Go's `url.Values.Encode`), joined by `,` with no space.
    pub(super) fn list_headers(
        &self,
        mut response: Response,
        req: &Request,
        total: usize,
        link: bool,
    ) -> Response {
        let (page, limit) = self.paging(req);
        response = response.with_header("X-Total-Count", &total.to_string());
        let mut exposed = vec!["X-Total-Count"];
        let pages = (total as i64 + limit - 1) / limit.max(1);
        let mut links = Vec::new();
        let url_for = |target: i64| {
            let mut pairs: Vec<(String, String)> = req
                .query_pairs()
                .into_iter()
                .filter(|(k, _)| k != "page")
                .collect();
            pairs.push(("page".into(), target.to_string()));
            pairs.sort_by(|a, b| a.0.cmp(&b.0));
            let query: Vec<String> = pairs
                .iter()
                .map(|(k, v)| format!("{}={}", query_escape(k), query_escape(v)))
                .collect();
            format!("{}{}?{}", self.base_url, req.path(), query.join("&"))
        };
        if link {
            if page < pages {
                links.push(format!("<{}>; rel=\"next\"", url_for(page + 1)));
            }
            if page < pages {
                links.push(format!("<{}>; rel=\"last\"", url_for(pages)));
            }
            if page > 1 {
                links.push(format!("<{}>; rel=\"first\"", url_for(1)));
                links.push(format!("<{}>; rel=\"prev\"", url_for(page - 1)));
            }
            if !links.is_empty() {
                response = response.with_header("Link", &links.join(","));
                exposed.push("Link");
            }
        }
        response.with_header("Access-Control-Expose-Headers", &exposed.join(", "))
    }

    /// The effective access of `user` (`GetUserRepoPermission`): public repos
    /// give everyone read, site admins everything.
    pub(super) fn access_of(&self, user: Option<&User>) -> Access {
        let public = if self.config.private {
            Access::None
        } else {
            Access::Read
        };
        match user {
            Some(u) if u.site_admin => Access::Owner,
            Some(u) => u.access.max(public),
            None => public,
        }
    }

    pub(super) fn handle(&mut self, req: &Request) -> Response {
        self.drain_pushes();
        let path = req.path().to_string();
        let Some(rest) = path.strip_prefix("/api/v1/") else {
            return self.not_found(&[]);
        };
        let token = match self.authenticate(req) {
            Ok(token) => token,
            Err(response) => return response,
        };
        let user = token.as_ref().and_then(|t| self.user(&t.user).cloned());
        self.doer = user.as_ref().map(|u| u.login.clone());
        let is_write = !matches!(req.method.as_str(), "GET" | "HEAD");
        let scope_check = |category: Category| -> Result<(), Response> {
            match &token {
                Some(t) => t.allows(category, is_write).map_err(|required| {
                    self.error(
                        403,
                        &format!(
                            "token does not have at least one of required scope(s), required=[{required}], token scope={}",
                            t.scopes.join(",")
                        ),
                    )
                }),
                None => Ok(()),
            }
        };
        if rest == "version" {
            return match req.method.as_str() {
                "GET" => Response::json(200, &json!({"version": self.config.version})),
                _ => Response::empty(405),
            };
        }
        if rest == "user" {
            if let Err(response) = scope_check(Category::User) {
                return response;
            }
            return match (req.method.as_str(), &user) {
                ("GET", Some(u)) => Response::json(200, &self.user_json(&u.login)),
                ("GET", None) => self.error(401, "token is required"),
                _ => Response::empty(405),
            };
        }
        // `GET /notifications` (read:notification) and `GET /user/orgs`
        // (read:user and read:organization): the test server's user has no
        // notifications and belongs to no organisation.
        if rest == "notifications" || rest == "user/orgs" {
            let categories: &[Category] = if rest == "notifications" {
                &[Category::Notification]
            } else {
                &[Category::User, Category::Organization]
            };
            for &c in categories {
                if let Err(response) = scope_check(c) {
                    return response;
                }
            }
            return match (req.method.as_str(), &user) {
                ("GET", Some(_)) => Response::json(200, &json!([])),
                ("GET", None) => self.error(401, "token is required"),
                _ => Response::empty(405),
            };
        }
        let Some(repo_rest) = rest.strip_prefix("repos/") else {
            return self.not_found(&[]);
        };
        let mut parts = repo_rest.splitn(3, '/');
        let (owner, name) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        let tail = parts.next().unwrap_or("");
        let first = tail.split('/').next().unwrap_or("");
        let category = match first {
            "issues" | "labels" => Category::Issue,
            _ => Category::Repository,
        };
        if let Err(response) = scope_check(category) {
            return response;
        }
        let caller = Caller {
            access: self.access_of(user.as_ref()),
            user,
        };
        if !owner.eq_ignore_ascii_case(&self.config.owner)
            || !name.eq_ignore_ascii_case(&self.config.repo)
            || !caller.access.can_read()
        {
            return self.not_found(&[]);
        }
        if let Some(wiki) = tail.strip_prefix("wiki/") {
            return self.wiki_route(wiki, req);
        }
        let segments: Vec<&str> = if tail.is_empty() {
            Vec::new()
        } else {
            tail.split('/').collect()
        };
        let reply = match (category, segments.first().copied()) {
            (_, None) => match req.method.as_str() {
                "GET" => Ok(Response::json(200, &self.repository_json(caller.access))),
                _ => Ok(Response::empty(405)),
            },
            (_, Some("collaborators")) => self.collaborators_route(&segments[1..], req, &caller),
            (Category::Issue, _) => self.issue_routes(&segments, req, &caller),
            (_, Some("pulls")) => self.pull_routes(&segments[1..], req, &caller),
            (_, Some(_)) => self.repo_routes(&segments, req, &caller),
        };
        reply.unwrap_or_else(|response| response)
    }

    /// `Authorization: token|bearer <T>`; a bad credential is 401 everywhere.
    fn authenticate(&self, req: &Request) -> Result<Option<super::store::Token>, Response> {
        let Some(value) = req.header("authorization") else {
            return Ok(None);
        };
        let parts: Vec<&str> = value.split_whitespace().collect();
        if let [scheme, token] = parts.as_slice()
            && (scheme.eq_ignore_ascii_case("token") || scheme.eq_ignore_ascii_case("bearer"))
            && let Some(found) = self.tokens.get(*token)
            && self.user(&found.user).is_some()
        {
            return Ok(Some(found.clone()));
        }
        Err(self.error(401, "invalid username, password or token"))
    }

    /// `GET /repos/{o}/{r}/collaborators/{user}/permission`
    /// (routers/api/v1/repo/collaborators.go `GetRepoPermissions`): only a
    /// site admin, a repo admin or the user asking about themselves; 404 for
    /// an unknown user.
    fn collaborators_route(&self, rest: &[&str], req: &Request, caller: &Caller) -> Reply {
        let doer = self.require_token(caller)?;
        let [who, "permission"] = rest else {
            return Err(self.not_found(&[]));
        };
        if req.method != "GET" {
            return Ok(Response::empty(405));
        }
        let who = decode_segment(who);
        if !doer.site_admin && !doer.login.eq_ignore_ascii_case(&who) && !caller.access.is_admin() {
            return Err(self.error(
                403,
                "Only admins can query all permissions, repo admins can query all repo permissions, collaborators can query only their own",
            ));
        }
        let Some(user) = self.user(&who) else {
            return Err(self.error(404, &format!("user does not exist [uid: 0, name: {who}]")));
        };
        let access = self.access_of(Some(user));
        Ok(Response::json(
            200,
            &json!({
                "permission": access.as_str(),
                "role_name": access.as_str(),
                "user": self.user_json(&user.login),
            }),
        ))
    }
}

/// Go's `url.QueryEscape`, as used when Gitea re-encodes a query.
pub(super) fn query_escape(text: &str) -> String {
    learnsync::gitea::page_name::query_escape(text)
}

/// A path segment as Gitea's router hands it to a handler: percent-decoded.
pub(super) fn decode_segment(raw: &str) -> String {
    learnsync::gitea::page_name::path_unescape(raw).unwrap_or_else(|| raw.to_string())
}

/// A wildcard path parameter (`/branches/*`, `/contents/*`): the rest of the
/// path, each segment decoded.
pub(super) fn decode_rest(segments: &[&str]) -> String {
    segments
        .iter()
        .map(|s| decode_segment(s))
        .collect::<Vec<_>>()
        .join("/")
}

/// `ctx.PathParamInt64`: a bad number is 0, which matches nothing.
pub(super) fn path_int(raw: &str) -> i64 {
    raw.parse().unwrap_or(0)
}

/// A JSON array response.
pub(super) fn json_list(items: Vec<Value>) -> Response {
    Response::json(200, &Value::Array(items))
}
