//! Ranking told as small stories over an in-memory index: what comes first,
//! what is never shown, and when the answer is nothing.

use super::*;
use crate::learning::Learning;
use crate::search::doc::{Doc, Tally};
use crate::search::kg::{self, Graph};
use crate::search::postings::{Index, IndexParams, Layered};
use crate::timestamp::Timestamp;
use crate::yaml::Value;
use proptest::prelude::*;

fn learning(id: &str, title: &str, command: &str, error: &str, correction: &str) -> Learning {
    let mut l = Learning::new(
        id.into(),
        "claude".into(),
        title.into(),
        Timestamp::from_unix(1_800_000_000),
    );
    l.trust_level = TrustLevel::L1;
    l.original_command = (!command.is_empty()).then(|| command.to_string());
    l.error_context = (!error.is_empty()).then(|| error.to_string());
    l.correction = Some(correction.to_string());
    l
}

fn corpus() -> Vec<Learning> {
    vec![
        learning(
            "push",
            "`git push -f origin main` failed: protected branch",
            "git push -f origin main",
            "remote: error: GH006: Protected branch update failed for refs/heads/main",
            "push a branch and open a pull request",
        ),
        learning(
            "socket",
            "`docker ps` failed: permission denied on the docker socket",
            "docker ps",
            "permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock",
            "sudo usermod -aG docker $USER",
        ),
        learning(
            "lock",
            "`terraform apply` failed: Error acquiring the state lock",
            "terraform apply",
            "Error: Error acquiring the state lock ConditionalCheckFailedException",
            "wait for the other run, then terraform force-unlock <id> if it died",
        ),
        learning(
            "module",
            "`python etl.py` failed: ModuleNotFoundError: No module named 'yaml'",
            "python etl.py",
            "ModuleNotFoundError: No module named 'yaml'",
            "pip install pyyaml",
        ),
    ]
}

fn graph() -> Graph {
    let (concepts, problems) = kg::check(&[(
        "kg/protected-branch.md".to_string(),
        b"synonyms:: protected branch, branch protection, GH006\n".to_vec(),
    )]);
    assert!(problems.is_empty(), "{problems:?}");
    Graph::from_files(&concepts)
}

fn index_of(learnings: &[Learning]) -> Index {
    index_with(learnings, &[])
}

fn index_with(learnings: &[Learning], tallies: &[(&str, Tally)]) -> Index {
    let docs: Vec<Doc> = learnings
        .iter()
        .map(|l| {
            let tally = tallies
                .iter()
                .find(|(id, _)| *id == l.id)
                .map(|(_, t)| *t)
                .unwrap_or_default();
            Doc::new(l, &format!("{}/{}.md", l.agent_id, l.id), tally)
        })
        .collect();
    Index::build(&docs, graph(), IndexParams::default())
}

fn ids(hits: &[Hit]) -> Vec<&str> {
    hits.iter().map(|h| h.meta.id.as_str()).collect()
}

fn ask<'a>(text: &'a str) -> Request<'a> {
    Request {
        text,
        agent: Some("claude"),
        limit: 5,
        ..Request::default()
    }
}

#[test]
fn the_failure_seen_again_finds_its_learning_first() {
    let index = index_of(&corpus());
    let t = Tuning::default();
    let hits = rank(
        &index,
        &ask(
            "Got permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock",
        ),
        &t,
    );
    assert_eq!(ids(&hits).first(), Some(&"socket"), "{hits:?}");
    let hits = rank(&index, &ask("terraform plan -out=tfplan"), &t);
    assert_eq!(
        ids(&hits).first(),
        Some(&"lock"),
        "the program of a command: {hits:?}"
    );
}

#[test]
fn the_directories_of_a_path_weigh_less_than_the_failure() {
    let index = index_of(&corpus());
    let text = "Traceback File /home/runner/work/billing/etl/jobs/load.py line 3 ModuleNotFoundError: No module named 'yaml'";
    let t = Tuning::default();
    let hits = rank(&index, &ask(text), &t);
    assert_eq!(ids(&hits).first(), Some(&"module"), "{hits:?}");
    let flat = Tuning {
        path_dir: 1.0,
        min_relevance: 0.0,
        ..t
    };
    let counted = rank(&index, &ask(text), &flat);
    assert_eq!(ids(&counted).first(), Some(&"module"), "{counted:?}");
    assert!(
        hits[0].relevance > counted[0].relevance + 0.05,
        "checkout directories count at {} of a word: {} vs {}",
        t.path_dir,
        hits[0].relevance,
        counted[0].relevance
    );
}

#[test]
fn a_question_in_other_words_reaches_through_the_kg() {
    let index = index_of(&corpus());
    let hits = rank(
        &index,
        &ask("how do I get around branch protection"),
        &Tuning::default(),
    );
    assert_eq!(ids(&hits).first(), Some(&"push"), "{hits:?}");
    assert!(
        hits[0].concepts.contains(&"protected-branch".to_string()),
        "{:?}",
        hits[0]
    );
}

#[test]
fn nothing_relevant_is_answered_with_nothing() {
    let index = index_of(&corpus());
    let t = Tuning::default();
    for text in [
        "how do I bake sourdough bread",
        "what is the capital of australia",
        "error",
        "",
        "   ",
    ] {
        assert!(rank(&index, &ask(text), &t).is_empty(), "{text:?}");
    }
}

