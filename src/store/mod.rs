//! The file edge: the learnings dir on disk — reading every learning and
//! events file, atomic writes, the inbox, the sync lock, and which files
//! the ignore rules leave out.

pub mod hook_policy;
mod ignore;
mod inbox;
mod lock;
mod reported;
mod review_cache;
mod state;

pub use ignore::{DROPPINGS, IgnoreRules};
pub use inbox::{Inbox, InboxItem, InboxPayload};
pub use lock::{
    INDEX_BUILD, LockError, SyncLock, holder as lock_holder, index_build_running,
    wait_for_index_build,
};

/// Starts `exe` (a learnsync) with `args`, detached from this process's
/// terminal and stdio, in a process group of its own: a helper that
/// outlives the command that started it (the watcher, a first index build).
pub fn spawn_detached(
    exe: &Path,
    args: &[&std::ffi::OsStr],
) -> std::io::Result<std::process::Child> {
    use std::os::unix::process::CommandExt;
    std::process::Command::new(exe)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn()
}
pub use reported::Reported;
pub use review_cache::{ProblemSeen, ReviewCache, Tracked};
pub use state::StateDir;

pub use crate::problem::Problem;

use crate::event::{self, Event};
use crate::learning::Learning;
use crate::paths::{self, RepoPath};
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes a file so a crash leaves either the old or the new bytes: temp
/// file in the same folder, fsync, rename, fsync of the folder.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_via_temp(path, bytes, true)
}

/// Replaces a work-tree file through a temp file and a rename, without
/// fsync: like git's checkout. The cycle marker, not durability of each
/// file, is what makes an interrupted cycle recoverable (docs/sync.md).
pub fn replace_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_via_temp(path, bytes, false)
}

/// Puts `bytes` in a work-tree file as a checkout does, for a file whose
/// content is already safe in a commit: an existing regular file with one
/// link is rewritten in place (no new inode: creating one is most of a
/// checkout's cost), a new one is created in place, anything else goes
/// through [`replace_file`]. Neither
/// atomic nor fsynced: the cycle marker names every path being written, and
/// the next cycle rewrites any a crash left torn (docs/sync.md). Symlinks
/// are never followed (`O_NOFOLLOW`), and a file with other hard links is
/// replaced, not edited, so nothing outside the file itself changes.
pub fn overwrite_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    /// Linux's and the BSDs' `O_NOFOLLOW` differ; std does not name it.
    #[cfg(target_os = "linux")]
    const O_NOFOLLOW: i32 = 0o400_000;
    #[cfg(not(target_os = "linux"))]
    const O_NOFOLLOW: i32 = 0x100;
    let opened = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(O_NOFOLLOW)
        .open(path);
    let mut f = match opened {
        Ok(f) => f,
        // A new file: created where it goes (`O_EXCL`, which follows no
        // link); its folder missing is the caller's NotFound.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let created = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(path);
            return match created {
                Ok(mut f) => f.write_all(bytes),
                // Made meanwhile: replaced whole, as any other.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    replace_file(path, bytes)
                }
                Err(e) => Err(e),
            };
        }
        // A symlink (ELOOP) or anything else: the temp-file path replaces
        // the link itself, or says what is wrong.
        Err(_) => return replace_file(path, bytes),
    };
    let meta = f.metadata()?;
    if !meta.is_file() || meta.nlink() != 1 {
        drop(f);
        return replace_file(path, bytes);
    }
    // Written over, then cut to length: never truncated to zero first,
    // which makes ext4 flush the file on close (its `auto_da_alloc`
    // guard for rewrite-in-place), a disk write per file.
    f.write_all(bytes)?;
    if meta.len() > bytes.len() as u64 {
        f.set_len(bytes.len() as u64)?;
    }
    Ok(())
}

/// Appends `bytes` (one or more whole lines) to `path` in a single `write`,
/// creating the file (and its folder) the first time. Concurrent appenders
/// never interleave within one call on a local filesystem (`O_APPEND`), and
/// no inode is created or freed once the file exists: this is how the
/// capture hook's caches grow without a temp file and a rename per call.
/// No fsync: for caches, whose loss costs a missed match, not a capture.
pub fn append_line(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let open = || {
        std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)
    };
    let mut f = match open() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            open()?
        }
        other => other?,
    };
    f.write_all(bytes)
}

