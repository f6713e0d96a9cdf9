//! Build script: how the `learnsync` binary is linked on Linux (glibc).
//!
//! **Position-dependent, unless `LEARNSYNC_PIE=1`.** `learnsync capture`
//! runs as a hook on every agent tool call, and most of its cost is process
//! start-up. As a PIE, the dynamic loader applies ~30,000 relative
//! relocations at every start, copying ~110 pages of `.data.rel.ro`
//! (vtables, panic locations, static tables): measured 233 → 112 page
//! faults and 1.60 → 1.07 ms of CPU for a capture that has nothing to do,
//! the difference between meeting and missing the hook's budget
//! (benches/README.md). The cost is ASLR of the executable's own image
//! (shared libraries, heap, stack and mmaps stay randomised) — the same
//! trade Go makes for every linux/amd64 binary by default. Packagers who
//! prefer the hardening build with `LEARNSYNC_PIE=1` (docs/security.md).
//!
//! **The code the commands run, laid out together (release builds on
//! x86_64, unless `LEARNSYNC_TEXT_ORDER=0`).** The kernel maps code 64 KiB
//! around each page a process first runs, and the functions a sync runs
//! (3.9 of the binary's 13.8 MB) lie all over it, so a sync kept ~11 MiB
//! of code resident. `linker/text-order.txt` lists the functions the
//! capture hook, the context hooks and a sync run, grouped by which of them
//! run each, and the linker (LLD, Rust's default there) places them in that
//! order ahead of the rest. A name the build does not hold (a function
//! added since the list was made) is skipped; the list is made again with
//! `benches/text-order.sh` (benches/README.md, "Code layout").

use std::path::Path;

fn main() {
    println!("cargo:rerun-if-env-changed=LEARNSYNC_PIE");
    println!("cargo:rerun-if-env-changed=LEARNSYNC_TEXT_ORDER");
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let linux_gnu = var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu";
    if linux_gnu && var("LEARNSYNC_PIE") != "1" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    let Some(root) = std::env::var_os("CARGO_MANIFEST_DIR") else {
        return;
    };
    let order = Path::new(&root).join("linker/text-order.txt");
    println!("cargo:rerun-if-changed={}", order.display());
    // LLD, shipped with the compiler, is the default linker of
    // x86_64-unknown-linux-gnu since Rust 1.90 (GNU ld has no such option).
    // A build that names another linker (in Cargo's configuration, which
    // Cargo hands us as `RUSTC_LINKER`, or in the flags) is left as it asks.
    let flags = var("CARGO_ENCODED_RUSTFLAGS");
    let own_linker = std::env::var_os("RUSTC_LINKER").is_some()
        || flags.contains("linker")
        || flags.contains("fuse-ld");
    let Some(path) = order.to_str() else {
        return;
    };
    if var("TARGET") == "x86_64-unknown-linux-gnu"
        && var("PROFILE") == "release"
        && var("LEARNSYNC_TEXT_ORDER") != "0"
        && !own_linker
        && order.is_file()
        && rustc_links_with_lld(&var("HOST"))
    {
        // `-Xlinker`, not `-Wl,`: the compiler driver would split a path
        // holding a comma.
        for arg in [
            "-Xlinker".to_string(),
            format!("--symbol-ordering-file={path}"),
            "-Xlinker".to_string(),
            "--no-warn-symbol-ordering".to_string(),
        ] {
            println!("cargo:rustc-link-arg-bins={arg}");
        }
    }
}

/// Whether the compiler building us is 1.90 or later and ships its LLD
/// (some distributions' builds do not, and link with the system's `ld`).
fn rustc_links_with_lld(host: &str) -> bool {
    let Some(rustc) = std::env::var_os("RUSTC") else {
        return false;
    };
    let run = |arg: &[&str]| {
        let out = std::process::Command::new(&rustc).args(arg).output().ok()?;
        String::from_utf8(out.stdout).ok()
    };
    let minor = run(&["-V"]).and_then(|v| {
        v.split_whitespace()
            .nth(1)?
            .split('.')
            .nth(1)?
            .parse::<u32>()
            .ok()
    });
    let shipped = run(&["--print", "sysroot"]).is_some_and(|root| {
        Path::new(root.trim())
            .join("lib/rustlib")
            .join(host)
            .join("bin/gcc-ld/ld.lld")
            .is_file()
    });
    minor.is_some_and(|m| m >= 90) && shipped
}
