// SvcParams of HTTPS and SVCB records (RFC 9460 §7, dohpath RFC 9461). In content each is an array
// `[key, ...values]`; in zone files `key=value,value` or a bare `key`; on the wire (RFC 9460 §2.2)
// a uint16 key, a uint16 length and the value's octets.
import { ipv4, ipv4Octets, ipv6, ipv6Octets } from './addresses.ts';
import { describe, integer, text } from './fields.ts';
import { characterString, uint16 } from './octets.ts';
import { quoteText, textFromPresentation } from './presentation-text.ts';
import { ContentError, type ContentValue, type ZoneToken } from './record-type.ts';

type ParamValue = string | number;

interface ParamSpec {
  readonly name: string;
  /** Written in zone files as a comma-separated list. */
  readonly list: boolean;
  /** Validates the values; returns the canonical ones. `label` is "HTTPS alpn". */
  parse(values: readonly unknown[], label: string): ParamValue[];
  /** Canonical values → the value's octets. */
  toWire(values: readonly ParamValue[]): Buffer;
}

function expectCount(values: readonly unknown[], label: string, min: number, max: number): void {
  if (values.length >= min && values.length <= max) return;
  if (max === 0) throw new ContentError(`${label} takes no value, got ${values.length}`);
  if (min === max) throw new ContentError(`${label} takes exactly ${min} value, got ${values.length}`);
  if (max === Infinity) throw new ContentError(`${label} needs at least ${min} value, got none`);
  throw new ContentError(`${label} takes at most ${max} value, got ${values.length}`);
}

/** The key number of a name such as "ALPN" or "key1"; undefined for an unknown name. */
function keyNumber(key: unknown): number | undefined {
  if (typeof key !== 'string') return undefined;
  const name = key.toLowerCase();
  const known = keyNames.indexOf(name);
  if (known !== -1) return known;
  const generic = /^key(\d{1,5})$/.exec(name);
  const number = Number(generic?.[1]);
  return number <= 65535 ? number : undefined;
}

/** The key number of a key name in canonical content, which parseParams only lets known names into. */
function canonicalKeyNumber(key: unknown): number {
  const number = keyNumber(key);
  if (number === undefined) throw new TypeError(`${describe(key)} is not an SvcParamKey: content was not from parse()`);
  return number;
}

function keyName(number: number): string {
  return keyNames[number] ?? `key${number}`;
}

function mandatoryKeys(values: readonly unknown[], label: string): string[] {
  expectCount(values, label, 1, Infinity);
  const numbers = values.map((value) => {
    const number = keyNumber(value);
    if (number === undefined) throw new ContentError(`${label} lists an unknown key ${describe(value)}`);
    if (number === 0) throw new ContentError(`${label} must not list itself`);
    return number;
  });
  numbers.sort((x, y) => x - y);
  numbers.forEach((number, index) => {
    if (numbers[index - 1] === number) throw new ContentError(`${label} lists ${keyName(number)} twice`);
  });
  return numbers.map(keyName);
}

/** A parse that checks the values one by one, at least `min` and at most `max` of them. */
function each(min: number, max: number, check: (value: unknown, label: string) => ParamValue): ParamSpec['parse'] {
  return (values, label) => {
    expectCount(values, label, min, max);
    return values.map((value) => check(value, label));
  };
}

// Protocol ids are written comma-separated; RFC 9460 would need a second escaping level for a comma or
// backslash inside one, and no registered id has either.
function alpnId(value: unknown, label: string): string {
  const id = text(value, label);
  if (id === '' || Buffer.byteLength(id, 'utf8') > 255 || /[,\\]/.test(id)) {
    throw new ContentError(`${label} protocol ids must be 1-255 octets without "," or "\\", got ${describe(value)}`);
  }
  return id;
}

function base64(value: unknown, label: string): string {
  if (typeof value !== 'string' || value === '' || !/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(value)) {
    throw new ContentError(`${label} must be one base64 string, got ${describe(value)}`);
  }
  return value;
}

/** A wire value that is the values' encodings one after the other (a single value is a list of one). */
function concatenated(encode: (value: ParamValue) => Buffer): ParamSpec['toWire'] {
  return (values) => Buffer.concat(values.map(encode));
}

const utf8 = concatenated((value) => Buffer.from(String(value), 'utf8'));

