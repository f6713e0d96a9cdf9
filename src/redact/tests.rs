//! Unit tests for the redactor: one story per credential kind, the look-alikes it must
//! leave alone, and properties (no panic, no finding survives, idempotence).

use super::*;
use proptest::prelude::*;

/// Fake, well-shaped secret bodies built from pieces so no literal looks like a real token.
pub(super) fn alnum(n: usize) -> String {
    const SET: &[u8] = b"aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY";
    (0..n)
        .map(|i| SET[(i * 7 + 3) % SET.len()] as char)
        .collect()
}

pub(super) fn redacted(text: &str) -> String {
    redact(text).into_owned()
}

/// The secret is gone from the redacted text, whatever marker replaced it.
#[track_caller]
pub(super) fn assert_gone(text: &str, secret: &str) {
    let out = redacted(text);
    assert!(!out.contains(secret), "secret survived in {out:?}");
}

#[track_caller]
pub(super) fn assert_redacts(text: &str, secret: &str, kind: &str) {
    let out = redacted(text);
    assert!(!out.contains(secret), "secret survived in {out:?}");
    let marker = format!("[REDACTED:{kind}]");
    assert!(out.contains(&marker), "no {marker} in {out:?}");
}

#[track_caller]
pub(super) fn assert_clean(text: &str) {
    let found = findings(text);
    assert!(found.is_empty(), "false positive in {text:?}: {found:?}");
    assert!(matches!(redact(text), Cow::Borrowed(_)));
}

#[test]
fn aws_access_key_id_and_its_secret_are_redacted() {
    let id = format!("AKIA{}", "QX7ZP2K9M4W8R3T6");
    let secret = format!("wJalrXUtnFEMI/K7MDENG/{}", "bPxRfiCYq7Z2m9KLpT");
    assert_redacts(
        &format!("aws_access_key_id = {id}"),
        &id,
        "aws-access-key-id",
    );
    assert_redacts(
        &format!("aws_secret_access_key = {secret}"),
        &secret,
        "aws-secret-key",
    );
    let csv = format!("Access key ID,Secret access key\n{id},{secret}\n");
    assert_redacts(&csv, &secret, "aws-secret-key");
    assert_redacts(&csv, &id, "aws-access-key-id");
}

#[test]
fn github_gitlab_slack_tokens_are_redacted() {
    for prefix in ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"] {
        let t = format!("{prefix}{}", alnum(36));
        assert_redacts(&format!("export GH_TOKEN={t}"), &t, "github-token");
    }
    let pat = format!("github_pat_{}_{}", alnum(22), alnum(59));
    assert_redacts(&format!("token: {pat}"), &pat, "github-token");
    let gl = format!("glpat-{}", alnum(20));
    assert_redacts(
        &format!("curl -H \"PRIVATE-TOKEN: {gl}\" https://gitlab.com/api/v4/user"),
        &gl,
        "gitlab-token",
    );
    let slack = format!("xoxb-1234567890-{}", alnum(24));
    assert_redacts(&format!("SLACK_BOT_TOKEN={slack}"), &slack, "slack-token");
    let hook = format!("T0{}/B0{}/{}", alnum(8), alnum(8), alnum(24));
    assert_redacts(
        &format!("curl -X POST https://hooks.slack.com/services/{hook} -d '{{}}'"),
        &hook,
        "slack-webhook",
    );
}

#[test]
fn api_keys_of_saas_vendors_are_redacted() {
    let cases = [
        (format!("sk_live_{}", alnum(24)), "stripe-key"),
        (format!("rk_test_{}", alnum(24)), "stripe-key"),
        (format!("sk-proj-{}", alnum(64)), "openai-key"),
        (format!("sk-{}", alnum(48)), "openai-key"),
        (format!("sk-ant-api03-{}", alnum(90)), "anthropic-key"),
        (format!("AIza{}", alnum(35)), "google-api-key"),
        (format!("npm_{}", alnum(36)), "npm-token"),
        (format!("pypi-AgEIcHlwaS5vcmc{}", alnum(60)), "pypi-token"),
        (format!("dckr_pat_{}", alnum(27)), "docker-token"),
        (format!("hf_{}", alnum(34)), "huggingface-token"),
    ];
    for (secret, kind) in cases {
        assert_redacts(&format!("using key {secret} for the call"), &secret, kind);
    }
}

