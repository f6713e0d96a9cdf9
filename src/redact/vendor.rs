//! Credential formats a vendor made recognisable: a literal prefix and a body of a known
//! alphabet and length (the classes of gitleaks' default rules and trufflehog's detectors,
//! written as our own table), plus the shape every such format shares, for vendors the
//! table does not know yet: `<word>_<random>` or `<word>-<random>`.

use super::allow::DIGEST_ALGORITHMS;
use super::text::{
    at, before, entropy, has_alpha, has_digit, has_lower, has_upper, is_b64, is_b64url, is_filler,
    is_hex, is_uuid, is_word, random_alnum, run, run_back, starts_word,
};

/// The alphabet of a token's body.
#[derive(Clone, Copy)]
pub(super) enum Body {
    /// `[A-Za-z0-9]`
    Alnum,
    /// `[a-z0-9]`
    Lower,
    /// `[A-Z0-9]`
    Upper,
    /// `[A-Z0-9-]`
    UpperDash,
    /// `[A-Za-z0-9_]`
    Word,
    /// `[A-Za-z0-9_-]` (base64url)
    B64Url,
    /// `[A-Za-z0-9_.-]`
    B64UrlDot,
    /// `[A-Za-z0-9-]`
    AlnumDash,
    /// `[A-Za-z0-9+/=]`
    B64,
    /// `[A-Za-z0-9+/=_-]`
    B64Any,
    /// `[0-9a-f]`
    Hex,
    /// `[0-9a-fA-F]`
    HexAny,
    /// `[0-9a-f-]`
    HexDash,
    /// `[A-Za-z0-9$]`
    AlnumDollar,
    /// `[A-Za-z0-9+/=_#^-]` (eBay's `v^1.1#i^1#…` fields, then base64)
    B64Marks,
    /// `[A-Za-z0-9+/=_|-]` (Login with Amazon's `Atzr|…|…|…` segments)
    B64Bars,
}

impl Body {
    fn accepts(self, c: u8) -> bool {
        match self {
            Body::Alnum => c.is_ascii_alphanumeric(),
            Body::Lower => c.is_ascii_lowercase() || c.is_ascii_digit(),
            Body::Upper => c.is_ascii_uppercase() || c.is_ascii_digit(),
            Body::UpperDash => c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'-',
            Body::Word => is_word(c),
            Body::B64Url => is_b64url(c),
            Body::B64UrlDot => is_b64url(c) || c == b'.',
            Body::AlnumDash => c.is_ascii_alphanumeric() || c == b'-',
            Body::B64 => is_b64(c),
            Body::B64Any => is_b64(c) || c == b'_' || c == b'-',
            Body::Hex => c.is_ascii_digit() || (b'a'..=b'f').contains(&c),
            Body::HexAny => is_hex(c),
            Body::HexDash => c.is_ascii_digit() || (b'a'..=b'f').contains(&c) || c == b'-',
            Body::AlnumDollar => c.is_ascii_alphanumeric() || c == b'$',
            Body::B64Marks => is_b64(c) || matches!(c, b'_' | b'-' | b'#' | b'^'),
            Body::B64Bars => is_b64(c) || matches!(c, b'_' | b'-' | b'|'),
        }
    }

    /// Bodies that may end in punctuation lose it: a sentence's full stop is not the key's.
    fn trims(self) -> &'static [u8] {
        match self {
            Body::B64UrlDot => b".-_",
            Body::AlnumDash | Body::UpperDash | Body::HexDash | Body::B64Url => b"-",
            Body::B64Bars => b"|",
            _ => b"",
        }
    }
}

/// Extra shape check on a prefixed token's body.
#[derive(Clone, Copy)]
pub(super) enum Shape {
    Any,
    HasDigit,
    MixedCase,
    /// The body's letters and digits look machine-made (`text::random_alnum`).
    Random,
}

#[derive(Clone, Copy)]
pub(super) struct Vendor {
    pub kind: &'static str,
    pub body: Body,
    pub min: usize,
    pub max: usize,
    pub shape: Shape,
    /// Also look for the AWS secret key that usually travels with an access key id.
    pub aws_pair: bool,
}

const MAX: usize = 4096;

const fn v(kind: &'static str, body: Body, min: usize, max: usize, shape: Shape) -> Vendor {
    Vendor {
        kind,
        body,
        min,
        max,
        shape,
        aws_pair: false,
    }
}

