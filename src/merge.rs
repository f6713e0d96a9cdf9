//! The semantic merge of one file (§6), pure: events by union, learnings by
//! last-writer-wins, deletions by the §6 rules, everything else by a
//! three-way line merge. Never conflict markers; bytes that cannot be used
//! are returned for `.learnsync/conflicts/` so nothing is lost.

use crate::event;
use crate::learning::Learning;
use crate::paths::{self, RepoPath};
use sha2::Digest;

/// Where unusable bytes go.
pub const CONFLICTS_DIR: &str = ".learnsync/conflicts";

/// The result of merging one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    /// The file's new bytes; `None` = the file is deleted.
    pub result: Option<Vec<u8>>,
    /// Extra files to write under `.learnsync/conflicts/` (path, bytes).
    pub kept: Vec<(String, Vec<u8>)>,
}

impl Merged {
    fn take(bytes: Option<&[u8]>) -> Self {
        Merged {
            result: bytes.map(<[u8]>::to_vec),
            kept: Vec::new(),
        }
    }
}

/// The conflicts path for bytes from `path`: stable, so two clones keeping
/// the same bytes write the same file.
pub fn conflict_path(path: &str, bytes: &[u8]) -> String {
    let digest = hex::encode(sha2::Sha256::digest(bytes));
    let mut flat = path.replace('/', "__");
    // One file name: a path of several long parts would not fit in the
    // 255 bytes a file system gives a name, and every sync would fail to
    // write it. A long one keeps its start and a hash of the whole.
    if flat.len() > MAX_FLAT {
        let mut cut = MAX_FLAT - 20;
        while !flat.is_char_boundary(cut) {
            cut -= 1;
        }
        let whole = hex::encode(sha2::Sha256::digest(path.as_bytes()));
        flat = format!("{}~{}", &flat[..cut], &whole[..12]);
    }
    format!("{CONFLICTS_DIR}/{flat}.{}", &digest[..16])
}

/// The longest flattened path a conflicts file name keeps whole (the
/// name adds a dot and 16 hex digits).
const MAX_FLAT: usize = 200;

/// Merges the versions of `path` at the merge base, ours and theirs.
pub fn merge_file(
    path: &str,
    base: Option<&[u8]>,
    ours: Option<&[u8]>,
    theirs: Option<&[u8]>,
) -> Merged {
    if ours == theirs {
        return Merged::take(ours);
    }
    match paths::classify(path) {
        RepoPath::Events { .. } => merge_events(ours, theirs),
        RepoPath::Learning { .. } => merge_learning(path, base, ours, theirs),
        _ => merge_other(path, base, ours, theirs),
    }
}

/// Events are never lost: the union of both sides, whatever was deleted.
fn merge_events(ours: Option<&[u8]>, theirs: Option<&[u8]>) -> Merged {
    let text = |b: Option<&[u8]>| String::from_utf8_lossy(b.unwrap_or_default()).into_owned();
    let merged = event::union(&[&text(ours), &text(theirs)]);
    Merged {
        result: Some(merged.into_bytes()),
        kept: Vec::new(),
    }
}

fn parse(path: &str, bytes: &[u8]) -> Option<Learning> {
    Learning::parse_at(path, bytes).ok()
}

/// A learning "changed" when its content (derived fields left out) did.
fn same_content(path: &str, a: &[u8], b: &[u8]) -> bool {
    a == b
        || match (parse(path, a), parse(path, b)) {
            (Some(x), Some(y)) => x.content_bytes() == y.content_bytes(),
            _ => false,
        }
}

