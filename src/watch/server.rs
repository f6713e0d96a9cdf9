//! The watcher process: one thread reads inotify events into a numbered list
//! of changed paths; the main thread answers sync's questions on the socket.
//! It exits when asked, when the learnings dir goes away, or after a day
//! without a question. One watcher per dir (a lock held while it lives).

use super::{Answer, Request};
use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask};
use std::collections::{BTreeSet, HashMap};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Changes remembered at most; past that, older tokens get a full scan.
const MAX_CHANGES: usize = 200_000;
/// How long an answer waits for its cookie before saying "scan everything".
const COOKIE_WAIT: Duration = Duration::from_secs(2);
/// A watcher nobody asked for this long exits.
const IDLE_EXIT: Duration = Duration::from_secs(24 * 60 * 60);
/// How often the watcher checks that its dir is still there.
const HOUSEKEEPING: Duration = Duration::from_secs(2);

#[derive(Default)]
struct State {
    /// Sequence number of the last change.
    seq: u64,
    /// Tokens at or before this sequence cannot be answered (overflow, trim).
    floor: u64,
    changes: Vec<(u64, String)>,
    cookies: BTreeSet<String>,
    last_question: Option<Instant>,
}

impl State {
    fn record(&mut self, path: String) {
        self.seq += 1;
        self.changes.push((self.seq, path));
        if self.changes.len() > MAX_CHANGES {
            self.changes.clear();
            self.floor = self.seq;
        }
    }

    fn lose_track(&mut self) {
        self.seq += 1;
        self.changes.clear();
        self.floor = self.seq;
    }
}

type Shared = Arc<(Mutex<State>, Condvar)>;

fn lock(shared: &Shared) -> MutexGuard<'_, State> {
    shared
        .0
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Runs the watcher for the learnings dir at `root`: returns when asked to
/// stop; **ends the process** when the dir goes away or after a day without
/// a question (only `learnsync watch` calls this). Returns at once when
/// another watcher already serves this dir.
pub fn serve(root: &Path) -> std::io::Result<()> {
    let state = crate::store::StateDir::of(root);
    std::fs::create_dir_all(state.path())?;
    let mut lock_file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(state.watch_lock())?;
    if lock_file.try_lock().is_err() {
        return Ok(()); // another watcher is serving this dir
    }
    // Who holds it, for people (and tests) looking for the process.
    lock_file.set_len(0)?;
    lock_file.write_all(format!("{}\n", std::process::id()).as_bytes())?;
    let socket = super::socket_path(root).ok_or_else(|| {
        std::io::Error::other("no usable socket path (the dir's path is too long)")
    })?;
    let _ = std::fs::remove_file(&socket);
    let listener = UnixListener::bind(&socket)?;
    let cookie_dir = state.watch_cookies();
    let _ = std::fs::remove_dir_all(&cookie_dir);
    std::fs::create_dir_all(&cookie_dir)?;

    let mut inotify = Inotify::init()?;
    let cookie_wd = inotify
        .watches()
        .add(&cookie_dir, WatchMask::CREATE | WatchMask::ONLYDIR)?;
    let mut dirs: HashMap<WatchDescriptor, String> = HashMap::new();
    watch_tree(&mut inotify, root, "", &mut dirs)?;
    let id = format!("{:016x}", rand_id());
    let shared: Shared = Arc::new((Mutex::new(State::default()), Condvar::new()));

    // The watcher ends the process itself when the dir goes away (its
    // socket went with it, so nothing could wake the accept loop; a new
    // watcher may already own that path: nothing is cleaned up) and after a
    // day without a question.
    let reader_shared = shared.clone();
    let reader_root = root.to_path_buf();
    std::thread::spawn(move || {
        read_events(inotify, &reader_root, cookie_wd, dirs, &reader_shared);
        std::process::exit(0);
    });
    // Housekeeping: inotify does not always say that the watched root itself
    // went away (its last reference may be dropped later), so look: a root
    // that is gone or is another folder now (deleted and made again) ends
    // this watcher; so does a day without a question.
    let idle_shared = shared.clone();
    let idle_socket = socket.clone();
    let idle_cookies = cookie_dir.clone();
    let idle_root = root.to_path_buf();
    let identity = |p: &Path| {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()))
    };
    let root_id = identity(root);
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(HOUSEKEEPING);
            if identity(&idle_root) != root_id {
                std::process::exit(0);
            }
            let idle = lock(&idle_shared)
                .last_question
                .is_some_and(|t| t.elapsed() > IDLE_EXIT);
            if idle {
                let _ = std::fs::remove_file(&idle_socket);
                let _ = std::fs::remove_dir_all(&idle_cookies);
                std::process::exit(0);
            }
        }
    });
    lock(&shared).last_question = Some(Instant::now());

    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        match answer(stream, &id, &cookie_dir, &shared) {
            Ok(true) => break,
            Ok(false) => {}
            Err(e) => tracing::debug!("watch: a question failed: {e}"),
        }
    }
    let _ = std::fs::remove_file(&socket);
    let _ = std::fs::remove_dir_all(&cookie_dir);
    drop(lock_file);
    Ok(())
}

