//! Test support shared by the CLI tests: run the real binary in a temp
//! learnings dir with a clean environment, and the real git CLI beside it.

#![allow(dead_code)]

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

pub fn json(stdout: &str) -> serde_json::Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}
