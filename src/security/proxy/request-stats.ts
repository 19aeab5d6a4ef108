// Requests the proxy ended per resource and outcome, written to the store for
// GET /security/resources/{id}/statistics. Nothing new is counted on the request path: every proxy
// thread already counts them for edgeplane_proxy_requests_total (proxy-metrics.ts). At each flush
// the role's main thread reads those counters of every thread (as a scrape of /metrics does) and
// writes what each grew by since the last flush into the one-minute bucket (statistics/flush-clock.ts);
// the store sums them over proxy processes and nodes. A counter that went down was started again
// (its resource was dropped and came back): what it holds now is new.
import type { Logger } from 'pino';
import { startFlushClock, type FlushClock } from '../../statistics/flush-clock.ts';
import type { Db } from '../../store/database.ts';
import { addRequestCounts, dropRequestCountsBefore, type RequestCount } from '../../store/request-stats.ts';

export const requestsMetric = 'edgeplane_proxy_requests_total';

/** One thread's metrics as prom-client hands them (`edgeplane_proxy_requests_total` alone, or a whole registry's): what is read of them. */
export type ThreadCounters = readonly { name: string; values: readonly { labels: Partial<Record<string, string | number>>; value: number }[] }[];

/** What each thread's counters grew by since the last call. */
export class CounterDeltas {
  readonly #last = new Map<string, number>();

  /**
   * `threads[i]`: thread i's metrics (the same thread at the same index every time); undefined for a
   * thread gone (it ended, and another may start in its place: that one counts from 0).
   */
  take(threads: readonly (ThreadCounters | undefined)[], bucket: number): RequestCount[] {
    const sums = new Map<string, RequestCount>();
    threads.forEach((metrics, thread) => {
      if (metrics === undefined) {
        const prefix = `${String(thread)} `;
        for (const key of this.#last.keys()) if (key.startsWith(prefix)) this.#last.delete(key);
        return;
      }
      for (const metric of metrics) {
        if (metric.name !== requestsMetric) continue;
        for (const { labels, value } of metric.values) {
          const resource = Number(labels['resource']);
          const outcome = String(labels['outcome'] ?? '');
          // Requests no resource took (an unknown host) belong to no one.
          if (!Number.isSafeInteger(resource) || resource <= 0 || outcome === '') continue;
          const key = `${String(thread)} ${String(resource)} ${outcome}`;
          const last = this.#last.get(key) ?? 0;
          this.#last.set(key, value);
          const grew = value >= last ? value - last : value;
          if (grew === 0) continue;
          const row = sums.get(`${String(resource)} ${outcome}`);
          if (row === undefined) sums.set(`${String(resource)} ${outcome}`, { resource_id: resource, bucket, outcome, count: grew });
          else row.count += grew;
        }
      }
    });
    return [...sums.values()];
  }
}

export interface RequestStatsOptions {
  db: Db;
  /** Every proxy thread's counters, in a fixed order; undefined for a thread gone (CounterDeltas.take). */
  collect(): Promise<(ThreadCounters | undefined)[]>;
  logger: Logger;
  flushSeconds: number;
  /** Days buckets are kept; 0: for ever. */
  retentionDays: number;
}

export async function startRequestStats(options: RequestStatsOptions): Promise<FlushClock> {
  const deltas = new CounterDeltas();
  // What the threads counted before this start is not this interval's.
  deltas.take(await options.collect(), 0);
  return startFlushClock({
    flushSeconds: options.flushSeconds,
    flush: async (bucket) => {
      const rows = deltas.take(await options.collect(), bucket);
      if (rows.length > 0) await addRequestCounts(options.db, rows);
    },
    retention: { days: options.retentionDays, dropBefore: (bucket) => dropRequestCountsBefore(options.db, bucket) },
    onError: (e) => options.logger.error({ err: e }, 'request statistics not written'),
  });
}
