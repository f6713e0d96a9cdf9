//! A machine as the tests see it: a HOME with no git identity and a
//! learnings dir, the real `learnsync` binary run there with a scrubbed
//! environment, and the real git CLI beside it. Not for in-process calls
//! of the library: those build their own `Config`.

use std::collections::BTreeMap;
use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use super::git::git_in;

/// The `learnsync` binary cargo built for these tests.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_learnsync"))
}

/// One machine: its own HOME and learnings dir. A standalone sandbox owns
/// a temp dir (`<tmp>/home`, `<tmp>/learnings`); the machines of a
/// multi-clone test share one (`<root>/<name>-home`, `<root>/<name>`).
pub struct Sandbox {
    root: PathBuf,
    home: PathBuf,
    dir: PathBuf,
    /// The temp dir of a standalone sandbox, removed when it drops.
    _tmp: Option<tempfile::TempDir>,
}

impl Sandbox {
    /// A standalone sandbox in a temp dir of its own.
    pub fn new() -> Sandbox {
        let tmp = tempfile::tempdir().expect("temp dir");
        let root = tmp.path().to_path_buf();
        let home = root.join("home");
        std::fs::create_dir_all(&home).expect("home");
        Sandbox {
            dir: root.join("learnings"),
            home,
            root,
            _tmp: Some(tmp),
        }
    }

    /// Machine `name` of several sharing `root` (which the test keeps).
    pub fn machine(root: &Path, name: &str) -> Sandbox {
        let home = root.join(format!("{name}-home"));
        std::fs::create_dir_all(&home).expect("home");
        Sandbox {
            root: root.to_path_buf(),
            home,
            dir: root.join(name),
            _tmp: None,
        }
    }

    /// Machine `name` of `root`, initialised as `agent` with the hub at
    /// `url` (a path or a URL) as its remote `hub`.
    pub fn machine_on_hub(root: &Path, name: &str, agent: &str, url: impl Display) -> Sandbox {
        let m = Sandbox::machine(root, name);
        m.init_with_hub(agent, url);
        m
    }

    /// The folder holding this machine's HOME and learnings dir: where a
    /// test puts hubs, wikis and scratch clones beside it.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The machine's HOME: no git identity, no global git config.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// The learnings dir (`LEARNSYNC_DIR`).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A `learnsync` command with a scrubbed environment.
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(bin());
        c.args(args);
        scrub(&mut c, &self.home);
        c.env("LEARNSYNC_DIR", &self.dir);
        c
    }

    /// Runs `learnsync <args>`; its output, whatever the exit.
    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).output().expect("run learnsync")
    }

    /// Runs and insists on exit 0; returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "learnsync {args:?} in {} failed ({:?})\nstdout: {}\nstderr: {}",
            self.dir.display(),
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The real git CLI in the learnings dir, insisting on success.
    pub fn git(&self, args: &[&str]) -> String {
        git_in(&self.dir, &self.home, args)
    }

    /// `init --agent <agent> --remote hub=<url>`: a clone that syncs
    /// through the hub at `url` (a path or a URL); init's stdout.
    pub fn init_with_hub(&self, agent: &str, url: impl Display) -> String {
        self.ok(&["init", "--agent", agent, "--remote", &format!("hub={url}")])
    }

    /// `sync --no-fetch --no-push`: the inbox committed, nothing sent.
    pub fn sync_offline(&self) -> String {
        self.ok(&["sync", "--no-fetch", "--no-push"])
    }

    /// `add --title <title> --correction <correction>`: the new id.
    pub fn add_learning(&self, title: &str, correction: &str) -> String {
        self.ok(&["add", "--title", title, "--correction", correction])
            .trim()
            .to_string()
    }

    /// One `effective` outcome of `id` from each of `agents` in turn;
    /// three from two agents make an L1 learning L2 at the next sync.
    pub fn effective_from(&self, id: &str, agents: &[&str]) {
        for agent in agents {
            self.ok(&["--agent", agent, "apply", id, "--outcome", "effective"]);
        }
    }

    /// `list --json`: every learning the dir holds, as `list` shows it.
    pub fn list(&self) -> Vec<serde_json::Value> {
        match json(&self.ok(&["list", "--json"])) {
            serde_json::Value::Array(items) => items,
            other => panic!("list --json is not an array: {other}"),
        }
    }

    /// `show <id> --json`.
    pub fn show(&self, id: &str) -> serde_json::Value {
        json(&self.ok(&["show", id, "--json"]))
    }

    /// The text of `rel` in HEAD, or `None` when HEAD has no such file.
    pub fn committed(&self, rel: &str) -> Option<String> {
        let mut c = Command::new("git");
        c.current_dir(&self.dir)
            .args(["show", &format!("HEAD:{rel}")]);
        scrub(&mut c, &self.home);
        let out = c.output().expect("git show");
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// The repository path of learning `id` (`<agent>/<id>.md`).
    pub fn learning_rel(&self, id: &str) -> String {
        let wanted = format!("/{id}.md");
        self.git(&["ls-files"])
            .lines()
            .find(|l| l.ends_with(&wanted) && !l.starts_with("shared/"))
            .unwrap_or_else(|| panic!("no file for {id} in {}", self.dir.display()))
            .to_string()
    }

    /// The text of learning `id`'s file in the work tree.
    pub fn learning_file(&self, id: &str) -> String {
        std::fs::read_to_string(self.dir.join(self.learning_rel(id))).expect("learning file")
    }

    /// Learning `id` as its file in the work tree says.
    pub fn learning(&self, id: &str) -> learnsync::learning::Learning {
        learnsync::learning::Learning::parse(self.learning_file(id).as_bytes())
            .expect("learning parses")
    }

    /// Every tracked learning and events file, path → bytes.
    pub fn learning_and_event_files(&self) -> BTreeMap<String, Vec<u8>> {
        let mut out = BTreeMap::new();
        for rel in self.git(&["ls-files"]).lines() {
            let is_learning = rel.ends_with(".md")
                && rel.matches('/').count() == 1
                && !rel.starts_with("kg/")
                && !rel.starts_with("shared/");
            if is_learning || rel.starts_with("events/") {
                out.insert(
                    rel.to_string(),
                    std::fs::read(self.dir.join(rel)).expect("tracked file"),
                );
            }
        }
        out
    }
}

/// Clears everything that could leak a developer's setup into a test.
pub fn scrub(c: &mut Command, home: &Path) {
    for var in [
        "LEARNSYNC_DIR",
        "TERRAPHIM_LEARNINGS_DIR",
        "LEARNSYNC_AGENT",
        "LEARNSYNC_GITEA_URL",
        "LEARNSYNC_GITEA_REPO",
        "GITEA_TOKEN",
        "XDG_CONFIG_HOME",
        "XDG_DATA_HOME",
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "GIT_DIR",
        "GIT_WORK_TREE",
    ] {
        c.env_remove(var);
    }
    c.env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", home.join("no-global-gitconfig"))
        .env("HOSTNAME", "testhost");
}

/// Runs a command with `stdin` piped in and its output captured.
pub fn with_stdin(mut cmd: Command, stdin: &[u8]) -> Output {
    use std::io::Write;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut input = child.stdin.take().expect("stdin");
    let bytes = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
    });
    let out = child.wait_with_output().expect("wait");
    writer.join().expect("writer");
    out
}

/// `stdout` parsed as JSON; panics showing it when it is not.
pub fn json(stdout: &str) -> serde_json::Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

/// What a command printed on stdout, as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What a command printed on stderr, as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}
