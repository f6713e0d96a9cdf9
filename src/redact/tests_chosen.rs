//! Unit tests for the rules that judge a credential by what surrounds it rather than by
//! its vendor: passwords people choose in commands that say credential, configuration
//! syntaxes (XML, plist, Cisco, kickstart, CloudFormation), URLs without a scheme's
//! `//`, links that act for their holder, and key material by its encoding — each with
//! the look-alikes it must leave alone.

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
fn chosen_passwords_in_commands_that_say_credential_are_redacted() {
    for (text, secret) in [
        (
            "$ ejabberdctl register yuki chat.example.ai Canyon2012@Zinc",
            "Canyon2012@Zinc",
        ),
        (
            "Command: mc admin user add local jdoe panda.bramble.aspen.930",
            "panda.bramble.aspen.930",
        ),
        (
            "$ mega-login dmitri@example.com Ginger_1510plum",
            "Ginger_1510plum",
        ),
        (
            "> redis-cli ACL SETUSER app on '>Galaxy+9779robin' '~cache:*'",
            "Galaxy+9779robin",
        ),
        (
            "$ db2 connect to BLUDB user db2inst1 using birchvelvetnebulagravel430",
            "birchvelvetnebulagravel430",
        ),
        (
            "$ isql -v PROD_DSN admin K++0.EmZ7Z.fjgqaagz",
            "K++0.EmZ7Z.fjgqaagz",
        ),
        (
            "$ vsql -h db -U dbadmin -w 'Banjo#6883yarrow' -c 'select 1'",
            "Banjo#6883yarrow",
        ),
        (
            "$ sendemail -f a@example.com -xu build@example.com -xp Crimson1996=Flint",
            "Crimson1996=Flint",
        ),
        (
            "$ echo 'Aspen+1930flint' | gopass insert -f infra/root",
            "Aspen+1930flint",
        ),
        (
            "$ echo -n 'spruce.bison.birch.638' | secret-tool store --label=x service y",
            "spruce.bison.birch.638",
        ),
        (
            "ftp -inv host <<EOF\nuser airflow Ridge1993-Hickory\nbye\nEOF",
            "Ridge1993-Hickory",
        ),
        (
            "1712343441.495608 [0 10.0.0.1:48053] \"AUTH\" \"1t1bL7-sFzxEGhME_q5MgFPl518I33tQ\"",
            "1t1bL7-sFzxEGhME_q5MgFPl518I33tQ",
        ),
        (
            "Running `curl -sS https://logs.example.com/v1 -u 0281a7f1be5490bae7a20a7b187bb469:`",
            "0281a7f1be5490bae7a20a7b187bb469",
        ),
    ] {
        assert_hidden(text, secret);
    }
}

#[test]
fn names_hosts_and_prose_beside_credential_words_stay() {
    for text in [
        "we failed to register Service2Worker in the build",
        "$ prosodyctl register maria xmpp.example.org",
        "$ kubectl auth can-i create pods --as system:serviceaccount:ci:runner",
        "$ docker compose -p api-gateway-prod-01 up -d",
        "$ ssh -l deploy -L 8080:localhost:80 bastion.example.com",
        "$ echo hello | gpg --passphrase-fd 0 --sign notes.txt",
        "$ echo \"$PASSPHRASE\" | gpg --passphrase-fd 0 --sign notes.txt",
        "git clone git@github.com:org/repo.git",
        "docker pull nginx:1.25@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31",
        "the user is not allowed to log in",
        "snmp-server community public RO",
        "password 3 times wrong, account locked",
    ] {
        assert_clean(text);
    }
}

