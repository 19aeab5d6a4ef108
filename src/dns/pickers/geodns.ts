// geodns (filter): the records matching the requester, trying ip, asn, country and continent in
// turn, then those marked fallback or default; with no match, strict gives none and otherwise all.
import type { ServedRecord } from '../server/served-rrset.ts';
import { criteria } from './criteria.ts';
import type { Requester } from './requester.ts';
import type { Picker } from './validate.ts';

const order = [criteria.ip, criteria.asn, criteria.country, criteria.continent];

export function geodns(records: ServedRecord[], requester: Requester, picker: Picker): ServedRecord[] {
  for (const matches of order) {
    const kept = records.filter((r) => matches(r.match, requester));
    if (kept.length > 0) return kept;
  }
  const fallback = records.filter((r) => r.match.isFallback || r.match.isDefault);
  if (fallback.length > 0) return fallback;
  return picker.strict ? [] : records;
}
