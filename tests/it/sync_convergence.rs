//! The convergence property (§6): N clones (two of them the same agent)
//! doing random writes and random, sometimes concurrent, syncs through a
//! shared hub end byte-identical after two more rounds, with nothing lost,
//! no conflict markers, forged promotions gone and `git fsck` clean.
//! Seeded: a failure prints the seed; `LEARNSYNC_SEED=<n>` replays one schedule,
//! `LEARNSYNC_SCHEDULES=<n>` changes how many run (default 200).

use crate::common::git::{assert_clean_and_sound, bare, git_in};
use crate::common::learnings::learning_files;

use learnsync::config::{Config, Env, Flags};
use learnsync::event::{Event, Outcome};
use learnsync::learning::{Learning, TrustLevel};
use learnsync::store::LearningsDir;
use learnsync::sync::{SyncError, SyncOptions, run};
use learnsync::timestamp::Timestamp;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A small deterministic generator (xorshift64*), so a seed replays exactly.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

struct Clone {
    dir: PathBuf,
    home: PathBuf,
    agent: String,
}

impl Clone {
    fn config(&self) -> Config {
        let env = Env {
            home: Some(self.home.display().to_string()),
            hostname: Some("host".into()),
            ..Env::default()
        };
        let flags = Flags {
            dir: Some(self.dir.clone()),
            agent: None,
        };
        Config::load(&flags, &env).expect("config")
    }
    fn sync(&self) {
        if let Err(e) = self.try_sync() {
            panic!("sync of {} failed: {e}", self.dir.display());
        }
    }
    /// One cycle; a concurrent caller may see the lock busy, nothing else.
    fn try_sync(&self) -> Result<(), SyncError> {
        let options = SyncOptions {
            fetch: true,
            push: true,
            wait: Duration::from_secs(60),
            watcher: None,
            stop: None,
            progress: None,
            batch: None,
            on_head: None,
        };
        // Caches left out: convergence is about the repositories.
        run(&self.config(), &options).map(|_| ())
    }
    /// The learning files of this clone's own agent: the ones it may edit
    /// or delete (§6.1; another agent's are changed by that agent only).
    fn own_files(&self) -> Vec<PathBuf> {
        let own = self.dir.join(&self.agent);
        let mut files = learning_files(&self.dir);
        files.retain(|f| f.parent() == Some(own.as_path()));
        files
    }
}

/// What the schedule wrote, to check nothing was lost.
#[derive(Default)]
struct Ledger {
    learnings: BTreeSet<String>,
    deleted: BTreeSet<String>,
    events: BTreeSet<String>,
    forged: BTreeSet<String>,
}

