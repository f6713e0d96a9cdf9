//! learnsync: git-native sync of AI coding agents' learnings.
//!
//! The library holds the model (learnings, events, trust), the codecs and the
//! I/O edges (git, files, Gitea); `src/cli/` only translates for the user.

pub mod capture;
pub mod cli;
pub mod config;
pub mod event;
pub mod fault;
pub mod gitea;
pub mod hooks;
pub mod learning;
pub mod merge;
pub mod paths;
pub mod policy;
pub mod publish;
pub mod redact;
pub mod repo;
pub mod retry;
pub mod review;
pub mod search;
pub mod setup;
pub mod store;
pub mod sync;
pub mod timestamp;
pub mod trust;
pub mod view;
pub mod watch;
pub mod yaml;