#[test]
fn applicability_filters_and_pulled_learnings_are_never_crossed() {
    let mut all = corpus();
    all[1].applicable_agents = vec!["codex".into()];
    all[2].kind = Some("gotcha".into());
    let index = index_of(&all);
    let t = Tuning::default();
    let text = "permission denied while trying to connect to the Docker daemon socket";
    assert!(
        !ids(&rank(&index, &ask(text), &t)).contains(&"socket"),
        "claude is not codex"
    );
    let codex = Request {
        agent: Some("codex"),
        ..ask(text)
    };
    assert_eq!(ids(&rank(&index, &codex, &t)).first(), Some(&"socket"));
    let person = Request {
        agent: None,
        ..ask(text)
    };
    assert_eq!(
        ids(&rank(&index, &person, &t)).first(),
        Some(&"socket"),
        "a person sees all"
    );

    let pulled: HashSet<String> = ["socket".to_string()].into();
    let req = Request {
        agent: Some("codex"),
        pulled: Some(&pulled),
        ..ask(text)
    };
    assert!(
        rank(&index, &req, &t).is_empty(),
        "a pulled learning is never shown"
    );

    let lock = "Error acquiring the state lock ConditionalCheckFailedException";
    assert_eq!(
        ids(&rank(
            &index,
            &Request {
                kind: Some("gotcha"),
                ..ask(lock)
            },
            &t
        )),
        ["lock"]
    );
    assert!(
        rank(
            &index,
            &Request {
                kind: Some("convention"),
                ..ask(lock)
            },
            &t
        )
        .is_empty()
    );
    assert!(
        rank(
            &index,
            &Request {
                from: Some("codex"),
                ..ask(lock)
            },
            &t
        )
        .is_empty()
    );
    assert!(
        rank(
            &index,
            &Request {
                trust: &[TrustLevel::L2],
                ..ask(lock)
            },
            &t
        )
        .is_empty()
    );
    assert_eq!(
        ids(&rank(
            &index,
            &Request {
                trust: &[TrustLevel::L1],
                ..ask(lock)
            },
            &t
        )),
        ["lock"]
    );
}

/// A team's KG says commitlint's complaints are about commit messages; a
/// learning that says "commitlint" but never quotes the complaint.
fn commit_corpus() -> (Index, Tuning) {
    let mut list = corpus();
    list.push(learning(
        "commits",
        "Commit messages must follow Conventional Commits",
        "",
        "",
        "write `feat(cart): add coupon codes`; commitlint in CI rejects anything else",
    ));
    list.push(learning(
        "env",
        "`deploy.sh` failed: DATABASE_URL may not be empty",
        "./deploy.sh",
        "error: DATABASE_URL may not be empty",
        "export DATABASE_URL from the vault before deploying",
    ));
    let (concepts, problems) = kg::check(&[(
        "kg/commit-message.md".to_string(),
        b"synonyms:: commit message, commitlint, subject may not be empty\n".to_vec(),
    )]);
    assert!(problems.is_empty(), "{problems:?}");
    let docs: Vec<Doc> = list
        .iter()
        .map(|l| Doc::new(l, &format!("claude/{}.md", l.id), Tally::default()))
        .collect();
    let index = Index::build(&docs, Graph::from_files(&concepts), IndexParams::default());
    (index, Tuning::default())
}

#[test]
fn a_learning_holding_the_concept_a_synonym_names_is_credited_its_words() {
    let (index, t) = commit_corpus();
    let text = "⧗ input: wip ✖ subject may not be empty [subject-empty]";
    let hits = rank(&index, &ask(text), &t);
    assert_eq!(ids(&hits).first(), Some(&"commits"), "{hits:?}");
    let uncredited = rank(
        &index,
        &ask(text),
        &Tuning {
            synonym_credit: 0.0,
            concept_relevance: 1.0,
            ..t
        },
    );
    assert!(
        !ids(&uncredited).contains(&"commits"),
        "without the credit the words count against it: {uncredited:?}"
    );
}

#[test]
fn the_synonym_credit_admits_but_never_reorders() {
    let (index, t) = commit_corpus();
    let open = Tuning {
        min_relevance: 0.0,
        ..t
    };
    let mut raised = 0;
    for text in [
        "⧗ input: wip ✖ subject may not be empty [subject-empty]",
        "DATABASE_URL may not be empty, subject may not be empty",
        "commitlint says the commit message is wrong",
        "git push -f origin main: protected branch",
    ] {
        let credited = rank(&index, &ask(text), &open);
        let plain = rank(
            &index,
            &ask(text),
            &Tuning {
                synonym_credit: 0.0,
                ..open
            },
        );
        let order = |hits: &[Hit]| -> Vec<(String, f32)> {
            hits.iter().map(|h| (h.meta.id.clone(), h.score)).collect()
        };
        assert_eq!(order(&credited), order(&plain), "{text:?}");
        for (c, p) in credited.iter().zip(&plain) {
            assert!(c.relevance >= p.relevance, "{text:?}: {c:?} vs {p:?}");
            raised += usize::from(c.relevance > p.relevance);
        }
    }
    assert!(raised > 0, "the credit moved no relevance at all");
}

#[test]
fn a_correction_that_keeps_failing_ranks_below_one_that_works() {
    let good = learning(
        "good",
        "pip: externally-managed-environment",
        "pip install requests",
        "error: externally-managed-environment",
        "use a venv",
    );
    let bad = learning(
        "bad",
        "pip: externally-managed-environment",
        "pip install requests",
        "error: externally-managed-environment",
        "use --break-system-packages",
    );
    let t = Tuning::default();
    let failing = Tally {
        ineffective: 5,
        recurred: 3,
    };
    // Either order of the files: the outcome decides, not the position.
    for pair in [[good.clone(), bad.clone()], [bad.clone(), good.clone()]] {
        let mut list = corpus();
        list.extend(pair);
        let index = index_with(&list, &[("bad", failing)]);
        let hits = rank(
            &index,
            &ask("error: externally-managed-environment pip install flask"),
            &t,
        );
        assert_eq!(ids(&hits), ["good", "bad"], "{hits:?}");
    }
}

