use super::*;

#[test]
fn random_alnum_tells_tokens_from_words_and_ids() {
    assert!(random_alnum(b"aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY", 20));
    assert!(random_alnum(
        b"0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b",
        20
    ));
    assert!(!random_alnum(b"ThisIsAVeryLongCamelCaseName", 20));
    assert!(!random_alnum(b"3f786850e387550f", 20));
    assert!(!random_alnum(b"abcdefghijklmnopqrstuvwxyz", 20));
}

#[test]
fn plausible_values_by_need() {
    assert!(plausible(b"hunter2", Need::Password));
    assert!(!plausible(b"${DB_PASSWORD}", Need::Password));
    assert!(plausible(
        b"3f9a1c0e5b7d2f4a6c8e0b1d3f5a7c9e1b2d4f6a",
        Need::Strong
    ));
    assert!(!plausible(
        b"Linux-cargo-9f86d081884c7d659a2feaa0c55ad015",
        Need::Token
    ));
    assert!(!plausible(b"/etc/ssl/private/server.key", Need::Token));
    assert!(!plausible(b"server.key", Need::Token));
    assert!(!plausible(b"1.2.3-beta.4", Need::Token));
    assert!(!plausible(
        b"123e4567-e89b-12d3-a456-426614174000",
        Need::Strong
    ));
    assert!(plausible(
        b"123e4567-e89b-12d3-a456-426614174000",
        Need::Token
    ));
    assert!(!plausible(b"some_function_name_2", Need::Strong));
}

#[test]
fn base64_prefix_decodes() {
    assert_eq!(
        b64_decode_prefix(b"LS0tLS1CRUdJTiBSU0E=", 64),
        b"-----BEGIN RSA"
    );
}
