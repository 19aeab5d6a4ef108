// Established connections first (http1/request-turns.ts): over real sockets, a burst of requests on
// new connections arriving with one on an older connection; the older one is served before the
// burst is, the burst is served whole, and connections that leave while they wait are skipped.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import type { ProxyRequest, ProxyResponse } from '../../../src/security/proxy/exchange.ts';
import { RequestTurns } from '../../../src/security/proxy/http1/request-turns.ts';
import { http1Serving, httpListener, type Http1Serving } from '../../../src/security/proxy/listeners.ts';
import { testLimits } from '../../support/proxy-edge.ts';

const establishedMs = 300;
// No budget: once a turn has started one young connection's request, the others wait (the overload
// the budget stands for, made certain rather than timed).
const turns = new RequestTurns({ budgetMs: 0, establishedMs });
/** Paths in the order their requests reached the handler. */
const order: string[] = [];
let server: net.Server;
let http1: Http1Serving;
let port = 0;
/** Connections the server has been handed. */
let accepted = 0;

before(async () => {
  const handler = (req: ProxyRequest, res: ProxyResponse) => {
    order.push(String(req.url));
    res.writeHead(200, ['content-length', '2']).end('ok');
  };
  http1 = http1Serving({ request: handler, upgrade: (_req, socket) => socket.destroy(), clientError: () => undefined }, { ...testLimits, headerTimeoutMs: 5_000, idleTimeoutMs: 5_000 }, turns);
  const inner = httpListener(http1);
  server = net.createServer((socket) => {
    accepted++;
    inner.emit('connection', socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});
after(() => {
  http1.stop();
  server.close();
});

const request = (path: string) => `GET ${path} HTTP/1.1\r\nHost: a\r\n\r\n`;

function connect(): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Resolves once `socket` has received `count` answers. */
function answers(socket: net.Socket, count: number): Promise<void> {
  return new Promise((resolve) => {
    let received = '';
    const onData = (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (received.split('HTTP/1.1 200').length - 1 >= count) {
        socket.off('data', onData);
        resolve();
      }
    };
    socket.on('data', onData);
  });
}

test('under overload, an established connection is served before a burst on new connections, and the burst is served whole', async () => {
  const old = await connect();
  const warmed = answers(old, 1);
  old.write(request('/warm'));
  await warmed;
  await new Promise((resolve) => setTimeout(resolve, establishedMs + 50));

  const before = accepted;
  const young = await Promise.all(Array.from({ length: 100 }, () => connect()));
  // Every new connection served and reading before any request is sent: the requests then arrive
  // together, as a flood's do once its connections are up.
  while (accepted < before + 100) await new Promise((resolve) => setTimeout(resolve, 5));
  await new Promise((resolve) => setTimeout(resolve, 20));
  // Some leave while they wait: skipped, nothing else held up.
  const leaving = young.slice(90);
  const staying = young.slice(0, 90);
  order.length = 0;
  const served = Promise.all([...staying.map((socket) => answers(socket, 1)), answers(old, 1)]);
  young.forEach((socket, i) => socket.write(request(`/young-${String(i)}`)));
  old.write(request('/established'));
  for (const socket of leaving) socket.destroy();
  await served;

  const at = order.indexOf('/established');
  assert.ok(at >= 0 && at <= 10, `the established connection's request was the ${String(at + 1)}th of ${String(order.length)} (${order.slice(0, 12).join(' ')})`);
  for (let i = 0; i < 90; i++) assert.ok(order.includes(`/young-${String(i)}`), `young ${String(i)} served`);
  // The ones that left are dropped from the queue as their turns come (one a turn at no budget).
  for (let i = 0; i < 20 && turns.waiting > 0; i++) await new Promise((resolve) => setImmediate(resolve));
  assert.equal(turns.waiting, 0, 'nothing left waiting');
  for (const socket of [old, ...staying]) socket.destroy();
});

test('a thread keeping up makes nothing wait: every request within the budget starts at once', async () => {
  const calm = new RequestTurns();
  const first = calm.admit({ waiting: true, start: () => assert.fail('not queued') }, performance.now());
  const second = calm.admit({ waiting: true, start: () => assert.fail('not queued') }, performance.now());
  assert.deepEqual([first, second, calm.waiting], [true, true, 0]);
  // After the turn (the check phase), a new one begins with a whole budget.
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(calm.admit({ waiting: true, start: () => assert.fail('not queued') }, performance.now()), true);
});

test('a queue that never empties is served first come first served, its count right throughout', async () => {
  const slow = new RequestTurns({ budgetMs: 0, establishedMs: 60_000 });
  const started: number[] = [];
  const connection = (i: number) => {
    const waiter = { waiting: true, start: () => ((waiter.waiting = false), started.push(i)) };
    return waiter;
  };
  const now = performance.now();
  assert.equal(slow.admit(connection(-1), now), true, 'the first of the turn starts');
  // More keep arriving while the queue drains one a turn: it is compacted on the way (past 1,024
  // spent entries), which must neither lose nor reorder any.
  let next = 0;
  for (; next < 3000; next++) assert.equal(slow.admit(connection(next), now), false);
  while (slow.waiting > 0) {
    const before = slow.waiting;
    await new Promise((resolve) => setImmediate(resolve));
    if (next < 4000) assert.equal(slow.admit(connection(next++), now), false);
    assert.ok(slow.waiting <= before, `${String(slow.waiting)} waiting after ${String(before)}`);
  }
  assert.deepEqual(started, Array.from({ length: 4000 }, (_, i) => i));
});
