// Address ranges written as text: `192.0.2.1`, `10.0.0.0/8`, `2001:db8::/32`.
import ipaddr from 'ipaddr.js';

export type Network = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Throws (ipaddr.js's error) on what is neither an address nor a CIDR. */
export function parseNetwork(text: string): Network {
  if (text.includes('/')) return ipaddr.parseCIDR(text);
  const address = ipaddr.parse(text);
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

/** Whether the address (IPv4-mapped IPv6 counts as IPv4) is in one of the networks. */
export function inAnyNetwork(address: ipaddr.IPv4 | ipaddr.IPv6, networks: readonly Network[]): boolean {
  return networks.some(([network, prefix]) => network.kind() === address.kind() && address.match(network, prefix));
}
