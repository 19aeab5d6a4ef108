// Queries answered per zone, by QTYPE and RCODE: the figures behind GET /dns/v2/zones/{name}/statistics
// and the console's charts. Each DNS thread counts in a typed array per zone (one increment a
// query, in the slots the metrics already work out: metrics.ts) and adds its counts to the store
// every `flushSeconds` (statistics/flush-clock.ts), into one-minute buckets; the store sums them over
// threads and over nodes on PostgreSQL. Only queries for a hosted zone count (a REFUSED name
// outside every zone belongs to no one), so what a stranger can make a thread hold is bounded by
// the zones it serves: 17 × 16 counters each.
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../store/database.ts';
import { addQueryCounts, dropQueryCountsBefore, type QueryCount } from '../../store/query-stats.ts';
import { startFlushClock, type FlushClock } from '../../statistics/flush-clock.ts';
import { rcodeSlots, slotTypes } from './metrics.ts';

const slots = slotTypes.length * rcodeSlots;

export class QueryStats {
  #zones = new Map<number, Uint32Array>();

  /** One answered query of `zoneId` (0: none, not counted) in the metrics' `slot` (-1: no reply). */
  count(zoneId: number, slot: number): void {
    if (zoneId <= 0 || slot < 0) return;
    let counts = this.#zones.get(zoneId);
    if (counts === undefined) {
      counts = new Uint32Array(slots);
      this.#zones.set(zoneId, counts);
    }
    counts[slot] = (counts[slot] as number) + 1;
  }

  /** The counts since the last call, as rows; the counters start again from zero. */
  take(bucket: number): QueryCount[] {
    const zones = this.#zones;
    this.#zones = new Map();
    const rows: QueryCount[] = [];
    for (const [zone_id, counts] of zones) {
      for (let slot = 0; slot < slots; slot++) {
        const count = counts[slot] as number;
        if (count > 0) rows.push({ zone_id, bucket, qtype: slotTypes[Math.floor(slot / rcodeSlots)] ?? 0, rcode: slot % rcodeSlots, count });
      }
    }
    return rows;
  }
}

export interface StatsWriterOptions {
  db: Db;
  stats: QueryStats;
  logger: FastifyBaseLogger;
  /** Seconds between writes; divides 60, so that each interval lies in one bucket. */
  flushSeconds: number;
  /** Days buckets are kept; 0: for ever. Dropped by `prunes` threads only (one per process). */
  retentionDays: number;
  prunes: boolean;
}

/** Writes the counts at every multiple of `flushSeconds` of the clock, and drops buckets past the retention. */
export function startStatsWriter(options: StatsWriterOptions): FlushClock {
  const { db, stats, logger } = options;
  return startFlushClock({
    flushSeconds: options.flushSeconds,
    flush: async (bucket) => {
      const rows = stats.take(bucket);
      if (rows.length > 0) await addQueryCounts(db, rows);
    },
    retention: options.prunes ? { days: options.retentionDays, dropBefore: (bucket) => dropQueryCountsBefore(db, bucket) } : undefined,
    onError: (e) => logger.error({ err: e }, 'query statistics not written'),
  });
}
