//! Rendering: who gets a page, titles, sanitising and the redactor.

use super::*;
use crate::learning::Quality;
use crate::timestamp::Timestamp;

fn learning(n: u32, title: &str, level: TrustLevel) -> Learning {
    let id = format!("learning-{n:032x}-1717432000123");
    let mut l = Learning::new(
        id,
        "claude".into(),
        title.into(),
        Timestamp::from_unix(1_700_000_000 + i64::from(n)),
    );
    l.trust_level = level;
    l.correction = Some("use --force-with-lease".into());
    l.original_command = Some("git push -f".into());
    l.error_context = Some("remote: rejected".into());
    l.keywords = vec!["git".into(), "Force-Push".into()];
    l.quality = Quality {
        applied_count: 4,
        effective_count: 3,
        agent_count: 2,
        agent_names: vec!["a".into(), "b".into()],
        last_applied_at: Some(Timestamp::from_unix(1_700_000_500)),
        success_rate: Some(0.75),
    };
    l.body = "`git push -f` is rejected on protected branches.\n".into();
    l
}

fn site(learnings: &[Learning]) -> Site {
    render_site(learnings, &WikiPolicy::default(), &Templates::builtin()).expect("render")
}

fn page<'a>(site: &'a Site, key: &str) -> &'a Page {
    site.pages
        .iter()
        .find(|p| p.key == key)
        .unwrap_or_else(|| panic!("no page {key}"))
}

#[test]
fn only_l2_and_l3_learnings_that_are_not_rejected_get_pages() {
    let mut rejected = learning(4, "Rejected one", TrustLevel::L3);
    rejected.suggestion_status = SuggestionStatus::Rejected;
    let all = [
        learning(0, "Raw failure", TrustLevel::L0),
        learning(1, "Unverified", TrustLevel::L1),
        learning(2, "Peer validated", TrustLevel::L2),
        learning(3, "Human approved", TrustLevel::L3),
        rejected,
    ];
    let s = site(&all);
    let learning_keys: Vec<&str> = s
        .pages
        .iter()
        .filter(|p| p.kind == PageKind::Learning)
        .map(|p| p.key.as_str())
        .collect();
    assert_eq!(learning_keys, [all[2].id.as_str(), all[3].id.as_str()]);
    let titles: Vec<&str> = s.pages.iter().map(|p| p.title.as_str()).collect();
    for index in [
        "Home",
        "_Sidebar",
        "Trust level L2 Peer-Validated",
        "Trust level L3 Human-Approved",
        "Keyword git",
        "Keyword force-push",
    ] {
        assert!(titles.contains(&index), "{index} missing from {titles:?}");
    }
    let l3 = page(&s, &all[3].id);
    assert_eq!(l3.title, "Learning: Human approved");
    for needle in [
        "# Learning: Human approved",
        "L3 (Human-Approved)",
        "| 4 | 3 | 2 (a, b) | 75% |",
        "```sh\ngit push -f\n```",
        "remote: rejected",
        "use --force-with-lease",
        "rejected on protected branches",
        all[3].id.as_str(),
        "claude",
        "2023-11-14T22:13:23Z",
        "[git](Keyword-git)",
    ] {
        assert!(
            l3.content.contains(needle),
            "{needle:?} not in\n{}",
            l3.content
        );
    }
    let home = page(&s, "index:Home");
    assert!(
        home.content.contains("| **Total** | 2 |"),
        "{}",
        home.content
    );
    assert!(!home.content.contains("Unverified"));
}

#[test]
fn script_in_a_body_never_reaches_a_page() {
    let mut l = learning(1, "Sneaky <script>alert(1)</script>", TrustLevel::L2);
    l.body =
        "<script>alert('x')</script>\n\n<img src=x onerror=alert(1)>\n\n[x](javascript:alert(1))\n"
            .into();
    l.correction = Some("<iframe src=https://evil.example></iframe>".into());
    l.keywords = vec!["<b>kw</b>".into()];
    let s = site(&[l]);
    for p in &s.pages {
        assert!(
            crate::render::sanitize::is_safe(&p.content),
            "{}:\n{}",
            p.title,
            p.content
        );
        for bad in ["<script", "<img", "<iframe", "<b>"] {
            assert!(
                !p.content.contains(bad),
                "{bad} in {}:\n{}",
                p.title,
                p.content
            );
        }
    }
}

