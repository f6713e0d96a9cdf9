//! Signals and instances: SIGTERM during a sync, a publish and a review stops
//! at a safe point and exits 0, the repository sound and clean, nothing
//! lost, and the next run completes; SIGHUP picks up a new schedule, and a
//! broken config on SIGHUP keeps the old one; a second daemon on the same
//! dir is refused, naming the first one's pid; systemd hears READY=1 and
//! STOPPING=1 through `$NOTIFY_SOCKET`.

use crate::common::daemon::{Daemon, runs, wait_runs, write_config};
use crate::common::git::{GitDaemon, assert_clean_and_sound, bare, git_in};
use crate::common::gitea_client::{self, block};
use crate::common::gitea_server::{
    BOT_TOKEN, Fault, FaultRule, GiteaServer, MAINTAINER, Protection, WRITE_TOKEN,
};
use crate::common::learnings::l2_files;
use crate::common::net::SlowProxy;
use crate::common::{Sandbox, json};
use learnsync::daemon::{ErrorClass, Job, RunOutcome};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

const QUIET_SCHEDULES: &str = "schedule:\n  sync: \"0 0 1 1 *\"\n  publish: \"off\"\n  review: \"off\"\ndaemon:\n  spread_secs: 0\n";

#[test]
fn sigterm_during_a_sync_stops_at_a_safe_point_exits_0_and_the_next_sync_completes() {
    let tmp = tempfile::tempdir().expect("tmp");
    let base = tmp.path().join("served");
    std::fs::create_dir_all(&base).expect("base");
    bare(&base.join("hub.git"));
    let git = GitDaemon::start(&base);
    // Every answer of the hub comes 3 s late: the fetch is slow.
    let proxy = SlowProxy::start(git.port, Duration::from_secs(3));
    let url = format!("git://127.0.0.1:{}/hub.git", proxy.port);
    let m = Sandbox::machine_on_hub(tmp.path(), "m", "m", &url);
    write_config(m.dir(), &format!("agent: m\nhub: hub\n{QUIET_SCHEDULES}"));
    let id = m.add_learning("Kill the right pid", "pgrep -f exact");
    let mut d = Daemon::start(m.cmd(&["daemon"]));
    // The start-up sync committed the inbox and is now fetching.
    let start = Instant::now();
    while proxy.accepted.load(Ordering::SeqCst) == 0 {
        assert!(start.elapsed() < Duration::from_secs(30), "{}", d.log());
        std::thread::sleep(Duration::from_millis(10));
    }
    d.signal("TERM");
    let stopping = Instant::now();
    let status = d.wait_exit(Duration::from_secs(30));
    assert!(status.success(), "{status}\n{}", d.log());
    assert!(
        stopping.elapsed() < Duration::from_secs(20),
        "{:?}",
        stopping.elapsed()
    );
    let sync = runs(m.dir())
        .into_iter()
        .find(|r| r.job == Job::Sync)
        .expect("the sync is recorded");
    assert_eq!(
        (sync.outcome, sync.error_class),
        (RunOutcome::Skipped, Some(ErrorClass::Stopped)),
        "{sync:?}\n{}",
        d.log()
    );
    assert!(sync.summary.contains("committed"), "{sync:?}");
    assert_clean_and_sound(m.dir(), m.home());
    // Nothing lost: the capture is committed, not pushed yet.
    let tree = m.git(&["ls-tree", "-r", "--name-only", "HEAD"]);
    assert!(tree.contains(&format!("m/{id}.md")), "{tree}");
    let status = json(&m.ok(&["--json", "status"]));
    assert_eq!(status["inbox"], 0);
    // The next sync does the rest.
    m.ok(&["sync"]);
    let pushed = git_in(
        &base.join("hub.git"),
        m.home(),
        &["ls-tree", "-r", "--name-only", "agents/m"],
    );
    assert!(pushed.contains(&format!("m/{id}.md")), "{pushed}");
    assert_clean_and_sound(m.dir(), m.home());
}

