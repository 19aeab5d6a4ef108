// Writes counts kept in memory to the store at every multiple of `flushSeconds` of the clock (a
// divisor of 60), each interval into the one-minute bucket it lies in, one write at a time; a write
// that fails is logged and its counts are lost, so statistics never hold up what they count. Once
// an hour, after a write, the buckets past the retention are dropped. The DNS threads
// (dns/server/query-stats.ts) and the proxy role (security/proxy/request-stats.ts) use it.
import { bucketSeconds } from './range.ts';

export interface FlushClockOptions {
  flushSeconds: number;
  /** Writes what was counted in the interval ending at `atMs`, into `bucket` (Unix seconds). */
  flush(bucket: number, atMs: number): Promise<void>;
  /** Days buckets are kept (0: for ever), and how to drop those before a bucket; undefined: this writer drops none. */
  retention: { days: number; dropBefore(bucket: number): Promise<void> } | undefined;
  onError(error: unknown): void;
}

const pruneEveryMs = 3_600_000;

export interface FlushClock {
  /** Writes what is counted and stops. */
  stop(): Promise<void>;
}

export function startFlushClock(options: FlushClockOptions): FlushClock {
  const periodMs = options.flushSeconds * 1000;
  let timer: NodeJS.Timeout | undefined;
  let writing = Promise.resolve();
  let lastPrune = 0;
  const write = (atMs: number) => {
    // The interval that just ended, [at - flushSeconds, at), lies in the bucket of its start.
    const bucket = Math.floor((atMs / 1000 - options.flushSeconds) / bucketSeconds) * bucketSeconds;
    const retention = options.retention;
    const prune = retention !== undefined && retention.days > 0 && atMs - lastPrune >= pruneEveryMs;
    if (prune) lastPrune = atMs;
    writing = writing
      .then(async () => {
        await options.flush(bucket, atMs);
        if (prune) await retention.dropBefore(Math.floor(atMs / 1000) - retention.days * 86_400);
      })
      .catch((e: unknown) => options.onError(e));
  };
  const schedule = () => {
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
      write(Math.ceil(Date.now() / periodMs) * periodMs);
      await writing;
    },
  };
}
