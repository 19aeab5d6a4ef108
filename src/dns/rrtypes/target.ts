// Domain names inside RDATA. Content carries them absolute, with the trailing dot kept as the client
// sent it (clients compare what they read back with what they wrote); zone files write them fully
// qualified or relative to the origin.
import { canonicalName, NameError } from '../names.ts';
import { canonicalWireName } from '../wire/name.ts';
import { describe, type Field } from './fields.ts';
import { ContentError } from './record-type.ts';

export interface TargetRules {
  /** Accept the root "." (null MX, SRV "no service", SVCB AliasMode/ServiceMode owner). */
  root?: boolean;
}

export function hostName(value: unknown, label: string, rules: TargetRules = {}): string {
  if (typeof value !== 'string') throw new ContentError(`${label} must be a host name, got ${describe(value)}`);
  if (value === '.') {
    if (rules.root) return value;
    throw new ContentError(`${label} must not be the root "."`);
  }
  try {
    return canonicalName(value) + (value.endsWith('.') ? '.' : '');
  } catch (error) {
    if (error instanceof NameError) throw new ContentError(`${label} is not a valid host name: ${error.message}`);
    throw error;
  }
}

/** Content names are absolute whether or not they end in a dot; zone files need the dot. */
export function fullyQualified(name: string): string {
  return name.endsWith('.') ? name : `${name}.`;
}

/** A zone-file name → the absolute name without trailing dot ("." stays "."). */
export function nameFromText(name: string, origin: string): string {
  const base = origin.endsWith('.') ? origin.slice(0, -1) : origin;
  if (name === '@') return base;
  if (name === '.') return name;
  if (name.endsWith('.')) return name.slice(0, -1);
  return `${name}.${base}`;
}

/** A content name → its canonical wire form; canonicalWireName wants it without the trailing dot. */
export function wireName(name: string): Buffer {
  return canonicalWireName(name === '.' ? '' : name.replace(/\.$/, ''));
}

export function targetField(name: string, rules: TargetRules = {}): Field {
  return {
    name,
    parse: (value, label) => hostName(value, label, rules),
    toText: (value) => fullyQualified(String(value)),
    fromText: nameFromText,
    toWire: (value) => wireName(String(value)),
  };
}
