// Names that are not zones: single labels (top-level domains), public suffixes (the Public Suffix
// List, ICANN and private sections, through tldts) and special-use names that are never delegated
// in the public DNS. Names below a public suffix belong to different registrants, so a zone at a
// public suffix would let one account answer for all of them. docs/api/dns.md#who-owns-a-name
import { parse } from 'tldts';

/**
 * Special-use names (IANA's Special-Use Domain Names registry, RFC 6761, RFC 6303's locally served
 * zones and their successors): each is refused with every name below it. `test` and `example`
 * (and example.com/net/org) are not here: RFC 6761 §6.2 and §6.5 tell authoritative servers to treat
 * them as ordinary names, and labs and test suites host zones below them.
 */
const specialUse: readonly string[] = [
  'localhost', 'invalid', // RFC 6761
  'local', // RFC 6762 (multicast DNS)
  'onion', // RFC 7686
  'alt', // RFC 9476
  'internal', // reserved by ICANN for private use (2024)
  'home.arpa', // RFC 8375
  'resolver.arpa', // RFC 9462
  'service.arpa', // RFC 9665
  'ipv4only.arpa', '170.0.0.192.in-addr.arpa', '171.0.0.192.in-addr.arpa', // RFC 8880
  '6tisch.arpa', // RFC 9031
  'eap-noob.arpa', // RFC 9140
  // RFC 6303 §4.1-4.4: this network, private, loopback, link-local, documentation, broadcast.
  '0.in-addr.arpa', '10.in-addr.arpa', '127.in-addr.arpa', '254.169.in-addr.arpa', '168.192.in-addr.arpa',
  ...Array.from({ length: 16 }, (_, i) => `${16 + i}.172.in-addr.arpa`),
  '2.0.192.in-addr.arpa', '100.51.198.in-addr.arpa', '113.0.203.in-addr.arpa', '255.255.255.255.in-addr.arpa',
  // RFC 7793: shared address space 100.64.0.0/10.
  ...Array.from({ length: 64 }, (_, i) => `${64 + i}.100.in-addr.arpa`),
  // RFC 6303 §4.5-4.8: IPv6 unspecified and loopback, unique local (fd00::/8), link-local, documentation.
  `${'0.'.repeat(32)}ip6.arpa`, `1.${'0.'.repeat(31)}ip6.arpa`,
  'd.f.ip6.arpa', '8.e.f.ip6.arpa', '9.e.f.ip6.arpa', 'a.e.f.ip6.arpa', 'b.e.f.ip6.arpa', '8.b.d.0.1.0.0.2.ip6.arpa',
];

/** The special-use name `name` is or lies below, if any. */
export function specialUseName(name: string): string | undefined {
  return specialUse.find((special) => name === special || name.endsWith(`.${special}`));
}

/** The public suffix `name` is exactly, with its section of the list; undefined when it is not one. */
function publicSuffix(name: string): 'ICANN' | 'private' | undefined {
  // Both sections: a multi-tenant DNS host must not let one account hold github.io or co.uk.
  const parsed = parse(name, { allowPrivateDomains: true, extractHostname: false, validateHostname: false, detectIp: false });
  if (parsed.publicSuffix !== name) return undefined;
  return parsed.isPrivate === true ? 'private' : 'ICANN';
}

/**
 * Why a canonical name cannot be a zone, or undefined when it can. Unknown top-level domains count
 * as public suffixes (the list's implicit `*` rule), so `b.example` may be a zone and `example` not.
 */
export function reservedNameProblem(name: string): string | undefined {
  const special = specialUseName(name);
  if (special !== undefined) return `"${name}" is ${special === name ? '' : `below "${special}", `}a special-use name never delegated in the public DNS`;
  if (!name.includes('.')) return `"${name}" is a single label (a top-level domain): not a zone hosted here`;
  const suffix = publicSuffix(name);
  if (suffix !== undefined) return `"${name}" is a public suffix (Public Suffix List, ${suffix} section): names below it belong to different registrants`;
  return undefined;
}

/**
 * True when a zone at `name` owns the names below it. A zone at a reserved name (one the operator
 * allowed, EDGEPLANE_ZONE_ALLOW_RESERVED, or one created before these rules) owns nothing below it:
 * like the registry of a public suffix, other accounts may hold zones and hosts under it.
 */
export function ownsNamesBelow(name: string): boolean {
  return reservedNameProblem(name) === undefined;
}
