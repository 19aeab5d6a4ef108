// Outgoing zone transfers over TCP: AXFR (RFC 5936), and IXFR's full answer (RFC 1995 §4) when the
// zone journal does not reach back to the client's serial (ixfr.ts). Only addresses in
// EDGEPLANE_DNS_TRANSFER_ALLOW may transfer. A secondary gets the zone as stored
// (transfer-records.ts). Messages are made one at a time as the connection asks for the next
// (tcp-connection.ts), never the whole zone at once.
import ipaddr from 'ipaddr.js';
import { inAnyNetwork, type Network } from '../../net/networks.ts';
import { typeCode } from '../wire/type-codes.ts';
import { parseQuery, type Query } from './query.ts';
import { rcode, ResponseWriter, type WireRecord } from './response.ts';
import { rrsetRecords, signingTypes } from './transfer-records.ts';
import { rrsetOf, rrsetsOf, type ZoneView } from './zone-view.ts';

export const transferTypes = new Set([251, 252]);
/** Message size for a transfer: a few thousand records each. */
const messageCapacity = 16 * 1024;

/** The query when `message` asks for a zone transfer (AXFR or IXFR), else undefined. */
export function transferQuery(message: Buffer): Query | undefined {
  // Only the question's type decides; a message that does not parse is the ordinary path's to refuse.
  try {
    const query = parseQuery(message);
    return query.opcode === 0 && (query.flags & 0x8000) === 0 && transferTypes.has(query.qtype) ? query : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The question's type read without parsing the message (undefined when it cannot be): UDP asks it
 * of every query, so only an IXFR pays for a full parse there.
 */
export function questionType(message: Buffer): number | undefined {
  if (message.length < 12 || message.readUInt16BE(4) !== 1) return undefined;
  let at = 12;
  // A question's name is never compressed: labels up to the root.
  while (at < message.length && (message[at] ?? 0) !== 0) at += 1 + (message[at] ?? 0);
  return at + 3 <= message.length ? message.readUInt16BE(at + 1) : undefined;
}

/** Whether a peer at `source` may transfer zones. */
export function transferAllowed(source: string, networks: readonly Network[]): boolean {
  return ipaddr.isValid(source) && inAnyNetwork(ipaddr.process(source), networks);
}

/** The zone's SOA record as transfers write it (the apex always holds one). */
export function soaRecord(zone: ZoneView): WireRecord {
  const soa = rrsetOf(zone.node(zone.name), typeCode.soa);
  if (soa === undefined) throw new Error(`zone ${zone.name} has no SOA`);
  return rrsetRecords(zone.name, soa).next().value as WireRecord;
}

/**
 * The zone's records in transfer order: its SOA, everything else (`extra` too), its SOA again. The
 * view's names are taken as they are when asked for (ZoneView.entries(): the image never changes,
 * this thread's own names are copied), so changes applied meanwhile do not show half-way.
 */
function zoneRecords(zone: ZoneView, extra: readonly WireRecord[]): Generator<WireRecord> {
  const soa = soaRecord(zone);
  const entries = zone.entries();
  return (function* () {
    yield soa;
    for (const [name, node] of entries) {
      for (const rrset of rrsetsOf(node)) {
        if (rrset.type === typeCode.soa || signingTypes.has(rrset.type)) continue;
        yield* rrsetRecords(name, rrset);
      }
    }
    yield* extra;
    yield soa;
  })();
}

/** An answer with no records: NOTAUTH for a bad TSIG (RFC 8945 §5.2), FORMERR for a malformed IXFR. */
export function errorReply(query: Query, code: number): Buffer {
  const writer = new ResponseWriter(512);
  writer.question(query.questionBytes, query.name);
  return Buffer.from(writer.finish({ id: query.id, queryFlags: query.flags, authoritative: false, truncated: false, rcode: code, counts: [1, 0, 0, 0] }));
}

/** `records` packed in messages as large as a transfer's, the question in the first. */
export function* packed(query: Query, records: Iterable<WireRecord>, capacity = messageCapacity): Generator<Buffer> {
  let writer = new ResponseWriter(capacity);
  writer.question(query.questionBytes, query.name);
  let count = 0;
  let first = true;
  const finish = () => {
    const counts: [number, number, number, number] = [first ? 1 : 0, count, 0, 0];
    first = false;
    return Buffer.from(writer.finish({ id: query.id, queryFlags: query.flags, authoritative: true, truncated: false, rcode: rcode.noError, counts }));
  };
  for (const record of records) {
    if (writer.record(record)) {
      count++;
      continue;
    }
    yield finish();
    writer = new ResponseWriter(capacity);
    // A record alone always fits: RDATA is at most 65,535 octets only in theory; ours are far smaller.
    if (!writer.record(record)) throw new Error(`a ${String(record.type)} record of ${record.name} does not fit a transfer message`);
    count = 1;
  }
  yield finish();
}

/** The messages of a full transfer of `zone`, made as they are asked for. */
export function transferMessages(zone: ZoneView, query: Query, extra: readonly WireRecord[] = []): Generator<Buffer> {
  return packed(query, zoneRecords(zone, extra));
}
