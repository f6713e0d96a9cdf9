//! Shared output shapes: a learning as JSON (every frontmatter field plus
//! `path` and `body`, §10) and small table helpers.

use super::stdout::outln;
use crate::learning::Learning;
use crate::store::Loaded;
use crate::view::{ReviewState, View};
use serde_json::{Map, Value, json};

fn opt<T: ToString>(v: &Option<T>) -> Value {
    v.as_ref()
        .map_or(Value::Null, |v| Value::String(v.to_string()))
}

/// How a review state reads in a line of `list`, `show` and `status`.
pub fn review_words(state: &ReviewState) -> Option<String> {
    match state {
        ReviewState::None => None,
        ReviewState::Pending { pull_request } => {
            Some(format!("review pending (PR #{pull_request})"))
        }
        ReviewState::Approved { pull_request } => Some(match pull_request {
            Some(n) => format!("approved (L3, PR #{n})"),
            None => "approved (L3)".into(),
        }),
        ReviewState::Rejected { pull_request } => Some(match pull_request {
            Some(n) => format!("rejected (PR #{n})"),
            None => "rejected".into(),
        }),
        ReviewState::Pulled { issue } => Some(format!("pulled (issue #{issue})")),
    }
}

/// The JSON object of one learning, with its review state (`review`).
pub fn learning_json(loaded: &Loaded, view: &View) -> Value {
    let l: &Learning = &loaded.learning;
    let q = &l.quality;
    let mut m = Map::new();
    m.insert("id".into(), json!(l.id));
    m.insert("title".into(), json!(l.title));
    m.insert("agent_id".into(), json!(l.agent_id));
    m.insert("captured_at".into(), json!(l.captured_at.to_string()));
    m.insert("updated_at".into(), json!(l.updated_at.to_string()));
    m.insert("promoted_at".into(), opt(&l.promoted_at));
    m.insert("trust_level".into(), json!(l.trust_level.as_str()));
    m.insert("source".into(), json!(l.source));
    m.insert("applicable_agents".into(), json!(l.applicable_agents));
    m.insert("keywords".into(), json!(l.keywords));
    m.insert("verify_pattern".into(), opt(&l.verify_pattern));
    m.insert(
        "quality".into(),
        json!({
            "applied_count": q.applied_count,
            "effective_count": q.effective_count,
            "agent_count": q.agent_count,
            "agent_names": q.agent_names,
            "last_applied_at": opt(&q.last_applied_at),
            "success_rate": q.success_rate,
        }),
    );
    m.insert("original_command".into(), opt(&l.original_command));
    m.insert("error_context".into(), opt(&l.error_context));
    m.insert("correction".into(), opt(&l.correction));
    m.insert("wiki_page_name".into(), opt(&l.wiki_page_name));
    m.insert(
        "suggestion_status".into(),
        json!(l.suggestion_status.as_str()),
    );
    m.insert("kind".into(), opt(&l.kind));
    for (k, v) in &l.extra {
        m.insert(k.clone(), serde_json::to_value(v).unwrap_or(Value::Null));
    }
    m.insert("path".into(), json!(loaded.path));
    m.insert("in_inbox".into(), json!(loaded.in_inbox));
    m.insert("body".into(), json!(l.body));
    m.insert(
        "review".into(),
        serde_json::to_value(view.review_state(l)).unwrap_or(Value::Null),
    );
    Value::Object(m)
}

/// A problem as a line for people: its path and message with control
/// characters escaped (both can quote a peer's bytes).
pub fn problem_line(path: &str, message: &str) -> String {
    format!(
        "{}: {}",
        crate::text::escape_line(path),
        crate::text::escape_line(message)
    )
}

/// Prints a value as pretty JSON on stdout.
pub fn print_json(value: &Value) {
    outln!(
        "{}",
        serde_json::to_string_pretty(value).unwrap_or_default()
    );
}

/// Shortens a line for a table cell; control characters shown escaped.
pub fn cell(s: &str, width: usize) -> String {
    let one_line = crate::text::escape_line(&s.replace(['\n', '\t'], " ")).into_owned();
    if one_line.chars().count() <= width {
        one_line
    } else {
        let cut: String = one_line.chars().take(width.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}
