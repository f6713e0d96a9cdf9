//! The wiki's bare git repository, driven through the `git` CLI: reads of the
//! branch tip and one real commit per write, with explicit identities.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

/// A commit as the wiki API reports it.
#[derive(Debug, Clone)]
pub struct CommitInfo {
    pub sha: String,
    pub author: (String, String, i64),
    pub committer: (String, String, i64),
    /// The raw message, ending in a newline as git stores it.
    pub message: String,
}

/// One root tree entry.
#[derive(Debug, Clone)]
pub struct Entry {
    pub mode: String,
    pub name: String,
}

/// Who a commit is by.
#[derive(Debug, Clone)]
pub struct Ident {
    pub name: String,
    pub email: String,
}

pub struct WikiRepo {
    pub path: PathBuf,
    pub branch: String,
    scratch: PathBuf,
}

static INDEX_COUNTER: AtomicU64 = AtomicU64::new(0);

impl WikiRepo {
    pub fn new(path: PathBuf, branch: &str, scratch: PathBuf) -> Self {
        WikiRepo {
            path,
            branch: branch.to_string(),
            scratch,
        }
    }

    fn git(&self) -> Command {
        super::hub_git::bare_git(&self.path)
    }

    fn run(&self, cmd: Command, stdin: Option<&[u8]>) -> Result<Vec<u8>, String> {
        super::hub_git::run_git(cmd, stdin)
    }

    fn text(&self, args: &[&str]) -> Result<String, String> {
        let mut cmd = self.git();
        cmd.args(args);
        self.run(cmd, None)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    }

    pub fn exists(&self) -> bool {
        self.path.join("HEAD").exists()
    }

