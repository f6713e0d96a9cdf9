//! What a reader sees of a rendered page: its structure as a CommonMark +
//! GFM renderer (Gitea's) builds it — headings, tables and their rows,
//! lists, links — and the ways a template's whitespace glues blocks
//! together (a line after a table becomes a row, a paragraph before `---`
//! becomes a heading, a line after a list joins its last item). Pure; used
//! by the template tests and by `doctor` on a user's template dir, which it
//! renders over sample learnings that use every optional field.

use super::state::{PageRecord, TargetState};
use crate::learning::{Learning, Quality, TrustLevel};
use crate::policy::WikiPolicy;
use crate::render::templates::{self, TemplateError, Templates};
use crate::render::{
    HOME_TITLE, MonthImpact, Page, PageKind, SIDEBAR_TITLE, add_retractions, render_site_with,
};
use crate::timestamp::Timestamp;
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

/// The options Gitea's renderer is held to here: CommonMark plus GFM tables,
/// strikethrough and task lists.
fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// One table: its header cells and the text of each body row's cells.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// The structure of a page, as text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outline {
    /// `(level, text)` of every heading, ATX or setext.
    pub headings: Vec<(u8, String)>,
    pub tables: Vec<Table>,
    /// The items of every list, by list.
    pub lists: Vec<Vec<String>>,
    /// `(text, destination)` of every link.
    pub links: Vec<(String, String)>,
    /// Thematic breaks (`---` lines that stayed rules).
    pub rules: usize,
    /// What looks glued: each a sentence for a person.
    pub glued: Vec<String>,
}

