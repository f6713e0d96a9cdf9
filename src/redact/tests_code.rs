//! Round 11: credentials handed over in code and commands (a client's constructor, a
//! template's default, a key's bytes, an XML name/value pair, a CLI's aligned table,
//! impacket's hashes), and public material by its own marks (inlined images, Sentry
//! DSNs, AEAD tags, ETags, Windows paths, host names, Statsig client keys).

use super::tests::{assert_clean, assert_redacts, redacted};

#[test]
fn a_clients_constructor_gives_its_credential_away() {
    for (text, secret) in [
        (
            "sdk = acme.SDK(\"APP_USR-4471029384756102-110923-9f8e7d6c5b4a39281706f5e4d3c2b1a0-55512\")",
            "9f8e7d6c5b4a3928",
        ),
        (
            "bird.initClient('Qm7Rt2Vx9Lp4Kd8Zs3Hn6Wc1')",
            "Qm7Rt2Vx9Lp4Kd8Zs3Hn6Wc1",
        ),
        (
            "ld = LDClient(Config(\"sdk-0c9f1e2d-3b4a-4c5d-8e6f-7a8b9c0d1e2f\"))",
            "0c9f1e2d-3b4a",
        ),
        (
            "p = new ethers.AcmeProvider('mainnet', 'Zx8Cv7Bn6Mq5Wl4Ek3Rj2Th1');",
            "Zx8Cv7Bn6Mq5Wl4Ek3Rj2Th1",
        ),
        (
            "var c = new Client(@\"https://api.example.test\", @\"Lk2Jh3Gf4Ds5Ap6Oi7Uy8Tr9\");",
            "Lk2Jh3Gf4Ds5Ap6Oi7Uy8Tr9",
        ),
        (
            "bot.run('NzQ1MjM0MTIzNDU2Nzg5MDEy.GhJ4kL.Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz')",
            "GhJ4kL.Qw8Er7Ty6Ui5Op",
        ),
    ] {
        let out = redacted(text);
        assert!(!out.contains(secret), "{secret} survived in {out:?}");
    }
    // A region, a name, a URL: the other arguments stay.
    assert_clean("s3 = boto3.client('s3', region_name='eu-west-1')");
    assert_clean("const app = initializeApp(firebaseConfig); getAuth(app)");
    assert_clean("c = HttpClient(\"https://api.example.test/v2/items\", timeout=30)");
    // Statsig's client keys are made for the browser.
    assert_clean(
        "const client = new StatsigClient('client-Vb3Nm4Qw5Er6Ty7Ui8Op9As0Df', { userID: u.id });",
    );
}

#[test]
fn a_templates_default_for_a_secret_is_a_value() {
    assert_redacts(
        "db_password: \"{{ db_password | default('Wq7Er9Ty2Ui4Op6As') }}\"",
        "Wq7Er9Ty2Ui4Op6As",
        "password",
    );
    assert_redacts(
        "  password: {{ .Values.cache.password | default \"Zx3Cv5Bn7Mq9Wl2Ek\" | b64enc }}",
        "Zx3Cv5Bn7Mq9Wl2Ek",
        "password",
    );
    // Not a secret's default, or not a value.
    assert_clean("  replicas: {{ .Values.replicas | default \"3\" }}");
    assert_clean("  image: {{ .Values.image.tag | default \"v1.2.3-abcdef0\" }}");
    assert_clean("  password: {{ .Values.db.password | default \"changeme\" }}");
}

#[test]
fn a_key_written_as_its_bytes_is_a_key() {
    assert_redacts(
        "advanced:\n  network_key: [12, 201, 7, 99, 145, 33, 250, 18, 64, 177, 5, 230, 91, 140, 66, 3]\n",
        "201, 7, 99",
        "key",
    );
    assert_redacts(
        "static final byte[] KEY = new byte[] {\n  (byte) 0x1f, (byte) 0xa0, (byte) 0x3c, (byte) 0x77, (byte) 0xe2, (byte) 0x09, (byte) 0x5d, (byte) 0xc4, (byte) 0x81, (byte) 0x2b, (byte) 0xf6, (byte) 0x40, (byte) 0x9e, (byte) 0x13, (byte) 0xd8, (byte) 0x65\n};",
        "0x3c, (byte) 0x77",
        "key",
    );
    // Counted up, or one byte over and over: a test vector and a buffer.
    assert_clean("test_key = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]");
    assert_clean("zero_key = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]");
}

#[test]
fn an_xml_name_over_its_value() {
    assert_redacts(
        "<property>\n  <name>fs.s3a.secret.key</name>\n  <value>Hj7Kl9Zx2Cv4Bn6Mq8Wl1Ek3Rt5Yu7Io9Pa0Sd2F</value>\n</property>",
        "Hj7Kl9Zx2Cv4Bn6Mq8Wl1Ek3",
        "secret",
    );
    assert_redacts(
        "<stringProp name=\"Argument.name\">password</stringProp>\n<stringProp name=\"Argument.value\">Tr5Yu7Io9Pa0Sd2F</stringProp>",
        "Tr5Yu7Io9Pa0Sd2F",
        "password",
    );
    assert_clean(
        "<property>\n  <name>dfs.namenode.keytab.file</name>\n  <value>/etc/security/nn.keytab</value>\n</property>",
    );
}

