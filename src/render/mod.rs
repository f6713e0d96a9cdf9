//! What learnsync writes for people to read, purely, for the wiki
//! (`publish`) and review's pull requests (`review_pass`) alike: which
//! learnings get a page, their stable unique titles, the rendered and
//! sanitised markdown of every page (learning pages and the index pages),
//! the redactor's last word; the templates ([`templates`]), markdown made
//! safe ([`sanitize`]) and the size Gitea stores ([`limit`]).

pub mod limit;
pub mod sanitize;
pub mod templates;

pub use templates::{TemplateError, Templates};

use crate::learning::{Learning, SuggestionStatus, TrustLevel};
use crate::page_name::{
    clean_title_text, is_reserved_title, learning_page_title, short_id, title_to_git_path,
    title_to_sub_url,
};
use crate::policy::WikiPolicy;
use sanitize::{code_block, escape_inline, sanitize_markdown};
use serde::Serialize;
use serde_json::json;
use std::collections::{BTreeMap, HashSet};

/// Title of the wiki's front page.
pub const HOME_TITLE: &str = "Home";
/// Title of the sidebar Gitea shows beside every page.
pub const SIDEBAR_TITLE: &str = "_Sidebar";
/// Learnings listed under "Newest" on Home.
const NEWEST_ON_HOME: usize = 10;
/// Learnings named in Home's "What learnings did this month".
const IMPACT_ON_HOME: usize = 5;

/// What the learnings did in one calendar month, for Home: `crate::impact`
/// over that month's events. The same events and month give the same page
/// on every machine; a new month changes Home once.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MonthImpact {
    /// `YYYY-MM` (UTC).
    pub month: String,
    pub report: crate::impact::Report,
}

impl MonthImpact {
    /// The report of `events` over `month` (`YYYY-MM`); `None` for a month
    /// that does not parse.
    pub fn of(events: &[crate::event::Event], month: &str) -> Option<MonthImpact> {
        let scope = crate::impact::Scope::month(month)?;
        Some(MonthImpact {
            month: month.to_string(),
            report: crate::impact::report(events, &[], &scope),
        })
    }
}

/// What a page is for: one learning, or an index over them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PageKind {
    Learning,
    Index,
}

/// One page as it should be on the wiki.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// Stable identity in the publish state: the learning id, or `index:<title>`.
    pub key: String,
    pub kind: PageKind,
    pub title: String,
    /// Gitea's escaped page name for `title`.
    pub sub_url: String,
    pub content: String,
    /// SHA-256 of `content`, hex.
    pub hash: String,
}

impl Page {
    fn new(key: String, kind: PageKind, title: String, content: String) -> Self {
        Page {
            key,
            kind,
            sub_url: title_to_sub_url(&title),
            hash: content_hash(content.as_bytes()),
            title,
            content,
        }
    }
}

/// A page that is not published because the redactor found a secret in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Withheld {
    pub key: String,
    pub title: String,
    /// What was found (kinds only, never the secret).
    pub reason: String,
}

/// Every page the wiki should hold, and the pages held back.
#[derive(Debug, Clone, Default)]
pub struct Site {
    pub pages: Vec<Page>,
    pub withheld: Vec<Withheld>,
}

/// SHA-256 of page bytes, hex: what the publish state compares.
pub fn content_hash(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

/// L2 and L3 learnings that were not rejected get a page (§7).
pub fn is_publishable(learning: &Learning) -> bool {
    crate::trust::is_published(learning.trust_level, learning.suggestion_status)
}

fn trust_name(level: TrustLevel) -> &'static str {
    match level {
        TrustLevel::L0 => "Extracted",
        TrustLevel::L1 => "Unverified",
        TrustLevel::L2 => "Peer-Validated",
        TrustLevel::L3 => "Human-Approved",
    }
}