const AWS_KEY_ID: Vendor = Vendor {
    kind: "aws-access-key-id",
    body: Body::Upper,
    min: 16,
    max: 16,
    shape: Shape::Any,
    aws_pair: true,
};
const GITHUB: Vendor = v("github-token", Body::Alnum, 30, MAX, Shape::Any);
const GITLAB: Vendor = v("gitlab-token", Body::B64UrlDot, 20, MAX, Shape::Any);
const SLACK: Vendor = v("slack-token", Body::AlnumDash, 10, MAX, Shape::HasDigit);
const STRIPE: Vendor = v("stripe-key", Body::Alnum, 10, MAX, Shape::Any);
const VAULT: Vendor = v("vault-token", Body::B64Url, 20, MAX, Shape::HasDigit);
const DIGITALOCEAN: Vendor = v("digitalocean-token", Body::Hex, 64, 64, Shape::Any);
const DOPPLER: Vendor = v("doppler-token", Body::B64UrlDot, 40, 80, Shape::Any);
const NEWRELIC: Vendor = v("newrelic-key", Body::B64Url, 19, 40, Shape::Any);
const SHOPIFY: Vendor = v("shopify-token", Body::HexAny, 32, 32, Shape::Any);
const PLANETSCALE: Vendor = v("planetscale-token", Body::B64UrlDot, 32, 64, Shape::Any);
const SENTRY: Vendor = v("sentry-token", Body::Hex, 64, 64, Shape::Any);
const GOOGLE_OAUTH: Vendor = v("google-oauth-token", Body::B64Url, 20, MAX, Shape::HasDigit);
const FLYIO: Vendor = v("flyio-token", Body::B64Any, 43, MAX, Shape::Any);
const ATLASSIAN: Vendor = v("atlassian-token", Body::B64Any, 60, MAX, Shape::Any);
const SETTLEMINT: Vendor = v("settlemint-token", Body::Alnum, 16, 16, Shape::Any);
const PASETO: Vendor = v("paseto-token", Body::B64Url, 40, MAX, Shape::Any);
const INTRA42: Vendor = v("intra42-secret", Body::Hex, 64, 64, Shape::Any);
const SONAR: Vendor = v("sonar-token", Body::Hex, 40, 40, Shape::Any);

