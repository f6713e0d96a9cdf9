//! Round 14: a Markdown table's row that names its secret, a license key's random
//! capitals, a getter's value with the next prompt glued to it and two more getters,
//! a proxy's header directive, values printed under their names (PHP's `var_dump`,
//! Spring's `Property:`/`Value:`), a label with an article, a strong-name key blob and
//! a JWK written as YAML; and, kept public, an iCalendar `UID:…@host` and explicit EC
//! parameters.

use super::tests::{alnum, assert_clean, assert_redacts};

#[test]
fn a_table_row_names_the_secret_in_its_first_cell() {
    let v = alnum(32);
    for (row, kind) in [
        (format!("| `PAYMENTS_API_KEY` | `{v}` |"), "api-key"),
        (format!("| PAYMENTS_ACCESS_TOKEN | {v} |"), "token"),
        (format!("|\tdb_password\t|\t{v}\t|"), "password"),
    ] {
        let text = format!("| field | value |\n|---|---|\n{row}\n| owner | @ops |\n");
        assert_redacts(&text, &v, kind);
    }
    // A cell that merely mentions a key, and a table of names, stay.
    assert_clean("| step | what |\n|---|---|\n| rotate | the api_key | every month |\n");
    assert_clean("| `API_KEY` | required | string |\n");
}

#[test]
fn random_capitals_in_groups_are_a_key_not_a_list_of_words() {
    let v = "QXWZHTRPKM-BVNCLSDGFJ-TWRKPZHXQM";
    assert_redacts(&format!("VENDOR_SERVER_KEY={v}\n"), v, "key");
    // Words in capitals stay a name, whatever key they follow.
    assert_clean("LOG_LEVEL_KEY=DEBUG-TRACE-VERBOSE-OUTPUT\n");
}

#[test]
fn a_getters_value_with_the_next_prompt_glued_to_it_is_read() {
    let v = alnum(28);
    assert_redacts(
        &format!("$ gcloud secrets versions access latest --secret=hmac\n{v}$ \n"),
        &v,
        "secret",
    );
    for command in [
        "akeyless get-secret-value --name /prod/erp/rfc",
        "conjur variable get -i prod/db/password",
    ] {
        assert_redacts(&format!("$ {command}\n{v}\n"), &v, "secret");
    }
}

#[test]
fn a_calendar_uid_and_explicit_curve_parameters_are_public() {
    assert_clean("BEGIN:VEVENT\nUID:k3v9x7q2m8w4z6p1@calendar.example.org\nEND:VEVENT\n");
    // `openssl ecparam -name prime256v1 -param_enc explicit`: the curve, no key.
    assert_clean(concat!(
        "-----BEGIN EC PARAMETERS-----\n",
        "MIH3AgEBMCwGByqGSM49AQECIQD/////AAAAAQAAAAAAAAAAAAAAAP//////////\n",
        "/////zBbBCD/////AAAAAQAAAAAAAAAAAAAAAP///////////////AQgWsY12Ko6\n",
        "k+ez671VdpiGvGUdBrDMU7D2O848PifSYEsDFQDEnTYIhucEk2pmeOETnSa3gZ9+\n",
        "kARBBGsX0fLhLEJH+Lzm5WOkQPJ3A32BLeszoPShOUXYmMKWT+NC4v4af5uO5+tK\n",
        "fA+eFivOM1drMV7Oy7ZAaDe/UfUCIQD/////AAAAAP//////////vOb6racXnoTz\n",
        "ucrC/GMlUQIBAQ==\n",
        "-----END EC PARAMETERS-----\n"
    ));
    // A user in lower case before `:…@host` is still a login.
    let pw = format!("Q{}", alnum(15));
    assert_redacts(&format!("admin:{pw}@db.internal\n"), &pw, "password");
}

#[test]
fn a_proxys_header_directive_sets_the_header_it_names() {
    let v = "qzkwbrnvtxplmhgdcfsjyqwkrbtnvxzp";
    assert_redacts(
        &format!("location /up/ {{\n    proxy_set_header X-Api-Key \"{v}\";\n}}\n"),
        v,
        "api-key",
    );
    assert_clean("    proxy_set_header Host upstream.example.org;\n");
}

#[test]
fn a_value_printed_under_its_name_by_php_and_spring_is_read() {
    let v = format!("0Mk.{}", alnum(17));
    let dump = format!(
        "array(2) {{\n  [\"user\"]=>\n  string(4) \"shop\"\n  [\"pass\"]=>\n  string(21) \"{v}\"\n}}\n"
    );
    assert_redacts(&dump, &v, "password");
    let spring = format!(
        "    Property: spring.datasource.password\n    Value: \"{v}\"\n    Origin: System Environment Property \"SPRING_DATASOURCE_PASSWORD\"\n"
    );
    assert_redacts(&spring, &v, "password");
    // A property that names nothing secret keeps its value.
    assert_clean("    Property: spring.datasource.url\n    Value: \"jdbc:postgresql://db/app\"\n");
}

#[test]
fn an_article_before_a_labels_name_still_labels_the_value_below() {
    let v = alnum(32);
    assert_redacts(
        &format!("here is the key for the migration window:\n\n    {v}\n"),
        &v,
        "key",
    );
    // Not a value: a word below "the key:".
    assert_clean("sort the rows by the key:\n    user_id\n");
}

#[test]
fn a_strong_name_key_blob_and_a_yaml_jwk_are_key_material() {
    use base64::Engine as _;
    let mut blob = vec![0x07, 0x02, 0x00, 0x00, 0x00, 0x24, 0x00, 0x00];
    blob.extend_from_slice(b"RSA2");
    blob.extend((0..300u32).map(|i| (i * 37 % 251) as u8));
    let snk = base64::engine::general_purpose::STANDARD.encode(&blob);
    assert_redacts(
        &format!("variables:\n  SNK_BASE64: {snk}\n"),
        &snk[40..],
        "private-key",
    );
    // The public half (`RSA1`, type 6) stays.
    blob[0] = 0x06;
    blob[8..12].copy_from_slice(b"RSA1");
    let public = base64::engine::general_purpose::STANDARD.encode(&blob[..160]);
    assert_clean(&format!("  SNK_PUBLIC: {public}\n"));
    let k = format!("NG{}", alnum(41));
    let yaml = format!(
        "hmac_keys:\n  - kty: oct\n    kid: \"k1\"\n    alg: HS256\n    k: \"{k}\"\n  - kty: EC\n    crv: P-256\n    x: f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU\n"
    );
    assert_redacts(&yaml, &k, "private-key");
    assert!(
        super::tests::redacted(&yaml).contains("x: f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU")
    );
}
