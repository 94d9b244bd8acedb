//! The data directory's Unix socket, `DATA_DIR/papertide.sock`: `serve` answers the operator
//! routes (`/api/admin/...`) and `/healthz` on it, as the local operator — whoever can open the
//! data directory (the socket is the service user's only, mode 0600). The command line reaches a
//! running service through it ([`request`]), since the database is the running service's alone.
//!
//! The socket is made under a name of its own, given its mode, and only then renamed into place,
//! so that it is never reachable with a wider mode, and a stale socket of a killed service is
//! replaced in the same step. `serve` removes it when it stops.

use std::io::{ErrorKind, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context};
use serde_json::Value;

/// The socket's file name in the data directory.
pub const SOCKET_FILE: &str = "papertide.sock";

/// How long the command line waits for the service's answer.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(300);

/// The socket's path in `data_dir`.
pub fn socket_path(data_dir: &Path) -> PathBuf {
    data_dir.join(SOCKET_FILE)
}

/// Sends one request to the service listening on `data_dir`'s socket and answers its status
/// and JSON body (`null` when empty); `None` when no service listens there (no socket file, or
/// one left by a service that is gone).
pub fn request(data_dir: &Path, method: &str, path: &str, body: Option<&Value>) -> anyhow::Result<Option<(u16, Value)>> {
    let socket = socket_path(data_dir);
    let mut stream = match UnixStream::connect(&socket) {
        Ok(stream) => stream,
        Err(error) if matches!(error.kind(), ErrorKind::NotFound | ErrorKind::ConnectionRefused) => return Ok(None),
        Err(error) => return Err(error).with_context(|| format!("connecting to the service's socket {}", socket.display())),
    };
    stream.set_read_timeout(Some(ANSWER_TIMEOUT)).context("setting the socket's timeout")?;
    let body = body.map(serde_json::to_vec).transpose().context("encoding the request")?;
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nAccept: application/json\r\n");
    match &body {
        Some(bytes) => head.push_str(&format!("Content-Type: application/json\r\nContent-Length: {}\r\n", bytes.len())),
        None => head.push_str("Content-Length: 0\r\n"),
    }
    head.push_str("\r\n");
    let mut message = head.into_bytes();
    message.extend_from_slice(body.as_deref().unwrap_or_default());
    stream.write_all(&message).context("sending the request to the service")?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).context("reading the service's answer")?;
    parse_answer(&answer).map(Some)
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

/// An HTTP/1.1 answer's status and JSON body, its length given by `Content-Length`, by chunks,
/// or by the end of the connection.
fn parse_answer(answer: &[u8]) -> anyhow::Result<(u16, Value)> {
    let Some(split) = answer.windows(4).position(|window| window == b"\r\n\r\n") else {
        bail!("the service's answer has no end of headers");
    };
    let head = std::str::from_utf8(&answer[..split]).context("the service's answer headers are not text")?;
    let rest = &answer[split + 4..];
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status: u16 = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .with_context(|| format!("the service's answer has no status: {status_line:?}"))?;
    let mut content_length = None;
    let mut chunked = false;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else { continue };
        let (name, value) = (name.trim().to_ascii_lowercase(), value.trim());
        if name == "content-length" {
            content_length = Some(value.parse::<usize>().context("the answer's Content-Length")?);
        } else if name == "transfer-encoding" && value.to_ascii_lowercase().contains("chunked") {
            chunked = true;
        }
    }
    let body = if chunked {
        dechunk(rest)?
    } else if let Some(length) = content_length {
        rest.get(..length).context("the service's answer ended early")?.to_vec()
    } else {
        rest.to_vec()
    };
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok((status, Value::Null));
    }
    let value = serde_json::from_slice(&body).context("the service's answer is not JSON")?;
    Ok((status, value))
}

/// The body of a chunked answer.
fn dechunk(mut rest: &[u8]) -> anyhow::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let Some(end) = rest.windows(2).position(|window| window == b"\r\n") else {
            bail!("a chunk of the service's answer has no size line");
        };
        let size_line = std::str::from_utf8(&rest[..end]).context("a chunk size is not text")?;
        let size_text = size_line.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_text, 16).with_context(|| format!("a chunk size: {size_text:?}"))?;
        rest = &rest[end + 2..];
        if size == 0 {
            return Ok(body);
        }
        body.extend_from_slice(rest.get(..size).context("the service's answer ended inside a chunk")?);
        rest = rest.get(size + 2..).context("the service's answer ended after a chunk")?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_by_length_by_chunks_or_to_the_end() {
        let by_length = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\ncontent-length: 11\r\n\r\n{\"a\":true}\n";
        assert_eq!(parse_answer(by_length).expect("parsed"), (200, serde_json::json!({ "a": true })));
        let chunked = b"HTTP/1.1 409 Conflict\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"b\":\r\n3;x=y\r\n 2}\r\n0\r\n\r\n";
        assert_eq!(parse_answer(chunked).expect("parsed"), (409, serde_json::json!({ "b": 2 })));
        let to_the_end = b"HTTP/1.1 404 Not Found\r\n\r\n[1]";
        assert_eq!(parse_answer(to_the_end).expect("parsed"), (404, serde_json::json!([1])));
        let empty = b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n";
        assert_eq!(parse_answer(empty).expect("parsed"), (204, Value::Null));
        assert!(parse_answer(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}").is_err(), "cut short");
        assert!(parse_answer(b"garbage").is_err());
    }

    #[test]
    fn no_socket_means_no_service() {
        let dir = tempfile::tempdir().expect("a directory");
        assert!(request(dir.path(), "GET", "/healthz", None).expect("no error").is_none(), "no file");
        drop(UnixListener::bind(socket_path(dir.path())).expect("bound"));
        assert!(request(dir.path(), "GET", "/healthz", None).expect("no error").is_none(), "a file nobody listens on");
    }

    #[test]
    fn the_socket_is_the_owners_only_and_replaces_a_stale_one() {
        let dir = tempfile::tempdir().expect("a directory");
        drop(UnixListener::bind(socket_path(dir.path())).expect("a stale socket"));
        let listener = listen(dir.path()).expect("listening");
        let mode = std::fs::metadata(socket_path(dir.path())).expect("the socket").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let server = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().expect("a connection");
            let mut request = [0u8; 1024];
            let read = stream.read(&mut request).expect("the request");
            assert!(std::str::from_utf8(&request[..read]).expect("text").starts_with("POST /api/admin/x HTTP/1.1\r\n"));
            stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}").expect("answered");
        });
        let answer = request(dir.path(), "POST", "/api/admin/x", Some(&serde_json::json!({}))).expect("asked");
        assert_eq!(answer, Some((200, serde_json::json!({}))));
        server.join().expect("the server thread");
        remove(dir.path());
        assert!(!socket_path(dir.path()).try_exists().expect("looked"), "removed");
    }
}
