//! `learnsync impact` through the real binary: learnings added and applied
//! by hand, events with `via` written by other agents' hooks (hand-written
//! lines, committed by `sync`), one event still in the inbox; the table,
//! the keeps-failing list and `--json --since --agent`, figure by figure.

use crate::common::{Sandbox, json};
use std::path::Path;

struct Dir {
    m: Sandbox,
    force: String,
    docker: String,
}

/// One `applied`/`effective`/… line as a hook writes it.
fn line(n: usize, learning: &str, agent: &str, at: &str, outcome: &str, via: &str) -> String {
    let via = if via.is_empty() {
        String::new()
    } else {
        format!(",\"via\":\"{via}\"")
    };
    format!(
        "{{\"id\":\"ev-{n}\",\"learning\":\"{learning}\",\"agent\":\"{agent}\",\
         \"at\":\"{at}\",\"outcome\":\"{outcome}\"{via}}}\n"
    )
}

/// Two learnings: "force" warned and denied before the command and then
/// working (two failures avoided, one effective by hand); "docker" shown
/// three ways and failing after it (ineffective once, recurred twice).
fn seeded(tmp: &Path) -> Dir {
    let m = Sandbox::machine(tmp, "m");
    m.ok(&["init", "--agent", "claude"]);
    let force = m.add_learning("Use --force-with-lease", "git push --force-with-lease");
    let docker = m.add_learning("Pin the docker tag", "docker pull image:1.2");
    m.ok(&["apply", &force, "--outcome", "effective"]);
    let (f, d) = (force.as_str(), docker.as_str());
    // Each agent's lines, by the events file `sync` puts them in.
    let files = [
        (
            "events/codex/2026-11.jsonl",
            [
                line(
                    1,
                    f,
                    "codex",
                    "2026-11-20T10:00:00Z",
                    "applied",
                    "pre-tool-use",
                ),
                line(2, f, "codex", "2026-11-20T10:01:00Z", "effective", ""),
            ]
            .concat(),
        ),
        (
            "events/codex/2026-12.jsonl",
            [
                line(
                    3,
                    d,
                    "codex",
                    "2026-12-02T10:00:00Z",
                    "applied",
                    "session-start",
                ),
                line(4, d, "codex", "2026-12-02T10:05:00Z", "ineffective", ""),
                line(5, d, "codex", "2026-12-02T11:00:00Z", "recurred", ""),
            ]
            .concat(),
        ),
        (
            "events/gemini/2026-12.jsonl",
            [
                line(6, f, "gemini", "2026-12-01T09:00:00Z", "applied", "deny"),
                line(7, f, "gemini", "2026-12-01T09:01:00Z", "effective", ""),
                line(8, d, "gemini", "2026-12-02T12:00:00Z", "applied", "prompt"),
                line(9, d, "gemini", "2026-12-02T12:05:00Z", "recurred", ""),
            ]
            .concat(),
        ),
    ];
    // As a hook writes them: one inbox file a line, for `sync` to commit
    // into each agent's events file.
    let inbox = m.dir().join(".git/learnsync/inbox");
    std::fs::create_dir_all(&inbox).expect("inbox");
    for (n, text) in files.iter().flat_map(|(_, t)| t.lines()).enumerate() {
        let path = inbox.join(format!("{n:04}-hook.event.jsonl"));
        std::fs::write(path, format!("{text}\n")).expect("write event");
    }
    m.sync_offline();
    let committed = m.git(&["ls-files", "events"]);
    for (rel, _) in &files {
        assert!(committed.contains(rel), "{rel} not in\n{committed}");
    }
    // Still in the inbox when `impact` runs: counted all the same.
    m.ok(&["apply", &docker, "--outcome", "applied"]);
    Dir { m, force, docker }
}

/// The seven figures at the end of the table line that contains `key`.
fn figures_of(table: &str, key: &str) -> Vec<u64> {
    let line = table
        .lines()
        .find(|l| l.contains(key))
        .unwrap_or_else(|| panic!("no line with {key} in\n{table}"));
    let tokens: Vec<&str> = line.split_whitespace().collect();
    tokens[tokens.len() - 7..]
        .iter()
        .map(|t| t.parse().unwrap_or_else(|_| panic!("{t} in {line}")))
        .collect()
}

