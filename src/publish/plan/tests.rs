//! Planning: every case of page versus state versus wiki, including writes
//! that landed although their answer was lost.

use super::*;
use crate::publish::state::PageRecord;
use crate::render::content_hash;

fn page(key: &str, title: &str, content: &str) -> Page {
    Page {
        key: key.into(),
        kind: if key.starts_with("index:") {
            PageKind::Index
        } else {
            PageKind::Learning
        },
        title: title.into(),
        sub_url: crate::gitea::page_name::title_to_sub_url(title),
        content: content.into(),
        hash: content_hash(content.as_bytes()),
    }
}

fn published(p: &Page, sha: &str) -> PageRecord {
    PageRecord {
        title: p.title.clone(),
        sub_url: p.sub_url.clone(),
        content_hash: Some(p.hash.clone()),
        last_commit: Some(sha.into()),
        attempted: Vec::new(),
    }
}

fn at(sha: &str) -> RemotePage {
    RemotePage {
        last_commit: Some(sha.into()),
        content_hash: None,
    }
}

fn kinds(plan: &PublishPlan) -> Vec<(&str, ActionKind)> {
    plan.actions
        .iter()
        .map(|a| (a.key.as_str(), a.kind))
        .collect()
}

#[test]
fn a_fresh_wiki_gets_one_create_per_page_learnings_before_indexes() {
    let pages = [page("index:Home", "Home", "h"), page("l1", "L one", "1")];
    let plan = plan(
        &pages,
        &[],
        &TargetState::default(),
        &RemoteWiki::new(),
        false,
    );
    assert_eq!(
        kinds(&plan),
        [
            ("l1", ActionKind::Create),
            ("index:Home", ActionKind::Create)
        ]
    );
    assert_eq!(plan.writes(), 2);
}

#[test]
fn publish_skips_unchanged_pages_and_updates_changed_ones() {
    let old = page("l1", "L one", "v1");
    let same = page("l2", "L two", "same");
    let mut state = TargetState::default();
    state.pages.insert("l1".into(), published(&old, "c1"));
    state.pages.insert("l2".into(), published(&same, "c2"));
    let remote = RemoteWiki::from([
        (old.sub_url.clone(), at("c1")),
        (same.sub_url.clone(), at("c2")),
    ]);
    let new = page("l1", "L one", "v2");
    let p = plan(&[new, same.clone()], &[], &state, &remote, false);
    assert_eq!(
        kinds(&p),
        [("l1", ActionKind::Update), ("l2", ActionKind::Unchanged)]
    );
    assert_eq!(p.writes(), 1);
    assert!(
        pages_to_read(&[same], &state, &remote).is_empty(),
        "no read when commits match"
    );
}

#[test]
fn a_page_no_longer_published_is_deleted_unless_already_gone_or_withheld() {
    let gone = page("l1", "L one", "v1");
    let there = page("l2", "L two", "v2");
    let held = page("l3", "L three", "v3");
    let mut state = TargetState::default();
    for (p, sha) in [(&gone, "c1"), (&there, "c2"), (&held, "c3")] {
        state.pages.insert(p.key.clone(), published(p, sha));
    }
    let remote = RemoteWiki::from([
        (there.sub_url.clone(), at("c2")),
        (held.sub_url.clone(), at("c3")),
    ]);
    let withheld = [Withheld {
        key: "l3".into(),
        title: "L three".into(),
        reason: "secret".into(),
    }];
    let p = plan(&[], &withheld, &state, &remote, false);
    assert_eq!(
        kinds(&p),
        [("l1", ActionKind::Delete), ("l2", ActionKind::Delete)]
    );
    assert_eq!(p.writes(), 1, "the page already gone costs no request");
}