#[test]
fn configuration_syntaxes_give_their_secrets_away() {
    for (text, secret) in [
        (
            "<property name=\"connection.password\">k39=+J3.CSShb0_iiA=orO</property>",
            "k39=+J3.CSShb0_iiA=orO",
        ),
        (
            "<string name=\"backend_client_secret\">d250b412231d02ae6a23aff76b356c9ddc135798</string>",
            "d250b412231d02ae6a23aff76b356c9ddc135798",
        ),
        (
            "<key>BackendAPISecret</key>\n<string>G5tYmGU2V6mIl8mN3WEEV</string>",
            "G5tYmGU2V6mIl8mN3WEEV",
        ),
        (
            "Parameters:\n  DBPassword:\n    Type: String\n    NoEcho: true\n    Default: \"oogzSjvvAzsgVFUNK\"",
            "oogzSjvvAzsgVFUNK",
        ),
        (
            "rootpw --plaintext Uc0hqZWuLZZSNLWbP0swGeLU\ntimezone UTC",
            "Uc0hqZWuLZZSNLWbP0swGeLU",
        ),
        (
            "username netops privilege 15 password 0 Tundra08454winter",
            "Tundra08454winter",
        ),
        (
            "snmp-server community 51viQ7LZxmEgK25tS5Dc RW 10",
            "51viQ7LZxmEgK25tS5Dc",
        ),
        (
            "ldap_default_authtok = sunsetorchidorchidsaffron765",
            "sunsetorchidorchidsaffron765",
        ),
        ("remotepass = Indigo36039saffron", "Indigo36039saffron"),
        ("     3\t\"api_user\" \"Onyx%2368larch\"", "Onyx%2368larch"),
        (
            "    16\tkeys:\n    17\t  APIebqdEpYtYkMl: Qli9WKAuoJfurvGLoKIZh0na4ZWcLl5HqPT1SY9Oz0fX",
            "Qli9WKAuoJfurvGLoKIZh0na4ZWcLl5HqPT1SY9Oz0fX",
        ),
        (
            "  CYPRESS_RECORD_KEY: 8db1feda-3d8b-4705-b81b-52980d7de5a7",
            "8db1feda-3d8b-4705-b81b-52980d7de5a7",
        ),
        (
            "Secret ID    = a4710e9f-c287-4307-8ebc-425cc85f2aa4",
            "a4710e9f-c287-4307-8ebc-425cc85f2aa4",
        ),
        (
            "BUNDLE_GEMS__EXAMPLE__DEV: \"app:Sierra~3719canyon\"",
            "Sierra~3719canyon",
        ),
    ] {
        assert_hidden(text, secret);
    }
    for text in [
        "<property name=\"connection.username\">ines</property>",
        "<key>CFBundleName</key>\n<string>Reco Engine</string>",
        "DBPassword:\n  Type: String\n  NoEcho: true",
        "Accessor ID  = f3184588-e2f4-4d66-9a7e-7feee65c8655",
        "record_key: 8db1feda-3d8b-4705-b81b-52980d7de5a7",
        "\tDBPassword  string `env:\"DB_PASSWORD\"`",
        "  password = jsondecode(data.aws_secretsmanager_secret_version.db.secret_string)[\"password\"]",
        "Stripe.api_key = Rails.application.credentials.dig(:stripe, :secret_key)",
        "    ANTHROPIC_API_KEY=sk-ant-api03-...",
        "secrets:\n  - db_password\n  - api_token",
        "new Razorpay({ key: 'rzp_live_AbCdEf12345678', amount: 50000 })",
    ] {
        assert_clean(text);
    }
}

#[test]
fn urls_that_act_for_their_holder_lose_their_secret_part() {
    for (text, secret) in [
        (
            "MySQL JS > \\connect admin:xh2tD~ex-~JK~lhwKyrnEwG5R6@mysql-prod-1:3306",
            "xh2tD~ex-~JK~lhwKyrnEwG5R6",
        ),
        (
            "client_uri=sip:9052979808:.SQ9qhqynBRCHC4loY.7e_s@sip.example.net",
            ".SQ9qhqynBRCHC4loY.7e_s",
        ),
        (
            "GET /oauth/callback?code=OhKH-_5HyQGp4zRsjlKsW6ly7jcejvCd7&state=x HTTP/1.1",
            "OhKH-_5HyQGp4zRsjlKsW6ly7jcejvCd7",
        ),
        (
            "invite: https://app.example.com/join/UamnBpwtWGZcZn9ZC8FMfmSG4TojXv17cLMVqY?org=x",
            "UamnBpwtWGZcZn9ZC8FMfmSG4TojXv17cLMVqY",
        ),
        (
            "curl -X POST https://hooks.example.net/v1/incoming/mSYin5Qo8HV2QZFtQQtgjKrqBiF9UKEwFJEquHc4",
            "mSYin5Qo8HV2QZFtQQtgjKrqBiF9UKEwFJEquHc4",
        ),
        (
            "GET /portal/home;jsessionid=4673D61AE7A0C478C387D8A3CCBC9601 HTTP/1.1",
            "4673D61AE7A0C478C387D8A3CCBC9601",
        ),
        (
            "invalid CSRF for session_id=o9b9kY6DVQXaBwmrsKt8BqXzYuIX9s2_ ip=10.0.0.3",
            "o9b9kY6DVQXaBwmrsKt8BqXzYuIX9s2_",
        ),
    ] {
        assert_hidden(text, secret);
    }
    for text in [
        "see https://github.com/org/repo/join/README",
        "GET /search?code=404&page=2 HTTP/1.1",
        "trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7",
    ] {
        assert_clean(text);
    }
}

