//! A `learnsync daemon` as the daemon tests drive it: the real binary
//! running with its log collected line by line, signals sent with `kill`,
//! its config written and its run records read back. The network side
//! (HTTP probes, a slow proxy) is in `net`, `/metrics` parsing in
//! `prometheus`.

use learnsync::daemon::RunRecord;
use learnsync::store::LearningsDir;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A running `learnsync daemon`; killed on drop if still running.
pub struct Daemon {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
    pub pid: u32,
}

impl Daemon {
    /// Starts `cmd` (a `learnsync … daemon` command) with its stderr collected.
    pub fn start(mut cmd: Command) -> Daemon {
        cmd.stdout(Stdio::null())
            .stderr(Stdio::piped())
            .stdin(Stdio::null());
        let mut child = cmd.spawn().expect("start the daemon");
        let stderr = child.stderr.take().expect("stderr");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { return };
                sink.lock().expect("log").push(line);
            }
        });
        let pid = child.id();
        Daemon { child, lines, pid }
    }

    /// Every log line so far.
    pub fn log(&self) -> String {
        self.lines.lock().expect("log").join("\n")
    }

    /// Waits for a log line containing `text`; returns it.
    pub fn wait_for(&mut self, text: &str, timeout: Duration) -> String {
        let start = Instant::now();
        loop {
            if let Some(line) = self
                .lines
                .lock()
                .expect("log")
                .iter()
                .find(|l| l.contains(text))
            {
                return line.clone();
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "the daemon exited ({status}) before logging {text:?}:\n{}",
                    self.log()
                );
            }
            assert!(
                start.elapsed() < timeout,
                "no log line with {text:?} within {timeout:?}:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// SIGTERM, and a clean exit within 30 s.
    pub fn stop(&mut self) {
        self.signal("TERM");
        assert!(
            self.wait_exit(Duration::from_secs(30)).success(),
            "{}",
            self.log()
        );
    }

    /// Sends a signal by name (`TERM`, `HUP`, `INT`).
    pub fn signal(&self, name: &str) {
        let out = Command::new("kill")
            .args(["-s", name, &self.pid.to_string()])
            .output()
            .expect("kill");
        assert!(out.status.success(), "kill -s {name} {}", self.pid);
    }

    /// Waits for the daemon to exit; panics after `timeout`.
    pub fn wait_exit(&mut self, timeout: Duration) -> ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                // Let the reader thread take the last lines.
                std::thread::sleep(Duration::from_millis(50));
                return status;
            }
            assert!(
                start.elapsed() < timeout,
                "the daemon did not exit within {timeout:?}:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Whether the process has not exited yet.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if self.is_running() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Every run recorded in `dir`.
pub fn runs(dir: &Path) -> Vec<RunRecord> {
    learnsync::daemon::runs::read(&LearningsDir::new(dir))
}

/// Waits until `pred` holds of the run records; returns them.
pub fn wait_runs(
    dir: &Path,
    timeout: Duration,
    what: &str,
    pred: impl Fn(&[RunRecord]) -> bool,
) -> Vec<RunRecord> {
    let start = Instant::now();
    loop {
        let all = runs(dir);
        if pred(&all) {
            return all;
        }
        assert!(
            start.elapsed() < timeout,
            "{what}: not within {timeout:?}; runs so far:\n{}",
            all.iter()
                .map(|r| format!("{r:?}"))
                .collect::<Vec<_>>()
                .join("\n")
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Writes `.git/learnsync/config.yaml`.
pub fn write_config(dir: &Path, text: &str) {
    std::fs::write(dir.join(".git/learnsync/config.yaml"), text).expect("config");
}
