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
    /// The token source the configuration names (DESIGN §10): `GITEA_TOKEN`
    /// in the environment, else `gitea.token_file`, else `gitea.token_command`.
    pub fn from_config(config: &crate::config::Config) -> Option<TokenSource> {
        if config.gitea_token_env {
            return Some(TokenSource::Env(DEFAULT_TOKEN_ENV.to_string()));
        }
        if let Some(file) = &config.token_file {
            return Some(TokenSource::File(file.value.clone()));
        }
        config
            .token_command
            .as_ref()
            .map(|c| TokenSource::Command(c.value.clone()))
    }

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
