// Every enforcement step through the real service, on resources made through the API: lists (and
// the operator's global whitelist), methods, rate rules at their boundary, test_cookie with and
// without a cookie jar, redirects and HSTS; then two proxy nodes sharing counters through Redis,
// and a Redis that is away. Clients are addresses of 127.0.0.0/8; geo needs public addresses,
// which only a trusted X-Forwarded-For or the PROXY protocol can bring here: geo is tested at the
// step level (test/security/proxy/steps-access.test.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { selfSignedCertificate } from '../support/certificates.ts';
import { engines } from '../support/engines.ts';
import { call } from '../support/http.ts';
import { adminAuth, ask, createResource, startOrigin, type AskOptions, type Origin, type ProxyAnswer } from '../support/proxy.ts';
import { startService, type Service } from '../support/service.ts';

/** Follows the proxy's 307s like a browser, keeping its cookies or not. */
async function browse(service: Service, host: string, path: string, keepsCookies: boolean, options: AskOptions = {}): Promise<ProxyAnswer[]> {
  const jar = new Map<string, string>();
  const answers: ProxyAnswer[] = [];
  let next: string | undefined = path;
  for (let hops = 0; next !== undefined && hops < 10; hops++) {
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const answer = await ask(service, host, next, { ...options, headers: { ...options.headers, ...(cookie === '' ? {} : { cookie }) } });
    answers.push(answer);
    const set = answer.headers['set-cookie']?.[0];
    if (keepsCookies && set !== undefined) {
      const [pair = ''] = set.split(';');
      jar.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    }
    next = answer.status === 307 ? answer.headers.location : undefined;
  }
  return answers;
}

const statuses = (answers: ProxyAnswer[]) => answers.map((answer) => answer.status);

for (const engine of engines()) {
  describe(`proxy enforcement (${engine})`, () => {
    let service: Service;
    let auth: string;
    let origin: Origin;

    before(async () => {
      [service, origin] = await Promise.all([startService({ engine, env: { EDGEPLANE_PROXY_GLOBAL_WHITELIST: '127.0.0.7' } }), startOrigin('A')]);
      auth = await adminAuth(service);
    });
    after(async () => {
      await Promise.all([service.dispose(), origin.close()]);
    });

    test('whitelist over blacklist and methods; the global whitelist where the resource asks for it; changes at the next request', async () => {
      const body = {
        name: 'lists.example',
        origins: [{ origin_data: origin.address }],
        blacklists: [{ blacklist_data: '127.0.0.0/29' }],
        whitelists: [{ whitelist_data: '127.0.0.5' }],
        service_methods: 'GET, POST',
        service_global_whitelist: 1,
      };
      const created = await createResource(service, auth, body);
      const from = (localAddress: string, method = 'GET') => ask(service, 'lists.example', '/', { localAddress, method });
      const blocked = await from('127.0.0.2');
      assert.equal(blocked.status, 403);
      assert.equal(blocked.body, 'Forbidden\n');
      assert.equal((await from('127.0.0.5')).body, 'A', 'whitelisted inside the blacklist');
      assert.equal((await from('127.0.0.5', 'PUT')).status, 200, 'whitelisted: methods are not checked either');
      assert.equal((await from('127.0.0.7')).status, 200, "the operator's global whitelist");
      const put = await from('127.0.0.9', 'PUT');
      assert.equal(put.status, 405);
      assert.equal(put.headers.allow, 'GET, POST, HEAD');
      assert.equal((await from('127.0.0.9', 'POST')).status, 200);

      const changed = await call(service.url, 'PUT', `/security/resources/${String(created.id)}`, { auth, body: { ...body, blacklists: [], service_global_whitelist: 0, service_methods: '' } });
      assert.equal(changed.status, 200);
      assert.equal((await from('127.0.0.2')).status, 200);
      assert.equal((await from('127.0.0.9', 'PUT')).status, 200);
      await call(service.url, 'PUT', `/security/resources/${String(created.id)}`, { auth, body: { ...body, blacklists: [{ blacklist_data: '127.0.0.7' }], service_global_whitelist: 0 } });
      assert.equal((await from('127.0.0.7')).status, 403, 'no global whitelist without service_global_whitelist');
    });

    test('a rate rule at its boundary, and test_cookie with a client that keeps cookies and one that does not', async () => {
      await createResource(service, auth, {
        name: 'rates.example',
        origins: [{ origin_data: origin.address }],
        rate_limier_rules: [
          { method: 'GET', path: 'limited/*', value: 2, test_cookie: false },
          { method: '*', path: '/app/*', value: 2, test_cookie: true },
        ],
      });
      const limited = (localAddress: string) => ask(service, 'rates.example', '/limited/item?x=1', { localAddress });
      assert.deepEqual([(await limited('127.0.1.1')).status, (await limited('127.0.1.1')).status], [200, 200]);
      const refused = await limited('127.0.1.1');
      assert.equal(refused.status, 429);
      assert.equal(refused.headers['retry-after'], '1');
      assert.equal((await limited('127.0.1.2')).status, 200, 'another client has its own bucket');
      assert.equal((await ask(service, 'rates.example', '/other', { localAddress: '127.0.1.1' })).status, 200, 'paths no rule covers are not counted');
      await new Promise((resolve) => setTimeout(resolve, 520));
      assert.equal((await limited('127.0.1.1')).status, 200, 'one more after 1/value s');

      const keeps = await browse(service, 'rates.example', '/app/home?lang=en', true, { localAddress: '127.0.1.3' });
      assert.deepEqual(statuses(keeps), [307, 307, 200]);
      assert.equal(keeps[2]?.body, 'A');
      assert.match(keeps[0]?.headers['set-cookie']?.[0] ?? '', /^edgeplane_tc=\d+\.[\w-]+; Path=\/; Max-Age=3600; HttpOnly; SameSite=Lax$/);
      assert.equal(origin.seen.at(-1)?.url, '/app/home?lang=en', 'the origin sees the address without the counter');
      const forgets = await browse(service, 'rates.example', '/app/home', false, { localAddress: '127.0.1.4' });
      assert.deepEqual(statuses(forgets), [307, 307, 307, 307, 307, 403]);
    });

    test('redirects to HTTPS and from www, HSTS on HTTPS answers', async () => {
      const certificate = selfSignedCertificate('secure.example', { sans: ['secure.example', 'www.secure.example'] });
      await createResource(service, auth, {
        name: 'secure.example',
        aliases: [{ alias_data: 'www.secure.example' }],
        origins: [{ origin_data: origin.address }],
        // The test origin speaks plain HTTP; HTTPS clients would otherwise reach it over HTTPS.
        service_https2http: 1,
        ssl_type: 'custom',
        service_ssl_crt: certificate.crt,
        service_ssl_key: certificate.key,
        is_redirect_to_https_enabled: true,
        service_wwwredir: 1,
        service_hsts: 1,
      });
      const tls = { ca: certificate.crt };
      const plain = await ask(service, 'secure.example', '/a?b=c');
      assert.deepEqual([plain.status, plain.headers.location], [301, 'https://secure.example/a?b=c']);
      assert.equal(plain.headers['strict-transport-security'], undefined);
      assert.equal((await ask(service, 'secure.example', '/form', { method: 'POST' })).status, 308);
      const www = await ask(service, 'www.secure.example', '/');
      assert.equal(www.headers.location, 'https://www.secure.example/', 'to HTTPS on the same name first');
      const secure = await ask(service, 'secure.example', '/', { tls });
      assert.deepEqual([secure.status, secure.body, secure.headers['strict-transport-security']], [200, 'A', 'max-age=31536000']);
      const wwwSecure = await ask(service, 'www.secure.example', '/p?q', { tls });
      assert.deepEqual([wwwSecure.status, wwwSecure.headers.location, wwwSecure.headers['strict-transport-security']], [301, 'https://secure.example/p?q', 'max-age=31536000']);
    });
  });
}

