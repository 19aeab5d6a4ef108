// Network mappings as the DNS API carries them (docs/api/dns.md#network-mappings): an account's
// named lists of entries, each a set of tags with the IPv4 and IPv6 networks they name.
import { segment } from '../api.ts';

export interface MappingEntry {
  tags: string[];
  cidr4: string[];
  cidr6: string[];
}

export interface NetworkMapping {
  id: number;
  name: string;
  mapping: MappingEntry[];
}

export interface NetworkMappingList {
  network_mappings: NetworkMapping[];
  total_amount: number;
}

export const mappingsPath = '/dns/v2/network-mappings';

/** The API path of one mapping. */
export function mappingPath(id: number | string): string {
  return `${mappingsPath}/${segment(id)}`;
}

/** The console route of one mapping's editor. */
export function mappingRoute(id: number | string): string {
  return `/network-mappings/${segment(id)}`;
}

/** How many networks a mapping names, IPv4 and IPv6 together. */
export function networkCount(mapping: NetworkMapping): number {
  return mapping.mapping.reduce((n, e) => n + e.cidr4.length + e.cidr6.length, 0);
}