#[test]
fn trust_and_project_reorder_equally_relevant_answers() {
    let mut a = learning(
        "a",
        "make test fails: no rule",
        "make test",
        "make: *** No rule to make target 'test'",
        "make check",
    );
    let mut b = learning(
        "b",
        "make test fails: no rule",
        "make test",
        "make: *** No rule to make target 'test'",
        "make test-unit",
    );
    a.extra
        .push(("project".into(), Value::String("billing".into())));
    b.extra
        .push(("project".into(), Value::String("shop".into())));
    let with = |extra: &[Learning]| {
        let mut list = corpus();
        list.extend_from_slice(extra);
        index_of(&list)
    };
    let index = with(&[a.clone(), b.clone()]);
    let t = Tuning::default();
    let text = "make: *** No rule to make target 'test'.  Stop.";
    for (project, first) in [("billing", "a"), ("shop", "b")] {
        let hits = rank(
            &index,
            &Request {
                project: Some(project),
                ..ask(text)
            },
            &t,
        );
        assert_eq!(ids(&hits).first(), Some(&first), "{project}: {hits:?}");
    }
    let mut b3 = b;
    b3.trust_level = TrustLevel::L3;
    let index = with(&[a, b3]);
    assert_eq!(
        ids(&rank(&index, &ask(text), &t)).first(),
        Some(&"b"),
        "L3 first when nothing else differs"
    );
}

#[test]
fn the_overlay_replaces_and_adds_learnings() {
    let base = index_of(&corpus());
    let mut edited = corpus()[3].clone();
    edited.correction = Some("pip install pyyaml==6.0.1 into the venv".into());
    let docs = vec![Doc::new(&edited, "claude/module.md", Tally::default())];
    let overlay = Index::overlay(
        &docs,
        &base.graph,
        base.params,
        base.stats,
        base.tables.clone(),
    );
    let dead: HashSet<u32> = [3u32].into();
    let layered = Layered {
        base: &base,
        overlay,
        dead,
        success: HashMap::new(),
    };
    let hits = rank(
        &layered,
        &ask("ModuleNotFoundError: No module named 'yaml'"),
        &Tuning::default(),
    );
    assert_eq!(hits.len(), 1, "the old version is gone: {hits:?}");
    assert_eq!(hits[0].doc, 4);
    assert!(hits[0].meta.correction.contains("6.0.1"));
}

proptest! {
    #[test]
    fn any_text_ranks_without_panicking_and_within_the_limit(text in "\\PC{0,120}", limit in 1usize..6) {
        let index = index_of(&corpus());
        let hits = rank(&index, &Request { limit, ..ask(&text) }, &Tuning::default());
        prop_assert!(hits.len() <= limit);
        for h in &hits {
            prop_assert!(h.relevance >= Tuning::default().min_relevance && h.relevance <= 1.0);
        }
        for w in hits.windows(2) {
            prop_assert!(w[0].score >= w[1].score);
        }
    }
}

#[test]
fn an_error_seen_again_under_log_prefixes_is_found_by_its_signature() {
    let index = index_of(&corpus());
    let text = "E1203 12:00:00.123456   4321 loader.go:42] \u{1b}[31mModuleNotFoundError\u{1b}[0m: No module named 'yaml'\n\
                2026-12-03T12:00:00Z ERROR worker exited (status 1) after 3 restarts on node-7";
    let strict = Tuning {
        min_relevance: 0.99,
        ..Tuning::default()
    };
    let hits = rank(&index, &ask(text), &strict);
    assert_eq!(ids(&hits), ["module"], "{hits:?}");
    assert_eq!(hits[0].signals.admitted_by, "signature");
    assert!(hits[0].signals.signature >= 0.99, "{:?}", hits[0].signals);
    let off = Tuning {
        signature_min: 2.0,
        lead_ratio: 1.0,
        error_words_min: 2.0,
        ..strict
    };
    assert!(
        rank(&index, &ask(text), &off).is_empty(),
        "without the signature (and lead) paths the threshold refuses it"
    );
}

#[test]
fn the_same_program_and_one_generic_word_does_not_cover_a_question() {
    let index = index_of(&corpus());
    let text = "terraform naming policy for workspaces and state buckets";
    let loose = Tuning {
        min_relevance: 0.0,
        min_coverage: 0.0,
        capability_coverage: 0.0,
        prose_coverage: 0.0,
        ..Tuning::default()
    };
    let hits = rank(&index, &ask(text), &loose);
    assert_eq!(ids(&hits).first(), Some(&"lock"), "{hits:?}");
    let s = &hits[0].signals;
    assert!(s.coverage < 0.5, "{s:?}");
    assert!(s.missing.contains(&"naming".to_string()), "{s:?}");
    assert!(
        !s.missing.contains(&"terraform".to_string()),
        "the program is not what was asked: {s:?}"
    );
    let negative = Tuning {
        min_coverage: 0.5,
        ..loose
    };
    assert!(rank(&index, &ask(text), &negative).is_empty());
}

