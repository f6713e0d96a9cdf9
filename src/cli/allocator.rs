//! The allocator settings of the long commands (`sync` and the daemon),
//! which they re-execute themselves with before doing anything.
//!
//! A sync's phases each free what they allocated before the next one runs
//! (merges, recompute, work tree, the indexes), but glibc's malloc keeps
//! the pages: it raises its mmap threshold after the first large free, so
//! later large buffers come from the heap and never go back, and every
//! thread that allocates gets an arena of its own. At 10,000 learnings that
//! was ~15 MiB of a 125 MiB peak (benches/README.md, "Memory"). A fixed
//! threshold and two arenas give most pages back as each phase ends.
//!
//! glibc reads these settings only at exec (`GLIBC_TUNABLES`), and setting
//! them in process (`mallopt`) would need unsafe code, so the process
//! execs itself once with them, as the same pid, arguments and stdio. Not
//! the capture hook: it runs on every agent tool call and is done in a
//! millisecond. A `GLIBC_TUNABLES` the user set is left alone, and where
//! the exec cannot happen the command runs untuned.

use std::ffi::OsString;

/// The variable glibc's loader reads.
pub const TUNABLES: &str = "GLIBC_TUNABLES";

/// Large blocks (from 1 MiB) are mapped on their own and unmapped when
/// freed; at most two arenas, for a process that uses two cores. 256 KiB
/// saved 2 MiB more at 10,000 learnings and cost 2 s of system time at
/// 100,000 (page faults of buffers mapped afresh); 4 MiB kept 16 MiB more.
pub const SETTINGS: &str = "glibc.malloc.mmap_threshold=1048576:glibc.malloc.arena_max=2";

/// Whether this process runs with [`SETTINGS`].
pub fn tuned() -> bool {
    std::env::var_os(TUNABLES).is_some_and(|v| v == SETTINGS)
}

/// Re-executes this process with [`SETTINGS`] unless `GLIBC_TUNABLES` is
/// set already (ours or the user's). Returns only when it did not exec.
pub fn reexec_tuned(argv: &[OsString]) {
    if !cfg!(all(target_os = "linux", target_env = "gnu")) || std::env::var_os(TUNABLES).is_some() {
        return;
    }
    let (Ok(exe), Some(arg0)) = (std::env::current_exe(), argv.first()) else {
        return;
    };
    use std::os::unix::process::CommandExt;
    // On success `exec` does not return; the error is the only result.
    let _failed = std::process::Command::new(exe)
        .arg0(arg0)
        .args(&argv[1..])
        .env(TUNABLES, SETTINGS)
        .exec();
}
