//! The page templates: the defaults in `templates/` (compiled in) and a user
//! template dir (config `wiki.template_dir`) whose files replace them by name.
//! Owns loading and rendering with minijinja; knows nothing of learnings.

use minijinja::Environment;
use serde::Serialize;
use std::path::Path;

/// A template that cannot be read, parsed or rendered, named.
#[derive(Debug, thiserror::Error)]
#[error("template {name}: {message}")]
pub struct TemplateError {
    pub name: String,
    pub message: String,
}

/// Template file names and their built-in text.
pub const DEFAULTS: [(&str, &str); 7] = [
    (LEARNING, include_str!("../../templates/learning.md")),
    (HOME, include_str!("../../templates/home.md")),
    (TRUST, include_str!("../../templates/trust.md")),
    (KEYWORD, include_str!("../../templates/keyword.md")),
    (SIDEBAR, include_str!("../../templates/sidebar.md")),
    (RETRACTION, include_str!("../../templates/retraction.md")),
    (REVIEW, include_str!("../../templates/review.md")),
];

pub const LEARNING: &str = "learning.md";
pub const HOME: &str = "home.md";
pub const TRUST: &str = "trust.md";
pub const KEYWORD: &str = "keyword.md";
pub const SIDEBAR: &str = "sidebar.md";
/// The page that replaces a learning's page once it is no longer trusted.
pub const RETRACTION: &str = "retraction.md";
/// The body of a review pull request (`learnsync review`).
pub const REVIEW: &str = "review.md";

/// A loaded set of templates, ready to render.
pub struct Templates {
    env: Environment<'static>,
}

impl std::fmt::Debug for Templates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Templates").finish_non_exhaustive()
    }
}

impl Templates {
    /// The templates shipped with learnsync.
    pub fn builtin() -> Self {
        Self::load(None).unwrap_or_else(|_| Templates {
            env: Environment::new(),
        })
    }

    /// The defaults, with each file present in `dir` used instead. A syntax
    /// error names the file, so a user sees which template to fix.
    pub fn load(dir: Option<&Path>) -> Result<Self, TemplateError> {
        let mut env = Environment::new();
        env.set_keep_trailing_newline(true);
        env.set_trim_blocks(true);
        for (name, builtin) in DEFAULTS {
            let (source, origin) = match dir.map(|d| d.join(name)) {
                Some(path) if path.is_file() => {
                    let text = std::fs::read_to_string(&path).map_err(|e| TemplateError {
                        name: path.display().to_string(),
                        message: e.to_string(),
                    })?;
                    (text, path.display().to_string())
                }
                _ => (builtin.to_string(), format!("built-in {name}")),
            };
            env.add_template_owned(name, source)
                .map_err(|e| TemplateError {
                    name: origin,
                    message: e.to_string(),
                })?;
        }
        Ok(Templates { env })
    }

    /// Renders one template with `context`.
    pub fn render(&self, name: &str, context: impl Serialize) -> Result<String, TemplateError> {
        let error = |e: minijinja::Error| TemplateError {
            name: name.to_string(),
            message: e.to_string(),
        };
        self.env
            .get_template(name)
            .map_err(error)?
            .render(context)
            .map_err(error)
    }
}
