//! The test server reproduces Gitea 1.25's documented wiki quirks (API-NOTES
//! §a, §b, §f), checked with raw HTTP so the client cannot paper over them.

#[path = "support/gitea_server/mod.rs"]
mod gitea_server;

use gitea_server::{GiteaServer, WRITE_TOKEN};
use serde_json::{Value, json};

async fn call(
    server: &GiteaServer,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> (u16, Value, Option<String>) {
    let url = format!("{}/api/v1/repos/acme/docs{path}", server.url());
    let method = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
    let mut req = reqwest::Client::new()
        .request(method, url)
        .header("Authorization", format!("token {WRITE_TOKEN}"));
    if let Some(body) = body {
        req = req.json(&body);
    }
    let resp = req.send().await.expect("send");
    let status = resp.status().as_u16();
    let total = resp
        .headers()
        .get("x-total-count")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let text = resp.text().await.unwrap_or_default();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::Null),
        total,
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
