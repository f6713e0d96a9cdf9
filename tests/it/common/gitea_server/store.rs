//! What the test server remembers besides git: users and their access, tokens
//! and scopes, labels, issues and pull requests (one index space), comments
//! and timeline events, branch protection rules — and the pure rules Gitea
//! applies to them (who may push or merge, the label filter, paging).

use std::collections::BTreeSet;

/// A user's effective access to the one repository (`perm.AccessMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Access {
    None,
    Read,
    Write,
    Admin,
    Owner,
}

impl Access {
    /// `AccessMode.ToString()`, as the permission endpoint reports it.
    pub fn as_str(self) -> &'static str {
        match self {
            Access::None => "none",
            Access::Read => "read",
            Access::Write => "write",
            Access::Admin => "admin",
            Access::Owner => "owner",
        }
    }

    pub fn can_read(self) -> bool {
        self >= Access::Read
    }

    pub fn can_write(self) -> bool {
        self >= Access::Write
    }

    pub fn is_admin(self) -> bool {
        self >= Access::Admin
    }
}

#[derive(Debug, Clone)]
pub struct User {
    pub id: i64,
    pub login: String,
    pub full_name: String,
    /// Site administrator (not the same as repo admin).
    pub site_admin: bool,
    pub access: Access,
    pub created: i64,
}

impl User {
    /// `User.GitName()`: the full name when set, else the login.
    pub fn git_name(&self) -> &str {
        if self.full_name.is_empty() {
            &self.login
        } else {
            &self.full_name
        }
    }

    pub fn email(&self) -> String {
        format!("{}@noreply.localhost", self.login)
    }
}

/// A personal access token: whose, and which scopes (`write:issue`, ...).
#[derive(Debug, Clone)]
pub struct Token {
    pub user: String,
    pub scopes: Vec<String>,
}

/// The scope category a route sits in (`AccessTokenScopeCategory*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Category {
    Repository,
    Issue,
    User,
    Notification,
    Organization,
}

impl Category {
    fn name(self) -> &'static str {
        match self {
            Category::Repository => "repository",
            Category::Issue => "issue",
            Category::User => "user",
            Category::Notification => "notification",
            Category::Organization => "organization",
        }
    }
}

impl Token {
    /// `tokenRequiresScopes`: GET/HEAD need `read:<cat>`, others `write:<cat>`;
    /// a write scope implies read; `all` grants everything. `Err` holds the
    /// scope that was required.
    pub fn allows(&self, category: Category, write: bool) -> Result<(), String> {
        let level = if write { "write" } else { "read" };
        let required = format!("{level}:{}", category.name());
        let write_scope = format!("write:{}", category.name());
        let ok = self
            .scopes
            .iter()
            .any(|s| s == "all" || *s == required || *s == write_scope);
        if ok { Ok(()) } else { Err(required) }
    }
}

#[derive(Debug, Clone)]
pub struct Label {
    pub id: i64,
    pub name: String,
    /// Stored with its `#`, as Gitea does; the API sends it without.
    pub color: String,
    pub description: String,
    pub exclusive: bool,
    pub archived: bool,
}

#[derive(Debug, Clone)]
pub struct Merged {
    pub at: i64,
    pub by: String,
    pub sha: String,
}

#[derive(Debug, Clone)]
pub struct Pull {
    /// The `pull_request` row id, distinct from the issue id and the index.
    pub id: i64,
    pub head: String,
    pub base: String,
    /// Tip of the head when last seen (kept in `refs/pull/<index>/head`).
    pub head_sha: String,
    pub merge_base: String,
    pub merged: Option<Merged>,
    /// Whether the last conflict check found a clean merge.
    pub mergeable: bool,
}

#[derive(Debug, Clone)]
pub struct Issue {
    pub index: i64,
    pub id: i64,
    pub poster: String,
    pub title: String,
    pub body: String,
    pub closed: bool,
    pub created: i64,
    pub updated: i64,
    pub closed_at: Option<i64>,
    pub labels: Vec<i64>,
    pub pull: Option<Pull>,
}