/// Every known prefix. Prefixes are case-sensitive; the automaton that finds them is not,
/// so `prefixed` re-checks the bytes.
#[rustfmt::skip]
pub(super) const PREFIXES: &[(&str, Vendor)] = &[
    // AWS access key ids: the 4-character prefix names the key type.
    ("AKIA", AWS_KEY_ID), ("ASIA", AWS_KEY_ID), ("AGPA", AWS_KEY_ID), ("AIDA", AWS_KEY_ID),
    ("AROA", AWS_KEY_ID), ("AIPA", AWS_KEY_ID), ("ANPA", AWS_KEY_ID), ("ANVA", AWS_KEY_ID),
    ("ABIA", AWS_KEY_ID), ("ACCA", AWS_KEY_ID),
    ("ABSK", v("aws-bedrock-key", Body::B64, 100, MAX, Shape::Any)),
    // Login with Amazon's access and refresh tokens (Selling Partner API, Alexa).
    ("Atza|", v("amazon-token", Body::B64Bars, 60, MAX, Shape::Any)),
    ("Atzr|", v("amazon-token", Body::B64Bars, 60, MAX, Shape::Any)),
    // ASP.NET Core's data-protected payloads (auth and session cookies, antiforgery
    // tokens) open with its magic header's base64url.
    ("CfDJ8", v("aspnet-protected-token", Body::B64Url, 60, MAX, Shape::Any)),
    // eBay's user tokens: `v^1.1#i^1#p^3#…#t^<base64>`.
    ("v^1.1#i^1#", v("ebay-token", Body::B64Marks, 60, MAX, Shape::Any)),
    ("bedrock-api-key-", v("aws-bedrock-key", Body::B64, 20, MAX, Shape::Any)),
    // Forges and CI.
    ("ghp_", GITHUB), ("gho_", GITHUB), ("ghu_", GITHUB), ("ghs_", GITHUB), ("ghr_", GITHUB),
    ("github_pat_", v("github-token", Body::Word, 30, MAX, Shape::Any)),
    ("glpat-", GITLAB), ("gldt-", GITLAB), ("glrt-", GITLAB), ("glptt-", GITLAB),
    ("glft-", GITLAB), ("glsoat-", GITLAB), ("glcbt-", GITLAB), ("glimt-", GITLAB),
    ("glagent-", GITLAB), ("gloas-", GITLAB), ("glffct-", GITLAB), ("gltst-", GITLAB),
    ("glwt-", GITLAB), ("GR1348941", v("gitlab-token", Body::B64Url, 20, MAX, Shape::Any)),
    ("_gitlab_session=", v("gitlab-token", Body::Alnum, 32, MAX, Shape::Any)),
    ("ATBB", v("bitbucket-token", Body::Alnum, 28, MAX, Shape::HasDigit)),
    ("BBDC-", v("bitbucket-token", Body::B64Url, 40, 50, Shape::Any)),
    ("CCIPAT_", v("circleci-token", Body::Word, 60, 70, Shape::Any)),
    ("CCIPRJ_", v("circleci-token", Body::Word, 60, 70, Shape::Any)),
    ("bkua_", v("buildkite-token", Body::Lower, 40, 40, Shape::Any)),
    ("squ_", SONAR), ("sqp_", SONAR), ("sqa_", SONAR),
    ("sgp_", v("sourcegraph-token", Body::Word, 40, 60, Shape::Any)),
    // Chat and mail.
    ("xoxb-", SLACK), ("xoxp-", SLACK), ("xoxa-", SLACK), ("xoxr-", SLACK), ("xoxs-", SLACK),
    ("xoxo-", SLACK), ("xoxe-", SLACK), ("xoxe.xoxb-", SLACK), ("xoxe.xoxp-", SLACK),
    ("xapp-", SLACK),
    ("SG.", v("sendgrid-key", Body::B64UrlDot, 60, 70, Shape::Any)),
    ("xkeysib-", v("brevo-key", Body::AlnumDash, 70, 90, Shape::Any)),
    ("xsmtpsib-", v("brevo-key", Body::AlnumDash, 70, 90, Shape::Any)),
    // Payments and commerce.
    ("sk_live_", STRIPE), ("sk_test_", STRIPE), ("sk_prod_", STRIPE), ("rk_live_", STRIPE),
    ("rk_test_", STRIPE), ("rk_prod_", STRIPE),
    ("whsec_", v("stripe-key", Body::Alnum, 24, MAX, Shape::Any)),
    ("shpat_", SHOPIFY), ("shpca_", SHOPIFY), ("shppa_", SHOPIFY), ("shpss_", SHOPIFY),
    ("sq0atp-", v("square-token", Body::B64Url, 22, 60, Shape::Any)),
    ("sq0csp-", v("square-token", Body::B64Url, 22, 60, Shape::Any)),
    ("EAAA", v("square-token", Body::B64Url, 22, 60, Shape::Random)),
    ("FLWSECK_TEST-", v("flutterwave-key", Body::AlnumDash, 12, 40, Shape::Any)),
    ("FLWSECK-", v("flutterwave-key", Body::AlnumDash, 12, 40, Shape::Any)),
    ("shippo_live_", v("shippo-token", Body::Hex, 40, 40, Shape::Any)),
    ("shippo_test_", v("shippo-token", Body::Hex, 40, 40, Shape::Any)),
    ("duffel_test_", v("duffel-token", Body::B64Url, 43, 43, Shape::Any)),
    ("duffel_live_", v("duffel-token", Body::B64Url, 43, 43, Shape::Any)),
    ("EZAK", v("easypost-token", Body::Alnum, 54, 54, Shape::Any)),
    ("EZTK", v("easypost-token", Body::Alnum, 54, 54, Shape::Any)),
    ("access-sandbox-", v("plaid-token", Body::HexDash, 36, 36, Shape::Any)),
    ("access-development-", v("plaid-token", Body::HexDash, 36, 36, Shape::Any)),
    ("access-production-", v("plaid-token", Body::HexDash, 36, 36, Shape::Any)),
    ("access_token$production$", v("braintree-token", Body::AlnumDollar, 40, 60, Shape::Any)),
    ("access_token$sandbox$", v("braintree-token", Body::AlnumDollar, 40, 60, Shape::Any)),
    // Google, Microsoft, other clouds.
    ("AIza", v("google-api-key", Body::B64Url, 35, 35, Shape::Any)),
    ("ya29.", GOOGLE_OAUTH), ("1//0", GOOGLE_OAUTH),
    ("GOCSPX-", v("google-client-secret", Body::B64Url, 20, 40, Shape::Any)),
    ("LTAI", v("alibaba-access-key-id", Body::Alnum, 17, 21, Shape::HasDigit)),
    ("AKID", v("tencent-secret-id", Body::Alnum, 32, 32, Shape::HasDigit)),
    ("AKLT", v("volcengine-access-key", Body::B64, 30, MAX, Shape::HasDigit)),
    ("AQVN", v("yandex-key", Body::B64Url, 35, 38, Shape::Any)),
    ("doo_v1_", DIGITALOCEAN), ("dop_v1_", DIGITALOCEAN), ("dor_v1_", DIGITALOCEAN),
    ("HRKU-AA", v("heroku-key", Body::B64Url, 58, 58, Shape::Any)),
    ("fo1_", FLYIO), ("fm1a_", FLYIO), ("fm1r_", FLYIO), ("fm2_", FLYIO),
    ("dapi", v("databricks-token", Body::HexDash, 32, 34, Shape::HasDigit)),
    ("sha256~", v("openshift-token", Body::B64Url, 43, 43, Shape::Any)),
    ("v1.0-", v("cloudflare-origin-ca-key", Body::HexDash, 160, 180, Shape::Any)),
    ("cfut_", v("cloudflare-token", Body::Alnum, 40, 50, Shape::Any)),
    ("cfat_", v("cloudflare-token", Body::Alnum, 40, 50, Shape::Any)),
    ("cfk_", v("cloudflare-token", Body::Alnum, 40, 50, Shape::Any)),
    ("sbp_", v("supabase-token", Body::Alnum, 40, 40, Shape::Any)),
    ("sb_secret_", v("supabase-key", Body::B64Url, 20, MAX, Shape::Any)),
    ("napi_", v("neon-key", Body::Lower, 60, 70, Shape::Any)),
    ("rnd_", v("render-key", Body::Alnum, 30, 40, Shape::Random)),
    ("nfp_", v("netlify-token", Body::Alnum, 36, 44, Shape::Any)),
    ("tskey-", v("tailscale-key", Body::B64Url, 20, MAX, Shape::HasDigit)),
    ("dt0c01.", v("dynatrace-token", Body::B64UrlDot, 80, 100, Shape::Any)),
    ("pul-", v("pulumi-token", Body::Hex, 40, 40, Shape::Any)),
    ("pscale_tkn_", PLANETSCALE), ("pscale_oauth_", PLANETSCALE),
    ("pscale_pw_", v("planetscale-password", Body::B64UrlDot, 32, 64, Shape::Any)),
    ("tk-us-", v("scalingo-token", Body::B64Url, 48, 48, Shape::Any)),
    ("AstraCS:", v("astra-token", Body::B64Any, 60, 100, Shape::Any)),
    // Secrets managers and identity.
    ("hvs.", VAULT), ("hvb.", VAULT), ("hvr.", VAULT),
    ("dp.pt.", DOPPLER), ("dp.ct.", DOPPLER), ("dp.st.", DOPPLER), ("dp.sa.", DOPPLER),
    ("dp.scim.", DOPPLER), ("dp.audit.", DOPPLER),
    ("ops_eyJ", v("1password-token", Body::B64, 100, MAX, Shape::Any)),
    ("A3-", v("1password-secret-key", Body::UpperDash, 30, 40, Shape::HasDigit)),
    ("AGE-SECRET-KEY-1", v("age-secret-key", Body::Upper, 58, 58, Shape::Any)),
    // Tezos secret keys (base58 with the curve's prefix), Tor's onion service key as
    // its control port takes it, a Microsoft PVK file in base64 (its magic `b0b5f11e`).
    ("edsk", v("tezos-secret-key", Body::Alnum, 50, 94, Shape::Random)),
    ("spsk", v("tezos-secret-key", Body::Alnum, 50, 94, Shape::Random)),
    ("p2sk", v("tezos-secret-key", Body::Alnum, 50, 94, Shape::Random)),
    ("ED25519-V3:", v("tor-onion-key", Body::B64, 86, 88, Shape::Any)),
    ("HvG1sA", v("pvk-private-key", Body::B64, 100, MAX, Shape::Any)),
    ("v2.local.", PASETO), ("v3.local.", PASETO), ("v4.local.", PASETO),
    // Package registries.
    ("npm_", v("npm-token", Body::Alnum, 36, 36, Shape::Any)),
    ("pypi-Ag", v("pypi-token", Body::B64Url, 50, MAX, Shape::Any)),
    ("rubygems_", v("rubygems-token", Body::Hex, 48, 48, Shape::Any)),
    ("cio", v("crates-io-token", Body::Alnum, 32, 32, Shape::Random)),
    ("oy2", v("nuget-key", Body::Lower, 43, 43, Shape::HasDigit)),
    ("CLOJARS_", v("clojars-token", Body::Alnum, 60, 60, Shape::Any)),
    ("dckr_pat_", v("docker-token", Body::B64Url, 20, MAX, Shape::Any)),
    ("dckr_oat_", v("docker-token", Body::B64Url, 20, MAX, Shape::Any)),
    ("AKCp", v("artifactory-api-key", Body::Alnum, 60, 80, Shape::Any)),
    ("cmVmd", v("artifactory-token", Body::Alnum, 55, 65, Shape::Any)),
    // AI providers.
    ("sk-ant-", v("anthropic-key", Body::B64Url, 24, MAX, Shape::Any)),
    ("sk-or-v1-", v("openrouter-key", Body::Hex, 64, 64, Shape::Any)),
    ("hf_", v("huggingface-token", Body::Alnum, 30, 40, Shape::MixedCase)),
    ("api_org_", v("huggingface-token", Body::Alnum, 30, 40, Shape::MixedCase)),
    ("pplx-", v("perplexity-key", Body::Alnum, 48, 48, Shape::Any)),
    ("gsk_", v("groq-key", Body::Alnum, 50, 56, Shape::Any)),
    ("xai-", v("xai-key", Body::Word, 70, 90, Shape::Any)),
    ("nvapi-", v("nvidia-key", Body::B64Url, 60, 70, Shape::Any)),
    ("r8_", v("replicate-token", Body::B64Url, 37, 40, Shape::Any)),
    ("lsv2_pt_", v("langsmith-key", Body::Word, 40, 46, Shape::Any)),
    ("lsv2_sk_", v("langsmith-key", Body::Word, 40, 46, Shape::Any)),
    ("pcsk_", v("pinecone-key", Body::Word, 60, 80, Shape::Any)),
    ("sk_", v("elevenlabs-key", Body::Hex, 48, 48, Shape::Any)),
    // Observability.
    ("glc_", v("grafana-token", Body::B64, 32, MAX, Shape::Any)),
    ("glsa_", v("grafana-token", Body::Word, 41, 41, Shape::Any)),
    ("sntrys_", v("sentry-token", Body::B64Any, 100, MAX, Shape::Any)),
    ("sntryu_", SENTRY), ("sntrya_", SENTRY),
    ("NRAK-", v("newrelic-key", Body::Upper, 27, 27, Shape::Any)),
    // `NRJS-` is the browser agent's key, shipped in every page: `allow::publishable`.
    ("NRII-", NEWRELIC), ("NRIQ-", NEWRELIC),
    ("phx_", v("posthog-key", Body::Word, 40, 50, Shape::Any)),
    ("rootly_", v("rootly-key", Body::Hex, 64, 64, Shape::Any)),
    // Productivity and SaaS APIs.
    ("lin_api_", v("linear-api-key", Body::Alnum, 40, 40, Shape::Any)),
    ("ntn_", v("notion-token", Body::Alnum, 40, 50, Shape::Any)),
    ("secret_", v("notion-token", Body::Alnum, 43, 43, Shape::Random)),
    ("figp_", v("figma-token", Body::B64Url, 40, 54, Shape::Any)),
    ("CFPAT-", v("contentful-token", Body::B64Url, 43, 43, Shape::Any)),
    ("ATATT3", ATLASSIAN), ("ATCTT3", ATLASSIAN),
    ("pat-na1-", v("hubspot-token", Body::HexDash, 36, 36, Shape::Any)),
    ("pat-eu1-", v("hubspot-token", Body::HexDash, 36, 36, Shape::Any)),
    ("PMAK-", v("postman-key", Body::AlnumDash, 55, 62, Shape::Any)),
    ("pnu_", v("prefect-token", Body::Alnum, 36, 36, Shape::Any)),
    ("rdme_", v("readme-token", Body::Lower, 70, 70, Shape::Any)),
    ("tfp_", v("typeform-token", Body::B64UrlDot, 40, 60, Shape::Any)),
    ("fio-u-", v("frameio-token", Body::B64Url, 64, 64, Shape::Any)),
    ("ico-", v("infracost-token", Body::Alnum, 32, 32, Shape::Any)),
    ("p8e-", v("adobe-client-secret", Body::Alnum, 32, 32, Shape::Any)),
    ("API-", v("octopus-api-key", Body::Upper, 26, 26, Shape::HasDigit)),
    ("aio_", v("adafruit-key", Body::Alnum, 28, 28, Shape::Any)),
    ("apify_api_", v("apify-token", Body::Alnum, 36, 36, Shape::Any)),
    ("ramp_id_", v("ramp-key", Body::Alnum, 40, 48, Shape::Any)),
    ("ramp_sec_", v("ramp-key", Body::Alnum, 40, 48, Shape::Any)),
    ("dnkey-", v("defined-networking-token", Body::B64Url, 70, MAX, Shape::Any)),
    ("sl.", v("dropbox-token", Body::B64Url, 130, MAX, Shape::Any)),
    ("EAAM", v("facebook-token", Body::Alnum, 100, MAX, Shape::Any)),
    ("EAAC", v("facebook-token", Body::Alnum, 100, MAX, Shape::Any)),
    ("SK", v("twilio-api-key", Body::HexAny, 32, 32, Shape::HasDigit)),
    ("re_", v("resend-key", Body::Word, 30, 40, Shape::Random)),
    ("sm_aat_", SETTLEMINT), ("sm_pat_", SETTLEMINT), ("sm_sat_", SETTLEMINT),
    ("s-s4t2ud-", INTRA42), ("s-s4t2af-", INTRA42), ("u-s4t2ud-", INTRA42), ("u-s4t2af-", INTRA42),
    ("sk.eyJ", v("mapbox-token", Body::B64UrlDot, 60, MAX, Shape::Any)),
];

