//! A smart-HTTP git server for tests: `git http-backend` behind a tiny
//! HTTP/1.1 loop on 127.0.0.1, optionally demanding `Authorization: token …`.

use super::http::{self, Response};
use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// One request as it arrived: the path and its `Authorization` header.
#[derive(Debug, Clone)]
pub struct Seen {
    pub path: String,
    pub authorization: Option<String>,
}

pub struct GitHttpServer {
    pub port: u16,
    stop: Arc<AtomicBool>,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl GitHttpServer {
    /// Serves every repository under `root`; pushes allowed.
    pub fn start(root: &Path, token: Option<&str>) -> GitHttpServer {
        Self::start_slow(root, token, std::time::Duration::ZERO)
    }

    /// [`GitHttpServer::start`], answering each request only after `delay`:
    /// a remote across a slow link.
    pub fn start_slow(
        root: &Path,
        token: Option<&str>,
        delay: std::time::Duration,
    ) -> GitHttpServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let stop = Arc::new(AtomicBool::new(false));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        let (root, token, flag) = (root.to_path_buf(), token.map(str::to_string), stop.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if flag.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(mut stream) = stream else { continue };
                let (root, token, log) = (root.clone(), token.clone(), log.clone());
                std::thread::spawn(move || {
                    let Some(req) = http::read_request(&mut stream) else {
                        return;
                    };
                    std::thread::sleep(delay);
                    if let Ok(mut log) = log.lock() {
                        log.push(Seen {
                            path: req.path().to_string(),
                            authorization: req.header("authorization").map(str::to_string),
                        });
                    }
                    let authorised = match &token {
                        None => true,
                        Some(t) => {
                            req.header("authorization") == Some(format!("token {t}").as_str())
                        }
                    };
                    let response = if authorised {
                        backend(&root, &req)
                    } else {
                        Response::text(401, "token required")
                            .with_header("WWW-Authenticate", "Basic realm=\"git\"")
                    };
                    http::write_response(&mut stream, &response);
                });
            }
        });
        GitHttpServer { port, stop, seen }
    }

    pub fn url(&self, repo: &str) -> String {
        format!("http://127.0.0.1:{}/{repo}", self.port)
    }

    /// Every request served so far, in order.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

impl Drop for GitHttpServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = std::net::TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// Runs `git http-backend` as a CGI program for one request.
fn backend(root: &PathBuf, req: &http::Request) -> Response {
    let query = req.target.split_once('?').map(|(_, q)| q).unwrap_or("");
    let mut child = match Command::new("git")
        .arg("http-backend")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("GIT_PROJECT_ROOT", root)
        .env("GIT_HTTP_EXPORT_ALL", "1")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_COUNT", "1")
        .env("GIT_CONFIG_KEY_0", "http.receivepack")
        .env("GIT_CONFIG_VALUE_0", "true")
        .env("REQUEST_METHOD", &req.method)
        .env("PATH_INFO", req.path())
        .env("QUERY_STRING", query)
        .env("CONTENT_TYPE", req.header("content-type").unwrap_or(""))
        .env("CONTENT_LENGTH", req.body.len().to_string())
        .env(
            "HTTP_CONTENT_ENCODING",
            req.header("content-encoding").unwrap_or(""),
        )
        .env("GIT_PROTOCOL", req.header("git-protocol").unwrap_or(""))
        .env("REMOTE_USER", "tester")
        .env("REMOTE_ADDR", "127.0.0.1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => return Response::text(500, &e.to_string()),
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(&req.body);
    }
    let Ok(out) = child.wait_with_output() else {
        return Response::text(500, "http-backend failed");
    };
    let split = out
        .stdout
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|p| (p, 4))
        .or_else(|| {
            out.stdout
                .windows(2)
                .position(|w| w == b"\n\n")
                .map(|p| (p, 2))
        });
    let Some((end, sep)) = split else {
        return Response::text(500, "bad CGI output");
    };
    let head = String::from_utf8_lossy(&out.stdout[..end]).into_owned();
    let mut response = Response {
        status: 200,
        headers: Vec::new(),
        body: out.stdout[end + sep..].to_vec(),
    };
    for line in head.lines() {
        if let Some((k, v)) = line.split_once(':') {
            if k.eq_ignore_ascii_case("status") {
                response.status = v
                    .trim()
                    .split(' ')
                    .next()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(500);
            } else {
                response
                    .headers
                    .push((k.trim().to_string(), v.trim().to_string()));
            }
        }
    }
    response
}
