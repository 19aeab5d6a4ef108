// The HTTPS listener on its own: certificates chosen by SNI among the resources' own, whole chains,
// no certificate at all for names nobody holds, TLS 1.2 at least, h2 by ALPN only where a resource
// asks for it, and upgrades handed on. Real TLS, h2 and HTTP/1.1 clients on loopback.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import https from 'node:https';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { after, before, describe, test } from 'node:test';
import type { ResourcePolicy } from '../../../src/security/proxy/policy.ts';
import { settingDefaults } from '../../../src/security/resource-input.ts';
import { http1Serving } from '../../../src/security/proxy/listeners.ts';
import { RequestTurns } from '../../../src/security/proxy/http1/request-turns.ts';
import type { ProxyRequest, ProxyResponse } from '../../../src/security/proxy/exchange.ts';
import { chooseProtocol, createHttpsListener } from '../../../src/security/proxy/tls/https-listener.ts';
import { testLimits } from '../../support/proxy-edge.ts';
import { secureContextOf } from '../../../src/security/proxy/tls/secure-contexts.ts';
import { certificateChain, type CertificateChain } from '../../support/certificates.ts';
import { handshake, keySecrets, recordingRelay, tlsRecords } from '../../support/tls-probe.ts';

function policy(id: number, hosts: string[], pki: CertificateChain | undefined, http2: 0 | 1): ResourcePolicy {
  return {
    id,
    accountId: 1,
    name: hosts[0]!,
    hosts,
    served: true,
    settings: { ...settingDefaults, service_http2: http2 },
    origins: [],
    rules: [],
    whitelist: [],
    blacklist: [],
    tls: pki === undefined ? undefined : { kind: 'custom', chain: pki.chain, key: pki.key, expires: 0 },
    wantsManagedCertificate: false,
  };
}

/** The listener as a proxy thread runs it, over a host table of these policies. */
async function listen(policies: ResourcePolicy[]) {
  const byHost = new Map(policies.flatMap((p) => {
    const entry = { policy: p, context: secureContextOf(p) };
    return p.hosts.map((h) => [h, entry] as const);
  }));
  const onRequest = (req: ProxyRequest, res: ProxyResponse) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`${req.httpVersion} ${String(req.headers[':authority'] ?? req.headers.host)}`);
  };
  // HTTP/1.x as a proxy thread serves it: the proxy's own engine.
  const http1 = http1Serving(
    {
      request: onRequest,
      upgrade: (_req, socket) => {
        socket.end('HTTP/1.1 101 Switching Protocols\r\nconnection: upgrade\r\nupgrade: echo\r\n\r\n');
      },
      clientError: () => undefined,
    },
    testLimits,
    new RequestTurns(),
  );
  const server = createHttpsListener({
    contextFor: (name) => byHost.get(name)?.context,
    http2For: (name) => byHost.get(name)?.policy.settings.service_http2 === 1,
    onRequest,
    onHttp1: (socket) => http1.serve(socket),
  });
  server.on('close', () => http1.stop());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256;

