//! The shared policy in `.learnsync/policy.yaml` (committed, same on every
//! clone): trust thresholds, reviewers, and wiki layout.

use crate::problem::Problem;
use serde::{Deserialize, Serialize};

/// Repository path of the policy file.
pub const POLICY_PATH: &str = ".learnsync/policy.yaml";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrustPolicy {
    /// Effective events needed for L2.
    pub l2_min_effective: u64,
    /// Distinct agents among the effective events needed for L2.
    pub l2_min_agents: u64,
    /// Success rate needed for L2.
    pub l2_min_success_rate: f64,
    /// Outcomes (effective + ineffective) before a demotion can happen.
    pub demote_min_outcomes: u64,
    /// Success rate below which an L2 falls back to L1.
    pub demote_below_success_rate: f64,
}

impl Default for TrustPolicy {
    fn default() -> Self {
        TrustPolicy {
            l2_min_effective: 3,
            l2_min_agents: 2,
            l2_min_success_rate: 0.6,
            demote_min_outcomes: 5,
            demote_below_success_rate: 0.3,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WikiPolicy {
    /// Prefix of every learning page's title.
    pub page_prefix: String,
    /// Keyword index pages are made for keywords used by at least this many learnings.
    pub keyword_index_min: usize,
}

impl Default for WikiPolicy {
    fn default() -> Self {
        WikiPolicy {
            page_prefix: "Learning".to_string(),
            keyword_index_min: 1,
        }
    }
}

/// What `learnsync export` writes into agents' instruction files and skills.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExportPolicy {
    /// The most characters one exported block (or one skill set) holds:
    /// context files cost every session steps, so they stay small.
    pub max_chars: usize,
}

impl Default for ExportPolicy {
    fn default() -> Self {
        ExportPolicy { max_chars: 6000 }
    }
}

/// Days without an event after which a learning is stale (DESIGN §9.1).
pub const DEFAULT_STALE_AFTER_DAYS: u64 = 90;

fn default_stale_after_days() -> u64 {
    DEFAULT_STALE_AFTER_DAYS
}

/// What a PreToolUse match does at a level (§5.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// The warning as context; the command still runs.
    Warn,
    /// The command does not run; the agent is told why and what instead.
    Deny,
}

/// Policy `enforce`: the action per level. `deny` is accepted for L2 and L3
/// only; L0 is never shown before a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Enforce {
    #[serde(rename = "L1")]
    pub l1: Action,
    #[serde(rename = "L2")]
    pub l2: Action,
    #[serde(rename = "L3")]
    pub l3: Action,
}

impl Default for Enforce {
    fn default() -> Self {
        Enforce {
            l1: Action::Warn,
            l2: Action::Warn,
            l3: Action::Deny,
        }
    }
}

impl Enforce {
    /// What a match of a learning at `level` does.
    pub fn action(&self, level: crate::learning::TrustLevel) -> Action {
        use crate::learning::TrustLevel;
        match level {
            TrustLevel::L3 => self.l3,
            TrustLevel::L2 => self.l2,
            // Never deny on L0/L1, whatever the file says.
            TrustLevel::L1 | TrustLevel::L0 => Action::Warn,
        }
    }
}

/// How long a showing is followed for its outcome (§4.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OutcomePolicy {
    /// Tool results of the session after the showing.
    pub window_calls: u32,
    /// Minutes after the showing.
    pub window_minutes: u32,
}

impl Default for OutcomePolicy {
    fn default() -> Self {
        OutcomePolicy {
            window_calls: 10,
            window_minutes: 30,
        }
    }
}

/// One agent of the roster (§5.2): whose evidence counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RosterEntry {
    /// `- claude`
    Name(String),
    /// `- {name: claude, signing_key: "ssh-ed25519 …"}`
    Agent {
        name: String,
        /// The agent's SSH public key (`ssh-ed25519 …`): its folder and
        /// events are taken only from commits signed with it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signing_key: Option<String>,
    },
}

