//! The hub repository (`<tmp>/<repo>.git`), a real bare repo driven through
//! the `git` CLI: reads of refs, trees and blobs, and the plumbing writes the
//! API makes (commits on a branch, merge commits, ref updates). API writes
//! never run hooks, as Gitea's own writes are not the user's pushes.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};

/// An all-zero object id: git's "no commit" on either side of a ref update.
pub const ZERO_SHA: &str = "0000000000000000000000000000000000000000";

/// A name, an email and a unix time: one side of a commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sig {
    pub name: String,
    pub email: String,
    pub when: i64,
}

/// A commit as the contents and branch APIs report it.
#[derive(Debug, Clone)]
pub struct CommitInfo {
    pub sha: String,
    pub tree: String,
    pub parents: Vec<String>,
    pub author: Sig,
    pub committer: Sig,
    /// The raw message, ending in a newline as git stores it.
    pub message: String,
}

/// One tree entry found by path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub mode: String,
    /// `blob`, `tree` or `commit` (a submodule).
    pub kind: String,
    pub sha: String,
}

pub struct HubRepo {
    path: PathBuf,
    scratch: PathBuf,
}

static INDEX_COUNTER: AtomicU64 = AtomicU64::new(0);

impl HubRepo {
    /// A bare repo whose HEAD names `default_branch` (which has no commit yet).
    pub fn create(path: PathBuf, default_branch: &str, scratch: PathBuf) -> Result<Self, String> {
        let out = Command::new("git")
            .args(["init", "--bare", "-q"])
            .arg(&path)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .map_err(|e| format!("git init: {e}"))?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).into_owned());
        }
        let repo = HubRepo { path, scratch };
        repo.text(&[
            "symbolic-ref",
            "HEAD",
            &format!("refs/heads/{default_branch}"),
        ])?;
        Ok(repo)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn git(&self) -> Command {
        bare_git(&self.path)
    }

    fn run(&self, cmd: Command, stdin: Option<&[u8]>) -> Result<Vec<u8>, String> {
        run_git(cmd, stdin)
    }

    fn text(&self, args: &[&str]) -> Result<String, String> {
        let mut cmd = self.git();
        cmd.args(args);
        self.run(cmd, None)
            .map(|b| String::from_utf8_lossy(&b).trim().to_string())
    }

    /// The commit a ref (or sha) names, if any.
    pub fn resolve(&self, name: &str) -> Option<String> {
        self.text(&["rev-parse", "--verify", "-q", &format!("{name}^{{commit}}")])
            .ok()
            .filter(|s| !s.is_empty())
    }

    /// The tip of a branch.
    pub fn branch(&self, branch: &str) -> Option<String> {
        self.resolve(&format!("refs/heads/{branch}"))
    }

    /// Every branch and its tip, by name.
    pub fn branches(&self) -> Vec<(String, String)> {
        let out = self
            .text(&[
                "for-each-ref",
                "--format=%(refname:strip=2)%00%(objectname)",
                "refs/heads/",
            ])
            .unwrap_or_default();
        out.lines()
            .filter_map(|line| {
                let (name, sha) = line.split_once('\0')?;
                Some((name.to_string(), sha.to_string()))
            })
            .collect()
    }

    /// The entry at `path` (slash-separated, no leading slash) in `commit`.
    pub fn entry(&self, commit: &str, path: &str) -> Option<Entry> {
        let mut cmd = self.git();
        cmd.args(["ls-tree", "-z", commit, "--", path]);
        let out = self.run(cmd, None).ok()?;
        out.split(|b| *b == 0).find_map(|rec| {
            let rec = String::from_utf8_lossy(rec);
            let (meta, name) = rec.split_once('\t')?;
            if name != path {
                return None;
            }
            let mut parts = meta.split(' ');
            Some(Entry {
                mode: parts.next()?.to_string(),
                kind: parts.next()?.to_string(),
                sha: parts.next()?.to_string(),
            })
        })
    }

    /// The names directly under the directory `path` ("" for the root).
    pub fn list_dir(&self, commit: &str, path: &str) -> Vec<(String, Entry)> {
        let target = if path.is_empty() {
            commit.to_string()
        } else {
            format!("{commit}:{path}")
        };
        let mut cmd = self.git();
        cmd.args(["ls-tree", "-z", &target]);
        let out = self.run(cmd, None).unwrap_or_default();
        out.split(|b| *b == 0)
            .filter(|rec| !rec.is_empty())
            .filter_map(|rec| {
                let rec = String::from_utf8_lossy(rec);
                let (meta, name) = rec.split_once('\t')?;
                let mut parts = meta.split(' ');
                let entry = Entry {
                    mode: parts.next()?.to_string(),
                    kind: parts.next()?.to_string(),
                    sha: parts.next()?.to_string(),
                };
                Some((name.to_string(), entry))
            })
            .collect()
    }

    pub fn blob(&self, sha: &str) -> Option<Vec<u8>> {
        let mut cmd = self.git();
        cmd.args(["cat-file", "blob", sha]);
        self.run(cmd, None).ok()
    }

    /// The file at `path` on `commit`.
    pub fn read(&self, commit: &str, path: &str) -> Option<Vec<u8>> {
        let entry = self.entry(commit, path).filter(|e| e.kind == "blob")?;
        self.blob(&entry.sha)
    }

    pub fn commit_info(&self, sha: &str) -> Option<CommitInfo> {
        self.log(&[sha, "-1"]).into_iter().next()
    }

    /// The last commit reachable from `commit` that touched `path`.
    pub fn last_commit_for(&self, commit: &str, path: &str) -> Option<CommitInfo> {
        self.log(&[commit, "-1", "--", path]).into_iter().next()
    }

    /// Commits reachable from `to` and not from `from`, newest first.
    pub fn commits_between(&self, from: Option<&str>, to: &str) -> Vec<String> {
        let mut args = vec!["rev-list".to_string(), to.to_string()];
        if let Some(from) = from {
            args.push(format!("^{from}"));
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        self.text(&args)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    fn log(&self, args: &[&str]) -> Vec<CommitInfo> {
        let mut cmd = self.git();
        cmd.args([
            "log",
            "--format=%x1e%H%x00%T%x00%P%x00%an%x00%ae%x00%at%x00%cn%x00%ce%x00%ct%x00%B",
        ]);
        cmd.args(args);
        let out = self.run(cmd, None).unwrap_or_default();
        let text = String::from_utf8_lossy(&out);
        text.split('\u{1e}')
            .filter(|r| !r.is_empty())
            .filter_map(|record| {
                let f: Vec<&str> = record.splitn(10, '\0').collect();
                let [sha, tree, parents, an, ae, at, cn, ce, ct, body] = f.as_slice() else {
                    return None;
                };
                let message = body.strip_suffix('\n').unwrap_or(body).to_string();
                Some(CommitInfo {
                    sha: sha.to_string(),
                    tree: tree.to_string(),
                    parents: parents.split_whitespace().map(str::to_string).collect(),
                    author: Sig {
                        name: an.to_string(),
                        email: ae.to_string(),
                        when: at.parse().ok()?,
                    },
                    committer: Sig {
                        name: cn.to_string(),
                        email: ce.to_string(),
                        when: ct.parse().ok()?,
                    },
                    message,
                })
            })
            .collect()
    }

    pub fn is_ancestor(&self, ancestor: &str, descendant: &str) -> bool {
        let mut cmd = self.git();
        cmd.args(["merge-base", "--is-ancestor", ancestor, descendant]);
        self.run(cmd, None).is_ok()
    }

    pub fn merge_base(&self, a: &str, b: &str) -> Option<String> {
        self.text(&["merge-base", a, b])
            .ok()
            .filter(|s| !s.is_empty())
    }

    /// The tree of merging `theirs` into `ours`; `Err` on a conflict.
    pub fn merge_tree(&self, ours: &str, theirs: &str) -> Result<String, String> {
        let out = self.text(&[
            "merge-tree",
            "--write-tree",
            "--no-messages",
            "--allow-unrelated-histories",
            ours,
            theirs,
        ])?;
        out.lines()
            .next()
            .map(str::to_string)
            .ok_or_else(|| "merge-tree printed no tree".to_string())
    }

    /// One commit with `parents` over `tree`.
    pub fn commit_tree(
        &self,
        tree: &str,
        parents: &[&str],
        message: &str,
        author: &Sig,
        committer: &Sig,
    ) -> Result<String, String> {
        let mut cmd = self.git();
        cmd.args(["-c", "commit.gpgsign=false", "commit-tree", tree]);
        for parent in parents {
            cmd.args(["-p", parent]);
        }
        cmd.args(["-F", "-"])
            .env("GIT_AUTHOR_NAME", &author.name)
            .env("GIT_AUTHOR_EMAIL", &author.email)
            .env("GIT_AUTHOR_DATE", format!("@{} +0000", author.when))
            .env("GIT_COMMITTER_NAME", &committer.name)
            .env("GIT_COMMITTER_EMAIL", &committer.email)
            .env("GIT_COMMITTER_DATE", format!("@{} +0000", committer.when));
        let full_message = if message.ends_with('\n') {
            message.to_string()
        } else {
            format!("{message}\n")
        };
        let out = self.run(cmd, Some(full_message.as_bytes()))?;
        Ok(String::from_utf8_lossy(&out).trim().to_string())
    }

    /// The tree of `parent` (or an empty tree) with `changes` applied: a path
    /// with bytes is written as a regular file, a path with `None` removed.
    pub fn tree_with(
        &self,
        parent: Option<&str>,
        changes: &[(String, Option<Vec<u8>>)],
    ) -> Result<String, String> {
        let index = self.scratch.join(format!(
            "hub-index-{}",
            INDEX_COUNTER.fetch_add(1, Ordering::SeqCst)
        ));
        let result = self.tree_with_index(&index, parent, changes);
        let _ = std::fs::remove_file(&index);
        result
    }

    fn tree_with_index(
        &self,
        index: &Path,
        parent: Option<&str>,
        changes: &[(String, Option<Vec<u8>>)],
    ) -> Result<String, String> {
        let with_index = |mut cmd: Command| {
            cmd.env("GIT_INDEX_FILE", index);
            cmd
        };
        let mut cmd = with_index(self.git());
        match parent {
            Some(p) => cmd.args(["read-tree", p]),
            None => cmd.args(["read-tree", "--empty"]),
        };
        self.run(cmd, None)?;
        for (path, content) in changes {
            match content {
                Some(bytes) => {
                    let mut cmd = self.git();
                    cmd.args(["hash-object", "-w", "--stdin"]);
                    let blob = String::from_utf8_lossy(&self.run(cmd, Some(bytes))?)
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
                None => {
                    // Mode 0 removes the entry; `--force-remove` would need a work tree.
                    let line = format!("0 {ZERO_SHA}\t{path}\n");
                    let mut cmd = with_index(self.git());
                    cmd.args(["update-index", "--index-info"]);
                    self.run(cmd, Some(line.as_bytes()))?;
                }
            }
        }
        let mut cmd = with_index(self.git());
        cmd.arg("write-tree");
        Ok(String::from_utf8_lossy(&self.run(cmd, None)?)
            .trim()
            .to_string())
    }

    /// Moves `reference` from `old` (`None`: must not exist) to `new`.
    pub fn update_ref(&self, reference: &str, new: &str, old: Option<&str>) -> Result<(), String> {
        self.text(&["update-ref", reference, new, old.unwrap_or(ZERO_SHA)])
            .map(|_| ())
    }

    pub fn delete_ref(&self, reference: &str) -> Result<(), String> {
        self.text(&["update-ref", "-d", reference]).map(|_| ())
    }

    /// Writes an executable hook script (`pre-receive`, `post-receive`).
    pub fn write_hook(&self, name: &str, script: &str) -> Result<(), String> {
        let hooks = self.path.join("hooks");
        std::fs::create_dir_all(&hooks).map_err(|e| format!("hooks dir: {e}"))?;
        let path = hooks.join(name);
        let tmp = hooks.join(format!(".{name}.tmp"));
        std::fs::write(&tmp, script).map_err(|e| format!("write hook {name}: {e}"))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755))
                .map_err(|e| format!("chmod hook {name}: {e}"))?;
        }
        std::fs::rename(&tmp, &path).map_err(|e| format!("install hook {name}: {e}"))
    }
}

