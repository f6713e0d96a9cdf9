//! Where the Gitea token comes from (environment, file, or a command's output)
//! and turning it into a `SecretString` that is never printed or logged.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use secrecy::SecretString;

use super::error::GiteaError;

/// The environment variable read by [`TokenSource::default`].
pub const DEFAULT_TOKEN_ENV: &str = "GITEA_TOKEN";

/// A place to read the token from. Holds no secret itself, so `Debug` is safe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenSource {
    /// An environment variable (normally `GITEA_TOKEN`).
    Env(String),
    /// A file whose trimmed content is the token.
    File(PathBuf),
    /// A shell command (`sh -c`) whose trimmed stdout is the token, e.g.
    /// `pass show gitea/bot`.
    Command(String),
}

impl Default for TokenSource {
    fn default() -> Self {
        TokenSource::Env(DEFAULT_TOKEN_ENV.to_string())
    }
}

impl TokenSource {
    /// Reads the token. An empty value is an error, so that a misconfigured
    /// source is reported instead of sending unauthenticated writes.
    pub fn resolve(&self) -> Result<SecretString, GiteaError> {
        let raw = match self {
            TokenSource::Env(var) => std::env::var(var).map_err(|_| {
                GiteaError::Token(format!("the environment variable {var} is not set"))
            })?,
            TokenSource::File(path) => {
                warn_if_readable_by_others(path);
                std::fs::read_to_string(path).map_err(|e| {
                    GiteaError::Token(format!("cannot read token file {}: {e}", path.display()))
                })?
            }
            TokenSource::Command(command) => run_command(command)?,
        };
        let token = raw.trim();
        if token.is_empty() {
            return Err(GiteaError::Token(format!(
                "{} gave an empty token",
                self.describe()
            )));
        }
        Ok(SecretString::from(token.to_string()))
    }

    /// A description safe to show a person ("the command `pass show x`").
    pub fn describe(&self) -> String {
        match self {
            TokenSource::Env(var) => format!("the environment variable {var}"),
            TokenSource::File(path) => format!("the token file {}", path.display()),
            TokenSource::Command(command) => format!("the command `{command}`"),
        }
    }
}

/// Whether the Gitea token may go with a git remote's requests: only to the
/// Gitea server itself (same scheme, host and port as `gitea.url`), and over
/// plain http only when `gitea.url` is http itself. Every other remote is
/// left to git's own credential helpers, so a token for one host never
/// reaches another (a peer's URL, a mirror, a typo).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenScope {
    /// Send it, scoped in git's config to this origin (`https://host:port`).
    Send {
        origin: String,
        /// The Gitea URL is plain http: the token travels unencrypted.
        plain_http: bool,
    },
    /// Keep it: the reason, for a person.
    Withhold(String),
}

/// Decides [`TokenScope`] for one remote URL (pure).
pub fn scope_for_remote(gitea_url: Option<&str>, remote_url: &str) -> TokenScope {
    let Some(gitea_url) = gitea_url else {
        return TokenScope::Withhold("no gitea.url is configured".into());
    };
    let Some(gitea) = http_origin(gitea_url) else {
        return TokenScope::Withhold(format!("gitea.url {gitea_url:?} is not an http(s) URL"));
    };
    let Some(remote) = http_origin(remote_url) else {
        return TokenScope::Withhold("not an http(s) remote".into());
    };
    if remote != gitea {
        return TokenScope::Withhold(format!(
            "{remote} is not the Gitea server {gitea} (scheme, host and port must match)"
        ));
    }
    TokenScope::Send {
        plain_http: gitea.starts_with("http://"),
        origin: gitea,
    }
}

/// `scheme://host[:port]` of an http(s) URL, host lowercased and the
/// default port left out (as git's `http.<url>.*` matching normalises
/// them); `None` for anything else.
fn http_origin(url: &str) -> Option<String> {
    let parsed = reqwest::Url::parse(url.trim()).ok()?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return None;
    }
    Some(parsed.origin().ascii_serialization())
}

