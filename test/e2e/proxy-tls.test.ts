// HTTPS through the real service on both stores: custom certificates by SNI with their whole chain,
// h2 by ALPN as service_http2 says (changed at the next handshake), keys in no response; and managed
// certificates end to end: pebble resolves the names through edgeplane's own DNS server, validates
// HTTP-01 against the proxy (two threads, either may answer), the API shows the expiry, SNI serves
// the certificate, and it is renewed on schedule.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { certificateChain } from '../support/certificates.ts';
import { dnsClient } from '../support/dns-records.ts';
import { engines } from '../support/engines.ts';
import { call } from '../support/http.ts';
import { pebbleMissing, pebbleSite, type Pebble, type PebbleSite } from '../support/pebble.ts';
import { adminAuth, ask, createResource, startOrigin, type Origin } from '../support/proxy.ts';
import { startService, type Service } from '../support/service.ts';
import { handshake, keySecrets, recordingRelay } from '../support/tls-probe.ts';
import { eventually } from '../support/wait.ts';

const missing = pebbleMissing();

for (const engine of engines()) {
  describe(`proxy TLS (${engine})`, { skip: missing }, () => {
    let service: Service;
    let auth: string;
    let origin: Origin;
    let site: PebbleSite;
    let pebble: Pebble;

    before(async () => {
      site = await pebbleSite();
      [service, origin] = await Promise.all([
        startService({
          engine,
          env: {
            EDGEPLANE_ACME_DIRECTORY: site.directory,
            EDGEPLANE_ACME_CA_FILE: site.caFile,
            EDGEPLANE_ACME_EMAIL: 'ops@tls.example',
            // Two threads on the ports: the CA's fetches land on either.
            EDGEPLANE_PROXY_WORKERS: '2',
          },
        }),
        startOrigin('A'),
      ]);
      auth = await adminAuth(service);
      // Certificates of 10 seconds: renewed when half their life is left, every 5 seconds.
      pebble = await site.start({ httpPort: service.proxyHttpPort, dnsPort: service.dnsPort, validitySeconds: 10 });
      const dns = dnsClient(service.url, auth);
      await dns.createZone('tls.example');
      for (const name of ['managed.tls.example', 'www.managed.tls.example']) {
        assert.equal((await dns.put('tls.example', name, 'A', [['127.0.0.1']], 60)).status, 200);
      }
    });
    after(async () => {
      await Promise.all([service.dispose(), origin.close()]);
      await pebble.stop();
      site.remove();
    });

    test('custom certificates by SNI with their chain, h2 where service_http2 is 1, keys in no answer', async () => {
      const shop = certificateChain(['shop.tls.example', 'www.shop.tls.example']);
      const blog = certificateChain(['blog.tls.example']);
      const created = await createResource(service, auth, {
        name: 'shop.tls.example',
        aliases: [{ alias_data: 'www.shop.tls.example' }],
        origins: [{ origin_data: origin.address }],
        // The test origin speaks plain HTTP; HTTPS clients would otherwise reach it over HTTPS.
        service_https2http: 1,
        ssl_type: 'custom',
        service_ssl_crt: shop.chain,
        service_ssl_key: shop.key,
        service_http2: 1,
      });
      await createResource(service, auth, {
        name: 'blog.tls.example',
        origins: [{ origin_data: origin.address }],
        ssl_type: 'custom',
        service_ssl_crt: blog.chain,
        service_ssl_key: blog.key,
        service_http2: 0,
      });
      const port = service.proxyHttpsPort;
      const alpn = ['h2', 'http/1.1'];
      for (const [servername, pki] of [['shop.tls.example', shop], ['www.shop.tls.example', shop], ['blog.tls.example', blog]] as const) {
        // Trusting only the root: the intermediate must come from the proxy.
        const got = await handshake(port, { servername, ca: pki.root, rejectUnauthorized: true, ALPNProtocols: alpn });
        assert.equal(got.leaf.fingerprint256, new X509Certificate(pki.crt).fingerprint256, servername);
        assert.equal(got.alpn, servername === 'blog.tls.example' ? 'http/1.1' : 'h2', servername);
      }
      assert.equal((await ask(service, 'www.shop.tls.example', '/', { tls: { ca: shop.root } })).body, 'A');
      await assert.rejects(handshake(port, { servername: 'nobody.tls.example' }), /alert handshake failure/);

      // service_http2 off: the next handshake gets HTTP/1.1.
      const updated = await call(service.url, 'PUT', `/security/resources/${String(created.id)}`, {
        auth,
        body: { name: 'shop.tls.example', aliases: [{ alias_data: 'www.shop.tls.example' }], origins: [{ origin_data: origin.address }], service_http2: 0 },
      });
      assert.equal(updated.status, 200, updated.text);
      assert.equal((await handshake(port, { servername: 'shop.tls.example', ALPNProtocols: alpn })).alpn, 'http/1.1');

      // The keys: in no API answer, not on the wire of a TLS 1.2 handshake (its certificate is in the clear).
      const answers = [
        (await call(service.url, 'GET', '/security/resources', { auth })).text,
        (await call(service.url, 'GET', `/security/resources/${String(created.id)}`, { auth })).text,
        updated.text,
      ].join('\n');
      const relay = await recordingRelay(port);
      try {
        await handshake(relay.port, { servername: 'shop.tls.example', maxVersion: 'TLSv1.2' });
        assert.ok(relay.fromServer().includes(new X509Certificate(shop.intermediate).raw));
        for (const key of [shop.key, blog.key]) {
          for (const secret of keySecrets(key)) {
            assert.equal(relay.fromServer().includes(secret), false);
            assert.equal(answers.includes(secret.toString('base64')), false);
          }
          assert.equal(answers.includes(key.split('\n')[1] ?? 'none'), false);
        }
        assert.doesNotMatch(answers, /PRIVATE KEY/);
      } finally {
        await relay.close();
      }
    });

    test('ssl_type "le": issued through ACME for the name and alias, shown by the API, served by SNI, renewed on schedule', async () => {
      const created = await createResource(service, auth, {
        name: 'managed.tls.example',
        aliases: [{ alias_data: 'www.managed.tls.example' }],
        origins: [{ origin_data: origin.address }],
        service_https2http: 1,
        ssl_type: 'le',
      });
      assert.equal(created['service_ssl_expire'], 0);
      const read = async () => (await call(service.url, 'GET', `/security/resources/${String(created.id)}`, { auth })).body as {
        ssl_type: string;
        service_ssl_expire: number;
        aliases: { alias_ssl_expire: number }[];
      };
      const issued = await eventually(async () => {
        const view = await read();
        return view.service_ssl_expire > 0 ? view : undefined;
      }, 15_000);
      assert.equal(issued.ssl_type, 'le');
      assert.deepEqual(issued.aliases.map((a) => a.alias_ssl_expire), [issued.service_ssl_expire]);

      const root = await pebble.root();
      // The certificate is committed, then applied by the threads: the API can show it a moment before the proxy serves it.
      const first = await eventually(() => handshake(service.proxyHttpsPort, { servername: 'www.managed.tls.example', ca: root, rejectUnauthorized: true }).catch(() => undefined), 5_000);
      assert.equal(first.leaf.subjectAltName, 'DNS:managed.tls.example, DNS:www.managed.tls.example');
      assert.equal(Math.floor(first.leaf.validToDate.getTime() / 1000), issued.service_ssl_expire);
      assert.equal((await ask(service, 'managed.tls.example', '/', { tls: { ca: root } })).body, 'A');

      // Renewed before it expires, by the role's own schedule; the next handshake gets the new one.
      const renewed = await eventually(async () => {
        const got = await handshake(service.proxyHttpsPort, { servername: 'managed.tls.example', ca: root, rejectUnauthorized: true });
        return got.leaf.serialNumber !== first.leaf.serialNumber ? got : undefined;
      }, 15_000);
      assert.ok(renewed.leaf.validToDate > first.leaf.validToDate);
      assert.ok((await read()).service_ssl_expire >= Math.floor(renewed.leaf.validToDate.getTime() / 1000));
    });
  });
}