#[test]
fn titles_are_stable_unique_and_never_contain_a_slash() {
    let a = learning(1, "Use git/gh  carefully", TrustLevel::L2);
    let mut b = learning(2, "use GIT-GH carefully", TrustLevel::L2);
    b.title = "Use git/gh carefully".into();
    let mut c = learning(3, "Use git/gh carefully", TrustLevel::L2);
    c.title = "USE git/gh CAREFULLY".into();
    let titles = assign_titles(&[&a, &b, &c], "Learning", &[]);
    assert_eq!(titles[0], "Learning: Use git-gh carefully");
    assert_eq!(titles[1], "Learning: Use git-gh carefully (00000000)");
    assert!(titles[2].starts_with("Learning: USE git-gh CAREFULLY"));
    assert_ne!(
        titles[2], "Learning: USE git-gh CAREFULLY",
        "case-only collision"
    );
    assert!(titles.iter().all(|t| !t.contains('/')));
    // Order of input does not matter, and a newcomer never renames an older page.
    assert_eq!(assign_titles(&[&c, &b, &a], "Learning", &[]), {
        let mut t = titles.clone();
        t.reverse();
        t
    });
    let older_only = assign_titles(&[&a], "Learning", &[]);
    assert_eq!(older_only[0], titles[0]);
    // Index titles are never handed to a learning.
    let home = learning(4, "Home", TrustLevel::L2);
    let t = assign_titles(&[&home], "", &["Home".to_string()]);
    assert_ne!(t[0], "Home");
    let empty = learning(5, " / ", TrustLevel::L2);
    assert_eq!(assign_titles(&[&empty], "", &[])[0], "-");
}

#[test]
fn rendering_is_deterministic_byte_for_byte() {
    let all = [
        learning(1, "One", TrustLevel::L2),
        learning(2, "Two", TrustLevel::L3),
    ];
    let mut reversed = all.clone();
    reversed.reverse();
    let (a, b) = (site(&all), site(&reversed));
    assert_eq!(a.pages, b.pages);
}

#[test]
fn a_page_with_a_secret_is_withheld_and_not_linked() {
    let mut l = learning(1, "Leaky", TrustLevel::L2);
    l.body = "export GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789\n".into();
    let ok = learning(2, "Fine", TrustLevel::L2);
    let s = site(&[l.clone(), ok]);
    assert_eq!(s.withheld.len(), 1, "{:?}", s.withheld);
    assert_eq!(s.withheld[0].key, l.id);
    assert!(!s.withheld[0].reason.contains("ghp_"));
    for p in &s.pages {
        assert!(!p.content.contains("ghp_abc"), "{}", p.title);
        assert!(
            !p.content.contains("Leaky"),
            "{} links the withheld page",
            p.title
        );
    }
}

#[test]
fn a_user_template_dir_replaces_templates_by_name() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("learning.md"),
        "CUSTOM {{ title }} {{ trust }}\n<b>x</b>\n",
    )
    .expect("write");
    let t = Templates::load(Some(dir.path())).expect("templates");
    let s = render_site(
        &[learning(1, "One", TrustLevel::L2)],
        &WikiPolicy::default(),
        &t,
    )
    .expect("render");
    let p = &s.pages[0];
    assert!(
        p.content.starts_with("CUSTOM Learning: One L2"),
        "{}",
        p.content
    );
    assert!(!p.content.contains("<b>"), "templates are sanitised too");
    assert!(page(&s, "index:Home").content.contains("Total"));
    std::fs::write(dir.path().join("home.md"), "{% if %}").expect("write");
    let err = Templates::load(Some(dir.path())).expect_err("syntax error");
    assert!(err.to_string().contains("home.md"), "{err}");
}

