// A zone's static RRsets as one compact, immutable image in shared memory (docs/dns-server.md,
// "Memory"): built once per process from the rows at load, read by every DNS thread. The image is
// never written after it is built, so a thread reading it can never see half a change; changes made
// since go to each thread's own overlay (zone-view.ts).
//
// Two regions. The data region holds one entry per owner name, one after another:
//   name length (u8), name (latin1: lower case, no trailing dot), names below it (u32 LE: how many
//   owner names with data lie under it, for empty non-terminals), RRset count (u8: 0 for an empty
//   non-terminal), then per RRset: type (u16 LE), TTL (u32 LE), record count (u16 LE), whether each
//   record carries the name its RDATA ends in (u8), and per record its RDATA's length (u16 LE), its
//   wire octets and, when it carries one, the name's length (u8) and the name.
// The index is an open-addressing hash table (linear probing, at most half full) of owner names:
// each slot 0 (empty) or an entry's offset + 1.
import type { ServedRrset } from './served-rrset.ts';
import { parentOf, type ZoneNode } from './zone-view.ts';

/** What crosses to another thread: shared memory, never copied. */
export interface ZoneImageData {
  data: SharedArrayBuffer;
  index: SharedArrayBuffer;
  /** Octets of the data region in use. */
  length: number;
  /** The length of the zone's name: what every owner name ends with, left out of the hash. */
  suffix: number;
  /** Owner names with data (not counting empty non-terminals). */
  names: number;
}

/** Offsets are u32: an image stays below 4 GiB, and a zone larger than that keeps the rest per thread. */
const maxImageBytes = 0xffff_0000;
const chunkBytes = 1 << 20;
/** Decoded nodes each thread keeps, by a hash of their offset: hot names are decoded once. */
const keptBits = 13;
const keptNodes = 1 << keptBits;

