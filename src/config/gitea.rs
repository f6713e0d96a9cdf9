//! The Gitea settings as the commands that use Gitea read them: the server
//! and repository, and where the token comes from, or which setting a
//! command lacks and how to set it.

use super::Config;
use crate::gitea::{RepoRef, TokenSource};

/// What a command does with Gitea, and so which token scopes it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GiteaUse {
    /// `publish`: the wiki (write:repository).
    Publish,
    /// `review`: contents, branches, pulls, issues, labels and who the bot is.
    Review,
    /// `doctor`: reads only, what review needs to check.
    Doctor,
}

impl GiteaUse {
    pub fn command(self) -> &'static str {
        match self {
            GiteaUse::Publish => "publish",
            GiteaUse::Review => "review",
            GiteaUse::Doctor => "doctor",
        }
    }

    /// The token scopes this use needs (Gitea's names).
    pub fn scopes(self) -> &'static [&'static str] {
        match self {
            GiteaUse::Publish => &["write:repository"],
            GiteaUse::Review | GiteaUse::Doctor => {
                &["write:repository", "write:issue", "read:user"]
            }
        }
    }
}

/// A setting a command needs is not configured (or not usable as it is).
#[derive(Debug, Clone, thiserror::Error)]
#[error("{command} needs {setting}: {hint}")]
pub struct MissingSetting {
    /// The command that needs it (`publish`, `review`, `doctor`).
    pub command: &'static str,
    pub setting: &'static str,
    pub hint: String,
}

impl Config {
    /// Where the Gitea token comes from, when one is configured:
    /// `GITEA_TOKEN`, else `gitea.token_file`, else `gitea.token_command`.
    pub fn gitea_token(&self) -> Option<TokenSource> {
        if self.gitea_token_env {
            return Some(TokenSource::Env(
                crate::gitea::token::DEFAULT_TOKEN_ENV.to_string(),
            ));
        }
        if let Some(file) = &self.token_file {
            return Some(TokenSource::File(file.value.clone()));
        }
        self.token_command
            .as_ref()
            .map(|c| TokenSource::Command(c.value.clone()))
    }

    /// [`Config::gitea_token`] for a command that needs it. A token file
    /// inside the learnings work tree is refused: it would be committed
    /// and pushed.
    pub fn token_source(&self, used_by: GiteaUse) -> Result<TokenSource, MissingSetting> {
        match self.gitea_token() {
            Some(TokenSource::File(path)) => {
                let root = &self.dir.value;
                if path.starts_with(root) && !path.starts_with(root.join(".git")) {
                    return Err(MissingSetting {
                        command: used_by.command(),
                        setting: "a Gitea token outside the learnings dir",
                        hint: format!(
                            "gitea.token_file {} is inside the learnings work tree, where it would be committed; move it out",
                            path.display()
                        ),
                    });
                }
                Ok(TokenSource::File(path))
            }
            Some(source) => Ok(source),
            None => Err(MissingSetting {
                command: used_by.command(),
                setting: "a Gitea token",
                hint: format!(
                    "set GITEA_TOKEN, or gitea.token_file or gitea.token_command in config.yaml \
                     (a token with the scopes {})",
                    used_by.scopes().join(", ")
                ),
            }),
        }
    }

    /// The Gitea server and repository, or which setting is missing.
    pub fn gitea_settings(&self, used_by: GiteaUse) -> Result<(String, RepoRef), MissingSetting> {
        let url = self
            .gitea_url
            .as_ref()
            .map(|s| s.value.clone())
            .ok_or_else(|| MissingSetting {
                command: used_by.command(),
                setting: "gitea.url",
                hint: "set gitea.url in .git/learnsync/config.yaml (gitea: {url: https://git.example.com}) \
                       or LEARNSYNC_GITEA_URL"
                    .into(),
            })?;
        let repo = self.gitea_repo.as_ref().ok_or_else(|| MissingSetting {
            command: used_by.command(),
            setting: "gitea.repo",
            hint:
                "set gitea.repo (owner/name) in .git/learnsync/config.yaml or LEARNSYNC_GITEA_REPO"
                    .into(),
        })?;
        let parsed = RepoRef::parse(&repo.value).map_err(|e| MissingSetting {
            command: used_by.command(),
            setting: "gitea.repo as owner/name",
            hint: format!("{e} (from {})", repo.source),
        })?;
        Ok((url, parsed))
    }
}
