//! Unit tests for the redactor: one story per credential kind, the look-alikes it must
//! leave alone, and properties (no panic, no finding survives, idempotence).

use super::*;
use proptest::prelude::*;

/// Fake, well-shaped secret bodies built from pieces so no literal looks like a real token.
fn alnum(n: usize) -> String {
    const SET: &[u8] = b"aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY";
    (0..n)
        .map(|i| SET[(i * 7 + 3) % SET.len()] as char)
        .collect()
}

fn redacted(text: &str) -> String {
    redact(text).into_owned()
}

#[track_caller]
fn assert_redacts(text: &str, secret: &str, kind: &str) {
    let out = redacted(text);
    assert!(!out.contains(secret), "secret survived in {out:?}");
    let marker = format!("[REDACTED:{kind}]");
    assert!(out.contains(&marker), "no {marker} in {out:?}");
}

#[track_caller]
fn assert_clean(text: &str) {
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
        // sizes are timed in turn, three times, and the best of each kept:
        // other tests share the cores, and slow both alike.
        let texts = [50_000, 200_000].map(|bytes| unit.repeat(bytes / unit.len()));
        let mut best = [std::time::Duration::MAX; 2];
        for _ in 0..3 {
            for (text, best) in texts.iter().zip(best.iter_mut()) {
                let t = std::time::Instant::now();
                let _ = redact(text);
                *best = (*best).min(t.elapsed());
            }
        }
        let [small, large] = best;
        assert!(
            large < small * 10 + std::time::Duration::from_millis(50),
            "{unit:?}: 50 kB took {small:?}, 200 kB {large:?}"
        );
    }
}

#[test]
fn tokens_of_vendors_no_table_names_are_redacted_by_their_shape() {
    let body = alnum(40);
    for t in [
        format!("zqv_{body}"),
        format!("QZV_{body}"),
        format!("zq_live_{}", alnum(24)),
        format!("zq-sk-{}", "fe929014-abbd-4579-a40e-8e53a0e45984"),
        format!("zq.{}", alnum(44)),
        format!("zq_{}-{}_{}", alnum(12), alnum(14), alnum(12)),
    ] {
        let out = redacted(&format!("upstream refused {t} (401)"));
        assert!(!out.contains(&t), "{t} survived in {out:?}");
    }
}

#[test]
fn placeholders_references_and_public_ids_are_left_alone() {
    for text in [
        "set DB_PASSWORD=%DB_PASSWORD%",
        "GITHUB_TOKEN=ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
        "stripe.api_key = \"sk_live_0000000000000000000000000000\"",
        "DB_PASSWORD=op://Private/postgres/password",
        "password: vault:secret/data/app/db#password",
        "\"ARN\": \"arn:aws:secretsmanager:eu-west-1:123456789012:secret:ci/npm-token-AbCdEf\"",
        "api_token: ENC[AES256_GCM,data:aB3dE5fG7hJ9kL2m==,iv:N4pQ6rS8tU0vW1xY=,type:str]",
    ] {
        assert_clean(text);
    }
    assert_clean(&format!(
        "Paddle.Setup({{ token: 'pk_test_{}' }})",
        alnum(32)
    ));
    assert_clean(&format!("GET /v1/orgs/org_{} -> 404", alnum(28)));
    assert_clean(&format!(
        "vercel: project prj_{} has no deployments",
        alnum(28)
    ));
}

#[test]
fn a_comma_or_semicolon_inside_a_value_does_not_end_it() {
    let pw = "ab,=Cd3f;Gh";
    assert_redacts(
        &format!("ldapsearch -x -D cn=admin -w {pw} -b dc=corp"),
        pw,
        "password",
    );
    assert_redacts(&format!("7z a -p{pw} out.7z ./data"), pw, "password");
    // A list still splits at the separator before the next `name=`.
    let out = redacted("opts: user=admin,password=hunter2x,host=db1");
    assert!(out.contains(",host=db1"), "{out:?}");
    assert!(!out.contains("hunter2x"), "{out:?}");
}

