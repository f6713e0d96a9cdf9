//! Codex: lifecycle hooks as inline `[[hooks.<Event>]]` tables and the legacy
//! `notify` program in `config.toml`, edited with toml_edit so comments stay.
//!
//! Layout (https://developers.openai.com/codex/hooks): `[[hooks.PostToolUse]]`
//! is one `{matcher?, hooks = [...]}` group, `[[hooks.PostToolUse.hooks]]` one
//! handler `{type = "command", command, timeout?}`. `notify` is one argv array
//! that Codex runs after each turn with a JSON argument appended last.

use std::path::Path;

use toml_edit::{Array, ArrayOfTables, DocumentMut, Item, Table, Value, value};

use super::{HookError, Result, capture_command, is_our_command};

/// Codex fires PostToolUse after every shell call (success or not) and has
/// no PostToolUseFailure that fires today, so three tool and prompt events
/// cover capture; `SessionStart` (no matcher: `startup`, `resume` and
/// `clear` alike) and `UserPromptSubmit` take `additionalContext` back.
const EVENTS: &[(&str, Option<&str>)] = &[
    ("PreToolUse", Some("Bash")),
    ("PostToolUse", Some("Bash")),
    ("UserPromptSubmit", None),
    ("SessionStart", None),
];

const TIMEOUT_SECS: i64 = 10;

const TRUST_NOTE: &str = "Codex runs a new command hook only once you trust it: start codex and \
approve the learnsync hooks when it asks (or in /hooks); untrusted hooks are skipped silently";

pub(super) fn install(
    path: &Path,
    old: Option<&str>,
    bin: &str,
) -> Result<(Option<String>, Vec<String>)> {
    let mut doc = parse(path, old)?;
    let command = capture_command(bin, "codex");
    let mut notes = Vec::new();
    let mut changed = false;

    if !doc.contains_key("hooks") {
        let mut t = Table::new();
        t.set_implicit(true);
        doc.insert("hooks", Item::Table(t));
    }
    let Some(hooks) = doc.get_mut("hooks").and_then(Item::as_table_mut) else {
        return Err(unsupported(path, "`hooks` is not a table"));
    };
    for (event, matcher) in EVENTS {
        if !hooks.contains_key(event) {
            hooks.insert(event, Item::ArrayOfTables(ArrayOfTables::new()));
        }
        let Some(groups) = hooks.get_mut(event).and_then(Item::as_array_of_tables_mut) else {
            return Err(unsupported(
                path,
                &format!("`hooks.{event}` is not an array of tables ([[hooks.{event}]])"),
            ));
        };
        changed |= ensure_handler(groups, *matcher, &command);
    }

    let argv = [bin, "capture", "--format", "codex"];
    match doc.get("notify") {
        None => {
            doc.insert("notify", value(argv.iter().copied().collect::<Array>()));
            changed = true;
        }
        Some(item) if notify_is_ours(item) => {
            let same = item.as_array().is_some_and(|a| {
                a.len() == argv.len() && a.iter().zip(argv).all(|(v, w)| v.as_str() == Some(w))
            });
            if !same {
                doc.insert("notify", value(argv.iter().copied().collect::<Array>()));
                changed = true;
            }
        }
        Some(_) => notes.push(
            "config.toml already has a `notify` program that is not learnsync's; left as it is \
             (the hooks capture failures without it)"
                .to_string(),
        ),
    }

    if hooks_disabled(&doc) {
        notes.push(
            "hooks are switched off in this config ([features] hooks = false); learnsync's hooks \
             will not run until they are switched on"
                .to_string(),
        );
    }
    if !changed {
        return Ok((old.map(str::to_string), notes));
    }
    notes.push(TRUST_NOTE.to_string());
    Ok((Some(render(&doc, old)), notes))
}

fn ensure_handler(groups: &mut ArrayOfTables, matcher: Option<&str>, command: &str) -> bool {
    for group in groups.iter_mut() {
        match group.get_mut("hooks") {
            Some(Item::ArrayOfTables(handlers)) => {
                for handler in handlers.iter_mut() {
                    if let Some(changed) = update_if_ours(handler.get("command"), command) {
                        if changed {
                            handler.insert("command", value(command));
                        }
                        return changed;
                    }
                }
            }
            Some(Item::Value(Value::Array(handlers))) => {
                for handler in handlers.iter_mut() {
                    let Some(t) = handler.as_inline_table_mut() else {
                        continue;
                    };
                    let existing = t.get("command").and_then(Value::as_str).map(str::to_string);
                    if let Some(existing) = existing
                        && is_our_command(&existing)
                    {
                        if existing == command {
                            return false;
                        }
                        t.insert("command", Value::from(command));
                        return true;
                    }
                }
            }
            _ => {}
        }
    }
    let mut group = Table::new();
    if let Some(m) = matcher {
        group.insert("matcher", value(m));
    }
    let mut handler = Table::new();
    handler.insert("type", value("command"));
    handler.insert("command", value(command));
    handler.insert("timeout", value(TIMEOUT_SECS));
    let mut handlers = ArrayOfTables::new();
    handlers.push(handler);
    group.insert("hooks", Item::ArrayOfTables(handlers));
    groups.push(group);
    true
}

