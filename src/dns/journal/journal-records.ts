// The records of a zone journal entry, stored wire-ready: each one [owner, type, TTL, RDATA in
// base64, the domain name the RDATA ends with or ''], owner and name lower case without the
// trailing dot (as the response writer takes them, so RDATA names compress as in AXFR). Only what
// a transfer carries is journaled (transfer-records.ts): enabled records, no DNSSEC signer records.
import type { RrsetWithRecords } from '../../store/rrsets.ts';
import { servedRrset } from '../server/load.ts';
import type { WireRecord } from '../server/response.ts';
import { rrsetRecords, signingTypes } from '../server/transfer-records.ts';

type StoredRecord = [string, number, number, string, string];

const latin1 = (rdata: Buffer | string) => (typeof rdata === 'string' ? rdata : rdata.toString('latin1'));

/** The records a transfer carries for these RRsets (any owner names, any order). */
export function transferRecordsOf(rrsets: readonly RrsetWithRecords[]): WireRecord[] {
  const out: WireRecord[] = [];
  for (const row of rrsets) {
    const rrset = servedRrset(row);
    if (rrset === undefined || signingTypes.has(rrset.type)) continue;
    out.push(...rrsetRecords(row.name, rrset));
  }
  return out;
}

const identity = (r: WireRecord) => `${r.name}\0${String(r.type)}\0${String(r.ttl)}\0${latin1(r.rdata)}`;

/**
 * What turns `before` into `after`: the records only in `before`, those only in `after`. A TTL
 * change removes the record and adds it back with its new TTL.
 */
export function difference(before: readonly WireRecord[], after: readonly WireRecord[]): { removed: WireRecord[]; added: WireRecord[] } {
  const had = new Set(before.map(identity));
  const has = new Set(after.map(identity));
  return { removed: before.filter((r) => !has.has(identity(r))), added: after.filter((r) => !had.has(identity(r))) };
}

export function encodeRecords(records: readonly WireRecord[]): string {
  return JSON.stringify(records.map((r): StoredRecord => [r.name, r.type, r.ttl, Buffer.from(latin1(r.rdata), 'latin1').toString('base64'), r.rdataName ?? '']));
}

export function decodeRecords(text: string): WireRecord[] {
  return (JSON.parse(text) as StoredRecord[]).map(([name, type, ttl, rdata, rdataName]) => ({ name, type, ttl, rdata: Buffer.from(rdata, 'base64'), rdataName: rdataName || undefined }));
}