// FNV-1a over a name's length and its characters before the zone's name (`suffix` characters, the
// same in every name of the zone): `host1.example.com` costs six characters, not seventeen.
function hashOf(name: string, suffix: number): number {
  let h = Math.imul(0x811c9dc5 ^ name.length, 0x01000193);
  const end = name.length > suffix ? name.length - suffix : name.length;
  for (let i = 0; i < end; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function hashOfBytes(bytes: Uint8Array, start: number, length: number, suffix: number): number {
  let h = Math.imul(0x811c9dc5 ^ length, 0x01000193);
  const end = start + (length > suffix ? length - suffix : length);
  for (let i = start; i < end; i++) h = Math.imul(h ^ (bytes[i] ?? 0), 0x01000193);
  return h >>> 0;
}

const beyondLatin1 = /[\u{100}-\u{10ffff}]/u;

/** A name the image can hold: at most 255 latin1 characters. */
function fits(name: string): boolean {
  return name.length <= 255 && !beyondLatin1.test(name);
}

/** Octets an entry takes with `rrsets`, or undefined when the image cannot hold it (kept per thread). */
function entrySize(name: string, rrsets: readonly ServedRrset[]): number | undefined {
  if (!fits(name) || rrsets.length > 255) return undefined;
  let size = 1 + name.length + 4 + 1;
  for (const rrset of rrsets) {
    // RRsets with pickers hold per-record state each thread keeps (health), and compiled matches.
    if (rrset.pickers !== null) return undefined;
    const rdata = typeof rrset.rdata === 'string' ? [rrset.rdata] : rrset.rdata;
    if (rdata.length > 0xffff) return undefined;
    size += 9;
    for (const value of rdata) size += 2 + value.length;
    if (rrset.names !== undefined) {
      const names = typeof rrset.names === 'string' ? [rrset.names] : rrset.names;
      if (names.length !== rdata.length) return undefined;
      for (const value of names) {
        if (!fits(value)) return undefined;
        size += 1 + value.length;
      }
    }
  }
  return size;
}

/** Builds an image from a zone's owner names, page by page, in fixed-size chunks copied once at the end. */
export class ZoneImageBuilder {
  readonly #apex: string;
  readonly #chunks: Buffer[] = [];
  #chunk: Buffer = Buffer.alloc(0);
  #used = 0;
  /** Octets in the finished chunks. */
  #before = 0;
  #names = 0;
  /** For every name above an entry (up to the apex): how many entries lie below it. */
  readonly #below = new Map<string, number>();

  constructor(apex: string) {
    this.#apex = apex;
  }

  /** Adds an owner name with data; false when the image cannot hold it (the caller keeps it per thread). */
  add(name: string, rrsets: readonly ServedRrset[]): boolean {
    const size = rrsets.length === 0 ? undefined : entrySize(name, rrsets);
    if (size === undefined || this.#before + this.#used + size > maxImageBytes) return false;
    if (this.#used + size > this.#chunk.length) {
      if (this.#used > 0) this.#chunks.push(this.#chunk.subarray(0, this.#used));
      this.#before += this.#used;
      this.#chunk = Buffer.allocUnsafeSlow(Math.max(chunkBytes, size));
      this.#used = 0;
    }
    const out = this.#chunk;
    let at = this.#used;
    at = out.writeUInt8(name.length, at);
    at += out.write(name, at, 'latin1');
    at = out.writeUInt32LE(0, at);
    at = out.writeUInt8(rrsets.length, at);
    for (const rrset of rrsets) {
      const rdata = typeof rrset.rdata === 'string' ? [rrset.rdata] : rrset.rdata;
      const names = rrset.names === undefined ? undefined : typeof rrset.names === 'string' ? [rrset.names] : rrset.names;
      at = out.writeUInt16LE(rrset.type, at);
      at = out.writeUInt32LE(rrset.ttl, at);
      at = out.writeUInt16LE(rdata.length, at);
      at = out.writeUInt8(names === undefined ? 0 : 1, at);
      for (const [i, value] of rdata.entries()) {
        at = out.writeUInt16LE(value.length, at);
        at += out.write(value, at, 'latin1');
        if (names !== undefined) {
          const target = names[i] ?? '';
          at = out.writeUInt8(target.length, at);
          at += out.write(target, at, 'latin1');
        }
      }
    }
    this.#used = at;
    this.#names++;
    for (let parent = parentOf(name); parent !== undefined && parent.length >= this.#apex.length; parent = parentOf(parent)) {
      this.#below.set(parent, (this.#below.get(parent) ?? 0) + 1);
      if (parent === this.#apex) break;
    }
    return true;
  }

  /** The image: the entries copied into shared memory, the empty non-terminals added, the index built. */
  finish(): ZoneImage {
    if (this.#used > 0) this.#chunks.push(this.#chunk.subarray(0, this.#used));
    this.#chunk = Buffer.alloc(0);
    const dataBytes = this.#before + this.#used;
    let entBytes = 0;
    for (const name of this.#below.keys()) entBytes += fits(name) ? 1 + name.length + 5 : 0;
    const data = new SharedArrayBuffer(dataBytes + entBytes);
    const bytes = Buffer.from(data);
    let length = 0;
    for (const chunk of this.#chunks) length += chunk.copy(bytes, length);
    this.#chunks.length = 0;
    const slots = 2 ** Math.ceil(Math.log2(Math.max(8, 2 * (this.#names + this.#below.size))));
    const index = new SharedArrayBuffer(slots * 4);
    const suffix = this.#apex.length;
    const table = new Uint32Array(index);
    const insert = (offset: number) => {
      const len = bytes[offset] ?? 0;
      const mask = slots - 1;
      let slot = hashOfBytes(bytes, offset + 1, len, suffix) & mask;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = offset + 1;
    };
    for (let at = 0; at < length; at = entryEnd(bytes, at)) insert(at);
    // Names above entries: an entry's count is set in place; any other is an empty non-terminal.
    for (const [name, count] of this.#below) {
      const own = findIn(bytes, table, name, suffix);
      if (own >= 0) bytes.writeUInt32LE(count, own + 1 + name.length);
      else if (fits(name)) {
        const at = length;
        length = bytes.writeUInt8(name.length, length);
        length += bytes.write(name, length, 'latin1');
        length = bytes.writeUInt32LE(count, length);
        length = bytes.writeUInt8(0, length);
        insert(at);
      }
    }
    this.#below.clear();
    return new ZoneImage({ data, index, length, suffix, names: this.#names });
  }
}

/** The offset of `name`'s entry (with data or an empty non-terminal), or −1. */
function findIn(bytes: Buffer, table: Uint32Array, name: string, suffix: number): number {
  const len = name.length;
  if (len > 255) return -1;
  const mask = table.length - 1;
  for (let slot = hashOf(name, suffix) & mask; ; slot = (slot + 1) & mask) {
    const entry = table[slot] ?? 0;
    if (entry === 0) return -1;
    const at = entry - 1;
    if (bytes[at] !== len) continue;
    let i = 0;
    while (i < len && bytes[at + 1 + i] === name.charCodeAt(i)) i++;
    if (i === len) return at;
  }
}

/** Where the entry at `at` ends. */
function entryEnd(bytes: Buffer, at: number): number {
  let next = at + 1 + (bytes[at] ?? 0) + 4;
  const rrsets = bytes[next++] ?? 0;
  for (let r = 0; r < rrsets; r++) {
    const count = bytes.readUInt16LE(next + 6);
    const named = bytes[next + 8] === 1;
    next += 9;
    for (let i = 0; i < count; i++) {
      next += 2 + bytes.readUInt16LE(next);
      if (named) next += 1 + (bytes[next] ?? 0);
    }
  }
  return next;
}

/**
 * Octets as a latin1 string. A and AAAA RDATA (4 and 16 octets, most of a zone) are made from the
 * octets directly: several times faster than a Buffer's decoder for strings this short.
 */
function latin1Of(bytes: Buffer, start: number, end: number): string {
  const b = (i: number) => bytes[start + i] ?? 0;
  if (end - start === 4) return String.fromCharCode(b(0), b(1), b(2), b(3));
  if (end - start === 16) return String.fromCharCode(b(0), b(1), b(2), b(3), b(4), b(5), b(6), b(7), b(8), b(9), b(10), b(11), b(12), b(13), b(14), b(15));
  return bytes.toString('latin1', start, end);
}

/** One record's value alone, several in an array (served-rrset.ts's PerRecord). */
function perRecord(values: string[]): string | string[] {
  return values.length === 1 ? (values[0] ?? '') : values;
}

/** A thread's reader of an image: the same shared bytes in every thread, its own decoded nodes. */
export class ZoneImage {
  readonly data: ZoneImageData;
  readonly #bytes: Buffer;
  readonly #table: Uint32Array;
  /**
   * Recently decoded nodes, each in the slot its offset hashes to (a newer one takes the slot): the
   * same objects answer again, and the signer keeps its signatures by RRset object.
   */
  readonly #keptAt = new Int32Array(keptNodes).fill(-1);
  readonly #kept = new Array<ZoneNode | undefined>(keptNodes).fill(undefined);
  /** The last name found: one query asks for its name several times (delegation, answer, proof). */
  #lastName: string | undefined;
  #lastAt = -1;

  constructor(data: ZoneImageData) {
    this.data = data;
    this.#bytes = Buffer.from(data.data);
    this.#table = new Uint32Array(data.index);
  }

  get names(): number {
    return this.data.names;
  }

  /** The offset of `name`'s entry (with data or an empty non-terminal), or −1. */
  find(name: string): number {
    if (name === this.#lastName) return this.#lastAt;
    const at = findIn(this.#bytes, this.#table, name, this.data.suffix);
    this.#lastName = name;
    this.#lastAt = at;
    return at;
  }

  /** Whether the entry at `at` owns data (else it is an empty non-terminal). */
  hasData(at: number): boolean {
    return (this.#bytes[at + 1 + (this.#bytes[at] ?? 0) + 4] ?? 0) > 0;
  }

  /** How many owner names with data the image has below the entry at `at`. */
  below(at: number): number {
    return this.#bytes.readUInt32LE(at + 1 + (this.#bytes[at] ?? 0));
  }

  /** The RRsets of the entry at `at`, decoded once while it is in use. */
  node(at: number): ZoneNode {
    const slot = Math.imul(at, 0x9e3779b1) >>> (32 - keptBits);
    const kept = this.#kept[slot];
    if (this.#keptAt[slot] === at && kept !== undefined) return kept;
    const node = this.read(at);
    this.#keptAt[slot] = at;
    this.#kept[slot] = node;
    return node;
  }

  /** The RRsets of the entry at `at`, decoded afresh (a transfer reads every entry once). */
  read(at: number): ZoneNode {
    const bytes = this.#bytes;
    let next = at + 1 + (bytes[at] ?? 0) + 4;
    const count = bytes[next++] ?? 0;
    const rrsets: ServedRrset[] = [];
    for (let r = 0; r < count; r++) {
      const type = bytes.readUInt16LE(next);
      const ttl = bytes.readUInt32LE(next + 2);
      const records = bytes.readUInt16LE(next + 6);
      const named = bytes[next + 8] === 1;
      next += 9;
      const rdata: string[] = [];
      const names: string[] = [];
      for (let i = 0; i < records; i++) {
        const len = bytes.readUInt16LE(next);
        next += 2;
        rdata.push(latin1Of(bytes, next, next + len));
        next += len;
        if (named) {
          const nameLen = bytes[next] ?? 0;
          names.push(bytes.toString('latin1', next + 1, next + 1 + nameLen));
          next += 1 + nameLen;
        }
      }
      rrsets.push({ type, ttl, rdata: perRecord(rdata), names: named ? perRecord(names) : undefined, pickers: null });
    }
    return rrsets.length === 1 ? (rrsets[0] ?? rrsets) : rrsets;
  }

  /** Every entry with data, in the order they were added, with its name. */
  *entries(): Generator<[string, number]> {
    const bytes = this.#bytes;
    for (let at = 0; at < this.data.length; at = entryEnd(bytes, at)) {
      if (this.hasData(at)) yield [bytes.toString('latin1', at + 1, at + 1 + (bytes[at] ?? 0)), at];
    }
  }
}
