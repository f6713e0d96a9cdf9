//! Unit tests for secrets named only by words around them (`assign/label.rs`): a value a
//! sentence names a few words on, one under a label or a chat question, a REPL's answer,
//! the line under a comment, the cells of a table's secret column — and the public
//! look-alikes and placeholders beside such words that must stay.

use super::*;

#[track_caller]
fn assert_hidden(text: &str, secret: &str) {
    let out = redact(text).into_owned();
    assert!(!out.contains(secret), "secret survived in {out:?}");
    assert!(out.contains("[REDACTED:"), "no marker in {out:?}");
}

#[track_caller]
fn assert_clean(text: &str) {
    let found = findings(text);
    assert!(found.is_empty(), "false positive in {text:?}: {found:?}");
}

#[test]
fn a_value_a_sentence_or_a_label_names_is_redacted() {
    for (text, secret) in [
        (
            "the vault passphrase for the backup box is tundra_kettle_moss_ferry482, rotate it",
            "tundra_kettle_moss_ferry482",
        ),
        (
            "Admin password for the staging router: Qm7vZt2Lw9xPaR4k",
            "Qm7vZt2Lw9xPaR4k",
        ),
        (
            "# legacy token, still accepted until the cut-over: 9fK2mQ7xLp4RtV8wZc3N",
            "9fK2mQ7xLp4RtV8wZc3N",
        ),
        (
            "Recovery Key:\n\n\t114829-602317-998140-235567-771209-430086-510274-889913",
            "114829-602317",
        ),
        (
            "Use this app password for the mail client:\n\n    qzvk-trbn-hxlw-pmsd",
            "qzvk-trbn-hxlw-pmsd",
        ),
        (
            "Type this setup key into your authenticator:\n  kd7q mzp2 x4wr ny6t",
            "kd7q mzp2 x4wr ny6t",
        ),
        (
            "[09:12] ana: which token does the deploy job use?\n[09:13] raj: this one Hx8pQ2vLk9mZ4tRw7YcB3n\n",
            "Hx8pQ2vLk9mZ4tRw7YcB3n",
        ),
        (
            "[11:02] ops: the shared secret for the hook, keep it out of git\n[11:03] dev: Vb4nK8sQ1xZ7mW2pL9rT5yHc\n",
            "Vb4nK8sQ1xZ7mW2pL9rT5yHc",
        ),
        (
            "In [4]: os.environ['ACME_DEPLOY_TOKEN']\nOut[4]: 'r8Lq2Vx7Kp4Zm9Wt3Nc6Bh1J'\n",
            "r8Lq2Vx7Kp4Zm9Wt3Nc6Bh1J",
        ),
        (
            "> localStorage.getItem('session_token')\n< 'Tz5kW1qP8vN3xL7mR2cY9bH4'",
            "Tz5kW1qP8vN3xL7mR2cY9bH4",
        ),
        (
            "// temporary admin token for the canary API, remove before release\nconst CANARY = \"Gp3xW8qL2vZ7kT9mN4rB6yHd\";",
            "Gp3xW8qL2vZ7kT9mN4rB6yHd",
        ),
    ] {
        assert_hidden(text, secret);
    }
}

#[test]
fn every_cell_of_a_tables_secret_column_is_redacted() {
    let csv = "site,login,password,note\nnas,admin,Rb7!kQ2mZx9v,attic\nwiki,editor,Lp4#tW8nXc2q,\n";
    for secret in ["Rb7!kQ2mZx9v", "Lp4#tW8nXc2q"] {
        assert_hidden(csv, secret);
    }
    let markdown = "| Service | User | Password |\n|---|---|---|\n| Nexus | deploy | `Hq2vN8xK4mZ7` |\n| Sonar | admin | ask in #ops |";
    assert_hidden(markdown, "Hq2vN8xK4mZ7");
    assert!(redact(markdown).contains("ask in #ops"));
    let sqlite = "sqlite> SELECT id, owner, token, created FROM keys;\n7|ci|Wm3pX8qV2kL9zT4nR7cB5yHd|2026-01-02";
    assert_hidden(sqlite, "Wm3pX8qV2kL9zT4nR7cB5yHd");
    let psql = " id | name  | secret\n----+-------+--------------------------\n  1 | hooks | Zr6tK1pW9xQ4mV7nL2cB8yHs\n";
    assert_hidden(psql, "Zr6tK1pW9xQ4mV7nL2cB8yHs");
}

