//! Human review (§8), the pure part: the records it leaves in the
//! repository, the hidden markers it leaves on Gitea, reading a pull
//! request's timeline, and the plan of one review pass. The Gitea I/O that
//! carries a plan out is the review pass (`review_pass`).
//!
//! - `reviews/<id>.yaml` ([`Review`]): an approval proposed on a branch
//!   `review/<id>`; it counts only once merged into the hub's `main`.
//! - `.learnsync/rejections/<id>.<hash>.yaml` ([`Rejection`]): a person
//!   closed that version's pull request unmerged. Committed on agents
//!   branches, so every machine honours it; it can only lower what a
//!   learning shows.
//! - `.learnsync/pulled/<id>.<issue>.yaml` ([`Pulled`]): an open
//!   `learning-problem` issue names the learning; gone when it closes.

mod plan;
mod record;
mod timeline;

pub use plan::{Action, Candidate, Limits, OpenReview, Plan, plan};
pub use record::{
    Decision, Pulled, Rejection, Review, marker, parse_marker, pulled_path, rejection_path,
};
pub use timeline::{CloseCause, Entry, close_cause};

/// The label on every review pull request learnsync opens.
pub const REVIEW_LABEL: &str = "learnsync:review";
/// The label on a review pull request learnsync withdrew itself.
pub const SUPERSEDED_LABEL: &str = "learnsync:superseded";
/// The label people put on an issue reporting a problem with a learning.
pub const PROBLEM_LABEL: &str = "learning-problem";
/// The branch a learning's review is proposed on.
pub fn review_branch(id: &str) -> String {
    format!("review/{id}")
}
