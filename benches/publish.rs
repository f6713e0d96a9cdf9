//! Figures for publishing: the first publish of 1,000 learning pages against
//! the Gitea-compatible test server (requests and wall time), then a no-op
//! publish (requests; it must write nothing). Run: `cargo bench --bench publish`
//! (`-- N` for another page count).

#[path = "../tests/it/common/gitea_server/mod.rs"]
mod gitea_server;
#[path = "../tests/it/common/http.rs"]
#[allow(dead_code)]
mod http;

use gitea_server::{GiteaServer, WRITE_TOKEN};
use learnsync::gitea::{ClientOptions, GiteaClient, RepoRef};
use learnsync::learning::{Learning, Quality, TrustLevel};
use learnsync::policy::WikiPolicy;
use learnsync::publish::gitea_target;
use learnsync::publish::state::TargetState;
use learnsync::render::{Templates, render_site};
use learnsync::timestamp::Timestamp;
use secrecy::SecretString;
use std::time::Instant;

fn learning(n: usize) -> Learning {
    let mut l = Learning::new(
        format!("learning-{n:032x}-1717432000000"),
        ["claude", "codex", "opencode"][n % 3].into(),
        format!("Lesson {n}: retry the flaky step with backoff"),
        Timestamp::from_unix(1_717_000_000 + n as i64),
    );
    l.trust_level = if n.is_multiple_of(10) {
        TrustLevel::L3
    } else {
        TrustLevel::L2
    };
    l.correction = Some("wrap the call in the retry helper".into());
    l.original_command = Some(format!("make step-{n}"));
    l.error_context = Some("connection reset by peer".into());
    l.keywords = vec![format!("area{}", n % 20), "ci".into()];
    l.quality = Quality {
        applied_count: 4,
        effective_count: 3,
        agent_count: 2,
        agent_names: vec!["a".into(), "b".into()],
        last_applied_at: None,
        success_rate: Some(0.75),
    };
    l.body = format!("What happened in case {n}, and why the retry helps.\n");
    l
}

struct Figures {
    requests: usize,
    writes: usize,
    seconds: f64,
}

fn measure(
    runtime: &tokio::runtime::Runtime,
    server: &GiteaServer,
    client: &GiteaClient,
    site: &learnsync::render::Site,
    state: &mut TargetState,
) -> Figures {
    server.clear_requests();
    let start = Instant::now();
    let result = runtime.block_on(gitea_target::publish(
        client,
        site,
        state,
        false,
        false,
        None,
        &mut |_, _| {},
        &mut |_| {},
    ));
    let seconds = start.elapsed().as_secs_f64();
    if let Err(e) = result {
        eprintln!("publish failed: {e}");
        std::process::exit(1);
    }
    Figures {
        requests: server.requests().len(),
        writes: server.writes().len(),
        seconds,
    }
}

fn main() {
    let pages: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1000);
    let learnings: Vec<Learning> = (0..pages).map(learning).collect();
    let start = Instant::now();
    let site = match render_site(&learnings, &WikiPolicy::default(), &Templates::builtin()) {
        Ok(site) => site,
        Err(e) => {
            eprintln!("render failed: {e}");
            std::process::exit(1);
        }
    };
    let render = start.elapsed().as_secs_f64();
    let server = GiteaServer::start();
    let client = match GiteaClient::new(
        server.url(),
        RepoRef::parse(&server.repo_ref()).expect("server repo"),
        Some(SecretString::from(WRITE_TOKEN.to_string())),
        ClientOptions::default(),
    ) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("client: {e}");
            std::process::exit(1);
        }
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let mut state = TargetState::default();
    let first = measure(&runtime, &server, &client, &site, &mut state);
    let noop = measure(&runtime, &server, &client, &site, &mut state);
    println!(
        "rendered {} pages ({} learning pages + {} index pages) in {render:.2} s",
        site.pages.len(),
        pages,
        site.pages.len() - pages
    );
    println!(
        "first publish: {} requests ({} writes, {} reads) in {:.2} s ({:.1} ms per write)",
        first.requests,
        first.writes,
        first.requests - first.writes,
        first.seconds,
        first.seconds * 1000.0 / first.writes.max(1) as f64
    );
    println!(
        "no-op publish: {} requests ({} writes, {} reads) in {:.2} s",
        noop.requests,
        noop.writes,
        noop.requests - noop.writes,
        noop.seconds
    );
    if noop.writes != 0 {
        eprintln!("a no-op publish must not write");
        std::process::exit(1);
    }
}
