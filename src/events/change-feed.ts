// The change feed: every committed change of a zone produces (zone, new serial). In-process
// subscribers (the DNS server of this process) hear it right after the commit; on PostgreSQL it is
// also sent with NOTIFY inside the transaction, so other nodes hear it exactly when it commits.
import { EventEmitter } from 'node:events';
import { sql } from 'kysely';
import type { Db, Engine } from '../store/database.ts';

export interface ZoneChange {
  zoneId: number;
  zone: string;
  /** The zone's serial after the change; 0 when the zone was deleted. */
  serial: number;
  deleted: boolean;
}

export const notifyChannel = 'edgeplane_zone_changes';

export class ChangeFeed {
  readonly #emitter = new EventEmitter();

  subscribe(listener: (change: ZoneChange) => void): () => void {
    this.#emitter.on('change', listener);
    return () => this.#emitter.off('change', listener);
  }

  publish(change: ZoneChange): void {
    this.#emitter.emit('change', change);
  }
}

/** Queues the change for other nodes; PostgreSQL delivers it only if the transaction commits. */
export async function notifyOtherNodes(tx: Db, engine: Engine, change: ZoneChange): Promise<void> {
  if (engine !== 'postgres') return;
  await sql`select pg_notify(${notifyChannel}, ${JSON.stringify(change)})`.execute(tx);
}
