//! Credentials a URL carries: userinfo (`scheme://user:password@host`), a
//! webhook URL's or route's random segments, a `hook.` host's path, and an
//! OAuth code or token in a query or fragment.

use super::*;

/// `scheme://user:password@host` — only the password (or a lone token user) goes.
pub(in crate::redact) fn url_credentials(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    let scheme_start = run_back(b, s, s.saturating_sub(32), |c| {
        c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-')
    });
    if scheme_start == s || !b[scheme_start].is_ascii_alphabetic() {
        return None;
    }
    let auth_end = run(&b[..(e + 1024).min(b.len())], e, |c| {
        !(c.is_ascii_whitespace()
            || matches!(
                c,
                b'/' | b'?' | b'#' | b'"' | b'\'' | b'`' | b'<' | b'>' | b'\\'
            ))
    });
    let Some(at_sign) = b[e..auth_end].iter().rposition(|&c| c == b'@') else {
        return slashed_key(b, e, auth_end);
    };
    let at_sign = at_sign + e;
    let userinfo = &b[e..at_sign];
    // `https://<user>:@packagecloud.io`: a token as the user, with no password.
    let token_user = |user: &[u8]| {
        user.len() >= 20 && has_digit(user) && has_alpha(user) && !is_placeholder(user)
    };
    // The colon between user and password, outside a `${USER:-app}` reference.
    let mut depth = 0usize;
    let colon = userinfo.iter().position(|&c| {
        match c {
            b'{' => depth += 1,
            b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        c == b':' && depth == 0
    });
    match colon {
        Some(colon) if colon + 1 == userinfo.len() => {
            token_user(&userinfo[..colon]).then(|| hit("url-password", e, e + colon))?
        }
        Some(colon) => {
            let start = e + colon + 1;
            let pass = &b[start..at_sign];
            // GitHub's `https://<token>:x-oauth-basic@github.com`: the token is the user,
            // the password a fixed word.
            if pass.eq_ignore_ascii_case(b"x-oauth-basic") {
                return token_user(&userinfo[..colon])
                    .then(|| hit("url-password", e, e + colon))?;
            }
            // `guest:guest@`, `postgres:postgres@`: a service's default login, which its
            // documentation prints, not a credential someone chose.
            let default_login = pass == &userinfo[..colon];
            (!is_placeholder(pass) && !default_login)
                .then(|| hit("url-password", start, at_sign))?
        }
        // Proxy links whose user part is the password (`trojan://<password>@host:443`).
        None if [
            b"trojan".as_slice(),
            b"hysteria2",
            b"hy2",
            b"hysteria",
            b"anytls",
        ]
        .iter()
        .any(|p| b[scheme_start..s].eq_ignore_ascii_case(p)) =>
        {
            (userinfo.len() >= 8 && !is_placeholder(userinfo))
                .then(|| hit("url-password", e, at_sign))?
        }
        None => (token_user(userinfo) && !sentry_dsn(b, userinfo, at_sign))
            .then(|| hit("url-password", e, at_sign))?,
    }
}

/// `b2://<key id>:<application key>@bucket/path` (duplicity, restic): a base64 key whose
/// `/` ends the userinfo as a URL parser reads it. `auth_end` is that `/`; the key must
/// follow a user without `/`, not start as a port's digits do, and be random.
fn slashed_key(b: &[u8], e: usize, auth_end: usize) -> Option<Hit> {
    if at(b, auth_end) != Some(b'/') {
        return None;
    }
    let colon = b[e..auth_end].iter().position(|&c| c == b':')? + e;
    let head = &b[colon + 1..auth_end];
    if head.is_empty() || head.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let end = run(&b[..(auth_end + 256).min(b.len())], auth_end, |c| {
        c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=')
    });
    if at(b, end) != Some(b'@') {
        return None;
    }
    let key = &b[colon + 1..end];
    (key.len() >= 20 && plausible(key, Need::Strong))
        .then(|| hit("url-password", colon + 1, end))?
}

/// `https://<32 hex>@o123.ingest.sentry.io/456`: a Sentry DSN's key is public (every
/// browser that reports errors sends it); only its old `public:secret@` form had a
/// secret, and that has a colon.
fn sentry_dsn(b: &[u8], user: &[u8], at_sign: usize) -> bool {
    let host_end = run(&b[..(at_sign + 256).min(b.len())], at_sign + 1, |c| {
        c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-')
    });
    user.len() == 32
        && user
            .iter()
            .all(|&c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
        && contains_ci(&b[at_sign + 1..host_end], b"sentry")
}

/// Webhook URLs whose path is the credential: Slack, Discord, Teams, Zapier, Telegram bots.
pub(in crate::redact) fn webhook(b: &[u8], s: usize, e: usize, literal: &str) -> Option<Hit> {
    let lit = literal.as_bytes();
    let path_ok = |c: u8| is_b64url(c) || c == b'/';
    if lit.eq_ignore_ascii_case(b"hooks.slack.com/") {
        let path = ["services/", "workflows/", "triggers/"]
            .iter()
            .find(|p| b[e..].starts_with(p.as_bytes()))?;
        let start = e + path.len();
        let end = run(b, start, path_ok);
        // `T00000000/B00000000/XXXX…`: documentation's filler in every segment.
        let filler = b[start..end].split(|&c| c == b'/').all(|seg| {
            let body = seg.strip_prefix(b"T").or_else(|| seg.strip_prefix(b"B"));
            crate::redact::text::is_filler(body.unwrap_or(seg))
        });
        if filler {
            return None;
        }
        return (end - start >= 20).then(|| hit("slack-webhook", start, end))?;
    }
    if lit.eq_ignore_ascii_case(b"api.telegram.org/bot") {
        let end = run(b, e, |c| is_b64url(c) || c == b':');
        return (end - e >= 30 && b[e..end].contains(&b':'))
            .then(|| hit("telegram-bot-token", e, end))?;
    }
    let kind = if contains_ci(lit, b"discord") {
        "discord-webhook"
    } else if contains_ci(lit, b"office") || contains_ci(lit, b"logic.azure") {
        "teams-webhook"
    } else {
        "webhook-token"
    };
    let _ = s;
    let end = run(b, e, |c| {
        path_ok(c) || c == b'@' || c == b'?' || c == b'=' || c == b'&' || c == b'%'
    });
    (end - e >= 16 && has_digit(&b[e..end])).then(|| hit(kind, e, end))?
}

/// A webhook URL after its `://`: Discord, Teams, Zapier, Telegram bots.
pub(in crate::redact) fn webhook_url(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    let host_end = run(&b[..(e + 128).min(b.len())], e, |c| {
        c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-')
    });
    let host = &b[e..host_end];
    let path = &b[host_end..];
    let (lit, skip): (&str, &[u8]) = if (host.eq_ignore_ascii_case(b"discord.com")
        || host.eq_ignore_ascii_case(b"discordapp.com"))
        && path.starts_with(b"/api/webhooks/")
    {
        ("discord.com/api/webhooks/", b"/api/webhooks/")
    } else if host.ends_with(b".webhook.office.com") && path.starts_with(b"/webhookb2/") {
        ("webhook.office.com/webhookb2/", b"/webhookb2/")
    } else if host.eq_ignore_ascii_case(b"hooks.zapier.com") && path.starts_with(b"/hooks/catch/") {
        ("hooks.zapier.com/hooks/catch/", b"/hooks/catch/")
    } else if host.eq_ignore_ascii_case(b"outlook.office.com") && path.starts_with(b"/webhook/") {
        ("webhook.office.com/webhookb2/", b"/webhook/")
    } else if host.eq_ignore_ascii_case(b"api.telegram.org") && path.starts_with(b"/bot") {
        ("api.telegram.org/bot", b"/bot")
    } else {
        return None;
    };
    webhook(b, s, host_end + skip.len(), lit)
}

/// A URL path segment after one that names a credential (`/webhooks/<random>/…`,
/// `/token/<random>`): the random segment is the credential.
pub(in crate::redact) fn path_secret(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    // Inside a URL: a `://` earlier on the line, or a request's target (`POST /hooks/…
    // HTTP/1.1` in a proxy's dump or an access log).
    let ls = line_start(b, s);
    let request = ["GET ", "POST ", "PUT ", "PATCH ", "DELETE "]
        .iter()
        .any(|m| b[..s].ends_with(m.as_bytes()));
    // A collector's config gives the route alone under its own key (fluent-bit's
    // `URI /receiver/v1/http/<token>`, the host on another line).
    let lead = b[ls..s].trim_ascii_end();
    let lead = lead
        .strip_suffix(b"=")
        .or_else(|| lead.strip_suffix(b":"))
        .unwrap_or(lead)
        .trim_ascii_end();
    let route_key = [b"uri".as_slice(), b"url", b"path", b"endpoint"]
        .iter()
        .any(|k| lead.len() >= k.len() && lead[lead.len() - k.len()..].eq_ignore_ascii_case(k))
        && lead.len() < b[ls..s].len();
    let scheme = match find(&b[ls..s], b"://") {
        Some(i) => i + ls + 3,
        None if request || route_key => s,
        None => return None,
    };
    // Azure Key Vault's URLs name a key or secret and its version, never its value.
    let host = run(&b[..s], scheme, |c| {
        c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-')
    });
    if [
        ".vault.azure.net",
        ".vault.azure.cn",
        ".vault.usgovcloudapi.net",
    ]
    .iter()
    .any(|h| b[scheme..host].ends_with(h.as_bytes()))
    {
        return None;
    }
    let hook = [
        "hook",
        "integration",
        "heartbeat",
        "ping",
        "push",
        "receiver",
        "inputs",
        "private",
    ]
    .iter()
    .any(|w| contains_ci(&b[s..e], w.as_bytes()));
    // The credential may come after a few words (`/integrations/generic/20131114/alert/
    // <uuid>`): the first random segment among the next four.
    let mut start = e;
    for _ in 0..4 {
        let end = run(&b[..(start + 512).min(b.len())], start, |c| {
            c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'@' | b'~' | b'+')
        });
        let seg = &b[start..end];
        let at_next = at(b, end);
        if at_next != Some(b'.') && route_secret(seg, hook) {
            let kind = if hook { "webhook-token" } else { "token" };
            return hit(kind, start, secret_segments_end(b, end, hook));
        }
        // Words, numbers and short ids (`v1`, Django's base64 user id `NzY1Mg`) lead on.
        let word = !seg.is_empty() && seg.len() <= 16 && !has_digit(seg)
            || is_numeric_word(seg)
            || (1..=8).contains(&seg.len());
        if !word || at_next != Some(b'/') {
            return None;
        }
        start = end + 1;
    }
    None
}

/// `rtmp://host/app/<key>`: what follows the application's name is the stream key,
/// which publishes to the channel; `e` is the end of `rtmp://`.
pub(in crate::redact) fn stream_key(b: &[u8], e: usize) -> Option<Hit> {
    let end = run(&b[..(e + 512).min(b.len())], e, |c| {
        !(c.is_ascii_whitespace() || matches!(c, b'"' | b'\'' | b'`' | b'<' | b'>' | b'?'))
    });
    let url = &b[e..end];
    // Host, application, key: two slashes at least.
    if url.iter().filter(|&&c| c == b'/').count() < 2 {
        return None;
    }
    let ks = e + url.iter().rposition(|&c| c == b'/')? + 1;
    let key = &b[ks..end];
    let random = key.len() >= 12
        && has_digit(key)
        && has_alpha(key)
        && !crate::redact::text::is_file_name(key)
        && !is_placeholder(key)
        && !key.starts_with(b"{")
        && !key.starts_with(b"$");
    random.then(|| hit("stream-key", ks, end))?
}

/// `sip:alice:<password>@pbx.example.com`: a SIP URI's password (RFC 3261 allows one
/// in the userinfo); `s..e` is the `sip:` anchor.
pub(in crate::redact) fn sip_password(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    if before(b, s).is_some_and(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    let user = run(&b[..(e + 128).min(b.len())], e, |c| {
        c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-' | b'+' | b'%')
    });
    if user == e || at(b, user) != Some(b':') {
        return None;
    }
    let ps = user + 1;
    let pe = run(&b[..(ps + 128).min(b.len())], ps, |c| {
        !(c.is_ascii_whitespace() || matches!(c, b'@' | b';' | b'>' | b'<' | b'"' | b'\''))
    });
    let pass = &b[ps..pe];
    let ok = at(b, pe) == Some(b'@') && !pass.is_empty() && !is_placeholder(pass);
    // `sip:alice:5060@…` is no password; a port is digits.
    (ok && !pass.iter().all(u8::is_ascii_digit)).then(|| hit("url-password", ps, pe))?
}

/// `20131114`, `v4`: a date or a version among a route's words.
fn is_numeric_word(seg: &[u8]) -> bool {
    !seg.is_empty()
        && seg.len() <= 10
        && seg
            .iter()
            .all(|c| c.is_ascii_digit() || matches!(c, b'v' | b'.'))
}

/// A path segment that is a route's credential: random, or, after a word that says
/// webhook, a UUID or long hex (services mint their hook ids that way).
/// The key a host takes as a path segment: Alchemy's `/v2/<key>`, Infura's
/// `/v3/<key>`, QuickNode's `<name>.quiknode.pro/<token>/`, Cloudsmith's
/// `dl.cloudsmith.io/<entitlement>/`, a Bitrix24 webhook's `/rest/<user>/<secret>/`.
/// `e` is after the anchor's closing `/`.
pub(in crate::redact) fn keyed_route(b: &[u8], e: usize) -> Option<Hit> {
    let mut start = e;
    if b[e - 6..e].eq_ignore_ascii_case(b"/rest/") {
        // Bitrix24's inbound webhook: the user's number, then the secret.
        let host_start = run_back(b, e - 6, (e - 6).saturating_sub(80), |c| {
            c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-')
        });
        let user_end = run(b, e, |c| c.is_ascii_digit());
        if !contains_ci(&b[host_start..e], b".bitrix24.")
            || user_end == e
            || at(b, user_end) != Some(b'/')
        {
            return None;
        }
        start = user_end + 1;
    }
    let end = run(&b[..(start + 128).min(b.len())], start, |c| {
        c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_')
    });
    let seg = &b[start..end];
    (seg.len() >= 16 && has_digit(seg) && has_alpha(seg) && at(b, end).is_none_or(|c| c != b'.'))
        .then(|| hit("token", start, end))?
}

fn route_secret(seg: &[u8], hook: bool) -> bool {
    seg.len() >= 16
        && (plausible(seg, Need::Strong)
            || hook
                && (is_uuid(seg)
                    || seg.len() >= 24
                        && seg.iter().all(|&c| is_b64url(c))
                        && has_digit(seg)
                        && has_alpha(seg)))
}

/// Where a route's credential ends: it goes on through the segments that are random too
/// (`/hooks/<id>/<token>`), and stops at the first word (`/enqueue`).
fn secret_segments_end(b: &[u8], mut end: usize, hook: bool) -> usize {
    while at(b, end) == Some(b'/') {
        // Base64's `+` and `=` too: Sumo Logic's `/receiver/v1/http/<base64>`.
        let next = run(&b[..(end + 513).min(b.len())], end + 1, |c| {
            c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'+' | b'=')
        });
        if !route_secret(&b[end + 1..next], hook) {
            break;
        }
        end = next;
    }
    end
}

/// `https://hook.eu1.example.com/<random>`: a host that says webhook, and the route
/// after it is the credential.
pub(in crate::redact) fn hook_host(b: &[u8], e: usize) -> Option<Hit> {
    let host_end = run(&b[..(e + 128).min(b.len())], e, |c| {
        c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-')
    });
    let host = &b[e..host_end];
    let first_label = host.split(|&c| c == b'.').next()?;
    // `hooks.example.net`, `hc-ping.com`: a host that takes a route as its credential.
    let hook_label = first_label.eq_ignore_ascii_case(b"hook")
        || first_label.eq_ignore_ascii_case(b"hooks")
        || first_label.len() > 4 && contains_ci(first_label, b"ping");
    if !hook_label || at(b, host_end) != Some(b'/') {
        return None;
    }
    // The route may start with words (`/v1/incoming/<random>`): the first random
    // segment among the first four is where the credential starts.
    let mut start = host_end + 1;
    for _ in 0..4 {
        let end = run(&b[..(start + 512).min(b.len())], start, |c| {
            c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_')
        });
        let seg = &b[start..end];
        if route_secret(seg, true) {
            return hit("webhook-token", start, secret_segments_end(b, end, true));
        }
        let word = !seg.is_empty()
            && seg.len() <= 16
            && seg
                .iter()
                .all(|&c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_');
        if !word || at(b, end) != Some(b'/') {
            return None;
        }
        start = end + 1;
    }
    None
}

/// An OAuth authorization code in a URL or form (`/callback?code=…`, `-d code=…` beside
/// `grant_type=authorization_code`): it is exchanged for a token, so it is one while it
/// lives. `s..e` is `code=`; the line must say OAuth.
pub(in crate::redact) fn oauth_code(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    if !matches!(before(b, s), Some(b'?' | b'&' | b' ')) {
        return None;
    }
    let ls = line_start(b, s);
    let le = line_end(b, e, 1024);
    let line = &b[ls..le];
    let oauth = [
        b"callback".as_slice(),
        b"oauth",
        b"authorize",
        b"redirect",
        b"authorization_code",
    ]
    .iter()
    .any(|w| contains_ci(line, w));
    // An Azure Function's key in its URL (`/api/<function>?code=…==`): the key that
    // calls the function, as long as it is valid.
    let path = b[ls..s]
        .split(|c| c.is_ascii_whitespace())
        .next_back()
        .unwrap_or(b"");
    let function = contains_ci(line, b"azurewebsites.net")
        || super::super::text::find(path, b"/api/").is_some();
    if !oauth && !function {
        return None;
    }
    let mut end = run(&b[..le], e, |c| {
        is_b64url(c) || matches!(c, b'.' | b'~' | b'%')
    });
    if function && !oauth {
        end = run(&b[..le], end, |c| c == b'=');
        if end - e < 40 {
            return None;
        }
    }
    let v = &b[e..end];
    (plausible(v, Need::Token) && !is_placeholder(v)).then(|| hit("token", e, end))?
}

/// `https://send.example.io/download/<id>/#<key>`, Bitwarden Send's `…/#<id>/<key>`: a key
/// in a URL's fragment, which a browser never sends to the server — where end-to-end
/// encrypted sharing (Send, PrivateBin, Excalidraw) puts the key that decrypts the
/// file. Its last segment, when it is random, is the key; `e` is after `://`.
pub(in crate::redact) fn fragment_key(b: &[u8], e: usize) -> Option<Hit> {
    let url_end = run(&b[..(e + 2048).min(b.len())], e, |c| {
        !(c.is_ascii_whitespace() || matches!(c, b'"' | b'\'' | b'`' | b'<' | b'>' | b')'))
    });
    let hash = b[e..url_end].iter().position(|&c| c == b'#')? + e;
    let frag = &b[hash + 1..url_end];
    let start = frag
        .iter()
        .rposition(|&c| matches!(c, b'/' | b'=' | b'!' | b','))
        .map_or(hash + 1, |p| hash + 2 + p);
    let end = run(&b[..url_end], start, is_b64url);
    let seg = &b[start..end];
    (seg.len() >= 16
        && end == url_end
        && has_digit(seg)
        && seg.iter().any(u8::is_ascii_uppercase)
        && seg.iter().any(u8::is_ascii_lowercase)
        && plausible(seg, Need::Token))
    .then(|| hit("url-key", start, end))?
}

/// `https://app.example/auth/magic?email=…&t=<token>`: a sign-in link's query. The
/// path's last word says the link logs its holder in (`magic`, `magic-link`, `verify`,
/// `reset`, `confirm`, `invite`); a parameter's value that is random is the token.
/// `e` is after the anchor's `?`.
pub(in crate::redact) fn link_query_token(b: &[u8], e: usize) -> Option<Hit> {
    let end = run(&b[..(e + 2048).min(b.len())], e, |c| {
        !(c.is_ascii_whitespace() || matches!(c, b'"' | b'\'' | b'`' | b'<' | b'>' | b'#'))
    });
    let mut i = e;
    while i < end {
        let pe = run(&b[..end], i, |c| c != b'&');
        if let Some(eq) = b[i..pe].iter().position(|&c| c == b'=') {
            let (vs, ve) = (i + eq + 1, pe);
            let v = &b[vs..ve];
            if v.len() >= 20
                && v.iter().all(|&c| is_b64url(c) || c == b'.')
                && plausible(v, Need::Strong)
            {
                return hit("link-token", vs, ve);
            }
        }
        i = pe + 1;
    }
    None
}

/// `otpauth-migration://offline?data=…`: Google Authenticator's export, every account's
/// TOTP seed in one base64 parameter. `e` is after `://`.
pub(in crate::redact) fn otp_migration(b: &[u8], s: usize, e: usize) -> Option<Hit> {
    if !b[..s].ends_with(b"otpauth-migration") && !b[..s].ends_with(b"OTPAUTH-MIGRATION") {
        return None;
    }
    let le = line_end(b, e, 4096);
    let data = find(&b[e..le], b"data=")? + e + 5;
    let end = run(&b[..le], data, |c| {
        is_b64url(c) || matches!(c, b'+' | b'/' | b'%' | b'=')
    });
    (end - data >= 16).then(|| hit("totp-seed", data, end))?
}
