//! Table-driven tests for every row of the §5 tables.

use super::*;

fn learning(correction: Option<&str>) -> Learning {
    let mut l = Learning::new(
        "learning-1".into(),
        "claude".into(),
        "t".into(),
        Timestamp::from_unix(1_000),
    );
    l.correction = correction.map(str::to_string);
    l
}

/// `spec`: one `agent:outcome` per event, at t = 1, 2, 3, …
fn events(spec: &str) -> Vec<Event> {
    spec.split_whitespace()
        .enumerate()
        .map(|(i, item)| {
            let (agent, outcome) = item.split_once(':').expect("agent:outcome");
            let outcome = match outcome {
                "a" => Outcome::Applied,
                "e" => Outcome::Effective,
                "i" => Outcome::Ineffective,
                "r" => Outcome::Recurred,
                other => panic!("{other}"),
            };
            Event {
                id: format!("ev{i:03}"),
                learning: "learning-1".into(),
                agent: agent.into(),
                at: Timestamp::from_unix(i as i64 + 1),
                outcome,
                via: None,
            }
        })
        .collect()
}

fn run(correction: Option<&str>, spec: &str) -> Derived {
    let evs = events(spec);
    let refs: Vec<&Event> = evs.iter().collect();
    derive(&learning(correction), &refs, &[], &Policy::default())
}

#[test]
fn trust_table() {
    // (correction, events, expected level, promoted_at index (1-based) or 0)
    let table: &[(Option<&str>, &str, TrustLevel, i64)] = &[
        (None, "", TrustLevel::L0, 0),
        (None, "a:e b:e c:e", TrustLevel::L0, 0),
        (Some("  "), "a:e b:e c:e", TrustLevel::L0, 0),
        (Some("fix"), "", TrustLevel::L1, 0),
        (Some("fix"), "a:e a:e a:e", TrustLevel::L1, 0),
        (Some("fix"), "a:e a:e b:e", TrustLevel::L2, 3),
        (Some("fix"), "a:a a:e b:a a:e b:e", TrustLevel::L2, 5),
        (Some("fix"), "a:e b:e a:i b:i a:e", TrustLevel::L2, 5),
        (Some("fix"), "a:e b:e a:i b:i c:i", TrustLevel::L1, 0),
        (Some("fix"), "a:e b:e c:e x:r x:r x:r", TrustLevel::L2, 3),
        // Demotion: ≥5 outcomes and rate < 0.3 after promotion.
        (
            Some("fix"),
            "a:e a:e b:e c:i c:i c:i c:i c:i c:i c:i c:i",
            TrustLevel::L1,
            0,
        ),
        // Rate 3/10 = 0.3 is not below 0.3: stays.
        (
            Some("fix"),
            "a:e a:e b:e c:i c:i c:i c:i c:i c:i c:i",
            TrustLevel::L2,
            3,
        ),
        // Rises again later by the same rule.
        (
            Some("fix"),
            "a:e a:e b:e c:i c:i c:i c:i c:i c:i c:i c:i a:e b:e a:e b:e a:e b:e a:e b:e a:e b:e a:e b:e",
            TrustLevel::L2,
            20,
        ),
    ];
    for (correction, spec, level, promoted) in table {
        let d = run(*correction, spec);
        assert_eq!(d.trust_level, *level, "{correction:?} {spec}");
        let want = (*promoted > 0).then(|| Timestamp::from_unix(*promoted));
        assert_eq!(d.promoted_at, want, "{correction:?} {spec}");
    }
}

#[test]
fn quality_table() {
    let d = run(Some("fix"), "b:a a:e c:i a:r d:r a:e");
    let q = d.quality;
    assert_eq!(q.applied_count, 4);
    assert_eq!(q.effective_count, 2);
    assert_eq!(q.agent_names, ["a", "b", "c"]);
    assert_eq!(q.agent_count, 3);
    assert_eq!(q.last_applied_at, Some(Timestamp::from_unix(6)));
    assert_eq!(q.success_rate, Some(0.6667));
    let empty = run(Some("fix"), "a:r").quality;
    assert_eq!(empty, Quality::default());
    assert_eq!(run(Some("fix"), "a:a").quality.success_rate, None);
}

