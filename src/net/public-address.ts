// Which addresses the service may reach on a tenant's behalf. Webhook URLs and health-checked
// records are chosen by tenants but contacted by the server: without this policy they would let any
// tenant reach loopback and internal services (SSRF), or map them through health results.
import ipaddr from 'ipaddr.js';

/** NAT64's well-known prefix carries an IPv4 address in its last 32 bits (RFC 6052). */
const nat64 = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
/** The deprecated IPv4-compatible form (RFC 4291 §2.5.5.1): ::127.0.0.1, written ::7f00:1 by URLs. */
const ipv4Compatible = ipaddr.IPv6.parseCIDR('::/96');
/** The only block of IPv6 that IANA allocates for global unicast; ipaddr.js calls the rest unicast too. */
const globalUnicast = ipaddr.IPv6.parseCIDR('2000::/3');

/** The kind of a non-public address (loopback, private, ...), or undefined for a public one. */
export function nonPublic(address: string): string | undefined {
  // process() turns IPv4-mapped IPv6 (::ffff:127.0.0.1) into the IPv4 address it stands for.
  const parsed = ipaddr.process(address);
  if (parsed instanceof ipaddr.IPv6 && parsed.match(nat64)) {
    const [, , , , , , high = 0, low = 0] = parsed.parts;
    const embedded = new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
    const range = embedded.range();
    return range === 'unicast' ? undefined : `NAT64-embedded ${range}`;
  }
  // Everything ipaddr.js classifies beyond plain unicast is special-purpose: loopback, private,
  // uniqueLocal, linkLocal, carrierGradeNat, multicast, broadcast, reserved, 6to4, teredo...
  const range = parsed.range();
  if (range !== 'unicast') return range;
  if (parsed instanceof ipaddr.IPv6 && !parsed.match(globalUnicast)) return parsed.match(ipv4Compatible) ? 'deprecated IPv4-compatible' : 'non-global IPv6';
  return undefined;
}
