//! The `learnsync` binary: parse arguments and hand over to the library.

fn main() {
    let code = learnsync::cli::main();
    std::process::exit(code);
}
