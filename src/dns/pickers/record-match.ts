// Record meta compiled once, when a zone is loaded, into what the pickers test per query: sets of
// upper-cased codes, parsed CIDRs, numbers.
import type ipaddr from 'ipaddr.js';
import { inAnyNetwork, parseNetwork, type Network } from '../../net/networks.ts';

export interface RecordMatch {
  asns: Set<number>;
  countries: Set<string>;
  continents: Set<string>;
  regions: Set<string>;
  networks: Network[];
  latlong: [number, number] | undefined;
  weight: number;
  isDefault: boolean;
  isFallback: boolean;
  isBackup: boolean;
}

const defaultWeight = 50;

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]);
const upper = (value: unknown): string[] => list(value).filter((v): v is string => typeof v === 'string').map((v) => v.toUpperCase());

function network(value: unknown): Network | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    return parseNetwork(value);
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
  return address !== undefined && inAnyNetwork(address, match.networks);
}
