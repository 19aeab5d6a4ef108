// Change feeds: every committed change of a zone produces (zone, new serial), every change of a
// protected resource its id. In-process subscribers (the DNS server, the proxy of this process)
// hear it right after the commit; on PostgreSQL it is also sent with NOTIFY inside the transaction,
// so other nodes hear it exactly when it commits.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Db, Engine } from '../store/database.ts';
import type { RrsetWithRecords } from '../store/rrsets.ts';
import type { ChangeNotice } from '../store/zone-change.ts';
import type { ZoneRow } from '../store/zones.ts';

export interface ZoneChange {
  zoneId: number;
  zone: string;
  /** The zone's serial after the change; 0 when the zone was deleted. */
  serial: number;
  /** The store's zone version this change got (store/zones.ts): a thread serving it or later has it. */
  version: number;
  /**
   * The zone's version before the change, when only `names` changed: a thread serving exactly that
   * version may re-read just those names; any other thread reloads the zone.
   */
  previous?: number | undefined;
  deleted: boolean;
  /** Owner names whose RRsets changed; undefined when anything about the zone may have. */
  names?: string[] | undefined;
  /**
   * What the change wrote, handed to the DNS threads of this process with it so they need not read
   * it back: the zone row after the change and every RRset at `names` then. Only with `names`;
   * never sent to other nodes (they read the store).
   */
  written?: WrittenNames | undefined;
}

export interface WrittenNames {
  zone: ZoneRow;
  rrsets: RrsetWithRecords[];
}

export interface ResourceChange {
  resourceId: number;
  deleted: boolean;
}

export const notifyChannel = 'edgeplane_zone_changes';
export const resourceChannel = 'edgeplane_resource_changes';
/** A health-checked record's agreed state changed (store/failover.ts). */
export const healthChannel = 'edgeplane_health_changes';

export interface HealthChange {
  rrset_id: number;
  address: string;
  up: boolean;
}

export class ChangeFeed<T = ZoneChange> {
  /**
   * The feed in the notices its changes send to other nodes: the DNS threads of a process with the
   * API are handed its changes by this feed (with what they wrote), so they pass over the notices
   * naming it and take only the other nodes' (dns/server/workers.ts).
   */
  readonly origin = randomBytes(8).toString('hex');
  readonly #listeners = new Set<(change: T) => Promise<void>>();
  readonly #onError: (error: unknown) => void;

  /** `onError` hears a subscriber that failed: it is told, the caller is not. */
  constructor(onError: (error: unknown) => void) {
    this.#onError = onError;
  }

  subscribe(listener: (change: T) => Promise<void>): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Hands the committed change to every subscriber and resolves once all are done with it: the API
   * answers after the DNS server of its process serves the change (or gave up waiting). Never
   * rejects: the change is committed, so the request that made it succeeded.
   */
  async publish(change: T): Promise<void> {
    const outcomes = await Promise.allSettled([...this.#listeners].map((listener) => listener(change)));
    for (const outcome of outcomes) if (outcome.status === 'rejected') this.#onError(outcome.reason);
  }
}

/** Queues a resource change for other nodes; PostgreSQL delivers it only if the transaction commits. */
export async function notifyResourceChange(tx: Db, engine: Engine, change: ResourceChange): Promise<void> {
  if (engine === 'postgres') await sql`select pg_notify(${resourceChannel}, ${JSON.stringify(change)})`.execute(tx);
}

/** Queues the change for other nodes; PostgreSQL delivers it only if the transaction commits. */
export async function notifyOtherNodes(tx: Db, engine: Engine, change: ZoneChange, origin: string): Promise<void> {
  if (engine !== 'postgres') return;
  const { channel, payload } = changeNotice(change, origin);
  await sql`select pg_notify(${channel}, ${payload})`.execute(tx);
}

/** The NOTIFY that tells other nodes of `change` (store/zone-change.ts sends it with a change's own writes). */
export function changeNotice(change: ZoneChange, origin: string): ChangeNotice {
  // NOTIFY payloads stop at 8000 bytes; past that, listeners reload the whole zone. What the change
  // wrote stays here: other nodes read the names from the store.
  const notice = { ...change, written: undefined, origin };
  const payload = JSON.stringify(notice);
  // Its size as PostgreSQL sends it: the change's statement sets the version in it through jsonb
  // (store/zone-change.ts), whose text puts a space after every comma and colon between values, a
  // name list's size again by a sixth or so.
  const fits = Buffer.byteLength(payload) + separators(notice) < 7900;
  return { channel: notifyChannel, payload: fits ? payload : JSON.stringify({ ...notice, names: undefined }) };
}

/** Commas and colons between the values of `value` as JSON writes it (undefined members left out). */
function separators(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const members = Array.isArray(value) ? (value as unknown[]) : Object.values(value).filter((v) => v !== undefined);
  const own = Array.isArray(value) ? 0 : members.length;
  return own + Math.max(0, members.length - 1) + members.reduce<number>((n, member) => n + separators(member), 0);
}

/** The origin (ChangeFeed.origin) a notice (parsed) names, if any. */
export const noticeOrigin = (notice: unknown): unknown => (typeof notice === 'object' && notice !== null ? (notice as { origin?: unknown }).origin : undefined);

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/**
 * A zone change as a NOTIFY told it (changeNotice); undefined for a payload of another shape: anyone
 * who can connect to the database may NOTIFY. Its worst is a zone read again from the store.
 */
export function zoneChangeFromNotice(value: unknown): ZoneChange | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { zoneId, zone, serial, version, previous, deleted, names } = value as Partial<Record<keyof ZoneChange, unknown>>;
  if (!isCount(zoneId) || typeof zone !== 'string' || !isCount(serial) || !isCount(version) || typeof deleted !== 'boolean') return undefined;
  if (previous !== undefined && !isCount(previous)) return undefined;
  if (names !== undefined && !(Array.isArray(names) && names.every((n) => typeof n === 'string'))) return undefined;
  return { zoneId, zone, serial, version, previous, deleted, names };
}

/** A resource change as a NOTIFY told it; undefined for a payload of another shape. */
export function resourceChangeFromNotice(value: unknown): ResourceChange | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { resourceId, deleted } = value as Partial<Record<keyof ResourceChange, unknown>>;
  return isCount(resourceId) && typeof deleted === 'boolean' ? { resourceId, deleted } : undefined;
}

/**
 * A LISTEN handler (store/pg-listener.ts) for a channel of `what` changes: a payload `read`
 * understands goes to `take`; any other, which anyone who can connect may send, is logged and ignored.
 */
export function noticeHandler<T>(what: string, read: (payload: unknown) => T | undefined, take: (change: T) => void, logger: { warn(details: object, message: string): void }): (payload: unknown) => void {
  return (payload) => {
    const change = read(payload);
    if (change === undefined) logger.warn({ payload }, `a ${what} notification not understood; ignored`);
    else take(change);
  };
}

/** Tells every DNS node of a record's new agreed state; PostgreSQL delivers it only if the transaction commits. */
export async function notifyHealthChange(tx: Db, engine: Engine, change: HealthChange): Promise<void> {
  if (engine === 'postgres') await sql`select pg_notify(${healthChannel}, ${JSON.stringify(change)})`.execute(tx);
}
