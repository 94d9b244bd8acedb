//! A JSON body on the refusals actix-http writes by itself.
//!
//! actix-http answers some requests before any of the service's code sees them, with a status, an
//! empty body, and the connection closed: a request it cannot parse (400: a bad request line, a
//! broken header, an address past 64 KB), a request head larger than its buffer (431), a first request
//! that does not arrive within its deadline (408), and a body that contradicts its framing (500).
//! Every other refusal of the service says why in JSON (`crate::error`). [`RefusalBodies`] wraps
//! each connection's socket; when what actix writes ends with one of those bodiless heads, it
//! writes that head with the service's JSON body instead.
//!
//! Those heads are recognised by their shape: a status line of 400, 408, 431 or 500 whose head
//! has `content-length: 0` and no `content-type`, at the end of what is written (they are the
//! last thing a connection writes). No answer of the service has that shape: every error it
//! makes carries a JSON body with its content type.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::error::{ApiError, ErrorCode};

/// A connection's socket whose bodiless refusals get a JSON body (see the module documentation).
#[derive(Debug)]
pub struct RefusalBodies<T> {
    io: T,
    /// A rewritten refusal not yet wholly written to `io`.
    pending: Vec<u8>,
    /// How much of `pending` is written.
    written: usize,
}

impl<T> RefusalBodies<T> {
    pub fn new(io: T) -> RefusalBodies<T> {
        RefusalBodies { io, pending: Vec::new(), written: 0 }
    }

    /// The socket itself.
    pub fn get_ref(&self) -> &T {
        &self.io
    }
}

impl<T: AsyncWrite + Unpin> RefusalBodies<T> {
    /// Writes what is left of a rewritten refusal.
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.written < self.pending.len() {
            let written = ready!(Pin::new(&mut self.io).poll_write(cx, &self.pending[self.written..]))?;
            if written == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.written += written;
        }
        self.pending.clear();
        self.written = 0;
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for RefusalBodies<T> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for RefusalBodies<T> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.poll_pending(cx))?;
        let Some(rewritten) = with_json_body(buf) else {
            return Pin::new(&mut this.io).poll_write(cx, buf);
        };
        // The caller's bytes are taken whole; the rewritten ones go out now or at the next write,
        // flush or shutdown.
        this.pending = rewritten;
        if let Poll::Ready(Err(error)) = this.poll_pending(cx) {
            return Poll::Ready(Err(error));
        }
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_pending(cx))?;
        Pin::new(&mut this.io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_pending(cx))?;
        Pin::new(&mut this.io).poll_shutdown(cx)
    }
}

/// `bytes` with the bodiless refusal they end with (if any) given its JSON body; `None` when they
/// end with anything else.
pub fn with_json_body(bytes: &[u8]) -> Option<Vec<u8>> {
    const END_OF_HEAD: &[u8] = b"\r\n\r\n";
    if !bytes.ends_with(END_OF_HEAD) {
        return None;
    }
    let start = last_status_line(bytes)?;
    let head = &bytes[start..];
    // One head: the only blank line is its end.
    if head.windows(END_OF_HEAD.len()).position(|window| window == END_OF_HEAD) != Some(head.len() - END_OF_HEAD.len()) {
        return None;
    }
    let text = std::str::from_utf8(head).ok()?;
    let mut lines = text.split("\r\n");
    let status_line = lines.next()?;
    let status: u16 = status_line.get(9..12)?.parse().ok()?;
    let (code, message) = match status {
        400 => (ErrorCode::BadRequest, "The request could not be read: it is not well-formed HTTP, or its address is too long."),
        408 => (ErrorCode::BodyTimeout, "The request did not arrive in time."),
        431 => (ErrorCode::HttpError, "The request's address or headers are too long."),
        500 => (ErrorCode::Internal, "Something went wrong on our side. Please try again."),
        _ => return None,
    };
    let headers: Vec<&str> = lines.filter(|line| !line.is_empty()).collect();
    let has = |name: &str, value: Option<&str>| {
        headers.iter().any(|line| {
            line.split_once(':')
                .is_some_and(|(field, found)| field.trim().eq_ignore_ascii_case(name) && value.is_none_or(|value| found.trim() == value))
        })
    };
    if !has("content-length", Some("0")) || has("content-type", None) {
        return None;
    }
    let body = serde_json::to_string(&ApiError::new(code, message).body()).ok()?;
    let mut rewritten = Vec::with_capacity(bytes.len() + body.len() + 64);
    rewritten.extend_from_slice(&bytes[..start]);
    rewritten.extend_from_slice(status_line.as_bytes());
    rewritten.extend_from_slice(b"\r\n");
    for line in headers.iter().filter(|line| !line.split_once(':').is_some_and(|(field, _)| field.trim().eq_ignore_ascii_case("content-length"))) {
        rewritten.extend_from_slice(line.as_bytes());
        rewritten.extend_from_slice(b"\r\n");
    }
    rewritten.extend_from_slice(
        format!("content-type: application/json\r\nx-content-type-options: nosniff\r\ncontent-length: {}\r\n\r\n", body.len()).as_bytes(),
    );
    rewritten.extend_from_slice(body.as_bytes());
    Some(rewritten)
}

