//! Round 17: a declaration's type between a secret's name and its value (VB's `As
//! String`, Go's `string`, ABAP's `TYPE … VALUE`, COBOL's `PIC X(n) VALUE`), R's `<-`,
//! SQL's `N'…'`, Lisp's earmuffs, the value inside an ARM or Remote Config object, a
//! JWT library's signing key, a key-value store's listing, a network device's `password
//! cipher`, a Thread network key, an RTMP stream key, a SIP URI's password, a quoted
//! reply's label over its empty quoted lines and a JAAS module's `user_<name>`; and,
//! kept as they are, a declaration without a value, a reference to a vault, a stream
//! URL without a key, a SIP URI without a password, a JWT call given a variable, an
//! elided token, a Key Vault id and an OpenPGP fingerprint.

use super::tests::{alnum, assert_clean, assert_gone, redacted};

/// A password as people and generators write them: letters, digits and punctuation
/// that other rules split at (`=`, `-`, `.`).
fn punctuated() -> String {
    "Wq7=Hm2xZ9pL-Tv4".to_string()
}

#[test]
fn a_declared_type_between_name_and_value_is_read_past() {
    let v = punctuated();
    assert_gone(&format!("Private Const SVC_PWD As String = \"{v}\"\n"), &v);
    assert_gone(&format!("var dbPassword string = \"{v}\"\n"), &v);
    assert_gone(&format!("DATA: lv_pass TYPE string VALUE '{v}'.\n"), &v);
    assert_gone(
        &format!("       01 WS-DB-PASSWORD    PIC X(16) VALUE '{v}'.\n"),
        &v,
    );
    assert_gone(&format!("db_password <- \"{v}\"\n"), &v);
    assert_gone(&format!("api_secret <<- '{v}'\n"), &v);
    assert_gone(&format!("DECLARE @password NVARCHAR(64) = N'{v}';\n"), &v);
    assert_gone(&format!("(defparameter *api-secret* \"{v}\")\n"), &v);
    // A declaration alone, and a type that is all a line says, keep everything.
    assert_clean("Dim strPassword As String\nstrPassword = InputBox(\"Password?\")\n");
    assert_clean("var dbPassword string\n");
    assert_clean("password <- readline(prompt = \"Password: \")\n");
}

#[test]
fn the_value_inside_an_object_under_a_secrets_name_is_the_secret() {
    let v = punctuated();
    assert_gone(
        &format!(
            "{{\n  \"parameters\": {{\n    \"sqlAdminPassword\": {{\n      \"value\": \"{v}\"\n    }}\n  }}\n}}\n"
        ),
        &v,
    );
    let t = alnum(24);
    assert_gone(
        &format!("\"api_key\": {{\n  \"defaultValue\": {{\n    \"value\": \"{t}\"\n  }}\n}}\n"),
        &t,
    );
    // A reference to a vault, and a schema's description, are no values.
    assert_clean(
        "\"adminPassword\": {\n  \"reference\": {\n    \"keyVault\": { \"id\": \"/subscriptions/x/vaults/kv\" },\n    \"secretName\": \"sqlAdminPassword\"\n  }\n}\n",
    );
    assert_clean(
        "\"password\": {\"type\": \"securestring\", \"metadata\": {\"description\": \"the admin password\"}}\n",
    );
}

#[test]
fn a_jwt_librarys_literal_key_is_a_secret() {
    let k = alnum(32);
    assert_gone(
        &format!("const t = jwt.sign({{ sub: id }}, '{k}', {{ expiresIn: '1h' }});"),
        &k,
    );
    assert_gone(
        &format!("token = jwt.encode({{\"sub\": uid}}, \"{k}\", algorithm=\"HS256\")"),
        &k,
    );
    assert_gone(
        &format!("String t = JWT.create().sign(Algorithm.HMAC256(\"{k}\"));"),
        &k,
    );
    assert_clean("const t = jwt.sign(payload, process.env.JWT_SECRET, { expiresIn: '1h' });");
    assert_clean("claims = jwt.decode(token, options={\"verify_signature\": False})");
}

