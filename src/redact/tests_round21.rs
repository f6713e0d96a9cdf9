//! Round 21: keys by the file or protocol that holds them (an Ethereum keystore, a
//! Synapse signing key, a Tor client's authorization, Redis and NickServ logins, a
//! line typed at a prompt as strace shows it), short labels (`sk =`, `device_code`,
//! LoRaWAN's session keys), and public values a label, a type or a specification
//! marks as such, kept as they are.

use super::tests::{assert_clean, assert_gone};

#[test]
fn keys_by_the_file_that_holds_them() {
    let ct = "5e0a9c3d7b1f4e6a8c2d0b9f7e5a3c1d9b7f5e3a1c0d8b6f4e2a0c9d7b5f3e1a";
    assert_gone(
        &format!(
            "{{\"address\":\"9a8b7c6d5e4f30211203a4b5c6d7e8f90a1b2c3d\",\"crypto\":{{\"cipher\":\"aes-128-ctr\",\"ciphertext\":\"{ct}\",\"cipherparams\":{{\"iv\":\"00112233445566778899aabbccddeeff\"}},\"kdf\":\"scrypt\"}}}}\n"
        ),
        ct,
    );
    // A ciphertext with no key derivation beside it is an encrypted blob, not a key.
    assert_clean(&format!(
        "{{\"ciphertext\": \"{ct}\", \"tag\": \"00ff\"}}\n"
    ));
    assert_gone(
        "ed25519 a_Qw7z Hq7Zt2Xm9Wv4Lp8Rn1Kj6Fd3Sb0Yc5Te8Ua2Io7Pz4S\n",
        "Hq7Zt2Xm9Wv4Lp8Rn1Kj6Fd3Sb0Yc5Te8Ua2Io7Pz4S",
    );
    assert_clean("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHq8 ops@bastion\n");
    let onion = "abcdefghijklmnopqrstuvwxyz234567abcdefghijklmnopqrstuvwx";
    let tor = "MFRGGZDFMZTWQ2LKNNWG23TPOBYXE43UOV3HO6DZPIYTEMZUGU3D";
    assert_gone(&format!("{onion}:descriptor:x25519:{tor}\n"), tor);
    // The service's own `authorized_clients/*.auth` holds the public half.
    assert_clean(&format!("descriptor:x25519:{tor}\n"));
    assert_gone(
        "translator = deepl.Translator(\"8d1f3a5c-7e9b-4d2f-a6c8-0e1b3d5f7a9c:fx\")\n",
        "8d1f3a5c-7e9b-4d2f-a6c8-0e1b3d5f7a9c",
    );
    let cookie = "CfDJ8Lq3Zt7Wm2Xv9Rk4Np6Hs1Gd8Fb5Yc0Te3Ua7Io2Pz4Sd9Fg1Hj6Kl3Zx8Cv5Bn0Mq";
    assert_gone(
        &format!("{{\"name\": \".AspNetCore.Cookies\", \"value\": \"{cookie}\"}}\n"),
        &cookie[5..],
    );
    let lwa = "Atzr|IwEBIK7mQ2zX9vL4tR8wN1pH6sD3gF0bY5cE2uA7oI4qZ_|Wm3Xn8Kp1Lq6Rt0Vs5Yb9Hc2Jd7Gf4Ue|Pz3Sa8Dk";
    assert_gone(&format!("refresh_token: {lwa}\n"), &lwa[20..]);
}

#[test]
fn logins_a_protocol_or_a_trace_shows() {
    assert_gone(
        "3649 11:09:17.360130 write(5, \"*2\\r\\n$4\\r\\nAUTH\\r\\n$16\\r\\nHeron_Quill_5531\\r\\n\", 37) = 37\n",
        "Heron_Quill_5531",
    );
    assert_gone(
        "[03:05:34] >> :deploybot!~d@198.51.100.4 PRIVMSG NickServ :IDENTIFY Wq8Lz3Xv7Pn2\n",
        "Wq8Lz3Xv7Pn2",
    );
    assert_gone(
        "812  write(2, \"Password: \", 10) = 10\n812  read(0, \"Kp7#vLq2!Zw9Xm\\n\", 4096) = 15\n",
        "Kp7#vLq2!Zw9Xm",
    );
    // A command typed at a shell's prompt is not a password.
    assert_clean("812  read(0, \"ls -la\\n\", 4096) = 7\n");
}

