//! Fixture generator for the sync benchmark (`benches/sync.sh`); not a timed
//! benchmark itself (`harness = false`, it only writes git objects).
//!
//! Writes, through one `git fast-import` stream into an existing bare repo:
//!
//! - `agents/hub` (and `agents/me`, same commit): the base — `LEARNINGS`
//!   learnings in `a0..a9/<id>.md` and `EVENTS` events in
//!   `events/<agent>/<YYYY-MM>.jsonl`, plus `.learnsync/policy.yaml`;
//! - with `--branches`: `agents/a0..a<B-1>`, each the base plus commits by
//!   that agent adding `ADD_LEARNINGS` learnings and `ADD_EVENTS` events, with
//!   the derived fields of every touched learning recomputed — exactly the
//!   commits a `learnsync sync` of that agent makes. Two workloads:
//!   - `--workload add` (the default; issue 4): one commit; half the events
//!     on its new learnings, half on `ADD_LEARNINGS/2` base learnings that no
//!     other branch touches;
//!   - `--workload own` (issue 32): as `apply`, but each commit holds only
//!     what its agent wrote — its own new learnings and its own events files
//!     — and no recomputed derived fields of other agents' learnings, so
//!     git's merges of the branches never conflict;
//!   - `--workload apply` (issue 13: agents mostly *apply* what they know):
//!     `--commits C` commits sharing the additions; `--existing-share P`
//!     percent of the events (70) about base learnings drawn at random among
//!     those with a correction (an L0 is never suggested, so never applied),
//!     overlapping between branches; the rest about the branch's own new
//!     learnings of that commit or an earlier one.
//!
//! `--source-agents K` spreads the base learnings (and the base events'
//! writers) over `a0..a<K-1>` (10).
//!
//! Every file is written by the library's own writers (`Learning::to_markdown`,
//! `Event::to_line`, `event::union`, `trust::derive`), so the fixture is
//! canonical: merging it needs no rewrite that git would not also do.
//!
//! Usage (run twice: base first, then the branches, so a clone can be taken
//! in between that does not hold the branches' objects):
//!   sync_fixture --hub DIR --policy FILE --learnings N --events N base
//!   sync_fixture --hub DIR --policy FILE --learnings N --events N \
//!                --branches B --add-learnings N --add-events N branches
//!   (either with [--source-agents K] [--workload add|apply|own] [--commits C]
//!   [--existing-share P]; both runs take the same arguments)

use learnsync::event::{self, Event, Outcome};
use learnsync::learning::Learning;
use learnsync::policy::{POLICY_PATH, Policy};
use learnsync::timestamp::Timestamp;
use learnsync::trust;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::process::{Command, Stdio};

/// 2025-01-01T00:00:00Z: the first base learning.
const T0: i64 = 1_735_689_600;
/// 2026-06-30T00:00:00Z: the last base learning.
const T_LAST_LEARNING: i64 = 1_782_777_600;
/// 2026-07-15T00:00:00Z: no base event after this.
const T_LAST_EVENT: i64 = 1_784_073_600;
/// 2026-07-16T00:00:00Z: branch learnings from here; branch events 07-20..07-31.
const T_BRANCH: i64 = 1_784_160_000;
const T_BRANCH_EVENTS: i64 = 1_784_505_600;
const BRANCH_EVENTS_SPAN: i64 = 11 * 86_400;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn uuid(&mut self) -> String {
        let (a, b) = (self.next(), self.next());
        let h = format!("{a:016x}{b:016x}");
        format!(
            "{}-{}-4{}-8{}-{}",
            &h[0..8],
            &h[8..12],
            &h[13..16],
            &h[17..20],
            &h[20..32]
        )
    }
}

struct Args {
    hub: String,
    policy: String,
    learnings: usize,
    events: usize,
    branches: usize,
    add_learnings: usize,
    add_events: usize,
    source_agents: usize,
    workload: Workload,
    commits: usize,
    existing_share: u64,
    mode: String,
}

