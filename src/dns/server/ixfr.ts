// Incremental zone transfers (RFC 1995) from the zone journal (src/dns/journal/). The client names
// its serial in an SOA in the query's authority section (§3). The answer is, per journal entry
// from that serial to the served one, the SOA left, the records removed, the SOA reached, the
// records added, between two copies of the current SOA (§4, not condensed). A client at the
// current serial or later gets the current SOA alone (§2); one the journal does not reach back to
// gets the whole zone as in AXFR (§4). Over UDP the answer is always the SOA alone (§2: the client
// then asks again over TCP).
import type { Db } from '../../store/database.ts';
import { journalChain, type JournalEntry } from '../../store/zone-journal.ts';
import { serialAfter } from '../soa.ts';
import { decodeRecords } from '../journal/journal-records.ts';
import { typeCode } from '../wire/type-codes.ts';
import { readName, QueryError, type Query } from './query.ts';
import type { WireRecord } from './response.ts';
import { packed, soaRecord, transferMessages } from './transfer.ts';
import type { ZoneView } from './zone-view.ts';

/** Skips one resource record at `at`; the offset after it. */
function skip(message: Buffer, at: number): number {
  const { next } = readName(message, at);
  if (next + 10 > message.length) throw new QueryError('truncated record');
  return next + 10 + message.readUInt16BE(next + 8);
}

/** The serial of the SOA in an IXFR query's authority section; throws QueryError when there is none. */
export function clientSerial(message: Buffer, query: Query): number {
  let at = 12 + query.questionBytes.length;
  for (let i = 0; i < message.readUInt16BE(6); i++) at = skip(message, at);
  for (let i = 0; i < message.readUInt16BE(8); i++) {
    const { name, next } = readName(message, at);
    const end = next + 10 + (next + 10 <= message.length ? message.readUInt16BE(next + 8) : 0);
    if (end > message.length) throw new QueryError('truncated record');
    if (name === query.name && message.readUInt16BE(next) === typeCode.soa) {
      const mname = readName(message, next + 10);
      const rname = readName(message, mname.next);
      if (rname.next + 20 > end) throw new QueryError('truncated SOA');
      return message.readUInt32BE(rname.next);
    }
    at = end;
  }
  throw new QueryError('an IXFR query carries the client\'s SOA in its authority section');
}

/** The current SOA alone: the answer to a client that is up to date, and to any over UDP. */
export function soaOnly(zone: ZoneView, query: Query): Buffer {
  return packed(query, [soaRecord(zone)]).next().value as Buffer;
}

function* differences(soa: WireRecord, entries: readonly JournalEntry[]): Generator<WireRecord> {
  yield soa;
  for (const entry of entries) {
    yield* decodeRecords(entry.removed);
    yield* decodeRecords(entry.added);
  }
  yield soa;
}

/** How an IXFR was answered, for the log. */
export type IxfrKind = 'up to date' | 'incremental' | 'full';

/**
 * The messages answering an IXFR over TCP from a client at `serial`. The view and its SOA are taken
 * before the journal is read: entries past the view's version are left for the next transfer.
 */
export async function ixfrMessages(db: Db, zone: ZoneView, query: Query, serial: number, extra: readonly WireRecord[]): Promise<{ kind: IxfrKind; messages: Iterable<Buffer> }> {
  const head = zone.head;
  if (serial === head.serial || serialAfter(serial, head.serial)) return { kind: 'up to date', messages: [soaOnly(zone, query)] };
  const soa = soaRecord(zone);
  // The catalog (id 0) keeps no journal.
  const entries = head.id === 0 ? undefined : await journalChain(db, head.id, serial, head.serial, head.version);
  if (entries === undefined) return { kind: 'full', messages: transferMessages(zone, query, extra) };
  return { kind: 'incremental', messages: packed(query, differences(soa, entries)) };
}
