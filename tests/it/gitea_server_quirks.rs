//! The test server reproduces Gitea 1.25's quirks — the wiki's (API-NOTES
//! §a, §b, §f) and the review API's (§e, §f, and what Gitea's source does
//! where the notes are silent) — checked with raw HTTP so the client cannot
//! paper over them.

use crate::common::gitea_server;

use gitea_server::{
    BOT_TOKEN, GiteaServer, MAINTAINER_TOKEN, Protection, READER_TOKEN, WRITE_TOKEN,
};
use serde_json::{Value, json};

async fn call(
    server: &GiteaServer,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> (u16, Value, Option<String>) {
    let (status, body, headers) = call_as(server, WRITE_TOKEN, method, path, body).await;
    let total = header(&headers, "x-total-count");
    (status, body, total)
}

fn header(headers: &[(String, String)], name: &str) -> Option<String> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.clone())
}

/// One raw request with `token`; the status, the JSON body (or null) and
/// every response header.
async fn call_as(
    server: &GiteaServer,
    token: &str,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> (u16, Value, Vec<(String, String)>) {
    let url = format!("{}/api/v1/repos/acme/docs{path}", server.url());
    let method = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
    let mut req = reqwest::Client::new()
        .request(method, url)
        .header("Authorization", format!("token {token}"));
    if let Some(body) = body {
        req = req.json(&body);
    }
    let resp = req.send().await.expect("send");
    let status = resp.status().as_u16();
    let headers = resp
        .headers()
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_string()))
        .collect();
    let text = resp.text().await.unwrap_or_default();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::Null),
        headers,
    )
}

#[tokio::test]
async fn server_reproduces_gitea_wiki_quirks() {
    let server = GiteaServer::start();
    // Empty wiki: list and get are 404; delete is 500 (the branch cannot be cloned).
    assert_eq!(call(&server, "GET", "/wiki/pages", None).await.0, 404);
    assert_eq!(
        call(&server, "DELETE", "/wiki/page/Home", None).await.0,
        500
    );
    // Base64 must be padded standard base64.
    for bad in ["SGVsbG8", "-_8="] {
        let (status, body, _) = call(
            &server,
            "POST",
            "/wiki/new",
            Some(json!({"title": "T", "content_base64": bad})),
        )
        .await;
        assert_eq!(status, 400, "{bad}");
        assert!(
            body["message"]
                .as_str()
                .unwrap_or("")
                .starts_with("illegal base64 data at input byte")
        );
    }
    let (status, body, _) = call(
        &server,
        "POST",
        "/wiki/new",
        Some(json!({"title": "  ", "content_base64": ""})),
    )
    .await;
    assert_eq!(
        (status, body["message"].as_str()),
        (400, Some("%!s(<nil>)"))
    );
    let (status, body, _) = call(
        &server,
        "POST",
        "/wiki/new",
        Some(json!({"title": "_new", "content_base64": ""})),
    )
    .await;
    assert_eq!(
        (status, body["message"].as_str()),
        (400, Some("wiki title is reserved: _new"))
    );
    // Create, then create again: 400 naming the git file.
    let page = json!({"title": "my-page", "content_base64": "eA=="});
    assert_eq!(
        call(&server, "POST", "/wiki/new", Some(page.clone()))
            .await
            .0,
        201
    );
    let (status, body, _) = call(&server, "POST", "/wiki/new", Some(page)).await;
    assert_eq!(
        (status, body["message"].as_str()),
        (400, Some("wiki page already exists [title: my-page.-.md]"))
    );
    // A hand-made name misses the dash-marked file.
    assert_eq!(
        call(&server, "GET", "/wiki/page/my-page", None).await.0,
        404
    );
    // PATCH without a title renames the page to "unnamed" (gitea#39179).
    let (status, body, _) = call(
        &server,
        "PATCH",
        "/wiki/page/my-page.-",
        Some(json!({"content_base64": "eQ=="})),
    )
    .await;
    assert_eq!((status, body["sub_url"].as_str()), (200, Some("unnamed")));
    assert!(server.wiki_files().contains_key("unnamed.md"));
    assert!(!server.wiki_files().contains_key("my-page.-.md"));
    // PATCH of a missing page creates it.
    let (status, _, _) = call(
        &server,
        "PATCH",
        "/wiki/page/Fresh",
        Some(json!({"title": "Fresh", "content_base64": ""})),
    )
    .await;
    assert_eq!(status, 200);
    // Plain titles resolve by hand-made names too.
    assert_eq!(call(&server, "GET", "/wiki/page/Fresh", None).await.0, 200);
    // The list pages over all root entries; limit<=1 means 30; X-Total-Count is raw.
    server.commit_as_person("logo.png", Some(b"png"), "asset");
    let (status, body, total) = call(&server, "GET", "/wiki/pages?limit=1", None).await;
    assert_eq!(
        (status, body.as_array().map(Vec::len), total.as_deref()),
        (200, Some(2), Some("3"))
    );
    let (_, body, _) = call(&server, "GET", "/wiki/pages?page=1&limit=2", None).await;
    assert_eq!(
        body.as_array().map(Vec::len),
        Some(1),
        "short page: Fresh.md and logo.png were in range"
    );
    // Unknown repo, disabled wiki, archived repo.
    let url = format!("{}/api/v1/repos/acme/nope", server.url());
    assert_eq!(reqwest::get(url).await.expect("get").status().as_u16(), 404);
    server.configure(|c| c.archived = true);
    assert_eq!(
        call(&server, "DELETE", "/wiki/page/Fresh", None).await.0,
        423
    );
    server.configure(|c| c.has_wiki = false);
    assert_eq!(call(&server, "GET", "/wiki/pages", None).await.0, 404);
}

