// Building zone views from the store: a whole zone at start or after a zone-wide change (its image,
// zone-image.ts, and what stays per thread), and only the touched owner names after an RRset change
// (so a write to a large zone costs one name's reads, or none when the change comes with what it wrote).
import type { Sealer } from '../../crypto/sealed.ts';
import type { Db } from '../../store/database.ts';
import type { ZoneSigner } from '../dnssec/signer.ts';
import { zoneSigner } from '../dnssec/signing-key.ts';
import { rrsetsAtName, rrsetsAtNames, withRecords, type RrsetWithRecords } from '../../store/rrsets.ts';
import { servedRrsetPages, type ServedRrsetRow } from '../../store/served-rrset-pages.ts';
import type { ZoneRow } from '../../store/zones.ts';
import { compileMeta } from '../pickers/record-match.ts';
import type { Picker } from '../pickers/validate.ts';
import { recordType } from '../rrtypes/index.ts';
import type { ContentValue } from '../rrtypes/record-type.ts';
import { parseJson } from '../views.ts';
import { soaRdata } from './soa-rdata.ts';
import type { PerRecord, ServedRrset } from './served-rrset.ts';
import { ZoneImage, ZoneImageBuilder, type ZoneImageData } from './zone-image.ts';
import { rrsetsOf, ZoneView, type ZoneHead, type ZoneNode } from './zone-view.ts';

/** `version`: the zone version the view will have every change up to; the row's own by default. */
export function zoneHead(zone: ZoneRow, signer: ZoneSigner | undefined, version = zone.version): ZoneHead {
  return {
    id: zone.id,
    name: zone.name,
    serial: zone.serial,
    version,
    soaRdata: soaRdata(zone),
    negativeTtl: zone.nx_ttl,
    signer,
  };
}

/** Position of the domain name that ends the RDATA, for the types that have one. */
const nameField: Record<string, number> = { CNAME: 0, NS: 0, PTR: 0, MX: 1, SRV: 3 };

/** A domain name field as lookups and the response writer use it: lower case, no trailing dot, '' for the root. */
function nameOf(value: ContentValue | undefined): string {
  return typeof value === 'string' ? value.toLowerCase().replace(/\.$/, '') : '';
}

/** A lone record's value on its own, several in an array of exactly their number. */
function perRecord(values: string[]): PerRecord {
  return values.length === 1 ? (values[0] ?? '') : values;
}

/** One RRset as served: enabled records only, RDATA pre-encoded; undefined when nothing is served. */
export function servedRrset(rrset: ServedRrsetRow): ServedRrset | undefined {
  const type = recordType(rrset.type);
  const records = rrset.records.filter((r) => r.enabled === 1);
  if (type === undefined || records.length === 0) return undefined;
  const contents = records.map((r) => parseJson<ContentValue[]>(r.content));
  const field = nameField[type.type];
  return {
    type: type.code,
    ttl: rrset.ttl,
    rdata: perRecord(contents.map((c) => type.toWire(c).toString('latin1'))),
    names: field === undefined ? undefined : perRecord(contents.map((c) => nameOf(c[field]))),
    // Only picker chains read meta: a static RRset's records keep none.
    pickers:
      rrset.pickers === null
        ? null
        : { chain: parseJson<Picker[]>(rrset.pickers), records: records.map((r, index) => ({ index, match: compileMeta(parseJson<Record<string, unknown>>(r.meta)), up: true })) },
  };
}

/** The RRsets of one owner name as served: none (an empty array), a lone one, or several in type order. */
function nodeOf(rrsets: readonly ServedRrsetRow[]): ZoneNode {
  const served = rrsets.map(servedRrset).filter((r) => r !== undefined);
  // filter() leaves room to grow (17 slots for one RRset): a zone keeps an exact-size copy.
  return served.length === 1 ? (served[0] ?? []) : served.sort((a, b) => a.type - b.type).slice();
}