#[derive(Clone, Copy, PartialEq)]
enum Workload {
    Add,
    Apply,
    Own,
}

fn parse_args() -> Args {
    let mut a = Args {
        hub: String::new(),
        policy: String::new(),
        learnings: 10_000,
        events: 100_000,
        branches: 10,
        add_learnings: 100,
        add_events: 1_000,
        source_agents: 10,
        workload: Workload::Add,
        commits: 1,
        existing_share: 70,
        mode: String::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut val = || it.next().unwrap_or_else(|| panic!("{arg} needs a value"));
        match arg.as_str() {
            "--hub" => a.hub = val(),
            "--policy" => a.policy = val(),
            "--learnings" => a.learnings = val().parse().expect("--learnings N"),
            "--events" => a.events = val().parse().expect("--events N"),
            "--branches" => a.branches = val().parse().expect("--branches N"),
            "--add-learnings" => a.add_learnings = val().parse().expect("--add-learnings N"),
            "--add-events" => a.add_events = val().parse().expect("--add-events N"),
            "--source-agents" => a.source_agents = val().parse().expect("--source-agents N"),
            "--commits" => a.commits = val().parse().expect("--commits N"),
            "--existing-share" => a.existing_share = val().parse().expect("--existing-share P"),
            "--workload" => {
                a.workload = match val().as_str() {
                    "add" => Workload::Add,
                    "apply" => Workload::Apply,
                    "own" => Workload::Own,
                    w => panic!("--workload add|apply|own, not {w:?}"),
                }
            }
            "base" | "branches" => a.mode = arg.clone(),
            "--bench" => {} // passed by `cargo bench`
            other => panic!("unknown argument {other:?}"),
        }
    }
    assert!(!a.hub.is_empty(), "--hub DIR is required");
    assert!(!a.policy.is_empty(), "--policy FILE is required");
    assert!(!a.mode.is_empty(), "say `base` or `branches`");
    assert!(a.source_agents >= 1 && a.commits >= 1 && a.existing_share <= 100);
    a
}

fn agent(i: usize, agents: usize) -> String {
    format!("a{}", i % agents.max(1))
}

fn outcome(rng: &mut Rng) -> Outcome {
    match rng.below(100) {
        0..40 => Outcome::Applied,
        40..75 => Outcome::Effective,
        75..95 => Outcome::Ineffective,
        _ => Outcome::Recurred,
    }
}

fn learning(id_seed: u64, agent_id: String, n: usize, at: i64) -> Learning {
    let millis = at * 1000 + (id_seed % 1000) as i64;
    let mut rng = Rng(id_seed);
    let id = format!("learning-{:016x}{:016x}-{millis}", rng.next(), rng.next());
    let mut l = Learning::new(
        id,
        agent_id,
        format!("Use --force-with-lease instead of --force ({n})"),
        Timestamp::from_unix(at),
    );
    l.source = "bash_hook".into();
    l.keywords = vec!["git".into(), "force-push".into(), format!("k{}", n % 50)];
    l.original_command = Some(format!("git push -f origin feature/{n}"));
    l.error_context = Some(
        "remote: rejected\n ! [remote rejected] main -> main (protected branch hook declined)"
            .into(),
    );
    // One in twenty is a raw failure with no correction (L0).
    if n % 20 != 7 {
        l.correction = Some("git push --force-with-lease".into());
    }
    l.kind = Some("correction".into());
    l.body = format!(
        "`git push -f` is rejected on protected branches ({n}). Use\n`git push --force-with-lease` instead.\n"
    );
    l
}

