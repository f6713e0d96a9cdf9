//! Round 14: a Markdown table's row that names its secret, a license key's random
//! capitals, a getter's value with the next prompt glued to it and two more getters;
//! and, kept public, an iCalendar `UID:…@host` and explicit EC parameters.

use super::tests::{alnum, assert_clean, assert_redacts};

#[test]
fn a_table_row_names_the_secret_in_its_first_cell() {
    let v = alnum(32);
    for row in [
        format!("| `PAYMENTS_API_KEY` | `{v}` |"),
        format!("| PAYMENTS_ACCESS_TOKEN | {v} |"),
        format!("|\tdb_password\t|\t{v}\t|"),
    ] {
        let text = format!("| field | value |\n|---|---|\n{row}\n| owner | @ops |\n");
        assert_redacts(
            &text,
            &v,
            if row.contains("TOKEN") {
                "token"
            } else if row.contains("password") {
                "password"
            } else {
                "api-key"
            },
        );
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
