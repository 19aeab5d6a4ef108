// Address → ASN from ip-location-db's CSV ranges (RouteViews, the five RIRs and DB-IP; CC BY 4.0).
// About 400k IPv4 and 100k IPv6 inclusive ranges, sorted by start, go into typed arrays (a few MB,
// invisible to the garbage collector) and are binary searched: no allocation per lookup.
import { readFile } from 'node:fs/promises';
import { ipv4, ipv6, parseAddress, type Family } from './address.ts';

/** One family's ranges: `width` words per address, range i at [i * width, (i + 1) * width). */
interface RangeTable {
  width: number;
  starts: Uint32Array;
  ends: Uint32Array;
  asns: Uint32Array;
}

/** Compares the address at `table[offset...]` with `words`: negative, zero or positive. */
function compare(table: Uint32Array, offset: number, words: Uint32Array, width: number): number {
  for (let k = 0; k < width; k++) {
    const a = table[offset + k] ?? 0;
    const b = words[k] ?? 0;
    if (a !== b) return a - b;
  }
  return 0;
}

function lookupIn(table: RangeTable, words: Uint32Array): number | undefined {
  const { width, starts, ends, asns } = table;
  // The last range starting at or before the address; it holds the address if it ends at or after it.
  let low = 0;
  let high = asns.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    if (compare(starts, middle * width, words, width) <= 0) {
      found = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  if (found < 0 || compare(ends, found * width, words, width) < 0) return undefined;
  return asns[found];
}

/** The unsigned decimal in text[start, end), or -1. */
function decimal(text: string, start: number, end: number): number {
  let value = 0;
  for (let i = start; i < end; i++) {
    const digit = text.charCodeAt(i) - 0x30;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return end > start && value <= 0xffffffff ? value : -1;
}

/** Reads `start,end,asn,organisation` lines (addresses as text), in place in the file's text: split
 *  lines and fields would be a million short-lived strings. The organisation is not kept. */
async function loadTable(path: string, family: Family): Promise<RangeTable> {
  const text = (await readFile(path)).toString('latin1');
  let lines = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines++;
  const width = family === ipv4 ? 1 : 4;
  const starts = new Uint32Array((lines + 1) * width);
  const ends = new Uint32Array((lines + 1) * width);
  const asns = new Uint32Array(lines + 1);
  const words = new Uint32Array(4);
  let count = 0;
  for (let line = 1, position = 0; position < text.length; line++) {
    const newline = text.indexOf('\n', position);
    const eol = newline < 0 ? text.length : newline;
    const first = text.indexOf(',', position);
    const second = text.indexOf(',', first + 1);
    const third = text.indexOf(',', second + 1);
    const asn = decimal(text, second + 1, third < 0 || third > eol ? eol : third);
    const fail = first < 0 || second < 0 || second > eol ? 'not a start,end,asn line'
      : asn < 0 ? 'bad ASN'
      : parseAddress(text, words, position, first) !== family ? 'bad range start'
      // Binary search needs ascending starts; an overlap is tolerated (the later range wins inside it).
      : count > 0 && compare(starts, (count - 1) * width, words, width) > 0 ? 'ranges are not sorted'
      : undefined;
    if (fail !== undefined) throw new Error(`${path}:${line}: ${fail}`);
    for (let k = 0; k < width; k++) starts[count * width + k] = words[k] ?? 0;
    if (parseAddress(text, words, first + 1, second) !== family) throw new Error(`${path}:${line}: bad range end`);
    for (let k = 0; k < width; k++) ends[count * width + k] = words[k] ?? 0;
    asns[count++] = asn;
    position = eol + 1;
  }
  // Copies, so the arrays sized by counting newlines are freed.
  return { width, starts: starts.slice(0, count * width), ends: ends.slice(0, count * width), asns: asns.slice(0, count) };
}

export class AsnRanges {
  readonly #v4: RangeTable;
  readonly #v6: RangeTable;

  constructor(v4: RangeTable, v6: RangeTable) {
    this.#v4 = v4;
    this.#v6 = v6;
  }

  /** The ASN announcing or registered for a parsed address (see parseAddress), or undefined. */
  lookup(family: Family, words: Uint32Array): number | undefined {
    return lookupIn(family === ipv4 ? this.#v4 : this.#v6, words);
  }
}

export async function loadAsnRanges(ipv4Csv: string, ipv6Csv: string): Promise<AsnRanges> {
  const [v4, v6] = await Promise.all([loadTable(ipv4Csv, ipv4), loadTable(ipv6Csv, ipv6)]);
  return new AsnRanges(v4, v6);
}
