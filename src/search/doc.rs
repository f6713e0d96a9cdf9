//! A learning as retrieval sees it: which learnings may ever be returned,
//! the text of each searchable field, the little a filter or a ranking needs
//! to know about it (trust, evidence, agents, project), and what a hit shows.

use super::tokenize;
use crate::learning::{Learning, SuggestionStatus, TrustLevel};
use serde::{Deserialize, Serialize};

/// The searchable fields, in the order of [`Tuning::field_weights`](super::Tuning).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Title,
    Keywords,
    Command,
    Error,
    Correction,
    Body,
}

pub const FIELD_COUNT: usize = 6;

impl Field {
    pub const ALL: [Field; FIELD_COUNT] = [
        Field::Title,
        Field::Keywords,
        Field::Command,
        Field::Error,
        Field::Correction,
        Field::Body,
    ];
}

/// Never returned (§9): no correction (L0) or rejected by a reviewer.
pub fn retrievable(l: &Learning) -> bool {
    l.has_correction()
        && l.trust_level >= TrustLevel::L1
        && l.suggestion_status != SuggestionStatus::Rejected
}

impl Meta {
    /// Whether no event came for `days` days (§9.1): it leaves the session
    /// block and prompt suggestions until its next event.
    pub fn is_stale(&self, days: u64, now: i64) -> bool {
        let since = self.fresh_at.unwrap_or(self.updated_at);
        now.saturating_sub(since) > i64::try_from(days.saturating_mul(86_400)).unwrap_or(i64::MAX)
    }
}

/// What a hit shows and what an update carries over; stored per learning and
/// read only for the learnings a query returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    pub id: String,
    pub title: String,
    pub correction: String,
    pub agent: String,
    pub path: String,
    pub trust: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub applicable: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    pub updated_at: i64,
    /// Unix seconds of the latest evidence (`last_applied_at`), else of the
    /// capture: what staleness counts from (§9.1). Absent in an older
    /// index: `updated_at` stands in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fresh_at: Option<i64>,
    #[serde(default)]
    pub evidence: Evidence,
    /// Terms in each field (the length norm's input): what a fold of the
    /// index subtracts when this learning leaves it.
    #[serde(default)]
    pub lens: [u32; FIELD_COUNT],
}

/// The outcomes that rank a learning (§4, §5): `recurred` events count here
/// though they count in no quality field.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    pub effective: u64,
    pub ineffective: u64,
    pub recurred: u64,
    /// Distinct agents among the applied outcomes (`quality.agent_count`):
    /// shown with the learning, never ranked by.
    #[serde(default)]
    pub agents: u64,
}

impl Evidence {
    /// The chance the correction works, with one success and one failure
    /// assumed before any evidence (Laplace): 0.5 with no events, towards 1
    /// for a correction that keeps working, towards 0 for one that keeps
    /// failing or whose failure keeps recurring.
    pub fn success(&self) -> f32 {
        let good = self.effective as f32 + 1.0;
        let bad = (self.ineffective + self.recurred) as f32 + 1.0;
        good / (good + bad)
    }
}

/// A learning ready to be indexed.
#[derive(Debug, Clone)]
pub struct Doc {
    pub meta: Meta,
    /// Terms per field, in [`Field::ALL`] order.
    pub fields: [Vec<String>; FIELD_COUNT],
    /// The whole text as a phrase, for the KG matcher.
    pub phrase: String,
    /// Keywords of two words or more, as phrases: they act as KG terms.
    pub keyword_phrases: Vec<String>,
    /// The tails of its error lines ([`signature`](super::signature)), each
    /// with the share of its line it holds, by term.
    pub signatures: Vec<(String, f32)>,
    pub trust: TrustLevel,
}

