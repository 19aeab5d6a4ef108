// The selectors asn, country, continent, region, ip and default: the records whose meta holds the
// requester's value. Undefined when none does, so the chain can pass every record on.
import type { ServedRecord } from '../server/served-rrset.ts';
import { criteria } from './criteria.ts';
import type { Requester } from './requester.ts';

export type SelectorType = keyof typeof criteria;

export function selectBy(type: SelectorType, records: ServedRecord[], requester: Requester): ServedRecord[] | undefined {
  const kept = records.filter((r) => criteria[type](r.match, requester));
  return kept.length > 0 ? kept : undefined;
}