/// Every page the built-in templates make, as a CommonMark + GFM renderer
/// (Gitea's) shows it: the headings that should be, one body row in the
/// quality table, no paragraph turned into a heading, links where they belong.
#[test]
fn every_page_kind_renders_the_structure_a_reader_expects() {
    use crate::publish::check::{outline, sample_learnings, template_problems};
    let templates = Templates::builtin();
    assert_eq!(template_problems(&templates).expect("render"), []);
    let learnings = sample_learnings();
    let mut s = render_site(&learnings, &WikiPolicy::default(), &templates).expect("render");
    let mut published = crate::publish::state::TargetState::default();
    published.pages.insert(
        learnings[2].id.clone(),
        crate::publish::state::PageRecord {
            title: "Learning: No longer trusted".into(),
            sub_url: "Learning-No-longer-trusted".into(),
            ..Default::default()
        },
    );
    add_retractions(
        &mut s,
        &learnings,
        &Default::default(),
        &|id| published.title_of(id),
        &templates,
    )
    .expect("retract");
    let h = |l: u8, t: &str| (l, t.to_string());

    // A learning with every optional field.
    let full = outline(&page(&s, &learnings[0].id).content);
    assert_eq!(
        full.headings,
        [
            h(1, "Learning: Use --force-with-lease instead of --force"),
            h(2, "Original command"),
            h(2, "Error"),
            h(2, "Correction"),
            h(2, "Details"),
        ]
    );
    assert_eq!(full.tables.len(), 1);
    assert_eq!(full.tables[0].header.len(), 5);
    assert_eq!(full.tables[0].rows.len(), 1, "{:?}", full.tables);
    assert_eq!(full.tables[0].rows[0][0], "5");
    assert_eq!(full.rules, 1, "the footer rule stays a rule");
    let keyword_links: Vec<&str> = full.links.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(keyword_links, ["git", "push"]);
    assert_eq!(
        full.lists.len(),
        1,
        "the correction's list: {:?}",
        full.lists
    );

    // A learning with none: no empty sections, the footer still a rule.
    let bare = outline(&page(&s, &learnings[1].id).content);
    assert_eq!(
        bare.headings,
        [h(1, "Learning: Quote globs"), h(2, "Correction")]
    );
    assert_eq!(bare.tables[0].rows.len(), 1);
    assert_eq!(bare.rules, 1);

    // Home: one row per level plus the total, then its sections.
    let home = outline(&page(&s, &index_key(HOME_TITLE)).content);
    assert_eq!(
        home.headings,
        [h(1, "Home"), h(2, "Newest"), h(2, "Keywords")]
    );
    assert_eq!(home.tables.len(), 1);
    assert_eq!(home.tables[0].rows.len(), 3, "{:?}", home.tables);
    assert_eq!(home.lists[0].len(), 2);

    // Trust pages: a row per learning at that level, then the link home.
    for (level, rows) in [(TrustLevel::L2, 1), (TrustLevel::L3, 1)] {
        let o = outline(&page(&s, &index_key(&trust_page_title(level))).content);
        assert_eq!(o.headings.len(), 1);
        assert_eq!(o.tables[0].rows.len(), rows, "{level}: {:?}", o.tables);
        assert_eq!(
            o.links.last().map(|(t, d)| (t.as_str(), d.as_str())),
            Some(("Home", "Home"))
        );
    }

    // Keyword pages and the sidebar: lists that end before what follows.
    let git = outline(&page(&s, &index_key(&keyword_page_title("git"))).content);
    assert_eq!(
        git.lists,
        [vec![
            "Learning: Quote globs (L2)".to_string(),
            "Learning: Use --force-with-lease instead of --force (L3)".to_string(),
        ]]
    );
    assert_eq!(git.links.last().map(|(t, _)| t.as_str()), Some("Home"));
    let side = outline(&page(&s, &index_key(SIDEBAR_TITLE)).content);
    assert_eq!(side.lists.len(), 2, "{side:?}");
    assert_eq!(side.lists[0].len(), 2);
    assert!(side.lists[1].iter().all(|item| !item.contains("Keywords")));

    // The retraction notice takes the page's old title and says why.
    let gone = page(&s, &learnings[2].id);
    assert_eq!(gone.title, "Learning: No longer trusted");
    let o = outline(&gone.content);
    assert_eq!(o.headings, [h(1, "Learning: No longer trusted")]);
    assert!(
        gone.content.contains("effective 20% of the time"),
        "{}",
        gone.content
    );

    // A trust page with no learning says so, and still ends with the link home.
    let only_l2 =
        render_site(&learnings[1..2], &WikiPolicy::default(), &templates).expect("render");
    let empty = outline(&page(&only_l2, &index_key(&trust_page_title(TrustLevel::L3))).content);
    assert!(
        empty.tables.is_empty() && empty.glued.is_empty(),
        "{empty:?}"
    );
}

