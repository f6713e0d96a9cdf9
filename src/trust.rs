//! Derived state (§5): quality, trust level, `promoted_at`, suggestion
//! status and `wiki_page_name` as a pure function of a learning, its
//! events, its review and policy.

use crate::event::{Event, Outcome};
use crate::learning::{Learning, Quality, SuggestionStatus, TrustLevel};
use crate::policy::{Policy, TrustPolicy};
use crate::review_rules::{Decision, Review};
use crate::timestamp::Timestamp;
use std::collections::BTreeSet;

/// The fields a sync recomputes; nothing else of the learning changes.
#[derive(Debug, Clone, PartialEq)]
pub struct Derived {
    pub trust_level: TrustLevel,
    pub quality: Quality,
    pub promoted_at: Option<Timestamp>,
    pub suggestion_status: SuggestionStatus,
    /// The page name (Gitea's `sub_url`) the policy's wiki layout gives it
    /// while it is published; `None` otherwise.
    pub wiki_page_name: Option<String>,
}

/// Whether a learning at this level and status has a wiki page (§7): L2
/// and L3 that were not rejected.
pub fn is_published(level: TrustLevel, status: SuggestionStatus) -> bool {
    level >= TrustLevel::L2 && status != SuggestionStatus::Rejected
}

/// The name of a published learning's wiki page: its page title under
/// `policy`'s layout, as Gitea names the page (`sub_url`). From the
/// learning and the shared policy alone, so every clone writes the same,
/// whether or not it publishes.
pub fn wiki_page_name(learning: &Learning, policy: &Policy) -> String {
    crate::page_name::title_to_sub_url(&crate::page_name::learning_page_title(
        &policy.wiki.page_prefix,
        &learning.title,
        &learning.id,
    ))
}

/// Whether an id's evidence counts for its file at `path`, of the files at
/// `holders` (`path` among them) that hold the id (§6.1). A lone file's
/// always does. Of several, only the one file of an agent whose evidence
/// counts (every agent's, without a roster) gets it, and none when two
/// such hold the id: nothing in a tree tells an original from a copy, so
/// the id is contested until one is gone. The sync writes and the view
/// reads by this one rule.
pub fn evidence_counts(path: &str, holders: &[&str], policy: &Policy) -> bool {
    if holders.len() <= 1 {
        return true;
    }
    let listed = |p: &str| match crate::paths::classify(p) {
        crate::paths::RepoPath::Learning { agent, .. } => policy.counts(agent),
        _ => true,
    };
    listed(path) && holders.iter().filter(|p| listed(p)).count() <= 1
}

/// Computes the derived state. `events` may hold duplicates and events of
/// other learnings; both are ignored. Of `reviews` (the decisions about
/// this learning: approvals and rejections, of any version) only those that
/// name its current content count, an approval before a rejection.
pub fn derive(
    learning: &Learning,
    events: &[&Event],
    reviews: &[&Review],
    policy: &Policy,
) -> Derived {
    let mut mine: Vec<&Event> = events
        .iter()
        .copied()
        // With a roster, only its agents' evidence counts (§5.2).
        .filter(|e| e.learning == learning.id && policy.counts(&e.agent))
        .collect();
    // Duplicates counted once, per agent (`event::into_fold_order`).
    crate::event::into_fold_order(&mut mine);

    let (mut trust_level, mut promoted_at, changed_at) = fold(learning, &mine, &policy.trust);
    let quality = quality(&mine[..milestone(&mine, changed_at)]);

    // Only a review needs the content's hash (a SHA-256 of the file).
    let review = if reviews.is_empty() {
        None
    } else {
        let hash = learning.content_hash();
        // The latest decision of a kind counts: people approving again
        // after an approval was questioned start its evidence afresh.
        let current = |decision: Decision| {
            reviews
                .iter()
                .copied()
                .filter(|r| {
                    r.learning == learning.id && r.content_hash == hash && r.decision == decision
                })
                .max_by_key(|r| r.decided_at())
        };
        current(Decision::Approved).or_else(|| current(Decision::Rejected))
    };
    let suggestion_status = match review.map(|r| r.decision) {
        Some(Decision::Approved) => {
            let approved_at = review.and_then(Review::decided_at);
            // An approval is not forever (§5.1): outcomes since it that meet
            // the demotion rule put it back to what its evidence says until
            // people approve it again.
            if !questioned(&mine, approved_at, &policy.trust) {
                trust_level = TrustLevel::L3;
                promoted_at = approved_at;
            }
            SuggestionStatus::Approved
        }
        Some(Decision::Rejected) => SuggestionStatus::Rejected,
        None => SuggestionStatus::Pending,
    };
    let wiki_page_name =
        is_published(trust_level, suggestion_status).then(|| wiki_page_name(learning, policy));
    Derived {
        trust_level,
        quality,
        promoted_at,
        suggestion_status,
        wiki_page_name,
    }
}

/// Whether the outcomes after an approval (all of them when its time is
/// unknown) meet the demotion rule of §5.
fn questioned(events: &[&Event], approved_at: Option<Timestamp>, policy: &TrustPolicy) -> bool {
    let (mut effective, mut ineffective) = (0u64, 0u64);
    for e in events
        .iter()
        .filter(|e| approved_at.is_none_or(|t| e.at > t))
    {
        match e.outcome {
            Outcome::Effective => effective += 1,
            Outcome::Ineffective => ineffective += 1,
            Outcome::Applied | Outcome::Recurred => {}
        }
    }
    effective + ineffective >= policy.demote_min_outcomes
        && rate(effective, ineffective).unwrap_or(0.0) < policy.demote_below_success_rate
}

