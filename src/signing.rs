//! Whether this clone's signing set-up matches the roster in force (§5.2),
//! for `doctor`: a roster key for the home agent with no `signing.key`
//! here (every other clone then refuses our writes), a `signing.key` that
//! is not the roster's, a key the roster gives that cannot be checked, and
//! a hosted agent whose roster key this clone cannot sign with.

use crate::policy::Policy;
use crate::problem::Problem;
use crate::repo::sshsig::PublicKey;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The roster's signing keys (§5.2), by agent: each parsed, or why not.
pub fn roster_keys(policy: &Policy) -> BTreeMap<String, Result<PublicKey, String>> {
    policy
        .agents
        .iter()
        .filter_map(|a| match a {
            crate::policy::RosterEntry::Agent {
                name,
                signing_key: Some(key),
            } => Some((name.clone(), PublicKey::parse(key))),
            _ => None,
        })
        .collect()
}

/// What is wrong with signing here, each with what to do.
/// `home` is this clone's agent, `configured` its `signing.key`.
pub fn problems(
    home: &str,
    configured: Option<&std::path::Path>,
    policy: &Policy,
    hosted: &BTreeSet<String>,
) -> Vec<Problem> {
    let keys = roster_keys(policy);
    let mut out = Vec::new();
    for (agent, key) in &keys {
        if let Err(why) = key {
            out.push(Problem::new(
                crate::policy::POLICY_PATH,
                format!("{agent}'s signing_key: {why}; until it is fixed on main, nothing changes {agent}'s folders"),
            ));
        }
    }
    match (keys.get(home), configured) {
        (Some(_), None) => out.push(Problem::new(
            "signing.key",
            format!(
                "the roster gives {home} a signing_key, but this clone has no signing.key: its commits are unsigned and every other clone refuses {home}'s changes; set `signing: {{key: PATH}}` in .git/learnsync/config.yaml to the private key (or, with ssh-agent, the public key) whose public half the roster names"
            ),
        )),
        (Some(Ok(roster)), Some(path)) => match public_half(path) {
            Ok(ours) if &ours == roster => {}
            Ok(ours) => out.push(Problem::new(
                "signing.key",
                format!(
                    "{} is key {}, but the roster names {} for {home}: other clones refuse what this clone signs",
                    path.display(),
                    ours.fingerprint(),
                    roster.fingerprint()
                ),
            )),
            Err(why) => out.push(Problem::new("signing.key", why)),
        },
        (None, Some(path)) => {
            let shown = public_half(path)
                .map(|k| format!(" (key {})", k.fingerprint()))
                .unwrap_or_default();
            out.push(Problem::new(
                "signing.key",
                format!(
                    "this clone signs {home}'s commits{shown}, but the roster in force names no key for {home}, so no clone checks them: add `{{name: {home}, signing_key: \"<its public key>\"}}` to `agents:` in .learnsync/policy.yaml through a pull request to main"
                ),
            ));
        }
        _ => {}
    }
    for agent in hosted.iter().filter(|a| keys.contains_key(a.as_str())) {
        out.push(Problem::new(
            crate::paths::agent_branch(agent),
            format!(
                "this clone writes as {agent}, whose roster entry has a signing_key, but it signs with {home}'s key only: every other clone refuses {agent}'s changes made here; write as {agent} on a machine holding its key"
            ),
        ));
    }
    out
}

/// The public key of `path`: the file itself when it is a public key,
/// else `<path>.pub` beside it.
pub fn public_half(path: &Path) -> Result<PublicKey, String> {
    let read = |p: &Path| std::fs::read_to_string(p).ok();
    let text = read(path)
        .filter(|t| t.trim_start().starts_with("ssh-"))
        .or_else(|| {
            let mut pub_path = path.as_os_str().to_owned();
            pub_path.push(".pub");
            read(Path::new(&pub_path))
        });
    match text {
        Some(text) => PublicKey::parse(&text).map_err(|why| format!("{}: {why}", path.display())),
        None if path.exists() => Err(format!(
            "{} has no public key beside it ({}.pub): learnsync cannot tell whether it is the roster's key",
            path.display(),
            path.display()
        )),
        None => Err(format!(
            "signing.key {} does not exist: every commit this clone makes fails to sign",
            path.display()
        )),
    }
}
