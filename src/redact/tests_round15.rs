//! Round 15: a key wrapped over base64 lines after the line a rule names, a
//! connection string's two-word names and a password that opens with `~`, Ada's
//! `constant`, a header set by a call, a getter's verb as another option's value,
//! WiX's `Property`, kubeadm's bootstrap token and names of secrets written with `_`
//! for a blank; and, kept public, a JSON-escaped certificate, a JWK's public members,
//! `did:key`, a node's compressed public key, a Nano address, a KMS ciphertext,
//! validator withdrawal credentials, a BIND public key file, a script tag's key, a
//! `clientKey` and a job named in prose.

use super::tests::{alnum, assert_clean, assert_redacts, redacted};

/// `n` lines of base64, 76 wide, the last one shorter.
fn b64_lines(n: usize, indent: &str) -> String {
    let line = format!("{}+/{}", alnum(40), alnum(34));
    let mut out = String::new();
    for i in 0..n {
        let width = if i + 1 == n { 40 } else { 76 };
        out.push_str(indent);
        out.push_str(&line[..width]);
        out.push('\n');
    }
    out
}

#[test]
fn a_key_wrapped_over_base64_lines_is_redacted_whole() {
    let block = b64_lines(6, "      ");
    let text = format!("cluster: hpc\nmunge_key_b64: |\n{block}controller: ctl01\n");
    let out = redacted(&text);
    assert!(
        !out.contains(&alnum(34)),
        "a line of the key survived: {out}"
    );
    assert!(out.contains("controller: ctl01"), "{out}");
    let hex = "9f3ac1d27b4e5a6f8c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b";
    let text = format!(
        "$ borg key export /srv/repo -\nBORG_KEY {hex}\n{}",
        b64_lines(4, "")
    );
    let out = redacted(&text);
    assert!(
        !out.contains(&alnum(34)),
        "the export's key survived: {out}"
    );
    // Lines of other widths, or with words, are the next lines, not the key's.
    let text = format!("api_key: {}\nnotes: see the runbook\n", alnum(32));
    assert!(redacted(&text).contains("notes: see the runbook"));
}

#[test]
fn a_connection_strings_names_of_two_words_end_a_value() {
    let v = format!("~{}+{}", alnum(10), alnum(6));
    let text = format!(
        "Server=tcp:db.example.net,1433;Initial Catalog=Shop;User ID=app;Password={v};Encrypt=True;Connection Timeout=30;"
    );
    let out = redacted(&text);
    assert!(!out.contains(&v), "{out}");
    assert!(
        out.contains(";Encrypt=True;Connection Timeout=30;"),
        "{out}"
    );
    // A match operator is not a value that opens with a tilde.
    assert_clean("if ($password =~ /^\\w+$/) { ok() }\n");
}

#[test]
fn adas_constant_and_type_come_before_the_value() {
    let v = alnum(26);
    assert_redacts(
        &format!("   Broker_Password : constant String := \"{v}\";\n"),
        &v,
        "password",
    );
    assert_redacts(&format!("var Password: string := '{v}';\n"), &v, "password");
}

#[test]
fn a_header_set_by_a_call_is_redacted() {
    let v = format!("pk_{}_{}", 74_349_085, alnum(30));
    assert_redacts(
        &format!(".header(\"Authorization\", \"{v}\")\n"),
        &v,
        "auth-header",
    );
    assert_clean("let names = [\"Authorization\", \"Content-Type\"];\n");
}

#[test]
fn a_getters_verb_as_an_options_value_is_not_the_getter() {
    let v = alnum(24);
    assert_redacts(
        &format!("[admin@gw] > /user add name=mon group=read password=\"{v}\"\n"),
        &v,
        "password",
    );
}

#[test]
fn wix_properties_name_their_value() {
    let v = "Orbit-lantern-parsley-4658";
    assert_redacts(
        &format!("<Property Id=\"SERVICEPASSWORD\" Value=\"{v}\" Hidden=\"yes\" />\n"),
        v,
        "password",
    );
}

#[test]
fn kubeadms_bootstrap_token_is_a_token() {
    let v = "k7q2zx.p4m8r2t6w9c3x5z1";
    assert_redacts(
        &format!(
            "kubeadm join 10.0.0.10:6443 --token {v} \\\n  --discovery-token-ca-cert-hash sha256:00\n"
        ),
        v,
        "token",
    );
    assert_clean("token: com.example.v2\n");
}

