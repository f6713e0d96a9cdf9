//! Round 12, public side: what a tool stores in a secret's place (ciphertext envelopes,
//! hashes, digests in a listing), signatures, keys a page ships, and names that only
//! look like values (`<add key="…" value="…"/>`, a section path, a logfmt pair).

use super::tests::{alnum, assert_clean, assert_redacts};

#[test]
fn an_encryption_tools_envelope_is_not_the_secret() {
    let body = alnum(48);
    for text in [
        format!("ENCRYPTED_PASSWORD: \"vault:v1:{body}+x/y=\""),
        format!("const StripeSecretKey = \"encrypted:{body}==\""),
        format!("API_SECRET:       EJ[1:{body}=:{body}:{body}=]"),
        format!("<password>{{AQAAABAAAAAQ{body}=}}</password>"),
    ] {
        assert_clean(&text);
    }
    // The envelope's marker, not just a colon, is what says ciphertext.
    assert_redacts(&format!("DB_PASSWORD=vault{body}"), &body[..12], "password");
}

#[test]
fn what_a_tool_stores_in_a_secrets_place_is_public() {
    assert_clean("\"hashed_secret\": \"be41bbc107624c5005e421b700acdcd3475779e2\",");
    assert_clean("  sealed_secret: AgBy3i4OJSWK+PiTySYZZA9rO43cGDEq");
    assert_clean(
        "NAME              \tDIGEST          \tCREATED AT\n\
         DATABASE_URL      \te61bfebb16cb7c5a\t17h ago\n\
         SECRET_KEY_BASE   \tec21fd7817d81ccb\t55d ago",
    );
    // A hash's own secret is not a hashed one: Drupal's `hash_salt`, VNPay's
    // `vnp_hash_secret` are the keys of the hash.
    let salt = alnum(40);
    assert_redacts(
        &format!("$settings['hash_salt'] = '{salt}';"),
        &salt,
        "secret",
    );
    assert_redacts(&format!("vnp_hash_secret={salt}"), &salt, "secret");
}

#[test]
fn an_ecdsa_signature_is_public() {
    let sig = "MEUCIQDBtw7ufxpQOb7wfsI0fwZu0I9dx1EkR+NAQwACa25UVQIgEZSgZWhdZMSYC7jUVEqHIamaAa0hnrWc9qFe9vFaHYM=";
    assert_clean(&format!(
        "{{\n  \"dev.cosignproject.cosign/signature\": \"{sig}\"\n}}"
    ));
    // Cut short, the DER lengths no longer add up: a random value named signature.
    let cut = &sig[..60];
    assert_redacts(
        &format!("\"signature\": \"{cut}\""),
        &cut[10..30],
        "signature",
    );
}

#[test]
fn keys_a_page_ships_are_public_unless_named_privileged() {
    let hex = "b431ea675ab3077a167b4af98815cfb1";
    for text in [
        format!("KAKAO_JS_APP_KEY: {hex}"),
        format!("export KAKAO_JAVASCRIPT_KEY={hex}"),
        format!("const NEXT_PUBLIC_MIXPANEL_TOKEN: &str = \"{hex}\";"),
        format!("  config.vite_pusher_app_key = \"{hex}\""),
        format!("private static final String ALGOLIA_SEARCH_KEY = \"{hex}\";"),
    ] {
        assert_clean(&text);
    }
    let token = alnum(40);
    assert_redacts(&format!("VITE_ADMIN_TOKEN={token}"), &token, "token");
    assert_redacts(&format!("VITE_SERVER_KEY={token}"), &token, "key");
}

#[test]
fn supabases_anon_key_is_public_wherever_it_stands() {
    let anon = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZSIsInJlZiI6InF3ZXJ0eXVpb3Bhc2RmZ2giLCJyb2xlIjoiYW5vbiIsImlhdCI6MTcwMDAwMDAwMH0.Zm9vYmFyYmF6cXV4cXV1eHp6enp5eXl4eHh3d3d2dnY";
    assert_clean(&format!(
        "[10:01] <ana> staging creds?\n[10:02] <bo> {anon}\n[10:03] <ana> ta"
    ));
    let service = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZSIsInJlZiI6InF3ZXJ0eXVpb3Bhc2RmZ2giLCJyb2xlIjoic2VydmljZV9yb2xlIiwiaWF0IjoxNzAwMDAwMDAwfQ.Zm9vYmFyYmF6cXV4cXV1eHp6enp5eXl4eHh3d3d2dnY";
    assert_redacts(
        &format!("[10:02] <bo> {service}"),
        "Zm9vYmFyYmF6cXV4",
        "jwt",
    );
}

#[test]
fn names_and_references_are_not_values() {
    assert_clean(
        "<add key=\"Web:GpgKeyFingerprint\" value=\"16C1 7A9C 7367 B3C6 7FB6 DE79 DB1E C744 4718 2939\" />",
    );
    assert_clean("    const val SMTP_PASSWORD = \"op://Prod/SMTP relay/api key\"");
    assert_clean("$ dotnet user-secrets list --project src/Cobalt.Api");
    assert_clean(
        "Import our release key (fingerprint `227E1D53E3AEDB3024C7C8CFF2D5C0F18A7DB031`):",
    );
    assert_clean(
        "2026-01-11T06:32:24Z user=ana action=api_key.revoked key_id=key_d5ef1e27 reason=rotation",
    );
    assert_clean("c = Client(fil_wallet=\"f1vmoplgfus2jgrdz6qd2l7v2k7gdmdyheumvdr2y\")");
    // ssh's login and host after a key file's path.
    assert_clean("ssh -i ~/.ssh/deploy_key deploy@app-01");
    // Prose that says login before the verb `pass` is no netrc line.
    assert_clean("argocd CLI login fails behind an ingress that does not pass gRPC");
    // The section path stays the setting's name; its value is still judged.
    let token = alnum(39);
    assert_redacts(
        &format!("<add key=\"Backend:AccessToken\" value=\"{token}\" />"),
        &token,
        "token",
    );
    assert_redacts(&format!("c = Client(api_key=\"{token}\")"), &token, "token");
}