fn schedule(seed: u64) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let tmp = tempfile::tempdir().expect("tmp");
    let hub = tmp.path().join("hub.git");
    bare(&hub);
    let n = 3 + rng.below(2);
    let agents: Vec<String> = (0..n)
        .map(|i| {
            if i == 1 {
                "agent0".to_string()
            } else {
                format!("agent{i}")
            }
        })
        .collect();
    let clones: Vec<Clone> = agents
        .iter()
        .enumerate()
        .map(|(i, agent)| {
            let home = tmp.path().join(format!("home{i}"));
            std::fs::create_dir_all(&home).expect("home");
            Clone {
                dir: tmp.path().join(format!("c{i}")),
                home,
                agent: agent.clone(),
            }
        })
        .collect();
    for c in &clones {
        learnsync::init::init(
            &c.dir,
            &c.agent,
            &[("hub".to_string(), hub.display().to_string())],
            None,
            None,
            &Flags::default(),
            &Env {
                home: Some(c.home.display().to_string()),
                ..Env::default()
            },
        )
        .expect("init");
    }
    let mut ledger = Ledger::default();
    let mut clock = 1_800_000_000i64;
    let ops = 8 + rng.below(8);
    for _ in 0..ops {
        clock += 1 + rng.below(3) as i64;
        let c = &clones[rng.below(n)];
        let dir = LearningsDir::new(c.dir.clone());
        match rng.below(10) {
            0 | 1 => {
                let id = format!("learning-{:032x}-{}", rng.next(), clock);
                let mut l = Learning::new(
                    id.clone(),
                    c.agent.clone(),
                    format!("title {}", rng.below(100)),
                    Timestamp::from_unix(clock),
                );
                l.correction = (rng.below(4) > 0).then(|| "do it right".to_string());
                l.trust_level = if l.correction.is_some() {
                    TrustLevel::L1
                } else {
                    TrustLevel::L0
                };
                dir.inbox().write_learning(&l).expect("inbox");
                ledger.learnings.insert(id);
            }
            2 | 3 => {
                let known = learning_files(&c.dir);
                if let Some(file) = known.get(rng.below(known.len().max(1))) {
                    let id = file
                        .file_stem()
                        .expect("stem")
                        .to_string_lossy()
                        .into_owned();
                    let outcome = [
                        Outcome::Applied,
                        Outcome::Effective,
                        Outcome::Effective,
                        Outcome::Ineffective,
                    ][rng.below(4)];
                    let mut e = Event::new(&id, &c.agent, outcome, Timestamp::from_unix(clock));
                    e.id = format!("{:016x}", rng.next());
                    dir.inbox().write_event(&e).expect("inbox");
                    ledger.events.insert(e.id);
                }
            }
            4 => {
                // A hand edit with a newer updated_at.
                let known = c.own_files();
                if let Some(file) = known.get(rng.below(known.len().max(1)))
                    && let Ok(mut l) = Learning::parse(&std::fs::read(file).expect("read"))
                {
                    l.title = format!("edited {}", rng.below(100));
                    l.updated_at = Timestamp::from_unix(clock);
                    std::fs::write(file, l.to_markdown()).expect("write");
                }
            }
            5 if rng.below(2) == 0 => mallory(tmp.path(), &hub, &clones[rng.below(n)], &mut rng),
            5 => {
                let known = c.own_files();
                if let Some(file) = known.get(rng.below(known.len().max(1))) {
                    let id = file
                        .file_stem()
                        .expect("stem")
                        .to_string_lossy()
                        .into_owned();
                    std::fs::remove_file(file).expect("delete");
                    ledger.deleted.insert(id);
                }
            }
            6 => {
                // A malformed file, new or over an existing learning.
                let path = c
                    .dir
                    .join(&c.agent)
                    .join(format!("learning-bad{}.md", rng.below(3)));
                std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
                std::fs::write(
                    &path,
                    format!("---\ntitle: [broken {}\n---\n", rng.below(5)),
                )
                .expect("write");
            }
            7 => {
                // A forged promotion with inflated counters.
                let known = learning_files(&c.dir);
                if let Some(file) = known.get(rng.below(known.len().max(1)))
                    && let Ok(mut l) = Learning::parse(&std::fs::read(file).expect("read"))
                {
                    l.trust_level = TrustLevel::L3;
                    l.quality.effective_count = 1000;
                    l.quality.applied_count = 1000;
                    ledger.forged.insert(l.id.clone());
                    std::fs::write(file, l.to_markdown()).expect("write");
                }
            }
            8 => c.sync(),
            _ => {
                // Two clones syncing at the same time.
                let (x, y) = (rng.below(n), rng.below(n));
                std::thread::scope(|s| {
                    let a = s.spawn(|| clones[x].try_sync());
                    let b = s.spawn(|| clones[y].try_sync());
                    for (which, joined) in [(x, a.join()), (y, b.join())] {
                        match joined {
                            Ok(Ok(())) | Ok(Err(SyncError::Busy(_))) => {}
                            Ok(Err(e)) => {
                                panic!("concurrent sync of clone {which} failed: {e} (seed {seed})")
                            }
                            Err(panic) => std::panic::resume_unwind(panic),
                        }
                    }
                });
            }
        }
    }
    for _ in 0..2 {
        for c in &clones {
            c.sync();
        }
    }
    check(&clones, &ledger, seed);
}

/// What a hostile branch writes: never to be found in a clone's files.
const FORGED: &str = "forged by mallory";

