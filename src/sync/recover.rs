//! Crash safety for a cycle: a marker written before the ref moves names the
//! tree and the paths; the next cycle finishes the work tree and index.

use crate::repo::{GitError, Repo, Result};
use crate::store::LearningsDir;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

#[derive(Serialize, Deserialize)]
pub(super) struct Marker {
    pub tree: String,
    pub paths: Vec<String>,
}

fn marker_path(dir: &LearningsDir) -> std::path::PathBuf {
    dir.state().cycle_marker()
}

pub(super) fn begin(dir: &LearningsDir, marker: &Marker) -> Result<()> {
    let bytes = serde_json::to_vec(marker).unwrap_or_default();
    crate::store::atomic_write(&marker_path(dir), &bytes).map_err(|e| GitError {
        action: "write the cycle marker".into(),
        message: e.to_string(),
    })
}

pub(super) fn end(dir: &LearningsDir) {
    let _ = std::fs::remove_file(marker_path(dir));
}

/// Finishes a cycle that died after its commit: brings the listed paths of
/// the work tree and the index to HEAD. True when there was one to finish.
pub(super) fn finish_interrupted(repo: &Repo, dir: &LearningsDir) -> Result<bool> {
    let Ok(bytes) = std::fs::read(marker_path(dir)) else {
        return Ok(false);
    };
    let Ok(marker) = serde_json::from_slice::<Marker>(&bytes) else {
        end(dir);
        return Ok(false);
    };
    let head_tree = repo.head_tree()?;
    if head_tree.to_string() != marker.tree {
        // The ref never moved: the work tree is as the user left it.
        end(dir);
        return Ok(true);
    }
    for path in &marker.paths {
        match repo.blob_at(head_tree, path)? {
            Some(bytes) => {
                let on_disk = std::fs::read(repo.root().join(path)).ok();
                if on_disk.as_deref() != Some(bytes.as_slice()) {
                    repo.write_file(path, &bytes)?;
                }
            }
            None => repo.remove_file(path)?,
        }
    }
    repo.write_index(head_tree, &HashMap::new())?;
    end(dir);
    Ok(true)
}
