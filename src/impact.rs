//! What the learnings did (issue 30 §3): from the events (§4) of a period,
//! per learning and per agent, how often each was shown and how, how often
//! its correction was followed and worked, how often the failure came back
//! after a showing, and the failures avoided. Pure: events and learnings
//! in, a [`Report`] out; `impact`, `/metrics` and the wiki's Home read it.
//!
//! Not trust (§5, `crate::trust`): nothing here moves a level, and every
//! agent's events count, roster or not.

use crate::event::{Event, Outcome, Via};
use crate::learning::Learning;
use crate::names::Named;
use crate::timestamp::Timestamp;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// Showings by how the learning reached the agent (§4 `via`); `none` for
/// events that do not say.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ShownBy {
    #[serde(rename = "pre-tool-use")]
    pub pre_tool_use: u64,
    pub deny: u64,
    pub prompt: u64,
    #[serde(rename = "session-start")]
    pub session_start: u64,
    pub manual: u64,
    pub none: u64,
}

impl ShownBy {
    fn slot(&mut self, via: Option<Via>) -> &mut u64 {
        match via {
            Some(Via::PreToolUse) => &mut self.pre_tool_use,
            Some(Via::Deny) => &mut self.deny,
            Some(Via::Prompt) => &mut self.prompt,
            Some(Via::SessionStart) => &mut self.session_start,
            Some(Via::Manual) => &mut self.manual,
            None => &mut self.none,
        }
    }

    fn add(&mut self, o: &ShownBy) {
        self.pre_tool_use += o.pre_tool_use;
        self.deny += o.deny;
        self.prompt += o.prompt;
        self.session_start += o.session_start;
        self.manual += o.manual;
        self.none += o.none;
    }
}

/// The figures of one learning, one agent, or all of them, over a period.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Figures {
    /// `applied` events: the learning was shown.
    pub shown: u64,
    pub shown_by: ShownBy,
    /// Showings that were denials (`via: deny`): the command did not run.
    pub denied: u64,
    /// `effective` + `ineffective`: the correction was followed.
    pub followed: u64,
    pub effective: u64,
    pub ineffective: u64,
    /// `recurred` by an agent the learning had been shown to before.
    pub recurred_after_shown: u64,
    /// A denial or warning (`applied` via `deny` or `pre-tool-use`) followed
    /// by `effective` from the same agent, with no `recurred` from that
    /// agent after it (up to the end of the period).
    pub failures_avoided: u64,
}

impl Figures {
    /// Names of the figures [`Figures::columns`] gives, in its order.
    pub const COLUMNS: [&'static str; 7] = [
        "shown",
        "denied",
        "followed",
        "effective",
        "ineffective",
        "recurred",
        "avoided",
    ];

    /// The figures a table shows, in [`Figures::COLUMNS`]' order.
    pub fn columns(&self) -> [u64; 7] {
        [
            self.shown,
            self.denied,
            self.followed,
            self.effective,
            self.ineffective,
            self.recurred_after_shown,
            self.failures_avoided,
        ]
    }

    /// Evidence against the learning: it did not work, or the failure came
    /// back although the agent had been shown it.
    pub fn harm(&self) -> u64 {
        self.ineffective + self.recurred_after_shown
    }

    /// Keeps failing after being shown: at least two failures, and more of
    /// them than successes.
    pub fn keeps_failing(&self) -> bool {
        self.harm() >= 2 && self.harm() > self.effective
    }

    fn add(&mut self, o: &Figures) {
        self.shown += o.shown;
        self.shown_by.add(&o.shown_by);
        self.denied += o.denied;
        self.followed += o.followed;
        self.effective += o.effective;
        self.ineffective += o.ineffective;
        self.recurred_after_shown += o.recurred_after_shown;
        self.failures_avoided += o.failures_avoided;
    }
}

/// Which events a report counts. Events before `since` are not counted but
/// still tell whether a learning had been shown; events at or after
/// `until` are left out entirely (the report is as of then).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scope {
    pub since: Option<Timestamp>,
    pub until: Option<Timestamp>,
    /// Only this agent's events.
    pub agent: Option<String>,
}