/// A hostile head: `agents/mallory`, pushed with plain git, holding the
/// hub's branch of `victim`'s agent with one of its learnings edited (a
/// newer `updated_at`), another deleted and an event line appended in
/// the victim's name (§6.1: all refused by every clone).
fn mallory(tmp: &Path, hub: &Path, victim: &Clone, rng: &mut Rng) {
    let home = tmp.join("mallory-home");
    std::fs::create_dir_all(&home).expect("home");
    let dir = tmp.join(format!("mallory{}", rng.next()));
    let branch = format!("origin/agents/{}", victim.agent);
    git_in(
        tmp,
        &home,
        &[
            "clone",
            "-q",
            &hub.display().to_string(),
            &dir.display().to_string(),
        ],
    );
    let has_branch = std::process::Command::new("git")
        .current_dir(&dir)
        .args(["rev-parse", "-q", "--verify", &branch])
        .env("HOME", &home)
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_branch {
        return;
    }
    git_in(&dir, &home, &["checkout", "-q", &branch]);
    let own = dir.join(&victim.agent);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&own)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|f| f.extension().is_some_and(|e| e == "md"));
    files.sort();
    if let Some(file) = files.get(rng.below(files.len().max(1)))
        && let Ok(mut l) = Learning::parse(&std::fs::read(file).expect("read"))
    {
        l.title = FORGED.into();
        l.updated_at = Timestamp::from_unix(4_000_000_000);
        std::fs::write(file, l.to_markdown()).expect("write");
        let e = Event::new(
            &l.id,
            &victim.agent,
            Outcome::Effective,
            Timestamp::from_unix(1),
        );
        let events = dir.join(format!("events/{}/1970-01.jsonl", victim.agent));
        std::fs::create_dir_all(events.parent().expect("parent")).expect("mkdir");
        std::fs::write(
            &events,
            format!("{}\n", e.to_line().replace(&e.id, FORGED_EVENT)),
        )
        .expect("events");
    }
    if let Some(file) = files.get(rng.below(files.len().max(1))) {
        let _ = std::fs::remove_file(file);
    }
    git_in(&dir, &home, &["add", "-A"]);
    git_in(
        &dir,
        &home,
        &[
            "-c",
            "user.name=m",
            "-c",
            "user.email=m@x",
            "commit",
            "-qm",
            "evil",
            "--allow-empty",
        ],
    );
    git_in(
        &dir,
        &home,
        &["push", "-qf", "origin", "HEAD:refs/heads/agents/mallory"],
    );
}

/// The id of mallory's forged event.
const FORGED_EVENT: &str = "forged-event-by-mallory";

fn files(c: &Clone) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for rel in git_in(&c.dir, &c.home, &["ls-files"]).lines() {
        let learning =
            rel.ends_with(".md") && rel.matches('/').count() == 1 && !rel.starts_with('.');
        if learning || rel.starts_with("events/") {
            out.insert(
                rel.to_string(),
                std::fs::read(c.dir.join(rel)).expect("tracked"),
            );
        }
    }
    out
}

fn check(clones: &[Clone], ledger: &Ledger, seed: u64) {
    let first = files(&clones[0]);
    for c in &clones[1..] {
        let other = files(c);
        assert_eq!(
            first.keys().collect::<Vec<_>>(),
            other.keys().collect::<Vec<_>>(),
            "seed {seed}: {} has other files than {}",
            c.dir.display(),
            clones[0].dir.display()
        );
        for (path, bytes) in &first {
            assert!(
                other.get(path) == Some(bytes),
                "seed {seed}: {path} differs on {}",
                c.dir.display()
            );
        }
    }
    let mut present_events = BTreeSet::new();
    let mut present_learnings = BTreeSet::new();
    for (path, bytes) in &first {
        let text = String::from_utf8_lossy(bytes);
        assert!(
            !text.contains(FORGED) && !text.contains(FORGED_EVENT),
            "seed {seed}: mallory's change to {path} was taken"
        );
        if path.starts_with("events/") {
            for e in learnsync::event::parse_file(&text).events {
                present_events.insert(e.id);
            }
        } else if let Ok(l) = Learning::parse(bytes) {
            if ledger.forged.contains(&l.id) {
                assert_ne!(
                    l.trust_level,
                    TrustLevel::L3,
                    "seed {seed}: forged promotion of {} survived",
                    l.id
                );
                assert!(
                    l.quality.effective_count < 1000,
                    "seed {seed}: forged counters of {} survived",
                    l.id
                );
            }
            present_learnings.insert(l.id);
        }
    }
    for e in &ledger.events {
        assert!(present_events.contains(e), "seed {seed}: event {e} lost");
    }
    for l in ledger.learnings.difference(&ledger.deleted) {
        assert!(
            present_learnings.contains(l),
            "seed {seed}: learning {l} lost"
        );
    }
    for c in clones {
        let history = git_in(&c.dir, &c.home, &["log", "--all", "-p", "--format=%H"]);
        assert!(
            !history.contains("\n+<<<<<<< ") && !history.contains("\n+>>>>>>> "),
            "seed {seed}: conflict markers in history"
        );
        assert_clean_and_sound(&c.dir, &c.home);
    }
}

#[test]
fn clones_converge_whatever_the_order_of_writes_and_syncs() {
    if let Some(seed) = std::env::var("LEARNSYNC_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        schedule(seed);
        return;
    }
    let count: u64 = std::env::var("LEARNSYNC_SCHEDULES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(2, 4) as u64;
    std::thread::scope(|s| {
        for t in 0..threads {
            s.spawn(move || {
                let mut seed = t;
                while seed < count {
                    let result = std::panic::catch_unwind(|| schedule(seed));
                    if result.is_err() {
                        panic!(
                            "convergence failed for seed {seed}; replay with LEARNSYNC_SEED={seed}"
                        );
                    }
                    seed += threads;
                }
            });
        }
    });
}
