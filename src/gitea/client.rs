//! The HTTP side of the Gitea client: base URL, auth header, timeouts, retries
//! (and which writes may be resent), error mapping, and the request shapes
//! every endpoint shares (a read, a read where 404 means absent, a decoded
//! write, a delete where 404 means gone). Endpoint methods live beside it by
//! concern (`wiki.rs`, `repo.rs`, `pulls.rs`, ...).

use std::fmt;
use std::time::{Duration, SystemTime};

use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderValue, RETRY_AFTER};
use reqwest::{Method, StatusCode};
use secrecy::{ExposeSecret, SecretString};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::error::{GiteaError, redact};
use super::model::ApiErrorBody;
use crate::retry::{self, Attempt, RetryPolicy};

/// Knobs of the HTTP client.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// Time allowed to open the TCP/TLS connection.
    pub connect_timeout: Duration,
    /// Time allowed for one whole request, response body included.
    pub timeout: Duration,
    /// Backoff for transient failures (connection errors, 429, 5xx).
    pub retry: RetryPolicy,
    pub user_agent: String,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(60),
            retry: RetryPolicy::default(),
            user_agent: concat!("learnsync/", env!("CARGO_PKG_VERSION")).to_string(),
        }
    }
}

/// A repository on the Gitea server, `owner/name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoRef {
    pub owner: String,
    pub name: String,
}

impl RepoRef {
    /// Parses `owner/name`; both parts must be Gitea-valid names, so they can go
    /// into a URL path without escaping.
    pub fn parse(text: &str) -> Result<Self, GiteaError> {
        let invalid = || GiteaError::Invalid(format!("{text:?} is not an owner/repo name"));
        let (owner, name) = text.trim().split_once('/').ok_or_else(invalid)?;
        let valid = |part: &str| {
            !part.is_empty()
                && part != "."
                && part != ".."
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        };
        if !valid(owner) || !valid(name) {
            return Err(invalid());
        }
        Ok(RepoRef {
            owner: owner.to_string(),
            name: name.to_string(),
        })
    }
}

impl fmt::Display for RepoRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.owner, self.name)
    }
}

/// A Gitea API client for one repository.
///
/// Writes are serialised through an internal gate: Gitea clones and pushes the
/// wiki for every write under a per-repo lock, so parallel writes only queue
/// up server-side (or time out).
pub struct GiteaClient {
    http: reqwest::Client,
    api_base: String,
    repo: RepoRef,
    token: Option<SecretString>,
    retry: RetryPolicy,
    write_gate: tokio::sync::Mutex<()>,
}

impl fmt::Debug for GiteaClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GiteaClient")
            .field("api_base", &self.api_base)
            .field("repo", &self.repo)
            .field("token", &self.token.as_ref().map(|_| "[REDACTED]"))
            .finish_non_exhaustive()
    }
}

/// Whether a failed request may be sent again.
///
/// Retrying is safe for reads, for writes that set a state (PATCH, PUT,
/// DELETE) and for creates whose repeat Gitea refuses in a way the caller
/// recognises (a wiki page: 400; a pull: 409; a file: 422). Other creates
/// (an issue, a comment, a label) would be made twice if the first attempt
/// landed, so they are resent only when it surely did not reach Gitea: the
/// connection was never made, or a proxy answered 408, 429 or 503.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resend {
    Always,
    IfNotSent,
}

/// Whether a delete removed its target or found nothing to remove.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeleteOutcome {
    Deleted,
    /// 404: the target was not there (also after a retried delete that landed).
    NotFound,
}

/// A successful (or explicitly accepted) HTTP answer.
#[derive(Debug)]
pub(crate) struct Reply {
    /// The request it answers, for errors about its body.
    pub method: Method,
    pub endpoint: String,
    pub status: u16,
    pub total_count: Option<u64>,
    /// The server's clock (`Date`), as RFC 3339: what `since` filters compare with.
    pub date: Option<String>,
    pub body: Vec<u8>,
}

