//! The `learnsync` binary: parse arguments and hand over to the library.
fn main() {}
