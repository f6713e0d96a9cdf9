//! Helpers for the daemon tests: the real binary running as a daemon with
//! its log collected line by line, signals sent with `kill`, the run
//! records read back, a tiny HTTP client, a TCP proxy that makes a git
//! remote slow, and a strict parser of the Prometheus text format (0.0.4),
//! so `/metrics` is checked as Prometheus would read it, not grepped.
#![allow(dead_code)]

use learnsync::daemon::RunRecord;
use learnsync::store::LearningsDir;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A running `learnsync daemon`; killed on drop if still running.
pub struct Daemon {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
    pub pid: u32,
}

impl Daemon {
    /// Starts `cmd` (a `learnsync … daemon` command) with its stderr collected.
    pub fn start(mut cmd: Command) -> Daemon {
        cmd.stdout(Stdio::null())
            .stderr(Stdio::piped())
            .stdin(Stdio::null());
        let mut child = cmd.spawn().expect("start the daemon");
        let stderr = child.stderr.take().expect("stderr");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { return };
                sink.lock().expect("log").push(line);
            }
        });
        let pid = child.id();
        Daemon { child, lines, pid }
    }

    pub fn log(&self) -> String {
        self.lines.lock().expect("log").join("\n")
    }

    /// Waits for a log line containing `text`; returns it.
    pub fn wait_for(&mut self, text: &str, timeout: Duration) -> String {
        let start = Instant::now();
        loop {
            if let Some(line) = self
                .lines
                .lock()
                .expect("log")
                .iter()
                .find(|l| l.contains(text))
            {
                return line.clone();
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "the daemon exited ({status}) before logging {text:?}:\n{}",
                    self.log()
                );
            }
            assert!(
                start.elapsed() < timeout,
                "no log line with {text:?} within {timeout:?}:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Log lines containing `text`.
    pub fn count(&self, text: &str) -> usize {
        self.lines
            .lock()
            .expect("log")
            .iter()
            .filter(|l| l.contains(text))
            .count()
    }

    /// Sends a signal by name (`TERM`, `HUP`, `INT`).
    pub fn signal(&self, name: &str) {
        let out = Command::new("kill")
            .args(["-s", name, &self.pid.to_string()])
            .output()
            .expect("kill");
        assert!(out.status.success(), "kill -s {name} {}", self.pid);
    }

    /// Waits for the daemon to exit; panics after `timeout`.
    pub fn wait_exit(&mut self, timeout: Duration) -> ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                // Let the reader thread take the last lines.
                std::thread::sleep(Duration::from_millis(50));
                return status;
            }
            assert!(
                start.elapsed() < timeout,
                "the daemon did not exit within {timeout:?}:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if self.is_running() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Every run recorded in `dir`.
pub fn runs(dir: &Path) -> Vec<RunRecord> {
    learnsync::daemon::runs::read(&LearningsDir::new(dir))
}

/// Waits until `pred` holds of the run records; returns them.
pub fn wait_runs(
    dir: &Path,
    timeout: Duration,
    what: &str,
    pred: impl Fn(&[RunRecord]) -> bool,
) -> Vec<RunRecord> {
    let start = Instant::now();
    loop {
        let all = runs(dir);
        if pred(&all) {
            return all;
        }
        assert!(
            start.elapsed() < timeout,
            "{what}: not within {timeout:?}; runs so far:\n{}",
            all.iter()
                .map(|r| format!("{r:?}"))
                .collect::<Vec<_>>()
                .join("\n")
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Writes `.git/learnsync/config.yaml`.
pub fn write_config(dir: &Path, text: &str) {
    std::fs::write(dir.join(".git/learnsync/config.yaml"), text).expect("config");
}

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

/// One sample of a metric family.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub name: String,
    pub labels: BTreeMap<String, String>,
    pub value: f64,
}

/// A metric family: its type, help, samples.
#[derive(Debug, Clone, PartialEq)]
pub struct Family {
    pub kind: String,
    pub help: Option<String>,
    pub samples: Vec<Sample>,
}

/// Families by name, from a strict reading of the text format 0.0.4: every
/// line must be a `# HELP`, `# TYPE`, comment, blank, or a well-formed
/// sample; names and label names must be valid; label values properly
/// escaped; a family's `TYPE` comes before its samples and its lines are
/// contiguous; no series twice; counters non-negative; histograms have
/// cumulative buckets ending in `le="+Inf"` equal to `_count`, and `_sum`.
pub fn parse_prometheus(text: &str) -> Result<BTreeMap<String, Family>, String> {
    let mut families: BTreeMap<String, Family> = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut closed: std::collections::BTreeSet<String> = Default::default();
    let mut seen: std::collections::BTreeSet<String> = Default::default();
    if !text.ends_with('\n') {
        return Err("the exposition must end with a newline".into());
    }
    let enter = |name: &str,
                 current: &mut Option<String>,
                 closed: &mut std::collections::BTreeSet<String>|
     -> Result<(), String> {
        if current.as_deref() != Some(name) {
            if closed.contains(name) {
                return Err(format!("the lines of family {name} are not contiguous"));
            }
            if let Some(c) = current.take() {
                closed.insert(c);
            }
            *current = Some(name.to_string());
        }
        Ok(())
    };
    for (i, line) in text.lines().enumerate() {
        let at = |m: String| format!("line {}: {m}: {line:?}", i + 1);
        if line.trim().is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix('#') {
            let rest = rest.trim_start();
            let mut words = rest.splitn(3, ' ');
            match words.next() {
                Some("HELP") => {
                    let name = words
                        .next()
                        .ok_or_else(|| at("HELP without a name".into()))?;
                    check_name(name).map_err(&at)?;
                    enter(name, &mut current, &mut closed).map_err(&at)?;
                    let f = families.entry(name.to_string()).or_insert_with(|| Family {
                        kind: "untyped".into(),
                        help: None,
                        samples: Vec::new(),
                    });
                    if f.help.is_some() {
                        return Err(at("a second HELP".into()));
                    }
                    f.help = Some(words.next().unwrap_or("").to_string());
                }
                Some("TYPE") => {
                    let name = words
                        .next()
                        .ok_or_else(|| at("TYPE without a name".into()))?;
                    check_name(name).map_err(&at)?;
                    let kind = words
                        .next()
                        .ok_or_else(|| at("TYPE without a type".into()))?;
                    if !["counter", "gauge", "histogram", "summary", "untyped"].contains(&kind) {
                        return Err(at(format!("unknown type {kind}")));
                    }
                    enter(name, &mut current, &mut closed).map_err(&at)?;
                    let f = families.entry(name.to_string()).or_insert_with(|| Family {
                        kind: "untyped".into(),
                        help: None,
                        samples: Vec::new(),
                    });
                    if !f.samples.is_empty() {
                        return Err(at("TYPE after the family's samples".into()));
                    }
                    if f.kind != "untyped" {
                        return Err(at("a second TYPE".into()));
                    }
                    f.kind = kind.to_string();
                }
                _ => {}
            }
            continue;
        }
        let sample = parse_sample(line).map_err(&at)?;
        let family = family_of(&sample.name, &families);
        enter(&family, &mut current, &mut closed).map_err(&at)?;
        let series = format!("{}{:?}", sample.name, sample.labels);
        if !seen.insert(series) {
            return Err(at("the same series twice".into()));
        }
        let f = families.entry(family.clone()).or_insert_with(|| Family {
            kind: "untyped".into(),
            help: None,
            samples: Vec::new(),
        });
        match f.kind.as_str() {
            "counter" if sample.value < 0.0 || sample.value.is_nan() => {
                return Err(at("a counter below zero".into()));
            }
            "histogram" => {
                let suffix = &sample.name[family.len()..];
                if !["_bucket", "_sum", "_count"].contains(&suffix) {
                    return Err(at(format!("{} is not a histogram series", sample.name)));
                }
                if (suffix == "_bucket") != sample.labels.contains_key("le") {
                    return Err(at("le belongs on _bucket series only".into()));
                }
            }
            "gauge" | "counter" | "untyped" if sample.name != family => {
                return Err(at(format!("{} outside its family", sample.name)));
            }
            _ => {}
        }
        f.samples.push(sample);
    }
    for (name, f) in &families {
        if f.kind == "histogram" {
            check_histogram(name, f)?;
        }
    }
    Ok(families)
}

fn family_of(sample: &str, families: &BTreeMap<String, Family>) -> String {
    for suffix in ["_bucket", "_sum", "_count"] {
        if let Some(base) = sample.strip_suffix(suffix)
            && families
                .get(base)
                .is_some_and(|f| f.kind == "histogram" || f.kind == "summary")
        {
            return base.to_string();
        }
    }
    sample.to_string()
}

fn check_name(name: &str) -> Result<(), String> {
    let mut chars = name.chars();
    let ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == ':')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':');
    if ok {
        Ok(())
    } else {
        Err(format!("bad metric name {name:?}"))
    }
}

fn parse_value(text: &str) -> Result<f64, String> {
    match text {
        "+Inf" | "Inf" => Ok(f64::INFINITY),
        "-Inf" => Ok(f64::NEG_INFINITY),
        "NaN" => Ok(f64::NAN),
        t => t
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("bad value {t:?}")),
    }
}

fn parse_sample(line: &str) -> Result<Sample, String> {
    let name_end = line.find(['{', ' ']).ok_or("a sample needs a value")?;
    let name = &line[..name_end];
    check_name(name)?;
    let mut labels = BTreeMap::new();
    let mut rest = &line[name_end..];
    if let Some(after) = rest.strip_prefix('{') {
        let mut chars = after.char_indices().peekable();
        let end;
        loop {
            while chars.peek().is_some_and(|(_, c)| *c == ' ') {
                chars.next();
            }
            if let Some((i, '}')) = chars.peek().copied() {
                end = i + 1;
                break;
            }
            let mut label = String::new();
            for (_, c) in chars.by_ref() {
                if c == '=' {
                    break;
                }
                label.push(c);
            }
            let mut lc = label.chars();
            let valid = lc
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && lc.all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid {
                return Err(format!("bad label name {label:?}"));
            }
            if chars.next().map(|(_, c)| c) != Some('"') {
                return Err("a label value must be quoted".into());
            }
            let mut value = String::new();
            loop {
                match chars.next() {
                    None => return Err("an unterminated label value".into()),
                    Some((_, '"')) => break,
                    Some((_, '\\')) => match chars.next().map(|(_, c)| c) {
                        Some('\\') => value.push('\\'),
                        Some('"') => value.push('"'),
                        Some('n') => value.push('\n'),
                        other => return Err(format!("a bad escape \\{other:?}")),
                    },
                    Some((_, '\n')) => return Err("a raw newline in a label value".into()),
                    Some((_, c)) => value.push(c),
                }
            }
            if labels.insert(label.clone(), value).is_some() {
                return Err(format!("label {label} twice"));
            }
            match chars.next() {
                Some((_, ',')) => continue,
                Some((i, '}')) => {
                    end = i + 1;
                    break;
                }
                other => return Err(format!("expected , or }} after a label, found {other:?}")),
            }
        }
        rest = &after[end..];
    }
    let rest = rest
        .strip_prefix(' ')
        .ok_or("one space between the series and its value")?;
    let mut parts = rest.split(' ');
    let value = parse_value(parts.next().ok_or("no value")?)?;
    if let Some(ts) = parts.next() {
        ts.parse::<i64>()
            .map_err(|_| format!("bad timestamp {ts:?}"))?;
    }
    if parts.next().is_some() {
        return Err("trailing text after the value".into());
    }
    Ok(Sample {
        name: name.to_string(),
        labels,
        value,
    })
}

fn check_histogram(name: &str, f: &Family) -> Result<(), String> {
    let mut groups: BTreeMap<BTreeMap<String, String>, Vec<&Sample>> = BTreeMap::new();
    for s in &f.samples {
        let mut key = s.labels.clone();
        key.remove("le");
        groups.entry(key).or_default().push(s);
    }
    for (labels, samples) in groups {
        let buckets: Vec<&&Sample> = samples
            .iter()
            .filter(|s| s.name.ends_with("_bucket"))
            .collect();
        let mut last_le = f64::NEG_INFINITY;
        let mut last_count = 0.0;
        for b in &buckets {
            let le = parse_value(&b.labels["le"])?;
            if le <= last_le {
                return Err(format!("{name}{labels:?}: buckets out of order"));
            }
            if b.value < last_count {
                return Err(format!("{name}{labels:?}: buckets not cumulative"));
            }
            last_le = le;
            last_count = b.value;
        }
        if last_le != f64::INFINITY {
            return Err(format!("{name}{labels:?}: no le=\"+Inf\" bucket"));
        }
        let count = samples
            .iter()
            .find(|s| s.name.ends_with("_count"))
            .ok_or_else(|| format!("{name}{labels:?}: no _count"))?;
        if count.value != last_count {
            return Err(format!("{name}{labels:?}: _count is not the +Inf bucket"));
        }
        if !samples.iter().any(|s| s.name.ends_with("_sum")) {
            return Err(format!("{name}{labels:?}: no _sum"));
        }
    }
    Ok(())
}

/// The value of `family{labels}`; panics naming what is missing.
pub fn metric(
    families: &BTreeMap<String, Family>,
    name: &str,
    labels: &[(&str, &str)],
) -> Option<f64> {
    let f = families.get(name)?;
    f.samples
        .iter()
        .find(|s| {
            s.name == name
                && labels
                    .iter()
                    .all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v))
        })
        .map(|s| s.value)
}

#[test]
fn the_strict_parser_refuses_what_prometheus_would_refuse() {
    let good = "# HELP a_total A.\n# TYPE a_total counter\na_total{job=\"x\"} 1\n\
                # TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_sum 3.5\nh_count 2\n";
    let parsed = parse_prometheus(good).expect("valid");
    assert_eq!(metric(&parsed, "a_total", &[("job", "x")]), Some(1.0));
    for bad in [
        "a{job=x} 1\n",             // unquoted
        "a{job=\"x\"}  1\n",        // two spaces
        "a 1",                      // no final newline
        "# TYPE a counter\na -1\n", // negative counter
        "a 1\nb 1\na 2\n",          // not contiguous
        "a 1\na 2\n",               // same series twice
        "# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n",
        "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n", // no +Inf
        "a{b=\"\\x\"} 1\n",                                               // bad escape
        "1a 1\n",                                                         // bad name
        "a one\n",                                                        // bad value
    ] {
        assert!(parse_prometheus(bad).is_err(), "accepted {bad:?}");
    }
}
