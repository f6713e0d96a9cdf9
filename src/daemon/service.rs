//! `daemon install` / `uninstall`: the daemon as a service of the user's
//! session — a systemd user unit on Linux (`Type=notify`, restarted on
//! failure, reloaded with SIGHUP, stopped with SIGTERM), a launchd agent on
//! macOS. Rendering is pure ([`unit`], [`plist`]); [`install`] writes the
//! file and, unless asked not to, tells the service manager.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Which service manager.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Manager {
    Systemd,
    Launchd,
}

impl Manager {
    /// The one this system has.
    pub fn native() -> Manager {
        if cfg!(target_os = "macos") {
            Manager::Launchd
        } else {
            Manager::Systemd
        }
    }
}

/// The systemd unit's name.
pub const UNIT_NAME: &str = "learnsync.service";
/// The launchd agent's label.
pub const LAUNCHD_LABEL: &str = "dev.learnsync.daemon";

/// What the service runs.
#[derive(Debug, Clone)]
pub struct ServiceSpec {
    /// The `learnsync` binary, absolute.
    pub exe: PathBuf,
    /// The learnings dir, absolute.
    pub dir: PathBuf,
    /// `--listen`, if the daemon should serve its endpoint.
    pub listen: Option<String>,
    /// `--log-format json`.
    pub json_logs: bool,
}

impl ServiceSpec {
    fn args(&self) -> Vec<String> {
        let mut args = vec![
            self.exe.display().to_string(),
            "--dir".into(),
            self.dir.display().to_string(),
            "daemon".into(),
        ];
        if let Some(listen) = &self.listen {
            args.push("--listen".into());
            args.push(listen.clone());
        }
        if self.json_logs {
            args.push("--log-format".into());
            args.push("json".into());
        }
        args
    }
}

/// One word of `ExecStart=`, quoted the way systemd reads it.
fn systemd_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:=@,".contains(c));
    if plain {
        return word.to_string();
    }
    let mut out = String::from("\"");
    for c in word.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            // `$` and `%` are expanded by systemd: double them.
            '$' => out.push_str("$$"),
            '%' => out.push_str("%%"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The systemd user unit.
pub fn unit(spec: &ServiceSpec) -> String {
    let exec: Vec<String> = spec.args().iter().map(|a| systemd_word(a)).collect();
    format!(
        "# Written by `learnsync daemon install`; `learnsync daemon uninstall` removes it.\n\
         [Unit]\n\
         Description=learnsync daemon: sync, review and publish learnings on schedules\n\
         \n\
         [Service]\n\
         Type=notify\n\
         NotifyAccess=main\n\
         ExecStart={}\n\
         ExecReload=/bin/kill -HUP $MAINPID\n\
         Restart=on-failure\n\
         RestartSec=10s\n\
         # A SIGTERM stops the running step at its next safe point; the daemon\n\
         # waits for it at most 20 s.\n\
         TimeoutStopSec=40s\n\
         # GITEA_TOKEN=… for publishing, if not in gitea.token_file.\n\
         EnvironmentFile=-%h/.config/learnsync/daemon.env\n\
         Environment=LEARNSYNC_LOG=warn,learnsync=info\n\
         \n\
         [Install]\n\
         WantedBy=default.target\n",
        exec.join(" ")
    )
}

fn xml(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The launchd agent (`~/Library/LaunchAgents/dev.learnsync.daemon.plist`).
pub fn plist(spec: &ServiceSpec, log: &Path) -> String {
    let args: String = spec
        .args()
        .iter()
        .map(|a| format!("    <string>{}</string>\n", xml(a)))
        .collect();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n\
         <!-- Written by `learnsync daemon install`; `learnsync daemon uninstall` removes it. -->\n\
         <plist version=\"1.0\">\n\
         <dict>\n  \
           <key>Label</key>\n  <string>{LAUNCHD_LABEL}</string>\n  \
           <key>ProgramArguments</key>\n  <array>\n{args}  </array>\n  \
           <key>RunAtLoad</key>\n  <true/>\n  \
           <key>KeepAlive</key>\n  <dict>\n    <key>SuccessfulExit</key>\n    <false/>\n  </dict>\n  \
           <key>ThrottleInterval</key>\n  <integer>10</integer>\n  \
           <key>ProcessType</key>\n  <string>Background</string>\n  \
           <key>EnvironmentVariables</key>\n  <dict>\n    <key>LEARNSYNC_LOG</key>\n    <string>warn,learnsync=info</string>\n  </dict>\n  \
           <key>StandardErrorPath</key>\n  <string>{}</string>\n\
         </dict>\n\
         </plist>\n",
        xml(&log.display().to_string())
    )
}

/// Where the service file goes, for the user whose HOME (and
/// `XDG_CONFIG_HOME`) are given.
pub fn service_path(manager: Manager, home: &Path, xdg_config_home: Option<&Path>) -> PathBuf {
    match manager {
        Manager::Systemd => xdg_config_home
            .map(Path::to_path_buf)
            .unwrap_or_else(|| home.join(".config"))
            .join("systemd/user")
            .join(UNIT_NAME),
        Manager::Launchd => home
            .join("Library/LaunchAgents")
            .join(format!("{LAUNCHD_LABEL}.plist")),
    }
}

/// The service file's text for `manager`.
pub fn render(manager: Manager, spec: &ServiceSpec, home: &Path) -> String {
    match manager {
        Manager::Systemd => unit(spec),
        Manager::Launchd => plist(spec, &home.join("Library/Logs/learnsync.log")),
    }
}

/// What `install` or `uninstall` did, for people.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Done {
    pub path: String,
    /// Commands run with the service manager and how each went.
    pub ran: Vec<(String, Result<(), String>)>,
    /// Commands left for the user to run, and why.
    pub hints: Vec<String>,
}

