//! Round 19: what a request's signature, a listing of key ids, an app's shipped
//! configuration and a few ciphertexts look like, kept as they are; and the secrets
//! beside them still found.

use super::tests::{assert_clean, assert_gone, redacted};

#[test]
fn a_requests_own_signature_is_not_a_credential() {
    assert_clean(
        "Stripe-Signature: t=1712000042,v1=5f0c7e1a9b2d4c6e8f0a1b3c5d7e9f1a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e\n",
    );
    assert_clean("X-Plivo-Signature: Vq8Zt2xLm0Rk4Wp6Ny1Hs3Jd5Gf=\n");
    assert_clean(
        "Signature-Input: sig7=(\"@method\");created=1712000042\nSignature: sig7=:Wm9vQmFyQmF6UXV4Q29yZ2VHcmF1bHRXYWxkb0ZyZWRQbHVnWHl6enlUaHVk:\n",
    );
    // An Authorization header's signature goes with the header.
    assert_gone(
        "Authorization: AWS4-HMAC-SHA256 Credential=AKIAQ7ZT2XLM0RK4WP6N/20260311/us-east-2/sqs/aws4_request, SignedHeaders=host;x-amz-date, Signature=0d2f4a6c8e1b3d5f7a9c0e2f4b6d8a1c3e5f7b9d0a2c4e6f8b1d3f5a7c9e0b2d\n",
        "0d2f4a6c8e1b3d5f7a9c0e2f4b6d8a1c3e5f7b9d",
    );
    assert_clean("Pushing signature to: registry.example.net/team/api:sha256-4be1.sig\n");
    // A signed URL's signature grants what the URL does: still a credential.
    let sig = "7c1e9a3f5b2d4c6e8a0f1b3d5e7c9a2b4d6f8e0a1c3b5d7f9e2a4c6b8d0f1e3a";
    assert_gone(
        &format!(
            "curl -O 'https://b.s3.amazonaws.com/r.csv?X-Amz-Expires=300&X-Amz-Signature={sig}'\n"
        ),
        sig,
    );
}

#[test]
fn an_access_key_id_listed_alone_is_an_id() {
    assert_clean(
        "{\n  \"AccessKeyMetadata\": [\n    {\n      \"UserName\": \"deploy\",\n      \"AccessKeyId\": \"AKIAZ3LQ7M2XW0RT4VPN\",\n      \"Status\": \"Inactive\"\n    }\n  ]\n}\n",
    );
    assert_clean("{\"userIdentity\": {\"accessKeyId\": \"ASIAZ3LQ7M2XW0RT4VPN\"}}\n");
    // Beside its secret, the secret goes.
    let secret = "q7Zt2xLm0Rk4Wp6Ny1Hs3Jd5Gf8Bv9Cc0Aa2Ee4Ii";
    assert_gone(
        &format!(
            "{{\"Credentials\": {{\"AccessKeyId\": \"ASIAZ3LQ7M2XW0RT4VPN\", \"SecretAccessKey\": \"{secret}\"}}}}\n"
        ),
        secret,
    );
    // Elsewhere the id is still redacted.
    assert_gone(
        "aws_access_key_id = AKIAZ3LQ7M2XW0RT4VPN\n",
        "AKIAZ3LQ7M2XW0RT4VPN",
    );
}

#[test]
fn a_mobile_apps_firebase_key_ships_with_the_app() {
    let key = "AIzaQv7Zt2xLm0Rk4Wp6Ny1Hs3Jd5Gf8Bv9Cc0A";
    assert_clean(&format!(
        "\"client\": [{{\"client_info\": {{\"mobilesdk_app_id\": \"1:42:android:ab12\"}},\n \"api_key\": [{{\"current_key\": \"{key}\"}}]}}]\n"
    ));
    assert_clean(&format!(
        "<key>API_KEY</key>\n<string>{key}</string>\n<key>GOOGLE_APP_ID</key>\n<string>1:42:ios:ab12</string>\n"
    ));
    assert_gone(&format!("GOOGLE_MAPS_SERVER_KEY={key}\n"), key);
}

