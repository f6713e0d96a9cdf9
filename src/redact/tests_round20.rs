//! Round 20: labels in more scripts and their quotes, values a device's configuration,
//! a registry edit, a process substitution or a table of a secret store print, and
//! public values an SDK, a handshake or a URL carries, kept as they are.

use super::tests::{assert_clean, assert_gone, redacted};

#[test]
fn labels_in_more_scripts_and_their_own_quotes() {
    assert_gone(
        "Մուտքանուն՝ root\nԳաղտնաբառ՝ Kestrel#4471Moth\n",
        "Kestrel#4471Moth",
    );
    assert_gone(
        "የተጠቃሚ ስም፡ root\nየይለፍ ቃል፡ Q7v2mPz9Lk4wRt\n",
        "Q7v2mPz9Lk4wRt",
    );
    assert_gone("ពាក្យសម្ងាត់៖ Vd83kQm2Zp7xWn\n", "Vd83kQm2Zp7xWn");
    assert_gone("പാസ്\u{200c}വേഡ്: Hq4Zt8mW2pLx9c\n", "Hq4Zt8mW2pLx9c");
    assert_gone(
        "正式環境的密碼是「copper+willow+dune+lark42」，別外傳\n",
        "copper+willow+dune+lark42",
    );
    assert_gone("Пароль: «Tz8q!Lm4Wx2p»\n", "Tz8q!Lm4Wx2p");
}

#[test]
fn a_sentence_where_a_value_would_be_is_prose() {
    assert_clean("Пароль: спросите у дежурного инженера.\n");
    assert_clean("סיסמה: לבקש מהמנהל.\n");
    assert_clean("비밀번호: 관리자에게 요청하세요.\n");
    assert_clean("Username: ops\nPassword: ask Tomasz, it's in the shared vault\n");
    assert_clean("Password: see the team vault entry \"Prod DB\"\n");
    // A value in another script with nothing after it is still a value.
    assert_gone("Пароль: Жёлтый7Лис\n", "Жёлтый7Лис");
}

#[test]
fn values_a_command_line_hands_over() {
    assert_gone(
        "ansible-playbook site.yml --vault-password-file <(echo 'Vt7!qLm2#Zp9')\n",
        "Vt7!qLm2#Zp9",
    );
    assert_clean("diff <(echo hello) <(echo world)\n");
    assert_gone(
        "$ pass insert -m infra/bmc/r2 <<'EOF'\nWq3*Zt8!Lm2#\nuser: ADMIN\nEOF\n",
        "Wq3*Zt8!Lm2#",
    );
    assert_gone(
        "kubeadm join 10.1.2.3:6443 --token q7zt2x.mkdwpqvbnhrlsayc --discovery-token-unsafe-skip-ca-verification\n",
        "mkdwpqvbnhrlsayc",
    );
    assert_gone(
        "sw1(config)#username ops privilege 15 secret 0 QuietHarborLantern\n",
        "QuietHarborLantern",
    );
    assert_gone(
        "reg add \"HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon\" /v DefaultPassword /t REG_SZ /d Mq8Zt3Wp7Lx2 /f\n",
        "Mq8Zt3Wp7Lx2",
    );
    assert_clean("reg add \"HKCU\\Software\\App\" /v Theme /t REG_SZ /d DarkBlueHighContrast /f\n");
}

#[test]
fn what_a_getter_or_a_generator_prints() {
    assert_gone(
        "$ jq -r .api_secret creds/bot.json\nq8Zt2Wm4Lp7Xk9Vn3Rb6Jd1H\n",
        "q8Zt2Wm4Lp7Xk9Vn3Rb6Jd1H",
    );
    assert_clean("$ jq -r .version package.json\n4.18.2\n");
    assert_gone(
        "\u{279c}  ~ kubectl -n db get secret pg -o jsonpath='{.data.password}' | base64 -d; echo\nMarblePlover\n",
        "MarblePlover",
    );
    assert_gone(
        "$ node -e \"console.log(require('crypto').randomBytes(24).toString('base64'))\"\nZ3q8Wm2Lp7Xk4Vn9Rb6Jd1HtQ5sYc0aF\n",
        "Z3q8Wm2Lp7Xk4Vn9Rb6Jd1HtQ5sYc0aF",
    );
    let out = redacted(
        "$ vault kv get secret/apps/billing\n====== Data ======\nKey         Value\n---         -----\nowner       billing-team\nvalue       Rk7Wq2Zt9Lm4Xp8Vn3Hb\n",
    );
    assert!(!out.contains("Rk7Wq2Zt9Lm4Xp8Vn3Hb"), "{out}");
    assert!(out.contains("billing-team"), "{out}");
}