#[test]
fn duplicates_count_once_and_other_learnings_are_ignored() {
    let evs = events("a:e a:e b:e");
    let mut doubled: Vec<Event> = evs.clone();
    doubled.extend(evs.iter().cloned());
    let mut stranger = evs[0].clone();
    stranger.id = "other".into();
    stranger.learning = "learning-2".into();
    doubled.push(stranger);
    let refs: Vec<&Event> = doubled.iter().collect();
    let d = derive(&learning(Some("fix")), &refs, &[], &Policy::default());
    assert_eq!(d.quality.effective_count, 3);
    assert_eq!(d.trust_level, TrustLevel::L2);
}

#[test]
fn an_id_another_agent_reuses_erases_nothing_and_one_agents_twin_lines_agree() {
    // b's line reuses a's first id, as an ineffective one, read first:
    // a's still counts (it used to stand for both).
    let a = events("a:e a:e c:e");
    let mut copy = a[0].clone();
    copy.agent = "b".into();
    copy.outcome = Outcome::Ineffective;
    let both: Vec<&Event> = std::iter::once(&copy).chain(&a).collect();
    let d = derive(&learning(Some("fix")), &both, &[], &Policy::default());
    assert_eq!(d.trust_level, TrustLevel::L2);
    assert_eq!(d.quality.effective_count, 3);
    assert_eq!(d.quality.agent_names, ["a", "b", "c"]);
    // Two lines of one agent with one id: the same one counts, in any order.
    let mut twin = a[0].clone();
    twin.outcome = Outcome::Ineffective;
    let mut one: Vec<&Event> = vec![&a[0], &twin, &a[1], &a[2]];
    let first = derive(&learning(Some("fix")), &one, &[], &Policy::default());
    one.reverse();
    assert_eq!(
        derive(&learning(Some("fix")), &one, &[], &Policy::default()),
        first
    );
    assert_eq!(first.quality.applied_count, 3);
}

#[test]
fn order_of_input_does_not_matter() {
    let evs = events("a:e b:i a:e c:e b:i a:i b:e");
    let mut rev: Vec<&Event> = evs.iter().collect();
    let fwd = derive(&learning(Some("fix")), &rev, &[], &Policy::default());
    rev.reverse();
    assert_eq!(
        derive(&learning(Some("fix")), &rev, &[], &Policy::default()),
        fwd
    );
}

/// An approval or rejection of `l`'s content, as a maintainer records it.
pub(crate) fn review(l: &Learning, decision: Decision) -> Review {
    Review {
        learning: l.id.clone(),
        decision,
        content_hash: l.content_hash(),
        title: None,
        proposed_by: None,
        proposed_at: None,
        reviewer: Some("maintainer".into()),
        decided_at: Some("2026-09-01T00:00:00Z".into()),
        pull_request: Some(7),
    }
}

#[test]
fn approved_review_gives_l3_and_rejection_keeps_level() {
    let l = learning(Some("fix"));
    let approved = review(&l, Decision::Approved);
    let d = derive(&l, &[], &[&approved], &Policy::default());
    assert_eq!(d.trust_level, TrustLevel::L3);
    assert_eq!(d.promoted_at, Timestamp::parse("2026-09-01T00:00:00Z"));
    assert_eq!(d.suggestion_status, SuggestionStatus::Approved);

    let rejected = review(&l, Decision::Rejected);
    let d = derive(&l, &[], &[&rejected], &Policy::default());
    assert_eq!(d.trust_level, TrustLevel::L1);
    assert_eq!(d.suggestion_status, SuggestionStatus::Rejected);
}

#[test]
fn of_several_decisions_the_approval_of_this_version_wins_and_old_ones_do_not_count() {
    let l = learning(Some("fix"));
    let approved = review(&l, Decision::Approved);
    let rejected = review(&l, Decision::Rejected);
    let d = derive(&l, &[], &[&rejected, &approved], &Policy::default());
    assert_eq!(d.trust_level, TrustLevel::L3);
    let mut old = review(&l, Decision::Rejected);
    old.content_hash = "0000".into();
    let d = derive(&l, &[], &[&old], &Policy::default());
    assert_eq!(d.suggestion_status, SuggestionStatus::Pending);
}

