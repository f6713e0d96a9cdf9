//! Learnings and events as tests make and read them: files written the way
//! a peer's sync brings them, lessons raised to L2 through the binary, the
//! learning files of a dir, the events it holds, and the policy switch that
//! keeps fixed-date fixtures from going stale.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::git::{commit_all_as, git_in};
use super::sandbox::Sandbox;

/// `n` learnings at L2 (three effective outcomes from two agents each),
/// written as files the way a peer's sync would bring them.
pub fn l2_files(dir: &Path, agent: &str, n: usize) -> Vec<String> {
    use learnsync::event::{Event, Outcome};
    use learnsync::learning::Learning;
    use learnsync::timestamp::Timestamp;
    let mut ids = Vec::new();
    // Each agent's outcomes in its own folder (§4): nowhere else do they count.
    let mut lines: std::collections::BTreeMap<&str, String> = Default::default();
    std::fs::create_dir_all(dir.join(agent)).expect("mkdir");
    for i in 0..n {
        let id = format!("learning-{i:032x}-1780000000000");
        let mut l = Learning::new(
            id.clone(),
            agent.into(),
            format!("Lesson {i}: retry with backoff"),
            Timestamp::from_unix(1_780_000_000 + i as i64),
        );
        l.correction = Some("wrap the call in the retry helper".into());
        std::fs::write(dir.join(format!("{agent}/{id}.md")), l.to_markdown()).expect("write");
        for (k, by) in ["a", "b", "a"].iter().enumerate() {
            let at = Timestamp::from_unix(1_780_000_100 + (i * 3 + k) as i64);
            let text = lines.entry(by).or_default();
            text.push_str(&Event::new(&id, by, Outcome::Effective, at).to_line());
            text.push('\n');
        }
        ids.push(id);
    }
    for (by, text) in lines {
        std::fs::create_dir_all(dir.join(format!("events/{by}"))).expect("mkdir");
        std::fs::write(dir.join(format!("events/{by}/2026-06.jsonl")), text).expect("events");
    }
    ids
}

/// Adds lesson `i` ("Lesson <i>: push without losing work", `command`
/// fixed by `correction`, keyword `keyword`) with three `effective`
/// outcomes from claude and codex: L2 at the next sync. Its id.
pub fn add_l2_lesson(
    sb: &Sandbox,
    i: usize,
    command: &str,
    correction: &str,
    keyword: &str,
) -> String {
    let id = sb
        .ok(&[
            "add",
            "--title",
            &format!("Lesson {i}: push without losing work"),
            "--command",
            command,
            "--correction",
            correction,
            "--keyword",
            keyword,
        ])
        .trim()
        .to_string();
    sb.effective_from(&id, &["claude", "codex", "claude"]);
    id
}

/// The learning file at `path`, parsed.
pub fn read_learning(path: &Path) -> learnsync::learning::Learning {
    learnsync::learning::Learning::parse(&std::fs::read(path).expect("read learning"))
        .expect("learning parses")
}

/// Sets the dir's policy so that nothing goes stale (§9.1): for fixtures
/// written with fixed 2026 dates, which age as the calendar moves on.
pub fn never_stale(sb: &Sandbox) {
    let policy = sb.dir().join(".learnsync/policy.yaml");
    let text = std::fs::read_to_string(&policy).expect("policy");
    assert!(text.contains("stale_after_days: 90"), "{text}");
    std::fs::write(
        &policy,
        text.replace("stale_after_days: 90", "stale_after_days: 36500"),
    )
    .expect("policy");
}

/// Every learning file in the agents' folders of `dir`, sorted (not
/// events, KG, reviews or terraphim's shared copies).
pub fn learning_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for agent in std::fs::read_dir(dir).expect("dir").flatten() {
        let name = agent.file_name().to_string_lossy().into_owned();
        if name.starts_with('.')
            || ["events", "kg", "reviews", "shared"].contains(&name.as_str())
            || !agent.path().is_dir()
        {
            continue;
        }
        for f in std::fs::read_dir(agent.path())
            .expect("agent dir")
            .flatten()
        {
            if f.path().extension().is_some_and(|e| e == "md") {
                out.push(f.path());
            }
        }
    }
    out.sort();
    out
}

/// Every events file of `dir`, one after the other (empty when there is
/// no `events/` yet).
pub fn events_text(dir: &Path) -> String {
    let mut text = String::new();
    for agent in std::fs::read_dir(dir.join("events"))
        .into_iter()
        .flatten()
        .flatten()
    {
        for month in std::fs::read_dir(agent.path())
            .expect("events dir")
            .flatten()
        {
            text.push_str(&std::fs::read_to_string(month.path()).expect("events file"));
        }
    }
    text
}

/// The `id` of every entry of a JSON array (`list`, `query`, `suggest`).
pub fn ids(v: &Value) -> Vec<String> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|h| h["id"].as_str().expect("id").to_string())
        .collect()
}

/// Sets the hub's `main` to one commit of review records for `reviews`
/// (id, decision), made with plain git as a maintainer's merge leaves them.
pub fn review_on_hub(sb: &Sandbox, hub: &Path, reviews: &[(&str, &str)]) {
    let scratch = sb.root().join("scratch");
    git_in(
        sb.root(),
        sb.home(),
        &["init", "-q", "-b", "main", &scratch.display().to_string()],
    );
    std::fs::create_dir_all(scratch.join("reviews")).expect("mkdir");
    for (id, decision) in reviews {
        let shown = sb.show(id);
        let path = sb.dir().join(shown["path"].as_str().expect("path"));
        let learning = learnsync::learning::Learning::parse(&std::fs::read(path).expect("read"))
            .expect("parses");
        std::fs::write(
            scratch.join(format!("reviews/{id}.yaml")),
            format!(
                "learning: {id}\ndecision: {decision}\ncontent_hash: {}\nreviewer: maintainer\ndecided_at: 2026-09-01T00:00:00Z\n",
                learning.content_hash()
            ),
        )
        .expect("write");
    }
    commit_all_as(&scratch, sb.home(), "m", "m@x", "reviews");
    git_in(
        &scratch,
        sb.home(),
        &["push", "-q", &hub.display().to_string(), "main"],
    );
}