impl Doc {
    /// `tally`: the learning's `ineffective` and `recurred` events, counted
    /// from the events files (no quality field holds them); `effective`
    /// comes from its quality, which the sync keeps current.
    pub fn new(l: &Learning, path: &str, tally: Tally) -> Doc {
        let keywords = l.keywords.join(" , ");
        // Each field tokenised once, for its terms and its phrase.
        let tokenised = [
            l.title.as_str(),
            &keywords,
            l.original_command.as_deref().unwrap_or(""),
            l.error_context.as_deref().unwrap_or(""),
            l.correction.as_deref().unwrap_or(""),
            &l.body,
        ]
        .map(tokenize::terms_and_phrase);
        let phrase = tokenised
            .iter()
            .map(|(_, p)| p.as_str())
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            // A sentinel between fields: no phrase spans two of them.
            .join(" \u{1} ");
        let fields = tokenised.map(|(terms, _)| terms);
        let keyword_phrases = l
            .keywords
            .iter()
            .map(|k| tokenize::phrase(k))
            .filter(|p| p.contains(' '))
            .collect();
        // Each term once: a tail with the share of the first line holding it.
        let mut signatures =
            super::signature::index_terms(l.error_context.as_deref().unwrap_or(""));
        signatures.sort_by(|a, b| a.0.cmp(&b.0));
        let meta = Meta {
            id: l.id.clone(),
            title: l.title.clone(),
            correction: l.correction.clone().unwrap_or_default(),
            agent: l.agent_id.clone(),
            path: path.to_string(),
            trust: l.trust_level.as_str().to_string(),
            kind: l.kind.clone(),
            project: l.project().map(str::to_string),
            applicable: l.applicable_agents.clone(),
            command: l.original_command.clone(),
            updated_at: l.updated_at.unix(),
            fresh_at: Some(l.quality.last_applied_at.unwrap_or(l.captured_at).unix()),
            evidence: Evidence {
                effective: l.quality.effective_count,
                ineffective: tally.ineffective,
                recurred: tally.recurred,
                agents: l.quality.agent_count,
            },
            lens: fields.each_ref().map(|f| f.len() as u32),
        };
        Doc {
            meta,
            fields,
            phrase,
            keyword_phrases,
            signatures,
            trust: l.trust_level,
        }
    }
}

/// The outcomes of a learning's events that its quality does not hold.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub ineffective: u64,
    pub recurred: u64,
}

impl Tally {
    pub fn add(&mut self, outcome: crate::event::Outcome) {
        match outcome {
            crate::event::Outcome::Ineffective => self.ineffective += 1,
            crate::event::Outcome::Recurred => self.recurred += 1,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timestamp::Timestamp;

    fn learning() -> Learning {
        let mut l = Learning::new(
            "learning-1".into(),
            "claude".into(),
            "Use --force-with-lease".into(),
            Timestamp::from_unix(1_800_000_000),
        );
        l.correction = Some("git push --force-with-lease".into());
        l.trust_level = TrustLevel::L1;
        l
    }

    #[test]
    fn l0_and_rejected_are_never_retrievable() {
        let mut l = learning();
        assert!(retrievable(&l));
        l.suggestion_status = SuggestionStatus::Rejected;
        assert!(!retrievable(&l));
        let mut raw = learning();
        raw.correction = None;
        raw.trust_level = TrustLevel::L0;
        assert!(!retrievable(&raw));
        let mut blank = learning();
        blank.correction = Some("  ".into());
        assert!(!retrievable(&blank), "a blank correction is no correction");
    }

    #[test]
    fn evidence_ranks_outcomes() {
        let none = Evidence::default().success();
        let good = Evidence {
            effective: 4,
            ..Evidence::default()
        }
        .success();
        let failing = Evidence {
            effective: 1,
            ineffective: 5,
            recurred: 3,
            agents: 0,
        }
        .success();
        assert!((none - 0.5).abs() < 1e-6);
        assert!(good > 0.8 && failing < 0.2, "{good} {failing}");
    }

    #[test]
    fn evidence_takes_effective_from_quality_and_the_rest_from_the_tally() {
        let mut l = learning();
        l.quality.effective_count = 2;
        let d = Doc::new(
            &l,
            "claude/learning-1.md",
            Tally {
                ineffective: 3,
                recurred: 1,
            },
        );
        assert_eq!(
            d.meta.evidence,
            Evidence {
                effective: 2,
                ineffective: 3,
                recurred: 1,
                agents: 0,
            }
        );
    }
}
