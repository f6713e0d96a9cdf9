//! What the sync has already told the user about a standing condition of
//! the work tree — a file holding a secret (committed redacted, left as it
//! is on disk), a folder holding a repository of its own, a file over the
//! size limit, a symlink — so each is said once, and again only when the
//! file changes.
//! `doctor` lists them for as long as they last. A cache
//! (`.git/learnsync/reported.json`): losing it says each thing once more.

use super::StateDir;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Paths said, with a fingerprint of what was said about each.
#[derive(Debug)]
pub struct Reported {
    file: PathBuf,
    root: PathBuf,
    said: BTreeMap<String, String>,
    changed: bool,
}

impl Reported {
    /// What was said before in the learnings dir at `root`.
    pub fn load(root: &std::path::Path) -> Self {
        let file = StateDir::of(root).reported();
        let said = std::fs::read(&file)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        Reported {
            file,
            root: root.to_path_buf(),
            said,
            changed: false,
        }
    }

    /// True when `path` has not been reported with this `fingerprint` (what
    /// is wrong and a hash or stat of the file): say it now. Noted as said.
    pub fn first_time(&mut self, path: &str, fingerprint: &str) -> bool {
        if self.said.get(path).map(String::as_str) == Some(fingerprint) {
            return false;
        }
        self.said.insert(path.to_string(), fingerprint.to_string());
        self.changed = true;
        true
    }

    /// `path` has nothing to report any more: a later problem is new.
    pub fn forget(&mut self, path: &str) {
        self.changed |= self.said.remove(path).is_some();
    }

    /// Keeps what was said, dropping paths gone from the work tree. Best
    /// effort.
    pub fn save(mut self) {
        let before = self.said.len();
        let root = self.root.clone();
        self.said
            .retain(|path, _| std::fs::symlink_metadata(root.join(path)).is_ok());
        if !self.changed && self.said.len() == before {
            return;
        }
        if let Ok(bytes) = serde_json::to_vec(&self.said)
            && let Err(e) = super::atomic_write(&self.file, &bytes)
        {
            tracing::debug!("what was reported is not saved: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_thing_is_said_once_until_it_changes_or_its_file_goes() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(dir.path().join(".git/learnsync")).expect("state dir");
        std::fs::write(dir.path().join("a.md"), "x").expect("write");
        let mut r = Reported::load(dir.path());
        assert!(r.first_time("a.md", "secret 1"));
        assert!(!r.first_time("a.md", "secret 1"));
        r.save();
        let mut r = Reported::load(dir.path());
        assert!(!r.first_time("a.md", "secret 1"), "kept across cycles");
        assert!(
            r.first_time("a.md", "secret 2"),
            "a changed file is said again"
        );
        r.forget("a.md");
        assert!(
            r.first_time("a.md", "secret 2"),
            "said again once forgotten"
        );
        r.save();
        std::fs::remove_file(dir.path().join("a.md")).expect("remove");
        Reported::load(dir.path()).save();
        std::fs::write(dir.path().join("a.md"), "x").expect("write");
        assert!(
            Reported::load(dir.path()).first_time("a.md", "secret 2"),
            "a file that went and came back is new"
        );
    }
}