impl RosterEntry {
    pub fn name(&self) -> &str {
        match self {
            RosterEntry::Name(name) | RosterEntry::Agent { name, .. } => name,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Policy {
    pub trust: TrustPolicy,
    /// Gitea users whose merge of a review PR counts (empty: anyone who can merge).
    pub reviewers: Vec<String>,
    pub wiki: WikiPolicy,
    /// A learning with no event for this many days (from its latest event,
    /// or its capture) leaves the session block, prompt suggestions and
    /// exports until its next event (§9.1).
    #[serde(default = "default_stale_after_days")]
    pub stale_after_days: u64,
    pub export: ExportPolicy,
    /// The roster (§5.2): the agents whose events count for quality and
    /// trust. Empty: every agent's count.
    pub agents: Vec<RosterEntry>,
    /// What a PreToolUse match does per level (§5.1).
    pub enforce: Enforce,
    /// How long a learning shown to a session is followed (§4.1).
    pub outcomes: OutcomePolicy,
}

impl Policy {
    /// Whether `agent`'s evidence counts: it is on the roster, or there is none.
    pub fn counts(&self, agent: &str) -> bool {
        self.agents.is_empty() || self.agents.iter().any(|a| a.name() == agent)
    }
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            trust: TrustPolicy::default(),
            reviewers: Vec::new(),
            wiki: WikiPolicy::default(),
            stale_after_days: DEFAULT_STALE_AFTER_DAYS,
            export: ExportPolicy::default(),
            agents: Vec::new(),
            enforce: Enforce::default(),
            outcomes: OutcomePolicy::default(),
        }
    }
}

impl Policy {
    /// The one policy reader: the policy a file's text (`None`: no file)
    /// says, and the problem when it does not parse. The defaults are used
    /// then, and every command that reads the policy reports the problem the
    /// same way (`list`, `status` and `doctor` list it, `sync` reports it,
    /// `publish` warns), so a typo is never an invisible default.
    pub fn read(text: Option<&str>) -> (Policy, Option<Problem>) {
        match text.map(Policy::parse) {
            None => (Policy::default(), None),
            Some(Ok(policy)) => (policy, None),
            Some(Err(e)) => (
                Policy::default(),
                Some(Problem::new(
                    POLICY_PATH,
                    format!("{e}; the default policy is used until it is fixed"),
                )),
            ),
        }
    }

    /// Parses policy text; the error names the key and what was expected.
    pub fn parse(text: &str) -> Result<Self, String> {
        if text.trim().is_empty() {
            return Ok(Policy::default());
        }
        let policy: Policy = serde_norway::from_str(text).map_err(|e| e.to_string())?;
        if policy.enforce.l1 == Action::Deny {
            return Err("enforce.L1: `deny` is accepted for L2 and L3 only (§5.1)".into());
        }
        Ok(policy)
    }

