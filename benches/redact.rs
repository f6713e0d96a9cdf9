//! Benchmarks the redactor on the hook's hot path: a 4 KiB clean `cargo build` log,
//! the same log with five secrets, and the one-off cost of building the automaton.

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use learnsync::redact::{contains_secret, redact};

/// About 4 KiB of a clean `cargo build` log.
fn clean_log() -> String {
    let crates = [
        "proc-macro2 v1.0.107",
        "unicode-ident v1.0.27",
        "quote v1.0.47",
        "syn v2.0.100",
        "serde v1.0.219",
        "serde_derive v1.0.219",
        "memchr v2.7.4",
        "aho-corasick v1.1.3",
        "regex-syntax v0.8.5",
        "regex-automata v0.4.9",
        "regex v1.11.1",
        "tokio v1.40.0",
        "tokio-macros v2.4.0",
        "bytes v1.8.0",
        "pin-project-lite v0.2.15",
        "libc v0.2.170",
        "once_cell v1.20.2",
        "smallvec v1.13.2",
        "itoa v1.0.14",
        "ryu v1.0.18",
    ];
    let mut log = String::new();
    while log.len() < 4096 - 200 {
        for c in crates {
            log.push_str("   Compiling ");
            log.push_str(c);
            log.push('\n');
        }
        log.push_str("warning: unused variable: `x`\n --> src/sync/merge.rs:42:9\n");
    }
    log.truncate(4096 - 120);
    log.push_str("\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 12.34s\n");
    log
}

/// The clean log with five fake secrets spliced into lines a hook would really see.
fn log_with_secrets() -> String {
    let mut log = clean_log();
    let tok: String = "aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xYaB3d".into();
    log.insert_str(400, &format!("+ export GITHUB_TOKEN=ghp_{tok}\n"));
    log.insert_str(
        1200,
        "+ git clone https://ci:S3cretPassw0rd@git.example.com/a/b.git\n",
    );
    log.insert_str(
        2000,
        &format!("+ curl -H 'Authorization: Bearer {tok}' https://x\n"),
    );
    log.insert_str(2800, "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n");
    log.insert_str(3600, "DB_PASSWORD=hunter2hunter2\n");
    // Keep the splices on line boundaries.
    log.lines().map(|l| format!("{l}\n")).collect()
}

fn bench(c: &mut Criterion) {
    // The first call builds the automaton; report it once, outside criterion's loop.
    let t = Instant::now();
    black_box(redact("warm up"));
    eprintln!("first call (automaton build + scan): {:?}", t.elapsed());

    let clean = clean_log();
    let dirty = log_with_secrets();
    assert!(!contains_secret(&clean));
    assert_eq!(dirty.matches("[REDACTED:").count(), 0);
    assert_eq!(redact(&dirty).matches("[REDACTED:").count(), 5);

    c.bench_function("redact 4 KiB clean cargo log", |b| {
        b.iter(|| redact(black_box(&clean)))
    });
    c.bench_function("redact 4 KiB cargo log with 5 secrets", |b| {
        b.iter(|| redact(black_box(&dirty)))
    });
    c.bench_function("contains_secret 4 KiB clean cargo log", |b| {
        b.iter(|| contains_secret(black_box(&clean)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
