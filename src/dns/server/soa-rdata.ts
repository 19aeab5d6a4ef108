// The SOA RDATA of a zone (RFC 1035 §3.3.13) from its API fields. The contact may be an e-mail
// address; its local part becomes one label, dots and all (escaped in text as `\.`).
import type { ZoneRow } from '../../store/zones.ts';
import { canonicalWireName } from '../wire/name.ts';
import { contactRname } from '../soa.ts';

/** RNAME in wire form: labels split on unescaped dots, `\.` kept inside its label. */
function rnameWire(rname: string): Buffer {
  const labels = rname.split(/(?<!\\)\./).map((l) => l.replaceAll('\\.', '.').toLowerCase());
  return Buffer.concat([...labels.flatMap((l) => [Buffer.from([l.length]), Buffer.from(l, 'latin1')]), Buffer.from([0])]);
}

/**
 * MNAME and RNAME in wire form, by the fields they come from: every change of a zone makes its SOA
 * again (the serial moves) on each DNS thread and twice for its journal entry, with the same names.
 * Bounded: past `maxNames` pairs it starts over.
 */
const namesWire = new Map<string, Buffer>();
const maxNames = 1024;

function soaNames(primaryServer: string, contact: string): Buffer {
  const key = `${primaryServer}\n${contact}`;
  let wire = namesWire.get(key);
  if (wire === undefined) {
    wire = Buffer.concat([canonicalWireName(primaryServer.replace(/\.$/, '')), rnameWire(contactRname(contact))]);
    if (namesWire.size >= maxNames) namesWire.clear();
    namesWire.set(key, wire);
  }
  return wire;
}

export function soaRdata(zone: Pick<ZoneRow, 'primary_server' | 'contact' | 'serial' | 'refresh' | 'retry' | 'expiry' | 'nx_ttl'>): Buffer {
  const names = soaNames(zone.primary_server, zone.contact);
  const rdata = Buffer.allocUnsafe(names.length + 20);
  names.copy(rdata);
  rdata.writeUInt32BE(zone.serial >>> 0, names.length);
  rdata.writeUInt32BE(zone.refresh, names.length + 4);
  rdata.writeUInt32BE(zone.retry, names.length + 8);
  rdata.writeUInt32BE(zone.expiry, names.length + 12);
  rdata.writeUInt32BE(zone.nx_ttl, names.length + 16);
  return rdata;
}
