// The error model on every path, framework errors included, and the public endpoints.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError } from '../support/assertions.ts';
import { engines } from '../support/engines.ts';
import { bearer, call, login } from '../support/http.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';

for (const engine of engines()) {
  describe(`HTTP error model and public endpoints (${engine})`, () => {
    let service: Service;
    let url: string;
    let auth: string;
    let tokensPath: string;
    before(async () => {
      service = await startService({ engine });
      url = service.url;
      auth = bearer((await login(url, adminEmail, adminPassword)).access);
      tokensPath = `/iam/v2/clients/${(await call(url, 'GET', '/iam/clients/me', { auth })).body.id}/tokens`;
    });
    after(() => service.dispose());

    test('unknown route: 404 with the error body, with or without credentials', async () => {
      assertError(await call(url, 'GET', '/no/such/route'), 404, 'route_not_found');
      assertError(await call(url, 'GET', '/dns/v3/zones', { auth }), 404, 'route_not_found');
    });

    test('known path, wrong method: 405 with Allow', async () => {
      const response = await call(url, 'PUT', '/iam/auth/jwt/login', { body: {} });
      assertError(response, 405, 'method_not_allowed');
      assert.equal(response.headers.get('allow'), 'POST');
    });

    test('malformed JSON: 400 malformed_json', async () => {
      assertError(await call(url, 'POST', tokensPath, { auth, raw: '{"name": ' }), 400, 'malformed_json');
      assertError(await call(url, 'POST', '/iam/auth/jwt/login', { raw: '[1,2' }), 400, 'malformed_json');
      assertError(await call(url, 'POST', tokensPath, { auth, raw: '{"__proto__": {"admin": true}, "name": "x"}' }), 400, 'malformed_json');
    });

    test('body over 1 MiB: 413; nothing is created', async () => {
      const before = (await call(url, 'GET', tokensPath, { auth })).body.length as number;
      const huge = JSON.stringify({ name: 'big', description: 'x'.repeat(1024 * 1024) });
      assertError(await call(url, 'POST', tokensPath, { auth, raw: huge }), 413, 'body_too_large');
      assert.equal((await call(url, 'GET', tokensPath, { auth })).body.length, before);
    });

    test('wrong content type: 415', async () => {
      assertError(await call(url, 'POST', tokensPath, { auth, raw: 'name=x', contentType: 'application/x-www-form-urlencoded' }), 415, 'unsupported_media_type');
      assertError(await call(url, 'POST', '/iam/auth/jwt/login', { raw: 'hello', contentType: 'text/plain' }), 415, 'unsupported_media_type');
    });

    test('an empty body with a JSON content type is accepted as {}', async () => {
      // GET and DELETE with the header and no body, as several clients send them.
      assert.equal((await call(url, 'GET', '/iam/clients/me', { auth, contentType: 'application/json' })).status, 200);
      const created = await call(url, 'POST', tokensPath, { auth, body: { name: 'to-delete' } });
      const deleted = await call(url, 'DELETE', `${tokensPath}/${created.body.id}`, { auth, raw: '', contentType: 'application/json' });
      assert.equal(deleted.status, 204);
      // On a route that needs fields, the answer names them.
      const login = await call(url, 'POST', '/iam/auth/jwt/login', { raw: '', contentType: 'application/json' });
      assertError(login, 400, 'invalid_input');
      assert.deepEqual(Object.keys(login.body.fields).sort(), ['password', 'username']);
    });

    test('validation errors name the fields; nulls and unknown keys are ignored', async () => {
      // Scalars are coerced ("5" ↔ 5) as clients mix them; objects where strings belong are not.
      const response = await call(url, 'POST', tokensPath, { auth, body: { name: { first: 'x' }, description: { a: 1 } } });
      assertError(response, 400, 'invalid_input');
      assert.ok('name' in response.body.fields && 'description' in response.body.fields, response.text);
      const lenient = await call(url, 'POST', tokensPath, { auth, body: { name: 'lenient', description: null, exp_date: null, id: 77, unknown: { a: 1 } } });
      assert.equal(lenient.status, 201, lenient.text);
      assert.notEqual(lenient.body.id, 77);
      assertError(await call(url, 'GET', `${tokensPath}/not-a-number`, { auth }), 400, 'invalid_input');
    });

    test('every response carries a request id; a sane caller id is echoed', async () => {
      const mine = await call(url, 'GET', '/healthz', { headers: { 'x-request-id': 'trace-123' } });
      assert.equal(mine.headers.get('x-request-id'), 'trace-123');
      const generated = await call(url, 'GET', '/healthz', { headers: { 'x-request-id': 'bad id\twith spaces' } });
      assert.match(generated.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    });

    test('healthz, readyz, metrics, openapi and docs need no credentials', async () => {
      assert.deepEqual((await call(url, 'GET', '/healthz')).body, { status: 'ok' });
      assert.deepEqual((await call(url, 'GET', '/readyz')).body, { status: 'ready' });
      const metrics = await call(url, 'GET', '/metrics');
      assert.equal(metrics.status, 200);
      assert.match(metrics.text, /edgeplane_http_requests_total\{method="GET",route="\/readyz",status_code="200"\} \d+/);
      assert.match(metrics.text, /edgeplane_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/healthz",status_code="200"\}/);
      const openapi = await call(url, 'GET', '/openapi.json');
      assert.equal(openapi.body.openapi, '3.1.0');
      for (const path of ['/iam/auth/jwt/login', '/iam/auth/jwt/refresh', '/iam/clients/me', '/iam/v2/clients/{clientId}/tokens', '/iam/v2/clients/{clientId}/tokens/{tokenId}', '/iam/users', '/iam/accounts']) {
        assert.ok(path in openapi.body.paths, `${path} is documented`);
      }
      assert.ok(openapi.body.paths['/iam/v2/clients/{clientId}/tokens'].post.responses['201']);
      const docs = await fetch(`${url}/docs`);
      assert.equal(docs.status, 200);
      assert.match(await docs.text(), /swagger/i);
    });
  });
}