    /// The file `init` writes: every default spelled out, with comments.
    pub fn default_file() -> String {
        let t = TrustPolicy::default();
        let w = WikiPolicy::default();
        format!(
            "# learnsync shared policy (DESIGN.md §5). Committed: every clone uses the same rules.\n\
             trust:\n\
             \x20 # An L1 reaches L2 with this many `effective` events ...\n\
             \x20 l2_min_effective: {}\n\
             \x20 # ... from at least this many distinct agents ...\n\
             \x20 l2_min_agents: {}\n\
             \x20 # ... and a success rate of at least this.\n\
             \x20 l2_min_success_rate: {:?}\n\
             \x20 # An L2 falls back to L1 after this many outcomes ...\n\
             \x20 demote_min_outcomes: {}\n\
             \x20 # ... when its success rate is below this.\n\
             \x20 demote_below_success_rate: {:?}\n\
             # Gitea users whose merge of a review pull request approves (empty: anyone who can merge).\n\
             reviewers: []\n\
             wiki:\n\
             \x20 page_prefix: {}\n\
             \x20 keyword_index_min: {}\n\
             # Days without an event after which a learning leaves session blocks, prompt suggestions and exports.\n\
             stale_after_days: {}\n\
             export:\n\
             \x20 # The most characters one exported block or skill set holds.\n\
             \x20 max_chars: {}\n\
             # The roster: the agents whose evidence counts for trust (empty: every agent).\n\
             # In force only as the hub's main has it. E.g. [claude, codex] or\n\
             # [{{name: claude, signing_key: \"ssh-ed25519 AAAA…\"}}].\n\
             agents: []\n\
             # What a PreToolUse match does per level: warn (advice; the command runs) or\n\
             # deny (the command does not run). deny is accepted for L2 and L3 only.\n\
             # One line switches enforcement off: enforce: {{L3: warn}}\n\
             enforce: {{L1: warn, L2: warn, L3: deny}}\n\
             # How long a learning shown to an agent session is followed for its outcome:\n\
             # this many tool results and minutes, whichever ends first.\n\
             outcomes:\n\
             \x20 window_calls: {}\n\
             \x20 window_minutes: {}\n",
            t.l2_min_effective,
            t.l2_min_agents,
            t.l2_min_success_rate,
            t.demote_min_outcomes,
            t.demote_below_success_rate,
            w.page_prefix,
            w.keyword_index_min,
            DEFAULT_STALE_AFTER_DAYS,
            ExportPolicy::default().max_chars,
            OutcomePolicy::default().window_calls,
            OutcomePolicy::default().window_minutes,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_file_reads_back_as_the_defaults() {
        assert_eq!(
            Policy::parse(&Policy::default_file()),
            Ok(Policy::default())
        );
        assert_eq!(Policy::parse(""), Ok(Policy::default()));
    }

    #[test]
    fn the_roster_takes_names_or_entries_with_a_key_and_empty_counts_everyone() {
        let p = Policy::parse(
            "agents:\n  - claude\n  - {name: codex, signing_key: \"ssh-ed25519 AAAA\"}\n",
        )
        .expect("parse");
        assert!(p.counts("claude") && p.counts("codex"));
        assert!(!p.counts("ghost1"));
        assert_eq!(p.agents[1].name(), "codex");
        assert!(Policy::default().counts("anyone"));
    }

    #[test]
    fn enforcement_defaults_deny_l3_only_and_one_line_switches_it_off() {
        use crate::learning::TrustLevel;
        let p = Policy::default();
        assert_eq!(p.enforce.action(TrustLevel::L3), Action::Deny);
        assert_eq!(p.enforce.action(TrustLevel::L2), Action::Warn);
        let off = Policy::parse("enforce: {L3: warn}\n").expect("parse");
        assert_eq!(off.enforce.action(TrustLevel::L3), Action::Warn);
        let l2 = Policy::parse("enforce: {L2: deny}\n").expect("parse");
        assert_eq!(l2.enforce.action(TrustLevel::L2), Action::Deny);
        assert_eq!(l2.enforce.action(TrustLevel::L3), Action::Deny);
        let err = Policy::parse("enforce: {L1: deny}\n").unwrap_err();
        assert!(err.contains("enforce.L1"), "{err}");
        let err = Policy::parse("enforce: {L3: block}\n").unwrap_err();
        assert!(err.contains("block"), "{err}");
        let w = Policy::parse("outcomes: {window_calls: 4}\n").expect("parse");
        assert_eq!(
            (w.outcomes.window_calls, w.outcomes.window_minutes),
            (4, 30)
        );
    }

    #[test]
    fn a_bad_value_names_the_key() {
        let err = Policy::parse("trust:\n  l2_min_effective: many\n").unwrap_err();
        assert!(err.contains("l2_min_effective"), "{err}");
        let err = Policy::parse("trust:\n  l2_min_efective: 3\n").unwrap_err();
        assert!(err.contains("l2_min_efective"), "{err}");
    }
}
