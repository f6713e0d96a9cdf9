//! The work-tree watcher, as a user meets it: `watch: on`, a sync starts the
//! watcher in the background, later syncs ask it what changed instead of
//! scanning the tree, and every kind of hand edit (in place, new folder,
//! deletion, edits while no watcher ran) still reaches a commit.

use crate::common;

use common::watcher::{StopOnDrop, wait_for_watcher};
use common::{Sandbox, json};
use std::io::Write;
use std::time::{Duration, Instant};

fn sync(sb: &Sandbox) -> serde_json::Value {
    json(&sb.ok(&["--json", "sync", "--no-fetch", "--no-push"]))
}

#[test]
fn a_watched_sync_scans_only_what_changed_and_misses_no_hand_edit() {
    let sb = Sandbox::new();
    sb.ok(&["init", "--agent", "laptop"]);
    let _stop = StopOnDrop(&sb);
    std::fs::write(
        sb.dir().join(".git/learnsync/config.yaml"),
        "agent: laptop\nwatch: on\n",
    )
    .expect("config");
    for i in 0..3 {
        sb.ok(&[
            "add",
            "--title",
            &format!("learning {i}"),
            "--command",
            &format!("cmd{i}"),
            "--correction",
            "fix",
        ]);
    }
    // No watcher yet: a full scan, and the watcher starts.
    let first = sync(&sb);
    assert_eq!(first["watched"], false);
    // The whole tree was looked at (only the policy file before this commit).
    assert!(first["scanned_files"].as_u64() >= Some(1), "{first}");
    wait_for_watcher(sb.dir());
    // The watcher has no token for us yet: one more full scan, token saved.
    assert_eq!(sync(&sb)["watched"], false);
    // Nothing new: nothing scanned.
    let noop = sync(&sb);
    assert_eq!(noop["watched"], true, "{noop}");
    assert_eq!(noop["scanned_files"], 0, "{noop}");
    assert!(noop["commit"].is_null());

    // An edit in place (no rename, the folder's mtime does not move).
    let learnings: Vec<_> = std::fs::read_dir(sb.dir().join("laptop"))
        .expect("laptop/")
        .flatten()
        .map(|e| format!("laptop/{}", e.file_name().to_string_lossy()))
        .collect();
    assert_eq!(learnings.len(), 3);
    let edited = &learnings[0];
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(sb.dir().join(edited))
        .expect("open");
    f.write_all(b"\nA note added by hand.\n").expect("append");
    drop(f);
    let report = sync(&sb);
    assert_eq!(report["watched"], true);
    assert_eq!(report["scanned_files"], 1, "{report}");
    assert!(
        sb.committed(edited)
            .is_some_and(|t| t.contains("A note added by hand.")),
        "the in-place edit was not committed"
    );

    // A deletion, and a new folder with a file in it.
    std::fs::remove_file(sb.dir().join(&learnings[1])).expect("rm");
    std::fs::create_dir_all(sb.dir().join("kg/notes")).expect("mkdir");
    std::fs::write(sb.dir().join("kg/notes/terms.md"), "# terms\n").expect("write");
    let report = sync(&sb);
    assert_eq!(report["watched"], true);
    assert_eq!(
        sb.committed(&learnings[1]),
        None,
        "the deletion was not committed"
    );
    assert_eq!(
        sb.committed("kg/notes/terms.md").as_deref(),
        Some("# terms\n")
    );
    assert_eq!(sb.git(&["status", "--porcelain"]), "");

    // Edits while no watcher runs: the next sync scans everything again.
    sb.ok(&["watch", "--stop"]);
    std::fs::write(sb.dir().join("kg/notes/terms.md"), "# terms, v2\n").expect("write");
    let report = sync(&sb);
    assert_eq!(report["watched"], false, "{report}");
    assert_eq!(
        sb.committed("kg/notes/terms.md").as_deref(),
        Some("# terms, v2\n")
    );
    // A new watcher does not accept the old one's token: a full scan first.
    wait_for_watcher(sb.dir());
    assert_eq!(sync(&sb)["watched"], false);
    assert_eq!(sync(&sb)["watched"], true);
    assert_eq!(sb.git(&["status", "--porcelain"]), "");
}

#[test]
fn watch_off_never_starts_a_watcher_and_small_dirs_do_not_get_one() {
    for config in ["agent: laptop\nwatch: off\n", "agent: laptop\n"] {
        let sb = Sandbox::new();
        sb.ok(&["init", "--agent", "laptop"]);
        let _stop = StopOnDrop(&sb);
        std::fs::write(sb.dir().join(".git/learnsync/config.yaml"), config).expect("config");
        sync(&sb);
        std::thread::sleep(Duration::from_millis(300));
        assert!(
            learnsync::watch::query(sb.dir(), None).is_none(),
            "a watcher runs with {config:?}"
        );
        assert_eq!(sync(&sb)["watched"], false);
    }
}

/// True while the process runs (a zombie waiting for its reaper counts as gone).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .map(|(_, rest)| rest.trim_start().to_string())
        })
        .is_some_and(|rest| !rest.starts_with('Z') && !rest.starts_with('X'))
}

#[test]
fn the_watcher_exits_when_its_dir_is_deleted() {
    let sb = Sandbox::new();
    sb.ok(&["init", "--agent", "laptop"]);
    std::fs::write(
        sb.dir().join(".git/learnsync/config.yaml"),
        "agent: laptop\nwatch: on\n",
    )
    .expect("config");
    sync(&sb);
    wait_for_watcher(sb.dir());
    let pid: u32 = std::fs::read_to_string(sb.dir().join(".git/learnsync/watch.lock"))
        .expect("watch.lock")
        .trim()
        .parse()
        .expect("a pid in watch.lock");
    assert!(alive(pid), "watcher {pid} is not running");
    std::fs::remove_dir_all(sb.dir()).expect("rm -rf the learnings dir");
    let deadline = Instant::now() + Duration::from_secs(10);
    while alive(pid) {
        assert!(Instant::now() < deadline, "watcher {pid} outlived its dir");
        std::thread::sleep(Duration::from_millis(20));
    }
}