impl GiteaClient {
    /// `base_url` is the server root (`https://git.example.com`, with or
    /// without a trailing `/api/v1`).
    pub fn new(
        base_url: &str,
        repo: RepoRef,
        token: Option<SecretString>,
        options: ClientOptions,
    ) -> Result<Self, GiteaError> {
        let trimmed = base_url.trim().trim_end_matches('/');
        if !(trimmed.starts_with("http://") || trimmed.starts_with("https://")) {
            return Err(GiteaError::Invalid(format!(
                "the Gitea URL {trimmed:?} must start with http:// or https://"
            )));
        }
        let api_base = if trimmed.ends_with("/api/v1") {
            trimmed.to_string()
        } else {
            format!("{trimmed}/api/v1")
        };
        reqwest::Url::parse(&api_base)
            .map_err(|e| GiteaError::Invalid(format!("the Gitea URL {trimmed:?}: {e}")))?;
        if let Some(secret) = &token
            && HeaderValue::from_str(&format!("token {}", secret.expose_secret())).is_err()
        {
            return Err(GiteaError::Token(
                "the token contains characters that cannot be sent in an HTTP header".into(),
            ));
        }
        let http = reqwest::Client::builder()
            .connect_timeout(options.connect_timeout)
            .timeout(options.timeout)
            .user_agent(options.user_agent)
            .build()
            .map_err(|e| GiteaError::Invalid(format!("cannot build the HTTP client: {e}")))?;
        Ok(GiteaClient {
            http,
            api_base,
            repo,
            token,
            retry: options.retry,
            write_gate: tokio::sync::Mutex::new(()),
        })
    }

    /// The repository this client works on.
    pub fn repo(&self) -> &RepoRef {
        &self.repo
    }

    /// The API root, ending in `/api/v1`.
    pub fn api_base(&self) -> &str {
        &self.api_base
    }

    /// `/repos/{owner}/{repo}` followed by `rest`.
    pub(crate) fn repo_path(&self, rest: &str) -> String {
        format!("/repos/{}/{}{rest}", self.repo.owner, self.repo.name)
    }

    /// `/repos/{owner}/{repo}/{prefix}/{escaped}`, for wildcard parameters
    /// (a branch `review/x`, a file `reviews/x.yaml`) whose slashes are path
    /// separators and whose other characters must be percent-escaped.
    pub(crate) fn repo_path_with(&self, prefix: &str, tail: &str) -> Result<String, GiteaError> {
        Ok(self.repo_path(&format!("/{prefix}/{}", escape_path(tail)?)))
    }

    pub(crate) fn redact(&self, text: &str) -> String {
        redact(text, self.token.as_ref())
    }

    /// Sends one request with retries. `path` is relative to `/api/v1` and must
    /// already be escaped (wiki `sub_url`s go in verbatim). Statuses in
    /// `accept` are returned as replies instead of errors (e.g. 404 on a list).
    pub(crate) async fn send<B: Serialize + ?Sized>(
        &self,
        method: Method,
        path: &str,
        query: &[(&str, String)],
        body: Option<&B>,
        accept: &[u16],
    ) -> Result<Reply, GiteaError> {
        self.send_with(method, path, query, body, accept, Resend::Always)
            .await
    }

    /// [`GiteaClient::send`] with an explicit [`Resend`] policy.
    pub(crate) async fn send_with<B: Serialize + ?Sized>(
        &self,
        method: Method,
        path: &str,
        query: &[(&str, String)],
        body: Option<&B>,
        accept: &[u16],
        resend: Resend,
    ) -> Result<Reply, GiteaError> {
        let body = match body {
            Some(b) => Some(serde_json::to_vec(b).map_err(|e| {
                GiteaError::Invalid(format!("cannot encode the request body: {e}"))
            })?),
            None => None,
        };
        let is_write = method != Method::GET && method != Method::HEAD;
        // Held across retries too, so a retried write never overtakes the next.
        let _gate = if is_write {
            Some(self.write_gate.lock().await)
        } else {
            None
        };
        let mut url = format!("{}{}", self.api_base, path);
        for (i, (key, value)) in query.iter().enumerate() {
            url.push(if i == 0 { '?' } else { '&' });
            url.push_str(key);
            url.push('=');
            url.push_str(&super::page_name::query_escape(value));
        }
        let url = reqwest::Url::parse(&url)
            .map_err(|e| GiteaError::Invalid(format!("bad request URL for {path}: {e}")))?;
        retry::run(&self.retry, |attempt| {
            self.attempt(
                &method,
                &url,
                path,
                body.as_deref(),
                accept,
                resend,
                attempt,
            )
        })
        .await
    }