/// Git's blob id of `bytes` (sha1 of `blob <len>\0<bytes>`), computed by git.
pub fn blob_sha(bytes: &[u8]) -> String {
    let mut child = match Command::new("git")
        .args(["hash-object", "--stdin"])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(_) => return String::new(),
    };
    if let Some(mut pipe) = child.stdin.take() {
        use std::io::Write;
        let _ = pipe.write_all(bytes);
    }
    child
        .wait_with_output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

/// git on the bare repository at `path`, with no user or system config.
pub(super) fn bare_git(path: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.arg("--git-dir")
        .arg(path)
        .arg("--literal-pathspecs")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("TZ", "UTC")
        .stdin(Stdio::null());
    cmd
}

/// Runs `cmd` (feeding `stdin`); its stdout, or its stderr as the error.
pub(super) fn run_git(mut cmd: Command, stdin: Option<&[u8]>) -> Result<Vec<u8>, String> {
    if stdin.is_some() {
        cmd.stdin(Stdio::piped());
    }
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().map_err(|e| format!("spawn git: {e}"))?;
    if let Some(input) = stdin
        && let Some(mut pipe) = child.stdin.take()
    {
        use std::io::Write;
        pipe.write_all(input)
            .map_err(|e| format!("git stdin: {e}"))?;
    }
    let out = child.wait_with_output().map_err(|e| format!("git: {e}"))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    Ok(out.stdout)
}
