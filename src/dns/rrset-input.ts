// An RRset body as clients send it → validated, canonical data ready to store. Every problem is
// collected with its JSON path, so one 400 names them all.
import { linearRegExp } from './health/regexp.ts';
import { invalid, type FieldErrors } from '../errors.ts';
import { validatePickers, type Picker } from './pickers/validate.ts';
import { metaBoundsProblem } from './meta-bounds.ts';
import { validateRecordMeta } from './record-meta.ts';
import { ContentError, type ContentValue, type RecordType } from './rrtypes/record-type.ts';

export const ttlBounds = [0, 2_147_483_647] as const;
export const defaultTtl = 300;
const maxRecords = 1000;

export interface RrsetWarning {
  key: string;
  message: string;
}

export interface ValidRecord {
  content: ContentValue[];
  enabled: boolean;
  meta: Record<string, unknown>;
}

export interface ValidRrset {
  ttl: number;
  meta: Record<string, unknown>;
  /** Null for a static RRset. */
  pickers: Picker[] | null;
  records: ValidRecord[];
  warnings: RrsetWarning[];
}

function ttlOf(value: unknown, fields: FieldErrors): number {
  if (value === undefined) return defaultTtl;
  const ttl = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < ttlBounds[0] || ttl > ttlBounds[1]) {
    fields['ttl'] = `must be an integer ${ttlBounds[0]}-${ttlBounds[1]}`;
    return defaultTtl;
  }
  return ttl;
}

const failoverProtocols = ['HTTP', 'TCP', 'UDP', 'ICMP'];

function validateRrsetMeta(meta: unknown, fields: FieldErrors): Record<string, unknown> {
  if (meta === undefined) return {};
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) {
    fields['meta'] = 'must be an object';
    return {};
  }
  const bounds = metaBoundsProblem(meta);
  if (bounds !== undefined) {
    fields['meta'] = bounds;
    return {};
  }
  const failover = (meta as Record<string, unknown>)['failover'];
  if (failover !== undefined) {
    const f = (typeof failover === 'object' && failover !== null ? failover : {}) as Record<string, unknown>;
    const inRange = (v: unknown, lo: number, hi: number) => typeof v === 'number' && Number.isInteger(v) && v >= lo && v <= hi;
    if (typeof f['protocol'] !== 'string' || !failoverProtocols.includes(f['protocol'].toUpperCase())) {
      fields['meta.failover.protocol'] = `must be one of ${failoverProtocols.join(', ')}`;
    }
    if (f['port'] !== undefined && !inRange(f['port'], 1, 65535)) fields['meta.failover.port'] = 'must be an integer 1-65535';
    if (f['frequency'] !== undefined && !inRange(f['frequency'], 10, 3600)) fields['meta.failover.frequency'] = 'must be 10-3600 seconds';
    if (f['timeout'] !== undefined && !inRange(f['timeout'], 1, 10)) fields['meta.failover.timeout'] = 'must be 1-10 seconds';
    if (f['http_status_code'] !== undefined && !inRange(f['http_status_code'], 100, 599)) fields['meta.failover.http_status_code'] = 'must be an HTTP status code, 100-599';
    // They end up in an HTTP request line and header: nothing there may break out of its place.
    const shapes: Record<string, [RegExp, string]> = {
      method: [/^[A-Za-z]{1,16}$/, 'must be an HTTP method such as GET or HEAD'],
      url: [/^[\x21-\x7e]{1,2048}$/, 'must be a path or URL without spaces or control characters'],
      host: [/^[\x21-\x7e]{1,255}$/, 'must be a host name without spaces or control characters'],
    };
    for (const [key, [shape, message]] of Object.entries(shapes)) {
      const value = f[key];
      if (value !== undefined && (typeof value !== 'string' || !shape.test(value))) fields[`meta.failover.${key}`] = message;
    }
    if (f['tls'] !== undefined && typeof f['tls'] !== 'boolean') fields['meta.failover.tls'] = 'must be true or false';
    const regexp = f['regexp'];
    if (regexp !== undefined) {
      if (typeof regexp !== 'string' || regexp.length > 1024) fields['meta.failover.regexp'] = 'must be a string of at most 1024 characters';
      else {
        try {
          linearRegExp(regexp);
        } catch (e) {
          // The checks match in linear time (health/regexp.ts): backreferences and lookaround are refused.
          fields['meta.failover.regexp'] = (e as Error).message;
        }
      }
    }
  }
  return meta as Record<string, unknown>;
}

export function validateRrsetBody(body: Record<string, unknown>, type: RecordType, zone: string): ValidRrset {
  const fields: FieldErrors = {};
  const warnings: RrsetWarning[] = [];
  const ttl = ttlOf(body['ttl'], fields);
  const meta = validateRrsetMeta(body['meta'], fields);

  // Generated SDKs send `pickers`, hand-written ones `filters`; `pickers` wins when both come.
  const hasPickers = body['pickers'] !== undefined;
  const source = hasPickers ? 'pickers' : 'filters';
  const chain = body[source] === undefined ? [] : validatePickers(body[source], source, fields);
  if (hasPickers && body['filters'] !== undefined && JSON.stringify(body['filters']) !== JSON.stringify(body['pickers'])) {
    warnings.push({ key: 'filters', message: 'both pickers and filters were sent; filters were ignored' });
  }

  const records: ValidRecord[] = [];
  const input = body['resource_records'];
  if (!Array.isArray(input) || input.length === 0) {
    fields['resource_records'] = 'must be a non-empty array of records';
  } else if (input.length > maxRecords) {
    fields['resource_records'] = `at most ${maxRecords} records`;
  } else {
    input.forEach((raw: unknown, i) => {
      const at = `resource_records[${i}]`;
      const record = (typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? raw : {}) as Record<string, unknown>;
      const enabled = record['enabled'] ?? true;
      if (typeof enabled !== 'boolean') fields[`${at}.enabled`] = 'must be a boolean';
      const recordMeta = validateRecordMeta(record['meta'], `${at}.meta`, fields);
      const content = record['content'];
      if (!Array.isArray(content)) {
        fields[`${at}.content`] = 'must be an array of the record\'s fields';
        return;
      }
      try {
        const canonical = type.parse(content, zone);
        // RDLENGTH is 16 bits: content that parses but cannot be sent is refused here, not at query time.
        if (type.toWire(canonical).length > 65535) throw new ContentError('the record is longer than 65535 octets on the wire');
        records.push({ content: canonical, enabled: enabled === true, meta: recordMeta });
      } catch (e) {
        if (!(e instanceof ContentError)) throw e;
        fields[`${at}.content`] = e.message;
      }
    });
  }
  if (Object.keys(fields).length > 0) throw invalid('invalid RRset', fields);
  // An RRset holds each record once (RFC 2181 §5); a repeated one is dropped, not refused.
  const unique = [...new Map(records.map((r) => [JSON.stringify(r.content), r])).values()];
  if (unique.length < records.length) warnings.push({ key: 'resource_records', message: 'duplicate records were merged' });
  return { ttl, meta, pickers: chain.length > 0 ? chain : null, records: unique, warnings };
}
