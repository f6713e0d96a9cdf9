//! Round 16: names of secrets romanised or glued to a prefix (`DBKENNWORT`,
//! `pasfhocal`), another script's name in a block's default, a one-item sequence
//! under a key, a literal a template assigns, a wiki's monospace header, T-SQL's sized
//! variable, a quoted UUID token in Erlang and EDN, more generators and getters, a key
//! as Rust bytes, an OpenVPN `tls-crypt-v2` key; and, kept as they are, an image's
//! path, a secret manager's reference, a URL's `${USER:-app}`, a variable's name, an
//! elided key or token, a keychain item, Tailscale's public keys, a switch that turns
//! the password off, a device's default login, an escaped public key type and a test
//! seed counted up.

use super::tests::{alnum, assert_clean, redacted};

#[track_caller]
fn assert_gone(text: &str, secret: &str) {
    let out = redacted(text);
    assert!(!out.contains(secret), "secret survived in {out:?}");
}

#[test]
fn romanised_and_glued_names_of_a_password_are_keys() {
    let v = format!("{}+{}", alnum(14), alnum(5));
    assert_gone(&format!("<Property Id=\"DBKENNWORT\" Value=\"{v}\" />"), &v);
    assert_gone(&format!("extra[\"pasfhocal\"] = \"{v}\""), &v);
    assert_gone(
        &format!("<dict>\n\t<key>pasuwado</key>\n\t<string>{v}</string>\n</dict>"),
        &v,
    );
    assert_gone(&format!("local cfg = {{ bimilbeonho = \"{v}\" }}"), &v);
    assert_gone(&format!("$कूटशब्द = '{v}';"), &v);
    assert_gone(
        &format!("variable \"รหัสผ่าน\" {{\n  type    = string\n  default = \"{v}\"\n}}\n"),
        &v,
    );
    // A short name is found only whole: an enclave is no `clave`.
    assert_clean(&format!("enclave = \"{}\"", alnum(20)));
}

#[test]
fn a_sequence_of_one_item_under_a_key_is_its_value() {
    let v = alnum(32);
    assert_gone(
        &format!("MonoBehaviour:\n  secretKey:\n  - {v}\n  build:\n  - 1.8.0\n"),
        &v,
    );
    // A sequence of mappings is a list of records, not the key's value.
    assert_clean("tokens:\n  - name: ci\n    scopes: read\n");
}

#[test]
fn a_templates_literal_and_a_wikis_monospace_are_values() {
    let v = format!("{}/{}=", alnum(20), alnum(10));
    assert_gone(&format!("{{{{ $bind_password := \"{v}\" }}}}"), &v);
    let t = format!("cu_{}", alnum(32));
    assert_gone(
        &format!("# call with header {{{{Authorization: Bearer {t}}}}}\n"),
        &t,
    );
    assert_clean("password: {{ lookup('env', 'DB_PASSWORD') }}\n");
}

#[test]
fn a_sql_variable_of_a_sized_type_is_given_its_literal() {
    let v = alnum(19);
    let text = format!(
        "DECLARE @db_password NVARCHAR(128) = N'{v}';\nEXEC sp_addlinkedsrvlogin @rmtuser = N'link', @rmtpassword = @db_password;\n"
    );
    let out = redacted(&text);
    assert!(!out.contains(&v), "{out}");
    // The variable's name is no value: the declaration keeps it.
    assert!(out.contains("DECLARE @db_password NVARCHAR(128)"), "{out}");
    assert!(out.contains("@rmtpassword = @db_password"), "{out}");
}

#[test]
fn a_quoted_uuid_a_token_key_is_given_is_a_token() {
    let u = "6f1c2a9e-4b7d-4e21-9c3a-8d5e0f7a1b2c";
    assert_gone(&format!(" {{wise, [{{api_key, <<\"{u}\">>}}]}}"), u);
    assert_gone(&format!(" :api-key \"{u}\"\n :retries 3"), u);
    assert_clean(&format!("client_id = \"{u}\""));
}

