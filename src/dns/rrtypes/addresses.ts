// IP addresses in content (A, AAAA, SVCB hints). Node's own parsers rather than ipaddr.js, which reads
// "::1.2.3.4" as "::ffff:1.2.3.4" (a different address).
import { isIPv4, isIPv6 } from 'node:net';
import { ipv4 as ipv4Family, notAddress, parseAddress } from '../../geo/address.ts';
import { describe } from './fields.ts';
import { ContentError } from './record-type.ts';

/** Dotted quad without leading zeros ("010.1.1.1" is octal to some parsers, decimal to others). */
export function ipv4(value: unknown, label: string): string {
  if (typeof value === 'string' && isIPv4(value)) return value;
  throw new ContentError(`${label} must be an IPv4 address in dotted-quad form, got ${describe(value)}`);
}

/** RFC 5952 form, which is how the WHATWG URL parser serialises an IPv6 host. Zone ids mean nothing in DNS. */
export function ipv6(value: unknown, label: string): string {
  const host = typeof value === 'string' && isIPv6(value) && !value.includes('%') ? URL.parse(`http://[${value}]/`)?.hostname : undefined;
  if (host === undefined) throw new ContentError(`${label} must be an IPv6 address, got ${describe(value)}`);
  return dottedMapped(host.slice(1, -1));
}

/** RFC 5952 §5: an IPv4-mapped address keeps its IPv4 part in dotted form (::ffff:192.0.2.1). */
function dottedMapped(address: string): string {
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(address);
  if (!mapped) return address;
  const high = parseInt(mapped[1] ?? '0', 16);
  const low = parseInt(mapped[2] ?? '0', 16);
  return `::ffff:${[high >> 8, high & 255, low >> 8, low & 255].join('.')}`;
}

/** Scratch words for the parser below (one parse at a time: JS is single-threaded). */
const words = new Uint32Array(4);

/**
 * A dotted quad (as ipv4() returned it) → its 4 octets, through the GeoIP lookups' parser, which
 * allocates nothing (a zone load encodes every A record; splitting into strings and numbers cost
 * twice the load's reading of them).
 */
export function ipv4Octets(address: string): Buffer {
  // An IPv4-mapped IPv6 address comes back from the parser as IPv4 too: not a dotted quad.
  if (address.includes(':') || parseAddress(address, words) !== ipv4Family) throw new Error(`not a dotted quad: ${address}`);
  const octets = Buffer.allocUnsafe(4);
  octets.writeUInt32BE(words[0] ?? 0, 0);
  return octets;
}

/**
 * An IPv6 address (as ipv6() returned it) → its 16 octets, through the same parser (a zone load
 * encodes every AAAA record). It gives an IPv4-mapped address (::ffff:192.0.2.1) back as the IPv4
 * address it carries: the octets are the same either way.
 */
export function ipv6Octets(address: string): Buffer {
  const family = address.includes(':') ? parseAddress(address, words) : notAddress;
  if (family === notAddress) throw new Error(`not an IPv6 address: ${address}`);
  const octets = Buffer.allocUnsafe(16);
  if (family === ipv4Family) {
    octets.writeUInt32BE(0, 0);
    octets.writeUInt32BE(0, 4);
    octets.writeUInt32BE(0xffff, 8);
    octets.writeUInt32BE(words[0] ?? 0, 12);
  } else {
    for (let k = 0; k < 4; k++) octets.writeUInt32BE(words[k] ?? 0, k * 4);
  }
  return octets;
}
