//! The sync lock, `.git/learnsync/lock`: an OS file lock, so a process that
//! dies releases it. The file names its holder for the busy message.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::time::{Duration, Instant};

/// Held for the life of a sync; dropping it releases the lock.
pub struct SyncLock {
    _file: File,
}

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error(
        "another learnsync holds the lock on {path} ({holder}); waited {waited}s. \
         It is released when that process ends (the OS frees it even if it is killed): \
         let it finish, or wait longer with --wait SECS"
    )]
    Busy {
        path: String,
        holder: String,
        waited: u64,
    },
    #[error("cannot open the lock file {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

impl SyncLock {
    /// Takes the lock, waiting up to `wait` for a current holder.
    pub fn acquire(path: &Path, wait: Duration, what: &str) -> Result<SyncLock, LockError> {
        let io = |source| LockError::Io {
            path: path.display().to_string(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(io)?;
        let start = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < wait => {
                    std::thread::sleep(Duration::from_millis(50));
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    let mut holder = String::new();
                    let _ = file.read_to_string(&mut holder);
                    let holder = holder.trim();
                    return Err(LockError::Busy {
                        path: path.display().to_string(),
                        holder: if holder.is_empty() {
                            "unknown holder".into()
                        } else {
                            holder.to_string()
                        },
                        waited: start.elapsed().as_secs(),
                    });
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
            }
        }
        let _ = file.set_len(0);
        let _ = file.seek(SeekFrom::Start(0));
        let _ = write!(
            file,
            "pid {} ({what}) since {}",
            std::process::id(),
            crate::timestamp::Timestamp::now()
        );
        let _ = file.flush();
        Ok(SyncLock { _file: file })
    }
}

/// What the lock file at `path` says of its holder while one holds it;
/// `None` when nobody does (or there is no lock file). Probing takes a
/// shared lock for an instant: a sync trying to take it then retries
/// 50 ms later, as it does for any holder.
pub fn holder(path: &Path) -> Option<String> {
    let mut file = File::open(path).ok()?;
    match file.try_lock_shared() {
        Ok(()) => None,
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            Some(text.trim().to_string())
        }
        Err(std::fs::TryLockError::Error(_)) => None,
    }
}

/// What [`SyncLock::acquire`] is told by `learnsync index`, so a reader
/// finding no index knows one is being built.
pub const INDEX_BUILD: &str = "learnsync index";

/// A pending-build marker older than this is a build that never ran or
/// was killed: readers stop deferring to it.
const PENDING_FOR_AT_MOST: Duration = Duration::from_secs(15 * 60);

/// True while a `learnsync index` holds the lock, or a sync has left a
/// first build to one that has not ended yet
/// ([`super::StateDir::index_build_pending`]).
pub fn index_build_running(state: &super::StateDir) -> bool {
    let marker = state.index_build_pending();
    let recent = std::fs::metadata(&marker)
        .and_then(|m| m.modified())
        .is_ok_and(|at| at.elapsed().is_ok_and(|age| age < PENDING_FOR_AT_MOST));
    // The marker names the build's process: one that died (killed, or
    // never started) is not waited for. Without /proc, its age decides.
    let alive = || {
        let pid = std::fs::read_to_string(&marker).unwrap_or_default();
        let pid = pid.trim();
        pid.is_empty() || !Path::new("/proc/self").exists() || Path::new("/proc").join(pid).exists()
    };
    (recent && alive())
        || holder(&state.sync_lock()).is_some_and(|h| h.contains(&format!("({INDEX_BUILD})")))
}

/// Waits up to `wait` for a running `learnsync index` to finish; true when
/// none runs (any more).
pub fn wait_for_index_build(state: &super::StateDir, wait: Duration) -> bool {
    let start = Instant::now();
    while index_build_running(state) {
        if start.elapsed() >= wait {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_names_its_holder_and_an_index_build_is_told_apart() {
        let dir = tempfile::tempdir().expect("tempdir");
        let state = super::super::LearningsDir::new(dir.path().to_path_buf()).state();
        let path = state.sync_lock();
        assert_eq!(holder(&path), None, "no lock file");
        let sync = SyncLock::acquire(&path, Duration::ZERO, "learnsync sync").expect("lock");
        assert!(holder(&path).is_some_and(|h| h.contains("(learnsync sync)")));
        assert!(!index_build_running(&state), "a sync is not an index build");
        drop(sync);
        assert_eq!(holder(&path), None, "released");
        let build = SyncLock::acquire(&path, Duration::ZERO, INDEX_BUILD).expect("lock");
        assert!(index_build_running(&state));
        assert!(!wait_for_index_build(&state, Duration::from_millis(120)));
        drop(build);
        assert!(wait_for_index_build(&state, Duration::ZERO));
        // The probe leaves the lock free for the next holder.
        let sync = SyncLock::acquire(&path, Duration::ZERO, "learnsync sync").expect("free again");
        // A sync that left a build to come marks it; the mark counts
        // until the build removes it.
        std::fs::write(state.index_build_pending(), std::process::id().to_string()).expect("mark");
        assert!(index_build_running(&state));
        drop(sync);
        assert!(
            index_build_running(&state),
            "the build has not taken the lock yet"
        );
        std::fs::remove_file(state.index_build_pending()).expect("unmark");
        assert!(!index_build_running(&state));
        // A build that died leaves its mark behind: not waited for.
        let dead = std::process::Command::new("true").spawn().expect("true");
        let pid = dead.id();
        let _ = dead.wait_with_output();
        std::fs::write(state.index_build_pending(), pid.to_string()).expect("mark");
        assert!(!index_build_running(&state), "pid {pid} has ended");
    }
}
