//! Round 22: an API key sent as Basic's user name with an `x` for its password, a
//! libgcrypt private key's S-expression, a session cookie after its warning, a .NET
//! password generator's output, curl's and BTEQ's logins, base64 webhook segments,
//! a token on the line below `Bearer`, a one-value list under a secret's name,
//! labels in sentences (after an article, a gloss, another language's verb), what a
//! chat or a sign-in link hands over.

use super::tests::{assert_clean, assert_gone};

#[test]
fn an_api_key_as_basics_user_with_an_x_for_its_password() {
    // base64("Kq2Lm8Zp4Xw7Vn3Rt6Ys:X")
    let basic = "S3EyTG04WnA0WHc3Vm4zUnQ2WXM6WA==";
    assert_gone(
        &format!("GET /api/v2/tickets HTTP/1.1\r\nAuthorization: Basic {basic}\r\n\r\n"),
        basic,
    );
    let key = "4f7a1c9e2b8d6a0f3e5c7b9d1a2f4e6c8b0d3a5f";
    assert_gone(
        &format!("curl -s -u \"{key}:x\" https://api.example.com/v1/employees\n"),
        key,
    );
    // A person's login with a one-letter password is not a key.
    assert_clean("curl -u \"admin:x\" http://localhost:8080/\n");
}

#[test]
fn a_libgcrypt_private_key_keeps_its_public_point() {
    let q = "40A1B2C3D4E5F60718293A4B5C6D7E8F90A1B2C3D4E5F60718293A4B5C6D7E8F90";
    let d = "7E3D9A1C5B2F8E4D6A0C9B3F7E1D5A8C2B6F0E4D9A3C7B1F5E8D2A6C0B4F9E3D";
    let text = format!(
        "Created: 20260101T000000\nKey: (private-key (ecc (curve Ed25519)(flags eddsa)(q\n #{q}#)(d #{d}#)))\n"
    );
    assert_gone(&text, d);
    let out = crate::redact::redact(&text);
    assert!(out.contains(q), "the public point stays: {out}");
    // An RSA key's secret members, each of them.
    let p = "E1D2C3B4A5968778695A4B3C2D1E0F1E2D3C4B5A69788796A5B4C3D2E1F0E1D2";
    assert_gone(
        &format!(
            "(private-key (rsa (n #00C0FFEE0123456789ABCDEF0123456789ABCDEF#)(e #010001#)(d #{d}#)(p #{p}#)))\n"
        ),
        p,
    );
    assert_clean(
        "(public-key (ecc (curve Ed25519)(flags eddsa)(q #40A1B2C3D4E5F60718293A4B5C6D7E8F90#)))\n",
    );
}

#[test]
fn a_session_cookie_after_its_warning() {
    let v = "A1B2C3D4E5F60718293A4B5C6D7E8F90A1B2C3D4E5F60718293A4B5C6D7E8F90AB12CD34";
    assert_gone(
        &format!(
            "jar['.ROBLOSECURITY'] = '_|WARNING:-DO-NOT-SHARE-THIS.--Sharing-this-will-allow-someone-to-log-in-as-you-and-to-steal-your-ROBUX-and-items.|_{v}'\n"
        ),
        v,
    );
}

#[test]
fn a_generated_password_below_its_generator() {
    let pw = "k2P(x!Lq9w]Ez_4V";
    assert_gone(
        &format!(
            "PS C:\\> [System.Web.Security.Membership]::GeneratePassword(16, 3)\n{pw}\nPS C:\\>\n"
        ),
        pw,
    );
}

#[test]
fn curls_config_and_bteqs_logon() {
    assert_gone(
        "# ~/.curlrc\nproxy = \"http://proxy.example.com:3128\"\nproxy-user = \"anna.k:Tr0p1c@lRa1n_88\"\n",
        "Tr0p1c@lRa1n_88",
    );
    assert_gone("--proxy-user anna.k:Tr0p1c@lRa1n_88\n", "Tr0p1c@lRa1n_88");
    assert_clean("proxy-user = \"anna.k:$PROXY_PASSWORD\"\n");
    assert_gone(
        ".LOGON tdprod.example.com/etl_user,Xw9_kLm2$pQr7vT;\n.SET WIDTH 200;\n",
        "Xw9_kLm2$pQr7vT",
    );
}