#[tokio::test]
async fn server_reproduces_gitea_review_quirks() {
    let server = GiteaServer::start();
    server.seed_branch("main", &[("README.md", b"hub\n")], "init");
    let bot = |method: &'static str, path: String, body: Option<Value>| {
        let server = &server;
        async move { call_as(server, BOT_TOKEN, method, &path, body).await }
    };
    let b64 = |text: &str| {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD.encode(text)
    };

    // Scopes: a write:repository token cannot touch issues.
    let (status, body, _) = call(&server, "GET", "/issues", None).await;
    assert_eq!(status, 403);
    assert!(
        body["message"]
            .as_str()
            .unwrap_or("")
            .contains("required=[read:issue]")
    );

    // Contents: new_branch that exists, file that exists, missing or stale sha.
    let create = json!({"content": b64("x"), "new_branch": "review/a"});
    assert_eq!(
        bot("POST", "/contents/r/a.yaml".into(), Some(create.clone()))
            .await
            .0,
        201
    );
    let (status, body, _) = bot("POST", "/contents/r/a.yaml".into(), Some(create)).await;
    assert_eq!(
        (status, body["message"].as_str()),
        (422, Some("branch already exists [name: review/a]"))
    );
    let (status, body, _) = bot(
        "POST",
        "/contents/README.md".into(),
        Some(json!({"content": ""})),
    )
    .await;
    assert_eq!(
        (status, body["message"].as_str()),
        (
            422,
            Some("repository file already exists [path: README.md]")
        )
    );
    let update = json!({"content": b64("y"), "branch": "review/a"});
    assert_eq!(
        bot("PUT", "/contents/r/a.yaml".into(), Some(update))
            .await
            .0,
        422
    );
    let stale = json!({"content": b64("y"), "branch": "review/a", "sha": "abc"});
    let (status, body, _) = bot("PUT", "/contents/r/a.yaml".into(), Some(stale)).await;
    assert!(
        status == 422
            && body["message"]
                .as_str()
                .unwrap_or("")
                .starts_with("sha does not match")
    );
    let bad = json!({"content": "not base64!", "new_branch": "review/b"});
    assert_eq!(
        bot("POST", "/contents/r/b.yaml".into(), Some(bad)).await.0,
        422
    );

    // Pulls: 409 duplicate, 422 head == base, 404 unknown head; 201 on edit.
    let pull = json!({"head": "review/a", "base": "main", "title": "Review a"});
    let (status, first, _) = bot("POST", "/pulls".into(), Some(pull.clone())).await;
    assert_eq!(status, 201);
    let index = first["number"].as_i64().expect("number");
    assert_ne!(first["id"], first["number"]);
    assert_eq!(bot("POST", "/pulls".into(), Some(pull)).await.0, 409);
    let same = json!({"head": "main", "base": "main", "title": "t"});
    assert_eq!(bot("POST", "/pulls".into(), Some(same)).await.0, 422);
    let ghost = json!({"head": "nope", "base": "main", "title": "t"});
    assert_eq!(bot("POST", "/pulls".into(), Some(ghost)).await.0, 404);
    let (status, edited, _) = bot(
        "PATCH",
        format!("/pulls/{index}"),
        Some(json!({"body": "b"})),
    )
    .await;
    assert_eq!((status, edited["body"].as_str()), (201, Some("b")));
    assert_eq!(
        bot("GET", format!("/pulls/{index}/merge"), None).await.0,
        404
    );

    // An issue closed by PATCH answers 201; a closed pull is listed by an
    // omitted state ("all"), not by the swagger's default "open".
    let (status, closed, _) = bot(
        "PATCH",
        format!("/issues/{index}"),
        Some(json!({"state": "closed"})),
    )
    .await;
    assert_eq!((status, closed["state"].as_str()), (201, Some("closed")));
    let (_, all, _) = bot("GET", "/pulls".into(), None).await;
    assert_eq!(
        all.as_array().map(Vec::len),
        Some(1),
        "no state lists closed pulls too"
    );
    let (_, open, _) = bot("GET", "/pulls?state=open".into(), None).await;
    assert_eq!(open.as_array().map(Vec::len), Some(0));
    let (status, body, _) = call_as(
        &server,
        MAINTAINER_TOKEN,
        "POST",
        &format!("/pulls/{index}/merge"),
        Some(json!({"Do": "merge"})),
    )
    .await;
    assert_eq!(status, 404, "a closed pull cannot be merged: {body}");
    let (status, _, _) = bot(
        "PATCH",
        format!("/issues/{index}"),
        Some(json!({"state": "sideways"})),
    )
    .await;
    assert_eq!(status, 412);

    // Labels: 422 bad colour, duplicates allowed, names or ids but not both.
    let label = |name: &str, color: &str| json!({"name": name, "color": color});
    assert_eq!(
        bot("POST", "/labels".into(), Some(label("p", "zzz")))
            .await
            .0,
        422
    );
    let (_, p1, _) = bot("POST", "/labels".into(), Some(label("p", "#ff0000"))).await;
    assert_eq!(p1["color"], "ff0000", "sent without its #");
    let (_, q, _) = bot("POST", "/labels".into(), Some(label("q", "00ff00"))).await;
    let mut issues = Vec::new();
    for (title, labels) in [
        ("none", json!([])),
        ("p", json!([p1["id"]])),
        ("pq", json!([p1["id"], q["id"]])),
    ] {
        let (status, issue, _) = bot(
            "POST",
            "/issues".into(),
            Some(json!({"title": title, "labels": labels})),
        )
        .await;
        assert_eq!(status, 201);
        issues.push(issue["number"].as_i64().expect("number"));
    }
    let (status, body, _) = bot(
        "POST",
        format!("/issues/{}/labels", issues[0]),
        Some(json!({"labels": ["p", 1]})),
    )
    .await;
    assert_eq!(
        (status, body["message"].as_str()),
        (
            400,
            Some("labels should be an array of strings or integers")
        )
    );
    let count = |v: &Value| v.as_array().map(Vec::len).unwrap_or(0);
    let (_, both, _) = bot("GET", "/issues?type=issues&labels=q,p".into(), None).await;
    assert_eq!(count(&both), 1, "every named label is required (AND)");
    let (_, unknown, _) = bot("GET", "/issues?type=issues&labels=nope".into(), None).await;
    assert_eq!(
        count(&unknown),
        3,
        "unknown names are dropped: no filter at all"
    );
    let (_, partly, _) = bot("GET", "/issues?type=issues&labels=nope,q".into(), None).await;
    assert_eq!(count(&partly), 1);
    // Duplicate names are not refused, and then a name stands for every
    // label that has it, all required: issues with one "p" drop out.
    assert_eq!(
        bot("POST", "/labels".into(), Some(label("p", "f00")))
            .await
            .0,
        201
    );
    let (_, by_p, _) = bot("GET", "/issues?type=issues&labels=p".into(), None).await;
    assert_eq!(count(&by_p), 0, "both labels named p are required");

    // Lists: limit clamps to 50, Link is absolute and comma-joined.
    for i in 0..52 {
        bot(
            "POST",
            "/issues".into(),
            Some(json!({"title": format!("bulk {i}")})),
        )
        .await;
    }
    let (_, page, headers) = bot("GET", "/issues?type=issues&limit=100".into(), None).await;
    assert_eq!(count(&page), 50, "limit clamped to MAX_RESPONSE_ITEMS");
    assert_eq!(header(&headers, "x-total-count").as_deref(), Some("55"));
    let link = header(&headers, "link").expect("Link");
    let base = format!("{}/api/v1/repos/acme/docs/issues", server.url());
    assert_eq!(
        link,
        format!(
            "<{base}?limit=100&page=2&type=issues>; rel=\"next\",<{base}?limit=100&page=2&type=issues>; rel=\"last\""
        )
    );

    // Comments: not paged, oldest first; 500 (not 404) for a missing issue.
    for i in 0..3 {
        bot(
            "POST",
            format!("/issues/{}/comments", issues[0]),
            Some(json!({"body": format!("c{i}")})),
        )
        .await;
    }
    let (_, comments, headers) = bot(
        "GET",
        format!("/issues/{}/comments?limit=1", issues[0]),
        None,
    )
    .await;
    assert_eq!(count(&comments), 3);
    assert_eq!(comments[0]["body"], "c0");
    assert_eq!(header(&headers, "x-total-count").as_deref(), Some("3"));
    assert_eq!(bot("GET", "/issues/999/comments".into(), None).await.0, 500);
    assert_eq!(
        bot(
            "POST",
            "/issues/999/comments".into(),
            Some(json!({"body": "x"}))
        )
        .await
        .0,
        500
    );

    // Timeline: X-Total-Count is this page's length; no Link.
    let (_, events, headers) = bot(
        "GET",
        format!("/issues/{}/timeline?limit=2", issues[0]),
        None,
    )
    .await;
    assert_eq!(count(&events), 2);
    assert_eq!(header(&headers, "x-total-count").as_deref(), Some("2"));
    assert!(header(&headers, "link").is_none());
    let (_, events, _) = bot("GET", format!("/issues/{index}/timeline"), None).await;
    let kinds: Vec<&str> = events
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e["type"].as_str())
        .collect();
    assert_eq!(kinds, ["close"]);

    // Branch protection: rules are for admins; the branch tells the bot.
    let (status, _, _) = bot("GET", "/branch_protections".into(), None).await;
    assert_eq!(status, 403);
    server.protect(Protection::new("main"));
    let (_, branch, _) = bot("GET", "/branches/main".into(), None).await;
    assert_eq!(
        (
            branch["protected"].as_bool(),
            branch["user_can_push"].as_bool()
        ),
        (Some(true), Some(false))
    );
    let (status, rules, _) = call_as(
        &server,
        MAINTAINER_TOKEN,
        "GET",
        "/branch_protections",
        None,
    )
    .await;
    assert_eq!(
        (status, rules[0]["rule_name"].as_str()),
        (200, Some("main"))
    );
    let direct = json!({"content": b64("x")});
    let (status, body, _) = bot("POST", "/contents/forged.yaml".into(), Some(direct)).await;
    assert_eq!(status, 403, "{body}");

    // Permissions: only admins ask about others.
    let (status, _, _) = call_as(
        &server,
        READER_TOKEN,
        "GET",
        "/collaborators/maintainer/permission",
        None,
    )
    .await;
    assert_eq!(status, 403);
    let (status, body, _) = call_as(
        &server,
        READER_TOKEN,
        "GET",
        "/collaborators/reader/permission",
        None,
    )
    .await;
    assert_eq!((status, body["permission"].as_str()), (200, Some("read")));
}
