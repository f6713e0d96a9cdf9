//! The lock files git and gix leave in `.git` (`index.lock`, `HEAD.lock`,
//! `refs/**/*.lock`, `packed-refs.lock`, …): telling one a live git command
//! holds from one a killed process left behind, waiting a bounded time for
//! the first, and moving the second aside so a killed sync never wedges the
//! ones after it.
//!
//! A lock is *live* when a process other than this one has the lock file
//! open, or a `git` process (its command name starts with `git`) has its
//! working directory inside the repository: git closes its lock files while
//! it waits for an editor or runs hooks, so an open file alone is not
//! enough. learnsync runs this only while it holds the sync lock, so no
//! other learnsync works on the dir. Anything else is *stale*: the process
//! that made it is gone. Where `/proc` cannot be read (not Linux), a lock is
//! stale once it is [`STALE_AFTER`] old. A stale lock is never deleted: it
//! is moved to `.git/learnsync/stale-locks/` (its bytes may be a half-written
//! index or ref), where the newest [`KEEP_STALE`] are kept.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// Without `/proc`, a lock this old is taken as left by a dead process.
pub const STALE_AFTER: Duration = Duration::from_secs(600);
/// Moved-aside locks kept; older ones are deleted (they only ever held a
/// half-written copy of something git also keeps elsewhere).
const KEEP_STALE: usize = 50;
/// How long an in-cycle write waits for a lock a live git holds.
pub const IN_CYCLE_WAIT: Duration = Duration::from_secs(10);

/// Lock files at fixed places in a git dir.
const FIXED: [&str; 8] = [
    "index.lock",
    "HEAD.lock",
    "packed-refs.lock",
    "shallow.lock",
    "config.lock",
    "FETCH_HEAD.lock",
    "ORIG_HEAD.lock",
    "MERGE_HEAD.lock",
];

/// Who may hold a lock, as far as this machine can tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Holder {
    /// A running process: it has the file open, or is git working here.
    Process { pid: u32, command: String },
    /// No process holds it: the one that made it died.
    Nobody,
    /// `/proc` is not there to ask; `age` says how old the file is.
    Unknown { age: Duration },
}

impl Holder {
    pub fn is_live(&self) -> bool {
        match self {
            Holder::Process { .. } => true,
            Holder::Nobody => false,
            Holder::Unknown { age } => *age < STALE_AFTER,
        }
    }

    /// "pid 42 (git commit)", for messages.
    pub fn describe(&self) -> String {
        match self {
            Holder::Process { pid, command } => format!("pid {pid} ({command})"),
            Holder::Nobody => "no running process (left by one that died)".into(),
            Holder::Unknown { age } => format!(
                "an unknown process ({}s old; this system cannot say who holds it)",
                age.as_secs()
            ),
        }
    }
}

/// One lock file found in a git dir.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub path: PathBuf,
    pub holder: Holder,
}

/// Every git lock file in `git_dir` now, and who may hold each.
pub fn scan(git_dir: &Path) -> Vec<Found> {
    let mut paths: Vec<PathBuf> = FIXED
        .iter()
        .map(|name| git_dir.join(name))
        .filter(|p| p.is_file())
        .collect();
    walk_refs(&git_dir.join("refs"), &mut paths);
    if paths.is_empty() {
        return Vec::new();
    }
    let work_tree = git_dir.parent().unwrap_or(git_dir);
    let procs = Processes::read();
    paths
        .into_iter()
        .map(|path| Found {
            holder: procs.holder(&path, git_dir, work_tree),
            path,
        })
        .collect()
}

fn walk_refs(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => walk_refs(&path, out),
            Ok(t) if t.is_file() && path.extension().is_some_and(|e| e == "lock") => out.push(path),
            _ => {}
        }
    }
}

/// A lock a live process holds past the wait: the message names the path,
/// the holder and what to do.
#[derive(Debug, Clone, thiserror::Error)]
#[error(
    "{path} is held by {holder}, which is working in this repository; learnsync waited {waited}s. \
     Let that command finish (or quit it), then run learnsync again{hint}"
)]
pub struct Held {
    pub path: String,
    pub holder: String,
    pub waited: u64,
    hint: String,
}

