//! Connections bounded in count and in time, so that no client, and no crowd of addresses, can
//! hold the server's file descriptors or memory by being slow:
//! - the [`ConnectionGate`] counts open connections, in all, per client address (an IPv6 client
//!   by its configured prefix, `PAPERTIDE_IPV6_PREFIX`) and per network (an IPv4 /24, an IPv6
//!   /48 or the configured prefix when shorter); a connection past a cap is answered `503` with
//!   `Retry-After` the moment it is accepted and closed, before it can hold anything;
//! - under pressure (half the total open or more) the caps shrink to a fair share: an address,
//!   and a network, may add a connection only while it holds less than the free places divided
//!   among those holding connections plus one more (and at least one), so that many addresses
//!   together still leave room for a newcomer;
//! - the last eighth of the total is kept for signed-in users: a connection admitted into it
//!   must carry a valid session on its first request, or it is answered `503` and closed;
//! - actix closes a connection whose request head has not arrived within 5 s (408), and
//!   [`crate::deadline::body_deadline`] one whose body has not arrived within
//!   [`crate::deadline::BODY_DEADLINE`] of its head (408);
//!   under pressure a connection must deliver its whole first request within
//!   [`PRESSURED_REQUEST_DEADLINE`] of being accepted, or it is answered `408` and closed;
//! - the accept loop stops below the open-files limit ([`accept_limit_per_worker`]), so the
//!   database and the index always have descriptors left.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};

use actix_web::dev::Extensions;
use engine::sync::lock;
use tokio::sync::Notify;

use crate::address::address_group;
use crate::error::{ApiError, ErrorCode};

/// Under pressure, how long a new connection may take to deliver its whole first request (head
/// and body): a browser sends it at once, so a connection slower than this is holding a place.
pub const PRESSURED_REQUEST_DEADLINE: Duration = Duration::from_secs(2);

/// Connections one client address may hold at once, unless the server is behind a proxy (then
/// every connection comes from the proxy, and the proxy limits clients).
pub const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS: usize = 256;

/// Connections one network (an IPv4 /24, an IPv6 /48) may hold at once: a few addresses' worth.
pub const DEFAULT_MAX_CONNECTIONS_PER_NETWORK: usize = 4 * DEFAULT_MAX_CONNECTIONS_PER_ADDRESS;

/// The IPv6 prefix networks are counted by (or the address prefix, when that is shorter).
const IPV6_NETWORK_PREFIX: u8 = 48;
/// The IPv4 prefix networks are counted by.
const IPV4_NETWORK_PREFIX: u32 = 24;

/// Descriptors kept for everything but connections: the database, the index's segments, the
/// outbox, the log.
const RESERVED_DESCRIPTORS: u64 = 1_024;

/// The connections the server serves at once by default: three quarters of the open-files
/// limit, so that a refusal can still be written (each takes a descriptor for a moment), and no
/// more than the accept loops take (with a small limit they stop first: a gate above them would
/// never see its pressure).
pub fn default_max_connections(open_files: Option<u64>) -> usize {
    let limit = open_files.unwrap_or(1_024);
    let three_quarters = limit.saturating_mul(3) / 4;
    let accepted = limit.saturating_sub(RESERVED_DESCRIPTORS.min(limit / 2));
    usize::try_from(three_quarters.min(accepted)).unwrap_or(usize::MAX).max(1)
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
    /// The last places, kept for signed-in users.
    reserve: usize,
    /// None: no per-address or per-network cap (behind a proxy).
    max_per_address: Option<usize>,
    max_per_network: usize,
    ipv6_prefix: u8,
    tally: Mutex<Tally>,
    refused_total: AtomicU64,
    deadline_closed_total: AtomicU64,
}

/// Open places, in all and per address group and network; an address or network leaves its map
/// with its last connection, so the maps never hold more entries than there are connections.
#[derive(Default)]
struct Tally {
    /// Connections, plus the descriptors the request deadlines hold for a moment.
    open: usize,
    per_address: HashMap<IpAddr, usize>,
    per_network: HashMap<IpAddr, usize>,
}

