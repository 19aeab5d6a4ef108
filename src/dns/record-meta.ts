// Validation of record meta: the keys pickers read are checked, other keys are kept verbatim.
import ipaddr from 'ipaddr.js';
import type { FieldErrors } from '../errors.ts';
import { isContinentCode, isCountryCode } from '../geo/codes.ts';
import { metaBoundsProblem } from './meta-bounds.ts';

type Check = (value: unknown) => string | undefined;

const isInteger = (v: unknown) => (typeof v === 'number' && Number.isInteger(v)) || (typeof v === 'string' && /^\d+$/.test(v));

function isCidrOrAddress(value: string): boolean {
  if (ipaddr.isValid(value)) return true;
  try {
    ipaddr.parseCIDR(value);
    return true;
  } catch {
    return false;
  }
}

/** Each element of an array value (a single value is checked as one element). */
const each =
  (check: (v: unknown) => boolean, what: string): Check =>
  (value) => {
    const values = Array.isArray(value) ? value : [value];
    const bad = values.findIndex((v) => !check(v));
    return bad < 0 ? undefined : `${Array.isArray(value) ? `[${bad}] ` : ''}must be ${what}`;
  };

const checks: Record<string, Check> = {
  asn: each((v) => isInteger(v) && Number(v) <= 4_294_967_295, 'an AS number (integer)'),
  countries: each((v) => typeof v === 'string' && isCountryCode(v), 'an ISO 3166-1 alpha-2 country code'),
  continents: each((v) => typeof v === 'string' && isContinentCode(v), 'a continent code (af, an, as, eu, na, oc, sa)'),
  regions: each((v) => typeof v === 'string' && v.length > 0 && v.length <= 64, 'a region name'),
  ip: each((v) => typeof v === 'string' && isCidrOrAddress(v), 'an IP address or CIDR'),
  notes: each((v) => typeof v === 'string', 'a string'),
  latlong: (v) =>
    Array.isArray(v) &&
    v.length === 2 &&
    typeof v[0] === 'number' &&
    typeof v[1] === 'number' &&
    Math.abs(v[0]) <= 90 &&
    Math.abs(v[1]) <= 180
      ? undefined
      : 'must be [latitude -90..90, longitude -180..180]',
  weight: (v) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 1_000_000 ? undefined : 'must be a number 0-1000000'),
  default: (v) => (typeof v === 'boolean' ? undefined : 'must be a boolean'),
  backup: (v) => (typeof v === 'boolean' ? undefined : 'must be a boolean'),
  fallback: (v) => (typeof v === 'boolean' ? undefined : 'must be a boolean'),
};

export function validateRecordMeta(meta: unknown, path: string, fields: FieldErrors): Record<string, unknown> {
  if (meta === undefined) return {};
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) {
    fields[path] = 'must be an object';
    return {};
  }
  const bounds = metaBoundsProblem(meta);
  if (bounds !== undefined) {
    fields[path] = bounds;
    return {};
  }
  for (const [key, value] of Object.entries(meta)) {
    const problem = checks[key]?.(value);
    if (problem !== undefined) fields[`${path}.${key}${problem.startsWith('[') ? problem.slice(0, problem.indexOf(']') + 1) : ''}`] = problem.replace(/^\[\d+\] /, '');
  }
  return meta as Record<string, unknown>;
}
