//! Precision and recall of outcome attribution (DESIGN §4.1, issue 30) on
//! generated agent sessions (`harness = false`; quality, not speed):
//!
//!   cargo build --release && cargo bench --bench outcome_eval -- \
//!       [--seed N] [--sessions S] [--learnings N] [--examples K]
//!
//! Written from the contract, not from the code: N learnings are added by
//! hand and synced, then S sessions of Claude Code and Codex hook payloads
//! (interleaved three at a time) are fed to the real `learnsync capture`,
//! one agent name per session so the events name their session. Each
//! generated command carries the learning whose correction it runs by the
//! contract (exact, chained, env-prefixed, quoted or spaced differently,
//! extra arguments on a correction of three words or more), or none (near
//! misses). What a session was shown is read from the hooks' own output,
//! and the expected decisive outcome of every (session, learning) follows
//! §4.1: the first run of the correction within 10 tool results of a
//! showing decides, success `effective`, failure `ineffective`; nothing in
//! a session never shown the learning, after the window, or in the session
//! that captured it. After one sync the events files are compared with
//! that truth; errors are broken down by the generated case type, and K
//! example traces of each failing case type are printed.
//!
//! The 30-minute half of the window is not exercised (the hooks read the
//! clock; a run takes minutes).

use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// A learning of the catalogue: (mistake, error, correction).
const CATALOGUE: &[(&str, &str, &str)] = &[
    (
        "git push -f origin main",
        "! [remote rejected] main -> main (protected branch hook declined)",
        "git push --force-with-lease origin main",
    ),
    (
        "git push origin feature/login",
        "fatal: The current branch feature/login has no upstream branch.",
        "git push -u origin feature/login",
    ),
    (
        "git pull",
        "fatal: Need to specify how to reconcile divergent branches.",
        "git pull --rebase",
    ),
    (
        "git checkout -b release",
        "fatal: a branch named 'release' already exists",
        "git switch release",
    ),
    (
        "git commit -m",
        "error: switch `m' requires a value",
        "git commit -m \"fix: retry on timeout\"",
    ),
    (
        "npm install",
        "npm ERR! ERESOLVE unable to resolve dependency tree",
        "npm install --legacy-peer-deps",
    ),
    ("npm run build", "sh: 1: tsc: not found", "npm ci"),
    (
        "npm test",
        "Error: Cannot find module 'jest'",
        "npm install --save-dev jest",
    ),
    (
        "npm publish",
        "npm ERR! code E402 You must sign up for private packages",
        "npm publish --access public",
    ),
    (
        "cargo build --release",
        "error: linker `cc` not found",
        "sudo apt-get install build-essential",
    ),
    (
        "cargo test --all-features",
        "error[E0463]: can't find crate for `proptest`",
        "cargo add --dev proptest",
    ),
    (
        "cargo run",
        "error: `cargo run` could not determine which binary to run",
        "cargo run --bin learnsync",
    ),
    (
        "cargo fmt --check",
        "Diff in src/main.rs at line 12",
        "cargo fmt",
    ),
    (
        "docker build .",
        "ERROR: failed to solve: failed to read dockerfile: open Dockerfile: no such file",
        "docker build -f docker/Dockerfile .",
    ),
    (
        "docker compose up",
        "Error response from daemon: Bind for 0.0.0.0:5432 failed: port is already allocated",
        "docker compose down --remove-orphans",
    ),
    (
        "docker run -it --name app app",
        "docker: Error response from daemon: Conflict. The container name \"/app\" is already in use",
        "docker rm -f app",
    ),
    (
        "docker push app:latest",
        "denied: requested access to the resource is denied",
        "docker login registry.example.com",
    ),
    (
        "kubectl apply -f deploy.yaml",
        "error: error validating \"deploy.yaml\": unknown field \"replica\"",
        "kubectl apply --validate=false -f deploy.yaml",
    ),
    (
        "kubectl logs api",
        "error: a container name must be specified for pod api, choose one of: [server sidecar]",
        "kubectl logs api -c server",
    ),
    (
        "kubectl rollout restart deploy/api",
        "Error from server (NotFound): deployments.apps \"api\" not found",
        "kubectl rollout restart deploy/api -n prod",
    ),
    (
        "kubectl get pods",
        "The connection to the server localhost:8080 was refused",
        "kubectl config use-context staging",
    ),
    (
        "pip install requests",
        "error: externally-managed-environment",
        "python3 -m pip install --user requests",
    ),
    (
        "pip install -r requirements.txt",
        "ERROR: Could not build wheels for psycopg2, which is required",
        "pip install psycopg2-binary",
    ),
    (
        "pip install numpy==1.19",
        "ERROR: No matching distribution found for numpy==1.19",
        "pip install numpy==1.26.4",
    ),
    (
        "terraform apply",
        "Error: Backend initialization required, please run \"terraform init\"",
        "terraform init -upgrade",
    ),
    (
        "terraform plan",
        "Error: Error acquiring the state lock: ConditionalCheckFailedException",
        "terraform force-unlock -force 1f2e3d",
    ),
    (
        "terraform destroy",
        "Error: Instance cannot be destroyed: lifecycle.prevent_destroy is set",
        "terraform destroy -target=aws_instance.tmp",
    ),
    (
        "make",
        "make: *** No rule to make target 'all'.  Stop.",
        "make build",
    ),
    (
        "make test",
        "Makefile:12: *** missing separator.  Stop.",
        "make -j1 test",
    ),
    (
        "make install",
        "install: cannot create regular file '/usr/local/bin/tool': Permission denied",
        "make install PREFIX=/home/dev/.local",
    ),
    (
        "psql -d app",
        "psql: error: connection to server on socket \"/var/run/postgresql/.s.PGSQL.5432\" failed",
        "psql -h localhost -d app",
    ),
    (
        "psql -c 'select 1'",
        "psql: error: FATAL:  role \"root\" does not exist",
        "psql -U postgres -c 'select 1'",
    ),
    (
        "go build ./...",
        "go: cannot find main module, but found .git/config",
        "go mod init example.com/app",
    ),
    (
        "go test ./...",
        "missing go.sum entry for module providing package github.com/stretchr/testify",
        "go mod tidy",
    ),
    (
        "go run main.go",
        "main.go:5:2: package app/internal/db is not in std",
        "go run .",
    ),
    (
        "go get github.com/acme/tool",
        "go: go.mod file not found in current directory or any parent directory",
        "go install github.com/acme/tool@latest",
    ),
    (
        "pytest",
        "ModuleNotFoundError: No module named 'app'",
        "python -m pytest",
    ),
    (
        "yarn install",
        "error An unexpected error occurred: tunneling socket could not be established",
        "yarn install --network-timeout 600000",
    ),
    (
        "ssh deploy@web1",
        "deploy@web1: Permission denied (publickey).",
        "ssh -i /home/dev/.ssh/deploy deploy@web1",
    ),
    (
        "helm upgrade api ./chart",
        "Error: UPGRADE FAILED: another operation (install/upgrade/rollback) is in progress",
        "helm rollback api 3",
    ),
];

