//! Which untracked work-tree files a sync leaves alone, as git would: the
//! `.gitignore` files of the work tree (the root's and any folder's), then
//! `.git/info/exclude`, then the editor and OS droppings no one means to
//! share ([`DROPPINGS`]). Tracked files are never ignored (as in git), and
//! only untracked files are asked about, so a sync of an unchanged tree
//! matches nothing: the cost is a pattern list or two read per cycle and a
//! few globs per new file. The user's global git excludes are not read: a
//! sync started by the daemon or a hook must leave out what one started by
//! hand leaves out.

use gix::bstr::{BStr, ByteSlice};
use gix::glob::pattern::Case;
use gix::glob::search::pattern::List;
use gix::ignore::search::Ignore;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Files editors and file managers leave beside the ones a person edits:
/// swap, backup and lock files, folder metadata. None of them is a name
/// learnsync writes (its own temp files are `.tmp-<hex>-<name>`, kept apart
/// by [`super::is_temp_name`]). A `.gitignore` line `!<pattern>` brings one
/// back.
pub const DROPPINGS: &[&str] = &[
    "*.swp",
    "*.swo",
    "*~",
    ".#*",
    // `#` starts a comment: escaped, as in a `.gitignore`.
    "\\#*#",
    ".DS_Store",
    "Thumbs.db",
    "desktop.ini",
    "*.tmp",
];

/// The ignore rules of one work tree, read once per status; the
/// `.gitignore` of a sub-folder is read the first time a file below it is
/// asked about.
pub struct IgnoreRules {
    root: PathBuf,
    /// Lowest priority first: the droppings, `info/exclude`, the root's `.gitignore`.
    fixed: Vec<List<Ignore>>,
    /// A sub-folder's `.gitignore` (`None`: it has none), by folder.
    folders: HashMap<String, Option<List<Ignore>>>,
    /// Folders found ignored or not, so each is matched once.
    decided: HashMap<String, bool>,
}

impl IgnoreRules {
    /// The rules of the work tree at `root` whose git dir is `git_dir`.
    pub fn read(root: &Path, git_dir: &Path) -> Self {
        let droppings = DROPPINGS.join("\n");
        let mut fixed = vec![List::from_bytes(
            droppings.as_bytes(),
            PathBuf::from("<learnsync droppings>"),
            None,
            Ignore::default(),
        )];
        for file in [
            git_dir.join("info").join("exclude"),
            root.join(".gitignore"),
        ] {
            if let Ok(bytes) = std::fs::read(&file) {
                fixed.push(List::from_bytes(&bytes, file, None, Ignore::default()));
            }
        }
        IgnoreRules {
            root: root.to_path_buf(),
            fixed,
            folders: HashMap::new(),
            decided: HashMap::new(),
        }
    }

    /// True when the untracked file `rel` (`/`-separated, relative to the
    /// root) is ignored: it, or a folder it is in, matches a rule.
    pub fn ignores(&mut self, rel: &str) -> bool {
        self.ignores_any(rel, false)
    }

    /// [`IgnoreRules::ignores`] for a folder.
    pub fn ignores_folder(&mut self, rel: &str) -> bool {
        self.ignores_any(rel, true)
    }

    fn ignores_any(&mut self, rel: &str, is_dir: bool) -> bool {
        if ancestors(rel).any(|folder| self.folder_ignored(folder)) {
            return true;
        }
        if is_dir {
            self.folder_ignored(rel)
        } else {
            self.matches(rel, false)
        }
    }

    fn folder_ignored(&mut self, folder: &str) -> bool {
        if let Some(&known) = self.decided.get(folder) {
            return known;
        }
        let ignored = self.matches(folder, true);
        self.decided.insert(folder.to_string(), ignored);
        ignored
    }

