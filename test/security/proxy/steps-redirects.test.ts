// Redirects to HTTPS and from www.X to X, and HSTS, through a real HTTP and HTTPS server.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TlsPolicy } from '../../../src/security/proxy/policy.ts';
import { policySteps } from '../../../src/security/proxy/steps/policy-steps.ts';
import { startStepServer, testDeps, testPolicy, type PolicyChanges, type StepServer } from './step-harness.ts';

const tls: TlsPolicy = { kind: 'custom', chain: '', key: '', expires: 0 };

async function withServer(changes: PolicyChanges, body: (server: StepServer) => Promise<void>, publicHttpsPort = 443) {
  const server = await startStepServer(testPolicy(changes), await testDeps({ settings: { globalWhitelist: [], publicHttpsPort } }));
  try {
    await body(server);
  } finally {
    await server.close();
  }
}

test('HTTP to HTTPS: 301 for GET and HEAD, 308 otherwise, path and query kept; HTTPS passes', async () => {
  await withServer({ tls, settings: { is_redirect_to_https_enabled: true } }, async (server) => {
    for (const [method, status] of [['GET', 301], ['HEAD', 301], ['POST', 308], ['DELETE', 308]] as const) {
      const reply = await server.send(`${server.http}/a/b?c=d&e`, { method });
      assert.equal(reply.status, status, method);
      assert.equal(reply.headers.location, 'https://example.com/a/b?c=d&e');
    }
    assert.equal((await server.send(`${server.https}/a/b`)).status, 200);
  });
});

test('the redirect names the public HTTPS port when it is not 443', async () => {
  await withServer(
    { tls, settings: { is_redirect_to_https_enabled: true } },
    async (server) => assert.equal((await server.send(`${server.http}/`, { headers: { host: 'example.com:8081' } })).headers.location, 'https://example.com:8443/'),
    8443,
  );
});

test('no redirect to HTTPS without a certificate, or with the setting off', async () => {
  const deps = await testDeps();
  assert.equal(policySteps(testPolicy({ settings: { is_redirect_to_https_enabled: true } }), deps).rewrites.length, 0);
  assert.equal(policySteps(testPolicy({ tls, settings: { is_redirect_to_https_enabled: false } }), deps).rewrites.length, 0);
});

test('www.X to X: scheme, port, path and query kept; only when X is one of the names', async () => {
  await withServer({ hosts: ['example.com', 'www.example.com', 'www.alias.example'], settings: { service_wwwredir: 1 } }, async (server) => {
    const plain = await server.send(`${server.http}/p?q=1`, { headers: { host: 'www.example.com:8080' } });
    assert.equal(plain.status, 301);
    assert.equal(plain.headers.location, 'http://example.com:8080/p?q=1');
    const secure = await server.send(`${server.https}/p`, { headers: { host: 'WWW.example.com' } });
    assert.equal(secure.headers.location, 'https://example.com/p');
    const post = await server.send(`${server.http}/form`, { method: 'POST', headers: { host: 'www.example.com' } });
    assert.deepEqual([post.status, post.headers.location], [308, 'http://example.com/form']);
    assert.equal((await server.send(`${server.http}/`, { headers: { host: 'example.com' } })).status, 200);
    assert.equal((await server.send(`${server.http}/`, { headers: { host: 'www.alias.example' } })).status, 200, 'alias.example is not a name of the resource');
  });
});

test('HTTP www.X with both redirects: to HTTPS first, on the same host (as HSTS preloading asks), then to X', async () => {
  await withServer({ tls, hosts: ['example.com', 'www.example.com'], settings: { service_wwwredir: 1, is_redirect_to_https_enabled: true } }, async (server) => {
    const first = await server.send(`${server.http}/`, { headers: { host: 'www.example.com' } });
    assert.equal(first.headers.location, 'https://www.example.com/');
    const second = await server.send(`${server.https}/`, { headers: { host: 'www.example.com' } });
    assert.equal(second.headers.location, 'https://example.com/');
  });
});

test('HSTS on every HTTPS answer, the proxy\'s own included; never over HTTP', async () => {
  await withServer({ blacklist: ['192.0.2.0/24'], hosts: ['example.com', 'www.example.com'], settings: { service_hsts: 1, service_wwwredir: 1 } }, async (server) => {
    const hsts = 'max-age=31536000';
    assert.equal((await server.send(`${server.https}/`)).headers['strict-transport-security'], hsts);
    assert.equal((await server.send(`${server.https}/`, { client: '192.0.2.1' })).headers['strict-transport-security'], hsts, 'on a refusal');
    assert.equal((await server.send(`${server.https}/`, { headers: { host: 'www.example.com' } })).headers['strict-transport-security'], hsts, 'on a redirect');
    assert.equal((await server.send(`${server.http}/`)).headers['strict-transport-security'], undefined);
  });
  await withServer({ settings: { service_hsts: 0 } }, async (server) => {
    assert.equal((await server.send(`${server.https}/`)).headers['strict-transport-security'], undefined);
  });
});
