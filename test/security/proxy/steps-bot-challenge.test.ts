// The bot challenge through a real HTTP(S) server: the page (its own script run in node:vm as a
// browser would run it), the verify path accepting only a correct, fresh solution for this client
// and resource, the cookie bound to its client, resource and expiry, the way back kept on the same
// host, what non-browser requests get, the exempt paths, and hostile input.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import vm from 'node:vm';
import { botSecretOf, clearanceCookie, sameHostTarget } from '../../../src/security/proxy/steps/bot-challenge.ts';
import { verifyPath } from '../../../src/security/proxy/steps/bot-page.ts';
import { issueSeed, seedLifetimeSeconds } from '../../../src/security/proxy/steps/bot-proof.ts';
import { cookieMac } from '../../../src/security/proxy/steps/signed-cookie.ts';
import type { StepDeps } from '../../../src/security/proxy/steps/step-deps.ts';
import { seedOf, solve } from '../../support/bot.ts';
import { startStepServer, testDeps, testPolicy, type PolicyChanges, type Reply, type StepServer } from './step-harness.ts';

const html = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const secret = Buffer.alloc(32, 3);
const botSecret = botSecretOf(secret);
const now = () => Math.floor(Date.now() / 1000);

async function withServer(body: (server: StepServer, resource: number) => Promise<void>, changes: PolicyChanges = {}, settings: Partial<StepDeps['settings']> = {}) {
  const policy = testPolicy({ ...changes, settings: { service_botprotect: 4, ...changes.settings } });
  const server = await startStepServer(policy, await testDeps({ cookieSecret: secret, settings }));
  try {
    await body(server, policy.id);
  } finally {
    await server.close();
  }
}

/** Runs the challenge page's script as a browser at `pathAndQuery` would: the address it goes to next. */
function runPage(page: string, pathAndQuery: string): string {
  const seed = seedOf(page);
  const script = /<script>([\s\S]*)<\/script>/.exec(page)?.[1];
  assert.ok(seed !== undefined && script !== undefined, 'the page has a seed and a script');
  const url = new URL(pathAndQuery, 'http://example.com');
  let next = '';
  vm.runInNewContext(script, {
    document: { documentElement: { getAttribute: (name: string) => (name === 'data-seed' ? seed : null) } },
    location: { pathname: url.pathname, search: url.search, replace: (to: string) => (next = to) },
  });
  return next;
}

const verifyUrl = (seed: string, nonce: string, to = '/') => `${verifyPath}?s=${seed}&n=${nonce}&to=${encodeURIComponent(to)}`;
const cookieOf = (reply: Reply) => (reply.headers['set-cookie']?.[0] ?? '').split(';')[0] ?? '';
const clearance = (resource: number, client: string, expiry: number, key = botSecret) => `${clearanceCookie}=${expiry}.${cookieMac(key, `${resource}|${client}`, expiry)}`;