/// Title of the index page of one trust level.
pub fn trust_page_title(level: TrustLevel) -> String {
    format!("Trust level {} {}", level.as_str(), trust_name(level))
}

/// Title of the index page of one keyword.
pub fn keyword_page_title(keyword: &str) -> String {
    format!("Keyword {keyword}")
}

/// A keyword as index pages group it: trimmed, lower case, no `/`.
pub fn normalise_keyword(keyword: &str) -> String {
    clean_title_text(keyword).to_lowercase()
}

/// Page titles for `learnings`, in the same order.
///
/// A title is the policy's prefix and the learning's cleaned title. Titles
/// that name the same git file (compared case-insensitively, so clones on
/// macOS and Windows see distinct files) are told apart deterministically: in
/// order of capture time then id, the first keeps the plain title and each
/// later one gets ` (<short id>)`, so a new learning never renames an
/// existing page. `reserved` titles (the index pages) are never given out.
pub fn assign_titles(learnings: &[&Learning], prefix: &str, reserved: &[String]) -> Vec<String> {
    let key = |title: &str| title_to_git_path(title).to_lowercase();
    let mut taken: HashSet<String> = reserved.iter().map(|t| key(t)).collect();
    let mut order: Vec<usize> = (0..learnings.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (learnings[a], learnings[b]);
        (a.captured_at, &a.id).cmp(&(b.captured_at, &b.id))
    });
    let mut titles = vec![String::new(); learnings.len()];
    for i in order {
        let l = learnings[i];
        let base = learning_page_title(prefix, &l.title, &l.id);
        let candidates = [
            base.clone(),
            format!("{base} ({})", short_id(&l.id)),
            format!("{base} ({})", l.id),
        ];
        let usable = |t: &str| !taken.contains(&key(t)) && !is_reserved_title(t);
        let title = match candidates.iter().find(|t| usable(t)) {
            Some(t) => t.clone(),
            None => (2..)
                .map(|n| format!("{base} ({} {n})", l.id))
                .find(|t| usable(t))
                .unwrap_or(base),
        };
        taken.insert(key(&title));
        titles[i] = title;
    }
    titles
}

fn percent(rate: Option<f64>) -> String {
    rate.map_or_else(|| "—".to_string(), |r| format!("{:.0}%", r * 100.0))
}

/// A success rate as pages show it (`80%`, `—` when none).
pub fn percent_of(rate: Option<f64>) -> String {
    percent(rate)
}

/// The secret kinds found in `text`, or `None` when it is clean.
fn secret_kinds(texts: &[&str]) -> Option<String> {
    let mut kinds: Vec<&str> = texts
        .iter()
        .flat_map(|t| crate::redact::findings(t))
        .map(|f| f.kind)
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    (!kinds.is_empty()).then(|| format!("the redactor found {}", kinds.join(", ")))
}

struct Entry<'a> {
    learning: &'a Learning,
    title: String,
    sub_url: String,
    keywords: Vec<String>,
}

/// Renders the whole wiki for `learnings` (any trust; only publishable ones
/// get pages). Pure: the same learnings, policy and templates give the same
/// pages, byte for byte, on every machine.
pub fn render_site(
    learnings: &[Learning],
    policy: &WikiPolicy,
    templates: &Templates,
) -> Result<Site, TemplateError> {
    render_site_with(learnings, None, policy, templates)
}

/// The trust levels that have an index page.
const INDEXED_LEVELS: [TrustLevel; 2] = [TrustLevel::L2, TrustLevel::L3];

/// Keywords that have a page, each with its learnings (places in the entries).
type KeywordUsers = BTreeMap<String, Vec<usize>>;