/// Commands that are nobody's mistake or correction.
const FILLER: &[&str] = &[
    "ls -la",
    "cat README.md",
    "git status",
    "git diff --stat",
    "cargo check",
    "rg -n TODO src",
    "sed -n 1,40p src/main.rs",
    "pwd",
    "git log --oneline -5",
    "find . -name '*.rs' | head",
    "echo $PATH",
    "wc -l src/lib.rs",
];

/// Another subcommand of a correction's program: same program, not the correction.
fn other_subcommand(program: &str, rng: &mut Rng) -> String {
    let options: &[&str] = match program {
        "git" => &["git fetch origin", "git branch -a", "git stash list"],
        "npm" => &["npm run lint", "npm outdated", "npm ls --depth=0"],
        "cargo" => &["cargo clippy", "cargo tree -d", "cargo doc --no-deps"],
        "docker" => &["docker ps -a", "docker images", "docker logs app"],
        "kubectl" => &["kubectl get svc", "kubectl describe pod api"],
        "pip" => &["pip list", "pip show requests"],
        "terraform" => &["terraform validate", "terraform output"],
        "make" => &["make clean", "make lint"],
        "psql" => &["psql --version", "psql -l"],
        "go" => &["go vet ./...", "go env GOPATH"],
        "helm" => &["helm list -A", "helm history api"],
        _ => &["--version", "--help"],
    };
    let pick = options[rng.below(options.len())];
    if pick.starts_with("--") {
        format!("{program} {pick}")
    } else {
        pick.to_string()
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// One learning under test.
#[derive(Clone)]
struct Learning {
    id: String,
    mistake: String,
    error: String,
    correction: String,
}

impl Learning {
    fn words(&self) -> Vec<&str> {
        tokens(&self.correction)
    }
}

/// Shell words, each with its quotes: `-m "a b"` is two.
fn tokens(command: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    let mut quote = None;
    for (i, c) in command.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => {
                quote = Some(c);
                start.get_or_insert(i);
            }
            (None, c) if c.is_whitespace() => {
                if let Some(s) = start.take() {
                    out.push(&command[s..i]);
                }
            }
            (None, _) => {
                start.get_or_insert(i);
            }
        }
    }
    if let Some(s) = start {
        out.push(&command[s..]);
    }
    out
}

/// What an agent does in one hook payload.
#[derive(Clone)]
enum Step {
    /// A Bash call: PreToolUse, then (unless `result` is None) its result.
    Call {
        command: String,
        result: Option<bool>,
        /// The learning whose correction this runs, by the contract.
        runs: Option<usize>,
    },
    SessionStart,
    Prompt(String),
}

#[derive(Clone, Copy, PartialEq)]
enum Agent {
    Claude,
    Codex,
}

struct Session {
    agent_name: String,
    agent: Agent,
    steps: Vec<Step>,
    /// The case type each learning of interest was generated as.
    cases: BTreeMap<usize, String>,
    /// The learning this session captured itself, if any.
    captured: Option<usize>,
}

/// What happened when a session ran: per step, the learnings shown.
#[derive(Default)]
struct Trace {
    shown: Vec<BTreeSet<usize>>,
    outputs: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Outcome {
    Effective,
    Ineffective,
    Nothing,
}

impl Outcome {
    fn name(self) -> &'static str {
        match self {
            Outcome::Effective => "effective",
            Outcome::Ineffective => "ineffective",
            Outcome::Nothing => "none",
        }
    }
}

const WINDOW_CALLS: usize = 10;

