// What a zone transfer carries of an RRset (AXFR and IXFR alike, and so the zone journal): every
// enabled record, with pickers or not (a secondary cannot pick per query), and none of the online
// signer's records (a secondary that serves the zone signed signs it itself).
import type { WireRecord } from './response.ts';
import { recordCount, recordValue, type ServedRrset } from './served-rrset.ts';

/** RRSIG, NSEC, DNSKEY, CDS, CDNSKEY: the online signer's, never transferred. */
export const signingTypes: ReadonlySet<number> = new Set([46, 47, 48, 59, 60]);

/** The records of `rrset` owned by `name`, as a transfer writes them. */
export function* rrsetRecords(name: string, rrset: ServedRrset): Generator<WireRecord> {
  for (let i = 0; i < recordCount(rrset); i++) {
    yield { name, type: rrset.type, ttl: rrset.ttl, rdata: recordValue(rrset.rdata, i), rdataName: rrset.names === undefined ? undefined : recordValue(rrset.names, i) || undefined };
  }
}
