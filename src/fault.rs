//! Fault injection for crash-safety tests: `LEARNSYNC_FAULT=<point>` makes
//! the process abort (like a kill: no cleanup) when it reaches that point.
//! Always compiled, so the tests exercise the shipped binary; costs one
//! environment lookup per point.

/// Aborts the process if `LEARNSYNC_FAULT` names this point.
pub fn point(name: &str) {
    if std::env::var_os("LEARNSYNC_FAULT").is_some_and(|v| v == name) {
        eprintln!("learnsync: fault injected at {name}");
        std::process::abort();
    }
}
