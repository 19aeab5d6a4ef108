// Rate counters shared through the test Redis (EDGEPLANE_TEST_REDIS_URL): two counters (two proxy nodes) share a
// bucket exactly; buckets expire; a lost script cache is reloaded; and without Redis — nothing
// listening, or a server that never answers — decisions are local and never wait long.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { after, test } from 'node:test';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { localCounters } from '../../../src/security/proxy/rate/local-counters.ts';
import type { RateCounters } from '../../../src/security/proxy/rate/rate-counters.ts';
import { redisCounters } from '../../../src/security/proxy/rate/redis-counters.ts';
import { needsRedis, testRedisUrl } from '../../support/redis.ts';

const skip = needsRedis();
const url = testRedisUrl ?? 'redis://127.0.0.1:6379';
const prefix = `edgeplane-test:${randomUUID()}:`;
const admin = new Redis(url, { lazyConnect: true });
const opened: RateCounters[] = [];

after(async () => {
  await Promise.all(opened.map((counters) => counters.close()));
  if (skip.skip !== undefined) return;
  const keys = await admin.keys(`${prefix}*`);
  if (keys.length > 0) await admin.del(...keys);
  admin.disconnect();
});

function logCapture() {
  const lines: string[] = [];
  const logger = {
    warn: (...args: unknown[]) => lines.push(`warn ${String(args.at(-1))}`),
    info: (...args: unknown[]) => lines.push(`info ${String(args.at(-1))}`),
  } as unknown as Pick<Logger, 'warn' | 'info'>;
  return { lines, logger };
}

function open(options: { url?: string; commandTimeoutMs?: number; cooldownMs?: number } = {}) {
  const { lines, logger } = logCapture();
  const counters = redisCounters({ url, prefix, fallback: localCounters(), logger, ...options });
  opened.push(counters);
  return { counters, lines };
}

/** Waits until the counters decide through Redis (a probe bucket of their own). */
async function shared(counters: RateCounters): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (typeof counters.take(`probe-${randomUUID()}`, 1, 1) !== 'number') return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('Redis never became ready');
}

test('two nodes share one bucket exactly, on the Redis server clock', skip, async () => {
  const a = open().counters;
  const b = open().counters;
  await Promise.all([shared(a), shared(b)]);
  const key = `r1:0:${randomUUID()}`;
  // 10/s with a burst of 10, taken alternately from both nodes at once.
  const first = await Promise.all(Array.from({ length: 10 }, async (_, i) => (i % 2 === 0 ? a : b).take(key, 10, 10)));
  assert.deepEqual(first, new Array(10).fill(0));
  const refused = await b.take(key, 10, 10);
  assert.ok(refused > 0 && refused <= 0.1, `the 11th waits up to 1/10 s (${refused})`);
  assert.ok((await a.take(key, 10, 10)) > 0, 'on the other node too');
  await new Promise((resolve) => setTimeout(resolve, Math.ceil(refused * 1000) + 5));
  assert.equal(await a.take(key, 10, 10), 0, 'one more after the wait');
  assert.ok((await b.take(key, 10, 10)) > 0);
});

test('a bucket expires when it is full again', skip, async () => {
  const { counters } = open();
  await shared(counters);
  const key = `r1:1:${randomUUID()}`;
  for (let i = 0; i < 3; i++) assert.equal(await counters.take(key, 3, 3), 0);
  const ttl = await admin.pttl(prefix + key);
  assert.ok(ttl > 0 && ttl <= 1000, `expires within a second (${ttl} ms)`);
});

test('a lost script cache is loaded again without a refused or failed decision', skip, async () => {
  const { counters, lines } = open();
  await shared(counters);
  await admin.script('FLUSH');
  const key = `r1:2:${randomUUID()}`;
  assert.equal(await counters.take(key, 1, 1), 0);
  assert.ok((await counters.take(key, 1, 1)) > 0, 'counted in Redis');
  assert.ok(await admin.exists(prefix + key));
  assert.deepEqual(lines, []);
});

test('nothing listening: local decisions at once, and logged once', skip, async () => {
  const { counters, lines } = open({ url: 'redis://127.0.0.1:1' });
  await new Promise((resolve) => setTimeout(resolve, 300));
  const started = performance.now();
  assert.equal(counters.take('r1:0:c', 2, 2), 0);
  assert.equal(counters.take('r1:0:c', 2, 2), 0);
  assert.ok((counters.take('r1:0:c', 2, 2) as number) > 0, 'still limited, by this node');
  // Numbers, not promises (the equalities above), and no blocking wait: a connection attempt would
  // take far longer than this bound, which leaves room for a collection on a busy machine.
  assert.ok(performance.now() - started < 100, 'synchronous');
  assert.equal(lines.filter((line) => line.startsWith('warn')).length, 1, lines.join('\n'));
});

/** A TCP relay to the real Redis that can stop relaying: a Redis that has stopped answering. */
async function freezableRelay() {
  const sockets: net.Socket[] = [];
  const relay = net.createServer((client) => {
    const target = new URL(url);
    const server = net.connect(Number(target.port || 6379), target.hostname);
    sockets.push(client, server);
    client.pipe(server);
    server.pipe(client);
    client.on('error', () => server.destroy());
    server.on('error', () => client.destroy());
    client.on('close', () => server.destroy());
    server.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(relay.address() as net.AddressInfo).port}`,
    /** Stops (or resumes) reading from Redis: its replies wait, as behind a stalled server. */
    freeze: (frozen: boolean) => {
      for (const socket of sockets.filter((_, i) => i % 2 === 1)) {
        if (frozen) socket.pause();
        else socket.resume();
      }
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      relay.close();
    },
  };
}

test('a Redis that stops answering delays one decision by the command timeout, then decisions are local', skip, async () => {
  const relay = await freezableRelay();
  after(relay.close);
  const { counters, lines } = open({ url: relay.url, commandTimeoutMs: 50, cooldownMs: 300 });
  await shared(counters);
  relay.freeze(true);
  const key = `r1:3:${randomUUID()}`;
  const started = performance.now();
  assert.equal(await counters.take(key, 1, 1), 0);
  const waited = performance.now() - started;
  assert.ok(waited >= 40 && waited < 200, `the first decision waits the timeout (${waited} ms)`);
  const next = counters.take(key, 1, 1);
  assert.equal(typeof next, 'number', 'then local at once');
  assert.ok((next as number) > 0, 'and still counted');
  assert.equal(lines.filter((line) => line.startsWith('warn')).length, 1);
  // The cool-down over and Redis still silent: one decision alone tries it, the others stay local.
  await new Promise((resolve) => setTimeout(resolve, 320));
  const probe = counters.take(`r1:5:${randomUUID()}`, 1, 1);
  assert.ok(probe instanceof Promise, 'one decision tries Redis');
  assert.equal(typeof counters.take(`r1:5:${randomUUID()}`, 1, 1), 'number', 'the next ones do not wait for it');
  assert.equal(await probe, 0);
  assert.equal(typeof counters.take(`r1:5:${randomUUID()}`, 1, 1), 'number', 'timed out: local again');
  // Answering again and the cool-down over: shared again, and that is logged.
  relay.freeze(false);
  await new Promise((resolve) => setTimeout(resolve, 350));
  const later = `r1:4:${randomUUID()}`;
  assert.equal(await counters.take(later, 1, 1), 0);
  assert.ok(await admin.exists(prefix + later));
  assert.equal(lines.filter((line) => line.startsWith('info')).length, 1, lines.join('\n'));
});