/// [`render_site`], with Home saying what the learnings did in a month.
pub fn render_site_with(
    learnings: &[Learning],
    month: Option<&MonthImpact>,
    policy: &WikiPolicy,
    templates: &Templates,
) -> Result<Site, TemplateError> {
    let mut site = Site::default();
    let mut publishable: Vec<&Learning> = learnings.iter().filter(|l| is_publishable(l)).collect();
    publishable.sort_by(|a, b| a.id.cmp(&b.id));
    // A learning with a secret in any field is held back before anything links to it.
    let clean = withhold_secret_learnings(publishable, &mut site.withheld);
    let by_keyword = keywords_with_pages(&clean, policy.keyword_index_min);
    let entries = titled_entries(&clean, &by_keyword, &policy.page_prefix);

    let mut pages = Vec::new();
    for e in &entries {
        pages.push(learning_page(e, &by_keyword, templates)?);
    }
    let rows = IndexRows::of(&entries, &by_keyword);
    pages.push(home_page(&entries, &rows, month, templates)?);
    trust_pages(&entries, templates, &mut pages)?;
    keyword_pages(&entries, &by_keyword, templates, &mut pages)?;
    pages.push(sidebar_page(&rows, templates)?);

    // Last word: whatever a template added, no raw HTML and no secret leaves.
    publish_or_withhold(pages, &mut site);
    Ok(site)
}

/// Which learnings are clean: one with a secret in any field is withheld instead.
fn withhold_secret_learnings<'a>(
    publishable: Vec<&'a Learning>,
    withheld: &mut Vec<Withheld>,
) -> Vec<&'a Learning> {
    let mut clean = Vec::new();
    for l in publishable {
        let mut texts = vec![
            l.title.as_str(),
            l.body.as_str(),
            l.agent_id.as_str(),
            l.id.as_str(),
        ];
        texts.extend(
            [
                &l.original_command,
                &l.error_context,
                &l.correction,
                &l.kind,
            ]
            .into_iter()
            .flatten()
            .map(String::as_str),
        );
        texts.extend(l.keywords.iter().map(String::as_str));
        match secret_kinds(&texts) {
            Some(reason) => withheld.push(Withheld {
                key: l.id.clone(),
                title: clean_title_text(&l.title),
                reason,
            }),
            None => clean.push(l),
        }
    }
    clean
}

/// Which keywords get a page: those used by at least `min` (and one) learnings.
fn keywords_with_pages(clean: &[&Learning], min: usize) -> KeywordUsers {
    let mut by_keyword: KeywordUsers = BTreeMap::new();
    for (i, l) in clean.iter().enumerate() {
        let mut seen = HashSet::new();
        for k in &l.keywords {
            let k = normalise_keyword(k);
            if !k.is_empty() && seen.insert(k.clone()) {
                by_keyword.entry(k).or_default().push(i);
            }
        }
    }
    let min = min.max(1);
    by_keyword.retain(|_, users| users.len() >= min);
    by_keyword
}

/// The page title of each clean learning, kept clear of the index pages' titles.
fn titled_entries<'a>(
    clean: &[&'a Learning],
    by_keyword: &KeywordUsers,
    prefix: &str,
) -> Vec<Entry<'a>> {
    let mut reserved: Vec<String> = vec![HOME_TITLE.into(), SIDEBAR_TITLE.into()];
    reserved.extend(INDEXED_LEVELS.iter().map(|&l| trust_page_title(l)));
    reserved.extend(by_keyword.keys().map(|k| keyword_page_title(k)));
    let titles = assign_titles(clean, prefix, &reserved);
    clean
        .iter()
        .zip(titles)
        .map(|(l, title)| Entry {
            learning: l,
            sub_url: title_to_sub_url(&title),
            title,
            keywords: l.keywords.iter().map(|k| normalise_keyword(k)).collect(),
        })
        .collect()
}