#[test]
fn browser_sdk_keys_and_public_segments_are_public() {
    assert_clean("Paddle.Initialize({ token: 'test_7c2e9a4f1b3d5c8e0a6f2b4d9e1' });\n");
    assert_clean(
        "window.Echo = new Echo({ broadcaster: 'pusher', key: '4e1a9c7f2b8d3e6a0c5f', cluster: 'ap2' });\n",
    );
    assert_clean(
        "Xendit.setPublishableKey('xnd_public_development_Qv7Zt2xLm0Rk4Wp6Ny1Hs3Jd5Gf8Bv9');\n",
    );
    // The same vendors' secrets are not.
    let secret = "pdl_live_apikey_01hx7zt2xlm0rk4wp6ny1hs3jd_Qv7Zt2xLm0Rk4Wp6Ny1Hs3";
    assert_gone(&format!("PADDLE_API_KEY={secret}\n"), secret);
}

#[test]
fn a_value_beside_code_that_names_another_is_not_that_value() {
    // `tokenFromServer` and `key: user` have values of their own.
    assert_clean(
        "await rtc.join('0b6d1f3a5c7e9b2d4f6a8c0e1b3d5f7a', room, tokenFromServer, uid);\n",
    );
    assert_clean("track('9a1c3e5b7d2f4a6c8e0b1d3f', { key: user.id });\n");
    assert_clean(
        "const ld = LDClient.initialize('65f1c2e9a4b7d3f0e8a1c6b2', { kind: 'user', key: userKey });\n",
    );
    let secret = "Qv7Zt2xLm0Rk4Wp6Ny1Hs3Jd5Gf8";
    assert_gone(&format!("copied '{secret}' into config.Password\n"), secret);
}

#[test]
fn ciphertexts_types_and_public_uris_are_kept() {
    assert_clean(
        "{\"login\": {\"password\": \"2.Qv7Zt2xLm0Rk4Wp6Ny1Hs3==|Jd5Gf8Bv9Cc0Aa2Ee4Ii6Oo8Uu0Yy2Tt4Rr6Ww8Qq0=|Zz1Xx3Cc5Vv7Bb9Nn1Mm3Ll5Kk7Jj9Hh1Gg3Ff5Dd7=\"}}\n",
    );
    let blob = format!(
        "01000000D08C9DDF0115D1118C7A00C04FC297EB{}",
        "0A1B2C3D4E5F6789".repeat(8)
    );
    assert_clean(&format!("username:s:CORP\\ops\r\npassword 51:b:{blob}\r\n"));
    assert_clean("ALTER TABLE accounts ADD COLUMN password_salt bytea NOT NULL;\n");
    assert_clean(
        "solana:9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin?amount=3&spl-token=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v\n",
    );
    assert_clean("| field | value |\n|---|---|\n| OAuth client ID | `4e1a9c7f2b8d3e6a0c5f` |\n");
    assert_clean(
        "{\"keyData\": {\"typeUrl\": \"type.googleapis.com/google.crypto.tink.EcdsaPublicKey\", \"value\": \"EgYIAxACGAIaIQDq7Zt2xLm0Rk4Wp6Ny1Hs3Jd5Gf8Bv9Cc0Aa2Ee4Ii\"}}\n",
    );
    assert_clean(
        "\"taproot_internal_key\": \"5e1a9c7f2b8d3e6a0c5f4e1a9c7f2b8d3e6a0c5f4e1a9c7f2b8d3e6a0c5f7b9d\"\n",
    );
    // A password column's value is still a password.
    assert_gone(
        "INSERT INTO users (name, password) VALUES ('ops', 'Zt2xLm0Rk4Wp');\n",
        "Zt2xLm0Rk4Wp",
    );
}

#[test]
fn a_requests_target_carries_its_routes_token() {
    let token = "k3v8q1x7zt2lm0rk4wp6ny1hs3";
    assert_gone(
        &format!("POST /hooks/{token} HTTP/1.1\r\nHost: chat.example.org\r\n"),
        token,
    );
    let token = "Qv7Zt2xLm0Rk4Wp6Ny1Hs3Jd5Gf8Bv9Cc0Aa2Ee4Ii6Oo8Uu0Yy2Tt4Rr6Ww8_Qq0-Zz1Xx3";
    assert_gone(
        &format!(
            "10.0.0.7 - - [01/Mar/2026:10:00:00 +0000] \"POST /receiver/v1/http/{token}== HTTP/1.1\" 200 12\n"
        ),
        token,
    );
    assert_clean("GET /hooks/new HTTP/1.1\n");
}