/// The base learnings (index order) and their events.
fn base(args: &Args) -> (Vec<Learning>, Vec<Event>) {
    let n = args.learnings.max(1);
    let step = (T_LAST_LEARNING - T0) / n as i64;
    let learnings: Vec<Learning> = (0..n)
        .map(|i| {
            let who = agent(i, args.source_agents);
            learning(0x1000_0000 + i as u64, who, i, T0 + step * i as i64)
        })
        .collect();
    let mut rng = Rng(42);
    let events = (0..args.events)
        .map(|k| {
            let li = k % n; // every learning gets events/n of them
            let l = &learnings[li];
            let from = l.captured_at.unix() + 3600;
            let at = from + rng.below((T_LAST_EVENT - from).max(1) as u64) as i64;
            let a = agent(
                rng.below(args.source_agents as u64) as usize,
                args.source_agents,
            );
            Event {
                id: rng.uuid(),
                learning: l.id.clone(),
                agent: a,
                at: Timestamp::from_unix(at),
                outcome: outcome(&mut rng),
                via: None,
            }
        })
        .collect();
    (learnings, events)
}

fn by_learning(events: &[Event]) -> BTreeMap<&str, Vec<&Event>> {
    let mut out: BTreeMap<&str, Vec<&Event>> = BTreeMap::new();
    for e in events {
        out.entry(e.learning.as_str()).or_default().push(e);
    }
    out
}

/// Events files: canonical (`event::union`) text by path.
fn files(events: &[&Event]) -> BTreeMap<String, String> {
    let mut lines: BTreeMap<String, String> = BTreeMap::new();
    for e in events {
        let t = lines.entry(e.file_path()).or_default();
        t.push_str(&e.to_line());
        t.push('\n');
    }
    lines
        .into_iter()
        .map(|(p, t)| {
            let u = event::union(&[&t]);
            (p, u)
        })
        .collect()
}

fn derived(l: &Learning, events: &[&Event], policy: &Policy) -> String {
    let mut l = l.clone();
    let d = trust::derive(&l, events, &[], policy);
    trust::apply(&mut l, d);
    l.to_markdown()
}

fn path_of(l: &Learning) -> String {
    format!("{}/{}.md", l.agent_id, l.id)
}

struct Stream<W: Write> {
    out: W,
}

impl<W: Write> Stream<W> {
    fn file(&mut self, path: &str, bytes: &[u8]) {
        writeln!(self.out, "M 100644 inline {path}").unwrap();
        writeln!(self.out, "data {}", bytes.len()).unwrap();
        self.out.write_all(bytes).unwrap();
        self.out.write_all(b"\n").unwrap();
    }
    fn commit(&mut self, r#ref: &str, mark: u32, at: i64, msg: &str, from: Option<&str>) {
        writeln!(self.out, "commit {ref}\nmark :{mark}").unwrap();
        writeln!(
            self.out,
            "committer learnsync bench <bench@learnsync.invalid> {at} +0000"
        )
        .unwrap();
        writeln!(self.out, "data {}\n{msg}", msg.len()).unwrap();
        if let Some(from) = from {
            writeln!(self.out, "from {from}").unwrap();
        }
    }
}

fn main() {
    let args = parse_args();
    let policy_text = std::fs::read_to_string(&args.policy).expect("read the policy file");
    let policy = Policy::parse(&policy_text).expect("parse the policy");

    let started = std::time::Instant::now();
    let (learnings, events) = base(&args);
    let base_by = by_learning(&events);
    eprintln!(
        "  generated {} learnings, {} events in {:.1}s",
        learnings.len(),
        events.len(),
        started.elapsed().as_secs_f64()
    );

    let mut child = Command::new("git")
        .args(["-C", &args.hub, "fast-import", "--quiet", "--done"])
        .stdin(Stdio::piped())
        .spawn()
        .expect("run git fast-import");
    let stdin = child.stdin.take().expect("stdin");
    let mut s = Stream {
        out: std::io::BufWriter::with_capacity(1 << 20, stdin),
    };

    if args.mode == "base" {
        s.commit(
            "refs/heads/agents/hub",
            1,
            T_LAST_EVENT,
            "bench: base",
            None,
        );
        s.file(POLICY_PATH, policy_text.as_bytes());
        for l in &learnings {
            let mine = base_by.get(l.id.as_str()).cloned().unwrap_or_default();
            s.file(&path_of(l), derived(l, &mine, &policy).as_bytes());
        }
        let all: Vec<&Event> = events.iter().collect();
        for (p, t) in files(&all) {
            s.file(&p, t.as_bytes());
        }
        writeln!(s.out, "reset refs/heads/agents/me\nfrom :1\n").unwrap();
    } else if args.workload == Workload::Add {
        branches_add(&args, &mut s, &learnings, &events, &base_by, &policy);
    } else {
        // `apply` and `own`.
        branches_apply(&args, &mut s, &learnings, &events, &base_by, &policy);
    }
    writeln!(s.out, "done").unwrap();
    s.out.flush().unwrap();
    drop(s);
    let status = child.wait().expect("wait for git fast-import");
    assert!(status.success(), "git fast-import failed");
    eprintln!(
        "  wrote {} in {:.1}s",
        args.mode,
        started.elapsed().as_secs_f64()
    );
}

