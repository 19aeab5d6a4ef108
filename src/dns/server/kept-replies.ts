// Whole replies kept for repeated queries, found by the query's bytes, so that a query seen before is
// answered without being parsed or encoded: a copy of the reply with the query's ID, RD and CD bits
// and question bytes. What may be kept is the response cache's decision (response-cache.ts).
//
// The layout is about memory touched per query rather than instructions: between two queries the
// kernel's work on the sockets evicts caches and TLB entries, and every further object a lookup
// reads costs a miss. A lookup reads one cache line of `#positions` and one stretch of `#ring`,
// where the entry's header, key and reply lie together.
import { typeCode } from '../wire/type-codes.ts';

/** Bytes for entries: when full, the oldest are overwritten. */
const ringSize = 8 * 1024 * 1024;
/** Entries start on multiples of this, so that a position fits an Int32Array slot. */
const align = 8;
/** Positions count from 1 (0: no entry) and stay below 2^31: before that, everything starts over. */
const maxPosition = 2 ** 30;
/** Entries are found by hash in sets of `ways` positions (8 × 4 octets: half a cache line). */
const ways = 8;
const sets = 16 * 1024;
/** Entry header: hash (4 octets), transport (1), key length (2), reply length (2), zone id (4). */
const entryHeader = 13;

const headerLength = 12;
const maxNameLength = 255;
/** An OPT record with no options: root owner, type, class (UDP size), TTL (flags), RDLENGTH 0. */
const bareOptLength = 11;
/** Flag bits of the query echoed in the reply, so left out of the key: RD (octet 2) and CD (octet 3). */
const rdBit = 0x01;
const cdBit = 0x10;

/**
 * Where the question's name ends (its terminal zero octet included), when the message is a plain
 * query: one question of uncompressed labels, nothing in answer and authority, and at most an OPT
 * record without options, ending the message. Otherwise -1: the message takes the parsing path,
 * which knows how to answer everything else (and what to refuse). Queries with EDNS options (an ECS
 * subnet among them) never qualify: their replies may echo or depend on them.
 */
function plainQuestionEnd(message: Buffer): number {
  const length = message.length;
  if (length < headerLength + 5) return -1;
  const arcount = ((message[10] ?? 0) << 8) | (message[11] ?? 0);
  if (message[4] !== 0 || message[5] !== 1 || message[6] !== 0 || message[7] !== 0 || message[8] !== 0 || message[9] !== 0 || arcount > 1) return -1;
  let at = headerLength;
  for (;;) {
    const size = message[at] ?? 0xff;
    if (size === 0) break;
    // Compression pointers and extended label types (octets of 64 and above) take the parsing path.
    if (size > 63) return -1;
    at += 1 + size;
    if (at - headerLength >= maxNameLength) return -1;
  }
  const nameEnd = at + 1;
  const end = nameEnd + 4 + (arcount === 1 ? bareOptLength : 0);
  if (end !== length) return -1;
  if (arcount === 1) {
    const opt = nameEnd + 4;
    if (message[opt] !== 0 || message[opt + 1] !== 0 || message[opt + 2] !== typeCode.opt || message[opt + 9] !== 0 || message[opt + 10] !== 0) return -1;
  }
  return nameEnd;
}

/** Octets with ASCII letters in lower case, as the parser compares names. */
const folded = Uint8Array.from({ length: 256 }, (_, octet) => (octet >= 0x41 && octet <= 0x5a ? octet | 0x20 : octet));
const fnvPrime = 0x01000193;

/**
 * The key of a plain query is its octets from the flags on, without the echoed flag bits, with the
 * name folded to lower case (label lengths, below 64, are never letters, so the counts and the
 * whole name fold alike); it is hashed with FNV-1a, seeded by the transport.
 */
function hashQuery(message: Buffer, nameEnd: number, udp: boolean): number {
  let hash = Math.imul((udp ? 0x811c9dc5 : 0x050c5d1f) ^ ((message[2] ?? 0) & ~rdBit), fnvPrime);
  hash = Math.imul(hash ^ ((message[3] ?? 0) & ~cdBit), fnvPrime);
  for (let at = 4; at < nameEnd; at++) hash = Math.imul(hash ^ (folded[message[at] ?? 0] ?? 0), fnvPrime);
  for (let at = nameEnd; at < message.length; at++) hash = Math.imul(hash ^ (message[at] ?? 0), fnvPrime);
  return hash;
}

interface Miss {
  message: Buffer;
  nameEnd: number;
  hash: number;
  udp: boolean;
}

export class KeptReplies {
  // Pages never written take no memory: a server that keeps few replies holds little of these.
  readonly #ring = Buffer.allocUnsafeSlow(ringSize);
  /** Per set, the positions of its entries: where they start in the ring, counted in `align` units
   *  written since the start, plus one; 0: none. */
  readonly #positions = new Int32Array(sets * ways);
  /** The position of the next entry: the ring holds the last `ringSize` octets written before it. */
  #next = 1;
  /** Entries before this position were dropped (`clear`). */
  #validFrom = 1;
  /** The plain query `reply` last missed, until `keep`. */
  #miss: Miss | undefined;
  /** The id of the zone whose answer `reply` last handed out (query-stats.ts counts it). */
  zone = 0;

  clear(): void {
    this.#validFrom = this.#next;
  }

