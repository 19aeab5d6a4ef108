// Queries answered per zone, by QTYPE and RCODE: the figures behind GET /dns/v2/zones/{name}/statistics
// and the console's charts. Each DNS thread counts in a typed array per zone (one increment a
// query, in the slots the metrics already work out: metrics.ts) and adds its counts to the store
// every `flushSeconds`, into the one-minute bucket the interval lies in; the store sums them over
// threads and over nodes on PostgreSQL. Only queries for a hosted zone count (a REFUSED name
// outside every zone belongs to no one), so what a stranger can make a thread hold is bounded by
// the zones it serves: 17 × 16 counters each.
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../store/database.ts';
import { addQueryCounts, dropQueryCountsBefore, type QueryCount } from '../../store/query-stats.ts';
import { rcodeSlots, slotTypes } from './metrics.ts';

const slots = slotTypes.length * rcodeSlots;
/** Buckets are one minute: the finest granularity the statistics answer in. */
export const bucketSeconds = 60;
const pruneEveryMs = 3_600_000;

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

export interface StatsWriter {
  /** Writes what is counted and stops. */
  stop(): Promise<void>;
}

/** Writes the counts at every multiple of `flushSeconds` of the clock, and drops buckets past the retention. */
export function startStatsWriter(options: StatsWriterOptions): StatsWriter {
  const { db, stats, logger, flushSeconds, retentionDays } = options;
  let timer: NodeJS.Timeout | undefined;
  let writing = Promise.resolve();
  let lastPrune = 0;
  const write = (at: number) => {
    // The interval that just ended, [at - flushSeconds, at), lies in the bucket of its start.
    const bucket = Math.floor((at / 1000 - flushSeconds) / bucketSeconds) * bucketSeconds;
    const rows = stats.take(bucket);
    const prune = options.prunes && retentionDays > 0 && at - lastPrune >= pruneEveryMs;
    if (prune) lastPrune = at;
    writing = writing
      .then(async () => {
        if (rows.length > 0) await addQueryCounts(db, rows);
        if (prune) await dropQueryCountsBefore(db, Math.floor(at / 1000) - retentionDays * 86_400);
      })
      .catch((e: unknown) => logger.error({ err: e, rows: rows.length }, 'query statistics not written'));
  };
  const schedule = () => {
    const periodMs = flushSeconds * 1000;
    const next = (Math.floor(Date.now() / periodMs) + 1) * periodMs;
    timer = setTimeout(() => {
      write(next);
      schedule();
    }, next - Date.now());
    timer.unref();
  };
  schedule();
  return {
    stop: async () => {
      clearTimeout(timer);
      // What was counted since the last multiple goes to that interval's bucket.
      write(Math.ceil(Date.now() / (flushSeconds * 1000)) * flushSeconds * 1000);
      await writing;
    },
  };
}
