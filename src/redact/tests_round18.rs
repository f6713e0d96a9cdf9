//! Round 18: a shell variable's value read past its commas, a TLS key log's secret,
//! a debugger's printed value of a secret's name, and names of secrets in other
//! scripts capitalised; and, kept as they are, a sentence that names a PEM header,
//! `pass ls`'s title, OpenSSL's salted ciphertext and a list of names after a value.

use super::tests::{assert_clean, redacted};

#[track_caller]
fn assert_gone(text: &str, secret: &str) {
    let out = redacted(text);
    assert!(!out.contains(secret), "secret survived in {out:?}");
}

#[test]
fn a_shell_variable_keeps_its_commas() {
    assert_gone(
        "+ RSYNC_PASSWORD=Mb4,Tr9=q2XwLp7 rsync -av dist/ rsync://m@h/site/\n",
        "Tr9=q2XwLp7",
    );
    assert_gone(
        "7 3 * * * PASSPHRASE=Kd2,mF5Q0vo=Pj4oU duplicity /srv b2://x@b/srv\n",
        "mF5Q0vo=Pj4oU",
    );
    // Another variable after the comma still starts a new assignment, and a list's
    // names are words.
    let out = redacted("DB_PASSWORD=Zr8qWm2xLp,DB_HOST=db.internal\n");
    assert!(out.contains("DB_HOST=db.internal"), "{out}");
    let out = redacted("mount -o username=svc,password=Qw8zLm2xTr,domain=CORP //fs/share /mnt\n");
    assert!(
        out.contains("domain=CORP") && !out.contains("Qw8zLm2xTr"),
        "{out}"
    );
}

#[test]
fn a_tls_key_log_loses_its_secrets_not_its_labels() {
    let random = "a07cbec2de11308d8959a21bec515f02c098eb066ba60649954f1af4b237e408";
    let secret = "e35d7ed6835f037392cdc3c6c781c875c3d6f36d93f86fafc29cb991c7ebf1d8";
    for label in [
        "CLIENT_RANDOM",
        "SERVER_HANDSHAKE_TRAFFIC_SECRET",
        "CLIENT_TRAFFIC_SECRET_0",
        "EXPORTER_SECRET",
    ] {
        let out = redacted(&format!(
            "# SSL/TLS secrets log file\n{label} {random} {secret}\n"
        ));
        assert!(!out.contains(secret) && out.contains(label), "{out}");
    }
    // Not at a line's start: a sentence that names the label.
    assert_clean(&format!(
        "grep for CLIENT_RANDOM {random} in the capture notes\n"
    ));
}

#[test]
fn a_debugger_printing_a_secrets_name_prints_the_secret() {
    let v = "Rv5B3v9W5ri@-A7mbDh";
    assert_gone(
        &format!("(gdb) p cfg->db_password\n$1 = 0x54c30b3712b9 \"{v}\"\n(gdb) bt\n"),
        v,
    );
    assert_gone(&format!("(Pdb) p self.password\n'{v}'\n(Pdb) c\n"), v);
    assert_gone(&format!("(lldb) po apiToken\n{v}\n"), v);
    assert_gone(
        &format!("(lldb) p secret_key\n(std::string) $0 = \"{v}\"\n"),
        v,
    );
    // A name that says nothing secret, and a password policy, are kept.
    assert_clean("(gdb) p user\n$1 = 0x55a0 \"admin\"\n");
    assert_clean("(Pdb) p self.password_policy\n'min 12 chars'\n");
}

#[test]
fn names_of_secrets_in_other_scripts_count_capitalised() {
    assert_gone(
        "Användarnamn: dmitri\nLösenord: UC=6V_aIfG9%I3\n",
        "UC=6V_aIfG9%I3",
    );
    assert_gone("Գաղտնաբառ: rcodDc5J5s7s!f0q\n", "rcodDc5J5s7s!f0q");
    assert_gone("ПАРОЛЬ: Zx81mQpw!rT5\n", "Zx81mQpw!rT5");
    assert_gone(
        "API 金鑰：GZvpAKyes2JzQgvBUZP9XcNTaOOxgxy\n",
        "GZvpAKyes2JzQgvBUZP9XcNTaOOxgxy",
    );
}

#[test]
fn an_arm_parameter_with_its_type_first_loses_its_default() {
    let v = "63IS4_Np4*5t";
    assert_gone(
        &format!(
            "{{\"adminPassword\": {{\"type\": \"securestring\", \"defaultValue\": \"{v}\"}}}}\n"
        ),
        v,
    );
    assert_clean("{\"adminUser\": {\"type\": \"string\", \"defaultValue\": \"azureuser\"}}\n");
}

#[test]
fn what_only_looks_like_a_secret_after_its_name_is_kept() {
    assert_clean("If your key file starts with -----BEGIN RSA PRIVATE KEY----- it is PKCS#1.\n");
    assert_clean("$ pass ls\nPassword Store\n├── email\n│   └── work\n");
    assert_clean(
        "$ openssl enc -aes-256-cbc -pbkdf2 -a -in notes.txt\nenter AES-256-CBC encryption password:\n\
         U2FsdGVkX19hbmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3ODk=\n",
    );
    // A key cut short still goes, to the end of the text.
    let out = redacted(
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n",
    );
    assert!(!out.contains("AoIBAQC7"), "{out}");
}
