// Hot answers kept ready: the sections of an untailored answer (everything after the question and
// before the OPT record), reused for the next query with the same name, type, size limit, DO and
// CO bits; and the replies made from them, kept whole for the next query with the same bytes
// (kept-replies.ts). Answers shaped by pickers are kept apart, per requester (the client subnet as
// sent, or the source address), and never as whole replies, so no requester can get another's
// tailored answer; any zone change, and the start of a new signing epoch, empties the cache.
import { KeptReplies } from './kept-replies.ts';

export interface CachedAnswer {
  /** The id of the zone that answered; 0 for none (a refusal). */
  zone: number;
  authoritative: boolean;
  truncated: boolean;
  rcode: number;
  /** Answer, authority and additional counts (the OPT is added per query). */
  counts: [number, number, number];
  /** The sections as written right after the question: their compression pointers stay valid for any
   *  question of the same name, whatever its letter case. */
  body: Buffer;
  /** The Extended DNS Error option of a refusal or failure (extended-errors.ts), sent when the query has EDNS. */
  ede: Buffer | undefined;
}

const maxEntries = 50_000;

export class ResponseCache {
  readonly #entries = new Map<string, CachedAnswer>();
  /** Answers pickers shaped, per requester (see `tailored`). */
  readonly #tailored = new Map<string, CachedAnswer>();
  readonly #replies = new KeptReplies();
  #version = -1;
  #epoch = -1;
  /**
   * Whether the query being answered got its answer from this cache: then its reply depends on the
   * query's bytes alone and may be kept whole (tailored answers never go through the cache).
   */
  #handedOut = false;
  /** The zone of the answer last handed out. */
  #handedZone = 0;

  /** Drops everything when the served zones or the signing epoch have changed since the entries were made. */
  sync(version: number, epoch: number): void {
    if (version !== this.#version || epoch !== this.#epoch) {
      this.#entries.clear();
      this.#tailored.clear();
      this.#replies.clear();
      this.#version = version;
      this.#epoch = epoch;
    }
  }

  /** The kept reply to this query, if any (`KeptReplies.reply`); otherwise `learn` follows. */
  reply(message: Buffer, udp: boolean): Buffer | undefined {
    this.#handedOut = false;
    return this.#replies.reply(message, udp);
  }

  /** The zone of the kept reply `reply` last handed out. */
  get keptZone(): number {
    return this.#replies.zone;
  }

  /** Keeps the reply to the query `reply` last missed, when its answer came from this cache. */
  learn(reply: Buffer | undefined): void {
    this.#replies.keep(this.#handedOut ? reply : undefined, this.#handedZone);
  }

  get(key: string): CachedAnswer | undefined {
    const answer = this.#entries.get(key);
    if (answer !== undefined) {
      this.#handedOut = true;
      this.#handedZone = answer.zone;
    }
    return answer;
  }

  /** Keeps the answer and hands it back. */
  set(key: string, answer: CachedAnswer): CachedAnswer {
    bounded(this.#entries, key, answer);
    this.#handedOut = true;
    this.#handedZone = answer.zone;
    return answer;
  }

  /**
   * The answer pickers made for this requester (`requesterKey`) when it last asked the same question.
   * A chain without random steps gives one requester the same answer every time; another requester
   * has another key. Such answers are never kept as whole replies: a query's bytes do not say who asks.
   */
  tailored(key: string, requester: string): CachedAnswer | undefined {
    return this.#tailored.get(`${key}|${requester}`);
  }

  setTailored(key: string, requester: string, answer: CachedAnswer): void {
    bounded(this.#tailored, `${key}|${requester}`, answer);
  }
}

function bounded(entries: Map<string, CachedAnswer>, key: string, answer: CachedAnswer): void {
  if (entries.size >= maxEntries) {
    // Oldest first: Map keeps insertion order.
    const oldest = entries.keys().next().value;
    if (oldest !== undefined) entries.delete(oldest);
  }
  entries.set(key, answer);
}

export function cacheKey(name: string, qtype: number, limit: number, reserved: number, dnssecOk: boolean, compactOk: boolean): string {
  return `${name}|${String(qtype)}|${String(limit)}|${String(reserved)}|${dnssecOk ? '1' : '0'}${compactOk ? '1' : '0'}`;
}