    /// `InitWiki`: a bare repo whose HEAD points at the wiki branch.
    pub fn init(&self) -> Result<(), String> {
        if self.exists() {
            return Ok(());
        }
        let out = Command::new("git")
            .args(["init", "--bare", "-q"])
            .arg(&self.path)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .map_err(|e| format!("git init: {e}"))?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).into_owned());
        }
        let reference = format!("refs/heads/{}", self.branch);
        self.text(&["symbolic-ref", "HEAD", &reference]).map(|_| ())
    }

    /// The tip of the wiki branch, if it has a commit.
    pub fn head(&self) -> Option<String> {
        if !self.exists() {
            return None;
        }
        let reference = format!("refs/heads/{}", self.branch);
        self.text(&["rev-parse", "--verify", "-q", &reference])
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    }

    /// Root tree entries of `commit`, in git's tree order.
    pub fn root_entries(&self, commit: &str) -> Vec<Entry> {
        let mut cmd = self.git();
        cmd.args(["ls-tree", "-z", commit]);
        let out = self.run(cmd, None).unwrap_or_default();
        out.split(|b| *b == 0)
            .filter(|rec| !rec.is_empty())
            .filter_map(|rec| {
                let rec = String::from_utf8_lossy(rec);
                let (meta, name) = rec.split_once('\t')?;
                let mode = meta.split(' ').next()?.to_string();
                Some(Entry {
                    mode,
                    name: name.to_string(),
                })
            })
            .collect()
    }

    /// The blob at `path` in `commit`.
    pub fn read(&self, commit: &str, path: &str) -> Option<Vec<u8>> {
        let mut cmd = self.git();
        cmd.args(["cat-file", "blob", &format!("{commit}:{path}")]);
        self.run(cmd, None).ok()
    }

    /// Whether `path` is a regular file of the root tree of `commit`.
    pub fn has_file(&self, commit: &str, path: &str) -> bool {
        self.root_entries(commit)
            .iter()
            .any(|e| e.name == path && e.mode.starts_with("100"))
    }

    /// Commits touching `path` from `commit` back, newest first.
    pub fn log(&self, commit: &str, path: &str, skip: usize, max: usize) -> Vec<CommitInfo> {
        let mut cmd = self.git();
        cmd.args([
            "log",
            &format!("--skip={skip}"),
            &format!("--max-count={max}"),
            "--format=%x1e%H%x00%an%x00%ae%x00%at%x00%cn%x00%ce%x00%ct%x00%B",
            commit,
            "--",
            path,
        ]);
        let out = self.run(cmd, None).unwrap_or_default();
        let text = String::from_utf8_lossy(&out);
        text.split('\u{1e}')
            .filter(|r| !r.is_empty())
            .filter_map(|record| {
                let f: Vec<&str> = record.splitn(8, '\0').collect();
                let [sha, an, ae, at, cn, ce, ct, body] = f.as_slice() else {
                    return None;
                };
                let message = body.strip_suffix('\n').unwrap_or(body).to_string();
                Some(CommitInfo {
                    sha: sha.to_string(),
                    author: (an.to_string(), ae.to_string(), at.parse().ok()?),
                    committer: (cn.to_string(), ce.to_string(), ct.parse().ok()?),
                    message,
                })
            })
            .collect()
    }

    pub fn commit_count(&self, commit: &str, path: &str) -> u64 {
        self.text(&["rev-list", "--count", commit, "--", path])
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0)
    }

    /// One commit on the wiki branch: remove `remove`, then write `add`.
    /// Returns the new commit's sha.
    pub fn commit(
        &self,
        remove: &[String],
        add: Option<(&str, &[u8])>,
        message: &str,
        who: &Ident,
    ) -> Result<String, String> {
        self.init()?;
        let parent = self.head();
        let index = self.scratch.join(format!(
            "index-{}",
            INDEX_COUNTER.fetch_add(1, Ordering::SeqCst)
        ));
        let with_index = |mut cmd: Command| {
            cmd.env("GIT_INDEX_FILE", &index);
            cmd
        };
        let mut cmd = with_index(self.git());
        match &parent {
            Some(p) => cmd.args(["read-tree", p.as_str()]),
            None => cmd.args(["read-tree", "--empty"]),
        };
        self.run(cmd, None)?;
        if !remove.is_empty() {
            // Mode 0 removes the entry; `--force-remove` would need a work tree.
            let zero = "0".repeat(40);
            let lines: String = remove
                .iter()
                .map(|path| format!("0 {zero}\t{path}\n"))
                .collect();
            let mut cmd = with_index(self.git());
            cmd.args(["update-index", "--index-info"]);
            self.run(cmd, Some(lines.as_bytes()))?;
        }
        if let Some((path, content)) = add {
            let mut cmd = self.git();
            cmd.args(["hash-object", "-w", "--stdin"]);
            let blob = String::from_utf8_lossy(&self.run(cmd, Some(content))?)
                .trim()
                .to_string();
            let mut cmd = with_index(self.git());
            cmd.args([
                "update-index",
                "--add",
                "--cacheinfo",
                &format!("100644,{blob},{path}"),
            ]);
            self.run(cmd, None)?;
        }
        let mut cmd = with_index(self.git());
        cmd.arg("write-tree");
        let tree = String::from_utf8_lossy(&self.run(cmd, None)?)
            .trim()
            .to_string();
        let _ = std::fs::remove_file(&index);
        let mut cmd = self.git();
        cmd.args(["-c", "commit.gpgsign=false", "commit-tree", &tree]);
        if let Some(p) = &parent {
            cmd.args(["-p", p]);
        }
        cmd.args(["-F", "-"])
            .env("GIT_AUTHOR_NAME", &who.name)
            .env("GIT_AUTHOR_EMAIL", &who.email)
            .env("GIT_COMMITTER_NAME", &who.name)
            .env("GIT_COMMITTER_EMAIL", &who.email);
        let full_message = format!("{message}\n");
        let sha = String::from_utf8_lossy(&self.run(cmd, Some(full_message.as_bytes()))?)
            .trim()
            .to_string();
        let reference = format!("refs/heads/{}", self.branch);
        let old = parent.unwrap_or_else(|| "0".repeat(40));
        self.text(&["update-ref", &reference, &sha, &old])?;
        Ok(sha)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}
