//! Test support shared by the CLI tests: run the real binary in a temp
//! learnings dir with a clean environment, and the real git CLI beside it.

#![allow(dead_code)]

pub mod git_http;
pub mod gitea_server;
pub mod http;
pub mod snapshot;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_learnsync"))
}

/// A sandbox: a HOME with no git identity and a learnings dir inside it.
pub struct Sandbox {
    pub tmp: tempfile::TempDir,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let tmp = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(tmp.path().join("home")).expect("home");
        Sandbox { tmp }
    }

    pub fn home(&self) -> PathBuf {
        self.tmp.path().join("home")
    }

    pub fn dir(&self) -> PathBuf {
        self.tmp.path().join("learnings")
    }

    /// A `learnsync` command with a scrubbed environment.
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(bin());
        c.args(args);
        scrub(&mut c, &self.home());
        c.env("LEARNSYNC_DIR", self.dir());
        c
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).output().expect("run learnsync")
    }

    /// Runs and insists on exit 0; returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "learnsync {args:?} failed ({:?})\nstdout: {}\nstderr: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn git(&self, args: &[&str]) -> String {
        git_in(&self.dir(), &self.home(), args)
    }
}

/// Clears everything that could leak a developer's setup into a test.
pub fn scrub(c: &mut Command, home: &Path) {
    for var in [
        "LEARNSYNC_DIR",
        "TERRAPHIM_LEARNINGS_DIR",
        "LEARNSYNC_AGENT",
        "LEARNSYNC_GITEA_URL",
        "LEARNSYNC_GITEA_REPO",
        "GITEA_TOKEN",
        "XDG_CONFIG_HOME",
        "XDG_DATA_HOME",
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "GIT_DIR",
        "GIT_WORK_TREE",
    ] {
        c.env_remove(var);
    }
    c.env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", home.join("no-global-gitconfig"))
        .env("HOSTNAME", "testhost");
}

/// Runs the real git CLI in `dir`, insisting on success.
pub fn git_in(dir: &Path, home: &Path, args: &[&str]) -> String {
    let mut c = Command::new("git");
    c.current_dir(dir).args(args);
    scrub(&mut c, home);
    let out = c.output().expect("run git");
    assert!(
        out.status.success(),
        "git {args:?} failed\nstdout: {}\nstderr: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `git status --porcelain` is empty and `git fsck --strict` finds nothing.
pub fn assert_clean_and_sound(dir: &Path, home: &Path) {
    let status = git_in(
        dir,
        home,
        &["status", "--porcelain", "--untracked-files=all"],
    );
    assert_eq!(status, "", "work tree not clean after sync");
    let mut c = Command::new("git");
    c.current_dir(dir)
        .args(["fsck", "--strict", "--no-progress"]);
    scrub(&mut c, home);
    let out = c.output().expect("git fsck");
    assert!(
        out.status.success(),
        "git fsck failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let complaints =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        !complaints.contains("error")
            && !complaints.contains("missing")
            && !complaints.contains("broken"),
        "git fsck complains: {complaints}"
    );
}

/// Copies a fixture tree into `to`.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read fixture") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// Sets the dir's policy so that nothing goes stale (§9.1): for fixtures
/// written with fixed 2026 dates, which age as the calendar moves on.
pub fn never_stale(sb: &Sandbox) {
    let policy = sb.dir().join(".learnsync/policy.yaml");
    let text = std::fs::read_to_string(&policy).expect("policy");
    assert!(text.contains("stale_after_days: 90"), "{text}");
    std::fs::write(
        &policy,
        text.replace("stale_after_days: 90", "stale_after_days: 36500"),
    )
    .expect("policy");
}

/// Runs a command with `stdin` piped in and its output captured.
pub fn with_stdin(mut cmd: Command, stdin: &[u8]) -> Output {
    use std::io::Write;
    let mut child = cmd
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut input = child.stdin.take().expect("stdin");
    let bytes = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
    });
    let out = child.wait_with_output().expect("wait");
    writer.join().expect("writer");
    out
}

pub fn json(stdout: &str) -> serde_json::Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

/// One machine in a multi-clone test: its own HOME and learnings dir.
pub struct Machine {
    pub home: PathBuf,
    pub dir: PathBuf,
}