#[test]
fn a_parenthesis_inside_a_random_value_is_not_a_call() {
    let key = "TD7y!RgIbIi!@c1kIJ_4LP^EbwxIQ)z7p9pgWUHCDjk^#TJFzV";
    assert_redacts(&format!("SECRET_KEY = '{key}'"), key, "secret");
    assert_clean("SECRET_KEY = get_random_secret_key()");
    assert_clean("password = (sensitive value)");
}

#[test]
fn a_generated_passphrase_counts_where_a_key_names_a_secret() {
    let phrase = "desert-pepper-harbor-4446";
    assert_redacts(&format!("DB_SESSION_SECRET='{phrase}'"), phrase, "secret");
    // The same shape with nothing naming a secret is a name.
    assert_clean("deploy -P release-build-candidate-12 --dry-run");
    assert_clean("SERVICE_NAME=api-gateway-prod-01");
}

#[test]
fn a_value_that_names_a_secret_refers_to_it() {
    assert_clean("password = os.environ[\"DB_PASSWORD\"]");
    assert_clean("  existingSecretPasswordKey: redis-password");
    assert_clean("  apiKey: process.env.STRIPE_SECRET_KEY,");
    assert_clean("password => $ENV{'DB_PASSWORD'},");
    assert_clean("postgres://user:password@localhost:5432/app");
    assert_clean("# fill these in from 1Password: Engineering > inventory");
    let key = "sk9Fh2Lq8Zx3Vb7Nm4Kp";
    assert_redacts(&format!("  apiKey: {key},"), key, "api-key");
    assert_redacts(
        "postgres://user:pa55word!@localhost:5432/app",
        "pa55word!",
        "url-password",
    );
}

#[test]
fn an_upper_case_fingerprint_after_key_is_public() {
    assert_clean("gpg:                using EDDSA key 7A667C158EAF2F0A4ADD7C9C0705A7EBC47CB291");
    let key = "7a667c158eaf2f0a4add7c9c0705a7ebc47cb291";
    assert_redacts(&format!("signing_key = {key}"), key, "key");
}

#[test]
fn a_dotted_token_with_a_random_body_is_not_a_code_reference() {
    let t = "hvs.JdoETHNeRHdJypFlsKJJhxnk";
    assert_redacts(
        &format!("$ VAULT_TOKEN='{t}' vault kv get secret/app"),
        t,
        "token",
    );
    assert_clean("token = config.authToken.value");
}

#[test]
fn basic_credentials_are_found_by_what_they_decode_to() {
    // base64 of `ops:V3lv3t9575+Winte`.
    let b64 = "b3BzOlYzbHYzdDk1NzUrV2ludGU=";
    assert_redacts(
        &format!("    proxy_set_header Authorization \"Basic {b64}\";"),
        b64,
        "auth-header",
    );
    assert_redacts(
        &format!("WARN upstream rejected header=\"Basic {b64}\""),
        b64,
        "auth-header",
    );
    // Base64 of prose with no `user:` in it is not a credential.
    assert_clean("the basic SGVsbG8gd29ybGQgYWdhaW4= sample");
}

#[test]
fn a_webhook_route_is_redacted_through_all_its_random_segments() {
    let (id, token) = (
        "Xk2b9QmZr4Lp7Wc3",
        "kLImNobMizpngtNnTF1HNs6FmaT5p1FgHhUPJqzwcFbQ3UyN",
    );
    let out = redacted(&format!(
        "curl -X POST https://chat.corp.example/hooks/{id}/{token}"
    ));
    assert!(!out.contains(id) && !out.contains(token), "{out:?}");
    let uuid = "88fc3a34-302e-4115-9410-208589748442";
    assert_redacts(
        &format!("HOOK: https://open.example.cn/open-apis/bot/v2/hook/{uuid}"),
        uuid,
        "webhook-token",
    );
    let hex = "c7668f1ddd602062ad1855e13c2b2035";
    let out = redacted(&format!(
        "POST https://events.example.com/integration/{hex}/enqueue"
    ));
    assert!(!out.contains(hex) && out.ends_with("/enqueue"), "{out:?}");
    let route = "t57umivtu5yqx1m48za6xqa5ti362kns";
    assert_redacts(
        &format!("curl -d @x 'https://hook.eu2.example.com/{route}'"),
        route,
        "webhook-token",
    );
    // A uuid after a word that is not a hook is a resource id.
    assert_clean("GET https://api.example.com/v1/orders/88fc3a34-302e-4115-9410-208589748442");
    assert_clean("https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX");
}

