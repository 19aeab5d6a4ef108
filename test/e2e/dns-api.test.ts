// The DNS HTTP API end to end, as the clients of compat.md use it: zones, RRsets, DNSSEC, account
// isolation and roles, on every store engine and in both compatibility profiles.
import assert from 'node:assert/strict';
import { createHash, createPublicKey } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { assertError } from '../support/assertions.ts';
import { engines } from '../support/engines.ts';
import { apiKey, bearer, call, login, type Response } from '../support/http.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';

const nameservers = ['ns1.test.example', 'ns2.test.example'];
const zoneNotFound = '{"error":"zone is not found","code":"not_found"}';
const recordNotFound = '{"error":"record is not found","code":"not_found"}';

/** RFC 4034 Appendix B. */
function rfcKeyTag(rdata: Buffer): number {
  let ac = 0;
  for (let i = 0; i < rdata.length; i++) ac += i & 1 ? rdata[i]! : rdata[i]! << 8;
  ac += (ac >> 16) & 0xffff;
  return ac & 0xffff;
}

/** A name in canonical wire form (RFC 4034 §6.2): lower case, length-prefixed labels, root. */
function wireName(name: string): Buffer {
  const labels = name.toLowerCase().split('.').filter((l) => l !== '');
  return Buffer.concat([...labels.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'ascii')])), Buffer.from([0])]);
}

/** Every field of a validation error names a path starting with `path` (`path` or `path[i]`). */
function assertField(response: Response<any>, path: string): void {
  assertError(response, 400, 'invalid_input');
  const keys = Object.keys(response.body.fields ?? {});
  assert.ok(
    keys.some((k) => k === path || k.startsWith(`${path}[`) || k.startsWith(`${path}.`)),
    `expected a field error at ${path}, got ${response.text}`,
  );
}

