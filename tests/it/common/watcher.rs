//! The background work-tree watcher (`watch: on`) as tests meet it: wait
//! until one answers for a dir, and stop it when a test ends, pass or fail,
//! so no watcher outlives its temp dir.

use std::path::Path;
use std::time::{Duration, Instant};

use super::sandbox::Sandbox;

/// Waits until a watcher answers for the dir at `root`.
pub fn wait_for_watcher(root: &Path) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while learnsync::watch::query(root, None).is_none() {
        assert!(
            Instant::now() < deadline,
            "no watcher came up for {}",
            root.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs `watch --stop` in the sandbox when dropped.
pub struct StopOnDrop<'a>(pub &'a Sandbox);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        let _ = self.0.run(&["watch", "--stop"]);
    }
}
