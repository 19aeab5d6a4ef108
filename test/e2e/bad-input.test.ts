// Hostile and malformed input through the HTTP API: every answer is a 4xx in the error model, never a
// 500, on every store engine.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { assertError } from '../support/assertions.ts';
import { engines } from '../support/engines.ts';
import { hostileRequests, type OpenApi } from '../support/hostile-requests.ts';
import { apiKey, bearer, call, login, type Response } from '../support/http.ts';
import { makePathObjects } from '../support/path-objects.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';

/** Numbers no store column holds, written as clients might. */
const hugeNumbers = ['9223372036854775808', '1e309', '-1e309', '123456789012345678901234567890', '2147483648'];

/** Sends bytes on a fresh TCP connection and reads until the server closes it. */
function rawExchange(url: string, request: string | Buffer): Promise<{ status: number; headers: string; body: any }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer in 10 s')));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString();
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), headers: head.toLowerCase(), body: JSON.parse(body) });
    });
  });
}

for (const engine of engines()) {
  describe(`bad input is a 4xx (${engine})`, () => {
    let service: Service;
    let url: string;
    let auth: string;
    let clientId: number;
    before(async () => {
      service = await startService({ engine });
      url = service.url;
      auth = bearer((await login(url, adminEmail, adminPassword)).access);
      clientId = (await call(url, 'GET', '/iam/clients/me', { auth })).body.id;
      assert.equal((await call(url, 'POST', '/dns/v2/zones', { auth, body: { name: 'bounds.example' } })).status, 200);
    });
    after(() => service.dispose());

    test('offset and limit beyond what the stores take: 400 naming the parameter', async () => {
      for (const value of hugeNumbers) {
        for (const list of ['/dns/v2/zones', '/dns/v2/zones/bounds.example/rrsets']) {
          for (const parameter of ['offset', 'limit']) {
            const response = await call(url, 'GET', `${list}?${parameter}=${value}`, { auth });
            assertError(response, 400, 'invalid_input');
            assert.ok(parameter in response.body.fields, response.text);
          }
        }
      }
      // The largest offset still answers (an empty page).
      const last = await call(url, 'GET', '/dns/v2/zones?offset=2147483647', { auth });
      assert.equal(last.status, 200, last.text);
      assert.deepEqual(last.body.zones, []);
    });

    test('ids beyond what the stores take: 400 on users, resources, clients and tokens', async () => {
      for (const value of hugeNumbers) {
        for (const [method, path] of [
          ['GET', `/iam/users/${value}`],
          ['DELETE', `/iam/users/${value}`],
          ['GET', `/security/resources/${value}`],
          ['DELETE', `/security/resources/${value}`],
          ['GET', `/iam/v2/clients/${value}/tokens`],
          ['GET', `/iam/v2/clients/${clientId}/tokens/${value}`],
          ['DELETE', `/iam/v2/clients/${clientId}/tokens/${value}`],
        ] as const) {
          assertError(await call(url, method, path, { auth }), 400, 'invalid_input');
        }
      }
      assertError(await call(url, 'PUT', '/security/resources/1e309', { auth, body: { name: 'a.bounds.example' } }), 400, 'invalid_input');
    });

    test('requests the HTTP parser refuses are answered in the error model, and the connection closed', async () => {
      const cases: [string, string | Buffer, number, string][] = [
        ['Content-Length with Transfer-Encoding', 'POST /iam/auth/jwt/login HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400, 'bad_request'],
        ['two Content-Lengths', 'POST /iam/auth/jwt/login HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}', 400, 'bad_request'],
        ['NUL in the path', Buffer.from('GET /healthz\0/x HTTP/1.1\r\nHost: a\r\n\r\n'), 400, 'bad_request'],
        ['not HTTP', 'HELLO THERE\r\n\r\n', 400, 'bad_request'],
        ['oversized headers', `GET /healthz HTTP/1.1\r\nHost: a\r\nX-Filler: ${'a'.repeat(32 * 1024)}\r\n\r\n`, 431, 'header_too_large'],
        ['oversized request line', `GET /${'a'.repeat(32 * 1024)} HTTP/1.1\r\nHost: a\r\n\r\n`, 431, 'header_too_large'],
      ];
      for (const [label, request, status, code] of cases) {
        const response = await rawExchange(url, request);
        assert.equal(response.status, status, label);
        assert.match(response.headers, /content-type: application\/json/, label);
        assert.equal(response.body.code, code, label);
        assert.equal(typeof response.body.error, 'string', label);
      }
      // The service is still there.
      assert.equal((await call(url, 'GET', '/healthz')).status, 200);
    });

    test('zone import: JSON bodies keep the 1 MiB limit, text/plain the 10 MiB one; bare JSON values are refused', async () => {
      const importPath = '/dns/v2/zones/bounds.example/import';
      const rrsets = async () => (await call(url, 'GET', '/dns/v2/zones/bounds.example/rrsets', { auth })).body.total_amount as number;
      const before = await rrsets();
      const padded = (name: string) => `; ${'x'.repeat(1200 * 1024)}\n${name} 300 IN A 192.0.2.1\n`;
      assertError(await call(url, 'POST', importPath, { auth, body: { content: padded('json') } }), 413, 'body_too_large');
      assert.equal(await rrsets(), before);
      for (const raw of [JSON.stringify('scalar 300 IN A 192.0.2.1\n'), '42', 'true', 'null', '["array 300 IN A 192.0.2.1"]']) {
        const response = await call(url, 'POST', importPath, { auth, raw });
        assertError(response, 400, 'invalid_input');
      }
      const notText = await call(url, 'POST', importPath, { auth, body: { content: 42 } });
      assertError(notText, 400, 'invalid_input');
      assert.ok('content' in notText.body.fields, notText.text);
      assert.equal(await rrsets(), before);
      // The same file as text/plain is within its limit.
      const text = await call(url, 'POST', importPath, { auth, raw: padded('text'), contentType: 'text/plain' });
      assert.equal(text.status, 200, text.text);
      assert.deepEqual(text.body.created.map((c: { name: string }) => c.name), ['text.bounds.example']);
    });

    test('names with invisible characters are refused with a field error, not silently changed', async () => {
      const hidden = ['\u200b', '\u200c', '\u200d', '\ufeff', '\u00ad', '\u2060', '\u034f', '\ufe0f', '\u3164', '\u202e', '\u0007'];
      for (const character of hidden) {
        const label = `in${character}visible`;
        const zone = await call(url, 'POST', '/dns/v2/zones', { auth, body: { name: `${label}.example` } });
        assertError(zone, 400, 'invalid_input');
        assert.match(zone.body.fields.name, /invisible or control character \(U\+[0-9A-F]{4}\)/);
        // At the edge too: a byte order mark is no whitespace to trim.
        assertError(await call(url, 'POST', '/dns/v2/zones', { auth, body: { name: `${character}edge.example` } }), 400, 'invalid_input');
        const owner = await call(url, 'POST', `/dns/v2/zones/bounds.example/${encodeURIComponent(`${label}.bounds.example`)}/A`, { auth, body: { resource_records: [{ content: ['192.0.2.1'] }] } });
        assertError(owner, 400, 'invalid_input');
        const target = await call(url, 'POST', '/dns/v2/zones/bounds.example/alias.bounds.example/CNAME', { auth, body: { resource_records: [{ content: [`${label}.example.net`] }] } });
        assertError(target, 400, 'invalid_input');
        const resource = await call(url, 'POST', '/security/resources', { auth, body: { name: `${label}.example.org`, aliases: [{ alias_data: `alias-${label}.example.org` }], origins: [{ origin_data: '192.0.2.1' }] } });
        assertError(resource, 400, 'invalid_input');
        assert.deepEqual(Object.keys(resource.body.fields).sort(), ['aliases[0].alias_data', 'name'], resource.text);
      }
      // Nothing was stored under the visible spelling.
      assertError(await call(url, 'GET', '/dns/v2/zones/invisible.example', { auth }), 404, 'not_found');
      assertError(await call(url, 'GET', '/dns/v2/zones/bounds.example/invisible.bounds.example/A', { auth }), 404, 'not_found');
      assert.deepEqual((await call(url, 'GET', '/security/resources', { auth })).body, []);
      // Spaces around a name are still forgiven, and IDNs still become A-labels.
      const idn = await call(url, 'POST', '/dns/v2/zones', { auth, body: { name: ' bücher.example ' } });
      assert.equal(idn.status, 200, idn.text);
      assert.equal((await call(url, 'GET', '/dns/v2/zones/xn--bcher-kva.example', { auth })).status, 200);
    });

    test('names that are not strings are refused, not converted', async () => {
      for (const name of [42, 4.5, true, ['array.example'], { name: 'object.example' }]) {
        const zone = await call(url, 'POST', '/dns/v2/zones', { auth, body: { name } });
        assertError(zone, 400, 'invalid_input');
        assert.ok('name' in zone.body.fields, zone.text);
        const resource = await call(url, 'POST', '/security/resources', { auth, body: { name, aliases: [{ alias_data: name }], origins: [{ origin_data: '192.0.2.1' }] } });
        assertError(resource, 400, 'invalid_input');
        assert.deepEqual(Object.keys(resource.body.fields).sort(), ['aliases[0].alias_data', 'name'], resource.text);
      }
      for (const field of ['primary_server', 'contact']) {
        const response = await call(url, 'PUT', '/dns/v2/zones/bounds.example', { auth, body: { [field]: 42 } });
        assertError(response, 400, 'invalid_input');
        assert.ok(field in response.body.fields, response.text);
      }
      const zones = (await call(url, 'GET', '/dns/v2/zones', { auth })).body.zones.map((z: { name: string }) => z.name);
      assert.ok(!zones.includes('42') && !zones.includes('4.5') && !zones.includes('true') && !zones.includes('array.example'), zones.join());
    });

    test('meta nesting and size are bounded for zones, RRsets and records', async () => {
      const nested = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
      const zone = (meta: string) => call(url, 'PUT', '/dns/v2/zones/bounds.example', { auth, raw: `{"meta":${meta}}` });
      const rrset = (name: string, meta: string, recordMeta = '{}') =>
        call(url, 'PUT', `/dns/v2/zones/bounds.example/${name}.bounds.example/TXT`, { auth, raw: `{"meta":${meta},"resource_records":[{"content":["x"],"meta":${recordMeta}}]}` });
      const expectField = (response: Response<any>, field: string) => {
        assertError(response, 400, 'invalid_input');
        assert.ok(field in response.body.fields, response.text);
      };
      // 32 levels are fine everywhere; 33 are not.
      assert.equal((await zone(nested(32))).status, 200);
      assert.equal((await rrset('deep', nested(32), nested(32))).status, 200);
      expectField(await zone(nested(33)), 'meta');
      expectField(await rrset('deeper', nested(33)), 'meta');
      expectField(await rrset('deeper', '{}', `{"notes":${'['.repeat(40)}${']'.repeat(40)}}`), 'resource_records[0].meta');
      // Zone meta as a string holding JSON is parsed without a depth limit of its own: checked too.
      expectField(await call(url, 'PUT', '/dns/v2/zones/bounds.example', { auth, body: { meta: nested(100_000) } }), 'meta');
      // A body nested beyond what the parser follows is malformed, not a crash.
      assertError(await zone(nested(100_000)), 400, 'malformed_json');
      // 64 KiB of JSON at most, for RRset and record meta as for zone meta.
      const big = JSON.stringify({ notes: 'x'.repeat(65 * 1024) });
      expectField(await zone(big), 'meta');
      expectField(await rrset('big', big), 'meta');
      expectField(await rrset('big', '{}', big), 'resource_records[0].meta');
      assertError(await call(url, 'GET', '/dns/v2/zones/bounds.example/deeper.bounds.example/TXT', { auth }), 404, 'not_found');
      // What was stored reads back.
      assert.equal((await call(url, 'GET', '/dns/v2/zones/bounds.example', { auth })).status, 200);
      assert.equal((await call(url, 'GET', '/dns/v2/zones/bounds.example/rrsets', { auth })).status, 200);
    });

    test('an API key whose id no store holds is a 401, not a 500', async () => {
      for (const id of ['2147483648', '999999999999999', '99999999999999999999', '1e309']) {
        assertError(await call(url, 'GET', '/iam/clients/me', { auth: apiKey(`${id}_abcdefghijklmnopqrstuvwxyz`) }), 401, 'unauthorized');
      }
    });

    test('every operation of the OpenAPI document, with hostile paths, queries and bodies: a 4xx in the error model, never a 5xx', async () => {
      // Objects for the path parameters to name; the administrator's own user is not among them (a
      // changed password would end the session the other requests need).
      const { values } = await makePathObjects(url, auth, clientId, 'targets.example');
      const document = (await call(url, 'GET', '/openapi.json')).body as OpenApi;
      const requests = hostileRequests(document, {
        seed: 20261129,
        perOperation: 8,
        realValue: (parameter) => values[parameter] ?? 'x',
        skip: (method, path) => path === '/iam/auth/jwt/logout' || (method === 'delete' && /\{(name|resource_id|userId|id|key)\}$/.test(path)),
      });
      assert.ok(requests.length > 300, `only ${requests.length} requests made: is the OpenAPI document whole?`);
      const failures: string[] = [];
      for (const request of requests) {
        const response = request.raw === undefined
          ? await call(url, request.method, request.path, { auth, body: request.body })
          : await call(url, request.method, request.path, { auth, raw: request.raw.text, contentType: request.raw.contentType });
        const error = response.body as { error?: unknown; code?: unknown } | undefined;
        const inModel = response.status < 400 || (typeof error?.error === 'string' && typeof error.code === 'string');
        if (response.status >= 500 || !inModel) failures.push(`${response.status} ${request.method} ${request.path.slice(0, 120)} ${JSON.stringify(request.body ?? request.raw ?? null).slice(0, 200)}: ${response.text.slice(0, 200)}`);
      }
      assert.deepEqual(failures, []);
      // Still serving, and the zone as the seeded requests left it or as a hostile one validly changed it.
      assert.equal((await call(url, 'GET', '/dns/v2/zones', { auth })).status, 200);
    });
  });
}