#[test]
fn a_person_edit_is_left_alone_and_force_overwrites_it() {
    let ours = page("l1", "L one", "v1");
    let mut state = TargetState::default();
    state.pages.insert("l1".into(), published(&ours, "c1"));
    let mut remote = RemoteWiki::from([(ours.sub_url.clone(), at("c-person"))]);
    assert_eq!(
        pages_to_read(std::slice::from_ref(&ours), &state, &remote),
        vec![ours.sub_url.clone()]
    );
    remote.get_mut(&ours.sub_url).expect("page").content_hash =
        Some(content_hash(b"a person's words"));
    let p = plan(std::slice::from_ref(&ours), &[], &state, &remote, false);
    assert_eq!(kinds(&p), [("l1", ActionKind::Kept)]);
    assert_eq!(p.writes(), 0);
    let p = plan(std::slice::from_ref(&ours), &[], &state, &remote, true);
    assert_eq!(kinds(&p), [("l1", ActionKind::Update)]);
    // A person's edit of a page that is no longer published: kept, or deleted with force.
    let p = plan(&[], &[], &state, &remote, false);
    assert_eq!(kinds(&p), [("l1", ActionKind::Kept)]);
    let p = plan(&[], &[], &state, &remote, true);
    assert_eq!(kinds(&p), [("l1", ActionKind::Delete)]);
}

#[test]
fn a_create_that_landed_but_answered_500_is_adopted_not_duplicated() {
    let p1 = page("l1", "L one", "v1");
    let mut state = TargetState::default();
    let mut record = PageRecord {
        title: p1.title.clone(),
        sub_url: p1.sub_url.clone(),
        ..PageRecord::default()
    };
    record.attempt(&p1.hash);
    state.pages.insert("l1".into(), record);
    let remote = RemoteWiki::from([(
        p1.sub_url.clone(),
        RemotePage {
            last_commit: Some("c-ours".into()),
            content_hash: Some(p1.hash.clone()),
        },
    )]);
    let plan = plan(&[p1], &[], &state, &remote, false);
    assert_eq!(kinds(&plan), [("l1", ActionKind::Unchanged)]);
    assert_eq!(plan.actions[0].adopt_commit.as_deref(), Some("c-ours"));
    assert_eq!(plan.writes(), 0);
}

#[test]
fn a_landed_update_whose_learning_changed_again_is_still_ours() {
    let v1 = page("l1", "L one", "v1");
    let v2 = page("l1", "L one", "v2");
    let v3 = page("l1", "L one", "v3");
    let mut state = TargetState::default();
    let mut record = published(&v1, "c1");
    record.attempt(&v2.hash);
    state.pages.insert("l1".into(), record);
    let remote = RemoteWiki::from([(
        v1.sub_url.clone(),
        RemotePage {
            last_commit: Some("c2".into()),
            content_hash: Some(v2.hash.clone()),
        },
    )]);
    let p = plan(&[v3], &[], &state, &remote, false);
    assert_eq!(kinds(&p), [("l1", ActionKind::Update)]);
}

#[test]
fn without_state_an_identical_page_is_adopted_and_a_foreign_one_kept() {
    let p1 = page("l1", "L one", "v1");
    let same = RemoteWiki::from([(
        p1.sub_url.clone(),
        RemotePage {
            last_commit: Some("c".into()),
            content_hash: Some(p1.hash.clone()),
        },
    )]);
    let p = plan(
        std::slice::from_ref(&p1),
        &[],
        &TargetState::default(),
        &same,
        false,
    );
    assert_eq!(kinds(&p), [("l1", ActionKind::Unchanged)]);
    let other = RemoteWiki::from([(
        p1.sub_url.clone(),
        RemotePage {
            last_commit: Some("c".into()),
            content_hash: Some(content_hash(b"someone else's page")),
        },
    )]);
    let p = plan(&[p1], &[], &TargetState::default(), &other, false);
    assert_eq!(kinds(&p), [("l1", ActionKind::Kept)]);
}

#[test]
fn a_retitled_learning_renames_its_page_with_one_update() {
    let old = page("l1", "Old title", "v1");
    let new = page("l1", "New title", "v1b");
    let mut state = TargetState::default();
    state.pages.insert("l1".into(), published(&old, "c1"));
    let remote = RemoteWiki::from([(old.sub_url.clone(), at("c1"))]);
    let p = plan(std::slice::from_ref(&new), &[], &state, &remote, false);
    assert_eq!(kinds(&p), [("l1", ActionKind::Update)]);
    assert_eq!(
        p.actions[0].from_sub_url.as_deref(),
        Some(old.sub_url.as_str())
    );
    assert_eq!(p.actions[0].sub_url, new.sub_url);
}
