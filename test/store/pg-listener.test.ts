// The LISTEN connection of DNS-only nodes and of the proxy (src/store/pg-listener.ts): a payload
// that is not JSON is ignored instead of ending the process, and a connection the server ends (as
// a restart does) is opened again, so notifications reach the node again.
import assert from 'node:assert/strict';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { listenTo, type PgListener } from '../../src/store/pg-listener.ts';
import { createPostgresDatabase, engines, type TestDatabase } from '../support/engines.ts';

const logger = () => {
  const lines: { level: string; message: string }[] = [];
  return { lines, warn: (_: object, message: string) => lines.push({ level: 'warn', message }), info: (_: object, message: string) => lines.push({ level: 'info', message }) };
};

const until = async (what: string, done: () => Promise<boolean> | boolean, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

for (const engine of engines().filter((e) => e === 'postgres')) {
  describe(`a LISTEN connection that outlives its connections (${engine})`, () => {
    let database: TestDatabase;
    let admin: pg.Client;
    const channel = `edgeplane_test_${randomBytes(4).toString('hex')}`;
    const notify = (payload: string) => admin.query('select pg_notify($1, $2)', [channel, payload]);
    // Backends that have run the LISTEN (idle after it: a terminated one may still be listed while it goes).
    const listeningPids = async () => (await admin.query<{ pid: number }>(`select pid from pg_stat_activity where datname = current_database() and query = $1 and state = 'idle'`, [`LISTEN ${channel}`])).rows.map((r) => r.pid);
    const listening = async () => (await listeningPids()).length;
    /** Until one backend listens, and not one of `before`. */
    const listeningAgain = (before: number[]) => until('the listener to connect again', async () => {
      const now = await listeningPids();
      return now.length === 1 && !before.includes(now[0] as number);
    });

    before(async () => {
      database = await createPostgresDatabase();
      admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
    });
    after(async () => {
      await admin.end();
      await database.drop();
    });

    test('a payload that is not JSON is logged and ignored; the next is handed over parsed', async () => {
      const heard: unknown[] = [];
      const log = logger();
      const listener = await listenTo(database.url, { [channel]: (payload) => heard.push(payload) }, log);
      try {
        await notify('not json');
        await notify('{"zoneId": 1}');
        await until('the second notification', () => heard.length > 0);
        assert.deepEqual(heard, [{ zoneId: 1 }]);
        assert.deepEqual(log.lines, [{ level: 'warn', message: 'a notification that is not JSON; ignored' }]);
      } finally {
        await listener.stop();
      }
    });

    test('a connection the server ends is opened again, and notifications arrive again; none after stop', async () => {
      const heard: unknown[] = [];
      const log = logger();
      let listener: PgListener | undefined = await listenTo(database.url, { [channel]: (payload) => heard.push(payload) }, log, { firstMs: 50, longestMs: 200 });
      try {
        const before = await listeningPids();
        assert.equal(before.length, 1);
        const ended = await admin.query<{ ended: boolean }>('select pg_terminate_backend(pid) as ended from pg_stat_activity where datname = current_database() and query = $1', [`LISTEN ${channel}`]);
        assert.deepEqual(ended.rows, [{ ended: true }]);
        await listeningAgain(before);
        await notify('"after"');
        await until('a notification after the new connection', () => heard.includes('after'));
        assert.deepEqual(log.lines.map((l) => l.message), ['the PostgreSQL connection listening for changes was lost; connecting again', 'listening for changes again']);
        await listener.stop();
        listener = undefined;
        await until('the listener to leave', async () => (await listening()) === 0);
      } finally {
        await listener?.stop();
      }
    });

    test('the first connection failing fails the start; while the server cannot be reached, each wait is longer; stopped, it tries no more', async () => {
      // A TCP forwarder to the server that can stop letting connections through.
      const server = new URL(database.url);
      let through = true;
      const sockets = new Set<net.Socket>();
      const forwarder = net.createServer((client) => {
        if (!through) {
          client.destroy();
          return;
        }
        const upstream = net.connect(Number(server.port || 5432), server.hostname);
        for (const [one, other] of [[client, upstream], [upstream, client]] as const) {
          sockets.add(one);
          one.on('error', () => undefined);
          one.on('close', () => {
            sockets.delete(one);
            other.destroy();
          });
          one.pipe(other);
        }
      });
      await new Promise<void>((resolve) => forwarder.listen(0, '127.0.0.1', resolve));
      const url = new URL(database.url);
      url.hostname = '127.0.0.1';
      url.port = String((forwarder.address() as net.AddressInfo).port);
      const heard: unknown[] = [];
      const lines: { message: string; retryInMs?: number }[] = [];
      const log = { warn: (details: { retryInMs?: number }, message: string) => lines.push({ message, retryInMs: details.retryInMs }), info: (_: object, message: string) => lines.push({ message }) };
      let listener: PgListener | undefined;
      try {
        through = false;
        await assert.rejects(listenTo(url.toString(), { [channel]: () => undefined }, log));
        through = true;
        listener = await listenTo(url.toString(), { [channel]: (payload) => heard.push(payload) }, log, { firstMs: 50, longestMs: 200 });
        await until('the listener to listen', async () => (await listening()) === 1);
        const before = await listeningPids();
        through = false;
        for (const socket of sockets) socket.destroy();
        await until('four failed attempts', () => lines.length >= 5);
        through = true;
        await listeningAgain(before);
        await notify('"back"');
        await until('a notification after the server came back', () => heard.includes('back'));
        const failed = lines.slice(1, -1);
        assert.deepEqual(lines[0], { message: 'the PostgreSQL connection listening for changes was lost; connecting again', retryInMs: 50 });
        assert.ok(failed.every((l) => l.message === 'connecting to PostgreSQL to listen for changes failed; trying again'));
        assert.deepEqual(failed.slice(0, 3).map((l) => l.retryInMs), [100, 200, 200]);
        assert.deepEqual(lines.at(-1), { message: 'listening for changes again' });
        // Stopped while it tries again: it tries no more.
        through = false;
        for (const socket of sockets) socket.destroy();
        const seen = lines.length;
        await until('a failed attempt', () => lines.length >= seen + 2);
        await listener.stop();
        listener = undefined;
        through = true;
        const stoppedAt = lines.length;
        await new Promise((resolve) => setTimeout(resolve, 600));
        assert.equal(lines.length, stoppedAt);
        assert.equal(await listening(), 0);
      } finally {
        await listener?.stop();
        for (const socket of sockets) socket.destroy();
        await new Promise((resolve) => forwarder.close(resolve));
      }
    });
  });
}
