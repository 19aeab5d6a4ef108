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

export function soaRdata(zone: Pick<ZoneRow, 'primary_server' | 'contact' | 'serial' | 'refresh' | 'retry' | 'expiry' | 'nx_ttl'>): Buffer {
  const timers = Buffer.alloc(20);
  timers.writeUInt32BE(zone.serial >>> 0, 0);
  timers.writeUInt32BE(zone.refresh, 4);
  timers.writeUInt32BE(zone.retry, 8);
  timers.writeUInt32BE(zone.expiry, 12);
  timers.writeUInt32BE(zone.nx_ttl, 16);
  return Buffer.concat([canonicalWireName(zone.primary_server.replace(/\.$/, '')), rnameWire(contactRname(zone.contact)), timers]);
}