/// `CommentType` values the server produces, with their API names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommentKind {
    Comment,
    Reopen,
    Close,
    Label,
    ChangeTitle,
    DeleteBranch,
    Review,
    MergePull,
    PullPush,
}

impl CommentKind {
    /// `CommentType.String()` (models/issues/comment.go `commentStrings`).
    pub fn as_str(self) -> &'static str {
        match self {
            CommentKind::Comment => "comment",
            CommentKind::Reopen => "reopen",
            CommentKind::Close => "close",
            CommentKind::Label => "label",
            CommentKind::ChangeTitle => "change_title",
            CommentKind::DeleteBranch => "delete_branch",
            CommentKind::Review => "review",
            CommentKind::MergePull => "merge_pull",
            CommentKind::PullPush => "pull_push",
        }
    }

    /// `CommentType.HasContentSupport()`: the kinds whose body can be edited.
    pub fn has_content(self) -> bool {
        matches!(self, CommentKind::Comment | CommentKind::Review)
    }
}

#[derive(Debug, Clone)]
pub struct Comment {
    pub id: i64,
    pub issue: i64,
    pub kind: CommentKind,
    pub poster: String,
    /// `content`: the text, `"1"` for an added label, the push JSON, ...
    pub body: String,
    pub created: i64,
    pub updated: i64,
    pub label: Option<i64>,
    pub old_ref: String,
    pub old_title: String,
    pub new_title: String,
}

/// One branch protection rule, as configured by a test.
#[derive(Debug, Clone, PartialEq)]
pub struct Protection {
    /// The branch name or glob (`main`, `release/*`).
    pub rule_name: String,
    pub enable_push: bool,
    /// `Some(users)`: only these may push (`enable_push_whitelist`).
    pub push_whitelist: Option<Vec<String>>,
    pub enable_force_push: bool,
    /// `Some(users)`: only these may merge (`enable_merge_whitelist`).
    pub merge_whitelist: Option<Vec<String>>,
    pub required_approvals: i64,
    /// `Some(users)`: only their approvals count (`enable_approvals_whitelist`).
    pub approvals_whitelist: Option<Vec<String>>,
    pub block_admin_merge_override: bool,
    pub created: i64,
}

impl Protection {
    /// A rule as Gitea creates it by default: pushes disabled for everyone.
    pub fn new(rule_name: &str) -> Self {
        Protection {
            rule_name: rule_name.to_string(),
            enable_push: false,
            push_whitelist: None,
            enable_force_push: false,
            merge_whitelist: None,
            required_approvals: 0,
            approvals_whitelist: None,
            block_admin_merge_override: false,
            created: 0,
        }
    }

    /// Pushes allowed to everyone with write access.
    pub fn push_enabled(mut self) -> Self {
        self.enable_push = true;
        self.push_whitelist = None;
        self
    }

    /// Pushes allowed to these users only.
    pub fn push_whitelist(mut self, users: &[&str]) -> Self {
        self.enable_push = true;
        self.push_whitelist = Some(users.iter().map(|u| u.to_string()).collect());
        self
    }

    /// Merges allowed to these users only.
    pub fn merge_whitelist(mut self, users: &[&str]) -> Self {
        self.merge_whitelist = Some(users.iter().map(|u| u.to_string()).collect());
        self
    }

    pub fn required_approvals(mut self, n: i64) -> Self {
        self.required_approvals = n;
        self
    }

    pub fn approvals_whitelist(mut self, users: &[&str]) -> Self {
        self.approvals_whitelist = Some(users.iter().map(|u| u.to_string()).collect());
        self
    }

    pub fn force_push(mut self) -> Self {
        self.enable_force_push = true;
        self
    }

    /// Whether this rule applies to `branch` (`ProtectedBranch.Match`: the
    /// name itself, or a glob where `*` stays within one path segment and
    /// `**` crosses them).
    pub fn matches(&self, branch: &str) -> bool {
        if !self.rule_name.contains('*') {
            return self.rule_name.eq_ignore_ascii_case(branch);
        }
        glob_match(self.rule_name.as_bytes(), branch.as_bytes())
    }

