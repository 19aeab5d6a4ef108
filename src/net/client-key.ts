// What a client is for per-client budgets (login throttling, DNS-over-TCP connection caps): an IPv4
// address is one client; an IPv6 client is its /64 network, because one subscriber is routinely given
// a whole /64 (RFC 6177) and can use any of its 2^64 addresses: keyed by full address, each new
// address would bring a fresh budget. IPv4-mapped IPv6 (a dual-stack listener's IPv4 clients) counts
// as the IPv4 address.
import ipaddr from 'ipaddr.js';

/** The IPv6 prefix length clients are keyed by. */
export const ipv6ClientPrefix = 64;

/**
 * The octets that name the client: the 4 of an IPv4 address, the first 8 of an IPv6 one (a zone
 * index such as fe80::1%eth0 goes with the interface bits); none for what is not an address.
 */
export function clientOctets(address: string): number[] {
  if (!ipaddr.isValid(address)) return [];
  const bytes = ipaddr.process(address).toByteArray();
  return bytes.length === 4 ? bytes : bytes.slice(0, ipv6ClientPrefix / 8);
}

/** `192.0.2.1` → `192.0.2.1`; `2001:db8:1:2::5` → `2001:db8:1:2::/64`; anything unparsable as is. */
export function clientKey(address: string): string {
  const octets = clientOctets(address);
  if (octets.length === 0) return address;
  if (octets.length === 4) return octets.join('.');
  // The prefix, the rest zero.
  return `${ipaddr.fromByteArray([...octets, ...new Array<number>(16 - octets.length).fill(0)]).toString()}/${String(ipv6ClientPrefix)}`;
}
