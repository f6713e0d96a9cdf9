//! The part of the policy in force (§5.2) the hooks act on — enforcement
//! (§5.1), the outcome window (§4.1) and staleness (§9.1) — in `.git/learnsync/hook-policy.json`,
//! written by each sync from the policy it computed with, so a hook reads
//! a few bytes, and only when a learning matches, instead of the policy
//! file and hub `main`. A cache: missing or unreadable means the defaults.

use serde::{Deserialize, Serialize};

use crate::policy::{Enforce, OutcomePolicy, Policy};
use crate::store::StateDir;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct HookPolicy {
    pub enforce: Enforce,
    pub outcomes: OutcomePolicy,
    /// Days without an event after which a learning leaves the session
    /// block and prompt suggestions (§9.1).
    pub stale_after_days: u64,
}

impl Default for HookPolicy {
    fn default() -> Self {
        HookPolicy::of(&Policy::default())
    }
}

impl HookPolicy {
    pub fn of(policy: &Policy) -> Self {
        HookPolicy {
            enforce: policy.enforce,
            outcomes: policy.outcomes,
            stale_after_days: policy.stale_after_days,
        }
    }
}

/// Records the policy a sync computed with. Best effort: written only when
/// it changed.
pub fn save(state: &StateDir, policy: &Policy) {
    let hook = HookPolicy::of(policy);
    if load(state) == hook && state.hook_policy().exists() {
        return;
    }
    let result = serde_json::to_vec(&hook)
        .map_err(std::io::Error::other)
        .and_then(|bytes| {
            let path = state.hook_policy();
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            super::replace_file(&path, &bytes)
        });
    if let Err(e) = result {
        tracing::warn!("hook policy not recorded: {e}");
    }
}

/// The policy the hooks act on: the last sync's, else the defaults.
pub fn load(state: &StateDir) -> HookPolicy {
    std::fs::read(state.hook_policy())
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_sync_records_a_hook_reads_and_nothing_means_the_defaults() {
        let tmp = tempfile::tempdir().expect("tmp");
        let state = StateDir::at(tmp.path());
        assert_eq!(load(&state), HookPolicy::default());
        let policy =
            Policy::parse("enforce: {L3: warn}\noutcomes: {window_calls: 3}\n").expect("policy");
        save(&state, &policy);
        let read = load(&state);
        assert_eq!(read, HookPolicy::of(&policy));
        assert_eq!(read.outcomes.window_calls, 3);
        std::fs::write(state.hook_policy(), b"{not json").expect("write");
        assert_eq!(load(&state), HookPolicy::default());
    }
}
