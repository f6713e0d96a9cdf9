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
            crate::publish::sanitize::is_safe(&p.content),
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