describe('HTTPS listener', () => {
  const shop = certificateChain(['shop.example', 'www.shop.example']);
  const blog = certificateChain(['blog.example']);
  let port = 0;
  let close: () => Promise<void> = () => Promise.resolve();

  before(async () => {
    const listening = await listen([
      policy(1, ['shop.example', 'www.shop.example'], shop, 1),
      policy(2, ['blog.example'], blog, 0),
      // Holds a name but has no certificate yet (an ACME resource before its first issuance).
      policy(3, ['pending.example'], undefined, 1),
    ]);
    port = listening.port;
    close = () => new Promise((resolve) => listening.server.close(() => resolve()));
  });
  after(() => close());

  test('SNI picks the certificate of the resource holding the name or the alias, verified against its root with the intermediate the server sends', async () => {
    for (const [servername, pki] of [['shop.example', shop], ['www.shop.example', shop], ['blog.example', blog], ['SHOP.Example', shop]] as const) {
      const got = await handshake(port, { servername, ca: pki.root, rejectUnauthorized: true });
      assert.equal(got.leaf.fingerprint256, fingerprint(pki.crt), servername);
      // The client knows only the root: verification succeeding needs the intermediate from the server.
      assert.deepEqual(got.sent.slice(0, 2).map((c) => c.fingerprint256), [fingerprint(pki.crt), fingerprint(pki.intermediate)], servername);
    }
  });

  test('an unknown name, a name without a certificate and no SNI at all meet a handshake_failure alert and no certificate', async () => {
    const relay = await recordingRelay(port);
    try {
      for (const servername of ['unknown.example', 'pending.example', undefined]) {
        const before = relay.fromServer().length;
        // Connecting to an IP address, Node sends no SNI unless told a name.
        await assert.rejects(handshake(relay.port, servername === undefined ? {} : { servername }), (e: NodeJS.ErrnoException) => {
          assert.equal(e.code, 'ERR_SSL_SSL/TLS_ALERT_HANDSHAKE_FAILURE', String(servername));
          return true;
        });
        // Everything the server sent: one plaintext alert record, fatal (2) handshake_failure (40); no ServerHello, no certificate.
        const records = tlsRecords(relay.fromServer().subarray(before));
        assert.deepEqual(records.map((r) => [r.type, ...r.payload]), [[21, 2, 40]], String(servername));
      }
    } finally {
      await relay.close();
    }
  });

  test('TLS 1.0 and 1.1 are refused with a protocol_version alert; TLS 1.2 and 1.3 are served', async () => {
    // Old versions need the client to lower its own security level: prove such a client does speak TLS 1.1.
    const control = tls.createServer({ cert: shop.chain, key: shop.key, minVersion: 'TLSv1', ciphers: 'DEFAULT@SECLEVEL=0' });
    await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
    const old = (maxVersion: tls.SecureVersion) => ({ servername: 'shop.example', minVersion: 'TLSv1' as const, maxVersion, ciphers: 'DEFAULT@SECLEVEL=0' });
    try {
      assert.equal((await handshake((control.address() as AddressInfo).port, old('TLSv1.1'))).protocol, 'TLSv1.1');
    } finally {
      control.close();
    }
    for (const version of ['TLSv1', 'TLSv1.1'] as const) {
      await assert.rejects(handshake(port, old(version)), (e: NodeJS.ErrnoException) => {
        assert.equal(e.code, 'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION', version);
        return true;
      });
    }
    assert.equal((await handshake(port, { servername: 'shop.example', maxVersion: 'TLSv1.2' })).protocol, 'TLSv1.2');
    assert.equal((await handshake(port, { servername: 'shop.example' })).protocol, 'TLSv1.3');
  });

  test('h2 is offered by ALPN only to names of resources with service_http2 1; HTTP/1.1 to every name', async () => {
    const offered = ['h2', 'http/1.1'];
    assert.equal((await handshake(port, { servername: 'shop.example', ALPNProtocols: offered })).alpn, 'h2');
    assert.equal((await handshake(port, { servername: 'www.shop.example', ALPNProtocols: offered })).alpn, 'h2');
    assert.equal((await handshake(port, { servername: 'blog.example', ALPNProtocols: offered })).alpn, 'http/1.1');
    assert.equal((await handshake(port, { servername: 'blog.example' })).alpn, false);

    // A real h2 request where h2 is on...
    const session = http2.connect(`https://127.0.0.1:${String(port)}`, { servername: 'shop.example', ca: shop.root, checkServerIdentity: () => undefined });
    try {
      const body = await new Promise<string>((resolve, reject) => {
        const stream = session.request({ ':path': '/', ':authority': 'shop.example' });
        let text = '';
        stream.setEncoding('utf8').on('data', (d: string) => (text += d)).on('end', () => resolve(text)).on('error', reject);
      });
      assert.equal(body, '2.0 shop.example');
    } finally {
      session.close();
    }
    // ...an h2-only client is refused where it is off (nothing in common: RFC 7301's alert)...
    await assert.rejects(handshake(port, { servername: 'blog.example', ALPNProtocols: ['h2'] }), (e: NodeJS.ErrnoException) => {
      assert.equal(e.code, 'ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL');
      return true;
    });
    // ...and an HTTP/1.1 client is served there.
    const answer = await new Promise<string>((resolve, reject) => {
      https.get({ host: '127.0.0.1', port, servername: 'blog.example', headers: { host: 'blog.example' }, ca: blog.root, checkServerIdentity: () => undefined }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d)).on('end', () => resolve(text));
      }).on('error', reject);
    });
    assert.equal(answer, '1.1 blog.example');
  });

  test('the protocol choice: h2 only when offered to an h2 name; http/1.1 whenever offered', () => {
    const h2Names = (name: string) => name === 'shop.example';
    assert.equal(chooseProtocol('shop.example', ['h2', 'http/1.1'], h2Names), 'h2');
    assert.equal(chooseProtocol('Shop.Example.', ['http/1.1', 'h2'], h2Names), 'h2');
    assert.equal(chooseProtocol('shop.example', ['http/1.1'], h2Names), 'http/1.1');
    assert.equal(chooseProtocol('blog.example', ['h2', 'http/1.1'], h2Names), 'http/1.1');
    assert.equal(chooseProtocol('blog.example', ['h2'], h2Names), undefined);
    assert.equal(chooseProtocol(undefined, ['h2', 'http/1.1'], h2Names), 'http/1.1');
    assert.equal(chooseProtocol('shop.example', ['spdy/3'], h2Names), undefined);
  });

  test('the handshake carries the certificate and nothing of its private key', async () => {
    const relay = await recordingRelay(port);
    try {
      // TLS 1.2 sends its Certificate message in the clear: what is on the wire is what was sent.
      await handshake(relay.port, { servername: 'shop.example', maxVersion: 'TLSv1.2' });
      const wire = relay.fromServer();
      assert.ok(wire.includes(new X509Certificate(shop.crt).raw), 'the leaf is on the wire: the search looks at the right bytes');
      assert.ok(wire.includes(new X509Certificate(shop.intermediate).raw), 'and so is the intermediate');
      for (const secret of keySecrets(shop.key)) assert.equal(wire.includes(secret), false);
      for (const secret of keySecrets(blog.key)) assert.equal(wire.includes(secret), false);
    } finally {
      await relay.close();
    }
  });

  test('an HTTP/1.1 Upgrade request is handed to the upgrade handler with its socket', async () => {
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = tls.connect({ host: '127.0.0.1', port, servername: 'blog.example', rejectUnauthorized: false }, () => {
        socket.write('GET /socket HTTP/1.1\r\nhost: blog.example\r\nconnection: upgrade\r\nupgrade: echo\r\n\r\n');
      });
      let text = '';
      socket.setEncoding('utf8').on('data', (d: string) => (text += d)).on('end', () => resolve(text)).on('error', reject);
    });
    assert.match(reply, /^HTTP\/1\.1 101 Switching Protocols\r\n/);
  });
});
