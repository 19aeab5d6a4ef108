// A DNS server running without the API in its process hears of changes from PostgreSQL NOTIFY, the
// moment they commit. Nothing else depends on it: every thread also compares its zones' versions with
// the store's every 2 s (zone-sync.ts), which is how SQLite shared with another process, another
// node's changes in a process with its own API, or a notification lost with the connection, converge.
import type { FastifyBaseLogger } from 'fastify';
import { notifyChannel, type ZoneChange } from '../../events/change-feed.ts';
import { pgDriver } from '../../store/pg-driver.ts';
import type { ZoneSync } from './zone-sync.ts';

export interface Follower {
  stop(): Promise<void>;
}

export async function followStore(databaseUrl: string, sync: ZoneSync, logger: FastifyBaseLogger): Promise<Follower> {
  const listener = new (pgDriver().Client)({ connectionString: databaseUrl });
  await listener.connect();
  listener.on('notification', (n) => {
    // ZoneSync.apply never rejects: a failure is retried there.
    void sync.apply(JSON.parse(n.payload ?? '{}') as ZoneChange);
  });
  listener.on('error', (e) => logger.error({ err: e }, 'change listener failed; the periodic version check still runs'));
  await listener.query(`LISTEN ${notifyChannel}`);
  return { stop: () => listener.end() };
}