impl Scope {
    /// The calendar month `YYYY-MM` (UTC), as events files name it.
    pub fn month(month: &str) -> Option<Scope> {
        let (year, m) = month.split_once('-')?;
        let (year, m): (i32, u8) = (year.parse().ok()?, m.parse().ok()?);
        if month.len() != 7 || !(1..=12).contains(&m) {
            return None;
        }
        let (next_year, next) = if m == 12 {
            (year + 1, 1)
        } else {
            (year, m + 1)
        };
        let start = |y: i32, m: u8| Timestamp::parse(&format!("{y:04}-{m:02}-01T00:00:00Z"));
        Some(Scope {
            since: Some(start(year, m)?),
            until: Some(start(next_year, next)?),
            agent: None,
        })
    }
}

/// `--since`: a date (`YYYY-MM-DD`, midnight UTC) or an RFC 3339 time.
pub fn parse_since(text: &str) -> Option<Timestamp> {
    let text = text.trim();
    let is_date = text.len() == 10
        && text.bytes().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
    if is_date {
        return Timestamp::parse(&format!("{text}T00:00:00Z"));
    }
    // RFC 3339: a date, `T` and a time with its offset.
    text.contains(['T', 't'])
        .then(|| Timestamp::parse(text))
        .flatten()
}

/// One learning's figures, and each agent's share of them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    pub learning: String,
    /// `None` for a learning this dir does not hold (events outlive files).
    pub title: Option<String>,
    pub level: Option<&'static str>,
    #[serde(flatten)]
    pub figures: Figures,
    /// By agent name.
    pub by_agent: BTreeMap<String, Figures>,
}

/// Events counted, by outcome and by `via` (`none` when the event does not
/// say): what `/metrics` exposes, with no learning label. Every outcome and
/// `via` is present, zero or not, so the JSON keeps one shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EventCounts(BTreeMap<&'static str, BTreeMap<&'static str, u64>>);

impl Default for EventCounts {
    fn default() -> Self {
        EventCounts(
            Outcome::ALL
                .iter()
                .map(|o| (o.as_str(), Self::via_labels().map(|v| (v, 0)).collect()))
                .collect(),
        )
    }
}

impl EventCounts {
    /// The label a missing `via` is counted under.
    pub const NO_VIA: &'static str = "none";

    fn add(&mut self, outcome: Outcome, via: Option<Via>) {
        *self
            .0
            .entry(outcome.as_str())
            .or_default()
            .entry(via.map_or(Self::NO_VIA, Via::as_str))
            .or_default() += 1;
    }

    /// Events with this outcome and `via` name.
    pub fn get(&self, outcome: Outcome, via: &str) -> u64 {
        self.0
            .get(outcome.as_str())
            .and_then(|m| m.get(via))
            .copied()
            .unwrap_or(0)
    }

    /// Every `via` label, in a fixed order: the known ones, then `none`.
    pub fn via_labels() -> impl Iterator<Item = &'static str> {
        Via::ALL.iter().map(|v| v.as_str()).chain([Self::NO_VIA])
    }
}

/// What the learnings did over a scope.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Report {
    /// Learnings with at least one counted event: the most useful first
    /// (failures avoided, then effective), the most harmful last.
    pub learnings: Vec<Row>,
    /// Totals by agent name.
    pub agents: BTreeMap<String, Figures>,
    pub totals: Figures,
    /// Ids of the learnings that keep failing after being shown, the
    /// worst first.
    pub keeps_failing: Vec<String>,
    /// The counted events by outcome and `via`.
    pub events: EventCounts,
}

/// What one agent's history with one learning left open while walking it.
#[derive(Default)]
struct Track {
    figures: Figures,
    counted_events: u64,
    shown_before: bool,
    /// Denials and warnings not yet followed by an outcome.
    open_warnings: u64,
    /// Whether each `effective` that followed a warning is in the period;
    /// a later `recurred` takes them all back.
    avoided: Vec<bool>,
}

