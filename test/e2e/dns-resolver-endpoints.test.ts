// The endpoints answered through EDGEPLANE_RESOLVER, against Knot DNS serving a parent zone
// (parent.test, with delegations, DS records and glue), the service's name servers' zone (ours.test),
// a zone to look records up in (site.test), a special-use zone (internal) and the root: the DS a
// parent publishes against our key's, the delegation status, the lookup; and the errors: a resolver
// that does not answer (bounded in time), none configured, malformed and special-use names (asked
// directly, or reached through a delegation or a CNAME), types not offered, another account's zone.
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { after, before, describe, test } from 'node:test';
import { engines } from '../support/engines.ts';
import { bearer, call, login } from '../support/http.ts';
import { freePort } from '../support/free-port.ts';
import { onPath, startKnot, type Knot } from '../support/knot.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';
import { dsRecord, parentSoa, type DnssecKey } from '../support/parent-zone.ts';

const knotd = onPath('knotd');
const ci = process.env['CI'] !== undefined && process.env['CI'] !== '';
const skip = knotd === undefined && !ci ? 'knotd is not installed (Debian package "knot")' : false;

for (const engine of engines()) {
  describe(`endpoints through the resolver (${engine})`, { skip }, () => {
    let service: Service;
    let knot: Knot | undefined;
    let auth: string;
    let stranger: string;
    const keys = new Map<string, DnssecKey>();
    const get = (path: string, who = auth) => call(service.url, 'GET', path, { auth: who });

    before(async () => {
      const port = await freePort();
      service = await startService({
        engine,
        env: { EDGEPLANE_NAMESERVERS: 'ns1.ours.test,ns2.ours.test', EDGEPLANE_RESOLVER: `127.0.0.1:${String(port)}`, EDGEPLANE_RESOLVER_TIMEOUT: '1s' },
      });
      auth = bearer((await login(service.url, adminEmail, adminPassword)).access);
      for (const zone of ['good', 'sha384', 'stale', 'nods', 'unsigned', 'plain', 'absent', 'elsewhere', 'mixed', 'vanity']) {
        const created = await call(service.url, 'POST', '/dns/v2/zones', { auth, body: { name: `${zone}.parent.test` } });
        assert.equal(created.status, 200, created.text);
      }
      for (const zone of ['good', 'sha384', 'stale', 'nods']) {
        const on = await call<DnssecKey>(service.url, 'PATCH', `/dns/v2/zones/${zone}.parent.test/dnssec`, { auth, body: { enabled: true } });
        assert.equal(on.status, 200, on.text);
        keys.set(zone, on.body);
      }
      const vanity = await call(service.url, 'PUT', '/dns/v2/zones/vanity.parent.test/vanity.parent.test/NS', {
        auth,
        body: { ttl: 3600, resource_records: [{ content: ['ns1.vanity.test'] }, { content: ['ns2.vanity.test'] }] },
      });
      assert.equal(vanity.status, 200, vanity.text);
      const created = await call(service.url, 'POST', '/iam/accounts', { auth, body: { email: 'owner@other.example', password: 'other password 1' } });
      assert.equal(created.status, 201, created.text);
      stranger = bearer((await login(service.url, 'owner@other.example', 'other password 1')).access);

      const good = keys.get('good')!;
      const stale = keys.get('stale')!;
      // The stale zone's DS: its key tag and algorithm, another key's digest (a registrar left the old one).
      const staleDs = dsRecord('stale.parent.test', stale, 2).replace(/[0-9A-F]{64}$/, 'AB'.repeat(32));
      const parent = [
        parentSoa('parent.test'),
        'parent.test. 300 IN NS ns.parent.test.',
        'ns.parent.test. 300 IN A 127.0.0.1',
        ...['good', 'sha384', 'stale', 'nods', 'unsigned', 'plain'].flatMap((zone) => [
          `${zone}.parent.test. 3600 IN NS ns1.ours.test.`,
          `${zone}.parent.test. 3600 IN NS ns2.ours.test.`,
        ]),
        `good.parent.test. 3600 IN DS ${dsRecord('good.parent.test', good, 2)}`,
        `sha384.parent.test. 3600 IN DS ${dsRecord('sha384.parent.test', keys.get('sha384')!, 4)}`,
        `stale.parent.test. 3600 IN DS ${staleDs}`,
        `unsigned.parent.test. 3600 IN DS ${dsRecord('unsigned.parent.test', good, 2)}`,
        'elsewhere.parent.test. 3600 IN NS ns1.other.test.',
        'elsewhere.parent.test. 3600 IN NS ns2.other.test.',
        'mixed.parent.test. 3600 IN NS ns1.ours.test.',
        'mixed.parent.test. 3600 IN NS ns.mixed.parent.test.',
        'ns.mixed.parent.test. 3600 IN A 192.0.2.53',
        'vanity.parent.test. 3600 IN NS ns1.vanity.test.',
        'vanity.parent.test. 3600 IN NS ns2.vanity.test.',
        // A delegation anyone could publish, naming a host only the operator's resolver knows.
        'leaky.parent.test. 3600 IN NS ns.corp.internal.',
        'leaky.parent.test. 3600 IN NS ns1.ours.test.',
      ];
      const internal = [parentSoa('internal'), 'internal. 300 IN NS ns.internal.', 'ns.corp.internal. 300 IN A 10.0.0.53'];
      // The root zone holds a CNAME from a public name into a special-use one and the record behind
      // it, so Knot follows the chain in one answer as a recursive resolver would.
      const root = ['. 300 IN SOA ns.root. hostmaster.root. 1 3600 600 86400 300', '. 300 IN NS ns.root.', 'leak.example. 60 IN CNAME db.corp.internal.', 'db.corp.internal. 300 IN A 10.0.0.5'];
      const ours = [parentSoa('ours.test'), 'ours.test. 300 IN NS ns1.ours.test.', 'ns1.ours.test. 300 IN A 192.0.2.1', 'ns1.ours.test. 300 IN AAAA 2001:db8::1', 'ns2.ours.test. 300 IN A 192.0.2.2'];
      const site = [
        parentSoa('site.test'),
        'site.test. 300 IN NS ns.site.test.',
        'site.test. 300 IN MX 10 mail.site.test.',
        'site.test. 300 IN TXT "v=spf1 -all" "second \\"part\\""',
        'site.test. 300 IN CAA 0 issue "ca.example"',
        'www.site.test. 120 IN A 192.0.2.10',
        'www.site.test. 120 IN A 192.0.2.11',
        'www.site.test. 120 IN AAAA 2001:db8::10',
        'alias.site.test. 60 IN CNAME www.site.test.',
        '_sip._tcp.site.test. 300 IN SRV 10 5 5060 sip.site.test.',
        ...Array.from({ length: 150 }, (_, i) => `many.site.test. 300 IN TXT "record ${String(i)}"`),
      ];
      knot = await startKnot(
        [
          { name: 'parent.test', text: `${parent.join('\n')}\n` },
          { name: 'ours.test', text: `${ours.join('\n')}\n` },
          { name: 'site.test', text: `${site.join('\n')}\n` },
          { name: 'internal', text: `${internal.join('\n')}\n` },
          { name: '.', text: `${root.join('\n')}\n` },
        ],
        port,
      );
    });
    after(async () => {
      await knot?.stop();
      await service.dispose();
    });

    describe('parent DS', () => {
      test('the parent publishes our key\'s DS: match, and the expected DS is the one the DNSSEC read hands out', async () => {
        const response = await get('/dns/v2/zones/good.parent.test/dnssec/parent-ds');
        assert.equal(response.status, 200, response.text);
        const key = keys.get('good')!;
        assert.equal(response.body.status, 'match');
        assert.equal(response.body.dnssec_enabled, true);
        assert.equal(response.body.expected.digest, key.digest);
        assert.equal(response.body.expected.key_tag, key.key_tag);
        assert.equal(response.body.parent.length, 1);
        assert.equal(`${String(response.body.parent[0].key_tag)} ${String(response.body.parent[0].algorithm)} ${String(response.body.parent[0].digest_type)} ${response.body.parent[0].digest}`, dsRecord('good.parent.test', key, 2));
        assert.equal(response.body.parent[0].ttl, 3600);
        assert.equal(response.body.parent[0].matches, true);
        assert.equal(response.body.message, undefined, 'no "message" in a success body');
      });

      test('a SHA-384 DS of our key matches too', async () => {
        const response = await get('/dns/v2/zones/sha384.parent.test/dnssec/parent-ds');
        assert.equal(response.body.status, 'match', response.text);
        assert.equal(response.body.parent[0].digest_type, 4);
        assert.equal(response.body.parent[0].digest.length, 96);
      });

      test('a DS with our key tag but another digest: mismatch', async () => {
        const response = await get('/dns/v2/zones/stale.parent.test/dnssec/parent-ds');
        assert.equal(response.body.status, 'mismatch', response.text);
        assert.equal(response.body.parent[0].matches, false);
        assert.equal(response.body.parent[0].digest, 'AB'.repeat(32));
        assert.equal(response.body.expected.digest, keys.get('stale')!.digest);
      });

      test('signed, delegated, no DS at the parent: missing', async () => {
        const response = await get('/dns/v2/zones/nods.parent.test/dnssec/parent-ds');
        assert.equal(response.body.status, 'missing', response.text);
        assert.deepEqual(response.body.parent, []);
        assert.notEqual(response.body.expected, null);
      });

      test('DNSSEC off with a DS at the parent: unexpected; without one: insecure', async () => {
        const unexpected = await get('/dns/v2/zones/unsigned.parent.test/dnssec/parent-ds');
        assert.equal(unexpected.body.status, 'unexpected', unexpected.text);
        assert.equal(unexpected.body.expected, null);
        assert.equal(unexpected.body.parent.length, 1);
        const insecure = await get('/dns/v2/zones/plain.parent.test/dnssec/parent-ds');
        assert.equal(insecure.body.status, 'insecure', insecure.text);
      });

      test('the parent does not know the zone: not_delegated', async () => {
        const response = await get('/dns/v2/zones/absent.parent.test/dnssec/parent-ds');
        assert.equal(response.body.status, 'not_delegated', response.text);
      });

      test('another account\'s zone and a malformed name are 404 "zone is not found", as on every zone route', async () => {
        const other = await get('/dns/v2/zones/good.parent.test/dnssec/parent-ds', stranger);
        assert.equal(other.status, 404, other.text);
        assert.equal(other.body.error, 'zone is not found');
        const malformed = await get('/dns/v2/zones/a..b/dnssec/parent-ds');
        assert.equal(malformed.status, 404, malformed.text);
        const anonymous = await call(service.url, 'GET', '/dns/v2/zones/good.parent.test/dnssec/parent-ds');
        assert.equal(anonymous.status, 401);
      });
    });

    describe('delegation status', () => {
      test('delegated to the service\'s name servers: ok, with their addresses looked up', async () => {
        const response = await get('/dns/v2/analyze/good.parent.test/delegation-status');
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.body, {
          authoritative_name_servers: [
            { name: 'ns1.ours.test', ipv4Addresses: ['192.0.2.1'], ipv6Addresses: ['2001:db8::1'] },
            { name: 'ns2.ours.test', ipv4Addresses: ['192.0.2.2'], ipv6Addresses: [] },
          ],
          gcore_authorized_count: 2,
          non_gcore_authorized_count: 0,
          is_whitelabel_delegation: false,
          zone_exists: true,
          status: 'ok',
          expected_name_servers: ['ns1.ours.test', 'ns2.ours.test'],
        });
      });

      test('delegated elsewhere: wrong; half here: partial, with the glue\'s address', async () => {
        const wrong = await get('/dns/v2/analyze/elsewhere.parent.test/delegation-status');
        assert.equal(wrong.body.status, 'wrong', wrong.text);
        assert.equal(wrong.body.gcore_authorized_count, 0);
        assert.equal(wrong.body.non_gcore_authorized_count, 2);
        assert.deepEqual(wrong.body.authoritative_name_servers.map((ns: { name: string }) => ns.name), ['ns1.other.test', 'ns2.other.test']);
        const partial = await get('/dns/v2/analyze/mixed.parent.test/delegation-status');
        assert.equal(partial.body.status, 'partial', partial.text);
        assert.equal(partial.body.gcore_authorized_count, 1);
        assert.equal(partial.body.non_gcore_authorized_count, 1);
        assert.deepEqual(partial.body.authoritative_name_servers[0], { name: 'ns.mixed.parent.test', ipv4Addresses: ['192.0.2.53'], ipv6Addresses: [] });
      });

      test('a name server under a special-use name is listed without its addresses (neither looked up nor taken from the reply)', async () => {
        const response = await get('/dns/v2/analyze/leaky.parent.test/delegation-status');
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.body.authoritative_name_servers, [
          { name: 'ns.corp.internal', ipv4Addresses: [], ipv6Addresses: [] },
          { name: 'ns1.ours.test', ipv4Addresses: ['192.0.2.1'], ipv6Addresses: ['2001:db8::1'] },
        ]);
        assert.equal(response.body.status, 'partial');
      });

      test('not in the parent: not_delegated', async () => {
        const response = await get('/dns/v2/analyze/absent.parent.test/delegation-status');
        assert.equal(response.body.status, 'not_delegated', response.text);
        assert.deepEqual(response.body.authoritative_name_servers, []);
        assert.equal(response.body.zone_exists, true);
      });

      test('delegated under the zone\'s own apex NS names: ok and white-label', async () => {
        const response = await get('/dns/v2/analyze/vanity.parent.test/delegation-status');
        assert.equal(response.body.status, 'ok', response.text);
        assert.equal(response.body.is_whitelabel_delegation, true);
        assert.equal(response.body.gcore_authorized_count, 2);
      });

      test('another account\'s zone is not revealed: zone_exists false, its apex NS not counted as ours', async () => {
        const response = await get('/dns/v2/analyze/vanity.parent.test/delegation-status', stranger);
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.zone_exists, false);
        assert.equal(response.body.status, 'wrong');
        assert.deepEqual(response.body.expected_name_servers, ['ns1.ours.test', 'ns2.ours.test']);
      });

      test('malformed and special-use names: 400 naming the parameter', async () => {
        for (const name of ['a..b', `${'a'.repeat(64)}.test`, 'a'.repeat(300), 'db.corp.internal', '10.in-addr.arpa', 'printer.local']) {
          const response = await get(`/dns/v2/analyze/${encodeURIComponent(name)}/delegation-status`);
          assert.equal(response.status, 400, `${name}: ${response.text}`);
          assert.equal(response.body.code, 'invalid_input');
          assert.equal(typeof response.body.fields.name, 'string', response.text);
        }
      });
    });

    describe('lookup', () => {
      const lookup = (query: string, who = auth) => get(`/dns/v2/lookup?${query}`, who);

      test('one type: the RRset with every record', async () => {
        const response = await lookup('name=www.site.test&type=a');
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.body, [{ name: 'www.site.test.', type: 'A', ttl: 120, content: ['192.0.2.10', '192.0.2.11'] }]);
      });

      test('no type: A, AAAA, MX, NS and TXT, each RRset once, in zone-file form', async () => {
        const apex = await lookup('name=site.test');
        assert.equal(apex.status, 200, apex.text);
        assert.deepEqual(apex.body, [
          { name: 'site.test.', type: 'MX', ttl: 300, content: ['10 mail.site.test.'] },
          { name: 'site.test.', type: 'NS', ttl: 300, content: ['ns.site.test.'] },
          { name: 'site.test.', type: 'TXT', ttl: 300, content: ['"v=spf1 -all" "second \\"part\\""'] },
        ]);
        const alias = await lookup('name=alias.site.test');
        assert.deepEqual(alias.body, [
          { name: 'alias.site.test.', type: 'CNAME', ttl: 60, content: ['www.site.test.'] },
          { name: 'www.site.test.', type: 'A', ttl: 120, content: ['192.0.2.10', '192.0.2.11'] },
          { name: 'www.site.test.', type: 'AAAA', ttl: 120, content: ['2001:db8::10'] },
        ]);
      });

      test('SRV, CAA, SOA, DS through the parent', async () => {
        assert.deepEqual((await lookup('name=_sip._tcp.site.test&type=SRV')).body, [{ name: '_sip._tcp.site.test.', type: 'SRV', ttl: 300, content: ['10 5 5060 sip.site.test.'] }]);
        assert.deepEqual((await lookup('name=site.test&type=CAA')).body, [{ name: 'site.test.', type: 'CAA', ttl: 300, content: ['0 issue "ca.example"'] }]);
        assert.deepEqual((await lookup('name=site.test&type=SOA')).body[0].content, ['ns.site.test. hostmaster.site.test. 1 3600 600 86400 300']);
        assert.equal((await lookup('name=good.parent.test&type=DS')).body[0].content[0], dsRecord('good.parent.test', keys.get('good')!, 2));
      });

      test('a CNAME into a special-use name: the CNAME is answered, the records behind it are not', async () => {
        const response = await lookup('name=leak.example&type=A');
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.body, [{ name: 'leak.example.', type: 'CNAME', ttl: 60, content: ['db.corp.internal.'] }]);
      });

      test('a name that does not exist: an empty list', async () => {
        const response = await lookup('name=nothing.site.test&type=A');
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.body, []);
      });

      test('the answer is cut at 100 records (Knot sends all 150 over TCP after a truncated UDP reply)', async () => {
        const response = await lookup('name=many.site.test&type=TXT');
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body[0].content.length, 100);
      });

      test('types not offered, a request_server, bad names and no credentials are refused', async () => {
        for (const query of ['name=site.test&type=ANY', 'name=site.test&type=AXFR', 'name=site.test&type=DNSKEY', 'name=site.test&request_server=google', 'name=a..b', 'name=', 'name=x.internal', `name=${'a.'.repeat(200)}test`]) {
          const response = await lookup(query);
          assert.equal(response.status, 400, `${query}: ${response.text}`);
          assert.equal(typeof response.body.error, 'string');
        }
        assert.equal((await call(service.url, 'GET', '/dns/v2/lookup?name=site.test')).status, 401);
      });
    });

    test('the OpenAPI document lists the three endpoints with their answers and errors', async () => {
      const openapi = await call(service.url, 'GET', '/openapi.json');
      const paths = openapi.body.paths;
      assert.ok(paths['/dns/v2/zones/{name}/dnssec/parent-ds'].get.responses['200'].content['application/json'].schema.properties.status);
      assert.ok(paths['/dns/v2/analyze/{name}/delegation-status'].get.responses['200'].content['application/json'].schema.properties.gcore_authorized_count);
      const lookupDoc = paths['/dns/v2/lookup'].get;
      assert.deepEqual(lookupDoc.parameters.map((p: { name: string }) => p.name).sort(), ['name', 'request_server', 'type']);
      for (const status of ['429', '502', '503', '504']) assert.ok(lookupDoc.responses[status], `lookup documents ${status}`);
    });

    describe('a resolver that does not answer, and none at all', () => {
      let silent: dgram.Socket;
      let mute: Service;
      let none: Service;
      before(async () => {
        // Takes every datagram and answers none.
        silent = dgram.createSocket('udp4');
        await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
        mute = await service.sibling({ EDGEPLANE_RESOLVER: `127.0.0.1:${String(silent.address().port)}`, EDGEPLANE_RESOLVER_TIMEOUT: '500ms', EDGEPLANE_ROLES: 'api' });
        none = await service.sibling({ EDGEPLANE_RESOLVER: 'none', EDGEPLANE_ROLES: 'api' });
      });
      after(async () => {
        await mute.dispose();
        await none.dispose();
        silent.close();
      });

      test('504 resolver_timeout, within the configured time', async () => {
        const token = bearer((await login(mute.url, adminEmail, adminPassword)).access);
        for (const path of ['/dns/v2/lookup?name=site.test', '/dns/v2/analyze/good.parent.test/delegation-status', '/dns/v2/zones/good.parent.test/dnssec/parent-ds']) {
          const started = Date.now();
          const response = await call(mute.url, 'GET', path, { auth: token });
          const elapsed = Date.now() - started;
          assert.equal(response.status, 504, `${path}: ${response.text}`);
          assert.equal(response.body.code, 'resolver_timeout');
          assert.ok(elapsed >= 450 && elapsed < 2000, `${path} took ${String(elapsed)} ms`);
          assert.doesNotMatch(response.text, /127\.0\.0\.1/, 'the resolver\'s address is not shown');
        }
      });

      test('503 resolver_unavailable when none is configured', async () => {
        const token = bearer((await login(none.url, adminEmail, adminPassword)).access);
        const response = await call(none.url, 'GET', '/dns/v2/lookup?name=site.test', { auth: token });
        assert.equal(response.status, 503, response.text);
        assert.equal(response.body.code, 'resolver_unavailable');
        // Zone scoping comes first: another account's zone is still 404.
        const zone = await call(none.url, 'GET', '/dns/v2/zones/good.parent.test/dnssec/parent-ds', { auth: stranger });
        assert.equal(zone.status, 404, zone.text);
      });
    });
  });
}
