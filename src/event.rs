//! Evidence about learnings (§4): one JSON object a line in
//! `events/<agent>/<YYYY-MM>.jsonl`, never edited, merged as a union.

use crate::paths;
use crate::timestamp::Timestamp;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// What happened when a learning met the world.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Shown to an agent.
    Applied,
    /// The correction worked.
    Effective,
    /// It did not.
    Ineffective,
    /// The original failure happened again.
    Recurred,
}

impl crate::names::Named for Outcome {
    const ALL: &'static [Self] = &[
        Outcome::Applied,
        Outcome::Effective,
        Outcome::Ineffective,
        Outcome::Recurred,
    ];
    fn as_str(self) -> &'static str {
        match self {
            Outcome::Applied => "applied",
            Outcome::Effective => "effective",
            Outcome::Ineffective => "ineffective",
            Outcome::Recurred => "recurred",
        }
    }
}

impl Outcome {
    pub fn parse(s: &str) -> Option<Self> {
        crate::names::Named::from_name(s)
    }

    pub fn as_str(self) -> &'static str {
        crate::names::Named::as_str(self)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a learning reached the agent an event is about (§4 `via`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Via {
    /// A PreToolUse warning before the command.
    PreToolUse,
    /// A PreToolUse denial: the command did not run.
    Deny,
    /// A suggestion for the user's prompt.
    Prompt,
    /// An entry of the SessionStart block.
    SessionStart,
    /// Someone typed `learnsync apply`.
    Manual,
}

impl crate::names::Named for Via {
    const ALL: &'static [Self] = &[
        Via::PreToolUse,
        Via::Deny,
        Via::Prompt,
        Via::SessionStart,
        Via::Manual,
    ];
    fn as_str(self) -> &'static str {
        match self {
            Via::PreToolUse => "pre-tool-use",
            Via::Deny => "deny",
            Via::Prompt => "prompt",
            Via::SessionStart => "session-start",
            Via::Manual => "manual",
        }
    }
}

impl Via {
    pub fn parse(s: &str) -> Option<Self> {
        crate::names::Named::from_name(s)
    }

    pub fn as_str(self) -> &'static str {
        crate::names::Named::as_str(self)
    }
}

/// One event. Field order here is the line's key order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub id: String,
    pub learning: String,
    pub agent: String,
    pub at: Timestamp,
    pub outcome: Outcome,
    /// How the learning reached the agent; `None` when the line does not
    /// say (older lines) or says something this version does not know.
    pub via: Option<Via>,
}

#[derive(Serialize, Deserialize)]
struct Line<'a> {
    id: &'a str,
    learning: &'a str,
    agent: &'a str,
    at: &'a str,
    outcome: Outcome,
    #[serde(default, skip_serializing_if = "Option::is_none", borrow)]
    via: Option<std::borrow::Cow<'a, str>>,
}

impl Event {
    /// A new event with a fresh id, stamped now.
    pub fn new(learning: &str, agent: &str, outcome: Outcome, at: Timestamp) -> Self {
        Event {
            id: uuid::Uuid::new_v4().to_string(),
            learning: learning.to_string(),
            agent: agent.to_string(),
            at,
            outcome,
            via: None,
        }
    }

    /// The same event, saying how its learning reached the agent.
    pub fn via(mut self, via: Via) -> Self {
        self.via = Some(via);
        self
    }

    /// The canonical line (no trailing newline).
    pub fn to_line(&self) -> String {
        let at = self.at.to_string();
        let line = Line {
            id: &self.id,
            learning: &self.learning,
            agent: &self.agent,
            at: &at,
            outcome: self.outcome,
            via: self.via.map(|v| v.as_str().into()),
        };
        serde_json::to_string(&line).unwrap_or_default()
    }

    /// Parses one line; ids and agent names are validated like paths.
    pub fn parse_line(line: &str) -> Result<Self, String> {
        if line.trim_start().starts_with(NOT_UTF8) {
            return Err("not valid UTF-8".into());
        }
        let raw: Line<'_> = serde_json::from_str(line).map_err(|e| e.to_string())?;
        if raw.id.is_empty() || raw.id.len() > 100 {
            return Err("event id is empty or too long".into());
        }
        paths::validate_id(raw.learning).map_err(|e| e.to_string())?;
        paths::validate_agent(raw.agent).map_err(|e| e.to_string())?;
        let at = Timestamp::parse(raw.at).ok_or_else(|| format!("bad timestamp {:?}", raw.at))?;
        Ok(Event {
            id: raw.id.to_string(),
            learning: raw.learning.to_string(),
            agent: raw.agent.to_string(),
            at,
            outcome: raw.outcome,
            via: raw.via.as_deref().and_then(Via::parse),
        })
    }

