//! Round 13: commands whose output is a secret (getters by name, random bytes,
//! decrypters), names of secrets in more languages, values wrapped in a literal's
//! syntax (`@"…"`, `["…"]`, `b'…'`, a decoder's call, the next line), recovery codes and
//! a few key formats; and, kept public, signatures, account ids and keys a page ships.

use super::tests::{alnum, assert_clean, assert_redacts};

fn hex(n: usize) -> String {
    const SET: &[u8] = b"3f9a0c7e51b2d846";
    (0..n)
        .map(|i| SET[(i * 5 + 1) % SET.len()] as char)
        .collect()
}

#[test]
fn a_getter_prints_the_secret_it_is_asked_for_by_name() {
    let v = alnum(30);
    for command in [
        "heroku config:get SESSION_SECRET -a web",
        "terraform output -raw admin_password",
        "gcloud secrets versions access latest --secret=db-password",
        "keyring get nexus.example.org deploy",
        "head -c 32 /dev/urandom | base64",
        "python3 -c 'import secrets; print(secrets.token_urlsafe(32))'",
        "bin/rails secret",
    ] {
        assert_redacts(&format!("$ {command}\n{v}\n$ ls"), &v, "secret");
    }
    // A getter of a name that says nothing secret prints configuration.
    for command in [
        "terraform output -raw vpc_id",
        "heroku config:get DATABASE_URL --app web | sed 's/:[^:@]*@/:****@/'",
    ] {
        assert_clean(&format!("$ {command}\nvpc-{}\n", &hex(17)));
    }
}

#[test]
fn a_decrypter_prints_the_plaintext_of_a_secrets_file() {
    let v = format!("Pl+R!{}", alnum(16));
    assert_redacts(
        &format!("$ gpg -d creds.txt.gpg 2>/dev/null\nbackup-nas admin {v}\n"),
        &v,
        "secret",
    );
    // Random capitals alone in a cookie file (an Erlang cookie).
    assert_redacts(
        "$ sudo cat /var/lib/rabbitmq/.erlang.cookie; echo\nKXQAMTZRUPNDWEBJHGSL\n",
        "KXQAMTZRUPNDWEBJHGSL",
        "secret",
    );
}

#[test]
fn names_of_a_password_in_yet_more_languages() {
    let v = alnum(22);
    for text in [
        format!("DB_PAROL={v}"),
        format!("MAT_KHAU={v}  # server"),
        format!("ŞIFRE={v}"),
        format!("รหัสผ่าน: \"{v}\""),
        format!("lozinka: {v}"),
    ] {
        assert_redacts(&text, &v, "password");
    }
}

#[test]
fn a_value_wrapped_in_its_literals_syntax_is_read_inside() {
    let v = alnum(32);
    let h = hex(64);
    assert_redacts(
        &format!("static NSString * const kShopApiKey = @\"{v}\";"),
        &v,
        "api-key",
    );
    assert_redacts(
        &format!(
            "outgoing metadata: {{\"shop-client-secret\": [\"{v}\"], \"user-agent\": [\"grpc-go/1.64.0\"]}}"
        ),
        &v,
        "secret",
    );
    assert_redacts(&format!("SECRET_KEY = b'{v}'"), &v, "secret");
    assert_redacts(
        &format!(
            "    private static readonly byte[] ExportKey =\n        Convert.FromHexString(\"{h}\");"
        ),
        &h,
        "key",
    );
    let b64 = format!("{}{}==", alnum(30), alnum(24));
    assert_redacts(
        &format!(
            "SecretKeySpec key = new SecretKeySpec(\n    Base64.getDecoder().decode(\"{b64}\"), \"HmacSHA256\");"
        ),
        &b64,
        "token",
    );
    let uuid = "c170c3fe-16e7-4082-8d9d-3693b2a8e53d";
    assert_redacts(
        &format!("pub const SHOP_TOKEN: &str = \"{uuid}\";"),
        uuid,
        "token",
    );
    // A type annotation with no literal after it is still no value.
    assert_clean("let password: u32 = attempts + 1;");
}

