//! Codec tests: the §3 example, sparse terraphim files, and inputs that break
//! naive frontmatter code; a property test that parse(write(x)) == x.

use super::*;
use proptest::prelude::*;

const DESIGN_EXAMPLE: &str = r#"---
id: learning-5f3e0c1d9a2b4c6d8e0f1a2b3c4d5e6f-1717432000123
title: Use --force-with-lease instead of --force
agent_id: security-sentinel          # = source_agent = the folder name
captured_at: 2026-08-15T12:00:00Z
updated_at: 2026-08-15T12:00:00Z
promoted_at: null
trust_level: L1                      # derived (§5); a hand edit is recomputed away
source: bash_hook                    # bash_hook|auto_extract|tool_health|gitea_comment|cje_verdict|manual
applicable_agents: [security-audit]  # empty/absent = every agent
keywords: [git, force-push]
verify_pattern: git push --force-with-lease
quality:                             # derived (§5)
  applied_count: 0
  effective_count: 0
  agent_count: 0
  agent_names: []
  last_applied_at: null
  success_rate: null
original_command: git push -f
error_context: "remote: rejected"
correction: use --force-with-lease
wiki_page_name: null
suggestion_status: pending           # pending|approved|rejected (persisted, unlike terraphim)
kind: correction                     # workflow|correction|debugging_pattern|gotcha|convention
---

`git push -f` is rejected on protected branches. Use
`git push --force-with-lease` instead.
"#;

#[test]
fn reads_the_design_example() {
    let l = Learning::parse(DESIGN_EXAMPLE.as_bytes()).expect("parses");
    assert_eq!(
        l.id,
        "learning-5f3e0c1d9a2b4c6d8e0f1a2b3c4d5e6f-1717432000123"
    );
    assert_eq!(l.title, "Use --force-with-lease instead of --force");
    assert_eq!(l.agent_id, "security-sentinel");
    assert_eq!(l.trust_level, TrustLevel::L1);
    assert_eq!(l.source, "bash_hook");
    assert_eq!(l.applicable_agents, ["security-audit"]);
    assert_eq!(l.keywords, ["git", "force-push"]);
    assert_eq!(l.error_context.as_deref(), Some("remote: rejected"));
    assert_eq!(l.kind.as_deref(), Some("correction"));
    assert!(l.body.starts_with("`git push -f` is rejected"));
    assert!(l.body.ends_with("instead.\n"));
    assert!(l.extra.is_empty());
}

#[test]
fn canonical_form_of_the_example_is_stable() {
    let l = Learning::parse(DESIGN_EXAMPLE.as_bytes()).expect("parses");
    let written = l.to_markdown();
    let again = Learning::parse(written.as_bytes()).expect("re-parses");
    assert_eq!(again, l);
    assert_eq!(again.to_markdown(), written, "writing is a fixed point");
    assert!(written.contains("error_context: \"remote: rejected\"\n"));
    assert!(written.contains("quality:\n  applied_count: 0\n"));
    assert!(written.contains("  agent_names: []\n"));
    assert!(written.starts_with("---\nid: learning-5f3e"));
}

#[test]
fn reads_sparse_old_terraphim_files_with_pascal_case_source() {
    let text = "---\nid: learning-abc123\ntitle: 'Don''t run: npm i -g'\nagent_id: claude\ncaptured_at: 2025-01-02T03:04:05.678901+00:00\ntrust_level: L0\nsource: BashHook\n---\nbody without final newline";
    let l = Learning::parse(text.as_bytes()).expect("parses");
    assert_eq!(l.title, "Don't run: npm i -g");
    assert_eq!(l.source, "bash_hook");
    assert_eq!(l.trust_level, TrustLevel::L0);
    assert_eq!(l.captured_at.to_string(), "2025-01-02T03:04:05Z");
    assert_eq!(l.updated_at, l.captured_at);
    assert_eq!(l.body, "body without final newline");
    assert_eq!(l.quality, Quality::default());
}

