use super::*;

#[test]
fn keys_are_classified_by_their_words() {
    let kind = |k: &str| classify_key(k.as_bytes()).map(|(_, kind)| kind);
    assert_eq!(kind("DB_PASSWORD"), Some("password"));
    assert_eq!(kind("rootpasswd"), Some("password"));
    assert_eq!(kind("X-Auth-Key"), Some("key"));
    assert_eq!(kind("apiKey"), Some("api-key"));
    assert_eq!(kind("client-key-data"), Some("private-key"));
    assert_eq!(kind("aws_secret_access_key"), Some("aws-secret-key"));
    assert_eq!(kind("SECRET_KEY_BASE"), Some("secret"));
    assert_eq!(kind("private_key_id"), Some("private-key-id"));
    assert_eq!(kind("token_type"), None);
    assert_eq!(kind("max_tokens"), None);
    assert_eq!(kind("public_key"), None);
    assert_eq!(kind("primaryKey"), None);
    assert_eq!(kind("keyboard"), None);
    assert_eq!(kind("monkey"), None);
    assert_eq!(kind("bypass"), None);
    assert_eq!(kind("secretName"), None);
    assert_eq!(kind("next_page_token"), None);
    assert_eq!(kind("OLDPWD"), None);
    assert_eq!(kind("author"), None);
    assert_eq!(kind("storepass"), Some("password"));
}
