// Hot answers kept ready: the sections of an untailored answer (everything after the question and
// before the OPT record), reused for the next query with the same name, type, size limit, DO and
// CO bits. Answers shaped by pickers are never cached, so no requester can get another's tailored
// answer; any zone change, and the start of a new signing epoch, empties the cache.

export interface CachedAnswer {
  authoritative: boolean;
  truncated: boolean;
  rcode: number;
  /** Answer, authority and additional counts (the OPT is added per query). */
  counts: [number, number, number];
  /** The sections as written right after the question: their compression pointers stay valid for any
   *  question of the same name, whatever its letter case. */
  body: Buffer;
}

const maxEntries = 50_000;

export class ResponseCache {
  readonly #entries = new Map<string, CachedAnswer>();
  #version = -1;
  #epoch = -1;

  /** Drops everything when the served zones or the signing epoch have changed since the entries were made. */
  sync(version: number, epoch: number): void {
    if (version !== this.#version || epoch !== this.#epoch) {
      this.#entries.clear();
      this.#version = version;
      this.#epoch = epoch;
    }
  }

  get(key: string): CachedAnswer | undefined {
    return this.#entries.get(key);
  }

  /** Keeps the answer and hands it back. */
  set(key: string, answer: CachedAnswer): CachedAnswer {
    if (this.#entries.size >= maxEntries) {
      // Oldest first: Map keeps insertion order.
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(key, answer);
    return answer;
  }
}

export function cacheKey(name: string, qtype: number, limit: number, reserved: number, dnssecOk: boolean, compactOk: boolean): string {
  return `${name}|${String(qtype)}|${String(limit)}|${String(reserved)}|${dnssecOk ? '1' : '0'}${compactOk ? '1' : '0'}`;
}