#[test]
fn a_paraphrase_that_shares_only_a_concept_is_admitted_by_agreement() {
    let index = index_of(&corpus());
    // "branch protection" names the concept; "GH006" is in the learning but
    // no word of the question is.
    let text = "blocked by branch protection";
    let off = Tuning {
        min_relevance: 0.99,
        concept_relevance: 1.0,
        ..Tuning::default()
    };
    assert!(rank(&index, &ask(text), &off).is_empty());
    let on = Tuning {
        concept_relevance: 0.1,
        ..off
    };
    let hits = rank(&index, &ask(text), &on);
    assert_eq!(ids(&hits), ["push"], "{hits:?}");
    assert_eq!(hits[0].signals.admitted_by, "concepts");
    assert!(hits[0].signals.agreement >= 0.99, "{:?}", hits[0].signals);
}

#[test]
fn a_concept_many_learnings_hold_admits_nothing_below_the_threshold() {
    let mut learnings = corpus();
    learnings.push(learning(
        "ruleset",
        "`gh pr merge` failed: the branch protection wants two reviews",
        "gh pr merge 12",
        "GraphQL: At least 2 approving reviews are required by reviewers with write access",
        "ask a second reviewer",
    ));
    let index = index_of(&learnings);
    let text = "blocked by branch protection";
    // Held by two of five learnings: telling at a share of a half, not at
    // a share that allows one learning only.
    let telling = Tuning {
        min_relevance: 0.99,
        concept_relevance: 0.1,
        concept_df_share: 0.5,
        ..Tuning::default()
    };
    let hits = rank(&index, &ask(text), &telling);
    assert_eq!(hits.len(), 2, "{hits:?}");
    assert!(hits.iter().all(|h| h.signals.admitted_by == "concepts"));
    let common = Tuning {
        concept_df_share: 0.0,
        ..telling
    };
    assert!(rank(&index, &ask(text), &common).is_empty());
}

/// The corpus's KG plus `state-lock`, named by one word ("wedged") that no
/// learning holds: a paraphrase reaches the lock learning only through it.
fn index_with_state_lock(learnings: &[Learning]) -> Index {
    index_with_concept(learnings, "state-lock", b"synonyms:: state lock, wedged\n")
}

/// The corpus's KG plus one concept file.
fn index_with_concept(learnings: &[Learning], slug: &str, body: &[u8]) -> Index {
    let (concepts, problems) = kg::check(&[
        (
            "kg/protected-branch.md".to_string(),
            b"synonyms:: protected branch, branch protection, GH006\n".to_vec(),
        ),
        (format!("kg/{slug}.md"), body.to_vec()),
    ]);
    assert!(problems.is_empty(), "{problems:?}");
    let docs: Vec<Doc> = learnings
        .iter()
        .map(|l| Doc::new(l, &format!("{}/{}.md", l.agent_id, l.id), Tally::default()))
        .collect();
    Index::build(&docs, Graph::from_files(&concepts), IndexParams::default())
}

#[test]
fn a_paraphrase_that_names_a_telling_concept_needs_no_second_unit() {
    let index = index_with_state_lock(&corpus());
    // "docker" is a word of another learning; "wedged" names the lock's
    // concept and nothing else. The lock learning matches one unit.
    let text = "provisioning from the docker runner is wedged";
    let two = Tuning {
        concept_units: 2,
        ..Tuning::default()
    };
    assert!(!ids(&rank(&index, &ask(text), &two)).contains(&"lock"));
    let hits = rank(&index, &ask(text), &Tuning::default());
    assert_eq!(ids(&hits), ["lock"], "{hits:?}");
    assert_eq!(hits[0].signals.admitted_by, "concepts");
    assert_eq!(hits[0].signals.units, 1);
    assert_eq!(hits[0].concepts, ["state-lock"]);
}

#[test]
fn an_unanswerable_question_that_shares_only_the_program_is_still_refused() {
    let index = index_with_state_lock(&corpus());
    // Names docker and a generic word, and no telling concept.
    let text = "how do I list docker images sorted by their size";
    assert!(rank(&index, &ask(text), &Tuning::default()).is_empty());
}

#[test]
fn a_telling_concept_alone_admits_and_never_reorders() {
    let mut learnings = corpus();
    learnings.push(learning(
        "lock-s3",
        "`terraform plan` hangs: the state lock is held in DynamoDB",
        "terraform plan",
        "Acquiring state lock. This may take a few moments...",
        "find the holder with the lock id and wait for its run",
    ));
    let index = index_with_state_lock(&learnings);
    let text = "provisioning from the docker runner is wedged again";
    // Two of five learnings hold the concept: telling (and rare, so its one
    // word counts as a unit) at a share of a half.
    let telling = Tuning {
        concept_df_share: 0.5,
        single_df_share: 0.5,
        ..Tuning::default()
    };
    let loose = Tuning {
        min_relevance: 0.0,
        min_units: 1,
        ..telling
    };
    let before = rank(
        &index,
        &ask(text),
        &Tuning {
            concept_units: 2,
            ..loose
        },
    );
    let after = rank(&index, &ask(text), &loose);
    // The same answers in the same order with the same scores: the rule
    // only decides who is admitted.
    assert_eq!(ids(&before), ids(&after));
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(b.score, a.score);
    }
    let strict = rank(&index, &ask(text), &telling);
    let mut admitted = ids(&strict);
    admitted.sort_unstable();
    assert_eq!(admitted, ["lock", "lock-s3"], "{strict:?}");
    let kept: Vec<&str> = ids(&after)
        .into_iter()
        .filter(|id| admitted.contains(id))
        .collect();
    assert_eq!(ids(&strict), kept);
}

