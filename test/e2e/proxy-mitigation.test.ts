// Automatic mitigation through the real service, on a controlled flood: a resource's usual rate is
// learned from a polite client, a flood from one address makes it count as under attack (logged,
// in /metrics), the flooding address is shed with 429 a second late (so each of its connections
// carries one request a second from then on), new clients meet the bot challenge (which the
// polite, browser-like client passes, and is then served), and the resource is calm again a hold
// after the flood ends. Thresholds are lowered for the test.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { adminAuth, ask, createResource, startOrigin, type Origin } from '../support/proxy.ts';
import { verifyPath } from '../../src/security/proxy/steps/bot-page.ts';
import { seedOf, solve } from '../support/bot.ts';
import { metricValue } from '../support/proxy-edge.ts';
import { startService, type Service } from '../support/service.ts';

let service: Service;
let origin: Origin;

before(async () => {
  [service, origin] = await Promise.all([
    startService({ engine: 'sqlite', env: { EDGEPLANE_PROXY_WORKERS: '1', EDGEPLANE_PROXY_ATTACK_MIN_RATE: '100', EDGEPLANE_PROXY_ATTACK_HOLD: '1', EDGEPLANE_PROXY_ATTACK_SHED_PERCENT: '25', EDGEPLANE_PROXY_ATTACK_SHED_DELAY: '1' } }),
    startOrigin('calm-origin'),
  ]);
});
after(async () => {
  await service.stop();
  await origin.close();
});

/**
 * A browser-like client from 127.0.0.2 asking every `everyMs` until `stop()`: when it meets the bot
 * challenge it solves it (as the page's script would), keeps the clearance cookie and asks again.
 * The statuses of its page requests, and how many challenges it met.
 */
function polite(host: string, everyMs: number): { statuses: number[]; challenges: () => number; stop: () => Promise<void> } {
  const statuses: number[] = [];
  const state = { running: true, cookie: '', challenges: 0 };
  const get = (path: string) => ask(service, host, path, { localAddress: '127.0.0.2', headers: state.cookie === '' ? {} : { cookie: state.cookie } });
  const loop = (async () => {
    while (state.running) {
      let answer = await get('/');
      const seed = answer.status === 403 ? seedOf(answer.body) : undefined;
      if (seed !== undefined) {
        state.challenges++;
        const verified = await get(`${verifyPath}?s=${seed}&n=${solve(seed)}&to=%2F`);
        state.cookie = (verified.headers['set-cookie']?.[0] ?? '').split(';')[0] ?? '';
        answer = await get('/');
      }
      statuses.push(answer.status);
      await sleep(everyMs);
    }
  })();
  return {
    statuses,
    challenges: () => state.challenges,
    stop: async () => {
      state.running = false;
      await loop;
    },
  };
}

/** As many requests as 8 keep-alive connections from 127.0.0.1 carry for `ms`: the count of each status. */
async function flood(host: string, ms: number): Promise<Map<number, number>> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const counts = new Map<number, number>();
  const until = performance.now() + ms;
  const one = () =>
    new Promise<void>((resolve) => {
      const request = http.get({ host: '127.0.0.1', port: service.proxyHttpPort, path: '/', headers: { host }, agent }, (res) => {
        res.resume();
        res.on('end', () => {
          counts.set(res.statusCode ?? 0, (counts.get(res.statusCode ?? 0) ?? 0) + 1);
          resolve();
        });
      });
      request.on('error', () => resolve());
    });
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (performance.now() < until) await one();
    }),
  );
  agent.destroy();
  return counts;
}

const underAttack = async (id: number) => metricValue(await (await fetch(`${service.url}/metrics`)).text(), `edgeplane_proxy_under_attack{resource="${String(id)}"}`);

test('a flood from one address engages mitigation and is shed; new clients are challenged, the polite one passes and is served; calm again after the hold', async () => {
  const auth = await adminAuth(service);
  const { id } = await createResource(service, auth, { name: 'besieged.example', origins: [{ origin_data: origin.address }] });
  const client = polite('besieged.example', 50);
  // The usual rate is learned over the first five seconds.
  await sleep(6000);
  assert.equal(await underAttack(id), 0);
  // Watched while the flood runs: once shed answers wait, the flood slows to about the minimum rate,
  // so how long mitigation stays on after it depends on the machine's speed.
  const flood4s = { done: false };
  const flooding = flood('besieged.example', 4000).finally(() => (flood4s.done = true));
  let engaged = false;
  while (!flood4s.done && !engaged) {
    engaged = (await underAttack(id)) === 1;
    await sleep(200);
  }
  const counts = await flooding;
  assert.ok(engaged, 'under attack during the flood');
  // Shed answers wait a second: from the first on, each of the flood's 8 connections carries one request a second.
  const shedCount = counts.get(429) ?? 0;
  assert.ok(shedCount >= 8 && shedCount <= 8 * 5, `the flood was shed, and slowed to a request a second per connection: ${JSON.stringify([...counts])}`);
  assert.ok(service.output().includes(`resource ${String(id)} is under attack`));
  // The flood's seconds leave the five-second window, then the one-second hold passes.
  await sleep(7500);
  assert.equal(await underAttack(id), 0, 'calm again');
  await client.stop();
  assert.ok(client.statuses.length > 50);
  const refusedPolite = service.output().split('\n').filter((line) => line.includes('"client":"127.0.0.2"') && !line.includes('"status":200'));
  assert.deepEqual([...new Set(client.statuses)], [200], `the polite client was always served in the end: ${refusedPolite.slice(0, 3).join('\n')}`);
  assert.equal(client.challenges(), 1, 'challenged once, under attack (service_botprotect is 0)');
  assert.ok((counts.get(403) ?? 0) > 0, 'the flood met the challenge before it was counted heavy');
  const shedLines = service.output().split('\n').filter((line) => line.includes('"outcome":"shed"'));
  assert.ok(shedLines.length === shedCount && shedLines.every((line) => line.includes('"client":"127.0.0.1"') && JSON.parse(line.slice(line.indexOf('{'))).duration_ms >= 990), 'each shed answer waited the delay');
});
