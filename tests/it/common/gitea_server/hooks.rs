//! The hub repo's git hooks, written by the server whenever users or branch
//! protection change: `pre-receive` applies Gitea's protected-branch checks
//! to real `git push`es through the path remote, `post-receive` spools the
//! accepted ref updates so the server can do what Gitea's post-receive does
//! (close the pulls of a deleted branch, record pushes to a pull's head).
//!
//! The pusher of a path push is `$GITEA_TEST_PUSHER`, else the configured
//! default: a local push carries no credentials, and Gitea always knows who
//! pushes.

use super::hub_git::ZERO_SHA;
use super::store::{Protection, User};

/// The environment variable naming the user behind a path push.
pub const PUSHER_ENV: &str = "GITEA_TEST_PUSHER";

fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// `routers/private/hook_pre_receive.go` `preReceiveBranch`, in shell.
///
/// Messages are Gitea's `UserMsg`s, printed as its hook binary prints them
/// (`Gitea: <msg>` on stderr). Rules are matched here in Rust order: exact
/// names first, then globs, as `GetFirstMatchProtectedBranchRule` does.
pub fn pre_receive(
    rules: &[Protection],
    users: &[User],
    default_pusher: &str,
    default_branch: &str,
) -> String {
    let writers: Vec<&str> = users
        .iter()
        .filter(|u| u.access.can_write())
        .map(|u| u.login.as_str())
        .collect();
    let mut script = String::new();
    script.push_str("#!/bin/sh\n");
    script
        .push_str("# Written by the learnsync test server: Gitea 1.25's protected-branch checks\n");
    script.push_str("# (routers/private/hook_pre_receive.go). Do not edit; it is rewritten.\n");
    script.push_str(&format!(
        "pusher=\"${{{PUSHER_ENV}:-{}}}\"\n",
        default_pusher.replace(['"', '$', '`', '\\'], "")
    ));
    script.push_str(&format!("zero={ZERO_SHA}\nstatus=0\n"));
    script.push_str(&format!(
        "writers={}\n",
        quote(&format!(",{},", writers.join(",")))
    ));
    script.push_str("deny() { echo \"Gitea: $1\" >&2; status=1; }\n");
    script.push_str("listed() { case \",$2,\" in *\",$1,\"*) return 0;; esac; return 1; }\n");
    script.push_str("while read old new ref; do\n");
    script.push_str("  case \"$ref\" in refs/heads/*) ;; *) continue;; esac\n");
    script.push_str("  branch=\"${ref#refs/heads/}\"\n");
    script.push_str(&format!(
        "  if [ \"$new\" = \"$zero\" ] && [ \"$branch\" = {} ]; then\n",
        quote(default_branch)
    ));
    script.push_str(
        "    deny \"branch $branch is the default branch and cannot be deleted\"; continue\n  fi\n",
    );
    // One `case` arm per rule, exact names before globs, so the first arm
    // that matches is the rule Gitea would pick.
    let mut ordered: Vec<&Protection> = rules
        .iter()
        .filter(|r| !r.rule_name.contains('*'))
        .collect();
    ordered.extend(rules.iter().filter(|r| r.rule_name.contains('*')));
    if !ordered.is_empty() {
        script.push_str("  case \"$branch\" in\n");
        for rule in ordered {
            // A shell `*` also crosses `/`, where Gitea's single `*` does not;
            // the two agree on exact names and on globs over one segment.
            let pattern = rule.rule_name.replace("**", "*");
            let pattern: String = pattern
                .chars()
                .map(|c| match c {
                    '*' => "*".to_string(),
                    c if c.is_ascii_alphanumeric() || "-_./".contains(c) => c.to_string(),
                    c => format!("\\{c}"),
                })
                .collect();
            script.push_str(&format!("    {pattern})\n"));
            script.push_str("      if [ \"$new\" = \"$zero\" ]; then deny \"branch $branch is protected from deletion\"; continue; fi\n");
            if !rule.enable_force_push {
                script.push_str("      if [ \"$old\" != \"$zero\" ] && ! git merge-base --is-ancestor \"$old\" \"$new\" 2>/dev/null; then\n");
                script.push_str(
                    "        deny \"branch $branch is protected from force push\"; continue\n      fi\n",
                );
            }
            let allowed = if !rule.enable_push {
                "false".to_string()
            } else {
                match &rule.push_whitelist {
                    None => "listed \"$pusher\" \"$writers\"".to_string(),
                    Some(list) => format!("listed \"$pusher\" {}", quote(&list.join(","))),
                }
            };
            script.push_str(&format!("      if ! {allowed}; then\n"));
            script.push_str(
                "        deny \"Not allowed to push to protected branch $branch\"; continue\n      fi\n",
            );
            script.push_str("      ;;\n");
        }
        script.push_str("  esac\n");
    }
    script.push_str("done\nexit $status\n");
    script
}

/// Appends `<pusher> <old> <new> <ref>` per accepted update to `spool`.
pub fn post_receive(spool: &std::path::Path, default_pusher: &str) -> String {
    format!(
        "#!/bin/sh\n# Written by the learnsync test server: hands accepted pushes to it.\n\
         pusher=\"${{{PUSHER_ENV}:-{}}}\"\n\
         while read old new ref; do\n  printf '%s %s %s %s\\n' \"$pusher\" \"$old\" \"$new\" \"$ref\" >> {}\ndone\n",
        default_pusher.replace(['"', '$', '`', '\\'], ""),
        quote(&spool.to_string_lossy())
    )
}

/// One spooled ref update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushedRef {
    pub pusher: String,
    pub old: String,
    pub new: String,
    pub reference: String,
}

pub fn parse_spool(text: &str) -> Vec<PushedRef> {
    text.lines()
        .filter_map(|line| {
            let mut parts = line.split(' ');
            Some(PushedRef {
                pusher: parts.next()?.to_string(),
                old: parts.next()?.to_string(),
                new: parts.next()?.to_string(),
                reference: parts.next()?.to_string(),
            })
        })
        .collect()
}
