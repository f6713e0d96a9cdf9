//! learnsync: git-native sync of AI coding agents' learnings.
//!
//! The library holds the model (learnings, events, trust), the codecs and the
//! I/O edges (git, files, Gitea); `src/cli/` only translates for the user.

pub mod learning;
pub mod paths;
pub mod yaml;
pub mod event;
pub mod policy;
pub mod review;
pub mod trust;
pub mod repo;
pub mod store;
pub mod timestamp;
pub mod config;