#[test]
fn a_password_flag_follows_a_user_flag_in_any_program() {
    let pw = "Otter-Nebula-Summit-80";
    assert_redacts(
        &format!("tsql -H db1 -p 1433 -U sa -P '{pw}'"),
        pw,
        "password",
    );
    let pw = "TZr,ncnR:fz=pL@_67";
    assert_redacts(
        &format!("mosquitto_pub -h mq -p 8883 -u webapp -P {pw} -t sensors/temp"),
        pw,
        "password",
    );
    // A port after a user flag is a port.
    assert_clean("psql -U app -p 5432 -h db1 shop");
}

#[test]
fn curl_cookies_and_quoted_passwords_are_redacted() {
    let sid = "krUL64WvkhKtjJrBdwra6IiIuM3srT0PtajNbWbKgN9JeX";
    assert_redacts(
        &format!("curl -b 'sessionid={sid}; theme=dark' https://admin.example/"),
        sid,
        "cookie",
    );
    assert_clean("curl -b 'theme=dark; lang=en' https://admin.example/");
    let pw = "Q@pVElFEC!#a7C";
    assert_redacts(
        &format!("curl -u analytics:'{pw}' https://nexus.example/"),
        pw,
        "password",
    );
    assert_redacts(
        "sshpass -p '/+!7y.$!@PmkwaYo7E*!R' ssh ci@host",
        "/+!7y.$!@PmkwaYo7E*!R",
        "password",
    );
    assert_clean("sshpass -p /etc/ssh/pass.txt ssh ci@host");
}

#[test]
fn tokens_with_a_uuid_body_and_short_secret_words_are_redacted() {
    for (text, secret) in [
        (
            "AXIOM_TOKEN=xaat-daaf3b46-02e4-4fb5-ab41-f97a8d4f827e",
            "daaf3b46-02e4-4fb5-ab41-f97a8d4f827e",
        ),
        (
            "ASANA_PAT=2/9436844415727170/7899715079037749:236609938c9d3e3c223ab4f9ae187602",
            "236609938c9d3e3c223ab4f9ae187602",
        ),
        (
            "export HUAWEICLOUD_SDK_SK=VTl8MkHwRU2vKdEsYAuqf9hHVBQqiDR1itC39SRA",
            "VTl8MkHwRU2vKdEsYAuqf9hHVBQqiDR1itC39SRA",
        ),
        (
            "ENV SMTP_BEARER=vLHWUd_Ryh6agMtGWD4Z4oVg_N85uUdsfaIAjxlf_ZM",
            "vLHWUd_Ryh6agMtGWD4Z4oVg_N85uUdsfaIAjxlf_ZM",
        ),
        (
            "wss://live.example.net/ws?ticket=aOJnwfHf3RPmpyGIkrGYJ6leAXS/APYPHpJ2B6+s",
            "aOJnwfHf3RPmpyGIkrGYJ6leAXS",
        ),
        (
            "  apiKey: pk_44384400_I93TGXO5NUAAKJ1D68HFAF6PPRXD9OGT",
            "I93TGXO5NUAAKJ1D68HFAF6PPRXD9OGT",
        ),
    ] {
        let out = redacted(text);
        assert!(!out.contains(secret), "{secret} survived in {out:?}");
    }
    // A name and one hash, a ticket number, a path, a publishable key: left alone.
    assert_clean(
        "  key: Linux-node-dc2005dacc2efc9fc6263e9c3c5d539c2e4042e3a0e88ff175d1e27da3573754",
    );
    assert_clean("ticket=JIRA-4412 opened");
    assert_clean("PATH_PAT=src/**/*.rs");
    assert_clean("STRIPE_PUBLISHABLE=pk_live_51Hx2kLmN8pQrStUvWxYz0aBcDeFgH");
}

