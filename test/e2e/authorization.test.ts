// Roles, account isolation and account creation, through the HTTP API and the CLI.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { assertError } from '../support/assertions.ts';
import { engines } from '../support/engines.ts';
import { apiKey, bearer, call, login, type RequestOptions } from '../support/http.ts';
import { makePathObjects } from '../support/path-objects.ts';
import { adminEmail, adminPassword, mainScript, startService, type Service } from '../support/service.ts';

const run = promisify(execFile);

for (const engine of engines()) {
  describe(`authorization (${engine})`, () => {
    let service: Service;
    let url: string;
    let admin: string;
    let accountA: number;
    before(async () => {
      service = await startService({ engine });
      url = service.url;
      admin = bearer((await login(url, adminEmail, adminPassword)).access);
      accountA = (await call(url, 'GET', '/iam/clients/me', { auth: admin })).body.id;
    });
    after(() => service.dispose());

    const addUser = (auth: string, email: string, role?: string) =>
      call(url, 'POST', '/iam/users', { auth, body: { email, password: 'user password 1', ...(role ? { role: { name: role } } : {}) } });

    test('administrators add users with a role; a taken e-mail is 409; bad roles are 400', async () => {
      const created = await addUser(admin, 'writer@a.example', 'Users');
      assert.equal(created.status, 201);
      assert.deepEqual(created.body.groups, [{ id: 2, name: 'Users' }]);
      assert.equal(created.body.client, accountA);
      assert.ok(!('password' in created.body) && !('password_hash' in created.body));
      const taken = await addUser(admin, 'WRITER@a.example', 'Users');
      assertError(taken, 409, 'conflict');
      assert.deepEqual(taken.body.fields, { email: 'a user with this e-mail address already exists' }, 'the field the conflict is about');
      assertError(await addUser(admin, 'x@a.example', 'Superuser'), 400, 'invalid_input');
      assertError(await call(url, 'POST', '/iam/users', { auth: admin, body: { email: 'short@a.example', password: 'short' } }), 400, 'invalid_input');
      const byId = await call(url, 'POST', '/iam/users', { auth: admin, body: { email: 'reader@a.example', password: 'user password 1', user_role: { id: 3 } } });
      assert.deepEqual(byId.body.groups, [{ id: 3, name: 'Read-only' }]);
      const users = await call(url, 'GET', '/iam/users', { auth: admin });
      assert.deepEqual(users.body.map((u: { email: string }) => u.email).sort(), [adminEmail, 'reader@a.example', 'writer@a.example']);
    });

    test('a Read-only user reads but cannot write', async () => {
      const reader = bearer((await login(url, 'reader@a.example', 'user password 1')).access);
      assert.equal((await call(url, 'GET', '/iam/users', { auth: reader })).status, 200);
      assertError(await call(url, 'POST', `/iam/v2/clients/${accountA}/tokens`, { auth: reader, body: { name: 'r' } }), 403, 'forbidden');
      assertError(await addUser(reader, 'nope@a.example'), 403);
    });

    test('a Read-only token cannot write, even when its issuer could', async () => {
      const created = await call(url, 'POST', `/iam/v2/clients/${accountA}/tokens`, {
        auth: admin,
        body: { name: 'ro', client_user: { role: { name: 'read-only' } } },
      });
      assert.equal(created.status, 201);
      const token = apiKey(created.body.token);
      assert.equal((await call(url, 'GET', `/iam/v2/clients/${accountA}/tokens`, { auth: token })).status, 200);
      assertError(await call(url, 'POST', `/iam/v2/clients/${accountA}/tokens`, { auth: token, body: { name: 'x' } }), 403);
      assertError(await call(url, 'DELETE', `/iam/v2/clients/${accountA}/tokens/${created.body.id}`, { auth: token }), 403);
      assertError(await addUser(token, 'nope2@a.example'), 403);
    });

    test('a token cannot carry a higher role than its issuer; users see only their own tokens', async () => {
      const writer = bearer((await login(url, 'writer@a.example', 'user password 1')).access);
      const base = `/iam/v2/clients/${accountA}/tokens`;
      assertError(await call(url, 'POST', base, { auth: writer, body: { name: 'up', client_user: { role: { id: 1 } } } }), 403, 'forbidden');
      const own = await call(url, 'POST', base, { auth: writer, body: { name: 'mine' } });
      assert.equal(own.status, 201);
      assert.equal(own.body.client_user.role.name, 'Users');
      const adminToken = await call(url, 'POST', base, { auth: admin, body: { name: 'admins' } });
      const listed = await call(url, 'GET', base, { auth: writer });
      assert.deepEqual(listed.body.map((t: { id: number }) => t.id), [own.body.id]);
      assertError(await call(url, 'GET', `${base}/${adminToken.body.id}`, { auth: writer }), 404);
      assertError(await call(url, 'DELETE', `${base}/${adminToken.body.id}`, { auth: writer }), 404);
      assertError(await addUser(writer, 'nope3@a.example'), 403);
      // The administrator sees every token of the account.
      const all = await call(url, 'GET', base, { auth: admin });
      assert.ok(all.body.some((t: { id: number }) => t.id === own.body.id));
    });

    test('operators create accounts; account B sees 404 for every object of account A', async () => {
      const adminToken = await call(url, 'POST', `/iam/v2/clients/${accountA}/tokens`, { auth: admin, body: { name: 'a-secret' } });
      const users = await call(url, 'GET', '/iam/users', { auth: admin });
      const writerId = users.body.find((u: { email: string }) => u.email === 'writer@a.example').id as number;

      const created = await call(url, 'POST', '/iam/accounts', { auth: admin, body: { email: 'owner@b.example', password: 'b password 1', name: 'B Corp' } });
      assert.equal(created.status, 201);
      assert.equal(created.body.name, 'B Corp');
      assert.equal(created.body.operator, false);
      assert.notEqual(created.body.id, accountA);
      const takenOwner = await call(url, 'POST', '/iam/accounts', { auth: admin, body: { email: 'owner@b.example', password: 'b password 1' } });
      assertError(takenOwner, 409);
      assert.deepEqual(takenOwner.body.fields, { email: 'a user with this e-mail address already exists' });

      const b = bearer((await login(url, 'owner@b.example', 'b password 1')).access);
      const accountB = created.body.id as number;
      assertError(await call(url, 'GET', `/iam/v2/clients/${accountA}/tokens`, { auth: b }), 404);
      assertError(await call(url, 'POST', `/iam/v2/clients/${accountA}/tokens`, { auth: b, body: { name: 'x' } }), 404);
      assertError(await call(url, 'GET', `/iam/v2/clients/${accountA}/tokens/${adminToken.body.id}`, { auth: b }), 404);
      assertError(await call(url, 'GET', `/iam/v2/clients/${accountB}/tokens/${adminToken.body.id}`, { auth: b }), 404);
      assertError(await call(url, 'DELETE', `/iam/v2/clients/${accountB}/tokens/${adminToken.body.id}`, { auth: b }), 404);
      assertError(await call(url, 'GET', `/iam/users/${writerId}`, { auth: b }), 404);
      assertError(await call(url, 'DELETE', `/iam/users/${writerId}`, { auth: b }), 404);
      const bUsers = await call(url, 'GET', '/iam/users', { auth: b });
      assert.deepEqual(bUsers.body.map((u: { email: string }) => u.email), ['owner@b.example']);
      // A's token still works: B's attempts changed nothing.
      assert.equal((await call(url, 'GET', '/iam/clients/me', { auth: apiKey(adminToken.body.token) })).status, 200);
      // B's administrator is not an operator.
      assertError(await call(url, 'POST', '/iam/accounts', { auth: b, body: { email: 'c@c.example', password: 'c password 1' } }), 403);
    });

    test('every operation of the OpenAPI document that names an object in its path: 404 for another account\'s, which stays as it was', async () => {
      // Account A's objects, one of each kind a path can name.
      const { values: ofA, reads } = await makePathObjects(url, admin, accountA, 'sweep-a.example');
      const stateNow = async () => (await Promise.all(reads.map((path) => call(url, 'GET', path, { auth: admin })))).map((response) => [response.status, response.body]);
      const stateOfA = await stateNow();

      await call(url, 'POST', '/iam/accounts', { auth: admin, body: { email: 'sweeper@c.example', password: 'c password 1', name: 'C' } });
      const c = bearer((await login(url, 'sweeper@c.example', 'c password 1')).access);
      // Bodies valid for the writes whose validation would refuse an empty one before the owner is looked up.
      const bodies: Record<string, RequestOptions> = {
        'POST /iam/v2/clients/{clientId}/tokens': { body: { name: 'taken' } },
        'PATCH /dns/v2/zones/{name}/dnssec': { body: { enabled: true } },
        'POST /dns/v2/zones/{zoneName}/{rrsetName}/{rrsetType}': { body: { ttl: 60, resource_records: [{ content: ['192.0.2.66'] }] } },
        'PUT /dns/v2/zones/{zoneName}/{rrsetName}/{rrsetType}': { body: { ttl: 60, resource_records: [{ content: ['192.0.2.66'] }] } },
        'POST /dns/v2/zones/{name}/import': { body: { content: 'taken 300 IN A 192.0.2.66\n' } },
      };
      // Paths that name a public DNS name, not an object: answered for any name, without what the account holds.
      const publicNames = new Set(['GET /dns/v2/analyze/{name}/delegation-status']);
      const document = (await call(url, 'GET', '/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
      const answers: string[] = [];
      let swept = 0;
      for (const [template, operations] of Object.entries(document.paths)) {
        if (!template.includes('{')) continue;
        for (const method of Object.keys(operations).map((m) => m.toUpperCase())) {
          const key = `${method} ${template}`;
          const path = template.replace(/\{([^}]+)\}/g, (_match, name: string) => encodeURIComponent(ofA[name] ?? assert.fail(`no object of A for {${name}}: add one`)));
          const options = bodies[key] ?? (method === 'GET' || method === 'DELETE' ? {} : { body: {} });
          const response = await call(url, method, path, { auth: c, ...options });
          swept++;
          if (publicNames.has(key)) assert.equal(response.body.zone_exists, false, `${key} tells C that A's zone exists`);
          else if (response.status !== 404) answers.push(`${response.status} ${key}: ${response.text.slice(0, 200)}`);
        }
      }
      assert.deepEqual(answers, []);
      assert.ok(swept >= 30, `only ${swept} operations swept`);
      assert.deepEqual(await stateNow(), stateOfA);
    });

    test('removing a user ends their sessions and tokens at once', async () => {
      await addUser(admin, 'leaver@a.example', 'Users');
      const leaver = await login(url, 'leaver@a.example', 'user password 1');
      const token = await call(url, 'POST', `/iam/v2/clients/${accountA}/tokens`, { auth: bearer(leaver.access), body: { name: 'l' } });
      const id = (await call(url, 'GET', '/iam/clients/me', { auth: bearer(leaver.access) })).body.currentUser as number;
      assertError(await call(url, 'DELETE', `/iam/users/${(await call(url, 'GET', '/iam/clients/me', { auth: admin })).body.currentUser}`, { auth: admin }), 409);
      assert.equal((await call(url, 'DELETE', `/iam/users/${id}`, { auth: admin })).status, 204);
      assertError(await call(url, 'GET', '/iam/clients/me', { auth: bearer(leaver.access) }), 401);
      assertError(await call(url, 'GET', '/iam/clients/me', { auth: apiKey(token.body.token) }), 401);
      assertError(await call(url, 'POST', '/iam/auth/jwt/refresh', { body: { refresh: leaver.refresh } }), 401);
    });

    test('the CLI creates an account while the server runs', async () => {
      const { stdout } = await run(process.execPath, [mainScript, 'account', 'create', '--email', 'cli@d.example', '--password', 'cli password 1', '--name', 'D'], { env: service.env });
      const account = JSON.parse(stdout) as { id: number; users: { email: string }[] };
      assert.equal(account.users[0]?.email, 'cli@d.example');
      const d = bearer((await login(url, 'cli@d.example', 'cli password 1')).access);
      assert.equal((await call(url, 'GET', '/iam/clients/me', { auth: d })).body.id, account.id);
      await assert.rejects(
        run(process.execPath, [mainScript, 'account', 'create', '--email', 'cli@d.example', '--password', 'cli password 1'], { env: service.env }),
        (e: { code: number; stderr: string }) => e.code === 1 && /already exists/.test(e.stderr),
      );
    });
  });
}