#[test]
fn recovery_codes_and_a_disks_recovery_key_are_secrets() {
    for (text, code) in [
        (
            "Use this one-time recovery code to sign in: 4ml7a-49sfd\n",
            "4ml7a-49sfd",
        ),
        (
            "Here is a fresh backup code, store it safely: 1745 2740 8750\n",
            "1745 2740 8750",
        ),
        (
            "Recovery key: 140316-971487-027236-789030-615659-878768-667359-130614\n",
            "140316-971487-027236-789030-615659-878768-667359-130614",
        ),
    ] {
        assert_redacts(text, code, "recovery-code");
    }
    // The key's id names it; a sentence about codes holds none.
    assert_clean("Recovery key ID: E4B45A5F\n");
    assert_clean("Recovery codes: generate new ones in the settings page.\n");
}

#[test]
fn key_formats_known_by_their_prefix() {
    let tezos = format!("edsk{}{}", alnum(26), &alnum(30)[..24]);
    assert_redacts(
        &format!("octez-client import secret key baker unencrypted:{tezos}"),
        &tezos,
        "tezos-secret-key",
    );
    let onion = format!("{}{}==", alnum(30), &alnum(30)[..26]);
    let onion = format!("{onion}{}", &alnum(30)[..30]);
    assert_redacts(
        &format!("ADD_ONION ED25519-V3:{onion} Flags=Detach Port=80"),
        &onion,
        "tor-onion-key",
    );
}

#[test]
fn signatures_account_ids_and_shipped_keys_stay_public() {
    assert_clean(
        "svix-id: msg_2b7cQ\nsvix-signature: v1,Pq7+Hc2LmW9xZbT4kVr8sNdY1gFa6uJe3oQi5yXw0=\n",
    );
    assert_clean(&format!("X-Slack-Signature: v0={}\n", hex(64)));
    assert_clean(&format!("  \"signature\": \"{}\",\n", hex(192)));
    // A signed URL's signature is the credential the URL carries.
    let sig = hex(128);
    assert_redacts(
        &format!(
            "https://storage.googleapis.com/b/o?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Signature={sig}"
        ),
        &sig,
        "signature",
    );
    assert_clean("SIGNING_KEY = \"GCSU3SQYEUYLWHLNCMWN5VRDPMXNSHR7OIP4WGLRC5CJJVSJHSOVZGNX\"\n");
    assert_clean(&format!(
        "{{\n  \"verify_keys\": {{\n    \"ed25519:a_6vNU\": {{\n      \"key\": \"{}\"\n    }}\n  }}\n}}\n",
        alnum(30) + "Xq1Z8w7Y6v5U4t"
    ));
    assert_clean(&format!(
        "\"pubkey\": {{\n    \"@type\": \"/cosmos.crypto.ed25519.PubKey\",\n    \"key\": \"{}=\"\n}}",
        alnum(30) + "k8Z1Y7x"
    ));
    assert_clean(&format!(
        "{{\"auth\": {{\"client_token\": \"hmac-sha256:{}\"}}}}",
        hex(64)
    ));
    assert_clean(&format!(
        "<script async src=\"https://maps.googleapis.com/maps/api/js?key=AIza{}&callback=init\"></script>",
        &alnum(30)[..30]
            .to_string()
            .chars()
            .chain("Qw5t3".chars())
            .collect::<String>()
    ));
}

#[test]
fn a_password_by_its_place_on_more_command_lines() {
    let v = format!("{}=6vRy^z%1", alnum(12));
    for line in [
        format!("$ wpa_passphrase OfficeWiFi '{v}' | sudo tee -a wpa.conf"),
        format!("$ openssl passwd -6 -salt \"$(openssl rand -hex 8)\" '{v}' >> users.hash"),
        format!("/msg NickServ IDENTIFY build-bot {v}"),
        format!("PS> & 'C:\\Program Files\\7-Zip\\7z.exe' a -p{v} -mhe=on logs.7z .\\logs\\*"),
    ] {
        assert_redacts(&line, &v, "password");
    }
    let seed = "7KTKJWYVT52KFK5P";
    assert_redacts(
        &format!("$ oathtool --totp -b {seed}\n482919\n"),
        seed,
        "password",
    );
}