/// A prefixed token whose prefix ends at `e`: `Some((end, vendor))` when the body fits.
pub(super) fn prefixed(b: &[u8], s: usize, e: usize, literal: &str, p: Vendor) -> Option<usize> {
    // The automaton is case-insensitive; token prefixes are not.
    if b[s..e] != *literal.as_bytes() || !starts_word(b, s) && !literal.starts_with('_') {
        return None;
    }
    if before(b, s).is_some_and(|c| c == b'-' || c == b'.') && !literal.starts_with('_') {
        return None;
    }
    let cap = (e + p.max + 1).min(b.len());
    let mut end = run(&b[..cap], e, |c| p.body.accepts(c));
    // Trailing punctuation is the sentence's, unless the body needs it to be long enough
    // (base64url bodies end in `-` or `_` as often as in anything else).
    while end > e + p.min && p.body.trims().contains(&b[end - 1]) {
        end -= 1;
    }
    let body = &b[e..end];
    if body.len() < p.min || body.len() > p.max {
        return None;
    }
    // A neighbouring word character means this is part of something longer.
    if at(b, end).is_some_and(|c| is_word(c) && !p.body.trims().contains(&c)) {
        return None;
    }
    // `ghp_XXXX…`, `sk_live_0000…`: documentation's stand-in, not an issued token.
    if is_filler(body) || super::text::find(body, b"EXAMPLE").is_some() {
        return None;
    }
    let ok = match p.shape {
        Shape::Any => true,
        Shape::HasDigit => body.iter().any(u8::is_ascii_digit),
        Shape::MixedCase => {
            body.iter().any(u8::is_ascii_uppercase) && body.iter().any(u8::is_ascii_lowercase)
        }
        Shape::Random => {
            let alnum: usize = body.iter().filter(|c| c.is_ascii_alphanumeric()).count();
            alnum * 10 >= body.len() * 8
                && body
                    .split(|c| !c.is_ascii_alphanumeric())
                    .any(|seg| random_alnum(seg, p.min.min(20)))
        }
    };
    ok.then_some(end)
}

