//! Unit tests for the redactor, continued: shapes no vendor table names,
//! placeholders and references, values with separators inside, prompts,
//! and the cases each later rule was written for.

use super::tests::{alnum, assert_clean, assert_redacts, redacted};
use super::*;

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
    // Sentry's DSN key is documented as public (every browser that reports sends it);
    // its legacy `public:secret@` form carries a secret, which goes.
    assert_clean(&format!(
        "SENTRY_DSN=https://{hex}@o482913.ingest.us.sentry.io/4507123456"
    ));
    let legacy = "SENTRY_DSN=https://9079c0dcb2066678c0a5b974eb4158ef:01bee2f73818a39ecf4a6eceb83caaef@sentry.io/14";
    assert_redacts(legacy, "01bee2f73818a39ecf4a6eceb83caaef", "url-password");
    // The same shapes with a secret's marker stay secrets.
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
