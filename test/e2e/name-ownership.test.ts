// A DNS name has one owner (decisions.md, "Tenancy"), through the HTTP API and the DNS server on
// every engine: an attacker with a `Users` token cannot create zones inside or above a victim's zone,
// nor zones at public suffixes, single labels or special-use names, nor protect hosts inside the
// victim's zones, whatever the spelling; every attempt fails with a clear error and the victim's
// zones answer over DNS exactly as before. Zones of one account still nest. A squatter's resource
// does not block the zone's owner and is not deleted. Data older than the rules is served as before
// and reported at start.
import assert from 'node:assert/strict';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { assertError } from '../support/assertions.ts';
import { ask } from '../support/dns-client.ts';
import { engines } from '../support/engines.ts';
import { apiKey, bearer, call, login, type Response } from '../support/http.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';
import { waitFor } from '../support/wait.ts';

const text = (value: unknown): unknown => (Buffer.isBuffer(value) ? value.toString() : value);

for (const engine of engines()) {
  describe(`name ownership (${engine})`, () => {
    let service: Service;
    let url: string;
    /** The operators' administrator (account 1). */
    let operator: string;
    /** The victim's administrator. */
    let victim: string;
    /** The attacker: an API token of role Users in another account. */
    let attacker: string;
    let victimId: number;
    let attackerId: number;

    const api = (auth: string, method: string, apiPath: string, body?: unknown) => call(url, method, apiPath, { auth, ...(body === undefined ? {} : { body }) });
    const ok = async (auth: string, method: string, apiPath: string, body?: unknown) => {
      const response = await api(auth, method, apiPath, body);
      assert.ok(response.status === 200 || response.status === 201, `${method} ${apiPath}: ${response.status} ${response.text}`);
      return response.body;
    };
    const createZone = (auth: string, name: string) => api(auth, 'POST', '/dns/v2/zones', { name });
    const zoneNames = async (auth: string) => ((await ok(auth, 'GET', '/dns/v2/zones')).zones as { name: string }[]).map((z) => z.name).sort();
    const resources = async (auth: string) => (await ok(auth, 'GET', '/security/resources')) as { id: number; name: string }[];
    /** What the DNS server says for a name: everything a resolver would act on. */
    const answer = async (name: string, type: string) => {
      const { packet } = await ask(service.dnsPort, name, type);
      const records = (list: typeof packet.answers) => (list ?? []).map((a) => `${a.name} ${a.type} ${'data' in a && a.type !== 'SOA' ? JSON.stringify(text(a.data)) : ''}`).sort();
      return { rcode: packet.rcode, aa: packet.flag_aa, answers: records(packet.answers), authority: records(packet.authorities) };
    };
    const assertOwned = (response: Response<any>, fields?: string[]) => {
      assertError(response, 409, 'owned_by_another_account');
      if (fields !== undefined) assert.deepEqual(Object.keys(response.body.fields ?? {}).sort(), [...fields].sort(), response.text);
    };

    before(async () => {
      service = await startService({ engine, env: { EDGEPLANE_ZONE_ALLOW_RESERVED: 'github.io' } });
      url = service.url;
      operator = bearer((await login(url, adminEmail, adminPassword)).access);
      const account = async (email: string) => {
        const created = await api(operator, 'POST', '/iam/accounts', { email, password: 'account password 1' });
        assert.equal(created.status, 201, created.text);
        return { id: created.body.id as number, auth: bearer((await login(url, email, 'account password 1')).access) };
      };
      const b = await account('owner@victim.test');
      victim = b.auth;
      victimId = b.id;
      const c = await account('owner@attacker.test');
      attackerId = c.id;
      const token = await api(c.auth, 'POST', `/iam/v2/clients/${c.id}/tokens`, { name: 'scripts', client_user: { role: { name: 'Users' } } });
      assert.equal(token.status, 201, token.text);
      attacker = apiKey(token.body.token);

      await ok(victim, 'POST', '/dns/v2/zones', { name: 'b.example' });
      await ok(victim, 'PUT', '/dns/v2/zones/b.example/www/A', { resource_records: [{ content: ['192.0.2.80'] }] });
      await ok(victim, 'POST', '/dns/v2/zones', { name: 'sub.b2.example' });
      await ok(victim, 'PUT', '/dns/v2/zones/sub.b2.example/sub.b2.example/A', { resource_records: [{ content: ['192.0.2.82'] }] });
      await ok(victim, 'POST', '/dns/v2/zones', { name: 'Bücher.Example.' });
    });
    after(() => service.dispose());

    test('public suffixes, single labels and special-use names are not zones (400 reserved_name), in any spelling; nothing is created', async () => {
      const names = [
        'com', 'COM.', 'example', 'co.uk', 'Co.UK.', '公司.cn', 'xn--55qx5d.cn', 'blogspot.com', 's3.amazonaws.com', 'in-addr.arpa',
        'localhost', 'www.localhost', 'x.invalid', 'printer.local', 'abc.onion', 'home.arpa', 'corp.internal',
        '10.in-addr.arpa', '5.10.in-addr.arpa', '168.192.in-addr.arpa', '16.172.in-addr.arpa', '127.in-addr.arpa', 'd.f.ip6.arpa', '8.e.f.ip6.arpa',
      ];
      for (const name of names) {
        for (const auth of [attacker, operator]) {
          const response = await createZone(auth, name);
          assertError(response, 400, 'reserved_name');
          assert.equal(typeof response.body.fields?.name, 'string', response.text);
        }
      }
      assert.deepEqual(await zoneNames(attacker), []);
      assert.deepEqual(await zoneNames(operator), []);
      // The operator's named exception: a registry-style zone that owns only its apex.
      await ok(operator, 'POST', '/dns/v2/zones', { name: 'GitHub.IO.' });
      await ok(victim, 'POST', '/dns/v2/zones', { name: 'b.github.io' });
      assertOwned(await createZone(attacker, 'www.b.github.io'));
      assertError(await createZone(attacker, 'github.io'), 409, 'conflict');
      assert.deepEqual(await zoneNames(operator), ['github.io']);
    });

    test('zones inside or above another account\'s zone are refused (409), whatever the spelling; the victim\'s zones answer as before', async () => {
      const questions = [['www.b.example', 'A'], ['deep.www.b.example', 'A'], ['b.example', 'SOA'], ['sub.b2.example', 'A'], ['b2.example', 'A'], ['www.xn--bcher-kva.example', 'A']] as const;
      const before = await Promise.all(questions.map(([name, type]) => answer(name, type)));
      assert.deepEqual(before[0], { rcode: 'NOERROR', aa: true, answers: ['www.b.example A "192.0.2.80"'], authority: [] });
      assert.deepEqual(before[1], { rcode: 'NXDOMAIN', aa: true, answers: [], authority: ['b.example SOA '] });
      const zoneBefore = await ok(victim, 'GET', '/dns/v2/zones/b.example');

      for (const name of ['www.b.example', 'WWW.B.Example.', 'deep.www.b.example', '_acme-challenge.b.example', 'x.sub.b2.example', 'www.bücher.example', 'WWW.XN--BCHER-KVA.EXAMPLE.']) {
        const response = await createZone(attacker, name);
        assertOwned(response);
        assert.match(response.body.error, /is inside .*, a zone of another account/);
      }
      const above = await createZone(attacker, 'B2.example.');
      assertOwned(above);
      assert.match(above.body.error, /b2\.example is above sub\.b2\.example/);
      assertError(await createZone(attacker, 'b.example'), 409, 'conflict');
      // The token may create zones: only the names were refused.
      await ok(attacker, 'POST', '/dns/v2/zones', { name: 'c-zone.example' });
      assert.deepEqual(await zoneNames(attacker), ['c-zone.example']);

      assert.deepEqual(await Promise.all(questions.map(([name, type]) => answer(name, type))), before);
      assert.deepEqual(await ok(victim, 'GET', '/dns/v2/zones/b.example'), zoneBefore);
    });

    test('zones of one account nest both ways, and the child zone answers for its names', async () => {
      await ok(victim, 'POST', '/dns/v2/zones', { name: 'child.b.example' });
      await ok(victim, 'PUT', '/dns/v2/zones/child.b.example/x/A', { resource_records: [{ content: ['192.0.2.81'] }] });
      await ok(victim, 'POST', '/dns/v2/zones', { name: 'b2.example' });
      assert.deepEqual(await answer('x.child.b.example', 'A'), { rcode: 'NOERROR', aa: true, answers: ['x.child.b.example A "192.0.2.81"'], authority: [] });
      assert.deepEqual((await answer('www.b.example', 'A')).answers, ['www.b.example A "192.0.2.80"']);
      assert.deepEqual((await answer('sub.b2.example', 'A')).answers, ['sub.b2.example A "192.0.2.82"']);
      assertOwned(await createZone(attacker, 'y.child.b.example'));
      assertOwned(await createZone(attacker, 'other.b2.example'));
    });

    test('two accounts creating a zone and zones inside it at once: never both', async () => {
      for (let round = 0; round < 6; round++) {
        const parent = `race${round}.example`;
        const [owner, ...squatters] = await Promise.all([
          createZone(victim, parent),
          ...['a', 'b', 'c', 'd', 'e'].map((label) => createZone(attacker, `${label}.${parent}`)),
        ]);
        const won = squatters.filter((r) => r.status === 200);
        if (owner.status === 200) {
          assert.equal(won.length, 0, `round ${round}: ${won.map((r) => r.text).join(' ')}`);
          for (const r of squatters) assertOwned(r);
        } else {
          assertOwned(owner);
          assert.equal(won.length, squatters.length, `round ${round}`);
        }
      }
    });

    test('hosts inside another account\'s zone cannot be protected (409 naming each field); its own account protects them', async () => {
      const origins = [{ origin_data: '192.0.2.9' }];
      assertOwned(await api(attacker, 'POST', '/security/resources', { name: 'b.example', origins }), ['name']);
      assertOwned(await api(attacker, 'POST', '/security/resources', { name: 'WWW.B.EXAMPLE.', origins }), ['name']);
      assertOwned(await api(attacker, 'POST', '/security/resources', { name: 'www.bücher.example', origins }), ['name']);
      assertOwned(
        await api(attacker, 'POST', '/security/resources', { name: 'c-own.example', aliases: [{ alias_data: 'ok.c-own.example' }, { alias_data: 'Shop.B.Example.' }, { alias_data: 'x.child.b.example' }], origins }),
        ['aliases[1].alias_data', 'aliases[2].alias_data'],
      );
      // Wildcards are no host names here; were they allowed, *.b.example would be inside b.example all the same.
      const wildcard = await api(attacker, 'POST', '/security/resources', { name: 'c-own.example', aliases: [{ alias_data: '*.b.example' }], origins });
      assert.ok(wildcard.status === 400 || wildcard.status === 409, wildcard.text);
      assert.deepEqual(await resources(attacker), []);

      // Outside every hosted zone: the first to claim a host has it.
      const own = await ok(attacker, 'POST', '/security/resources', { name: 'c-own.example', origins });
      assert.ok(!('released_hosts' in own));
      const mine = await ok(victim, 'POST', '/security/resources', { name: 'b.example', aliases: [{ alias_data: 'www.b.example' }, { alias_data: 'x.child.b.example' }], origins });
      assert.equal(mine.active, true);
      assert.ok(!('released_hosts' in mine));
      assertError(await api(victim, 'POST', '/security/resources', { name: 'c-own.example', origins }), 409, 'conflict');

      assertOwned(await api(attacker, 'PUT', `/security/resources/${own.id}`, { name: 'shop.b.example', origins }), ['name']);
      assert.deepEqual(await ok(attacker, 'GET', `/security/resources/${own.id}`), own);
    });

    test('a resource made before its zone does not block the zone\'s owner, is not deleted, and reports what it lost', async () => {
      const origins = [{ origin_data: '192.0.2.9' }];
      const early = await ok(attacker, 'POST', '/security/resources', { name: 'shop.sq.example', aliases: [{ alias_data: 'mirror.c-free.example' }], origins });
      const only = await ok(attacker, 'POST', '/security/resources', { name: 'only.sq2.example', origins });
      await ok(victim, 'POST', '/dns/v2/zones', { name: 'sq.example' });
      await ok(victim, 'POST', '/dns/v2/zones', { name: 'sq2.example' });

      const { released_hosts: released, ...rest } = await ok(attacker, 'GET', `/security/resources/${early.id}`);
      assert.deepEqual(released, ['shop.sq.example']);
      assert.deepEqual(rest, early, 'the rest of the resource is unchanged');
      const lost = await ok(attacker, 'GET', `/security/resources/${only.id}`);
      assert.deepEqual([lost.released_hosts, lost.active], [['only.sq2.example'], false], 'a resource holding none of its names is not active');
      const listed = (await resources(attacker)).find((r) => r.id === early.id) as Record<string, unknown> | undefined;
      assert.deepEqual(listed?.['released_hosts'], ['shop.sq.example']);

      // The zone's account protects its name: the earlier claim gives way.
      const theirs = await ok(victim, 'POST', '/security/resources', { name: 'Shop.SQ.example', origins });
      assert.equal(theirs.name, 'shop.sq.example');
      assert.deepEqual((await ok(attacker, 'GET', `/security/resources/${early.id}`)).released_hosts, ['shop.sq.example']);
      // Writing it back with the lost name is refused; with a name of its own it is whole again.
      assertOwned(await api(attacker, 'PUT', `/security/resources/${early.id}`, { name: 'shop.sq.example', aliases: [{ alias_data: 'mirror.c-free.example' }], origins }), ['name']);
      const renamed = await ok(attacker, 'PUT', `/security/resources/${early.id}`, { name: 'shop.c-free.example', aliases: [{ alias_data: 'mirror.c-free.example' }], origins });
      assert.ok(!('released_hosts' in renamed));
      assert.equal(renamed.active, true);
      assert.deepEqual((await ok(victim, 'GET', `/security/resources/${theirs.id}`)).name, 'shop.sq.example');
    });

    test('data older than the rules is served as before and reported at every start', async () => {
      // Made legal, then changed behind the API's back as an older release could have left it.
      await ok(attacker, 'POST', '/dns/v2/zones', { name: 'legacy.example' });
      await ok(attacker, 'POST', '/dns/v2/zones', { name: 'www.legacy.example' });
      await ok(attacker, 'PUT', '/dns/v2/zones/www.legacy.example/www.legacy.example/A', { resource_records: [{ content: ['192.0.2.66'] }] });
      await storeExecute(service, 'update zones set account_id = $1 where name = $2', [victimId, 'legacy.example']);
      const served = await answer('www.legacy.example', 'A');
      assert.deepEqual(served.answers, ['www.legacy.example A "192.0.2.66"']);

      // Another API process on the same store, without the operator's exception for github.io.
      const node = await service.sibling({ EDGEPLANE_ROLES: 'api', EDGEPLANE_ZONE_ALLOW_RESERVED: '' });
      try {
        await waitFor(() => node.output().includes('break the rule that a name has one owner'));
        const line = node.output().split('\n').find((l) => l.includes('break the rule'))!;
        const report = JSON.parse(line) as { level: number; count: number; conflicts: string[] };
        assert.equal(report.level, 40, 'a warning');
        const only = (await resources(attacker)).find((r) => r.name === 'only.sq2.example')!;
        assert.deepEqual(report.conflicts.map((c) => c.replace(/:.*/, '')).sort(), [
          `host only.sq2.example of resource ${only.id} (account ${attackerId}) is inside sq2.example (account ${victimId}); it goes to that account when it protects the name`,
          'zone github.io (account 1)',
          `zone www.legacy.example (account ${attackerId}) is inside legacy.example (account ${victimId})`,
        ].sort());
        assert.equal(report.count, 3);
      } finally {
        await node.stop();
      }
      // Nothing was removed: the zones and the resource are there, and answers are unchanged.
      assert.deepEqual((await zoneNames(attacker)).filter((n) => !n.includes('.race')), ['c-zone.example', 'www.legacy.example']);
      assert.ok((await zoneNames(victim)).includes('legacy.example'));
      assert.deepEqual(await answer('www.legacy.example', 'A'), served);
      assert.deepEqual((await answer('b.example', 'SOA')).rcode, 'NOERROR');
    });
  });
}

/** Runs one statement on the service's store directly (`$1`-style parameters on both engines). */
async function storeExecute(service: Service, statement: string, params: (string | number)[]): Promise<void> {
  const databaseUrl = service.env['EDGEPLANE_DATABASE_URL'];
  if (databaseUrl === undefined) {
    const db = new DatabaseSync(path.join(service.dataDir, 'edgeplane.sqlite'), { timeout: 5000 });
    try {
      db.prepare(statement.replace(/\$\d+/g, '?')).run(...params);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(statement, params);
  } finally {
    await client.end();
  }
}
