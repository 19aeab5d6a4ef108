// Where the proxy's rate rules count: per node (local-counters.ts) by default, shared by every proxy
// node through Redis with EDGEPLANE_REDIS_URL (redis-counters.ts). Both are GCRA, the algorithm
// behind nginx's `limit_req ... burst=N nodelay`: a bucket of `burst` requests refilled at `perSecond`.

export interface RateCounters {
  /**
   * Counts one request against the bucket `key`: 0 when it is allowed, else the seconds until one
   * would be (the request is refused and not counted). Local counters answer synchronously; shared
   * ones with a Promise, so the common path pays for no Promise when nothing is shared.
   */
  take(key: string, perSecond: number, burst: number): number | Promise<number>;
  close(): Promise<void>;
}
