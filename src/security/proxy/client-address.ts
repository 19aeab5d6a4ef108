// Who the client of a request is, for every per-client decision (lists, geo, rate rules, connection
// caps) and the logs: the connection's peer (or the client a PROXY protocol header named), unless
// that peer is one of the operator's own proxies (EDGEPLANE_PROXY_TRUSTED), whose X-Forwarded-For
// then says who came before it. Only trusted hops may speak for others: walking the header from the
// right (the hop nearest to us), the client is the first address that is not a trusted proxy, as
// nginx's realip module with real_ip_recursive; whatever a client writes to the left of that is
// ignored, so it cannot pick the address it is judged by.
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { inAnyNetwork, parseNetwork, type Network } from '../../net/networks.ts';

/** Hops of X-Forwarded-For looked at, from the right: more than any real chain of proxies. */
const maxHops = 32;

export function trustedNetworks(entries: readonly string[]): Network[] {
  return entries.map(parseNetwork);
}

/** `::ffff:192.0.2.1` (a dual-stack socket's IPv4 peer, as Node writes it) → `192.0.2.1`; any other address as it is. */
export function plainAddress(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/** An IPv6 address as others may write it (upper case, uncompressed, IPv4-mapped in hex) as Node writes it, or the IPv4 address it maps. */
export function canonicalIpv6(address: string): string {
  return ipaddr.process(address).toString();
}

/**
 * The client of a request that reached us from `peer` (plain, as `plainAddress` gives it) with
 * this X-Forwarded-For (Node joins repeated header lines with commas).
 */
export function clientAddress(peer: string, forwardedFor: string | undefined, trusted: readonly Network[]): string {
  if (trusted.length === 0 || forwardedFor === undefined || !isTrusted(peer, trusted)) return peer;
  let client = peer;
  const hops = forwardedFor.split(',');
  for (let i = hops.length - 1; i >= 0 && i >= hops.length - maxHops; i--) {
    const hop = hopAddress(hops[i] ?? '');
    // Not an address: the trusted proxy to its right passed on what it was given; it is the last hop we know.
    if (hop === undefined) return client;
    client = hop;
    if (!isTrusted(hop, trusted)) return hop;
  }
  return client;
}

function isTrusted(address: string, trusted: readonly Network[]): boolean {
  return ipaddr.isValid(address) && inAnyNetwork(ipaddr.process(address), trusted);
}

/** One hop's address, plain: `192.0.2.1`, `192.0.2.1:4711`, `2001:db8::1` or `[2001:db8::1]:4711`. */
function hopAddress(text: string): string | undefined {
  let hop = text.trim();
  if (hop.startsWith('[')) hop = hop.slice(1, Math.max(1, hop.indexOf(']')));
  else if (hop.indexOf(':') === hop.lastIndexOf(':') && hop.includes('.')) hop = hop.split(':')[0] ?? '';
  const family = isIP(hop);
  // A zone index (fe80::1%eth0) names an interface of the hop that wrote it, not a client.
  if (family === 0 || hop.includes('%')) return undefined;
  return family === 4 ? hop : canonicalIpv6(hop);
}