#[test]
fn jwt_is_redacted_whole() {
    let jwt = format!(
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.{}",
        alnum(43)
    );
    assert_redacts(&format!("Authorization: Bearer {jwt}"), &jwt, "jwt");
}

#[test]
fn pem_private_keys_are_redacted_from_begin_to_end() {
    for label in [
        "RSA PRIVATE KEY",
        "EC PRIVATE KEY",
        "OPENSSH PRIVATE KEY",
        "ENCRYPTED PRIVATE KEY",
        "PGP PRIVATE KEY BLOCK",
    ] {
        let text = format!(
            "before\n-----BEGIN {label}-----\nMIIE{}\n-----END {label}-----\nafter",
            alnum(60)
        );
        let out = redacted(&text);
        assert_eq!(out, "before\n[REDACTED:private-key]\nafter");
    }
    let truncated = format!("-----BEGIN PRIVATE KEY-----\nMIIE{}", alnum(40));
    assert_eq!(redacted(&truncated), "[REDACTED:private-key]");
}

#[test]
fn service_account_json_is_redacted() {
    let text = format!(
        r#"{{"type": "service_account", "private_key_id": "{}", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIE{}\n-----END PRIVATE KEY-----\n", "client_email": "x@p.iam.gserviceaccount.com"}}"#,
        "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b",
        alnum(40)
    );
    let out = redacted(&text);
    assert!(
        out.contains(r#""private_key_id": "[REDACTED:private-key-id]""#),
        "{out}"
    );
    assert!(
        out.contains(r#""private_key": "[REDACTED:private-key]\n""#),
        "{out}"
    );
    assert!(out.contains("x@p.iam.gserviceaccount.com"));
}

#[test]
fn azure_and_docker_and_npmrc_are_redacted() {
    let key = format!("{}==", alnum(86));
    assert_redacts(
        &format!(
            "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={key};EndpointSuffix=core.windows.net"
        ),
        &key,
        "azure-key",
    );
    let auth = "dXNlcjpwYXNzd29yZDEyMw==";
    assert_redacts(
        &format!(r#"{{"auths": {{"https://index.docker.io/v1/": {{"auth": "{auth}"}}}}}}"#),
        auth,
        "docker-auth",
    );
    let npm = format!("npm_{}", alnum(36));
    let out = redacted(&format!("//registry.npmjs.org/:_authToken={npm}"));
    assert_eq!(out, "//registry.npmjs.org/:_authToken=[REDACTED:npm-token]");
    let out = redacted("//registry.example.com/:_authToken=k7c1d3e9f4b2g8h5q6");
    assert_eq!(
        out,
        "//registry.example.com/:_authToken=[REDACTED:npm-token]"
    );
}

#[test]
fn url_credentials_keep_scheme_user_and_host() {
    assert_eq!(
        redacted("git clone https://alice:s3cr3tPass@git.example.com/team/repo.git"),
        "git clone https://alice:[REDACTED:url-password]@git.example.com/team/repo.git"
    );
    assert_eq!(
        redacted("postgres://app:hunter2@db:5432/app"),
        "postgres://app:[REDACTED:url-password]@db:5432/app"
    );
    let tok = format!("ghs_{}", alnum(36));
    assert_eq!(
        redacted(&format!("https://x-access-token:{tok}@github.com/o/r.git")),
        "https://x-access-token:[REDACTED:github-token]@github.com/o/r.git"
    );
}

#[test]
fn headers_and_curl_user_are_redacted() {
    assert_eq!(
        redacted("curl -H 'Authorization: Basic ZGVwbG95OlRyMHViNGRvcjM=' https://api.example.com"),
        "curl -H 'Authorization: Basic [REDACTED:auth-header]' https://api.example.com"
    );
    assert_eq!(
        redacted("curl -u admin:Tr0ub4dor https://example.com"),
        "curl -u admin:[REDACTED:password] https://example.com"
    );
    assert_eq!(
        redacted("Authorization: token 9f3a0c7e51b2d84a6e0f"),
        "Authorization: token [REDACTED:auth-header]"
    );
}

#[test]
fn assignments_in_every_syntax_are_redacted() {
    let cases = [
        ("export DB_PASSWORD=hunter22", "hunter22", "password"),
        ("password: 'c0rrect horse'", "c0rrect horse", "password"),
        (
            r#"{"api_key": "k3y-9f8e7d6c5b4a"}"#,
            "k3y-9f8e7d6c5b4a",
            "api-key",
        ),
        (
            "client_secret = \"cs_0a1b2c3d4e5f\"",
            "cs_0a1b2c3d4e5f",
            "secret",
        ),
        ("mysql --password=Sup3rS3cret db", "Sup3rS3cret", "password"),
        ("tool --token k7c1d3e9f4b2g8h", "k7c1d3e9f4b2g8h", "token"),
        ("MYSQL_PWD=letmein9 mysql", "letmein9", "password"),
        (
            "https://api.example.com/v1?access_token=9a8b7c6d5e4f3a2b&x=1",
            "9a8b7c6d5e4f3a2b",
            "token",
        ),
        (
            "machine api.example.com login bob password pa55word",
            "pa55word",
            "password",
        ),
    ];
    for (text, secret, kind) in cases {
        assert_redacts(text, secret, kind);
    }
}

#[test]
fn look_alikes_are_left_alone() {
    let negatives = [
        "abc1234..def5678  main -> main",
        "commit 3f786850e387550fdab836ed7e6dc881de23001b",
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "123e4567-e89b-12d3-a456-426614174000",
        "/home/user/.config/learnsync/config.yaml",
        "version 1.2.3-beta.4+build.5",
        "the token expired, please log in again",
        "loading tokenizer from /models/tokenizer.json",
        "password prompt appeared",
        "password: ",
        "password: ${PASSWORD}",
        "TOKEN=$TOKEN",
        "api_key: <your-token>",
        "password: ***",
        "password: [REDACTED:password]",
        "PWD=/home/user/src",
        "OLDPWD=/home/user",
        "max_tokens: 4096",
        "Error: invalid token: expected three parts",
        "token_type: Bearer",
        "git push -u origin main",
        "docker run -u 1000:1000 alpine",
        "ssh://git@github.com/org/repo.git",
        "-----BEGIN CERTIFICATE-----",
        "let token = get_token();",
        "api_key = os.environ.API_KEY",
        "password: String,",
        "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
        "Compiling tokio v1.40.0",
        "remote: Invalid username or password.",
        "docker pull ghcr.io/org/app@sha256:0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0",
    ];
    for text in negatives {
        assert_clean(text);
    }
}

#[test]
fn marker_is_never_a_finding_and_redaction_is_idempotent() {
    let text = format!(
        "token=ghp_{} and https://u:p4ss@h and AKIA{}",
        alnum(36),
        "QX7ZP2K9M4W8R3T6"
    );
    let once = redacted(&text);
    assert!(findings(&once).is_empty(), "{once}");
    assert_eq!(redacted(&once), once);
    assert!(!contains_secret(&once));
    assert!(contains_secret(&text));
}

#[test]
fn findings_are_sorted_and_disjoint() {
    let text = format!(
        "a=AKIA{} b=ghp_{} c=sk_live_{}",
        "QX7ZP2K9M4W8R3T6",
        alnum(36),
        alnum(24)
    );
    let found = findings(&text);
    assert_eq!(found.len(), 3);
    assert!(found.windows(2).all(|w| w[0].end <= w[1].start));
}

#[test]
fn clean_text_is_borrowed() {
    assert!(matches!(redact("cargo build --release"), Cow::Borrowed(_)));
}

fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        "[ -~\n]{0,12}",
        Just("ghp_".to_string()),
        Just("AKIA".to_string()),
        Just("sk-".to_string()),
        Just("eyJ".to_string()),
        Just("password=".to_string()),
        Just("token: ".to_string()),
        Just("://".to_string()),
        Just("@".to_string()),
        Just("Authorization: Bearer ".to_string()),
        Just("-----BEGIN RSA PRIVATE KEY-----".to_string()),
        Just("-----END RSA PRIVATE KEY-----".to_string()),
        Just("[REDACTED:".to_string()),
        Just("]".to_string()),
        Just(" curl -u ".to_string()),
        Just("\"auth\": \"".to_string()),
        Just("AccountKey=".to_string()),
        // Anchors whose validators read a structure: objects, blocks, commands.
        Just("{\"kty\":\"RSA\",\"d\":\"".to_string()),
        Just("}".to_string()),
        Just("encryptedData:\n  ".to_string()),
        Just("keys:\n  ".to_string()),
        Just("$ redis-cli AUTH ".to_string()),
        Just(" register ".to_string()),
        Just("\u{276f} ".to_string()),
        Just("accounts: [\"0x".to_string()),
        Just("Fernet(b'".to_string()),
        Just("?code=".to_string()),
        Just("<key>Secret</key>\n<string>".to_string()),
        Just("<p name=\"password\">".to_string()),
        Just("\"AUTH\" \"".to_string()),
        Just(" user u using ".to_string()),
        Just(" --user u:'".to_string()),
        Just("https://x.io/join/".to_string()),
        Just("    17\t".to_string()),
        "[A-Za-z0-9]{16,40}",
        "[a-zé€😀]{0,4}",
    ]
}

proptest! {
    #[test]
    fn redact_never_panics_and_is_idempotent(s in any::<String>()) {
        let once = redact(&s).into_owned();
        prop_assert!(findings(&once).is_empty(), "finding left in {:?}", once);
        let twice = redact(&once).into_owned();
        prop_assert_eq!(twice, once);
    }

    #[test]
    fn redact_is_idempotent_on_secret_shaped_soup(parts in prop::collection::vec(fragment(), 0..24)) {
        let s = parts.concat();
        let once = redact(&s).into_owned();
        prop_assert!(findings(&once).is_empty(), "finding left in {:?}", once);
        let twice = redact(&once).into_owned();
        prop_assert_eq!(twice, once);
    }
}

#[test]
fn degenerate_repetition_stays_linear() {
    // Each of these once rescanned the rest of the text at every anchor hit.
    for unit in [
        "password=",
        "token",
        "sk-a",
        "Authorization:",
        " -u ",
        "-----BEGIN RSA PRIVATE KEY-----",
        // Round 22's: an S-expression read to its close, a chat line's arrow, a link's query.
        "(private-key (rsa (d #",
        "(private-key (rsa (d #0123456789abcdef0123#) ",
        // One value found thousands of times: its repeats are looked for once.
        "password=Xq7mP2wL9zRt4vKb ",
        "[10:01] a: x -> ",
        "/magic?t=a&",
        // Round 4's anchors, each of which reads a line or the lines after it.
        "cat secret.key\n",
        "\" \"",
        " login ",
        "{\"type\": \"PrivKey\", \"value\": ",
        " https://h ",
        "\n> var.password",
        "Basic ",
        // Round 5's: call arguments read to the line's end, a TOTP line.
        "login(\"a\", ",
        "connect('",
        "totp JBSWY3DPEHPK3PXP ",
        "<Password>\n",
        " unlock ",
        "echo x | cryptsetup ",
        // Rounds 6 and 7's: a command's words, a line's prompt, a block below a key.
        "user ",
        "$ ejabberdctl register ",
        "\u{276f} mc admin user add ",
        "keys:\n",
        "encryptedData:\n",
        "\"AUTH\" \"",
        " user u using ",
        "?code=",
        "accounts: [\"0x",
        "echo 'x' | gpg --passphrase-fd 0 ",
        "<key>Secret</key>",
        "abandon ",
        // Round 8's: a generator's command, read to its line's end and the lines below.
        "kubectl get secret ",
        "$ pwgen\n",
        " op read ",
        ">>> secrets.token_hex(8)\n",
    ] {
        // Linear in the text, whatever the machine's speed or load: four
        // times the text takes about four times as long (a rescan at every
        // hit would take sixteen), with room for a noisy machine. The two
        // sizes are timed in turn and the best of each kept: other tests
        // share the cores, and slow both alike. A burst of load can still
        // land on one size only, so up to six rounds are timed until the
        // bests say linear; a rescan never does, however many rounds.
        let texts = [50_000, 200_000].map(|bytes| unit.repeat(bytes / unit.len()));
        let mut best = [std::time::Duration::MAX; 2];
        let linear = |[small, large]: [std::time::Duration; 2]| {
            large < small * 10 + std::time::Duration::from_millis(50)
        };
        for round in 0..6 {
            for (text, best) in texts.iter().zip(best.iter_mut()) {
                let t = std::time::Instant::now();
                let _ = redact(text);
                *best = (*best).min(t.elapsed());
            }
            if round >= 2 && linear(best) {
                break;
            }
        }
        let [small, large] = best;
        assert!(
            linear(best),
            "{unit:?}: 50 kB took {small:?}, 200 kB {large:?}"
        );
    }
}
