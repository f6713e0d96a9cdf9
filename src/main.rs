//! The `learnsync` binary: parse arguments and hand over to the library.

/// jemalloc, configured (`.cargo/config.toml`) to return freed pages at
/// once: glibc's malloc keeps what a sync's merges freed and maps fresh
/// memory for its later phases, so the peak is their sum.
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() {
    let code = learnsync::cli::main();
    std::process::exit(code);
}
