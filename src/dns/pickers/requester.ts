// Who a DNS answer is tailored for: the EDNS Client Subnet address when the query carries one,
// otherwise the resolver's source address. Geo data is looked up once, and only if a picker asks.
import ipaddr from 'ipaddr.js';
import { unknownGeo, type GeoInfo } from '../../geo/geo-info.ts';
import type { GeoLookup } from '../../geo/geoip.ts';

export interface Requester {
  /** The address as ipaddr parsed it (IPv4-mapped IPv6 already unwrapped). */
  address: ipaddr.IPv4 | ipaddr.IPv6 | undefined;
  geo(): GeoInfo;
}

function parse(text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (!ipaddr.isValid(text)) return undefined;
  const address = ipaddr.parse(text);
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
}

const octet = (octets: Buffer, i: number) => octets[i] ?? 0;

/** ECS address octets (source prefix rounded up) padded to a full address, as text (IPv6 uncompressed). */
export function subnetAddress(family: 1 | 2, octets: Buffer): string {
  if (family === 1) return `${String(octet(octets, 0))}.${String(octet(octets, 1))}.${String(octet(octets, 2))}.${String(octet(octets, 3))}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((octet(octets, i) << 8) | octet(octets, i + 1)).toString(16));
  return groups.join(':');
}

/** Both the parsed address and the geo data are worked out only if a picker asks for them. */
class LazyRequester implements Requester {
  readonly #text: string;
  readonly #lookup: GeoLookup | undefined;
  #address: ipaddr.IPv4 | ipaddr.IPv6 | undefined | null = null;
  #info: GeoInfo | undefined;

  constructor(text: string, lookup: GeoLookup | undefined) {
    this.#text = text;
    this.#lookup = lookup;
  }

  get address(): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
    if (this.#address === null) this.#address = parse(this.#text);
    return this.#address;
  }

  geo(): GeoInfo {
    this.#info ??= this.#lookup === undefined ? unknownGeo : this.#lookup.lookup(this.#text);
    return this.#info;
  }
}

export function requester(text: string, geo: GeoLookup | undefined): Requester {
  return new LazyRequester(text, geo);
}
