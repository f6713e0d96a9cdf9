//! Ignore patterns: which failing commands are not mistakes (test runners
//! fail by design), as `*` globs over a command's normal form.
//!
//! The default list is the configuration's ([`crate::config::DEFAULT_IGNORE`]).

use super::chain::{failing_subcommand, normalise_command};
use crate::config::DEFAULT_IGNORE;

/// Glob match with `*` = any run of characters (including none); every other
/// character is literal.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if pi < p.len() && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Whether a command is ignored: its normal form ([`normalise_command`]), or
/// the part of its chain that [`super::program_key`] would pick, matches one
/// of the glob `patterns` (so `cd app && cargo test` is ignored by
/// `cargo test*`).
pub fn matches_ignore(cmd: &str, patterns: &[String]) -> bool {
    if patterns.is_empty() {
        return false;
    }
    let whole = normalise_command(cmd);
    let last = failing_subcommand(cmd, None, "").map(normalise_command);
    patterns.iter().any(|p| {
        let p = p.trim();
        !p.is_empty()
            && (glob_match(p, &whole) || last.as_deref().is_some_and(|l| glob_match(p, l)))
    })
}

/// [`DEFAULT_IGNORE`] as owned patterns, for a configuration default.
pub fn default_ignore_patterns() -> Vec<String> {
    DEFAULT_IGNORE.iter().map(|s| s.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignore_patterns_match_test_runners_only() {
        let defaults = default_ignore_patterns();
        let cases = [
            ("cargo test", true),
            ("cargo test --all -- --nocapture", true),
            ("RUST_BACKTRACE=1 cargo test", true),
            ("cd crate && cargo test", true),
            ("cargo build", false),
            ("pytest -x tests/", true),
            ("go test ./...", true),
            ("npm test", true),
            ("npm install", false),
            ("yarn test --watch=false", true),
            ("git push", false),
        ];
        for (cmd, want) in cases {
            assert_eq!(matches_ignore(cmd, &defaults), want, "{cmd:?}");
        }
        assert!(!matches_ignore("cargo test", &[]));
        assert!(matches_ignore("make lint", &["make *".to_string()]));
    }

    #[test]
    fn glob_star_semantics() {
        let cases = [
            ("cargo test*", "cargo test", true),
            ("cargo test*", "cargo tests", true),
            ("*test*", "go test ./...", true),
            ("a*b*c", "aXXbYYc", true),
            ("a*b*c", "aXXbYY", false),
            ("", "", true),
            ("", "x", false),
            ("*", "", true),
            ("pytest", "pytest -x", false),
        ];
        for (p, t, want) in cases {
            assert_eq!(glob_match(p, t), want, "{p:?} vs {t:?}");
        }
    }
}