/// [`atomic_write`] for a file written as a stream: `write` fills the temp
/// file (and may seek in it), which is put in place only when `write`
/// returns true; otherwise it is removed and `path` is left as it was.
pub fn atomic_write_with(
    path: &Path,
    write: impl FnOnce(&mut std::fs::File) -> std::io::Result<bool>,
) -> std::io::Result<bool> {
    via_temp(path, true, write)
}

/// [`replace_file`] for a file written as a stream, as
/// [`atomic_write_with`] does (no fsync).
pub fn replace_file_with(
    path: &Path,
    write: impl FnOnce(&mut std::fs::File) -> std::io::Result<bool>,
) -> std::io::Result<bool> {
    via_temp(path, false, write)
}

fn write_via_temp(path: &Path, bytes: &[u8], durable: bool) -> std::io::Result<()> {
    via_temp(path, durable, |f| f.write_all(bytes).map(|()| true)).map(drop)
}

/// The prefix of [`atomic_write`]'s temp files: `.tmp-<32 hex>-<name>`.
const TEMP_PREFIX: &str = ".tmp-";

/// True when `name` (a file name, not a path) is one of the temp files
/// [`atomic_write`] and [`replace_file`] make and rename: one that is still
/// there was left by a process killed mid-write, and holds nothing that the
/// file it was to replace (or the commit that was being checked out) lacks.
pub fn is_temp_name(name: &str) -> bool {
    name.strip_prefix(TEMP_PREFIX)
        .and_then(|rest| rest.as_bytes().get(..33))
        .is_some_and(|id| {
            id[32] == b'-'
                && id[..32]
                    .iter()
                    .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        })
}

/// A temp file older than this was left by a killed process (no write of
/// ours takes more than seconds), where writers run without the sync lock.
pub const STALE_TEMP: std::time::Duration = std::time::Duration::from_secs(600);

/// Removes the temp files ([`is_temp_name`]) in `folder` older than
/// [`STALE_TEMP`]: those a killed write left, not one being written now.
pub fn remove_stale_temps(folder: &Path) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for e in entries.flatten() {
        let stale = is_temp_name(&e.file_name().to_string_lossy())
            && e.metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > STALE_TEMP));
        if stale {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

fn via_temp(
    path: &Path,
    durable: bool,
    write: impl FnOnce(&mut std::fs::File) -> std::io::Result<bool>,
) -> std::io::Result<bool> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(
        "{TEMP_PREFIX}{}-{name}",
        uuid::Uuid::new_v4().simple()
    ));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        if !write(&mut f)? {
            return Ok(false);
        }
        if durable {
            f.sync_all()?;
        }
        std::fs::rename(&tmp, path)?;
        if durable {
            std::fs::File::open(dir)?.sync_all()?;
        }
        Ok(true)
    })();
    if !matches!(result, Ok(true)) {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// A learning read from the work tree or the inbox.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// Repository-relative path (`claude/<id>.md`), or the inbox file.
    pub path: String,
    pub learning: Learning,
    pub in_inbox: bool,
}

/// Everything readable in a learnings dir.
#[derive(Debug, Default)]
pub struct Scan {
    pub learnings: Vec<Loaded>,
    pub problems: Vec<Problem>,
}

/// A learnings dir: a git work tree plus local state under `.git/learnsync/`.
#[derive(Debug, Clone)]
pub struct LearningsDir {
    pub root: PathBuf,
}