/// Where the last `HTTP/1.x ` status line in `bytes` starts (an answer written before it in the
/// same write ends with its body, not with a line end). No answer's body ends with a head of its
/// own: the service's JSON cannot hold a raw line end.
/// Only the last [`REFUSAL_HEAD_BYTES`] are looked at: actix's refusal heads are about a hundred
/// bytes, and every write of the service passes here.
fn last_status_line(bytes: &[u8]) -> Option<usize> {
    const STATUS: &[&[u8]] = &[b"HTTP/1.1 ", b"HTTP/1.0 "];
    let from = bytes.len().saturating_sub(REFUSAL_HEAD_BYTES);
    (from..bytes.len()).rev().find(|&at| STATUS.iter().any(|prefix| bytes[at..].starts_with(prefix)))
}

/// The longest head [`with_json_body`] recognises as actix's refusal.
const REFUSAL_HEAD_BYTES: usize = 1024;

#[cfg(test)]
mod tests {
    use tokio::io::AsyncWriteExt;

    use super::*;

    fn body_of(bytes: &[u8]) -> serde_json::Value {
        let text = String::from_utf8(bytes.to_vec()).expect("text");
        let (_, body) = text.split_once("\r\n\r\n").expect("a head and a body");
        serde_json::from_str(body).expect("a JSON body")
    }

    #[test]
    fn actix_s_bodiless_refusals_get_a_json_body_with_their_headers_kept() {
        for (status, code) in [
            ("400 Bad Request", "bad_request"),
            ("408 Request Timeout", "body_timeout"),
            ("431 Request Header Fields Too Large", "http_error"),
            ("500 Internal Server Error", "internal"),
        ] {
            let refusal = format!("HTTP/1.1 {status}\r\ncontent-length: 0\r\nconnection: close\r\ndate: Sun, 29 Nov 2026 01:00:00 GMT\r\n\r\n");
            let rewritten = with_json_body(refusal.as_bytes()).unwrap_or_else(|| panic!("{status} rewritten"));
            let text = String::from_utf8(rewritten.clone()).expect("text");
            assert!(text.starts_with(&format!("HTTP/1.1 {status}\r\n")), "{text}");
            assert!(text.contains("connection: close\r\n") && text.contains("date: Sun"), "{text}");
            assert!(text.contains("content-type: application/json\r\n"), "{text}");
            let body = body_of(&rewritten);
            assert_eq!(body["code"], code);
            assert!(body["message"].as_str().is_some_and(|message| message.ends_with('.')));
            let length: usize =
                text.split("content-length: ").nth(1).and_then(|rest| rest.split("\r\n").next()).and_then(|n| n.parse().ok()).expect("a length");
            assert_eq!(length, text.split_once("\r\n\r\n").map(|(_, body)| body.len()).unwrap_or_default());
        }
    }

    #[test]
    fn answers_of_the_service_and_other_statuses_pass_untouched() {
        let untouched = [
            "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: 0\r\n\r\n".to_owned(),
            "HTTP/1.1 400 Bad Request\r\ncontent-length: 12\r\n\r\n{\"code\":\"x\"}".to_owned(),
            "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n".to_owned(),
            "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n".to_owned(),
            "HTTP/1.1 204 No Content\r\n\r\n".to_owned(),
        ];
        for bytes in untouched {
            assert_eq!(with_json_body(bytes.as_bytes()), None, "{bytes:?}");
        }
    }

    #[test]
    fn a_refusal_after_a_pipelined_answer_is_rewritten_and_the_answer_kept() {
        let answer = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}";
        let bytes = format!("{answer}HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
        let rewritten = String::from_utf8(with_json_body(bytes.as_bytes()).expect("rewritten")).expect("text");
        assert!(rewritten.starts_with(answer));
        assert!(rewritten.ends_with("}") && rewritten.contains("\"code\":\"bad_request\""), "{rewritten}");
    }

    /// A writer that takes at most `chunk` bytes per write.
    struct Trickle {
        out: Vec<u8>,
        chunk: usize,
    }

    impl AsyncWrite for Trickle {
        fn poll_write(mut self: Pin<&mut Self>, _: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
            let taken = buf.len().min(self.chunk);
            self.out.extend_from_slice(&buf[..taken]);
            Poll::Ready(Ok(taken))
        }
        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    #[tokio::test]
    async fn the_rewritten_refusal_is_written_whole_through_short_writes() {
        let mut socket = RefusalBodies::new(Trickle { out: Vec::new(), chunk: 7 });
        socket.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await.expect("written");
        socket.write_all(b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n").await.expect("written");
        socket.shutdown().await.expect("shut");
        let out = socket.io.out;
        let text = String::from_utf8(out.clone()).expect("text");
        assert!(text.starts_with("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nokHTTP/1.1 408 Request Timeout\r\n"), "{text}");
        assert_eq!(body_of(&out[text.find("HTTP/1.1 408").expect("the refusal")..])["code"], "body_timeout");
    }
}
