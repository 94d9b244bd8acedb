//! Client address groups: what the connection gate and the rate limits count a client by.

use std::net::{IpAddr, Ipv6Addr};

/// The group an address is counted in: an IPv4 address alone (also when written IPv4-mapped in
/// IPv6, `::ffff:a.b.c.d`), an IPv6 address by its first `ipv6_prefix` bits (one host usually
/// holds a whole /64).
pub fn address_group(address: IpAddr, ipv6_prefix: u8) -> IpAddr {
    match address {
        IpAddr::V4(_) => address,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & prefix_mask(ipv6_prefix))),
        },
    }
}

/// The mask of the first `prefix` bits of 128 (0 to 128).
fn prefix_mask(prefix: u8) -> u128 {
    match u32::from(prefix.min(128)) {
        0 => 0,
        bits => u128::MAX << (128 - bits),
    }
}