#[test]
fn listings_and_devices_print_a_secret_below_or_after_its_name() {
    let h = alnum(32).to_lowercase();
    assert_gone(
        &format!(
            "$ etcdctl get --prefix /config/shop/\n/config/shop/endpoint\nhttps://api.example.com\n/config/shop/api_secret\n{h}\n"
        ),
        &h,
    );
    assert_gone(&format!("> networkkey\n{h}\nDone\n"), &h);
    let p = punctuated();
    assert_gone(
        &format!("[HW-aaa]local-user ops password irreversible-cipher {p}\n"),
        &p,
    );
    // The path listed, and the endpoint under its own name, stay.
    let out = redacted(&format!(
        "/config/shop/endpoint\nhttps://api.example.com\n/config/shop/api_secret\n{h}\n"
    ));
    assert!(
        out.contains("/config/shop/endpoint\nhttps://api.example.com\n/config/shop/api_secret\n"),
        "{out}"
    );
}

#[test]
fn a_stream_key_and_a_sip_password_leave_their_urls() {
    let k = format!("live_{}_{}", 48213, alnum(20));
    let out = redacted(&format!(
        "ffmpeg -re -i in.mp4 -c copy -f flv rtmp://live.example.tv/app/{k}\n"
    ));
    assert!(
        !out.contains(&k) && out.contains("rtmp://live.example.tv/app/"),
        "{out}"
    );
    let p = alnum(12);
    let out = redacted(&format!(
        "<uri>sip:4410:{p}@pbx.example.net;transport=tls</uri>"
    ));
    assert!(!out.contains(&p) && out.contains("sip:4410:"), "{out}");
    assert_clean("rtmp://live.example.com/app/stream.flv\n");
    assert_clean("rtmp://a.rtmp.youtube.com/live2/${STREAM_KEY}\n");
    assert_clean("rtmp://localhost:1935/live/test\n");
    assert_clean("<uri>sip:4410@pbx.example.net;transport=tls</uri>");
    assert_clean("To: <sip:alice:5060@example.com>\ngossip:5 peers\n");
}

#[test]
fn a_quoted_replys_label_reaches_past_its_empty_quoted_lines() {
    let h = "8c1f0b7e92d4a6f35e0c7b19d2a84f6e1b3c5d7a";
    assert_gone(
        &format!(
            "On Mon, dev@example.org wrote:\n> Hi,\n> here is the staging key for your account:\n>\n>     {h}\n>\n> Regards\n"
        ),
        h,
    );
    assert_clean("> Which key should I use?\n>\n> The one from the wiki page.\n");
}

#[test]
fn a_jaas_modules_user_entries_hold_passwords() {
    let (a, b) = ("Pw8-zQ2_Lm7xK", "Al9-wT3_Kp4zQ");
    let text = format!(
        "KafkaServer {{\n    org.apache.kafka.common.security.plain.PlainLoginModule required\n    username=\"admin\"\n    user_admin=\"{a}\"\n    user_alice=\"{b}\";\n}};\n"
    );
    let out = redacted(&text);
    assert!(!out.contains(a) && !out.contains(b), "{out}");
    assert!(out.contains("username=\"admin\""), "{out}");
    // Outside a login module, `user_` names a user, not a password.
    assert_clean("user_alice=\"alice@example.org\"\n");
}

#[test]
fn elided_tokens_key_vault_ids_and_pgp_fingerprints_stay() {
    assert_clean("{\"access_token\": \"eyJhbGciOi...\", \"token_type\": \"Bearer\"}\n");
    assert_clean("token: sk_live_51H...x9Qz\n");
    assert_clean(
        "\"kid\": \"https://ops-kv.vault.azure.net/keys/token-signing/5b7a0c3e9d2f41868a1e6c0b3f7d2e94\",\n",
    );
    assert_clean(
        "Encrypt reports to our key (`3F8A1C0E5B7D92A4C6E0F1B2D3A4958677C8E9F0`):\n\n-----BEGIN PGP PUBLIC KEY BLOCK-----\n",
    );
    // A long piece before the dots is still a secret's worth.
    let t = alnum(30);
    assert!(!redacted(&format!("api_token = \"{t}...\"\n")).contains(&t));
    // Hex in capitals with no word of PGP around it is judged as any value.
    let h = "3F8A1C0E5B7D92A4C6E0F1B2D3A4958677C8E9F0";
    assert!(!redacted(&format!("api_secret = \"{h}\"\n")).contains(h));
}
