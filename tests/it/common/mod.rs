//! Test support shared by the integration tests, one module per subject:
//! the `Sandbox` (a machine: HOME, learnings dir, the real binary run with a
//! clean environment), real git beside it, fixtures, learnings and events,
//! hook captures, the daemon, the watcher, small network pieces, and the
//! servers tests talk to (a smart-HTTP git server, the Gitea-compatible
//! server and a client for it). Tests themselves live in `tests/it/*.rs`.

pub mod capture;
pub mod daemon;
pub mod fixtures;
pub mod git;
pub mod git_http;
pub mod gitea_client;
pub mod gitea_server;
pub mod http;
pub mod learnings;
pub mod net;
pub mod prometheus;
mod sandbox;
pub mod snapshot;
pub mod watcher;

pub use sandbox::{Sandbox, bin, json, scrub, stderr, stdout, with_stdin};
