// A PostgreSQL connection that LISTENs to channels for as long as the process runs. It is opened
// again when it is lost (the server restarted, a network failure), after 1 s, then twice as long
// each time up to 30 s: the notifications that come while it is down are lost, and the callers'
// periodic checks of the store find those changes (zone-sync.ts, proxy-role.ts). Anyone who can
// connect to the database may NOTIFY any channel, so a payload is JSON to be checked by the caller,
// and one that is not JSON is logged and ignored, never thrown into pg's event handler (where it
// would end the process).
import type { Client } from 'pg';
import { pgDriver } from './pg-driver.ts';

export interface PgListener {
  stop(): Promise<void>;
}

interface ListenerLogger {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

/** Milliseconds before the first attempt to connect again, and the longest wait between attempts. */
const firstRetryMs = 1000;
const longestRetryMs = 30_000;

/**
 * Listens to each channel of `channels`, handing its notifications' payloads, parsed as JSON, to its
 * handler. The first connection is made before it resolves (its failure rejects); the next ones in
 * the background.
 */
export async function listenTo(
  databaseUrl: string,
  channels: Record<string, (payload: unknown) => void>,
  logger: ListenerLogger,
  retry: { firstMs: number; longestMs: number } = { firstMs: firstRetryMs, longestMs: longestRetryMs },
): Promise<PgListener> {
  let client: Client | undefined;
  let stopped = false;
  let waitMs = retry.firstMs;
  let timer: NodeJS.Timeout | undefined;

  const lost = (failed: Client, error: unknown) => {
    if (client !== failed || stopped) return;
    client = undefined;
    // Its 'error' listener stays: a late error of the dead connection must not be thrown.
    failed.removeAllListeners('notification');
    void failed.end().catch(() => undefined);
    logger.warn({ err: error, retryInMs: waitMs }, 'the PostgreSQL connection listening for changes was lost; connecting again');
    schedule();
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      connect().then(
        () => {
          waitMs = retry.firstMs;
          if (!stopped) logger.info({ channels: Object.keys(channels) }, 'listening for changes again');
        },
        (error: unknown) => {
          waitMs = Math.min(waitMs * 2, retry.longestMs);
          logger.warn({ err: error, retryInMs: waitMs }, 'connecting to PostgreSQL to listen for changes failed; trying again');
          schedule();
        },
      );
    }, waitMs);
    timer.unref();
  };

  const connect = async () => {
    const fresh = new (pgDriver().Client)({ connectionString: databaseUrl });
    fresh.on('error', (e) => lost(fresh, e));
    fresh.on('end', () => lost(fresh, new Error('connection ended')));
    fresh.on('notification', ({ channel, payload }) => {
      const handler = channels[channel];
      if (handler === undefined) return;
      let value: unknown;
      try {
        value = JSON.parse(payload ?? '');
      } catch {
        logger.warn({ channel, payload: payload?.slice(0, 200) }, 'a notification that is not JSON; ignored');
        return;
      }
      handler(value);
    });
    try {
      await fresh.connect();
      for (const channel of Object.keys(channels)) await fresh.query(`LISTEN ${channel}`);
    } catch (e) {
      await fresh.end().catch(() => undefined);
      throw e;
    }
    if (stopped) {
      await fresh.end();
      return;
    }
    client = fresh;
  };

  await connect();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await client?.end();
    },
  };
}
