// Writes counts kept in memory to the store at every multiple of `flushSeconds` of the clock (a
// divisor of 60), each interval into the one-minute bucket it lies in, one write at a time; a write
// that fails is logged and its counts are lost, so statistics never hold up what they count. The DNS
// threads (dns/server/query-stats.ts) and the proxy role (security/proxy/request-stats.ts) use it.
import { bucketSeconds } from './range.ts';

export interface FlushClockOptions {
  flushSeconds: number;
  /** Writes what was counted in the interval ending at `atMs`, into `bucket` (Unix seconds). */
  flush(bucket: number, atMs: number): Promise<void>;
  onError(error: unknown): void;
}

export interface FlushClock {
  /** Writes what is counted and stops. */
  stop(): Promise<void>;
}

export function startFlushClock(options: FlushClockOptions): FlushClock {
  const periodMs = options.flushSeconds * 1000;
  let timer: NodeJS.Timeout | undefined;
  let writing = Promise.resolve();
  const write = (atMs: number) => {
    // The interval that just ended, [at - flushSeconds, at), lies in the bucket of its start.
    const bucket = Math.floor((atMs / 1000 - options.flushSeconds) / bucketSeconds) * bucketSeconds;
    writing = writing.then(() => options.flush(bucket, atMs)).catch((e: unknown) => options.onError(e));
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
