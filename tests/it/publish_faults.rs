//! Publishing under a flaky Gitea: with 30% of requests failing (500, 503,
//! 429, dropped connections, writes that land but answer 500), repeated
//! publishes converge to exactly the pages a fault-free publish makes, with
//! no duplicate; and no token ever shows in any output, log or file.

use crate::common;
// `common` loads the server's HTTP codec for its git smart-HTTP server; the
// test server needs its own copy, so the module is loaded twice on purpose.
use crate::common::gitea_client::{client_with, options};
use crate::common::gitea_server;

use gitea_server::{Fault, FaultRule, GiteaServer, WRITE_TOKEN};
use learnsync::gitea::GiteaClient;
use learnsync::learning::{Learning, Quality, TrustLevel};
use learnsync::policy::WikiPolicy;
use learnsync::publish::gitea_target;
use learnsync::publish::state::TargetState;
use learnsync::render::{Site, Templates, render_site};
use learnsync::timestamp::Timestamp;
use std::collections::BTreeMap;

fn learning(n: u32, level: TrustLevel, revision: &str) -> Learning {
    let mut l = Learning::new(
        format!("learning-{n:032x}-1717432000000"),
        if n.is_multiple_of(2) {
            "claude"
        } else {
            "codex"
        }
        .into(),
        format!("Lesson number {n}"),
        Timestamp::from_unix(1_717_000_000 + i64::from(n)),
    );
    l.trust_level = level;
    l.correction = Some(format!("do it right ({revision})"));
    l.keywords = vec![format!("topic{}", n % 4)];
    l.quality = Quality {
        applied_count: 3,
        effective_count: 3,
        agent_count: 2,
        agent_names: vec!["a".into(), "b".into()],
        last_applied_at: None,
        success_rate: Some(1.0),
    };
    l.body = format!("Lesson {n}, revision {revision}.\n");
    l
}

fn site(learnings: &[Learning]) -> Site {
    render_site(learnings, &WikiPolicy::default(), &Templates::builtin()).expect("render")
}

/// One publish run; `Err` when the run could not even list the wiki.
async fn run(
    client: &GiteaClient,
    site: &Site,
    state: &mut TargetState,
) -> Result<(usize, usize), String> {
    let (plan, outcomes) = gitea_target::publish(
        client,
        site,
        state,
        false,
        false,
        None,
        &mut |_, _| {},
        &mut |_| {},
    )
    .await
    .map_err(|e| e.to_string())?;
    let failed = outcomes
        .iter()
        .filter(|o| matches!(o.result, learnsync::publish::WriteResult::Failed(_)))
        .count();
    Ok((plan.writes(), failed))
}

async fn reference(site: &Site) -> BTreeMap<String, Vec<u8>> {
    let server = GiteaServer::start();
    let mut state = TargetState::default();
    let (_, failed) = run(
        &client_with(&server, Some(WRITE_TOKEN), options(1)),
        site,
        &mut state,
    )
    .await
    .expect("fault-free run");
    assert_eq!(failed, 0);
    server.wiki_files()
}

fn flaky(server: &GiteaServer, seed: u64) {
    // Five kinds at ~7% each: about 30% of requests fail one way or another.
    let p = 0.07;
    server.inject(FaultRule::random(p, seed, Fault::status(500)));
    server.inject(FaultRule::random(p, seed + 1, Fault::status(503)));
    server.inject(FaultRule::random(
        p,
        seed + 2,
        Fault::status(429).retry_after("0"),
    ));
    server.inject(FaultRule::random(p, seed + 3, Fault::DropConnection));
    server.inject(FaultRule::random(p, seed + 4, Fault::LandThenStatus(500)));
}

/// Publishes until a run finds nothing left to write; returns the runs needed.
async fn converge(client: &GiteaClient, site: &Site, state: &mut TargetState) -> usize {
    for attempt in 1..=60 {
        if let Ok((0, 0)) = run(client, site, state).await {
            return attempt;
        }
    }
    panic!("publish did not converge in 60 runs");
}

