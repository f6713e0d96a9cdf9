//! The impact figures, event sequence by event sequence.

use super::*;

/// `spec`: one `learning/agent:outcome[+via]` per event, at t = 10, 20, …;
/// outcome `a` `e` `i` `r`, via `w` (pre-tool-use), `d` (deny), `p`
/// (prompt), `s` (session-start), `m` (manual).
fn events(spec: &str) -> Vec<Event> {
    spec.split_whitespace()
        .enumerate()
        .map(|(i, item)| {
            let (who, what) = item.split_once(':').expect("who:what");
            let (learning, agent) = who.split_once('/').expect("learning/agent");
            let (outcome, via) = what.split_once('+').unwrap_or((what, ""));
            let outcome = match outcome {
                "a" => Outcome::Applied,
                "e" => Outcome::Effective,
                "i" => Outcome::Ineffective,
                "r" => Outcome::Recurred,
                other => panic!("{other}"),
            };
            let via = match via {
                "" => None,
                "w" => Some(Via::PreToolUse),
                "d" => Some(Via::Deny),
                "p" => Some(Via::Prompt),
                "s" => Some(Via::SessionStart),
                "m" => Some(Via::Manual),
                other => panic!("{other}"),
            };
            Event {
                id: format!("ev{i:03}"),
                learning: format!("learning-{learning}"),
                agent: agent.into(),
                at: Timestamp::from_unix(10 * (i as i64 + 1)),
                outcome,
                via,
            }
        })
        .collect()
}

fn all(spec: &str) -> Report {
    report(&events(spec), &[], &Scope::default())
}

fn figures(spec: &str) -> Figures {
    all(spec).totals
}

#[test]
fn each_figure_follows_its_rule() {
    // (events, shown, denied, followed, effective, ineffective, recurred after shown, avoided)
    let table: &[(&str, [u64; 7])] = &[
        ("", [0, 0, 0, 0, 0, 0, 0]),
        ("1/a:a+w 1/a:e", [1, 0, 1, 1, 0, 0, 1]),
        ("1/a:a+d 1/a:e", [1, 1, 1, 1, 0, 0, 1]),
        // Shown in the prompt or at session start: followed, nothing avoided.
        ("1/a:a+p 1/a:e 1/b:a+s 1/b:e", [2, 0, 2, 2, 0, 0, 0]),
        // Effective with no showing at all (apply by hand): no avoided failure.
        ("1/a:e", [0, 0, 1, 1, 0, 0, 0]),
        // The warning went to another agent.
        ("1/a:a+w 1/b:e", [1, 0, 1, 1, 0, 0, 0]),
        // A recurrence after the success takes the avoided failure back.
        ("1/a:a+w 1/a:e 1/a:r", [1, 0, 1, 1, 0, 1, 0]),
        // ... but only that agent's.
        ("1/a:a+w 1/a:e 1/b:r", [1, 0, 1, 1, 0, 0, 1]),
        // A recurrence before the success does not.
        ("1/a:a+w 1/a:r 1/a:e", [1, 0, 1, 1, 0, 1, 1]),
        // Recurred without a showing first is not held against it.
        ("1/a:r 1/a:a+w", [1, 0, 0, 0, 0, 0, 0]),
        // One warning answers one outcome: an ineffective uses it up.
        ("1/a:a+w 1/a:i 1/a:e", [1, 0, 2, 1, 1, 0, 0]),
        ("1/a:a+w 1/a:a+d 1/a:e 1/a:e 1/a:e", [2, 1, 3, 3, 0, 0, 2]),
        // Another learning's warning does not count.
        ("2/a:a+w 1/a:e", [1, 0, 1, 1, 0, 0, 0]),
    ];
    for (spec, want) in table {
        assert_eq!(&figures(spec).columns(), want, "{spec}");
    }
}

#[test]
fn showings_are_counted_by_how_they_reached_the_agent() {
    let f = figures("1/a:a+w 1/a:a+w 1/a:a+d 1/a:a+p 1/a:a+s 1/a:a+m 1/a:a");
    assert_eq!(
        f.shown_by,
        ShownBy {
            pre_tool_use: 2,
            deny: 1,
            prompt: 1,
            session_start: 1,
            manual: 1,
            none: 1,
        }
    );
    assert_eq!(f.shown, 7);
}

#[test]
fn the_most_useful_come_first_and_the_harmful_last() {
    let r = all("1/a:a+w 1/a:i 1/b:a+w 1/b:r \
         2/a:a+w 2/a:e 2/b:a+d 2/b:e \
         3/a:e 3/b:e 3/c:e \
         4/a:a+w 4/a:e");
    let order: Vec<&str> = r.learnings.iter().map(|r| r.learning.as_str()).collect();
    assert_eq!(
        order,
        ["learning-2", "learning-4", "learning-3", "learning-1"]
    );
    assert_eq!(r.keeps_failing, ["learning-1"]);
    assert_eq!(r.totals.failures_avoided, 3);
    assert_eq!(r.agents["a"].effective, 3);
    assert_eq!(r.agents["b"].recurred_after_shown, 1);
    let two = &r.learnings[0];
    assert_eq!(two.by_agent["b"].denied, 1);
    assert_eq!(two.by_agent["a"].denied, 0);
}

#[test]
fn keeps_failing_needs_two_failures_and_more_than_it_worked() {
    let names = |spec| all(spec).keeps_failing;
    assert!(names("1/a:a+w 1/a:i").is_empty());
    assert_eq!(names("1/a:a+w 1/a:i 1/a:r"), ["learning-1"]);
    assert!(names("1/a:a+w 1/a:i 1/b:a 1/b:r 1/c:e 1/d:e").is_empty());
    assert_eq!(
        names("1/a:i 1/b:i 2/a:i 2/b:i 2/c:i"),
        ["learning-2", "learning-1"]
    );
}