#[test]
fn keys_an_sdk_or_a_page_is_given_are_public() {
    assert_clean("Purchases.configure(withAPIKey: \"goog_Zq8Wt2Lm4Xp7Vn3Rb6Jd1Hk\")\n");
    assert_clean(
        "<meta-data android:name=\"io.branch.sdk.BranchKey\" android:value=\"key_live_q8Zt2Wm4Lp7Xk9Vn3Rb6Jd1HtQ5sYc0a\" />\n",
    );
    assert_clean("publishKey: 'pub-c-6b1e2f3a-4c5d-4e6f-8a7b-9c0d1e2f3a4b',\n");
    assert_clean(
        "var _rollbarConfig = {\n    accessToken: \"4f9c2e7a1b3d5f8e0a6c9b2d4e7f1a3c\",\n    captureUncaught: true\n};\n",
    );
    assert_clean("https://checkout.stripe.com/c/pay/cs_test_a1Zq8Wt2Lm4Xp7Vn3Rb6Jd1HkQ5sYc0F\n");
    // The secret halves stay secrets.
    assert_gone(
        "PUBNUB_SECRET=sec-c-ZjQ4YTI5ZmMtNzE1Yi00ZDNmLWJlMDgtOGU0ZTcyMTZhYjQ5\n",
        "ZjQ4YTI5ZmMtNzE1Yi00ZDNmLWJlMDgtOGU0ZTcyMTZhYjQ5",
    );
}

#[test]
fn public_values_a_protocol_or_a_chain_carries() {
    assert_clean(
        "    Handshake Protocol: Server Hello\n        Random: 4d1f\n        Session ID: 9a3c5e7f1b2d4a6c8e0f2b4d6a8c0e1f3a5b7c9d1e3f5a7b9c0d2e4f6a8b0c1d\n",
    );
    assert_clean(
        "My Session ID: 05d2a4c6e8f0b1d3f5a7c9e0b2d4f6a8c1e3f5b7d9a0c2e4f6b8d0a1c3e5f7b9d0\n",
    );
    assert_clean(
        "geth --bootnodes enode://6f8a80d14311c39f35f516fa664deaaaa13e85b2f7493f37f6144d86991ec012937307647bd3b9a82abe2974e1407241d54947bbb39763a4cac9f77166ad92a0@192.0.2.17:30303\n",
    );
    assert_clean("const TOKEN_PROGRAM_ID = \"TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA\";\n");
    assert_clean("const BUDGET = \"ComputeBudget111111111111111111111111111111\";\n");
    // A WebAuthn assertion's signature, however its entropy reads.
    assert_clean(
        "{\"response\": {\"signature\": \"Q7M2K-zR4tWpXvL3nB-kd8Vq-530Yc6Hj0sQGk2Xw7Zf1Tn4Lp8Rq5Vb3Mc9Jd6Hs0Aa2Ee4Gg6Ii8Kk1Mm3Oo5Q_Ws7Ez\"}}\n",
    );
    // A session id a web app sets is its session.
    assert_gone(
        "Set-Cookie: session_id=Zq8Wt2Lm4Xp7Vn3Rb6Jd1HkQ5sYc0F; HttpOnly\n",
        "Zq8Wt2Lm4Xp7Vn3Rb6Jd1HkQ5sYc0F",
    );
}

