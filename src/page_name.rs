//! Wiki page names: the title the policy's wiki layout gives a learning's
//! page, and Gitea's page naming (`services/wiki/wiki_path.go`, v1.25):
//! title ↔ web path (`sub_url`, with the `.-` dash marker) ↔ git file name.
//! Pure functions, in the core because a learning's `wiki_page_name` is
//! derived from them (DESIGN §5) as well as published under them.

/// Longest learning title kept in a page title, in characters.
const MAX_TITLE_CHARS: usize = 100;

/// The title of a learning's page before titles that collide are told
/// apart: the policy's `page_prefix`, `: `, and the learning's cleaned title
/// (its short id when nothing of the title is left). Publishing gives a
/// later learning whose title names the same page a ` (<short id>)` suffix.
pub fn learning_page_title(prefix: &str, title: &str, id: &str) -> String {
    let prefix = clean_title_text(prefix);
    let mut text = clean_title_text(title);
    if text.is_empty() {
        text = short_id(id);
    }
    if prefix.is_empty() {
        text
    } else {
        format!("{prefix}: {text}")
    }
}

/// One line of title text: no `/` or `\` (Gitea would make `%2F`, which some
/// proxies mangle), no control characters, single spaces, bounded length.
pub fn clean_title_text(raw: &str) -> String {
    let replaced: String = raw
        .chars()
        .map(|c| match c {
            '/' | '\\' => '-',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect();
    let words: Vec<&str> = replaced.split_whitespace().collect();
    words
        .join(" ")
        .chars()
        .take(MAX_TITLE_CHARS)
        .collect::<String>()
        .trim()
        .to_string()
}

/// The short form of an id used to tell colliding titles apart.
pub fn short_id(id: &str) -> String {
    id.strip_prefix("learning-")
        .unwrap_or(id)
        .chars()
        .take(8)
        .collect()
}

/// Titles Gitea refuses for a page (they collide with web routes).
pub const RESERVED_NAMES: [&str; 4] = ["_pages", "_new", "_edit", "raw"];

const DASH_MARKER: &str = ".-";

/// The `sub_url` Gitea gives a page with this title (`UserTitleToWebPath`).
/// Put it into URLs verbatim: it is already escaped.
pub fn title_to_sub_url(title: &str) -> String {
    let escaped = escape_segment(title.trim(), false);
    // Gitea joins the segment with path.Clean, which only changes `.` and `..`
    // here: a query-escaped segment never contains `/`.
    match escaped.as_str() {
        "" | "." | ".." => "unnamed".to_string(),
        _ => escaped,
    }
}

/// The title a person sees for a `sub_url` (`WebPathToUserTitle`).
pub fn sub_url_to_title(sub_url: &str) -> String {
    let base = sub_url.rsplit('/').next().unwrap_or(sub_url);
    match base.strip_suffix(".md") {
        Some(stem) => unescape_segment(&path_unescape(stem).unwrap_or_else(|| stem.to_string())),
        None => unescape_segment(base),
    }
}

/// The file in the wiki repository that a `sub_url` names (`WebPathToGitPath`).
pub fn sub_url_to_git_path(sub_url: &str) -> String {
    if sub_url.ends_with(".md") {
        // Gitea's escape hatch: a web path ending in `.md` is a raw file path.
        return path_unescape(sub_url).unwrap_or_else(|| sub_url.to_string());
    }
    let segments: Vec<String> = sub_url
        .split('/')
        .map(|segment| {
            let marked = segment.ends_with(DASH_MARKER);
            escape_segment(&unescape_segment(segment), marked)
                .replace("%20", " ")
                .replace('+', " ")
        })
        .collect();
    segments.join("/") + ".md"
}

/// The `sub_url` of a file in the wiki repository (`GitPathToWebPath`), or
/// `None` for files that are not pages (not ending in `.md`).
pub fn git_path_to_sub_url(git_path: &str) -> Option<String> {
    let stem = git_path.strip_suffix(".md")?;
    let segments: Vec<String> = stem
        .split('/')
        .map(|segment| {
            let marked = segment.ends_with(DASH_MARKER);
            escape_segment(&unescape_segment(segment), marked)
        })
        .collect();
    Some(segments.join("/"))
}

/// The git file name of the page created with this title.
pub fn title_to_git_path(title: &str) -> String {
    sub_url_to_git_path(&title_to_sub_url(title))
}

/// Whether Gitea rejects this title as reserved (400 on create, 500 on edit).
pub fn is_reserved_title(title: &str) -> bool {
    let sub_url = title_to_sub_url(title);
    sub_url
        .split('/')
        .any(|segment| RESERVED_NAMES.contains(&unescape_segment(segment).as_str()))
}

/// `escapeSegToWeb`: mark or dash-ify, then query-escape.
fn escape_segment(segment: &str, had_dash_marker: bool) -> String {
    let marked = if had_dash_marker || segment.contains('-') || segment.ends_with(".md") {
        format!("{segment}{DASH_MARKER}")
    } else {
        segment.replace(' ', "-")
    };
    query_escape(&marked)
}

/// `unescapeSegment`: drop the marker (or turn dashes into spaces), then
/// query-unescape; on bad escapes the un-unescaped text is kept, as Gitea does.
fn unescape_segment(segment: &str) -> String {
    let plain = match segment.strip_suffix(DASH_MARKER) {
        Some(stripped) => stripped.to_string(),
        None => segment.replace('-', " "),
    };
    query_unescape(&plain).unwrap_or(plain)
}

/// Go's `url.QueryEscape`.
pub fn query_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for &byte in text.as_bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(byte as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// Go's `url.QueryUnescape`: `+` is a space; `None` on a malformed `%`.
pub fn query_unescape(text: &str) -> Option<String> {
    percent_decode(text, true)
}

/// Go's `url.PathUnescape`: `+` stays `+`; `None` on a malformed `%`.
pub fn path_unescape(text: &str) -> Option<String> {
    percent_decode(text, false)
}

fn percent_decode(text: &str, plus_is_space: bool) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes.get(i + 1..i + 3)?;
                let hex = std::str::from_utf8(hex).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            other => {
                out.push(other);
                i += 1;
            }
        }
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// API-NOTES §b, computed from Gitea's own `wiki_test.go` cases.
    const TABLE: &[(&str, &str, &str)] = &[
        ("Home", "Home", "Home.md"),
        ("_Sidebar", "_Sidebar", "_Sidebar.md"),
        ("_Footer", "_Footer", "_Footer.md"),
        ("Getting Started", "Getting-Started", "Getting-Started.md"),
        (
            "Release Notes v1.2",
            "Release-Notes-v1.2",
            "Release-Notes-v1.2.md",
        ),
        ("my-page", "my-page.-", "my-page.-.md"),
        (
            "2024-05-01 Meeting",
            "2024-05-01+Meeting.-",
            "2024-05-01 Meeting.-.md",
        ),
        ("the wiki-name", "the+wiki-name.-", "the wiki-name.-.md"),
        ("Notes.md", "Notes.md.-", "Notes.md.-.md"),
        ("API/Auth", "API%2FAuth", "API%2FAuth.md"),
        ("100% Done", "100%25-Done", "100%25-Done.md"),
        ("C++ & Rust", "C%2B%2B-%26-Rust", "C%2B%2B-%26-Rust.md"),
        ("Q: why?", "Q%3A-why%3F", "Q%3A-why%3F.md"),
        ("Café Menu", "Caf%C3%A9-Menu", "Caf%C3%A9-Menu.md"),
        (
            "日本語ページ",
            "%E6%97%A5%E6%9C%AC%E8%AA%9E%E3%83%9A%E3%83%BC%E3%82%B8",
            "%E6%97%A5%E6%9C%AC%E8%AA%9E%E3%83%9A%E3%83%BC%E3%82%B8.md",
        ),
        ("a_b c", "a_b-c", "a_b-c.md"),
        ("  padded  ", "padded", "padded.md"),
        ("", "unnamed", "unnamed.md"),
        (".", "unnamed", "unnamed.md"),
        ("..", "unnamed", "unnamed.md"),
    ];

    #[test]
    fn title_to_sub_url_and_git_path_match_gitea() {
        for &(title, sub_url, git_path) in TABLE {
            assert_eq!(title_to_sub_url(title), sub_url, "title {title:?}");
            assert_eq!(
                sub_url_to_git_path(sub_url),
                git_path,
                "sub_url {sub_url:?}"
            );
            assert_eq!(title_to_git_path(title), git_path, "title {title:?}");
            assert_eq!(
                git_path_to_sub_url(git_path).as_deref(),
                Some(sub_url),
                "git path {git_path:?}"
            );
        }
    }

    #[test]
    fn sub_url_back_to_title() {
        for &(title, sub_url, _) in TABLE {
            let expected = match title.trim() {
                "" | "." | ".." => "unnamed",
                trimmed => trimmed,
            };
            assert_eq!(sub_url_to_title(sub_url), expected, "sub_url {sub_url:?}");
        }
    }

    #[test]
    fn server_normalises_hand_made_web_paths() {
        let cases = [
            ("Getting%20Started", "Getting-Started.md"),
            ("Getting+Started", "Getting-Started.md"),
            ("my-page", "my-page.md"),
            ("notes%20v2.md", "notes v2.md"),
            ("bad%zz", "bad%25zz.md"),
        ];
        for (web, git) in cases {
            assert_eq!(sub_url_to_git_path(web), git, "{web:?}");
        }
    }

    #[test]
    fn non_pages_and_reserved_names() {
        assert_eq!(git_path_to_sub_url("image.png"), None);
        assert_eq!(git_path_to_sub_url("Home.MD"), None);
        for name in RESERVED_NAMES {
            assert!(is_reserved_title(name), "{name}");
        }
        assert!(!is_reserved_title("Home"));
        assert!(!is_reserved_title("raw data"));
    }

    #[test]
    fn go_escaping_primitives() {
        assert_eq!(query_escape("a b/c~d"), "a+b%2Fc~d");
        assert_eq!(query_unescape("a+b%2fc").as_deref(), Some("a b/c"));
        assert_eq!(path_unescape("a+b%20c").as_deref(), Some("a+b c"));
        assert_eq!(query_unescape("%"), None);
        assert_eq!(query_unescape("%4"), None);
        assert_eq!(query_unescape("%zz"), None);
    }
}