#[test]
fn sigterm_during_a_publish_stops_between_pages_and_the_next_publish_sends_the_rest() {
    let s = Sandbox::new();
    s.ok(&["init", "--agent", "a"]);
    let server = GiteaServer::start();
    server.inject(FaultRule::next(1, Fault::Delay(Duration::from_secs(3))).on_method("POST"));
    write_config(
        s.dir(),
        &format!(
            "agent: a\ngitea:\n  url: {}\n  repo: {}\nschedule:\n  sync: \"0 0 1 1 *\"\n  publish: \"* * * * * *\"\n  review: \"off\"\ndaemon:\n  spread_secs: 0\n",
            server.url(),
            server.repo_ref()
        ),
    );
    let mut cmd = s.cmd(&["daemon"]);
    cmd.env("GITEA_TOKEN", WRITE_TOKEN)
        .env("LEARNSYNC_LOG", "warn,learnsync=debug");
    let mut d = Daemon::start(cmd);
    d.wait_for("publish started", Duration::from_secs(30));
    // Inside the slow first write.
    std::thread::sleep(Duration::from_millis(1000));
    d.stop();
    let publish = runs(s.dir())
        .into_iter()
        .find(|r| r.job == Job::Publish && r.error_class != Some(ErrorClass::Overlap))
        .expect("the publish is recorded");
    assert_eq!(
        (publish.outcome, publish.error_class),
        (RunOutcome::Skipped, Some(ErrorClass::Stopped)),
        "{publish:?}"
    );
    let landed = server.wiki_files().len();
    assert_eq!(landed, 1, "the write in flight landed, no other was sent");
    assert_clean_and_sound(s.dir(), s.home());
    // The next publish sends the rest and leaves the landed page alone.
    let out = s
        .cmd(&["--json", "publish"])
        .env("GITEA_TOKEN", WRITE_TOKEN)
        .output()
        .expect("publish");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = json(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(report["counts"]["unchanged"], 1, "{report}");
    assert_eq!(report["counts"]["failed"], 0, "{report}");
    assert!(server.wiki_files().len() > landed);
}

#[test]
fn sighup_picks_up_a_new_schedule_and_a_broken_config_keeps_the_old_one() {
    let s = Sandbox::new();
    s.ok(&["init", "--agent", "a"]);
    write_config(s.dir(), &format!("agent: a\n{QUIET_SCHEDULES}"));
    let mut d = Daemon::start(s.cmd(&["daemon"]));
    d.wait_for("sync ok", Duration::from_secs(30));
    assert!(runs(s.dir()).iter().all(|r| r.job != Job::Review));
    write_config(
        s.dir(),
        "agent: a\nschedule:\n  sync: \"0 0 1 1 *\"\n  publish: \"off\"\n  review: \"* * * * * *\"\ndaemon:\n  spread_secs: 0\n",
    );
    d.signal("HUP");
    d.wait_for("configuration reloaded", Duration::from_secs(10));
    wait_runs(
        s.dir(),
        Duration::from_secs(10),
        "review on its new schedule",
        |r| r.iter().filter(|r| r.job == Job::Review).count() >= 2,
    );
    write_config(s.dir(), "agent: a\nschedule:\n  review: \"every second\"\n");
    d.signal("HUP");
    let refused = d.wait_for(
        "did not load, so the previous one stays",
        Duration::from_secs(10),
    );
    assert!(refused.contains("schedule.review"), "{refused}");
    let before = runs(s.dir())
        .iter()
        .filter(|r| r.job == Job::Review)
        .count();
    wait_runs(
        s.dir(),
        Duration::from_secs(10),
        "review still on the old schedule",
        |r| r.iter().filter(|r| r.job == Job::Review).count() >= before + 2,
    );
    assert!(d.is_running());
    d.signal("INT");
    assert!(
        d.wait_exit(Duration::from_secs(30)).success(),
        "{}",
        d.log()
    );
}

#[test]
fn a_second_daemon_is_refused_naming_the_first_and_systemd_hears_ready_and_stopping() {
    let s = Sandbox::new();
    s.ok(&["init", "--agent", "a"]);
    write_config(s.dir(), &format!("agent: a\n{QUIET_SCHEDULES}"));
    let socket_path = s.root().join("notify.sock");
    let socket = std::os::unix::net::UnixDatagram::bind(&socket_path).expect("bind");
    socket
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let mut cmd = s.cmd(&["daemon"]);
    cmd.env("NOTIFY_SOCKET", &socket_path);
    let mut first = Daemon::start(cmd);
    let mut buf = [0u8; 512];
    let n = socket.recv(&mut buf).expect("a notification");
    let ready = String::from_utf8_lossy(&buf[..n]).into_owned();
    assert!(ready.lines().any(|l| l == "READY=1"), "{ready}");
    assert!(ready.contains(&format!("MAINPID={}", first.pid)), "{ready}");

    let second = s.run(&["daemon"]);
    assert_eq!(second.status.code(), Some(4));
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(err.contains(&format!("pid {}", first.pid)), "{err}");
    assert!(first.is_running());

    first.stop();
    let n = socket.recv(&mut buf).expect("stopping");
    assert!(String::from_utf8_lossy(&buf[..n]).contains("STOPPING=1"));
    // Gone: a new daemon may start.
    let mut again = Daemon::start(s.cmd(&["daemon"]));
    again.wait_for("sync ok", Duration::from_secs(30));
    again.stop();
}

#[test]
fn sigterm_during_a_review_stops_between_proposals_and_the_next_pass_proposes_the_rest() {
    let s = Sandbox::new();
    let server = GiteaServer::start();
    s.init_with_hub("a", server.repo_git_path().display());
    let ids = l2_files(s.dir(), "a", 4);
    s.ok(&["sync"]);
    let sha = server.branch_sha("agents/a").expect("pushed");
    server.hub_git(&["update-ref", "refs/heads/main", &sha]);
    server.protect(Protection::new("main").merge_whitelist(&[MAINTAINER]));
    // The first proposal's branch-and-file request takes 3 s.
    server.inject(
        FaultRule::next(1, Fault::Delay(Duration::from_secs(3)))
            .on_method("POST")
            .on_path("/contents/"),
    );
    write_config(
        s.dir(),
        &format!(
            "agent: a\ngitea:\n  url: {}\n  repo: {}\nschedule:\n  sync: \"0 0 1 1 *\"\n  publish: \"off\"\n  review: \"* * * * * *\"\nreview:\n  max_new_per_run: 10\ndaemon:\n  spread_secs: 0\n",
            server.url(),
            server.repo_ref()
        ),
    );
    let mut cmd = s.cmd(&["daemon"]);
    cmd.env("GITEA_TOKEN", BOT_TOKEN)
        .env("LEARNSYNC_LOG", "warn,learnsync=debug");
    let mut d = Daemon::start(cmd);
    d.wait_for("review started", Duration::from_secs(30));
    std::thread::sleep(Duration::from_millis(1500));
    let asked = Instant::now();
    d.stop();
    assert!(
        asked.elapsed() < Duration::from_secs(10),
        "the daemon waited for the whole pass: {:?}",
        asked.elapsed()
    );
    let review = runs(s.dir())
        .into_iter()
        .find(|r| r.job == Job::Review && r.error_class != Some(ErrorClass::Overlap))
        .expect("the review is recorded");
    assert_eq!(
        (review.outcome, review.error_class),
        (RunOutcome::Skipped, Some(ErrorClass::Stopped)),
        "{review:?}"
    );
    let open = |server: &GiteaServer| {
        let client = gitea_client::client_with(
            server,
            Some(BOT_TOKEN),
            learnsync::gitea::ClientOptions::default(),
        );
        let pulls = block(client.list_pulls(&learnsync::gitea::PullFilter {
            state: learnsync::gitea::StateFilter::Open,
            labels: Vec::new(),
            base: None,
        }))
        .expect("pulls");
        pulls
            .iter()
            .filter(|p| p.head_ref().starts_with("review/"))
            .count()
    };
    assert_eq!(
        open(&server),
        1,
        "the proposal in flight is whole, no other was made"
    );
    assert_clean_and_sound(s.dir(), s.home());
    // The next pass proposes the rest, and the first one is not proposed twice.
    let out = s
        .cmd(&["--json", "review"])
        .env("GITEA_TOKEN", BOT_TOKEN)
        .output()
        .expect("review");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = json(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(
        report["proposed"].as_array().map(Vec::len),
        Some(3),
        "{report}"
    );
    assert_eq!(open(&server), ids.len());
}
