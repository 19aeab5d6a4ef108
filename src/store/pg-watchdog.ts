// A statement whose PostgreSQL connection died without a word (the server's machine gone, a
// failover that moved its address, a firewall or NAT that forgot the flow) would wait until the
// operating system gave up on the bytes it sent: about 15 minutes on Linux, where TCP keep-alive
// does not help (it only probes idle connections). Meanwhile every write to its zone would queue
// behind it (dns/rrset-batch.ts commits a zone's batches one at a time). The watchdog looks at each
// statement still unanswered after the store's wait (EDGEPLANE_DATABASE_WAIT) from another
// connection, again every wait until it is answered:
// - the server cannot be reached within the wait (no connection, and no answer refusing one: a
//   server at its connection limit is there): the connection is ended;
// - the server has no session of that connection (its pid, started when the connection was made),
//   or it has one that is idle (it answered, and the answer was lost; or the statement never came): that
//   session is ended by the server (pg_terminate_backend, so that a transaction it held open lets go
//   of its locks now, not when the server's TCP gives up: hours), and the connection is ended;
// - the session is running a statement, or waiting for a lock (a long statement), or the server
//   does not say (track_activities off): left alone.
// Ending the connection fails its statement as a lost connection does (pg-commit.ts reads that:
// 503 store_unavailable, or commit_outcome_unknown for a COMMIT), and the pool opens another.
// A connection whose session is not known (a pooler such as PgBouncer in between: the pid the
// connection was given is not its session's; or the connection went silent before its session was
// read) is ended only when the server (or the pooler) cannot be reached; otherwise it is left to TCP.
import type { Socket } from 'node:net';
import type pg from 'pg';
import type { Logger } from 'pino';
import { answeredByServer } from './errors.ts';
import { pgDriver } from './pg-driver.ts';

/** A connection's session on the server, read when the connection is made. */
interface Session {
  pid: number;
  started: string;
}

interface Statement {
  client: pg.PoolClient;
  /** When it was sent. */
  sent: number;
  /** When it was sent, or last found running. */
  since: number;
  checking: boolean;
}

const sessionQuery = 'select pid, backend_start::text as started from pg_stat_activity where pid = pg_backend_pid()';
const stateQuery = 'select state, backend_start::text as started from pg_stat_activity where pid = $1';
const terminateQuery = 'select pg_terminate_backend(pid) from pg_stat_activity where pid = $1 and backend_start::text = $2';

export class PgWatchdog {
  readonly #pool: pg.Pool;
  readonly #waitMs: number;
  readonly #logger: Logger | undefined;
  readonly #sessions = new WeakMap<pg.PoolClient, Session>();
  readonly #unanswered = new Set<Statement>();
  #timer: NodeJS.Timeout | undefined;
  #pooledToldOf = false;

  constructor(pool: pg.Pool, waitMs: number, logger: Logger | undefined) {
    this.#pool = pool;
    this.#waitMs = waitMs;
    this.#logger = logger;
    // Queued on the new connection before the statement it was opened for.
    pool.on('connect', (client) => {
      client.query<Session>(sessionQuery).then(
        ({ rows: [session] }) => {
          const pid = (client as pg.PoolClient & { processID?: number }).processID;
          if (session !== undefined && session.pid === pid) this.#sessions.set(client, session);
          else if (!this.#pooledToldOf) {
            this.#pooledToldOf = true;
            this.#logger?.info('PostgreSQL: the connections\' sessions are not the server\'s own (a pooler in between?): a connection that dies silently under a statement is ended only when the server cannot be reached, else left to TCP');
          }
        },
        () => undefined,
      );
    });
  }

  /** `answer`, the answer to a statement sent on `client`, watched until it settles. */
  watch<T>(client: pg.PoolClient, answer: Promise<T>): Promise<T> {
    const sent = performance.now();
    const statement: Statement = { client, sent, since: sent, checking: false };
    this.#unanswered.add(statement);
    this.#timer ??= setInterval(() => this.#sweep(), Math.max(50, this.#waitMs / 4)).unref();
    return answer.then(
      (result) => {
        this.#unanswered.delete(statement);
        return result;
      },
      (error: unknown) => {
        this.#unanswered.delete(statement);
        throw error;
      },
    );
  }

  #sweep(): void {
    if (this.#unanswered.size === 0) {
      clearInterval(this.#timer);
      this.#timer = undefined;
      return;
    }
    const now = performance.now();
    for (const statement of this.#unanswered) {
      if (statement.checking || now - statement.since < this.#waitMs) continue;
      const session = this.#sessions.get(statement.client);
      statement.checking = true;
      void this.#check(statement, session).finally(() => {
        statement.checking = false;
        statement.since = performance.now();
      });
    }
  }

  async #check(statement: Statement, session: Session | undefined): Promise<void> {
    const probe = new (pgDriver().Client)({ ...this.#pool.options, connectionTimeoutMillis: this.#waitMs, query_timeout: this.#waitMs });
    probe.on('error', () => undefined);
    try {
      try {
        await probe.connect();
      } catch (e) {
        // A server that answered (too many connections, starting up) is there: the next sweep asks again.
        if (this.#unanswered.has(statement) && !answeredByServer(e)) this.#end(statement, session, 'PostgreSQL cannot be reached');
        return;
      }
      if (session === undefined) return;
      const { rows: [seen] } = await probe.query<{ state: string | null; started: string }>(stateQuery, [session.pid]);
      // Answered while the server was asked: a live connection's answer is in by now (a round trip has passed).
      if (!this.#unanswered.has(statement)) return;
      const ours = seen?.started === session.started;
      // Only an idle session is known not to run it ('disabled': the server does not track it).
      if (ours && seen.state?.startsWith('idle') !== true) return;
      if (ours) await probe.query(terminateQuery, [session.pid, session.started]);
      this.#end(statement, session, ours ? 'its session on the server is not running it' : 'its session on the server is gone');
    } catch {
      // The probe itself failed midway: the next sweep asks again.
    } finally {
      probe.end().catch(() => undefined);
    }
  }

  #end(statement: Statement, session: Session | undefined, why: string): void {
    this.#logger?.warn({ backendPid: session?.pid, waitedMs: Math.round(performance.now() - statement.sent), why }, 'PostgreSQL: a statement went unanswered on a connection that is gone; the connection is ended');
    (statement.client as pg.PoolClient & { connection: { stream: Socket } }).connection.stream.destroy();
  }
}
