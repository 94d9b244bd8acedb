//! The data directory's Unix socket, `DATA_DIR/papertide.sock`: `serve` answers the operator
//! routes (`/api/admin/...`) and `/healthz` on it, as the local operator — whoever can open the
//! data directory (the socket is the service user's only, mode 0600). The command line reaches a
//! running service through it ([`request`], reqwest over the socket), since the database is the
//! running service's alone; it reads the answers as the routes' wire types ([`Answer::read`]).
//!
//! The socket is made under a name of its own, given its mode, and only then renamed into place,
//! so that it is never reachable with a wider mode, and a stale socket of a killed service is
//! replaced in the same step. `serve` removes it when it stops.

use std::io::ErrorKind;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use reqwest::header::ACCEPT;
use reqwest::Method;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// The socket's file name in the data directory.
pub const SOCKET_FILE: &str = "papertide.sock";

/// How long the command line waits for the service's answer.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(300);

/// The socket's path in `data_dir`.
pub fn socket_path(data_dir: &Path) -> PathBuf {
    data_dir.join(SOCKET_FILE)
}

/// The service's answer to one request on the socket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub status: u16,
    body: Vec<u8>,
}

/// What every error answer carries (the rest of `crate::error::ErrorBody` is not read here).
#[derive(Deserialize)]
struct Refusal {
    message: String,
}

impl Answer {
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The body read as the route's wire type; an empty body reads as JSON `null`.
    pub fn read<T: DeserializeOwned>(&self) -> anyhow::Result<T> {
        let body: &[u8] = if self.body.iter().all(u8::is_ascii_whitespace) { b"null" } else { &self.body };
        serde_json::from_slice(body).with_context(|| format!("reading the service's answer ({})", self.status))
    }

    /// Why the service refused: the error answer's message, or its status.
    pub fn refusal(&self) -> String {
        serde_json::from_slice::<Refusal>(&self.body).map_or_else(|_| format!("the service answered {}", self.status), |refusal| refusal.message)
    }
}

/// Sends one request (with `body` in JSON) to the service listening on `data_dir`'s socket and
/// answers its answer; `None` when no service listens there (no socket file, or one left by a
/// service that is gone).
pub async fn request<B: Serialize + ?Sized>(data_dir: &Path, method: &str, path: &str, body: Option<&B>) -> anyhow::Result<Option<Answer>> {
    let socket = socket_path(data_dir);
    let method = Method::from_bytes(method.as_bytes()).with_context(|| format!("the method {method:?}"))?;
    let client = reqwest::Client::builder().unix_socket(socket.as_path()).timeout(ANSWER_TIMEOUT).build().context("the socket's client")?;
    // The host is never resolved: every connection is to the socket.
    let mut asked = client.request(method, format!("http://localhost{path}")).header(ACCEPT, "application/json");
    if let Some(body) = body {
        asked = asked.json(body);
    }
    let response = match asked.send().await {
        Ok(response) => response,
        Err(error) if nobody_listens(&error) => return Ok(None),
        Err(error) => return Err(error).with_context(|| format!("asking the service on its socket {}", socket.display())),
    };
    let status = response.status().as_u16();
    let body = response.bytes().await.context("reading the service's answer")?.to_vec();
    Ok(Some(Answer { status, body }))
}

/// Whether a request failed because no service listens on the socket: no file there, or no
/// process behind it.
fn nobody_listens(error: &reqwest::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(cause) = source {
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            return matches!(io.kind(), ErrorKind::NotFound | ErrorKind::ConnectionRefused);
        }
        source = cause.source();
    }
    false
}

/// Binds the socket in `data_dir` (see the module documentation): a listener that only the
/// service's user can connect to.
pub fn listen(data_dir: &Path) -> anyhow::Result<UnixListener> {
    let socket = socket_path(data_dir);
    let fresh = data_dir.join(format!(".{SOCKET_FILE}.{}", std::process::id()));
    match std::fs::remove_file(&fresh) {
        Err(error) if error.kind() != ErrorKind::NotFound => return Err(error).with_context(|| format!("removing {}", fresh.display())),
        _ => {}
    }
    let listener = UnixListener::bind(&fresh).with_context(|| format!("listening on {}", fresh.display()))?;
    let placed = std::fs::set_permissions(&fresh, std::fs::Permissions::from_mode(0o600))
        .with_context(|| format!("making {} the service user's only", fresh.display()))
        .and_then(|()| std::fs::rename(&fresh, &socket).with_context(|| format!("placing the socket at {}", socket.display())));
    if let Err(error) = placed {
        let _ = std::fs::remove_file(&fresh);
        return Err(error);
    }
    Ok(listener)
}

/// Removes the socket of a service that stops.
pub fn remove(data_dir: &Path) {
    let socket = socket_path(data_dir);
    if let Err(error) = std::fs::remove_file(&socket) {
        if error.kind() != ErrorKind::NotFound {
            tracing::warn!(%error, path = %socket.display(), "removing the local socket");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use super::*;

    #[test]
    fn answers_read_as_their_wire_type_and_refusals_say_why() {
        let answer = Answer { status: 200, body: br#"{"a":true}"#.to_vec() };
        assert!(answer.is_success());
        assert_eq!(answer.read::<serde_json::Value>().expect("read"), serde_json::json!({ "a": true }));
        assert!(answer.read::<Vec<u8>>().is_err(), "another type");
        let empty = Answer { status: 204, body: Vec::new() };
        assert_eq!(empty.read::<Option<u8>>().expect("read"), None);
        let refused = Answer { status: 409, body: br#"{"code":"conflict","message":"Not now."}"#.to_vec() };
        assert!(!refused.is_success());
        assert_eq!(refused.refusal(), "Not now.");
        assert_eq!(Answer { status: 502, body: b"<html>".to_vec() }.refusal(), "the service answered 502");
    }

    #[actix_web::test]
    async fn no_socket_means_no_service() {
        let dir = tempfile::tempdir().expect("a directory");
        assert!(request::<()>(dir.path(), "GET", "/healthz", None).await.expect("no error").is_none(), "no file");
        drop(UnixListener::bind(socket_path(dir.path())).expect("bound"));
        assert!(request::<()>(dir.path(), "GET", "/healthz", None).await.expect("no error").is_none(), "a file nobody listens on");
    }

    #[actix_web::test]
    async fn the_socket_is_the_owners_only_and_replaces_a_stale_one() {
        let dir = tempfile::tempdir().expect("a directory");
        drop(UnixListener::bind(socket_path(dir.path())).expect("a stale socket"));
        let listener = listen(dir.path()).expect("listening");
        let mode = std::fs::metadata(socket_path(dir.path())).expect("the socket").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let server = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().expect("a connection");
            let mut request = [0u8; 1024];
            let read = stream.read(&mut request).expect("the request");
            let head = String::from_utf8_lossy(&request[..read]).into_owned();
            stream.write_all(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"b\":\r\n2\r\n2}\r\n0\r\n\r\n").expect("answered");
            head
        });
        let answer = request(dir.path(), "POST", "/api/admin/x", Some(&serde_json::json!({}))).await.expect("asked").expect("listening");
        assert_eq!((answer.status, answer.read::<serde_json::Value>().expect("JSON")), (200, serde_json::json!({ "b": 2 })));
        let head = server.join().expect("the server thread");
        assert!(head.starts_with("POST /api/admin/x HTTP/1.1\r\n"), "{head}");
        remove(dir.path());
        assert!(!socket_path(dir.path()).try_exists().expect("looked"), "removed");
    }
}
