// Zones as the DNS API answers them, and the few calls every zone view shares.
import { segment, type Api } from '../api.ts';

export interface RrsetsAmount {
  static: number;
  total: number;
  dynamic: { healthcheck: number; total: number };
}

export interface Zone {
  id: number;
  name: string;
  contact: string;
  primary_server: string;
  serial: number;
  refresh: number;
  retry: number;
  expiry: number;
  nx_ttl: number;
  enabled: boolean;
  dnssec_enabled: boolean;
  status: 'active' | 'disabled';
  rrsets_amount?: RrsetsAmount;
}

export interface ZoneList {
  zones: Zone[];
  total_amount: number;
}

export interface Dnssec {
  algorithm: string;
  digest: string;
  digest_algorithm: string;
  digest_type: string;
  ds: string;
  flags: number;
  key_tag: number;
  key_type: string;
  public_key: string;
}

export interface ImportResult {
  created: { name: string; type: string; records: number }[];
  skipped: { line: number; name?: string; type?: string; reason: string }[];
}

/** The API path of a zone, or of something below it (`/dnssec`). */
export function zonePath(name: string, below = ''): string {
  return `/dns/v2/zones/${segment(name)}${below}`;
}

/** The zone with its SOA values; the `seed` profile wraps it in {"Zone": …}, `gcore` answers it flat. */
export async function loadZone(api: Api, name: string): Promise<Zone> {
  const body = await api.get<{ Zone?: Zone } & Partial<Zone>>(zonePath(name));
  return body.Zone ?? (body as Zone);
}

/**
 * What a number field sends: a whole number as a number, anything else as typed, so that the API
 * (not the browser) judges it and its message lands beside the field; empty means "not sent".
 */
export function numberValue(text: string): number | string | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  return /^\d{1,15}$/.test(trimmed) ? Number(trimmed) : trimmed;
}
