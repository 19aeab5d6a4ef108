// The key a client's requests are counted under for per-client budgets (login throttling). An IPv4
// address is one client; an IPv6 client is its /64 network, because one subscriber is routinely given
// a whole /64 (RFC 6177) and can use any of its 2^64 addresses: keyed by full address, each new
// address would bring a fresh budget. IPv4-mapped IPv6 (a dual-stack listener's IPv4 clients) counts
// as the IPv4 address.
import ipaddr from 'ipaddr.js';

/** The IPv6 prefix length clients are keyed by. */
export const ipv6ClientPrefix = 64;

/** `192.0.2.1` → `192.0.2.1`; `2001:db8:1:2::5` → `2001:db8:1:2::/64`; anything unparsable as is. */
export function clientKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  // The first 64 bits, the rest zero; a zone index (fe80::1%eth0) is dropped with the interface bits.
  const bytes = parsed.toByteArray().map((byte, i) => (i < ipv6ClientPrefix / 8 ? byte : 0));
  return `${ipaddr.fromByteArray(bytes).toString()}/${String(ipv6ClientPrefix)}`;
}
