//! Claude Code: the `hooks` section of `settings.json`, edited as JSON with the
//! file's key order kept and written back with 2-space indentation.
//!
//! Layout (https://code.claude.com/docs/en/hooks): `hooks.<Event>` is a list
//! of `{matcher?, hooks: [{type: "command", command, timeout?}]}` groups.

use std::path::Path;

use serde_json::{Map, Value, json};

use super::{HookError, Result, capture_command, is_our_command};

/// The events learnsync listens to and their matcher. Failed Bash calls
/// fire only `PostToolUseFailure`, successful ones only `PostToolUse`.
/// `SessionStart` has no matcher, so it runs on every source (`startup`,
/// `resume`, `clear`, and `compact`, after which the context is gone).
/// `UserPromptSubmit` and `SessionStart` print added context; an install
/// from before they did gets them added beside the tool entries.
const EVENTS: &[(&str, Option<&str>)] = &[
    ("PreToolUse", Some("Bash")),
    ("PostToolUse", Some("Bash")),
    ("PostToolUseFailure", Some("Bash")),
    ("UserPromptSubmit", None),
    ("SessionStart", None),
];

/// Seconds Claude Code waits for the capture hook (it answers in milliseconds).
const TIMEOUT_SECS: u64 = 10;

pub(super) fn install(
    path: &Path,
    old: Option<&str>,
    bin: &str,
) -> Result<(Option<String>, Vec<String>)> {
    let mut root = parse(path, old)?;
    let command = capture_command(bin, "claude");
    let Some(obj) = root.as_object_mut() else {
        return Err(unsupported(path, "the top level is not a JSON object"));
    };
    let hooks = obj
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(hooks) = hooks.as_object_mut() else {
        return Err(unsupported(path, "\"hooks\" is not an object"));
    };
    let mut changed = false;
    for (event, matcher) in EVENTS {
        let groups = hooks
            .entry(*event)
            .or_insert_with(|| Value::Array(Vec::new()));
        let Some(groups) = groups.as_array_mut() else {
            return Err(unsupported(
                path,
                &format!("\"hooks.{event}\" is not a list"),
            ));
        };
        changed |= ensure_handler(groups, *matcher, &command);
    }
    if !changed {
        return Ok((old.map(str::to_string), Vec::new()));
    }
    Ok((Some(render(&root, old)?), Vec::new()))
}

/// Make sure one handler in `groups` runs `command`; update an older
/// learnsync command (the binary moved) in place. Returns whether it changed.
fn ensure_handler(groups: &mut Vec<Value>, matcher: Option<&str>, command: &str) -> bool {
    for group in groups.iter_mut() {
        let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
            continue;
        };
        for handler in handlers.iter_mut() {
            let Some(existing) = handler.get("command").and_then(Value::as_str) else {
                continue;
            };
            if !is_our_command(existing) {
                continue;
            }
            if existing == command {
                return false;
            }
            if let Some(h) = handler.as_object_mut() {
                h.insert("command".into(), Value::String(command.to_string()));
            }
            return true;
        }
    }
    let mut group = Map::new();
    if let Some(m) = matcher {
        group.insert("matcher".into(), Value::String(m.to_string()));
    }
    group.insert(
        "hooks".into(),
        json!([{ "type": "command", "command": command, "timeout": TIMEOUT_SECS }]),
    );
    groups.push(Value::Object(group));
    true
}

pub(super) fn uninstall(path: &Path, old: &str) -> Result<String> {
    let mut root = parse(path, Some(old))?;
    let mut changed = false;
    if let Some(obj) = root.as_object_mut() {
        let mut drop_hooks = false;
        if let Some(hooks) = obj.get_mut("hooks").and_then(Value::as_object_mut) {
            let mut empty_events = Vec::new();
            for (event, groups) in hooks.iter_mut() {
                let Some(groups) = groups.as_array_mut() else {
                    continue;
                };
                let before = groups.len();
                let mut removed_here = false;
                groups.retain_mut(|group| {
                    let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut)
                    else {
                        return true;
                    };
                    let n = handlers.len();
                    handlers.retain(|h| {
                        !h.get("command")
                            .and_then(Value::as_str)
                            .is_some_and(is_our_command)
                    });
                    if handlers.len() != n {
                        removed_here = true;
                        return !handlers.is_empty();
                    }
                    true
                });
                if removed_here || groups.len() != before {
                    changed = true;
                    if groups.is_empty() {
                        empty_events.push(event.clone());
                    }
                }
            }
            for event in empty_events {
                hooks.shift_remove(&event);
            }
            drop_hooks = changed && hooks.is_empty();
        }
        if drop_hooks {
            obj.shift_remove("hooks");
        }
    }
    if !changed {
        return Ok(old.to_string());
    }
    render(&root, Some(old))
}

fn parse(path: &Path, text: Option<&str>) -> Result<Value> {
    match text {
        None => Ok(Value::Object(Map::new())),
        Some(t) if t.trim().is_empty() => Ok(Value::Object(Map::new())),
        Some(t) => serde_json::from_str(t).map_err(|e| HookError::InvalidJson {
            path: path.to_path_buf(),
            detail: e.to_string(),
        }),
    }
}

fn render(root: &Value, old: Option<&str>) -> Result<String> {
    // serde_json's pretty printer indents with two spaces; `preserve_order`
    // keeps the file's key order.
    let mut text = serde_json::to_string_pretty(root).unwrap_or_else(|_| "{}".to_string());
    if old.is_none_or(|o| o.ends_with('\n') || o.trim().is_empty()) {
        text.push('\n');
    }
    Ok(text)
}

fn unsupported(path: &Path, detail: &str) -> HookError {
    HookError::Unsupported {
        path: path.to_path_buf(),
        detail: detail.to_string(),
    }
}
