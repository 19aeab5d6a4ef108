// Rate counters: how many requests a key (a rule of a resource and a client) may still make.
export interface RateCounters {
  /**
   * Takes one request from `key`'s allowance of `perSecond` with a burst of `burst`: 0 when it may
   * go, else the seconds until it could.
   */
  take(key: string, perSecond: number, burst: number): number | Promise<number>;
  close(): Promise<void>;
}