/// A process-unique id, so tokens of another watcher are never accepted.
fn rand_id() -> u64 {
    let bytes = uuid::Uuid::new_v4();
    u64::from_le_bytes(bytes.as_bytes()[..8].try_into().unwrap_or([0; 8]))
}

/// Adds a watch on `rel` (relative to root) and every folder below it,
/// except `.git`.
fn watch_tree(
    inotify: &mut Inotify,
    root: &Path,
    rel: &str,
    dirs: &mut HashMap<WatchDescriptor, String>,
) -> std::io::Result<()> {
    let full = if rel.is_empty() {
        root.to_path_buf()
    } else {
        root.join(rel)
    };
    let mask = WatchMask::MODIFY
        | WatchMask::ATTRIB
        | WatchMask::CLOSE_WRITE
        | WatchMask::CREATE
        | WatchMask::DELETE
        | WatchMask::MOVED_FROM
        | WatchMask::MOVED_TO
        | WatchMask::DELETE_SELF
        | WatchMask::MOVE_SELF
        | WatchMask::ONLYDIR
        | WatchMask::DONT_FOLLOW;
    let wd = inotify.watches().add(&full, mask)?;
    dirs.insert(wd, rel.to_string());
    for entry in std::fs::read_dir(&full)?.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        if kind.is_dir() && !(rel.is_empty() && name == ".git") {
            let child = join(rel, &name);
            // A folder that vanished meanwhile is reported by its parent.
            let _ = watch_tree(inotify, root, &child, dirs);
        }
    }
    Ok(())
}

fn join(rel: &str, name: &str) -> String {
    if rel.is_empty() {
        name.to_string()
    } else {
        format!("{rel}/{name}")
    }
}