fn merge_learning(
    path: &str,
    base: Option<&[u8]>,
    ours: Option<&[u8]>,
    theirs: Option<&[u8]>,
) -> Merged {
    match (ours, theirs) {
        (Some(o), Some(t)) => match (parse(path, o), parse(path, t)) {
            (Some(lo), Some(lt)) if lo.content_bytes() == lt.content_bytes() => {
                // Only derived fields differ (they are recomputed next); pick symmetrically.
                Merged::take(Some(o.max(t)))
            }
            (Some(lo), Some(lt)) => {
                let winner = crate::learning::newer(&lo, &lt);
                Merged {
                    result: Some(winner.to_markdown().into_bytes()),
                    kept: Vec::new(),
                }
            }
            (Some(_), None) => Merged {
                result: Some(o.to_vec()),
                kept: vec![(conflict_path(path, t), t.to_vec())],
            },
            (None, Some(_)) => Merged {
                result: Some(t.to_vec()),
                kept: vec![(conflict_path(path, o), o.to_vec())],
            },
            (None, None) => {
                let (keep, other) = if o >= t { (o, t) } else { (t, o) };
                Merged {
                    result: Some(keep.to_vec()),
                    kept: vec![(conflict_path(path, other), other.to_vec())],
                }
            }
        },
        // Deleted on one side: deleted if the other side left it unchanged, else kept.
        (None, Some(t)) => match base {
            Some(b) if same_content(path, b, t) => Merged::take(None),
            _ => Merged::take(Some(t)),
        },
        (Some(o), None) => match base {
            Some(b) if same_content(path, b, o) => Merged::take(None),
            _ => Merged::take(Some(o)),
        },
        (None, None) => Merged::take(None),
    }
}

/// Policy, kg, reviews, anything else: a three-way line merge; on a real
/// conflict keep ours and record theirs. A deletion against an edit keeps the edit.
fn merge_other(
    path: &str,
    base: Option<&[u8]>,
    ours: Option<&[u8]>,
    theirs: Option<&[u8]>,
) -> Merged {
    if base == ours {
        return Merged::take(theirs);
    }
    if base == theirs {
        return Merged::take(ours);
    }
    match (ours, theirs) {
        (Some(o), None) => Merged::take(Some(o)),
        (None, Some(t)) => Merged::take(Some(t)),
        (None, None) => Merged::take(None),
        (Some(o), Some(t)) => {
            let b = base.unwrap_or_default();
            match diffy::merge_bytes(b, o, t) {
                Ok(merged) => Merged {
                    result: Some(merged),
                    kept: Vec::new(),
                },
                Err(_) => Merged {
                    result: Some(o.to_vec()),
                    kept: vec![(conflict_path(path, t), t.to_vec())],
                },
            }
        }
    }
}

/// The agent that owns `path` (§6.1): the folder of a learning or an
/// events file, and so anything else inside `<agent>/` or
/// `events/<agent>/` (a note, a folder where next month's events file
/// goes); `None` for the shared paths (`kg/`, `reviews/`, `.learnsync/`,
/// the root's files).
pub fn owner_of(path: &str) -> Option<&str> {
    let (first, rest) = path.split_once('/')?;
    let agent = match first {
        "events" => rest.split_once('/')?.0,
        _ => first,
    };
    paths::validate_agent(agent).is_ok().then_some(agent)
}

/// What ownership (§6.1) lets a head that is not the owner's change in an
/// owned path, judged against the owner's branch as fetched (`tip`: the
/// path's bytes there, `None` when the owner's branch has no such file or
/// there is no owner's branch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Screen {
    /// Theirs is the owner's own version: merged as any other change.
    Accept,
    /// Theirs is an older version of the owner's (a peer's stale copy):
    /// ours stays, silently.
    Ignore,
    /// Theirs is not the owner's: ours stays; `kept` holds the refused
    /// bytes for `.learnsync/conflicts/` (none for a deletion).
    Refuse {
        why: &'static str,
        kept: Option<(String, Vec<u8>)>,
    },
    /// An events file: only `theirs` (the lines the owner's branch has)
    /// is merged; the other lines are refused and kept.
    Filter {
        theirs: Vec<u8>,
        kept: (String, Vec<u8>),
    },
}

/// Screens theirs version of an owned `path` against the owner's `tip`.
pub fn screen(
    path: &str,
    ours: Option<&[u8]>,
    theirs: Option<&[u8]>,
    tip: Option<&[u8]>,
) -> Screen {
    match paths::classify(path) {
        RepoPath::Events { .. } => screen_events(path, ours, theirs, tip),
        RepoPath::Learning { .. } => screen_learning(path, ours, theirs, tip),
        _ if owner_of(path).is_some() => screen_other(path, theirs, tip),
        _ => Screen::Accept,
    }
}

