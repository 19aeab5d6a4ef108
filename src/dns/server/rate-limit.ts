// Response rate limiting (RRL) over UDP, as authoritative servers facing the internet use it against
// reflection attacks: a UDP source address can be forged, so a flood of queries "from" a victim
// would otherwise turn this server into an amplifier aimed at it. Each client network (IPv4 /24,
// IPv6 /56) gets `perSecond` identical answers a second (a token bucket per network and answer);
// negative answers (NXDOMAIN, NODATA) count as one answer per network, so random names do not escape
// the limit. Over the limit, every `slip`-th reply is sent truncated (TC set, nothing in it: a real
// client retries over TCP, which is never limited) and the others are dropped. Off by default.
import ipaddr from 'ipaddr.js';

/** Buckets kept before all are dropped and counting starts over (a bound on memory under attack). */
const maxBuckets = 100_000;

interface Bucket {
  tokens: number;
  /** When it was last filled, seconds. */
  at: number;
  /** Replies over the limit so far: each `slip`-th slips through truncated. */
  limited: number;
}

export type Verdict = 'sent' | 'slipped' | 'dropped';

/** The client's network: IPv4 /24, IPv6 /56, as a short string; IPv4-mapped IPv6 counts as IPv4. */
function network(source: string): string {
  if (!ipaddr.isValid(source)) return source;
  const bytes = ipaddr.process(source).toByteArray();
  return String.fromCharCode(...bytes.slice(0, bytes.length === 4 ? 3 : 7));
}

/** Where the question ends in a reply (after QNAME, QTYPE and QCLASS), or -1. */
function questionEnd(reply: Buffer): number {
  let at = 12;
  while (at < reply.length) {
    const size = reply[at] ?? 0;
    if (size === 0) return at + 5 <= reply.length ? at + 5 : -1;
    if (size > 63) return -1;
    at += 1 + size;
  }
  return -1;
}

/** The answer a reply gives, for counting: negative answers are one class, others their question. */
function answerClass(reply: Buffer, end: number): string {
  const rcode = (reply[3] ?? 0) & 0xf;
  const answers = reply.readUInt16BE(6);
  if (rcode === 3 || (rcode === 0 && answers === 0)) return 'negative';
  return reply.toString('latin1', 12, end).toLowerCase();
}

export class ResponseRateLimit {
  readonly #perSecond: number;
  readonly #slip: number;
  readonly #now: () => number;
  readonly #buckets = new Map<string, Bucket>();

  constructor(perSecond: number, slip: number, now: () => number = () => performance.now() / 1000) {
    this.#perSecond = perSecond;
    this.#slip = slip;
    this.#now = now;
  }

  /** Whether `reply` to `source` goes out as it is, truncated, or not at all. */
  verdict(source: string, reply: Buffer): Verdict {
    const end = questionEnd(reply);
    if (end < 0) return 'sent';
    const key = `${network(source)}|${answerClass(reply, end)}`;
    const now = this.#now();
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      if (this.#buckets.size >= maxBuckets) this.#buckets.clear();
      bucket = { tokens: this.#perSecond, at: now, limited: 0 };
      this.#buckets.set(key, bucket);
    }
    bucket.tokens = Math.min(this.#perSecond, bucket.tokens + (now - bucket.at) * this.#perSecond);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 'sent';
    }
    bucket.limited++;
    return this.#slip > 0 && bucket.limited % this.#slip === 0 ? 'slipped' : 'dropped';
  }
}

/**
 * The reply cut to its header and question with TC set: "ask again over TCP"; `opt`, an OPT record
 * for a query with EDNS (respond.ts's `rateLimitedOpt`, with an Extended DNS Error saying why).
 */
export function truncated(reply: Buffer, opt?: Buffer): Buffer {
  const end = questionEnd(reply);
  const withOpt = opt !== undefined && end >= 0;
  const cut = withOpt ? Buffer.concat([reply.subarray(0, end), opt]) : Buffer.from(reply.subarray(0, end < 0 ? 12 : end));
  cut[2] = (cut[2] ?? 0) | 0x02;
  cut.writeUInt16BE(0, 6);
  cut.writeUInt16BE(0, 8);
  cut.writeUInt16BE(withOpt ? 1 : 0, 10);
  return cut;
}