fn read_events(
    mut inotify: Inotify,
    root: &Path,
    cookie_wd: WatchDescriptor,
    mut dirs: HashMap<WatchDescriptor, String>,
    shared: &Shared,
) {
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let events = match inotify.read_events_blocking(&mut buffer) {
            Ok(events) => events,
            Err(e) => {
                tracing::debug!("watch: reading events failed: {e}");
                return;
            }
        };
        let mut new_dirs: Vec<String> = Vec::new();
        let mut gone = false;
        {
            let mut state = lock(shared);
            for event in events {
                if event.mask.contains(EventMask::Q_OVERFLOW) {
                    state.lose_track();
                    continue;
                }
                if event.wd == cookie_wd {
                    if let Some(name) = event.name.and_then(|n| n.to_str()) {
                        state.cookies.insert(name.to_string());
                    }
                    continue;
                }
                let Some(dir) = dirs.get(&event.wd).cloned() else {
                    continue;
                };
                if event.mask.contains(EventMask::IGNORED) {
                    dirs.remove(&event.wd);
                    if dir.is_empty() {
                        gone = true;
                    }
                    continue;
                }
                if event
                    .mask
                    .intersects(EventMask::DELETE_SELF | EventMask::MOVE_SELF)
                {
                    if dir.is_empty() {
                        gone = true;
                    }
                    state.record(dir);
                    continue;
                }
                let Some(name) = event.name.and_then(|n| n.to_str()) else {
                    // A name that is not UTF-8: its folder is reported.
                    state.record(dir);
                    continue;
                };
                let path = join(&dir, name);
                if event.mask.contains(EventMask::ISDIR)
                    && event
                        .mask
                        .intersects(EventMask::CREATE | EventMask::MOVED_TO)
                {
                    new_dirs.push(path.clone());
                }
                state.record(path);
            }
        }
        shared.1.notify_all();
        if gone {
            return;
        }
        for rel in new_dirs {
            if watch_tree(&mut inotify, root, &rel, &mut dirs).is_err() {
                tracing::debug!("watch: could not watch {rel}");
            }
        }
    }
}

/// Answers one question; true when the watcher should exit.
fn answer(
    stream: UnixStream,
    id: &str,
    cookie_dir: &Path,
    shared: &Shared,
) -> std::io::Result<bool> {
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    stream.set_write_timeout(Some(Duration::from_secs(5)))?;
    let mut line = String::new();
    BufReader::new(&stream).read_line(&mut line)?;
    if line.trim().is_empty() {
        return Ok(false); // a client that connected and said nothing
    }
    let request: Request = serde_json::from_str(&line).map_err(std::io::Error::other)?;
    let since = match request {
        Request::Stop => {
            write_line(&stream, &serde_json::json!({"stopping": true}))?;
            return Ok(true);
        }
        Request::Since(since) => since,
    };
    let synced = sync_cookie(cookie_dir, shared);
    let mut state = lock(shared);
    state.last_question = Some(Instant::now());
    let token = format!("{id}:{}", state.seq);
    let since_seq = since
        .as_deref()
        .and_then(|t| t.split_once(':'))
        .filter(|(their_id, _)| *their_id == id)
        .and_then(|(_, seq)| seq.parse::<u64>().ok())
        .filter(|seq| *seq >= state.floor && *seq <= state.seq);
    let reply = match (synced, since_seq) {
        (true, Some(seq)) => {
            let paths: BTreeSet<&str> = state
                .changes
                .iter()
                .filter(|(n, _)| *n > seq)
                .map(|(_, p)| p.as_str())
                .collect();
            Answer {
                token,
                full: false,
                paths: paths.into_iter().map(str::to_string).collect(),
            }
        }
        _ => Answer {
            token,
            full: true,
            paths: Vec::new(),
        },
    };
    drop(state);
    write_line(&stream, &reply)?;
    Ok(false)
}

/// Creates a cookie file and waits until its event has been read: every
/// change made before now is then recorded. False on timeout.
fn sync_cookie(cookie_dir: &Path, shared: &Shared) -> bool {
    let name = format!("c-{}", uuid::Uuid::new_v4().simple());
    let path: PathBuf = cookie_dir.join(&name);
    if std::fs::File::create(&path).is_err() {
        return false;
    }
    let deadline = Instant::now() + COOKIE_WAIT;
    let mut state = lock(shared);
    let seen = loop {
        if state.cookies.remove(&name) {
            break true;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break false;
        }
        state = match shared.1.wait_timeout(state, left) {
            Ok((guard, _)) => guard,
            Err(poisoned) => poisoned.into_inner().0,
        };
    };
    drop(state);
    let _ = std::fs::remove_file(&path);
    seen
}

fn write_line(mut stream: &UnixStream, value: &impl serde::Serialize) -> std::io::Result<()> {
    let mut bytes = serde_json::to_vec(value).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    stream.write_all(&bytes)
}
