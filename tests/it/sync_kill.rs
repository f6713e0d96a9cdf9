//! A sync killed with SIGKILL at a random moment of its cycle — not at one of
//! our fault points, which abort cleanly, but anywhere: mid-commit, mid-fetch,
//! mid-merge, mid-checkout, mid-index write, while `git push` runs — while
//! other processes keep capturing and applying. Each kill is followed by a
//! sync that must succeed; at the end nothing is lost, `git fsck --strict`
//! is clean, the inbox is empty, the work tree clean, and the hub has it all.
//!
//! Seeded: `LEARNSYNC_KILL_SEED=<n>` replays one run, `LEARNSYNC_KILLS=<n>`
//! sets the number of kills (default 50).

use crate::common;

use common::capture::capture_raw;
use common::git::{bare, commit_all_as};
use common::{Sandbox, json};
use learnsync::event::{Event, Outcome};
use learnsync::learning::Learning;
use learnsync::timestamp::Timestamp;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// splitmix64: small, seeded, good enough to pick delays and shapes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// Everything written that must survive: learning ids, event ids, and the
/// commands of captured failures.
#[derive(Default)]
struct Ledger {
    learnings: BTreeSet<String>,
    events: BTreeSet<String>,
    captured: BTreeSet<String>,
}

/// Writes `count` new learnings and `events` events into the peer's work
/// tree as files (what its agents' captures become), most events about
/// learnings that already exist.
fn grow(
    peer: &Sandbox,
    rng: &mut Rng,
    n: &mut u64,
    count: u64,
    events: u64,
    known: &mut Vec<String>,
) {
    let now = Timestamp::from_unix(1_780_000_000 + *n as i64);
    for _ in 0..count {
        *n += 1;
        let id = format!("learning-{:032x}-1780000000000", *n);
        let mut l = Learning::new(id.clone(), "b".into(), format!("peer lesson {n}"), now);
        l.correction = Some(format!("do thing {n} instead"));
        l.original_command = Some(format!("tool --step {n}"));
        l.body = format!("Why step {n} fails.\n");
        let path = peer.dir().join("b").join(format!("{id}.md"));
        std::fs::create_dir_all(path.parent().expect("folder")).expect("mkdir");
        std::fs::write(path, l.to_markdown()).expect("write learning");
        known.push(id);
    }
    let file = peer.dir().join("events/b/2026-06.jsonl");
    std::fs::create_dir_all(file.parent().expect("folder")).expect("mkdir");
    let mut text = std::fs::read_to_string(&file).unwrap_or_default();
    for i in 0..events {
        let target = if rng.below(10) < 7 {
            &known[rng.below(known.len() as u64) as usize]
        } else {
            &known[known.len() - 1 - (i as usize % count.max(1) as usize)]
        };
        let outcome =
            [Outcome::Applied, Outcome::Effective, Outcome::Ineffective][rng.below(3) as usize];
        // The peer's own folder holds only its own outcomes (§4).
        let agent = "b";
        let e = Event::new(
            target,
            agent,
            outcome,
            Timestamp::from_unix(1_780_000_000 + i as i64),
        );
        text.push_str(&e.to_line());
        text.push('\n');
    }
    std::fs::write(file, text).expect("write events");
}

/// The peer shares what it wrote the way any git user could: commit and
/// push its branch (learnsync on the victim recomputes what it merges).
fn peer_push(peer: &Sandbox) {
    commit_all_as(peer.dir(), peer.home(), "b", "b@example.com", "peer work");
    peer.git(&["push", "-q", "hub", "agents/b"]);
}

/// How long each step of an undisturbed cycle took, in the order the
/// cycle logs them (`LEARNSYNC_LOG=learnsync::timing=debug`).
fn step_times(victim: &Sandbox) -> Vec<Duration> {
    let out = victim
        .cmd(&["sync", "--wait", "60"])
        .env("LEARNSYNC_LOG", "learnsync::timing=debug")
        .output()
        .expect("sync");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter_map(|l| {
            l.strip_suffix(" ms")?
                .rsplit(": ")
                .next()?
                .trim()
                .parse::<f64>()
                .ok()
        })
        .map(|ms| Duration::from_secs_f64(ms / 1e3))
        .collect()
}

/// A failing Claude Code payload whose command is unique.
fn failure(n: u64) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "session_id": format!("kill-{n}"), "cwd": "/home/dev/shop",
        "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
        "tool_input": {"command": format!("make target-{n}")},
        "error": format!("Exit code 2\nmake: *** No rule to make target 'target-{n}'.  Stop."),
        "tool_use_id": format!("toolu_{n}")
    }))
    .expect("json")
}

