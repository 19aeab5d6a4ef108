// An RRset's `meta.failover`: how its A and AAAA records are checked (compat.md, "Pickers"). The API
// validates and keeps it verbatim (rrset-input.ts); this reads it with the defaults filled in, and
// names the records a check probes.
import type { RecordRow } from '../../store/rrsets.ts';
import type { ContentValue } from '../rrtypes/record-type.ts';
import { parseJson } from '../views.ts';
import { linearRegExp } from './regexp.ts';

export type Protocol = 'HTTP' | 'TCP' | 'UDP' | 'ICMP';

export interface Check {
  protocol: Protocol;
  /** Undefined for ICMP; HTTP defaults to 80, or 443 with `tls`. */
  port: number | undefined;
  frequencyMs: number;
  timeoutMs: number;
  http: { method: string; path: string; tls: boolean; status: number; host: string | undefined };
  /** What an HTTP body or a UDP reply must match. */
  regexp: RegExp | undefined;
}

export const defaultFrequencySeconds = 60;
export const defaultTimeoutSeconds = 5;

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const integer = (value: unknown): number | undefined => (typeof value === 'number' && Number.isInteger(value) ? value : undefined);

/** The request path of `url`: a path as given, or the path and query of a full URL. */
function pathOf(url: string | undefined): string {
  if (url === undefined) return '/';
  if (/^https?:\/\//i.test(url)) {
    const parsed = URL.parse(url);
    return parsed === null ? '/' : parsed.pathname + parsed.search;
  }
  return url.startsWith('/') ? url : `/${url}`;
}

/** The check an RRset's meta describes; undefined when it has none or none that can run. */
export function checkOf(meta: Record<string, unknown>): Check | undefined {
  const failover = meta['failover'];
  if (typeof failover !== 'object' || failover === null) return undefined;
  const f = failover as Record<string, unknown>;
  const protocol = text(f['protocol'])?.toUpperCase();
  if (protocol !== 'HTTP' && protocol !== 'TCP' && protocol !== 'UDP' && protocol !== 'ICMP') return undefined;
  const tls = f['tls'] === true;
  const port = protocol === 'ICMP' ? undefined : (integer(f['port']) ?? (protocol === 'HTTP' ? (tls ? 443 : 80) : undefined));
  // TCP and UDP name no default port: there is nothing to check without one.
  if (protocol !== 'ICMP' && port === undefined) return undefined;
  const pattern = text(f['regexp']);
  return {
    protocol,
    port,
    frequencyMs: (integer(f['frequency']) ?? defaultFrequencySeconds) * 1000,
    timeoutMs: (integer(f['timeout']) ?? defaultTimeoutSeconds) * 1000,
    http: {
      method: text(f['method'])?.toUpperCase() ?? 'GET',
      path: pathOf(text(f['url'])),
      tls,
      status: integer(f['http_status_code']) ?? 200,
      host: text(f['host']),
    },
    regexp: pattern === undefined ? undefined : linearRegExp(pattern),
  };
}

/** The records of a checked RRset that its check probes: the enabled ones, each by its address. */
export function probedRecords(records: readonly Pick<RecordRow, 'content' | 'enabled'>[]): { address: string; content: ContentValue[] }[] {
  const probed: { address: string; content: ContentValue[] }[] = [];
  for (const record of records) {
    if (record.enabled !== 1) continue;
    const content = parseJson<ContentValue[]>(record.content);
    probed.push({ address: String(content[0]), content });
  }
  return probed;
}
