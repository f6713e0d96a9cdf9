//! Figures for `learnsync review` (issue 14, "Speed"): a learnings dir with
//! N L2 learnings (default 1,000) synced to the Gitea-compatible test
//! server's hub; the first pass against the fresh hub with
//! `review.max_new_per_run` and `review.max_open` lifted (requests and wall
//! time), then a pass with nothing new (target: 0 writes, at most 3 reads).
//! Run: `cargo bench --bench review` (`-- N` for another count).

#[path = "../tests/it/common/gitea_server/mod.rs"]
mod gitea_server;
#[path = "../tests/it/common/http.rs"]
#[allow(dead_code)]
mod http;

use gitea_server::{BOT_TOKEN, GiteaServer, MAINTAINER, Protection};
use learnsync::config::{Config, Env, Flags};
use learnsync::event::{Event, Outcome};
use learnsync::learning::Learning;
use learnsync::review_pass::{ReviewOptions, run};
use learnsync::store::LearningsDir;
use learnsync::timestamp::Timestamp;
use std::process::Command;
use std::time::Instant;

fn git(dir: &std::path::Path, args: &[&str]) {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .expect("git");
    if !out.status.success() {
        eprintln!("git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        std::process::exit(1);
    }
}

fn main() {
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1000);
    let tmp = tempfile::tempdir().expect("tmp");
    let server = GiteaServer::start();
    let root = tmp.path().join("learnings");
    let env = Env {
        home: Some(tmp.path().display().to_string()),
        hostname: Some("bench".into()),
        ..Env::default()
    };
    let flags = Flags {
        dir: Some(root.clone()),
        agent: None,
    };
    let hub = (
        "hub".to_string(),
        server.repo_git_path().display().to_string(),
    );
    if let Err(e) = learnsync::init::init(&root, "bench", &[hub], None, None, &flags, &env) {
        eprintln!("init: {e}");
        std::process::exit(1);
    }
    // N learnings at L2: three effective outcomes from two agents each.
    let mut lines: std::collections::BTreeMap<String, String> = Default::default();
    for i in 0..n {
        let id = format!("learning-{i:032x}-1780000000000");
        let mut l = Learning::new(
            id.clone(),
            "bench".into(),
            format!("Lesson {i}: retry with backoff"),
            Timestamp::from_unix(1_780_000_000 + i as i64),
        );
        l.correction = Some("wrap the call in the retry helper".into());
        l.original_command = Some(format!("make step-{i}"));
        l.body = format!("Why case {i} needs the retry.\n");
        std::fs::create_dir_all(root.join("bench")).expect("mkdir");
        std::fs::write(root.join(format!("bench/{id}.md")), l.to_markdown()).expect("write");
        for (k, agent) in ["a", "b", "a"].iter().enumerate() {
            let e = Event::new(
                &id,
                agent,
                Outcome::Effective,
                Timestamp::from_unix(1_780_000_100 + (i * 3 + k) as i64),
            );
            let text = lines.entry(e.file_path()).or_default();
            text.push_str(&e.to_line());
            text.push('\n');
        }
    }
    // Each agent's outcomes in its own folder (§4).
    for (path, text) in lines {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("folder")).expect("mkdir");
        std::fs::write(path, text).expect("events");
    }
    let token = tmp.path().join("token");
    std::fs::write(&token, BOT_TOKEN).expect("token");
    let config_path = root.join(".git/learnsync/config.yaml");
    let mut text = std::fs::read_to_string(&config_path).expect("config");
    text.push_str(&format!(
        "gitea:\n  url: {}\n  repo: {}\n  token_file: {}\nreview:\n  max_open: {n}\n  max_new_per_run: {n}\n",
        server.url(),
        server.repo_ref(),
        token.display()
    ));
    std::fs::write(&config_path, text).expect("config");
    let config = Config::load(&flags, &env).expect("config");
    let sync = learnsync::sync::SyncOptions {
        fetch: true,
        push: true,
        wait: std::time::Duration::from_secs(30),
        watcher: None,
        stop: None,
        progress: None,
        batch: None,
        on_head: Some(learnsync::indexes::keeper(
            &config,
            learnsync::indexes::FirstBuild::Here,
        )),
    };
    learnsync::sync::run(&config, &sync).expect("sync");
    let sha = server.branch_sha("agents/bench").expect("pushed");
    server.hub_git(&["update-ref", "refs/heads/main", &sha]);
    server.protect(Protection::new("main").merge_whitelist(&[MAINTAINER]));
    git(&root, &["fetch", "-q", "hub"]);
    let dir = LearningsDir::new(&root);
    let options = ReviewOptions::default();
    let pass = |label: &str| {
        server.clear_requests();
        let start = Instant::now();
        let report = match run(&dir, &config, &options) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("review: {e}");
                std::process::exit(1);
            }
        };
        let seconds = start.elapsed().as_secs_f64();
        let requests = server.requests();
        let writes = requests.iter().filter(|r| r.is_write()).count();
        println!(
            "{label}: {} proposed, {} requests ({writes} writes, {} reads) in {seconds:.2} s",
            report.proposed.len(),
            requests.len(),
            requests.len() - writes
        );
        (writes, requests.len() - writes)
    };
    pass(&format!("first pass over {n} L2 learnings, fresh hub"));
    let (writes, reads) = pass("pass with nothing new");
    if writes != 0 || reads > 3 {
        eprintln!("target missed: a pass with nothing new must send no write and at most 3 reads");
        std::process::exit(3);
    }
}
