// The rules of an RRset that look beyond itself, checked inside the write transaction: CNAME alone
// at its name and never at the apex, DS only at delegation points, no wildcard NS.
import { conflict, invalid } from '../errors.ts';
import type { ZoneRow } from '../store/zones.ts';
import type { RecordType } from './rrtypes/record-type.ts';

export interface Target {
  zone: Pick<ZoneRow, 'name'>;
  name: string;
  type: RecordType;
}

/** `typesHere`: the types of the RRsets at the target's name, read in the write transaction. */
export function checkNeighbours(t: Target, typesHere: string[]): void {
  const others = typesHere.filter((type) => type !== t.type.type);
  const apex = t.name === t.zone.name;
  if (t.type.type === 'CNAME') {
    if (apex) throw invalid('a CNAME is not allowed at the zone apex', { name: 'CNAME at the apex' });
    if (others.length > 0) throw conflict(`a CNAME cannot share its name with other records (${others.join(', ')} exist at ${t.name})`);
  } else if (others.includes('CNAME')) {
    throw conflict(`${t.name} holds a CNAME, which cannot share its name with other records`);
  }
  if (t.type.type === 'DS' && (apex || !others.includes('NS'))) {
    throw invalid('DS records belong at delegation points: a name below the apex with an NS RRset', { name: 'not a delegation point' });
  }
  if (t.type.type === 'NS' && t.name.startsWith('*.')) throw invalid('NS records cannot have a wildcard owner', { name: 'wildcard NS' });
}