/// Writes to the victim's inbox until told to stop, as its agents would.
fn writer(
    victim: &Sandbox,
    known: &[String],
    ledger: &Mutex<Ledger>,
    stop: &AtomicBool,
    seed: u64,
) {
    let mut rng = Rng(seed);
    let mut n = seed.wrapping_mul(1000);
    while !stop.load(Ordering::SeqCst) {
        // An agent's pace, not a tight loop: the two cores are the sync's too.
        std::thread::sleep(Duration::from_millis(20 + rng.below(60)));
        n += 1;
        match rng.below(3) {
            0 => {
                let out = victim.ok(&[
                    "add",
                    "--json",
                    "--title",
                    &format!("kill lesson {n}"),
                    "--correction",
                    "fix",
                ]);
                let id = json(&out)["id"].as_str().expect("id").to_string();
                ledger.lock().expect("ledger").learnings.insert(id);
            }
            1 => {
                let id = &known[rng.below(known.len() as u64) as usize];
                let out = victim.ok(&["apply", id, "--outcome", "effective", "--json"]);
                let event = json(&out)["id"].as_str().expect("event id").to_string();
                ledger.lock().expect("ledger").events.insert(event);
            }
            _ => {
                let out = capture_raw(victim, &[], &[], &failure(n));
                assert!(out.status.success());
                ledger
                    .lock()
                    .expect("ledger")
                    .captured
                    .insert(format!("make target-{n}"));
            }
        }
    }
}