    /// The repository path of the file this event belongs in.
    pub fn file_path(&self) -> String {
        format!("events/{}/{}.jsonl", self.agent, self.at.month())
    }
}

/// An events file, read tolerantly: good lines parsed, bad ones kept verbatim.
#[derive(Debug, Default, Clone)]
pub struct EventsFile {
    pub events: Vec<Event>,
    /// Lines that do not parse, with their 1-based line numbers and reasons.
    pub bad_lines: Vec<(usize, String, String)>,
}

/// Whether an event counts from the events file at `path`: an agent's
/// folder `events/<agent>/` holds only that agent's evidence (§4, §6.1), so
/// a line there that names another agent is a forgery (or a copy) and
/// counts for no one. Every reader that weighs evidence asks this.
pub fn in_own_folder(path: &str, e: &Event) -> bool {
    path.strip_prefix("events/")
        .and_then(|rest| rest.split_once('/'))
        .is_some_and(|(agent, _)| agent == e.agent)
}

/// Puts `events` in the order trust folds them (`at`, `id`) and keeps
/// each agent's id once: the same line of two with one id in every
/// reader, whatever order they were read in. An id is unique only within
/// its agent's folder, so another agent reusing it erases nothing.
pub fn into_fold_order<'a>(events: &mut Vec<&'a Event>) {
    events.sort_by(|a, b| {
        (a.at, &a.id, &a.agent, a.outcome as u8).cmp(&(b.at, &b.id, &b.agent, b.outcome as u8))
    });
    let mut seen: std::collections::HashSet<(&'a str, &'a str)> = Default::default();
    events.retain(|&e| seen.insert((e.agent.as_str(), e.id.as_str())));
}

/// A problem for each event of the file at `path` that names another
/// agent than its folder's (see [`in_own_folder`]), by event id.
pub fn foreign_lines(path: &str, events: &[Event]) -> Vec<crate::problem::Problem> {
    events
        .iter()
        .filter(|e| !in_own_folder(path, e))
        .map(|e| {
            crate::problem::Problem::new(
                path.to_string(),
                format!(
                    "event {} says agent {:?}, but only that agent's own folder holds its evidence; it counts for no one",
                    e.id, e.agent
                ),
            )
        })
        .collect()
}

/// What [`decode`] puts before a line that is not UTF-8: U+FFFD cannot
/// open a JSON object, so the line never parses, and every reader skips
/// that line alone.
const NOT_UTF8: &str = "\u{fffd}";