impl Machine {
    pub fn new(root: &Path, name: &str) -> Machine {
        let home = root.join(format!("{name}-home"));
        std::fs::create_dir_all(&home).expect("home");
        Machine {
            home,
            dir: root.join(name),
        }
    }

    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(bin());
        c.args(args);
        scrub(&mut c, &self.home);
        c.env("LEARNSYNC_DIR", &self.dir);
        c
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).output().expect("run learnsync")
    }

    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "learnsync {args:?} in {} failed ({:?})\nstdout: {}\nstderr: {}",
            self.dir.display(),
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn git(&self, args: &[&str]) -> String {
        git_in(&self.dir, &self.home, args)
    }

    /// The repository path of learning `id` (`<agent>/<id>.md`).
    pub fn learning_rel(&self, id: &str) -> String {
        let wanted = format!("/{id}.md");
        self.git(&["ls-files"])
            .lines()
            .find(|l| l.ends_with(&wanted) && !l.starts_with("shared/"))
            .unwrap_or_else(|| panic!("no file for {id} in {}", self.dir.display()))
            .to_string()
    }

    /// The text of learning `id`'s file in the work tree.
    pub fn learning_file(&self, id: &str) -> String {
        std::fs::read_to_string(self.dir.join(self.learning_rel(id))).expect("learning file")
    }

    /// Every learning and events file, path → bytes.
    pub fn learning_and_event_files(&self) -> std::collections::BTreeMap<String, Vec<u8>> {
        let mut out = std::collections::BTreeMap::new();
        for rel in self.git(&["ls-files"]).lines() {
            let is_learning = rel.ends_with(".md")
                && rel.matches('/').count() == 1
                && !rel.starts_with("kg/")
                && !rel.starts_with("shared/");
            if is_learning || rel.starts_with("events/") {
                out.insert(
                    rel.to_string(),
                    std::fs::read(self.dir.join(rel)).expect("tracked file"),
                );
            }
        }
        out
    }
}

/// A bare repository at `path`.
pub fn bare(path: &Path) {
    let out = Command::new("git")
        .args(["init", "-q", "--bare"])
        .arg(path)
        .output()
        .expect("git init");
    assert!(out.status.success());
}

/// A `git daemon` serving `base` on 127.0.0.1, with push enabled; killed on drop.
pub struct GitDaemon {
    child: std::process::Child,
    pub port: u16,
}

impl GitDaemon {
    pub fn start(base: &Path) -> GitDaemon {
        for _ in 0..20 {
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .map(|a| a.port())
                .expect("free port");
            // Run git-daemon itself: killing a `git daemon` wrapper would leave it serving.
            let exec_path = Command::new("git")
                .arg("--exec-path")
                .output()
                .expect("git --exec-path");
            let daemon =
                PathBuf::from(String::from_utf8_lossy(&exec_path.stdout).trim()).join("git-daemon");
            let mut child = Command::new(daemon)
                .args([
                    "--reuseaddr",
                    "--export-all",
                    "--enable=receive-pack",
                    "--listen=127.0.0.1",
                ])
                .arg(format!("--port={port}"))
                .arg(format!("--base-path={}", base.display()))
                .arg(base)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .expect("start git daemon");
            for _ in 0..100 {
                if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                    return GitDaemon { child, port };
                }
                if let Ok(Some(_)) = child.try_wait() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        panic!("git daemon did not start");
    }

    pub fn url(&self, repo: &str) -> String {
        format!("git://127.0.0.1:{}/{repo}", self.port)
    }
}

impl Drop for GitDaemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `n` learnings at L2 (three effective outcomes from two agents each),
/// written as files the way a peer's sync would bring them.
pub fn l2_files(dir: &Path, agent: &str, n: usize) -> Vec<String> {
    use learnsync::event::{Event, Outcome};
    use learnsync::learning::Learning;
    use learnsync::timestamp::Timestamp;
    let mut ids = Vec::new();
    let mut lines = String::new();
    std::fs::create_dir_all(dir.join(agent)).expect("mkdir");
    for i in 0..n {
        let id = format!("learning-{i:032x}-1780000000000");
        let mut l = Learning::new(
            id.clone(),
            agent.into(),
            format!("Lesson {i}: retry with backoff"),
            Timestamp::from_unix(1_780_000_000 + i as i64),
        );
        l.correction = Some("wrap the call in the retry helper".into());
        std::fs::write(dir.join(format!("{agent}/{id}.md")), l.to_markdown()).expect("write");
        for (k, by) in ["a", "b", "a"].iter().enumerate() {
            let at = Timestamp::from_unix(1_780_000_100 + (i * 3 + k) as i64);
            lines.push_str(&Event::new(&id, by, Outcome::Effective, at).to_line());
            lines.push('\n');
        }
        ids.push(id);
    }
    std::fs::create_dir_all(dir.join(format!("events/{agent}"))).expect("mkdir");
    std::fs::write(dir.join(format!("events/{agent}/2026-06.jsonl")), lines).expect("events");
    ids
}
