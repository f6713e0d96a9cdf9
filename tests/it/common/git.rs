//! The real git CLI as the tests use it beside learnsync: running git in a
//! dir with a sandbox's environment, bare hubs, a `git daemon`, commits and
//! clones made by hand (what a person or a hostile peer does with plain
//! git), and the check that a repository is clean and sound.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use super::net::free_port;
use super::sandbox::scrub;

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

/// `git -C dir args` as "A Person", with no system or global config: for
/// clones of the test server's repositories, outside any sandbox.
pub fn as_person(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new("git");
    cmd.arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "A Person")
        .env("GIT_AUTHOR_EMAIL", "person@example.com")
        .env("GIT_COMMITTER_NAME", "A Person")
        .env("GIT_COMMITTER_EMAIL", "person@example.com");
    cmd
}

/// [`as_person`], insisting on success; its trimmed stdout.
pub fn as_person_ok(dir: &Path, args: &[&str]) -> String {
    let out = as_person(dir, args).output().expect("run git");
    assert_success(&out, args);
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn assert_success(out: &Output, args: &[&str]) {
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Stages everything in `dir` and commits it as `name <email>`: a commit
/// made with plain git, bypassing learnsync.
pub fn commit_all_as(dir: &Path, home: &Path, name: &str, email: &str, message: &str) {
    git_in(dir, home, &["add", "-A"]);
    git_in(
        dir,
        home,
        &[
            "-c",
            &format!("user.name={name}"),
            "-c",
            &format!("user.email={email}"),
            "commit",
            "-qm",
            message,
        ],
    );
}

/// A plain clone of `hub` at `work` with `from` (a ref of the clone, such
/// as `origin/agents/victim`) checked out as local branch `branch`.
pub fn clone_at(hub: &Path, work: &Path, home: &Path, from: &str, branch: &str) {
    let parent = work.parent().expect("a clone has a parent dir");
    git_in(
        parent,
        home,
        &[
            "clone",
            "-q",
            &hub.display().to_string(),
            &work.display().to_string(),
        ],
    );
    git_in(work, home, &["checkout", "-q", "-B", branch, from]);
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

/// A `git daemon` serving `base` on 127.0.0.1, with push enabled; killed on drop.
pub struct GitDaemon {
    child: std::process::Child,
    pub port: u16,
}

impl GitDaemon {
    /// Starts one on a free port, retrying when another process took it first.
    pub fn start(base: &Path) -> GitDaemon {
        for _ in 0..20 {
            let port = free_port();
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

    /// The `git://` URL of `repo` under the served base.
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
