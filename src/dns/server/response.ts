// Building a response on the wire: header, the question echoed byte for byte, then records with
// owner-name compression (RFC 1035 §4.1.4). RDATA arrives pre-encoded and is copied as is.

import { labelEnd, labelOctets } from '../wire/name.ts';

export const rcode = { noError: 0, formErr: 1, servFail: 2, nxDomain: 3, notImp: 4, refused: 5, notAuth: 9, badVers: 16, badCookie: 23 } as const;

const flagQr = 0x8000;
const flagAa = 0x0400;
const flagTc = 0x0200;
const maxPointerOffset = 0x3fff;

export interface WireRecord {
  /** Owner, lower case, no trailing dot. */
  name: string;
  type: number;
  ttl: number;
  /** RDATA as octets: a Buffer, or a latin1 string (one character per octet) as zone views hold it. */
  rdata: Buffer | string;
  /**
   * The domain name the RDATA ends with (lower case, no trailing dot), when its type has one: for the
   * types whose RDATA names may be compressed it is written against what precedes it.
   */
  rdataName?: string | undefined;
}

/**
 * RFC 3597 §4: only the RFC 1035 types may have their RDATA names compressed (NS, CNAME, PTR, MX),
 * by where the name starts in their RDATA (after MX's preference).
 */
const compressedNameAt = new Map([
  [2, 0],
  [5, 0],
  [12, 0],
  [15, 2],
]);

/** The first `length` characters of a latin1 string as octets: a loop beats a call into the runtime for RDATA this short. */
function writeLatin1(b: Buffer, text: string, offset: number, length: number): void {
  if (length > 64) {
    b.write(text, offset, length, 'latin1');
    return;
  }
  for (let i = 0; i < length; i++) b[offset + i] = text.charCodeAt(i);
}

export class ResponseWriter {
  readonly #buffer: Buffer;
  /** Records must leave this much room (for the OPT record written last). */
  readonly #reserved: number;
  #length = 12;
  readonly #names = new Map<string, number>();

  constructor(capacity = 65535, reserved = 0) {
    this.#buffer = Buffer.allocUnsafe(capacity);
    this.#reserved = reserved;
  }

