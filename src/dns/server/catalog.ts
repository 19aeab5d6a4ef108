// The catalog zone (RFC 9432, schema version 2) of EDGEPLANE_DNS_CATALOG: how secondaries that read
// catalogs (Knot, BIND, PowerDNS) learn which zones to serve, so a zone created through the API
// appears on them with no configuration there. Queries see only its SOA, NS and version: the list of
// member zones goes out only in zone transfers, to the addresses allowed to transfer.
import type { WireRecord } from './response.ts';
import type { ServedRrset } from './served-rrset.ts';
import { soaRdata } from './soa-rdata.ts';
import { ZoneView } from './zone-view.ts';
import { canonicalWireName } from '../wire/name.ts';
import { typeCode } from '../wire/type-codes.ts';

/** RFC 9432 §4.1: the SOA and NS are placeholders under `invalid.`. */
const invalid = 'invalid';

const rrset = (type: number, rdata: Buffer, names?: string): ServedRrset => ({ type, ttl: 0, rdata: rdata.toString('latin1'), names, pickers: null });

/** The catalog as served to queries: SOA (with the stored serial), NS, and `version` TXT "2". */
export function catalogView(name: string, serial: number): ZoneView {
  const view = new ZoneView({
    id: 0,
    name,
    serial,
    // Never compared: the catalog follows the stored catalog serial, not zone versions.
    version: 0,
    soaRdata: soaRdata({ primary_server: invalid, contact: invalid, serial, refresh: 3600, retry: 600, expiry: 2147483646, nx_ttl: 0 }),
    negativeTtl: 0,
    signer: undefined,
  });
  view.setNode(name, rrset(typeCode.ns, canonicalWireName(invalid), invalid));
  view.setNode(`version.${name}`, rrset(typeCode.txt, Buffer.from([1, 0x32])));
  return view;
}

/** One PTR per member zone, owned by a label that stays with the zone (its id): what transfers add. */
export function catalogMembers(name: string, zones: Iterable<{ id: number; name: string }>): WireRecord[] {
  return [...zones].map((zone) => ({ name: `z${String(zone.id)}.zones.${name}`, type: typeCode.ptr, ttl: 0, rdata: canonicalWireName(zone.name).toString('latin1'), rdataName: zone.name }));
}