#[test]
fn survives_what_breaks_naive_frontmatter_code() {
    let text = "---\r\nid: x1\r\ntitle: \"quotes \\\" and: colons\"\r\nagent_id: codex\r\ncaptured_at: 2026-01-01T00:00:00Z\r\noriginal_command: |-\r\n  cat <<EOF\r\n  ---\r\n  EOF\r\nerror_context: >-\r\n  folded\r\n  text\r\nkeywords:\r\n  - ünïcödé\r\n  - \"a, b\"\r\nfuture_key: {nested: [1, 2]}\r\n---\r\n\r\nbody\r\n---\r\nafter a rule\r\n";
    let l = Learning::parse(text.as_bytes()).expect("parses");
    assert_eq!(l.title, "quotes \" and: colons");
    assert_eq!(l.original_command.as_deref(), Some("cat <<EOF\n---\nEOF"));
    assert_eq!(l.error_context.as_deref(), Some("folded text"));
    assert_eq!(l.keywords, ["ünïcödé", "a, b"]);
    assert_eq!(l.body, "body\n---\nafter a rule\n");
    assert_eq!(l.extra.len(), 1);
    assert_eq!(l.extra[0].0, "future_key");
    let again = Learning::parse(l.to_markdown().as_bytes()).expect("re-parses");
    assert_eq!(again, l);
}

#[test]
fn empty_body_and_no_blank_line_are_fine() {
    let text = "---\nid: x2\ntitle: t\nagent_id: a\ncaptured_at: 2026-01-01T00:00:00Z\n---\n";
    let l = Learning::parse(text.as_bytes()).expect("parses");
    assert_eq!(l.body, "");
    assert_eq!(
        Learning::parse(l.to_markdown().as_bytes()).expect("re-parses"),
        l
    );
}

#[test]
fn unknown_keys_keep_their_order() {
    let text = "---\nid: x3\nzeta: 1\ntitle: t\nagent_id: a\nalpha: [x]\ncaptured_at: 2026-01-01T00:00:00Z\nmid: {k: v}\n---\n";
    let l = Learning::parse(text.as_bytes()).expect("parses");
    let keys: Vec<&str> = l.extra.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["zeta", "alpha", "mid"]);
    let again = Learning::parse(l.to_markdown().as_bytes()).expect("re-parses");
    assert_eq!(again.extra, l.extra);
}

#[test]
fn bad_input_gets_one_clear_error() {
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (b"no frontmatter".to_vec(), "must start with a '---' line"),
        (b"---\nid: x\n".to_vec(), "not closed"),
        (b"---\nid: [unclosed\n---\n".to_vec(), "not valid YAML"),
        (b"---\n- a\n- b\n---\n".to_vec(), "not a mapping"),
        (b"---\ntitle: t\nagent_id: a\ncaptured_at: 2026-01-01T00:00:00Z\n---\n".to_vec(), "`id` is missing"),
        (b"---\nid: ../etc/passwd\ntitle: t\nagent_id: a\ncaptured_at: 2026-01-01T00:00:00Z\n---\n".to_vec(), "invalid learning id"),
        (b"---\nid: x\ntitle: t\nagent_id: ../a\ncaptured_at: 2026-01-01T00:00:00Z\n---\n".to_vec(), "invalid agent name"),
        (b"---\nid: x\ntitle: t\nagent_id: a\ncaptured_at: soon\n---\n".to_vec(), "`captured_at` is not an RFC 3339"),
        (b"---\nid: x\ntitle: t\nagent_id: a\ncaptured_at: 2026-01-01T00:00:00Z\ntrust_level: L9\n---\n".to_vec(), "`trust_level`"),
        (vec![b'-', b'-', b'-', b'\n', 0xff, 0xfe], "not valid UTF-8"),
        (vec![b'a'; MAX_FILE_BYTES + 1], "over the"),
    ];
    for (bytes, want) in cases {
        let err = Learning::parse(&bytes)
            .expect_err("must be refused")
            .to_string();
        assert!(err.contains(want), "{err:?} lacks {want:?}");
    }
}