  /**
   * The question as received; its name's suffixes become compression targets (keeping 0x20 case)
   * unless `compressAgainst` is false (a cached answer's sections follow, already compressed).
   */
  question(bytes: Buffer, name: string, compressAgainst = true): void {
    bytes.copy(this.#buffer, this.#length);
    // A name with a dot inside a label (read as "\\.") is never ours; its suffixes are not offered.
    if (compressAgainst && name !== '' && !name.includes('\\')) {
      let offset = this.#length;
      let rest = name;
      for (;;) {
        this.#names.set(rest, offset);
        offset += 1 + (this.#buffer[offset] ?? 0);
        const dot = rest.indexOf('.');
        if (dot < 0) break;
        rest = rest.slice(dot + 1);
      }
    }
    this.#length += bytes.length;
  }

  /** Writes a name; the suffixes it registers are listed in `added` so a failed record can undo them. */
  #name(name: string, added: string[]): boolean {
    let rest = name;
    while (rest !== '') {
      const pointer = this.#names.get(rest);
      if (pointer !== undefined) {
        if (this.#length + 2 > this.#buffer.length - this.#reserved) return false;
        this.#buffer.writeUInt16BE(0xc000 | pointer, this.#length);
        this.#length += 2;
        return true;
      }
      const end = labelEnd(rest, 0);
      const text = rest.slice(0, end);
      const label = text.includes('\\') ? labelOctets(text) : undefined;
      const size = label?.length ?? text.length;
      if (this.#length + 1 + size > this.#buffer.length - this.#reserved) return false;
      if (this.#length <= maxPointerOffset) {
        this.#names.set(rest, this.#length);
        added.push(rest);
      }
      this.#buffer[this.#length] = size;
      if (label === undefined) this.#buffer.write(text, this.#length + 1, 'latin1');
      else label.copy(this.#buffer, this.#length + 1);
      this.#length += 1 + size;
      rest = end >= rest.length ? '' : rest.slice(end + 1);
    }
    if (this.#length + 1 > this.#buffer.length - this.#reserved) return false;
    this.#buffer[this.#length++] = 0;
    return true;
  }

  /** Appends a record; false (and nothing written) when it does not fit. */
  record(record: WireRecord): boolean {
    const start = this.#length;
    const added: string[] = [];
    const undo = () => {
      this.#length = start;
      for (const name of added) this.#names.delete(name);
      return false;
    };
    const room = () => this.#buffer.length - this.#reserved;
    if (!this.#name(record.name, added) || this.#length + 10 > room()) return undo();
    const b = this.#buffer;
    const header = this.#length;
    b.writeUInt16BE(record.type, header);
    b.writeUInt16BE(1, header + 2);
    b.writeUInt32BE(record.ttl, header + 4);
    this.#length += 10;
    const { rdata, rdataName } = record;
    const nameAt = rdataName === undefined ? undefined : compressedNameAt.get(record.type);
    // A compressible name is written on its own: only the octets before it are copied.
    const octets = nameAt ?? rdata.length;
    if (this.#length + octets > room()) return undo();
    if (typeof rdata === 'string') writeLatin1(b, rdata, this.#length, octets);
    else rdata.copy(b, this.#length, 0, octets);
    this.#length += octets;
    if (rdataName !== undefined && nameAt !== undefined && !this.#name(rdataName, added)) return undo();
    b.writeUInt16BE(this.#length - header - 10, header + 8);
    return true;
  }

  /** Appends bytes already in wire form (a cached answer's sections). */
  raw(bytes: Buffer): void {
    bytes.copy(this.#buffer, this.#length);
    this.#length += bytes.length;
  }

  /** A copy of what was written from `start` on. */
  copyFrom(start: number): Buffer {
    return Buffer.from(this.#buffer.subarray(start, this.#length));
  }

  /** The OPT pseudo-record (RFC 6891 §6.1.2); DO and CO (RFC 9824 §4) are echoed. */
  opt(udpSize: number, extendedRcode: number, flags: { dnssecOk: boolean; compactOk: boolean }, options: Buffer): boolean {
    if (this.#length + 11 + options.length > this.#buffer.length) return false;
    const b = this.#buffer;
    b[this.#length] = 0;
    b.writeUInt16BE(41, this.#length + 1);
    b.writeUInt16BE(udpSize, this.#length + 3);
    b[this.#length + 5] = extendedRcode;
    b[this.#length + 6] = 0;
    b.writeUInt16BE((flags.dnssecOk ? 0x8000 : 0) | (flags.compactOk ? 0x4000 : 0), this.#length + 7);
    b.writeUInt16BE(options.length, this.#length + 9);
    options.copy(b, this.#length + 11);
    this.#length += 11 + options.length;
    return true;
  }

  get length(): number {
    return this.#length;
  }

  /** Writes the header and returns the finished message (a view of the writer's buffer). */
  finish(header: { id: number; queryFlags: number; authoritative: boolean; truncated: boolean; rcode: number; counts: [number, number, number, number] }): Buffer {
    const b = this.#buffer;
    b.writeUInt16BE(header.id, 0);
    // Opcode, RD and CD come from the query; QR, AA, TC and the low RCODE bits are ours.
    const echoed = header.queryFlags & 0x7910;
    b.writeUInt16BE(echoed | flagQr | (header.authoritative ? flagAa : 0) | (header.truncated ? flagTc : 0) | (header.rcode & 0xf), 2);
    b.writeUInt16BE(header.counts[0], 4);
    b.writeUInt16BE(header.counts[1], 6);
    b.writeUInt16BE(header.counts[2], 8);
    b.writeUInt16BE(header.counts[3], 10);
    return b.subarray(0, this.#length);
  }
}