fn sync_ok(m: &Sandbox, what: &str, seed: u64) -> serde_json::Value {
    let out = m.run(&["sync", "--json", "--wait", "60"]);
    assert!(
        out.status.success(),
        "{what} failed (seed {seed}, replay with LEARNSYNC_KILL_SEED={seed}): exit {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    json(&String::from_utf8_lossy(&out.stdout))
}

fn run_with_seed(seed: u64, kills: u64) {
    let tmp = tempfile::tempdir().expect("tmp");
    let hub = tmp.path().join("hub.git");
    bare(&hub);
    let victim = Sandbox::machine_on_hub(tmp.path(), "a", "a", hub.display());
    let peer = Sandbox::machine_on_hub(tmp.path(), "b", "b", hub.display());
    let mut rng = Rng(seed);
    let mut n = 0;
    let mut known = Vec::new();
    // Big enough that every step of a cycle takes measurable time.
    grow(&peer, &mut rng, &mut n, 500, 5_000, &mut known);
    sync_ok(&peer, "the peer's first sync", seed);
    sync_ok(&victim, "the victim's first sync", seed);

    let ledger = Arc::new(Mutex::new(Ledger::default()));
    // How long an undisturbed cycle of this shape takes, to kill across it.
    grow(&peer, &mut rng, &mut n, 20, 200, &mut known);
    peer_push(&peer);
    let steps = step_times(&victim);
    assert!(steps.len() >= 8, "the cycle's steps: {steps:?}");
    let mut kills_done = 0;
    let (mut stale_locks, mut interrupted) = (0, 0);
    for round in 0..kills {
        // The victim has every learning up to here (it synced since).
        let victim_has = known.clone();
        grow(&peer, &mut rng, &mut n, 20, 200, &mut known);
        peer_push(&peer);
        let stop = Arc::new(AtomicBool::new(false));
        let handle = {
            let root = victim.root().to_path_buf();
            let (known, ledger, stop) = (victim_has, ledger.clone(), stop.clone());
            let writer_seed = seed ^ (round + 1).wrapping_mul(0x5851_f42d_4c95_7f2d);
            std::thread::spawn(move || {
                // The victim's dirs, seen from this thread.
                let m = Sandbox::machine(&root, "a");
                writer(&m, &known, &ledger, &stop, writer_seed)
            })
        };
        // Kill inside a step chosen at random (every step as likely, the
        // short ones too): after the step before it logged its end, at a
        // random point of the time it took in an undisturbed cycle.
        let k = rng.below(steps.len() as u64) as usize;
        let delay = Duration::from_micros(rng.below(steps[k].as_micros() as u64 + 1));
        let mut child = victim
            .cmd(&["sync", "--wait", "60"])
            .env("LEARNSYNC_LOG", "learnsync::timing=debug")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("sync");
        let (tx, rx) = std::sync::mpsc::channel();
        let stderr = child.stderr.take().expect("stderr");
        let reader = std::thread::spawn(move || {
            use std::io::BufRead;
            let mut seen = 0;
            for line in std::io::BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
            {
                if line.contains(" ms") {
                    seen += 1;
                    if seen == k {
                        let _ = tx.send(());
                    }
                }
            }
        });
        let reached = k == 0 || rx.recv_timeout(Duration::from_secs(60)).is_ok();
        std::thread::sleep(delay);
        if reached && child.try_wait().expect("poll").is_none() {
            kills_done += 1;
        }
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        let _ = reader.join();
        stop.store(true, Ordering::SeqCst);
        handle.join().expect("writer");
        let report = sync_ok(
            &victim,
            &format!("the sync after kill {round} ({delay:?})"),
            seed,
        );
        stale_locks += report["stale_locks"].as_array().map_or(0, Vec::len);
        interrupted += usize::from(report["recovered"] == true);
    }
    println!(
        "kill test: {kills_done} syncs killed mid-cycle; the next ones moved {stale_locks} stale lock(s) aside and finished {interrupted} interrupted cycle(s)"
    );
    assert!(
        kills_done >= kills / 2,
        "only {kills_done} of {kills} syncs were still running when killed (seed {seed})"
    );
    // Settle: everyone syncs twice.
    for _ in 0..2 {
        sync_ok(&victim, "a settling sync", seed);
        sync_ok(&peer, "a settling peer sync", seed);
    }
    check(&victim, &hub, &ledger.lock().expect("ledger"), &known, seed);
}

fn check(victim: &Sandbox, hub: &Path, ledger: &Ledger, known: &[String], seed: u64) {
    let say = |what: &str| format!("{what} (seed {seed}, replay with LEARNSYNC_KILL_SEED={seed})");
    let fsck = std::process::Command::new("git")
        .args(["fsck", "--strict", "--no-dangling"])
        .current_dir(victim.dir())
        .env("HOME", victim.home())
        .output()
        .expect("fsck");
    assert!(
        fsck.status.success(),
        "{}: {}",
        say("git fsck --strict failed"),
        String::from_utf8_lossy(&fsck.stderr)
    );
    let status = victim.git(&["status", "--porcelain", "--untracked-files=all"]);
    assert!(
        status.trim().is_empty(),
        "{}: {status}",
        say("work tree not clean")
    );
    let inbox: Vec<_> = std::fs::read_dir(victim.dir().join(".git/learnsync/inbox"))
        .expect("inbox")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(inbox.is_empty(), "{}: {inbox:?}", say("inbox not empty"));

    let listed = json(&victim.ok(&["list", "--json"]));
    let listed = listed.as_array().expect("array");
    let ids: BTreeSet<&str> = listed.iter().filter_map(|l| l["id"].as_str()).collect();
    for id in ledger.learnings.iter().chain(known) {
        assert!(
            ids.contains(id.as_str()),
            "{}: {id}",
            say("a learning was lost")
        );
    }
    let commands: BTreeSet<&str> = listed
        .iter()
        .filter_map(|l| l["original_command"].as_str())
        .collect();
    for c in &ledger.captured {
        assert!(
            commands.contains(c.as_str()),
            "{}: {c}",
            say("a capture was lost")
        );
    }
    let mut events = String::new();
    for rel in victim.git(&["ls-files", "events"]).lines() {
        events.push_str(&std::fs::read_to_string(victim.dir().join(rel)).expect("events"));
    }
    for e in &ledger.events {
        assert!(
            events.contains(e.as_str()),
            "{}: {e}",
            say("an event was lost")
        );
    }
    // The hub has everything: our branch as we have it.
    let ours = victim.git(&["rev-parse", "HEAD"]);
    let theirs = common::git::git_in(hub, victim.home(), &["rev-parse", "refs/heads/agents/a"]);
    assert_eq!(ours.trim(), theirs.trim(), "{}", say("the hub lags behind"));
    println!(
        "kill test: {} learnings, {} events, {} captures written during kills; all present",
        ledger.learnings.len(),
        ledger.events.len(),
        ledger.captured.len()
    );
}

#[test]
fn a_sync_killed_at_any_moment_loses_nothing_and_never_wedges_the_next() {
    let kills: u64 = std::env::var("LEARNSYNC_KILLS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(50);
    let seed = std::env::var("LEARNSYNC_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(7, |d| d.as_secs())
        });
    println!("kill test seed {seed} (replay with LEARNSYNC_KILL_SEED={seed})");
    run_with_seed(seed, kills);
}
