//! opencode: a local plugin file that forwards bash calls to `learnsync capture`.
//!
//! The source is `hooks/opencode/learnsync.js`, embedded at build time; the
//! install writes it with the absolute learnsync path filled in.

/// The plugin source as shipped, with `__LEARNSYNC_BIN__` standing for the path.
pub const PLUGIN_SOURCE: &str = include_str!("../../hooks/opencode/learnsync.js");

/// The marker that identifies a plugin file learnsync wrote.
const MARKER: &str = "learnsync-managed-plugin";

/// The plugin for a learnsync binary at `bin` (written as a JS string literal).
pub(super) fn render(bin: &str) -> String {
    let literal = serde_json::Value::String(bin.to_string()).to_string();
    PLUGIN_SOURCE.replace("\"__LEARNSYNC_BIN__\"", &literal)
}

pub(super) fn is_ours(text: &str) -> bool {
    text.contains(MARKER)
}
