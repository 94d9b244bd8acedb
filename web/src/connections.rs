//! Connections bounded in count and in time, so that no client can hold the server's file
//! descriptors or memory by being slow:
//! - the [`ConnectionGate`] counts open connections, in all and per client address; a connection
//!   past either cap is answered `503` with `Retry-After` the moment it is accepted and closed,
//!   before it can hold anything;
//! - actix closes a connection whose request head has not arrived within 5 s (408), and
//!   [`body_deadline`] one whose body has not arrived within [`BODY_DEADLINE`] of its head (408);
//! - the accept loop stops below the open-files limit ([`accept_limit_per_worker`]), so the
//!   database and the index always have descriptors left.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::body::MessageBody;
use actix_web::dev::{Extensions, Payload, ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::web::{Bytes, BytesMut};
use actix_web::{HttpMessage, ResponseError};
use engine::sync::lock;
use futures_util::StreamExt;

use crate::app::MAX_JSON_BODY_BYTES;
use crate::error::ApiError;

/// How long a request body may take to arrive once its head has: the API's bodies are small
/// forms (64 KiB at most), so a client slower than this is stalling.
pub const BODY_DEADLINE: Duration = Duration::from_secs(10);

/// Connections one client address may hold at once, unless the server is behind a proxy (then
/// every connection comes from the proxy, and the proxy limits clients).
pub const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS: usize = 256;

/// Descriptors kept for everything but connections: the database, the index's segments, the
/// outbox, the log.
const RESERVED_DESCRIPTORS: u64 = 1_024;

/// The connections the server serves at once by default: three quarters of the open-files
/// limit, so that a refusal can still be written (each takes a descriptor for a moment).
pub fn default_max_connections(open_files: Option<u64>) -> usize {
    let limit = open_files.unwrap_or(1_024);
    usize::try_from(limit.saturating_mul(3) / 4).unwrap_or(usize::MAX).max(1)
}

/// Per worker: how many connections each accept loop takes before it pauses, so that all of
/// them together stay below the open-files limit with [`RESERVED_DESCRIPTORS`] to spare.
pub fn accept_limit_per_worker(open_files: Option<u64>, workers: usize) -> usize {
    let limit = open_files.unwrap_or(1_024);
    let spare = limit.saturating_sub(RESERVED_DESCRIPTORS.min(limit / 2));
    (usize::try_from(spare).unwrap_or(usize::MAX) / workers.max(1)).max(1)
}

/// Counts open connections; cheap to clone.
#[derive(Clone)]
pub struct ConnectionGate {
    inner: Arc<Gate>,
}

struct Gate {
    max_total: usize,
    /// None: no per-address cap (behind a proxy).
    max_per_address: Option<usize>,
    open: AtomicUsize,
    /// Open connections per address; an address leaves the map with its last connection, so
    /// the map never holds more entries than there are open connections.
    per_address: Mutex<HashMap<IpAddr, usize>>,
    refused_total: AtomicU64,
}

/// One admitted connection; dropped with the connection, which frees its place.
struct Admitted {
    gate: Arc<Gate>,
    address: Option<IpAddr>,
}

impl Drop for Admitted {
    fn drop(&mut self) {
        self.gate.open.fetch_sub(1, Ordering::AcqRel);
        if let Some(address) = self.address {
            let mut per_address = lock(&self.gate.per_address);
            if let Some(count) = per_address.get_mut(&address) {
                *count -= 1;
                if *count == 0 {
                    per_address.remove(&address);
                }
            }
        }
    }
}

/// A snapshot of the gate, for `/metrics`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GateStats {
    pub open: usize,
    pub max_total: usize,
    pub addresses: usize,
    pub refused_total: u64,
}

impl ConnectionGate {
    pub fn new(max_total: usize, max_per_address: Option<usize>) -> ConnectionGate {
        let gate = Gate {
            max_total: max_total.max(1),
            max_per_address: max_per_address.map(|cap| cap.max(1)),
            open: AtomicUsize::new(0),
            per_address: Mutex::new(HashMap::new()),
            refused_total: AtomicU64::new(0),
        };
        ConnectionGate { inner: Arc::new(gate) }
    }