impl LearningsDir {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        LearningsDir { root: root.into() }
    }

    /// Its local state, `.git/learnsync/`.
    pub fn state(&self) -> StateDir {
        StateDir::of(&self.root)
    }

    /// True when some agent folder of the work tree, or the inbox, holds
    /// the learning `id`.
    pub fn knows(&self, id: &str) -> bool {
        let file = format!("{id}.md");
        let in_tree = std::fs::read_dir(&self.root)
            .ok()
            .is_some_and(|entries| entries.flatten().any(|e| e.path().join(&file).is_file()));
        in_tree
            || self
                .inbox()
                .items()
                .iter()
                .any(|item| matches!(&item.payload, Ok(InboxPayload::Learning(l)) if l.id == id))
    }

    pub fn inbox(&self) -> Inbox {
        Inbox::new(self.state().inbox())
    }

    pub fn is_initialised(&self) -> bool {
        self.root.join(".git").is_dir()
    }

    /// Reads every learning file in the work tree (`<agent>/<id>.md`, and
    /// terraphim `shared/` copies whose id has no own file).
    pub fn scan(&self) -> Scan {
        let mut scan = Scan::default();
        let mut files = Vec::new();
        let mut shared = Vec::new();
        let Ok(top) = std::fs::read_dir(&self.root) else {
            scan.problems.push(Problem {
                path: self.root.display().to_string(),
                message: "cannot list the learnings dir".into(),
            });
            return scan;
        };
        for entry in top.flatten() {
            let Some(dir) = entry.file_name().to_str().map(str::to_string) else {
                continue;
            };
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            if !is_dir || dir.starts_with('.') || dir == "events" || dir == "kg" || dir == "reviews"
            {
                continue;
            }
            let Ok(inner) = std::fs::read_dir(entry.path()) else {
                continue;
            };
            for file in inner.flatten() {
                let Some(name) = file.file_name().to_str().map(str::to_string) else {
                    continue;
                };
                if !name.ends_with(".md") || name.starts_with('.') {
                    continue;
                }
                let rel = format!("{dir}/{name}");
                if dir == "shared" {
                    shared.push(rel);
                } else {
                    files.push(rel);
                }
            }
        }
        files.sort();
        shared.sort();
        let parsed = parse_parallel(&self.root, &files);
        let mut ids = HashSet::new();
        for (rel, result) in files.into_iter().zip(parsed) {
            match result {
                Ok(learning) => {
                    ids.insert(learning.id.clone());
                    scan.learnings.push(Loaded {
                        path: rel,
                        learning,
                        in_inbox: false,
                    });
                }
                Err(message) => scan.problems.push(Problem { path: rel, message }),
            }
        }
        for rel in shared {
            match std::fs::read(self.root.join(&rel))
                .map_err(|e| e.to_string())
                .and_then(|b| Learning::parse_at(&rel, &b))
            {
                Ok(learning) if !ids.contains(&learning.id) => {
                    ids.insert(learning.id.clone());
                    scan.learnings.push(Loaded {
                        path: rel,
                        learning,
                        in_inbox: false,
                    });
                }
                Ok(_) => {}
                Err(message) => scan.problems.push(Problem { path: rel, message }),
            }
        }
        // A file the ignore rules leave out of the sync is no one's problem.
        if !scan.problems.is_empty() {
            let mut ignore = IgnoreRules::read(&self.root, &self.root.join(".git"));
            scan.problems.retain(|p| !ignore.ignores(&p.path));
        }
        scan
    }

    /// Reads every events file in the work tree.
    pub fn read_events(&self) -> (Vec<Event>, Vec<Problem>) {
        let mut events = Vec::new();
        let mut problems = Vec::new();
        let Ok(agents) = std::fs::read_dir(self.root.join("events")) else {
            return (events, problems);
        };
        let mut files: Vec<String> = Vec::new();
        for agent in agents.flatten() {
            let Ok(months) = std::fs::read_dir(agent.path()) else {
                continue;
            };
            for month in months.flatten() {
                let rel = format!(
                    "events/{}/{}",
                    agent.file_name().to_string_lossy(),
                    month.file_name().to_string_lossy()
                );
                if matches!(paths::classify(&rel), RepoPath::Events { .. }) {
                    files.push(rel);
                }
            }
        }
        files.sort();
        for rel in files {
            match std::fs::read(self.root.join(&rel)) {
                Ok(bytes) => {
                    let parsed = event::parse_file(&event::decode(&bytes));
                    for p in event::foreign_lines(&rel, &parsed.events) {
                        problems.push(p);
                    }
                    events.extend(
                        parsed
                            .events
                            .into_iter()
                            .filter(|e| event::in_own_folder(&rel, e)),
                    );
                    for (line, _, why) in parsed.bad_lines {
                        problems.push(Problem {
                            path: format!("{rel}:{line}"),
                            message: why,
                        });
                    }
                }
                Err(e) => problems.push(Problem {
                    path: rel,
                    message: e.to_string(),
                }),
            }
        }
        (events, problems)
    }
}

