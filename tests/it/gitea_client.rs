//! The Gitea client against the Gitea-compatible test server: CRUD checked in a
//! real clone of the wiki, Gitea's quirks, retries and faults, auth, no leaks.

use crate::common::git::as_person_ok;
use crate::common::gitea_client::{client, client_with, options};
use crate::common::gitea_server;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gitea_server::{Fault, FaultRule, GiteaServer, READ_TOKEN, ServerConfig, WRITE_TOKEN};
use learnsync::gitea::page_name::{title_to_git_path, title_to_sub_url};
use learnsync::gitea::{DeleteOutcome, GiteaClient, RepoRef, UpsertOutcome};
use secrecy::SecretString;

#[tokio::test]
async fn published_page_is_a_real_commit_a_person_can_clone() {
    let server = GiteaServer::start();
    let gitea = client(&server, WRITE_TOKEN);
    let page = gitea
        .create_wiki_page(
            "Getting Started",
            b"# Hello\n",
            Some("publish: Getting Started"),
        )
        .await
        .expect("create");
    assert_eq!(page.meta.sub_url, "Getting-Started");
    assert_eq!(page.meta.title, "Getting Started");
    assert_eq!(page.content().expect("base64"), b"# Hello\n");
    assert_eq!(page.commit_count, 1);

    let clone = tempfile::tempdir().expect("tempdir");
    server.clone_wiki(&clone.path().join("w"));
    let w = clone.path().join("w");
    assert_eq!(
        std::fs::read(w.join("Getting-Started.md")).expect("page file"),
        b"# Hello\n"
    );
    assert_eq!(
        as_person_ok(&w, &["rev-parse", "HEAD"]),
        page.last_commit_sha().unwrap_or_default()
    );
    assert_eq!(
        as_person_ok(&w, &["log", "-1", "--format=%an|%s"]),
        "learnsync-bot|publish: Getting Started"
    );
    assert_eq!(
        as_person_ok(&w, &["rev-parse", "--abbrev-ref", "HEAD"]),
        "main"
    );
}

#[tokio::test]
async fn pages_are_created_read_edited_listed_and_deleted() {
    let server = GiteaServer::start();
    let gitea = client(&server, WRITE_TOKEN);
    let title = "2024-05-01 Meeting";
    let created = gitea
        .create_wiki_page(title, b"v1", None)
        .await
        .expect("create");
    assert_eq!(created.meta.sub_url, "2024-05-01+Meeting.-");

    let got = gitea
        .get_wiki_page(&created.meta.sub_url)
        .await
        .expect("get")
        .expect("exists");
    assert_eq!(
        (got.meta.title.as_str(), got.content().expect("b64")),
        (title, b"v1".to_vec())
    );

    let edited = gitea
        .edit_wiki_page(&created.meta.sub_url, title, b"v2", Some("second"))
        .await
        .expect("edit");
    assert_eq!(
        edited.meta.sub_url, created.meta.sub_url,
        "edit keeps the name"
    );
    assert_eq!(edited.commit_count, 2);
    assert_ne!(edited.last_commit_sha(), created.last_commit_sha());
    let patch = server
        .writes()
        .into_iter()
        .find(|r| r.method == "PATCH")
        .expect("a PATCH");
    assert_eq!(
        patch.json_body().expect("json")["title"],
        title,
        "PATCH carries the title"
    );

    let files = server.wiki_files();
    assert_eq!(
        files.keys().collect::<Vec<_>>(),
        ["2024-05-01 Meeting.-.md"]
    );
    assert_eq!(files["2024-05-01 Meeting.-.md"], b"v2");

    let listed = gitea.list_wiki_pages().await.expect("list");
    assert_eq!(listed.len(), 1);
    assert_eq!(
        (listed[0].title.as_str(), listed[0].sub_url.as_str()),
        (title, "2024-05-01+Meeting.-")
    );

    let history = gitea
        .wiki_page_revisions(&created.meta.sub_url, 1)
        .await
        .expect("revisions");
    assert_eq!(history.count, 2);
    assert_eq!(history.commits[0].message, "second\n");

    assert_eq!(
        gitea
            .delete_wiki_page(&created.meta.sub_url)
            .await
            .expect("delete"),
        DeleteOutcome::Deleted
    );
    assert_eq!(
        gitea
            .delete_wiki_page(&created.meta.sub_url)
            .await
            .expect("delete again"),
        DeleteOutcome::NotFound
    );
    assert!(
        gitea
            .get_wiki_page(&created.meta.sub_url)
            .await
            .expect("get")
            .is_none()
    );
    let clone = tempfile::tempdir().expect("tempdir");
    server.clone_wiki(&clone.path().join("w"));
    let log = as_person_ok(&clone.path().join("w"), &["log", "--format=%s"]);
    assert_eq!(
        log,
        "Delete page \"2024-05-01+Meeting.-\"\nsecond\nAdd \"2024-05-01 Meeting\""
    );
}