fn level(l: HeadingLevel) -> u8 {
    match l {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// Parses `markdown` as Gitea renders it and says what a reader sees.
pub fn outline(markdown: &str) -> Outline {
    let mut out = Outline::default();
    // Text being collected for the innermost heading, cell, item or link.
    let mut heading: Option<(u8, String, bool)> = None;
    let mut table: Option<Table> = None;
    let mut row: Option<Vec<String>> = None;
    let mut cell: Option<String> = None;
    let mut lists: Vec<Vec<String>> = Vec::new();
    let mut item: Vec<String> = Vec::new();
    let mut link: Option<(String, String)> = None;
    let mut in_code = false;
    for (event, range) in Parser::new_ext(markdown, options()).into_offset_iter() {
        let source = markdown.get(range.clone()).unwrap_or_default();
        match event {
            Event::Start(Tag::Heading { level: l, .. }) => {
                // A setext heading's source does not start with `#`.
                heading = Some((level(l), String::new(), !source.starts_with('#')));
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((l, text, setext)) = heading.take() {
                    let text = text.trim().to_string();
                    if setext {
                        out.glued.push(format!(
                            "the paragraph {text:?} became a heading: a `---` or `===` line follows it with no blank line between"
                        ));
                    }
                    out.headings.push((l, text));
                }
            }
            Event::Start(Tag::Table(_)) => table = Some(Table::default()),
            Event::End(TagEnd::Table) => out.tables.extend(table.take()),
            Event::Start(Tag::TableHead) | Event::Start(Tag::TableRow) => row = Some(Vec::new()),
            Event::End(TagEnd::TableHead) => {
                if let (Some(t), Some(r)) = (table.as_mut(), row.take()) {
                    t.header = r;
                }
            }
            Event::End(TagEnd::TableRow) => {
                if let (Some(t), Some(r)) = (table.as_mut(), row.take()) {
                    // GFM turns a line that follows a table into a row of it,
                    // its text in the first cell: no `|` in that line.
                    if !source.contains('|') {
                        out.glued.push(format!(
                            "the line {:?} after a table became a row of it: put a blank line after the table",
                            source.trim()
                        ));
                    }
                    t.rows.push(r);
                }
            }
            Event::Start(Tag::TableCell) => cell = Some(String::new()),
            Event::End(TagEnd::TableCell) => {
                if let (Some(r), Some(c)) = (row.as_mut(), cell.take()) {
                    r.push(c.trim().to_string());
                }
            }
            Event::Start(Tag::List(_)) => lists.push(Vec::new()),
            Event::End(TagEnd::List(_)) => out.lists.extend(lists.pop()),
            Event::Start(Tag::Item) => item.push(String::new()),
            Event::End(TagEnd::Item) => {
                if let (Some(text), Some(list)) = (item.pop(), lists.last_mut()) {
                    list.push(text.trim().to_string());
                }
            }
            Event::Start(Tag::Link { dest_url, .. }) => {
                link = Some((String::new(), dest_url.to_string()));
            }
            Event::End(TagEnd::Link) => out.links.extend(link.take()),
            Event::Start(Tag::CodeBlock(_)) => in_code = true,
            Event::End(TagEnd::CodeBlock) => in_code = false,
            Event::Rule => out.rules += 1,
            Event::SoftBreak if !item.is_empty() && cell.is_none() => {
                // A line at column 0 right after an item is read as part of
                // it (a lazy continuation): what follows a list must have a
                // blank line before it.
                let next = markdown[range.end..].lines().next().unwrap_or_default();
                if !next.starts_with([' ', '\t']) {
                    out.glued.push(format!(
                        "the line {:?} after a list joined its last item: put a blank line after the list",
                        next.trim()
                    ));
                }
                push_text(&mut heading, &mut cell, &mut item, &mut link, " ");
            }
            Event::Text(t) | Event::Code(t) => {
                if !in_code && heading.is_none() && glued_heading(markdown, range.start, source) {
                    out.glued.push(format!(
                        "a heading is glued to the end of the line {:?}: put it on its own line after a blank line",
                        t.trim()
                    ));
                }
                push_text(&mut heading, &mut cell, &mut item, &mut link, &t);
            }
            Event::SoftBreak | Event::HardBreak => {
                push_text(&mut heading, &mut cell, &mut item, &mut link, " ");
            }
            _ => {}
        }
    }
    out
}

/// Source text that holds `## Word` after other text on its line: a
/// heading markdown did not see because no line break came before it.
fn glued_heading(markdown: &str, start: usize, source: &str) -> bool {
    source.match_indices("## ").any(|(at, _)| {
        let before = &markdown[..start + at];
        !before.is_empty()
            && !before.ends_with(['\n', '#'])
            && source[at + 3..].starts_with(|c: char| c.is_alphabetic())
    })
}

fn push_text(
    heading: &mut Option<(u8, String, bool)>,
    cell: &mut Option<String>,
    item: &mut [String],
    link: &mut Option<(String, String)>,
    text: &str,
) {
    if let Some((_, h, _)) = heading.as_mut() {
        h.push_str(text);
    }
    if let Some(c) = cell.as_mut() {
        c.push_str(text);
    }
    if let Some(i) = item.last_mut() {
        i.push_str(text);
    }
    if let Some((t, _)) = link.as_mut() {
        t.push_str(text);
    }
}

/// Sample learnings that exercise every optional part of every template:
/// one with every field, one with none, at both published levels, sharing
/// a keyword; and one that lost its trust, for the retraction notice.
pub fn sample_learnings() -> Vec<Learning> {
    let at = |s: i64| Timestamp::from_unix(1_767_225_600 + s);
    let mut full = Learning::new(
        "learning-00000000000000000000000000000001-1767225600000".into(),
        "claude".into(),
        "Use --force-with-lease instead of --force".into(),
        at(0),
    );
    full.trust_level = TrustLevel::L3;
    full.promoted_at = Some(at(60));
    full.kind = Some("correction".into());
    full.keywords = vec!["git".into(), "push".into()];
    full.original_command = Some("git push -f".into());
    full.error_context =
        Some("! [remote rejected] main -> main (protected branch hook declined)".into());
    full.correction = Some("- use `git push --force-with-lease`\n- or open a pull request".into());
    full.body =
        "Protected branches refuse a plain force push.\n\nAsk a maintainer if in doubt.\n".into();
    full.quality = Quality {
        applied_count: 5,
        effective_count: 4,
        agent_count: 2,
        agent_names: vec!["claude".into(), "codex".into()],
        last_applied_at: Some(at(120)),
        success_rate: Some(0.8),
    };
    let mut bare = Learning::new(
        "learning-00000000000000000000000000000002-1767225600000".into(),
        "codex".into(),
        "Quote globs".into(),
        at(10),
    );
    bare.trust_level = TrustLevel::L2;
    bare.correction = Some("quote it".into());
    bare.keywords = vec!["git".into()];
    let mut gone = bare.clone();
    gone.id = "learning-00000000000000000000000000000003-1767225600000".into();
    gone.title = "No longer trusted".into();
    gone.trust_level = TrustLevel::L1;
    gone.quality.success_rate = Some(0.2);
    vec![full, bare, gone]
}

/// What the sample learnings did in their month (`2026-01`), so Home's
/// section is rendered and checked too: the first denied, then effective;
/// the second effective with no showing.
pub fn sample_month(learnings: &[Learning]) -> Option<MonthImpact> {
    use crate::event::{Event, Outcome, Via};
    let at = |s: i64| Timestamp::from_unix(1_767_225_600 + s);
    let (first, second) = (&learnings.first()?.id, &learnings.get(1)?.id);
    let events = [
        Event::new(first, "codex", Outcome::Applied, at(100)).via(Via::Deny),
        Event::new(first, "codex", Outcome::Effective, at(110)),
        Event::new(second, "claude", Outcome::Effective, at(120)),
    ];
    MonthImpact::of(&events, "2026-01")
}

/// A page of the sample site that does not read as its template meant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateProblem {
    /// The template file that made the page (`learning.md`, …).
    pub template: &'static str,
    pub page: String,
    pub message: String,
}

/// Every page the templates make from [`sample_learnings`] (a retraction
/// notice included), and what looks glued on each.
pub fn template_problems(templates: &Templates) -> Result<Vec<TemplateProblem>, TemplateError> {
    let learnings = sample_learnings();
    let month = sample_month(&learnings);
    let mut site = render_site_with(
        &learnings,
        month.as_ref(),
        &WikiPolicy::default(),
        templates,
    )?;
    let mut published = TargetState::default();
    let retracted = &learnings[2].id;
    published.pages.insert(
        retracted.clone(),
        PageRecord {
            title: "Learning: No longer trusted".into(),
            sub_url: "Learning%3A-No-longer-trusted".into(),
            ..PageRecord::default()
        },
    );
    add_retractions(
        &mut site,
        &learnings,
        &Default::default(),
        &|id| published.title_of(id),
        templates,
    )?;
    let template_of = |p: &Page| match p.kind {
        PageKind::Learning if p.key == *retracted => templates::RETRACTION,
        PageKind::Learning => templates::LEARNING,
        PageKind::Index if p.title == HOME_TITLE => templates::HOME,
        PageKind::Index if p.title == SIDEBAR_TITLE => templates::SIDEBAR,
        PageKind::Index if p.title.starts_with("Keyword ") => templates::KEYWORD,
        PageKind::Index => templates::TRUST,
    };
    Ok(site
        .pages
        .iter()
        .flat_map(|p| {
            outline(&p.content)
                .glued
                .into_iter()
                .map(|message| TemplateProblem {
                    template: template_of(p),
                    page: p.title.clone(),
                    message,
                })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glued_blocks_are_named() {
        let page = "| a | b |\n|---|---|\n| 1 | 2 |\n[Home](Home)\n";
        let o = outline(page);
        assert_eq!(o.tables[0].rows.len(), 2, "{o:?}");
        assert!(o.glued[0].contains("[Home](Home)"), "{o:?}");

        let o = outline("Some text\n---\n\nmore\n");
        assert_eq!(o.headings, [(2, "Some text".to_string())]);
        assert!(o.glued[0].contains("became a heading"), "{o:?}");

        let o = outline("- one\n- two\n**Keywords**\n");
        assert_eq!(
            o.lists,
            [vec!["one".to_string(), "two Keywords".to_string()]]
        );
        assert!(o.glued[0].contains("joined its last item"), "{o:?}");

        let o = outline("**Keywords:** [git](git)## Original command\n");
        assert!(o.glued[0].contains("heading is glued"), "{o:?}");
    }

    #[test]
    fn well_separated_blocks_are_clean() {
        let page = "# T\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- x\n  still x\n- y\n\n[Home](Home)\n\n---\n\nfooter\n";
        let o = outline(page);
        assert!(o.glued.is_empty(), "{o:?}");
        assert_eq!(o.headings, [(1, "T".to_string())]);
        assert_eq!(o.tables[0].rows, [vec!["1".to_string(), "2".to_string()]]);
        assert_eq!(o.lists, [vec!["x still x".to_string(), "y".to_string()]]);
        assert_eq!(o.links, [("Home".to_string(), "Home".to_string())]);
        assert_eq!(o.rules, 1);
    }
}
