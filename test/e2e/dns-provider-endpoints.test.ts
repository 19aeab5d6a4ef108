// The provider's other /dns/v2 endpoints through HTTP, on both stores: the picker types and presets
// (each accepted by an RRset write, as listed), the locations (each code accepted by record meta),
// the per-zone Prometheus metrics (real DNS queries counted, only the caller's zones), and the
// zone import's provider-shaped answer and platform info under EDGEPLANE_COMPAT=gcore.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { pickerTypes } from '../../src/dns/pickers/validate.ts';
import { assertError } from '../support/assertions.ts';
import { addressesIn, ask } from '../support/dns-client.ts';
import { engines } from '../support/engines.ts';
import { bearer, call, login } from '../support/http.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';
import { eventually } from '../support/wait.ts';

type Api = (method: string, path: string, body?: unknown) => ReturnType<typeof call>;
interface LabelName {
  label: string;
  name: string;
}
type Locations = Record<string, { names: Record<string, string> }>;

/** `dns_zone_queries_total` by zone name, with the client_id each series carries. */
function zoneQueries(text: string): Map<string, { client: string; count: number }> {
  const series = new Map<string, { client: string; count: number }>();
  for (const line of text.split('\n')) {
    const m = /^dns_zone_queries_total\{client_id="(\d+)",zone_name="([^"]+)"\} (\d+)$/.exec(line);
    if (m) series.set(m[2] as string, { client: m[1] as string, count: Number(m[3]) });
    else assert.ok(line === '' || line.startsWith('#'), `unexpected line: ${line}`);
  }
  return series;
}

