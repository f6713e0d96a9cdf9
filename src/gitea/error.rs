//! Errors of the Gitea client: what failed (method, endpoint, status) and what
//! Gitea said, with any occurrence of the token redacted before it is stored.

use secrecy::{ExposeSecret, SecretString};

/// What a Gitea call can fail with. Messages are for a person; none of them
/// can contain the token (see [`redact`]).
#[derive(Debug, thiserror::Error)]
pub enum GiteaError {
    /// Gitea (or a proxy in front of it) answered with an error status.
    #[error("Gitea answered {status} to {method} {endpoint}: {message}{hint}", hint = status_hint(*status))]
    Status {
        method: String,
        endpoint: String,
        status: u16,
        /// Gitea's `message`, or the start of a non-JSON body; may be empty.
        message: String,
    },
    /// The request never got an HTTP answer (connect, reset, timeout).
    #[error("could not reach Gitea for {method} {endpoint}: {message}")]
    Transport {
        method: String,
        endpoint: String,
        message: String,
        timeout: bool,
        /// The connection was never made, so the request did not land.
        connect: bool,
    },
    /// A success status with a body that is not what the API documents.
    #[error("Gitea's answer to {method} {endpoint} could not be read: {message}")]
    Decode {
        method: String,
        endpoint: String,
        message: String,
    },
    /// The token could not be obtained from its source.
    #[error("could not get the Gitea token: {0}")]
    Token(String),
    /// A caller error caught before anything was sent.
    #[error("invalid Gitea request: {0}")]
    Invalid(String),
}

/// Gitea's 500 when its database column cannot hold a text: MySQL's
/// "Data too long for column", PostgreSQL's "value too long for type",
/// MSSQL's "would be truncated". Sending the same text again cannot work.
pub fn is_too_long_for_database(status: u16, body: &[u8]) -> bool {
    if status != 500 {
        return false;
    }
    let text = String::from_utf8_lossy(&body[..body.len().min(4096)]).to_lowercase();
    [
        "data too long for column",
        "value too long for type",
        "would be truncated",
    ]
    .iter()
    .any(|m| text.contains(m))
}

/// Said after a [`is_too_long_for_database`] answer.
pub const TOO_LONG_HINT: &str = " (Gitea's database cannot store a text this long — MySQL keeps 65,535 bytes; learnsync cuts what it sends at 60,000, so a custom template that adds more can pass it; not retried)";

fn status_hint(status: u16) -> &'static str {
    match status {
        401 => {
            " (the token is missing or not valid: set GITEA_TOKEN or the configured token source)"
        }
        403 => {
            " (the token lacks a scope the call needs — write:repository, write:issue or read:user — or its user lacks the permission)"
        }
        404 => {
            " (no such repository, page, issue, pull, branch or file, or the wiki is disabled or empty)"
        }
        405 => " (Gitea refused the merge: see its message)",
        409 => " (a conflict: an open pull for this branch exists, or the head moved)",
        412 => " (a precondition failed: the pull is merged, or open dependencies block closing)",
        422 => " (Gitea refused the content: see its message)",
        423 => " (the repository is archived)",
        _ => "",
    }
}

impl GiteaError {
    /// The HTTP status, when Gitea answered.
    pub fn status(&self) -> Option<u16> {
        match self {
            GiteaError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// 404: the repository, wiki or page does not exist (or is not visible).
    pub fn is_not_found(&self) -> bool {
        self.status() == Some(404)
    }

    /// Gitea's 400 for creating a page that exists (it never sends 409 here).
    pub fn is_page_exists(&self) -> bool {
        matches!(self, GiteaError::Status { status: 400, message, .. } if message.contains("already exists"))
    }

    /// 401 or 403: the credentials are the problem, not the request.
    pub fn is_auth(&self) -> bool {
        matches!(self.status(), Some(401 | 403))
    }

    /// 409: Gitea's "already exists" for a pull with the same head and base,
    /// or a merge whose head moved.
    pub fn is_conflict(&self) -> bool {
        self.status() == Some(409)
    }

    /// 422: Gitea refused the content (a `new_branch` that exists, a file that
    /// exists, a stale `sha`, head == base, a bad label colour, ...).
    pub fn is_unprocessable(&self) -> bool {
        self.status() == Some(422)
    }

    /// 405: a merge Gitea will not do (no permission, already merged,
    /// conflicts, missing approvals).
    pub fn is_merge_refused(&self) -> bool {
        self.status() == Some(405)
    }

    /// 412: a state change refused (the pull is merged, open dependencies).
    pub fn is_precondition_failed(&self) -> bool {
        self.status() == Some(412)
    }

    /// A write that failed in a way that does not prove it did not land: a
    /// 5xx answer, or a connection that broke after the request was sent.
    /// Whoever retries it must look first.
    pub fn may_have_landed(&self) -> bool {
        match self {
            GiteaError::Status { method, status, .. } => {
                method != "GET" && (500..=599).contains(status)
            }
            GiteaError::Transport {
                method, connect, ..
            } => method != "GET" && !connect,
            _ => false,
        }
    }
}

/// Replaces every occurrence of the token in `text` by `[REDACTED]`.
///
/// Gitea never echoes a token, but proxies and error pages might; every string
/// taken from a response or a transport error passes through here.
pub fn redact(text: &str, token: Option<&SecretString>) -> String {
    match token.map(|t| t.expose_secret()) {
        Some(secret) if !secret.is_empty() => text.replace(secret, "[REDACTED]"),
        _ => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redact_removes_every_occurrence() {
        let token = SecretString::from("s3cr3t");
        assert_eq!(
            redact("a s3cr3t b s3cr3ts3cr3t", Some(&token)),
            "a [REDACTED] b [REDACTED][REDACTED]"
        );
        assert_eq!(redact("plain", None), "plain");
        assert_eq!(redact("plain", Some(&SecretString::from(""))), "plain");
    }

    #[test]
    fn status_errors_read_as_sentences() {
        let err = GiteaError::Status {
            method: "POST".into(),
            endpoint: "/repos/o/r/wiki/new".into(),
            status: 403,
            message: "token does not have at least one of required scope(s)".into(),
        };
        let text = err.to_string();
        assert!(text.starts_with("Gitea answered 403 to POST /repos/o/r/wiki/new"));
        assert!(text.contains("write:repository"));
        assert!(err.is_auth() && !err.is_not_found());
    }
}
