// What GET /dns/v2/pickers and /dns/v2/pickers/presets list, in the provider's shape
// ({label, name}): every picker type the chain runs (validate.ts) with a label for people, and the
// preset chains a console offers as starting points. Both are derived from `pickerTypes`, so a
// picker added there must be labelled here (the Record type says so) and is listed at once.
import { pickerTypes, type PickerType } from './validate.ts';

export interface LabelName {
  label: string;
  name: PickerType;
}

const labels: Record<PickerType, string> = {
  geodns: 'GeoDNS',
  asn: 'ASN',
  country: 'Country',
  continent: 'Continent',
  region: 'Region',
  ip: 'IP',
  default: 'Default',
  geodistance: 'Geo distance',
  weighted_shuffle: 'Weighted shuffle',
  first_n: 'First N',
  healthcheck: 'Health check',
  is_healthy: 'Healthy (health check)',
};

/**
 * Preset chains by name. The provider's console ends every preset with First N (its default limit
 * of 1 record an answer), so these do too; health checks come first so that a down record is never
 * the one picked.
 */
const presets: Record<string, readonly PickerType[]> = {
  geodns: ['geodns', 'first_n'],
  geodistance: ['geodistance', 'first_n'],
  weighted: ['weighted_shuffle', 'first_n'],
  geo_selectors: ['ip', 'asn', 'country', 'region', 'continent', 'default', 'first_n'],
  failover: ['healthcheck', 'weighted_shuffle', 'first_n'],
  geodns_failover: ['healthcheck', 'geodns', 'first_n'],
};

const labelled = (name: PickerType): LabelName => ({ label: labels[name], name });

export function pickerList(): LabelName[] {
  return pickerTypes.map(labelled);
}

export function pickerPresets(): Record<string, LabelName[]> {
  return Object.fromEntries(Object.entries(presets).map(([name, chain]) => [name, chain.map(labelled)]));
}