#[test]
fn values_shapes_and_prefixes_that_hid_a_named_secret_are_read() {
    for (text, secret) in [
        // A generated passphrase whose number is glued to its last word.
        (
            "#define MQTT_PASSWORD \"amber.lantern.quiver.spruce408\"",
            "amber.lantern.quiver.spruce408",
        ),
        // `less` prints a file as `cat` does.
        (
            "$ less /etc/ppp/pap-secrets\nrouter  *  \"Kp3xW9vQ2mZ7nL4t\"  *",
            "Kp3xW9vQ2mZ7nL4t",
        ),
        // `grep -rn`'s `file:line:` before a directive.
        (
            "anaconda.cfg:12:rootpw --plaintext Wq8zN3vK5pL2",
            "Wq8zN3vK5pL2",
        ),
        // A qualifier before `api` does not make an API key a host's public key.
        (
            "DOCS_HOST_API_KEY=5e0c2a9b71f34d8e9a6b0c1d2e3f4a5b npm run upload",
            "5e0c2a9b71f34d8e9a6b0c1d2e3f4a5b",
        ),
        // A secret word as the token's prefix, its body machine-made: not a name.
        (
            "PAYGATE_SECRET_KEY=\"skey_q7m2x9k4v1z8p3w6\"",
            "skey_q7m2x9k4v1z8p3w6",
        ),
        // A heading that ends with the name, over the value alone on its line.
        (
            "Wallet > Settings > Export Private Key\n4vJ9qLmX2pT7rW3nK8sZ5yHcB6dF1gQ\nNever share it.",
            "4vJ9qLmX2pT7rW3nK8sZ5yHcB6dF1gQ",
        ),
        // LND's macaroon, a wallet's export, Tor's key file read through base64.
        (
            "curl -H \"Grpc-Metadata-macaroon: 0201036c6e640258030a10b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6\" https://node:8080/v1/getinfo",
            "0201036c6e640258030a10b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6",
        ),
        (
            "$ lotus wallet export f1abcdefghijklmnopqrstuvwxyz234567abcde\n7b2254797065223a22626c73222c22507269766174654b6579223a22",
            "7b2254797065223a22626c73222c22507269766174654b6579223a22",
        ),
        (
            "$ sudo base64 -w0 /var/lib/tor/hs/hs_ed25519_secret_key\nPT0gZWQyNTUxOXYxLXNlY3JldDogdHlwZTAgPT0AAAA4QkF2bXo3cTlMcFgyUjVrVzhzTjF2QzRqRjdnSDNtWTBlWjZ0UTJ3",
            "PT0gZWQyNTUxOXYxLXNlY3JldDogdHlwZTAgPT0AAAA4QkF2bXo3",
        ),
        // Twenty random capitals: an Erlang distribution cookie.
        (
            "erl -sname a -setcookie QWRTZPLKMNBVCXYHGFDS",
            "QWRTZPLKMNBVCXYHGFDS",
        ),
    ] {
        assert_hidden(text, secret);
    }
    // A dotted property path and a host's public key stay.
    assert_clean("spring.datasource.password=config.secrets.dbPassword");
    assert_clean("SSH_HOST_KEY=/etc/ssh/ssh_host_ed25519_key.pub");
}