impl Track {
    fn see(&mut self, e: &Event, counted: bool) {
        let f = &mut self.figures;
        match e.outcome {
            Outcome::Applied => {
                if counted {
                    f.shown += 1;
                    *f.shown_by.slot(e.via) += 1;
                    f.denied += u64::from(e.via == Some(Via::Deny));
                }
                self.shown_before = true;
                if matches!(e.via, Some(Via::Deny | Via::PreToolUse)) {
                    self.open_warnings += 1;
                }
            }
            Outcome::Effective | Outcome::Ineffective => {
                if counted {
                    f.followed += 1;
                    match e.outcome {
                        Outcome::Effective => f.effective += 1,
                        _ => f.ineffective += 1,
                    }
                }
                if self.open_warnings > 0 {
                    self.open_warnings -= 1;
                    if e.outcome == Outcome::Effective {
                        self.avoided.push(counted);
                    }
                }
            }
            Outcome::Recurred => {
                if counted && self.shown_before {
                    f.recurred_after_shown += 1;
                }
                self.avoided.clear();
            }
        }
        self.counted_events += u64::from(counted);
    }

    fn finish(mut self) -> Option<Figures> {
        self.figures.failures_avoided = self.avoided.iter().filter(|&&c| c).count() as u64;
        (self.counted_events > 0).then_some(self.figures)
    }
}

/// The report of `events` over `scope`. `events` may hold duplicates (by
/// agent and `id`, counted once, as trust counts them) and come in any
/// order; they are walked by (`at`, `id`), as trust folds them, so every
/// machine gives the same report.
pub fn report(events: &[Event], learnings: &[Learning], scope: &Scope) -> Report {
    let mut mine: Vec<&Event> = events
        .iter()
        .filter(|e| scope.until.is_none_or(|u| e.at < u))
        .filter(|e| scope.agent.as_deref().is_none_or(|a| e.agent == a))
        .collect();
    crate::event::into_fold_order(&mut mine);

    let mut out = Report::default();
    let mut tracks: BTreeMap<(&str, &str), Track> = BTreeMap::new();
    for e in mine {
        let counted = scope.since.is_none_or(|s| e.at >= s);
        if counted {
            out.events.add(e.outcome, e.via);
        }
        tracks
            .entry((e.learning.as_str(), e.agent.as_str()))
            .or_default()
            .see(e, counted);
    }

    let known: HashMap<&str, &Learning> = learnings.iter().map(|l| (l.id.as_str(), l)).collect();
    let mut rows: BTreeMap<&str, Row> = BTreeMap::new();
    for ((learning, agent), track) in tracks {
        let Some(figures) = track.finish() else {
            continue;
        };
        let row = rows.entry(learning).or_insert_with(|| Row {
            learning: learning.to_string(),
            title: known.get(learning).map(|l| l.title.clone()),
            level: known.get(learning).map(|l| l.trust_level.as_str()),
            figures: Figures::default(),
            by_agent: BTreeMap::new(),
        });
        row.figures.add(&figures);
        row.by_agent.insert(agent.to_string(), figures);
        out.agents
            .entry(agent.to_string())
            .or_default()
            .add(&figures);
        out.totals.add(&figures);
    }
    out.learnings = rows.into_values().collect();
    out.learnings.sort_by(|a, b| {
        let (x, y) = (&a.figures, &b.figures);
        (y.failures_avoided, y.effective, x.harm(), &a.learning).cmp(&(
            x.failures_avoided,
            x.effective,
            y.harm(),
            &b.learning,
        ))
    });
    let mut failing: Vec<&Row> = out
        .learnings
        .iter()
        .filter(|r| r.figures.keeps_failing())
        .collect();
    failing.sort_by(|a, b| (b.figures.harm(), &a.learning).cmp(&(a.figures.harm(), &b.learning)));
    out.keeps_failing = failing.iter().map(|r| r.learning.clone()).collect();
    out
}

#[cfg(test)]
mod tests;
