// forward() against real origins on 127.0.0.1: balancing measured over real requests, backup
// takeover and give-back, ip_hash, the retry rules, 502/504, header rules, the destination policy.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, test } from 'node:test';
import { deadPort, originSet, send, startOrigin, startProxy, type Origin, type Proxy } from './origins-harness.ts';

const cleanup: Array<Origin | Proxy> = [];
after(async () => {
  for (const item of cleanup) await ('stop' in item ? item.stop().catch(() => undefined) : item.close());
});

async function origins(...names: string[]): Promise<Origin[]> {
  const started = await Promise.all(names.map((name) => startOrigin(name)));
  cleanup.push(...started);
  return started;
}

async function proxy(set: Parameters<typeof startProxy>[0]): Promise<Proxy> {
  const started = await startProxy(set);
  cleanup.push(started);
  return started;
}

async function tally(url: string, count: number, headers: Record<string, string> = {}): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (let i = 0; i < count; i++) {
    const { status, body } = await send(url, { headers });
    assert.equal(status, 200);
    counts[body] = (counts[body] ?? 0) + 1;
  }
  return counts;
}

describe('balancing over real requests', () => {
  test('weights 3:1 share 40 requests 30:10, and latency is measured', async () => {
    const [a, b] = await origins('a', 'b');
    const p = await proxy(originSet([{ port: a!.port, weight: 3 }, { port: b!.port, weight: 1 }]));
    assert.deepEqual(await tally(p.url, 40), { a: 30, b: 10 });
    assert.equal(p.results.length, 40);
    for (const result of p.results) {
      assert.equal(result.outcome, 'passed');
      assert.equal(result.status, 200);
      assert.ok(result.originMs >= 0 && result.originMs < 5000);
    }
  });

  test('the backup takes over when the primaries die and gives back when they return', async () => {
    const [a, b, backup] = await origins('a', 'b', 'backup');
    const p = await proxy(originSet([{ port: a!.port }, { port: b!.port }, { port: backup!.port, mode: 'backup' }], {}, { failTimeoutMs: 150 }));
    assert.deepEqual(await tally(p.url, 4), { a: 2, b: 2 });
    await a!.stop();
    assert.deepEqual(await tally(p.url, 4), { b: 4 }, 'a refused: its request went on to b, and a is out');
    await b!.stop();
    assert.deepEqual(await tally(p.url, 3), { backup: 3 });
    await a!.restart();
    await b!.restart();
    await sleep(200);
    assert.deepEqual(await tally(p.url, 4), { a: 2, b: 2 }, 'probed after fail_timeout and given back');
  });

  test('ip_hash keeps each client on one origin and spreads clients over all', async () => {
    const list = await origins('a', 'b', 'c');
    const p = await proxy(originSet(list.map((o) => ({ port: o.port })), { service_iphash: 1 }));
    const used = new Set<string>();
    for (let i = 0; i < 30; i++) {
      const client = `203.0.${String(i)}.7`;
      const first = await tally(p.url, 3, { 'x-test-client': client });
      assert.equal(Object.keys(first).length, 1, `${client} stays on one origin`);
      const again = await tally(p.url, 1, { 'x-test-client': client.replace(/7$/, '99') });
      assert.deepEqual(Object.keys(again), Object.keys(first), 'same /24');
      used.add(Object.keys(first)[0]!);
    }
    assert.equal(used.size, 3);
  });
});