#[test]
fn a_jwk_in_a_javascript_object_loses_its_private_members() {
    let d = alnum(30) + "Xw9_";
    let x = "FtWo4km_yInY2PjjLTjdiSwaWKz0_R3Z";
    let text = format!(
        "export const JWKS = {{ keys: [ {{ kty: 'EC', crv: 'P-256', x: '{x}', d: '{d}' }} ] }};"
    );
    assert_redacts(&text, &d, "private-key");
    assert!(
        super::tests::redacted(&text).contains(x),
        "the public point stays"
    );
}

#[test]
fn patterns_calls_and_literals_that_belong_to_another_stay() {
    // A scanner's rule for a token's shape.
    assert_clean("TOKEN_RE = re.compile(r\"^gh[pousr]_[A-Za-z0-9]{36}$\")\n");
    // A comment that gives its key a value labels nothing below it.
    assert_clean(&format!(
        "# RFC 4231 test case 2 (key = 'Jefe')\nEXPECTED = \"{}\"\n",
        hex(64)
    ));
    // `key: 'anon'` has its own value; the client id before it is not that key's.
    assert_clean("const c = init('e47c3b066dfcd3d9c78f7106', { kind: 'user', key: 'anon' });\n");
    assert_clean("LDClient.initialize('e47c3b066dfcd3d9c78f7106', { kind: 'user' });\n");
    // A function given a keyword argument is a call, not a value.
    assert_clean("  api_key = app_store_connect_api_key(key_id: ENV['ASC_KEY_ID'])\n");
    // A license key is a key, however short its hex.
    let license = "0BDE0D841F8F8E31";
    assert_redacts(
        &format!("    static let shopLicenseKey = \"{license}\"\n"),
        license,
        "key",
    );
}

#[test]
fn an_askpass_helper_a_comment_and_a_sentence_say_what_is_secret() {
    let pw = "qe#mL-JpT2gHY@x=^U9~";
    assert_redacts(
        &format!("#!/bin/sh\n# SSH_ASKPASS helper for the nightly rsync\necho '{pw}'\n"),
        pw,
        "password",
    );
    assert_clean("#!/bin/sh\n# GIT_ASKPASS helper\necho \"$GIT_TOKEN\"\n");
    let h = hex(64);
    assert_redacts(
        &format!("limits:\n  hush: {h}  # signs rate-limit tokens, keep private\n"),
        &h,
        "secret",
    );
    assert_clean("  retries: 3  # keep private settings in vault.yaml\n");
    let v = "k!WzqRpyGI7sTXM";
    assert_redacts(
        &format!("    temp: set staging db pw to {v} until vault is back\n"),
        v,
        "password",
    );
    assert_clean("    rotate the token to pick up the new scopes\n");
}

#[test]
fn code_spans_in_prose_about_a_password_are_code() {
    for text in [
        "Pass `--region eu-west-1` or set `AWS_REGION` in the profile.",
        "Scripts always pass `--yes` (and `-n`) explicitly.",
        "Pass `default=str` to `json.dumps`, or a small encoder.",
        "az login: AADSTS50076: Due to a configuration change made by your administrator",
    ] {
        assert_clean(text);
    }
    // A password in a code span after its name is still one.
    assert_redacts("the password `Xk7!qPz9Lm` works", "Xk7!qPz9Lm", "password");
}

#[test]
fn the_verb_pass_in_prose_names_no_password() {
    for text in [
        "Open it with the real encoding: or pass \"latin-1\" to open().",
        "Install g++ or pass `gcc-12` as CC.",
        "Pass encoding=\"latin-1\" or \"utf-8\" explicitly.",
    ] {
        assert_clean(text);
    }
    // `.netrc`'s `pass` after a login is one.
    assert_redacts(
        "machine git.example.org login bob pass \"Tr0ub4dor&3\"",
        "Tr0ub4dor&3",
        "password",
    );
}