fn run(program: &str, args: &[&str]) -> (String, Result<(), String>) {
    let shown = format!("{program} {}", args.join(" "));
    let result = match Command::new(program).args(args).output() {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(String::from_utf8_lossy(&out.stderr).trim().to_string()),
        Err(e) => Err(e.to_string()),
    };
    (shown, result)
}

/// Whether the user's processes survive logging out (systemd's linger flag).
fn lingers(user: &str) -> bool {
    Path::new("/var/lib/systemd/linger").join(user).exists()
}

/// Writes the service file and, with `tell_manager`, enables and starts it.
pub fn install(
    manager: Manager,
    spec: &ServiceSpec,
    home: &Path,
    xdg_config_home: Option<&Path>,
    tell_manager: bool,
) -> std::io::Result<Done> {
    let path = service_path(manager, home, xdg_config_home);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    crate::store::atomic_write(&path, render(manager, spec, home).as_bytes())?;
    let shown = path.display().to_string();
    let mut done = Done {
        path: shown.clone(),
        ran: Vec::new(),
        hints: Vec::new(),
    };
    let steps: Vec<(&str, Vec<&str>)> = match manager {
        Manager::Systemd => vec![
            ("systemctl", vec!["--user", "daemon-reload"]),
            ("systemctl", vec!["--user", "enable", "--now", UNIT_NAME]),
        ],
        Manager::Launchd => vec![("launchctl", vec!["load", "-w", shown.as_str()])],
    };
    if tell_manager {
        for (program, args) in &steps {
            let step = run(program, args);
            let failed = step.1.is_err();
            done.ran.push(step);
            if failed {
                break;
            }
        }
    }
    let all_ran = tell_manager && done.ran.iter().all(|(_, r)| r.is_ok());
    if !all_ran {
        for (program, args) in &steps {
            done.hints.push(format!("{program} {}", args.join(" ")));
        }
    }
    if manager == Manager::Systemd {
        let user = std::env::var("USER").unwrap_or_default();
        if user.is_empty() || !lingers(&user) {
            done.hints.push(format!(
                "loginctl enable-linger {}   # on a machine nobody logs in to (a server): keeps the daemon running without a login session",
                if user.is_empty() { "$USER" } else { user.as_str() }
            ));
        }
    }
    Ok(done)
}

