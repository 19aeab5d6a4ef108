// Secrets stay secret: not in responses after creation, not in logs, not in plain text in the store.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { engines } from '../support/engines.ts';
import { apiKey, bearer, call, login } from '../support/http.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';
import { waitFor } from '../support/wait.ts';

for (const engine of engines()) {
  describe(`secrets (${engine})`, () => {
    let service: Service;
    let url: string;
    const seen: string[] = [];
    const secrets: string[] = [adminPassword, 'second user pw 1'];
    before(async () => {
      service = await startService({ engine });
      url = service.url;
    });
    after(() => service.dispose());

    test('no response after creation holds a password, a password hash or a token secret', async () => {
      const pair = await login(url, adminEmail, adminPassword);
      secrets.push(pair.access, pair.refresh);
      const auth = bearer(pair.access);
      const me = await call(url, 'GET', '/iam/clients/me', { auth });
      const base = `/iam/v2/clients/${me.body.id}/tokens`;
      const created = await call(url, 'POST', base, { auth, body: { name: 'leak-check' } });
      const token = created.body.token as string;
      // The secret is everything after the first '_' (base64url may itself contain '_').
      const secret = token.slice(token.indexOf('_') + 1);
      secrets.push(secret);
      const user = await call(url, 'POST', '/iam/users', { auth, body: { email: 'second@example.com', password: 'second user pw 1' } });
      const account = await call(url, 'POST', '/iam/accounts', { auth, body: { email: 'other@example.com', password: 'other acct pw 1' } });
      secrets.push('other acct pw 1');
      seen.push(
        me.text,
        user.text,
        account.text,
        (await call(url, 'GET', base, { auth: apiKey(created.body.token) })).text,
        (await call(url, 'GET', `${base}/${created.body.id}`, { auth })).text,
        (await call(url, 'GET', '/iam/users', { auth })).text,
        (await call(url, 'GET', `/iam/users/${user.body.id}`, { auth })).text,
        (await call(url, 'GET', '/iam/clients/me', { auth })).text,
      );
      for (const text of seen) {
        assert.ok(!text.includes('argon2'), `a password hash leaked: ${text}`);
        assert.ok(!/password/i.test(text), `a password field leaked: ${text}`);
        for (const s of secrets) assert.ok(!text.includes(s), `a secret leaked: ${text}`);
      }
    });

    test('logs are JSON with request ids, redact Authorization and hold no secret', async () => {
      await call(url, 'GET', '/iam/clients/me', { auth: bearer(secrets[2] ?? '') });
      const lines = service.output().split('\n').filter((l) => l.startsWith('{'));
      assert.ok(lines.length > 10);
      const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      const requests = entries.filter((e) => e['msg'] === 'incoming request');
      assert.ok(requests.length > 0 && requests.every((e) => typeof e['reqId'] === 'string'));
      const authorised = requests.filter((e) => (e['req'] as { headers: Record<string, string> }).headers['authorization'] !== undefined);
      assert.ok(authorised.length > 0);
      for (const e of authorised) assert.equal((e['req'] as { headers: Record<string, string> }).headers['authorization'], '[redacted]');
      const output = service.output();
      for (const s of secrets) assert.ok(!output.includes(s), `a secret reached the log: ${s.slice(0, 6)}…`);
    });

    test('credential headers of every kind are redacted in the logs', async () => {
      const headers: Record<string, string> = {
        'proxy-authorization': 'Basic cHJveHk6c2VjcmV0LXByb3h5LXZhbHVl',
        'x-auth-token': 'secret-x-auth-token-value',
        cookie: 'session=secret-cookie-value',
        'x-api-key': 'secret-x-api-key-value',
        'x-amz-security-token': 'secret-amz-token-value',
      };
      await call(url, 'GET', '/healthz', { headers: { ...headers, 'user-agent': 'visible-agent' } });
      // The log line may reach us a moment after the response.
      await waitFor(() => service.output().includes('visible-agent'));
      const entries = service.output().split('\n').filter((l) => l.includes('visible-agent')).map((l) => JSON.parse(l) as { req?: { headers: Record<string, string> } });
      const logged = entries.find((e) => e.req !== undefined)?.req?.headers;
      assert.ok(logged !== undefined, 'the request was logged with its headers');
      assert.equal(logged['user-agent'], 'visible-agent');
      for (const name of Object.keys(headers)) assert.equal(logged[name], '[redacted]', name);
      const output = service.output();
      for (const value of Object.values(headers)) assert.ok(!output.includes(value.split('=').pop() ?? value), `${value} reached the log`);
    });

    test('the store keeps only hashes of passwords and token secrets', async () => {
      if (engine === 'sqlite') {
        const files = fs.readdirSync(service.dataDir).filter((f) => f.startsWith('edgeplane.sqlite'));
        assert.ok(files.length > 0);
        const bytes = Buffer.concat(files.map((f) => fs.readFileSync(path.join(service.dataDir, f))));
        assert.ok(bytes.includes('$argon2id$'), 'the password hashes are in the store');
        for (const s of secrets) assert.ok(!bytes.includes(s), 'a secret is stored in plain text');
      } else {
        const client = new pg.Client({ connectionString: service.env['EDGEPLANE_DATABASE_URL'] });
        await client.connect();
        try {
          const dump = JSON.stringify([
            (await client.query('select * from users')).rows,
            (await client.query('select * from api_tokens')).rows,
            (await client.query('select * from refresh_tokens')).rows,
          ]);
          assert.match(dump, /\$argon2id\$/);
          for (const s of secrets) assert.ok(!dump.includes(s), 'a secret is stored in plain text');
        } finally {
          await client.end();
        }
      }
    });

    test('a DNS server with another secret key cannot open a zone\'s DNSSEC key and says which setting is wrong', async () => {
      const auth = bearer((await login(url, adminEmail, adminPassword)).access);
      assert.equal((await call(url, 'POST', '/dns/v2/zones', { auth, body: { name: 'sealed.example' } })).status, 200);
      assert.equal((await call(url, 'PATCH', '/dns/v2/zones/sealed.example/dnssec', { auth, body: { enabled: true } })).status, 200);
      await service.stop();
      const keyFile = path.join(service.dataDir, 'secret.key');
      const original = fs.readFileSync(keyFile);
      fs.writeFileSync(keyFile, Buffer.alloc(32, 7).toString('base64'));
      await assert.rejects(service.restart(), /cannot open the DNSSEC key of sealed\.example: .*EDGEPLANE_SECRET_KEY/);
      fs.writeFileSync(keyFile, original);
      service = await service.restart();
      url = service.url;
      assert.equal((await call(url, 'GET', '/dns/v2/zones/sealed.example/dnssec', { auth: bearer((await login(url, adminEmail, adminPassword)).access) })).status, 200);
    });
  });
}