    /// The last rule that matches `rel` decides, the deepest `.gitignore`
    /// first, then the root's, `info/exclude`, the droppings.
    fn matches(&mut self, rel: &str, is_dir: bool) -> bool {
        let folders: Vec<&str> = ancestors(rel).collect();
        for folder in &folders {
            self.load_folder(folder);
        }
        let path: &BStr = rel.as_bytes().as_bstr();
        let basename = rel.rfind('/').map(|p| p + 1);
        let nested = folders
            .iter()
            .rev()
            .filter_map(|f| self.folders.get(*f).and_then(Option::as_ref));
        for list in nested.chain(self.fixed.iter().rev()) {
            if let Some(m) = gix::ignore::search::pattern_matching_relative_path(
                list,
                path,
                basename,
                Some(is_dir),
                Case::Sensitive,
            ) {
                return !m.pattern.is_negative();
            }
        }
        false
    }

    fn load_folder(&mut self, folder: &str) {
        if self.folders.contains_key(folder) {
            return;
        }
        let source = PathBuf::from(format!("{folder}/.gitignore"));
        let list = std::fs::read(self.root.join(&source))
            .ok()
            .map(|bytes| List::from_bytes(&bytes, source, Some(Path::new("")), Ignore::default()));
        self.folders.insert(folder.to_string(), list);
    }
}

/// The folders `rel` is in, outermost first, the root left out: `a/b/c` →
/// `a`, `a/b`.
fn ancestors(rel: &str) -> impl Iterator<Item = &str> {
    rel.match_indices('/').map(move |(at, _)| &rel[..at])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(files: &[(&str, &str)]) -> (tempfile::TempDir, IgnoreRules) {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(dir.path().join(".git/info")).expect("git dir");
        for (rel, text) in files {
            let path = dir.path().join(rel);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }
        let r = IgnoreRules::read(dir.path(), &dir.path().join(".git"));
        (dir, r)
    }

    #[test]
    fn droppings_are_ignored_without_a_gitignore_and_learnsync_files_are_not() {
        let (_dir, mut r) = rules(&[]);
        for dropping in [
            "claude/.learning-x.md.swp",
            "claude/learning-x.md.swo",
            "claude/learning-x.md~",
            "claude/.#learning-x.md",
            "claude/#learning-x.md#",
            ".DS_Store",
            "kg/.DS_Store",
            "kg/Thumbs.db",
            "desktop.ini",
            "notes.tmp",
        ] {
            assert!(r.ignores(dropping), "{dropping}");
        }
        let hex = "0123456789abcdef".repeat(2);
        for ours in [
            "claude/learning-x.md",
            "events/claude/2026-06.jsonl",
            "kg/git.md",
            "reviews/learning-x.yaml",
            ".learnsync/policy.yaml",
            ".learnsync/conflicts/claude/learning-x.md.0123456789ab",
            ".gitignore",
            &format!("claude/.tmp-{hex}-learning-x.md"),
        ] {
            assert!(!r.ignores(ours), "{ours}");
        }
    }

    #[test]
    fn gitignore_files_exclude_and_negations_decide_in_gits_order() {
        let (_dir, mut r) = rules(&[
            (".gitignore", "drafts/\n*.log\n!keep.tmp\n"),
            (".git/info/exclude", "scratch.md\n"),
            ("kg/.gitignore", "*.bak\n!important.log\n"),
            ("kg/deep/.gitignore", "/only-here.md\n"),
        ]);
        assert!(
            r.ignores("drafts/claude/learning-x.md"),
            "a folder rule covers what is in it"
        );
        assert!(r.ignores("a.log"));
        assert!(
            r.ignores("claude/b.log"),
            "a rule without a slash matches at any depth"
        );
        assert!(!r.ignores("keep.tmp"), "a negation brings a dropping back");
        assert!(r.ignores("scratch.md"), "info/exclude");
        assert!(r.ignores("kg/x.bak"));
        assert!(!r.ignores("x.bak"), "a folder's rules stay in that folder");
        assert!(
            !r.ignores("kg/important.log"),
            "a deeper file decides over the root's"
        );
        assert!(r.ignores("kg/deep/only-here.md"));
        assert!(
            !r.ignores("kg/only-here.md"),
            "an anchored rule is anchored to its folder"
        );
        assert!(!r.ignores("claude/learning-x.md"));
        assert!(r.ignores_folder("drafts"));
        assert!(!r.ignores("drafts"), "a folder rule matches only folders");
        assert!(r.ignores_folder("kg/deep/x.bak"));
    }
}
