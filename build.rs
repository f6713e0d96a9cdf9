//! Build script: link the `learnsync` binary as a position-dependent
//! executable on Linux.
//!
//! Why: `learnsync capture` runs as a hook on every agent tool call, and most
//! of its cost is process start-up. As a PIE, the dynamic loader applies
//! ~26,000 relative relocations at every start, dirtying ~120 pages of
//! `.data.rel.ro` (measured: 255 → 143 page faults and 1.44 → 0.95 ms of CPU
//! for a capture that has nothing to do; see benches/README.md). The cost is
//! ASLR of the executable's own image (libraries, heap and stack stay
//! randomised), so it is opt-in: build with `LEARNSYNC_NO_PIE=1` to get it.
//! The default keeps the normal position-independent link.

fn main() {
    println!("cargo:rerun-if-env-changed=LEARNSYNC_NO_PIE");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    let gnu = std::env::var("CARGO_CFG_TARGET_ENV").is_ok_and(|env| env == "gnu");
    let no_pie = std::env::var_os("LEARNSYNC_NO_PIE").is_some_and(|v| v == "1");
    if linux && gnu && no_pie {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
