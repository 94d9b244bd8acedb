//! A TCP relay on loopback that puts a fault between the service and a real peer (maildev,
//! localstripe, a chat server): it forwards connections to the peer, or drops each one as soon
//! as it is accepted (the peer is down), or accepts and then says nothing (the peer hangs). The
//! mode can change while the service runs; it applies to connections accepted from then on.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the relay does with a new connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RelayMode {
    /// Passes the bytes both ways to the peer.
    Forward,
    /// Closes the connection at once: the peer is down.
    Drop,
    /// Keeps the connection open and silent: the peer hangs.
    Hang,
}

pub struct Relay {
    address: SocketAddr,
    mode: Arc<Mutex<RelayMode>>,
    stopped: Arc<AtomicBool>,
    /// Connections held open by [`RelayMode::Hang`], closed when the relay goes.
    held: Arc<Mutex<Vec<TcpStream>>>,
}

impl Relay {
    /// A relay on a free loopback port to `peer`, starting in `mode`.
    pub fn start(peer: SocketAddr, mode: RelayMode) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port for the relay");
        let address = listener.local_addr().expect("the relay's address");
        let relay =
            Relay { address, mode: Arc::new(Mutex::new(mode)), stopped: Arc::new(AtomicBool::new(false)), held: Arc::new(Mutex::new(Vec::new())) };
        let (mode, stopped, held) = (Arc::clone(&relay.mode), Arc::clone(&relay.stopped), Arc::clone(&relay.held));
        std::thread::spawn(move || {
            for incoming in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(client) = incoming else { continue };
                let current = *engine::sync::lock(&mode);
                match current {
                    RelayMode::Forward => forward(client, peer),
                    RelayMode::Drop => drop(client.shutdown(Shutdown::Both)),
                    RelayMode::Hang => engine::sync::lock(&held).push(client),
                }
            }
        });
        relay
    }

    pub fn address(&self) -> SocketAddr {
        self.address
    }

    pub fn port(&self) -> u16 {
        self.address.port()
    }

    /// From now on, new connections get `mode`; connections already held by a hang are closed.
    pub fn set(&self, mode: RelayMode) {
        *engine::sync::lock(&self.mode) = mode;
        if mode != RelayMode::Hang {
            self.release_held();
        }
    }

    fn release_held(&self) {
        for stream in engine::sync::lock(&self.held).drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.stopped.store(true, Ordering::SeqCst);
        self.release_held();
        // Wakes the accepting thread so it sees the stop.
        let _ = TcpStream::connect_timeout(&self.address, Duration::from_millis(200));
    }
}

/// Copies bytes both ways between `client` and a new connection to `peer`, each way on a
/// thread of its own, until either side closes.
fn forward(client: TcpStream, peer: SocketAddr) {
    let Ok(upstream) = TcpStream::connect(peer) else {
        let _ = client.shutdown(Shutdown::Both);
        return;
    };
    let (Ok(client_reader), Ok(upstream_reader)) = (client.try_clone(), upstream.try_clone()) else {
        return;
    };
    std::thread::spawn(move || pipe(client_reader, upstream));
    std::thread::spawn(move || pipe(upstream_reader, client));
}

fn pipe(mut from: TcpStream, mut to: TcpStream) {
    let mut buffer = [0u8; 16 * 1024];
    loop {
        match from.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(read) => {
                if to.write_all(&buffer[..read]).is_err() {
                    break;
                }
            }
        }
    }
    let _ = to.shutdown(Shutdown::Both);
    let _ = from.shutdown(Shutdown::Both);
}