/// Reads and parses files on every core: a 10,000-file dir is the common case.
fn parse_parallel(root: &Path, files: &[String]) -> Vec<Result<Learning, String>> {
    let read = |rel: &String| -> Result<Learning, String> {
        let full = root.join(rel);
        let meta = std::fs::symlink_metadata(&full).map_err(|e| e.to_string())?;
        if !meta.is_file() {
            return Err("not a regular file".into());
        }
        if meta.len() > crate::learning::MAX_FILE_BYTES as u64 {
            return Err(crate::learning::ParseError::TooLarge(meta.len() as usize).to_string());
        }
        let bytes = std::fs::read(&full).map_err(|e| e.to_string())?;
        Learning::parse_at(rel, &bytes)
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    if files.len() < 256 || threads == 1 {
        return files.iter().map(read).collect();
    }
    let chunk = files.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = files
            .chunks(chunk)
            .map(|part| s.spawn(move || part.iter().map(read).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkout_write_keeps_the_inode_and_never_writes_through_a_link() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("l.md");
        std::fs::write(&file, b"a longer old content\n").expect("write");
        let ino = std::fs::metadata(&file).expect("stat").ino();
        overwrite_file(&file, b"new\n").expect("rewrite");
        assert_eq!(
            std::fs::read(&file).expect("read"),
            b"new\n",
            "cut to length"
        );
        assert_eq!(
            std::fs::metadata(&file).expect("stat").ino(),
            ino,
            "in place"
        );

        // A new file is created where it goes.
        let fresh = dir.path().join("fresh.md");
        overwrite_file(&fresh, b"x").expect("create");
        assert_eq!(std::fs::read(&fresh).expect("read"), b"x");
        // Its folder missing: NotFound, for the caller to make it.
        let deep = dir.path().join("no/such/folder.md");
        let e = overwrite_file(&deep, b"x").expect_err("no folder");
        assert_eq!(e.kind(), std::io::ErrorKind::NotFound);

        // A symlink is replaced, its target left as it was.
        let outside = dir.path().join("outside.txt");
        std::fs::write(&outside, b"keep me").expect("write");
        let link = dir.path().join("link.md");
        std::os::unix::fs::symlink(&outside, &link).expect("symlink");
        overwrite_file(&link, b"learning").expect("replace the link");
        assert_eq!(std::fs::read(&outside).expect("read"), b"keep me");
        assert!(std::fs::symlink_metadata(&link).expect("stat").is_file());
        assert_eq!(std::fs::read(&link).expect("read"), b"learning");

        // A file with another hard link: the other name keeps its bytes.
        let other = dir.path().join("other-name.md");
        std::fs::hard_link(&file, &other).expect("hard link");
        overwrite_file(&file, b"changed").expect("replace");
        assert_eq!(std::fs::read(&other).expect("read"), b"new\n");
        assert_eq!(std::fs::read(&file).expect("read"), b"changed");
    }

    #[test]
    fn temp_names_are_exactly_the_ones_atomic_writes_make() {
        let dir = tempfile::tempdir().expect("temp dir");
        let target = dir.path().join("learning-x.md");
        let made = via_temp(&target, false, |f| {
            let name = std::fs::read_dir(dir.path())
                .expect("list")
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .find(|n| n != "learning-x.md")
                .expect("the temp file");
            assert!(is_temp_name(&name), "{name}");
            f.write_all(b"x").map(|()| true)
        });
        assert_eq!(made.ok(), Some(true));
        let hex = "0123456789abcdef".repeat(2);
        assert!(is_temp_name(&format!(".tmp-{hex}-a.md")));
        for name in [
            ".tmp-notes.md",
            &format!(".tmp-{}-a.md", "0123456789ABCDEF".repeat(2)),
            &format!(".tmp-{}a.md", hex),
            &format!(".tmp-{}-a.md", &hex[1..]),
            &format!("x.tmp-{hex}-a.md"),
            ".tmp-",
            ".tmp-é",
            &format!(".tmp-{}é-a.md", &hex[1..]),
        ] {
            assert!(!is_temp_name(name), "{name}");
        }
    }
}