/// The page of one learning; its keywords link to their pages, or Home without one.
fn learning_page(
    e: &Entry,
    by_keyword: &KeywordUsers,
    templates: &Templates,
) -> Result<Page, TemplateError> {
    let keyword_link = |k: &str| {
        by_keyword
            .contains_key(k)
            .then(|| title_to_sub_url(&keyword_page_title(k)))
    };
    let l = e.learning;
    let q = &l.quality;
    let context = json!({
        "title": escape_inline(&e.title),
        "learning_title": escape_inline(&l.title),
        "id": l.id,
        "trust": l.trust_level.as_str(),
        "trust_name": trust_name(l.trust_level),
        "kind": l.kind.as_deref().map(escape_inline),
        "source_agent": escape_inline(&l.agent_id),
        "quality": {
            "applied_count": q.applied_count,
            "effective_count": q.effective_count,
            "agent_count": q.agent_count,
            "agent_names": q.agent_names.iter().map(|a| escape_inline(a)).collect::<Vec<_>>(),
            "success_rate": percent(q.success_rate),
            "last_applied_at": q.last_applied_at.map_or_else(|| "—".to_string(), |t| t.to_string()),
        },
        "keywords": e.keywords.iter().filter(|k| !k.is_empty()).map(|k| json!({
            "name": escape_inline(k),
            "link": keyword_link(k).unwrap_or_else(|| title_to_sub_url(HOME_TITLE)),
        })).collect::<Vec<_>>(),
        "original_command": l.original_command.as_deref().filter(|s| !s.trim().is_empty()).map(|c| code_block(c, "sh")),
        "error": l.error_context.as_deref().filter(|s| !s.trim().is_empty()).map(|c| code_block(c, "text")),
        "correction": l.correction.as_deref().filter(|s| !s.trim().is_empty()).map(sanitize_markdown),
        "body": Some(l.body.trim()).filter(|b| !b.is_empty()).map(sanitize_markdown),
        "updated_at": l.updated_at.to_string(),
        "captured_at": l.captured_at.to_string(),
        "promoted_at": l.promoted_at.map(|t| t.to_string()),
    });
    let content = templates.render(templates::LEARNING, context)?;
    Ok(Page::new(
        l.id.clone(),
        PageKind::Learning,
        e.title.clone(),
        content,
    ))
}

/// One learning as an index page lists it.
fn summary(e: &Entry) -> serde_json::Value {
    json!({
        "title": escape_inline(&e.title),
        "link": e.sub_url,
        "trust": e.learning.trust_level.as_str(),
        "keywords": e.keywords.iter().map(|k| escape_inline(k)).collect::<Vec<_>>(),
        "success_rate": percent(e.learning.quality.success_rate),
        "agent_count": e.learning.quality.agent_count,
        "updated_at": e.learning.updated_at.to_string(),
    })
}

/// The trust levels and keywords with a page, as Home and the sidebar list them.
struct IndexRows {
    levels: Vec<serde_json::Value>,
    keywords: Vec<serde_json::Value>,
}

impl IndexRows {
    /// Each indexed level with its count of learnings, and each keyword page with its.
    fn of(entries: &[Entry], by_keyword: &KeywordUsers) -> IndexRows {
        let levels = INDEXED_LEVELS
            .iter()
            .map(|&level| {
                json!({
                    "name": escape_inline(&trust_page_title(level)),
                    "level": level.as_str(),
                    "link": title_to_sub_url(&trust_page_title(level)),
                    "count": entries.iter().filter(|e| e.learning.trust_level == level).count(),
                })
            })
            .collect();
        let keywords = by_keyword
            .iter()
            .map(|(k, users)| {
                json!({
                    "name": escape_inline(k),
                    "link": title_to_sub_url(&keyword_page_title(k)),
                    "count": users.len(),
                })
            })
            .collect();
        IndexRows { levels, keywords }
    }
}

