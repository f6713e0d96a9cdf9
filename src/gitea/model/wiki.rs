//! Wiki pages: the page list's metadata, a page with its content, a page's
//! history, and the body of a create or edit (base64, as Gitea requires).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};

use super::users::CommitUser;

/// `CreateWikiPageOptions`: the body of both create (POST) and edit (PATCH).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateWikiPageOptions {
    /// The display title; on PATCH it is also the page's new name, so it must
    /// always be the page's title (an empty one renames the page `unnamed`).
    pub title: String,
    /// The markdown bytes in standard base64 with padding.
    pub content_base64: String,
    /// The commit message; Gitea picks one when omitted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl CreateWikiPageOptions {
    /// Encodes `content` the only way Gitea accepts (`StdEncoding`).
    pub fn new(title: &str, content: &[u8], message: Option<&str>) -> Self {
        CreateWikiPageOptions {
            title: title.to_string(),
            content_base64: STANDARD.encode(content),
            message: message.map(str::to_string),
        }
    }
}

/// `WikiCommit`: one commit of the wiki repository.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WikiCommit {
    #[serde(default)]
    pub sha: String,
    #[serde(default)]
    pub author: Option<CommitUser>,
    /// Gitea's JSON spells it `commiter`.
    #[serde(default, rename = "commiter")]
    pub committer: Option<CommitUser>,
    #[serde(default)]
    pub message: String,
}

/// `WikiPageMetaData`: one element of the page list.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WikiPageMetaData {
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub html_url: String,
    /// The page's name in URLs; already escaped, use it verbatim.
    #[serde(default)]
    pub sub_url: String,
    #[serde(default)]
    pub last_commit: Option<WikiCommit>,
}

/// `WikiPage`: the metadata plus content, history size, sidebar and footer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WikiPage {
    #[serde(flatten)]
    pub meta: WikiPageMetaData,
    #[serde(default)]
    pub content_base64: String,
    #[serde(default)]
    pub commit_count: i64,
    /// Base64 of `_Sidebar.md`, or empty.
    #[serde(default)]
    pub sidebar: String,
    /// Base64 of `_Footer.md`, or empty.
    #[serde(default)]
    pub footer: String,
}

impl WikiPage {
    /// The page's markdown bytes. Gitea sends `""` for blobs over its size
    /// limit, so an empty result does not prove the page is empty.
    pub fn content(&self) -> Result<Vec<u8>, base64::DecodeError> {
        STANDARD.decode(&self.content_base64)
    }

    /// The sha of the last commit that touched this page, if Gitea sent one.
    pub fn last_commit_sha(&self) -> Option<&str> {
        self.meta.last_commit.as_ref().map(|c| c.sha.as_str())
    }
}

/// `WikiCommitList`: a page of a wiki page's history.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WikiCommitList {
    #[serde(default)]
    pub commits: Vec<WikiCommit>,
    #[serde(default)]
    pub count: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wiki_page_reads_gitea_json_with_commiter() {
        let json = r#"{"title":"Getting Started","html_url":"https://g/acme/docs/wiki/Getting-Started",
            "sub_url":"Getting-Started","last_commit":{"sha":"9f1c",
            "author":{"name":"bot","email":"bot@example.com","date":"2026-01-20T10:00:00Z"},
            "commiter":{"name":"bot2","email":"bot@example.com","date":"2026-01-20T10:00:00Z"},
            "message":"publish\n"},"content_base64":"IyBIZWxsbwo=","commit_count":3,"sidebar":"","footer":""}"#;
        let page: WikiPage = serde_json::from_str(json).expect("valid WikiPage");
        assert_eq!(page.meta.sub_url, "Getting-Started");
        assert_eq!(page.last_commit_sha(), Some("9f1c"));
        let committer = page
            .meta
            .last_commit
            .as_ref()
            .and_then(|c| c.committer.as_ref());
        assert_eq!(committer.map(|c| c.name.as_str()), Some("bot2"));
        assert_eq!(page.content().expect("base64"), b"# Hello\n");
        let back = serde_json::to_value(&page).expect("serialise");
        assert!(back["last_commit"].get("commiter").is_some());
    }

    #[test]
    fn options_use_standard_padded_base64() {
        let opts = CreateWikiPageOptions::new("T", b"\xfb\xff", None);
        assert_eq!(opts.content_base64, "+/8=");
        let json = serde_json::to_value(&opts).expect("serialise");
        assert!(json.get("message").is_none());
    }
}
