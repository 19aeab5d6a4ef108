// Login, refresh, API tokens: the happy paths and every way a credential must be refused.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SignJWT } from 'jose';
import { assertError } from '../support/assertions.ts';
import { engines } from '../support/engines.ts';
import { apiKey, bearer, call, login } from '../support/http.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';

for (const engine of engines()) {
  describe(`authentication (${engine})`, () => {
    let service: Service;
    let url: string;
    before(async () => {
      service = await startService({ engine });
      url = service.url;
    });
    after(() => service.dispose());

    test('login answers an access and a refresh token; the access token authenticates', async () => {
      const tokens = await login(url, adminEmail, adminPassword);
      assert.equal(typeof tokens.access, 'string');
      assert.equal(typeof tokens.refresh, 'string');
      const me = await call(url, 'GET', '/iam/clients/me', { auth: bearer(tokens.access) });
      assert.equal(me.status, 200);
      assert.equal(me.body.currentUser, me.body.users[0].id);
      assert.equal(me.body.users[0].email, adminEmail);
    });

    test('the /id/auth/jwt/login alias logs in too; e-mail case does not matter', async () => {
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const response = await call(url, 'POST', '/id/auth/jwt/login', { body: { username: adminEmail.toUpperCase(), password: adminPassword } });
      assert.equal(response.status, 200);
      assert.equal(typeof response.body.access, 'string');
    });

    test('wrong password and unknown user are both 401 with the error body', async () => {
      await new Promise((resolve) => setTimeout(resolve, 1100));
      assertError(await call(url, 'POST', '/iam/auth/jwt/login', { body: { username: adminEmail, password: 'wrong password' } }), 401);
      assertError(await call(url, 'POST', '/iam/auth/jwt/login', { body: { username: 'nobody@example.com', password: 'whatever1' } }), 401);
    });

    test('refresh rotates: the new pair works, a reused refresh token is 401 and ends the session', async () => {
      const first = await login(url, adminEmail, adminPassword);
      const second = await call(url, 'POST', '/iam/auth/jwt/refresh', { body: { refresh: first.refresh } });
      assert.equal(second.status, 200);
      assert.notEqual(second.body.refresh, first.refresh);
      assert.equal((await call(url, 'GET', '/iam/clients/me', { auth: bearer(second.body.access) })).status, 200);

      assertError(await call(url, 'POST', '/iam/auth/jwt/refresh', { body: { refresh: first.refresh } }), 401);
      // The replay voided the whole family, including the token handed out by the rotation.
      assertError(await call(url, 'POST', '/iam/auth/jwt/refresh', { body: { token: second.body.refresh } }), 401);
    });

    test('a replayed refresh token ends its session: its access tokens are refused on every API node, other sessions go on', async () => {
      const first = await login(url, adminEmail, adminPassword);
      const other = await login(url, adminEmail, adminPassword);
      const rotated = await call(url, 'POST', '/iam/auth/jwt/refresh', { body: { refresh: first.refresh } });
      assert.equal(rotated.status, 200);
      // Another API node on the same store and signing key.
      const node = await service.sibling({ EDGEPLANE_ROLES: 'api' });
      try {
        const me = (base: string, access: string) => call(base, 'GET', '/iam/clients/me', { auth: bearer(access) });
        for (const base of [url, node.url]) {
          for (const access of [first.access, rotated.body.access, other.access]) assert.equal((await me(base, access)).status, 200);
        }
        // The replay reaches the other node; the revocation holds on both.
        assertError(await call(node.url, 'POST', '/iam/auth/jwt/refresh', { body: { refresh: first.refresh } }), 401);
        for (const base of [url, node.url]) {
          for (const access of [first.access, rotated.body.access]) {
            const refused = await me(base, access);
            assertError(refused, 401, 'unauthorized');
            assert.match(refused.body.error, /log in again/);
          }
          assert.equal((await me(base, other.access)).status, 200, 'another login of the same user is untouched');
        }
        assertError(await call(url, 'POST', '/iam/auth/jwt/refresh', { body: { refresh: rotated.body.refresh } }), 401);
        assert.equal((await call(url, 'POST', '/iam/auth/jwt/refresh', { body: { refresh: other.refresh } })).status, 200);
      } finally {
        await node.dispose();
      }
    });

    test('an access token that names no session (as issued before sessions were named) is refused', async () => {
      const key = Buffer.from(fs.readFileSync(path.join(service.dataDir, 'jwt-signing.key'), 'utf8'), 'base64');
      const { access } = await login(url, adminEmail, adminPassword);
      const claims = JSON.parse(Buffer.from(access.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
      assert.equal(typeof claims['sid'], 'string');
      const sessionless = await new SignJWT({ client_id: claims['client_id'], token_type: 'access' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(String(claims['sub']))
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(key);
      assertError(await call(url, 'GET', '/iam/clients/me', { auth: bearer(sessionless) }), 401, 'unauthorized');
    });

    test('logout ends the session of a refresh token: its refresh and access tokens are refused, other sessions go on', async () => {
      const ended = await login(url, adminEmail, adminPassword);
      const other = await login(url, adminEmail, adminPassword);
      const out = await call(url, 'POST', '/iam/auth/jwt/logout', { body: { refresh: ended.refresh } });
      assert.equal(out.status, 204);
      assertError(await call(url, 'GET', '/iam/clients/me', { auth: bearer(ended.access) }), 401);
      assertError(await call(url, 'POST', '/iam/auth/jwt/refresh', { body: { refresh: ended.refresh } }), 401);
      assert.equal((await call(url, 'GET', '/iam/clients/me', { auth: bearer(other.access) })).status, 200);
      // Unknown or spent tokens answer the same, so logout tells nothing about a token; none at all is a 400.
      assert.equal((await call(url, 'POST', '/iam/auth/jwt/logout', { body: { token: ended.refresh } })).status, 204);
      assert.equal((await call(url, 'POST', '/iam/auth/jwt/logout', { body: { refresh: 'not-a-token' } })).status, 204);
      assertError(await call(url, 'POST', '/iam/auth/jwt/logout', { body: {} }), 400, 'invalid_input');
    });

    test('refresh accepts the {"token": ...} spelling; garbage and missing tokens are refused', async () => {
      const pair = await login(url, adminEmail, adminPassword);
      assert.equal((await call(url, 'POST', '/iam/auth/jwt/refresh', { body: { token: pair.refresh } })).status, 200);
      assertError(await call(url, 'POST', '/iam/auth/jwt/refresh', { body: { refresh: 'not-a-token' } }), 401);
      assertError(await call(url, 'POST', '/iam/auth/jwt/refresh', { body: {} }), 400, 'invalid_input');
    });

    test('an expired or tampered access JWT is 401', async () => {
      const key = Buffer.from(fs.readFileSync(path.join(service.dataDir, 'jwt-signing.key'), 'utf8'), 'base64');
      const me = await call(url, 'GET', '/iam/clients/me', { auth: bearer((await login(url, adminEmail, adminPassword)).access) });
      const expired = await new SignJWT({ client_id: me.body.id, token_type: 'access' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(String(me.body.currentUser))
        .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
        .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
        .sign(key);
      assertError(await call(url, 'GET', '/iam/clients/me', { auth: bearer(expired) }), 401, 'unauthorized');

      const { access } = await login(url, adminEmail, adminPassword);
      const [header, payload, signature] = access.split('.') as [string, string, string];
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
      const forged = Buffer.from(JSON.stringify({ ...claims, client_id: 999 })).toString('base64url');
      assertError(await call(url, 'GET', '/iam/clients/me', { auth: bearer(`${header}.${forged}.${signature}`) }), 401);
      const flipped = signature.slice(0, -2) + (signature.endsWith('AA') ? 'BB' : 'AA');
      assertError(await call(url, 'GET', '/iam/clients/me', { auth: bearer(`${header}.${payload}.${flipped}`) }), 401);
      const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`;
      assertError(await call(url, 'GET', '/iam/clients/me', { auth: bearer(unsigned) }), 401);
    });

    test('API token: created once with its secret, used, listed without it, deleted, then refused', async () => {
      const { access } = await login(url, adminEmail, adminPassword);
      const me = await call(url, 'GET', '/iam/clients/me', { auth: bearer(access) });
      const base = `/iam/v2/clients/${me.body.id}/tokens`;
      const created = await call(url, 'POST', base, {
        auth: bearer(access),
        body: { name: 'deploy', description: 'CI', exp_date: null, client_user: { role: { id: 2, name: 'Users' } } },
      });
      assert.equal(created.status, 201);
      const token = created.body.token as string;
      assert.match(token, /^\d+_[A-Za-z0-9_-]{43}$/);
      assert.equal(created.body.client_user.role.name, 'Users');
      const secret = token.split('_').slice(1).join('_');

      // Scheme case does not matter, and the legacy `<id>$<secret>` form is accepted.
      for (const auth of [apiKey(token), `apikey ${token}`, `APIKEY ${token.replace('_', '$')}`]) {
        assert.equal((await call(url, 'GET', '/iam/clients/me', { auth })).status, 200, auth);
      }
      const listed = await call(url, 'GET', base, { auth: apiKey(token) });
      assert.equal(listed.status, 200);
      assert.ok(listed.body.some((t: { id: number }) => t.id === created.body.id));
      assert.ok(!listed.text.includes(secret), 'the list never shows a secret');
      const one = await call(url, 'GET', `${base}/${created.body.id}`, { auth: apiKey(token) });
      assert.equal(one.status, 200);
      assert.equal(one.body.name, 'deploy');
      assert.ok(!one.text.includes(secret));
      assert.notEqual(one.body.last_usage, null, 'last use is recorded');

      const deleted = await call(url, 'DELETE', `${base}/${created.body.id}`, { auth: bearer(access), contentType: 'application/json' });
      assert.equal(deleted.status, 204);
      assertError(await call(url, 'GET', '/iam/clients/me', { auth: apiKey(token) }), 401);
      assertError(await call(url, 'GET', `${base}/${created.body.id}`, { auth: bearer(access) }), 404);
      assertError(await call(url, 'DELETE', `${base}/${created.body.id}`, { auth: bearer(access) }), 404);
    });

    test('API tokens read once a second: a deleted token or user is refused at once on its node, within a second on another', async () => {
      const { access } = await login(url, adminEmail, adminPassword);
      const me = await call(url, 'GET', '/iam/clients/me', { auth: bearer(access) });
      const base = `/iam/v2/clients/${me.body.id}/tokens`;
      const user = await call(url, 'POST', '/iam/users', { auth: bearer(access), body: { email: 'cached@example.test', password: 'a long enough password', role: { name: 'Users' } } });
      assert.equal(user.status, 201);
      const userLogin = await login(url, 'cached@example.test', 'a long enough password');
      const token = async (auth: string) => {
        const created = await call(url, 'POST', base, { auth, body: { name: 'cached' } });
        assert.equal(created.status, 201);
        return { id: created.body.id as number, key: apiKey(created.body.token as string) };
      };
      const mine = await token(bearer(access));
      const theirs = await token(bearer(userLogin.access));
      const node = await service.sibling({ EDGEPLANE_ROLES: 'api' });
      try {
        const status = async (at: string, key: string) => (await call(at, 'GET', '/iam/clients/me', { auth: key })).status;
        // Both nodes have used (and so hold) both tokens.
        for (const at of [url, node.url]) for (const t of [mine, theirs]) assert.equal(await status(at, t.key), 200);
        assert.equal((await call(url, 'DELETE', `${base}/${String(mine.id)}`, { auth: bearer(access) })).status, 204);
        assert.equal((await call(url, 'DELETE', `/iam/users/${String(user.body.id)}`, { auth: bearer(access) })).status, 204);
        const deleted = Date.now();
        for (const t of [mine, theirs]) assert.equal(await status(url, t.key), 401, 'refused at once on the node that deleted it');
        for (const t of [mine, theirs]) {
          while ((await status(node.url, t.key)) !== 401 && Date.now() - deleted < 5000) await new Promise((resolve) => setTimeout(resolve, 50));
        }
        const waited = Date.now() - deleted;
        assert.ok(waited < 1500 && (await status(node.url, theirs.key)) === 401, `refused on the other node after ${String(waited)} ms`);
      } finally {
        await node.dispose();
      }
    });

    test('a token with a wrong secret, a wrong scheme or no header is 401', async () => {
      const { access } = await login(url, adminEmail, adminPassword);
      const me = await call(url, 'GET', '/iam/clients/me', { auth: bearer(access) });
      const created = await call(url, 'POST', `/iam/v2/clients/${me.body.id}/tokens`, { auth: bearer(access), body: { name: 'x' } });
      const token = created.body.token as string;
      const id = token.split('_')[0] ?? '';
      assertError(await call(url, 'GET', '/iam/clients/me', { auth: apiKey(`${id}_${'A'.repeat(43)}`) }), 401);
      assertError(await call(url, 'GET', '/iam/clients/me', { auth: bearer(token) }), 401, 'unauthorized');
      assertError(await call(url, 'GET', '/iam/clients/me', { auth: `Basic ${token}` }), 401);
      assertError(await call(url, 'GET', '/iam/clients/me', { auth: apiKey(access) }), 401);
      assertError(await call(url, 'GET', '/iam/clients/me', { auth: token }), 401);
      assertError(await call(url, 'GET', '/iam/clients/me'), 401);
    });

    test('an API token past its exp_date is refused; an exp_date in the past cannot be set', async () => {
      const { access } = await login(url, adminEmail, adminPassword);
      const me = await call(url, 'GET', '/iam/clients/me', { auth: bearer(access) });
      const base = `/iam/v2/clients/${me.body.id}/tokens`;
      assertError(await call(url, 'POST', base, { auth: bearer(access), body: { name: 'old', exp_date: '2020-01-01T00:00:00Z' } }), 400, 'invalid_input');
      assertError(await call(url, 'POST', base, { auth: bearer(access), body: { name: 'bad', exp_date: 'tomorrow' } }), 400, 'invalid_input');
      const soon = new Date(Date.now() + 1500).toISOString();
      const created = await call(url, 'POST', base, { auth: bearer(access), body: { name: 'short', exp_date: soon } });
      assert.equal(created.status, 201);
      assert.equal(created.body.exp_date, soon);
      assert.equal((await call(url, 'GET', '/iam/clients/me', { auth: apiKey(created.body.token) })).status, 200);
      await new Promise((resolve) => setTimeout(resolve, 1700));
      assertError(await call(url, 'GET', '/iam/clients/me', { auth: apiKey(created.body.token) }), 401);
      const listed = await call(url, 'GET', `${base}/${created.body.id}`, { auth: bearer(access) });
      assert.equal(listed.body.expired, true);
    });

    test('the sixth login within one second is 429 with Retry-After', async () => {
      // Start on a fresh one-second window; all six come from one address.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const results = await Promise.all(
        Array.from({ length: 6 }, () => call(url, 'POST', '/iam/auth/jwt/login', { body: { username: 'throttle@example.com', password: 'irrelevant1' } })),
      );
      const statuses = results.map((r) => r.status).sort();
      assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429]);
      const limited = results.find((r) => r.status === 429);
      assert.ok(limited);
      assertError(limited, 429, 'too_many_requests');
      assert.ok(Number(limited.headers.get('retry-after')) >= 1);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      assert.equal((await call(url, 'POST', '/iam/auth/jwt/login', { body: { username: adminEmail, password: adminPassword } })).status, 200);
    });
  });
}