for (const engine of engines()) {
  describe(`provider DNS endpoints (${engine})`, () => {
    let node: Service;
    let api: Api;
    let otherApi: Api;
    let auth: string;
    let accountId: string;

    before(async () => {
      node = await startService({ engine, env: { EDGEPLANE_STATS_FLUSH: '1' } });
      auth = bearer((await login(node.url, adminEmail, adminPassword)).access);
      api = (method, path, body) => call(node.url, method, path, { auth, body });
      accountId = String(((await api('GET', '/iam/clients/me')).body as { id: number }).id);
      assert.equal((await api('POST', '/iam/accounts', { email: 'endpoints-other@example.com', password: 'other password 1' })).status, 201);
      const other = bearer((await login(node.url, 'endpoints-other@example.com', 'other password 1')).access);
      otherApi = (method, path, body) => call(node.url, method, path, { auth: other, body });
      for (const zone of ['pick.example', 'm1.example', 'm2.example']) assert.equal((await api('POST', '/dns/v2/zones', { name: zone })).status, 200);
      assert.equal((await otherApi('POST', '/dns/v2/zones', { name: 'theirs-m.example' })).status, 200);
    });
    after(() => node.dispose());

    test('every endpoint needs a token', async () => {
      for (const path of ['/dns/v2/pickers', '/dns/v2/pickers/presets', '/dns/v2/locations', '/dns/v2/locations/continents', '/dns/v2/locations/countries', '/dns/v2/locations/regions', '/dns/v2/monitor/metrics']) {
        assertError(await call(node.url, 'GET', path), 401);
        assertError(await call(node.url, 'GET', path, { auth: 'APIKey 1_nonsense' }), 401);
      }
    });

    test('pickers: every type the RRsets accept, each accepted as listed; presets are accepted chains of listed pickers', async () => {
      const listed = (await api('GET', '/dns/v2/pickers')).body as LabelName[];
      assert.deepEqual(listed.map((p) => p.name).sort(), [...pickerTypes].sort());
      for (const picker of listed) {
        assert.ok(picker.label.length > 0);
        const put = await api('PUT', `/dns/v2/zones/pick.example/${picker.name}.pick.example/A`, { ttl: 60, pickers: [{ type: picker.name, limit: 1 }], resource_records: [{ content: ['192.0.2.1'] }] });
        assert.equal(put.status, 200, `${picker.name}: ${put.text}`);
      }
      assertError(await api('PUT', '/dns/v2/zones/pick.example/x.pick.example/A', { ttl: 60, pickers: [{ type: 'nearest' }], resource_records: [{ content: ['192.0.2.1'] }] }), 400);

      const labels = new Map(listed.map((p) => [p.name, p.label]));
      const presets = (await api('GET', '/dns/v2/pickers/presets')).body as Record<string, LabelName[]>;
      assert.ok(Object.keys(presets).length > 0);
      for (const [name, chain] of Object.entries(presets)) {
        assert.equal(chain.at(-1)?.name, 'first_n', name);
        for (const p of chain) assert.equal(p.label, labels.get(p.name), `${name}: ${p.name}`);
        const put = await api('PUT', `/dns/v2/zones/pick.example/preset-${name.replaceAll('_', '-')}.pick.example/A`, {
          ttl: 60,
          pickers: chain.map((p) => ({ type: p.name })),
          resource_records: [{ content: ['192.0.2.1'], meta: { weight: 5, continents: ['eu'], default: true } }, { content: ['192.0.2.2'] }],
        });
        assert.equal(put.status, 200, `${name}: ${put.text}`);
      }
      // A preset chain serves: first_n (limit 1 by default) leaves one record.
      const served = await eventually(async () => {
        const reply = await ask(node.dnsPort, 'preset-weighted.pick.example', 'A');
        return (reply.packet.answers?.length ?? 0) > 0 ? reply.packet.answers : undefined;
      });
      assert.equal(served.length, 1);
    });

    test('locations: the continents and countries record meta accepts, with names; every one of them accepted, others refused', async () => {
      const continents = (await api('GET', '/dns/v2/locations/continents')).body as Locations;
      const countries = (await api('GET', '/dns/v2/locations/countries')).body as Locations;
      const regions = (await api('GET', '/dns/v2/locations/regions')).body as Locations;
      assert.deepEqual((await api('GET', '/dns/v2/locations')).body, { continents, countries, regions });
      assert.deepEqual(Object.keys(continents).sort(), ['af', 'an', 'as', 'eu', 'na', 'oc', 'sa']);
      assert.equal(continents['eu']?.names['en'], 'Europe');
      assert.ok(Object.keys(countries).length >= 240);
      assert.equal(countries['DE']?.names['en'], 'Germany');
      assert.equal(countries['DE'].names['de'], 'Deutschland');
      assert.deepEqual(countries['GB']?.names, { en: 'United Kingdom' });
      for (const location of [...Object.values(continents), ...Object.values(countries)]) assert.equal(typeof location.names['en'], 'string');
      assert.deepEqual(regions, {});

      const meta = { continents: Object.keys(continents), countries: Object.keys(countries) };
      const put = await api('PUT', '/dns/v2/zones/pick.example/geo.pick.example/A', { ttl: 60, pickers: [{ type: 'geodns' }], resource_records: [{ content: ['192.0.2.1'], meta }] });
      assert.equal(put.status, 200, put.text);
      assert.ok(!('XX' in countries));
      assertError(await api('PUT', '/dns/v2/zones/pick.example/geo.pick.example/A', { ttl: 60, resource_records: [{ content: ['192.0.2.1'], meta: { countries: ['XX'] } }] }), 400);
      assertError(await api('PUT', '/dns/v2/zones/pick.example/geo.pick.example/A', { ttl: 60, resource_records: [{ content: ['192.0.2.1'], meta: { continents: ['europe'] } }] }), 400);
    });

    test('monitor metrics: Prometheus text of the caller\'s zones with their answered queries; never another account\'s', async () => {
      assert.equal((await api('PUT', '/dns/v2/zones/m1.example/www.m1.example/A', { ttl: 60, resource_records: [{ content: ['192.0.2.7'] }] })).status, 200);
      await eventually(async () => (((await ask(node.dnsPort, 'www.m1.example', 'A')).packet.answers?.length ?? 0) > 0 ? true : undefined));
      await eventually(async () => ((await ask(node.dnsPort, 'theirs-m.example', 'SOA')).packet.rcode === 'NOERROR' ? true : undefined));
      // The probes' counts are written (every second) before the base is read.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      const metrics = async (query = '', caller = api) => {
        const response = await caller('GET', `/dns/v2/monitor/metrics${query}`);
        assert.equal(response.status, 200, response.text);
        assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
        return zoneQueries(response.text);
      };
      const base = await metrics();
      assert.deepEqual([...base.keys()], ['m1.example', 'm2.example', 'pick.example']);
      for (const s of base.values()) assert.equal(s.client, accountId);
      assert.equal(base.get('m2.example')?.count, 0);
      const m1 = base.get('m1.example')?.count ?? 0;
      const theirsBase = (await metrics('', otherApi)).get('theirs-m.example')?.count ?? 0;

      for (let i = 0; i < 3; i++) await ask(node.dnsPort, 'www.m1.example', 'A');
      await ask(node.dnsPort, 'nothing.m1.example', 'A', { tcp: true });
      for (let i = 0; i < 2; i++) await ask(node.dnsPort, 'theirs-m.example', 'SOA');
      const counted = await eventually(async () => {
        const now = await metrics();
        return (now.get('m1.example')?.count ?? 0) >= m1 + 4 ? now : undefined;
      });
      assert.equal(counted.get('m1.example')?.count, m1 + 4);
      assert.equal(counted.get('m2.example')?.count, 0);

      const theirs = await eventually(async () => {
        const now = await metrics('', otherApi);
        return (now.get('theirs-m.example')?.count ?? 0) >= theirsBase + 2 ? now : undefined;
      });
      assert.deepEqual([...theirs.keys()], ['theirs-m.example']);
      assert.equal(theirs.get('theirs-m.example')?.count, theirsBase + 2);
      assert.notEqual(theirs.get('theirs-m.example')?.client, accountId);

      // zone_names keeps those of the caller's zones, in any case, with or without the dot, repeated or comma-separated.
      assert.deepEqual([...(await metrics('?zone_names=M2.example.')).keys()], ['m2.example']);
      assert.deepEqual([...(await metrics('?zone_names=m2.example,m1.example&zone_names=pick.example&')).keys()], ['m1.example', 'm2.example', 'pick.example']);
      // Another account's zone by name: nothing, from either side; client_ids changes nothing.
      assert.equal((await metrics('?zone_names=theirs-m.example')).size, 0);
      assert.equal((await metrics('?zone_names=m1.example', otherApi)).size, 0);
      assert.deepEqual([...(await metrics('?client_ids=1,2,3')).keys()], ['m1.example', 'm2.example', 'pick.example']);
      assert.equal((await metrics('?zone_names=%22%7D%20evil%0A')).size, 0);
      // Bounds: 1000 names, 255 characters each.
      assertError(await api('GET', `/dns/v2/monitor/metrics?${Array.from({ length: 1001 }, () => 'zone_names=z').join('&')}`), 400);
      assertError(await api('GET', `/dns/v2/monitor/metrics?zone_names=${'a'.repeat(256)}`), 400);
    });

    test('network mappings: create, read by id and name, list, replace, delete; only the account\'s', async () => {
      const mapping = [
        { tags: ['tag1'], cidr4: ['192.0.2.0/24', '198.51.100.0/24'] },
        { tags: ['tag2', 'tag3'], cidr4: ['203.0.113.0/24'], cidr6: ['2001:db8:10::/64'] },
      ];
      const created = await api('POST', '/dns/v2/network-mappings', { name: 'office', mapping, id: 999 });
      assert.equal(created.status, 200, created.text);
      const id = (created.body as { id: number }).id;
      const expected = { id, name: 'office', mapping: [{ tags: ['tag1'], cidr4: ['192.0.2.0/24', '198.51.100.0/24'], cidr6: [] }, { tags: ['tag2', 'tag3'], cidr4: ['203.0.113.0/24'], cidr6: ['2001:db8:10::/64'] }] };
      // Read alone: the fields (the API reference, generated SDKs) and the same under network_mapping
      // (the hand-written Go SDK), which also asks for a name at /network-mappings/{name}.
      const read = { ...expected, network_mapping: expected };
      assert.deepEqual((await api('GET', `/dns/v2/network-mappings/${String(id)}`)).body, read);
      assert.deepEqual((await api('GET', '/dns/v2/network-mappings/by-name/office')).body, read);
      assert.deepEqual((await api('GET', '/dns/v2/network-mappings/office')).body, read);
      assertError(await api('POST', '/dns/v2/network-mappings', { name: 'office', mapping: [] }), 409, 'conflict');
      assert.equal((await api('POST', '/dns/v2/network-mappings', { name: 'branch', mapping: null })).status, 200);

      const list = await api('GET', '/dns/v2/network-mappings?order_by=name&order_direction=desc&limit=1&offset=0');
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(list.body, { network_mappings: [expected], total_amount: 2 });
      assert.deepEqual(((await api('GET', '/dns/v2/network-mappings')).body as { network_mappings: { name: string }[] }).network_mappings.map((m) => m.name), ['office', 'branch']);

      // Replace: the entries change, the name cannot.
      assert.deepEqual((await api('PUT', `/dns/v2/network-mappings/${String(id)}`, { name: 'office', mapping: [{ tags: ['lan'], cidr6: ['fd00::/8'] }] })).body, {});
      const replaced = { id, name: 'office', mapping: [{ tags: ['lan'], cidr4: [], cidr6: ['fd00::/8'] }] };
      assert.deepEqual((await api('GET', '/dns/v2/network-mappings/by-name/office')).body, { ...replaced, network_mapping: replaced });
      assertError(await api('PUT', `/dns/v2/network-mappings/${String(id)}`, { name: 'renamed', mapping: [] }), 400);
      assert.equal((await api('PUT', `/dns/v2/network-mappings/${String(id)}`, { mapping: [{ tags: ['lan'], cidr4: ['10.0.0.0/8'] }] })).status, 200);

      // Another account: none of ours to see, change or delete; it may use the same name.
      assertError(await otherApi('GET', `/dns/v2/network-mappings/${String(id)}`), 404, 'not_found');
      assertError(await otherApi('GET', '/dns/v2/network-mappings/by-name/office'), 404);
      assertError(await otherApi('GET', '/dns/v2/network-mappings/office'), 404);
      assertError(await otherApi('PUT', `/dns/v2/network-mappings/${String(id)}`, { mapping: [] }), 404);
      assertError(await otherApi('DELETE', `/dns/v2/network-mappings/${String(id)}`), 404);
      assert.deepEqual((await otherApi('GET', '/dns/v2/network-mappings')).body, { network_mappings: [], total_amount: 0 });
      assert.equal((await otherApi('POST', '/dns/v2/network-mappings', { name: 'office', mapping: [] })).status, 200);
      assert.equal(((await api('GET', '/dns/v2/network-mappings/by-name/office')).body as { id: number }).id, id);

      assert.deepEqual((await api('DELETE', `/dns/v2/network-mappings/${String(id)}`)).body, {});
      assertError(await api('GET', `/dns/v2/network-mappings/${String(id)}`), 404);
      assertError(await api('DELETE', `/dns/v2/network-mappings/${String(id)}`), 404);
      assert.equal(((await otherApi('GET', '/dns/v2/network-mappings/by-name/office')).body as { name: string }).name, 'office');
    });

    test('network mappings: hostile input is a 400 naming the field, bounds hold, nothing half-written', async () => {
      const bad: [unknown, string][] = [
        [{ mapping: [] }, 'name'],
        [{ name: 'a/b', mapping: [] }, 'name'],
        [{ name: 'x'.repeat(65), mapping: [] }, 'name'],
        [{ name: 42, mapping: [] }, 'name'],
        [{ name: 'm', mapping: {} }, 'mapping'],
        [{ name: 'm', mapping: ['10.0.0.0/8'] }, 'mapping[0]'],
        [{ name: 'm', mapping: [{ cidr4: ['2001:db8::/32'] }] }, 'mapping[0].cidr4[0]'],
        [{ name: 'm', mapping: [{ cidr4: ['300.0.0.0/8'] }] }, 'mapping[0].cidr4[0]'],
        [{ name: 'm', mapping: [{ cidr6: ['10.0.0.0/8'] }] }, 'mapping[0].cidr6[0]'],
        [{ name: 'm', mapping: [{ cidr4: '10.0.0.0/8' }] }, 'mapping[0].cidr4'],
        [{ name: 'm', mapping: [{ tags: [''] }] }, 'mapping[0].tags[0]'],
        [{ name: 'm', mapping: [{ tags: ['t'.repeat(65)] }] }, 'mapping[0].tags[0]'],
        [{ name: 'm', mapping: [{ tags: [{}] }] }, 'mapping[0].tags[0]'],
        [{ name: 'm', mapping: [{ tags: Array.from({ length: 33 }, (_, i) => `t${String(i)}`) }] }, 'mapping[0].tags'],
        [{ name: 'm', mapping: Array.from({ length: 101 }, () => ({})) }, 'mapping'],
        [{ name: 'm', mapping: [{ cidr4: Array.from({ length: 5001 }, (_, i) => `10.${String(i >> 8)}.${String(i & 255)}.0/24`) }] }, 'mapping'],
      ];
      for (const [body, field] of bad) {
        const response = await api('POST', '/dns/v2/network-mappings', body);
        assertError(response, 400);
        assert.ok(field in ((response.body as { fields?: Record<string, string> }).fields ?? {}), `${field}: ${response.text}`);
      }
      assertError(await api('POST', '/dns/v2/network-mappings', ['not', 'an', 'object']), 400);
      assertError(await call(node.url, 'POST', '/dns/v2/network-mappings', { auth, raw: JSON.stringify({ name: 'big', mapping: [{ tags: ['x'.repeat(2 * 1024 * 1024)] }] }) }), 413);
      for (const id of ['0', '99999999999', '00']) assertError(await api('GET', `/dns/v2/network-mappings/${id}`), 400);
      for (const name of ['a%2Fb', 'no%20such', 'a%22b', 'x'.repeat(200)]) {
        assertError(await api('GET', `/dns/v2/network-mappings/by-name/${name}`), 404);
        assertError(await api('GET', `/dns/v2/network-mappings/${name}`), 404);
      }
      for (const name of ['abc', '-1']) assertError(await api('GET', `/dns/v2/network-mappings/${name}`), 404, 'not_found');
      assert.equal(((await api('GET', '/dns/v2/network-mappings')).body as { total_amount: number }).total_amount, 1);

      // At most 100 an account: the 101st is refused, and the other account is not affected.
      for (let i = 0; i < 99; i++) assert.equal((await api('POST', '/dns/v2/network-mappings', { name: `bulk-${String(i)}`, mapping: [] })).status, 200);
      assertError(await api('POST', '/dns/v2/network-mappings', { name: 'one-too-many', mapping: [] }), 409);
      assert.equal((await otherApi('POST', '/dns/v2/network-mappings', { name: 'theirs-fine', mapping: [] })).status, 200);
      for (let i = 0; i < 99; i++) assert.equal((await api('DELETE', `/dns/v2/network-mappings/${String(((await api('GET', `/dns/v2/network-mappings/by-name/bulk-${String(i)}`)).body as { id: number }).id)}`)).status, 200);
    });

    test('network mappings: YAML import creates every document or none', async () => {
      const file = [
        'name: mapping_rule_1',
        'mapping:',
        '    - tags:',
        '        - tag_name_1',
        '      cidr4:',
        '        - 127.0.2.0/24',
        '    - tags: [tag_name_2, tag_name_3]',
        '      cidr4: [128.0.1.0/24, 128.0.2.0/24]',
        '      cidr6: [ac:20::0/64]',
        '---',
        'name: mapping_rule_2',
        'mapping:',
        '    - tags: [my_network]',
        '      cidr4: [129.0.2.0/24]',
        '---',
        '',
      ].join('\n');
      const imported = await call(node.url, 'POST', '/dns/v2/network-mappings/import', { auth, raw: file, contentType: 'text/plain' });
      assert.equal(imported.status, 200, imported.text);
      assert.deepEqual(imported.body, { success: true });
      const rule1 = (await api('GET', '/dns/v2/network-mappings/by-name/mapping_rule_1')).body as { mapping: unknown };
      assert.deepEqual(rule1.mapping, [{ tags: ['tag_name_1'], cidr4: ['127.0.2.0/24'], cidr6: [] }, { tags: ['tag_name_2', 'tag_name_3'], cidr4: ['128.0.1.0/24', '128.0.2.0/24'], cidr6: ['ac:20::0/64'] }]);
      const count = async () => ((await api('GET', '/dns/v2/network-mappings')).body as { total_amount: number }).total_amount;
      const before = await count();

      const yaml = (raw: string, contentType = 'text/plain') => call(node.url, 'POST', '/dns/v2/network-mappings/import', { auth, raw, contentType });
      // A name that exists: 409, and the new one beside it is not created either.
      assertError(await yaml('name: fresh\nmapping: []\n---\nname: mapping_rule_2\nmapping: []\n', 'application/yaml'), 409);
      assertError(await api('GET', '/dns/v2/network-mappings/by-name/fresh'), 404);
      const cases: [string, string][] = [
        ['name: a\nmapping: [1\n', 'documents[0]'],
        ['name: ok\nmapping: []\n---\nname: b\nmapping: [{cidr4: [nonsense]}]\n', 'documents[1].mapping[0].cidr4[0]'],
        ['name: twice\nmapping: []\n---\nname: twice\nmapping: []\n', 'documents[1].name'],
        ['mapping: []\n', 'documents[0].name'],
        ['- just\n- a list\n', 'documents[0]'],
        // Aliases expanding past the bound (a "billion laughs" document).
        [`a: &a [x, x, x, x, x, x, x, x, x, x]\n${Array.from({ length: 12 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10).fill(`*${String.fromCharCode(97 + i)}`).join(', ')}]`).join('\n')}\nname: bomb\nmapping: []\n`, 'documents[0]'],
        [Array.from({ length: 101 }, (_, i) => `name: n${String(i)}\nmapping: []`).join('\n---\n'), 'body'],
        ['', 'body'],
      ];
      for (const [raw, field] of cases) {
        const response = await yaml(raw);
        assertError(response, 400);
        assert.ok(field in ((response.body as { fields?: Record<string, string> }).fields ?? {}), `${field}: ${response.text}`);
      }
      assertError(await call(node.url, 'POST', '/dns/v2/network-mappings/import', { auth, body: { name: 'json', mapping: [] } }), 400);
      assertError(await yaml('name: x\n', 'application/octet-stream'), 415);
      assert.equal(await count(), before);
    });

    test('zone import answers {created, skipped} in the seed profile', async () => {
      assert.equal((await api('POST', '/dns/v2/zones', { name: 'imp-seed.example' })).status, 200);
      const imported = await call(node.url, 'POST', '/dns/v2/zones/imp-seed.example/import', { auth, raw: 'www 300 IN A 192.0.2.1\n', contentType: 'text/plain' });
      assert.equal(imported.status, 200, imported.text);
      assert.deepEqual(imported.body, { created: [{ name: 'www.imp-seed.example', type: 'A', records: 1 }], skipped: [] });
    });

    test('an import naming a few hundred owner names commits and is served (on PostgreSQL its NOTIFY fits, through jsonb, or leaves the names out)', async () => {
      assert.equal((await api('POST', '/dns/v2/zones', { name: 'm.example' })).status, 200);
      // 420 names of 15 octets: 7,800 octets as JSON, 8,250 through jsonb (once a 500 on PostgreSQL).
      for (const count of [420, 2000]) {
        const file = Array.from({ length: count }, (_, i) => `h${String(count * 10 + i)} 300 IN A 192.0.2.7`).join('\n');
        const imported = await call(node.url, 'POST', '/dns/v2/zones/m.example/import', { auth, raw: file, contentType: 'text/plain' });
        assert.equal(imported.status, 200, `${String(count)} names: ${imported.text}`);
        const { packet } = await ask(node.dnsPort, `h${String(count * 11 - 1)}.m.example`, 'A');
        assert.deepEqual(addressesIn(packet), ['192.0.2.7']);
      }
    });
  });

  describe(`provider shapes under EDGEPLANE_COMPAT=gcore (${engine})`, () => {
    let node: Service;
    let auth: string;

    before(async () => {
      node = await startService({ engine, env: { EDGEPLANE_COMPAT: 'gcore', EDGEPLANE_NAMESERVERS: 'ns1.gcore-profile.example' } });
      auth = bearer((await login(node.url, adminEmail, adminPassword)).access);
    });
    after(() => node.dispose());

    test('platform info is {"Info": {contact, name_server_1, name_server_2}}', async () => {
      const response = await call(node.url, 'GET', '/dns/v2/platform/info');
      assert.equal(response.status, 200);
      assert.deepEqual(response.body, { Info: { contact: '', name_server_1: 'ns1.gcore-profile.example', name_server_2: '' } });
    });

    test('zone import answers the provider\'s {imported, success, warnings} beside created and skipped', async () => {
      assert.equal((await call(node.url, 'POST', '/dns/v2/zones', { auth, body: { name: 'imp.example' } })).status, 200);
      assert.equal((await call(node.url, 'PUT', '/dns/v2/zones/imp.example/www.imp.example/A', { auth, body: { ttl: 60, resource_records: [{ content: ['192.0.2.1'] }] } })).status, 200);
      const file = [
        '$ORIGIN imp.example.',
        '$TTL 300',
        '@ IN SOA ns1 hostmaster 1 3600 600 1209600 300',
        '@ IN NS ns1.elsewhere.example.',
        '@ IN NS ns2.elsewhere.example.',
        'www IN A 192.0.2.9',
        'mail IN A 192.0.2.1',
        'mail IN A 192.0.2.2',
        '@ IN MX 10 mail.imp.example.',
        'txt IN TXT "hello"',
        'bad IN A 300.1.1.1',
        'bad IN A 192.0.2.3',
        '',
      ].join('\n');
      const response = await call(node.url, 'POST', '/dns/v2/zones/imp.example/import', { auth, body: { content: file } });
      assert.equal(response.status, 200, response.text);
      const body = response.body as { imported: unknown; success: boolean; warnings: Record<string, Record<string, string>>; created: { name: string; type: string; records: number }[]; skipped: { line: number }[] };
      assert.deepEqual(body.imported, { qtype: 3, resource_records: 5, rrsets: 4, skipped_resource_records: 5 });
      assert.equal(body.success, true);
      assert.deepEqual(Object.keys(body.warnings).sort(), ['bad.imp.example', 'imp.example', 'www.imp.example']);
      assert.deepEqual(Object.keys(body.warnings['imp.example'] ?? {}).sort(), ['NS', 'SOA']);
      assert.match(body.warnings['www.imp.example']?.['A'] ?? '', /^line 6: the RRset already exists$/);
      assert.match(body.warnings['bad.imp.example']?.['A'] ?? '', /^line 11: /);
      assert.deepEqual(body.created.map((c) => `${c.name} ${c.type} ${String(c.records)}`).sort(), ['bad.imp.example A 1', 'imp.example MX 1', 'mail.imp.example A 2', 'txt.imp.example TXT 1']);
      assert.deepEqual(body.skipped.map((s) => s.line), [3, 4, 6, 11]);

      // Nothing new: everything skipped, success still true (the request did what it says).
      const again = await call(node.url, 'POST', '/dns/v2/zones/imp.example/import', { auth, raw: 'mail 300 IN A 192.0.2.1\n', contentType: 'text/plain' });
      assert.equal(again.status, 200, again.text);
      assert.deepEqual(again.body.imported, { qtype: 0, resource_records: 0, rrsets: 0, skipped_resource_records: 1 });
      assert.deepEqual(again.body.warnings, { 'mail.imp.example': { A: 'line 1: the RRset already exists' } });
      // Bad input is still an error, not a success:false answer.
      assertError(await call(node.url, 'POST', '/dns/v2/zones/imp.example/import', { auth, body: { content: 42 } }), 400);
      assertError(await call(node.url, 'POST', '/dns/v2/zones/nowhere.example/import', { auth, body: { content: 'www 300 IN A 192.0.2.1' } }), 404);
    });
  });
}
