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
  const quad = dottedQuad(address, address.startsWith('::ffff:') ? 7 : 0);
  if (quad !== undefined) return quad;
  if (!ipaddr.isValid(address)) return [];
  const bytes = ipaddr.process(address).toByteArray();
  return bytes.length === 4 ? bytes : bytes.slice(0, ipv6ClientPrefix / 8);
}

/**
 * The octets of an IPv4 address written as a socket gives it, four decimal numbers 0–255 without
 * leading zeros, from `from` on; undefined for anything else (ipaddr.js then decides). Every accepted
 * connection's address goes through here (connection-admission.ts): ipaddr.js's regexes, arrays and
 * slices were a sixth of what the proxy allocated under a flood of new connections (bench/proxy).
 */
function dottedQuad(address: string, from: number): number[] | undefined {
  const octets: number[] = [];
  let value = 0;
  let digits = 0;
  for (let i = from; i <= address.length; i++) {
    const c = i === address.length ? 0x2e : address.charCodeAt(i);
    if (c === 0x2e) {
      if (digits === 0 || octets.length === 4) return undefined;
      octets.push(value);
      value = 0;
      digits = 0;
    } else if (c >= 0x30 && c <= 0x39) {
      // A leading zero ("010"): ipaddr.js reads octal there.
      if (digits > 0 && value === 0) return undefined;
      value = value * 10 + (c - 0x30);
      if (++digits > 3 || value > 255) return undefined;
    } else return undefined;
  }
  return octets.length === 4 ? octets : undefined;
}

/** `192.0.2.1` → `192.0.2.1`; `2001:db8:1:2::5` → `2001:db8:1:2::/64`; anything unparsable as is. */
export function clientKey(address: string): string {
  const octets = clientOctets(address);
  if (octets.length === 0) return address;
  if (octets.length === 4) return octets.join('.');
  // The prefix, the rest zero.
  return `${ipaddr.fromByteArray([...octets, ...new Array<number>(16 - octets.length).fill(0)]).toString()}/${String(ipv6ClientPrefix)}`;
}
