// Rate counters of one proxy thread: GCRA over a Map from bucket key to its theoretical arrival time
// (TAT). A bucket whose TAT has passed is full again, so it holds nothing worth keeping: with the
// proxy's rules (burst = rate) an entry is stale one second after its client's last request.
//
// Bound: at most `maxKeys` buckets (default 100,000, about 10 MB). A flood of distinct client
// addresses fills the Map; when it is full, stale buckets are dropped, and if that is not enough the
// oldest tenth (by when they were first seen) goes: those clients start again with a full bucket. Memory stays bounded; the price of a flood wider than the bound is leniency towards
// some clients, never refusing clients that did nothing.
import { performance } from 'node:perf_hooks';
import type { RateCounters } from './rate-counters.ts';

export interface LocalCountersOptions {
  maxKeys?: number;
  /** Milliseconds on a monotonic clock (tests drive it). */
  now?: () => number;
}

export interface LocalCounters extends RateCounters {
  take(key: string, perSecond: number, burst: number): number;
  /** Buckets held. */
  readonly size: number;
}

export const defaultMaxKeys = 100_000;

/** Float slack: k additions of 1000/3 ms need not sum to exactly 1000. */
const epsilonMs = 1e-6;

export function localCounters(options: LocalCountersOptions = {}): LocalCounters {
  const maxKeys = Math.max(1, options.maxKeys ?? defaultMaxKeys);
  const now = options.now ?? (() => performance.now());
  const tats = new Map<string, number>();

  const evict = (time: number) => {
    for (const [key, tat] of tats) if (tat <= time) tats.delete(key);
    if (tats.size < maxKeys) return;
    let excess = tats.size - Math.floor(maxKeys * 0.9);
    for (const key of tats.keys()) {
      if (excess-- <= 0) break;
      tats.delete(key);
    }
  };

  return {
    get size() {
      return tats.size;
    },
    take(key, perSecond, burst) {
      const time = now();
      const interval = 1000 / perSecond;
      const tolerance = (Math.max(1, burst) - 1) * interval;
      let tat = tats.get(key);
      if (tat === undefined && tats.size >= maxKeys) evict(time);
      if (tat === undefined || tat < time) tat = time;
      const wait = tat - time - tolerance;
      if (wait > epsilonMs) return wait / 1000;
      tats.set(key, tat + interval);
      return 0;
    },
    close() {
      tats.clear();
      return Promise.resolve();
    },
  };
}