/// The text of an events file's bytes, decoded line by line (§4: a line
/// that does not parse is skipped, never the whole file). A line that is
/// not UTF-8 becomes its lossy text after a U+FFFD, so it fails to parse
/// the same way in every reader (the trust a sync writes, the view, the
/// search index), and [`Event::parse_line`] says why. Borrowed when the
/// whole file is UTF-8 (the usual case).
pub fn decode(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(bytes.len() + 16);
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        match std::str::from_utf8(line) {
            Ok(text) => out.push_str(text),
            Err(_) => {
                out.push_str(NOT_UTF8);
                out.push_str(&String::from_utf8_lossy(line));
            }
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Parses a whole events file.
pub fn parse_file(text: &str) -> EventsFile {
    let mut file = EventsFile::default();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match Event::parse_line(line) {
            Ok(e) => file.events.push(e),
            Err(why) => file.bad_lines.push((n + 1, line.to_string(), why)),
        }
    }
    file
}

/// Union of the lines of any number of versions of an events file, by
/// event id, sorted by (`at`, `id`). Good lines are kept byte for byte; for
/// one id seen with different bytes the smaller line wins, so the result is
/// the same whoever merges. Lines that do not parse are kept, sorted, at the
/// end: nothing is lost. Commutative, associative and idempotent.
pub fn union(versions: &[&str]) -> String {
    let mut good: BTreeMap<(Timestamp, String), &str> = BTreeMap::new();
    let mut by_id: BTreeMap<String, (Timestamp, &str)> = BTreeMap::new();
    let mut bad: std::collections::BTreeSet<&str> = Default::default();
    for text in versions {
        for line in text.lines() {
            let line = line.trim_end_matches('\r');
            if line.trim().is_empty() {
                continue;
            }
            match Event::parse_line(line) {
                Ok(e) => match by_id.get(&e.id) {
                    Some(&(_, kept)) if kept <= line => {}
                    Some(&(at, _)) => {
                        good.remove(&(at, e.id.clone()));
                        by_id.insert(e.id.clone(), (e.at, line));
                        good.insert((e.at, e.id), line);
                    }
                    None => {
                        by_id.insert(e.id.clone(), (e.at, line));
                        good.insert((e.at, e.id), line);
                    }
                },
                Err(_) => {
                    bad.insert(line);
                }
            }
        }
    }
    let mut out = String::new();
    for line in good.values().chain(bad.iter()) {
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The learning an events line is about, read without parsing the line:
/// the value of its `"learning":"…"` pair when written as learnsync writes
/// it, else (other spacing, escapes) from a full parse. Only a hint: the
/// lines found are parsed and checked in full before they count.
pub fn learning_of(line: &str) -> Option<std::borrow::Cow<'_, str>> {
    const KEY: &str = "\"learning\":\"";
    if let Some(at) = line.find(KEY) {
        let rest = &line[at + KEY.len()..];
        if let Some(end) = rest.find('"')
            && !rest[..end].contains('\\')
        {
            return Some(std::borrow::Cow::Borrowed(&rest[..end]));
        }
    }
    let trimmed = line.trim();
    if trimmed.is_empty() {
        return None;
    }
    Event::parse_line(trimmed)
        .ok()
        .map(|e| std::borrow::Cow::Owned(e.learning))
}

/// The event id of a line written as learnsync writes it (`{"id":"…",`),
/// read without parsing it; `None` for any other shape. A hint, like
/// [`learning_of`]: a line that matters is parsed in full.
pub fn id_of(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix("{\"id\":\"")?;
    let end = rest.find('"')?;
    let id = &rest[..end];
    (!id.is_empty() && !id.contains('\\') && rest[end..].starts_with("\",")).then_some(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ev(id: &str, at: i64, outcome: Outcome) -> String {
        Event {
            id: id.into(),
            learning: "learning-1".into(),
            agent: "claude".into(),
            at: Timestamp::from_unix(at),
            outcome,
            via: None,
        }
        .to_line()
    }

    #[test]
    fn a_line_that_is_not_utf8_is_skipped_alone_and_named() {
        let good = ev("e1", 1_786_795_200, Outcome::Effective);
        let mut bytes = format!("{good}\n").into_bytes();
        bytes.extend_from_slice(b"{\"id\":\"e2\xff\"}\n\xff");
        let text = decode(&bytes);
        let file = parse_file(&text);
        assert_eq!(file.events.len(), 1);
        let bad: Vec<(usize, &str)> = file
            .bad_lines
            .iter()
            .map(|(n, _, why)| (*n, why.as_str()))
            .collect();
        assert_eq!(bad, [(2, "not valid UTF-8"), (3, "not valid UTF-8")]);
        assert!(id_of(text.lines().nth(1).expect("line 2")).is_none());
        assert_eq!(decode(good.as_bytes()), good.as_str());
    }

    #[test]
    fn line_is_the_documented_shape() {
        let line = ev("e1", 1_786_795_200, Outcome::Effective);
        assert_eq!(
            line,
            r#"{"id":"e1","learning":"learning-1","agent":"claude","at":"2026-08-15T12:00:00Z","outcome":"effective"}"#
        );
        let back = Event::parse_line(&line).expect("parses");
        assert_eq!(back.to_line(), line);
        assert_eq!(back.file_path(), "events/claude/2026-08.jsonl");
    }

    #[test]
    fn via_is_written_when_known_and_an_unknown_one_is_ignored() {
        let e = Event::new(
            "learning-1",
            "claude",
            Outcome::Applied,
            Timestamp::from_unix(1_786_795_200),
        )
        .via(Via::Deny);
        let line = e.to_line();
        assert!(
            line.ends_with(r#""outcome":"applied","via":"deny"}"#),
            "{line}"
        );
        assert_eq!(Event::parse_line(&line).map(|b| b.via), Ok(Some(Via::Deny)));
        let future = line.replace(r#""via":"deny""#, r#""via":"telepathy","x":1"#);
        assert_eq!(Event::parse_line(&future).map(|b| b.via), Ok(None));
        let escaped = line.replace(r#""via":"deny""#, r#""via":"d\u0065ny""#);
        assert_eq!(
            Event::parse_line(&escaped).map(|b| b.via),
            Ok(Some(Via::Deny))
        );
    }

    #[test]
    fn the_quick_id_is_the_parsed_one_or_none() {
        let line = ev("e-1", 1_786_795_200, Outcome::Recurred);
        assert_eq!(id_of(&line), Some("e-1"));
        assert_eq!(id_of(&format!("  {line}")), Some("e-1"));
        // Escapes, other spacing or key order: left to the full parse.
        assert_eq!(id_of(r#"{"id":"a\"b","learning":"x"}"#), None);
        assert_eq!(id_of(r#"{ "id": "e1", "learning":"x"}"#), None);
        assert_eq!(id_of(r#"{"learning":"x","id":"e1"}"#), None);
        assert_eq!(id_of(r#"{"id":"","learning":"x"}"#), None);
    }

    proptest! {
        #[test]
        fn the_quick_id_never_disagrees_with_the_parse(id in "[ -~]{1,40}") {
            let line = Event {
                id: id.clone(),
                learning: "learning-1".into(),
                agent: "claude".into(),
                at: Timestamp::from_unix(1_786_795_200),
                outcome: Outcome::Effective,
                via: None,
            }
            .to_line();
            if let Some(quick) = id_of(&line) {
                prop_assert_eq!(quick, id.as_str());
            }
        }
    }

    #[test]
    fn refuses_lines_that_would_escape_or_lie() {
        for bad in [
            r#"{"id":"e","learning":"../x","agent":"claude","at":"2026-08-15T12:00:00Z","outcome":"applied"}"#,
            r#"{"id":"e","learning":"l","agent":"a/b","at":"2026-08-15T12:00:00Z","outcome":"applied"}"#,
            r#"{"id":"e","learning":"l","agent":"a","at":"later","outcome":"applied"}"#,
            r#"{"id":"e","learning":"l","agent":"a","at":"2026-08-15T12:00:00Z","outcome":"promoted"}"#,
            "not json",
        ] {
            assert!(Event::parse_line(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn union_sorts_dedupes_and_keeps_bad_lines() {
        let a = format!(
            "{}\n{}\n",
            ev("b", 2, Outcome::Applied),
            ev("a", 1, Outcome::Applied)
        );
        let b = format!(
            "{}\ngarbage\n{}\n",
            ev("c", 1, Outcome::Effective),
            ev("b", 2, Outcome::Applied)
        );
        let merged = union(&[&a, &b]);
        let ids: Vec<String> = parse_file(&merged)
            .events
            .into_iter()
            .map(|e| e.id)
            .collect();
        assert_eq!(ids, ["a", "c", "b"]);
        assert!(merged.ends_with("garbage\n"));
        assert_eq!(union(&[&b, &a]), merged);
        assert_eq!(union(&[&merged, &a]), merged);
    }

    proptest! {
        #[test]
        fn union_is_commutative_associative_idempotent(
            xs in proptest::collection::vec((0u8..20, 0i64..5, 0usize..4), 0..15),
            ys in proptest::collection::vec((0u8..20, 0i64..5, 0usize..4), 0..15),
            zs in proptest::collection::vec((0u8..20, 0i64..5, 0usize..4), 0..15),
        ) {
            let outcomes = [Outcome::Applied, Outcome::Effective, Outcome::Ineffective, Outcome::Recurred];
            let file = |v: &[(u8, i64, usize)]| -> String {
                v.iter().map(|(id, at, o)| ev(&format!("e{id}"), *at, outcomes[*o]) + "\n").collect()
            };
            let (x, y, z) = (file(&xs), file(&ys), file(&zs));
            prop_assert_eq!(union(&[&x, &y]), union(&[&y, &x]));
            prop_assert_eq!(union(&[&union(&[&x, &y]), &z]), union(&[&x, &union(&[&y, &z])]));
            let xy = union(&[&x, &y]);
            prop_assert_eq!(union(&[&xy, &xy]), xy.clone());
        }
    }

    #[test]
    fn an_event_counts_only_from_its_own_agents_folder() {
        let e = Event::new(
            "learning-1",
            "alice",
            Outcome::Effective,
            Timestamp::from_unix(0),
        );
        assert!(in_own_folder("events/alice/1970-01.jsonl", &e));
        for elsewhere in [
            "events/mallory/1970-01.jsonl",
            "events/alice-2/1970-01.jsonl",
            "events/alicex/1970-01.jsonl",
            "alice/1970-01.jsonl",
            "events/alice",
        ] {
            assert!(!in_own_folder(elsewhere, &e), "{elsewhere}");
        }
        let problems = foreign_lines("events/mallory/1970-01.jsonl", &[e]);
        assert_eq!(problems.len(), 1);
        assert!(problems[0].message.contains("\"alice\""), "{problems:?}");
    }
}
