// test_cookie through a real HTTP(S) server: a client that keeps cookies passes after the
// redirects and is still rate-limited; one that does not is refused after 5; cookies are bound to
// the client and expire; the flags; every node with the same secret accepts a cookie.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RatePolicy } from '../../../src/security/proxy/policy.ts';
import { cookieMac } from '../../../src/security/proxy/steps/signed-cookie.ts';
import { cookieName } from '../../../src/security/proxy/steps/test-cookie.ts';
import { startStepServer, testDeps, testPolicy, type Reply, type StepServer } from './step-harness.ts';

const challenged = (path: string, value = 0): RatePolicy => ({ method: '*', path, value, testCookie: true });

/** Follows redirects like a browser, keeping cookies when `keepsCookies`; the replies in order. */
async function browse(server: StepServer, base: string, path: string, options: { keepsCookies: boolean; client?: string; method?: string; jar?: Map<string, string> }) {
  const jar = options.jar ?? new Map<string, string>();
  const replies: Reply[] = [];
  let next: string | undefined = path;
  for (let hops = 0; next !== undefined && hops < 20; hops++) {
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const reply = await server.send(`${base}${next}`, {
      ...(options.client === undefined ? {} : { client: options.client }),
      ...(options.method === undefined ? {} : { method: options.method }),
      headers: cookie === '' ? {} : { cookie: `other=1; ${cookie}` },
    });
    replies.push(reply);
    const set = reply.headers['set-cookie']?.[0];
    if (set !== undefined && options.keepsCookies) {
      const [pair = ''] = set.split(';');
      jar.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    }
    next = reply.status === 307 ? reply.headers.location : undefined;
  }
  return { replies, jar };
}

async function withServer(rules: RatePolicy[], body: (server: StepServer) => Promise<void>, secret?: Buffer) {
  const server = await startStepServer(testPolicy({ rules }), await testDeps(secret === undefined ? {} : { cookieSecret: secret }));
  try {
    await body(server);
  } finally {
    await server.close();
  }
}

test('a client keeping cookies passes after the redirects, back at its own address, and is still rate-limited', async () => {
  await withServer([challenged('/app/*', 2)], async (server) => {
    const { replies, jar } = await browse(server, server.http, '/app/page?a=1&b=x%20y', { keepsCookies: true });
    assert.deepEqual(replies.map((reply) => reply.status), [307, 307, 200]);
    assert.equal(replies[0]!.headers.location, '/app/page?a=1&b=x%20y&edgeplane_tc_try=1');
    assert.equal(replies[0]!.headers['cache-control'], 'no-store');
    assert.equal(replies[1]!.headers.location, '/app/page?a=1&b=x%20y', 'the counter is taken out of the address again');
    assert.equal(replies[1]!.headers['set-cookie'], undefined);
    assert.equal(replies[2]!.body, 'origin');
    // Challenge redirects are not counted; the two requests after it are, the third is refused.
    const after = await browse(server, server.http, '/app/other', { keepsCookies: true, jar });
    assert.deepEqual(after.replies.map((reply) => reply.status), [200]);
    assert.equal((await browse(server, server.http, '/app/other', { keepsCookies: true, jar })).replies[0]!.status, 429);
  });
});

test('a client that does not keep cookies is redirected 5 times, then refused', async () => {
  await withServer([challenged('*')], async (server) => {
    const { replies } = await browse(server, server.http, '/x?q=1', { keepsCookies: false });
    assert.deepEqual(replies.map((reply) => reply.status), [307, 307, 307, 307, 307, 403]);
    assert.deepEqual(replies.slice(0, 5).map((reply) => reply.headers.location), [1, 2, 3, 4, 5].map((n) => `/x?q=1&edgeplane_tc_try=${n}`));
    assert.equal(replies[5]!.body, 'Forbidden\n');
  });
});

test('every method gets the same challenge, and paths no test_cookie rule covers pass without one', async () => {
  await withServer([challenged('/form'), { method: 'GET', path: '/other', value: 5, testCookie: false }], async (server) => {
    const post = await browse(server, server.http, '/form', { keepsCookies: true, method: 'POST' });
    assert.deepEqual(post.replies.map((reply) => reply.status), [307, 307, 200]);
    assert.equal((await server.send(`${server.http}/other`)).status, 200);
    assert.equal((await server.send(`${server.http}/form/more`)).status, 200);
  });
});

test('cookie flags: HttpOnly, SameSite=Lax, an hour; Secure over HTTPS only', async () => {
  await withServer([challenged('*')], async (server) => {
    const plain = (await server.send(`${server.http}/`)).headers['set-cookie']?.[0] ?? '';
    assert.match(plain, /^edgeplane_tc=\d+\.[\w-]{43}; Path=\/; Max-Age=3600; HttpOnly; SameSite=Lax$/);
    const secure = (await server.send(`${server.https}/`)).headers['set-cookie']?.[0] ?? '';
    assert.match(secure, /; HttpOnly; SameSite=Lax; Secure$/);
  });
});

test('a cookie is good for its client only, until it expires, and on every node sharing the secret', async () => {
  const secret = Buffer.alloc(32, 7);
  const now = Math.floor(Date.now() / 1000);
  const cookieFor = (client: string, expiry: number) => `${cookieName}=${expiry}.${cookieMac(secret, client, expiry)}`;
  await withServer(
    [challenged('*')],
    async (server) => {
      const status = async (client: string, cookie: string) => (await server.send(`${server.http}/`, { client, headers: { cookie } })).status;
      assert.equal(await status('192.0.2.1', cookieFor('192.0.2.1', now + 60)), 200, 'made by another node with the same secret');
      assert.equal(await status('192.0.2.2', cookieFor('192.0.2.1', now + 60)), 307, 'another client');
      assert.equal(await status('192.0.2.1', cookieFor('192.0.2.1', now - 1)), 307, 'expired');
      assert.equal(await status('192.0.2.1', `${cookieName}=${now + 60}.${cookieMac(Buffer.alloc(32, 8), '192.0.2.1', now + 60)}`), 307, 'another secret');
      assert.equal(await status('192.0.2.1', `${cookieName}=${now + 7200}.${cookieMac(secret, '192.0.2.1', now + 60)}`), 307, 'a changed expiry');
      assert.equal(await status('192.0.2.1', `x${cookieFor('192.0.2.1', now + 60)}`), 307, 'another cookie name');
      assert.equal(await status('192.0.2.1', `${cookieName}=garbage`), 307);
      assert.equal(await status('2001:db8:1:2::9', cookieFor('2001:db8:1:2::9', now + 60)), 307, 'IPv6: not the address...');
      assert.equal(await status('2001:db8:1:2::9', `a=b;${cookieFor('2001:db8:1:2::/64', now + 60)}`), 200, '...but its /64');
      assert.equal(await status('2001:db8:1:2:ffff::1', cookieFor('2001:db8:1:2::/64', now + 60)), 200, 'anywhere in it');
    },
    secret,
  );
});