    /// `ProtectedBranch.CanUserPush`.
    pub fn can_user_push(&self, user: &User) -> bool {
        if !self.enable_push {
            return false;
        }
        match &self.push_whitelist {
            None => user.access.can_write(),
            Some(list) => list.iter().any(|u| u.eq_ignore_ascii_case(&user.login)),
        }
    }

    /// `IsUserMergeWhitelisted`: without a whitelist, write access suffices.
    pub fn can_user_merge(&self, user: &User) -> bool {
        match &self.merge_whitelist {
            None => user.access.can_write(),
            Some(list) => list.iter().any(|u| u.eq_ignore_ascii_case(&user.login)),
        }
    }

    /// `IsUserOfficialReviewer`: whose approvals count towards the required number.
    pub fn is_official_reviewer(&self, user: &User) -> bool {
        match &self.approvals_whitelist {
            None => user.access.can_write(),
            Some(list) => list.iter().any(|u| u.eq_ignore_ascii_case(&user.login)),
        }
    }
}

fn glob_match(pattern: &[u8], text: &[u8]) -> bool {
    match pattern.split_first() {
        None => text.is_empty(),
        Some((b'*', rest)) if rest.first() == Some(&b'*') => {
            let rest = &rest[1..];
            (0..=text.len()).any(|i| glob_match(rest, &text[i..]))
        }
        Some((b'*', rest)) => (0..=text.len())
            .take_while(|&i| i == 0 || text[i - 1] != b'/')
            .any(|i| glob_match(rest, &text[i..])),
        Some((c, rest)) => text.first() == Some(c) && glob_match(rest, &text[1..]),
    }
}

/// `GetFirstMatchProtectedBranchRule`: exact names win over globs, then the
/// order the rules were made in.
pub fn first_matching<'a>(rules: &'a [Protection], branch: &str) -> Option<&'a Protection> {
    rules
        .iter()
        .find(|r| !r.rule_name.contains('*') && r.matches(branch))
        .or_else(|| rules.iter().find(|r| r.matches(branch)))
}

/// `utils.GetListOptions` with `ToCorrectPageSize`: page < 1 is 1, limit <= 0
/// is the default page size, a larger one is clamped to the maximum.
pub fn list_options(page: i64, limit: i64, default: i64, max: i64) -> (i64, i64) {
    let limit = if limit <= 0 { default } else { limit.min(max) };
    (page.max(1), limit)
}

/// One page of `items` (1-based `page`).
pub fn page_of<T: Clone>(items: &[T], page: i64, limit: i64) -> Vec<T> {
    let skip = ((page - 1) * limit).max(0) as usize;
    items
        .iter()
        .skip(skip)
        .take(limit as usize)
        .cloned()
        .collect()
}

/// The issue list's label filter: names matched among the repo's labels;
/// unknown names dropped, and when none is known there is no filter at all.
/// With several known names the issue must carry every one of them.
pub fn issue_label_filter(labels: &[Label], names: &[String]) -> Option<Vec<i64>> {
    let ids: BTreeSet<i64> = names
        .iter()
        .flat_map(|n| labels.iter().filter(move |l| l.name == *n).map(|l| l.id))
        .collect();
    (!ids.is_empty()).then(|| ids.into_iter().collect())
}

/// Gitea's `label.NormalizeColor`: `#rgb`, `#rrggbb` or the same without `#`,
/// hex digits only; the stored form is lower-case with a `#`.
pub fn normalize_color(color: &str) -> Option<String> {
    let hex = color.trim().trim_start_matches('#');
    if !(hex.len() == 3 || hex.len() == 6) || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let full: String = if hex.len() == 3 {
        hex.chars().flat_map(|c| [c, c]).collect()
    } else {
        hex.to_string()
    };
    Some(format!("#{}", full.to_ascii_lowercase()))
}
