//! The current state of every learning as a reader should see it: work tree
//! plus inbox, with derived fields recomputed from the evidence (§5), so a
//! hand-edited or stale `trust_level` is never shown or acted on.

use crate::config::Config;
use crate::event::Event;
use crate::policy::{POLICY_PATH, Policy};
use crate::repo::Repo;
use crate::store::{InboxPayload, LearningsDir, Loaded, Problem};
use crate::trust;
use std::collections::HashMap;

/// Learnings with derived state, and what could not be read.
#[derive(Debug, Default)]
pub struct View {
    pub learnings: Vec<Loaded>,
    pub problems: Vec<Problem>,
}

impl View {
    pub fn find(&self, id: &str) -> Option<&Loaded> {
        self.learnings.iter().find(|l| l.learning.id == id)
    }
}

/// Reads the dir, folds in the inbox, and recomputes derived state.
pub fn load(dir: &LearningsDir, config: &Config) -> View {
    let scan = dir.scan();
    let mut problems = scan.problems;
    let mut by_id: HashMap<String, usize> = HashMap::new();
    let mut learnings = scan.learnings;
    for (i, l) in learnings.iter().enumerate() {
        by_id.insert(l.learning.id.clone(), i);
    }
    let (mut events, event_problems) = dir.read_events();
    problems.extend(event_problems);
    for item in dir.inbox().items() {
        let path = item.path.display().to_string();
        match item.payload {
            Ok(InboxPayload::Learning(l)) => match by_id.get(&l.id) {
                Some(&i) => {
                    let winner = crate::learning::newer(&learnings[i].learning, &l).clone();
                    learnings[i] = Loaded {
                        path,
                        learning: winner,
                        in_inbox: true,
                    };
                }
                None => {
                    by_id.insert(l.id.clone(), learnings.len());
                    learnings.push(Loaded {
                        path,
                        learning: *l,
                        in_inbox: true,
                    });
                }
            },
            Ok(InboxPayload::Event(e)) => events.push(e),
            Err(message) => problems.push(Problem { path, message }),
        }
    }
    let (policy, policy_problem) = Policy::read(
        std::fs::read_to_string(dir.root.join(POLICY_PATH))
            .ok()
            .as_deref(),
    );
    problems.extend(policy_problem);
    let hub = config.hub.as_ref().map(|h| h.value.as_str());
    let main = Repo::open(&dir.root)
        .and_then(|repo| crate::hub::read(&repo, hub, None))
        .unwrap_or_default();
    problems.extend(main.problems);
    let reviews = main.reviews;
    let mut grouped: HashMap<&str, Vec<&Event>> = HashMap::new();
    for e in &events {
        grouped.entry(e.learning.as_str()).or_default().push(e);
    }
    for loaded in &mut learnings {
        let l = &mut loaded.learning;
        let mine = grouped.get(l.id.as_str()).map(Vec::as_slice).unwrap_or(&[]);
        let derived = trust::derive(l, mine, reviews.get(&l.id), &policy.trust);
        trust::apply(l, derived);
    }
    learnings.sort_by(|a, b| a.learning.id.cmp(&b.learning.id));
    View {
        learnings,
        problems,
    }
}