#[test]
fn a_cli_table_lines_its_values_up_under_labels() {
    let out = redacted(
        "Access Token     00Dxx0000001gPL!AR8AQJXg5oj8jXSgxJfA0lBog.Xc9Vb7Nm5Qw3Er1Ty\nInstance Url     https://acme.my.example.com\n",
    );
    assert!(!out.contains("AR8AQJXg5oj8jXSgx"), "{out}");
    assert!(
        out.contains("Instance Url     https://acme.my.example.com"),
        "{out}"
    );
    assert_clean("Token ID     00Dxx0000001gPL\nStatus       Active\n");
}

#[test]
fn commands_and_urls_that_carry_a_login() {
    assert_redacts(
        "Authorization: App 8c1f0e2d3b4a5c6d7e8f9a0b1c2d3e4f-0a1b2c3d",
        "8c1f0e2d3b4a5c6d",
        "auth-header",
    );
    assert_redacts(
        "impacket-psexec -hashes aad3b435b51404eeaad3b435b51404ee:3f9c2b7a1e8d4c6f0a5b9e2d7c1f8a3b CORP/admin@10.1.2.3",
        "3f9c2b7a1e8d4c6f0a5b9e2d7c1f8a3b",
        "ntlm-hash",
    );
    assert_redacts(
        "svc:1104:aad3b435b51404eeaad3b435b51404ee:7e1d9c3b5a2f8e4d6c0b1a9f3e7d5c2b:::",
        "7e1d9c3b5a2f8e4d6c0b1a9f3e7d5c2b",
        "ntlm-hash",
    );
    assert_redacts(
        "impacket-secretsdump 'CORP/svc.ops:Kq7~Wz3Rt9Yp2@10.20.30.40'",
        "Kq7~Wz3Rt9Yp2",
        "password",
    );
    assert_redacts(
        "WIFI:T:WPA;S:Guest-Net;P:Fern.Harbor7731;;",
        "Fern.Harbor7731",
        "password",
    );
    assert_redacts(
        "openssl enc -aes-256-cbc -in a.tar -out a.enc -K 0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a6978 -iv 00112233445566778899aabbccddeeff",
        "0f1e2d3c4b5a6978879",
        "key",
    );
    assert_redacts(
        "http://tsdb.example.test:8086/query?u=grafana&p=Yp4Rt7Wq2Zx9&db=t",
        "Yp4Rt7Wq2Zx9",
        "password",
    );
    assert_redacts(
        "curl -s https://9a8b7c6d5e4f30211a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d:@pkgs.example.io/install.sh | bash",
        "9a8b7c6d5e4f3021",
        "url-password",
    );
    assert_redacts(
        "samba-tool user create ana 'Vq9_Lm3Zt7Pw@' --given-name=Ana",
        "Vq9_Lm3Zt7Pw@",
        "password",
    );
    assert_redacts(
        "bundle config --global gems.vendor.example a81f30c2:9e4d7b16",
        "a81f30c2:9e4d7b16",
        "password",
    );
    assert_redacts(
        "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: \"rsa-key-20260101\"\nP2/56wAAAjAAAAA3aWYtbW9kbntzaWdue3JzYS1wa2NzMS1zaGExfSxlbmNyeXB0\ne3JzYS1wa2NzMXYyLW9hZXB9fQAAAARub25lAAAB4QAAAAAAAACAHNh\n---- END SSH2 ENCRYPTED PRIVATE KEY ----",
        "e3JzYS1wa2NzMXYyLW9hZXB9",
        "private-key",
    );
    assert_redacts(
        "{\"name\": \"Cookie\", \"value\": \"theme=dark; sid=4f0c9e2b7a1d8c3e6f5a0b9d2e7c1f8a3b6d9e0c; lang=en\"}",
        "4f0c9e2b7a1d8c3e",
        "cookie",
    );
    assert_redacts(
        "document.cookie -> \"connect.sid=s%3AqW3eR5tY7uI9oP1aS3dF5gH7jK9lZ1x.Vb3Nm5Qw7Er9Ty1Ui3Op5As7Df9Gh1Jk3Lz5Xc7\"",
        "qW3eR5tY7uI9oP1a",
        "cookie",
    );
    // Flags' values and settings stay.
    assert_clean("openstack user create --domain default --password-prompt demo");
    assert_clean("bundle config set --local path vendor/bundle");
    assert_clean(
        "---- BEGIN SSH2 PUBLIC KEY ----\nComment: \"rsa-key-20260101\"\nAAAAB3NzaC1yc2EAAAADAQABAAABAQC1\n---- END SSH2 PUBLIC KEY ----",
    );
}