#[test]
fn an_api_key_sent_as_basics_user_name_is_the_credential() {
    use base64::Engine;
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    for user in [
        "sk_live_51Qv7Zt2xLm0Rk4Wp6Ny1Hs3",
        "private_QvZtxLmRkWpNyHsJdGfBv",
    ] {
        let header = b64(&format!("{user}:"));
        assert_gone(&format!("      Authorization: Basic {header}\r\n"), &header);
        assert_gone(
            &format!("<- \"GET /v1 HTTP/1.1\\r\\nAuthorization: Basic {header}\\r\\n\"\n"),
            &header,
        );
    }
    // A short or sample user with no password is not a credential.
    assert_clean(&format!("Authorization: Basic {}\n", b64("admin:")));
}

#[test]
fn a_header_object_and_an_encoded_header_lose_their_value() {
    let token = "MTIzNDU2Nzg5MDEyMzQ1Njc4.Qv7Zt2.xLm0Rk4Wp6Ny1Hs3Jd5Gf8Bv9Cc0Aa";
    assert_gone(
        &format!(
            "\"header\": [\n  {{ \"key\": \"Authorization\", \"value\": \"Bot {token}\", \"type\": \"text\" }}\n]\n"
        ),
        token,
    );
    assert_gone(
        &format!(
            "\"headers\": [\n  {{\n    \"name\": \"Authorization\",\n    \"value\": \"Bearer {token}\"\n  }}\n]\n"
        ),
        token,
    );
    let basic = "MTIzNDU2OmdsY19Rdjdadd4eExtMFJrNFdwNk55MUhzM0pkNUdmOEJ2OUNjMEFh";
    assert_gone(
        &format!("OTEL_EXPORTER_OTLP_HEADERS=Authorization=Basic%20{basic}\n"),
        basic,
    );
}

#[test]
fn a_full_width_or_ethiopic_colon_separates_a_value() {
    assert_gone(
        "回调配置\nToken：Qv7Zt2xLm0Rk4Wp6Ny1Hs3Jd5Gf8Bv9\n",
        "Qv7Zt2xLm0Rk4Wp6Ny1Hs3Jd5Gf8Bv9",
    );
    assert_gone(
        "本番のAPIキー：9f1c3e5b7d2a4c6e8b0d1f3a5c7e9b2d4f6a8c0e（取扱注意）\n",
        "9f1c3e5b7d2a4c6e8b0d1f3a5c7e9b2d4f6a8c0e",
    );
    assert_gone("የይለፍ ቃል፦ Zt2#xLm0=Rk4Wp\n", "Zt2#xLm0=Rk4Wp");
    // What the sentence says after the colon is not a value.
    assert_clean("密码：（请向管理员索取）\nToken：（见运维手册）\n");
}

#[test]
fn values_printed_by_commands_that_fetch_or_make_them() {
    assert_gone(
        "  812  vault status\n  813  vault operator unseal Qv7Zt2xLm0Rk4Wp6Ny1Hs3/Jd5Gf8Bv9Cc0Aa2Ee4Ii6O\n",
        "Qv7Zt2xLm0Rk4Wp6Ny1Hs3/Jd5Gf8Bv9Cc0Aa2Ee4Ii6O",
    );
    assert_gone(
        "$ nomad operator gossip keyring generate\nQv7Zt2xLm0Rk4Wp6Ny1Hs3Jd5Gf8Bv9Cc0Aa2Ee4I=\n",
        "Qv7Zt2xLm0Rk4Wp6Ny1Hs3Jd5Gf8Bv9Cc0Aa2Ee4I=",
    );
    assert_gone(
        "$ aws sts get-session-token --query Credentials.SecretAccessKey --output text\nZt2xLm0Rk4Wp6Ny1Hs3Jd5Gf8Bv9Cc0Aa2Ee4Ii6\n",
        "Zt2xLm0Rk4Wp6Ny1Hs3Jd5Gf8Bv9Cc0Aa2Ee4Ii6",
    );
    assert_clean(
        "$ aws ec2 describe-instances --query 'Reservations[0].Instances[0].InstanceId' --output text\ni-0a1b2c3d4e5f67890\n",
    );
    assert_gone(
        "In [3]: print(os.environ[\"LEDGER_API_TOKEN\"])\nQv7Zt2xLm0Rk4Wp6Ny1Hs3Jd5Gf8Bv9Cc0\n\nIn [4]: \n",
        "Qv7Zt2xLm0Rk4Wp6Ny1Hs3Jd5Gf8Bv9Cc0",
    );
    assert_gone(
        "> sessionStorage.getItem('vendorApiKey')\n< 'Zt2xLm0Rk4Wp6Ny1Hs3Jd5'\n",
        "Zt2xLm0Rk4Wp6Ny1Hs3Jd5",
    );
}