/// §4.1 over one session's trace: the first run of the learning's
/// correction within `WINDOW_CALLS` tool results after a showing decides.
fn expected(session: &Session, trace: &Trace, learning: usize) -> Outcome {
    if session.captured == Some(learning) {
        return Outcome::Nothing;
    }
    let mut results = 0;
    let mut last_shown: Option<usize> = None;
    for (step, shown) in session.steps.iter().zip(&trace.shown) {
        if shown.contains(&learning) {
            last_shown = Some(results);
        }
        if let Step::Call {
            result: Some(ok),
            runs,
            ..
        } = step
        {
            results += 1;
            let in_window = last_shown.is_some_and(|at| results - at <= WINDOW_CALLS);
            if *runs == Some(learning) && in_window {
                return if *ok {
                    Outcome::Effective
                } else {
                    Outcome::Ineffective
                };
            }
        }
    }
    Outcome::Nothing
}

/// The correction as an agent might type it, each shape one the contract
/// says is the same command. Returns (shape name, command).
fn correction_shape(l: &Learning, rng: &mut Rng, allow_not_last: bool) -> (&'static str, String) {
    let c = &l.correction;
    let words = l.words();
    let mut shapes = vec!["exact", "cd-chain", "and-chain", "env", "spaces", "quoted"];
    if allow_not_last {
        shapes.push("chain-first");
    }
    if words.len() >= 3 {
        shapes.push("extra-args");
    }
    let shape = *rng.pick(&shapes);
    let command = match shape {
        "exact" => c.clone(),
        "cd-chain" => format!(
            "cd {} && {c}",
            rng.pick(&["shop", "../api", "/home/dev/app"])
        ),
        "and-chain" => format!("{} && {c}", rng.pick(&["git status", "ls", "make fmt"])),
        "chain-first" => format!("{c} && {}", rng.pick(&["echo ok", "git log -1", "ls"])),
        "env" => format!(
            "{} {c}",
            rng.pick(&["FOO=1", "CI=true", "RUST_LOG=debug NO_COLOR=1"])
        ),
        "spaces" => format!("  {}  ", words.join("   ")),
        "quoted" => requote(&words, rng),
        "extra-args" => format!("{c} {}", rng.pick(&["--verbose", "-q", "--color=never"])),
        _ => unreachable!("every shape is listed above"),
    };
    (shape, command)
}

/// Quotes one plain word, or swaps the quotes of a quoted argument.
fn requote(words: &[&str], rng: &mut Rng) -> String {
    let text = words.join(" ");
    if text.contains('"') {
        return text.replace('"', "'");
    }
    if text.contains('\'') {
        return text.replace('\'', "\"");
    }
    let at = 1 + rng.below(words.len() - 1);
    let quote = if rng.chance(50) { '\'' } else { '"' };
    let mut out: Vec<String> = words.iter().map(|w| w.to_string()).collect();
    out[at] = format!("{quote}{}{quote}", out[at]);
    out.join(" ")
}

/// The correction with its last argument replaced: a different command.
fn other_argument(l: &Learning, rng: &mut Rng) -> String {
    let mut words: Vec<String> = l.words().iter().map(|w| w.to_string()).collect();
    let last = words.len() - 1;
    let replacement = ["staging", "v2", "tmp", "other-pkg"]
        .into_iter()
        .filter(|r| *r != words[last])
        .nth(rng.below(3))
        .unwrap_or("other-pkg");
    words[last] = replacement.to_string();
    words.join(" ")
}

fn filler(rng: &mut Rng, learnings: &[Learning], except: &[usize], n: usize) -> Vec<Step> {
    (0..n)
        .map(|_| {
            // One filler call in five is another learning's correction.
            if rng.chance(20) {
                let other = rng.below(learnings.len());
                if !except.contains(&other) {
                    return Step::Call {
                        command: learnings[other].correction.clone(),
                        result: Some(true),
                        runs: Some(other),
                    };
                }
            }
            Step::Call {
                command: rng.pick(FILLER).to_string(),
                result: Some(!rng.chance(10)),
                runs: None,
            }
        })
        .collect()
}

/// How a session is shown learning `l`; the steps and the case prefix.
fn showing(l: &Learning, how: &str, with_result: bool) -> Vec<Step> {
    match how {
        "pre" => vec![Step::Call {
            command: l.mistake.clone(),
            result: with_result.then_some(false),
            runs: None,
        }],
        "start" => vec![Step::SessionStart],
        _ => vec![Step::Prompt(format!(
            "the build fails with: {}. what now?",
            l.error
        ))],
    }
}

struct Gen<'a> {
    rng: Rng,
    learnings: &'a [Learning],
    /// Learnings the SessionStart block holds and the prompt probe suggests.
    in_block: Vec<usize>,
    suggested: Vec<usize>,
}