#[test]
fn key_material_by_its_encoding_and_its_word_list() {
    let phrase =
        "armor chicken enable canvas best assault also already ability beyond aspect attitude";
    assert_hidden(
        &format!("Using wallet mnemonic: {phrase}\nError: funds"),
        phrase,
    );
    assert_hidden(&format!("MNEMONIC=\"{phrase}\""), "canvas best assault");
    assert_hidden(
        "accounts: [\"0xc05fe562b8318984db2b4c44430d6415431539e3b0a306507950e81ae4103de2\"],",
        "c05fe562b8318984db2b4c44430d6415431539e3b0a306507950e81ae4103de2",
    );
    assert_hidden(
        "FERNET = Fernet(b\"SjYytlv5QJqtajhlB5N8RT0iPzAgj4DSj1stuUx_eKQ=\")",
        "SjYytlv5QJqtajhlB5N8RT0iPzAgj4DSj1stuUx_eKQ=",
    );
    // Prose of listed words is broken by words the list lacks within twelve.
    assert_clean(
        "the build failed because the cache was stale and the runner ran out of disk space again today",
    );
    assert_clean("able about above absent absorb abstract absurd abuse access accident account");
    assert_clean(
        "tx 0xc05fe562b8318984db2b4c44430d6415431539e3b0a306507950e81ae4103de2 confirmed in block 19",
    );
}

#[test]
fn public_material_said_so_by_its_page_type_or_label_stays() {
    for text in [
        "const c = algoliasearch('GUAIMGDR6F', 'e61f8a20894685c7b2c4d9a1f0e3b5a7'); // search-only API key",
        "<script src=\"https://cdn.example.com/sdk.js?key=Zq8Xw3Rt6Yu9Ip2As5Df\"></script>",
        "Implicit account ID (public, derived from your public key): 98793cd91a3f870fb126f66285808c7e094afcfc4eda8a970f6648cdf0dbd6de",
        "{\"@type\":\"/cosmos.crypto.secp256k1.PubKey\",\"key\":\"A08EGB7ro1ORuFhjOnZcSgwYlpe0DSFjVNUIkNNQxwKQ\"}",
        "{\"signature\":\"0x8f1d3c5e7a9b2d4f8f1d3c5e7a9b2d4f8f1d3c5e7a9b2d4f8f1d3c5e7a9b2d4f8f1d3c5e7a9b2d4f8f1d3c5e7a9b2d4f8f1d3c5e7a9b2d4f8f1d3c5e7a9b2d4f1b\"}",
        "bw get password \"data-pipeline prod db\"",
        "Your token: glpat-[MASKED]",
        "keytool -list -v -keystore debug.keystore -alias androiddebugkey -storepass android",
        "spec:\n  encryptedData:\n    password: AgBy3i4OJSWK+PiTySYZZA9rO43cGDEq",
        "encryptedData: {}",
        "Use `--token-file` to pass credentials instead of `--token`.",
        "        Signature Algorithm: sha256WithRSAEncryption",
        "$ docker login -u ec2-user --password-stdin registry.example.dev < /dev/null",
    ] {
        assert_clean(text);
    }
    // A value on the ciphertext key's own line, or after its block, is not under it.
    assert_hidden(
        "encryptedData: x password: Kx9vQ2mZ7pL4wR8tY3nB6cF1",
        "Kx9vQ2mZ7pL4wR8tY3nB6cF1",
    );
    assert_hidden(
        "spec:\n  encryptedData:\n    a: AgBy3i4O\n  password: Kx9vQ2mZ7pL4wR8tY3nB6cF1",
        "Kx9vQ2mZ7pL4wR8tY3nB6cF1",
    );
    // A comment that says the key is secret is not an annotation that it is public.
    assert_hidden(
        "const c = algoliasearch('GUAIMGDR6F', 'e61f8a20894685c7b2c4d9a1f0e3b5a7'); // admin key, never public",
        "e61f8a20894685c7b2c4d9a1f0e3b5a7",
    );
}

