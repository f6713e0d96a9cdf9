//! Build script: link the `learnsync` binary as a position-dependent
//! executable on Linux (glibc), unless `LEARNSYNC_PIE=1`.
//!
//! Why: `learnsync capture` runs as a hook on every agent tool call, and most
//! of its cost is process start-up. As a PIE, the dynamic loader applies
//! ~30,000 relative relocations at every start, copying ~110 pages of
//! `.data.rel.ro` (vtables, panic locations, static tables): measured
//! 233 → 112 page faults and 1.60 → 1.07 ms of CPU for a capture that has
//! nothing to do, the difference between meeting and missing the hook's
//! budget (benches/README.md).
//!
//! The cost is ASLR of the executable's own image (shared libraries, heap,
//! stack and mmaps stay randomised) — the same trade Go makes for every
//! linux/amd64 binary by default. Packagers who prefer the hardening build
//! with `LEARNSYNC_PIE=1` (docs/security.md).

fn main() {
    println!("cargo:rerun-if-env-changed=LEARNSYNC_PIE");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    let gnu = std::env::var("CARGO_CFG_TARGET_ENV").is_ok_and(|env| env == "gnu");
    let pie = std::env::var_os("LEARNSYNC_PIE").is_some_and(|v| v == "1");
    if linux && gnu && !pie {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