#[test]
fn names_written_with_an_underscore_for_a_blank_are_names() {
    let v = alnum(22);
    for text in [
        format!("  құпия_сөз: {v}\n"),
        format!("  پاس_ورڈ: \"{v}\"\n"),
        format!("  \"erişim_anahtarı\": \"{v}\",\n"),
    ] {
        let out = redacted(&text);
        assert!(!out.contains(&v), "{out}");
    }
}

#[test]
fn a_json_escaped_certificate_is_not_a_key() {
    // `\nAwEA…`: read from the escape's `n`, the line would open like an OpenPGP
    // secret subkey packet.
    let text = format!(
        "{{\"Certificate\": \"-----BEGIN CERTIFICATE-----\\nMIIB{}\\nAwEAAaNQ{}\\n-----END CERTIFICATE-----\\n\"}}\n",
        alnum(60),
        alnum(56)
    );
    assert_clean(&text);
}

#[test]
fn public_halves_and_addresses_stay() {
    let n = format!("t3f_{}_{}-{}", alnum(40), alnum(30), alnum(20));
    assert_clean(&format!(
        "{{\"keys\": [{{\"kty\": \"RSA\", \"kid\": \"a1\", \"n\": \"{n}\", \"e\": \"AQAB\"}}]}}\n"
    ));
    assert_clean(&format!(
        "{{\"id\": \"did:key:z6Mk{}\", \"type\": \"Ed25519VerificationKey2020\"}}\n",
        alnum(44)
    ));
    let node = format!("02{}", "3c9a".repeat(16));
    assert_clean(&format!(
        "lncli connect {node}@ln.example.net:9735\nlncli openchannel --node_key {node} --local_amt 2000000\n"
    ));
    let nano = format!(
        "nano_3{}",
        "x1be9hk4s".repeat(7).get(..59).unwrap_or_default()
    );
    assert_clean(&format!("nano:{nano}?amount=1000\n"));
    assert_clean(&format!(
        "{{\"Name\": \"/prod/db-password\", \"Type\": \"SecureString\", \"Value\": \"AQICAHh{}\"}}\n",
        alnum(140)
    ));
    assert_clean(&format!(
        "{{\"pubkey\": \"a1\", \"withdrawal_credentials\": \"010000000000000000000000{}\"}}\n",
        "9e0f1a2b".repeat(5)
    ));
}

#[test]
fn browser_keys_and_public_key_files_stay() {
    assert_clean(&format!(
        "$ cat Kexample.net.+013+62332.key\nexample.net. 3600 IN DNSKEY 257 3 13 {}==\n",
        alnum(86)
    ));
    // A key in a script tag's URL is shipped to every visitor (a vendor's own shape,
    // `AIza…`, is still redacted: the same shape is a server key elsewhere).
    let v = alnum(39);
    assert_clean(&format!(
        "<script async\n  src=\"https://maps.example.com/api/js?key={v}&callback=init\">\n</script>\n"
    ));
    assert_clean(&format!(
        "const configuration = {{\n  clientKey: 'live_{}',\n}};\n",
        alnum(32)
    ));
}

#[test]
fn a_value_in_another_clause_is_not_the_labels() {
    assert_clean("2. Run the `rotate-db-user` job; it sets the password on the replica first.\n");
    // A statement's end before its comment is not prose.
    let v = "e4dc139c8dfdbd2a182c47e932c2e1b4";
    assert_redacts(
        &format!("const client = search('APPID', '{v}'); // admin key, server only\n"),
        v,
        "key",
    );
}

#[test]
fn escaped_quotes_inside_a_quoted_string_stay_around_the_marker() {
    // A host and its port is not a secret, escaped quotes or not.
    assert_clean(
        "error_context: \"PermissionDenied: Requires net access to \\\"api.example.org:443\\\", run again\"\n",
    );
    let v = alnum(30);
    for text in [
        format!("error_context: \"curl -H \\\"Authorization: Bearer {v}\\\" https://x\"\n"),
        format!("note: \"set the db password to \\\"{v}\\\" for now\"\n"),
        format!("msg: \"invalid access token \\\"{v}\\\" given\"\n"),
    ] {
        let out = redacted(&text);
        assert!(!out.contains(&v), "{out}");
        assert!(
            out.contains("]\\\""),
            "the escape before the closing quote was cut: {out}"
        );
    }
}