#[tokio::test]
async fn repeated_publishes_under_30_percent_faults_converge_to_the_fault_free_wiki() {
    let first: Vec<Learning> = (0..24)
        .map(|n| {
            learning(
                n,
                if n.is_multiple_of(5) {
                    TrustLevel::L3
                } else {
                    TrustLevel::L2
                },
                "v1",
            )
        })
        .collect();
    // Then: one is gone, some change, some drop below L2, some are new.
    let mut second: Vec<Learning> = first
        .iter()
        .filter(|l| l.id != first[3].id)
        .cloned()
        .collect();
    for l in second.iter_mut().take(6) {
        l.body = format!("{} Revised.\n", l.body.trim());
    }
    for l in second.iter_mut().skip(10).take(4) {
        l.trust_level = TrustLevel::L1;
    }
    second.extend((100..103).map(|n| learning(n, TrustLevel::L2, "v1")));

    let server = GiteaServer::start();
    let flaky_client = client_with(&server, Some(WRITE_TOKEN), options(2));
    let mut state = TargetState::default();
    for (round, learnings) in [&first, &second].into_iter().enumerate() {
        let site = site(learnings);
        let want = reference(&site).await;
        flaky(&server, 42 + round as u64 * 100);
        let runs = converge(&flaky_client, &site, &mut state).await;
        server.clear_faults();
        eprintln!("round {round}: converged after {runs} runs");
        let writes = server.writes().len();
        assert_eq!(run(&flaky_client, &site, &mut state).await, Ok((0, 0)));
        assert_eq!(
            server.writes().len(),
            writes,
            "a fault-free run after convergence writes nothing"
        );
        let got = server.wiki_files();
        assert_eq!(
            got.keys().collect::<Vec<_>>(),
            want.keys().collect::<Vec<_>>(),
            "round {round}: same pages, no duplicates"
        );
        assert_eq!(got, want, "round {round}: same bytes");
    }
    let faults = server
        .requests()
        .iter()
        .filter(|r| r.fault.is_some())
        .count();
    assert!(faults > 20, "the faults really fired ({faults})");
}

#[test]
fn the_token_never_appears_in_output_logs_or_files() {
    let s = common::Sandbox::new();
    s.ok(&["init", "--agent", "a"]);
    let server = GiteaServer::start();
    std::fs::write(
        s.dir().join(".git/learnsync/config.yaml"),
        format!(
            "agent: a\ngitea:\n  url: {}\n  repo: {}\n",
            server.url(),
            server.repo_ref()
        ),
    )
    .expect("config");
    for title in ["One", "Two", "Three"] {
        let id = s
            .ok(&[
                "add",
                "--title",
                title,
                "--correction",
                "fix",
                "--keyword",
                "k",
            ])
            .trim()
            .to_string();
        s.effective_from(&id, &["a", "b", "a"]);
    }
    s.sync_offline();
    // A proxy that echoes the request headers back, and writes that land but fail.
    server.inject(
        FaultRule::next(
            2,
            Fault::Body {
                status: 502,
                body: format!("bad gateway; you sent Authorization: token {WRITE_TOKEN}"),
            },
        )
        .on_method("POST"),
    );
    server.inject(FaultRule::random(0.3, 9, Fault::LandThenStatus(500)));
    let mut transcript = String::new();
    for args in [
        vec!["publish"],
        vec!["publish", "--json"],
        vec!["publish", "--dry-run"],
    ] {
        let out = s
            .cmd(&args)
            .env("GITEA_TOKEN", WRITE_TOKEN)
            .env("LEARNSYNC_LOG", "trace")
            .output()
            .expect("publish");
        transcript.push_str(&String::from_utf8_lossy(&out.stdout));
        transcript.push_str(&String::from_utf8_lossy(&out.stderr));
    }
    assert!(
        transcript.contains("gitea request"),
        "trace logging was on:\n{transcript}"
    );
    assert!(
        transcript.contains("502"),
        "the echoing proxy was hit:\n{transcript}"
    );
    assert!(
        !transcript.contains(WRITE_TOKEN),
        "token leaked:\n{transcript}"
    );
    assert!(!server.wiki_files().is_empty());
    // No file anywhere in the learnings dir (state file included) holds it.
    let mut stack = vec![s.dir().to_path_buf()];
    let mut files = 0;
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files += 1;
                let bytes = std::fs::read(&path).expect("read");
                let text = String::from_utf8_lossy(&bytes);
                assert!(!text.contains(WRITE_TOKEN), "token in {}", path.display());
            }
        }
    }
    assert!(s.dir().join(".git/learnsync/publish-state.json").is_file());
    assert!(files > 10);
}
