//! sd_notify for `Type=notify` units: one datagram to `$NOTIFY_SOCKET`
//! (a path, or `@name` in the abstract namespace) per state change —
//! `READY=1` once the daemon is set up, `RELOADING=1` on SIGHUP,
//! `STOPPING=1` on the way out, `STATUS=` lines for `systemctl status`.
//! Without the variable (not run by systemd) it does nothing.

use std::os::unix::net::UnixDatagram;

/// Sends `state` (newline-separated `KEY=value` lines); errors are logged
/// at debug level: a lost notification must never stop the daemon.
pub fn send(state: &str) {
    let Some(socket) = std::env::var_os("NOTIFY_SOCKET") else {
        return;
    };
    let result = (|| -> std::io::Result<()> {
        let sock = UnixDatagram::unbound()?;
        let name = socket.as_encoded_bytes();
        if let Some(abstract_name) = name.strip_prefix(b"@") {
            #[cfg(target_os = "linux")]
            {
                use std::os::linux::net::SocketAddrExt;
                let addr = std::os::unix::net::SocketAddr::from_abstract_name(abstract_name)?;
                sock.send_to_addr(state.as_bytes(), &addr)?;
                return Ok(());
            }
            #[cfg(not(target_os = "linux"))]
            {
                let _ = abstract_name;
                return Err(std::io::Error::other("abstract sockets are Linux-only"));
            }
        }
        sock.send_to(state.as_bytes(), std::path::Path::new(&socket))?;
        Ok(())
    })();
    if let Err(e) = result {
        tracing::debug!("sd_notify {state:?}: {e}");
    }
}