/// Where a connection comes from, as the caps count it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Origin {
    address: IpAddr,
    network: IpAddr,
}

/// One admitted connection; dropped with the connection, which frees its place.
pub(crate) struct Admitted {
    gate: Arc<Gate>,
    origin: Option<Origin>,
    /// Admitted into the signed-in reserve: its first request must carry a valid session.
    pub(crate) in_reserve: bool,
    /// Admitted under pressure: the first request must be whole by then.
    pub(crate) deadline: Option<Instant>,
    pub(crate) first_request: Arc<FirstRequest>,
}

/// What the first request of a connection has done so far.
#[derive(Default)]
pub(crate) struct FirstRequest {
    pub(crate) head_arrived: AtomicBool,
    pub(crate) done: AtomicBool,
    /// Wakes the head deadline's watcher when the head arrives or the connection ends.
    pub(crate) settled: Notify,
}

impl Drop for Admitted {
    fn drop(&mut self) {
        self.first_request.settled.notify_one();
        self.gate.release(self.origin, 1);
    }
}

/// A snapshot of the gate, for `/metrics`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GateStats {
    pub open: usize,
    pub max_total: usize,
    pub addresses: usize,
    pub networks: usize,
    pub refused_total: u64,
    /// Connections closed because their first request was not whole within the pressured
    /// deadline.
    pub deadline_closed_total: u64,
}

impl ConnectionGate {
    /// A gate of `max_total` places; `max_per_address` none: no per-address or per-network cap
    /// (behind a proxy). IPv6 addresses are counted by their first 64 bits.
    pub fn new(max_total: usize, max_per_address: Option<usize>) -> ConnectionGate {
        ConnectionGate::with_ipv6_prefix(max_total, max_per_address, crate::config::DEFAULT_IPV6_PREFIX)
    }

    /// [`ConnectionGate::new`], counting IPv6 addresses by their first `ipv6_prefix` bits.
    pub fn with_ipv6_prefix(max_total: usize, max_per_address: Option<usize>, ipv6_prefix: u8) -> ConnectionGate {
        let max_total = max_total.max(1);
        let max_per_address = max_per_address.map(|cap| cap.max(1));
        let gate = Gate {
            max_total,
            reserve: if max_total >= 16 { max_total / 8 } else { 0 },
            max_per_address,
            max_per_network: max_per_address.map_or(usize::MAX, |cap| cap.saturating_mul(4)),
            ipv6_prefix,
            tally: Mutex::new(Tally::default()),
            refused_total: AtomicU64::new(0),
            deadline_closed_total: AtomicU64::new(0),
        };
        ConnectionGate { inner: Arc::new(gate) }
    }

    /// A place for a new connection from `address`, or none when the server, the address or its
    /// network is at its cap.
    fn admit(&self, address: Option<IpAddr>, now: Instant) -> Option<Admitted> {
        let gate = &self.inner;
        let origin = address.filter(|_| gate.max_per_address.is_some()).map(|address| gate.origin_of(address));
        let mut tally = lock(&gate.tally);
        if tally.open >= gate.max_total {
            return gate.refuse();
        }
        let under_pressure = tally.open >= gate.max_total / 2;
        let anonymous_budget = gate.max_total - gate.reserve;
        if let (Some(origin), Some(max_per_address)) = (origin, gate.max_per_address) {
            let held_by_address = tally.per_address.get(&origin.address).copied().unwrap_or(0);
            let held_by_network = tally.per_network.get(&origin.network).copied().unwrap_or(0);
            let (mut address_cap, mut network_cap) = (max_per_address, gate.max_per_network);
            if under_pressure {
                let free = anonymous_budget.saturating_sub(tally.open);
                let addresses = tally.per_address.len() + usize::from(held_by_address == 0);
                let networks = tally.per_network.len() + usize::from(held_by_network == 0);
                address_cap = address_cap.min(fair_share(free, addresses));
                network_cap = network_cap.min(fair_share(free, networks));
            }
            if held_by_address >= address_cap || held_by_network >= network_cap {
                return gate.refuse();
            }
            *tally.per_address.entry(origin.address).or_insert(0) += 1;
            *tally.per_network.entry(origin.network).or_insert(0) += 1;
        }
        let in_reserve = tally.open >= anonymous_budget;
        tally.open += 1;
        let deadline = under_pressure.then(|| now + PRESSURED_REQUEST_DEADLINE);
        Some(Admitted { gate: Arc::clone(gate), origin, in_reserve, deadline, first_request: Arc::default() })
    }