/// Home's section on the month: totals over every learning, the most
/// useful published ones by their page titles, escaped; the same bytes for
/// the same events and month; nothing when the month had no event.
#[test]
fn home_says_what_the_learnings_did_this_month() {
    use crate::event::{Event, Outcome, Via};
    use crate::publish::check::outline;
    let h = |l: u8, t: &str| (l, t.to_string());
    let mut starred = learning(1, "Use *lease* [not] force", TrustLevel::L2);
    starred.keywords.clear();
    let mut other = learning(2, "Pin the toolchain", TrustLevel::L3);
    other.keywords.clear();
    let hidden = learning(3, "Not published yet", TrustLevel::L1);
    let at = |n: i64| Timestamp::from_unix(1_764_547_200 + n); // 2025-12-01
    let ev = |l: &Learning, agent: &str, outcome, n| Event::new(&l.id, agent, outcome, at(n));
    let events = [
        ev(&starred, "codex", Outcome::Applied, 1).via(Via::Deny),
        ev(&starred, "codex", Outcome::Effective, 2),
        ev(&starred, "claude", Outcome::Applied, 3).via(Via::PreToolUse),
        ev(&starred, "claude", Outcome::Effective, 4),
        ev(&other, "codex", Outcome::Effective, 5),
        ev(&hidden, "codex", Outcome::Applied, 6).via(Via::PreToolUse),
        ev(&hidden, "codex", Outcome::Effective, 7),
        ev(&hidden, "claude", Outcome::Applied, 8).via(Via::Prompt),
        ev(&hidden, "claude", Outcome::Recurred, 9),
        // November: not this month's.
        Event::new(
            &other.id,
            "codex",
            Outcome::Ineffective,
            Timestamp::from_unix(1_764_000_000),
        ),
    ];
    let month = MonthImpact::of(&events, "2025-12").expect("month");
    let learnings = [starred, other, hidden];
    let render = || {
        render_site_with(
            &learnings,
            Some(&month),
            &WikiPolicy::default(),
            &Templates::builtin(),
        )
        .expect("render")
    };
    let s = render();
    let home = &page(&s, &index_key(HOME_TITLE)).content;
    let o = outline(home);
    assert_eq!(
        o.headings,
        [
            h(1, "Home"),
            h(2, "What learnings did this month"),
            h(2, "Newest")
        ]
    );
    assert!(o.glued.is_empty(), "{:?}", o.glued);
    assert!(
        home.contains(
            "2025-12: learnings shown to agents 4 time(s), 1 of them denying the command; \
             corrections followed 4 time(s) (4 effective, 0 ineffective); the failure \
             recurred 1 time(s) after a showing; **3 failure(s) avoided**.\n"
        ),
        "{home}"
    );
    assert_eq!(
        o.lists[0],
        [
            "Learning: Use *lease* [not] force: 2 failure(s) avoided, 2 effective of 2 followed",
            "Learning: Pin the toolchain: 0 failure(s) avoided, 1 effective of 1 followed",
        ],
        "the L1 learning is counted, not named: {home}"
    );
    let link = format!(
        "[Learning: Use \\*lease\\* \\[not\\] force]({}): 2 failure(s)",
        title_to_sub_url("Learning: Use *lease* [not] force")
    );
    assert!(home.contains(&link), "{link} in {home}");
    assert!(!home.contains("Not published yet"), "{home}");
    assert_eq!(render().pages, s.pages, "same events and month, same bytes");

    let quiet = MonthImpact::of(&events, "2026-01").expect("month");
    let s = render_site_with(
        &learnings,
        Some(&quiet),
        &WikiPolicy::default(),
        &Templates::builtin(),
    )
    .expect("render");
    let home = &page(&s, &index_key(HOME_TITLE)).content;
    assert!(!home.contains("What learnings did"), "{home}");
    assert_eq!(
        home,
        &page(&site(&learnings), &index_key(HOME_TITLE)).content
    );
}

/// The defects the old templates had, so the check is known to catch them.
#[test]
fn the_template_check_names_glued_blocks() {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::write(
        dir.path().join("trust.md"),
        "# {{ title }}\n\n| a |\n|---|\n{% for l in learnings %}| {{ l.title }} |\n{% endfor %}[Home](Home)\n",
    )
    .expect("write");
    std::fs::write(
        dir.path().join("learning.md"),
        "# {{ title }}\n\n{{ correction }}\n---\nfooter\n",
    )
    .expect("write");
    let templates = Templates::load(Some(dir.path())).expect("load");
    let problems = crate::publish::check::template_problems(&templates).expect("render");
    let text = format!("{problems:?}");
    assert!(
        problems
            .iter()
            .any(|p| p.template == "trust.md" && p.message.contains("after a table became a row")),
        "{text}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.template == "learning.md" && p.message.contains("became a heading")),
        "{text}"
    );
}