#[test]
fn quoted_logins_hooks_and_named_feeds_are_redacted() {
    for (text, secret) in [
        (
            "$ etcdctl --endpoints=https://db:2379 --user root:'Bean38!Accuse' get /registry",
            "Bean38!Accuse",
        ),
        (
            "PS C:\\Users\\app> net user Administrator Keep-Slight-96",
            "Keep-Slight-96",
        ),
        (
            "winexe -U 'CORP/anya%Dog-Brown-64' //192.0.2.99 'cmd.exe /c hostname'",
            "Dog-Brown-64",
        ),
        (
            "C:\\Users\\runner>net use Z: \\\\203.0.113.75\\public neYossgFvQAfp5hJvd9g /user:CORP\\admin",
            "neYossgFvQAfp5hJvd9g",
        ),
        (
            "$ vercel env add DB_PASSWORD production <<< Grunt_destroy_0zmi",
            "Grunt_destroy_0zmi",
        ),
        (
            "billing-api on main [!] \u{276f} poetry config http-basic.internal lucas hTw1+KQvYbKV6QXxBVRhA4ZOGFH2",
            "hTw1+KQvYbKV6QXxBVRhA4ZOGFH2",
        ),
        (
            "wget -q \"https://api.example.org/data/2.5/weather?q=Oslo&appid=ef58848acf134a0e4d8b6fcfab898192\"",
            "ef58848acf134a0e4d8b6fcfab898192",
        ),
        (
            "encrypt = \"KCtO6Ze8RQQvYwVJJvSsIPrOAzU5Ys9kb/mWjqSYMLM=\"",
            "KCtO6Ze8RQQvYwVJJvSsIPrOAzU5Ys9kb/mWjqSYMLM=",
        ),
        (
            "curl -X POST 'https://api.example.com/build_hooks/08a20def39349f91ec72e284'",
            "08a20def39349f91ec72e284",
        ),
        (
            "requests.post(\"https://alert.example.com/integrations/generic/20131114/alert/43d253d8-2c94-42b6-9869-f13f319b1026/x\")",
            "43d253d8-2c94-42b6-9869-f13f319b1026",
        ),
        (
            "channels:\n  - https://conda.example.xyz/t/OaQkmYhYda6ravVBwfXG6tBEcGDx7cFF/internal",
            "OaQkmYhYda6ravVBwfXG6tBEcGDx7cFF",
        ),
        (
            "signtool sign /fd SHA256 /f codesign.pfx /p Climb_amused_rx3q /tr http://ts.example.com dist\\app.exe",
            "Climb_amused_rx3q",
        ),
    ] {
        assert_hidden(text, secret);
    }
    for (text, secret) in [
        (
            "$ expdp system/'Spike91!Adult'@analytics schemas=APP",
            "Spike91!Adult",
        ),
        (
            "# grep -n requirepass /etc/redis/redis.conf\n1036:requirepass Fatal52@Zoo",
            "Fatal52@Zoo",
        ),
    ] {
        assert_hidden(text, secret);
    }
    for text in [
        "$ git push origin 'main'@{u}",
        "1036:requirepass yes",
        "$ vault operator seal",
        "see https://example.com/t/getting-started/42",
        "curl https://hooks.example.net/v1/status/health",
        "$ net user Administrator",
    ] {
        assert_clean(text);
    }
}

#[test]
fn a_jwk_cut_inside_a_value_ends_the_object_without_a_panic() {
    // The object's `}` comes before the value's closing quote: nothing to read after it.
    for text in [
        "{\"kty\":\"RSA\",\"d\":\"abc}",
        "{\"kty\":\"EC\",\"d\":\"0123456789abcdefghij}\"",
        "{\"kty\":\"oct\",\"k\":\"}",
    ] {
        let _ = redact(text);
    }
    assert_hidden(
        "{\"kty\":\"oct\",\"k\":\"Qli9WKAuoJfurvGLoKIZh0na4ZWcLl5H\"}",
        "Qli9WKAuoJfurvGLoKIZh0na4ZWcLl5H",
    );
}