#[test]
fn prompts_and_placeholders_are_not_secrets() {
    assert_clean("read -s -p 'Password: ' PASSWORD");
    assert_clean("-----BEGIN PRIVATE KEY-----\n<your private key here>\n-----END PRIVATE KEY-----");
    assert_clean("Token bucket rate limiter: capacity=100, refill_rate=10/s");
    assert_clean("  apiKey: process.env.STRIPE_SECRET_KEY!,");
    assert_clean("password_encryption = scram-sha-256");
}

#[test]
fn a_user_flag_of_any_program_gives_away_its_password() {
    for (text, pw) in [
        (
            "lftp -u frank,GalaxyIrisCosmic8211 sftp://10.1.2.3",
            "GalaxyIrisCosmic8211",
        ),
        (
            "lftp -u upload,Falcon!5139XAx sftp://files.example.com",
            "Falcon!5139XAx",
        ),
        ("ftp-sync --user ci:Summit.24x sftp://h", "Summit.24x"),
    ] {
        assert_redacts(text, pw, "password");
    }
    assert_clean("docker run -u 1000:1000 alpine id");
    assert_clean("docker run -u www-data:www-data nginx");
    assert_clean("redis-cli -u redis://db-1.example.lan:6379 ping");
    assert_clean("ps -u alice,bob -o pid,cmd");
}

#[test]
fn password_flags_read_their_whole_value_and_the_snmp_community() {
    for (text, pw) in [
        (
            "oc login -u bob -p Ab3,YopUSh:1 https://api.example:6443",
            "Ab3,YopUSh:1",
        ),
        ("mysql -u heidi -pXy7,Dln=YE9JdE8 -h db2", "Xy7,Dln=YE9JdE8"),
        (
            "snmpwalk -v2c -c qt06hl2C8CpcUVQ0_G-w 10.35.208.240 1.3.6.1.2.1.1",
            "qt06hl2C8CpcUVQ0_G-w",
        ),
        (
            "winrs -r:192.168.28.111 -u:deploy -p:6A@61O+rUa@qabUk@.x hostname",
            "6A@61O+rUa@qabUk@.x",
        ),
        (
            "schtasks /Create /TN Nightly /RU CORP\\app /RP MkOZoG-64Tc-badWP",
            "MkOZoG-64Tc-badWP",
        ),
    ] {
        assert_redacts(text, pw, "password");
    }
    // `-c` of any other program is a config or a command.
    assert_clean("bash -c 'echo done'");
    assert_clean("snmpwalk -v2c -c public 10.35.208.240 ifDescr");
}

#[test]
fn a_credential_piped_into_a_login_or_dev_stdin_is_redacted() {
    let pat = "tm5tmtp7pzn4yihdtg6rxkdzom4tuhpmnmavhg6hjyztdr3v6cl2";
    let out = redacted(&format!(
        "echo {pat} | az devops login --organization https://dev.azure.com/x"
    ));
    assert!(!out.contains(pat), "{out:?}");
    let key = "qCVBZPH4c3b3bip3CYe2C6vYFoS9yUmUBgsPZ3eA3WM=";
    let out = redacted(&format!(
        "echo {key} | sudo wg set wg1 private-key /dev/stdin"
    ));
    assert!(!out.contains(key), "{out:?}");
    assert_clean("echo hello | ssh-keygen -lf /dev/stdin");
    assert_clean("echo done | tee login.log");
}

#[test]
fn seeds_and_ci_logins_named_by_their_key_are_redacted() {
    let seed = "B2GY5GK2UJWNPQERAX2QHIR7PVOV3KCJ";
    assert_redacts(&format!("VPN_TOTP_SEED={seed}"), seed, "key");
    let tok = "OaFw5CLh6HVFbAo1f0k35W3_Qr5EuTX-GJ8-01Ag35g";
    assert_redacts(&format!("  SONAR_LOGIN: {tok}"), tok, "key");
    assert_clean("RANDOM_SEED=42");
    assert_clean("  DB_LOGIN: reporting_user");
    assert_clean("seed_nodes: node1.example.com, node2.example.com");
}

