//! One review pass, decided purely: given every learning's state and the
//! open review pull requests, which to propose, which to follow (the
//! learning changed), which to withdraw, and which proposals the limits hold
//! back (listed in the queue issue, never dropped silently).

use crate::learning::TrustLevel;
use crate::timestamp::Timestamp;

/// A learning as the review pass sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub id: String,
    pub hash: String,
    pub title: String,
    pub trust: TrustLevel,
    /// This version was rejected (a rejection record for its hash).
    pub rejected: bool,
    /// An open problem report names it.
    pub pulled: bool,
    /// The hub's `main` approves this very version.
    pub approved: bool,
    /// When it reached L2 (older proposals go first).
    pub promoted_at: Option<Timestamp>,
}

/// An open review pull request learnsync opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenReview {
    pub number: u64,
    pub id: String,
    /// The version its marker names.
    pub hash: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Open review pull requests at most.
    pub max_open: usize,
    /// New ones a pass opens at most.
    pub max_new: usize,
}

/// One thing to do on the hub.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Open a review of this version.
    Propose { id: String },
    /// The learning changed while its review is open: move the review to
    /// the new version (`from` → the candidate's hash).
    Follow {
        number: u64,
        id: String,
        from: String,
    },
    /// The review is no longer needed: close it, saying why.
    Withdraw {
        number: u64,
        id: String,
        why: String,
    },
}

/// What one pass does, and what it holds back.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    pub actions: Vec<Action>,
    /// Learnings that need a review the limits did not let this pass open.
    pub held_back: Vec<String>,
}