#[test]
fn documentation_and_ciphertext_are_not_secrets() {
    assert_clean(
        "Tokens look like `github_pat_AAAAAAAAAAAAAAAAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB`.\n",
    );
    // jwt.io's example, whatever algorithm signs it.
    assert_clean(
        "eyJhbGciOiJIUzUxMiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.q8Zt2Wm4Lp7Xk9Vn3Rb6Jd1HtQ5sYc0aFg4Ke8Ui2Oy\n",
    );
    let sealed = "AgB".to_string() + &"Zq8Wt2Lm4Xp7Vn3Rb6Jd1HkQ5sYc0F+/".repeat(20);
    assert_clean(&format!(
        "kind: SealedSecret\nspec:\n  encryptedData:\n    a: {sealed}\n    b: {sealed}x\n    c: {sealed}y\n"
    ));
    // Preferences in base64 JSON; a tunnel's token in the same shape stays a secret.
    assert_clean("Set-Cookie: prefs=eyJ0aGVtZSI6ImxpZ2h0IiwibGFuZyI6ImZyIn0; Path=/\n");
    let tunnel = "eyJhIjoiNGY5YzJlN2ExYjNkNWY4ZTBhNmM5YjJkNGU3ZjFhM2MiLCJ0IjoiN2Q0ZTFhMmItM2M0ZC00ZTVmLThhOWItMGMxZDJlM2Y0YTViIiwicyI6IlpxOFd0MkxtNFhwN1ZuM1JiNkpkMUhrUTVzWWMwRj0ifQ==";
    assert_gone(
        &format!("cloudflared tunnel run --token {tunnel}\n"),
        &tunnel[20..60],
    );
}

#[test]
fn values_a_yaml_line_a_url_or_a_vendor_prefix_carry() {
    assert_gone(
        "registry:\n  auth_token: Zq8)W{t2Lm]4Xp7\n  timeout: 5s\n",
        "Zq8)W{t2Lm]4Xp7",
    );
    assert_gone(
        "cloud:\n  ak: QWERTYUIOPASDFGHJKLZ\n  sk: Mq8Zt3Wp7Lx2Vn9Rb6Jd1HtQ5sYc0aFg4Ke8Ui2O\n",
        "Mq8Zt3Wp7Lx2Vn9Rb6Jd1HtQ5sYc0aFg4Ke8Ui2O",
    );
    assert_clean("disk: /dev/nvme0n1p2\ntask=build\n");
    assert_gone(
        "10.0.0.9 - - \"POST /api/Resize?code=Zq8Wt2Lm4Xp7Vn3Rb6Jd1HkQ5sYc0FaGe9Ui2Oy6TrMq8Zt3Wp7Lx==&w=2 HTTP/1.1\" 200\n",
        "Zq8Wt2Lm4Xp7Vn3Rb6Jd1HkQ5sYc0FaGe9Ui2Oy6Tr",
    );
    assert_clean("GET /api/items?code=EUR&limit=20 HTTP/1.1\n");
    let lwa =
        "IwEBIZq8Wt2Lm4Xp7Vn3Rb6Jd1HkQ5sYc0FaGe9Ui2Oy6TrMq8Zt3Wp7Lx2-Vn9Rb6Jd1HtQ5sYc0aFg4Ke8Ui2Oy";
    assert_gone(
        &format!("| SP-API | ops@example.com | `Atzr|{lwa}` |\n"),
        &lwa[10..50],
    );
    let ebay = "v^1.1#i^1#f^0#p^3#I^3#r^1#t^Ul4xMF8yOjlGNzQ4QzE2RjVCMkY0NzM4M0Q1RDc3QjdCRUY2QkIzXzFfMSNFXjI2MA==";
    assert_gone(
        &format!("<ebl:eBayAuthToken>{ebay}</ebl:eBayAuthToken>\n"),
        &ebay[30..70],
    );
    assert_gone(
        "\\newcommand{\\apikey}{Mq8Zt3Wp7Lx2Vn9Rb6Jd1HtQ5sYc0aFg}\n",
        "Mq8Zt3Wp7Lx2Vn9Rb6Jd1HtQ5sYc0aFg",
    );
    assert_clean("\\newcommand{\\tokenname}{Bearer}\n");
    assert_gone(
        "{\"locale\":\"fr-FR\",\"auth\":\"Zq8Wt2Lm4Xp7Vn3Rb6Jd1HkQ5sYc0FaGe9Ui2Oy6Tr\"}\n",
        "Zq8Wt2Lm4Xp7Vn3Rb6Jd1HkQ5sYc0FaGe9Ui2Oy6Tr",
    );
    assert_clean("{\"auth\": \"basic\", \"retries\": 3}\n");
}