/// Stops and removes the service file (nothing to do when it is not there).
pub fn uninstall(
    manager: Manager,
    home: &Path,
    xdg_config_home: Option<&Path>,
    tell_manager: bool,
) -> std::io::Result<Option<Done>> {
    let path = service_path(manager, home, xdg_config_home);
    if !path.exists() {
        return Ok(None);
    }
    let shown = path.display().to_string();
    let mut done = Done {
        path: shown.clone(),
        ran: Vec::new(),
        hints: Vec::new(),
    };
    if tell_manager {
        let step = match manager {
            Manager::Systemd => run("systemctl", &["--user", "disable", "--now", UNIT_NAME]),
            Manager::Launchd => run("launchctl", &["unload", "-w", &shown]),
        };
        if step.1.is_err() {
            done.hints.push(step.0.clone());
        }
        done.ran.push(step);
    }
    std::fs::remove_file(&path)?;
    if tell_manager && manager == Manager::Systemd {
        done.ran
            .push(run("systemctl", &["--user", "daemon-reload"]));
    }
    Ok(Some(done))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> ServiceSpec {
        ServiceSpec {
            exe: "/opt/learn sync/bin/learnsync".into(),
            dir: "/home/ann/.local/share/learnsync".into(),
            listen: Some("127.0.0.1:9477".into()),
            json_logs: false,
        }
    }

    #[test]
    fn the_unit_is_a_notify_service_restarted_on_failure_with_words_quoted() {
        let text = unit(&spec());
        for line in [
            "Type=notify",
            "Restart=on-failure",
            "ExecReload=/bin/kill -HUP $MAINPID",
            "WantedBy=default.target",
            "ExecStart=\"/opt/learn sync/bin/learnsync\" --dir /home/ann/.local/share/learnsync daemon --listen 127.0.0.1:9477",
        ] {
            assert!(text.lines().any(|l| l == line), "no {line:?} in\n{text}");
        }
        assert_eq!(systemd_word("50%$x"), "\"50%%$$x\"");
    }

    #[test]
    fn the_launchd_agent_runs_at_load_and_restarts_only_after_a_failure() {
        let text = plist(&spec(), Path::new("/Users/ann/Library/Logs/learnsync.log"));
        assert!(text.contains("<string>/opt/learn sync/bin/learnsync</string>"));
        assert!(text.contains("<key>SuccessfulExit</key>\n    <false/>"));
        assert!(text.contains("<key>RunAtLoad</key>\n  <true/>"));
        assert_eq!(
            text.matches("<dict>").count(),
            text.matches("</dict>").count()
        );
    }

    #[test]
    fn install_writes_the_file_and_uninstall_removes_it_without_the_manager() {
        let tmp = tempfile::tempdir().expect("tmp");
        let home = tmp.path();
        let done = install(Manager::Systemd, &spec(), home, None, false).expect("install");
        let path = home.join(".config/systemd/user/learnsync.service");
        assert_eq!(done.path, path.display().to_string());
        assert!(done.ran.is_empty());
        assert!(
            done.hints
                .iter()
                .any(|h| h.contains("enable --now learnsync.service"))
        );
        assert_eq!(std::fs::read_to_string(&path).expect("unit"), unit(&spec()));
        assert!(
            uninstall(Manager::Systemd, home, None, false)
                .expect("uninstall")
                .is_some()
        );
        assert!(!path.exists());
        assert!(
            uninstall(Manager::Systemd, home, None, false)
                .expect("again")
                .is_none()
        );
    }
}
