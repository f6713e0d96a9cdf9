//! The files under `tests/fixtures/`: a fixture's path, a hook payload's
//! bytes, a tree copied into a learnings dir, and the retrieval corpus
//! adopted by a sandbox. Snapshots live apart, in `snapshot`.

use std::path::{Path, PathBuf};

use super::learnings::never_stale;
use super::sandbox::Sandbox;

/// `tests/fixtures/<rel>`.
pub fn path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

/// The bytes of hook payload `tests/fixtures/payloads/<name>`.
pub fn payload(name: &str) -> Vec<u8> {
    let path = path("payloads").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// Copies a fixture tree into `to`.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read fixture") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// A sandbox initialised as `agent` holding the retrieval corpus of
/// `tests/fixtures/search` (learnings, events and KG), never stale, synced
/// once.
pub fn search_corpus(agent: &str) -> Sandbox {
    let corpus = path("search");
    let sb = Sandbox::new();
    sb.ok(&["init", "--agent", agent]);
    never_stale(&sb);
    for entry in std::fs::read_dir(corpus.join("learnings")).expect("fixture") {
        let entry = entry.expect("entry");
        copy_tree(&entry.path(), &sb.dir().join(entry.file_name()));
    }
    copy_tree(&corpus.join("kg"), &sb.dir().join("kg"));
    copy_tree(&corpus.join("events"), &sb.dir().join("events"));
    sb.sync_offline();
    sb
}
