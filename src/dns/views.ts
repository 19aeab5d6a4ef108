// How zones and RRsets look in responses, per compatibility profile (decisions.md):
// `seed` follows the contract, `gcore` the live provider (flat zone, nanosecond updated_at,
// pickers mirrored as filters).
import type { Compat } from '../config.ts';
import type { RrsetWithRecords } from '../store/rrsets.ts';
import type { ZoneRow } from '../store/zones.ts';
import type { Picker } from './pickers/validate.ts';
import type { RrsetWarning } from './rrset-input.ts';
import type { RrsetsAmount } from './rrset-counts.ts';
import type { ContentValue } from './rrtypes/record-type.ts';

// JSON.rawJSON (Node ≥ 21) writes a number's digits verbatim: nanoseconds exceed 2^53.
const rawJSON = (JSON as unknown as { rawJSON: (text: string) => unknown }).rawJSON;

/** Reads JSON the service wrote itself (stored meta, content, pickers). */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
export function parseJson<T>(text: string): T {
  return JSON.parse(text) as T;
}

function updatedAt(iso: string, compat: Compat): unknown {
  return compat === 'gcore' ? rawJSON(`${Date.parse(iso)}000000`) : iso;
}

/** No filter set: the provider's shared filter sets are not offered, and their ids start at 1. */
const noFilterSet = 0;

/**
 * The contract's RRset result, every field always present (docs/api/dns.md#rrsets): `warnings` are
 * the caveats of the write that produced it (`[]` on reads), `warning` the same messages as one
 * string (`""` when none), kept for the clients that read the provider's older field.
 */
export function rrsetView(rrset: RrsetWithRecords, compat: Compat, warnings: RrsetWarning[] = []) {
  const pickers = rrset.pickers === null ? null : parseJson<Picker[]>(rrset.pickers);
  return {
    name: rrset.name,
    type: rrset.type,
    ttl: rrset.ttl,
    updated_at: updatedAt(rrset.updated_at, compat),
    filter_set_id: noFilterSet,
    meta: parseJson<Record<string, unknown>>(rrset.meta),
    ...(compat === 'gcore' ? { pickers, filters: pickers } : { pickers: pickers ?? [] }),
    resource_records: rrset.records.map((r) => ({
      id: r.id,
      content: parseJson<ContentValue[]>(r.content),
      enabled: r.enabled === 1,
      meta: parseJson<Record<string, unknown>>(r.meta),
    })),
    warning: warnings.map((w) => w.message).join('; '),
    warnings,
  };
}

/** A record's content as one line: fields joined by spaces, HTTPS/SVCB parameters as key=values. */
export function shortAnswer(content: ContentValue[]): string {
  return content.map((v) => (Array.isArray(v) ? (v.length > 1 ? `${String(v[0])}=${v.slice(1).join(',')}` : String(v[0])) : String(v))).join(' ');
}

export function zoneFields(zone: ZoneRow) {
  return {
    id: zone.id,
    client_id: zone.account_id,
    name: zone.name,
    contact: zone.contact,
    primary_server: zone.primary_server,
    serial: zone.serial,
    refresh: zone.refresh,
    retry: zone.retry,
    expiry: zone.expiry,
    nx_ttl: zone.nx_ttl,
    enabled: zone.enabled === 1,
    dnssec_enabled: zone.dnssec_enabled === 1,
    status: zone.enabled === 1 ? 'active' : 'disabled',
    meta: parseJson<Record<string, unknown>>(zone.meta),
  };
}

export const noRrsets: RrsetsAmount = { static: 0, total: 0, dynamic: { healthcheck: 0, total: 0 } };

export function zoneView(zone: ZoneRow, rrsets: RrsetWithRecords[], amount: RrsetsAmount, compat: Compat) {
  const view = {
    ...zoneFields(zone),
    records: rrsets.map((r) => ({ name: r.name, type: r.type, ttl: r.ttl, short_answers: r.records.map((rec) => shortAnswer(parseJson(rec.content))) })),
    rrsets_amount: amount,
  };
  return compat === 'gcore' ? view : { Zone: view };
}