#[test]
fn content_bytes_ignore_derived_fields() {
    let mut a = Learning::parse(DESIGN_EXAMPLE.as_bytes()).expect("parses");
    let mut b = a.clone();
    b.trust_level = TrustLevel::L3;
    b.quality.applied_count = 99;
    b.promoted_at = Some(Timestamp::from_unix(5));
    assert_eq!(a.content_bytes(), b.content_bytes());
    assert_ne!(a.to_markdown(), b.to_markdown());
    a.title.push('!');
    assert_ne!(a.content_hash(), b.content_hash());
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9 _.:/#'\"-]{0,40}",
        any::<String>(),
        Just("---".to_string()),
        Just("line\n---\nline".to_string()),
        Just("  indented\n".to_string()),
    ]
}

fn name() -> impl Strategy<Value = String> {
    "[a-z0-9_][a-z0-9_.-]{0,20}".prop_filter("reserved", |n| {
        n != "." && n != ".." && crate::paths::validate_agent(n).is_ok()
    })
}

prop_compose! {
    fn learning()(
        id in name(), agent in name(), title in text(), body in text(),
        cmd in proptest::option::of(text()), err in proptest::option::of(text()),
        corr in proptest::option::of(text()), kws in proptest::collection::vec(text(), 0..4),
        t in 0i64..4_000_000_000, applied in 0u64..50, rate in proptest::option::of(0u32..=10000),
        trust in 0usize..4,
    ) -> Learning {
        let mut l = Learning::new(id, agent, title, Timestamp::from_unix(t));
        l.body = body;
        l.original_command = cmd;
        l.error_context = err;
        l.correction = corr;
        l.keywords = kws;
        l.quality.applied_count = applied;
        l.quality.success_rate = rate.map(|r| f64::from(r) / 10000.0);
        l.trust_level = [TrustLevel::L0, TrustLevel::L1, TrustLevel::L2, TrustLevel::L3][trust];
        l
    }
}

proptest! {
    #[test]
    fn parse_of_write_is_identity(l in learning()) {
        let written = l.to_markdown();
        let parsed = Learning::parse(written.as_bytes());
        prop_assert_eq!(parsed.as_ref().ok(), Some(&l), "{}", written);
    }

    #[test]
    fn the_fast_path_reads_what_the_yaml_parser_reads(
        mut l in learning(),
        extra in proptest::collection::vec((name(), text()), 0..4),
    ) {
        for (key, value) in extra {
            let key = key.replace(['.', '-'], "_");
            // The fast path keeps a key YAML reads as a number, a bool or
            // null as its string (as it always has); the full parser does not.
            let plain = key.starts_with(|c: char| c.is_ascii_lowercase())
                && !["y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf"].contains(&key.as_str());
            if plain && !KNOWN.contains(&key.as_str()) && l.extra.iter().all(|(k, _)| *k != key) {
                l.extra.push((key, Value::String(value)));
            }
        }
        let written = l.to_markdown();
        let (front, body) = split_frontmatter(&written).expect("frontmatter");
        let slow = Fields::of_yaml(front).and_then(|f| from_fields(f, body));
        prop_assert_eq!(Learning::parse(written.as_bytes()), slow.clone(), "{}", written);
        prop_assert_eq!(slow.ok(), Some(l));
    }

    #[test]
    fn the_recorded_trust_is_what_a_parse_reads(l in learning()) {
        let written = l.to_markdown();
        prop_assert_eq!(Learning::recorded_trust(written.as_bytes()), Some(l.trust_level), "{}", written);
        // A file not as learnsync writes it is left to the parser.
        let crlf = written.replace('\n', "\r\n");
        let quick = Learning::recorded_trust(crlf.as_bytes());
        prop_assert!(quick.is_none() || quick == Some(l.trust_level));
    }

    #[test]
    fn parse_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let mut input = b"---\n".to_vec();
        input.extend(bytes);
        let _ = Learning::parse(&input);
    }
}

/// A terraphim-written file that claims more than its evidence gives.
const CLAIMS_L3: &str = r#"---
id: learning-claims
title: 'Claims: more than it has'
agent_id: claude
captured_at: 2025-03-02T09:15:27.123456+00:00
# written by terraphim
trust_level: HumanApproved
promoted_at: 2025-04-01T00:00:00+00:00
keywords:
- npm
- ci
quality: {applied_count: 40, effective_count: 40, agent_count: 3, agent_names: [a, b, c], last_applied_at: null, success_rate: 1.0}

