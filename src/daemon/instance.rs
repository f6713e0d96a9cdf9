//! One daemon per learnings dir: an OS lock on `.git/learnsync/daemon.lock`
//! (released by the OS when the process dies, so a crash never leaves a
//! stale lock behind), whose file names the holder for the refusal.

use super::DaemonError;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::time::{Duration, Instant};

/// Held for the daemon's life.
pub struct Instance {
    _file: File,
}

fn open(path: &Path) -> std::io::Result<File> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
}

/// Takes the lock, or names the daemon that holds it. A probe by `status`
/// holds it for an instant, so a busy lock is tried again for a moment.
pub fn claim(path: &Path, dir: &Path) -> Result<Instance, DaemonError> {
    let io = |e: std::io::Error| DaemonError::Io(format!("{}: {e}", path.display()));
    let mut file = open(path).map_err(io)?;
    let start = Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => break,
            Err(std::fs::TryLockError::WouldBlock)
                if start.elapsed() < Duration::from_millis(500) =>
            {
                std::thread::sleep(Duration::from_millis(25));
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                return Err(DaemonError::AlreadyRunning {
                    dir: dir.display().to_string(),
                    holder: if holder.is_empty() {
                        "its pid is not recorded".into()
                    } else {
                        holder.to_string()
                    },
                });
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
        }
    }
    file.set_len(0).map_err(io)?;
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    write!(
        file,
        "pid {} (learnsync daemon) since {}",
        std::process::id(),
        crate::timestamp::Timestamp::now()
    )
    .map_err(io)?;
    file.flush().map_err(io)?;
    Ok(Instance { _file: file })
}

/// The running daemon's lock line, or `None` when no daemon holds the lock.
pub fn holder(path: &Path) -> Option<String> {
    crate::store::lock_holder(path).map(|t| {
        if t.is_empty() {
            "a daemon whose pid is not recorded".into()
        } else {
            t
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_claim_names_the_first_holder_and_a_dropped_one_frees_the_lock() {
        let tmp = tempfile::tempdir().expect("tmp");
        let path = tmp.path().join("daemon.lock");
        assert_eq!(holder(&path), None);
        let first = claim(&path, tmp.path()).expect("first");
        let line = holder(&path).expect("held");
        assert!(
            line.contains(&format!("pid {}", std::process::id())),
            "{line}"
        );
        match claim(&path, tmp.path()) {
            Err(DaemonError::AlreadyRunning { holder, .. }) => assert_eq!(holder, line),
            other => panic!("expected a refusal, got {:?}", other.err()),
        }
        drop(first);
        // A process another test forks at that instant shares the open
        // lock until it execs (the descriptor is close-on-exec): wait out
        // that moment rather than call it a held lock.
        let freed = Instant::now();
        while holder(&path).is_some() && freed.elapsed() < Duration::from_secs(2) {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(holder(&path), None);
        assert!(claim(&path, tmp.path()).is_ok());
    }
}
