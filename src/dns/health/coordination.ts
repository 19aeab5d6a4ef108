// How the DNS nodes of one PostgreSQL store share the health checks (docs/dns-server.md, "Health
// checks"): each record is checked by the one node holding its advisory lock, and every node hears
// each agreed change by LISTEN. Session-level locks go with the connection: a node that stops or loses
// its connection frees its records, and another node takes them at its next claim. On SQLite the one
// process checks everything and hears nothing.
import { createHash } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Client } from 'pg';
import { healthChannel, type HealthChange } from '../../events/change-feed.ts';
import { pgDriver } from '../../store/pg-driver.ts';

export interface Coordination {
  /** Whether other nodes may check the same records (PostgreSQL). */
  shared: boolean;
  holds(key: number): boolean;
  /** Tries to take these locks; resolves to those taken now. */
  claim(keys: readonly number[]): Promise<number[]>;
  release(keys: readonly number[]): Promise<void>;
  stop(): Promise<void>;
}

/** The first key of every lock this uses (pg_try_advisory_lock(int, int)): "ephc". */
const lockSpace = 0x65_70_68_63;

/** The lock of one record's check: a 32-bit hash of its RRset and address (a collision only makes one node check both). */
export function lockKey(rrsetId: number, address: string): number {
  return createHash('sha256').update(`${String(rrsetId)}|${address}`).digest().readInt32BE(0);
}

function parseChange(payload: string): HealthChange | undefined {
  try {
    const value = JSON.parse(payload) as Partial<HealthChange> | null;
    const { rrset_id: rrsetId, address, up } = value ?? {};
    return Number.isInteger(rrsetId) && typeof address === 'string' && typeof up === 'boolean' ? { rrset_id: rrsetId as number, address, up } : undefined;
  } catch {
    return undefined;
  }
}

/** SQLite: one process, every lock its own. */
export const alone: Coordination = {
  shared: false,
  holds: () => true,
  claim: (keys) => Promise.resolve([...keys]),
  release: () => Promise.resolve(),
  stop: () => Promise.resolve(),
};

/** PostgreSQL: one connection of its own, for the locks and LISTEN; reopened at the next claim after a failure. */
export function postgresCoordination(databaseUrl: string, onChange: (change: HealthChange) => void, logger: FastifyBaseLogger): Coordination {
  const held = new Set<number>();
  let client: Client | undefined;
  let connecting: Promise<Client> | undefined;
  let stopped = false;

  const lost = (failed: Client, e: unknown) => {
    if (client !== failed) return;
    client = undefined;
    // The session's locks end with it (the server frees them once it notices).
    held.clear();
    if (!stopped) logger.warn({ err: e }, 'health check coordination lost its PostgreSQL connection; reconnecting at the next claim');
  };

  const connect = async (): Promise<Client> => {
    const fresh = new (pgDriver().Client)({ connectionString: databaseUrl });
    fresh.on('error', (e) => lost(fresh, e));
    fresh.on('end', () => lost(fresh, new Error('connection ended')));
    fresh.on('notification', (n) => {
      if (n.channel !== healthChannel || n.payload === undefined) return;
      const change = parseChange(n.payload);
      // Anyone with access to the database may NOTIFY: a payload that is not ours is ignored.
      if (change === undefined) logger.warn({ payload: n.payload.slice(0, 200) }, 'health change notification not understood; ignored');
      else onChange(change);
    });
    await fresh.connect();
    await fresh.query(`LISTEN ${healthChannel}`);
    client = fresh;
    return fresh;
  };

  const connection = (): Promise<Client> => {
    if (client !== undefined) return Promise.resolve(client);
    connecting ??= connect().finally(() => (connecting = undefined));
    return connecting;
  };

  return {
    shared: true,
    holds: (key) => held.has(key),
    claim: async (keys) => {
      const wanted = [...new Set(keys)].filter((k) => !held.has(k));
      if (stopped) return [];
      const c = await connection();
      if (wanted.length === 0) return [];
      const { rows } = await c.query<{ k: number }>('select k from unnest($1::int[]) k where pg_try_advisory_lock($2, k)', [wanted, lockSpace]);
      const taken = rows.map((r) => r.k);
      for (const k of taken) held.add(k);
      return taken;
    },
    release: async (keys) => {
      const mine = keys.filter((k) => held.delete(k));
      if (mine.length === 0 || client === undefined) return;
      await client.query('select pg_advisory_unlock($2, k) from unnest($1::int[]) k', [mine, lockSpace]);
    },
    stop: async () => {
      stopped = true;
      held.clear();
      await connecting?.catch(() => undefined);
      const c = client;
      client = undefined;
      await c?.end();
    },
  };
}
