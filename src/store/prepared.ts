// PostgreSQL statements that the write path runs many times a second with one text (an RRset
// batch's read and its guarded statement, guarded-change.ts): run as named prepared statements, so
// the server parses and plans each once per connection instead of at every run. On bench/api's
// machine that took the guarded statement from 3.9 to 2.5 ms (bench/README.md, "api").
//
// A statement asks for it by starting with `mark` (prepared()); the pool wrapper (preparingPool)
// names it by a hash of its text, so one name always means one text. Only statements whose text
// does not vary with their values are marked (they pass arrays, not lists of parameters): every
// connection keeps each distinct text. A pooler in transaction mode must track prepared statements
// (PgBouncer 1.21 or later with max_prepared_statements); where it does not,
// EDGEPLANE_DATABASE_PREPARE=0 runs marked statements like any other.
import { createHash } from 'node:crypto';
import { sql, type PostgresCursor, type PostgresPool, type PostgresPoolClient, type RawBuilder } from 'kysely';
import type pg from 'pg';
import type { PgWatchdog } from './pg-watchdog.ts';

const mark = '/* prepared */';

/** `statement`, marked to run as a named prepared statement. */
export function prepared<T>(statement: RawBuilder<T>): RawBuilder<T> {
  return sql<T>`${sql.raw(mark)} ${statement}`;
}

const ignoreError = (): void => undefined;

/**
 * `pool` for Kysely, running marked statements as named prepared statements when `prepare` is on,
 * each statement's answer watched by `watchdog` (pg-watchdog.ts).
 */
export function preparingPool(pool: pg.Pool, prepare: boolean, watchdog: PgWatchdog): PostgresPool {
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => ({
    // Kysely reads the backend's pid from here to cancel a query.
    get processID() {
      return (client as pg.PoolClient & { processID?: number }).processID;
    },
    query: ((text: string | PostgresCursor<unknown>, values?: unknown[]) => {
      // A cursor (Kysely's streaming) is pg's Submittable.
      if (typeof text !== 'string') return client.query(text as unknown as pg.Submittable);
      const answer = prepare && text.startsWith(mark)
        ? client.query({ name: `edgeplane_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`, text, values })
        : client.query(text, values);
      return watchdog.watch(client, answer);
    }) as unknown as PostgresPoolClient['query'],
    release: (destroy?: boolean) => {
      client.release(destroy);
    },
  });
  return {
    options: pool.options,
    // What Kysely opens a control connection with to cancel a query, as it would take it from the pool itself.
    Client: (pool as pg.Pool & Pick<PostgresPool, 'Client'>).Client,
    end: () => pool.end(),
    connect: async () => {
      // Kysely keeps a connection per client object: the same client gets the same wrapper.
      const client = await pool.connect();
      const known = wrapped.get(client);
      if (known !== undefined) return known;
      const made = wrap(client);
      wrapped.set(client, made);
      // pg-pool listens for a client's errors only while it is idle; one lost while checked out is
      // an 'error' event with no listener, which would end the process. The statement under way is
      // rejected with the error anyway, and the pool then discards the client (no longer queryable).
      client.on('error', ignoreError);
      return made;
    },
  };
}