/// The branch's new learnings (`add_learnings` of them, in `a<b>/`).
fn new_learnings(args: &Args, b: usize) -> Vec<Learning> {
    let me = format!("a{b}");
    (0..args.add_learnings)
        .map(|j| {
            let n = 1_000_000 * (b + 1) + j;
            learning(
                0x2000_0000 + n as u64,
                me.clone(),
                n,
                T_BRANCH + (b * 3600 + j * 10) as i64,
            )
        })
        .collect()
}

/// Issue 4's branches: one commit each; half the events on the branch's new
/// learnings, half on base learnings no other branch touches.
fn branches_add<W: Write>(
    args: &Args,
    s: &mut Stream<W>,
    learnings: &[Learning],
    events: &[Event],
    base_by: &BTreeMap<&str, Vec<&Event>>,
    policy: &Policy,
) {
    // The base commit is the current agents/hub.
    let base_ref = "refs/heads/agents/hub";
    let all_base: Vec<&Event> = events.iter().collect();
    let base_files = files(&all_base);
    for b in 0..args.branches {
        let me = format!("a{b}");
        let mut rng = Rng(0xB000 + b as u64);
        let new = new_learnings(args, b);
        // Base learnings this branch touches: disjoint from other branches'.
        let touched_n = (args.add_learnings / 2).max(1);
        let touched: Vec<&Learning> = (0..touched_n)
            .map(|m| &learnings[(b * touched_n + m) % learnings.len()])
            .collect();
        let added: Vec<Event> = (0..args.add_events)
            .map(|k| {
                let target = if k % 2 == 0 && !new.is_empty() {
                    &new[(k / 2) % new.len()]
                } else {
                    touched[(k / 2) % touched.len()]
                };
                Event {
                    id: rng.uuid(),
                    learning: target.id.clone(),
                    agent: me.clone(),
                    at: Timestamp::from_unix(
                        T_BRANCH_EVENTS + rng.below(BRANCH_EVENTS_SPAN as u64) as i64,
                    ),
                    outcome: outcome(&mut rng),
                    via: None,
                }
            })
            .collect();
        let added_by = by_learning(&added);
        s.commit(
            &format!("refs/heads/agents/{me}"),
            10 + b as u32,
            T_BRANCH_EVENTS + BRANCH_EVENTS_SPAN,
            &format!("learnsync: bench commit from {me}"),
            Some(base_ref),
        );
        for l in new.iter().chain(touched.iter().copied()) {
            let mut mine: Vec<&Event> = base_by.get(l.id.as_str()).cloned().unwrap_or_default();
            mine.extend(added_by.get(l.id.as_str()).cloned().unwrap_or_default());
            s.file(&path_of(l), derived(l, &mine, policy).as_bytes());
        }
        for (p, t) in files(&added.iter().collect::<Vec<_>>()) {
            let merged = match base_files.get(&p) {
                Some(old) => event::union(&[old, &t]),
                None => t,
            };
            s.file(&p, merged.as_bytes());
        }
    }
}

