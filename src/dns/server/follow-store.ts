// A DNS server running without the API in its process hears of changes from PostgreSQL NOTIFY, the
// moment they commit (with the API, the process's main thread hears the other nodes' for its
// threads: workers.ts). Nothing else depends on it: every thread also compares its zones' versions
// with the store's every 2 s (zone-sync.ts), which is how SQLite shared with another process, or a
// notification lost with the connection (opened again: store/pg-listener.ts), converge.
import type { FastifyBaseLogger } from 'fastify';
import { noticeHandler, notifyChannel, zoneChangeFromNotice } from '../../events/change-feed.ts';
import { listenTo, type PgListener } from '../../store/pg-listener.ts';
import type { ZoneSync } from './zone-sync.ts';

export async function followStore(databaseUrl: string, sync: ZoneSync, logger: FastifyBaseLogger): Promise<PgListener> {
  // ZoneSync.apply never rejects: a failure is retried there.
  return listenTo(databaseUrl, { [notifyChannel]: noticeHandler('zone change', zoneChangeFromNotice, (change) => void sync.apply(change), logger) }, logger);
}