#[test]
fn a_review_of_other_content_does_not_count() {
    let l = learning(Some("fix"));
    let approved = review(&l, Decision::Approved);
    let mut edited = l.clone();
    edited.correction = Some("a different fix".into());
    let d = derive(&edited, &[], &[&approved], &Policy::default());
    assert_eq!(d.trust_level, TrustLevel::L1);
    assert_eq!(d.suggestion_status, SuggestionStatus::Pending);
}

#[test]
fn forged_fields_are_recomputed_away_and_updated_at_is_untouched() {
    let mut l = learning(Some("fix"));
    l.trust_level = TrustLevel::L3;
    l.quality.applied_count = 1000;
    l.quality.effective_count = 1000;
    l.promoted_at = Some(Timestamp::from_unix(5));
    l.suggestion_status = SuggestionStatus::Approved;
    let updated = l.updated_at;
    let d = derive(&l, &[], &[], &Policy::default());
    assert!(apply(&mut l, d));
    assert_eq!(l.trust_level, TrustLevel::L1);
    assert_eq!(l.quality, Quality::default());
    assert_eq!(l.promoted_at, None);
    assert_eq!(l.updated_at, updated);
    let again = derive(&l, &[], &[], &Policy::default());
    assert!(!apply(&mut l, again), "recomputing twice changes nothing");
}

#[test]
fn a_published_learning_names_its_wiki_page_and_others_name_none() {
    let policy = Policy::default();
    let mut l = learning(Some("fix"));
    l.title = "Use --force-with-lease / not --force".into();
    let name = |spec: &str, reviews: &[&Review]| {
        let evs = events(spec);
        let refs: Vec<&Event> = evs.iter().collect();
        derive(&l, &refs, reviews, &policy).wiki_page_name
    };
    assert_eq!(name("a:e b:e", &[]), None, "L1");
    let published = name("a:e b:e a:e", &[]);
    // The page title `Learning: Use --force-with-lease - not --force`, as Gitea names it.
    assert_eq!(
        published.as_deref(),
        Some("Learning%3A+Use+--force-with-lease+-+not+--force.-")
    );
    assert_eq!(
        published,
        Some(crate::page_name::title_to_sub_url(
            "Learning: Use --force-with-lease - not --force"
        ))
    );
    let rejected = review(&l, Decision::Rejected);
    assert_eq!(name("a:e b:e a:e", &[&rejected]), None, "rejected");
    assert_eq!(
        name("a:e b:e a:e a:i b:i a:i b:i b:i b:i b:i a:i", &[]),
        None,
        "demoted"
    );
    let mut other = policy.clone();
    other.wiki.page_prefix = "Lesson".into();
    let evs = events("a:e b:e a:e");
    let refs: Vec<&Event> = evs.iter().collect();
    assert!(
        derive(&l, &refs, &[], &other)
            .wiki_page_name
            .is_some_and(|n| n.starts_with("Lesson")),
        "the policy's layout names the page"
    );
}

#[test]
fn outcomes_after_an_approval_that_meet_the_demotion_rule_question_it_until_approved_again() {
    let l = learning(Some("fix"));
    let approved = review(&l, Decision::Approved);
    let at = |t: &str| Timestamp::parse(t).expect("time");
    let ev = |i: usize, agent: &str, outcome: Outcome, t: &str| Event {
        id: format!("q{i:02}"),
        learning: l.id.clone(),
        agent: agent.into(),
        at: at(t),
        outcome,
        via: None,
    };
    // Bad evidence before the approval does not question it.
    let before: Vec<Event> = (0..6)
        .map(|i| ev(i, "a", Outcome::Ineffective, "2026-08-01T00:00:00Z"))
        .collect();
    let refs: Vec<&Event> = before.iter().collect();
    let d = derive(&l, &refs, &[&approved], &Policy::default());
    assert_eq!(d.trust_level, TrustLevel::L3);

    // Four failures after it: not yet the rule's five outcomes.
    let mut after = before.clone();
    after.extend((10..14).map(|i| ev(i, "b", Outcome::Ineffective, "2026-09-02T00:00:00Z")));
    let refs: Vec<&Event> = after.iter().collect();
    assert_eq!(
        derive(&l, &refs, &[&approved], &Policy::default()).trust_level,
        TrustLevel::L3
    );
    // The fifth: below 0.3 over five outcomes since the approval.
    after.push(ev(14, "c", Outcome::Ineffective, "2026-09-03T00:00:00Z"));
    let refs: Vec<&Event> = after.iter().collect();
    let d = derive(&l, &refs, &[&approved], &Policy::default());
    assert_eq!(d.trust_level, TrustLevel::L1);
    assert_eq!(d.promoted_at, None);
    assert_eq!(d.suggestion_status, SuggestionStatus::Approved);
    let mut shown = l.clone();
    apply(&mut shown, d);
    assert!(approval_questioned(&shown));

    // People look again and approve: the evidence counts from then.
    let mut again = review(&l, Decision::Approved);
    again.decided_at = Some("2026-09-10T00:00:00Z".into());
    let d = derive(&l, &refs, &[&approved, &again], &Policy::default());
    assert_eq!(d.trust_level, TrustLevel::L3);
    assert_eq!(d.promoted_at, Some(at("2026-09-10T00:00:00Z")));
    let d = derive(&l, &refs, &[&again, &approved], &Policy::default());
    assert_eq!(d.trust_level, TrustLevel::L3, "whatever the order");
}

