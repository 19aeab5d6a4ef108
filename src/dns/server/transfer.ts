// Outgoing zone transfers over TCP: AXFR (RFC 5936), and IXFR answered the way RFC 1995 §4 allows
// when no history is kept, with the whole zone between two SOAs. Only addresses in
// EDGEPLANE_DNS_TRANSFER_ALLOW may transfer. A secondary gets the zone as stored: every enabled record
// of an RRset with pickers (it cannot pick per query), and no DNSSEC records (this server signs
// online; a secondary that serves the zone signed signs it itself).
import ipaddr from 'ipaddr.js';
import { inAnyNetwork, type Network } from '../../net/networks.ts';
import { type as rrType } from './lookup.ts';
import { parseQuery, type Query } from './query.ts';
import { rcode, ResponseWriter, type WireRecord } from './response.ts';
import { recordCount, recordValue, type ServedRrset } from './served-rrset.ts';
import { rrsetsOf, type ZoneView } from './zone-view.ts';

/** The online signer's records: not part of the zone as stored. */
const signingTypes = new Set([46, 47, 48, 59, 60]);
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

/** Whether a peer at `source` may transfer zones. */
export function transferAllowed(source: string, networks: readonly Network[]): boolean {
  return ipaddr.isValid(source) && inAnyNetwork(ipaddr.process(source), networks);
}

function* records(name: string, rrset: ServedRrset): Generator<WireRecord> {
  for (let i = 0; i < recordCount(rrset); i++) {
    yield { name, type: rrset.type, ttl: rrset.ttl, rdata: recordValue(rrset.rdata, i), rdataName: rrset.names === undefined ? undefined : recordValue(rrset.names, i) || undefined };
  }
}

/** The zone's records in transfer order: its SOA, everything else (`extra` too), its SOA again. */
function* zoneRecords(zone: ZoneView, extra: readonly WireRecord[]): Generator<WireRecord> {
  const soa = rrsetsOf(zone.node(zone.name) ?? []).find((r) => r.type === rrType.soa);
  if (soa === undefined) return;
  yield* records(zone.name, soa);
  for (const [name, node] of zone.entries()) {
    for (const rrset of rrsetsOf(node)) {
      if (rrset.type === rrType.soa || signingTypes.has(rrset.type)) continue;
      yield* records(name, rrset);
    }
  }
  yield* extra;
  yield* records(zone.name, soa);
}

/** NOTAUTH: a transfer request whose TSIG does not check out (RFC 8945 §5.2). */
export function notAuthorized(query: Query): Buffer {
  const writer = new ResponseWriter(512);
  writer.question(query.questionBytes, query.name);
  return Buffer.from(writer.finish({ id: query.id, queryFlags: query.flags, authoritative: false, truncated: false, rcode: rcode.notAuth, counts: [1, 0, 0, 0] }));
}

/** The messages of a transfer of `zone`: the question in the first, records packed in each. */
export function transferMessages(zone: ZoneView, query: Query, extra: readonly WireRecord[] = []): Buffer[] {
  const messages: Buffer[] = [];
  let writer = new ResponseWriter(messageCapacity);
  let count = 0;
  const start = (first: boolean) => {
    writer = new ResponseWriter(messageCapacity);
    if (first) writer.question(query.questionBytes, query.name);
    count = 0;
  };
  const finish = (first: boolean) => {
    const counts: [number, number, number, number] = [first ? 1 : 0, count, 0, 0];
    messages.push(Buffer.from(writer.finish({ id: query.id, queryFlags: query.flags, authoritative: true, truncated: false, rcode: rcode.noError, counts })));
  };
  start(true);
  for (const record of zoneRecords(zone, extra)) {
    if (writer.record(record)) {
      count++;
      continue;
    }
    finish(messages.length === 0);
    start(false);
    // A record alone always fits: RDATA is at most 65,535 octets only in theory; ours are far smaller.
    if (!writer.record(record)) throw new Error(`a ${String(record.type)} record of ${record.name} does not fit a transfer message`);
    count = 1;
  }
  finish(messages.length === 0);
  return messages;
}