#[test]
fn impact_shows_what_each_learning_did_and_names_the_one_that_keeps_failing() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = seeded(tmp.path());
    let table = d.m.ok(&["impact"]);
    // shown, denied, followed, effective, ineffective, recurred, avoided
    for (row, want) in [
        (d.force.as_str(), [2, 1, 3, 3, 0, 0, 2]),
        (d.docker.as_str(), [3, 0, 1, 0, 1, 2, 0]),
        ("total", [5, 1, 4, 3, 1, 2, 2]),
        // The table by agent.
        ("gemini", [2, 1, 1, 1, 0, 1, 1]),
        ("codex ", [2, 0, 2, 1, 1, 1, 1]),
        ("claude", [1, 0, 1, 1, 0, 0, 0]),
    ] {
        assert_eq!(figures_of(&table, row), want, "{row} in\n{table}");
    }
    // The most useful first; the title and level beside the id.
    let force_at = table.find(&d.force).expect("force row");
    let docker_at = table.find(&d.docker).expect("docker row");
    assert!(force_at < docker_at, "{table}");
    // Three agents found "force" effective: it is L2 now.
    let row = |id: &str| {
        let line = table.lines().find(|l| l.contains(id)).expect("row");
        let (title, rest) = line.split_once(id).expect("id");
        let level = rest.split_whitespace().next().unwrap_or_default();
        format!("{} | {level}", title.trim())
    };
    assert_eq!(row(&d.force), "Use --force-with-lease | L2");
    assert_eq!(row(&d.docker), "Pin the docker tag | L1");
    assert!(
        table.contains(
            "Shown by how: pre-tool-use 1, deny 1, prompt 1, session-start 1, manual 1\n"
        ),
        "{table}"
    );
    let failing = table
        .split("Keeps failing after being shown:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no keeps-failing list in\n{table}"));
    assert_eq!(
        failing.trim(),
        format!(
            "{} Pin the docker tag: 1 ineffective, 2 recurred after shown, 0 effective",
            d.docker
        )
    );
}

#[test]
fn impact_json_counts_one_agent_from_a_date_on() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = seeded(tmp.path());
    let v = json(&d.m.ok(&[
        "impact",
        "--json",
        "--since",
        "2026-12-01",
        "--agent",
        "codex",
    ]));
    assert_eq!(v["since"], "2026-12-01T00:00:00Z");
    assert_eq!(v["agent"], "codex");
    // codex's success with "force" was in November: not in the period.
    let rows = v["learnings"].as_array().expect("learnings");
    assert_eq!(rows.len(), 1, "{v}");
    let docker = &rows[0];
    assert_eq!(docker["learning"], d.docker.as_str());
    assert_eq!(docker["title"], "Pin the docker tag");
    assert_eq!(docker["level"], "L1");
    for (key, want) in [
        ("shown", 1),
        ("denied", 0),
        ("followed", 1),
        ("effective", 0),
        ("ineffective", 1),
        ("recurred_after_shown", 1),
        ("failures_avoided", 0),
    ] {
        assert_eq!(docker[key], want, "{key}: {docker}");
    }
    assert_eq!(docker["shown_by"]["session-start"], 1);
    assert_eq!(docker["by_agent"]["codex"]["ineffective"], 1);
    assert_eq!(v["keeps_failing"], serde_json::json!([d.docker]));
    assert_eq!(v["events"]["recurred"]["none"], 1);

    // An RFC 3339 time works as well; gemini's denial then success counts.
    let v = json(&d.m.ok(&[
        "impact",
        "--json",
        "--since",
        "2026-12-01T08:00:00+00:00",
        "--agent",
        "gemini",
    ]));
    let t = &v["totals"];
    for (key, want) in [
        ("shown", 2),
        ("denied", 1),
        ("effective", 1),
        ("recurred_after_shown", 1),
        ("failures_avoided", 1),
    ] {
        assert_eq!(t[key], want, "{key}: {v}");
    }
    assert_eq!(t["shown_by"]["prompt"], 1);
    assert_eq!(v["learnings"][0]["learning"], d.force.as_str());
    assert_eq!(v["keeps_failing"], serde_json::json!([]));
}

#[test]
fn impact_refuses_a_bad_since_and_skips_a_bad_events_line() {
    let tmp = tempfile::tempdir().expect("tmp");
    let m = Sandbox::machine(tmp.path(), "m");
    m.ok(&["init", "--agent", "claude"]);
    let out = m.run(&["impact", "--since", "last week"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--since") && err.contains("YYYY-MM-DD"),
        "{err}"
    );
    let empty = m.ok(&["impact"]);
    assert!(empty.starts_with("No events about learnings"), "{empty}");

    // A line that does not parse is named on stderr and not counted; the
    // rest of its file is.
    let events = m.dir().join("events/claude/2026-12.jsonl");
    std::fs::create_dir_all(events.parent().expect("parent")).expect("mkdir");
    let good = line(
        1,
        "learning-1",
        "claude",
        "2026-12-01T10:00:00Z",
        "applied",
        "deny",
    );
    std::fs::write(&events, format!("{{not json\n{good}")).expect("write");
    let out = m.run(&["impact", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("skipped events/claude/2026-12.jsonl:1"),
        "{err}"
    );
    let v = json(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(v["totals"]["denied"], 1, "{v}");
    assert_eq!(v["learnings"][0]["title"], serde_json::Value::Null);
}
