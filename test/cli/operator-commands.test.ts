// The operator CLI (src/cli/): each command run against the store of a running service, in the name
// of a user, and its result checked where users see it: through the API and with DNS queries.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../../src/cli/cli.ts';
import { addressesIn, ask } from '../support/dns-client.ts';
import { engines } from '../support/engines.ts';
import { apiKey, bearer, call, login } from '../support/http.ts';
import { adminEmail, adminPassword, mainScript, startService, type Service } from '../support/service.ts';
import { eventually } from '../support/wait.ts';

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

for (const engine of engines()) {
  describe(`operator CLI (${engine})`, () => {
    let service: Service;
    let auth: string;
    before(async () => {
      service = await startService({ engine });
      auth = bearer((await login(service.url, adminEmail, adminPassword)).access);
    });
    after(() => service.dispose());

    /** One command, in-process, on the service's configuration; `input` is its stdin. */
    async function cli(args: string[], input = ''): Promise<Ran> {
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      stdout.on('data', (c: Buffer) => out.push(c));
      stderr.on('data', (c: Buffer) => err.push(c));
      const code = await runCli(args, service.env, { stdin: Readable.from([Buffer.from(input)]), stdout, stderr });
      return { code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
    }

    test('token create prints a token the API accepts; list shows it; revoke ends it, and a second revoke is not found', async () => {
      const created = await cli(['token', 'create', '--name', 'deploy', '--role', 'Users']);
      assert.equal(created.code, 0, created.stderr);
      const token = JSON.parse(created.stdout) as { token: string; id: number; client_user: { role: { name: string } } };
      assert.equal(token.client_user.role.name, 'Users');
      assert.equal((await call(service.url, 'GET', '/iam/clients/me', { auth: apiKey(token.token) })).status, 200);

      const listed = await cli(['token', 'list']);
      assert.ok((JSON.parse(listed.stdout) as { id: number; name: string }[]).some((t) => t.id === token.id && t.name === 'deploy'));
      // The secret is everything after the id and its underscore (it may hold underscores itself).
      const secret = token.token.slice(token.token.indexOf('_') + 1);
      assert.ok(secret.length >= 32 && !listed.stdout.includes(secret), 'the secret is shown once, at creation');

      assert.deepEqual(await cli(['token', 'revoke', String(token.id)]), { code: 0, stdout: `revoked token ${String(token.id)}\n`, stderr: '' });
      // The server read the token for the call above; it reads it again within a second (token-cache.ts).
      const revoked = Date.now();
      await eventually(async () => ((await call(service.url, 'GET', '/iam/clients/me', { auth: apiKey(token.token) })).status === 401 ? true : undefined), 3000);
      assert.ok(Date.now() - revoked < 1500, `refused ${String(Date.now() - revoked)} ms after the revoke`);
      const again = await cli(['token', 'revoke', String(token.id)]);
      assert.deepEqual([again.code, again.stderr], [3, 'edgeplane: token is not found\n']);
    });

    test('zone import creates the zone and its RRsets, which the DNS server answers; zone export gives them back', async () => {
      const file = path.join(service.dataDir, 'cli-zone.txt');
      fs.writeFileSync(file, 'www 300 IN A 192.0.2.10\nmail 300 IN MX 10 mx.cli.example.\nbad 300 IN A not-an-address\n');
      const imported = await cli(['zone', 'import', 'cli.example', '--file', file]);
      assert.equal(imported.code, 0, imported.stderr);
      const result = JSON.parse(imported.stdout) as { zone_created: boolean; created: { name: string; type: string }[]; skipped: { line: number }[] };
      assert.equal(result.zone_created, true);
      assert.deepEqual(result.created.map((c) => `${c.name} ${c.type}`).sort(), ['mail.cli.example MX', 'www.cli.example A']);
      assert.deepEqual(result.skipped.map((s) => s.line), [3]);
      // The running server learns of it from the store (NOTIFY, or its periodic version check).
      const answer = await eventually(async () => {
        const reply = await ask(service.dnsPort, 'www.cli.example', 'A');
        return addressesIn(reply.packet).length > 0 ? reply.packet : undefined;
      });
      assert.deepEqual(addressesIn(answer), ['192.0.2.10']);
      assert.equal((await call(service.url, 'GET', '/dns/v2/zones/cli.example/www.cli.example/A', { auth })).status, 200);

      // From stdin, into the existing zone.
      const more = await cli(['zone', 'import', 'cli.example'], 'api 300 IN AAAA 2001:db8::1\n');
      assert.equal(more.code, 0, more.stderr);
      assert.equal((JSON.parse(more.stdout) as { zone_created: boolean }).zone_created, false);

      const exported = await cli(['zone', 'export', 'cli.example']);
      assert.equal(exported.code, 0, exported.stderr);
      assert.match(exported.stdout, /^www\t300\tIN\tA\t192\.0\.2\.10$/m);
      assert.match(exported.stdout, /^api\t300\tIN\tAAAA\t2001:db8::1$/m);
      const api = await call<{ raw_zone: string }>(service.url, 'GET', '/dns/v2/zones/cli.example/export', { auth });
      assert.equal(exported.stdout, api.body.raw_zone);

      const missing = await cli(['zone', 'export', 'nothing-here.example']);
      assert.deepEqual([missing.code, missing.stdout], [3, '']);
    });

    test('dnssec ds prints the DS the API shows, ready to paste; with DNSSEC off it is refused', async () => {
      assert.equal((await call(service.url, 'POST', '/dns/v2/zones', { auth, body: { name: 'signed-cli.example' } })).status, 200);
      const off = await cli(['dnssec', 'ds', 'signed-cli.example']);
      assert.deepEqual([off.code, off.stderr], [1, 'edgeplane: dnssec is disabled\n']);
      const on = await call<{ ds: string }>(service.url, 'PATCH', '/dns/v2/zones/signed-cli.example/dnssec', { auth, body: { enabled: true } });
      assert.equal(on.status, 200);
      const ds = await cli(['dnssec', 'ds', 'signed-cli.example']);
      assert.deepEqual(ds, { code: 0, stdout: `${on.body.ds}\n`, stderr: '' });
      assert.match(ds.stdout, /^signed-cli\.example\. \d+ IN DS \d+ 13 2 [0-9A-F]{64}\n$/i);
    });

    test('user add creates a user who logs in with the printed password; as that read-only user, writes are refused', async () => {
      const added = await cli(['user', 'add', '--email', 'Viewer@CLI.example', '--role', 'Read-only']);
      assert.equal(added.code, 0, added.stderr);
      const user = JSON.parse(added.stdout) as { email: string; password: string; groups: { name: string }[] };
      assert.deepEqual([user.email, user.groups[0]?.name], ['viewer@cli.example', 'Read-only']);
      await login(service.url, 'viewer@cli.example', user.password);

      const asViewer = ['--as', 'viewer@cli.example'];
      const addUser = await cli(['user', 'add', '--email', 'other@cli.example', ...asViewer]);
      assert.deepEqual([addUser.code, addUser.stderr], [1, 'edgeplane: this token or user is read-only\n']);
      const token = await cli(['token', 'create', '--name', 'x', ...asViewer]);
      assert.deepEqual([token.code, token.stderr], [1, 'edgeplane: this token or user is read-only\n']);
      const zone = await cli(['zone', 'import', 'viewer.example', ...asViewer], 'www 300 IN A 192.0.2.1\n');
      assert.deepEqual([zone.code, zone.stderr], [1, 'edgeplane: this token or user is read-only\n']);
      // Reading is theirs, as in the API.
      assert.equal((await cli(['token', 'list', ...asViewer])).code, 0);
      assert.equal((await cli(['zone', 'export', 'cli.example', ...asViewer])).code, 0);
      assert.equal((await call(service.url, 'GET', '/dns/v2/zones/viewer.example', { auth })).status, 404, 'nothing was created');
      // A user (not an administrator) may not add users, nor issue a token above their role.
      const member = JSON.parse((await cli(['user', 'add', '--email', 'member@cli.example'])).stdout) as { groups: { name: string }[] };
      assert.equal(member.groups[0]?.name, 'Users');
      const asMember = ['--as', 'member@cli.example'];
      const byMember = await cli(['user', 'add', '--email', 'other@cli.example', ...asMember]);
      assert.deepEqual([byMember.code, byMember.stderr], [1, 'edgeplane: this operation needs the Administrators role\n']);
      const stronger = await cli(['token', 'create', '--name', 'x', '--role', 'Administrators', ...asMember]);
      assert.equal(stronger.code, 1);
      assert.match(stronger.stderr, /higher role than its issuer/);
      const taken = await cli(['user', 'add', '--email', 'viewer@cli.example']);
      assert.deepEqual([taken.code, taken.stderr], [1, 'edgeplane: a user with this e-mail address already exists\n']);
    });

    test('usage and configuration errors exit with 2 and say what is wrong', async () => {
      const cases: [string[], RegExp][] = [
        [['token', 'create'], /takes --name/],
        [['token', 'create', '--name', 'x', '--role', 'Owner'], /--role: expected/],
        [['token', 'revoke', 'abc'], /positive integer/],
        [['zone', 'export'], /expected one zone name/],
        [['zone', 'export', 'a.example', 'b.example'], /expected one zone name/],
        [['user', 'add', '--email', 'x@cli.example', '--password', 'short'], /at least 8/],
        [['token', 'list', '--as', 'nobody@cli.example'], /--as: no user nobody@cli\.example/],
        [['zone', 'frobnicate'], /unknown command "zone frobnicate"/],
        [['token', 'list', '--bogus'], /Unknown option '--bogus'/],
      ];
      for (const [args, message] of cases) {
        const ran = await cli(args);
        assert.equal(ran.code, 2, args.join(' '));
        assert.match(ran.stderr, message, args.join(' '));
      }
    });
  });
}

test('npx edgeplane: the entry point exits with the command\'s code', async () => {
  const run = promisify(execFile);
  const service = await startService({ engine: 'sqlite' });
  try {
    await assert.rejects(run(process.execPath, [mainScript, 'zone', 'export', 'absent.example'], { env: service.env }), (e: { code: number; stderr: string }) => {
      assert.deepEqual([e.code, e.stderr], [3, 'edgeplane: zone is not found\n']);
      return true;
    });
    const listed = await run(process.execPath, [mainScript, 'token', 'list'], { env: service.env });
    assert.deepEqual(JSON.parse(listed.stdout), []);
  } finally {
    await service.dispose();
  }
});
