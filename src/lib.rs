//! learnsync: git-native sync of AI coding agents' learnings.
//!
//! The map (docs/architecture.md says more; `tests/it/layers.rs` holds the
//! walls: a module imports only its own layer or lower ones, and no two
//! modules import each other round a loop):
//!
//! | layer | modules | what they are |
//! |---|---|---|
//! | core | `paths` `timestamp` `yaml` `names` `problem` `redact` `learning` `event` `review_rules` `policy` `trust` `impact` `merge` `schedule` `retry` `fault` `shell` | the formats and rules of DESIGN.md, pure: a learning and its codec, events, review records, policy, trust as a fold, what learnings did (impact), the semantic merge of one file, the redactor, schedules, the shell-command lexer |
//! | edges | `repo` `store` `gitea` `config` `watch` | one kind of I/O each: git through gix (and the git binary for push), the learnings dir and its local state on disk, Gitea's REST API, configuration files and environment, the work-tree watcher |
//! | workflows | `view` `hub` `by_hand` `capture` `sync` `indexes` `publish` `health` `init` `hook_install` `search` `review_pass` `daemon` `export` | what a command does: the current view of every learning, what the hub's main says, recording by hand, the capture hook, the sync cycle, the lookup indexes kept in step with it, publishing, doctor and status, init, installing agent hooks, retrieval (`suggest`, `query`, `context`) over a cached index and the knowledge graph, human review on Gitea, the daemon that runs sync, review, publish and export on schedules; `export` (trusted learnings into instruction files and skills) |
//! | command line | `cli` | parses, calls one workflow, prints; one file per command |
//!
//! The workflows stand on floors, and a workflow imports only those on
//! the floors below its own, never one beside it (`tests/it/layers.rs`):
//!
//! | floor | workflows | they use |
//! |---:|---|---|
//! | 9 | `health` | everything below, to report on it (`doctor`, `status`) |
//! | 8 | `daemon` | the jobs it schedules: sync, review, publish, export, and the indexes it keeps |
//! | 7 | `review_pass` | a pass over Gitea; syncs its records, publishes nothing |
//! | 6 | `init` | creates a dir, its first commit (sync's) and hooks |
//! | 5 | `indexes` | the caches that follow HEAD, kept by whoever runs a sync |
//! | 4 | `sync` | the cycle; told of HEAD's moves through a hook, keeps no cache itself |
//! | 3 | `capture` | the agents' hook: records, and asks search what to show |
//! | 2 | `search` `publish` `export` | readers of the view |
//! | 1 | `view` | every learning as it stands, from the work tree and the hub |
//! | 0 | `hub` `signing` `by_hand` `hook_install` `render` | what the hub's main says, commit signatures, recording by hand, installing agent hooks, what people read (wiki pages, review texts: templates, sanitising, Gitea's size limit) |

// core
pub mod event;
pub mod fault;
pub mod impact;
pub mod learning;
pub mod merge;
pub mod names;
pub mod page_name;
pub mod paths;
pub mod policy;
pub mod problem;
pub mod redact;
pub mod retry;
pub mod review_rules;
pub mod risk;
pub mod schedule;
pub mod shell;
pub mod signing;
pub mod text;
pub mod timestamp;
pub mod trust;
pub mod yaml;

// edges
pub mod config;
pub mod gitea;
pub mod repo;
pub mod store;
pub mod watch;

// workflows
pub mod by_hand;
pub mod capture;
pub mod daemon;
pub mod export;
pub mod health;
pub mod hook_install;
pub mod hub;
pub mod indexes;
pub mod init;
pub mod publish;
pub mod render;
pub mod review_pass;
pub mod search;
pub mod sync;
pub mod view;

// the command line
pub mod cli;
