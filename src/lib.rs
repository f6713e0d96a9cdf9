//! learnsync: git-native sync of AI coding agents' learnings.
//!
//! The library holds the model (learnings, events, trust), the codecs and the
//! I/O edges (git, files, Gitea); `src/cli/` only translates for the user.

pub mod gitea;
pub mod retry;
