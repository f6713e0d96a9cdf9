//! What only people decide comes from hub `main` (§5.2), through the real
//! binary over a real bare hub: a policy change pushed on an agent branch
//! (`agents/mallory` lowering the thresholds) is a proposal with no effect,
//! the same change merged to `main` takes effect on every learning at the
//! next sync, even one whose evidence did not move.

use crate::common;

use common::git::{bare, clone_at, commit_all_as, git_in};
use common::{Sandbox, json};
use std::path::Path;

/// A permissive policy: one effective outcome from one agent makes L2.
const LAX: &str = "trust:\n  l2_min_effective: 1\n  l2_min_agents: 1\n  l2_min_success_rate: 0.0\n";

fn trust_of(m: &Sandbox, id: &str) -> String {
    m.show(id)["trust_level"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn committed_trust(m: &Sandbox, id: &str) -> String {
    let text = m.git(&["show", &format!("HEAD:{}", m.learning_rel(id))]);
    text.lines()
        .find_map(|l| l.strip_prefix("trust_level: "))
        .unwrap_or_default()
        .to_string()
}

/// Pushes `branch` of the hub with `.learnsync/policy.yaml` set to `text`,
/// made with plain git from `base`.
fn push_policy(tmp: &Path, hub: &Path, home: &Path, base: &str, branch: &str, text: &str) {
    let work = tmp.join(format!("edit-{}", branch.replace('/', "-")));
    clone_at(hub, &work, home, &format!("origin/{base}"), "edit");
    std::fs::write(work.join(".learnsync/policy.yaml"), text).expect("policy");
    commit_all_as(
        &work,
        home,
        "someone",
        "someone@example.invalid",
        "lower the thresholds",
    );
    git_in(
        &work,
        home,
        &[
            "push",
            "--quiet",
            "origin",
            &format!("edit:refs/heads/{branch}"),
        ],
    );
}

fn setup(tmp: &Path) -> (Sandbox, std::path::PathBuf, String) {
    let hub = tmp.join("hub.git");
    bare(&hub);
    let a = Sandbox::machine_on_hub(tmp, "a", "claude", hub.display());
    let id = a.add_learning("rebase before pushing", "git pull --rebase");
    a.ok(&["sync"]);
    // The hub's main starts as claude's first commit.
    let tip = git_in(&hub, a.home(), &["rev-parse", "agents/claude"]);
    git_in(
        &hub,
        a.home(),
        &["update-ref", "refs/heads/main", tip.trim()],
    );
    a.ok(&["sync"]);
    (a, hub, id)
}

#[test]
fn a_policy_change_on_an_agent_branch_is_a_proposal_with_no_effect() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (a, hub, id) = setup(tmp.path());
    push_policy(
        tmp.path(),
        &hub,
        a.home(),
        "agents/claude",
        "agents/mallory",
        LAX,
    );
    a.ok(&["--agent", "codex", "apply", &id, "--outcome", "effective"]);
    a.ok(&["sync"]);
    // The proposal reached the work tree (a three-way merge of the file) …
    let here = std::fs::read_to_string(a.dir().join(".learnsync/policy.yaml")).expect("policy");
    assert!(here.contains("l2_min_effective: 1"), "{here}");
    // … and changed nothing: one effective outcome from one agent is L1.
    assert_eq!(trust_of(&a, &id), "L1");
    assert_eq!(committed_trust(&a, &id), "L1");
}

#[test]
fn a_policy_change_on_main_takes_effect_on_every_learning() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (a, hub, id) = setup(tmp.path());
    a.ok(&["--agent", "codex", "apply", &id, "--outcome", "effective"]);
    a.ok(&["sync"]);
    assert_eq!(trust_of(&a, &id), "L1");
    // People merge the lower thresholds to main; the learning's evidence
    // does not move, yet the next sync recomputes it.
    push_policy(tmp.path(), &hub, a.home(), "main", "main", LAX);
    let report = json(&a.ok(&["sync", "--json"]));
    assert_eq!(trust_of(&a, &id), "L2", "{report:#}");
    assert_eq!(committed_trust(&a, &id), "L2");
    let promoted: Vec<String> = report["promoted"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["id"].as_str().map(str::to_string))
        .collect();
    assert_eq!(promoted, vec![id.clone()], "{report:#}");
}

/// With a roster on `main`, evidence from agents it does not list counts
/// for nothing: invented agents cannot promote a learning.
#[test]
fn a_roster_on_main_counts_only_its_agents_evidence() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (a, hub, id) = setup(tmp.path());
    push_policy(
        tmp.path(),
        &hub,
        a.home(),
        "main",
        "main",
        "agents:\n  - claude\n  - {name: codex, signing_key: \"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample codex\"}\n",
    );
    a.ok(&["sync"]);
    for ghost in ["ghost1", "ghost2", "ghost1"] {
        a.ok(&["--agent", ghost, "apply", &id, "--outcome", "effective"]);
    }
    a.ok(&["sync"]);
    let shown = json(&a.ok(&["show", &id, "--json"]));
    assert_eq!(shown["trust_level"], "L1", "{shown:#}");
    assert_eq!(shown["quality"]["effective_count"], 0, "{shown:#}");
    a.effective_from(&id, &["codex", "claude", "codex"]);
    a.ok(&["sync"]);
    assert_eq!(trust_of(&a, &id), "L2");
    assert_eq!(committed_trust(&a, &id), "L2");
}