/// An approved learning that is not L3: people approved it and its
/// outcomes since say otherwise (§5.1). It is not enforced or injected as
/// L3, and `review` asks people to look again.
pub fn approval_questioned(learning: &Learning) -> bool {
    learning.suggestion_status == SuggestionStatus::Approved
        && learning.trust_level != TrustLevel::L3
}

/// Writes the derived state into the learning; true when anything changed.
pub fn apply(learning: &mut Learning, derived: Derived) -> bool {
    let changed = learning.trust_level != derived.trust_level
        || learning.quality != derived.quality
        || learning.promoted_at != derived.promoted_at
        || learning.suggestion_status != derived.suggestion_status
        || learning.wiki_page_name != derived.wiki_page_name;
    learning.trust_level = derived.trust_level;
    learning.quality = derived.quality;
    learning.promoted_at = derived.promoted_at;
    learning.suggestion_status = derived.suggestion_status;
    learning.wiki_page_name = derived.wiki_page_name;
    changed
}

/// Whether an outcome counts in `applied_count` (§5's quality table).
fn counted(e: &Event) -> bool {
    matches!(
        e.outcome,
        Outcome::Applied | Outcome::Effective | Outcome::Ineffective
    )
}

/// How many of the sorted `events` the written `quality` is taken over: up
/// to its last milestone, which is the event at which the level last
/// changed (`changed_at` events in) or the counted outcome that brought the
/// count to a power of two (1, 2, 4, 8, …), whichever comes later. So a
/// learning file is rewritten when its level moves and about log₂ of its
/// outcomes' times, not on every outcome of every agent (issue 32), the
/// counts shown are at least half the true ones, and the result is still a
/// pure function of the events: every clone writes the same bytes.
fn milestone(events: &[&Event], changed_at: usize) -> usize {
    let total = events.iter().filter(|e| counted(e)).count();
    let at_power = match total {
        0 => 0,
        n => 1usize << n.ilog2(),
    };
    let at_change = events[..changed_at].iter().filter(|e| counted(e)).count();
    let wanted = at_power.max(at_change);
    // The prefix ends just after the `wanted`-th counted outcome; events
    // that count in nothing (recurred) after it change nothing either.
    let mut seen = 0;
    for (i, e) in events.iter().enumerate() {
        if seen == wanted {
            return i;
        }
        seen += usize::from(counted(e));
    }
    events.len()
}

fn quality(events: &[&Event]) -> Quality {
    let mut q = Quality::default();
    let mut names = BTreeSet::new();
    let mut ineffective = 0u64;
    for e in events {
        match e.outcome {
            Outcome::Applied | Outcome::Effective | Outcome::Ineffective => {
                q.applied_count += 1;
                names.insert(e.agent.clone());
                q.last_applied_at = q.last_applied_at.max(Some(e.at));
                match e.outcome {
                    Outcome::Effective => q.effective_count += 1,
                    Outcome::Ineffective => ineffective += 1,
                    _ => {}
                }
            }
            Outcome::Recurred => {}
        }
    }
    q.success_rate = rate(q.effective_count, ineffective);
    q.agent_names = names.into_iter().collect();
    q.agent_count = q.agent_names.len() as u64;
    q
}

fn rate(effective: u64, ineffective: u64) -> Option<f64> {
    let total = effective + ineffective;
    (total > 0).then(|| ((effective as f64 / total as f64) * 10_000.0).round() / 10_000.0)
}

/// L0/L1 from the learning; L2 from the fold over sorted, deduplicated
/// events. Also says how many events in the level last changed (0: never).
fn fold(
    learning: &Learning,
    events: &[&Event],
    policy: &TrustPolicy,
) -> (TrustLevel, Option<Timestamp>, usize) {
    if !learning.has_correction() {
        return (TrustLevel::L0, None, 0);
    }
    let mut level = TrustLevel::L1;
    let mut promoted_at = None;
    let mut changed_at = 0;
    let (mut effective, mut ineffective) = (0u64, 0u64);
    let mut effective_agents: BTreeSet<&str> = BTreeSet::new();
    for (i, e) in events.iter().enumerate() {
        match e.outcome {
            Outcome::Effective => {
                effective += 1;
                effective_agents.insert(&e.agent);
            }
            Outcome::Ineffective => ineffective += 1,
            Outcome::Applied | Outcome::Recurred => continue,
        }
        let success = rate(effective, ineffective).unwrap_or(0.0);
        if level == TrustLevel::L1
            && effective >= policy.l2_min_effective
            && effective_agents.len() as u64 >= policy.l2_min_agents
            && success >= policy.l2_min_success_rate
        {
            level = TrustLevel::L2;
            promoted_at = Some(e.at);
            changed_at = i + 1;
        } else if level == TrustLevel::L2
            && effective + ineffective >= policy.demote_min_outcomes
            && success < policy.demote_below_success_rate
        {
            level = TrustLevel::L1;
            promoted_at = None;
            changed_at = i + 1;
        }
    }
    (level, promoted_at, changed_at)
}

#[cfg(test)]
pub(crate) mod tests;
