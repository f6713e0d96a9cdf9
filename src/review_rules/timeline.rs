//! Why a review pull request was closed, read from its timeline: a person's
//! "no" is the only close that records a rejection. A branch deletion also
//! closes the pulls whose head it was (a `close` followed by a
//! `delete_branch` by the same user), and a bot's or a mirror's prune must
//! not read as a person's decision; nor must our own withdrawal.

/// One timeline entry, as the review pass needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// `close`, `reopen`, `merge_pull`, `delete_branch`, `comment`, …
    pub kind: String,
    pub user: String,
    pub at: String,
}

/// Who or what closed a pull request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CloseCause {
    /// It is not closed (reopened since, or never closed).
    Open,
    Merged,
    /// Closed by deleting its head branch (by `by`): not a decision.
    BranchDeleted {
        by: String,
    },
    /// Closed by learnsync itself (`bot`): a withdrawal.
    Ours,
    /// Closed unmerged by a person: a rejection.
    Person {
        by: String,
        at: String,
    },
}

/// The cause of the last close in `timeline` (oldest first). `bot` is the
/// login learnsync acts as.
pub fn close_cause(timeline: &[Entry], bot: &str) -> CloseCause {
    let mut cause = CloseCause::Open;
    for (i, e) in timeline.iter().enumerate() {
        match e.kind.as_str() {
            "merge_pull" => cause = CloseCause::Merged,
            "reopen" => cause = CloseCause::Open,
            "close" => {
                // A deletion records its close and then the deletion, by the
                // same user, one after the other.
                let deleted = timeline
                    .get(i + 1)
                    .is_some_and(|next| next.kind == "delete_branch" && next.user == e.user);
                cause = if deleted {
                    CloseCause::BranchDeleted { by: e.user.clone() }
                } else if e.user == bot {
                    CloseCause::Ours
                } else {
                    CloseCause::Person {
                        by: e.user.clone(),
                        at: e.at.clone(),
                    }
                };
            }
            _ => {}
        }
    }
    cause
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(kind: &str, user: &str) -> Entry {
        Entry {
            kind: kind.into(),
            user: user.into(),
            at: "2026-12-01T10:00:00Z".into(),
        }
    }

    #[test]
    fn only_a_person_closing_without_deleting_the_branch_rejects() {
        let bot = "learnsync-bot";
        assert_eq!(close_cause(&[e("comment", "alice")], bot), CloseCause::Open);
        assert_eq!(
            close_cause(&[e("close", "alice")], bot),
            CloseCause::Person {
                by: "alice".into(),
                at: "2026-12-01T10:00:00Z".into()
            }
        );
        assert_eq!(close_cause(&[e("close", bot)], bot), CloseCause::Ours);
        assert_eq!(
            close_cause(&[e("close", "mirror"), e("delete_branch", "mirror")], bot),
            CloseCause::BranchDeleted {
                by: "mirror".into()
            }
        );
        // A person closes, then the bot cleans the branch up: still a rejection.
        assert!(matches!(
            close_cause(&[e("close", "alice"), e("delete_branch", bot)], bot),
            CloseCause::Person { .. }
        ));
        // Closed, reopened, merged.
        assert_eq!(
            close_cause(
                &[
                    e("close", "alice"),
                    e("reopen", "alice"),
                    e("merge_pull", "alice")
                ],
                bot
            ),
            CloseCause::Merged
        );
        assert_eq!(
            close_cause(&[e("close", "alice"), e("reopen", "bob")], bot),
            CloseCause::Open
        );
    }
}