impl Held {
    fn new(found: &Found, waited: Duration) -> Self {
        let hint = match found.holder {
            Holder::Unknown { .. } => format!(
                "; if no git command is running there, delete {} (learnsync treats it as stale after {} minutes)",
                found.path.display(),
                STALE_AFTER.as_secs() / 60
            ),
            _ => String::new(),
        };
        Held {
            path: found.path.display().to_string(),
            holder: found.holder.describe(),
            waited: waited.as_secs(),
            hint,
        }
    }
}

/// What [`recover`] did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Recovered {
    /// `(lock, where its bytes were moved)` for each stale lock.
    pub moved: Vec<(String, String)>,
}

/// Makes the git dir usable: waits up to `wait` for locks live processes
/// hold, and moves stale ones to `stale_dir`. Call only while holding the
/// sync lock. Costs a few `stat`s when no lock file exists (the common case).
pub fn recover(git_dir: &Path, stale_dir: &Path, wait: Duration) -> Result<Recovered, Held> {
    let start = Instant::now();
    let mut recovered = Recovered::default();
    loop {
        let found = scan(git_dir);
        let mut live = None;
        for lock in found {
            if lock.holder.is_live() {
                live.get_or_insert(lock);
                continue;
            }
            match move_aside(&lock.path, git_dir, stale_dir) {
                Ok(Some(to)) => {
                    tracing::warn!(
                        "moved aside {}, a lock left by a process that died (kept as {})",
                        lock.path.display(),
                        to.display()
                    );
                    recovered
                        .moved
                        .push((lock.path.display().to_string(), to.display().to_string()));
                }
                Ok(None) => {} // gone meanwhile: its holder finished
                Err(e) => tracing::warn!("cannot move aside {}: {e}", lock.path.display()),
            }
        }
        match live {
            None => return Ok(recovered),
            Some(lock) if start.elapsed() >= wait => {
                return Err(Held::new(&lock, start.elapsed()));
            }
            Some(_) => std::thread::sleep(Duration::from_millis(100)),
        }
    }
}

