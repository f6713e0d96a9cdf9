//! Round 16: names of secrets romanised or glued to a prefix (`DBKENNWORT`,
//! `pasfhocal`), another script's name in a block's default, a one-item sequence
//! under a key, a literal a template assigns, a wiki's monospace header, T-SQL's sized
//! variable, a quoted UUID token in Erlang and EDN, more generators and getters, a key
//! as Rust bytes, an OpenVPN `tls-crypt-v2` key; and, kept as they are, an image's
//! path, a secret manager's reference, a URL's `${USER:-app}`, a variable's name, an
//! elided key or token, a keychain item, Tailscale's public keys, a switch that turns
//! the password off, a device's default login, an escaped public key type and a test
//! seed counted up.

use super::tests::{alnum, assert_clean, assert_gone, redacted};

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

#[test]
fn protocol_transcripts_give_their_passwords_away() {
    // SMTP's AUTH LOGIN: the line after the server's `334 UGFzc3dvcmQ6` ("Password:").
    let pw = "aHVudGVyMi1zdGFwbGUtOTk=";
    assert_gone(
        &format!("S: 334 UGFzc3dvcmQ6\r\nC: {pw}\r\nS: 235 ok\r\n"),
        pw,
    );
    // Redis' AUTH on the wire: the command's last bulk string.
    let v = format!("{}&", alnum(20));
    assert_gone(
        &format!(
            "*3\r\n$4\r\nAUTH\r\n$7\r\ndefault\r\n${}\r\n{v}\r\n*1\r\n$4\r\nPING\r\n",
            v.len()
        ),
        &v,
    );
    // XMPP's SASL PLAIN: `\0user\0password` in base64.
    let plain = "AGpvYW8AYW5jaG9yLndpbGxvdy5vcmNoaWQuOTgxNQ==";
    assert_gone(
        &format!(
            "<auth xmlns=\"urn:ietf:params:xml:ns:xmpp-sasl\" mechanism=\"PLAIN\">{plain}</auth>"
        ),
        plain,
    );
}

#[test]
fn a_urls_fragment_key_and_an_authenticator_export_are_redacted() {
    let k = format!("R6{}", alnum(20));
    assert_gone(
        &format!("https://send.example.io/download/6bf3258f68ab85b3/#{k}\n"),
        &k,
    );
    let data = format!("CkEK{}", alnum(60));
    assert_gone(
        &format!("otpauth-migration://offline?data={data}%3D%3D\n"),
        &data,
    );
    assert_clean(
        "see https://docs.example.com/guide#section-Three\nand https://github.com/a/b/blob/main/x.rs#L10-L20\n",
    );
}

#[test]
fn files_and_tables_of_secrets_are_read() {
    let seed = "EMVIVX4DKTTHHYNUYCCRMR24KU";
    assert_gone(
        &format!("$ sudo cat /home/kim/.google_authenticator\n{seed}\n\" RATE_LIMIT 3 30\n"),
        seed,
    );
    let hex = "3ae8f9fdf823107cdc499e57e8cb3d79bf8bf2b17fc909500425dffc5d5d";
    assert_gone(
        &format!("$ xxd -p ~/.lightning/bitcoin/hsm_secret\n{hex}\n8992\n"),
        hex,
    );
    let key = "316a9d9c81d87b2b1c0c7fd3f8c26b6eeaf4c7959609638df706791855da025d";
    assert_gone(
        &format!("luks-0d31: 0 1951133696 crypt aes-xts-plain64 {key} 0 259:2 32768\n"),
        key,
    );
    let s2 = "A7AE7004E2786723BCE8B327BBBF351A";
    assert_gone(
        &format!("{{\n  \"securityKeys\": {{\n    \"S2_AccessControl\": \"{s2}\"\n  }}\n}}\n"),
        s2,
    );
    // A Matrix device's `keys` are public.
    assert_clean(&format!(
        "{{\n  \"keys\": {{\n    \"ed25519:QXKV\": \"{s2}\"\n  }}\n}}\n"
    ));
    let secret = format!("{}/{}", alnum(20), alnum(19));
    assert_gone(
        &format!(
            "\u{feff}User Name,Access Key Id,Secret Access Key\nci,AKIAQX7ZP2K9M4W8R3T6,{secret}\n"
        ),
        &secret,
    );
    assert_clean("name,old password hint,email\nbob,my cat name,bob@example.com\n");
    let pw = format!("{}1#", alnum(18));
    assert_gone(
        &format!("    content: |\n      pg-05.internal:5432:*:replicator:{pw}\n"),
        &pw,
    );
    let result = format!("*{}=", alnum(20));
    assert_gone(
        &format!(
            "  \"type\": \"random_password\",\n  \"instances\": [{{\"attributes\": {{\n    \"length\": 24,\n    \"result\": \"{result}\"\n  }}}}]\n"
        ),
        &result,
    );
    let cookie = format!("_|WARNING:-DO-NOT-SHARE-THIS.|_{}", alnum(64));
    assert_gone(
        &format!(
            "# Netscape HTTP Cookie File\n.example.com\tTRUE\t/\tTRUE\t1769659690\tsession\t{cookie}\n"
        ),
        &alnum(64),
    );
}