#[test]
fn a_common_concept_counts_when_it_bridges_a_word_the_learning_lacks() {
    // `container-runtime` is held by both docker learnings (common at a
    // share of a fifth); "podman" names it and no learning holds the word.
    let mut learnings = corpus();
    learnings.push(learning(
        "compose",
        "`docker compose up` failed: port is already allocated",
        "docker compose up",
        "Bind for 0.0.0.0:5432 failed: port is already allocated",
        "stop the other container that publishes 5432",
    ));
    let (concepts, problems) = kg::check(&[(
        "kg/container-runtime.md".to_string(),
        b"synonyms:: docker, podman\n".to_vec(),
    )]);
    assert!(problems.is_empty(), "{problems:?}");
    let docs: Vec<Doc> = learnings
        .iter()
        .map(|l| Doc::new(l, &format!("{}/{}.md", l.agent_id, l.id), Tally::default()))
        .collect();
    let index = Index::build(&docs, Graph::from_files(&concepts), IndexParams::default());
    // "lock" is another learning's word; the compose learning holds
    // "allocated" and the concept, bridged by "podman": two units, not one.
    let text = "podman: lock allocated";
    let off = Tuning {
        bridge_units: 0,
        ..Tuning::default()
    };
    let on = Tuning::default();
    assert!(!ids(&rank(&index, &ask(text), &off)).contains(&"compose"));
    let hits = rank(&index, &ask(text), &on);
    assert_eq!(ids(&hits).first(), Some(&"compose"), "{hits:?}");
    assert_eq!(hits[0].signals.units, 2);
    // "docker" itself is a word the learning holds: the concept adds
    // nothing beyond it, and a question that shares only the program is
    // still refused.
    assert!(rank(&index, &ask("how do I prune old docker images"), &on).is_empty());
}

#[test]
fn a_log_whose_framing_drowns_the_error_is_answered_by_the_learning_that_leads() {
    let index = index_of(&corpus());
    // Runner framing around a reworded lock error: no signature (the line
    // is not the learning's), and the framing words fill the maximum.
    let text = "Running with gitlab-runner 17.2.0 on shared-runner-4\n\
                Executing step_script stage of the job script\n\
                $ terraform apply -auto-approve\n\
                could not acquire the state lock, ConditionalCheckFailedException raised\n\
                Cleaning up project directory and file based variables\n\
                ERROR: Job failed: exit code 1";
    let strict = Tuning {
        min_relevance: 0.99,
        signature_min: 2.0,
        lead_relevance: 0.05,
        error_words_min: 2.0,
        ..Tuning::default()
    };
    let hits = rank(&index, &ask(text), &strict);
    assert_eq!(ids(&hits), ["lock"], "{hits:?}");
    assert_eq!(hits[0].signals.admitted_by, "lead");
    let off = Tuning {
        lead_ratio: 1.0,
        ..strict
    };
    assert!(rank(&index, &ask(text), &off).is_empty());
    // One line is a question or a command, not a log: no lead path.
    let one_line = "terraform apply: could not acquire the state lock";
    assert!(rank(&index, &ask(one_line), &strict).is_empty());
}

#[test]
fn a_log_where_two_learnings_are_level_gets_no_lead() {
    let mut learnings = corpus();
    learnings.push(learning(
        "lock2",
        "`terraform plan` failed: Error acquiring the state lock",
        "terraform plan",
        "Error: Error acquiring the state lock ConditionalCheckFailedException",
        "the lock table is in another region",
    ));
    let index = index_of(&learnings);
    let text = "terraform in CI\ncould not acquire the state lock, ConditionalCheckFailedException";
    let strict = Tuning {
        min_relevance: 0.99,
        signature_min: 2.0,
        lead_relevance: 0.05,
        error_words_min: 2.0,
        ..Tuning::default()
    };
    assert!(rank(&index, &ask(text), &strict).is_empty());
}

#[test]
fn a_how_to_question_that_shares_the_program_and_a_word_gets_nothing() {
    let index = index_of(&corpus());
    // The learning is about a failing `docker ps`; the question asks for a
    // capability of docker it does not record.
    let text = "how do I rename a docker volume without losing the data";
    let loose = Tuning {
        min_relevance: 0.05,
        howto_relevance: 0.0,
        howto_coverage: 0.0,
        howto_unbridged_coverage: 0.0,
        capability_coverage: 0.0,
        prose_coverage: 0.0,
        ..Tuning::default()
    };
    assert!(!rank(&index, &ask(text), &loose).is_empty());
    let how = Tuning {
        howto_relevance: 0.5,
        ..loose
    };
    assert!(rank(&index, &ask(text), &how).is_empty());
    // The same words as a report of a failure are not a how-to question.
    assert!(!asking::asks_how("docker volume rename loses the data"));
    // A how-to the learning covers is still answered.
    let covered = "how do I fix permission denied on the docker socket in docker ps";
    assert_eq!(
        ids(&rank(&index, &ask(covered), &how)).first(),
        Some(&"socket")
    );
}

#[test]
fn a_how_to_answer_covers_what_is_asked_beyond_the_program() {
    let index = index_of(&corpus());
    // Relevance alone admits it (0.56): "terraform", "state" and "lock" are
    // most of the question, but "rename", what it asks for, is not in the
    // learning about a held lock (a coverage of 0.58).
    let text = "how do I rename the terraform state lock";
    let relevance_only = Tuning {
        howto_coverage: 0.0,
        howto_unbridged_coverage: 0.0,
        capability_coverage: 0.0,
        ..Tuning::default()
    };
    assert_eq!(
        ids(&rank(&index, &ask(text), &relevance_only)).first(),
        Some(&"lock")
    );
    assert!(rank(&index, &ask(text), &Tuning::default()).is_empty());
    // One that it covers is answered.
    let covered = "how do I get past error acquiring the state lock in terraform";
    assert_eq!(
        ids(&rank(&index, &ask(covered), &Tuning::default())).first(),
        Some(&"lock")
    );
}

