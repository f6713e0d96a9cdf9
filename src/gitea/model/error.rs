//! The body of Gitea's error answers, read for its message.

use serde::Deserialize;

/// Gitea's error body (`APIError`, plus `errors` on some 404s).
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct ApiErrorBody {
    #[serde(default)]
    pub message: Option<String>,
}