test('a browser gets the page, its script solves it, the verify path sets the cookie and sends it back; with the cookie it passes', async () => {
  await withServer(async (server) => {
    const first = await server.send(`${server.http}/shop/item?id=7&q=a%20b`, { headers: html });
    assert.equal(first.status, 403);
    assert.equal(first.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(first.headers['cache-control'], 'no-store');
    assert.match(String(first.headers['content-security-policy']), /^default-src 'none'; script-src 'sha256-[\w+/=]+'; style-src 'sha256-[\w+/=]+';/);
    assert.ok(first.body.length < 4096, `the page is small (${first.body.length} bytes)`);
    assert.doesNotMatch(first.body, /origin|src=|href=/, 'no origin content, no external resource');

    const next = runPage(first.body, '/shop/item?id=7&q=a%20b');
    assert.ok(next.startsWith(`${verifyPath}?s=`), next);
    const verified = await server.send(`${server.http}${next}`);
    assert.equal(verified.status, 303);
    assert.equal(verified.headers.location, '/shop/item?id=7&q=a%20b');
    assert.equal(verified.headers['cache-control'], 'no-store');
    assert.match(verified.headers['set-cookie']?.[0] ?? '', /^edgeplane_bot=\d+\.[\w-]{43}; Path=\/; Max-Age=3600; HttpOnly; SameSite=Lax$/);

    const cookie = `other=1; ${cookieOf(verified)}`;
    const passed = await server.send(`${server.http}/shop/item?id=7`, { headers: { ...html, cookie } });
    assert.deepEqual([passed.status, passed.body], [200, 'origin']);
    assert.equal((await server.send(`${server.http}/anything`, { method: 'POST', headers: { cookie } })).status, 200, 'every method, once cleared');
  });
});

test('over HTTPS the cookie is Secure; the lifetime is the setting', async () => {
  await withServer(
    async (server) => {
      const page = await server.send(`${server.https}/`, { headers: html });
      const verified = await server.send(`${server.https}${runPage(page.body, '/')}`);
      assert.match(verified.headers['set-cookie']?.[0] ?? '', /; Max-Age=600; HttpOnly; SameSite=Lax; Secure$/);
    },
    {},
    { botClearanceSeconds: 600 },
  );
});

test('what clients that are not browsers get: the page for GET and HEAD accepting HTML, a plain 403 for the rest', async () => {
  await withServer(async (server) => {
    const bare = await server.send(`${server.http}/`);
    assert.equal(bare.status, 403);
    assert.match(bare.body, /data-seed=/, 'no Accept (node:http, scripts): the page');
    assert.match((await server.send(`${server.http}/`, { headers: { accept: '*/*' } })).body, /data-seed=/, "curl's Accept: the page");
    const head = await server.send(`${server.http}/`, { method: 'HEAD', headers: html });
    assert.deepEqual([head.status, head.headers['content-type'], head.body], [403, 'text/html; charset=utf-8', '']);
    for (const reply of [
      await server.send(`${server.http}/`, { headers: { accept: 'application/json' } }),
      await server.send(`${server.http}/form`, { method: 'POST', headers: html }),
      await server.send(`${server.http}/x`, { method: 'PUT' }),
    ]) {
      assert.equal(reply.status, 403);
      assert.equal(reply.headers['cache-control'], 'no-store');
      assert.equal(reply.body, 'Forbidden: this site lets browsers in after a JavaScript check; open it in a browser\n');
    }
  });
});

test('a cookie is good for its client and resource only, until it expires; forged ones are refused', async () => {
  await withServer(async (server, resource) => {
    const status = async (client: string, cookie: string) => (await server.send(`${server.http}/`, { client, headers: { ...html, cookie } })).status;
    const later = now() + 60;
    assert.equal(await status('192.0.2.1', clearance(resource, '192.0.2.1', later)), 200, 'made by any node with the secret');
    assert.equal(await status('192.0.2.2', clearance(resource, '192.0.2.1', later)), 403, 'another client');
    assert.equal(await status('192.0.2.1', clearance(resource + 1, '192.0.2.1', later)), 403, 'another resource');
    assert.equal(await status('192.0.2.1', clearance(resource, '192.0.2.1', now() - 1)), 403, 'expired');
    assert.equal(await status('192.0.2.1', clearance(resource, '192.0.2.1', later, botSecretOf(Buffer.alloc(32, 4)))), 403, 'another secret');
    assert.equal(await status('192.0.2.1', `${clearanceCookie}=${later}.${cookieMac(secret, `${resource}|192.0.2.1`, later)}`), 403, "test_cookie's secret");
    assert.equal(await status('192.0.2.1', `${clearanceCookie}=${later}.${cookieMac(secret, '192.0.2.1', later)}`), 403, 'a test_cookie value');
    assert.equal(await status('192.0.2.1', `${clearanceCookie}=${later + 3600}.${clearance(resource, '192.0.2.1', later).split('.')[1]}`), 403, 'a changed expiry');
    assert.equal(await status('192.0.2.1', `x${clearance(resource, '192.0.2.1', later)}`), 403, 'another name');
    assert.equal(await status('192.0.2.1', `${clearanceCookie}=garbage`), 403);
    assert.equal(await status('2001:db8:1:2::9', clearance(resource, '2001:db8:1:2::/64', later)), 200, 'IPv6: by /64');
    assert.equal(await status('2001:db8:1:3::9', clearance(resource, '2001:db8:1:2::/64', later)), 403, 'another /64');
  });
});

test('the verify path accepts only a correct, fresh solution of a seed issued to this client', async () => {
  await withServer(async (server, resource) => {
    const send = (url: string, client = '192.0.2.1', method = 'GET') => server.send(`${server.http}${url}`, { client, method });
    const page = await server.send(`${server.http}/`, { client: '192.0.2.1', headers: html });
    const seed = /data-seed="([^"]*)"/.exec(page.body)?.[1] ?? '';
    const nonce = solve(seed);
    const good = await send(verifyUrl(seed, nonce, '/back'));
    assert.deepEqual([good.status, good.headers.location], [303, '/back']);
    const refused = async (url: string, client?: string, method?: string) => {
      const reply = await send(url, client, method);
      assert.deepEqual([reply.status, reply.body, reply.headers['set-cookie']], [403, 'Forbidden: the browser check failed\n', undefined], url);
    };
    await refused(verifyUrl(seed, nonce), '192.0.2.2');
    await refused(verifyUrl(seed, nonce), '2001:db8::1');
    await refused(verifyUrl(seed, String(Number(nonce) + 1)));
    await refused(verifyUrl(seed, nonce), '192.0.2.1', 'POST');
    const foreign = issueSeed(botSecretOf(Buffer.alloc(32, 9)), `${resource}|192.0.2.1`, now());
    await refused(verifyUrl(foreign, solve(foreign)));
    const otherResource = issueSeed(botSecret, `${resource + 1}|192.0.2.1`, now());
    await refused(verifyUrl(otherResource, solve(otherResource)));
    const future = issueSeed(botSecret, `${resource}|192.0.2.1`, now() + 600);
    await refused(verifyUrl(future, solve(future)));
    for (const garbage of ['', '?s=&n=', `?s=${seed}`, `?s=${seed}&n=-1`, `?s=${seed}&n=1e3`, `?s=${seed}x&n=${nonce}`, `?n=${nonce}&s=${'9'.repeat(10)}.${'A'.repeat(22)}`, `?s=${seed}&n=${nonce}&to=${'a'.repeat(9000)}`]) {
      await refused(`${verifyPath}${garbage}`);
    }

    // Solved too late: back to the page for a fresh seed, without a cookie.
    const stale = issueSeed(botSecret, `${resource}|192.0.2.1`, now() - seedLifetimeSeconds - 5);
    const expired = await send(verifyUrl(stale, solve(stale), '/p?q=1'));
    assert.deepEqual([expired.status, expired.headers.location, expired.headers['set-cookie']], [303, '/p?q=1', undefined]);
  });
});