/// Any other file in an owner's folder: only the owner's own version.
fn screen_other(path: &str, theirs: Option<&[u8]>, tip: Option<&[u8]>) -> Screen {
    match (theirs, tip) {
        (t, p) if t == p => Screen::Accept,
        (None, Some(_)) => Screen::Refuse {
            why: "deletes a file its owner still has",
            kept: None,
        },
        (Some(t), _) => Screen::Refuse {
            why: "differs from the owner's version",
            kept: Some((conflict_path(path, t), t.to_vec())),
        },
        (None, None) => Screen::Accept,
    }
}

fn screen_learning(
    path: &str,
    ours: Option<&[u8]>,
    theirs: Option<&[u8]>,
    tip: Option<&[u8]>,
) -> Screen {
    // Only derived fields differ from ours: every clone recomputes them
    // (§6.1), so it merges as before ownership (and may fast-forward).
    if let (Some(o), Some(t)) = (ours, theirs)
        && same_content(path, o, t)
    {
        return Screen::Accept;
    }
    let Some(t) = theirs else {
        return match tip {
            Some(_) => Screen::Refuse {
                why: "deletes a learning its owner still has",
                kept: None,
            },
            None => Screen::Accept,
        };
    };
    let refuse = |why| Screen::Refuse {
        why,
        kept: Some((conflict_path(path, t), t.to_vec())),
    };
    let Some(p) = tip else {
        return refuse("the owner's branch has no such learning");
    };
    if same_content(path, t, p) {
        return Screen::Accept;
    }
    match (parse(path, t), parse(path, p)) {
        (Some(lt), Some(lp))
            if crate::learning::newer(&lt, &lp).content_bytes() == lp.content_bytes() =>
        {
            Screen::Ignore
        }
        _ => refuse("differs from the owner's version"),
    }
}