    #[allow(clippy::too_many_arguments)]
    async fn attempt(
        &self,
        method: &Method,
        url: &reqwest::Url,
        path: &str,
        body: Option<&[u8]>,
        accept: &[u16],
        resend: Resend,
        attempt: u32,
    ) -> Attempt<Reply, GiteaError> {
        tracing::debug!(%method, endpoint = path, attempt, "gitea request");
        let mut request = self
            .http
            .request(method.clone(), url.clone())
            .header(ACCEPT, "application/json");
        if let Some(secret) = &self.token {
            // Checked in `new`; a failure here only means no header.
            if let Ok(mut value) =
                HeaderValue::from_str(&format!("token {}", secret.expose_secret()))
            {
                value.set_sensitive(true);
                request = request.header(AUTHORIZATION, value);
            }
        }
        if let Some(bytes) = body {
            request = request
                .header(CONTENT_TYPE, "application/json")
                .body(bytes.to_vec());
        }
        let response = match request.send().await {
            Ok(response) => response,
            Err(e) => {
                let error = self.transport_error(method, path, &e);
                if resend == Resend::IfNotSent && !e.is_connect() {
                    return Attempt::Fail(error);
                }
                return Attempt::Retry {
                    error,
                    retry_after: None,
                };
            }
        };
        let status = response.status();
        let retry_after = response
            .headers()
            .get(RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| retry::parse_retry_after(v, SystemTime::now()));
        let total_count = response
            .headers()
            .get("x-total-count")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse().ok());
        let date = response
            .headers()
            .get(reqwest::header::DATE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| chrono::DateTime::parse_from_rfc2822(v).ok())
            .map(|t| {
                t.with_timezone(&chrono::Utc)
                    .format("%Y-%m-%dT%H:%M:%SZ")
                    .to_string()
            });
        let body = match response.bytes().await {
            Ok(bytes) => bytes.to_vec(),
            Err(e) => {
                let error = self.transport_error(method, path, &e);
                if resend == Resend::IfNotSent {
                    return Attempt::Fail(error);
                }
                return Attempt::Retry {
                    error,
                    retry_after: None,
                };
            }
        };
        tracing::debug!(%method, endpoint = path, attempt, status = status.as_u16(), "gitea answered");
        if status.is_success() || accept.contains(&status.as_u16()) {
            return Attempt::Done(Reply {
                method: method.clone(),
                endpoint: path.to_string(),
                status: status.as_u16(),
                total_count,
                date,
                body,
            });
        }
        let error = self.status_error(method, path, status, &body);
        let permanent = super::error::is_too_long_for_database(status.as_u16(), &body);
        let resendable = !permanent
            && match resend {
                Resend::Always => retry::is_retryable_status(status.as_u16()),
                // Answers a proxy gives without passing the request on.
                Resend::IfNotSent => matches!(status.as_u16(), 408 | 429 | 503),
            };
        if resendable {
            tracing::warn!(%method, endpoint = path, attempt, status = status.as_u16(), "transient Gitea failure");
            Attempt::Retry { error, retry_after }
        } else {
            Attempt::Fail(error)
        }
    }

    fn transport_error(&self, method: &Method, path: &str, error: &reqwest::Error) -> GiteaError {
        let mut message = error.to_string();
        let mut source = std::error::Error::source(error);
        while let Some(cause) = source {
            message.push_str(": ");
            message.push_str(&cause.to_string());
            source = cause.source();
        }
        let message = self.redact(&message);
        tracing::warn!(%method, endpoint = path, error = %message, "gitea transport failure");
        GiteaError::Transport {
            method: method.to_string(),
            endpoint: path.to_string(),
            message,
            timeout: error.is_timeout(),
            connect: error.is_connect(),
        }
    }

    fn status_error(
        &self,
        method: &Method,
        path: &str,
        status: StatusCode,
        body: &[u8],
    ) -> GiteaError {
        let message = serde_json::from_slice::<ApiErrorBody>(body)
            .ok()
            .and_then(|b| b.message)
            .unwrap_or_else(|| {
                let text = String::from_utf8_lossy(body);
                let text = text.trim();
                let cut: String = text.chars().take(200).collect();
                if cut.is_empty() {
                    status.canonical_reason().unwrap_or("").to_string()
                } else {
                    cut
                }
            });
        let mut message = self.redact(&message);
        if super::error::is_too_long_for_database(status.as_u16(), body) {
            message.push_str(super::error::TOO_LONG_HINT);
        }
        GiteaError::Status {
            method: method.to_string(),
            endpoint: path.to_string(),
            status: status.as_u16(),
            message,
        }
    }

    /// Decodes a JSON reply body.
    pub(crate) fn decode<T: DeserializeOwned>(&self, reply: &Reply) -> Result<T, GiteaError> {
        serde_json::from_slice(&reply.body).map_err(|e| GiteaError::Decode {
            method: reply.method.to_string(),
            endpoint: reply.endpoint.clone(),
            message: self.redact(&e.to_string()),
        })
    }

    /// `GET path`, decoded.
    pub(crate) async fn get<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<T, GiteaError> {
        let reply = self.send::<()>(Method::GET, path, query, None, &[]).await?;
        self.decode(&reply)
    }

    /// `GET path`, decoded; `None` on 404.
    pub(crate) async fn get_optional<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<Option<T>, GiteaError> {
        match self.get_reply_optional(path, query).await? {
            Some(reply) => self.decode(&reply).map(Some),
            None => Ok(None),
        }
    }

    /// `GET path`, undecoded, for answers read by more than their body;
    /// `None` on 404.
    pub(crate) async fn get_reply_optional(
        &self,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<Option<Reply>, GiteaError> {
        let reply = self
            .send::<()>(Method::GET, path, query, None, &[404])
            .await?;
        Ok((reply.status != 404).then_some(reply))
    }

    /// Sends `body` with `method` (resent as `resend` allows) and decodes
    /// the answer.
    pub(crate) async fn write<B: Serialize + ?Sized, T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: &B,
        resend: Resend,
    ) -> Result<T, GiteaError> {
        let reply = self
            .send_with(method, path, &[], Some(body), &[], resend)
            .await?;
        self.decode(&reply)
    }

    /// `DELETE path`; a 404 is [`DeleteOutcome::NotFound`].
    pub(crate) async fn delete_optional(&self, path: &str) -> Result<DeleteOutcome, GiteaError> {
        self.delete_optional_with::<()>(path, None).await
    }

    /// [`Self::delete_optional`] with a request body.
    pub(crate) async fn delete_optional_with<B: Serialize + ?Sized>(
        &self,
        path: &str,
        body: Option<&B>,
    ) -> Result<DeleteOutcome, GiteaError> {
        let reply = self.send(Method::DELETE, path, &[], body, &[404]).await?;
        Ok(if reply.status == 404 {
            DeleteOutcome::NotFound
        } else {
            DeleteOutcome::Deleted
        })
    }
}