#[test]
fn how_to_questions_are_told_from_reports() {
    for q in [
        "how do I pin a formula",
        "How can we list keys",
        "what's the command to list projects",
        "What is the difference between a and b",
        "can I run make in another directory?",
        "no idea how to undo this",
        "how can pip download all wheels for an offline machine",
        "can uv run a one-off tool without installing it",
        "is there a way to preview a helm upgrade",
        "docker: copy a log file out of a stopped container",
        "configure vite to proxy /api calls to a backend",
        "reset the root password of a database running in a container",
        "gcloud run deploy: set minimum instances and keep cpu allocated",
        "enable vi keys in tmux copy mode",
        "undo my last local commit but keep the changes",
        "roll back only the most recent migration",
    ] {
        assert!(asking::asks_how(q), "{q}");
    }
    for q in [
        "kubectl auth can-i get deployments -n staging",
        "how the build broke after the upgrade",
        "git push rejected: protected branch",
        "how do I\nError: exit 1",
        "",
        "can't connect to the database after the upgrade",
        "run: cargo build --release --target x86_64-unknown-linux-musl",
        "install -m 644 app.service /etc/systemd/system/",
        "npm: command not found in the runner image",
        "reset: terminal settings lost after ssh",
        "gcloud run deploy: ERROR: (gcloud.run.deploy) PERMISSION_DENIED",
        "save fails on a read-only volume in the container",
    ] {
        assert!(!asking::asks_how(q), "{q}");
    }
}

#[test]
fn a_traceback_or_a_prefixed_log_ranks_as_the_error_it_carries() {
    let index = index_of(&corpus());
    let bare = "ModuleNotFoundError: No module named 'yaml' in the etl job";
    let loose = Tuning {
        signature_min: 2.0,
        ..Tuning::default()
    };
    let plain = rank(&index, &ask(bare), &loose);
    assert_eq!(ids(&plain).first(), Some(&"module"), "{plain:?}");
    for framed in [
        format!(
            "Traceback (most recent call last):\n  File \"/srv/jobs/main.py\", line 68, in <module>\n    main()\n  File \"/srv/jobs/runner.py\", line 90, in run\n    result = step.execute(ctx)\n{bare}"
        ),
        format!(
            "2025-03-08T16:17:51.073Z INFO  [main] starting task id=71506 from /etc/jobs/run.yaml\n2025-03-08T16:17:52.891Z ERROR [worker-8] {bare}"
        ),
        format!("E0408 13:46:21.802529   35400 runner.go:83] {bare}"),
    ] {
        let hits = rank(&index, &ask(&framed), &loose);
        assert_eq!(ids(&hits).first(), Some(&"module"), "{framed}: {hits:?}");
        assert!(
            (hits[0].relevance - plain[0].relevance).abs() < 1e-6,
            "the framing changed the relevance: {} against {} for {framed}",
            hits[0].relevance,
            plain[0].relevance
        );
    }
}

#[test]
fn the_lines_around_a_pasted_failure_order_the_learnings_that_share_it() {
    // Two learnings store the same refusal; what the paste printed around it
    // (the pubkey test) says which one this is.
    let denied = "admin@switch.lab: Permission denied (publickey).";
    let learnings = vec![
        learning(
            "perms",
            "ssh ignores a private key whose permissions are too open",
            "ssh -i ~/.ssh/id_ed25519 deploy@build",
            denied,
            "chmod 600 the key file; ssh refuses keys other users can read",
        ),
        learning(
            "rsa",
            "OpenSSH refuses ssh-rsa signatures to a legacy switch",
            "ssh -i ~/.ssh/id_rsa admin@switch",
            &format!("{denied} send_pubkey_test: no mutual signature algorithm"),
            "add PubkeyAcceptedAlgorithms +ssh-rsa for that host",
        ),
    ];
    let index = index_of(&learnings);
    let paste = "Aug 19 13:23:07 box ssh[6531]: debug1: Offering public key: /home/kim/.ssh/id_rsa RSA\n\
                 Aug 19 13:23:07 box ssh[6531]: debug1: send_pubkey_test: no mutual signature algorithm\n\
                 Aug 19 13:23:07 box ssh[6531]: error: admin@old-switch.lab: Permission denied (publickey).\n\
                 Aug 19 13:23:07 box systemd[1]: ssh.service: Failed with result 'exit-code'.";
    let with = rank(&index, &ask(paste), &Tuning::default());
    assert_eq!(ids(&with).first(), Some(&"rsa"), "{:?}", ids(&with));
    // Without the context signal the debug lines are chatter, dropped before
    // ranking, and the shorter learning that shares the error line wins.
    let without = Tuning {
        context: 0.0,
        ..Tuning::default()
    };
    let hits = rank(&index, &ask(paste), &without);
    assert_eq!(ids(&hits), ["perms", "rsa"]);
}