#[test]
fn what_a_generator_or_a_credential_store_prints_is_redacted() {
    for (text, secret) in [
        (
            "$ openssl rand -base64 32\nT1u8dQ+e0mWqz3VbK7pLrA2sXyN9cFhJ4oGiE6uRtZk=\n$ ls",
            "T1u8dQ+e0mWqz3VbK7pLrA2sXyN9cFhJ4oGiE6uRtZk=",
        ),
        (
            "user@box:~$ pwgen -sy 20 1\nk7#Qz!pR2vX9@wLm4&Tb",
            "k7#Qz!pR2vX9@wLm4&Tb",
        ),
        (
            "❯ op read 'op://Prod/mysql/password'\nHarbor-Quill-5521",
            "Harbor-Quill-5521",
        ),
        (
            "$ bw get password 'staging db'\nVx2!mK9qLp0zT",
            "Vx2!mK9qLp0zT",
        ),
        (
            "% security find-generic-password -a deploy -s registry -w\nq9WcE4rTz7YbN2mK",
            "q9WcE4rTz7YbN2mK",
        ),
        (
            "# secret-tool lookup service imap user ops\nMarble.Otter.2207",
            "Marble.Otter.2207",
        ),
        (
            "$ kubectl -n ops get secret grafana-admin -o jsonpath='{.data.admin-password}' | base64 -d\nZk3pQ8wR1tY6uI0o",
            "Zk3pQ8wR1tY6uI0o",
        ),
        (
            "$ vault kv get -field=password secret/app/db\nP4ssw-Lantern-88q",
            "P4ssw-Lantern-88q",
        ),
        (
            "$ consul keygen\nb3F1aWNrLWJyb3duLWZveC1qdW1wcy1vdmVyLTEyMzQ=",
            "b3F1aWNrLWJyb3duLWZveC1qdW1wcy1vdmVyLTEyMzQ=",
        ),
        (
            "SQL> ALTER USER batch IDENTIFIED BY Quarry7-Lumen_2x ACCOUNT UNLOCK;",
            "Quarry7-Lumen_2x",
        ),
        (
            "$ curl -fsu deploy:Tz8.wq_Lm4-9c https://artifacts.example/api",
            "Tz8.wq_Lm4-9c",
        ),
        (
            ">>> import secrets\n>>> secrets.token_hex(24)\n'9c1e0b7f4d2a8c6e3f5b1a9d7c0e2f4a6b8d0c1e3f5a7b9d'",
            "9c1e0b7f4d2a8c6e3f5b1a9d7c0e2f4a6b8d0c1e3f5a7b9d",
        ),
        // A vendor CLI making a credential: on a line of its own, or in a table row.
        (
            "$ relay tokens create --name nightly\nCreated token nightly:\nrl_W8qZc2Lp7Tn4Vb9XkJm3Rs6Yd\nIt will not be shown again.",
            "rl_W8qZc2Lp7Tn4Vb9XkJm3Rs6Yd",
        ),
        (
            "$ beacon api-key new --scope ingest\n+--------+-----------------------------+\n| field  | value                       |\n+--------+-----------------------------+\n| name   | ingest                      |\n| secret | bk9Hq2Wz7Lx4Tc8Vn3Rj6Ym1Pd5 |\n+--------+-----------------------------+",
            "bk9Hq2Wz7Lx4Tc8Vn3Rj6Ym1Pd5",
        ),
        // A framework's secret generator, and a variable printed inside `sh -c '…'`.
        (
            "$ mix phx.gen.secret\nQm7Tz2Wp9Lx4Vc8Rb3Nj6Hy1Kd5Fs0Ga2Xe7Uo4Ii9Pw3Zt8Yr6Lq1Mn5Bv0Cs",
            "Qm7Tz2Wp9Lx4Vc8Rb3Nj6Hy1Kd5Fs0Ga2Xe7Uo4Ii9Pw3Zt8Yr6Lq1Mn5Bv0Cs",
        ),
        (
            "$ kubectl exec deploy/api -- sh -c 'echo $SESSION_SECRET'\nHn4Rt8Wq2Lz6Xc0Vb5Pm",
            "Hn4Rt8Wq2Lz6Xc0Vb5Pm",
        ),
    ] {
        assert_hidden(text, secret);
    }
}

