//! `.git/learnsync/`: one clone's local state, never committed or pushed.
//! The one owner of every file name in it: modules ask [`StateDir`] for a
//! path instead of spelling names, so the layout is readable in one place
//! (and in docs/format.md, which lists the same files).

use std::path::{Path, PathBuf};

/// The state folder of a learnings dir.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateDir {
    path: PathBuf,
}

impl StateDir {
    /// The state folder of the learnings dir whose work tree is `root`.
    pub fn of(root: &Path) -> Self {
        StateDir {
            path: root.join(".git").join("learnsync"),
        }
    }

    /// A state folder at `path` itself (tests, and code handed the folder).
    pub fn at(path: impl Into<PathBuf>) -> Self {
        StateDir { path: path.into() }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn file(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// This clone's configuration (second in precedence after the environment).
    pub fn config(&self) -> PathBuf {
        self.file("config.yaml")
    }
    /// Captures and events waiting for the next sync.
    pub fn inbox(&self) -> PathBuf {
        self.file("inbox")
    }
    /// Files that stood where a folder of the tree had to go, moved aside
    /// by a work-tree write (never deleted).
    pub fn displaced(&self) -> PathBuf {
        self.file("displaced")
    }
    /// Inbox files that could not be read, set aside (never deleted).
    pub fn inbox_rejected(&self) -> PathBuf {
        self.file("inbox-rejected")
    }
    /// The sync lock: an OS lock whose file names its holder.
    pub fn sync_lock(&self) -> PathBuf {
        self.file("lock")
    }
    /// Written by a sync that left the indexes' first build to a detached
    /// `learnsync index`, removed when that build ends: readers finding no
    /// index know one is coming, even before the build holds the lock.
    pub fn index_build_pending(&self) -> PathBuf {
        self.file("index-build-pending")
    }
    /// The last sync's report, for `status`.
    pub fn last_sync(&self) -> PathBuf {
        self.file("last-sync.json")
    }
    /// Present only while a cycle moves the work tree (crash recovery).
    pub fn cycle_marker(&self) -> PathBuf {
        self.file("cycle-in-progress.json")
    }
    /// The tree the index was last found to hold and the index file's
    /// stat then: a cache that spares a status comparing them.
    pub fn index_record(&self) -> PathBuf {
        self.file("index-tree")
    }
    /// What the sync has told the user about the work tree already (a
    /// file holding a secret, a nested repository, a file over the size
    /// limit), so each is said once.
    pub fn reported(&self) -> PathBuf {
        self.file("reported.json")
    }
    /// Events by learning, a cache for the recompute.
    pub fn events_index(&self) -> PathBuf {
        self.file("events.redb")
    }
    /// Git lock files a killed process left, moved aside.
    pub fn stale_locks(&self) -> PathBuf {
        self.file("stale-locks")
    }
    /// What publish last put on each wiki.
    pub fn publish_state(&self) -> PathBuf {
        self.file("publish-state.json")
    }
    /// The capture hook's lookup snapshot, its advice subset, its log and the
    /// log being folded into a new snapshot.
    pub fn capture_index(&self) -> PathBuf {
        self.file("capture-index.json")
    }
    pub fn capture_advice(&self) -> PathBuf {
        self.file("capture-advice.json")
    }
    pub fn capture_log(&self) -> PathBuf {
        self.file("capture-log.jsonl")
    }
    pub fn capture_folding(&self) -> PathBuf {
        self.file("capture-log.folding.jsonl")
    }
    /// The enforcement and outcome window the hooks act on (the last
    /// sync's policy in force).
    pub fn hook_policy(&self) -> PathBuf {
        self.file("hook-policy.json")
    }
    /// Per-session capture state (pending failures awaiting their fix,
    /// learnings shown and followed).
    pub fn sessions(&self) -> PathBuf {
        self.file("sessions")
    }
    /// The work-tree watcher's socket, lock, saved token and cookie folder.
    pub fn watch_socket(&self) -> PathBuf {
        self.file("watch.sock")
    }
    pub fn watch_lock(&self) -> PathBuf {
        self.file("watch.lock")
    }
    pub fn watch_token(&self) -> PathBuf {
        self.file("watch-token")
    }
    pub fn watch_cookies(&self) -> PathBuf {
        self.file("watch-cookies")
    }
    /// The search index, a cache for `suggest`, `query` and `context`.
    pub fn search_index(&self) -> PathBuf {
        self.file("search")
    }
    /// The state of the hub's `main` the last sync recomputed for (see the hub module).
    pub fn hub_main(&self) -> PathBuf {
        self.file("hub-main.json")
    }
    /// The agents this clone writes as besides its home agent (one name a
    /// line): their branches are pushed too, their folders merged as ours (§1, §6.1).
    pub fn hosted_agents(&self) -> PathBuf {
        self.file("hosted-agents")
    }
    /// The review pass's local record of what it last did on the hub.
    pub fn review_state(&self) -> PathBuf {
        self.file("review-state.json")
    }
    /// The daemon's run log (one JSON line per run, bounded), its instance
    /// lock (an OS lock; the file names the holder's pid) and each job's
    /// state (last run, last success, failures, backoff), which `status`
    /// reads whether or not a daemon runs.
    pub fn daemon_runs(&self) -> PathBuf {
        self.file("daemon-runs.jsonl")
    }
    pub fn daemon_lock(&self) -> PathBuf {
        self.file("daemon.lock")
    }
    pub fn daemon_jobs(&self) -> PathBuf {
        self.file("daemon-jobs.json")
    }
}
