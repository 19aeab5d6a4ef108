// Who a DNS answer is tailored for: the EDNS Client Subnet address when the query carries one,
// otherwise the resolver's source address. Geo data is looked up once, and only if a picker asks.
import ipaddr from 'ipaddr.js';
import type { GeoInfo, GeoLookup } from '../../geo/geoip.ts';

export interface Requester {
  /** The address as ipaddr parsed it (IPv4-mapped IPv6 already unwrapped). */
  address: ipaddr.IPv4 | ipaddr.IPv6 | undefined;
  geo(): GeoInfo;
}

const unknown: GeoInfo = { country: undefined, continent: undefined, asn: undefined, location: undefined };

function parse(text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (!ipaddr.isValid(text)) return undefined;
  const address = ipaddr.parse(text);
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
}

/** ECS address octets (source prefix rounded up) padded to a full address. */
export function subnetAddress(family: 1 | 2, octets: Buffer): string {
  const full = Buffer.alloc(family === 1 ? 4 : 16);
  octets.copy(full, 0, 0, full.length);
  return ipaddr.fromByteArray([...full]).toString();
}

export function requester(text: string, geo: GeoLookup | undefined): Requester {
  const address = parse(text);
  let info: GeoInfo | undefined;
  return {
    address,
    geo: () => (info ??= address === undefined || geo === undefined ? unknown : geo.lookup(address.toString())),
  };
}