#[test]
fn a_value_that_starts_like_a_home_dir_or_names_a_digest_may_be_a_secret() {
    assert_redacts(
        "db_password = \"~Qw8.zX3_Rt7Lp2Vb9Nm4\"",
        "~Qw8.zX3_Rt7Lp2Vb9Nm4",
        "password",
    );
    assert_redacts(
        "  api_key: fhb-3c7e1a9d5b2f8e4c6a0d9b1f7e3c5a8d",
        "3c7e1a9d5b2f8e4c",
        "api-key",
    );
    assert_redacts(
        "{\"api_key\": \"api-7E3C5A8D1F9B2E6C4A0D8B3F7E1C9A5D\"}",
        "7E3C5A8D1F9B2E6C",
        "token",
    );
    // A home dir, a cache key.
    assert_clean("key_file = \"~/.ssh/id_ed25519\"");
    assert_clean(
        "Cache restored from key: node-cache-9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    );
}

#[test]
fn public_material_keeps_its_own_marks() {
    assert_clean(
        ".icon-key { background-image: url(data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAAPElEQVR4nGNgGAWjYBSMglEwCkbBKBgFo2AUjIJRMApGwSgYBaNgFIyCUTAKRsEoGAWjYBSMglEwCkbBKBgFABXXAAGmj4vSAAAAAElFTkSuQmCC); }",
    );
    assert_clean(
        "Sentry.init({ dsn: \"https://5a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d@o123456.ingest.de.sentry.io/7654321\" });",
    );
    assert_clean(
        "{\n  \"encrypted_data\": \"qQXkE5cWKwV+p5h8JDyuMI/I5eXL6PPr\",\n  \"iv\": \"H4ELa6ZywYB9HeJ4\",\n  \"auth_tag\": \"F2p0aT/vsJAsRoFZjn/alg==\"\n}",
    );
    assert_clean(
        "{\"ETag\": \"\\\"6805f2cfc46c0f04559748bb039d69ae-3\\\"\", \"Key\": \"exports/2026/03/part.parquet\"}",
    );
    assert_clean(
        "Project(\"{A35CC77F-B9BA-40AA-B78F-AB7F3B1850FB}\") = \"Api\", \"src\\Api\\Api.csproj\", \"{CFEB4E88-69AC-43AC-840D-F60045C30C61}\"",
    );
    assert_clean(
        "NREUM.info={beacon:\"bam.eu01.nr-data.net\",licenseKey:\"NRJS-8009ff2e2c10f1461ff\"}",
    );
}

#[test]
fn secrets_named_in_other_languages() {
    for (text, secret) in [
        ("DB_KENNWORT=Xr7pQ2mZ9vL4", "Xr7pQ2mZ9vL4"),
        ("mot_de_passe: \"Ht5wK8nB3cR1\"", "Ht5wK8nB3cR1"),
        ("senha=Kd4Lp8Zs2Hn6", "Kd4Lp8Zs2Hn6"),
        ("пароль: Qw7Er9Ty2Ui4", "Qw7Er9Ty2Ui4"),
        ("Пароль от базы: Vb5Nm7Qw9Er1", "Vb5Nm7Qw9Er1"),
        ("数据库密码：Lp3Kd8Zs6Hn1Wc", "Lp3Kd8Zs6Hn1Wc"),
        ("パスワード: Zx8Cv7Bn6Mq5", "Zx8Cv7Bn6Mq5"),
        ("비밀번호=Tr4Yu6Io8Pa0", "Tr4Yu6Io8Pa0"),
        ("Das Passwort ist Ab3Cd5Ef7Gh9.", "Ab3Cd5Ef7Gh9"),
        ("la contraseña es Mn2Bv4Cx6Zl8", "Mn2Bv4Cx6Zl8"),
        (
            "api_schluessel = \"c7Rk2Wq9Zt4Lp8Vn3Hs6Jd1\"",
            "c7Rk2Wq9Zt4Lp8Vn3Hs6Jd1",
        ),
    ] {
        let out = redacted(text);
        assert!(!out.contains(secret), "{secret} survived in {out:?}");
    }
    assert_clean("parola chiave: dominio");
    assert_clean("пароль: ********");
    assert_clean("Passwort vergessen? Klicken Sie hier.");
}

#[test]
fn texts_cut_right_after_a_rules_anchor_end_the_reading_without_a_panic() {
    // Found by cutting every blind set's rows at every character.
    for text in [
        "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----",
        "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: \"k\"",
        "<name>fs.s3a.secret.key</",
        "<stringProp name=\"Argument.name\">password</stringProp>",
        "impacket-psexec -hashes ",
        "impacket-psexec -hashes aad3b435b51404eeaad3b435b51404ee:",
        "WIFI:T:WPA;S:Net;P:",
        "openssl enc -aes-256-cbc -K ",
        "db_password: \"{{ db_password | default('",
        "network_key: [128, 65,",
        "sdk = acme.SDK(\"",
        "пароль：",
        "Access Token    ",
    ] {
        let _ = redacted(text);
        let _ = redacted(&format!("{text}{}", " ".repeat(600)));
    }
}