#[test]
fn the_lines_of_a_secrets_file_printed_by_cat_are_redacted() {
    let text = "$ sudo cat /etc/ppp/chap-secrets\n# client\tserver\tsecret\tIP\nmonitor\t*\t\"Pepper2349@Maple\"\t*\n$ pppd call isp";
    let out = redacted(text);
    assert!(!out.contains("Pepper2349@Maple"), "{out:?}");
    assert!(
        out.contains("monitor\t*") && out.ends_with("$ pppd call isp"),
        "{out:?}"
    );
    let out = redacted("$ cat config/master.key\nb35d5d3d0f10cca49394a6704a2553d5\n$ bin/rails c");
    assert!(!out.contains("b35d5d3d0f10cca49394a6704a2553d5"), "{out:?}");
    // The same lines from a file whose name says nothing, or says public, stay.
    assert_clean("$ cat notes.txt\nmonitor\t*\t\"Pepper2349@Maple\"\t*");
    assert_clean(
        "$ cat ~/.ssh/id_ed25519.pub\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHk2b9QmZr4Lp7Wc3 ci@build7",
    );
    assert_clean(
        "$ tail -n 2 /var/log/auth.log\nsshd[4121]: Accepted publickey for deploy7 from 10.0.0.7",
    );
}

#[test]
fn the_arguments_of_a_login_sub_command_are_credentials_when_machine_made() {
    for (text, secret) in [
        (
            "wandb login d4e61d71d57cd980e0526f2a101f7cca89e84cf3",
            "d4e61d71d57cd980e0526f2a101f7cca89e84cf3",
        ),
        (
            "snyk auth b4d99e5b-ea59-4e8c-8d6a-d294f36aa70a",
            "b4d99e5b-ea59-4e8c-8d6a-d294f36aa70a",
        ),
        (
            "b2 account authorize 00d1eceb998115f8de0000000001 K00144S9gtvOvV2ynsPPokHJI2R2FEl",
            "K00144S9gtvOvV2ynsPPokHJI2R2FEl",
        ),
        (
            "bw login deploy@stark.example 'aa21d78868f1eda8370d8d4e' --raw",
            "aa21d78868f1eda8370d8d4e",
        ),
    ] {
        let out = redacted(text);
        assert!(!out.contains(secret), "{secret} survived in {out:?}");
    }
    assert_clean("docker login 123456789012.dkr.ecr.us-east-1.amazonaws.com");
    assert_clean("gcloud auth login deploy@example.com --no-launch-browser");
    assert_clean("az login --tenant 88fc3a34-302e-4115-9410-208589748442");
    assert_clean("gh auth login --hostname github.example.com");
}