describe('proxy nodes sharing rate counters through Redis', () => {
  const engine = engines().includes('postgres') ? 'postgres' : 'sqlite';
  const redisUrl = 'redis://127.0.0.1:6379';
  let origin: Origin;
  let admin: Redis;
  before(async () => {
    origin = await startOrigin('A');
    admin = new Redis(redisUrl);
  });
  after(async () => {
    admin.disconnect();
    await origin.close();
  });

  test(`two proxy nodes on one ${engine} store count one client in one bucket`, async (t) => {
    // Bucket keys carry a tag of the deployment (from its secret): this test's service alone uses them,
    // and they expire within a second of the last request.
    const first = await startService({ engine, env: { EDGEPLANE_REDIS_URL: redisUrl } });
    const second = await first.sibling({ EDGEPLANE_ROLES: 'proxy' });
    t.after(async () => {
      await second.dispose();
      await first.dispose();
    });
    const auth = await adminAuth(first);
    const created = await createResource(first, auth, {
      name: 'shared.example',
      origins: [{ origin_data: origin.address }],
      rate_limier_rules: [{ method: '*', path: '*', value: 3, test_cookie: false }],
    });
    const bucketOf = async (client: string) => admin.keys(`edgeplane:rate:*:${String(created.id)}:0:${client}`);
    // Until the second node has the resource and both count through Redis: probes from addresses of their own.
    let probe = 0;
    for (const node of [first, second]) {
      for (;;) {
        const client = `127.0.2.${String(++probe)}`;
        const answer = await ask(node, 'shared.example', '/', { localAddress: client });
        if (answer.status === 200 && (await bucketOf(client)).length === 1) break;
        assert.ok(probe < 200, 'both nodes serve the resource and count through Redis');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    const seen: number[] = [];
    for (let i = 0; i < 6; i++) seen.push((await ask(i % 2 === 0 ? first : second, 'shared.example', '/', { localAddress: '127.0.3.1' })).status);
    assert.deepEqual(seen, [200, 200, 200, 429, 429, 429]);
  });

  test('with Redis away each node decides alone, without waiting for it', async () => {
    const service = await startService({ engine: 'sqlite', env: { EDGEPLANE_REDIS_URL: 'redis://127.0.0.1:1' } });
    try {
      const auth = await adminAuth(service);
      await createResource(service, auth, { name: 'alone.example', origins: [{ origin_data: origin.address }], rate_limier_rules: [{ method: '*', path: '*', value: 2, test_cookie: false }] });
      const started = performance.now();
      const seen: number[] = [];
      for (let i = 0; i < 3; i++) seen.push((await ask(service, 'alone.example', '/', { localAddress: '127.0.4.1' })).status);
      assert.deepEqual(seen, [200, 200, 429]);
      assert.ok(performance.now() - started < 1000, `answered at once (${String(Math.round(performance.now() - started))} ms)`);
    } finally {
      await service.dispose();
    }
  });
});
