// Validation of an RRset's picker chain (see shared/spec/compat.md, "Pickers"): known types,
// `limit` and `strict`. The per-query behaviour of each picker lives beside this file.
import type { FieldErrors } from '../../errors.ts';

export const pickerTypes = [
  'geodns',
  'asn',
  'country',
  'continent',
  'region',
  'ip',
  'default',
  'geodistance',
  'weighted_shuffle',
  'first_n',
  'healthcheck',
  'is_healthy',
] as const;
export type PickerType = (typeof pickerTypes)[number];

export interface Picker {
  type: PickerType;
  limit: number;
  strict: boolean;
}

const maxPickers = 16;

export function validatePickers(input: unknown, path: string, fields: FieldErrors): Picker[] {
  if (!Array.isArray(input)) {
    fields[path] = 'must be an array of pickers';
    return [];
  }
  if (input.length > maxPickers) fields[path] = `at most ${maxPickers} pickers`;
  return input.slice(0, maxPickers).map((raw: unknown, i) => {
    const at = `${path}[${i}]`;
    const picker = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    const type = typeof picker['type'] === 'string' ? picker['type'].toLowerCase() : undefined;
    if (!pickerTypes.includes(type as PickerType)) fields[`${at}.type`] = `unknown picker type; expected one of ${pickerTypes.join(', ')}`;
    const limit = picker['limit'] ?? 0;
    const limitNumber = typeof limit === 'string' && /^\d+$/.test(limit) ? Number(limit) : limit;
    if (typeof limitNumber !== 'number' || !Number.isInteger(limitNumber) || limitNumber < 0 || limitNumber > 1000) {
      fields[`${at}.limit`] = 'must be an integer 0-1000 (0: no limit)';
    }
    const strict = picker['strict'] ?? false;
    if (typeof strict !== 'boolean') fields[`${at}.strict`] = 'must be a boolean';
    return { type: type as PickerType, limit: Number(limitNumber) || 0, strict: strict === true };
  });
}