#[test]
fn public_values_beside_secret_words_and_placeholders_stay() {
    for text in [
        // Qualified as public, or about the secret rather than the secret.
        "public key for the relay: 7f3a9c1e5b2d4f6a8c0e2b4d6f8a0c2e",
        "key id: 3AA5C34371567BD2 (expires 2027-01-01)",
        "[10:01] ana: did the token expire?\n[10:02] raj: yes, see 2026-01-14T10:02:11Z",
        // A command's argument is not a label of what the command prints.
        "$ nix key convert-secret-to-public < key.sec\ncache.example.org-1:Xy7ZpQ2kLm9vTr4WcN8bH3jD5fG6sA1eR0uI2oP3qK4=",
        "$ wg pubkey < /etc/wireguard/private.key\nAbC9dEfGh1JkLmN2pQrStU3vWxYz4aBcD5eFgH6iJkL=",
        // Short words under a label, dates, a table of placeholders.
        "Password:\n\n    must have twelve characters",
        "Backup key rotation dates:\n  2026-01-14 2026-04-14 2026-07-14",
        "user,password\nalice,changeme\nbob,<set-me>\n",
        // Masks, elisions, fillers, counted bytes and integer literals.
        "IMAP server: imap.example.org\nPassword: ●●●●●●●●●●",
        "key sk-live-…9Qx2 was revoked",
        "jwt_secret: REPLACE_ME\nsmtp_password: CHANGE_ME",
        "key = bytes.fromhex(\"000102030405060708090a0b0c0d0e0f\")",
        "public static final int button_login=0x7f0b2a79;",
        // Names that contain a secret word but name no secret.
        "deploy ALL=(ALL) NOPASSWD:ALL",
        "> Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        "< www-authenticate: Bearer realm=\"api\", error=\"invalid_token\"",
        "X-Hub-Signature-256: sha256=5d41402abc4b2a76b9719d911017c592ae6e8f7b0c4d2e1f3a5b7c9d0e1f2a3b",
        "{\"alg\":\"ES256\",\"kid\":\"b1e0c3f5a7d9e2c4b6a8f0d1e3c5a7b9\"}  <- the key id of the signing key",
        "$ cat config/credentials.yml.enc\nQm9zc2Vz3kT7pV2xW9qL4mZ8nR1cB6yHdJ5sF0gK2tP7vX3wQ9",
        "window.NREUM.loader_config = { licenseKey: \"NRJS-4b2a9c8d7e6f5a4b3c2\" }",
        // A browser SDK's client key and a tokenization key are made for the page.
        "const checkout = await Checkout({ clientKey: 'live_Q7ZK2M9XW4PV8RT3NC6BH1JD' });",
        "braintree.client.create({ authorization: 'sandbox_q7m2x9k4_v1z8p3w6r5t2y8u4' })",
        // A signature file's comment says whose key signed; the line below is public.
        "untrusted comment: signature from minisign secret key\nRUQf8Zq2vLk9mZ4tRw7YcB3nXp1sD6gH5jK0aE8uI2oP3qW7eR4tY9uI1oP5aS6dF",
        // A secret's name with a version in it is still a name.
        "password: settings.db_password_v2",
    ] {
        assert_clean(text);
    }
}

#[test]
fn lines_cut_at_a_rules_bound_end_the_reading_without_a_panic() {
    let pad = " ".repeat(600);
    for text in [
        format!("// token for the canary\nconst A ={pad}\"Gp3xW8qL2vZ7kT9mN4rB6yHd\";"),
        format!("In [1]: os.environ['ACME_DEPLOY_TOKEN']\nOut[1]:{pad}'r8Lq2Vx7Kp4Zm9Wt3Nc6Bh1J'"),
        format!("Recovery Key:\n{pad}114829-602317-998140-235567-771209-430086"),
        format!("site,login,password\nnas,admin,{pad}Rb7!kQ2mZx9v"),
        format!("the password is{pad}Qm7vZt2Lw9xPaR4k"),
        // Rules that were there before the label rules, with the same cut.
        format!("DBPassword:\n{pad}Default: Qm7vZt2Lw9xPaR4k"),
        format!("$ cat secrets.env\nDB_PASSWORD\n{pad}Qm7vZt2Lw9xPaR4k"),
        format!("{pad}password{pad}\n{pad}"),
    ] {
        let out = redact(&text);
        assert!(findings(&out).is_empty(), "not idempotent on {text:?}");
    }
}
