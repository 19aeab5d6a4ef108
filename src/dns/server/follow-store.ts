// A DNS server running without the API in its process learns of changes from the store itself:
// PostgreSQL NOTIFY when available (immediate), and a periodic serial check on either engine (so a
// missed notification, or SQLite shared with another process, still converges within seconds).
import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';
import { notifyChannel, type ZoneChange } from '../../events/change-feed.ts';
import type { Store } from '../../store/database.ts';
import type { ServedZones } from './served-zones.ts';

const pollIntervalMs = 2000;

export interface Follower {
  stop(): Promise<void>;
}

async function poll(store: Store, zones: ServedZones): Promise<void> {
  const rows = await store.db.selectFrom('zones').select(['id', 'name', 'serial', 'enabled']).execute();
  const enabled = new Set<string>();
  for (const row of rows) {
    if (row.enabled !== 1) continue;
    enabled.add(row.name);
    if (zones.get(row.name)?.head.serial !== row.serial) await zones.apply({ zoneId: row.id, zone: row.name, serial: row.serial, deleted: false });
  }
  for (const name of zones.names()) {
    if (!enabled.has(name)) await zones.apply({ zoneId: 0, zone: name, serial: 0, deleted: true });
  }
}

export async function followStore(store: Store, databaseUrl: string | undefined, zones: ServedZones, logger: FastifyBaseLogger): Promise<Follower> {
  let listener: pg.Client | undefined;
  if (store.engine === 'postgres' && databaseUrl !== undefined) {
    listener = new pg.Client({ connectionString: databaseUrl });
    await listener.connect();
    listener.on('notification', (n) => {
      const change = JSON.parse(n.payload ?? '{}') as ZoneChange;
      zones.apply(change).catch((e: unknown) => logger.error({ err: e }, 'applying a zone change failed'));
    });
    listener.on('error', (e) => logger.error({ err: e }, 'change listener failed; the periodic check still runs'));
    await listener.query(`LISTEN ${notifyChannel}`);
  }
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = poll(store, zones).catch((e: unknown) => logger.error({ err: e }, 'zone serial check failed'));
  }, pollIntervalMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
      await listener?.end();
    },
  };
}
