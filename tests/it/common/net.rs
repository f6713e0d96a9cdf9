//! Small network pieces for tests that talk to servers: a free port, a
//! one-shot HTTP GET (and waiting for a status), and a TCP proxy that makes
//! a remote slow. Not an HTTP server: that is `http` and `gitea_server`.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A port nothing listens on now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port")
}

/// `GET path` on 127.0.0.1:port: (status, body), or `None` when nothing answers.
pub fn get(port: u16, path: &str) -> Option<(u16, String)> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).ok()?;
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n")?;
    let status = head.split_whitespace().nth(1)?.parse().ok()?;
    Some((status, body.to_string()))
}

/// Waits until `GET path` answers `status`; returns the body.
pub fn wait_status(port: u16, path: &str, status: u16, timeout: Duration) -> String {
    let start = Instant::now();
    let mut last = None;
    loop {
        let got = get(port, path);
        if let Some((s, body)) = &got
            && *s == status
        {
            return body.clone();
        }
        last = got.or(last);
        assert!(
            start.elapsed() < timeout,
            "GET {path} never answered {status} within {timeout:?}; last: {last:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A TCP proxy in front of `upstream` that holds back the upstream's first
/// answer on each connection for `delay` (a slow network), and counts the
/// connections it accepted.
pub struct SlowProxy {
    pub port: u16,
    pub accepted: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
}

impl SlowProxy {
    /// Listens on a free port of 127.0.0.1, forwarding to `upstream`.
    pub fn start(upstream: u16, delay: Duration) -> SlowProxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let accepted = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (count, halt) = (accepted.clone(), stop.clone());
        listener.set_nonblocking(true).expect("nonblocking");
        std::thread::spawn(move || {
            while !halt.load(Ordering::SeqCst) {
                let client = match listener.accept() {
                    Ok((c, _)) => c,
                    Err(_) => {
                        std::thread::sleep(Duration::from_millis(10));
                        continue;
                    }
                };
                let _ = client.set_nonblocking(false);
                count.fetch_add(1, Ordering::SeqCst);
                let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)) else {
                    continue;
                };
                let (c2, s2) = (
                    client.try_clone().expect("clone"),
                    server.try_clone().expect("clone"),
                );
                std::thread::spawn(move || pump(client, server, Duration::ZERO));
                std::thread::spawn(move || pump(s2, c2, delay));
            }
        });
        SlowProxy {
            port,
            accepted,
            stop,
        }
    }
}

impl Drop for SlowProxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

fn pump(mut from: TcpStream, mut to: TcpStream, first_delay: Duration) {
    let mut buf = [0u8; 16 * 1024];
    let mut first = true;
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if first {
            std::thread::sleep(first_delay);
            first = false;
        }
        if to.write_all(&buf[..n]).is_err() {
            break;
        }
    }
    let _ = to.shutdown(std::net::Shutdown::Write);
}
