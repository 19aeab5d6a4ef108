// The protection proxy routes by Host (HTTP) and SNI (HTTPS) to the resource holding the name or
// alias, on both stores, and serves every change the API answers at the very next request.
import assert from 'node:assert/strict';
import tls from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { selfSignedCertificate } from '../support/certificates.ts';
import { engines } from '../support/engines.ts';
import { call } from '../support/http.ts';
import { adminAuth, ask, createResource, startOrigin, type Origin } from '../support/proxy.ts';
import { startService, type Service } from '../support/service.ts';

for (const engine of engines()) {
  describe(`proxy routing (${engine})`, () => {
    let service: Service;
    let auth: string;
    let a: Origin;
    let b: Origin;
    const certificate = selfSignedCertificate('shop.a.example', { sans: ['shop.a.example', 'www.shop.a.example'] });

    before(async () => {
      [service, a, b] = await Promise.all([startService({ engine }), startOrigin('A'), startOrigin('B')]);
      auth = await adminAuth(service);
    });
    after(async () => {
      await Promise.all([service.dispose(), a.close(), b.close()]);
    });

    test('a resource is served by its name and aliases, at the next request after each change', async () => {
      const created = await createResource(service, auth, {
        name: 'shop.a.example',
        aliases: [{ alias_data: 'www.shop.a.example' }],
        origins: [{ origin_data: a.address }],
      });
      for (const host of ['shop.a.example', 'WWW.Shop.A.Example.', 'shop.a.example:8081']) {
        const answer = await ask(service, host);
        assert.equal(answer.status, 200, host);
        assert.equal(answer.body, 'A');
      }
      assert.match(a.seen.at(-1)?.headers.host ?? '', /^shop\.a\.example(:8081)?$/, 'the origin sees the host the client asked for');

      const moved = await call(service.url, 'PUT', `/security/resources/${String(created.id)}`, {
        auth,
        body: { name: 'shop.a.example', aliases: [{ alias_data: 'm.shop.a.example' }], origins: [{ origin_data: b.address }] },
      });
      assert.equal(moved.status, 200);
      assert.equal((await ask(service, 'shop.a.example')).body, 'B');
      assert.equal((await ask(service, 'm.shop.a.example')).body, 'B');
      assert.equal((await ask(service, 'www.shop.a.example')).status, 404, 'a removed alias is no longer served');

      const disabled = await call(service.url, 'PUT', `/security/resources/${String(created.id)}`, {
        auth,
        body: { name: 'shop.a.example', origins: [{ origin_data: b.address }], service_enable: 0 },
      });
      assert.equal(disabled.status, 200);
      assert.equal((await ask(service, 'shop.a.example')).status, 503);

      assert.equal((await call(service.url, 'DELETE', `/security/resources/${String(created.id)}`, { auth })).status, 204);
      assert.equal((await ask(service, 'shop.a.example')).status, 404);
    });

    test('an unknown host gets 404, never another site', async () => {
      await createResource(service, auth, { name: 'other.example', origins: [{ origin_data: b.address }] });
      const answer = await ask(service, 'nobody.example');
      assert.equal(answer.status, 404);
      assert.doesNotMatch(answer.body, /B/);
      assert.equal((await ask(service, '127.0.0.1')).status, 404, 'an address as Host is no site');
    });

    test('HTTPS picks the certificate by SNI; an unknown name gets a TLS alert; another site on the connection gets 421', async () => {
      await createResource(service, auth, {
        name: 'shop.a.example',
        aliases: [{ alias_data: 'www.shop.a.example' }],
        origins: [{ origin_data: a.address }],
        // The test origin speaks plain HTTP; HTTPS clients would otherwise reach it over HTTPS.
        service_https2http: 1,
        ssl_type: 'custom',
        service_ssl_crt: certificate.crt,
        service_ssl_key: certificate.key,
      });
      const ok = await ask(service, 'www.shop.a.example', '/', { tls: { ca: certificate.crt } });
      assert.equal(ok.status, 200);
      assert.equal(ok.body, 'A');

      const refused = await new Promise<Error | undefined>((resolve) => {
        const socket = tls.connect({ host: '127.0.0.1', port: service.proxyHttpsPort, servername: 'nobody.example', rejectUnauthorized: false }, () => {
          socket.destroy();
          resolve(undefined);
        });
        socket.on('error', resolve);
      });
      assert.ok(refused instanceof Error, 'the handshake for an unknown name fails');

      const misdirected = await ask(service, 'other.example', '/', { tls: { ca: certificate.crt, servername: 'shop.a.example' } });
      assert.equal(misdirected.status, 421);
    });
  });
}
