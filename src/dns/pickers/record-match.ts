// Record meta compiled once, when a zone is loaded, into what the pickers test per query: sets of
// upper-cased codes, parsed CIDRs, numbers.
import ipaddr from 'ipaddr.js';

export interface RecordMatch {
  asns: Set<number>;
  countries: Set<string>;
  continents: Set<string>;
  regions: Set<string>;
  networks: [ipaddr.IPv4 | ipaddr.IPv6, number][];
  latlong: [number, number] | undefined;
  weight: number;
  isDefault: boolean;
  isFallback: boolean;
  isBackup: boolean;
}

const defaultWeight = 50;

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]);
const upper = (value: unknown): string[] => list(value).filter((v): v is string => typeof v === 'string').map((v) => v.toUpperCase());

function network(value: unknown): [ipaddr.IPv4 | ipaddr.IPv6, number] | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    if (value.includes('/')) return ipaddr.parseCIDR(value);
    const address = ipaddr.parse(value);
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  } catch {
    return undefined;
  }
}

export function compileMeta(meta: Record<string, unknown>): RecordMatch {
  const latlong = meta['latlong'];
  const weight = meta['weight'];
  return {
    asns: new Set(list(meta['asn']).map(Number).filter(Number.isInteger)),
    countries: new Set(upper(meta['countries'])),
    continents: new Set(upper(meta['continents'])),
    regions: new Set(upper(meta['regions'])),
    networks: list(meta['ip']).map(network).filter((n) => n !== undefined),
    latlong: Array.isArray(latlong) && typeof latlong[0] === 'number' && typeof latlong[1] === 'number' ? [latlong[0], latlong[1]] : undefined,
    weight: typeof weight === 'number' && weight >= 0 ? weight : defaultWeight,
    isDefault: meta['default'] === true,
    isFallback: meta['fallback'] === true,
    isBackup: meta['backup'] === true,
  };
}

export function inNetworks(match: RecordMatch, address: ipaddr.IPv4 | ipaddr.IPv6 | undefined): boolean {
  if (address === undefined) return false;
  return match.networks.some(([net, prefix]) => net.kind() === address.kind() && address.match(net, prefix));
}