#[test]
fn written_quality_moves_at_milestones_only() {
    // (events, applied_count written): powers of two of the counted
    // outcomes, and the event at which the level changed.
    let table: &[(&str, u64)] = &[
        ("", 0),
        ("a:a", 1),
        ("a:a b:a", 2),
        ("a:a b:a c:a", 2),
        ("a:a b:a c:a d:a", 4),
        ("a:a b:a c:a d:a a:a b:a c:a", 4),
        ("a:a b:a c:a d:a a:a b:a c:a d:a", 8),
        // Recurred counts in nothing and moves nothing.
        ("a:a b:a c:a x:r x:r", 2),
        // Promoted at the third outcome: the counts are exact there.
        ("a:e a:e b:e", 3),
        ("a:e a:e b:e a:a a:a", 4),
        ("a:e a:e b:e a:a a:a a:a", 4),
        // Demoted at the eleventh: exact again.
        ("a:e a:e b:e c:i c:i c:i c:i c:i c:i c:i c:i", 11),
        ("a:e a:e b:e c:i c:i c:i c:i c:i c:i c:i c:i c:a", 11),
    ];
    for (spec, applied) in table {
        let q = run(Some("fix"), spec).quality;
        assert_eq!(q.applied_count, *applied, "{spec}");
        // Every field is taken over the same events.
        let evs = events(spec);
        let counted: Vec<&Event> = evs
            .iter()
            .filter(|e| e.outcome != Outcome::Recurred)
            .take(*applied as usize)
            .collect();
        assert_eq!(q, quality(&counted), "{spec}");
    }
    // The level itself is always over every event.
    let d = run(Some("fix"), "a:a b:a c:a d:a a:e a:e b:e");
    assert_eq!(d.trust_level, TrustLevel::L2);
    assert_eq!(d.quality.applied_count, 7);
    assert_eq!(d.quality.effective_count, 3);
}

#[test]
fn written_quality_is_the_same_whatever_order_events_arrive_in() {
    let evs = events("a:a b:e c:i a:e b:a c:a a:e b:r c:e");
    for cut in 0..=evs.len() {
        let mut some: Vec<&Event> = evs[..cut].iter().collect();
        let fwd = derive(&learning(Some("fix")), &some, &[], &Policy::default());
        some.reverse();
        let rev = derive(&learning(Some("fix")), &some, &[], &Policy::default());
        assert_eq!(fwd, rev, "first {cut} events");
    }
}

#[test]
fn a_lone_file_counts_its_evidence_and_of_several_only_the_one_listed_file() {
    let roster = Policy {
        agents: vec![crate::policy::RosterEntry::Name("victim".into())],
        ..Policy::default()
    };
    // A learning of an agent the roster does not list still gets evidence
    // from listed agents when it is alone.
    assert!(evidence_counts("mallory/l.md", &["mallory/l.md"], &roster));
    let both = ["mallory/l.md", "victim/l.md"];
    for path in both {
        assert!(!evidence_counts(path, &both, &Policy::default()), "{path}");
    }
    assert!(evidence_counts("victim/l.md", &both, &roster));
    assert!(!evidence_counts("mallory/l.md", &both, &roster));
}
