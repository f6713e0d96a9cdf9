//! The `--listen` endpoint over hyper (HTTP/1.1): `GET /livez`, `/readyz`
//! and `/metrics`, read from the loop's [`Snapshot`]. Answers are small and
//! computed on demand; a slow client cannot hold a connection open (a
//! header timeout), and nothing here can stop or slow the jobs.

use super::metrics::{self, Snapshot};
use super::ready;
use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::TcpListener;

/// What the handlers read: the snapshot, and the inbox to count.
#[derive(Clone)]
pub struct Shared {
    pub snapshot: Arc<Mutex<Snapshot>>,
    pub inbox: PathBuf,
}

/// Serves connections until the runtime ends.
pub async fn serve(listener: TcpListener, shared: Shared) {
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(conn) => conn,
            Err(e) => {
                tracing::debug!("accept: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let shared = shared.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req| {
                let shared = shared.clone();
                async move { Ok::<_, std::convert::Infallible>(answer(&req, &shared)) }
            });
            let served = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(Duration::from_secs(10))
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
            if let Err(e) = served {
                tracing::debug!("http connection: {e}");
            }
        });
    }
}

fn text(status: StatusCode, content_type: &str, body: String) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    if let Ok(value) = hyper::header::HeaderValue::from_str(content_type) {
        response
            .headers_mut()
            .insert(hyper::header::CONTENT_TYPE, value);
    }
    response
}

fn answer(req: &Request<Incoming>, shared: &Shared) -> Response<Full<Bytes>> {
    const PLAIN: &str = "text/plain; charset=utf-8";
    if req.method() != Method::GET && req.method() != Method::HEAD {
        let mut r = text(
            StatusCode::METHOD_NOT_ALLOWED,
            PLAIN,
            "only GET and HEAD\n".into(),
        );
        r.headers_mut().insert(
            hyper::header::ALLOW,
            hyper::header::HeaderValue::from_static("GET, HEAD"),
        );
        return r;
    }
    let now = chrono::Utc::now();
    let mut snapshot = match shared.snapshot.lock() {
        Ok(s) => s.clone(),
        Err(poisoned) => poisoned.into_inner().clone(),
    };
    match req.uri().path() {
        "/livez" => match ready::not_live(&snapshot, now) {
            None => text(StatusCode::OK, PLAIN, "ok\n".into()),
            Some(why) => text(StatusCode::SERVICE_UNAVAILABLE, PLAIN, format!("{why}\n")),
        },
        "/readyz" => {
            let why = ready::unready(&snapshot, now);
            if why.is_empty() {
                text(StatusCode::OK, PLAIN, "ready\n".into())
            } else {
                text(
                    StatusCode::SERVICE_UNAVAILABLE,
                    PLAIN,
                    why.iter().map(|w| format!("{w}\n")).collect(),
                )
            }
        }
        "/metrics" => {
            snapshot.inbox_files =
                crate::store::Inbox::new(shared.inbox.clone()).items().len() as u64;
            text(
                StatusCode::OK,
                "text/plain; version=0.0.4; charset=utf-8",
                metrics::render(&snapshot),
            )
        }
        _ => text(
            StatusCode::NOT_FOUND,
            PLAIN,
            "not found: try /livez, /readyz or /metrics\n".into(),
        ),
    }
}
