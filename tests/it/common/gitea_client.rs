//! learnsync's own `GiteaClient` pointed at the Gitea-compatible test
//! server, with short timeouts and fast retries so that injected faults
//! cost milliseconds; and a way to await it from a synchronous test.

use std::time::Duration;

use learnsync::gitea::{ClientOptions, GiteaClient, RepoRef};
use learnsync::retry::RetryPolicy;
use secrecy::SecretString;

use super::gitea_server::GiteaServer;

/// 2 s to connect, 5 s a request, up to `max_attempts` fast retries.
pub fn options(max_attempts: u32) -> ClientOptions {
    ClientOptions {
        connect_timeout: Duration::from_secs(2),
        timeout: Duration::from_secs(5),
        retry: RetryPolicy::fast(max_attempts),
        ..ClientOptions::default()
    }
}

/// A client of `server`'s repository with `token` (none: anonymous).
pub fn client_with(
    server: &GiteaServer,
    token: Option<&str>,
    options: ClientOptions,
) -> GiteaClient {
    GiteaClient::new(
        server.url(),
        RepoRef::parse(&server.repo_ref()).expect("server repo"),
        token.map(|t| SecretString::from(t.to_string())),
        options,
    )
    .expect("client")
}

/// A client of `server`'s repository with `token` and four attempts.
pub fn client(server: &GiteaServer, token: &str) -> GiteaClient {
    client_with(server, Some(token), options(4))
}

/// Runs `f` to completion on a runtime of its own.
pub fn block<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(f)
}
