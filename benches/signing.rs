//! What signature checks cost a sync (issue 34): verifying an owner's tip
//! in process (once per owner with a roster key, per cycle), reading a
//! commit without a signature (each step of the walk past unsigned ones),
//! and signing the cycle's commit through `ssh-keygen -Y sign`, beside
//! `git verify-commit` (one process) as the reference.
//!
//!   cargo bench --bench signing

use criterion::{Criterion, criterion_group, criterion_main};
use learnsync::repo::sshsig::PublicKey;
use learnsync::repo::{Identity, Repo};
use std::hint::black_box;
use std::process::Command;

fn signing(c: &mut Criterion) {
    let tmp = tempfile::tempdir().expect("tmp");
    let key = tmp.path().join("agent.key");
    let made = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "agent", "-f"])
        .arg(&key)
        .status()
        .expect("ssh-keygen");
    assert!(made.success());
    let public_line = std::fs::read_to_string(tmp.path().join("agent.key.pub")).expect("pub");
    let public = PublicKey::parse(&public_line).expect("ed25519");
    let root = tmp.path().join("repo");
    let repo = Repo::init(&root, "agents/agent").expect("init");
    let who = Identity {
        name: "agent".into(),
        email: "agent@learnsync.invalid".into(),
        signing_key: Some(key.clone()),
    };
    let tree = repo.head_tree().expect("empty tree");
    let signed = repo
        .write_commit(tree, &[], "learnsync: signed", &who)
        .expect("signed commit");
    let unsigned = repo
        .write_commit(tree, &[], "learnsync: unsigned", &who.unsigned())
        .expect("commit");
    let allowed = tmp.path().join("allowed_signers");
    std::fs::write(&allowed, format!("agent@learnsync.invalid {public_line}")).expect("signers");

    let mut group = c.benchmark_group("signing");
    group.bench_function("verify an owner's tip (in process)", |b| {
        b.iter(|| black_box(repo.verify_commit(signed, &public).expect("read")))
    });
    group.bench_function("look at an unsigned commit (one step of the walk)", |b| {
        b.iter(|| black_box(repo.verify_commit(unsigned, &public).expect("read")))
    });
    group.sample_size(20);
    group.bench_function("sign the cycle's commit (ssh-keygen -Y sign)", |b| {
        b.iter(|| {
            black_box(
                repo.write_commit(tree, &[], "learnsync: x", &who)
                    .expect("signed"),
            )
        })
    });
    group.bench_function("reference: git verify-commit (one process)", |b| {
        b.iter(|| {
            let out = Command::new("git")
                .current_dir(&root)
                .args([
                    "-c",
                    &format!("gpg.ssh.allowedSignersFile={}", allowed.display()),
                    "verify-commit",
                    &signed.to_string(),
                ])
                .output()
                .expect("git");
            assert!(out.status.success());
        })
    });
    group.finish();
}

criterion_group!(benches, signing);
criterion_main!(benches);