#[tokio::test]
async fn creating_an_existing_page_falls_back_to_edit() {
    let server = GiteaServer::start();
    let gitea = client(&server, WRITE_TOKEN);
    let first = gitea
        .upsert_wiki_page("my-page", b"one", None)
        .await
        .expect("upsert 1");
    assert_eq!(first.outcome, UpsertOutcome::Created);
    let err = gitea
        .create_wiki_page("my-page", b"x", None)
        .await
        .expect_err("exists");
    assert_eq!(err.status(), Some(400), "Gitea says 400, not 409");
    assert!(err.is_page_exists(), "{err}");
    let second = gitea
        .upsert_wiki_page("my-page", b"two", None)
        .await
        .expect("upsert 2");
    assert_eq!(second.outcome, UpsertOutcome::Updated);
    assert_eq!(second.page.meta.sub_url, "my-page.-");
    let files = server.wiki_files();
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(files["my-page.-.md"], b"two");
}

#[tokio::test]
async fn an_empty_wiki_lists_as_no_pages() {
    let server = GiteaServer::start();
    let gitea = client(&server, WRITE_TOKEN);
    assert!(gitea.list_wiki_pages().await.expect("list").is_empty());
    assert!(gitea.get_wiki_page("Home").await.expect("get").is_none());
    let list = &server.requests()[0];
    assert_eq!(list.status, Some(404), "the server really answers 404");
    assert!(
        !server.wiki_repo_path().exists(),
        "no wiki repo before the first write"
    );
    let repo = gitea.get_repository().await.expect("repo");
    assert!(repo.wiki_usable());
    assert_eq!(
        gitea.server_version().await.expect("version").version,
        "1.25.4"
    );
}

#[tokio::test]
async fn list_follows_x_total_count_across_short_pages() {
    let server = GiteaServer::start();
    for i in 0..57 {
        server.commit_as_person(&format!("Page-{i:02}.md"), Some(b"x"), "bulk");
    }
    server.commit_as_person("image.png", Some(b"png"), "not a page");
    server.commit_as_person("sub/Nested.md", Some(b"x"), "subdirectory");
    let pages = client(&server, WRITE_TOKEN)
        .list_wiki_pages()
        .await
        .expect("list");
    assert_eq!(pages.len(), 57);
    let gets: Vec<_> = server.requests().into_iter().map(|r| r.target).collect();
    assert_eq!(gets.len(), 2, "{gets:?}");
    assert!(gets[1].contains("page=2"));
}

#[tokio::test]
async fn special_titles_round_trip_through_gitea_naming() {
    let server = GiteaServer::start();
    let gitea = client(&server, WRITE_TOKEN);
    let titles = [
        "C++ & Rust",
        "Café Menu",
        "Q: why?",
        "API/Auth",
        "日本語ページ",
        "Notes.md",
        "100% Done",
        "Home",
    ];
    for title in titles {
        let up = gitea
            .upsert_wiki_page(title, title.as_bytes(), None)
            .await
            .expect(title);
        assert_eq!(up.page.meta.sub_url, title_to_sub_url(title));
        let got = gitea
            .get_wiki_page(&up.page.meta.sub_url)
            .await
            .expect("get")
            .expect(title);
        assert_eq!(got.meta.title, title);
    }
    let files = server.wiki_files();
    for title in titles {
        assert_eq!(
            files.get(&title_to_git_path(title)).map(Vec::as_slice),
            Some(title.as_bytes())
        );
    }
    let listed: Vec<String> = gitea
        .list_wiki_pages()
        .await
        .expect("list")
        .into_iter()
        .map(|p| p.title)
        .collect();
    for title in titles {
        assert!(listed.iter().any(|t| t == title), "{title} in {listed:?}");
    }
}

#[tokio::test]
async fn a_person_edit_shows_up_as_a_new_last_commit() {
    let server = GiteaServer::start();
    let gitea = client(&server, WRITE_TOKEN);
    let published = gitea
        .upsert_wiki_page("Getting Started", b"bot", None)
        .await
        .expect("upsert");
    let ours = published
        .page
        .last_commit_sha()
        .unwrap_or_default()
        .to_string();
    let theirs = server.commit_as_person("Getting-Started.md", Some(b"human"), "fix typo");
    let now = gitea
        .get_wiki_page("Getting-Started")
        .await
        .expect("get")
        .expect("exists");
    assert_eq!(now.last_commit_sha(), Some(theirs.as_str()));
    assert_ne!(theirs, ours);
    let author = now
        .meta
        .last_commit
        .as_ref()
        .and_then(|c| c.author.as_ref())
        .map(|a| a.name.clone());
    assert_eq!(author.as_deref(), Some("A Person"));
}

