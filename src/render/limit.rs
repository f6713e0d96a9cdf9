//! How much text one Gitea write may carry. Gitea keeps an issue's, a pull
//! request's and a comment's text in one database column; on MySQL that is
//! a `TEXT` of 65,535 bytes, and past it Gitea answers 500 "Data too long
//! for column 'content'" (Renovate met it with long PR bodies). So what we
//! send is capped below that, on a line boundary, and a cut text says what
//! was cut and links the full learning. Wiki pages get the same cap, so a
//! 1 MiB learning does not become a 1 MiB page. Pure.

/// The most bytes learnsync sends as one text: under MySQL's 65,535 with
/// room for what Gitea itself adds.
pub const MAX_TEXT_BYTES: usize = 60_000;

/// Where the whole learning can be read: its file on its owner's branch of
/// the hub, on Gitea's web UI when the Gitea settings are known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FullText {
    /// `claude/learning-….md on branch agents/claude`.
    pub label: String,
    pub url: Option<String>,
}

impl FullText {
    /// The learning `<agent>/<id>.md` on `agents/<agent>`; `gitea` is the
    /// server's base URL and `owner/name` of the hub repository.
    pub fn of(agent: &str, id: &str, gitea: Option<(&str, &str)>) -> FullText {
        let path = format!("{agent}/{id}.md");
        let branch = crate::paths::agent_branch(agent);
        let url = gitea.map(|(base, repo)| {
            let root = base.trim().trim_end_matches('/');
            let root = root.strip_suffix("/api/v1").unwrap_or(root);
            format!("{root}/{repo}/src/branch/{branch}/{path}")
        });
        FullText {
            label: format!("`{path}` on branch `{branch}`"),
            url,
        }
    }
}

/// `text` as it may be sent: unchanged when it fits in `max` bytes; else
/// cut on a line boundary, an open code fence closed, a notice of what was
/// cut with the link to the full text, and `keep` (a marker the text must
/// end with) put back at the end.
pub fn fit(text: &str, max: usize, full: &FullText, keep: &str) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let notice = |cut: usize| {
        let link = match &full.url {
            Some(url) => format!("[{}]({url})", full.label),
            None => full.label.clone(),
        };
        format!(
            "\n\n> **Cut by learnsync:** {cut} of {} bytes are not shown here, past what Gitea stores in one text ({max} bytes). The whole learning: {link}.\n",
            text.len()
        )
    };
    let body = text.trim_end();
    let body = body
        .strip_suffix(keep.trim_end())
        .unwrap_or(body)
        .trim_end();
    // The notice's length depends on the number in it; the widest number is
    // the whole text's length.
    let reserve = notice(text.len()).len() + keep.len() + "\n```\n".len() + 2;
    let mut end = max.saturating_sub(reserve).min(body.len());
    while !body.is_char_boundary(end) {
        end -= 1;
    }
    // Back to the last line end, unless that throws away most of the room.
    if let Some(nl) = body[..end].rfind('\n')
        && nl >= end / 2
    {
        end = nl;
    }
    let kept = &body[..end];
    let mut out = String::with_capacity(max);
    out.push_str(kept);
    let fences = kept
        .lines()
        .filter(|l| l.trim_start().starts_with("```"))
        .count();
    if fences % 2 == 1 {
        out.push_str("\n```");
    }
    out.push_str(&notice(text.len() - end));
    if !keep.is_empty() {
        out.push('\n');
        out.push_str(keep);
        if !keep.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full() -> FullText {
        FullText::of(
            "claude",
            "learning-1",
            Some(("https://git.example/api/v1/", "team/learnings")),
        )
    }

    #[test]
    fn a_text_that_fits_is_sent_as_it_is() {
        let text = "short\n<!-- m -->\n";
        assert_eq!(fit(text, 100, &full(), "<!-- m -->\n"), text);
    }

    #[test]
    fn a_long_text_is_cut_on_a_line_under_the_cap_and_keeps_its_marker() {
        let line = "é word word word word word word word word\n";
        let mut text = "```sh\n".to_string();
        while text.len() < 200_000 {
            text.push_str(line);
        }
        text.push_str("```\n");
        let marker = "<!-- learnsync:review learning-1 abc -->";
        text.push_str(marker);
        text.push('\n');
        for max in [500, 4_096, MAX_TEXT_BYTES] {
            let out = fit(&text, max, &full(), marker);
            assert!(out.len() <= max, "{} > {max}", out.len());
            assert!(out.trim_end().ends_with(marker), "{out}");
            assert!(out.contains("Cut by learnsync"));
            assert!(out.contains(
                "(https://git.example/team/learnings/src/branch/agents/claude/claude/learning-1.md)"
            ));
            // The fence the cut opened is closed before the notice.
            let fences = out.lines().filter(|l| l.starts_with("```")).count();
            assert_eq!(fences % 2, 0, "{out}");
            // Whole lines only.
            let before_notice = out.split("\n```\n\n> **Cut").next().unwrap_or("");
            assert!(before_notice.ends_with("word"), "{before_notice:?}");
        }
    }

    #[test]
    fn without_gitea_the_notice_names_the_file_and_branch() {
        let text = "x".repeat(10_000);
        let out = fit(&text, 1_000, &FullText::of("ci-bot", "l-2", None), "");
        assert!(out.len() <= 1_000);
        assert!(out.contains("`ci-bot/l-2.md` on branch `agents/ci-bot`"));
        assert!(!out.contains("]("));
    }
}
