//! Benchmarks the redactor on the hook's hot path: a 4 KiB clean `cargo build` log,
//! the same log with five secrets, 4 KiB of look-alikes that hit many anchors but hold no
//! secret, and the one-off cost of building the automaton.

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
    log.insert_str(2800, "aws_access_key_id = AKIAQX7ZP2K9M4W8R3T6\n");
    log.insert_str(3600, "DB_PASSWORD=hunter2hunter2\n");
    // Keep the splices on line boundaries.
    log.lines().map(|l| format!("{l}\n")).collect()
}

/// About 4 KiB of tool output full of the redactor's anchors (keys named token, password,
/// `-p` flags, `_`/`-` ids, URLs, digests) and no secret: the validators' worst ordinary case.
fn look_alikes() -> String {
    let lines = [
        "token_type: Bearer\nexpires_in: 3600\nmax_tokens: 4096",
        "  -p, --password <PASSWORD>  Password for the registry [env: REGISTRY_PASSWORD=]",
        "Warning: Using a password on the command line interface can be insecure.",
        "docker run -p 127.0.0.1:8080:80 -e POSTGRES_HOST_AUTH_METHOD=trust postgres:16",
        "Cache restored from key: Linux-cargo-9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822c",
        "\"integrity\": \"sha512-9NET910DNaIPngYnLLPeg+Ogzqsi9uM4mSboU5y6p8S5DzMTVEsJZrawi+BoDNUV\"",
        "x-request-id: req_0ab2d1e6f331db6abf0e2245f011e284 api-deployment-5f7b9c8d6-abcde",
        "valueFrom:\n  secretKeyRef:\n    name: db-credentials\n    key: password",
        "To github.com:acme/app.git\n   3f78685..9a0b1c2  agents/claude -> agents/claude",
        "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }} api_key: <your-api-key> password: ********",
        "https://github.com/acme/app/commit/3f786850e387550fdab836ed7e6dc881de23001b",
        "ERROR 1045 (28000): Access denied for user 'root'@'localhost' (using password: YES)",
    ];
    let mut text = String::new();
    while text.len() < 4096 {
        for l in lines {
            text.push_str(l);
            text.push('\n');
        }
    }
    text.truncate(4096);
    text
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
    let alikes = look_alikes();
    assert!(
        !contains_secret(&alikes),
        "{:?}",
        learnsync::redact::findings(&alikes)
    );
    c.bench_function("redact 4 KiB of look-alikes", |b| {
        b.iter(|| redact(black_box(&alikes)))
    });
    c.bench_function("contains_secret 4 KiB clean cargo log", |b| {
        b.iter(|| contains_secret(black_box(&clean)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