#[tokio::test]
async fn retries_503_and_honours_retry_after() {
    let server = GiteaServer::start();
    server.inject(FaultRule::next(1, Fault::status(503).retry_after("1")).on_method("POST"));
    let started = Instant::now();
    let up = client(&server, WRITE_TOKEN)
        .upsert_wiki_page("Home", b"hi", None)
        .await
        .expect("upsert");
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "waited {:?}",
        started.elapsed()
    );
    assert_eq!(up.outcome, UpsertOutcome::Created);
    let statuses: Vec<_> = server.writes().iter().map(|r| r.status).collect();
    assert_eq!(statuses, [Some(503), Some(201)]);
}

#[tokio::test]
async fn retries_429_and_http_date_retry_after() {
    let server = GiteaServer::start();
    server.inject(FaultRule::next(2, Fault::status(429).retry_after("0")).on_method("GET"));
    server.inject(
        FaultRule::next(
            1,
            Fault::status(503).retry_after("Thu, 01 Jan 1970 00:00:00 GMT"),
        )
        .on_method("GET"),
    );
    let version = client(&server, WRITE_TOKEN)
        .server_version()
        .await
        .expect("version");
    assert_eq!(version.version, "1.25.4");
    let statuses: Vec<_> = server.requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, [Some(429), Some(429), Some(503), Some(200)]);
}

#[tokio::test]
async fn retries_a_dropped_connection_and_a_slow_answer() {
    let server = GiteaServer::start();
    server.inject(FaultRule::next(1, Fault::DropConnection).on_path("/wiki/pages"));
    assert!(
        client(&server, WRITE_TOKEN)
            .list_wiki_pages()
            .await
            .expect("list")
            .is_empty()
    );
    assert_eq!(server.requests().len(), 2);

    server.clear_requests();
    server.inject(FaultRule::next(1, Fault::Delay(Duration::from_secs(2))).on_path("/version"));
    let mut opts = options(3);
    opts.timeout = Duration::from_millis(300);
    let gitea = client_with(&server, Some(WRITE_TOKEN), opts);
    gitea
        .server_version()
        .await
        .expect("version after a timeout");
}

#[tokio::test]
async fn a_create_that_landed_but_answered_500_becomes_an_edit() {
    let server = GiteaServer::start();
    server.inject(FaultRule::next(1, Fault::LandThenStatus(500)).on_method("POST"));
    let up = client(&server, WRITE_TOKEN)
        .upsert_wiki_page("Release Notes v1.2", b"notes", None)
        .await
        .expect("upsert");
    assert_eq!(up.outcome, UpsertOutcome::Updated);
    let seen: Vec<_> = server
        .writes()
        .iter()
        .map(|r| (r.method.clone(), r.status))
        .collect();
    assert_eq!(
        seen,
        [
            ("POST".into(), Some(500)),
            ("POST".into(), Some(400)),
            ("PATCH".into(), Some(200))
        ]
    );
    let files = server.wiki_files();
    assert_eq!(files.len(), 1, "no duplicate page: {files:?}");
    assert_eq!(files["Release-Notes-v1.2.md"], b"notes");
}

#[tokio::test]
async fn client_errors_are_not_retried() {
    for status in [400, 401, 403, 404, 409, 422, 423] {
        let server = GiteaServer::start();
        server.inject(FaultRule::next(5, Fault::status(status)));
        let err = client(&server, WRITE_TOKEN)
            .upsert_wiki_page("Home", b"x", None)
            .await
            .expect_err("fails");
        assert_eq!(err.status(), Some(status));
        assert_eq!(
            server.requests().len(),
            1,
            "status {status} must not be retried"
        );
    }
    let server = GiteaServer::start();
    server.inject(FaultRule::next(10, Fault::status(500)));
    let err = client(&server, WRITE_TOKEN)
        .server_version()
        .await
        .expect_err("gives up");
    assert_eq!(err.status(), Some(500));
    assert_eq!(server.requests().len(), 4, "max_attempts is 4");
}

