// Rate rules through a real HTTP server: the limit at its boundary, who a client is, which requests a
// rule covers, several rules at once, tenants apart, and two nodes sharing buckets through Redis.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, test } from 'node:test';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { RatePolicy } from '../../../src/security/proxy/policy.ts';
import { localCounters } from '../../../src/security/proxy/rate/local-counters.ts';
import { redisCounters } from '../../../src/security/proxy/rate/redis-counters.ts';
import { startStepServer, testDeps, testPolicy, type StepServer } from './step-harness.ts';
import { needsRedis, testRedisUrl } from '../../support/redis.ts';

const rule = (method: string, path: string, value: number): RatePolicy => ({ method, path, value, testCookie: false });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function withServer(rules: RatePolicy[], body: (server: StepServer) => Promise<void>) {
  const server = await startStepServer(testPolicy({ rules }), await testDeps());
  try {
    await body(server);
  } finally {
    await server.close();
  }
}

async function statusesOf(server: StepServer, count: number, path: string, options: { method?: string; client?: string } = {}): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push((await server.send(`${server.http}${path}`, options)).status);
  return out;
}

test('at the boundary: value requests pass at once, the next is 429 with Retry-After, one more after 1/value s', async () => {
  await withServer([rule('GET', '/api/*', 5)], async (server) => {
    assert.deepEqual(await statusesOf(server, 5, '/api/items'), [200, 200, 200, 200, 200]);
    const refused = await server.send(`${server.http}/api/items`);
    assert.equal(refused.status, 429);
    assert.equal(refused.headers['retry-after'], '1');
    assert.equal(refused.body, 'Too Many Requests\n');
    await sleep(210);
    assert.deepEqual(await statusesOf(server, 2, '/api/items'), [200, 429]);
  });
});

test('a client is an IPv4 address or an IPv6 /64; the socket address counts when nothing else is said', async () => {
  await withServer([rule('*', '*', 1)], async (server) => {
    assert.deepEqual(await statusesOf(server, 2, '/', { client: '198.51.100.1' }), [200, 429]);
    assert.deepEqual(await statusesOf(server, 2, '/', { client: '::ffff:198.51.100.1' }), [429, 429], 'mapped IPv4 is the same client');
    assert.deepEqual(await statusesOf(server, 2, '/', { client: '198.51.100.2' }), [200, 429]);
    assert.deepEqual(await statusesOf(server, 1, '/', { client: '2001:db8:1:2::1' }), [200]);
    assert.deepEqual(await statusesOf(server, 1, '/', { client: '2001:db8:1:2:ffff::9' }), [429], 'same /64');
    assert.deepEqual(await statusesOf(server, 1, '/', { client: '2001:db8:1:3::1' }), [200], 'another /64');
    const one = await server.send(`${server.http}/`, { localAddress: '127.0.0.2' });
    const two = await server.send(`${server.http}/`, { localAddress: '127.0.0.2' });
    const other = await server.send(`${server.http}/`, { localAddress: '127.0.0.3' });
    assert.deepEqual([one.status, two.status, other.status], [200, 429, 200]);
  });
});

test('a rule covers its method (GET with HEAD, * any) and its path pattern, however the path is spelt', async () => {
  await withServer([rule('GET', '/api/*/list', 1), rule('post', '/login', 1)], async (server) => {
    assert.deepEqual(await statusesOf(server, 2, '/api/v1/users/list', { client: '192.0.2.1' }), [200, 429]);
    assert.deepEqual(await statusesOf(server, 1, '/api/v1/users/list', { client: '192.0.2.1', method: 'HEAD' }), [429]);
    assert.deepEqual(await statusesOf(server, 3, '/api/v1/users/list', { client: '192.0.2.1', method: 'POST' }), [200, 200, 200]);
    for (const spelt of ['/%61pi/x/list', '//api/x/list', '/static/../api/x/list', '/api/./x/list']) {
      assert.deepEqual(await statusesOf(server, 1, spelt, { client: '192.0.2.1' }), [429], spelt);
    }
    for (const other of ['/api/list', '/apix/y/list', '/api/x/list/more', '/API/x/list']) {
      assert.deepEqual(await statusesOf(server, 2, other, { client: '192.0.2.1' }), [200, 200], other);
    }
    assert.deepEqual(await statusesOf(server, 2, '/login?next=/', { client: '192.0.2.1', method: 'POST' }), [200, 429], 'the query is not the path');
    assert.deepEqual(await statusesOf(server, 2, '/login', { client: '192.0.2.1' }), [200, 200]);
  });
});