#[test]
fn short_and_flow_specific_labels() {
    assert_gone(
        "[default]\nak = 0f1e2d3c4b5a69788796a5b4c3d2e1f0\nsk = 7c6b5a4938271605f4e3d2c1b0a99887\n",
        "7c6b5a4938271605f4e3d2c1b0a99887",
    );
    assert_gone(
        "sk=Jq4Zt8Xm2Wv6Lp0Rn3Hs7Gd1Fb5Yc9Te2Ua6Io\n",
        "Jq4Zt8Xm2Wv6Lp0Rn3Hs7Gd1Fb5Yc9Te2Ua6Io",
    );
    assert_clean("task = build\ndisk = /dev/sda1\n");
    assert_gone(
        "{\n  \"device_code\": \"Gd7Fb1Yc5Te9Ua3Io7Pz1Sd5Fg9Hj3Kl7Zx1Cv5Bn\",\n  \"user_code\": \"WDJB-MJHT\"\n}\n",
        "Gd7Fb1Yc5Te9Ua3Io7Pz1Sd5Fg9Hj3Kl7Zx1Cv5Bn",
    );
    assert_gone(
        "{\n    \"KeyId\": \"arn:aws:kms:eu-west-1:111122223333:key/1234abcd\",\n    \"Plaintext\": \"VGhpcyBpcyBhIGRhdGEga2V5IGZvciB0ZXN0czQ=\"\n}\n",
        "VGhpcyBpcyBhIGRhdGEga2V5IGZvciB0ZXN0czQ=",
    );
    assert_gone(
        "AT+NWKSKEY=5B7D9F1A3C5E7092B4D6F8A0C2E4A6B8\nOK\n",
        "5B7D9F1A3C5E7092B4D6F8A0C2E4A6B8",
    );
}

#[test]
fn what_a_label_type_or_specification_marks_public() {
    assert_clean("openssl enc -aes-256-cbc -pbkdf2 -a -pass env:BACKUP_PW -in notes.txt\n");
    assert_clean("openssl rsa -in key.pem -passin fd:3 -out plain.pem\n");
    assert_clean(
        "spring.datasource.password={cipher}9c1e5a7b3d2f4e6a8c0b9d1f3e5a7c2b4d6f8e0a1c3b5d7f9e2a4c6b8d0f1e3a\n",
    );
    assert_clean("    token = read_token(path=config.TOKEN_PATH)\n");
    assert_clean("  Provider public key: 1A2B:3C4D:5E6F:7A8B:9C0D:1E2F:3A4B:5C6D:7E8F:9A0B\n");
    assert_clean(
        "        Key Exchange: 4f2a9c1e7b3d5f8a0c6e2b4d9f1a3c5e7b0d2f4a6c8e1b3d5f7a9c0e2b4d6f8a\n",
    );
    assert_clean("  \"jwk_thumbprint\": \"Zq3Xw8Vt1Rn6Lp4Kj9Hg2Fd7Sb0Yc5Te8Ua3Io6Pz1\",\n");
    assert_clean("      \"key\": \"edpkthKYX8VB1fdzsDncJEw9nNmSxd6MGunSHMuuBDfTm3ZbHBmBpt\"\n");
    assert_clean("pubkey: sppk7ZMjToEn3e2czAAL7ffBN1vxfobq2vS3iJmEEqDkJdc8s7FwZzt\n");
    assert_clean(
        "consensus_pubkey:\n  '@type': /cosmos.crypto.ed25519.PubKey\n  key: Wm9vQmFyQmF6UXV4Q29yZ2VHcmF1bHRXYWxkb0Y=\n",
    );
    assert_clean("  storefrontAccessToken: '3e7a1c9f5b2d8e4a6c0f1b3d5e7a9c2b'\n");
    assert_clean("Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==\n");
    assert_clean("     \"access_token\":\"2YotnFZFEjr1zCsicMWpAA\",\n");
    assert_clean("NETWORK_PASSPHRASE=\"Test SDF Network ; September 2015\"\n");
    assert_clean("Für den Zugang brauchst du keine password: nutze `vault login` wie immer.\n");
}