  /**
   * The kept reply to a query that differs from the one it answered at most in ID, RD, CD and the
   * letter case of the name, with those taken from this query (RFC 1035 §4.1.1; the question is
   * echoed byte for byte for 0x20 case). Undefined when there is none; for a plain query, the next
   * `keep` then keeps its reply.
   */
  reply(message: Buffer, udp: boolean): Buffer | undefined {
    this.#miss = undefined;
    const nameEnd = plainQuestionEnd(message);
    if (nameEnd < 0) return undefined;
    const hash = hashQuery(message, nameEnd, udp);
    const at = this.#find(message, nameEnd, hash, udp);
    if (at < 0) {
      this.#miss = { message, nameEnd, hash, udp };
      return undefined;
    }
    const ring = this.#ring;
    this.zone = readInt32(ring, at + 9);
    const start = at + entryHeader + message.length - 2;
    const reply = Buffer.allocUnsafe(readUint16(ring, at + 7));
    reply.set(ring.subarray(start, start + reply.length));
    reply[0] = message[0] ?? 0;
    reply[1] = message[1] ?? 0;
    reply[2] = ((reply[2] ?? 0) & ~rdBit) | ((message[2] ?? 0) & rdBit);
    reply[3] = ((reply[3] ?? 0) & ~cdBit) | ((message[3] ?? 0) & cdBit);
    for (let i = headerLength; i < nameEnd; i++) reply[i] = message[i] ?? 0;
    return reply;
  }

  /** Keeps the reply to the query `reply` last missed, an answer of the zone `zone`; undefined only forgets that query. */
  keep(reply: Buffer | undefined, zone: number): void {
    const miss = this.#miss;
    this.#miss = undefined;
    if (miss === undefined || reply === undefined) return;
    const { message, nameEnd, hash, udp } = miss;
    const size = entryHeader + message.length - 2 + reply.length;
    const ring = this.#ring;
    const positions = this.#positions;
    if (this.#next + 2 * (ringSize / align) > maxPosition) {
      positions.fill(0);
      this.#next = 1;
      this.#validFrom = 1;
    }
    // An entry never wraps around the end of the ring: what is left there stays unused.
    let at = offsetOf(this.#next);
    if (at + size > ringSize) {
      this.#next += (ringSize - at) / align;
      at = 0;
    }
    ring.writeInt32LE(hash, at);
    ring[at + 4] = udp ? 1 : 0;
    ring.writeUInt16LE(message.length - 2, at + 5);
    ring.writeUInt16LE(reply.length, at + 7);
    ring.writeInt32LE(zone, at + 9);
    let to = at + entryHeader;
    ring[to++] = (message[2] ?? 0) & ~rdBit;
    ring[to++] = (message[3] ?? 0) & ~cdBit;
    for (let i = 4; i < nameEnd; i++) ring[to++] = folded[message[i] ?? 0] ?? 0;
    for (let i = nameEnd; i < message.length; i++) ring[to++] = message[i] ?? 0;
    ring.set(reply, to);
    // Into the set: a free or stale way, else the oldest entry's.
    const base = (hash & (sets - 1)) * ways;
    let way = base;
    for (let i = base; i < base + ways; i++) {
      const position = positions[i] ?? 0;
      if (!this.#valid(position)) {
        way = i;
        break;
      }
      if (position < (positions[way] ?? 0)) way = i;
    }
    positions[way] = this.#next;
    this.#next += Math.ceil(size / align);
  }

  /** Whether the entry at `position` is still whole (not overwritten) and was not dropped. */
  #valid(position: number): boolean {
    return position >= this.#validFrom && position >= this.#next - ringSize / align;
  }

  /** Where in the ring the entry for this query starts, or -1. */
  #find(message: Buffer, nameEnd: number, hash: number, udp: boolean): number {
    const ring = this.#ring;
    const positions = this.#positions;
    const base = (hash & (sets - 1)) * ways;
    for (let i = base; i < base + ways; i++) {
      const position = positions[i] ?? 0;
      if (!this.#valid(position)) continue;
      const at = offsetOf(position);
      if (readInt32(ring, at) !== hash || ring[at + 4] !== (udp ? 1 : 0) || readUint16(ring, at + 5) !== message.length - 2) continue;
      if (matches(ring, at + entryHeader, message, nameEnd)) return at;
    }
    return -1;
  }
}

/** Where in the ring the entry at `position` starts. */
const offsetOf = (position: number) => ((position - 1) & (ringSize / align - 1)) * align;

/** Whether the key at `at` in the ring is this query's. */
function matches(ring: Buffer, at: number, message: Buffer, nameEnd: number): boolean {
  let key = at;
  if (ring[key++] !== ((message[2] ?? 0) & ~rdBit) || ring[key++] !== ((message[3] ?? 0) & ~cdBit)) return false;
  for (let i = 4; i < nameEnd; i++) if (ring[key++] !== folded[message[i] ?? 0]) return false;
  for (let i = nameEnd; i < message.length; i++) if (ring[key++] !== message[i]) return false;
  return true;
}

// Buffer's readInt32LE and readUInt16LE are not inlined where these are.
const readInt32 = (bytes: Buffer, at: number) => (bytes[at] ?? 0) | ((bytes[at + 1] ?? 0) << 8) | ((bytes[at + 2] ?? 0) << 16) | ((bytes[at + 3] ?? 0) << 24);
const readUint16 = (bytes: Buffer, at: number) => (bytes[at] ?? 0) | ((bytes[at + 1] ?? 0) << 8);