test('the way back stays on the same host', async () => {
  for (const to of ['//evil.example/x', '/\\evil.example', '/\t/evil.example', 'https://evil.example/', 'evil.example', '/a\r\nset-cookie: x=1', '/é', '/a b', `/${'a'.repeat(2048)}`, '']) {
    assert.equal(sameHostTarget(to), '/', JSON.stringify(to));
  }
  assert.equal(sameHostTarget(null), '/');
  for (const to of ['/', '/a/b?c=d&e=%2F%2Fx', '/%2F%2Fevil.example', '/a//b']) assert.equal(sameHostTarget(to), to);
  await withServer(async (server) => {
    const page = await server.send(`${server.http}/`, { headers: html });
    const seed = /data-seed="([^"]*)"/.exec(page.body)?.[1] ?? '';
    const nonce = solve(seed);
    for (const [to, location] of [['//evil.example', '/'], ['/a%0d%0aset-cookie:%20x', '/a%0d%0aset-cookie:%20x'], ['/ok?x=1', '/ok?x=1']] as const) {
      const reply = await server.send(`${server.http}${verifyPath}?s=${seed}&n=${nonce}&to=${encodeURIComponent(to)}`);
      assert.deepEqual([reply.status, reply.headers.location], [303, location]);
    }
  });
});