describe('failures', () => {
  test('a GET whose origin refuses the connection is retried on the next one; a POST is not', async () => {
    const [live] = await origins('live');
    const dead = await deadPort();
    const p = await proxy(originSet([{ port: dead }, { port: live!.port }]));
    assert.deepEqual(await send(p.url).then((r) => [r.status, r.body]), [200, 'live']);

    const q = await proxy(originSet([{ port: dead }, { port: live!.port }]));
    const post = await send(q.url, { method: 'POST', body: 'x' });
    assert.equal(post.status, 502);
    assert.match(post.body, /Bad Gateway/);
    assert.equal(post.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(q.results[0]?.outcome, 'origin_error');
    assert.equal(q.results[0].originMs, -1);
    assert.deepEqual(await send(q.url, { method: 'POST', body: 'x' }).then((r) => [r.status, r.body]), [200, 'live'], 'the dead origin is out');
  });

  test('every origin down: 502; an origin that does not answer in time: 504', async () => {
    const p = await proxy(originSet([{ port: await deadPort() }, { port: await deadPort() }]));
    assert.equal((await send(p.url)).status, 502);
    assert.equal((await send(p.url)).status, 502, 'both out: answered at once');

    const [silent] = await origins('silent');
    silent!.server.removeAllListeners('request');
    silent!.server.on('request', () => undefined);
    const q = await proxy(originSet([{ port: silent!.port }], {}, { headersTimeoutMs: 300 }));
    const started = performance.now();
    const reply = await send(q.url);
    assert.equal(reply.status, 504);
    assert.match(reply.body, /Gateway Timeout/);
    assert.ok(performance.now() - started < 3000);
  });
});

describe('headers', () => {
  test('hop-by-hop headers go neither way; X-Forwarded-* and X-Real-IP are the proxy\'s; Host is kept', async () => {
    const [echo] = await origins('echo');
    echo!.server.removeAllListeners('request');
    echo!.server.on('request', (req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        connection: 'x-origin-private',
        'x-origin-private': '1',
        'keep-alive': 'timeout=77',
        'proxy-authenticate': 'Basic',
        'x-kept': 'yes',
        'set-cookie': ['a=1', 'b=2'],
        'strict-transport-security': 'max-age=1',
      });
      res.end(JSON.stringify(req.headers));
    });
    const p = await proxy(originSet([{ port: echo!.port }]));
    const reply = await send(p.url, {
      headers: {
        host: 'Site.example:8080',
        connection: 'keep-alive, x-client-private',
        'x-client-private': 'secret',
        'keep-alive': 'timeout=9',
        te: 'trailers',
        'proxy-authorization': 'Basic eA==',
        proxy: 'http://evil.example',
        'x-forwarded-for': '6.6.6.6',
        'x-real-ip': '6.6.6.6',
        'x-forwarded-proto': 'https',
        forwarded: 'for=6.6.6.6',
        'x-test-client': '198.51.100.7',
        'x-test-hsts': '1',
        'x-kept': 'yes',
      },
    });
    assert.equal(reply.status, 200);
    const seen = JSON.parse(reply.body) as Record<string, string>;
    for (const name of ['x-client-private', 'keep-alive', 'te', 'proxy-authorization', 'proxy', 'forwarded']) assert.equal(seen[name], undefined, name);
    assert.equal(seen['host'], 'Site.example:8080');
    assert.equal(seen['x-forwarded-for'], '198.51.100.7');
    assert.equal(seen['x-real-ip'], '198.51.100.7');
    assert.equal(seen['x-forwarded-proto'], 'http');
    assert.equal(seen['x-forwarded-host'], 'Site.example:8080');
    assert.equal(seen['x-kept'], 'yes');
    for (const name of ['x-origin-private', 'proxy-authenticate']) assert.equal(reply.headers[name], undefined, name);
    assert.notEqual(reply.headers['keep-alive'], 'timeout=77', 'the proxy\'s own keep-alive, not the origin\'s');
    assert.equal(reply.headers['x-kept'], 'yes');
    assert.deepEqual(reply.headers['set-cookie'], ['a=1', 'b=2']);
    assert.equal(reply.headers['strict-transport-security'], 'max-age=60', 'the proxy\'s answer headers replace the origin\'s');
  });
});

describe('the operator\'s network', () => {
  test('loopback origins, by address or by a name resolving to one, are refused unless allowed', async () => {
    const [inside] = await origins('inside');
    for (const host of ['127.0.0.1', 'localhost']) {
      const refused = await proxy(originSet([{ host, port: inside!.port }], {}, { allowPrivateOrigins: false }));
      const reply = await send(refused.url);
      assert.equal(reply.status, 502, host);
      assert.equal(refused.results[0]?.outcome, 'origin_error');
      const allowed = await proxy(originSet([{ host, port: inside!.port }], {}, { allowPrivateOrigins: true }));
      assert.deepEqual(await send(allowed.url).then((r) => [r.status, r.body]), [200, 'inside'], host);
    }
    assert.equal(inside!.seen.length, 2, 'the refused requests never reached it');
  });

  test('a refused origin counts as a connection failure: the next origin serves an idempotent request', async () => {
    const [inside, other] = await origins('inside', 'other');
    const refused = await proxy(originSet([{ host: '127.0.0.1', port: inside!.port }, { host: 'localhost', port: other!.port }], {}, { allowPrivateOrigins: false }));
    assert.equal((await send(refused.url)).status, 502, 'both refused');
    assert.equal(inside!.seen.length + other!.seen.length, 0);
  });
});