#[test]
fn since_counts_only_later_events_but_remembers_earlier_showings() {
    let evs = events("1/a:a+w 1/a:e 1/b:a+w 1/b:e 1/b:r 1/c:a 1/c:r");
    // ev000 at 10 … ev006 at 70.
    let scope = Scope {
        since: Some(Timestamp::from_unix(35)),
        ..Scope::default()
    };
    let r = report(&evs, &[], &scope);
    assert_eq!(r.totals.shown, 1, "{r:?}");
    assert_eq!(r.totals.effective, 1);
    // b was warned at 30 (before `since`) and succeeded at 40: counted;
    // then b's failure recurred at 50, which takes it back.
    assert_eq!(r.totals.failures_avoided, 0);
    assert_eq!(r.totals.recurred_after_shown, 2);
    assert!(!r.agents.contains_key("a"), "a has nothing in the period");
    assert_eq!(r.events.get(Outcome::Applied, "pre-tool-use"), 0);
    assert_eq!(r.events.get(Outcome::Applied, "none"), 1);
    assert_eq!(r.events.get(Outcome::Effective, "none"), 1);
    assert_eq!(r.events.get(Outcome::Recurred, "none"), 2);
}

#[test]
fn until_leaves_later_events_out_and_agent_keeps_one_agent() {
    let evs = events("1/a:a+w 1/a:e 1/a:r 1/b:a+d 1/b:e");
    let scope = Scope {
        until: Some(Timestamp::from_unix(30)),
        ..Scope::default()
    };
    let r = report(&evs, &[], &scope);
    assert_eq!(
        r.totals.failures_avoided, 1,
        "the recurrence is after the period"
    );
    assert_eq!(r.totals.recurred_after_shown, 0);
    let b = Scope {
        agent: Some("b".into()),
        ..Scope::default()
    };
    let r = report(&evs, &[], &b);
    assert_eq!(r.agents.keys().collect::<Vec<_>>(), ["b"]);
    assert_eq!((r.totals.denied, r.totals.failures_avoided), (1, 1));
}

#[test]
fn duplicates_count_once_and_order_does_not_matter() {
    let mut evs = events("1/a:a+w 1/a:e 1/a:r");
    let once = report(&evs, &[], &Scope::default());
    evs.push(evs[0].clone());
    evs.reverse();
    assert_eq!(report(&evs, &[], &Scope::default()), once);
    assert_eq!(once.totals.shown, 1);
}

#[test]
fn rows_carry_the_title_and_level_of_learnings_the_dir_holds() {
    let mut l = Learning::new(
        "learning-1".into(),
        "claude".into(),
        "Use --force-with-lease".into(),
        Timestamp::from_unix(1),
    );
    l.trust_level = crate::learning::TrustLevel::L2;
    let r = report(&events("1/a:e 9/a:e"), &[l], &Scope::default());
    let row = |id: &str| r.learnings.iter().find(|r| r.learning == id).expect(id);
    assert_eq!(
        row("learning-1").title.as_deref(),
        Some("Use --force-with-lease")
    );
    assert_eq!(row("learning-1").level, Some("L2"));
    assert_eq!(
        (row("learning-9").title.clone(), row("learning-9").level),
        (None, None)
    );
}

#[test]
fn since_takes_a_date_or_an_rfc3339_time_and_nothing_else() {
    let at = |s| parse_since(s).map(|t| t.to_string());
    assert_eq!(at("2026-08-01").as_deref(), Some("2026-08-01T00:00:00Z"));
    assert_eq!(
        at("2026-08-01T12:30:00+02:00").as_deref(),
        Some("2026-08-01T10:30:00Z")
    );
    for bad in [
        "",
        "yesterday",
        "2026-8-1",
        "2026-13-01",
        "2026-08",
        "12:00",
    ] {
        assert_eq!(at(bad), None, "{bad}");
    }
}

#[test]
fn a_month_scope_runs_from_its_first_second_to_the_next_months() {
    let s = Scope::month("2026-12").expect("month");
    assert_eq!(
        s.since.map(|t| t.to_string()).as_deref(),
        Some("2026-12-01T00:00:00Z")
    );
    assert_eq!(
        s.until.map(|t| t.to_string()).as_deref(),
        Some("2027-01-01T00:00:00Z")
    );
    for bad in ["2026-13", "2026-1", "26-01-01", "x"] {
        assert_eq!(Scope::month(bad), None, "{bad}");
    }
}

#[test]
fn the_json_shape_is_stable() {
    let r = all("1/a:a+d 1/a:e");
    let v = serde_json::to_value(&r).expect("json");
    let row = &v["learnings"][0];
    for key in [
        "learning",
        "title",
        "level",
        "shown",
        "shown_by",
        "denied",
        "followed",
        "effective",
        "ineffective",
        "recurred_after_shown",
        "failures_avoided",
        "by_agent",
    ] {
        assert!(row.get(key).is_some(), "{key} in {row}");
    }
    assert_eq!(row["shown_by"]["deny"], 1);
    assert_eq!(row["shown_by"]["pre-tool-use"], 0);
    assert_eq!(v["totals"]["failures_avoided"], 1);
    assert_eq!(v["events"]["applied"]["deny"], 1);
    // Every outcome and via, zero or not: one shape whatever the events.
    assert_eq!(v["events"]["recurred"]["session-start"], 0);
    assert_eq!(v["events"].as_object().map(|m| m.len()), Some(4));
    assert_eq!(v["events"]["applied"].as_object().map(|m| m.len()), Some(6));
}