for (const engine of engines()) {
  for (const compat of ['seed', 'gcore'] as const) {
    describe(`DNS API (${engine}, ${compat})`, () => {
      let service: Service;
      let url: string;
      let admin: string;
      let accountA: number;
      before(async () => {
        service = await startService({ engine, env: { EDGEPLANE_COMPAT: compat, EDGEPLANE_NAMESERVERS: nameservers.join(',') } });
        url = service.url;
        admin = bearer((await login(url, adminEmail, adminPassword)).access);
        accountA = (await call(url, 'GET', '/iam/clients/me', { auth: admin })).body.id;
      });
      after(() => service.dispose());

      // Every request as the clients send it: Content-Type: application/json, also on GET and DELETE.
      const dns = (method: string, path: string, body?: unknown, auth = admin) =>
        call(url, method, path, { auth, contentType: 'application/json', ...(body === undefined ? {} : { body }) });
      const ok = async (method: string, path: string, body?: unknown, auth = admin) => {
        const response = await dns(method, path, body, auth);
        assert.equal(response.status, 200, `${method} ${path}: ${response.status} ${response.text}`);
        return response.body;
      };
      /** The zone object of a GET zone: wrapped as {"Zone": ...} in seed, flat in gcore. */
      const zoneBody = (response: Response<any>) => {
        assert.equal(response.status, 200, response.text);
        if (compat === 'gcore') {
          assert.ok(!('Zone' in response.body));
          return response.body;
        }
        assert.deepEqual(Object.keys(response.body), ['Zone']);
        return response.body.Zone;
      };
      const readZone = async (name: string, auth = admin) => zoneBody(await dns('GET', `/dns/v2/zones/${name}`, undefined, auth));
      const createZone = async (name: string, extra: Record<string, unknown> = {}) => {
        const body = await ok('POST', '/dns/v2/zones', { name, ...extra });
        assert.deepEqual(Object.keys(body).sort(), ['id', 'warnings']);
        assert.deepEqual(body.warnings, []);
        return body.id as number;
      };
      const serialOf = async (name: string) => (await readZone(name)).serial as number;
      const a = (...addresses: string[]) => ({ ttl: 300, resource_records: addresses.map((ip) => ({ content: [ip] })) });
      const contents = (rrset: { resource_records: { content: unknown[] }[] }) => rrset.resource_records.map((r) => r.content);

      /** The updated_at values as written in the raw response text (JSON.parse would round nanoseconds). */
      const rawUpdatedAt = (response: Response) => [...response.text.matchAll(/"updated_at":("[^"]*"|[^,}]*)/g)].map((m) => m[1]!);
      /** updated_at: an ISO string in seed; an integer of nanoseconds (19 digits, exact in the raw text) in gcore. */
      const assertUpdatedAt = (response: Response, index = 0) => {
        const raw = rawUpdatedAt(response);
        assert.ok(raw.length > index, `no updated_at in ${response.text}`);
        const value = raw[index]!;
        if (compat === 'gcore') {
          assert.match(value, /^\d{19}$/);
          const ns = BigInt(value);
          assert.equal(ns % 1_000_000n, 0n);
          assert.ok(Math.abs(Number(ns / 1_000_000n) - Date.now()) < 5_000, `updated_at ${value} is not recent`);
        } else {
          const iso = JSON.parse(value) as string;
          assert.match(iso, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
          assert.ok(Math.abs(Date.parse(iso) - Date.now()) < 5_000, `updated_at ${iso} is not recent`);
        }
      };
      /** pickers (seed) or pickers and filters (gcore) as expected; `null` expected means a static RRset. */
      const assertPickers = (rrset: Record<string, unknown>, expected: unknown[] | null) => {
        if (compat === 'gcore') {
          assert.deepEqual(rrset['pickers'], expected);
          assert.deepEqual(rrset['filters'], expected);
        } else {
          assert.deepEqual(rrset['pickers'], expected ?? []);
          assert.ok(!('filters' in rrset));
        }
      };

      test('platform info needs no authentication and lists the configured name servers (the provider\'s {"Info": ...} in gcore)', async () => {
        const response = await call(url, 'GET', '/dns/v2/platform/info', { contentType: 'application/json' });
        assert.equal(response.status, 200);
        const expected = compat === 'gcore' ? { Info: { contact: '', name_server_1: nameservers[0], name_server_2: nameservers[1] } } : { name_servers: nameservers };
        assert.deepEqual(response.body, expected);
        assertError(await call(url, 'GET', '/dns/v2/zones', { contentType: 'application/json' }), 401);
      });

      describe('client request sequences (compat.md)', () => {
        before(async () => {
          await createZone('example.com');
          await createZone('clients.example');
        });

        test('lego: probe parents, create a TXT, merge a second token, remove one, delete; a second DELETE is 404', async () => {
          const fqdn = '_acme-challenge.sub.example.com';
          let zone: string | undefined;
          for (const candidate of ['_acme-challenge.sub.example.com', 'sub.example.com', 'example.com', 'com']) {
            const response = await dns('GET', `/dns/v2/zones/${candidate}`);
            if (response.status >= 200 && response.status < 300) {
              zone = compat === 'gcore' ? response.body.name : response.body.Zone.name;
              break;
            }
            assert.equal(response.status, 404);
            assert.equal(response.text, zoneNotFound);
          }
          assert.equal(zone, 'example.com');

          const path = `/dns/v2/zones/${zone}/${fqdn}/TXT`;
          const created = await ok('POST', path, { ttl: 120, resource_records: [{ content: ['token1'] }] });
          assert.equal(created.name, fqdn);
          assert.equal(created.type, 'TXT');
          assert.equal(created.ttl, 120);
          assert.deepEqual(contents(created), [['token1']]);
          assert.equal(created.resource_records[0].enabled, true);

          const existing = await ok('GET', path);
          const merged = [...existing.resource_records.map((r: { content: unknown[] }) => ({ content: r.content })), { content: ['token2'] }];
          const put = await ok('PUT', path, { ttl: 120, resource_records: merged });
          assert.deepEqual(contents(put), [['token1'], ['token2']]);
          assert.deepEqual(contents(await ok('GET', path)), [['token1'], ['token2']]);

          assert.deepEqual(contents(await ok('PUT', path, { ttl: 120, resource_records: [{ content: ['token2'] }] })), [['token2']]);
          assert.deepEqual(await ok('DELETE', path), {});
          const again = await dns('DELETE', path);
          assert.equal(again.status, 404);
          assert.equal(again.text, recordNotFound);
        });

        test('certbot: POST of an existing RRset is 409, then GET and PUT the merged records', async () => {
          const path = '/dns/v2/zones/clients.example/_acme-challenge.clients.example/TXT';
          await ok('POST', path, { ttl: 60, resource_records: [{ content: ['first'] }] });
          const serial = await serialOf('clients.example');
          assertError(await dns('POST', path, { ttl: 60, resource_records: [{ content: ['second'] }] }), 409, 'conflict');
          assert.equal(await serialOf('clients.example'), serial, 'a refused POST does not change the zone');
          const current = await ok('GET', path);
          const put = await ok('PUT', path, { ttl: 60, resource_records: [...current.resource_records, { content: ['second'] }] });
          assert.deepEqual(contents(put), [['first'], ['second']]);
        });

        test('octodns: trailing-dot names are accepted and listed without the dot', async () => {
          const put = await ok('PUT', '/dns/v2/zones/clients.example/www.clients.example./A', a('192.0.2.10'));
          assert.equal(put.name, 'www.clients.example');
          const list = await ok('GET', '/dns/v2/zones/clients.example/rrsets?all=true');
          assert.ok(list.rrsets.some((r: { name: string; type: string }) => r.name === 'www.clients.example' && r.type === 'A'));
          for (const rrset of list.rrsets) assert.ok(!rrset.name.endsWith('.'), rrset.name);
        });

        test('a GET body PUT back unchanged (ids, updated_at, name, type, pickers/filters) is accepted as the same data', async () => {
          const strip = (rrset: any) => {
            const { updated_at: _u, warnings: _w, ...rest } = rrset;
            return { ...rest, resource_records: rest.resource_records.map(({ id: _id, ...r }: any) => r) };
          };
          const dynamic = {
            ttl: 30,
            meta: { notes: 'x' },
            pickers: [{ type: 'geodns', limit: 1, strict: false }],
            resource_records: [
              { content: ['192.0.2.1'], meta: { countries: ['DE'] } },
              { content: ['192.0.2.2'], enabled: false, meta: { default: true } },
            ],
          };
          await ok('PUT', '/dns/v2/zones/clients.example/geo/A', dynamic);
          await ok('PUT', '/dns/v2/zones/clients.example/mail/MX', { ttl: 300, resource_records: [{ content: [10, 'mx.clients.example.'] }] });
          for (const path of ['/dns/v2/zones/clients.example/geo.clients.example/A', '/dns/v2/zones/clients.example/mail.clients.example/MX']) {
            const before = await dns('GET', path);
            assert.equal(before.status, 200);
            // The exact bytes of the GET (gcore's 19-digit updated_at included) go back as the body.
            const echoed = await call(url, 'PUT', path, { auth: admin, raw: before.text, contentType: 'application/json' });
            assert.equal(echoed.status, 200, echoed.text);
            assert.deepEqual(echoed.body.warnings, [], echoed.text);
            assert.deepEqual(strip(echoed.body), strip(before.body));
            assert.deepEqual(strip(await ok('GET', path)), strip(before.body));
          }
        });

        test('PATCH enable/disable with an empty JSON body answer 200 {}', async () => {
          for (const action of ['disable', 'enable']) {
            const response = await call(url, 'PATCH', `/dns/v2/zones/clients.example/${action}`, { auth: admin, contentType: 'application/json' });
            assert.equal(response.status, 200, response.text);
            assert.deepEqual(response.body, {});
            assert.equal((await readZone('clients.example')).status, action === 'enable' ? 'active' : 'disabled');
            const explicit = await call(url, 'PATCH', `/dns/v2/zones/clients.example/${action}`, { auth: admin, raw: '', contentType: 'application/json' });
            assert.equal(explicit.status, 200, explicit.text);
            assert.deepEqual(explicit.body, {});
          }
          await ok('PUT', '/dns/v2/zones/clients.example/empty/TXT', { resource_records: [{ content: ['x'] }] });
          const deleted = await call(url, 'DELETE', '/dns/v2/zones/clients.example/empty/TXT', { auth: admin, raw: '', contentType: 'application/json' });
          assert.equal(deleted.status, 200, deleted.text);
          assert.deepEqual(deleted.body, {});
        });

        test('404 bodies are exactly the ones clients match', async () => {
          for (const method of ['GET', 'DELETE']) {
            const record = await dns(method, '/dns/v2/zones/clients.example/nothing.clients.example/TXT');
            assert.equal(record.status, 404);
            assert.equal(record.text, recordNotFound);
            const zone = await dns(method, '/dns/v2/zones/missing.example/nothing.missing.example/TXT');
            assert.equal(zone.status, 404);
            assert.equal(zone.text, zoneNotFound);
          }
          for (const path of ['/dns/v2/zones/missing.example', '/dns/v2/zones/missing.example/rrsets', '/dns/v2/zones/missing.example/dnssec']) {
            const response = await dns('GET', path);
            assert.equal(response.status, 404);
            assert.equal(response.text, zoneNotFound);
          }
        });
      });

      describe('zones', () => {
        test('create: the name is normalised, defaults apply, the apex NS holds the service name servers', async () => {
          const id = await createZone('Shapes.EXAMPLE.');
          const zone = await readZone('shapes.example');
          const { serial, ...rest } = zone;
          assert.ok(Number.isInteger(serial) && Math.abs(serial - Date.now() / 1000) < 120, `serial ${serial}`);
          assert.deepEqual(rest, {
            id,
            client_id: accountA,
            name: 'shapes.example',
            contact: 'hostmaster.shapes.example',
            primary_server: nameservers[0],
            refresh: 3600,
            retry: 600,
            expiry: 1209600,
            nx_ttl: 300,
            enabled: true,
            dnssec_enabled: false,
            status: 'active',
            meta: {},
            records: [{ name: 'shapes.example', type: 'NS', ttl: 86400, short_answers: nameservers }],
            rrsets_amount: { static: 1, total: 1, dynamic: { healthcheck: 0, total: 0 } },
          });
          assert.deepEqual(await readZone('SHAPES.Example.'), zone, 'the zone path is case-insensitive, trailing dot optional');
          const ns = await ok('GET', '/dns/v2/zones/shapes.example/shapes.example/NS');
          assert.deepEqual(contents(ns), nameservers.map((n) => [n]));
          assertError(await dns('POST', '/dns/v2/zones', { name: 'SHAPES.example' }), 409, 'conflict');
          assertError(await dns('POST', '/dns/v2/zones', { name: 'shapes.example.' }), 409, 'conflict');
          assertError(await dns('POST', '/dns/v2/zones', { name: 'not a name' }), 400, 'invalid_input');
          assertError(await dns('POST', '/dns/v2/zones', {}), 400, 'invalid_input');
        });

        test('create with SOA values and meta as a JSON string', async () => {
          await createZone('custom.example', { contact: 'ops@custom.example', primary_server: 'NS.Custom.Example.', refresh: 7200, retry: 900, expiry: 604800, nx_ttl: 60, serial: 2024010101, enabled: false, meta: '{"team":"dns"}' });
          const zone = await readZone('custom.example');
          assert.equal(zone.contact, 'ops@custom.example');
          assert.equal(zone.primary_server, 'ns.custom.example');
          assert.deepEqual([zone.refresh, zone.retry, zone.expiry, zone.nx_ttl, zone.serial], [7200, 900, 604800, 60, 2024010101]);
          assert.equal(zone.enabled, false);
          assert.equal(zone.status, 'disabled');
          assert.deepEqual(zone.meta, { team: 'dns' });
        });

        test('PUT updates SOA fields, keeps absent ones, takes meta as object or string; the serial counts every change', async () => {
          await createZone('soa.example');
          let serial = await serialOf('soa.example');
          const expectNext = async (what: string) => {
            const now = await serialOf('soa.example');
            assert.equal(now, serial + 1, `serial after ${what}`);
            serial = now;
          };

          assert.deepEqual(await ok('PUT', '/dns/v2/zones/soa.example', { refresh: 7200, contact: 'admin@soa.example', meta: '{"a":1}' }), {});
          await expectNext('zone PUT');
          let zone = await readZone('soa.example');
          assert.deepEqual([zone.refresh, zone.retry, zone.expiry, zone.nx_ttl], [7200, 600, 1209600, 300]);
          assert.equal(zone.contact, 'admin@soa.example');
          assert.deepEqual(zone.meta, { a: 1 });

          assert.deepEqual(await ok('PUT', '/dns/v2/zones/soa.example', { meta: { b: [1, 2] }, nx_ttl: 120, name: 'ignored.example', id: 1, status: 'x' }), {});
          await expectNext('zone PUT with meta object');
          zone = await readZone('soa.example');
          assert.deepEqual(zone.meta, { b: [1, 2] });
          assert.equal(zone.nx_ttl, 120);
          assert.equal(zone.refresh, 7200);
          assert.equal(zone.name, 'soa.example');
          assert.deepEqual(await ok('PUT', '/dns/v2/zones/soa.example', { enabled: false, contact: null, refresh: null }), {});
          await expectNext('zone PUT enabled false');
          zone = await readZone('soa.example');
          assert.deepEqual([zone.enabled, zone.status, zone.contact, zone.refresh], [false, 'disabled', 'admin@soa.example', 7200]);
          await ok('PUT', '/dns/v2/zones/soa.example', { enabled: true });
          await expectNext('zone PUT enabled true');
          assert.equal((await readZone('soa.example')).status, 'active');

          // A requested serial that is later is taken; one that is not gives a warning.
          assert.deepEqual(await ok('PUT', '/dns/v2/zones/soa.example', { serial: serial + 1000 }), {});
          assert.equal(await serialOf('soa.example'), serial + 1000);
          serial += 1000;
          const stale = await ok('PUT', '/dns/v2/zones/soa.example', { serial: 5 });
          assert.equal(stale.warnings.length, 1);
          await expectNext('zone PUT with an older serial');

          await ok('PUT', '/dns/v2/zones/soa.example/www/A', a('192.0.2.1'));
          await expectNext('RRset PUT');
          await ok('POST', '/dns/v2/zones/soa.example/txt/TXT', { resource_records: [{ content: ['x'] }] });
          await expectNext('RRset POST');
          await ok('DELETE', '/dns/v2/zones/soa.example/txt/TXT');
          await expectNext('RRset DELETE');
          await ok('PATCH', '/dns/v2/zones/soa.example/disable');
          await expectNext('disable');
          await ok('PATCH', '/dns/v2/zones/soa.example/enable');
          await expectNext('enable');
          await ok('PATCH', '/dns/v2/zones/soa.example/dnssec', { enabled: true });
          await expectNext('DNSSEC on');
          await ok('PATCH', '/dns/v2/zones/soa.example/dnssec', { enabled: false });
          await expectNext('DNSSEC off');

          // Refused writes change nothing.
          assertField(await dns('PUT', '/dns/v2/zones/soa.example', { refresh: 1 }), 'refresh');
          assertField(await dns('PUT', '/dns/v2/zones/soa.example', { meta: '{not json' }), 'meta');
          assertField(await dns('PUT', '/dns/v2/zones/soa.example', { contact: 'not an@@address' }), 'contact');
          assertField(await dns('PUT', '/dns/v2/zones/soa.example/bad/A', a('999.0.0.1')), 'resource_records[0].content');
          assert.equal(await serialOf('soa.example'), serial);
          assertError(await dns('PUT', '/dns/v2/zones/nope.example', { refresh: 7200 }), 404, 'not_found');
        });

        test('DELETE removes the zone and its RRsets', async () => {
          await createZone('gone.example');
          await ok('PUT', '/dns/v2/zones/gone.example/www/A', a('192.0.2.1'));
          assert.deepEqual(await ok('DELETE', '/dns/v2/zones/gone.example'), {});
          const read = await dns('GET', '/dns/v2/zones/gone.example');
          assert.equal(read.status, 404);
          assert.equal(read.text, zoneNotFound);
          assertError(await dns('DELETE', '/dns/v2/zones/gone.example'), 404, 'not_found');
          await createZone('gone.example');
          const list = await ok('GET', '/dns/v2/zones/gone.example/rrsets');
          assert.deepEqual(list.rrsets.map((r: { name: string; type: string }) => `${r.name} ${r.type}`), ['gone.example NS']);
          assert.equal(list.total_amount, 1);
          assertError(await dns('GET', '/dns/v2/zones/gone.example/www/A'), 404, 'not_found');
        });

        describe('list', () => {
          // Serials run opposite to the names, so order_by=serial is the reverse of order_by=name.
          const names = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'].map((n) => `${n}.lst.example`);
          const ids: number[] = [];
          before(async () => {
            for (const [i, name] of names.entries()) ids.push(await createZone(name, { serial: 1000 + (names.length - i) * 10 }));
            await ok('PATCH', '/dns/v2/zones/bravo.lst.example/disable');
            await ok('PATCH', '/dns/v2/zones/echo.lst.example/disable');
          });
          const list = async (query: string) => {
            const body = await ok('GET', `/dns/v2/zones?${query}`);
            assert.deepEqual(Object.keys(body).sort(), ['total_amount', 'zones']);
            return { names: body.zones.map((z: { name: string }) => z.name) as string[], total: body.total_amount as number, zones: body.zones };
          };
          const short = (n: string) => n.replace('.lst.example', '');

          test('items carry the zone fields and rrsets_amount; only the account\'s zones are listed', async () => {
            const { zones, total, names: all } = await list('name=lst.example');
            assert.equal(total, 6);
            const alpha = zones.find((z: { name: string }) => z.name === 'alpha.lst.example');
            assert.equal(alpha.id, ids[0]);
            assert.equal(alpha.client_id, accountA);
            assert.equal(alpha.status, 'active');
            assert.equal(alpha.serial, 1060);
            assert.deepEqual(alpha.rrsets_amount, { static: 1, total: 1, dynamic: { healthcheck: 0, total: 0 } });
            assert.deepEqual(all, names);
            const everything = await list('');
            assert.ok(everything.total >= 6 && everything.names.length === everything.total);
          });

          test('ordering and paging; total_amount counts every match', async () => {
            assert.deepEqual((await list('name=lst.example&order_by=name&order_direction=desc')).names.map(short), ['foxtrot', 'echo', 'delta', 'charlie', 'bravo', 'alpha']);
            const page = await list('name=lst.example&order_by=name&offset=1&limit=2');
            assert.deepEqual(page.names.map(short), ['bravo', 'charlie']);
            assert.equal(page.total, 6);
            const last = await list('name=lst.example&offset=5&limit=10');
            assert.deepEqual(last.names.map(short), ['foxtrot']);
            assert.equal(last.total, 6);
            const beyond = await list('name=lst.example&offset=10');
            assert.deepEqual(beyond.names, []);
            assert.equal(beyond.total, 6);
            assert.deepEqual((await list('name=lst.example&order_by=id')).names, names);
            assert.deepEqual((await list('name=lst.example&order_by=id&order_direction=desc')).names, [...names].reverse());
            assert.deepEqual((await list('name=lst.example&order_by=serial')).names, [...names].reverse());
            assert.deepEqual((await list('name=lst.example&order_by=created_at')).names, names);
            assert.deepEqual((await list('name=lst.example&order_by=status')).names.map(short), ['alpha', 'charlie', 'delta', 'foxtrot', 'bravo', 'echo']);
            assert.deepEqual((await list('name=lst.example&order_by=status&order_direction=desc')).names.map(short).slice(0, 2), ['bravo', 'echo']);
            // The last change sorts last by updated_at.
            await ok('PUT', '/dns/v2/zones/charlie.lst.example', { retry: 700 });
            assert.equal((await list('name=lst.example&order_by=updated_at')).names.at(-1), 'charlie.lst.example');
            // A stray & at the end is fine.
            assert.equal((await list('name=lst.example&limit=1&')).names.length, 1);
          });

          test('filters: name repeated or comma-separated, substring or exact; enabled; status', async () => {
            assert.deepEqual((await list('name=alpha&name=charlie')).names.map(short), ['alpha', 'charlie']);
            assert.deepEqual((await list('name=alpha,charlie')).names.map(short), ['alpha', 'charlie']);
            assert.deepEqual((await list('name=alpha&exact_match=true')).names, []);
            // `_` and `%` are literal characters, not LIKE wildcards.
            assert.deepEqual((await list('name=a_p')).names, []);
            assert.deepEqual((await list('name=%25')).names, []);
            assert.deepEqual((await list('name=ALPHA.lst.example.&exact_match=true')).names, ['alpha.lst.example']);
            assert.deepEqual((await list('name=alpha.lst.example,echo.lst.example&exact_match=true')).names.map(short), ['alpha', 'echo']);
            const disabled = await list('name=lst.example&status=disabled');
            assert.deepEqual(disabled.names.map(short), ['bravo', 'echo']);
            assert.equal(disabled.total, 2);
            assert.deepEqual((await list('name=lst.example&enabled=false')).names.map(short), ['bravo', 'echo']);
            const active = await list('name=lst.example&status=active&limit=1');
            assert.deepEqual(active.names.map(short), ['alpha']);
            assert.equal(active.total, 4);
            assert.equal((await list('name=lst.example&enabled=true')).total, 4);
          });

          test('bad query values are 400 with the error body', async () => {
            for (const [query, field] of [
              ['order_by=bogus', 'order_by'],
              ['limit=0', 'limit'],
              ['limit=x', 'limit'],
              ['offset=-1', 'offset'],
              ['status=x', 'status'],
              ['order_direction=up', 'order_direction'],
              ['enabled=maybe', 'enabled'],
            ] as const) {
              const response = await dns('GET', `/dns/v2/zones?${query}`);
              assertError(response, 400, 'invalid_input');
              assert.ok(field in (response.body.fields ?? {}), `${query}: ${response.text}`);
            }
          });
        });
      });

      describe('RRsets', () => {
        before(async () => {
          await createZone('rr.example');
        });
        const base = '/dns/v2/zones/rr.example';

        test('POST answers 200 with the RRset, the same as GET; POST again is 409', async () => {
          const created = await dns('POST', `${base}/www.rr.example/A`, { ttl: 600, resource_records: [{ content: ['192.0.2.1'] }, { content: ['192.0.2.2'], enabled: false }] });
          assert.equal(created.status, 200, created.text);
          const read = await dns('GET', `${base}/www.rr.example/A`);
          assert.deepEqual(read.body, created.body);
          const body = read.body;
          const contractFields = ['filter_set_id', 'meta', 'name', 'pickers', 'resource_records', 'ttl', 'type', 'updated_at', 'warning', 'warnings'];
          assert.deepEqual(Object.keys(body).sort(), compat === 'gcore' ? [...contractFields, 'filters'].sort() : contractFields);
          assert.deepEqual([body.filter_set_id, body.warning, body.warnings], [0, '', []], 'the neutral values');
          assert.equal(body.name, 'www.rr.example');
          assert.equal(body.type, 'A');
          assert.equal(body.ttl, 600);
          assert.deepEqual(body.meta, {});
          assertPickers(body, null);
          assertUpdatedAt(read);
          assertUpdatedAt(created);
          assert.deepEqual(rawUpdatedAt(read), rawUpdatedAt(created));
          assert.equal(body.resource_records.length, 2);
          for (const record of body.resource_records) {
            assert.deepEqual(Object.keys(record).sort(), ['content', 'enabled', 'id', 'meta']);
            assert.ok(Number.isInteger(record.id));
            assert.deepEqual(record.meta, {});
          }
          assert.deepEqual(body.resource_records.map((r: { enabled: boolean }) => r.enabled), [true, false]);
          assertError(await dns('POST', `${base}/www.rr.example/A`, a('192.0.2.3')), 409, 'conflict');
          // The zone read lists the disabled record too.
          const summary = (await readZone('rr.example')).records.find((r: { name: string; type: string }) => r.name === 'www.rr.example' && r.type === 'A');
          assert.deepEqual(summary, { name: 'www.rr.example', type: 'A', ttl: 600, short_answers: ['192.0.2.1', '192.0.2.2'] });
        });

        test('every RRset result (GET, list, POST, PUT) carries filter_set_id, warning and warnings; only a write with a caveat fills them', async () => {
          const neutral = (rrset: any, where: string) => assert.deepEqual([rrset.filter_set_id, rrset.warning, rrset.warnings], [0, '', []], `${where}: ${JSON.stringify(rrset)}`);
          neutral(await ok('POST', `${base}/fields/TXT`, { resource_records: [{ content: ['one'] }] }), 'POST');
          const duplicated = { resource_records: [{ content: ['two'] }, { content: ['two'] }] };
          const merged = await ok('PUT', `${base}/fields/TXT`, duplicated);
          assert.equal(merged.filter_set_id, 0);
          assert.deepEqual(merged.warnings.map((w: { key: string }) => w.key), ['resource_records']);
          assert.equal(typeof merged.warnings[0].message, 'string');
          assert.equal(merged.warning, merged.warnings[0].message);
          neutral(await ok('GET', `${base}/fields/TXT`), 'GET after a write with a warning');
          neutral(await ok('POST', `${base}/fields2/A`, { resource_records: [{ content: ['192.0.2.1'] }], pickers: [{ type: 'geodns' }] }), 'POST dynamic');
          const list = await ok('GET', `${base}/rrsets`);
          assert.ok(list.rrsets.length >= 3);
          for (const rrset of list.rrsets) neutral(rrset, `list ${String(rrset.name)} ${String(rrset.type)}`);
          const paged = await ok('GET', `${base}/rrsets?limit=1&type=TXT`);
          neutral(paged.rrsets[0], 'paged list');
        });

        test('names: FQDN with or without dot, relative, apex, %2A wildcard; types in any case', async () => {
          await ok('PUT', `${base}/name/A`, a('192.0.2.5'));
          for (const path of ['name.rr.example/A', 'name.rr.example./A', 'name/a', 'NAME.RR.EXAMPLE/A']) {
            const rrset = await ok('GET', `${base}/${path}`);
            assert.equal(rrset.name, 'name.rr.example', path);
            assert.equal(rrset.type, 'A');
          }
          const apex = await ok('PUT', `${base}/rr.example/txt`, { resource_records: [{ content: ['apex'] }] });
          assert.equal(apex.name, 'rr.example');
          assert.equal(apex.type, 'TXT');
          assert.equal(apex.ttl, 300, 'default TTL');
          const wildcard = await ok('PUT', `${base}/%2A.rr.example/A`, a('192.0.2.6'));
          assert.equal(wildcard.name, '*.rr.example');
          assert.equal((await ok('GET', `${base}/*.rr.example/A`)).name, '*.rr.example');
          assert.equal((await ok('GET', `${base}/%2a/A`)).name, '*.rr.example');
          assertError(await dns('PUT', `${base}/www.other.example./A`, a('192.0.2.7')), 400, 'invalid_input');
          assertError(await dns('PUT', `${base}/www/BOGUS`, a('192.0.2.7')), 400, 'invalid_input');
          assertError(await dns('PUT', `${base}/rr.example/SOA`, a('192.0.2.7')), 400, 'invalid_input');
        });

        test('bodies: nulls and read-only or unknown keys are ignored; numeric strings are numbers; enabled defaults to true', async () => {
          const rrset = await ok('PUT', `${base}/nulls/MX`, {
            id: 77,
            name: 'elsewhere.example',
            type: 'TXT',
            updated_at: 12345,
            filter_set_id: null,
            ttl: null,
            meta: null,
            pickers: null,
            filters: null,
            warning: null,
            unknown_key: { anything: true },
            resource_records: [{ id: 99, content: ['10', 'mx1.rr.example.'], enabled: null, meta: null, extra: 1 }, { content: [20, 'mx2.rr.example.'] }],
          });
          assert.equal(rrset.name, 'nulls.rr.example');
          assert.equal(rrset.type, 'MX');
          assert.equal(rrset.ttl, 300);
          assert.deepEqual(rrset.meta, {});
          assertPickers(rrset, null);
          assert.deepEqual(contents(rrset), [[10, 'mx1.rr.example.'], [20, 'mx2.rr.example.']]);
          assert.deepEqual(rrset.resource_records.map((r: { enabled: boolean; id: number }) => r.enabled), [true, true]);
          assert.notEqual(rrset.resource_records[0].id, 99);
          // The body's name and type were ignored: the path decides.
          assertError(await dns('GET', `${base}/nulls/TXT`), 404, 'not_found');
          assertError(await dns('GET', `${base}/elsewhere.example./TXT`), 400, 'invalid_input');
          const stringTtl = await ok('PUT', `${base}/nulls/MX`, { ttl: '120', resource_records: [{ content: ['5', 'mx1.rr.example.'] }] });
          assert.equal(stringTtl.ttl, 120);
          assert.deepEqual(contents(stringTtl), [[5, 'mx1.rr.example.']]);
          assertField(await dns('PUT', `${base}/nulls/MX`, { resource_records: [] }), 'resource_records');
          assertField(await dns('PUT', `${base}/nulls/MX`, { ttl: -1, resource_records: [{ content: [1, 'a.'] }] }), 'ttl');
        });

        test('pickers or filters; pickers wins with a warning when both differ', async () => {
          const geo = [{ type: 'geodns', limit: 0, strict: true }];
          const viaFilters = await ok('PUT', `${base}/pick/A`, { filters: [{ type: 'geodns', strict: true }], resource_records: [{ content: ['192.0.2.1'] }] });
          assertPickers(viaFilters, geo);
          assert.deepEqual(viaFilters.warnings, []);
          const viaPickers = await ok('PUT', `${base}/pick/A`, { pickers: [{ type: 'GeoDNS', strict: true }], resource_records: [{ content: ['192.0.2.1'] }] });
          assertPickers(viaPickers, geo);
          const same = await ok('PUT', `${base}/pick/A`, { pickers: geo, filters: geo, resource_records: [{ content: ['192.0.2.1'] }] });
          assert.deepEqual(same.warnings, [], JSON.stringify(same));
          const both = await ok('PUT', `${base}/pick/A`, {
            pickers: [{ type: 'weighted_shuffle' }, { type: 'first_n', limit: 1 }],
            filters: [{ type: 'geodns', strict: true }],
            resource_records: [{ content: ['192.0.2.1'], meta: { weight: 10 } }, { content: ['192.0.2.2'], meta: { weight: 90 } }],
          });
          const chain = [{ type: 'weighted_shuffle', limit: 0, strict: false }, { type: 'first_n', limit: 1, strict: false }];
          assertPickers(both, chain);
          assert.equal(both.warnings.length, 1);
          assert.equal(both.warnings[0].key, 'filters');
          assert.equal(typeof both.warnings[0].message, 'string');
          assert.equal(both.warning, both.warnings[0].message);
          assertPickers(await ok('GET', `${base}/pick/A`), chain);
          const amount = (await readZone('rr.example')).rrsets_amount as { static: number; total: number; dynamic: { total: number } };
          assert.ok(amount.dynamic.total >= 1 && amount.total === amount.static + amount.dynamic.total, JSON.stringify(amount));
          // An empty chain makes the RRset static again.
          assertPickers(await ok('PUT', `${base}/pick/A`, { pickers: [], resource_records: [{ content: ['192.0.2.1'] }] }), null);

          assertField(await dns('PUT', `${base}/pick/A`, { pickers: [{ type: 'nearest' }], resource_records: [{ content: ['192.0.2.1'] }] }), 'pickers[0].type');
          assertField(await dns('PUT', `${base}/pick/A`, { filters: [{ type: 'geodns' }, { type: 'bogus' }], resource_records: [{ content: ['192.0.2.1'] }] }), 'filters[1].type');
          assertField(await dns('PUT', `${base}/pick/A`, { pickers: [{ type: 'first_n', limit: -1 }], resource_records: [{ content: ['192.0.2.1'] }] }), 'pickers[0].limit');
        });

        test('record meta is kept verbatim (unknown keys too); invalid meta names its path', async () => {
          const meta = {
            countries: ['de', 'FR'],
            continents: ['eu', 'NA'],
            asn: [64500, '64501'],
            ip: ['192.0.2.0/24', '2001:db8::/32', '198.51.100.7'],
            latlong: [52.52, 13.405],
            weight: 10,
            regions: ['berlin'],
            notes: ['primary'],
            default: true,
            backup: false,
            fallback: false,
            custom: { nested: [1, 'two', null], flag: true },
          };
          const rrsetMeta = { failover: { protocol: 'HTTP', port: 443, frequency: 60, timeout: 5, method: 'GET', url: '/health', tls: true }, owner: 'team' };
          const written = await ok('PUT', `${base}/meta/A`, { meta: rrsetMeta, pickers: [{ type: 'geodns' }], resource_records: [{ content: ['192.0.2.1'], meta }] });
          assert.deepEqual(written.resource_records[0].meta, meta);
          assert.deepEqual(written.meta, rrsetMeta);
          const read = await ok('GET', `${base}/meta/A`);
          assert.deepEqual(read.resource_records[0].meta, meta);
          assert.deepEqual(read.meta, rrsetMeta);

          const bad = async (recordMeta: Record<string, unknown>, path: string) =>
            assertField(
              await dns('PUT', `${base}/meta/A`, { resource_records: [{ content: ['192.0.2.9'] }, { content: ['192.0.2.1'], meta: recordMeta }] }),
              path,
            );
          await bad({ countries: ['XX'] }, 'resource_records[1].meta.countries');
          await bad({ continents: ['atlantis'] }, 'resource_records[1].meta.continents');
          await bad({ ip: ['192.0.2.0/99'] }, 'resource_records[1].meta.ip');
          await bad({ ip: ['not-an-ip'] }, 'resource_records[1].meta.ip');
          await bad({ asn: ['AS64500'] }, 'resource_records[1].meta.asn');
          await bad({ weight: -1 }, 'resource_records[1].meta.weight');
          await bad({ latlong: [100, 0] }, 'resource_records[1].meta.latlong');
          await bad({ default: 'yes' }, 'resource_records[1].meta.default');
          const several = await dns('PUT', `${base}/meta/A`, { resource_records: [{ content: ['192.0.2.1'], meta: { countries: ['de', 'XX'], weight: -1 } }] });
          assertField(several, 'resource_records[0].meta.countries');
          assertField(several, 'resource_records[0].meta.weight');
          assertField(await dns('PUT', `${base}/meta/A`, { meta: { failover: { protocol: 'SMTP' } }, resource_records: [{ content: ['192.0.2.1'] }] }), 'meta.failover.protocol');
          // Nothing of the refused writes was stored.
          assert.deepEqual(await ok('GET', `${base}/meta/A`), read);
        });

        test('list: every RRset without limit, paging, ordering, type filter', async () => {
          await createZone('lst-rr.example');
          const zb = '/dns/v2/zones/lst-rr.example';
          await ok('PUT', `${zb}/b/A`, { ttl: 50, resource_records: [{ content: ['192.0.2.1'] }] });
          await ok('PUT', `${zb}/b/AAAA`, { ttl: 40, resource_records: [{ content: ['2001:db8::1'] }] });
          await ok('PUT', `${zb}/a/TXT`, { ttl: 30, resource_records: [{ content: ['t'] }] });
          await ok('PUT', `${zb}/c/CNAME`, { ttl: 20, resource_records: [{ content: ['b.lst-rr.example.'] }] });
          await ok('PUT', `${zb}/lst-rr.example/MX`, { ttl: 10, resource_records: [{ content: [10, 'b.lst-rr.example.'] }] });
          const list = async (query: string) => {
            const response = await dns('GET', `${zb}/rrsets${query}`);
            assert.equal(response.status, 200, response.text);
            assert.deepEqual(Object.keys(response.body).sort(), ['rrsets', 'total_amount']);
            return { keys: response.body.rrsets.map((r: { name: string; type: string }) => `${r.name.replace('.lst-rr.example', '').replace('lst-rr.example', '@')} ${r.type}`) as string[], total: response.body.total_amount as number, response };
          };
          const all = await list('');
          assert.deepEqual(all.keys, ['a TXT', 'b A', 'b AAAA', 'c CNAME', '@ MX', '@ NS']);
          assert.equal(all.total, 6);
          all.response.body.rrsets.forEach((_: unknown, i: number) => assertUpdatedAt(all.response, i));
          assert.deepEqual((await list('?all=true')).keys, all.keys);
          // Descending reverses the whole order: names, and types within a name.
          assert.deepEqual((await list('?order_by=name&order_direction=desc')).keys, ['@ NS', '@ MX', 'c CNAME', 'b AAAA', 'b A', 'a TXT']);
          const page = await list('?limit=2&offset=1');
          assert.deepEqual(page.keys, ['b A', 'b AAAA']);
          assert.equal(page.total, 6);
          const beyond = await list('?offset=10&limit=5');
          assert.deepEqual(beyond.keys, []);
          assert.equal(beyond.total, 6);
          assert.deepEqual((await list('?order_by=ttl')).keys, ['@ MX', 'c CNAME', 'a TXT', 'b AAAA', 'b A', '@ NS']);
          assert.deepEqual((await list('?order_by=ttl&order_direction=desc')).keys, ['@ NS', 'b A', 'b AAAA', 'a TXT', 'c CNAME', '@ MX']);
          assert.deepEqual((await list('?order_by=type')).keys, ['b A', 'b AAAA', 'c CNAME', '@ MX', '@ NS', 'a TXT']);
          assert.equal((await list('?order_by=updated_at')).keys.at(-1), '@ MX');
          const zone = await readZone('lst-rr.example');
          assert.deepEqual(zone.records.find((r: { type: string }) => r.type === 'MX'), { name: 'lst-rr.example', type: 'MX', ttl: 10, short_answers: ['10 b.lst-rr.example.'] });
          assert.deepEqual(zone.rrsets_amount, { static: 6, total: 6, dynamic: { healthcheck: 0, total: 0 } });
          const typed = await list('?type=a&type=AAAA');
          assert.deepEqual(typed.keys, ['b A', 'b AAAA']);
          assert.equal(typed.total, 2);
          assert.deepEqual((await list('?type=A,aaaa,mx')).keys, ['b A', 'b AAAA', '@ MX']);
          const typedPage = await list('?type=A,AAAA,MX&limit=1&offset=1&');
          assert.deepEqual(typedPage.keys, ['b AAAA']);
          assert.equal(typedPage.total, 3);
          for (const query of ['order_by=bogus', 'order_by=id', 'order_direction=sideways', 'limit=0', 'offset=-1']) {
            assertError(await dns('GET', `${zb}/rrsets?${query}`), 400, 'invalid_input');
          }
        });

        test('rrsets_amount counts dynamic RRsets and those with health checks', async () => {
          await createZone('count.example');
          const zb = '/dns/v2/zones/count.example';
          await ok('PUT', `${zb}/static/A`, a('192.0.2.1'));
          await ok('PUT', `${zb}/geo/A`, { pickers: [{ type: 'geodns' }], resource_records: [{ content: ['192.0.2.1'] }] });
          await ok('PUT', `${zb}/hc/A`, { meta: { failover: { protocol: 'TCP', port: 80 } }, pickers: [{ type: 'healthcheck' }], resource_records: [{ content: ['192.0.2.1'] }] });
          assert.deepEqual((await readZone('count.example')).rrsets_amount, { static: 2, total: 4, dynamic: { healthcheck: 1, total: 2 } });
        });

        test('rrsets_amount: a static RRset whose meta merely contains the word "failover" is no health check', async () => {
          await createZone('count2.example');
          await ok('PUT', '/dns/v2/zones/count2.example/www/A', { meta: { comment: 'failover' }, resource_records: [{ content: ['192.0.2.1'] }] });
          assert.deepEqual((await readZone('count2.example')).rrsets_amount, { static: 2, total: 2, dynamic: { healthcheck: 0, total: 0 } });
        });

        test('DELETE answers {} and the RRset is gone; the apex NS cannot be deleted', async () => {
          await ok('PUT', `${base}/del/TXT`, { resource_records: [{ content: ['x'] }] });
          assert.deepEqual(await ok('DELETE', `${base}/DEL.rr.example./txt`), {});
          const read = await dns('GET', `${base}/del/TXT`);
          assert.equal(read.status, 404);
          assert.equal(read.text, recordNotFound);
          assertError(await dns('DELETE', `${base}/rr.example/NS`), 409, 'conflict');
        });
      });

      describe('DNSSEC', () => {
        before(async () => {
          await createZone('sec.example');
        });
        const path = '/dns/v2/zones/sec.example/dnssec';

        const assertKey = (body: any, zone: string) => {
          assert.deepEqual(Object.keys(body).sort(), ['algorithm', 'digest', 'digest_algorithm', 'digest_type', 'ds', 'flags', 'key_tag', 'key_type', 'message', 'public_key']);
          assert.equal(body.algorithm, '13');
          assert.equal(body.digest_algorithm, 'SHA256');
          assert.equal(body.digest_type, '2');
          assert.equal(body.flags, 257);
          assert.equal(body.key_type, 'ECDSAP256SHA256');
          assert.equal(typeof body.message, 'string');
          assert.match(body.digest, /^[0-9a-fA-F]{64}$/);
          assert.ok(Number.isInteger(body.key_tag) && body.key_tag >= 0 && body.key_tag <= 0xffff);
          const point = Buffer.from(body.public_key, 'base64');
          assert.equal(point.length, 64);
          assert.equal(point.toString('base64'), body.public_key);
          // The point is on P-256 (import fails otherwise).
          createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: point.subarray(0, 32).toString('base64url'), y: point.subarray(32).toString('base64url') }, format: 'jwk' });
          // DNSKEY RDATA: flags 257, protocol 3, algorithm 13, the key; DS digest and key tag computed here.
          const rdata = Buffer.concat([Buffer.from([0x01, 0x01, 3, 13]), point]);
          const digest = createHash('sha256').update(wireName(zone)).update(rdata).digest('hex');
          assert.equal(body.digest.toLowerCase(), digest);
          assert.equal(body.key_tag, rfcKeyTag(rdata));
          assert.equal(body.ds, `${zone}. 3600 IN DS ${rfcKeyTag(rdata)} 13 2 ${digest.toUpperCase()}`);
        };
        const sameKey = (x: any, y: any) => {
          const { message: _m1, ...kx } = x;
          const { message: _m2, ...ky } = y;
          assert.deepEqual(kx, ky);
        };

        test('off by default: GET is 400 "dnssec is disabled"', async () => {
          assert.equal((await readZone('sec.example')).dnssec_enabled, false);
          const response = await dns('GET', path);
          assertError(response, 400);
          assert.equal(response.body.error, 'dnssec is disabled');
        });

        test('enabling answers a self-consistent key and DS; again gives the same key; GET the same', async () => {
          const enabled = await ok('PATCH', path, { enabled: true });
          assertKey(enabled, 'sec.example');
          assert.equal((await readZone('sec.example')).dnssec_enabled, true);
          const again = await ok('PATCH', path, { enabled: true });
          assertKey(again, 'sec.example');
          sameKey(again, enabled);
          const read = await ok('GET', path);
          assertKey(read, 'sec.example');
          sameKey(read, enabled);
        });

        test('disabling: GET is 400 again; re-enabling brings back the same key', async () => {
          const first = await ok('GET', path);
          const off = await dns('PATCH', path, { enabled: false });
          assert.equal(off.status, 200, off.text);
          assert.equal(off.body.message, 'dnssec is disabled');
          assert.equal((await readZone('sec.example')).dnssec_enabled, false);
          const read = await dns('GET', path);
          assertError(read, 400);
          assert.equal(read.body.error, 'dnssec is disabled');
          const on = await ok('PATCH', path, { enabled: true });
          sameKey(on, first);
          assert.equal((await readZone('sec.example')).dnssec_enabled, true);
        });

        test('each zone has its own key; the toggle body is validated', async () => {
          await createZone('Sec2.Example');
          const other = await ok('PATCH', '/dns/v2/zones/sec2.example/dnssec', { enabled: true });
          assertKey(other, 'sec2.example');
          assert.notEqual(other.public_key, (await ok('GET', path)).public_key);
          assertError(await dns('PATCH', path, {}), 400, 'invalid_input');
          assertError(await dns('PATCH', path, { enabled: 'sometimes' }), 400, 'invalid_input');
          const missing = await dns('PATCH', '/dns/v2/zones/nosec.example/dnssec', { enabled: true });
          assert.equal(missing.status, 404);
          assert.equal(missing.text, zoneNotFound);
        });
      });

      describe('access', () => {
        before(async () => {
          await createZone('iso.example');
          await ok('PUT', '/dns/v2/zones/iso.example/www/A', a('192.0.2.1'));
        });

        test('account B gets 404 "zone is not found" for A\'s zone on every DNS endpoint; A\'s zone is unchanged', async () => {
          const created = await call(url, 'POST', '/iam/accounts', { auth: admin, body: { email: 'owner@b.example', password: 'b password 1' } });
          assert.equal(created.status, 201, created.text);
          const b = bearer((await login(url, 'owner@b.example', 'b password 1')).access);
          const before = await dns('GET', '/dns/v2/zones/iso.example');
          const z = '/dns/v2/zones/iso.example';
          const rrset = { ttl: 60, resource_records: [{ content: ['198.51.100.1'] }] };
          const attempts: [string, string, unknown?][] = [
            ['GET', z],
            ['PUT', z, { refresh: 7200 }],
            ['PATCH', `${z}/enable`],
            ['PATCH', `${z}/disable`],
            ['GET', `${z}/dnssec`],
            ['PATCH', `${z}/dnssec`, { enabled: true }],
            ['GET', `${z}/rrsets`],
            ['GET', `${z}/rrsets?all=true`],
            ['GET', `${z}/www.iso.example/A`],
            ['POST', `${z}/new.iso.example/A`, rrset],
            ['PUT', `${z}/www.iso.example/A`, rrset],
            ['DELETE', `${z}/www.iso.example/A`],
            ['GET', `${z}/export`],
            ['POST', `${z}/import`, { content: 'imported 300 IN A 198.51.100.2\n' }],
            ['DELETE', z],
          ];
          for (const [method, path, body] of attempts) {
            const response = await dns(method, path, body, b);
            assert.equal(response.status, 404, `${method} ${path}: ${response.status} ${response.text}`);
            assert.equal(response.text, zoneNotFound, `${method} ${path}`);
          }
          assertError(await dns('POST', '/dns/v2/zones', { name: 'iso.example' }, b), 409, 'conflict');
          assertError(await dns('POST', '/dns/v2/zones', { name: 'ISO.example.' }, b), 409, 'conflict');

          const bList = await ok('GET', '/dns/v2/zones', undefined, b);
          assert.deepEqual(bList, { zones: [], total_amount: 0 });
          await ok('POST', '/dns/v2/zones', { name: 'b-own.example' }, b);
          const bAfter = await ok('GET', '/dns/v2/zones?name=example', undefined, b);
          assert.deepEqual(bAfter.zones.map((zone: { name: string }) => zone.name), ['b-own.example']);
          assert.equal(bAfter.total_amount, 1);
          assertError(await dns('GET', '/dns/v2/zones/b-own.example'), 404, 'not_found');

          const after = await dns('GET', '/dns/v2/zones/iso.example');
          assert.deepEqual(zoneBody(after), zoneBody(before));
          assert.deepEqual(contents(await ok('GET', `${z}/www/A`)), [['192.0.2.1']]);
          assertError(await dns('GET', `${z}/new/A`), 404, 'not_found');
          assertError(await dns('GET', `${z}/imported/A`), 404, 'not_found');
          assertError(await dns('GET', `${z}/dnssec`), 400);
        });

        test('a Read-only token reads zones and RRsets but every write is 403', async () => {
          const created = await call(url, 'POST', `/iam/v2/clients/${accountA}/tokens`, {
            auth: admin,
            body: { name: 'dns-ro', client_user: { role: { name: 'Read-only' } } },
          });
          assert.equal(created.status, 201, created.text);
          const ro = apiKey(created.body.token);
          const z = '/dns/v2/zones/iso.example';
          const before = await readZone('iso.example');
          assert.deepEqual(await readZone('iso.example', ro), before);
          assert.ok((await ok('GET', '/dns/v2/zones', undefined, ro)).total_amount >= 1);
          assert.ok((await ok('GET', `${z}/rrsets`, undefined, ro)).total_amount >= 2);
          assert.deepEqual(contents(await ok('GET', `${z}/www/A`, undefined, ro)), [['192.0.2.1']]);
          assert.equal(typeof (await ok('GET', `${z}/export`, undefined, ro)).raw_zone, 'string');
          const rrset = { resource_records: [{ content: ['198.51.100.1'] }] };
          for (const [method, path, body] of [
            ['POST', '/dns/v2/zones', { name: 'ro.example' }],
            ['PUT', z, { refresh: 7200 }],
            ['PATCH', `${z}/enable`],
            ['PATCH', `${z}/disable`],
            ['PATCH', `${z}/dnssec`, { enabled: true }],
            ['POST', `${z}/new/A`, rrset],
            ['PUT', `${z}/www/A`, rrset],
            ['DELETE', `${z}/www/A`],
            ['POST', `${z}/import`, { content: 'imported 300 IN A 198.51.100.2\n' }],
            ['DELETE', z],
          ] as [string, string, unknown?][]) {
            assertError(await dns(method, path, body, ro), 403, 'forbidden');
          }
          assert.deepEqual(await readZone('iso.example'), before);
          assertError(await dns('GET', '/dns/v2/zones/ro.example'), 404);
        });
      });
    });
  }
}
