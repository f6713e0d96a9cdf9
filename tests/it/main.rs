//! Every integration test, in one binary: one link of the crate instead of
//! one per file (it was twenty), and one helper tree, `common/` (the
//! `Sandbox` that runs the real binary as one machine, git, fixtures, a
//! `git daemon`, a smart-HTTP git server, and the Gitea-compatible server).
//! One module per area: `<area>_<what>.rs`. Run one area with `cargo test --test it sync_`.

mod common;

mod capture_cli;
mod capture_context;
mod capture_payload;
mod cli_docs;
mod cli_foundation;
mod cli_snapshots;
mod daemon_capture;
mod daemon_export;
mod daemon_faults;
mod daemon_install;
mod daemon_lock;
mod daemon_schedule;
mod daemon_signals;
mod defects_cli;
mod defects_commit;
mod defects_compat;
mod export_cli;
mod gitea_client;
mod gitea_contract;
mod gitea_review_api;
mod gitea_server_quirks;
mod hooks_cli;
mod hooks_install;
mod impact_cli;
mod layers;
mod outcomes;
mod peer_content;
mod publish_faults;
mod publish_git_wiki;
mod publish_gitea;
mod redact_corpus;
mod redact_end_to_end;
mod review_gitea;
mod search_cli;
mod sync_convergence;
mod sync_kill;
mod sync_ownership;
mod sync_policy;
mod sync_remotes;
mod sync_signing;
mod sync_watch;
