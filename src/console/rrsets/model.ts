// RRsets as the DNS API carries them (docs/api/dns.md#rrsets), and the small conversions the table
// and the editor share.
import { segment } from '../api.ts';

/** One element of a record's content: a field, or (HTTPS/SVCB) a `[key, values...]` parameter. */
export type ContentValue = string | number | (string | number)[];

export type Meta = Record<string, unknown>;

export interface ResourceRecord {
  id?: number;
  content: ContentValue[];
  enabled: boolean;
  meta: Meta;
}

export interface Picker {
  type: string;
  limit: number;
  strict: boolean;
}

export interface Rrset {
  name: string;
  type: string;
  ttl: number;
  meta: Meta;
  /** `[]` (seed profile) or null (gcore profile) when static. */
  pickers: Picker[] | null;
  filters?: Picker[] | null;
  resource_records: ResourceRecord[];
  warnings?: { key: string; message: string }[];
}

export interface RrsetBody {
  ttl?: number | string;
  meta: Meta;
  pickers: Picker[];
  resource_records: { content: ContentValue[]; enabled: boolean; meta: Meta }[];
}

/** The RRset's picker chain, whichever member the service's profile fills. */
export function pickersOf(rrset: Rrset): Picker[] {
  return rrset.pickers ?? rrset.filters ?? [];
}

/** The API path of one RRset; `name` may be relative, fully qualified or '@'. */
export function rrsetPath(zone: string, name: string, type: string): string {
  return `/dns/v2/zones/${pathSegment(zone)}/${pathSegment(name)}/${pathSegment(type)}`;
}

/** The console route of one RRset's editor. */
export function editorRoute(zone: string, name: string, type: string): string {
  return `/zones/${pathSegment(zone)}/rrsets/${pathSegment(name)}/${pathSegment(type)}`;
}

// encodeURIComponent leaves '*' alone; the API documents '%2A' for a wildcard owner.
function pathSegment(value: string): string {
  return segment(value).replace(/\*/g, '%2A');
}

/** A record's content as one line, as the zone's `short_answers` show it. */
export function contentLine(content: readonly ContentValue[]): string {
  return content.map((v) => (Array.isArray(v) ? (v.length > 1 ? `${String(v[0])}=${v.slice(1).join(',')}` : String(v[0])) : String(v))).join(' ');
}

/** "geodns → first_n (limit 1)" */
export function pickersLine(pickers: readonly Picker[]): string {
  return pickers
    .map((p) => {
      const options = [p.limit > 0 ? `limit ${p.limit}` : '', p.strict ? 'strict' : ''].filter((o) => o !== '');
      return options.length > 0 ? `${p.type} (${options.join(', ')})` : p.type;
    })
    .join(' → ');
}

/** "HTTP :443 every 30 s" for an RRset's `meta.failover`; undefined without one. */
export function failoverLine(meta: Meta): string | undefined {
  const failover = meta['failover'];
  if (typeof failover !== 'object' || failover === null) return undefined;
  const f = failover as Meta;
  const parts = ['health check', typeof f['protocol'] === 'string' ? f['protocol'].toUpperCase() : ''];
  if (typeof f['port'] === 'number') parts.push(`:${f['port']}`);
  if (typeof f['frequency'] === 'number') parts.push(`every ${f['frequency']} s`);
  return parts.filter((p) => p !== '').join(' ');
}

/** The name as people write it inside the zone: '@' for the apex, 'www' for www.<zone>. */
export function relativeName(name: string, zone: string): string {
  const fqdn = name.replace(/\.$/, '');
  if (fqdn === zone) return '@';
  return fqdn.endsWith(`.${zone}`) ? fqdn.slice(0, -zone.length - 1) : fqdn;
}

/** A meta value as a control shows it: scalars as they are, anything else as JSON. */
export function textOf(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}

/** `base` with `changes` applied; a change to undefined removes the key. */
export function withChanges(base: Meta, changes: Meta): Meta {
  return Object.fromEntries(Object.entries({ ...base, ...changes }).filter(([, value]) => value !== undefined));
}
