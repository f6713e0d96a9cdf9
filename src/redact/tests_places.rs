//! Round 12, recall: places a secret sits that no rule read before (an element named by
//! its attribute, a CSV column in snake case or another script, a web server's header
//! directive, a cipher's constructor, protocol and dump markers) and names of secrets
//! in more languages.

use super::tests::{alnum, assert_redacts};

#[test]
fn an_element_named_by_its_attribute_holds_its_value() {
    let v = alnum(32);
    assert_redacts(
        &format!("    <string name=\"shop_client_secret\" translatable=\"false\">{v}</string>"),
        &v,
        "secret",
    );
    assert_redacts(
        &format!("    <Data Name=\"BillingApiKey\">{v}</Data>"),
        &v,
        "api-key",
    );
    assert_redacts(
        &format!("<add key=\"Backend:AccessToken\" value=\"{v}\" />"),
        &v,
        "token",
    );
}

#[test]
fn a_csv_column_named_in_snake_case_or_another_script() {
    let v = alnum(36);
    for header in ["ld_sdk_key", "ключ_api"] {
        let text =
            format!("$ head -2 exports/keys.csv\nenv,provider,{header},owner\nprod,acme,{v},ops");
        assert_redacts(&text, &v, "key");
    }
}

#[test]
fn names_of_secrets_in_more_languages_and_cases() {
    let v = alnum(30);
    for (text, kind) in [
        (format!("  ZUGANGSSCHLÜSSEL: \"{v}\""), "key"),
        (format!("  jeton_d_accès: {v}"), "token"),
        (format!("HASŁO = \"{v}\""), "password"),
        (
            format!("retrying with токен_доступу={v} after 429"),
            "token",
        ),
        (format!("  onyx_gizli_anahtar: \"{v}\""), "key"),
        (format!("  kataSandi: \"{v}\""), "password"),
        (format!("    mật_khẩu => '{v}',"), "password"),
        (format!("  كلمة_المرور: '{v}',"), "password"),
        (format!("  ('core', 'κωδικός', '{v}', now())"), "password"),
    ] {
        assert_redacts(&text, &v, kind);
    }
}

#[test]
fn a_header_set_by_a_web_servers_directive() {
    let v = "77fe5ef7-2301-4707-becc-fe3b589dfd01";
    assert_redacts(
        &format!("    proxy_set_header Authorization \"token {v}\";"),
        v,
        "auth-header",
    );
    assert_redacts(
        &format!("RequestHeader set Authorization \"Bearer {v}\""),
        v,
        "auth-header",
    );
}

#[test]
fn a_ciphers_key_protocol_markers_and_dollar_tokens() {
    let hex = "8e74c7ec27d8815fcc32bdffe3a90d11";
    assert_redacts(
        &format!("new SecretKeySpec(HexFormat.of().parseHex(\"{hex}\"), \"AES\");"),
        hex,
        "token",
    );
    assert_redacts(
        &format!("mac = hmac.new(b\"{hex}\", msg, hashlib.sha256)"),
        hex,
        "token",
    );
    let key = format!("{hex}{hex}");
    assert_redacts(
        &format!("CORP\\svc_web:aes256-cts-hmac-sha1-96:{key}"),
        &key,
        "kerberos-key",
    );
    // `\0ops@example.test\0Hunter-2-Staple`
    assert_redacts(
        "AUTH PLAIN AG9wc0BleGFtcGxlLnRlc3QASHVudGVyLTItU3RhcGxl\n235 2.7.0 ok",
        "AG9wc0BleGFtcGxl",
        "password",
    );
    let body = alnum(90);
    assert_redacts(
        &format!("  - name: PAYMENTS_API_KEY\n    value: \"$aact_prod_000{body}\""),
        &body,
        "api-key",
    );
}

#[test]
fn an_argument_list_is_read_as_its_command_line() {
    let pw = "Wq7-Lm2pZx9Kd4";
    for text in [
        format!(
            "type=EXECVE msg=audit(1747194959.736:86): argc=4 a0=\"snmpwalk\" a1=\"-c\" a2=\"{pw}\" a3=\"10.0.0.7\""
        ),
        format!(
            "      containers:\n        - name: fetch\n          command: [\"curl\"]\n          args:\n            - \"--proxy-user\"\n            - \"crawler:{pw}\"\n            - \"https://example.test/\""
        ),
        format!(
            "{{\n  \"program\": \"${{workspaceFolder}}/bin/neo4j-admin\",\n  \"args\": [\n    \"dbms\",\n    \"set-initial-password\",\n    \"{pw}.\"\n  ]\n}}"
        ),
        format!("CMD [\"mysql\", \"-u\", \"app\", \"--password={pw}\"]"),
        format!(
            "execve(\"/usr/bin/sshpass\", [\"sshpass\", \"-p\", \"{pw}\", \"ssh\", \"db1\"], 0x7ffd /* 20 vars */) = 0"
        ),
    ] {
        assert_redacts(&text, pw, "password");
    }
    // Options are not a chosen value, nor are ordinary arguments.
    super::tests::assert_clean(
        "type=EXECVE msg=audit(1.2:3): argc=5 a0=\"qemu-system-x86_64\" a1=\"-object\" a2=\"secret,id=sec0,file=/run/k\" a3=\"-drive\" a4=\"file=disk.luks,encrypt.format=luks,encrypt.key-secret=sec0\"",
    );
    super::tests::assert_clean(
        "      command: [\"python\"]\n      args:\n        - \"-m\"\n        - \"http.server\"\n        - \"8080\"",
    );
}

#[test]
fn a_prompts_answer_a_password_files_line_a_keys_bytes() {
    let pw = "hana.Pm1N9QwTDk%13";
    assert_redacts(
        &format!(
            "19 19 * * * expect -c 'spawn ssh u@db; expect \"assword:\"; send \"{pw}\\r\"; interact'"
        ),
        pw,
        "password",
    );
    super::tests::assert_clean("expect \"login:\"; send \"deploy\\r\"");
    assert_redacts(&format!("drush user:password admin {pw}"), pw, "password");
    let line = alnum(32);
    assert_redacts(
        &format!("$ cat ~/.vault_pass.txt\n{line}\n$ ansible-playbook site.yml"),
        &line,
        "secret",
    );
    let k = "a-hn9uece_miKeBw8s0aP6Ls0k0MDRvN1nwRTZ-L01";
    assert_redacts(
        &format!("JWK = {{'kty': 'oct', 'kid': 'hmac-1', 'k': '{k}'}}"),
        k,
        "private-key",
    );
    let bytes: String = (0..24)
        .map(|i| format!("\\x{:02x}", (i * 37 + 11) % 256))
        .collect();
    assert_redacts(
        &format!("    SECRET_KEY = b'{bytes}'\n"),
        &bytes[..16],
        "secret",
    );
}

#[test]
fn a_camel_case_pat_is_a_personal_access_token() {
    let v = "jaqx25br3rsv6gwhbgveyetjg33dtkh4fyol3jegkb2t3vmg5p6v";
    assert_redacts(&format!("  \"azureDevopsExtPat\": \"{v}\","), v, "key");
    assert_redacts(&format!("  githubPat: {v}"), v, "key");
    super::tests::assert_clean("  \"pattern\": \"^[a-z0-9]+$\", \"Pat\": \"Smith\"");
}