#[test]
fn keys_a_url_carries_in_its_path() {
    for (url, key) in [
        (
            "https://polygon-mainnet.g.alchemy.com/v2/Wq4Zt9Xm2Lp7Rn1Kj5Hg8Fd3",
            "Wq4Zt9Xm2Lp7Rn1Kj5Hg8Fd3",
        ),
        (
            "https://quiet-bold-river.quiknode.pro/0f9e8d7c6b5a49382716a5b4c3d2e1f0a9b8c7d6/",
            "0f9e8d7c6b5a49382716a5b4c3d2e1f0a9b8c7d6",
        ),
        (
            "https://shop.bitrix24.de/rest/12/q7w3e9r1t5y2u8i4/crm.lead.add.json",
            "q7w3e9r1t5y2u8i4",
        ),
        (
            "https://dl.cloudsmith.io/Zp4Xq8Wm2Vt6Rn1L/acme/tools/deb/ubuntu",
            "Zp4Xq8Wm2Vt6Rn1L",
        ),
        (
            "git+https://9f8e7d6c5b4a39281706f5e4d3c2b1a098f7e6d5:x-oauth-basic@github.com/acme/ui.git",
            "9f8e7d6c5b4a39281706f5e4d3c2b1a098f7e6d5",
        ),
    ] {
        assert_gone(&format!("url = \"{url}\"\n"), key);
    }
    assert_gone(
        "[OUTPUT]\n    Name  http\n    Host  collectors.sumologic.com\n    URI   /receiver/v1/http/Zq8Xw3Vt7Rn2Lp6Kj1Hg5Fd9Sb4Yc0Te8Ua3Io7Pz2Sd6Fg0H==\n",
        "Zq8Xw3Vt7Rn2Lp6Kj1Hg5Fd9Sb4Yc0Te8Ua3Io7Pz2Sd6Fg0H",
    );
    // A Bitrix24 route with no user number, and REST paths of other hosts, name things.
    assert_clean("GET https://api.example.com/rest/v2/customers/4471/orders\n");
}

#[test]
fn values_code_and_a_console_hand_over() {
    assert_gone(
        "conn = database('sales', 'reporter', 'Vq3!Lm8#Zp2w', 'Vendor', 'PostgreSQL');\n",
        "Vq3!Lm8#Zp2w",
    );
    assert_gone(
        "def db = Sql.newInstance(\"jdbc:postgresql://db:5432/app\", \"app\", \"Rk7.Tz2_Wq9m\", \"org.postgresql.Driver\")\n",
        "Rk7.Tz2_Wq9m",
    );
    assert_gone(
        "mac := qbox.NewMac(\"Ak3Lp9Xq2Wm7Zt4Vn8Rb1Hs6Gd0Fc5Ye3Ua7Io2\", \"Sk8Zq3Xw7Vt2Rn6Lp1Kj5Hg9Fd4Sb0Yc8Te3Ua7\")\n",
        "Sk8Zq3Xw7Vt2Rn6Lp1Kj5Hg9Fd4Sb0Yc8Te3Ua7",
    );
    assert_gone(
        "$ docker login fra.ocir.io -u 'tenancy/ci-bot'\nPassword: Kq)Zt>Wm2xLp9.Rv\nLogin Succeeded\n",
        "Kq)Zt>Wm2xLp9.Rv",
    );
    assert_gone(
        "# DEPLOY_SECRET was Lq7Xw2Zt9Vm4Rn8Kp3Hs6Gd1Fb5Yc0Te\n",
        "Lq7Xw2Zt9Vm4Rn8Kp3Hs6Gd1Fb5Yc0Te",
    );
    assert_gone(
        "{\n  \"Parameter\": {\n    \"Name\": \"/prod/api/signing\",\n    \"Type\": \"SecureString\",\n    \"Value\": \"Wm9vQmFyQmF6UXV4Q29yZ2U3NzE=\",\n    \"Version\": 2\n  }\n}\n",
        "Wm9vQmFyQmF6UXV4Q29yZ2U3NzE=",
    );
    // A parameter of another type prints its value as it is.
    assert_clean(
        "{\n  \"Parameter\": {\n    \"Type\": \"String\",\n    \"Value\": \"eu-west-1\"\n  }\n}\n",
    );
}

#[test]
fn a_value_handed_over_on_the_line_below() {
    assert_gone(
        "mira  10:32 PM\nhere you go 👇\nWq7Zt-2Xm9Lp4Rn8Kj1Hg5Fd3Sb6Yc0Te\n(expires friday)\n",
        "Wq7Zt-2Xm9Lp4Rn8Kj1Hg5Fd3Sb6Yc0Te",
    );
    assert_clean("here you go 👇\nthe runbook is on the wiki under Deploys\n");
}