#[test]
fn codes_calls_and_traces_that_hold_a_password() {
    assert_gone(
        "$ sudo systemd-cryptenroll --recovery-key /dev/nvme0n1p3\nA secret recovery key has been generated for this volume:\n\n    \u{1f510} cbdefghi-jklnrtuv-vutrnlkj-ihgfedcb-bdfhjlnt-cegikrtv-ddffhhjj-kkllnnrr\n",
        "jklnrtuv-vutrnlkj",
    );
    assert_gone(
        "credentials += Credentials(\"Artifactory Realm\", \"repo.example.org\", \"ci\", \"walnut-harbor-quill-73\")\n",
        "walnut-harbor-quill-73",
    );
    assert_gone(
        "strcmp(\"guess\", \"Zt8qLm4Wx2pKv9\")            = -1\n",
        "Zt8qLm4Wx2pKv9",
    );
    assert_clean("strcmp(\"en_US\", \"C\") = 1\n");
    assert_gone(
        "[09:12] <ana> can you send me the staging login?\n[09:13] <raj> here you go: QmTxRwZpLkVbNs\n",
        "QmTxRwZpLkVbNs",
    );
    assert_gone(
        "[01/03/2026, 10:02:11] Tomas: ok here it is\n[01/03/2026, 10:02:15] Tomas: Zq8Wt2Lm==:Xp7Vn3Rb6Jd1HkQ5sYc0\n",
        "Xp7Vn3Rb6Jd1HkQ5sYc0",
    );
    assert_clean("[09:13] <raj> here you go: StagingBoxReadme\n");
}

#[test]
fn dumps_of_key_files_and_whole_environments() {
    let hex = "3082 04a3 0201 0002 8201 0100 c7f2 9a1b 4d6e 8f03 2c5b 7a9d 1e4f 6b8c";
    assert_gone(
        &format!("$ xxd tls/server.p12\n00000000: {hex}  0...\n"),
        "c7f2 9a1b 4d6e 8f03",
    );
    assert_gone(
        "$ od -An -tx1 krb/http.keytab\n 05 02 00 00 00 4a 00 01 00 0b 45 58 41 4d 50 4c\n 9f 3c 7a 21 d4 88 0e 6b 53 c1 aa 47 19 e2 70 b5\n",
        "9f 3c 7a 21 d4 88 0e 6b",
    );
    // A KeePass database is ciphertext: its bytes are not the key.
    assert_clean(
        "$ xxd vault.kdbx | head -1\n00000000: 03d9 a29a 67fb 4bb5 0100 0300 0210 0031  ....g.K........1\n",
    );
    assert_gone(
        "$ klist -k -K /etc/krb5.keytab\n   2 HTTP/web@EXAMPLE.ORG (aes256-cts-hmac-sha1-96)  (0x9f3c7a21d4880e6b53c1aa4719e270b5c8d2e41f0a6b3c5d7e9f1a2b4c6d8e0f)\n",
        "9f3c7a21d4880e6b53c1aa4719e270b5",
    );
    assert_gone(
        "$ printenv | sort\nHOME=/home/app\nLANG=C.UTF-8\nQ_X=Zq8Wt2Lm4Xp7Vn3Rb6Jd1HkQ5sYc0FaGe9Ui2Oy6Tr\n",
        "Zq8Wt2Lm4Xp7Vn3Rb6Jd1HkQ5sYc0FaGe9Ui2Oy6Tr",
    );
}
