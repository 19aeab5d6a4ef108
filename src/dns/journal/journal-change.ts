// Journaling one committed change (commit.ts): the served records at the names a change may touch
// before it and after it, and the difference is appended to the zone journal with the SOA it leaves
// and the SOA it reaches, in the change's own transaction (store/zone-change.ts). The RRsets before
// are those commit.ts read for the change; those after are what the change wrote when it says
// (`rrsetsAfter`), read again otherwise. A change of zone fields alone (SOA values, enabling,
// DNSSEC: transfers carry no signer records) journals the SOA only. A change of names not read
// before cannot be told: the zone's journal is cleared, and secondaries behind it get full
// transfers (RFC 1995 §4 allows that answer).
import type { Db } from '../../store/database.ts';
import { rrsetsAtNames, type RrsetWithRecords } from '../../store/rrsets.ts';
import type { JournalWrite } from '../../store/zone-journal.ts';
import type { ZoneRow } from '../../store/zones.ts';
import type { WireRecord } from '../server/response.ts';
import { soaRdata } from '../server/soa-rdata.ts';
import { typeCode } from '../wire/type-codes.ts';
import { difference, encodeRecords, transferRecordsOf } from './journal-records.ts';

/** The RRsets at the names a change declared, read before it. */
export interface RrsetsBefore {
  names: ReadonlySet<string>;
  rrsets: readonly RrsetWithRecords[];
}

type SoaFields = Pick<ZoneRow, 'name' | 'primary_server' | 'contact' | 'serial' | 'refresh' | 'retry' | 'expiry' | 'nx_ttl'>;

/** The SOA as transfers write it: the zone's negative TTL (zone-view.ts) and its fields. */
const soaRecord = (zone: SoaFields): WireRecord => ({ name: zone.name, type: typeCode.soa, ttl: zone.nx_ttl, rdata: soaRdata(zone) });

export interface JournaledChange {
  /** The zone row as the change found it, and its SOA fields after it. */
  zone: ZoneRow;
  after: SoaFields;
  /** Read before the change; undefined when the change declared no names. */
  before: RrsetsBefore | undefined;
  /** The names the change reports; undefined for a change of zone fields alone. */
  changedNames: readonly string[] | undefined;
  /** Every RRset at `changedNames` after the change, when the change says; read otherwise. */
  rrsetsAfter: readonly RrsetWithRecords[] | undefined;
}

/** What the change does to the zone's journal (written with the change, store/zone-change.ts). */
export async function journalWrite(db: Db, change: JournaledChange): Promise<JournalWrite> {
  const { zone, before, changedNames } = change;
  let diff: { removed: WireRecord[]; added: WireRecord[] } = { removed: [], added: [] };
  if (changedNames !== undefined && changedNames.length > 0) {
    if (before === undefined || changedNames.some((name) => !before.names.has(name))) return { clear: true };
    // What was written covers the changed names; the other declared names are as they were.
    const changed = new Set(changedNames);
    diff =
      change.rrsetsAfter === undefined
        ? difference(transferRecordsOf(before.rrsets), transferRecordsOf(await rrsetsAtNames(db, zone.id, [...before.names])))
        : difference(transferRecordsOf(before.rrsets.filter((r) => changed.has(r.name))), transferRecordsOf(change.rrsetsAfter));
  }
  const removed = encodeRecords([soaRecord(zone), ...diff.removed]);
  const added = encodeRecords([soaRecord(change.after), ...diff.added]);
  return { entry: { zone_id: zone.id, serial_from: zone.serial, serial_to: change.after.serial, removed, added, size: removed.length + added.length } };
}
