//! Captures trigger a sync: a thread blocked on inotify over the inbox
//! folder (`.git/learnsync/inbox/`) says "something arrived" for each file
//! renamed or written into it (the inbox writes through a temp file and a
//! rename, so a finished file is one `IN_MOVED_TO`). The thread costs no
//! wake-up while nothing arrives. Without inotify (not Linux, or no
//! watches left) captures wait for the next scheduled sync, and the log
//! says so.

use std::path::PathBuf;
use tokio::sync::mpsc::UnboundedSender;

/// Starts the watch; `arrived` gets one message per new inbox file.
#[cfg(target_os = "linux")]
pub fn watch(inbox: PathBuf, arrived: UnboundedSender<()>) {
    use inotify::{EventMask, Inotify, WatchMask};
    let started = (|| -> std::io::Result<Inotify> {
        std::fs::create_dir_all(&inbox)?;
        let inotify = Inotify::init()?;
        inotify.watches().add(
            &inbox,
            WatchMask::MOVED_TO | WatchMask::CLOSE_WRITE | WatchMask::DELETE_SELF,
        )?;
        Ok(inotify)
    })();
    let mut inotify = match started {
        Ok(i) => i,
        Err(e) => {
            tracing::warn!(
                "cannot watch the inbox {} ({e}); captures wait for the next scheduled sync",
                inbox.display()
            );
            return;
        }
    };
    let spawned = std::thread::Builder::new()
        .name("inbox-watch".into())
        .spawn(move || {
            let mut buffer = [0u8; 4096];
            loop {
                let events = match inotify.read_events_blocking(&mut buffer) {
                    Ok(events) => events,
                    Err(e) => {
                        tracing::warn!("the inbox watch stopped ({e}); captures wait for the next scheduled sync");
                        return;
                    }
                };
                let mut any = false;
                let mut gone = false;
                for event in events {
                    if event.mask.intersects(EventMask::DELETE_SELF | EventMask::IGNORED) {
                        gone = true;
                        continue;
                    }
                    let temp = event
                        .name
                        .is_some_and(|n| n.to_string_lossy().starts_with('.'));
                    if !temp {
                        any = true;
                    }
                }
                if any && arrived.send(()).is_err() {
                    return;
                }
                if gone {
                    // The inbox was removed (a reset by hand): watch the new one.
                    std::thread::sleep(std::time::Duration::from_secs(1));
                    let _ = std::fs::create_dir_all(&inbox);
                    if let Err(e) = inotify.watches().add(
                        &inbox,
                        WatchMask::MOVED_TO | WatchMask::CLOSE_WRITE | WatchMask::DELETE_SELF,
                    ) {
                        tracing::warn!("cannot watch the inbox again ({e}); captures wait for the next scheduled sync");
                        return;
                    }
                }
            }
        });
    if let Err(e) = spawned {
        tracing::warn!(
            "cannot start the inbox watch ({e}); captures wait for the next scheduled sync"
        );
    }
}

#[cfg(not(target_os = "linux"))]
pub fn watch(inbox: PathBuf, _arrived: UnboundedSender<()>) {
    tracing::info!(
        "no inbox watch on this system: captures in {} wait for the next scheduled sync",
        inbox.display()
    );
}
