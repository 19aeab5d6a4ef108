// A MaxMind DB (.mmdb) answering GeoInfo for parsed addresses. mmdb-lib reads the metadata and
// decodes records, but its get() re-parses the address text (split, parseInt) and decodes the
// record again on every call; so we walk the search tree ourselves on the words already parsed and
// keep each record's few fields once decoded: per record, never per address, and bounded. The file
// is read into shared memory: every thread of a process searches the same bytes.
import { open } from 'node:fs/promises';
import { Reader, type Response as MmdbRecord } from 'mmdb-lib';
import { ipv4, type Family } from './address.ts';
import { continentOf } from './codes.ts';
import type { GeoInfo } from './geo-info.ts';

/** Decoded records kept: every record of a country database (a few hundred), the busiest of a city one. */
const cachedRecords = 20_000;

const member = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
const code = (value: unknown) => (typeof value === 'string' && value !== '' ? value.toUpperCase() : undefined);
const number = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** The fields we use, from MaxMind's GeoIP2/GeoLite2 shapes (Country, City, ASN) or ip-location-db's flat one. */
function geoOf(record: unknown): GeoInfo {
  const country = code(member(member(record, 'country'), 'iso_code'))
    // Where the network is registered, when MaxMind knows no better (anycast, satellite).
    ?? code(member(member(record, 'registered_country'), 'iso_code'))
    ?? code(member(record, 'country_code'));
  const continent = code(member(member(record, 'continent'), 'code')) ?? (country === undefined ? undefined : continentOf(country));
  const asn = number(member(record, 'autonomous_system_number')) ?? number(member(member(record, 'traits'), 'autonomous_system_number'));
  const place = member(record, 'location') ?? record;
  const latitude = number(member(place, 'latitude'));
  const longitude = number(member(place, 'longitude'));
  const location: [number, number] | undefined = latitude === undefined || longitude === undefined ? undefined : [latitude, longitude];
  const subdivisions = member(record, 'subdivisions');
  const regions = (Array.isArray(subdivisions) ? subdivisions : []).flatMap((subdivision: unknown) => {
    const iso = code(member(subdivision, 'iso_code'));
    const name = code(member(member(subdivision, 'names'), 'en'));
    return [...(iso === undefined || country === undefined ? [] : [`${country}-${iso}`]), ...(name === undefined ? [] : [name])];
  });
  return { country, continent, asn, location, regions };
}

const hex = (word: number) => `${(word >>> 16).toString(16)}:${(word & 0xffff).toString(16)}`;

/** Parsed words back to text, for mmdb-lib to decode a record we have not seen yet. */
function addressText(family: Family, words: Uint32Array): string {
  const [a = 0, b = 0, c = 0, d = 0] = words;
  return family === ipv4
    ? `${a >>> 24}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.${a & 255}`
    : `${hex(a)}:${hex(b)}:${hex(c)}:${hex(d)}`;
}

export class MmdbGeo {
  readonly #db: Buffer;
  readonly #reader: Reader<MmdbRecord>;
  readonly #nodeCount: number;
  readonly #recordSize: number;
  readonly #hasIpv6: boolean;
  /** Where IPv4 addresses start in an IPv6 tree: ::/96, 96 left turns down from the root. */
  readonly #ipv4Root: number;
  readonly #records = new Map<number, GeoInfo>();

  /** `bytes`: the whole file (see readMmdb); only read, never copied. */
  constructor(bytes: Uint8Array) {
    const db = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.#db = db;
    this.#reader = new Reader<MmdbRecord>(db);
    const { nodeCount, recordSize, ipVersion } = this.#reader.metadata;
    this.#nodeCount = nodeCount;
    this.#recordSize = recordSize;
    this.#hasIpv6 = ipVersion === 6;
    let node = 0;
    for (let depth = 0; this.#hasIpv6 && depth < 96 && node < nodeCount; depth++) node = this.#child(node, 0);
    this.#ipv4Root = node;
  }

  /** The record a node's left (0) or right (1) branch points to: a node, nodeCount (no data) or data. */
  #child(node: number, bit: number): number {
    const db = this.#db;
    switch (this.#recordSize) {
      case 24:
        return db.readUIntBE(node * 6 + bit * 3, 3);
      case 28: {
        // 3 bytes each side; the middle byte holds the top 4 bits of both records.
        const middle = db.readUInt8(node * 7 + 3);
        return bit === 0 ? ((middle & 0xf0) << 20) + db.readUIntBE(node * 7, 3) : ((middle & 0x0f) << 24) + db.readUIntBE(node * 7 + 4, 3);
      }
      default:
        return db.readUInt32BE(node * 8 + bit * 4);
    }
  }

  /** The database's answer for a parsed address (see parseAddress), or undefined when it has none. */
  lookup(family: Family, words: Uint32Array): GeoInfo | undefined {
    if (family !== ipv4 && !this.#hasIpv6) return undefined;
    const bits = family === ipv4 ? 32 : 128;
    let node = family === ipv4 ? this.#ipv4Root : 0;
    for (let depth = 0; depth < bits && node < this.#nodeCount; depth++) {
      node = this.#child(node, ((words[depth >>> 5] ?? 0) >>> (31 - (depth & 31))) & 1);
    }
    // Past nodeCount is a pointer into the data section; the record's position is its identity.
    if (node <= this.#nodeCount) return undefined;
    let geo = this.#records.get(node);
    if (geo === undefined) {
      geo = geoOf(this.#reader.get(addressText(family, words)));
      if (this.#records.size >= cachedRecords) {
        for (const oldest of this.#records.keys()) {
          this.#records.delete(oldest);
          break;
        }
      }
      this.#records.set(node, geo);
    }
    return geo;
  }
}

/** Reads a .mmdb file into shared memory (a worker thread it is sent to gets the same bytes, not a
 *  copy) and checks it opens; the error names the file and says what is wrong with it. */
export async function readMmdb(path: string): Promise<Uint8Array> {
  let bytes: Uint8Array;
  try {
    const file = await open(path);
    try {
      const { size } = await file.stat();
      bytes = new Uint8Array(new SharedArrayBuffer(size));
      // read() may return fewer bytes than asked: a file that changes size meanwhile is caught below.
      for (let at = 0; at < size; ) {
        const { bytesRead } = await file.read(bytes, at, size - at, at);
        if (bytesRead === 0) throw new Error('the file shrank while it was read');
        at += bytesRead;
      }
    } finally {
      await file.close();
    }
  } catch (e) {
    throw new Error(`GeoIP database ${path} cannot be read: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  try {
    new MmdbGeo(bytes);
  } catch (e) {
    throw new Error(`GeoIP database ${path} is not a MaxMind DB (.mmdb): ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  return bytes;
}
