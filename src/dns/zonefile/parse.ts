// Zone import: reads a BIND master file (RFC 1035 §5) into owner/TTL/type/RDATA-token entries.
// RDATA stays as tokens for the record type modules (fromText); only the SOA is read here, since it
// sets zone parameters rather than records. Each faulty entry is reported with its line and
// skipped, so one import shows every problem at once.
import { canonicalName, isInZone, NameError } from '../names.ts';
import type { ZoneToken } from '../rrtypes/record-type.ts';
import { tokenizeZoneFile } from './tokenize.ts';
import type { LexedEntry, LexedToken, ZoneFileError } from './tokenize.ts';

export interface ZoneEntry {
  line: number;
  /** Owner: lower case, A-labels, no trailing dot. */
  name: string;
  ttl: number;
  /** Upper case mnemonic, or `TYPE123` for a type written in RFC 3597 form. */
  type: string;
  rdata: ZoneToken[];
  /** The $ORIGIN in force at this entry: relative names inside its RDATA are relative to it. */
  origin: string;
}

export interface SoaEntry {
  line: number;
  name: string;
  ttl: number;
  /** Names without trailing dot, relative ones resolved against the origin. */
  primary_server: string;
  contact: string;
  serial: number;
  refresh: number;
  retry: number;
  expiry: number;
  minimum: number;
}

export interface ParsedZone {
  records: ZoneEntry[];
  soa?: SoaEntry;
  errors: ZoneFileError[];
}

export const maxZoneFileBytes = 10 * 1024 * 1024;
export const maxZoneFileEntries = 100_000;

// RFC 2181 §8: TTLs are 31-bit.
const maxTtl = 2 ** 31 - 1;
// When nothing else gives a default TTL (no $TTL, no earlier entry, no SOA yet).
const fallbackTtl = 3600;

/** A problem with one entry; caught per entry and reported with the entry's line. */
class EntryError extends Error {}

/** `1h`, `1d2h`, `1w`, `300`: BIND's TTL forms; units are w d h m s, any case. */
function parseTtl(text: string): number {
  if (!/^(?:\d+|(?:\d+[wdhms])+)$/i.test(text)) throw new EntryError(`"${text}" is not a TTL (seconds, or units such as 1h30m)`);
  const unitSeconds: Record<string, number> = { w: 604800, d: 86400, h: 3600, m: 60, s: 1 };
  let seconds = 0;
  for (const [, amount = '', unit = ''] of text.matchAll(/(\d+)([wdhms]?)/gi)) {
    // No unit (the all-digits form): seconds.
    seconds += Number(amount) * (unitSeconds[unit.toLowerCase()] ?? 1);
  }
  if (seconds > maxTtl) throw new EntryError(`TTL "${text}" is above ${maxTtl}`);
  return seconds;
}

/** Token values are binary strings (see tokenize.ts); names may hold UTF-8 U-labels. */
function tokenText(token: ZoneToken): string {
  return Buffer.from(token.value, 'latin1').toString('utf8');
}

/** A name as written in the file: `@`, absolute with trailing dot, or relative to `origin`. */
function resolveName(token: LexedToken | undefined, origin: string, what: string, wildcard: boolean): string {
  if (token === undefined) throw new EntryError(`${what} is missing`);
  const text = tokenText(token);
  if (token.quoted) throw new EntryError(`${what} "${text}" must not be a quoted string`);
  // Our names are letters, digits, "-", "_" and "*" only; an escape could hide a dot inside a label.
  if (token.escaped) throw new EntryError(`${what} "${text}" must not use "\\" escapes`);
  if (text === '@') return origin;
  try {
    return canonicalName(text.endsWith('.') ? text : `${text}.${origin}`, { wildcard });
  } catch (error) {
    if (error instanceof NameError) throw new EntryError(`${what} "${text}": ${error.message}`);
    throw error;
  }
}

function plainWord(token: LexedToken | undefined, what: string): string {
  if (token === undefined) throw new EntryError(`${what} is missing`);
  if (token.quoted) throw new EntryError(`${what} must not be a quoted string`);
  return tokenText(token);
}

function parseSerial(token: LexedToken | undefined): number {
  const text = plainWord(token, 'SOA serial');
  const serial = Number(text);
  if (!/^\d+$/.test(text) || serial > 0xffffffff) throw new EntryError(`SOA serial "${text}" is not an integer 0-4294967295`);
  return serial;
}

