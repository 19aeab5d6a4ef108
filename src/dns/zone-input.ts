// A zone body (create or update) → validated values. Absent fields keep their current value on
// update and take the documented defaults on create; every problem is reported with its field.
import { invalid, type FieldErrors } from '../errors.ts';
import { webhookWriteProblem } from '../events/webhook-target.ts';
import { metaBoundsProblem } from './meta-bounds.ts';
import { canonicalName, NameError, trimName } from './names.ts';
import { contactProblem, maxSerial, soaBounds } from './soa.ts';

export interface ZoneBody {
  name?: unknown;
  contact?: unknown;
  primary_server?: unknown;
  enabled?: unknown;
  serial?: unknown;
  refresh?: unknown;
  retry?: unknown;
  expiry?: unknown;
  nx_ttl?: unknown;
  meta?: unknown;
}

export interface ZoneValues {
  contact?: string;
  primary_server?: string;
  enabled?: boolean;
  refresh?: number;
  retry?: number;
  expiry?: number;
  nx_ttl?: number;
  /** JSON text of the meta object. */
  meta?: string;
  /** A serial the client asked for; honoured only when later than the next one. */
  serial?: number;
}

const webhookMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

function integer(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) ? n : undefined;
}

/** Zone meta arrives as an object or a string holding JSON; it is kept as an object. */
async function zoneMeta(value: unknown, fields: FieldErrors, webhookAllowPrivate: boolean): Promise<string | undefined> {
  let meta = value;
  if (typeof meta === 'string') {
    try {
      meta = meta.trim() === '' ? {} : JSON.parse(meta);
    } catch {
      fields['meta'] = 'must be an object or a string holding a JSON object';
      return undefined;
    }
  }
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) {
    fields['meta'] = 'must be an object or a string holding a JSON object';
    return undefined;
  }
  const bounds = metaBoundsProblem(meta);
  if (bounds !== undefined) {
    fields['meta'] = bounds;
    return undefined;
  }
  const record = meta as Record<string, unknown>;
  const webhook = record['webhook'];
  if (webhook !== undefined && webhook !== '') {
    const problem = typeof webhook === 'string' ? await webhookWriteProblem(webhook, webhookAllowPrivate) : 'must be a URL';
    if (problem !== undefined) fields['meta.webhook'] = problem;
  }
  const method = record['webhook_method'];
  if (method !== undefined) {
    if (typeof method !== 'string' || !webhookMethods.includes(method.toUpperCase())) {
      fields['meta.webhook_method'] = `must be one of ${webhookMethods.join(', ')}`;
    } else {
      record['webhook_method'] = method.toUpperCase();
    }
  }
  return JSON.stringify(record);
}

export function zoneName(value: unknown): string {
  if (value === undefined) throw invalid('zone name is required', { name: 'must be a domain name' });
  if (typeof value !== 'string') throw invalid('zone name must be a string', { name: 'must be a domain name (a string)' });
  try {
    return canonicalName(trimName(value));
  } catch (e) {
    if (e instanceof NameError) throw invalid('invalid zone name', { name: e.message });
    throw e;
  }
}

/** `webhookAllowPrivate`: EDGEPLANE_WEBHOOK_ALLOW_PRIVATE, the destination policy of meta.webhook. */
export async function validateZoneBody(body: ZoneBody, webhookAllowPrivate: boolean): Promise<ZoneValues> {
  const fields: FieldErrors = {};
  const values: ZoneValues = {};
  if (body.contact !== undefined) {
    const problem = typeof body.contact === 'string' ? contactProblem(trimName(body.contact)) : 'must be a string';
    if (problem === undefined) values.contact = trimName(body.contact as string).toLowerCase();
    else fields['contact'] = problem;
  }
  if (body.primary_server !== undefined) {
    try {
      if (typeof body.primary_server !== 'string') throw new NameError('must be a host name');
      values.primary_server = canonicalName(trimName(body.primary_server));
    } catch (e) {
      if (!(e instanceof NameError)) throw e;
      fields['primary_server'] = e.message;
    }
  }
  if (body.enabled !== undefined) {
    if (typeof body.enabled === 'boolean') values.enabled = body.enabled;
    else fields['enabled'] = 'must be a boolean';
  }
  for (const key of ['refresh', 'retry', 'expiry', 'nx_ttl'] as const) {
    if (body[key] === undefined) continue;
    const n = integer(body[key]);
    const [lo, hi] = soaBounds[key];
    if (n === undefined || n < lo || n > hi) fields[key] = `must be an integer ${lo}-${hi} (seconds)`;
    else values[key] = n;
  }
  if (body.serial !== undefined) {
    const n = integer(body.serial);
    if (n === undefined || n < 0 || n > maxSerial) fields['serial'] = `must be an integer 0-${maxSerial}`;
    else values.serial = n;
  }
  if (body.meta !== undefined) {
    const meta = await zoneMeta(body.meta, fields, webhookAllowPrivate);
    if (meta !== undefined) values.meta = meta;
  }
  if (Object.keys(fields).length > 0) throw invalid('invalid zone', fields);
  return values;
}