#[test]
fn a_json_value_whose_sibling_type_names_a_private_key_is_key_material() {
    let v =
        "Zr5w9QG/R3dABORP46dTLk+5f+9+9zgpwXjCB8M6bqeIdRw5D8Sg7LyDfyyXfPkik+OCBiqz0xGqUISr5XMFtA==";
    assert_redacts(
        &format!(r#"{{"priv_key": {{"type": "tendermint/PrivKeyEd25519", "value": "{v}"}}}}"#),
        v,
        "private-key",
    );
    let v = "JsviAD1cYvFBewxww5NEOYZVM9lNDC0nTwbY/YZxJG8=";
    assert_redacts(
        &format!(
            r#"{{"keyData": {{"typeUrl": "type.googleapis.com/google.crypto.tink.AesGcmKey", "value": "{v}"}}}}"#
        ),
        v,
        "private-key",
    );
    // A public key's type, or a type that names no key, leaves the value alone.
    assert_clean(&format!(
        r#"{{"pub_key": {{"type": "tendermint/PubKeyEd25519", "value": "{v}"}}}}"#
    ));
    assert_clean(&format!(r#"{{"type": "cosmos-sdk/Coin", "value": "{v}"}}"#));
}

#[test]
fn credentials_after_an_endpoint_url_and_dsn_users_with_dashes_are_redacted() {
    let (ak, sk) = (
        "J8C4R09V3WP9BYRSPTH8",
        "vZaFjYtGtQbHic5J3rEFPPKDmhY1sgUQMIpIJFRc",
    );
    let out = redacted(&format!(
        "mc alias set prod https://s3.internal:9000 {ak} {sk}"
    ));
    assert!(!out.contains(ak) && !out.contains(sk), "{out:?}");
    let pw = "t8yNKL.mBfwVB";
    assert_redacts(
        &format!("mc alias set minio https://minio.example.internal:9000 webapp {pw}"),
        pw,
        "password",
    );
    assert_clean("git clone https://github.com/acme/app.git app-checkout");
    assert_clean("wget https://example.com/a.tar.gz https://example.com/b.tar.gz");
    let pw = "JCJ-vNq2_qpx8l6Z47-v";
    assert_redacts(
        &format!("  ORACLE_CONN: svc-billing/{pw}@ora-3.example.lan:1521/XEPDB1"),
        pw,
        "password",
    );
    let uuid = "88985c66-b347-44be-a9ef-987300929ed6";
    assert_redacts(
        &format!("./uploader -t {uuid} -f coverage.xml"),
        uuid,
        "password",
    );
    assert_clean("docker build -t acme/app:2024-06 .");
}

#[test]
fn the_value_printed_for_a_name_that_says_secret_is_redacted() {
    let pw = "Zephyr.Nebula.Purple.93";
    assert_redacts(
        &format!("$ terraform console\n> var.admin_password\n\"{pw}\"\n> exit"),
        pw,
        "password",
    );
    let tok = "g7Hk2LmQ9xZ4";
    assert_redacts(
        &format!("$ echo $API_TOKEN\n{tok}\n$ make"),
        tok,
        "password",
    );
    assert_clean("$ echo $HOME\n/home/ci\n$ make");
    assert_clean("> var.region\n\"eu-west-1\"");
}

#[test]
fn a_quoted_name_and_quoted_secret_alone_on_a_line_are_a_credential() {
    let pw = "2fHAda1cosVfZXXyAypXkaF4CRop";
    assert_redacts(
        &format!("userlist.txt:\n\"app\" \"{pw}\"\nFATAL: password authentication failed"),
        pw,
        "password",
    );
    assert_clean("\"en\" \"English\"\n\"de\" \"Deutsch\"");
    assert_clean("printf(\"%s\" \"\\n\", name);");
}

#[test]
fn a_long_random_here_string_and_an_encrypted_maven_password_are_redacted() {
    let tok = "1fC7Rj4ADIBdZ2SDqw8pdeWzXrTTK8NhoBMACkZ5e6zKx7YUVlhBGLxwXel7VoFW";
    assert_redacts(
        &format!("hcloud context create prod <<< {tok}"),
        tok,
        "token",
    );
    assert_clean("bc <<< \"2+2\"");
    assert_clean("base64 -d <<< aGVsbG8gd29ybGQ=");
    let enc = "{RoHaDyvhDV0t00bFl3gYOqASkxD4F41ob2PjA1AyaJI=}";
    assert_redacts(
        &format!("<server><id>nexus</id><password>{enc}</password></server>"),
        "RoHaDyvhDV0t00bFl3gYOqASkxD4F41ob2PjA1AyaJI=",
        "password",
    );
    assert_clean("<password>{{ vault_nexus_password }}</password>");
    assert_clean("password: {password}");
}

#[test]
fn the_answer_a_script_sends_to_a_password_prompt_is_redacted() {
    let pw = "g!rfkvOhH92RAyH,d8dQ";
    assert_redacts(
        &format!(
            "expect -c 'spawn ssh ci@10.0.0.7; expect \"password:\"; send \"{pw}\\r\"; interact'"
        ),
        pw,
        "password",
    );
    assert_redacts(
        "child.expect('Password: '); child.sendline('Violet-Velvet-Umber-16')",
        "Violet-Velvet-Umber-16",
        "password",
    );
    // A prompt with no answer sent is only a prompt.
    assert_clean("read -s -p 'Password: ' PASSWORD");
    assert_clean("expect \"password:\"; send \"$env(PW)\\r\"");
}

#[test]
fn a_key_in_a_printed_secrets_file_keeps_its_own_marker() {
    let pw = "hY7kL2mQ9xZ4";
    assert_redacts(
        &format!("cat > ~/.netrc <<'EOF'\nmachine api.example.com login deploy password {pw}\nEOF"),
        pw,
        "password",
    );
    let b64 = "aB3dE5fG7hJ9kL2mN4pQ6r==";
    let out = redacted(&format!("$ cat secret.yaml\ndata:\n  password: {b64}\n"));
    assert!(out.contains("password: [REDACTED:password]\n"), "{out:?}");
}

#[test]
fn obvious_stand_ins_are_not_secrets() {
    for text in [
        "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
        "SMTP_PASSWORD: \"ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"",
        "redis_password = \"@@PASSWORD@@\"",
        "password: ((db_password))",
        "password=\"${DB_PASSWORD:-changeme}\"",
        "password=12345678",
        "token=0123456789abcdefghij",
        "LoadCredential=db-password:/etc/credstore/db-password",
        "PASSWORD=@/run/secrets/db_password",
        "password: k8s-secret://prod/db/password",
        "password: ENC(G6N718UuyPE5bHyWKyuLQSm02auQPUtm)",
        "password = `cat /etc/secret/pass`",
        "ansible_become_password: \"{{ lookup('hashi_vault', 'secret=secret/data/linux:become') }}\"",
        "export DB_PASSWORD=\"$(cat /run/secrets/db_password)\"\nexport API_TOKEN=\"$(vault kv get -field=token secret/ci/api)\"\n",
        "{\"name\": \"DB_PASSWORD\", \"valueFrom\": \"arn:aws:ssm:us-east-1:1:parameter/prod/db/password\"}",
    ] {
        assert_clean(text);
    }
    for text in [
        "amqp://guest:guest@localhost:5672/",
        "postgresql://postgres:postgres@localhost/db",
        "curl -u admin:admin http://localhost:8080",
        "Authorization: Basic dXNlcm5hbWU6cGFzc3dvcmQ=",
        "API_KEY=abc123xyz",
        "password=Password1!",
        "password: \"foobar\"",
    ] {
        assert_clean(text);
    }
    // A password found once is redacted again only as a whole word.
    assert_eq!(
        redacted("postgres://app:postgres1x@db/app and postgres1x"),
        "postgres://app:[REDACTED:url-password]@db/app and [REDACTED:url-password]"
    );
    // A real default after `:-` is still a password.
    assert!(contains_secret("password=\"${DB_PASSWORD:-Tr0ub4dor&3x}\""));
    assert!(contains_secret(
        "spring.datasource.password=${DB_PASS:Harbor*5512kQz}"
    ));
    assert_clean("secret: \"${SECRET_KEY:?must be set}\"");
    assert_clean("{\"kvs\":[{\"key\":\"L3JlZ2lzdHJ5L3NlY3JldHMvZGVmYXVsdC9hcGk=\"}]}");
}

#[test]
fn keys_vendors_publish_are_not_secrets() {
    let hex = "4f9a8c2e1b7d6a3f5e0c9b8a7d6e5f41";
    for text in [
        "posthog.init('phc_Zq9X2mK7pL4vN8bR3tY6wE1uI5oA0sD2fG4hJ7kL9')".to_string(),
        format!("clientToken: 'pub{hex}'"),
        "SUPABASE_KEY=sb_publishable_k3J9xQ2mZ7vL4pN8rT1wY6bC5dF0gH2j".to_string(),
        "RECAPTCHA_SITE_KEY=6LcX9mQ2AAAAAK7pL4vN8bR3tY6wE1uI5oA0sD2f".to_string(),
        // {"role":"anon"} in the payload.
        "SUPABASE_ANON_KEY=eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoiYW5vbiJ9.abcdefghijklmnopqrstuvwxyz012345"
            .to_string(),
        "firebaseConfig = { apiKey: \"AIzaSyD3kX9mQ2vL7pN4rT8wY1bC6dF0gH5jK2l\", authDomain: \"a.firebaseapp.com\" }"
            .to_string(),
    ] {
        assert_clean(&text);
    }
    // The same shapes with a secret's marker stay secrets.
    // Sentry's DSN key is documented as public, but the known corpus counts a DSN as a
    // credential (it lets anyone send events); it stays redacted.
    assert!(contains_secret(&format!(
        "SENTRY_DSN=https://{hex}@o482913.ingest.us.sentry.io/4507123456"
    )));
    assert!(contains_secret(
        "GEMINI_API_KEY=AIzaSyD3kX9mQ2vL7pN4rT8wY1bC6dF0gH5jK2l"
    ));
    // {"role":"service_role"}.
    assert!(contains_secret(
        "eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoic2VydmljZV9yb2xlIn0.abcdefghijklmnopqrstuvwxyz012345"
    ));
}

#[test]
fn credentials_by_call_declaration_and_prompt_are_redacted() {
    for (text, secret) in [
        (
            "$db = new PDO('pgsql:host=db;dbname=x', 'svc', 'Zq7*pLm29Xv');",
            "Zq7*pLm29Xv",
        ),
        (
            "server.login(\"ops@acme.test\", \"Kp2!vN8zQw\")",
            "Kp2!vN8zQw",
        ),
        (
            "oathtool --totp -b JBSWY3DPEHPK3PXPQ4ZT7LMN",
            "JBSWY3DPEHPK3PXPQ4ZT7LMN",
        ),
        (
            "public const string ServiceToken = \"k8Tq2Zp9Lm4Xv7Rw3Yn6Bc1Hd5Jf0Gs2\";",
            "k8Tq2Zp9Lm4Xv7Rw3Yn6Bc1Hd5Jf0Gs2",
        ),
        (
            "<AdminPassword>\n  <Value>Qv7#kL2mZp</Value>\n</AdminPassword>",
            "Qv7#kL2mZp",
        ),
        ("expect \"password:\"\nsend \"Rk4$vT9wLq\\r\"", "Rk4$vT9wLq"),
        (
            "variable \"admin_password\" {\n  default = \"Hx8!qZ2pVm\"\n}",
            "Hx8!qZ2pVm",
        ),
        (
            "'passwordsalt' => 'Ro5t0vTyepFj6lbAID5JE4lV5q',",
            "Ro5t0vTyepFj6lbAID5JE4lV5q",
        ),
        (
            "LOGZIO_TOKEN=nstqcghjrnlwnjzplxqxqjwbmkml",
            "nstqcghjrnlwnjzplxqxqjwbmkml",
        ),
    ] {
        let out = redacted(text);
        assert!(!out.contains(secret), "{secret} survived in {out:?}");
    }
    for text in [
        "conn = psycopg2.connect(\"dbname=test user=postgres\")",
        "app.bind(\"0.0.0.0\", \"8080\")",
        "ldap.bind(\"cn=admin,dc=example,dc=org\", \"ldaps://ldap.example.org\")",
        "login(\"alice\", \"Alice Smith\")",
        "TOTP is computed from HMAC-SHA1 as defined in RFC6238",
    ] {
        assert_clean(text);
    }
}

#[test]
fn printed_pre_shared_keys_and_stored_tokens_are_redacted() {
    let psk = "7f3a9c1e5b2d8f4a6c0e9b1d3f5a7c2e4b6d8f0a1c3e5b7d9f2a4c6e8b0d1f3a";
    let out = redacted(&format!("$ cat /etc/wg/peer.psk\n{psk}\n$ ls"));
    assert!(!out.contains(psk), "{out:?}");
    let tok = "Qm7xK2pV9zL4wN8rT3yB6cD1fG5hJ0sA2eU4iO7";
    let out = redacted(&format!(
        "> sessionStorage.getItem(\"refresh_token\")\n'{tok}'\n"
    ));
    assert!(!out.contains(tok), "{out:?}");
}

#[test]
fn vault_unlocks_and_luks_passphrases_are_redacted() {
    for (text, secret) in [
        (
            "export BW_SESSION=\"$(bw unlock 'Tz8#qLm2Vx9' --raw)\"",
            "Tz8#qLm2Vx9",
        ),
        (
            "echo -n 'Hq4~pZ7wKm2R' | cryptsetup luksOpen /dev/sdc1 data -d -",
            "Hq4~pZ7wKm2R",
        ),
    ] {
        let out = redacted(text);
        assert!(!out.contains(secret), "{secret} survived in {out:?}");
    }
    assert_clean("cryptsetup luksOpen /dev/sdc1 data");
}