/// Issue 13's branches: agents that mostly apply what the team already
/// knows. Each branch is `commits` commits of its agent's sync; each commit
/// adds its share of the new learnings and events, `existing_share` percent
/// of the events about base learnings with a correction (any branch may
/// pick the same one), the rest about the branch's new learnings so far.
fn branches_apply<W: Write>(
    args: &Args,
    s: &mut Stream<W>,
    learnings: &[Learning],
    events: &[Event],
    base_by: &BTreeMap<&str, Vec<&Event>>,
    policy: &Policy,
) {
    let base_ref = "refs/heads/agents/hub";
    let all_base: Vec<&Event> = events.iter().collect();
    let base_files = files(&all_base);
    let suggested: Vec<&Learning> = learnings.iter().filter(|l| l.has_correction()).collect();
    let commits = args.commits;
    let span = BRANCH_EVENTS_SPAN / commits as i64;
    for b in 0..args.branches {
        let me = format!("a{b}");
        let mut rng = Rng(0xC000 + b as u64);
        let new = new_learnings(args, b);
        // Everything this branch has added so far, by learning.
        let mut added: Vec<Event> = Vec::new();
        for c in 0..commits {
            let upto = args.add_learnings * (c + 1) / commits;
            let from_new = args.add_learnings * c / commits;
            let n_events = args.add_events * (c + 1) / commits - args.add_events * c / commits;
            let t0 = T_BRANCH_EVENTS + span * c as i64;
            let mut touched: BTreeSet<usize> = BTreeSet::new(); // base index
            let mut touched_new: BTreeSet<usize> = (from_new..upto).collect();
            let mut this: Vec<Event> = Vec::new();
            for _ in 0..n_events {
                let existing = upto == 0 || rng.below(100) < args.existing_share;
                let target = if existing && !suggested.is_empty() {
                    let k = rng.below(suggested.len() as u64) as usize;
                    touched.insert(k);
                    suggested[k]
                } else {
                    let k = rng.below(upto.max(1) as u64) as usize;
                    touched_new.insert(k);
                    &new[k]
                };
                this.push(Event {
                    id: rng.uuid(),
                    learning: target.id.clone(),
                    agent: me.clone(),
                    at: Timestamp::from_unix(t0 + rng.below(span.max(1) as u64) as i64),
                    outcome: outcome(&mut rng),
                    via: None,
                });
            }
            added.extend(this);
            let added_by = by_learning(&added);
            s.commit(
                &format!("refs/heads/agents/{me}"),
                (1000 + b * commits + c) as u32,
                t0 + span,
                &format!("learnsync: bench commit {} of {commits} from {me}", c + 1),
                (c == 0).then_some(base_ref),
            );
            // An `own` branch rewrites no file of another agent: only its
            // new learnings of this commit (their derived fields as its
            // agent saw them) and its events.
            let others: Vec<&Learning> = if args.workload == Workload::Own {
                Vec::new()
            } else {
                touched.iter().map(|&k| suggested[k]).collect()
            };
            let own_new: Vec<usize> = if args.workload == Workload::Own {
                (from_new..upto).collect()
            } else {
                touched_new.iter().copied().collect()
            };
            let targets = own_new.iter().map(|&k| &new[k]).chain(others);
            for l in targets {
                let mut mine: Vec<&Event> = base_by.get(l.id.as_str()).cloned().unwrap_or_default();
                mine.extend(added_by.get(l.id.as_str()).cloned().unwrap_or_default());
                s.file(&path_of(l), derived(l, &mine, policy).as_bytes());
            }
            for (p, t) in files(&added.iter().collect::<Vec<_>>()) {
                let merged = match base_files.get(&p) {
                    Some(old) => event::union(&[old, &t]),
                    None => t,
                };
                s.file(&p, merged.as_bytes());
            }
        }
    }
}