#[test]
fn a_webhook_segment_in_base64() {
    let token = "Zm9vYmFyQmF6MTIzNDU2Nzg5MGFiY2RlZmdo/Qk9vK2pLm+n8rT3wXyZ5aB7cD1eF9gH2iJ4kL6mN0oP";
    assert_gone(
        &format!(
            "    webhook_url: https://endpoint1.collection.eu.sumologic.com/receiver/v1/http/{token}\n"
        ),
        &token[37..],
    );
}

#[test]
fn reset_links_and_a_bearer_token_below_its_scheme() {
    assert_gone(
        "https://shop.example.com/account/reset-password/8f3a9c1e5b7d2f4a6c8e0b1d3f5a7c9e2b4d6f8a\n",
        "8f3a9c1e5b7d2f4a6c8e0b1d3f5a7c9e2b4d6f8a",
    );
    assert_clean("https://docs.example.com/account/reset-password/how-it-works\n");
    let token = "Zx81kLmQp7vTn2wYb9RcH4jFd6gKs3aEu5oPi0xNq";
    assert_gone(
        &format!("$ strings core | grep -A1 -i bearer\nAuthorization: Bearer\n{token}\n"),
        token,
    );
    assert_clean("Authorization: Bearer\nContent-Type: application/json\n");
}

#[test]
fn a_one_value_list_under_a_secrets_name() {
    let v = "Qm7vXk2pLr9sTn4wYb8zHc3jFd6gKe1aMu5oPi0xNq";
    assert_gone(
        &format!(
            "\"config\": {{\n  \"secret\": [\n    \"{v}\"\n  ],\n  \"priority\": [\"100\"]\n}}\n"
        ),
        v,
    );
    assert_clean("\"secret\": [\"${KEYCLOAK_SECRET}\"]\n");
}

#[test]
fn labels_in_sentences() {
    let v = "Xp9Lw4Zr8Tn3Vb6Yc1Jd5Fg0sA2e";
    assert_gone(&format!("the key for staging is {v}\n"), v);
    assert_gone(
        &format!("Oi! A chave da API para homologação é {v} (vale até sexta).\n"),
        v,
    );
    assert_gone(
        &format!(
            "Der neue API-Schlüssel für die Testumgebung lautet {v} – bitte nicht weitergeben.\n"
        ),
        v,
    );
    assert_gone(&format!("* 存取權杖（Token）：{v}\n"), v);
    assert_gone("పాస్‌వర్డ్ = K7p-2xm%Q9wLr4Z\n", "K7p-2xm%Q9wLr4Z");
    assert_gone(
        "رمز الدخول المؤقت لحسابك: xk7W8S-8Dq1FDN\n",
        "xk7W8S-8Dq1FDN",
    );
    assert_gone(
        "[09:12:40] <dave> locked out, the backup code from the admin is k7m2p-x9qr4 right?\n",
        "k7m2p-x9qr4",
    );
    // After an article, a name's value must be random in every class.
    assert_clean("the key is user_id_12345678901234\n");
    assert_clean("the token for the next page is 20260101T000000Z\n");
    assert_clean("the key is 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n");
}

#[test]
fn what_a_phrase_that_says_secret_is_about() {
    let t = "Zq8Kd3LmP0xWv7Ty2Rb5Nc";
    assert_gone(
        &format!(
            "[10:02] anna: who has the mail creds for prod?\n[10:04] olaf: here -> {t}\n[10:05] olaf: pls don't paste it anywhere\n"
        ),
        t,
    );
    let k = "3yZe7d3Q9vPLkJ8qNw2RtXb5Hc6MfA4UgS1oVjEiKp7TnYa9Lr2Dx5Bs8Wq3Gv6Mh4";
    assert_gone(
        &format!("piotr  09:14\ncopied from the wallet export, do not share:\n{k}\n"),
        k,
    );
    // The message before is prose, and a line below that holds a sentence is no value.
    assert_clean(
        "[10:04] olaf: the build is green again\n[10:05] olaf: pls don't paste logs in #general\n",
    );
    assert_clean("Rules of this channel, do not share:\nanything from the customer tickets\n");
}

