// The record types the API accepts as RRsets. SOA is absent: it is managed through the zone's fields.
import { a } from './a.ts';
import { aaaa } from './aaaa.ts';
import { caa } from './caa.ts';
import { cname } from './cname.ts';
import { ds } from './ds.ts';
import { https } from './https.ts';
import { mx } from './mx.ts';
import { ns } from './ns.ts';
import { ptr } from './ptr.ts';
import type { RecordType } from './record-type.ts';
import { srv } from './srv.ts';
import { svcb } from './svcb.ts';
import { txt } from './txt.ts';

export const recordTypes: ReadonlyMap<string, RecordType> = new Map(
  [a, aaaa, cname, ns, ptr, mx, txt, srv, caa, https, svcb, ds].map((recordType) => [recordType.type, recordType]),
);

/** Looks a type up by its mnemonic in any case ("mx", "MX"). */
export function recordType(name: string): RecordType | undefined {
  return recordTypes.get(name.toUpperCase());
}