correction: |-
  run npm install first

  then npm ci
suggestion_status: approved
future_field: kept
---
body without a final newline"#;

#[test]
fn the_recorded_trust_of_other_shapes_is_the_parsers_or_none() {
    assert_eq!(
        Learning::recorded_trust(CLAIMS_L3.as_bytes()),
        Some(TrustLevel::L3),
        "terraphim's names"
    );
    let twice = "---\nid: x\ntrust_level: L1\ntrust_level: L3\n---\n";
    assert_eq!(Learning::recorded_trust(twice.as_bytes()), None);
    assert_eq!(
        Learning::recorded_trust(b"trust_level: L2\n"),
        None,
        "no frontmatter"
    );
    assert_eq!(
        Learning::recorded_trust(b"---\ntrust_level: L9\n---\n"),
        None
    );
}

fn recomputed(text: &str) -> Learning {
    let mut l = Learning::parse(text.as_bytes()).expect("parses");
    l.trust_level = TrustLevel::L1;
    l.promoted_at = None;
    l.quality = Quality::default();
    l.suggestion_status = SuggestionStatus::Pending;
    l
}

#[test]
fn rewriting_derived_fields_in_place_keeps_every_other_byte() {
    let target = recomputed(CLAIMS_L3);
    let out = target
        .rewrite_derived_in(CLAIMS_L3)
        .expect("editable in place");
    assert_eq!(Learning::parse(out.as_bytes()).as_ref(), Ok(&target));
    let want = CLAIMS_L3
        .replace("trust_level: HumanApproved\n", "trust_level: L1\n")
        .replace(
            "promoted_at: 2025-04-01T00:00:00+00:00\n",
            "promoted_at: null\n",
        )
        .replace(
            "quality: {applied_count: 40, effective_count: 40, agent_count: 3, agent_names: [a, b, c], last_applied_at: null, success_rate: 1.0}\n",
            "quality:\n  applied_count: 0\n  effective_count: 0\n  agent_count: 0\n  agent_names: []\n  last_applied_at: null\n  success_rate: null\n",
        )
        .replace("suggestion_status: approved\n", "suggestion_status: pending\n");
    assert_eq!(out, want);
    // Already right: nothing to do, the same bytes come back.
    assert_eq!(
        target.rewrite_derived_in(&out).as_deref(),
        Some(out.as_str())
    );
}

#[test]
fn derived_fields_a_file_leaves_out_are_added_only_when_they_differ() {
    let sparse = "---\nid: learning-s\ntitle: t\nagent_id: codex\ncaptured_at: 2025-01-01T00:00:00Z\ncorrection: c\n---\nbody\n";
    let mut target = Learning::parse(sparse.as_bytes()).expect("parses");
    assert_eq!(target.rewrite_derived_in(sparse).as_deref(), Some(sparse));
    target.trust_level = TrustLevel::L2;
    target.quality.effective_count = 3;
    target.quality.applied_count = 3;
    let out = target.rewrite_derived_in(sparse).expect("editable");
    assert!(out.starts_with("---\nid: learning-s\ntitle: t\n"), "{out}");
    assert!(
        out.contains("correction: c\ntrust_level: L2\nquality:\n  applied_count: 3\n"),
        "{out}"
    );
    assert!(out.ends_with("---\nbody\n"), "{out}");
    assert_eq!(Learning::parse(out.as_bytes()).as_ref(), Ok(&target));
}

#[test]
fn crlf_files_are_edited_with_crlf_and_content_changes_are_refused() {
    let crlf = CLAIMS_L3.replace('\n', "\r\n");
    let target = recomputed(&crlf);
    let out = target.rewrite_derived_in(&crlf).expect("editable");
    assert!(
        !out.replace("\r\n", "").contains('\n'),
        "only CRLF endings: {out:?}"
    );
    assert!(out.contains("trust_level: L1\r\n"));
    assert_eq!(Learning::parse(out.as_bytes()).as_ref(), Ok(&target));
    // The rewrite never changes content: a target with another title is refused.
    let mut other = target.clone();
    other.title = "another".into();
    assert_eq!(other.rewrite_derived_in(&crlf), None);
}