#[test]
fn recovery_codes_in_sentences_lists_and_blocks() {
    let key = "306218-580283-112343-697499-011396-452122-604890-217305";
    assert_gone(
        &format!("[09:12] it: your recovery key is {key} – type it in\n"),
        key,
    );
    assert_gone(
        "ops: backup codes: K4Z8QW2M7T, PRQNSVXLBC, 7D1H3JX0WE, ZJ5G9XBFQA\n",
        "PRQNSVXLBC",
    );
    let codes = [
        "a8b3c-9xk2p",
        "mm4q1-zt7vv",
        "p0wqe-lk3nb",
        "uu8rt-xycaw",
        "k3m9z-q2w8e",
    ];
    let block = format!(
        "{}\n\n(recovery-codes.txt)\nKeep these recovery codes somewhere safe.\n",
        codes.join("\n")
    );
    let out = redacted(&block);
    for c in codes {
        assert!(!out.contains(c), "{c} survived in {out}");
    }
    let google = "BACKUP VERIFICATION CODES\nops@example.org\n\n1234 5678   9012 3456\n6543 2109   8765 4321\n1357 2468   9753 8642\n2468 1357   8642 9753\n";
    assert!(!redacted(google).contains("9012 3456"));
    // Words near the label are not codes.
    assert_clean(
        "Recovery codes\n\nKeep them safe\nPrint them once\nStore them offline\nShare them never\n",
    );
}

#[test]
fn a_diceware_passphrase_under_its_name() {
    let phrase = "lantern copper meadow falcon quartz tundra";
    assert_gone(&format!("- backup passphrase: {phrase}\n"), phrase);
    assert_gone(
        &format!("ana: the passphrase for the shared vault (no screenshots): \"{phrase}\"\n"),
        phrase,
    );
    // A sentence about passphrases is prose.
    assert_clean("passphrase: choose one with at least five random words\n");
}

#[test]
fn a_registry_value_a_swift_header_a_login_call_and_a_windows_prompt() {
    assert_gone(
        "HKEY_CURRENT_USER\\Environment\r\n    TEMP    REG_EXPAND_SZ    %USERPROFILE%\\Temp\r\n    PAYMENTS_API_SECRET    REG_SZ    Zt2xLm0Rk4Wp6Ny1Hs3J\r\n",
        "Zt2xLm0Rk4Wp6Ny1Hs3J",
    );
    assert_clean("    TEMP    REG_EXPAND_SZ    %USERPROFILE%\\AppData\\Local\\Temp\r\n");
    assert_gone(
        "request.setValue(\"Bearer Zt2xLm0Rk4Wp6Ny1Hs3Jd5\", forHTTPHeaderField: \"Authorization\")\n",
        "Zt2xLm0Rk4Wp6Ny1Hs3Jd5",
    );
    assert_gone(
        "    s.login(\"ops@example.org\", \"abcd efgh ijkl mnop\")\n",
        "abcd efgh ijkl mnop",
    );
    assert_gone("M.login(\"ops\", \"Zt2xLm0Rk4Wp\")\n", "Zt2xLm0Rk4Wp");
    assert_clean("ftp.login(\"anonymous\", \"guest@example.org\")\nimap.login(user, password)\n");
    assert_gone(
        "C:\\backup>7z a -pZt2xLm0Rk4Wp -mhe=on db.7z D:\\dumps\\*.bak\r\n",
        "Zt2xLm0Rk4Wp",
    );
    // A login verb after cmd.exe's prompt is at a command's start.
    assert_gone(
        "C:\\ops>vault operator unseal Qv7Zt2xLm0Rk4Wp6Ny1Hs3Jd5Gf8Bv9Cc0Aa2Ee4I\r\n",
        "Qv7Zt2xLm0Rk4Wp6Ny1Hs3Jd5Gf8Bv9Cc0Aa2Ee4I",
    );
}
