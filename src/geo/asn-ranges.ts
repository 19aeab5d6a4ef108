// Address → ASN from ip-location-db's CSV ranges (RouteViews, the five RIRs and DB-IP; CC BY 4.0).
// About 400k IPv4 and 100k IPv6 inclusive ranges, sorted by start, go into typed arrays (about 8 MB,
// invisible to the garbage collector) and are binary searched: no allocation per lookup. The arrays
// are in shared memory: a process parses the files once and hands the tables to every thread.
import { open } from 'node:fs/promises';
import { ipv4, ipv6, parseAddress, type Family } from './address.ts';

/** One family's ranges: `width` words per address, range i at [i * width, (i + 1) * width). */
export interface RangeTable {
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

/** Bytes read at a time: a chunk's text is an ordinary young string, where the whole file's would be
 *  24 MB held outside the heap until some full collection, long after loading. */
const chunkBytes = 256 * 1024;

/** Calls `onLine` for each line of the file as `text[start, end)` of a chunk's text (split lines
 *  would be a million short-lived strings), with its line number. */
async function eachLine(path: string, onLine: (text: string, start: number, end: number, line: number) => void): Promise<void> {
  const file = await open(path);
  try {
    const chunk = Buffer.allocUnsafe(chunkBytes);
    let carry = '';
    let line = 0;
    for (;;) {
      const { bytesRead } = await file.read(chunk, 0, chunkBytes, null);
      const text = carry + chunk.toString('latin1', 0, bytesRead);
      let position = 0;
      for (let newline = text.indexOf('\n'); newline >= 0; newline = text.indexOf('\n', position)) {
        onLine(text, position, newline, ++line);
        position = newline + 1;
      }
      carry = text.slice(position);
      if (bytesRead === 0) {
        if (carry !== '') onLine(carry, 0, carry.length, ++line);
        return;
      }
    }
  } finally {
    await file.close();
  }
}

/** A typed array of `length` words in memory worker threads share rather than copy. */
const shared = (length: number) => new Uint32Array(new SharedArrayBuffer(length * Uint32Array.BYTES_PER_ELEMENT));

/** Reads `start,end,asn,organisation` lines (addresses as text), in place in the text read: the
 *  organisation is not kept. The file is read twice, first to count its lines: the tables are
 *  made at their exact size, once. */
async function loadTable(path: string, family: Family): Promise<RangeTable> {
  let lines = 0;
  await eachLine(path, () => lines++);
  const width = family === ipv4 ? 1 : 4;
  const table = { width, starts: shared(lines * width), ends: shared(lines * width), asns: shared(lines) };
  const { starts, ends, asns } = table;
  const words = new Uint32Array(4);
  let count = 0;
  await eachLine(path, (text, position, eol, line) => {
    const first = text.indexOf(',', position);
    const second = text.indexOf(',', first + 1);
    const third = text.indexOf(',', second + 1);
    const asn = decimal(text, second + 1, third < 0 || third > eol ? eol : third);
    const fail = count === lines ? 'the file grew while it was read'
      : first < 0 || second < 0 || second > eol ? 'not a start,end,asn line'
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
  });
  if (count !== lines) throw new Error(`${path}: the file shrank while it was read`);
  return table;
}

/** Both families' tables: structured-cloneable, and shared, not copied, when sent to a worker thread. */
export interface AsnTables {
  v4: RangeTable;
  v6: RangeTable;
}

export class AsnRanges {
  readonly #v4: RangeTable;
  readonly #v6: RangeTable;

  constructor(tables: AsnTables) {
    this.#v4 = tables.v4;
    this.#v6 = tables.v6;
  }

  /** The ASN announcing or registered for a parsed address (see parseAddress), or undefined. */
  lookup(family: Family, words: Uint32Array): number | undefined {
    return lookupIn(family === ipv4 ? this.#v4 : this.#v6, words);
  }
}

export async function loadAsnTables(ipv4Csv: string, ipv6Csv: string): Promise<AsnTables> {
  const [v4, v6] = await Promise.all([loadTable(ipv4Csv, ipv4), loadTable(ipv6Csv, ipv6)]);
  return { v4, v6 };
}