/// Decides the pass. Reviews are matched to learnings by id (one open
/// review per learning; a second one is withdrawn as a duplicate).
pub fn plan(candidates: &[Candidate], open: &[OpenReview], limits: Limits) -> Plan {
    let by_id: std::collections::HashMap<&str, &Candidate> =
        candidates.iter().map(|c| (c.id.as_str(), c)).collect();
    let mut out = Plan::default();
    let mut reviewed: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut open_left = 0usize;
    let mut sorted_open: Vec<&OpenReview> = open.iter().collect();
    sorted_open.sort_by_key(|r| r.number);
    for review in sorted_open {
        let why = match by_id.get(review.id.as_str()) {
            _ if reviewed.contains(review.id.as_str()) => {
                Some("another review of this learning is open".to_string())
            }
            None => Some("the learning was deleted".to_string()),
            Some(c) if c.trust < TrustLevel::L2 => Some(format!(
                "the learning fell back to {} (its evidence no longer supports L2)",
                c.trust
            )),
            Some(c) if c.pulled => Some("a problem report names the learning".to_string()),
            Some(c) if c.approved => {
                Some("the hub's main already approves this version".to_string())
            }
            Some(c) if c.rejected => Some("this version was rejected".to_string()),
            Some(_) => None,
        };
        match why {
            Some(why) => out.actions.push(Action::Withdraw {
                number: review.number,
                id: review.id.clone(),
                why,
            }),
            None => {
                reviewed.insert(review.id.as_str());
                open_left += 1;
                if let Some(c) = by_id.get(review.id.as_str())
                    && c.hash != review.hash
                {
                    out.actions.push(Action::Follow {
                        number: review.number,
                        id: review.id.clone(),
                        from: review.hash.clone(),
                    });
                }
            }
        }
    }
    let mut wanted: Vec<&Candidate> = candidates
        .iter()
        .filter(|c| {
            c.trust == TrustLevel::L2
                && !c.rejected
                && !c.pulled
                && !c.approved
                && !reviewed.contains(c.id.as_str())
        })
        .collect();
    wanted.sort_by(|a, b| (a.promoted_at, &a.id).cmp(&(b.promoted_at, &b.id)));
    let room = limits
        .max_open
        .saturating_sub(open_left)
        .min(limits.max_new);
    for (i, c) in wanted.iter().enumerate() {
        if i < room {
            out.actions.push(Action::Propose { id: c.id.clone() });
        } else {
            out.held_back.push(c.id.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(id: &str, trust: TrustLevel) -> Candidate {
        Candidate {
            id: id.into(),
            hash: format!("{id}-h"),
            title: id.into(),
            trust,
            rejected: false,
            pulled: false,
            approved: false,
            promoted_at: None,
        }
    }

    fn open(number: u64, id: &str, hash: &str) -> OpenReview {
        OpenReview {
            number,
            id: id.into(),
            hash: hash.into(),
        }
    }

    const LIMITS: Limits = Limits {
        max_open: 10,
        max_new: 5,
    };

    #[test]
    fn only_l2_learnings_without_a_review_or_a_decision_are_proposed() {
        let mut rejected = c("r", TrustLevel::L2);
        rejected.rejected = true;
        let mut approved = c("a", TrustLevel::L2);
        approved.approved = true;
        let mut pulled = c("p", TrustLevel::L2);
        pulled.pulled = true;
        let all = [
            c("l1", TrustLevel::L1),
            c("x", TrustLevel::L2),
            c("y", TrustLevel::L2),
            c("l3", TrustLevel::L3),
            rejected,
            approved,
            pulled,
        ];
        let p = plan(&all, &[open(7, "y", "y-h")], LIMITS);
        assert_eq!(p.actions, [Action::Propose { id: "x".into() }]);
        assert!(p.held_back.is_empty());
        // A second pass with x open: nothing to do.
        let p = plan(&all, &[open(7, "y", "y-h"), open(8, "x", "x-h")], LIMITS);
        assert_eq!(p, Plan::default());
    }

    #[test]
    fn an_edit_is_followed_and_a_review_no_longer_needed_is_withdrawn() {
        let mut demoted = c("d", TrustLevel::L1);
        demoted.hash = "d-h".into();
        let mut now_approved = c("a", TrustLevel::L3);
        now_approved.approved = true;
        let p = plan(
            &[c("e", TrustLevel::L2), demoted, now_approved],
            &[
                open(1, "e", "old"),
                open(2, "d", "d-h"),
                open(3, "gone", "g"),
                open(4, "a", "a-h"),
                open(5, "e", "e-h"),
            ],
            LIMITS,
        );
        assert_eq!(
            p.actions[0],
            Action::Follow {
                number: 1,
                id: "e".into(),
                from: "old".into()
            }
        );
        let withdrawn: Vec<(u64, &str)> = p
            .actions
            .iter()
            .filter_map(|a| match a {
                Action::Withdraw { number, why, .. } => Some((*number, why.as_str())),
                _ => None,
            })
            .collect();
        assert_eq!(withdrawn.len(), 4, "{withdrawn:?}");
        assert!(withdrawn.contains(&(
            2,
            "the learning fell back to L1 (its evidence no longer supports L2)"
        )));
        assert!(withdrawn.contains(&(3, "the learning was deleted")));
        assert!(withdrawn.contains(&(5, "another review of this learning is open")));
    }

    #[test]
    fn the_limits_hold_back_the_newest_and_say_so() {
        let mut all: Vec<Candidate> = (0..20)
            .map(|i| c(&format!("l{i:02}"), TrustLevel::L2))
            .collect();
        for (i, l) in all.iter_mut().enumerate() {
            l.promoted_at = Some(Timestamp::from_unix(1000 - i as i64));
        }
        let p = plan(
            &all,
            &[open(1, "l19", "l19-h"), open(2, "l18", "l18-h")],
            LIMITS,
        );
        let proposed: Vec<&str> = p
            .actions
            .iter()
            .filter_map(|a| match a {
                Action::Propose { id } => Some(id.as_str()),
                _ => None,
            })
            .collect();
        // The oldest L2s first (l17 reached L2 earliest among the rest).
        assert_eq!(proposed, ["l17", "l16", "l15", "l14", "l13"]);
        assert_eq!(p.held_back.len(), 13);
        // With 10 already open, nothing new: all held back.
        let open10: Vec<OpenReview> = (0..10)
            .map(|i| open(i, &format!("l{i:02}"), &format!("l{i:02}-h")))
            .collect();
        let p = plan(&all, &open10, LIMITS);
        assert!(p.actions.is_empty());
        assert_eq!(p.held_back.len(), 10);
    }
}