    pub fn stats(&self) -> GateStats {
        let gate = &self.inner;
        let tally = lock(&gate.tally);
        GateStats {
            open: tally.open,
            max_total: gate.max_total,
            addresses: tally.per_address.len(),
            networks: tally.per_network.len(),
            refused_total: gate.refused_total.load(Ordering::Relaxed),
            deadline_closed_total: gate.deadline_closed_total.load(Ordering::Relaxed),
        }
    }

    /// The server's `on_connect` hook: admits the connection (its place is kept in the
    /// connection's data and freed when the connection ends) or answers 503 and closes it. A
    /// connection admitted under pressure gets a watcher that closes it with 408 if its request
    /// head has not arrived by its deadline.
    pub fn on_connect(&self, stream: &actix_web::rt::net::TcpStream, data: &mut Extensions) {
        let address = stream.peer_addr().ok().map(|peer| peer.ip());
        match self.admit(address, Instant::now()) {
            Some(admitted) => {
                if let Some(deadline) = admitted.deadline {
                    self.watch_head(stream, deadline, Arc::clone(&admitted.first_request));
                }
                data.insert(admitted);
            }
            None => refuse(stream),
        }
    }

    /// Closes `stream` with 408 at `deadline` unless its first request head has arrived (or the
    /// connection ended) by then. The watcher holds a duplicate of the socket's descriptor, so it
    /// takes a place of its own in the total until it ends.
    fn watch_head(&self, stream: &actix_web::rt::net::TcpStream, deadline: Instant, first_request: Arc<FirstRequest>) {
        let gate = Arc::clone(&self.inner);
        {
            let mut tally = lock(&gate.tally);
            if tally.open >= gate.max_total {
                // No descriptor to spare for the watcher: actix's own head deadline applies.
                return;
            }
            tally.open += 1;
        }
        let descriptor = match rustix::io::dup(stream) {
            Ok(descriptor) => descriptor,
            Err(error) => {
                tracing::debug!(%error, "no descriptor for a request deadline");
                gate.release(None, 1);
                return;
            }
        };
        actix_web::rt::spawn(async move {
            let wait = tokio::time::sleep_until(deadline.into());
            tokio::select! {
                () = wait => {}
                () = first_request.settled.notified() => {}
            }
            if !first_request.head_arrived.load(Ordering::Acquire) && Instant::now() >= deadline {
                gate.deadline_closed_total.fetch_add(1, Ordering::Relaxed);
                let _ = rustix::net::send(&descriptor, HEAD_TIMEOUT.as_bytes(), rustix::net::SendFlags::NOSIGNAL);
                let _ = rustix::net::shutdown(&descriptor, rustix::net::Shutdown::Both);
            }
            drop(descriptor);
            gate.release(None, 1);
        });
    }
}

impl Gate {
    fn origin_of(&self, address: IpAddr) -> Origin {
        let address = address_group(address, self.ipv6_prefix);
        let network = match address {
            IpAddr::V4(v4) => IpAddr::V4((u32::from(v4) & (u32::MAX << (32 - IPV4_NETWORK_PREFIX))).into()),
            IpAddr::V6(_) => address_group(address, self.ipv6_prefix.min(IPV6_NETWORK_PREFIX)),
        };
        Origin { address, network }
    }

    fn refuse<T>(&self) -> Option<T> {
        self.refused_total.fetch_add(1, Ordering::Relaxed);
        None
    }

    /// Frees `places` of the total, and one of `origin`'s when it has one.
    fn release(&self, origin: Option<Origin>, places: usize) {
        let mut tally = lock(&self.tally);
        tally.open = tally.open.saturating_sub(places);
        if let Some(origin) = origin {
            decrement(&mut tally.per_address, origin.address);
            decrement(&mut tally.per_network, origin.network);
        }
    }
}

