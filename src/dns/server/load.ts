// Building zone views from the store: a whole zone at start or after a zone-wide change, and only
// the touched owner names after an RRset change (so a write to a large zone costs one name's reads).
import type { Sealer } from '../../crypto/sealed.ts';
import type { Db } from '../../store/database.ts';
import type { ZoneSigner } from '../dnssec/signer.ts';
import { zoneSigner } from '../dnssec/signing-key.ts';
import { rrsetsAtName, withRecords, zoneRrsets, type RrsetWithRecords } from '../../store/rrsets.ts';
import type { ZoneRow } from '../../store/zones.ts';
import { compileMeta, emptyMatch } from '../pickers/record-match.ts';
import type { Picker } from '../pickers/validate.ts';
import { recordType } from '../rrtypes/index.ts';
import type { ContentValue } from '../rrtypes/record-type.ts';
import { parseJson } from '../views.ts';
import { soaRdata } from './soa-rdata.ts';
import { ZoneView, type ZoneHead, type ZoneNode } from './zone-view.ts';

export function zoneHead(zone: ZoneRow, signer: ZoneSigner | undefined): ZoneHead {
  return {
    id: zone.id,
    name: zone.name,
    serial: zone.serial,
    soaRdata: soaRdata(zone),
    negativeTtl: zone.nx_ttl,
    signer,
  };
}

/** Position of the domain name other records are looked up for, per type. */
const targetField: Record<string, number> = { CNAME: 0, NS: 0, MX: 1, SRV: 3 };

function targetOf(type: string, content: ContentValue[]): string | undefined {
  const field = targetField[type];
  const value = field === undefined ? undefined : content[field];
  return typeof value === 'string' && value !== '.' ? value.toLowerCase().replace(/\.$/, '') : undefined;
}

/**
 * A copy of small RDATA in Node's shared buffer pool: a zone's millions of records then share a few
 * large allocations instead of each owning one.
 */
function pooled(bytes: Buffer): Buffer {
  const copy = Buffer.allocUnsafe(bytes.length);
  bytes.copy(copy);
  return copy;
}

/** A domain name field as the response writer compresses it: lower case, no trailing dot, '' for the root. */
function nameField(value: ContentValue | undefined): string {
  return typeof value === 'string' ? value.toLowerCase().replace(/\.$/, '') : '';
}

/** RFC 3597 §4: only the RFC 1035 types may have their RDATA names compressed. */
function compressibleParts(type: string, content: ContentValue[]): (Buffer | string)[] | undefined {
  if (type === 'NS' || type === 'CNAME' || type === 'PTR') return [nameField(content[0])];
  if (type === 'MX') {
    const preference = Buffer.alloc(2);
    preference.writeUInt16BE(Number(content[0]));
    return [preference, nameField(content[1])];
  }
  return undefined;
}

/** The RRsets of one owner name as served: enabled records only, RDATA pre-encoded. */
function nodeOf(rrsets: RrsetWithRecords[]): ZoneNode {
  const node: ZoneNode = new Map();
  for (const rrset of rrsets) {
    const type = recordType(rrset.type);
    const records = rrset.records
      .filter((r) => r.enabled === 1)
      .map((r) => {
        const content = parseJson<ContentValue[]>(r.content);
        return {
          rdata: pooled(type?.toWire(content) ?? Buffer.alloc(0)),
          parts: compressibleParts(rrset.type, content),
          // Only picker chains read meta; a static RRset's records share one empty match.
          match: rrset.pickers === null ? emptyMatch : compileMeta(parseJson<Record<string, unknown>>(r.meta)),
          target: targetOf(rrset.type, content),
        };
      });
    if (type === undefined || records.length === 0) continue;
    node.set(type.code, { type: type.code, ttl: rrset.ttl, records, pickers: rrset.pickers === null ? null : parseJson<Picker[]>(rrset.pickers) });
  }
  return node;
}

export async function loadZone(db: Db, sealer: Sealer, zone: ZoneRow): Promise<ZoneView> {
  const view = new ZoneView(zoneHead(zone, await zoneSigner(db, sealer, zone)));
  const byName = Map.groupBy(await zoneRrsets(db, zone.id), (r) => r.name);
  for (const [name, rrsets] of byName) view.setNode(name, nodeOf(rrsets));
  return view;
}

export async function refreshNames(db: Db, view: ZoneView, zone: ZoneRow, names: string[]): Promise<void> {
  for (const name of names) {
    view.setNode(name, nodeOf(await withRecords(db, await rrsetsAtName(db, zone.id, name))));
  }
  // A change of names keeps the key: turning DNSSEC on or off reloads the whole zone.
  view.head = zoneHead(zone, view.head.signer);
}
