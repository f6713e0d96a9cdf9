//! What changed on Gitea since the last pass, and whether it needs work.
//!
//! A pass with a warm cache asks Gitea only for the issues and pull
//! requests updated since its watermark (one page when nothing happened)
//! instead of listing every open review: this module sorts what came back
//! into the few changes a pass acts on, against what the cache says it
//! saw. Everything else — a comment on an open review, our own writes of
//! the last pass coming back — needs no work. Pure: no I/O.

use crate::gitea::{Issue, State};
use crate::review_rules::{self, PROBLEM_LABEL};
use crate::store::{ProblemSeen, ReviewCache};

/// A change the pass must act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// A review pull request this machine tracks is no longer open:
    /// merged, or closed by a person, a branch deletion or us.
    Closed(u64),
    /// An open pull request carrying a review marker this machine does not
    /// track (another machine proposed it): fetch it and track it.
    Adopt(u64),
    /// A problem report opened, edited, relabelled or closed: its state now
    /// (`None`: no longer an open report).
    Problem(u64, Option<ProblemSeen>),
    /// The queue issue was edited, closed, or a new one appeared: read it
    /// again before writing.
    Queue,
}

/// What `item` asks of the pass, if anything.
pub fn classify(item: &Issue, cache: &ReviewCache, bot: &str) -> Option<Change> {
    let number = item.number as u64;
    if item.is_pull() {
        return match cache.open.get(&number) {
            Some(_) if item.state != State::Open => Some(Change::Closed(number)),
            Some(_) => None,
            None if item.state == State::Open
                && review_rules::parse_marker(&item.body, "review").is_some() =>
            {
                Some(Change::Adopt(number))
            }
            None => None,
        };
    }
    if cache.queue_issue == Some(number) {
        let same = item.state == State::Open
            && cache.queue_body.as_deref() == Some(digest(&item.body).as_str());
        return (!same).then_some(Change::Queue);
    }
    if item.author() == bot && item.body.contains(super::text::QUEUE_MARKER) {
        return (item.state == State::Open).then_some(Change::Queue);
    }
    let now = problem_of(item);
    (now.as_ref() != cache.problems.get(&number)).then_some(Change::Problem(number, now))
}

/// An issue as an open problem report, if it is one.
pub fn problem_of(item: &Issue) -> Option<ProblemSeen> {
    (!item.is_pull() && item.state == State::Open && item.has_label(PROBLEM_LABEL)).then(|| {
        ProblemSeen {
            title: item.title.clone(),
            author: item.author().to_string(),
            ids: super::learning_ids(&format!("{}\n{}", item.title, item.body)),
        }
    })
}

/// A short digest of a body, to know it again without keeping it.
pub fn digest(body: &str) -> String {
    use sha2::Digest;
    hex::encode(&sha2::Sha256::digest(body.as_bytes())[..16])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gitea::PullRequestMeta;
    use crate::gitea::{Label, User};
    use crate::store::Tracked;

    fn issue(number: i64, state: State, body: &str) -> Issue {
        Issue {
            number,
            state,
            body: body.into(),
            title: "t".into(),
            user: Some(User {
                login: "someone".into(),
                ..User::default()
            }),
            ..Issue::default()
        }
    }

    fn pull(number: i64, state: State, body: &str) -> Issue {
        Issue {
            pull_request: Some(PullRequestMeta::default()),
            ..issue(number, state, body)
        }
    }

    fn cache() -> ReviewCache {
        let mut c = ReviewCache::default();
        c.open.insert(
            7,
            Tracked {
                learning: "learning-a".into(),
                hash: "h".into(),
            },
        );
        c
    }

    #[test]
    fn a_tracked_review_needs_work_only_once_it_is_not_open() {
        let c = cache();
        assert_eq!(classify(&pull(7, State::Open, ""), &c, "bot"), None);
        assert_eq!(
            classify(&pull(7, State::Closed, ""), &c, "bot"),
            Some(Change::Closed(7))
        );
        // Someone else's closed pull request is none of ours.
        assert_eq!(classify(&pull(8, State::Closed, ""), &c, "bot"), None);
    }

    #[test]
    fn an_open_review_another_machine_proposed_is_adopted() {
        let body = review_rules::marker("review", "learning-b", "abc");
        assert_eq!(
            classify(&pull(9, State::Open, &body), &cache(), "bot"),
            Some(Change::Adopt(9))
        );
        assert_eq!(
            classify(&pull(9, State::Open, "no marker"), &cache(), "bot"),
            None
        );
    }

    #[test]
    fn a_problem_report_needs_work_when_it_differs_from_what_was_seen() {
        let mut c = cache();
        let mut report = issue(3, State::Open, "learning-a is wrong");
        report.labels = vec![Label {
            name: PROBLEM_LABEL.into(),
            ..Label::default()
        }];
        let seen = problem_of(&report).expect("a report");
        assert_eq!(
            classify(&report, &c, "bot"),
            Some(Change::Problem(3, Some(seen.clone())))
        );
        c.problems.insert(3, seen);
        assert_eq!(classify(&report, &c, "bot"), None);
        // Closed, or its label taken off: no longer a report.
        let closed = Issue {
            state: State::Closed,
            ..report.clone()
        };
        assert_eq!(classify(&closed, &c, "bot"), Some(Change::Problem(3, None)));
        let unlabelled = Issue {
            labels: Vec::new(),
            ..report
        };
        assert_eq!(
            classify(&unlabelled, &c, "bot"),
            Some(Change::Problem(3, None))
        );
        // An ordinary issue nobody reported anything in.
        assert_eq!(classify(&issue(4, State::Open, "hello"), &c, "bot"), None);
    }

    #[test]
    fn the_queue_issue_needs_a_read_when_someone_touched_it() {
        let mut c = cache();
        c.queue_issue = Some(5);
        c.queue_body = Some(digest("the queue"));
        assert_eq!(
            classify(&issue(5, State::Open, "the queue"), &c, "bot"),
            None
        );
        assert_eq!(
            classify(&issue(5, State::Open, "edited"), &c, "bot"),
            Some(Change::Queue)
        );
        assert_eq!(
            classify(&issue(5, State::Closed, "the queue"), &c, "bot"),
            Some(Change::Queue)
        );
    }
}