/// Under pressure, what a holder may hold: a share of the `free` places among the `holders` and
/// one newcomer, and at least one (a newcomer always gets in while the budget has room). Each
/// holder stops adding once it holds its share of what is left, so the crowd together stops
/// about halfway through the free places, however many addresses it has, and a connection that
/// ends (each has a short deadline under pressure) is taken again only within the new share.
fn fair_share(free: usize, holders: usize) -> usize {
    (free / (holders + 1)).max(1)
}

fn decrement(counts: &mut HashMap<IpAddr, usize>, key: IpAddr) {
    if let Some(count) = counts.get_mut(&key) {
        *count -= 1;
        if *count == 0 {
            counts.remove(&key);
        }
    }
}

/// The answer to a connection past the caps, written straight to the socket, which is then shut:
/// the connection holds no buffer and no descriptor longer than it takes to say so.
const REFUSAL: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: 76\r\n\r\n{\"code\":\"too_many_connections\",\"message\":\"Too many connections; try again.\"}";

/// The answer to a connection whose request head did not arrive by its pressured deadline.
static HEAD_TIMEOUT: LazyLock<String> = LazyLock::new(|| {
    let body = serde_json::to_string(&ApiError::new(ErrorCode::BodyTimeout, "The request did not arrive in time.").body()).unwrap_or_default();
    format!("HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}", body.len())
});

fn refuse(stream: &actix_web::rt::net::TcpStream) {
    // Written with the system call itself: the runtime has not polled this socket yet, so its
    // own non-blocking write would not try. A fresh socket's send buffer takes these few bytes
    // at once; if not, the close still says enough.
    let _ = rustix::net::send(stream, REFUSAL, rustix::net::SendFlags::NOSIGNAL);
    let _ = rustix::net::shutdown(stream, rustix::net::Shutdown::Both);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("an address")
    }

    #[test]
    fn the_gate_caps_the_total_and_each_address_and_frees_places() {
        let gate = ConnectionGate::new(4, Some(2));
        let now = Instant::now();
        let (a, b) = (ip("192.0.2.1"), ip("198.51.100.2"));
        let first = gate.admit(Some(a), now).expect("first from a");
        let second = gate.admit(Some(a), now).expect("second from a");
        assert!(gate.admit(Some(a), now).is_none(), "a third from one address is refused");
        let third = gate.admit(Some(b), now).expect("another address still gets in");
        assert!(gate.admit(Some(b), now).is_none(), "under pressure b's fair share is one place");
        let fourth = gate.admit(Some(ip("203.0.113.3")), now).expect("up to the total");
        assert!(gate.admit(Some(ip("203.0.113.4")), now).is_none(), "the total is full");
        assert_eq!(gate.stats().open, 4);
        assert_eq!((gate.stats().addresses, gate.stats().networks, gate.stats().refused_total), (3, 3, 3));
        drop((first, second));
        assert_eq!(gate.stats().addresses, 2, "an address leaves with its last connection");
        assert!(gate.admit(Some(a), now).is_some(), "a freed place is taken again");
        drop((third, fourth));
        assert_eq!(gate.stats().open, 0);
    }

    #[test]
    fn a_network_is_capped_like_a_few_addresses() {
        let gate = ConnectionGate::new(100_000, Some(2));
        let now = Instant::now();
        let held: Vec<_> = (1..=4).flat_map(|host| [0, 1].map(|_| gate.admit(Some(ip(&format!("192.0.2.{host}"))), now))).collect();
        assert!(held.iter().all(Option::is_some), "four addresses of one /24, two each");
        assert!(gate.admit(Some(ip("192.0.2.5")), now).is_none(), "the /24 holds four addresses' worth");
        assert!(gate.admit(Some(ip("192.0.3.5")), now).is_some(), "the next /24 is another network");
        let v6: Vec<_> = (0..8).map(|host| gate.admit(Some(ip(&format!("2001:db8:7:{host}::1"))), now)).collect();
        assert!(v6.iter().all(Option::is_some));
        assert!(gate.admit(Some(ip("2001:db8:7:99::1")), now).is_none(), "one /48 is one network");
        assert!(gate.admit(Some(ip("2001:db8:8::1")), now).is_some());
    }

    #[test]
    fn an_ipv6_host_is_one_address_by_its_prefix_and_a_mapped_ipv4_is_its_ipv4() {
        let gate = ConnectionGate::new(100_000, Some(2));
        let now = Instant::now();
        let held = [gate.admit(Some(ip("2001:db8:1:2::1")), now), gate.admit(Some(ip("2001:db8:1:2:ffff::9")), now)];
        assert!(held.iter().all(Option::is_some));
        assert!(gate.admit(Some(ip("2001:db8:1:2:abcd::7")), now).is_none(), "one /64 is one client");
        let mapped = [gate.admit(Some(ip("192.0.2.9")), now), gate.admit(Some(ip("::ffff:192.0.2.9")), now)];
        assert!(mapped.iter().all(Option::is_some));
        assert!(gate.admit(Some(ip("::ffff:192.0.2.9")), now).is_none(), "the mapped address is the same client");
        let whole = ConnectionGate::with_ipv6_prefix(100_000, Some(1), 128);
        let _first = whole.admit(Some(ip("2001:db8:1:2::1")), now).expect("admitted");
        assert!(whole.admit(Some(ip("2001:db8:1:2::2")), now).is_some(), "with a /128 prefix each address counts alone");
    }

    #[test]
    fn under_pressure_many_addresses_still_leave_room_for_a_newcomer() {
        let gate = ConnectionGate::new(1_000, Some(256));
        let now = Instant::now();
        let mut held = Vec::new();
        // 500 attackers in 50 networks, each trying to hold 256 connections.
        for attacker in 0..500u32 {
            let address = ip(&format!("10.{}.{}.{}", attacker / 10 / 256, (attacker / 10) % 256, 1 + attacker % 10));
            for _ in 0..256 {
                match gate.admit(Some(address), now) {
                    Some(admitted) => held.push(admitted),
                    None => break,
                }
            }
        }
        let anonymous_budget = 1_000 - 1_000 / 8;
        assert!(held.len() < anonymous_budget, "the attackers hold less than the budget: {}", held.len());
        let newcomer = gate.admit(Some(ip("192.0.2.200")), now).expect("a newcomer gets in");
        assert!(!newcomer.in_reserve, "and not into the reserve");
        assert!(newcomer.deadline.is_some_and(|deadline| deadline <= now + PRESSURED_REQUEST_DEADLINE), "under pressure it has a short deadline");
        drop(held);
        let calm = gate.admit(Some(ip("192.0.2.201")), now).expect("admitted");
        assert_eq!(calm.deadline, None, "without pressure the normal deadlines apply");
    }

    #[test]
    fn the_last_places_are_the_signed_in_reserve() {
        let gate = ConnectionGate::new(16, None);
        let now = Instant::now();
        let held: Vec<_> = (0..14).map(|_| gate.admit(None, now).expect("admitted")).collect();
        assert!(held.iter().all(|admitted| !admitted.in_reserve));
        let reserved: Vec<_> = (0..2).map(|_| gate.admit(None, now).expect("admitted into the reserve")).collect();
        assert!(reserved.iter().all(|admitted| admitted.in_reserve));
        assert!(gate.admit(None, now).is_none());
    }

    #[test]
    fn behind_a_proxy_only_the_total_counts() {
        let gate = ConnectionGate::new(3, None);
        let proxy: IpAddr = "10.0.0.1".parse().expect("ip");
        let held: Vec<_> = (0..3).map(|_| gate.admit(Some(proxy), Instant::now()).expect("admitted")).collect();
        assert!(gate.admit(Some(proxy), Instant::now()).is_none());
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
        assert_eq!(default_max_connections(Some(1_024)), 512, "no more than the accept loops take");
        assert_eq!(accept_limit_per_worker(Some(20_000), 2), 9_488);
        assert_eq!(accept_limit_per_worker(Some(1_024), 2), 256, "a small limit keeps half for the rest");
        assert!(default_max_connections(Some(20_000)) < 2 * accept_limit_per_worker(Some(20_000), 2));
    }
}