test('value 0 is unlimited; every matching rule counts in its own bucket', async () => {
  await withServer([rule('*', '/free/*', 0), rule('*', '/a/*', 10), rule('GET', '*', 3)], async (server) => {
    assert.deepEqual(await statusesOf(server, 3, '/a/x'), [200, 200, 200]);
    assert.deepEqual(await statusesOf(server, 1, '/a/x'), [429], 'the third rule refuses');
    assert.deepEqual(await statusesOf(server, 5, '/a/x', { method: 'POST' }), [200, 200, 200, 200, 200], 'POST meets the second rule only');
    // The refused GET counted there too: every matching rule counts a request, whichever refuses it.
    assert.deepEqual(await statusesOf(server, 2, '/a/x', { method: 'POST' }), [200, 429], 'which has counted every request it covered');
  });
  await withServer([rule('*', '*', 0)], async (server) => {
    assert.deepEqual(await statusesOf(server, 20, '/'), new Array(20).fill(200));
  });
});

test('under attack: every client meets a ceiling (its burst at once, then its rate), rules or not; calm, none', async () => {
  const deps = await testDeps({ settings: { attackLimits: { clientRate: 5, clientBurst: 3, ruleShare: 0.5 } } });
  const policy = testPolicy();
  const besieged = await startStepServer(policy, deps, { underAttack: true });
  const calm = await startStepServer(policy, deps);
  try {
    // /api/* is exempt from the bot challenge mitigation also puts in place, not from the ceiling.
    assert.deepEqual(await statusesOf(besieged, 4, '/api/items', { client: '192.0.2.1' }), [200, 200, 200, 429]);
    assert.deepEqual(await statusesOf(besieged, 3, '/api/other', { client: '192.0.2.2' }), [200, 200, 200], 'each client its own bucket');
    assert.deepEqual(await statusesOf(calm, 10, '/api/items', { client: '192.0.2.1' }), Array(10).fill(200), 'no ceiling while calm');
    await sleep(210);
    assert.deepEqual(await statusesOf(besieged, 2, '/api/items', { client: '192.0.2.1' }), [200, 429], 'refilled at 5 a second');
  } finally {
    await Promise.all([besieged.close(), calm.close()]);
  }
});

test('under attack a rule allows its share of its value; without a ceiling configured, only the rules limit', async () => {
  const deps = await testDeps({ settings: { attackLimits: { clientRate: 0, clientBurst: 1, ruleShare: 0.5 } } });
  const policy = testPolicy({ rules: [rule('GET', '/api/limited', 10)] });
  const besieged = await startStepServer(policy, deps, { underAttack: true });
  try {
    assert.deepEqual(await statusesOf(besieged, 6, '/api/limited'), [200, 200, 200, 200, 200, 429], 'half of 10');
    assert.deepEqual(await statusesOf(besieged, 30, '/api/free'), Array(30).fill(200), 'no ceiling');
  } finally {
    await besieged.close();
  }
});

test('two resources with the same rules never share a bucket', async () => {
  const deps = await testDeps();
  const first = await startStepServer(testPolicy({ rules: [rule('*', '*', 1)] }), deps);
  const second = await startStepServer(testPolicy({ rules: [rule('*', '*', 1)] }), { ...deps, counters: deps.counters });
  try {
    assert.deepEqual(await statusesOf(first, 2, '/'), [200, 429]);
    assert.deepEqual(await statusesOf(second, 2, '/'), [200, 429]);
  } finally {
    await first.close();
    await second.close();
  }
});

const prefix = `edgeplane-test:${randomUUID()}:`;
const redis = needsRedis();
const admin = new Redis(testRedisUrl ?? '', { lazyConnect: true });
after(async () => {
  if (redis.skip !== undefined) return;
  const keys = await admin.keys(`${prefix}*`);
  if (keys.length > 0) await admin.del(...keys);
  admin.disconnect();
});

test('two nodes with Redis-shared counters share one client bucket per rule', redis, async () => {
  const logger = { warn() {}, info() {} } as unknown as Pick<Logger, 'warn' | 'info'>;
  const policy = testPolicy({ rules: [rule('*', '/shared', 4)] });
  const nodes = await Promise.all(
    [1, 2].map(async () => startStepServer(policy, await testDeps({ counters: redisCounters({ url: testRedisUrl ?? '', prefix, fallback: localCounters(), logger }) }))),
  );
  try {
    const [a, b] = nodes as [StepServer, StepServer];
    // Until connected, decisions are local: wait for each node to count in Redis, with a probe client of its own.
    for (const [node, probe] of [[a, '192.0.2.201'], [b, '192.0.2.202']] as const) {
      for (let i = 0; i < 100 && (await admin.exists(`${prefix}${policy.id}:0:${probe}`)) === 0; i++) {
        await node.send(`${node.http}/shared`, { client: probe });
        await sleep(20);
      }
    }
    const seen: number[] = [];
    for (let i = 0; i < 6; i++) seen.push((await (i % 2 === 0 ? a : b).send(`${(i % 2 === 0 ? a : b).http}/shared`, { client: '192.0.2.50' })).status);
    assert.deepEqual(seen, [200, 200, 200, 200, 429, 429]);
    assert.equal(await admin.exists(`${prefix}${policy.id}:0:192.0.2.50`), 1, 'the bucket key: resource, rule, client');
  } finally {
    await Promise.all(nodes.map((node) => node.close()));
  }
});