/// Percent-escapes each `/`-separated segment of `path` (RFC 3986
/// unreserved characters stay); empty, `.` and `..` segments are refused,
/// since a router would collapse them into another path.
pub(crate) fn escape_path(path: &str) -> Result<String, GiteaError> {
    let mut out = String::with_capacity(path.len());
    for (i, segment) in path.split('/').enumerate() {
        if segment.is_empty() || segment == "." || segment == ".." {
            return Err(GiteaError::Invalid(format!(
                "{path:?} is not a usable branch or file path (empty, `.` or `..` segment)"
            )));
        }
        if i > 0 {
            out.push('/');
        }
        for &byte in segment.as_bytes() {
            if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
                out.push(byte as char);
            } else {
                out.push_str(&format!("%{byte:02X}"));
            }
        }
    }
    Ok(out)
}

/// Percent-escapes `text` as one path segment (a `/` becomes `%2F`).
pub(crate) fn escape_segment(text: &str) -> Result<String, GiteaError> {
    if text.is_empty() || text == "." || text == ".." {
        return Err(GiteaError::Invalid(format!(
            "{text:?} cannot be a path segment"
        )));
    }
    Ok(text
        .bytes()
        .map(|byte| {
            if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
                (byte as char).to_string()
            } else {
                format!("%{byte:02X}")
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_escaped_segment_by_segment() {
        assert_eq!(escape_segment("release/*").expect("ok"), "release%2F%2A");
        assert!(escape_segment("..").is_err());
        assert_eq!(
            escape_path("review/learning-1").expect("ok"),
            "review/learning-1"
        );
        assert_eq!(
            escape_path("reviews/a b+c#?.yaml").expect("ok"),
            "reviews/a%20b%2Bc%23%3F.yaml"
        );
        assert_eq!(escape_path("café").expect("ok"), "caf%C3%A9");
        for bad in ["", "/x", "x/", "a//b", "a/./b", "../x"] {
            assert!(escape_path(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn repo_ref_parses_only_plain_names() {
        let repo = RepoRef::parse("acme/docs").expect("valid");
        assert_eq!((repo.owner.as_str(), repo.name.as_str()), ("acme", "docs"));
        for bad in [
            "acme", "/docs", "acme/", "a/b/c", "../x", "a b/c", "acme/..",
        ] {
            assert!(RepoRef::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn base_url_gets_the_api_prefix_once() {
        let repo = RepoRef::parse("o/r").expect("valid");
        for base in ["http://h:3000", "http://h:3000/", "http://h:3000/api/v1/"] {
            let client = GiteaClient::new(base, repo.clone(), None, ClientOptions::default())
                .expect("client");
            assert_eq!(client.api_base(), "http://h:3000/api/v1");
        }
        assert!(GiteaClient::new("h:3000", repo, None, ClientOptions::default()).is_err());
    }

    #[test]
    fn debug_never_shows_the_token() {
        let client = GiteaClient::new(
            "http://h",
            RepoRef::parse("o/r").expect("valid"),
            Some(SecretString::from("tok-123-secret")),
            ClientOptions::default(),
        )
        .expect("client");
        let text = format!("{client:?}");
        assert!(!text.contains("tok-123-secret") && text.contains("[REDACTED]"));
    }
}
