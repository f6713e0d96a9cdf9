//! The block a session starts with (`learnsync context`): the learnings most
//! worth knowing for this agent and project — L3 first, then L2 by
//! evidence, then the most recent L1 of the project — each with its
//! correction, cut at a character cap on a learning boundary with a note
//! that more exist. Pure: selection reads only the fixed-width attributes
//! of a [`Source`]; rendering takes the chosen learnings in order.

use super::doc::Meta;
use super::postings::{Attrs, Source};
use super::rank::{Request, admits};
use crate::learning::TrustLevel;
use serde::Serialize;

/// A correction longer than this is clipped in the block (one learning must
/// not take the whole cap).
const MAX_CORRECTION_CHARS: usize = 400;
const MAX_TITLE_CHARS: usize = 160;

/// The learnings for a context block, best first: doc numbers.
pub fn select(
    source: &dyn Source,
    agent: Option<&str>,
    project: Option<&str>,
    pulled: &std::collections::HashSet<String>,
) -> Vec<u32> {
    let tables = source.tables();
    let req = Request {
        agent,
        ..Request::default()
    };
    let pulled_docs = super::rank::pulled_docs(source, Some(pulled));
    let project_index = project.and_then(|p| tables.projects.iter().position(|x| x == p));
    let same = |a: &Attrs| project_index.is_some_and(|i| a.project as usize == i && i != 0);
    let mut chosen: Vec<(u32, (u8, u8, i64))> = Vec::new();
    for doc in 0..source.doc_slots() {
        let Some(a) = source.attrs(doc) else { continue };
        if !admits(&a, &req, tables) || pulled_docs.contains(&doc) {
            continue;
        }
        let own = same(&a);
        // Lower sorts first: (tier, project, then a tier's own order).
        let key = match a.trust {
            TrustLevel::L3 => (0, u8::from(!own), -((a.success * 1e4) as i64)),
            TrustLevel::L2 => (1, u8::from(!own), -((a.success * 1e4) as i64)),
            // L1: only the project's own (or, with no project, any), newest first.
            _ if project.is_none() || own => (2, 0, -(a.day as i64)),
            _ => continue,
        };
        chosen.push((doc, key));
    }
    chosen.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(&b.0)));
    chosen.into_iter().map(|(d, _)| d).collect()
}

/// A rendered block.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Block {
    pub markdown: String,
    /// The learnings in the block, in order.
    pub shown: Vec<Shown>,
    /// Learnings that would have been next but did not fit.
    pub more: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Shown {
    pub id: String,
    pub title: String,
    pub correction: String,
    pub trust: String,
    /// The command the learning is about (for following its outcome, §4.1).
    #[serde(skip)]
    pub command: Option<String>,
}

fn clip(s: &str, max: usize) -> String {
    let s = s.trim();
    if s.chars().count() <= max {
        return s.replace('\n', " ");
    }
    let cut: String = s.chars().take(max.saturating_sub(1)).collect();
    format!("{}…", cut.trim_end().replace('\n', " "))
}

/// One learning as a framed note (`frame::note`): provenance, then its
/// clipped title and correction fenced.
fn entry(m: &Meta) -> String {
    let mut correction = clip(&m.correction, MAX_CORRECTION_CHARS);
    if let Some(p) = &m.project {
        correction.push_str(&format!(" (project {p})"));
    }
    super::frame::note(
        &super::frame::Provenance::of(m),
        &clip(&m.title, MAX_TITLE_CHARS),
        &correction,
    )
}

fn note(more: usize) -> String {
    format!("\n_{more} more learning(s) not shown; `learnsync query <words>` finds them._\n")
}

