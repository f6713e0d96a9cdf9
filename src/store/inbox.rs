//! The inbox, `.git/learnsync/inbox/`: captures and events waiting for the
//! next sync. Writes are atomic and never wait for the sync lock.

use crate::event::Event;
use crate::learning::Learning;
use std::path::{Path, PathBuf};

/// What one inbox file holds.
#[derive(Debug, Clone)]
pub enum InboxPayload {
    Learning(Box<Learning>),
    Event(Event),
}

/// One inbox file, parsed or not.
#[derive(Debug)]
pub struct InboxItem {
    pub path: PathBuf,
    pub payload: Result<InboxPayload, String>,
}

pub struct Inbox {
    dir: PathBuf,
}

impl Inbox {
    pub fn new(dir: PathBuf) -> Self {
        Inbox { dir }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn write(&self, stem: &str, ext: &str, bytes: &[u8]) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(&self.dir)?;
        let nanos = time::OffsetDateTime::now_utc().unix_timestamp_nanos();
        let path = self.dir.join(format!("{nanos:020}-{stem}.{ext}"));
        super::atomic_write(&path, bytes)?;
        Ok(path)
    }

    /// Queues a learning (already validated and redacted by the caller).
    pub fn write_learning(&self, learning: &Learning) -> std::io::Result<PathBuf> {
        self.write(&learning.id, "md", learning.to_markdown().as_bytes())
    }

    /// Queues an event.
    pub fn write_event(&self, event: &Event) -> std::io::Result<PathBuf> {
        let stem: String = event
            .id
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
            .take(64)
            .collect();
        let mut line = event.to_line();
        line.push('\n');
        self.write(&stem, "event.jsonl", line.as_bytes())
    }

    /// Every inbox file in write order; half-written temp files are skipped.
    pub fn items(&self) -> Vec<InboxItem> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut paths: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| !n.starts_with('.'))
            })
            .collect();
        paths.sort();
        paths
            .into_iter()
            .map(|path| {
                let payload = read_item(&path);
                InboxItem { path, payload }
            })
            .collect()
    }
}

fn read_item(path: &Path) -> Result<InboxPayload, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    if name.ends_with(".event.jsonl") {
        let text = std::str::from_utf8(&bytes).map_err(|_| "not UTF-8".to_string())?;
        Event::parse_line(text.trim()).map(InboxPayload::Event)
    } else if name.ends_with(".md") {
        Learning::parse(&bytes)
            .map(|l| InboxPayload::Learning(Box::new(l)))
            .map_err(|e| e.to_string())
    } else {
        Err("not an inbox file (expected .md or .event.jsonl)".into())
    }
}