/// Waits, up to `wait`, while a `git push` or `git fetch` works in this
/// repository, and returns the one still running after it (`pid 42 (git
/// push …)`), if any. Such a process moves refs (a push its remote-tracking
/// ref when done) with no lock file yet to see: a sync killed while its push
/// ran leaves the push running, and a fetch racing it fails to update the
/// refs. Call only while holding the sync lock (no learnsync of ours runs).
pub fn wait_for_ref_writers(git_dir: &Path, wait: Duration) -> Option<String> {
    let start = Instant::now();
    let work_tree = git_dir.parent().unwrap_or(git_dir);
    let mut said = false;
    loop {
        let writer = Processes::read().ref_writer(git_dir, work_tree)?;
        if start.elapsed() >= wait {
            return Some(writer);
        }
        if !said {
            tracing::info!("waiting for {writer}, which is moving refs in this repository");
            said = true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The error for a lock met in the middle of a cycle (index or ref write):
/// who holds `lock` now, said the same way as at the start of a cycle.
pub fn held_now(git_dir: &Path, lock: &Path, waited: Duration) -> Held {
    let work_tree = git_dir.parent().unwrap_or(git_dir);
    let found = Found {
        holder: Processes::read().holder(lock, git_dir, work_tree),
        path: lock.to_path_buf(),
    };
    Held::new(&found, waited)
}

/// Renames a stale lock into `stale_dir`; `None` when it was already gone.
fn move_aside(path: &Path, git_dir: &Path, stale_dir: &Path) -> std::io::Result<Option<PathBuf>> {
    std::fs::create_dir_all(stale_dir)?;
    let rel = path.strip_prefix(git_dir).unwrap_or(path);
    let stamp = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let name = format!(
        "{stamp}-{}",
        rel.to_string_lossy().replace(['/', '\\'], "__")
    );
    let to = stale_dir.join(name);
    match std::fs::rename(path, &to) {
        Ok(()) => {
            prune(stale_dir);
            Ok(Some(to))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Keeps the newest [`KEEP_STALE`] moved-aside locks (names start with
/// their time, so the name order is the age order).
fn prune(stale_dir: &Path) {
    let Ok(entries) = std::fs::read_dir(stale_dir) else {
        return;
    };
    let mut names: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    if names.len() <= KEEP_STALE {
        return;
    }
    names.sort();
    for old in &names[..names.len() - KEEP_STALE] {
        let _ = std::fs::remove_file(old);
    }
}

/// The processes of this machine, as `/proc` shows them (empty elsewhere).
struct Processes {
    available: bool,
    me: u32,
}

impl Processes {
    fn read() -> Self {
        Processes {
            available: Path::new("/proc/self/fd").is_dir(),
            me: std::process::id(),
        }
    }

    /// Every process but this one: its pid and `/proc/<pid>`.
    fn others(&self) -> impl Iterator<Item = (u32, PathBuf)> + '_ {
        std::fs::read_dir("/proc")
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| Some((e.file_name().to_str()?.parse::<u32>().ok()?, e.path())))
            .filter(|(pid, _)| *pid != self.me)
    }

    /// A `git push` or `git fetch` (not this process) whose working
    /// directory is in the repository, described for a message.
    fn ref_writer(&self, git_dir: &Path, work_tree: &Path) -> Option<String> {
        if !self.available {
            return None;
        }
        let (git_dir, work_tree) = (canonical(git_dir), canonical(work_tree));
        for (pid, proc) in self.others() {
            if !works_here(&proc, &git_dir, &work_tree) {
                continue;
            }
            let raw = std::fs::read(proc.join("cmdline")).unwrap_or_default();
            let moves_refs = raw
                .split(|b| *b == 0)
                .any(|arg| arg == b"push" || arg == b"fetch");
            if moves_refs {
                return Some(format!("pid {pid} ({})", command_line(&proc)));
            }
        }
        None
    }

    fn holder(&self, lock: &Path, git_dir: &Path, work_tree: &Path) -> Holder {
        if !self.available {
            let age = std::fs::metadata(lock)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| SystemTime::now().duration_since(t).ok())
                .unwrap_or_default();
            return Holder::Unknown { age };
        }
        let (lock, git_dir, work_tree) =
            (canonical(lock), canonical(git_dir), canonical(work_tree));
        for (pid, proc) in self.others() {
            if works_here(&proc, &git_dir, &work_tree) || has_open(&proc, &lock) {
                return Holder::Process {
                    pid,
                    command: command_line(&proc),
                };
            }
        }
        Holder::Nobody
    }
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// True when the process at `/proc/<pid>` is a git command (its name starts
/// with `git`) working inside the repository. Its working directory is
/// asked first: one `readlink` rules out nearly every process.
fn works_here(proc: &Path, git_dir: &Path, work_tree: &Path) -> bool {
    std::fs::read_link(proc.join("cwd"))
        .is_ok_and(|cwd| cwd.starts_with(work_tree) || cwd.starts_with(git_dir))
        && std::fs::read_to_string(proc.join("comm"))
            .is_ok_and(|c| c.trim_start().starts_with("git"))
}

/// True when the process at `/proc/<pid>` has `file` open.
fn has_open(proc: &Path, file: &Path) -> bool {
    let Ok(fds) = std::fs::read_dir(proc.join("fd")) else {
        return false;
    };
    fds.flatten()
        .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|target| target == file))
}

/// A process's command line, shortened for a message.
fn command_line(proc: &Path) -> String {
    let raw = std::fs::read(proc.join("cmdline")).unwrap_or_default();
    let mut line: String = String::from_utf8_lossy(&raw)
        .split('\0')
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    if line.is_empty() {
        line = std::fs::read_to_string(proc.join("comm"))
            .unwrap_or_default()
            .trim()
            .to_string();
    }
    if line.chars().count() > 80 {
        line = line.chars().take(77).collect::<String>() + "...";
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git_dir() -> (tempfile::TempDir, PathBuf) {
        let tmp = tempfile::tempdir().expect("tmp");
        let git = tmp.path().join("repo").join(".git");
        std::fs::create_dir_all(git.join("refs/heads/agents")).expect("mkdir");
        (tmp, git)
    }

    #[test]
    fn a_lock_nobody_holds_is_moved_aside_with_its_bytes() {
        let (tmp, git) = git_dir();
        std::fs::write(git.join("index.lock"), b"half an index").expect("write");
        std::fs::write(git.join("refs/heads/agents/me.lock"), b"0123\n").expect("write");
        let found = scan(&git);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(
            found.iter().all(|f| f.holder == Holder::Nobody),
            "{found:?}"
        );
        let stale = tmp.path().join("stale");
        let done = recover(&git, &stale, Duration::ZERO).expect("recovered");
        assert_eq!(done.moved.len(), 2);
        assert!(!git.join("index.lock").exists());
        assert!(scan(&git).is_empty());
        let kept: Vec<Vec<u8>> = std::fs::read_dir(&stale)
            .expect("stale dir")
            .flatten()
            .map(|e| std::fs::read(e.path()).expect("read"))
            .collect();
        assert!(kept.contains(&b"half an index".to_vec()));
    }

    #[test]
    fn a_lock_a_running_process_holds_open_is_waited_for_then_named() {
        let (tmp, git) = git_dir();
        let lock = git.join("index.lock");
        std::fs::write(&lock, b"").expect("write");
        // Another process holds the lock file open.
        let mut holder = std::process::Command::new("sleep")
            .arg("30")
            .stdin(std::fs::File::open(&lock).expect("open"))
            .spawn()
            .expect("spawn sleep");
        let err =
            recover(&git, &tmp.path().join("stale"), Duration::from_millis(300)).expect_err("live");
        let _ = holder.kill();
        let _ = holder.wait();
        assert!(
            err.holder.contains(&format!("pid {}", holder.id())),
            "{err}"
        );
        assert!(err.holder.contains("sleep 30"), "{err}");
        assert!(err.to_string().contains("index.lock"), "{err}");
        assert!(lock.exists(), "a live lock is never moved");
        // Once its holder is gone, it is stale.
        assert!(recover(&git, &tmp.path().join("stale"), Duration::ZERO).is_ok());
        assert!(!lock.exists());
    }

    #[test]
    fn a_git_push_working_in_the_repository_is_waited_for() {
        let (tmp, git) = git_dir();
        // A stand-in for a push a killed sync left running: a program named
        // `git`, run as `git push hub`, in the work tree, that ends soon.
        let fake = tmp.path().join("bin").join("git");
        std::fs::create_dir_all(fake.parent().expect("bin")).expect("mkdir");
        std::fs::write(&fake, "#!/bin/sh\nsleep 1\n").expect("script");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let work_tree = git.parent().expect("work tree");
        let mut push = std::process::Command::new(&fake)
            .args(["push", "hub"])
            .current_dir(work_tree)
            .spawn()
            .expect("spawn");
        // Give it the moment to become a process named `git`.
        std::thread::sleep(Duration::from_millis(100));
        let still = wait_for_ref_writers(&git, Duration::from_millis(100));
        let said = still.expect("the push is running");
        assert!(said.contains(&format!("pid {}", push.id())), "{said}");
        assert!(said.contains("push hub"), "{said}");
        let started = Instant::now();
        assert_eq!(wait_for_ref_writers(&git, Duration::from_secs(20)), None);
        assert!(
            started.elapsed() >= Duration::from_millis(500),
            "it waited for the push"
        );
        let _ = push.wait();
        // Any other git command working there is not waited for.
        let mut status = std::process::Command::new(&fake)
            .arg("status")
            .current_dir(work_tree)
            .spawn()
            .expect("spawn");
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(wait_for_ref_writers(&git, Duration::ZERO), None);
        let _ = status.kill();
        let _ = status.wait();
    }

    #[test]
    fn only_the_newest_stale_locks_are_kept() {
        let (tmp, git) = git_dir();
        let stale = tmp.path().join("stale");
        std::fs::create_dir_all(&stale).expect("mkdir");
        for i in 0..KEEP_STALE + 5 {
            std::fs::write(stale.join(format!("{i:013}-index.lock")), b"").expect("write");
        }
        std::fs::write(git.join("HEAD.lock"), b"ref: x").expect("write");
        recover(&git, &stale, Duration::ZERO).expect("ok");
        let left = std::fs::read_dir(&stale).expect("dir").count();
        assert_eq!(left, KEEP_STALE);
        assert!(!stale.join(format!("{:013}-index.lock", 0)).exists());
    }
}
