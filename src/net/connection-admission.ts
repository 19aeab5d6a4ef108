// How many TCP connections a listener holds at once, in total and per client, counted across every
// thread of the process that serves it: the DNS-over-TCP listener (RFC 7766 §6.2.2) and the
// protection proxy's HTTP and HTTPS listeners. The threads share one port (SO_REUSEPORT) and the
// kernel spreads a client's connections over them, so each thread counting alone would let N threads
// hold N times the cap; the counts live in a SharedArrayBuffer instead, handed to every thread with
// its settings, and are changed with Atomics.
//
// Per client the count is kept in a table of 65,536 counters, in the two a seeded hash of the client
// (an IPv4 address, or an IPv6 /64: net/client-key.ts) points at, and the client's count is the
// smaller (a count-min sketch: never below the true count). Clients share a count only when both
// their counters coincide; with every connection in use at most maxClients / maxPerClient counters
// are full, so a bystander is refused for others' connections at odds under 1 in 40,000 with the DNS
// defaults, and the seed, drawn at start, keeps an attacker from aiming at one.
import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import { clientOctets } from './client-key.ts';

export interface ConnectionCaps {
  /** Connections open at once across every thread sharing the counters. */
  maxClients: number;
  /** Of those, from one client (an IPv4 address or an IPv6 /64). */
  maxPerClient: number;
}

/** The caps and the counters every thread of a listener shares (a SharedArrayBuffer is shared, not copied, with a worker). */
export interface SharedCaps extends ConnectionCaps {
  counters: SharedArrayBuffer;
}

/** The counters a client's admitted connection holds, to give back when it closes. */
export type Place = readonly [number, number];

/** Why a connection was turned away, as the metrics label it. */
export type Refusal = 'max_clients' | 'max_per_client';

const clientSlots = 1 << 16;
/** Int32 cells: the open connections, the hash seed, then one counter per client slot. */
const total = 0;
const seed = 1;
const firstSlot = 2;

/** Fresh counters for one listener (or several sharing one budget). */
export function sharedCaps(caps: ConnectionCaps): SharedCaps {
  const counters = new SharedArrayBuffer((firstSlot + clientSlots) * Int32Array.BYTES_PER_ELEMENT);
  new Int32Array(counters)[seed] = randomInt(2 ** 31);
  return { maxClients: caps.maxClients, maxPerClient: caps.maxPerClient, counters };
}

/**
 * A default cap on connections: this share of the process's open-file limit (Node raises the soft
 * limit to the hard one at start), at most `max`; 1,000 where the limit cannot be read.
 */
export function openFileShare(share: number, max: number): number {
  const limit = openFileLimit();
  return limit === undefined ? 1000 : Math.max(1, Math.min(max, Math.floor(limit * share)));
}

/** The process's open-file limit, on Linux. */
export function openFileLimit(): number | undefined {
  try {
    const line = /^Max open files\s+(\d+)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'));
    return line === null ? undefined : Number(line[1]);
  } catch {
    return undefined;
  }
}

/**
 * Each count is raised first and checked after, so threads racing for the last place never admit
 * one too many (a loser may be refused while a winner gives back).
 */
export class ConnectionAdmission {
  readonly #counts: Int32Array;
  readonly #maxClients: number;
  readonly #maxPerClient: number;

  constructor(caps: SharedCaps) {
    this.#counts = new Int32Array(caps.counters);
    this.#maxClients = caps.maxClients;
    this.#maxPerClient = caps.maxPerClient;
  }

  /** Takes a place in total and for `address`'s client, to give back to `release`, or says why there is none. */
  admit(address: string): Place | Refusal {
    if (!this.open()) return 'max_clients';
    const place = this.admitClient(address);
    if (place === 'max_per_client') this.close();
    return place;
  }

  release(place: Place): void {
    this.releaseClient(place);
    this.close();
  }

  /**
   * Takes a place in total only, for a connection whose client is not known yet (behind a load
   * balancer, until its PROXY protocol header names the client); false: none left.
   */
  open(): boolean {
    if (Atomics.add(this.#counts, total, 1) < this.#maxClients) return true;
    Atomics.sub(this.#counts, total, 1);
    return false;
  }

  /** Gives back a place taken by `open`. */
  close(): void {
    Atomics.sub(this.#counts, total, 1);
  }

  /** Takes a place for `address`'s client, for a connection already holding one in total. */
  admitClient(address: string): Place | 'max_per_client' {
    const place = this.#slots(address);
    const [one, two] = place;
    if (Math.min(Atomics.add(this.#counts, one, 1), Atomics.add(this.#counts, two, 1)) < this.#maxPerClient) return place;
    this.releaseClient(place);
    return 'max_per_client';
  }

  releaseClient([one, two]: Place): void {
    Atomics.sub(this.#counts, one, 1);
    Atomics.sub(this.#counts, two, 1);
  }

  /** Two counters from one 32-bit hash of the client's octets (FNV-1a from the seed, then mixed). */
  #slots(address: string): Place {
    let hash = (Atomics.load(this.#counts, seed) ^ 0x811c9dc5) >>> 0;
    for (const octet of clientOctets(address)) hash = Math.imul(hash ^ octet, 0x01000193);
    hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
    hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
    hash ^= hash >>> 16;
    const one = hash & (clientSlots - 1);
    let two = (hash >>> 16) & (clientSlots - 1);
    if (two === one) two ^= 1;
    return [firstSlot + one, firstSlot + two];
  }
}