impl Gen<'_> {
    fn pick_learning(&mut self, how: &str) -> usize {
        let pool = match how {
            "start" if !self.in_block.is_empty() => &self.in_block,
            "prompt" if !self.suggested.is_empty() => &self.suggested,
            _ => return self.rng.below(self.learnings.len()),
        };
        pool[self.rng.below(pool.len())]
    }

    fn session(&mut self, n: usize) -> Session {
        const CASES: &[(&str, usize)] = &[
            ("effective", 26),
            ("ineffective", 14),
            ("not-run", 6),
            ("mistake-again", 5),
            ("near-subcommand", 6),
            ("near-argument", 6),
            ("near-suffix", 2),
            ("extra-args-short", 2),
            ("after-window", 6),
            ("window-edge-10", 3),
            ("window-edge-11", 3),
            ("never-shown", 8),
            ("run-before-shown", 3),
            ("two-shown", 6),
            ("fail-then-succeed", 2),
            ("succeed-then-fail", 2),
        ];
        let total: usize = CASES.iter().map(|(_, w)| w).sum();
        let mut roll = self.rng.below(total);
        let case = CASES
            .iter()
            .find(|(_, w)| {
                if roll < *w {
                    true
                } else {
                    roll -= w;
                    false
                }
            })
            .map_or("effective", |(c, _)| *c);
        let agent = if self.rng.chance(25) {
            Agent::Codex
        } else {
            Agent::Claude
        };
        let how = *self
            .rng
            .pick(&["pre", "pre", "pre", "pre", "start", "prompt"]);
        // The edges count tool results; a shown command's own result would
        // make the count depend on reading, so edges show without one.
        let with_result = !case.starts_with("window-edge") && self.rng.chance(75);
        let mut l = self.pick_learning(how);
        if case == "near-suffix" || case == "extra-args-short" {
            let short: Vec<usize> = (0..self.learnings.len())
                .filter(|&i| case == "near-suffix" || self.learnings[i].words().len() < 3)
                .collect();
            l = *self.rng.pick(&short);
        }
        let learning = self.learnings[l].clone();
        let mut steps = Vec::new();
        let mut cases = BTreeMap::new();
        let label = |c: &str| format!("{c}/{how}");
        let before = self.rng.below(6);
        let fill =
            |g: &mut Self, k: usize, except: &[usize]| filler(&mut g.rng, g.learnings, except, k);
        match case {
            "never-shown" => {
                // Shown nothing, or another learning; runs this one's correction.
                steps.extend(fill(self, before, &[l]));
                if self.rng.chance(50) {
                    let other =
                        (l + 1 + self.rng.below(self.learnings.len() - 1)) % self.learnings.len();
                    steps.extend(showing(&self.learnings[other], "pre", with_result));
                    cases.insert(other, "never-shown:other-shown".to_string());
                }
                let k = self.rng.below(4);
                steps.extend(fill(self, k, &[l]));
                let (shape, command) = correction_shape(&learning, &mut self.rng, false);
                let ok = self.rng.chance(70);
                steps.push(Step::Call {
                    command,
                    result: Some(ok),
                    runs: Some(l),
                });
                cases.insert(l, format!("never-shown:{shape}"));
            }
            "run-before-shown" => {
                steps.push(Step::Call {
                    command: learning.correction.clone(),
                    result: Some(true),
                    runs: Some(l),
                });
                steps.extend(fill(self, before, &[l]));
                steps.extend(showing(&learning, how, with_result));
                let k = self.rng.below(5);
                steps.extend(fill(self, k, &[l]));
                cases.insert(l, label(case));
            }
            _ => {
                steps.extend(fill(self, before, &[l]));
                steps.extend(showing(&learning, how, with_result));
                let gap = match case {
                    "after-window" => 11 + self.rng.below(10),
                    "window-edge-10" => 9,
                    "window-edge-11" => 10,
                    _ => self.rng.below(7),
                };
                steps.extend(fill(self, gap, &[l]));
                let shape_label = self.decide(case, l, &learning, &mut steps);
                let k = self.rng.below(4);
                steps.extend(fill(self, k, &[l]));
                cases.insert(l, format!("{}{shape_label}", label(case)));
                if case == "two-shown" {
                    let other =
                        (l + 1 + self.rng.below(self.learnings.len() - 1)) % self.learnings.len();
                    let second = self.learnings[other].clone();
                    steps.extend(showing(&second, "pre", true));
                    let k = self.rng.below(3);
                    steps.extend(fill(self, k, &[l, other]));
                    let ok = self.rng.chance(60);
                    let (shape, command) = correction_shape(&second, &mut self.rng, ok);
                    steps.push(Step::Call {
                        command,
                        result: Some(ok),
                        runs: Some(other),
                    });
                    cases.insert(other, format!("two-shown:second/{shape}"));
                }
            }
        }
        Session {
            agent_name: format!("s{n:04}"),
            agent,
            steps,
            cases,
            captured: None,
        }
    }

    /// The decisive part of a case; returns a label suffix (the shape).
    fn decide(
        &mut self,
        case: &str,
        l: usize,
        learning: &Learning,
        steps: &mut Vec<Step>,
    ) -> String {
        let run = |command: String, ok: bool| Step::Call {
            command,
            result: Some(ok),
            runs: Some(l),
        };
        let miss = |command: String, ok: bool| Step::Call {
            command,
            result: Some(ok),
            runs: None,
        };
        let program = learning.words()[0].to_string();
        match case {
            "effective" | "after-window" | "window-edge-10" | "window-edge-11" | "two-shown" => {
                let (shape, command) = correction_shape(learning, &mut self.rng, true);
                steps.push(run(command, true));
                format!(":{shape}")
            }
            "ineffective" => {
                let (shape, command) = correction_shape(learning, &mut self.rng, false);
                steps.push(run(command, false));
                format!(":{shape}")
            }
            "mistake-again" => {
                steps.extend(showing(learning, "pre", true));
                String::new()
            }
            "near-subcommand" => {
                steps.push(miss(other_subcommand(&program, &mut self.rng), true));
                String::new()
            }
            "near-argument" => {
                let ok = self.rng.chance(70);
                steps.push(miss(other_argument(learning, &mut self.rng), ok));
                String::new()
            }
            "near-suffix" => {
                // The last word lengthened: a longer string, not a longer command.
                steps.push(miss(format!("{}2", learning.correction), true));
                String::new()
            }
            "extra-args-short" => {
                steps.push(miss(format!("{} --verbose", learning.correction), true));
                String::new()
            }
            "fail-then-succeed" | "succeed-then-fail" => {
                let first = case == "succeed-then-fail";
                steps.push(run(learning.correction.clone(), first));
                steps.push(run(learning.correction.clone(), !first));
                String::new()
            }
            _ => String::new(), // not-run: only filler follows
        }
    }
}