/// Renders learnings (best first; `total` counts all candidates, rendered or
/// not) within `max_chars` characters: whole learnings only, and when some
/// do not fit, a note saying how many more exist (room for it is kept).
pub fn render(
    candidates: impl IntoIterator<Item = Meta>,
    total: usize,
    agent: Option<&str>,
    project: Option<&str>,
    max_chars: usize,
) -> Block {
    let mut header = String::from("## Learnings for this session");
    let agent = agent.map(crate::text::escape_line);
    let project = project.map(crate::text::escape_line);
    match (agent, project) {
        (Some(a), Some(p)) => header.push_str(&format!(" ({a}, project {p})")),
        (Some(a), None) => header.push_str(&format!(" ({a})")),
        (None, Some(p)) => header.push_str(&format!(" (project {p})")),
        (None, None) => {}
    }
    header.push_str("\n\n");
    header.push_str(super::frame::HEADER);
    header.push_str("\n\n");
    let mut out = Block {
        markdown: String::new(),
        shown: Vec::new(),
        more: 0,
    };
    if total == 0 {
        return out;
    }
    let mut body = header;
    let mut used = body.chars().count();
    for m in candidates {
        let e = entry(&m);
        let len = e.chars().count();
        let left = total - out.shown.len() - 1;
        let reserve = if left > 0 {
            note(left).chars().count()
        } else {
            0
        };
        if used + len + reserve > max_chars {
            break;
        }
        used += len;
        body.push_str(&e);
        // Shown text is redacted again (§9.1), in JSON too.
        let redacted = |s: String| crate::redact::redact(&s).into_owned();
        out.shown.push(Shown {
            id: m.id,
            title: redacted(m.title),
            correction: redacted(m.correction),
            trust: m.trust,
            command: m.command,
        });
    }
    out.more = total - out.shown.len();
    if out.more > 0 {
        body.push_str(&note(out.more));
    }
    if body.chars().count() > max_chars {
        // Not even the header and the note fit: say only what fits of the note.
        body = clip(&note(out.more), max_chars);
    }
    out.markdown = body;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::doc::Evidence;

    fn meta(i: usize, trust: &str, correction_len: usize) -> Meta {
        Meta {
            id: format!("learning-{i}"),
            title: format!("Learning number {i}"),
            correction: "x".repeat(correction_len),
            agent: "claude".into(),
            path: format!("claude/learning-{i}.md"),
            trust: trust.into(),
            kind: None,
            project: None,
            applicable: Vec::new(),
            command: None,
            updated_at: 0,
            fresh_at: None,
            evidence: Evidence::default(),
            lens: [0; crate::search::doc::FIELD_COUNT],
        }
    }

    #[test]
    fn the_cap_cuts_on_a_learning_boundary_and_says_more_exist() {
        let all: Vec<Meta> = (0..30).map(|i| meta(i, "L2", 120)).collect();
        for cap in [300, 700, 1000, 4000] {
            let b = render(all.clone(), all.len(), Some("claude"), Some("shop"), cap);
            assert!(
                b.markdown.chars().count() <= cap,
                "cap {cap}: {}",
                b.markdown.len()
            );
            assert_eq!(b.shown.len() + b.more, 30);
            // Every shown learning is there whole; none that is not shown is.
            for s in &b.shown {
                assert!(b.markdown.contains(&format!("- learning {} (", s.id)));
            }
            assert!(
                !b.markdown
                    .contains(&format!("- learning learning-{} (", b.shown.len()))
            );
            if b.more > 0 {
                assert!(
                    b.markdown.contains(&format!("{} more learning(s)", b.more)),
                    "{}",
                    b.markdown
                );
            }
        }
    }

    #[test]
    fn everything_that_fits_is_shown_without_a_note() {
        let all: Vec<Meta> = (0..3).map(|i| meta(i, "L3", 20)).collect();
        let b = render(all, 3, None, None, 4000);
        assert_eq!(b.shown.len(), 3);
        assert_eq!(b.more, 0);
        assert!(!b.markdown.contains("more learning"));
    }

    #[test]
    fn nothing_to_say_is_an_empty_block() {
        let b = render(Vec::new(), 0, Some("claude"), None, 4000);
        assert_eq!(b.markdown, "");
    }

    #[test]
    fn a_huge_correction_is_clipped_not_allowed_to_fill_the_block() {
        let b = render(
            vec![meta(0, "L3", 10_000), meta(1, "L2", 10)],
            2,
            None,
            None,
            4000,
        );
        assert_eq!(b.shown.len(), 2);
    }
}
