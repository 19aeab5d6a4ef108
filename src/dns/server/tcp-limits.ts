// How many DNS-over-TCP connections the DNS role holds at once (RFC 7766 §6.2.2: a server must be
// able to defend itself against clients that open many): in total and per client, counted across
// every DNS thread of the process. The threads share one port (SO_REUSEPORT) and the kernel spreads a
// client's connections over them, so each thread counting alone would let N threads hold N times
// the cap; the counts live in a SharedArrayBuffer instead, handed to every thread with the DNS
// settings, and are changed with Atomics.
//
// Per client the count is kept in a table of 65,536 counters, in the two a seeded hash of the client
// (an IPv4 address, or an IPv6 /64: one host's allocation, as the proxy's rate rules key it) points
// at, and the client's count is the smaller (a count-min sketch: never below the true count). Clients
// share a count only when both their counters coincide; with every connection in use at most
// maxClients / maxPerClient counters are full, so a bystander is refused for others' connections at
// odds under 1 in 40,000 with the defaults, and the seed, drawn at start, keeps an attacker from
// aiming at one.
import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import { clientOctets } from '../../net/client-key.ts';

export interface TcpSettings {
  /** Connections open at once across every DNS thread of the process. */
  maxClients: number;
  /** Of those, from one client (an IPv4 address or an IPv6 /64). */
  maxPerClient: number;
  /** A connection is closed after this long without a query answered or a reply taken by the kernel. */
  idleTimeoutMs: number;
  /** Replies of one connection answered but not yet taken by the kernel, before its reading waits. */
  maxPipelined: number;
}

/** The settings and the counters every DNS thread shares (a SharedArrayBuffer is shared, not copied, with a worker). */
export interface TcpLimits extends TcpSettings {
  counters: SharedArrayBuffer;
}

/** The counters an admitted connection holds, to give back when it closes. */
export type Place = readonly [number, number];

/** Why a connection was turned away at accept, as the metric labels it. */
export type Refusal = 'max_clients' | 'max_per_client';

const clientSlots = 1 << 16;
/** Int32 cells: the open connections, the hash seed, then one counter per client slot. */
const total = 0;
const seed = 1;
const firstSlot = 2;

export function tcpLimits(settings: TcpSettings): TcpLimits {
  const counters = new SharedArrayBuffer((firstSlot + clientSlots) * Int32Array.BYTES_PER_ELEMENT);
  new Int32Array(counters)[seed] = randomInt(2 ** 31);
  return { ...settings, counters };
}

/**
 * The default cap on connections: half the process's open-file limit, as Knot DNS's tcp-max-clients,
 * so that the API, the store and the proxy keep the other half; at most 10,000, which bounds the replies
 * waiting in memory for clients that do not read to some hundreds of MiB (tcp-connection.ts). 1,000
 * where the limit cannot be read.
 */
export function defaultMaxClients(): number {
  const limit = openFileLimit();
  return limit === undefined ? 1000 : Math.max(1, Math.min(10_000, Math.floor(limit / 2)));
}

/** The process's open-file limit (Node raises the soft limit to the hard one at start), on Linux. */
export function openFileLimit(): number | undefined {
  try {
    const line = /^Max open files\s+(\d+)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'));
    return line === null ? undefined : Number(line[1]);
  } catch {
    return undefined;
  }
}

export class TcpAdmission {
  readonly #counts: Int32Array;
  readonly #maxClients: number;
  readonly #maxPerClient: number;

  constructor(limits: TcpLimits) {
    this.#counts = new Int32Array(limits.counters);
    this.#maxClients = limits.maxClients;
    this.#maxPerClient = limits.maxPerClient;
  }

  /**
   * Takes a place for a connection from `address`, to give back to `release` when it closes, or
   * says why there is none. Each count is raised first and checked after, so threads racing for the
   * last place never admit one too many (a loser may be refused while a winner gives back).
   */
  admit(address: string): Place | Refusal {
    if (Atomics.add(this.#counts, total, 1) >= this.#maxClients) {
      Atomics.sub(this.#counts, total, 1);
      return 'max_clients';
    }
    const place = this.#slots(address);
    const [one, two] = place;
    if (Math.min(Atomics.add(this.#counts, one, 1), Atomics.add(this.#counts, two, 1)) >= this.#maxPerClient) {
      this.release(place);
      return 'max_per_client';
    }
    return place;
  }

  release([one, two]: Place): void {
    Atomics.sub(this.#counts, one, 1);
    Atomics.sub(this.#counts, two, 1);
    Atomics.sub(this.#counts, total, 1);
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