/// `Some(changed)` when `item` is a learnsync command (`changed`: it differs
/// from `command`), `None` when it is someone else's.
fn update_if_ours(item: Option<&Item>, command: &str) -> Option<bool> {
    let existing = item?.as_str()?;
    is_our_command(existing).then(|| existing != command)
}

fn notify_is_ours(item: &Item) -> bool {
    let Some(arr) = item.as_array() else {
        return false;
    };
    let words: Vec<&str> = arr.iter().filter_map(Value::as_str).collect();
    let Some(first) = words.first() else {
        return false;
    };
    let name = first.rsplit(['/', '\\']).next().unwrap_or(first);
    (name == "learnsync" || name == "learnsync.exe") && words.contains(&"capture")
}

fn hooks_disabled(doc: &DocumentMut) -> bool {
    let Some(features) = doc.get("features").and_then(Item::as_table_like) else {
        return false;
    };
    ["hooks", "codex_hooks"]
        .iter()
        .any(|k| features.get(k).and_then(Item::as_bool) == Some(false))
}

pub(super) fn uninstall(path: &Path, old: &str) -> Result<String> {
    let mut doc = parse(path, Some(old))?;
    let mut changed = false;
    let mut drop_hooks = false;
    if let Some(hooks) = doc.get_mut("hooks").and_then(Item::as_table_mut) {
        let events: Vec<String> = hooks.iter().map(|(k, _)| k.to_string()).collect();
        for event in events {
            let Some(groups) = hooks.get_mut(&event).and_then(Item::as_array_of_tables_mut) else {
                continue;
            };
            let mut removed = false;
            for group in groups.iter_mut() {
                match group.get_mut("hooks") {
                    Some(Item::ArrayOfTables(handlers)) => {
                        let n = handlers.len();
                        handlers.retain(|h| {
                            !h.get("command")
                                .and_then(Item::as_str)
                                .is_some_and(is_our_command)
                        });
                        removed |= handlers.len() != n;
                    }
                    Some(Item::Value(Value::Array(handlers))) => {
                        let n = handlers.len();
                        handlers.retain(|h| {
                            !h.as_inline_table()
                                .and_then(|t| t.get("command"))
                                .and_then(Value::as_str)
                                .is_some_and(is_our_command)
                        });
                        removed |= handlers.len() != n;
                    }
                    _ => {}
                }
            }
            if removed {
                changed = true;
                groups.retain(|g| match g.get("hooks") {
                    Some(Item::ArrayOfTables(h)) => !h.is_empty(),
                    Some(Item::Value(Value::Array(h))) => !h.is_empty(),
                    _ => true,
                });
                if groups.is_empty() {
                    hooks.remove(&event);
                }
            }
        }
        drop_hooks = changed && hooks.is_empty();
    }
    if drop_hooks {
        doc.remove("hooks");
    }
    if doc.get("notify").is_some_and(notify_is_ours) {
        doc.remove("notify");
        changed = true;
    }
    if !changed {
        return Ok(old.to_string());
    }
    Ok(render(&doc, Some(old)))
}

fn parse(path: &Path, text: Option<&str>) -> Result<DocumentMut> {
    text.unwrap_or("")
        .parse::<DocumentMut>()
        .map_err(|e| HookError::InvalidToml {
            path: path.to_path_buf(),
            detail: e
                .to_string()
                .lines()
                .next()
                .unwrap_or("parse error")
                .to_string(),
        })
}

fn render(doc: &DocumentMut, old: Option<&str>) -> String {
    let mut text = doc.to_string();
    if old.is_none_or(|o| o.ends_with('\n') || o.is_empty()) && !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

fn unsupported(path: &Path, detail: &str) -> HookError {
    HookError::Unsupported {
        path: path.to_path_buf(),
        detail: detail.to_string(),
    }
}