#[test]
fn a_family_that_shares_the_failure_follows_the_answer_and_never_answers_alone() {
    let mut family = corpus();
    family.extend([
        learning(
            "tls-proxy",
            "pip install fails behind the office TLS proxy",
            "pip install httpx",
            "SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate'))",
            "pip config set global.cert /etc/ssl/certs/corp-root.pem",
        ),
        learning(
            "tls-macos",
            "python.org Python on macOS verifies no certificate",
            "python3 fetch.py",
            "urllib.error.URLError: <urlopen error [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate>",
            "run Install Certificates.command from the Python folder",
        ),
        learning(
            "tls-image",
            "an old base image rejects a renewed certificate chain",
            "docker run old-image curl https://api.example.com",
            "SSL: CERTIFICATE_VERIFY_FAILED certificate verify failed: certificate has expired",
            "update ca-certificates in the image",
        ),
    ]);
    let index = index_of(&family);
    let text =
        "pip install fails: CERTIFICATE_VERIFY_FAILED unable to get local issuer certificate";
    let loose = Tuning {
        companion_ratio: 0.4,
        ..Tuning::default()
    };
    let hits = rank(&index, &ask(text), &loose);
    assert_eq!(ids(&hits), ["tls-proxy", "tls-macos"], "{hits:?}");
    assert_eq!(hits[0].signals.admitted_by, "signature");
    // The macOS member shares the failure, not the install: it follows.
    assert_eq!(hits[1].signals.admitted_by, "companion");
    assert!(hits[1].score < hits[0].score);
    // Off, only what was admitted is shown.
    let off = Tuning {
        companion_ratio: 0.0,
        ..Tuning::default()
    };
    assert_eq!(ids(&rank(&index, &ask(text), &off)), ["tls-proxy"]);
    // A text nothing answers gets nothing, companions or not.
    let none = "how do I pin the version of the Docker daemon's cgroup driver";
    assert!(rank(&index, &ask(none), &loose).is_empty());
}

#[test]
fn a_concept_named_only_by_the_program_does_not_vouch_for_a_how_to() {
    let index = index_with_concept(&corpus(), "docker", b"synonyms:: docker, docker engine\n");
    // `docker` is the program and the only concept the question names: which
    // tool, not what is asked. The learning about its socket does not answer.
    let text = "how do I rename a docker volume without losing the data";
    assert!(rank(&index, &ask(text), &Tuning::default()).is_empty());
    // A concept named by words of what is asked still vouches.
    let asked = "how do I get around branch protection on main";
    assert_eq!(
        ids(&rank(&index, &ask(asked), &Tuning::default())).first(),
        Some(&"push")
    );
}

#[test]
fn a_how_to_answer_without_the_questions_concept_covers_nearly_all_of_it() {
    // The learning shares every word but "normal" (a coverage of 0.76): enough
    // when the team's graph says both are about the daemon's socket, not when
    // only words say it.
    let text = "how do I run docker ps as a normal user on the daemon socket";
    let plain = index_of(&corpus());
    assert!(rank(&plain, &ask(text), &Tuning::default()).is_empty());
    let words_enough = Tuning {
        howto_unbridged_coverage: 0.7,
        ..Tuning::default()
    };
    assert_eq!(
        ids(&rank(&plain, &ask(text), &words_enough)).first(),
        Some(&"socket")
    );
    let kg = index_with_concept(
        &corpus(),
        "daemon-socket",
        b"synonyms:: docker socket, daemon socket, engine socket\n",
    );
    let hits = rank(&kg, &ask(text), &Tuning::default());
    assert_eq!(ids(&hits).first(), Some(&"socket"));
    assert!(hits[0].signals.agreement > 0.0);
    // Words that ask for a way out are not what is asked: without them the
    // learning covers all of it.
    let remedy = "how do I get past permission denied on the docker socket in docker ps";
    assert_eq!(
        ids(&rank(&plain, &ask(remedy), &Tuning::default())).first(),
        Some(&"socket")
    );
}

#[test]
fn a_paste_that_repeats_most_of_an_errors_words_is_answered_by_it() {
    let mut learnings = corpus();
    learnings.push(learning(
        "kafka-offsets",
        "consumer group rebalances forever",
        "",
        "Offset commit cannot be completed since the consumer is not part of an active group for auto partition assignment; it is likely that the consumer was kicked out of the group",
        "raise max.poll.interval.ms above the slowest batch",
    ));
    // The error reprinted by another client version, reworded and reordered, in a
    // worker's log whose healthy lines outnumber it.
    let text = "2026-03-02 10:00:01 INFO worker 3 polled 500 records in 41ms\n\
        2026-03-02 10:00:02 INFO checkpoint written to /var/lib/etl/ckpt-99\n\
        2026-03-02 10:00:02 INFO http GET /healthz 200 2ms\n\
        2026-03-02 10:00:03 INFO scheduler tick seq=4411 lag=3\n\
        2026-03-02 10:00:04 WARN [Consumer clientId=etl-7, groupId=ledger-sync] member etl-7-5c1e kicked out of the group during rebalance generation 411 while the coordinator on broker kafka-2 was migrating; not part of an active group, auto partition assignment revoked, offset commit could not be completed, retrying heartbeat thread shutdown\n\
        2026-03-02 10:00:05 INFO worker 4 polled 500 records in 39ms\n\
        2026-03-02 10:00:06 INFO flushed 3 segments to s3 in 212ms\n";
    let index = index_of(&learnings);
    let off = Tuning {
        error_words_min: 1.1,
        ..Tuning::default()
    };
    assert!(ids(&rank(&index, &ask(text), &off)).first() != Some(&"kafka-offsets"));
    let hits = rank(&index, &ask(text), &Tuning::default());
    assert_eq!(ids(&hits).first(), Some(&"kafka-offsets"));
    assert_eq!(hits[0].signals.admitted_by, "error words");
}