export function parseZoneFile(text: string, origin: string): ParsedZone {
  if (Buffer.byteLength(text, 'utf8') > maxZoneFileBytes) {
    return { records: [], errors: [{ line: 1, message: `the zone file is larger than ${maxZoneFileBytes / 1024 / 1024} MiB` }] };
  }
  const lexed = tokenizeZoneFile(text, maxZoneFileEntries);
  if (lexed.tooManyEntries) {
    return { records: [], errors: [{ line: 1, message: `the zone file has more than ${maxZoneFileEntries} entries` }] };
  }

  const zone = origin;
  const records: ZoneEntry[] = [];
  const errors: ZoneFileError[] = [...lexed.errors];
  let soa: SoaEntry | undefined;
  let currentOrigin = zone;
  let directiveTtl: number | undefined;
  let previousTtl: number | undefined;
  // Undefined when the previous entry's owner was missing or invalid: blank-owner lines after it
  // are errors rather than records silently attached to an older owner.
  let previousOwner: string | undefined;

  const directive = (entry: LexedEntry, keyword: string): void => {
    const [, argument, extra] = entry.tokens;
    if (keyword === '$INCLUDE') throw new EntryError('$INCLUDE is not supported');
    if (keyword !== '$ORIGIN' && keyword !== '$TTL') throw new EntryError(`unknown directive ${keyword}`);
    if (argument === undefined) throw new EntryError(`${keyword} needs a value`);
    if (extra !== undefined) throw new EntryError(`${keyword} takes one value`);
    if (keyword === '$TTL') directiveTtl = parseTtl(plainWord(argument, '$TTL'));
    else currentOrigin = resolveName(argument, currentOrigin, '$ORIGIN', false);
  };

  const record = (entry: LexedEntry): void => {
    const tokens = entry.tokens;
    let index = 0;
    let name: string;
    if (entry.blankOwner) {
      if (previousOwner === undefined) throw new EntryError('the entry starts with a blank and there is no valid owner to repeat');
      name = previousOwner;
    } else {
      previousOwner = undefined;
      name = resolveName(tokens[0], currentOrigin, 'owner', true);
      index = 1;
      if (!isInZone(name, zone)) throw new EntryError(`owner "${name}" is outside the zone ${zone}`);
      previousOwner = name;
    }

    // TTL and class may come in either order before the type (RFC 1035 §5.1).
    let ttl: number | undefined;
    let classSeen = false;
    let type: string | undefined;
    while (type === undefined) {
      const word = plainWord(tokens[index], 'record type');
      index += 1;
      if (/^\d/.test(word)) {
        if (ttl !== undefined) throw new EntryError(`a second TTL "${word}" where the record type belongs`);
        ttl = parseTtl(word);
      } else if (/^(?:IN|CH|CS|HS|NONE|ANY|CLASS\d+)$/i.test(word)) {
        if (classSeen) throw new EntryError(`a second class "${word}" where the record type belongs`);
        if (!/^(?:IN|CLASS1)$/i.test(word)) throw new EntryError(`class ${word} is not supported; only IN`);
        classSeen = true;
      } else if (/^[A-Z][A-Z0-9-]*$/i.test(word)) {
        type = word.toUpperCase();
      } else {
        throw new EntryError(`"${word}" is not a record type`);
      }
    }
    const rdata = tokens.slice(index);

    if (type === 'SOA') {
      if (name !== zone) throw new EntryError(`the SOA record must be at the zone apex ${zone}`);
      if (soa !== undefined) throw new EntryError(`a second SOA record (the first is on line ${soa.line})`);
      if (rdata.length !== 7) throw new EntryError(`SOA needs 7 fields (primary server, contact, serial, refresh, retry, expiry, minimum), got ${rdata.length}`);
      const [primary, contact, serial, refresh, retry, expiry, minimum] = rdata;
      const minimumSeconds = parseTtl(plainWord(minimum, 'SOA minimum'));
      soa = {
        line: entry.line,
        name,
        ttl: ttl ?? directiveTtl ?? previousTtl ?? minimumSeconds,
        primary_server: resolveName(primary, currentOrigin, 'SOA primary server', false),
        contact: resolveName(contact, currentOrigin, 'SOA contact', false),
        serial: parseSerial(serial),
        refresh: parseTtl(plainWord(refresh, 'SOA refresh')),
        retry: parseTtl(plainWord(retry, 'SOA retry')),
        expiry: parseTtl(plainWord(expiry, 'SOA expiry')),
        minimum: minimumSeconds,
      };
      previousTtl = soa.ttl;
      return;
    }

    const resolvedTtl = ttl ?? directiveTtl ?? previousTtl ?? soa?.minimum ?? fallbackTtl;
    records.push({ line: entry.line, name, ttl: resolvedTtl, type, rdata: rdata.map(({ value, quoted }) => ({ value, quoted })), origin: currentOrigin });
    previousTtl = resolvedTtl;
  };

  for (const entry of lexed.entries) {
    if (entry.broken) {
      if (!entry.blankOwner) previousOwner = undefined;
      continue;
    }
    const first = entry.tokens[0];
    try {
      if (!entry.blankOwner && first !== undefined && !first.quoted && first.value.startsWith('$')) directive(entry, first.value.toUpperCase());
      else record(entry);
    } catch (error) {
      if (!(error instanceof EntryError)) throw error;
      errors.push({ line: entry.line, message: error.message });
    }
  }
  errors.sort((a, b) => a.line - b.line);
  return soa === undefined ? { records, errors } : { records, soa, errors };
}