/// The lines of an events file, blank lines left out.
fn event_lines(bytes: Option<&[u8]>) -> std::collections::BTreeSet<String> {
    String::from_utf8_lossy(bytes.unwrap_or_default())
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

fn screen_events(
    path: &str,
    ours: Option<&[u8]>,
    theirs: Option<&[u8]>,
    tip: Option<&[u8]>,
) -> Screen {
    let Some(t) = theirs else {
        return Screen::Accept;
    };
    let (known, ours) = (event_lines(tip), event_lines(ours));
    let (mut allowed, mut refused) = (String::new(), String::new());
    for line in String::from_utf8_lossy(t).lines().map(str::trim_end) {
        if line.is_empty() {
            continue;
        }
        let to = if known.contains(line) || ours.contains(line) {
            &mut allowed
        } else {
            &mut refused
        };
        to.push_str(line);
        to.push('\n');
    }
    if refused.is_empty() {
        return Screen::Accept;
    }
    Screen::Filter {
        theirs: allowed.into_bytes(),
        kept: (
            conflict_path(path, refused.as_bytes()),
            refused.into_bytes(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_conflicts_file_name_fits_whatever_the_path() {
        let short = conflict_path("victim/l-1.md", b"x");
        assert!(
            short.starts_with(".learnsync/conflicts/victim__l-1.md."),
            "{short}"
        );
        let long = format!("kg/{}/{}/x.md", "a".repeat(200), "é".repeat(100));
        let kept = conflict_path(&long, b"x");
        let name = kept.rsplit('/').next().expect("name");
        assert!(name.len() <= 255, "{} bytes", name.len());
        assert_ne!(
            kept,
            conflict_path(&format!("{long}2"), b"x"),
            "the whole path tells them apart"
        );
        assert_eq!(kept, conflict_path(&long, b"x"), "the same on every clone");
    }

    #[test]
    fn everything_in_an_agents_folders_is_that_agents() {
        for (path, owner) in [
            ("victim/l-1.md", Some("victim")),
            ("victim/notes/README.md", Some("victim")),
            ("events/victim/2026-12.jsonl", Some("victim")),
            ("events/victim/2026-12.jsonl/x", Some("victim")),
            ("kg/git.md", None),
            ("reviews/l-1.yaml", None),
            (".learnsync/conflicts/x", None),
            ("README.md", None),
            ("events/x.jsonl", None),
        ] {
            assert_eq!(owner_of(path), owner, "{path}");
        }
    }
    use crate::event::{Event, Outcome};
    use crate::timestamp::Timestamp;
    use proptest::prelude::*;

    const PATH: &str = "claude/learning-1.md";

    fn learning(title: &str, updated: i64) -> Vec<u8> {
        let mut l = Learning::new(
            "learning-1".into(),
            "claude".into(),
            title.into(),
            Timestamp::from_unix(1),
        );
        l.updated_at = Timestamp::from_unix(updated);
        l.correction = Some("fix".into());
        l.to_markdown().into_bytes()
    }

    fn title_of(m: &Merged) -> String {
        Learning::parse(m.result.as_deref().expect("kept"))
            .expect("parses")
            .title
    }

    #[test]
    fn newer_learning_wins_whoever_merges() {
        let (a, b) = (learning("old", 10), learning("new", 20));
        assert_eq!(title_of(&merge_file(PATH, None, Some(&a), Some(&b))), "new");
        assert_eq!(title_of(&merge_file(PATH, None, Some(&b), Some(&a))), "new");
    }

    #[test]
    fn ties_go_to_the_greater_content_bytes() {
        let (a, b) = (learning("alpha", 10), learning("beta", 10));
        let ab = merge_file(PATH, None, Some(&a), Some(&b));
        let ba = merge_file(PATH, None, Some(&b), Some(&a));
        assert_eq!(ab, ba);
        assert_eq!(title_of(&ab), "beta");
    }

    #[test]
    fn derived_fields_do_not_decide() {
        let plain = learning("same", 10);
        let mut forged = Learning::parse(&plain).expect("parses");
        forged.trust_level = crate::learning::TrustLevel::L3;
        let forged = forged.to_markdown().into_bytes();
        let m1 = merge_file(PATH, None, Some(&plain), Some(&forged));
        let m2 = merge_file(PATH, None, Some(&forged), Some(&plain));
        assert_eq!(
            m1, m2,
            "a merge that depends on derived fields would not converge"
        );
    }

    #[test]
    fn deletion_rules() {
        let base = learning("t", 10);
        let edited = learning("t2", 20);
        let mut recomputed = Learning::parse(&base).expect("parses");
        recomputed.quality.applied_count = 4;
        let recomputed = recomputed.to_markdown().into_bytes();
        assert_eq!(
            merge_file(PATH, Some(&base), None, Some(&base)).result,
            None
        );
        assert_eq!(
            merge_file(PATH, Some(&base), Some(&base), None).result,
            None
        );
        assert_eq!(
            merge_file(PATH, Some(&base), None, Some(&recomputed)).result,
            None,
            "a recompute is not an edit"
        );
        assert_eq!(
            merge_file(PATH, Some(&base), None, Some(&edited)).result,
            Some(edited.clone())
        );
        assert_eq!(
            merge_file(PATH, Some(&base), Some(&edited), None).result,
            Some(edited)
        );
    }

    #[test]
    fn unparseable_side_is_kept_under_conflicts() {
        let good = learning("t", 10);
        let bad = b"---\ntitle: [broken\n---\n".to_vec();
        for m in [
            merge_file(PATH, None, Some(&good), Some(&bad)),
            merge_file(PATH, None, Some(&bad), Some(&good)),
        ] {
            assert_eq!(m.result, Some(good.clone()));
            assert_eq!(m.kept, vec![(conflict_path(PATH, &bad), bad.clone())]);
            assert!(
                m.kept[0]
                    .0
                    .starts_with(".learnsync/conflicts/claude__learning-1.md.")
            );
        }
    }

    #[test]
    fn other_files_merge_by_lines_and_keep_theirs_on_conflict() {
        let p = "kg/git.md";
        let base = b"a\nb\nc\nd\ne\n".as_slice();
        let ours = b"a\nB\nc\nd\ne\n".as_slice();
        let theirs = b"a\nb\nc\nd\nE\n".as_slice();
        assert_eq!(
            merge_file(p, Some(base), Some(ours), Some(theirs))
                .result
                .as_deref(),
            Some(b"a\nB\nc\nd\nE\n".as_slice())
        );
        let clash = b"a\nX\nc\nd\ne\n".as_slice();
        let m = merge_file(p, Some(base), Some(ours), Some(clash));
        assert_eq!(m.result.as_deref(), Some(ours));
        assert_eq!(m.kept, vec![(conflict_path(p, clash), clash.to_vec())]);
        assert!(
            !String::from_utf8_lossy(m.result.as_deref().unwrap_or_default()).contains("<<<<<<<")
        );
        assert_eq!(
            merge_file(p, Some(base), None, Some(ours))
                .result
                .as_deref(),
            Some(ours),
            "an edit beats a delete"
        );
    }

    fn ev(id: u8, at: i64) -> String {
        Event {
            id: format!("e{id}"),
            learning: "learning-1".into(),
            agent: "claude".into(),
            at: Timestamp::from_unix(at),
            outcome: Outcome::Applied,
            via: None,
        }
        .to_line()
            + "\n"
    }

    #[test]
    fn events_are_never_deleted() {
        let p = "events/claude/1970-01.jsonl";
        let base = ev(1, 1);
        let theirs = base.clone() + &ev(2, 2);
        let m = merge_file(p, Some(base.as_bytes()), None, Some(theirs.as_bytes()));
        assert_eq!(m.result.as_deref(), Some(theirs.as_bytes()));
    }

    #[test]
    fn a_non_owner_version_is_refused_an_older_one_ignored() {
        let (old, owners, forged) = (
            learning("old", 10),
            learning("owner", 20),
            learning("evil", 99),
        );
        assert_eq!(
            screen(PATH, Some(&old), Some(&owners), Some(&owners)),
            Screen::Accept
        );
        assert_eq!(
            screen(PATH, Some(&owners), Some(&old), Some(&owners)),
            Screen::Ignore
        );
        assert_eq!(
            screen(PATH, Some(&owners), Some(&forged), Some(&owners)),
            Screen::Refuse {
                why: "differs from the owner's version",
                kept: Some((conflict_path(PATH, &forged), forged.clone())),
            }
        );
        assert!(matches!(
            screen(PATH, None, Some(&forged), None),
            Screen::Refuse { kept: Some(_), .. }
        ));
        assert!(matches!(
            screen(PATH, Some(&owners), None, Some(&owners)),
            Screen::Refuse { kept: None, .. }
        ));
        assert_eq!(screen(PATH, Some(&owners), None, None), Screen::Accept);
        // A peer's recompute of derived fields is no change to refuse, even
        // when the owner has no branch to judge by.
        let text = String::from_utf8_lossy(&owners).into_owned();
        let recomputed = text.replace("applied_count: 0", "applied_count: 3");
        assert_ne!(recomputed, text);
        assert_eq!(
            screen(PATH, Some(&owners), Some(recomputed.as_bytes()), None),
            Screen::Accept
        );
        assert_eq!(owner_of(PATH), Some("claude"));
        assert_eq!(owner_of("kg/x.md"), None);
    }

    #[test]
    fn event_lines_the_owner_never_wrote_are_filtered_out() {
        let p = "events/claude/1970-01.jsonl";
        let tip = ev(1, 1) + &ev(2, 2);
        let theirs = tip.clone() + &ev(3, 3);
        assert_eq!(
            screen(
                p,
                Some(ev(1, 1).as_bytes()),
                Some(tip.as_bytes()),
                Some(tip.as_bytes())
            ),
            Screen::Accept
        );
        assert_eq!(
            screen(
                p,
                Some(ev(1, 1).as_bytes()),
                Some(theirs.as_bytes()),
                Some(tip.as_bytes())
            ),
            Screen::Filter {
                theirs: tip.clone().into_bytes(),
                kept: (conflict_path(p, ev(3, 3).as_bytes()), ev(3, 3).into_bytes()),
            }
        );
    }

    proptest! {
        #[test]
        fn learning_merge_is_commutative_and_idempotent(
            ta in "[a-c]{1,3}", tb in "[a-c]{1,3}", ua in 0i64..3, ub in 0i64..3,
        ) {
            let (a, b) = (learning(&ta, ua), learning(&tb, ub));
            let ab = merge_file(PATH, None, Some(&a), Some(&b));
            let ba = merge_file(PATH, None, Some(&b), Some(&a));
            prop_assert_eq!(&ab, &ba);
            let r = ab.result.clone().unwrap_or_default();
            prop_assert_eq!(merge_file(PATH, None, Some(&r), Some(&r)).result, Some(r));
        }
    }
}
