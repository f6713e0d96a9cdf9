//! End to end with the real binary: a failing command whose command line and output hold
//! secrets of several classes goes through `capture` and `sync` (commit and push to a
//! bare hub), and no secret is left in the inbox, the learnings dir, the history of
//! either repository, or anything the commands print.

use crate::common;

use std::path::Path;

use common::Sandbox;
use common::capture::capture_raw;
use common::git::{bare, git_in};

/// Fake, well-shaped secret bodies built from pieces, so no literal here looks like a key.
fn body(n: usize, seed: usize) -> String {
    const SET: &[u8] = b"aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xYz";
    (0..n)
        .map(|i| SET[(i * 7 + seed * 13 + 3) % SET.len()] as char)
        .collect()
}

fn hex(n: usize, seed: usize) -> String {
    (0..n)
        .map(|i| b"0123456789abcdef"[(i * 5 + seed * 3 + 1) % 16] as char)
        .collect()
}

struct Secrets {
    gitlab: String,
    mysql_password: String,
    signing_key: String,
    aws_secret: String,
    digitalocean: String,
    yaml_password: String,
    client_key_data: String,
}

impl Secrets {
    fn new() -> Secrets {
        let pem = format!(
            "-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----\n",
            body(64, 9)
        );
        Secrets {
            gitlab: format!("glpat-{}", body(20, 1)),
            mysql_password: format!("Winter{}!", 2026),
            signing_key: body(40, 3),
            aws_secret: format!("{}/{}", body(30, 4), body(9, 5)),
            digitalocean: format!("dop_v1_{}", hex(64, 6)),
            yaml_password: format!("c0pper-{}", body(6, 7)),
            client_key_data: base64(pem.as_bytes()),
        }
    }

    fn all(&self) -> Vec<&str> {
        vec![
            &self.gitlab,
            &self.mysql_password,
            &self.signing_key,
            &self.aws_secret,
            &self.digitalocean,
            &self.yaml_password,
            &self.client_key_data,
        ]
    }
}

fn base64(bytes: &[u8]) -> String {
    const T: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n =
            chunk.iter().fold(0u32, |acc, &b| acc << 8 | u32::from(b)) << (8 * (3 - chunk.len()));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(T[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A Claude Code `PostToolUseFailure` payload for a Bash call.
fn failure_payload(command: &str, error: &str) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "session_id": "e2e-secrets",
        "transcript_path": "/home/dev/.claude/projects/x.jsonl",
        "cwd": "/home/dev/shop",
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_01E2eSecretsTest0000001",
        "error": error,
    }))
    .expect("json")
}

/// Every file under `dir`, `.git` included (its loose state files; objects are
/// compressed and read through `git log -p` instead).
fn files_under(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
        let path = entry.path();
        if path.ends_with(".git/objects") {
            continue;
        }
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

#[track_caller]
fn assert_no_secret(what: &str, text: &str, secrets: &Secrets) {
    for s in secrets.all() {
        assert!(!text.contains(s), "secret {s:?} in {what}:\n{text}");
    }
}

#[test]
fn secrets_in_a_failing_command_and_its_output_reach_no_file_commit_push_or_output() {
    let tmp = tempfile::tempdir().expect("tmp");
    let hub = tmp.path().join("hub.git");
    bare(&hub);
    let m = Sandbox::machine(tmp.path(), "laptop");
    let init = m.ok(&[
        "init",
        "--agent",
        "laptop",
        "--remote",
        &format!("hub={}", hub.display()),
    ]);
    let s = Secrets::new();

    // A `set -x` CI step: the command echoes its secrets, the tools print others.
    let command = format!(
        "curl -sf -H 'PRIVATE-TOKEN: {gitlab}' https://gitlab.example.com/api/v4/projects && \
         mysql -h db.internal -uroot -p{mysql} shop < dump.sql && \
         ACME_SIGNING_KEY={signing} ./deploy.sh",
        gitlab = s.gitlab,
        mysql = s.mysql_password,
        signing = s.signing_key,
    );
    let error = format!(
        "+ ACME_SIGNING_KEY={signing} ./deploy.sh\n\
         error: signature check failed with key {signing}\n\
         [default]\naws_access_key_id = AKIA{kid}\naws_secret_access_key = {aws}\n\
         GET https://api.digitalocean.com/v2/{doctl}/droplets returned 401\n\
         Error: invalid configuration in app.yaml:\ndatabase:\n  password: {yaml}\n\
         users:\n- name: ci\n  user:\n    client-key-data: {ckd}\n",
        signing = s.signing_key,
        kid = "QX7Z2M4K9T3W8R5B",
        aws = s.aws_secret,
        doctl = s.digitalocean,
        yaml = s.yaml_password,
        ckd = s.client_key_data,
    );
    let out = capture_raw(&m, &[], &[], &failure_payload(&command, &error));
    assert_eq!(out.status.code(), Some(0), "capture failed: {out:?}");
    let mut printed = String::from_utf8_lossy(&out.stdout).into_owned();
    printed.push_str(&String::from_utf8_lossy(&out.stderr));

    // The inbox holds the learning, redacted, before any sync.
    let inbox = m.dir().join(".git/learnsync/inbox");
    let mut inbox_files = Vec::new();
    files_under(&inbox, &mut inbox_files);
    assert_eq!(
        inbox_files.len(),
        1,
        "one learning in the inbox: {inbox_files:?}"
    );
    let captured = std::fs::read_to_string(&inbox_files[0]).expect("inbox file");
    assert_no_secret("the inbox", &captured, &s);
    for kind in [
        "gitlab-token",
        "password",
        "digitalocean-token",
        "aws-secret-key",
        "private-key",
    ] {
        assert!(
            captured.contains(&format!("[REDACTED:{kind}]")),
            "no {kind} marker in:\n{captured}"
        );
    }

    let sync = m.run(&["sync"]);
    assert!(sync.status.success(), "sync failed: {sync:?}");
    printed.push_str(&String::from_utf8_lossy(&sync.stdout));
    printed.push_str(&String::from_utf8_lossy(&sync.stderr));
    for args in [&["list", "--json"][..], &["status"][..]] {
        let o = m.run(args);
        printed.push_str(&String::from_utf8_lossy(&o.stdout));
        printed.push_str(&String::from_utf8_lossy(&o.stderr));
    }
    printed.push_str(&init);
    assert_no_secret("what the commands printed", &printed, &s);
    assert!(
        printed.contains("[REDACTED:"),
        "the learning is listed, redacted:\n{printed}"
    );

    // The learnings dir, work tree and local state alike.
    let mut files = Vec::new();
    files_under(m.dir(), &mut files);
    assert!(
        files
            .iter()
            .any(|f| f.extension().is_some_and(|e| e == "md"))
    );
    for f in &files {
        let text = String::from_utf8_lossy(&std::fs::read(f).expect("read")).into_owned();
        assert_no_secret(&f.display().to_string(), &text, &s);
    }

    // History here and on the hub the sync pushed to.
    let local = git_in(m.dir(), m.home(), &["log", "-p", "--all"]);
    assert!(
        local.contains("[REDACTED:"),
        "the learning is committed:\n{local}"
    );
    assert_no_secret("git log -p --all", &local, &s);
    let pushed = git_in(&hub, m.home(), &["log", "-p", "--all"]);
    assert!(
        pushed.contains("[REDACTED:"),
        "the learning was pushed:\n{pushed}"
    );
    assert_no_secret("the hub's git log -p --all", &pushed, &s);
}
