// An RRset as the DNS server holds it. A large zone holds millions of records, so the form is chosen
// for size (docs/dns-server.md, "Memory"): one object per RRset, each RDATA a latin1 string (a
// fraction of a Buffer's size), a lone record (most RRsets have one) without an array around it.
// Only RRsets with pickers have an object per record, holding what the pickers test.
import type { RecordMatch } from '../pickers/record-match.ts';
import type { Picker } from '../pickers/validate.ts';

/** A record of an RRset with pickers, as the chain tests it: its position in the RRset, its meta. */
export interface ServedRecord {
  index: number;
  match: RecordMatch;
  /** False while its health check fails (health/checker.ts); `healthcheck` pickers drop it then. */
  up: boolean;
}

/** One record's value (a string), or those of several records in stored order. */
export type PerRecord = string | readonly string[];

export interface ServedRrset {
  type: number;
  ttl: number;
  /** The enabled records' RDATA, one latin1 character per octet. */
  rdata: PerRecord;
  /**
   * For the types whose RDATA ends in a domain name (NS, CNAME, PTR, MX, SRV): that name, lower case,
   * without trailing dot ('' for the root), for chasing, glue and name compression.
   */
  names: PerRecord | undefined;
  /** The chain and the records it picks from; null for a static RRset, which answers every record. */
  pickers: { chain: Picker[]; records: ServedRecord[] } | null;
}

export function recordCount(rrset: ServedRrset): number {
  return typeof rrset.rdata === 'string' ? 1 : rrset.rdata.length;
}

/** The value of record `index`: '' past the end. */
export function recordValue(values: PerRecord, index: number): string {
  return typeof values === 'string' ? values : (values[index] ?? '');
}

/** The name record `index` points at (CNAME, NS, MX, SRV), if any. */
export function targetOf(rrset: ServedRrset, index: number): string | undefined {
  const name = rrset.names === undefined ? '' : recordValue(rrset.names, index);
  return name === '' ? undefined : name;
}

const everyPosition: number[][] = [];

/** The positions 0 … count − 1, shared: what a static RRset answers, with nothing made per query. */
export function allRecords(count: number): readonly number[] {
  let positions = everyPosition[count];
  if (positions === undefined) {
    positions = Array.from({ length: count }, (_, i) => i);
    everyPosition[count] = positions;
  }
  return positions;
}
