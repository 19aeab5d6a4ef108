// Checks of single content elements shared by the record types, and the Field description that
// fixed-fields.ts builds whole record types from. Clients send numbers as JSON numbers or as numeric
// strings; canonical content holds numbers.
import { uint16, uint8 } from './octets.ts';
import { ContentError } from './record-type.ts';

/** The offending value as error messages quote it, cut short because messages echo client input. */
export function describe(value: unknown): string {
  const text = value === undefined ? 'nothing' : JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

export function integer(value: unknown, label: string, min: number, max: number): number {
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) {
    throw new ContentError(`${label} must be an integer ${min}-${max}, got ${describe(value)}`);
  }
  return number;
}

/** A string that can be stored as UTF-8: a lone surrogate would silently turn into U+FFFD. */
export function text(value: unknown, label: string): string {
  if (typeof value !== 'string') throw new ContentError(`${label} must be a string, got ${describe(value)}`);
  if (!value.isWellFormed()) throw new ContentError(`${label} must be valid Unicode text (it holds a lone surrogate)`);
  return value;
}

/** One RDATA field: its content element, its zone-file token. */
export interface Field {
  readonly name: string;
  /** Validates the content element; returns its canonical value. `label` is "MX preference". */
  parse(value: unknown, label: string): string | number;
  /** Canonical value → presentation token. */
  toText(value: unknown): string;
  /** Zone-file token value → content element as a client would send it. */
  fromText(value: string, origin: string): string;
  /** Canonical value → its octets in the RDATA. */
  toWire(value: unknown): Buffer;
}

/** A field written in zone files exactly as in content. */
export function plainField(name: string, parse: Field['parse'], toWire: Field['toWire']): Field {
  return { name, parse, toText: String, fromText: (value) => value, toWire };
}

/** On the wire one octet or two: RDATA integers of these types are as wide as their range needs. */
export function integerField(name: string, min: number, max: number): Field {
  const toWire = max > 255 ? uint16 : uint8;
  return plainField(name, (value, label) => integer(value, label, min, max), (value) => toWire(Number(value)));
}