/// Home: the levels, the newest learnings, the keywords and the month's impact.
fn home_page(
    entries: &[Entry],
    rows: &IndexRows,
    month: Option<&MonthImpact>,
    templates: &Templates,
) -> Result<Page, TemplateError> {
    let mut newest: Vec<&Entry> = entries.iter().collect();
    newest.sort_by(|a, b| {
        (b.learning.updated_at, &a.learning.id).cmp(&(a.learning.updated_at, &b.learning.id))
    });
    newest.truncate(NEWEST_ON_HOME);
    let home = templates.render(
        templates::HOME,
        json!({
            "title": HOME_TITLE,
            "levels": rows.levels,
            "total": entries.len(),
            "newest": newest.iter().map(|e| summary(e)).collect::<Vec<_>>(),
            "keywords": rows.keywords,
            "impact": month.and_then(|m| impact_on_home(m, entries)),
        }),
    )?;
    Ok(Page::new(
        index_key(HOME_TITLE),
        PageKind::Index,
        HOME_TITLE.into(),
        home,
    ))
}

/// The page of each indexed trust level, listing its learnings by title.
fn trust_pages(
    entries: &[Entry],
    templates: &Templates,
    pages: &mut Vec<Page>,
) -> Result<(), TemplateError> {
    let mut sorted: Vec<&Entry> = entries.iter().collect();
    sorted.sort_by(|a, b| (&a.title, &a.learning.id).cmp(&(&b.title, &b.learning.id)));
    for &level in &INDEXED_LEVELS {
        let title = trust_page_title(level);
        let description = match level {
            TrustLevel::L3 => "Learnings a maintainer approved through a review on the hub.",
            _ => "Learnings that several agents applied and found effective.",
        };
        let content = templates.render(
            templates::TRUST,
            json!({
                "title": escape_inline(&title),
                "level": level.as_str(),
                "description": description,
                "learnings": sorted.iter().filter(|e| e.learning.trust_level == level).map(|e| summary(e)).collect::<Vec<_>>(),
            }),
        )?;
        pages.push(Page::new(
            index_key(&title),
            PageKind::Index,
            title,
            content,
        ));
    }
    Ok(())
}

/// The page of each keyword that has one, listing its learnings by title.
fn keyword_pages(
    entries: &[Entry],
    by_keyword: &KeywordUsers,
    templates: &Templates,
    pages: &mut Vec<Page>,
) -> Result<(), TemplateError> {
    for (k, users) in by_keyword {
        let title = keyword_page_title(k);
        let mut listed: Vec<&Entry> = users.iter().map(|&i| &entries[i]).collect();
        listed.sort_by(|a, b| (&a.title, &a.learning.id).cmp(&(&b.title, &b.learning.id)));
        let content = templates.render(
            templates::KEYWORD,
            json!({
                "title": escape_inline(&title),
                "keyword": escape_inline(k),
                "learnings": listed.iter().map(|e| summary(e)).collect::<Vec<_>>(),
            }),
        )?;
        pages.push(Page::new(
            index_key(&title),
            PageKind::Index,
            title,
            content,
        ));
    }
    Ok(())
}

/// The sidebar: the same levels and keywords as Home.
fn sidebar_page(rows: &IndexRows, templates: &Templates) -> Result<Page, TemplateError> {
    let sidebar = templates.render(
        templates::SIDEBAR,
        json!({ "levels": rows.levels, "keywords": rows.keywords }),
    )?;
    Ok(Page::new(
        index_key(SIDEBAR_TITLE),
        PageKind::Index,
        SIDEBAR_TITLE.into(),
        sidebar,
    ))
}

/// Which pages are published: each sanitised once more, and withheld if a secret remains.
fn publish_or_withhold(pages: Vec<Page>, site: &mut Site) {
    for page in pages {
        let safe = sanitize_markdown(&page.content);
        let page = if safe == page.content {
            page
        } else {
            Page::new(page.key, page.kind, page.title, safe)
        };
        match secret_kinds(&[&page.title, &page.content]) {
            Some(reason) => site.withheld.push(Withheld {
                key: page.key,
                title: page.title,
                reason,
            }),
            None => site.pages.push(page),
        }
    }
}