/// A vendor token whose prefix ends at the separator `b[s]` (`glpat-`, `dop_v1_`): the
/// run of token bytes before it, looked up in `table` (sorted). A prefix starts where a
/// word does (`prefixed` insists), so the run's start is the only place to look.
pub(super) fn separated(
    b: &[u8],
    s: usize,
    table: &[(&'static [u8], Vendor)],
    index: &[u32; 256],
) -> Option<(usize, usize, Vendor)> {
    let lo = s.saturating_sub(24);
    let start = run_back(b, s, lo, |c| {
        c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.')
    });
    if start == lo && lo > 0 {
        return None;
    }
    let cand = &b[start..=s];
    // Most separators end no prefix: no prefix starts with this byte and has this length.
    if cand.len() >= 32 || index[usize::from(cand[0])] & (1 << cand.len()) == 0 {
        return None;
    }
    // The table is sorted, so one first byte's prefixes are together; comparing lengths
    // first skips nearly all of them without touching their bytes.
    let lo = table.partition_point(|(p, _)| p[0] < cand[0]);
    let (p, v) = *table[lo..]
        .iter()
        .take_while(|(p, _)| p[0] == cand[0])
        .find(|(p, _)| p.len() == cand.len() && *p == cand)?;
    let lit = std::str::from_utf8(p).ok()?;
    prefixed(b, start, s + 1, lit, v).map(|end| (start, end, v))
}

/// A 40-character AWS secret key within a short distance after an access key id.
pub(super) fn aws_secret_near(b: &[u8], from: usize) -> Option<(usize, usize)> {
    let limit = (from + 120).min(b.len());
    let mut i = from;
    while i < limit {
        if !is_b64(b[i]) || b[i] == b'=' {
            i += 1;
            continue;
        }
        let end = run(b, i, |c| {
            c.is_ascii_alphanumeric() || c == b'+' || c == b'/'
        });
        let v = &b[i..end];
        let bounded = !before(b, i).is_some_and(is_b64) && !at(b, end).is_some_and(is_word);
        if bounded
            && v.len() == 40
            && v.iter().any(u8::is_ascii_uppercase)
            && v.iter().any(u8::is_ascii_lowercase)
            && (v.iter().any(u8::is_ascii_digit) || v.contains(&b'/') || v.contains(&b'+'))
        {
            return Some((i, end));
        }
        i = end.max(i + 1);
    }
    None
}

/// Prefix words of ids and digests that share the `<word>-<random>` shape but are public:
/// subresource integrity, CSP nonces, content hashes.
/// The digest algorithms themselves are `allow::DIGEST_ALGORITHMS`.
const PUBLIC_PREFIXES: &[&[u8]] = &[
    b"nonce",
    b"integrity",
    b"base64",
    b"data",
    b"pk",
    b"pub",
    b"public",
    b"publishable",
    b"client",
    b"learning",
    b"commit",
    b"sha",
    // Ids APIs hand out: requests, completions, messages, tool calls, objects.
    b"req",
    b"request",
    b"chatcmpl",
    b"cmpl",
    b"msg",
    b"toolu",
    b"call",
    b"run",
    b"asst",
    b"thread",
    b"file",
    b"evt",
    b"cus",
    b"ch",
    b"pi",
    b"in",
    b"sub",
    b"prod",
    b"price",
    b"txn",
    b"trace",
    b"span",
    b"id",
    b"uid",
    b"obj",
    b"resp",
    b"batch",
    b"ft",
    b"job",
    b"step",
    b"op",
    b"operation",
    b"build",
    b"cache",
    b"node",
    b"pod",
    b"sess",
    b"session",
    // Resources a dashboard or an API names in URLs and logs: accounts, organisations,
    // users, teams, projects, environments, deployments, workspaces, orders.
    b"acct",
    b"account",
    b"org",
    b"user",
    b"usr",
    b"team",
    b"prj",
    b"proj",
    b"project",
    b"env",
    b"dpl",
    b"dep",
    b"deploy",
    b"deployment",
    b"ws",
    b"workspace",
    b"app",
    b"inv",
    b"invoice",
    b"ord",
    b"order",
    b"item",
    b"doc",
    b"page",
    b"plan",
    b"conv",
    b"room",
];

/// Prefix segments that say the token is a secret (`sk`, `pat`, `key`): with one, a
/// shorter body, a UUID or a hex string is enough.
const SECRET_SEGMENTS: &[&[u8]] = &[
    b"sk", b"secret", b"key", b"pat", b"tok", b"token", b"api", b"apikey", b"priv", b"auth",
    b"access", b"pw", b"pwd", b"cred", b"sec", b"rk",
];

/// Prefix segments that name the environment a token works in (`_live_`, `_dev_`): no
/// id has one, so a shorter body is enough.
const ENV_SEGMENTS: &[&[u8]] = &[
    b"live", b"test", b"dev", b"prod", b"sandbox", b"stg", b"staging",
];

/// `<word>[_-]<random>` for a vendor the table does not know: a word of 2–12 letters in
/// one case (with up to two more short segments, `dop_v1_`, `nq_sk_`), then a body of a
/// consistent alphabet that a machine made: 28+ letters and digits in one run, or a
/// base64url body whose letters and digits together look random; 20+ when a segment says
/// "secret" (`sk`, `pat`) or names an environment (`live`, `dev`), and then a UUID or hex
/// will do. `s..e` is the separator the automaton found; returns the token's range and
/// how far the caller need not look again.
pub(super) fn generic_prefixed(b: &[u8], s: usize, reach: &mut usize) -> Option<(usize, usize)> {
    let is_tok = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'-';
    let lo = s.saturating_sub(40);
    let start = run_back(b, s, lo, is_tok);
    let end = run(&b[..(s + 512).min(b.len())], s, is_tok);
    *reach = end;
    if start == lo && lo > 0 || end - start < 24 {
        return None;
    }
    // Base64 data, a path segment glued to more, or an e-mail: not a token on its own.
    let in_path = before(b, start) == Some(b'/') && at(b, end) == Some(b'/');
    if before(b, start).is_some_and(|c| matches!(c, b'+' | b'.' | b'@' | b'%' | b'$'))
        || !in_path
            && at(b, end).is_some_and(|c| matches!(c, b'+' | b'/' | b'=' | b'@' | b'.' | b'$'))
            && !at(b, end + 1).is_none_or(|c| c.is_ascii_whitespace())
    {
        return None;
    }
    let tok = &b[start..end];
    if super::text::find(tok, b"EXAMPLE").is_some() {
        return None;
    }
    // The vendor word, all lower or all upper case.
    let upper = tok[0].is_ascii_uppercase();
    let in_case = |c: u8| {
        c.is_ascii_digit()
            || if upper {
                c.is_ascii_uppercase()
            } else {
                c.is_ascii_lowercase()
            }
    };
    let word_end = run(tok, 0, in_case);
    if !(2..=12).contains(&word_end) || !tok[0].is_ascii_alphabetic() {
        return None;
    }
    if PUBLIC_PREFIXES
        .iter()
        .chain(DIGEST_ALGORITHMS)
        .any(|p| tok[..word_end].eq_ignore_ascii_case(p))
    {
        return None;
    }
    let mut i = word_end;
    let mut underscore = false;
    let mut segments = 0;
    let mut says_secret = SECRET_SEGMENTS
        .iter()
        .any(|w| tok[..word_end].eq_ignore_ascii_case(w));
    let mut names_env = false;
    // Up to two more short segments (`_v1`, `_live`, `-us`).
    for _ in 0..3 {
        match at(tok, i) {
            Some(sep @ (b'_' | b'-')) => {
                underscore |= sep == b'_';
                let seg_end = run(tok, i + 1, |c| c.is_ascii_alphanumeric());
                let seg = &tok[i + 1..seg_end];
                if seg.is_empty() {
                    return None;
                }
                // A segment of random bytes or a UUID is the body, which a base64url `-`
                // or `_` may cut.
                if seg.len() > 8 || !seg.iter().all(|&c| in_case(c)) || is_uuid(&tok[i + 1..]) {
                    break;
                }
                says_secret |= SECRET_SEGMENTS.iter().any(|w| seg.eq_ignore_ascii_case(w));
                names_env |= ENV_SEGMENTS.iter().any(|w| seg.eq_ignore_ascii_case(w));
                segments += 1;
                i = seg_end;
            }
            _ => return None,
        }
    }
    if !matches!(at(tok, i), Some(b'_' | b'-')) {
        return None;
    }
    let body = &tok[i + 1..];
    // Upper-case words (`MY_APP_`) only name a token before a body in mixed case.
    if upper && !(has_upper(body) && has_lower(body)) {
        return None;
    }
    // The longest run of letters and digits carries the randomness.
    let longest = body
        .split(|&c| c == b'_' || c == b'-')
        .max_by_key(|seg| seg.len())
        .unwrap_or_default();
    let hex_only = longest.iter().all(|&c| is_hex(c));
    let min = if says_secret || names_env { 20 } else { 28 };
    let ok =
        if says_secret && (is_uuid(body) || body.len() >= 24 && body.iter().all(|&c| is_hex(c))) {
            has_digit(body) && has_alpha(body)
        } else if hex_only {
            (underscore || segments == 0 && longest.len() >= 40)
                && longest.len() >= 32
                && random_alnum(longest, 32)
        } else if longest.len() >= min {
            random_alnum(longest, min)
        } else {
            // base64url: separators inside the body; the letters and digits together.
            let joined: Vec<u8> = body
                .iter()
                .copied()
                .filter(u8::is_ascii_alphanumeric)
                .collect();
            body.len() >= 32 && random_alnum(&joined, 28)
        };
    // Bodies of base64url may hold separators; ids joined from words do not look random.
    (ok && entropy(body) >= 3.5).then_some((start, end))
}

/// `<word>.<random>` for a vendor the table does not know (`sl.`, `sk.` style): a word of
/// 2–8 lower-case letters and digits that starts a token, a dot, then 32+ characters of
/// base64url with no further dot (a host name or a JWT has more), whose letters and
/// digits look machine-made. `s` is the dot.
pub(super) fn generic_dotted(b: &[u8], s: usize) -> Option<(usize, usize)> {
    // Most dots end a sentence or sit in a path, a version or a host name: the byte
    // before must be a letter or a digit, the byte after must start a random body.
    if !before(b, s).is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        || !at(b, s + 1).is_some_and(|c| c.is_ascii_alphanumeric())
    {
        return None;
    }
    let start = run_back(b, s, s.saturating_sub(9), |c| {
        c.is_ascii_lowercase() || c.is_ascii_digit()
    });
    let word = &b[start..s];
    if !(2..=8).contains(&word.len())
        || !word[0].is_ascii_lowercase()
        || before(b, start).is_some_and(|c| {
            c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-' | b'/' | b'@')
        })
        || PUBLIC_PREFIXES.iter().any(|p| word.eq_ignore_ascii_case(p))
    {
        return None;
    }
    let end = run(&b[..(s + 512).min(b.len())], s + 1, is_b64url);
    let body = &b[s + 1..end];
    if body.len() < 32 || at(b, end).is_some_and(|c| c == b'.' || c == b'/' || c == b'@') {
        return None;
    }
    let joined: Vec<u8> = body
        .iter()
        .copied()
        .filter(u8::is_ascii_alphanumeric)
        .collect();
    (random_alnum(&joined, 28) && entropy(body) >= 4.0).then_some((start, end))
}