// Indexed by key number.
const specs: readonly ParamSpec[] = [
  { name: 'mandatory', list: true, parse: mandatoryKeys, toWire: concatenated((key) => uint16(canonicalKeyNumber(key))) },
  {
    name: 'alpn',
    list: true,
    parse: each(1, Infinity, alpnId),
    toWire: concatenated((id) => characterString(Buffer.from(String(id), 'utf8'))),
  },
  { name: 'no-default-alpn', list: false, parse: each(0, 0, text), toWire: () => Buffer.alloc(0) },
  {
    name: 'port',
    list: false,
    parse: each(1, 1, (value, label) => integer(value, label, 0, 65535)),
    toWire: concatenated((port) => uint16(Number(port))),
  },
  { name: 'ipv4hint', list: true, parse: each(1, Infinity, ipv4), toWire: concatenated((address) => ipv4Octets(String(address))) },
  { name: 'ech', list: false, parse: each(1, 1, base64), toWire: concatenated((config) => Buffer.from(String(config), 'base64')) },
  { name: 'ipv6hint', list: true, parse: each(1, Infinity, ipv6), toWire: concatenated((address) => ipv6Octets(String(address))) },
  { name: 'dohpath', list: false, parse: each(1, 1, text), toWire: utf8 },
];

const keyNames = specs.map((spec) => spec.name);

/** Keys without a name carry opaque octets, given as one string; an empty value is the same as none. */
function opaque(values: readonly unknown[], label: string): string[] {
  expectCount(values, label, 0, 1);
  return values.map((value) => text(value, label)).filter((value) => value !== '');
}

/** Validates the parameters of one record; returns them canonical: sorted by key number, keys named. */
export function parseParams(params: readonly unknown[], type: string): ContentValue[] {
  const parsed = params.map((param) => {
    if (!Array.isArray(param) || param.length === 0) {
      throw new ContentError(`${type} parameter must be an array [key, values...], got ${describe(param)}`);
    }
    const [key, ...values] = param as unknown[];
    const number = keyNumber(key);
    if (number === undefined) {
      throw new ContentError(`${type} parameter key must be a known key name or keyNNNNN (0-65535), got ${describe(key)}`);
    }
    const label = `${type} ${keyName(number)}`;
    return { number, values: (specs[number]?.parse ?? opaque)(values, label) };
  });
  parsed.sort((x, y) => x.number - y.number);
  parsed.forEach(({ number }, index) => {
    if (parsed[index - 1]?.number === number) throw new ContentError(`${type} parameter ${keyName(number)} appears twice`);
  });
  const present = new Set(parsed.map(({ number }) => keyName(number)));
  for (const required of parsed.find(({ number }) => number === 0)?.values ?? []) {
    if (!present.has(String(required))) throw new ContentError(`${type} mandatory lists ${required}, which is not present`);
  }
  // RFC 9460 §7.1.1: without alpn, no-default-alpn would leave a client no protocol to use.
  if (present.has('no-default-alpn') && !present.has('alpn')) throw new ContentError(`${type} no-default-alpn requires alpn`);
  return parsed.map(({ number, values }) => [keyName(number), ...values]);
}

/** Canonical parameters, already in increasing key order as §2.2 requires → their wire form. */
export function paramsToWire(params: readonly ContentValue[]): Buffer {
  return Buffer.concat(
    params.flatMap((param) => {
      const [key, ...values] = Array.isArray(param) ? param : [param];
      const number = canonicalKeyNumber(key);
      // Keys without a name: the opaque value's UTF-8 octets, or nothing.
      const value = (specs[number]?.toWire ?? utf8)(values);
      return [uint16(number), uint16(value.length), value];
    }),
  );
}

/** A value list bare when it is a plain word, else quoted and escaped. */
function presentationValue(value: string): string {
  return /^[\x21-\x7e]+$/.test(value) && !/["\\;()]/.test(value) ? value : quoteText(value);
}

export function paramsToText(params: readonly ContentValue[]): string[] {
  return params.map((param) => {
    const [key = '', ...values] = Array.isArray(param) ? param : [param];
    return values.length === 0 ? String(key) : `${key}=${presentationValue(values.join(','))}`;
  });
}

function paramFromText(key: string, value: string): ContentValue {
  const decoded = textFromPresentation(value);
  const number = keyNumber(key);
  const list = number !== undefined && specs[number]?.list === true;
  return [key, ...(list ? decoded.split(',') : [decoded])];
}

/**
 * Zone-file parameter tokens → content. A quoted value may arrive inside its token (`alpn="h3,h2"`) or,
 * when the tokenizer splits at the quote, as the quoted token after `alpn=`.
 */
export function paramsFromText(tokens: readonly ZoneToken[]): ContentValue[] {
  const params: ContentValue[] = [];
  for (let index = 0; index < tokens.length; index += 1) {
    const word = tokens[index]?.value ?? '';
    const separator = word.indexOf('=');
    if (separator === -1) {
      params.push([word]);
      continue;
    }
    let value = word.slice(separator + 1);
    const next = tokens[index + 1];
    if (value === '' && next?.quoted === true) {
      value = next.value;
      index += 1;
    } else if (/^".*"$/s.test(value)) {
      value = value.slice(1, -1);
    }
    params.push(paramFromText(word.slice(0, separator), value));
  }
  return params;
}