#[tokio::test]
async fn missing_and_weak_credentials_are_reported_clearly() {
    let server = GiteaServer::start();
    let anonymous = client_with(&server, None, options(4));
    let err = anonymous
        .create_wiki_page("Home", b"x", None)
        .await
        .expect_err("401");
    assert_eq!(err.status(), Some(401));
    assert!(err.to_string().contains("token is required"), "{err}");
    assert!(err.to_string().contains("GITEA_TOKEN"), "{err}");

    let reader = client_with(&server, Some(READ_TOKEN), options(4));
    assert!(
        reader
            .list_wiki_pages()
            .await
            .expect("reads are fine")
            .is_empty()
    );
    let err = reader
        .upsert_wiki_page("Home", b"x", None)
        .await
        .expect_err("403");
    assert_eq!(err.status(), Some(403));
    assert!(
        err.is_auth() && err.to_string().contains("write:repository"),
        "{err}"
    );

    let wrong = client_with(&server, Some("not-a-real-token"), options(4));
    assert_eq!(
        wrong.server_version().await.expect_err("401").status(),
        Some(401)
    );
    assert_eq!(server.writes().len(), 2, "auth failures are not retried");

    let other = GiteaServer::start_with(ServerConfig {
        repo: "elsewhere".into(),
        ..ServerConfig::default()
    });
    let missing = GiteaClient::new(
        other.url(),
        RepoRef::parse("acme/docs").expect("ref"),
        Some(SecretString::from(WRITE_TOKEN.to_string())),
        options(4),
    )
    .expect("client");
    assert!(
        missing
            .get_repository()
            .await
            .expect_err("404")
            .is_not_found()
    );
}

/// A `MakeWriter` that appends everything to a shared buffer.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Capture {
    type Writer = Capture;
    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

#[tokio::test]
async fn the_token_never_appears_in_logs_or_errors() {
    let capture = Capture::default();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(capture.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let server = GiteaServer::start();
    let bad_token = "deadbeefdeadbeefdeadbeefdeadbeefdeadbeef";
    let gitea = client(&server, WRITE_TOKEN);
    let mut texts = vec![format!("{gitea:?}")];
    // A proxy error page that echoes the Authorization header back.
    server.inject(
        FaultRule::next(
            9,
            Fault::Body {
                status: 502,
                body: format!("bad gateway; you sent: token {WRITE_TOKEN}"),
            },
        )
        .on_path("/version"),
    );
    server.inject(FaultRule::next(1, Fault::status(503).retry_after("0")).on_method("POST"));
    server.inject(FaultRule::next(1, Fault::DropConnection).on_method("PATCH"));
    server.inject(FaultRule::next(1, Fault::LandThenStatus(500)).on_method("DELETE"));

    let echoed = gitea.server_version().await.expect_err("502 echo");
    texts.push(format!("{echoed} {echoed:?}"));
    assert!(echoed.to_string().contains("[REDACTED]"), "{echoed}");
    gitea.get_repository().await.expect("repo");
    gitea.list_wiki_pages().await.expect("list");
    gitea
        .upsert_wiki_page("Home", b"one", None)
        .await
        .expect("create");
    gitea
        .upsert_wiki_page("Home", b"two", None)
        .await
        .expect("edit");
    gitea
        .wiki_page_revisions("Home", 1)
        .await
        .expect("revisions");
    assert_eq!(
        gitea.delete_wiki_page("Home").await.expect("delete"),
        DeleteOutcome::NotFound
    );
    for token in [Some(READ_TOKEN), Some(bad_token), None] {
        let other = client_with(&server, token, options(2));
        texts.push(format!("{other:?}"));
        if let Err(e) = other.upsert_wiki_page("Home", b"x", None).await {
            texts.push(format!("{e} {e:?}"));
        }
    }
    let unreachable = GiteaClient::new(
        "http://127.0.0.1:9",
        RepoRef::parse("acme/docs").expect("ref"),
        Some(SecretString::from(WRITE_TOKEN.to_string())),
        options(2),
    )
    .expect("client");
    let e = unreachable
        .server_version()
        .await
        .expect_err("connection refused");
    texts.push(format!("{e} {e:?}"));

    let log =
        String::from_utf8_lossy(&capture.0.lock().unwrap_or_else(|p| p.into_inner())).into_owned();
    // The client's own lines are captured. (Not a given one: a call site
    // another test's thread hit before this scoped subscriber existed can
    // stay cached as uninterested, so its lines never come here.)
    assert!(
        log.contains("learnsync::gitea::client"),
        "the capture works: {} bytes captured: {:.600}",
        log.len(),
        log
    );
    assert!(log.contains("TRACE") || log.contains("DEBUG"));
    for secret in [WRITE_TOKEN, READ_TOKEN, bad_token] {
        assert!(!log.contains(secret), "token in the logs");
        for text in &texts {
            assert!(!text.contains(secret), "token in {text}");
        }
    }
    for recorded in server.requests() {
        if let Some(auth) = recorded.header("authorization") {
            assert!(auth.ends_with("[REDACTED]"), "{auth}");
        }
    }
}