#[test]
fn keys_beside_their_pair_their_wallet_or_their_dump_are_redacted() {
    let private = "f32d52809137223a1686f59f4e87c2979d24038a4e00d0e486d86f89057f440a";
    assert_gone(
        &format!(
            "\"keyval\": {{\n  \"public\": \"ed1044bb91efd5c6d4dd6a4e23da95c02d1e9b3aa520fd4338ac605ff91662a8\",\n  \"private\": \"{private}\"\n}}"
        ),
        private,
    );
    assert_clean("{\"name\": \"x\", \"private\": true, \"public\": false}\n");
    assert_gone(
        &format!("$ polkadot key insert --suri 0x{private} --key-type babe\n"),
        private,
    );
    assert_gone(
        &format!(
            "Show private key\nThis is your private key. Never disclose it.\n{private}\nDone\n"
        ),
        private,
    );
    assert_clean(&format!("SHA-256 of the private key file:\n{private}\n"));
    let b64 = format!("AEdJVENSWVBUS0VZAAAAAgAAAAAAAAAB{}==", alnum(60));
    assert_gone(
        &format!("echo \"{b64}\" | base64 -d > /tmp/git-crypt.key\n"),
        &b64,
    );
    let v = format!("{}+{}/{}==", alnum(30), alnum(20), alnum(30));
    assert_gone(
        &format!(
            "<masterKey p4:requiresEncryption=\"true\" xmlns:p4=\"http://schemas.asp.net/2015/03/dataProtection\">\n  <!-- Warning: the key below is in an unencrypted form. -->\n  <value>{v}</value>\n</masterKey>\n"
        ),
        &v,
    );
    assert!(
        redacted(&format!(
            "<masterKey p4:requiresEncryption=\"true\">\n<value>{v}</value>\n"
        ))
        .contains("p4:requiresEncryption=\"true\"")
    );
    let code = "EsUH 4sC7 PXoJ cngm gNPB ANHo 687B DrZp Ey1Y ch7H AvmG vXGV";
    assert_gone(
        &format!("Save your Security Key\nStore it somewhere safe.\n\n{code}\n\n[Copy]\n"),
        code,
    );
    assert_gone(
        "can you use my backup code? ve8z-i7g6-n4gi\n",
        "ve8z-i7g6-n4gi",
    );
    assert_clean("Insert your security key and touch it.\nThe quick brown fox jumps over\n");
}

#[test]
fn network_gear_and_cli_positions_hold_passwords() {
    let c = alnum(16);
    assert_gone(&format!("snmp-server community {c} RW 10\n"), &c);
    assert_clean("snmp-server community public RO\n");
    let pw = "juniper.nimbus.fennel.3254";
    assert_gone(
        &format!("sw-core-01(config)#username netops privilege 15 secret 0 {pw}\n"),
        pw,
    );
    assert_gone(
        "bundle config set --global gems.contribsys.com 933cccc9:41b377f7\n",
        "41b377f7",
    );
    assert_clean("bundle config set --local path vendor/bundle\n");
    let psk = format!("{}/{}=", alnum(30), alnum(12));
    assert_gone(
        &format!(
            "wg set wg0 peer WmBCYRMNZOtzafcJtuqQphvYXnP+2RoANr9fTMIeTLw= preshared-key <(echo {psk}) allowed-ips 10.9.0.7/32\n"
        ),
        &psk,
    );
    let token = "6f1c2a9e-4b7d-4e21-9c3a-8d5e0f7a1b2c";
    assert_gone(
        &format!("$ consul acl set-agent-token agent {token}\n"),
        token,
    );
}