#[test]
fn a_base64_key_whose_slash_ends_a_urls_userinfo() {
    let key = "K001xYz/ab12CD34ef56GH78ij90KLm";
    assert_gone(
        &format!("$ duplicity /home/ana b2://0012ab34cd56ef0000000001:{key}@my-bucket/laptop\n"),
        key,
    );
    assert_clean("https://mastodon.example:8080/@alice\n");
    assert_clean("see http://localhost:3000/users/@alice\n");
}

#[test]
fn a_chat_messages_arrow_points_at_the_value() {
    let id = "5e1b2c3d-4f5a-4b6c-8d7e-9f0a1b2c3d4e";
    assert_gone(
        &format!("[02:17] dmytro: they revoked the old key. new one -> {id}\n"),
        id,
    );
    assert_gone(
        "[14:09] goran: new one -> Kq7m2Xp9Lw4Zr8Tn3Vb6Yc1Jd\n",
        "Kq7m2Xp9Lw4Zr8Tn3Vb6Yc1Jd",
    );
    // An id the message does not call a credential, a link, a name, code.
    assert_clean(&format!("[10:01] ana: moved to -> {id}\n"));
    assert_clean("[10:01] ana: the build graph -> https://ci.example.com/job/42\n");
    assert_clean("[10:01] ana: renamed handler -> handle_request_with_retry\n");
    assert_clean("ptr->field_name_long_2 = value;\n");
}

#[test]
fn protocol_traces_and_proxy_links() {
    assert_gone(
        "a001 LOGIN \"ana@example.com\" \"Jo7ydn.f:?08&EP#Tq\"\na001 OK Logged in\n",
        "Jo7ydn.f:?08&EP#Tq",
    );
    assert_gone(
        "trojan://724BPGoC1M4dxTBqvb@203.0.113.9:443?security=tls#HK\n",
        "724BPGoC1M4dxTBqvb",
    );
    assert_gone(
        "hysteria2://x7tnvrB8ORtNFjQ@203.0.113.7:8443/?sni=edge.example.com\n",
        "x7tnvrB8ORtNFjQ",
    );
    // base64 of {"v":"2","ps":"Tokyo-03","add":"192.0.2.10","port":"443","id":"<uuid>"}
    let link = "eyJ2IjoiMiIsInBzIjoiVG9reW8tMDMiLCJhZGQiOiIxOTIuMC4yLjEwIiwicG9ydCI6IjQ0MyIsImlkIjoiNWI0ZmIzY2EtNjA1Zi00MWRmLWJiMDgtNzg2ZjY5NTFhZmI3In0=";
    assert_gone(&format!("vmess://{link}\n"), &link[20..]);
    // A preferences cookie in base64 JSON is still nobody's credential.
    assert_clean("Cookie: ui_prefs=eyJ0aGVtZSI6ImRhcmsiLCJsYW5nIjoiZW4ifQ==\n");
}

#[test]
fn a_sign_in_links_query_token() {
    let t = "E4Acz1k641aWIQ58PbLEwmg-KEUIBsL0_A2OBOpJSs";
    assert_gone(
        &format!("https://app.example.com/auth/magic?email=ana%40example.org&t={t}\n"),
        t,
    );
    assert_clean(
        "https://app.example.com/auth/magic?next=/dashboard&utm_source=newsletter_2026_spring\n",
    );
    assert_clean("https://example.com/verify?sig=abc&id=01HZX5Q9GJ6K2M3N4P5R6S7T8V\n");
}