#[test]
fn generators_and_getters_print_a_secret() {
    let cases = [
        (
            "$ python -c 'from django.core.management.utils import get_random_secret_key; print(get_random_secret_key())'\n",
            format!("{}!x_{}^%*", alnum(20), alnum(12)),
        ),
        (
            "$ keepassxc-cli generate -L 32 -l -U -n -s\n",
            format!(":+{}{{#({}|=", alnum(12), alnum(10)),
        ),
        (
            "$ op item get \"Grafana admin\" --vault Infra --fields label=password --reveal\n",
            format!("{}14&", alnum(18)),
        ),
        (
            "$ doppler secrets get SESSION_SIGNING_KEY --plain -p web -c prd\n",
            alnum(48),
        ),
        ("$ argocd admin initial-password -n argocd\n", alnum(16)),
    ];
    for (command, v) in cases {
        assert_gone(&format!("{command}{v}\n"), &v);
    }
    let v = format!("{}+{}_7", alnum(8), alnum(8));
    assert_gone(
        &format!(
            "$ bin/elasticsearch-reset-password -u elastic -b\nPassword for the [elastic] user successfully reset.\nNew value: {v}\n"
        ),
        &v,
    );
    let phrase = "orbit candle maple thunder quartz ribbon";
    assert_gone(&format!("$ diceware -n 6 -d ' '\n{phrase}\n"), phrase);
    assert_clean("$ diceware --help\nusage: diceware [-h] [-n NUM] [-c | --no-caps]\n");
}

#[test]
fn a_key_written_as_rust_bytes_is_redacted() {
    let bytes = "29, 67, 96, 17, 158, 68, 27, 32, 156, 252, 81, 120, 92, 122, 170, 243, 168, 205";
    let out = redacted(&format!("pub const COOKIE_KEY: [u8; 18] = [{bytes}];\n"));
    assert!(!out.contains("158, 68, 27"), "{out}");
}

#[test]
fn an_openvpn_tls_crypt_v2_key_is_redacted() {
    let body = format!("{}\n{}\n", alnum(64), alnum(40));
    let text = format!(
        "<tls-crypt-v2>\n-----BEGIN OpenVPN tls-crypt-v2 client key-----\n{body}-----END OpenVPN tls-crypt-v2 client key-----\n</tls-crypt-v2>\n"
    );
    assert_gone(&text, &alnum(64));
}

#[test]
fn references_names_and_elided_values_are_kept() {
    for text in [
        "$ cosign verify --key cosign.pub ghcr.io/acme/api:1.1.0 | jq -r '.[0].critical.image[\"docker-manifest-digest\"]'\n",
        "gcloud run deploy api --image europe-docker.pkg.dev/acme/app/api:1.9.0 \\\n  --set-secrets=DB_PASSWORD=db-password:latest,STRIPE_KEY=stripe-key:3\n",
        "      DATABASE_URL: postgres://${POSTGRES_USER:-app}:${POSTGRES_PASSWORD}@db:5432/app\n",
        "usernamePassword(credentialsId: 'nexus', usernameVariable: 'NX_USER', passwordVariable: 'NX_PASS')\n",
        "    client-certificate-data: DATA+OMITTED\n    client-key-data: DATA+OMITTED\n",
        "```\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC...\n...\n-----END PRIVATE KEY-----\n```\n",
        "    Authorization: Bearer eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.<payload>.<signature>\n",
        "FASTLANE_PASSWORD_KEYCHAIN_ITEM=fastlane_apple_id\n",
        "  \"MachineKey\": \"mkey:bbb523e2aadf9eaed26979f3043a7af2b6a00d7980fdd1e7b0d78704cf8c41e5\"\n",
        "  --insecure-no-password Allow repositories without a password (not recommended).\n",
        "  Username:  admin\n  Password:  admin\n",
        "{\"pubkey\":\"{\\\"@type\\\":\\\"/cosmos.crypto.secp256k1.PubKey\\\",\\\"key\\\":\\\"A2Pmrbgty6kAnlKWVfiwz1y8Zmy3rvoLzo6zN6D98mzW\\\"}\"}\n",
        "SEED = b\"12345678901234567890\"\n",
    ] {
        assert_clean(text);
    }
}