/** A zone's image as the other threads of the process take it, with the rows of the names each keeps itself. */
export interface SharedZone {
  zoneId: number;
  /** The zone's version the image and the rest have every change up to. */
  version: number;
  image: ZoneImageData;
  /** Every RRset at the names not in the image: the apex, names with pickers. */
  rows: ServedRrsetRow[];
  /**
   * Instead of `rows`, for a thread started again: the names its giver holds beside the image at
   * `version` (the apex, names with pickers, every name changed since the image was built, removed
   * ones too), read by the taker from the store (ServedZones.current()).
   */
  names?: readonly string[];
}

/**
 * The whole zone; `zone` was read before its RRsets are, so the view has at least its version.
 * Static RRsets go to the zone's image, the rest stays per thread. With `share`, the rows of what
 * stays per thread are kept too, so other threads can take the image (sharedView()).
 */
export async function loadZone(db: Db, sealer: Sealer, zone: ZoneRow, share?: (shared: SharedZone) => void): Promise<ZoneView> {
  const head = zoneHead(zone, await zoneSigner(db, sealer, zone));
  const builder = new ZoneImageBuilder(zone.name);
  const own: [string, ZoneNode][] = [];
  const rows: ServedRrsetRow[] = [];
  // Page by page: the rows of a large zone are never all in memory at once.
  for await (const page of servedRrsetPages(db, zone.id)) {
    for (const [name, rrsets] of Map.groupBy(page, (r) => r.name)) {
      const node = nodeOf(rrsets);
      if (name !== zone.name && builder.add(name, rrsetsOf(node))) continue;
      own.push([name, node]);
      if (share !== undefined) rows.push(...rrsets);
    }
  }
  const image = builder.finish();
  const view = new ZoneView(head, image);
  for (const [name, node] of own) view.setNode(name, node);
  share?.({ zoneId: zone.id, version: zone.version, image: image.data, rows });
  return view;
}

/**
 * The view of a zone another thread serves: its image, and this thread's own objects for the rest,
 * from the rows given or, for the names given, read now. Read after the zone's row, those may hold
 * a later change than `shared.version`: the view still claims that version, so the change's
 * hand-over (or the periodic check) reads its names again.
 */
export async function sharedView(db: Db, sealer: Sealer, zone: ZoneRow, shared: SharedZone): Promise<ZoneView> {
  const view = new ZoneView(zoneHead(zone, await zoneSigner(db, sealer, zone), shared.version), new ZoneImage(shared.image));
  for (const [name, rrsets] of Map.groupBy(shared.rows, (r) => r.name)) view.setNode(name, nodeOf(rrsets));
  if (shared.names !== undefined) setNames(view, zone, shared.names, await rrsetsAtNames(db, zone.id, shared.names), shared.version);
  return view;
}

/**
 * Re-reads the names one change touched, in a view that had every change before it: the view then
 * has that change's `version` (not the row's, which may count later changes of other names).
 */
export async function refreshNames(db: Db, view: ZoneView, zone: ZoneRow, names: string[], version: number): Promise<void> {
  for (const name of names) {
    view.setNode(name, nodeOf(await withRecords(db, await rrsetsAtName(db, zone.id, name))));
  }
  // A change of names keeps the key: turning DNSSEC on or off reloads the whole zone.
  view.head = zoneHead(zone, view.head.signer, version);
}

/**
 * refreshNames() from what the change wrote instead of the store: `rrsets`, every RRset at `names`
 * after the change, and `zone`, the zone's row after it.
 */
export function setNames(view: ZoneView, zone: ZoneRow, names: readonly string[], rrsets: readonly RrsetWithRecords[], version: number): void {
  const byName = Map.groupBy(rrsets, (r) => r.name);
  for (const name of names) view.setNode(name, nodeOf(byName.get(name) ?? []));
  view.head = zoneHead(zone, view.head.signer, version);
}
