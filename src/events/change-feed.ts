// Change feeds: every committed change of a zone produces (zone, new serial), every change of a
// protected resource its id. In-process subscribers (the DNS server, the proxy of this process)
// hear it right after the commit; on PostgreSQL it is also sent with NOTIFY inside the transaction,
// so other nodes hear it exactly when it commits.
import { sql } from 'kysely';
import type { Db, Engine } from '../store/database.ts';

export interface ZoneChange {
  zoneId: number;
  zone: string;
  /** The zone's serial after the change; 0 when the zone was deleted. */
  serial: number;
  deleted: boolean;
  /** Owner names whose RRsets changed; undefined when anything about the zone may have. */
  names?: string[] | undefined;
}

export interface ResourceChange {
  resourceId: number;
  deleted: boolean;
}

export const notifyChannel = 'edgeplane_zone_changes';
export const resourceChannel = 'edgeplane_resource_changes';

export class ChangeFeed<T = ZoneChange> {
  readonly #listeners = new Set<(change: T) => Promise<void>>();

  subscribe(listener: (change: T) => Promise<void>): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Hands the change to every subscriber and resolves once all have applied it: the API answers
   * after the DNS server of its process serves the change.
   */
  async publish(change: T): Promise<void> {
    await Promise.all([...this.#listeners].map((listener) => listener(change)));
  }
}

/** Queues a resource change for other nodes; PostgreSQL delivers it only if the transaction commits. */
export async function notifyResourceChange(tx: Db, engine: Engine, change: ResourceChange): Promise<void> {
  if (engine === 'postgres') await sql`select pg_notify(${resourceChannel}, ${JSON.stringify(change)})`.execute(tx);
}

/** Queues the change for other nodes; PostgreSQL delivers it only if the transaction commits. */
export async function notifyOtherNodes(tx: Db, engine: Engine, change: ZoneChange): Promise<void> {
  if (engine !== 'postgres') return;
  // NOTIFY payloads stop at 8000 bytes; past that, listeners reload the whole zone.
  const payload = JSON.stringify(change);
  const fitting = payload.length < 7900 ? payload : JSON.stringify({ ...change, names: undefined });
  await sql`select pg_notify(${notifyChannel}, ${fitting})`.execute(tx);
}
