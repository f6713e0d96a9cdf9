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