/// Home's "What learnings did this month": the month's totals over every
/// learning (figures only), and the most useful learnings that have a page,
/// under their page titles. `None` when the month has no event.
fn impact_on_home(month: &MonthImpact, entries: &[Entry]) -> Option<serde_json::Value> {
    let report = &month.report;
    if report.learnings.is_empty() {
        return None;
    }
    let figures = |f: &crate::impact::Figures| {
        json!({
            "shown": f.shown,
            "denied": f.denied,
            "followed": f.followed,
            "effective": f.effective,
            "ineffective": f.ineffective,
            "recurred_after_shown": f.recurred_after_shown,
            "failures_avoided": f.failures_avoided,
        })
    };
    let top: Vec<_> = report
        .learnings
        .iter()
        .filter(|r| r.figures.failures_avoided > 0 || r.figures.effective > 0)
        .filter_map(|r| {
            let e = entries.iter().find(|e| e.learning.id == r.learning)?;
            let mut row = figures(&r.figures);
            row["title"] = json!(escape_inline(&e.title));
            row["link"] = json!(e.sub_url);
            Some(row)
        })
        .take(IMPACT_ON_HOME)
        .collect();
    Some(json!({
        "month": month.month,
        "totals": figures(&report.totals),
        "top": top,
    }))
}

/// Why a learning that had a page is no longer published, for its notice
/// (`pulled`: the open problem report that names it).
pub fn retraction_reason(learning: &Learning, pulled: Option<u64>) -> String {
    if let Some(issue) = pulled {
        return format!(
            "a problem report (issue #{issue}) names it; it is back once the issue is closed."
        );
    }
    if learning.suggestion_status == SuggestionStatus::Rejected {
        return "a maintainer rejected it in review.".into();
    }
    let q = &learning.quality;
    match (learning.trust_level, q.success_rate) {
        (TrustLevel::L0, _) => "it no longer carries a correction.".into(),
        (_, Some(rate)) => format!(
            "its evidence no longer supports it: agents found it effective {} of the time.",
            percent(Some(rate))
        ),
        _ => "its evidence no longer supports it.".into(),
    }
}

/// Adds a retraction notice for every learning the target says has a page
/// (`published_title`: the title of a learning's page there, by id) and
/// that is still in the repository but no longer publishable (demoted or
/// rejected), in place of its page, under the same title, so a link to it
/// says why instead of breaking. A learning that is gone gets no notice:
/// its page is deleted.
pub fn add_retractions(
    site: &mut Site,
    learnings: &[Learning],
    pulled: &std::collections::HashMap<String, u64>,
    published_title: &dyn Fn(&str) -> Option<String>,
    templates: &Templates,
) -> Result<(), TemplateError> {
    let taken: HashSet<String> = site.pages.iter().map(|p| p.title.clone()).collect();
    let held: HashSet<&str> = site.withheld.iter().map(|w| w.key.as_str()).collect();
    let mut notices = Vec::new();
    for l in learnings {
        let Some(title) = published_title(&l.id) else {
            continue;
        };
        let pulled_by = pulled.get(&l.id).copied();
        if (is_publishable(l) && pulled_by.is_none())
            || held.contains(l.id.as_str())
            || taken.contains(&title)
        {
            continue;
        }
        let content = templates.render(
            templates::RETRACTION,
            json!({
                "title": escape_inline(&title),
                "id": l.id,
                "reason": escape_inline(&retraction_reason(l, pulled_by)),
            }),
        )?;
        let content = sanitize_markdown(&content);
        if secret_kinds(&[&title, &content]).is_none() {
            notices.push(Page::new(l.id.clone(), PageKind::Learning, title, content));
        }
    }
    site.pages.extend(notices);
    Ok(())
}

/// The publish-state key of an index page.
pub fn index_key(title: &str) -> String {
    format!("index:{title}")
}

#[cfg(test)]
mod tests;