    /// A place for a new connection from `address`, or none when the server or the address is
    /// at its cap.
    fn admit(&self, address: Option<IpAddr>) -> Option<Admitted> {
        let gate = &self.inner;
        if gate.open.fetch_add(1, Ordering::AcqRel) >= gate.max_total {
            gate.open.fetch_sub(1, Ordering::AcqRel);
            gate.refused_total.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        let address = address.filter(|_| gate.max_per_address.is_some());
        if let (Some(address), Some(cap)) = (address, gate.max_per_address) {
            let mut per_address = lock(&gate.per_address);
            let count = per_address.entry(address).or_insert(0);
            if *count >= cap {
                drop(per_address);
                gate.open.fetch_sub(1, Ordering::AcqRel);
                gate.refused_total.fetch_add(1, Ordering::Relaxed);
                return None;
            }
            *count += 1;
        }
        Some(Admitted { gate: Arc::clone(gate), address })
    }

    pub fn stats(&self) -> GateStats {
        let gate = &self.inner;
        GateStats {
            open: gate.open.load(Ordering::Acquire),
            max_total: gate.max_total,
            addresses: lock(&gate.per_address).len(),
            refused_total: gate.refused_total.load(Ordering::Relaxed),
        }
    }

    /// The server's `on_connect` hook: admits the connection (its place is kept in the
    /// connection's data and freed when the connection ends) or answers 503 and closes it.
    pub fn on_connect(&self, io: &dyn std::any::Any, data: &mut Extensions) {
        let Some(stream) = io.downcast_ref::<actix_web::rt::net::TcpStream>() else {
            return;
        };
        let address = stream.peer_addr().ok().map(|peer| peer.ip());
        match self.admit(address) {
            Some(admitted) => {
                data.insert(admitted);
            }
            None => refuse(stream),
        }
    }
}

/// The answer to a connection past the caps, written straight to the socket, which is then shut:
/// the connection holds no buffer and no descriptor longer than it takes to say so.
const REFUSAL: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: 76\r\n\r\n{\"code\":\"too_many_connections\",\"message\":\"Too many connections; try again.\"}";

fn refuse(stream: &actix_web::rt::net::TcpStream) {
    // Written with the system call itself: the runtime has not polled this socket yet, so its
    // own non-blocking write would not try. A fresh socket's send buffer takes these few bytes
    // at once; if not, the close still says enough.
    let _ = rustix::net::send(stream, REFUSAL, rustix::net::SendFlags::NOSIGNAL);
    let _ = rustix::net::shutdown(stream, rustix::net::Shutdown::Both);
}

static BODY_TIMEOUTS: AtomicU64 = AtomicU64::new(0);

/// Requests answered 408 by [`body_deadline`] since the start.
pub fn body_timeouts() -> u64 {
    BODY_TIMEOUTS.load(Ordering::Relaxed)
}

/// Middleware (`from_fn`): a request with a body gets it read here, within [`BODY_DEADLINE`] and
/// at most [`MAX_JSON_BODY_BYTES`] (plus one byte, so the JSON extractor still answers 413 for a
/// larger one); a body that does not arrive in time is answered 408 and the connection closed.
pub async fn body_deadline(
    mut request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let has_body = request.headers().contains_key("content-length") || request.headers().contains_key("transfer-encoding");
    if has_body {
        let payload = request.take_payload();
        match tokio::time::timeout(BODY_DEADLINE, read_body(payload, MAX_JSON_BODY_BYTES + 1)).await {
            Ok(Ok(body)) => request.set_payload(Payload::from(body)),
            Ok(Err(error)) => return Err(error),
            Err(_) => {
                BODY_TIMEOUTS.fetch_add(1, Ordering::Relaxed);
                tracing::info!(path = request.path(), "request body not received in time");
                let mut answer = ApiError::new(crate::error::ErrorCode::BodyTimeout, "The request body did not arrive in time.").error_response();
                answer.head_mut().set_connection_type(actix_web::http::ConnectionType::Close);
                return Ok(request.into_response(answer).map_into_right_body());
            }
        }
    }
    Ok(next.call(request).await?.map_into_left_body())
}

/// The body's bytes, up to `limit` (the rest is left unread: the answer will refuse it).
async fn read_body(mut payload: Payload, limit: usize) -> Result<Bytes, actix_web::Error> {
    let mut body = BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk?;
        let room = limit.saturating_sub(body.len());
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if body.len() >= limit {
            break;
        }
    }
    Ok(body.freeze())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_caps_the_total_and_each_address_and_frees_places() {
        let gate = ConnectionGate::new(4, Some(2));
        let (a, b): (IpAddr, IpAddr) = ("192.0.2.1".parse().expect("ip"), "192.0.2.2".parse().expect("ip"));
        let first = gate.admit(Some(a)).expect("first from a");
        let second = gate.admit(Some(a)).expect("second from a");
        assert!(gate.admit(Some(a)).is_none(), "a third from one address is refused");
        let third = gate.admit(Some(b)).expect("another address still gets in");
        let fourth = gate.admit(Some(b)).expect("up to the total");
        assert!(gate.admit(Some("192.0.2.3".parse().expect("ip"))).is_none(), "the total is full");
        assert_eq!(gate.stats(), GateStats { open: 4, max_total: 4, addresses: 2, refused_total: 2 });
        drop((first, second));
        assert_eq!(gate.stats().addresses, 1, "an address leaves with its last connection");
        assert!(gate.admit(Some(a)).is_some(), "a freed place is taken again");
        drop((third, fourth));
        assert_eq!(gate.stats().open, 0);
    }

    #[test]
    fn behind_a_proxy_only_the_total_counts() {
        let gate = ConnectionGate::new(3, None);
        let proxy: IpAddr = "10.0.0.1".parse().expect("ip");
        let held: Vec<_> = (0..3).map(|_| gate.admit(Some(proxy)).expect("admitted")).collect();
        assert!(gate.admit(Some(proxy)).is_none());
        assert_eq!(gate.stats().addresses, 0, "no address is kept");
        drop(held);
    }

    #[test]
    fn the_refusal_is_a_whole_http_answer() {
        let text = std::str::from_utf8(REFUSAL).expect("ascii");
        let (head, body) = text.split_once("\r\n\r\n").expect("a head and a body");
        assert!(head.starts_with("HTTP/1.1 503 "));
        assert!(head.contains(&format!("Content-Length: {}", body.len())), "{head}");
        let json: serde_json::Value = serde_json::from_str(body).expect("JSON");
        assert_eq!(json["code"], crate::error::ErrorCode::TooManyConnections.as_str());
    }

    #[test]
    fn limits_from_the_open_files_limit() {
        assert_eq!(default_max_connections(Some(20_000)), 15_000);
        assert_eq!(accept_limit_per_worker(Some(20_000), 2), 9_488);
        assert_eq!(accept_limit_per_worker(Some(1_024), 2), 256, "a small limit keeps half for the rest");
        assert!(default_max_connections(Some(20_000)) < 2 * accept_limit_per_worker(Some(20_000), 2));
    }
}