/// The learnings dir, its HOME and the binary.
struct Bench {
    bin: PathBuf,
    home: PathBuf,
    dir: PathBuf,
}

impl Bench {
    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(&self.bin);
        c.args(args);
        for var in [
            "LEARNSYNC_AGENT",
            "LEARNSYNC_GITEA_URL",
            "LEARNSYNC_GITEA_REPO",
            "GITEA_TOKEN",
            "XDG_CONFIG_HOME",
            "XDG_DATA_HOME",
            "GIT_DIR",
            "GIT_WORK_TREE",
        ] {
            c.env_remove(var);
        }
        c.env("HOME", &self.home)
            .env("LEARNSYNC_DIR", &self.dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", self.home.join("no-global-gitconfig"));
        c
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.cmd(args).output().expect("run learnsync");
        if !out.status.success() {
            eprintln!(
                "learnsync {args:?} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            std::process::exit(1);
        }
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// `learnsync --agent A capture` with one payload; returns stdout.
    fn capture(&self, agent: &str, payload: &Value, hook_errors: &mut usize) -> String {
        let mut child = self
            .cmd(&["--agent", agent, "capture"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn capture");
        let bytes = serde_json::to_vec(payload).expect("payload");
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(&bytes);
        }
        let out = child.wait_with_output().expect("capture");
        if out.status.code() != Some(0) || !out.stderr.is_empty() {
            *hook_errors += 1;
            if *hook_errors <= 3 {
                eprintln!(
                    "capture {:?} stderr: {}",
                    out.status.code(),
                    String::from_utf8_lossy(&out.stderr)
                );
            }
        }
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

/// The payloads of one step, in the agent's own shapes.
fn payloads(agent: Agent, session: &str, step: &Step) -> Vec<Value> {
    let base = |event: &str| match agent {
        Agent::Claude => json!({
            "session_id": session, "transcript_path": "/home/dev/.claude/projects/shop/x.jsonl",
            "cwd": "/home/dev/shop", "hook_event_name": event,
        }),
        Agent::Codex => json!({
            "session_id": session, "turn_id": "7", "transcript_path": null,
            "cwd": "/home/dev/shop", "hook_event_name": event, "model": "gpt-5-codex",
        }),
    };
    match step {
        Step::SessionStart => {
            // Without cwd, as tests/it/outcomes.rs sends it: the block then
            // holds L1 learnings of any project (with this cwd it held none
            // of the hand-added learnings).
            let mut p = base("SessionStart");
            p["source"] = json!("startup");
            if let Some(fields) = p.as_object_mut() {
                fields.remove("cwd");
            }
            vec![p]
        }
        Step::Prompt(text) => {
            let mut p = base("UserPromptSubmit");
            p["prompt"] = json!(text);
            vec![p]
        }
        Step::Call {
            command, result, ..
        } => {
            let mut pre = base("PreToolUse");
            pre["tool_name"] = json!("Bash");
            pre["tool_input"] = json!({"command": command});
            let mut out = vec![pre.clone()];
            if let Some(ok) = *result {
                let mut post = pre;
                match (agent, ok) {
                    (Agent::Claude, true) => {
                        post["hook_event_name"] = json!("PostToolUse");
                        post["tool_response"] =
                            json!({"stdout": "done", "stderr": "", "interrupted": false});
                    }
                    (Agent::Claude, false) => {
                        post["hook_event_name"] = json!("PostToolUseFailure");
                        post["error"] = json!(format!("Exit code 1\n{}", failure_text(command)));
                    }
                    (Agent::Codex, ok) => {
                        post["hook_event_name"] = json!("PostToolUse");
                        post["tool_response"] = json!(format!(
                            "Exit code: {}\nWall time: 0.8 seconds\nOutput:\n{}",
                            if ok { 0 } else { 1 },
                            if ok {
                                "done".to_string()
                            } else {
                                failure_text(command)
                            }
                        ));
                    }
                }
                out.push(post);
            }
            out
        }
    }
}

thread_local! {
    static ERRORS: std::cell::RefCell<BTreeMap<String, String>> = const { std::cell::RefCell::new(BTreeMap::new()) };
}

/// The error a failing command prints: a mistake's own error, else a generic one.
fn failure_text(command: &str) -> String {
    ERRORS
        .with(|e| e.borrow().get(command).cloned())
        .unwrap_or_else(|| format!("error: {command}: exited with status 1"))
}

/// The learnings a hook's output names.
fn named(output: &str, learnings: &[Learning]) -> BTreeSet<usize> {
    learnings
        .iter()
        .enumerate()
        .filter(|(_, l)| output.contains(&l.id))
        .map(|(i, _)| i)
        .collect()
}

struct Args {
    seed: u64,
    sessions: usize,
    learnings: usize,
    examples: usize,
    captured: usize,
}

fn parse_args() -> Args {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let get = |name: &str, default: u64| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .map(|v| {
                v.parse().unwrap_or_else(|_| {
                    eprintln!("{name} wants a number, got {v}");
                    std::process::exit(2)
                })
            })
            .unwrap_or(default)
    };
    Args {
        seed: get("--seed", 30),
        sessions: get("--sessions", 600) as usize,
        learnings: (get("--learnings", 40) as usize).clamp(2, CATALOGUE.len()),
        examples: get("--examples", 2) as usize,
        captured: get("--captured", 20) as usize,
    }
}

fn main() {
    let args = parse_args();
    let bin = std::env::var_os("LEARNSYNC_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_learnsync")));
    let tmp = tempfile::tempdir().expect("temp dir");
    let bench = Bench {
        bin,
        home: tmp.path().join("home"),
        dir: tmp.path().join("learnings"),
    };
    std::fs::create_dir_all(&bench.home).expect("home");
    eprintln!(
        "outcome_eval: seed {} sessions {} learnings {} captured {} ({})",
        args.seed,
        args.sessions,
        args.learnings,
        args.captured,
        bench.bin.display()
    );
    bench.ok(&["init", "--agent", "bench"]);
    let mut learnings: Vec<Learning> = CATALOGUE[..args.learnings]
        .iter()
        .map(|(mistake, error, correction)| {
            let id = bench
                .ok(&[
                    "add",
                    "--title",
                    &format!("{mistake} fails"),
                    "--correction",
                    correction,
                    "--command",
                    mistake,
                    "--error",
                    error,
                ])
                .trim()
                .to_string();
            Learning {
                id,
                mistake: mistake.to_string(),
                error: error.to_string(),
                correction: correction.to_string(),
            }
        })
        .collect();
    bench.ok(&["sync", "--no-fetch", "--no-push"]);
    let mut hook_errors = 0;

    // Sessions that capture a learning themselves (a failure, then its fix).
    let mut captured_sessions = Vec::new();
    for n in 0..args.captured {
        let agent_name = format!("c{n:04}");
        let (mistake, fix) = (
            format!("terraform workspace select team{n}"),
            format!("terraform workspace new team{n}"),
        );
        let error = format!("Workspace \"team{n}\" doesn't exist.");
        ERRORS.with(|e| e.borrow_mut().insert(mistake.clone(), error.clone()));
        let session = format!("{agent_name}-session");
        for (command, ok) in [(&mistake, false), (&fix, true)] {
            let step = Step::Call {
                command: command.clone(),
                result: Some(ok),
                runs: None,
            };
            for p in payloads(Agent::Claude, &session, &step) {
                bench.capture(&agent_name, &p, &mut hook_errors);
            }
        }
        captured_sessions.push((agent_name, mistake, error, fix));
    }
    bench.ok(&["sync", "--no-fetch", "--no-push"]);
    let list: Value =
        serde_json::from_str(&bench.ok(&["--json", "list"])).expect("list --json is JSON");
    let mut capture_misses = 0;
    let mut own: Vec<(String, usize)> = Vec::new();
    for (agent_name, mistake, error, fix) in &captured_sessions {
        let found = list.as_array().into_iter().flatten().find(|v| {
            v["original_command"].as_str() == Some(mistake.as_str())
                && v["correction"].as_str().map(str::trim) == Some(fix.as_str())
        });
        match found.and_then(|v| v["id"].as_str()) {
            Some(id) => {
                learnings.push(Learning {
                    id: id.to_string(),
                    mistake: mistake.clone(),
                    error: error.clone(),
                    correction: fix.clone(),
                });
                own.push((agent_name.clone(), learnings.len() - 1));
            }
            None => capture_misses += 1,
        }
    }
    for l in &learnings {
        ERRORS.with(|e| e.borrow_mut().insert(l.mistake.clone(), l.error.clone()));
    }
    let catalogue_len = args.learnings;

    // What the SessionStart block holds and what prompts suggest, read as
    // an agent reads them (a probe agent whose events are not scored).
    let probe = |step: &Step, hook_errors: &mut usize| {
        payloads(Agent::Claude, "probe", step)
            .iter()
            .map(|p| bench.capture("probe", p, hook_errors))
            .collect::<String>()
    };
    let in_block: Vec<usize> = named(
        &probe(&Step::SessionStart, &mut hook_errors),
        &learnings[..catalogue_len],
    )
    .into_iter()
    .collect();
    let suggested: Vec<usize> = (0..catalogue_len)
        .filter(|&i| {
            let out = probe(
                &showing(&learnings[i], "prompt", false)[0],
                &mut hook_errors,
            );
            named(&out, &learnings).contains(&i)
        })
        .collect();
    eprintln!(
        "SessionStart block holds {} of {catalogue_len}; a prompt with the error suggests {} of {catalogue_len}",
        in_block.len(),
        suggested.len()
    );

    let mut generator = Gen {
        rng: Rng(args.seed),
        learnings: &learnings[..catalogue_len],
        in_block,
        suggested,
    };
    let mut sessions: Vec<Session> = (0..args.sessions).map(|n| generator.session(n)).collect();
    for (agent_name, l) in &own {
        // The capturing session is warned and runs its own fix again; another
        // session is warned and runs it.
        let c = &learnings[*l];
        let steps = |g: &mut Rng| {
            let mut s = showing(c, "pre", g.chance(50));
            let k = g.below(3);
            s.extend(filler(g, &learnings[..catalogue_len], &[], k));
            s.push(Step::Call {
                command: c.correction.clone(),
                result: Some(true),
                runs: Some(*l),
            });
            s
        };
        let own_steps = steps(&mut generator.rng);
        let other_steps = steps(&mut generator.rng);
        sessions.push(Session {
            agent_name: agent_name.clone(),
            agent: Agent::Claude,
            steps: own_steps,
            cases: BTreeMap::from([(*l, "captured-own-session".to_string())]),
            captured: Some(*l),
        });
        sessions.push(Session {
            agent_name: format!("{agent_name}-other"),
            agent: Agent::Claude,
            steps: other_steps,
            cases: BTreeMap::from([(*l, "captured-other-session".to_string())]),
            captured: None,
        });
    }

    // Run, three sessions at a time with their calls interleaved.
    let started = std::time::Instant::now();
    let mut traces: Vec<Trace> = sessions.iter().map(|_| Trace::default()).collect();
    let mut payload_count = 0;
    for group in (0..sessions.len()).collect::<Vec<_>>().chunks(3) {
        let longest = group
            .iter()
            .map(|&s| sessions[s].steps.len())
            .max()
            .unwrap_or(0);
        for i in 0..longest {
            for &s in group {
                let session = &sessions[s];
                let Some(step) = session.steps.get(i) else {
                    continue;
                };
                let session_id = format!("{}-session", session.agent_name);
                let mut output = String::new();
                for p in payloads(session.agent, &session_id, step) {
                    payload_count += 1;
                    output.push_str(&bench.capture(&session.agent_name, &p, &mut hook_errors));
                }
                traces[s].shown.push(named(&output, &learnings));
                traces[s].outputs.push(output);
            }
        }
    }
    let run_secs = started.elapsed().as_secs_f64();
    bench.ok(&["sync", "--no-fetch", "--no-push"]);

    // Events: agent → learning → outcomes.
    let mut observed: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    let mut foreign = 0;
    let known: BTreeSet<&str> = learnings.iter().map(|l| l.id.as_str()).collect();
    for agent in std::fs::read_dir(bench.dir.join("events"))
        .expect("events dir")
        .flatten()
    {
        for month in std::fs::read_dir(agent.path())
            .expect("agent dir")
            .flatten()
        {
            let text = std::fs::read_to_string(month.path()).expect("events file");
            for line in text.lines() {
                let Ok(v) = serde_json::from_str::<Value>(line) else {
                    continue;
                };
                let s = |k: &str| v[k].as_str().unwrap_or("").to_string();
                if !known.contains(s("learning").as_str()) {
                    foreign += 1;
                    continue;
                }
                observed
                    .entry((s("agent"), s("learning")))
                    .or_default()
                    .push(s("outcome"));
            }
        }
    }

    report(
        &args,
        &sessions,
        &traces,
        &learnings,
        &observed,
        Counts {
            payloads: payload_count,
            run_secs,
            hook_errors,
            foreign,
            capture_misses,
        },
    );
    drop(tmp);
}

struct Counts {
    payloads: usize,
    run_secs: f64,
    hook_errors: usize,
    foreign: usize,
    capture_misses: usize,
}

#[derive(Default)]
struct Confusion {
    tp: usize,
    fp: usize,
    fn_: usize,
}

impl Confusion {
    fn line(&self, name: &str) -> String {
        let ratio = |a: usize, b: usize| {
            if b == 0 {
                "  n/a".to_string()
            } else {
                format!("{:.3}", a as f64 / b as f64)
            }
        };
        format!(
            "| {name} | {} | {} | {} | {} | {} |",
            ratio(self.tp, self.tp + self.fp),
            ratio(self.tp, self.tp + self.fn_),
            self.tp,
            self.fp,
            self.fn_
        )
    }
}

#[derive(Default)]
struct CaseTally {
    pairs: usize,
    errors: usize,
    kinds: BTreeMap<String, usize>,
    examples: Vec<(usize, usize, String)>,
}

fn report(
    args: &Args,
    sessions: &[Session],
    traces: &[Trace],
    learnings: &[Learning],
    observed: &BTreeMap<(String, String), Vec<String>>,
    counts: Counts,
) {
    let mut effective = Confusion::default();
    let mut ineffective = Confusion::default();
    let mut cases: BTreeMap<String, CaseTally> = BTreeMap::new();
    let mut duplicates = 0;
    let mut applied_many = 0;
    let mut unexpected_shows = 0;
    // learning → (pairs expected decisive, pairs wrong)
    let mut by_learning: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
    for (s, (session, trace)) in sessions.iter().zip(traces).enumerate() {
        // A warning on a command that is no learning's mistake.
        for (step, shown) in session.steps.iter().zip(&trace.shown) {
            if let Step::Call { command, .. } = step
                && shown.iter().any(|&l| learnings[l].mistake != *command)
            {
                unexpected_shows += 1;
            }
        }
        for (l, learning) in learnings.iter().enumerate() {
            let want = expected(session, trace, l);
            let got = observed
                .get(&(session.agent_name.clone(), learning.id.clone()))
                .cloned()
                .unwrap_or_default();
            let n = |o: &str| got.iter().filter(|g| *g == o).count();
            let (eff, ineff) = (n("effective"), n("ineffective"));
            if eff + ineff > 1 {
                duplicates += 1;
            }
            if n("applied") > 1 {
                applied_many += 1;
            }
            let case = session.cases.get(&l).cloned().unwrap_or_else(|| {
                let shown = trace.shown.iter().any(|s| s.contains(&l));
                let ran = session
                    .steps
                    .iter()
                    .any(|st| matches!(st, Step::Call { runs: Some(r), .. } if *r == l));
                match (shown, ran) {
                    (true, true) => "bystander:shown-and-run",
                    (true, false) => "bystander:shown",
                    (false, true) => "bystander:run-not-shown",
                    (false, false) => "bystander:untouched",
                }
                .to_string()
            });
            let tally = cases.entry(case).or_default();
            tally.pairs += 1;
            let mut wrong = Vec::new();
            for (outcome, count, conf) in [
                (Outcome::Effective, eff, &mut effective),
                (Outcome::Ineffective, ineff, &mut ineffective),
            ] {
                match (want == outcome, count > 0) {
                    (true, true) => conf.tp += 1,
                    (false, true) => {
                        conf.fp += 1;
                        wrong.push(format!("fp-{}", outcome.name()));
                    }
                    (true, false) => {
                        conf.fn_ += 1;
                        wrong.push(format!("fn-{}", outcome.name()));
                    }
                    (false, false) => {}
                }
            }
            if want != Outcome::Nothing {
                by_learning.entry(l).or_default().0 += 1;
            }
            if !wrong.is_empty() {
                by_learning.entry(l).or_default().1 += 1;
                tally.errors += 1;
                for w in &wrong {
                    *tally.kinds.entry(w.clone()).or_default() += 1;
                }
                if tally.examples.len() < args.examples {
                    tally.examples.push((
                        s,
                        l,
                        format!("expected {}, events {:?}", want.name(), got),
                    ));
                }
            }
        }
    }
    println!(
        "outcome_eval: seed {}, {} sessions ({} generated + {} around captured learnings), {} learnings, {} payloads in {:.1} s",
        args.seed,
        sessions.len(),
        args.sessions,
        sessions.len() - args.sessions,
        learnings.len(),
        counts.payloads,
        counts.run_secs
    );
    println!();
    println!("| outcome | precision | recall | tp | fp | fn |");
    println!("|---|---:|---:|---:|---:|---:|");
    println!("{}", effective.line("effective"));
    println!("{}", ineffective.line("ineffective"));
    println!();
    println!(
        "contract checks: (session, learning) pairs with more than one decisive event {duplicates}, with more than one applied {applied_many}; \
         hook calls that failed or wrote stderr {}; warnings on a command that is not the shown learning's mistake {unexpected_shows}; \
         events about learnings captured during the run (not scored) {}; captured sessions whose learning was not found {}",
        counts.hook_errors, counts.foreign, counts.capture_misses
    );
    println!();
    println!("| case type | pairs | wrong | errors |");
    println!("|---|---:|---:|---|");
    for (case, t) in &cases {
        if t.errors == 0 && case.starts_with("bystander:untouched") {
            continue;
        }
        let kinds: Vec<String> = t.kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
        println!(
            "| {case} | {} | {} | {} |",
            t.pairs,
            t.errors,
            kinds.join(", ")
        );
    }
    println!();
    println!("| learning (mistake → correction) | decisive expected | wrong |");
    println!("|---|---:|---:|");
    for (l, (decisive, wrong)) in &by_learning {
        if *wrong > 0 {
            let learning = &learnings[*l];
            println!(
                "| `{}` → `{}` | {decisive} | {wrong} |",
                learning.mistake, learning.correction
            );
        }
    }
    for (case, t) in &cases {
        for (s, l, verdict) in &t.examples {
            println!();
            println!(
                "example, {case}: session {} ({}), learning {} (correction `{}`): {verdict}",
                sessions[*s].agent_name,
                match sessions[*s].agent {
                    Agent::Claude => "claude",
                    Agent::Codex => "codex",
                },
                learnings[*l].id,
                learnings[*l].correction
            );
            for (i, step) in sessions[*s].steps.iter().enumerate() {
                let shown: Vec<&str> = traces[*s].shown[i]
                    .iter()
                    .map(|&k| learnings[k].id.as_str())
                    .collect();
                let what = match step {
                    Step::SessionStart => "SessionStart".to_string(),
                    Step::Prompt(p) => format!("UserPromptSubmit {p:?}"),
                    Step::Call {
                        command,
                        result,
                        runs,
                    } => format!(
                        "Bash {command:?} → {}{}",
                        match result {
                            Some(true) => "ok",
                            Some(false) => "failed",
                            None => "no result",
                        },
                        match runs {
                            Some(r) if r == l => " [runs this correction]",
                            Some(_) => " [runs another correction]",
                            None => "",
                        }
                    ),
                };
                let mark = if shown.contains(&learnings[*l].id.as_str()) {
                    "  ← shows it"
                } else {
                    ""
                };
                println!("  {i:>2}. {what}{mark}");
            }
        }
    }
}
