//! Failures nobody could miss: an unreachable remote and a failing Gitea
//! make the sync and the publish back off — visible in `status` and in
//! `/metrics` (read with a strict parser) — turn `/readyz` unready, and it
//! turns ready again by itself once the faults go; the daemon never stops.

use crate::common::daemon::{Daemon, write_config};
use crate::common::git::bare;
use crate::common::gitea_server::{Fault, FaultRule, GiteaServer, WRITE_TOKEN};
use crate::common::net::{free_port, get, wait_status};
use crate::common::prometheus::{metric, parse_prometheus};
use crate::common::{Sandbox, json};
use std::time::Duration;

#[test]
fn an_unreachable_remote_and_a_failing_gitea_back_off_and_readyz_recovers_when_they_come_back() {
    let s = Sandbox::new();
    let hub = s.root().join("hub.git");
    // The remote does not exist yet: every fetch fails.
    s.init_with_hub("a", hub.display());
    let server = GiteaServer::start();
    server.inject(FaultRule::random(1.0, 7, Fault::status(503)));
    let port = free_port();
    write_config(
        s.dir(),
        &format!(
            "agent: a\nhub: hub\ngitea:\n  url: {}\n  repo: {}\nschedule:\n  sync: \"* * * * * *\"\n  publish: \"* * * * * *\"\n  review: \"off\"\n\
             daemon:\n  spread_secs: 0\n  backoff_base_secs: 1\n  backoff_max_secs: 2\n  ready_failures: 2\n  listen: \"127.0.0.1:{port}\"\n",
            server.url(),
            server.repo_ref()
        ),
    );
    let mut cmd = s.cmd(&["daemon"]);
    cmd.env("GITEA_TOKEN", WRITE_TOKEN);
    let mut d = Daemon::start(cmd);
    d.wait_for("serving /livez", Duration::from_secs(30));
    assert_eq!(get(port, "/livez").map(|r| r.0), Some(200));

    // Unready, saying why, once both jobs failed twice in a row.
    let why = {
        let start = std::time::Instant::now();
        loop {
            let body = wait_status(port, "/readyz", 503, Duration::from_secs(60));
            if body.contains("sync failed its last") && body.contains("publish failed its last") {
                break body;
            }
            assert!(
                start.elapsed() < Duration::from_secs(90),
                "{body}\n{}",
                d.log()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    };
    assert!(why.contains("remote"), "{why}");
    let (code, text) = get(port, "/metrics").expect("metrics");
    assert_eq!(code, 200);
    let m = parse_prometheus(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    for job in ["sync", "publish"] {
        let failures = metric(&m, "learnsync_daemon_consecutive_failures", &[("job", job)])
            .expect("failures gauge");
        assert!(failures >= 2.0, "{job}: {failures}\n{text}");
        assert_eq!(
            metric(
                &m,
                "learnsync_daemon_last_success_timestamp_seconds",
                &[("job", job)]
            ),
            None,
            "never succeeded, so no last success"
        );
    }
    let sync_partial = metric(
        &m,
        "learnsync_daemon_runs_total",
        &[("job", "sync"), ("outcome", "partial")],
    )
    .expect("counter");
    assert!(sync_partial >= 2.0);
    assert_eq!(m["learnsync_daemon_runs_total"].kind, "counter");
    assert_eq!(m["learnsync_daemon_run_duration_seconds"].kind, "histogram");
    assert!(
        metric(
            &m,
            "learnsync_daemon_next_run_timestamp_seconds",
            &[("job", "sync")]
        )
        .is_some()
    );
    // Backing off: far fewer attempts than the once-a-second schedules. A
    // tick skipped because the other job was still running (a loaded
    // machine) attempted nothing, so it is not counted.
    let started = metric(&m, "learnsync_daemon_start_time_seconds", &[]).expect("start time");
    let now = chrono::Utc::now().timestamp() as f64;
    let all_sync: f64 = ["ok", "unchanged", "partial", "failed"]
        .iter()
        .filter_map(|o| {
            metric(
                &m,
                "learnsync_daemon_runs_total",
                &[("job", "sync"), ("outcome", o)],
            )
        })
        .sum();
    assert!(
        all_sync < (now - started) * 0.9 + 1.0,
        "{all_sync} attempts in {}s",
        now - started
    );

    let status = json(&s.ok(&["--json", "status"]));
    let jobs = status["daemon"]["jobs"].as_array().expect("jobs");
    let sync = jobs.iter().find(|j| j["job"] == "sync").expect("sync");
    assert!(
        sync["consecutive_failures"].as_u64().expect("n") >= 2,
        "{sync}"
    );
    assert_eq!(sync["last_run"]["error_class"], "remote", "{sync}");
    let publish = jobs
        .iter()
        .find(|j| j["job"] == "publish")
        .expect("publish");
    assert_eq!(publish["last_run"]["error_class"], "gitea", "{publish}");
    assert!(
        status["daemon"]["running"]
            .as_str()
            .expect("running")
            .contains("pid")
    );
    let human = s.ok(&["status"]);
    assert!(human.contains("failures:     "), "{human}");

    // The faults go: ready again, without a restart.
    bare(&hub);
    server.clear_faults();
    wait_status(port, "/readyz", 200, Duration::from_secs(60));
    let (_, text) = get(port, "/metrics").expect("metrics");
    let m = parse_prometheus(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    for job in ["sync", "publish"] {
        assert_eq!(
            metric(&m, "learnsync_daemon_consecutive_failures", &[("job", job)]),
            Some(0.0),
            "{job}\n{text}"
        );
        assert!(
            metric(
                &m,
                "learnsync_daemon_last_success_timestamp_seconds",
                &[("job", job)]
            )
            .is_some(),
            "{job}"
        );
    }
    assert!(
        metric(&m, "learnsync_learnings", &[("trust", "L1")]).is_some(),
        "{text}"
    );
    assert!(d.is_running());
    d.stop();
}