#[test]
fn a_capability_question_is_answered_only_by_a_learning_that_covers_it_or_its_concept() {
    // The socket learning records `docker ps` refused on the daemon's socket;
    // the question asks how to do something else with that socket.
    let text = "connect to the docker daemon socket from a remote host";
    assert!(asking::asks_capability(text));
    let index = index_of(&corpus());
    let off = Tuning {
        capability_coverage: 0.0,
        ..Tuning::default()
    };
    let hits = rank(&index, &ask(text), &off);
    assert_eq!(ids(&hits).first(), Some(&"socket"), "{hits:?}");
    let coverage = hits[0].signals.coverage;
    assert!(
        coverage < Tuning::default().capability_coverage,
        "{coverage}"
    );
    assert!(rank(&index, &ask(text), &Tuning::default()).is_empty());
    // The same words, saying what went wrong, ask about the failure.
    let trouble = "connecting to the docker daemon socket from a remote host is denied";
    assert!(!asking::asks_capability(trouble));
    assert_eq!(
        ids(&rank(&index, &ask(trouble), &Tuning::default())).first(),
        Some(&"socket")
    );
    // The team's graph says the question's words mean the learning's.
    let kg = index_with_concept(
        &corpus(),
        "docker-socket",
        b"synonyms:: daemon socket, control endpoint\n",
    );
    let bridged = "connect to the docker control endpoint from a remote host through an ssh tunnel";
    let hits = rank(&kg, &ask(bridged), &Tuning::default());
    assert_eq!(ids(&hits).first(), Some(&"socket"), "{hits:?}");
    assert!(hits[0].signals.coverage < Tuning::default().capability_coverage);
}

#[test]
fn a_question_in_prose_that_names_trouble_still_needs_some_coverage() {
    // "failing" makes this a question about trouble, not a capability; the
    // socket learning shares `docker ps` with it and answers nothing of what
    // is asked: a remote host, a lock waited on.
    let text = "docker ps failing on my remote host over a wait lock";
    assert!(asking::asks_in_prose(text) && !asking::asks_capability(text));
    let index = index_of(&corpus());
    let off = Tuning {
        prose_coverage: 0.0,
        ..Tuning::default()
    };
    let hits = rank(&index, &ask(text), &off);
    assert_eq!(ids(&hits).first(), Some(&"socket"), "{hits:?}");
    let coverage = hits[0].signals.coverage;
    assert!(coverage < Tuning::default().prose_coverage, "{coverage}");
    assert!(rank(&index, &ask(text), &Tuning::default()).is_empty());
    // The failure itself, told in prose, is answered.
    let told = "my python etl.py run is failing: no module named yaml";
    assert!(asking::asks_in_prose(told));
    let hits = rank(&index, &ask(told), &Tuning::default());
    assert_eq!(ids(&hits).first(), Some(&"module"), "{hits:?}");
    // A command is not prose: its coverage is left to the other rules.
    assert!(!asking::asks_in_prose("python etl.py --config prod.yaml"));
}

#[test]
fn a_pasted_failure_is_answered_only_by_a_learning_that_holds_its_failure_line() {
    let mut learnings = corpus();
    learnings.push(learning(
        "routes",
        "gateway cannot load its routes from config/routes.yaml",
        "go run ./cmd/gateway",
        "yaml: unmarshal errors: line 3: field hosts not found in type gateway.Route",
        "routes is a list: indent each route under a dash",
    ));
    learnings.push(learning(
        "nilmap",
        "Go service panics writing to a map it never made",
        "go run ./cmd/gateway",
        "panic: assignment to entry in nil map",
        "make the map in the constructor before the first write",
    ));
    let index = index_of(&learnings);
    // The gateway's log, a failure no learning records: the routes learning
    // shares its program, its file and its framing, not its failure line.
    let other = "2025/05/23 07:02:11 loading routes from config/routes.yaml\n\
                 2025/05/23 07:02:12 panic: runtime error: slice bounds out of range [:5] with capacity 3\n\
                 \n\
                 goroutine 1 [running]:\n\
                 main.loadRoutes(...)\n\
                 \t/src/cmd/gateway/routes.go:41 +0x1c5";
    let loose = Tuning {
        min_relevance: 0.05,
        min_units: 1,
        ..Tuning::default()
    };
    let off = Tuning {
        failure_cover: 0.0,
        ..loose
    };
    assert!(
        ids(&rank(&index, &ask(other), &off)).contains(&"routes"),
        "without the rule the shared framing answers"
    );
    let hits = rank(&index, &ask(other), &loose);
    assert!(!ids(&hits).contains(&"routes"), "{hits:?}");
    // The nil map failure again, in other framing: its learning answers, and
    // says how much of the failure line it holds.
    let again = "2025-06-01T10:00:00Z INFO loading routes from config/routes.yaml\n\
                 2025-06-01T10:00:01Z ERROR panic: assignment to entry in nil map\n\
                 goroutine 7 [running]:\n\
                 main.(*Router).add(...)";
    let hits = rank(&index, &ask(again), &Tuning::default());
    assert_eq!(ids(&hits).first(), Some(&"nilmap"), "{hits:?}");
    assert!(
        hits[0].signals.failure_line.is_some_and(|c| c >= 0.99),
        "{hits:?}"
    );
    assert!(!ids(&hits).contains(&"routes"), "{hits:?}");
    // One line is not a log: no failure line is asked of it.
    let hits = rank(
        &index,
        &ask("panic: assignment to entry in nil map"),
        &loose,
    );
    assert!(
        hits.iter().all(|h| h.signals.failure_line.is_none()),
        "{hits:?}"
    );
}
