//! Round 18: a shell variable's value read past its commas, a TLS key log's secret,
//! a debugger's printed value of a secret's name, and names of secrets in other
//! scripts capitalised; and, kept as they are, a sentence that names a PEM header,
//! `pass ls`'s title, OpenSSL's salted ciphertext and a list of names after a value.

use super::tests::{assert_clean, assert_gone, redacted};

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

#[test]
fn ingest_urls_private_feeds_and_reset_links_lose_their_route_token() {
    let cases = [
        (
            "https://endpoint7.collection.eu.sumologic.com/receiver/v1/http/",
            "ZaVnC4dhaV7eRuNUH95arFOlwPJi2YwaWW9bBH_UkbHGu",
        ),
        (
            "https://logs-01.loggly.com/inputs/",
            "238dc7aa-6ff2-4103-9c03-1186e1c98bdb",
        ),
        (
            "https://calendar.google.com/calendar/ical/x%40gmail.com/private-",
            "ca853d1ef10b1383123e664d4160a9a6",
        ),
        (
            "https://portal.example/reset/NzY1Mg/",
            "chmt1ee-6d070876ebceb92050dfea93d136ccaf",
        ),
    ];
    for (url, token) in cases {
        assert_gone(&format!("{url}{token}/basic\n"), token);
    }
    assert_clean("See https://docs.example.com/private-networking/overview for details\n");
    assert_clean("https://example.com/reset/password/help\n");
}

#[test]
fn key_bytes_keyfiles_and_volume_key_dumps_are_redacted() {
    let out = redacted(
        "const SESSION_KEY: [u8; 32] = [\n    211, 178, 51, 142, 174, 103, 253, 8, 196, 177, 175, 195, 15, 84, 5, 146,\n    205, 49, 142, 23, 159, 86, 18, 180, 120, 230, 209, 17, 217, 22, 175, 131,\n];\n",
    );
    assert!(
        !out.contains("211, 178") && !out.contains("175, 131"),
        "{out}"
    );
    let out = redacted(
        "static final byte[] LEGACY_3DES_KEY = new byte[] {\n  (byte) 0x17, (byte) 0xF1, (byte) 0x22, (byte) 0xDB, (byte) 0x74, (byte) 0xB8, (byte) 0x82, (byte) 0x59, (byte) 0x44, (byte) 0xEB, (byte) 0x37, (byte) 0xD8, (byte) 0x4B, (byte) 0xE3, (byte) 0xF7, (byte) 0x75\n};\n",
    );
    assert!(
        !out.contains("(byte) 0x") && !out.contains(" (byte) ["),
        "{out}"
    );
    let hex = "9b8eafbdf635c705f687611be31f25a3bf654fc1ea6e8d0ee27a32cc896a563b";
    assert_gone(&format!("# cat /etc/zfs/keys/secure.hex\n{hex}\n"), hex);
    assert_gone(&format!("$ xxd -p /etc/krb5.keytab\n{hex}\n"), hex);
    let out = redacted(
        "MK bits:       \t512\nMK dump:\t28 48 90 11 90 ad 49 8f 73 d1 9f c4 ca cb aa b3\n\t\tcb 49 fb 14 9c 45 07 42 02 ef 7f f2 b7 10 e3 e5\n",
    );
    assert!(
        !out.contains("28 48 90") && !out.contains("b7 10 e3"),
        "{out}"
    );
    // Eight bytes are no key.
    assert_clean("Volume key:\t28 48 90 11 90 ad 49 8f\n");
}

#[test]
fn credentials_in_command_positions_and_protocol_traces_are_redacted() {
    assert_gone(
        "root@api-03:~# rabbitmqctl add_user orders-svc %h3f.=MwG8GXYQ@b\n",
        "%h3f.=MwG8GXYQ@b",
    );
    assert_gone(
        "sw-07(config)#username netops secret 0 #WC4n-Nt7M0k\n",
        "#WC4n-Nt7M0k",
    );
    assert_gone(
        "`microk8s join 172.27.165.241:25000/25f8b3c10d407aecc5cc2fffcad2e888/8a96584dd9db`\n",
        "25f8b3c10d407aecc5cc2fffcad2e888",
    );
    assert_gone(
        "terraform apply -auto-approve -var 'db_password=Zd)VI|IeOu?c,~9I&Mh2'\n",
        "Zd)VI|IeOu?c,~9I&Mh2",
    );
    assert_gone(
        "runcmd:\n  - |\n    chpasswd <<EOF\n    ubuntu:2zpcAVXlJ_Jz:ytpb\n    EOF\n",
        "2zpcAVXlJ_Jz:ytpb",
    );
    assert_gone(
        "static NSString * const kVPNPassword = @\"59L4.KVPwRXMvJm\";\n",
        "59L4.KVPwRXMvJm",
    );
    assert_gone(
        "19:45:58.741115 IP 10.0.0.1.53041 > 10.0.0.2.161:  C=UAyfCuFR6pRW GetNextRequest(28)  .1.3.6.1\n",
        "UAyfCuFR6pRW",
    );
    assert_gone(
        "connection.start_ok: mechanism=PLAIN response=<<0,\"lars\",0,\"SCigqGT8DQGzVf\">> locale=en_US\n",
        "SCigqGT8DQGzVf",
    );
    assert_gone(
        "openat(AT_FDCWD, \"/run/secrets/db_password\", O_RDONLY) = 3\nread(3, \"NaPJhsOi4UBxtUxv\\n\", 4096) = 17\n",
        "NaPJhsOi4UBxtUxv",
    );
    assert_gone(
        "<tr><td class=\"e\">$_SERVER['DD_APP_KEY']</td><td class=\"v\">0535dafb4d72bde1bfc12199071987ee27f3001f</td></tr>\n",
        "0535dafb4d72bde1bfc12199071987ee27f3001f",
    );
    assert_gone(
        "    authentication: simple (0)\n        simple: keY9RC+_rQ2xLm\n",
        "keY9RC+_rQ2xLm",
    );
    let env = "# tr '\\0' '\\n' < /proc/1/environ\nHOSTNAME=5f2c8e1a9b3d\nK=8iXBBSmh4Zq5PKyCFGAeGoDaiDp-fdBzUEKgVHFqUBY\nTERM=xterm-256color\nGIT_SHA=9fceb02d0ae598e95dc970b74767f19372d61af8\n";
    let out = redacted(env);
    assert!(
        !out.contains("8iXBBSmh4Zq5")
            && out.contains("HOSTNAME=5f2c8e1a9b3d")
            && out.contains("TERM=xterm-256color")
            && out.contains("9fceb02d0ae5"),
        "{out}"
    );
    // Cut short at the end of the text: nothing to read past, nothing found.
    assert_clean("x C=\"abcdefgh");
    // The default community, a join to a bare host, a wordy user: kept.
    assert_clean(
        "12:00:00.1 IP 10.0.0.1.5 > 10.0.0.2.161:  C=\"public\" GetRequest(28)  .1.3.6.1\n",
    );
    assert_clean("consul join 10.0.0.1 10.0.0.2\nrabbitmqctl add_user guest guest\n");
    assert_clean("sudo zerotier-cli join 8bd5124fd6f45ffe\n");
    assert_clean(
        "openat(AT_FDCWD, \"/etc/hosts\", O_RDONLY) = 3\nread(3, \"127.0.0.1 localhost\\n\", 4096) = 20\n",
    );
}