fn run_command(command: &str) -> Result<String, GiteaError> {
    let output = Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| GiteaError::Token(format!("cannot run `{command}`: {e}")))?;
    if !output.status.success() {
        // stdout is not shown: it may hold a partial secret.
        return Err(GiteaError::Token(format!(
            "`{command}` failed with {}",
            output.status
        )));
    }
    String::from_utf8(output.stdout)
        .map_err(|_| GiteaError::Token(format!("`{command}` printed a token that is not UTF-8")))
}

#[cfg(unix)]
fn warn_if_readable_by_others(path: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(meta) = std::fs::metadata(path)
        && meta.permissions().mode() & 0o077 != 0
    {
        tracing::warn!(path = %path.display(), "token file is readable by other users; chmod 600 it");
    }
}

#[cfg(not(unix))]
fn warn_if_readable_by_others(_path: &std::path::Path) {}

#[cfg(test)]
mod tests {
    use super::*;
    use secrecy::ExposeSecret;

    #[test]
    fn the_token_goes_only_to_the_gitea_origin() {
        let https = Some("https://Gitea.Example:443/");
        let send = |origin: &str, plain_http| TokenScope::Send {
            origin: origin.into(),
            plain_http,
        };
        let table: &[(Option<&str>, &str, Option<TokenScope>)] = &[
            (
                https,
                "https://gitea.example/team/l.git",
                Some(send("https://gitea.example", false)),
            ),
            (
                https,
                "https://user@GITEA.example:443/x.git",
                Some(send("https://gitea.example", false)),
            ),
            (https, "http://gitea.example/team/l.git", None),
            (https, "https://gitea.example:8443/team/l.git", None),
            (https, "https://other.example/team/l.git", None),
            (https, "https://gitea.example.evil.test/l.git", None),
            (https, "ssh://git@gitea.example/team/l.git", None),
            (https, "/srv/hub.git", None),
            (None, "https://gitea.example/team/l.git", None),
            (Some("gitea.example"), "https://gitea.example/l.git", None),
            (
                Some("http://127.0.0.1:3000"),
                "http://127.0.0.1:3000/t/l.git",
                Some(send("http://127.0.0.1:3000", true)),
            ),
            (
                Some("http://127.0.0.1:3000"),
                "http://localhost:3000/t/l.git",
                None,
            ),
        ];
        for (gitea, remote, want) in table {
            let got = scope_for_remote(*gitea, remote);
            match want {
                Some(want) => assert_eq!(&got, want, "{gitea:?} {remote}"),
                None => assert!(
                    matches!(got, TokenScope::Withhold(_)),
                    "{gitea:?} {remote}: {got:?}"
                ),
            }
        }
    }

    #[test]
    fn file_and_command_sources_trim_the_token() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("token");
        std::fs::write(&file, "  abc123\n").expect("write token");
        let token = TokenSource::File(file).resolve().expect("file token");
        assert_eq!(token.expose_secret(), "abc123");

        let token = TokenSource::Command("printf ' xyz\\n'".into())
            .resolve()
            .expect("command token");
        assert_eq!(token.expose_secret(), "xyz");
    }

    #[test]
    fn failures_are_errors_that_do_not_leak() {
        // The command prints "hunter2" but the text "hunter2" is not in it.
        let err = TokenSource::Command("printf 'hun%s' ter2; exit 3".into())
            .resolve()
            .expect_err("failing command");
        assert!(!err.to_string().contains("hunter2"), "{err}");
        assert!(TokenSource::Command("true".into()).resolve().is_err());
        assert!(
            TokenSource::Env("LEARNSYNC_TEST_SURELY_UNSET_VAR".into())
                .resolve()
                .is_err()
        );
        let missing = TokenSource::File("/nonexistent/learnsync/token".into()).resolve();
        assert!(missing.is_err());
    }
}
