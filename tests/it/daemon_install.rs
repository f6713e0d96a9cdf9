//! `daemon install` / `uninstall`: the systemd user unit passes
//! `systemd-analyze verify` (where the tool exists), the files land where
//! the service managers look and go away again, and the launchd agent is a
//! well-formed property list.

use crate::common::Sandbox;
use std::path::Path;
use std::process::Command;

const SYSTEMD_ANALYZE: &str = "/usr/bin/systemd-analyze";

#[test]
fn the_unit_file_passes_systemd_analyze_verify() {
    let s = Sandbox::new();
    s.ok(&["init", "--agent", "a"]);
    let unit = s.ok(&[
        "daemon",
        "install",
        "--print",
        "--manager",
        "systemd",
        "--listen",
        "127.0.0.1:9477",
    ]);
    assert!(unit.contains("Type=notify"), "{unit}");
    assert!(
        unit.contains(&format!(
            "--dir {} daemon --listen 127.0.0.1:9477",
            s.dir().display()
        )),
        "{unit}"
    );
    if !Path::new(SYSTEMD_ANALYZE).exists() {
        eprintln!(
            "skipped: {SYSTEMD_ANALYZE} is not installed (Debian package `systemd`; .ci/run installs it)"
        );
        return;
    }
    let path = s.root().join("learnsync.service");
    std::fs::write(&path, &unit).expect("unit");
    let out = Command::new(SYSTEMD_ANALYZE)
        .arg("verify")
        .arg(&path)
        .env("HOME", s.home())
        .output()
        .expect("systemd-analyze");
    let stderr = String::from_utf8_lossy(&out.stderr);
    // It exits 0 on unknown keys and bad values too, saying so on stderr.
    let complaints: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("learnsync.service"))
        .collect();
    assert!(
        out.status.success() && complaints.is_empty(),
        "systemd-analyze verify: {:?}\n{stderr}\n{unit}",
        out.status.code()
    );
}

#[test]
fn install_and_uninstall_write_and_remove_the_service_files() {
    let s = Sandbox::new();
    s.ok(&["init", "--agent", "a"]);
    let out = s.ok(&["daemon", "install", "--manager", "systemd", "--no-start"]);
    let unit = s.home().join(".config/systemd/user/learnsync.service");
    let text = std::fs::read_to_string(&unit).expect("the unit is written");
    assert!(text.contains("Restart=on-failure"));
    assert!(
        out.contains("systemctl --user enable --now learnsync.service"),
        "{out}"
    );
    assert!(out.contains("loginctl enable-linger"), "{out}");
    let out = s.ok(&["daemon", "uninstall", "--manager", "systemd", "--no-start"]);
    assert!(out.contains("Removed"), "{out}");
    assert!(!unit.exists());

    s.ok(&["daemon", "install", "--manager", "launchd", "--no-start"]);
    let plist = s
        .home()
        .join("Library/LaunchAgents/dev.learnsync.daemon.plist");
    let text = std::fs::read_to_string(&plist).expect("the agent is written");
    assert!(text.starts_with("<?xml"));
    assert!(text.contains("<string>daemon</string>"));
    assert!(text.contains(&format!("<string>{}</string>", s.dir().display())));
    // Tags balance: a property list launchd can read.
    for tag in ["dict", "array", "plist"] {
        assert_eq!(
            text.matches(&format!("<{tag}>")).count() + text.matches(&format!("<{tag} ")).count(),
            text.matches(&format!("</{tag}>")).count(),
            "{tag} in\n{text}"
        );
    }
    s.ok(&["daemon", "uninstall", "--manager", "launchd", "--no-start"]);
    assert!(!plist.exists());
}