test('exempt paths pass without a cookie, matched on the path the origin serves; whitelisted clients and resources with protection off pass too', async () => {
  await withServer(
    async (server) => {
      const status = async (path: string, client = '192.0.2.1') => (await server.send(`${server.http}${path}`, { client, headers: html })).status;
      assert.equal(await status('/api/v1/users?x=1'), 200);
      assert.equal(await status('/%61pi/v1'), 200, '/%61pi is /api');
      assert.equal(await status('/.well-known/security.txt'), 200);
      assert.equal(await status('/apix'), 403);
      assert.equal(await status('/static/../app'), 403);
      assert.equal(await status('/'), 403);
      assert.equal(await status('/', '198.51.100.7'), 200, 'whitelisted');
    },
    { whitelist: ['198.51.100.0/24'] },
  );
  await withServer(async (server) => assert.equal((await server.send(`${server.http}/api/x`, { headers: html })).status, 403), {}, { botExemptPaths: [] });
  await withServer(async (server) => assert.equal((await server.send(`${server.http}/`, { headers: html })).status, 200), { settings: { service_botprotect: 0 } });
});

test('protection off: a page served under attack and solved once the attack is over still gets the cookie and the way back', async () => {
  const policy = testPolicy({ settings: { service_botprotect: 0 } });
  const deps = await testDeps({ cookieSecret: secret });
  const underAttack = await startStepServer(policy, deps, { underAttack: true });
  const calm = await startStepServer(policy, deps);
  try {
    const page = await underAttack.send(`${underAttack.http}/cart`, { headers: html });
    assert.equal(page.status, 403, 'challenged under attack');
    const verified = await calm.send(`${calm.http}${runPage(page.body, '/cart')}`);
    assert.deepEqual([verified.status, verified.headers.location], [303, '/cart'], 'answered by the proxy, not passed to the origin');
    assert.equal(cookieOf(verified).split('=')[0], clearanceCookie);
    const passed = await underAttack.send(`${underAttack.http}/cart`, { headers: { ...html, cookie: cookieOf(verified) } });
    assert.equal(passed.status, 200, 'and the cookie passes the next attack');
    assert.equal((await calm.send(`${calm.http}${verifyUrl('1.x', '1')}`)).status, 403, 'a wrong solution fails as with protection on');
    assert.equal((await calm.send(`${calm.http}/cart`, { headers: html })).status, 200, 'nothing else is checked while calm');
  } finally {
    await Promise.all([underAttack.close(), calm.close()]);
  }
});

test('hostile input costs little: many cookies of the name; challenges differ per client', async () => {
  await withServer(async (server, resource) => {
    const valid = clearance(resource, '192.0.2.1', now() + 60);
    const many = `${Array.from({ length: 200 }, (_, i) => `${clearanceCookie}=${now() + 60}.${String(i).padStart(43, 'A')}`).join('; ')}; ${valid}`;
    const started = performance.now();
    const reply = await server.send(`${server.http}/`, { client: '192.0.2.1', headers: { ...html, cookie: many } });
    assert.equal(reply.status, 403, 'only the first few cookies of the name are checked');
    assert.ok(performance.now() - started < 500);
    assert.equal((await server.send(`${server.http}/`, { client: '192.0.2.1', headers: { cookie: `${valid}; ${many}` } })).status, 200);
    const seeds = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const page = await server.send(`${server.http}/`, { client: `10.0.${i}.1`, headers: html });
      seeds.add(/data-seed="([^"]*)"/.exec(page.body)?.[1] ?? '');
    }
    assert.equal(seeds.size, 50, 'every client its own seed');
  });
});