#[test]
fn what_other_commands_print_and_prose_about_generators_stay() {
    for text in [
        // Public output of a key tool, and a getter without the flag that prints the secret.
        "$ ssh-keygen -lf ~/.ssh/id_ed25519.pub\n256 SHA256:n0tAS3cr3tJustAF1ngerpr1ntV4lue0000000000 me@box (ED25519)",
        "$ security find-generic-password -s registry\nkeychain: \"/Users/me/Library/Keychains/login.keychain-db\"",
        "$ vault kv get secret/app/db\n====== Data ======\nKey         Value\nusername    app",
        // Prose that names a generator, and a generator whose output is prose.
        "we ran pwgen yesterday and then\nrebuilt-the-cache-2024",
        "$ openssl rand -help\nUsage: rand [options] num",
        // Where a credential is used is not the credential; a key its comment calls the
        // page's JavaScript key ships in the page.
        "const firebaseConfig = {\n  authDomain: \"shop-7f3k2.firebaseapp.com\",\n};",
        "SSO_AUTH_HOST=login-eu2.corp.example",
        "Maps.init('4d1f9a7c2b8e6f30a5c9d2e7b1f4a8c6'); // JavaScript key for the store page",
        // A password hash or a bind variable after IDENTIFIED BY, curl's other clusters.
        "CREATE USER u IDENTIFIED BY VALUES 'S:8F2A1C3E5B7D9F0A';",
        "ALTER USER x IDENTIFIED BY :new_password;",
        "$ curl -fsSL https://get.example.dev/install.sh | sh",
        // The next command's line is not the previous one's output.
        "$ op read 'op://Prod/mysql/password'\n$ echo done",
        // A table row whose first cell names no secret, and a created key's public id.
        "$ relay keys create --name ci\n| id     | 4f1c2a9e7b3d5c8a |\n| name   | ci               |",
        "$ sh -c 'echo $BUILD_NUMBER'\n1842",
    ] {
        assert_clean(text);
    }
}

#[test]
fn a_key_typed_into_a_heredoc_is_redacted_whole() {
    // Each line carries the shell's continuation prompt `> `: not a placeholder.
    let body = [
        "MIIEowIBAAKCAQEAq8Zt2Lw9Xc4Vb7Nm1Rp5Ty3Hj6Kd0Fs8Ga2Xe7Uo4Ii9Pw3Zt",
        "8Yr6Lq1Mn5Bv0Cs4Dq7Wk2Jh9Ef3Ag6Sb1Nc8Vx5Zm0Ty4Rp7Lw2Xc9Vb3Nm6Rp1T",
    ];
    let text = format!(
        "$ cat > deploy.pem <<'EOF'\n> -----BEGIN RSA PRIVATE KEY-----\n> {}\n> {}\n> -----END RSA PRIVATE KEY-----\n> EOF",
        body[0], body[1]
    );
    for line in body {
        assert_hidden(&text, line);
    }
    assert_clean("-----BEGIN PRIVATE KEY-----\n<paste the key here>\n-----END PRIVATE KEY-----");
}

#[test]
fn a_long_token_is_redacted_to_its_last_byte() {
    // A service-account token longer than any rule reads: nothing of it may survive.
    let body: String = (0..640)
        .map(|i| {
            let a = b"Qz7xK2mP9wL4vR8nT1yB6cJ3hF5dG0sA";
            char::from(a[(i * 7 + i / 5) % a.len()])
        })
        .collect();
    let text = format!("{{\"msg\":\"rejected\",\"api_key\":\"ops_{body}\",\"status\":401}}");
    let out = redact(&text).into_owned();
    assert!(out.contains("[REDACTED:"), "{out}");
    let tail = &body[body.len() - 12..];
    assert!(!out.contains(tail), "the token's tail survived: {out}");
    assert!(out.ends_with("\",\"status\":401}"), "{out}");
}
