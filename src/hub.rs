//! What the hub's `main` says (§5, §8): the review records under `reviews/`
//! as they are on `refs/remotes/<hub>/main`, the only copies that count. A
//! record that does not parse counts for nothing and is reported, never
//! skipped without a word.

use crate::paths;
use crate::problem::Problem;
use crate::repo::{Repo, Result};
use crate::review::Review;
use std::collections::{BTreeSet, HashMap};

/// The review records on the hub's `main`, and the ones that do not parse.
#[derive(Debug, Default)]
pub struct HubMain {
    pub reviews: HashMap<String, Review>,
    pub problems: Vec<Problem>,
}

/// The ref a clone keeps of the hub's `main`.
pub fn main_ref(hub: &str) -> String {
    format!("refs/remotes/{hub}/main")
}

/// Reads the review records on `hub`'s `main` (of every learning, or only
/// of `only`). No hub, or no `main` fetched yet: no records.
pub fn read(repo: &Repo, hub: Option<&str>, only: Option<&BTreeSet<String>>) -> Result<HubMain> {
    let mut out = HubMain::default();
    let Some(hub) = hub else { return Ok(out) };
    let Some(main) = repo.ref_commit(&main_ref(hub))? else {
        return Ok(out);
    };
    let tree = repo.commit_tree(main)?;
    let ids: Vec<String> = match only {
        Some(ids) => ids.iter().cloned().collect(),
        None => match repo.subtree(tree, "reviews")? {
            Some(reviews) => repo
                .tree(reviews)?
                .entries
                .iter()
                .filter_map(|e| e.name.strip_suffix(".yaml").map(str::to_string))
                .collect(),
            None => Vec::new(),
        },
    };
    for id in ids {
        let Ok(rel) = paths::review_path(&id) else {
            continue;
        };
        let Some(bytes) = repo.blob_at(tree, &rel)? else {
            continue;
        };
        match Review::parse(&String::from_utf8_lossy(&bytes)) {
            Ok(review) => {
                out.reviews.insert(id, review);
            }
            Err(e) => out.problems.push(Problem::new(
                format!("{hub}/main:{rel}"),
                format!("a review record that does not parse counts for nothing: {e}"),
            )),
        }
    }
    Ok(out)
}
