// Record content validation and canonical forms per type, the rules between RRsets (CNAME, NS, DS),
// owner names, and zone-file import/export, all through the HTTP API of a running service.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { assertError } from '../support/assertions.ts';
import { dnsClient, invalidContent, rrsetLines, validContent, zoneChecker, type DnsClient, type ImportResult, type RecordInput, type RrsetView } from '../support/dns-records.ts';
import { engines } from '../support/engines.ts';
import { bearer, call, login, type Response } from '../support/http.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';

const run = promisify(execFile);
const checker = zoneChecker();
const types = Object.keys(validContent);

/** A 400 invalid_input whose fields name exactly these keys; returns the fields. */
function assertInvalid(response: Response, keys: string[]): Record<string, string> {
  assertError(response, 400, 'invalid_input');
  const fields = (response.body as { fields?: Record<string, string> }).fields ?? {};
  assert.deepEqual(Object.keys(fields).sort(), [...keys].sort(), response.text);
  for (const key of keys) assert.ok(typeof fields[key] === 'string' && fields[key] !== '', `${key} has no message: ${response.text}`);
  return fields;
}

/** The zone file the import tests send: every supported type and every reason to skip an entry. */
function importFile(zone: string): string[] {
  return [
    `; a zone file for ${zone}`,
    `$ORIGIN ${zone}.`,
    '$TTL 1h',
    `@ IN SOA ns1.${zone}. hostmaster.${zone}. (   ; the SOA over several lines`,
    '        2024010101 ; serial',
    '        7200       ; refresh',
    '        3600       ; retry',
    '        1209600    ; expiry',
    '        300 )      ; minimum',
    '@        IN NS    ns1.elsewhere.example.',
    '@        IN NS    ns2.elsewhere.example.',
    '@        IN A     192.0.2.1',
    '         IN AAAA  2001:DB8:0:0::1         ; blank owner: the apex again',
    '@        IN MX    10 mail',
    '@        IN MX    20 MX.Backup.example.',
    '@        IN TXT   "v=spf1 mx -all"',
    '@        IN CAA   0 issue "letsencrypt.org"',
    'www  600 IN CNAME @',
    `mail.${zone}. IN A 192.0.2.25            ; an absolute owner`,
    'long     IN TXT   "part one, " "part two: \\"quoted\\" caf\\195\\169"',
    '_sip._tcp IN SRV  10 5 5060 sip',
    'svc      IN HTTPS 1 . alpn="h3,h2" port=443 ipv4hint=192.0.2.1 ipv6hint=2001:DB8::1',
    '_dns     IN SVCB  1 doh.example.net. alpn=h2 dohpath=/dns-query{?dns}',
    'ptr      IN PTR   host.example.net.',
    'sub      IN NS    ns1.provider.example.',
    `sub      IN DS    12345 13 2 ( ${'ab'.repeat(16)}`,
    `                              ${'cd'.repeat(16)} )`,
    '*.wild   IN A     192.0.2.99',
    'bücher   IN A     192.0.2.77',
    '*.wc     IN NS    ns.example.net.',
    'conflict IN A     192.0.2.7',
    'conflict IN CNAME www',
    'existing IN A     192.0.2.8',
    'outside.example.org. IN A 192.0.2.9',
    'badquote IN TXT   "never closed',
    'badttl 1x IN A    192.0.2.10',
    `$ORIGIN dev.${zone}.`,
    'api  300 IN A     192.0.2.50',
    'geo      IN LOC   52 22 23.000 N 4 53 32.000 E -2.00m',
    'opaque   IN TYPE99 \\# 4 0A000001',
    'bad      IN A     999.1.1.1',
    'badmx    IN MX    ten mail.example.net.',
  ];
}

/** The 1-based line of the only line starting with `prefix`. */
function lineOf(lines: string[], prefix: string): number {
  const found = lines.flatMap((line, index) => (line.startsWith(prefix) ? [index + 1] : []));
  assert.equal(found.length, 1, `one line should start with ${prefix}`);
  return found[0]!;
}

/** Checks an import of importFile(zone) and the RRsets it left behind. */
async function checkImport(dns: DnsClient, zone: string, response: Response<ImportResult>, serialBefore: number): Promise<void> {
  const lines = importFile(zone);
  assert.equal(response.status, 200, response.text);
  const z = (name: string) => (name === '@' ? zone : `${name}.${zone}`);

  const created = response.body.created.map((c) => `${c.name} ${c.type} ${c.records}`).sort();
  assert.deepEqual(
    created,
    [
      `${zone} A 1`,
      `${zone} AAAA 1`,
      `${zone} MX 2`,
      `${zone} TXT 1`,
      `${zone} CAA 1`,
      `${z('www')} CNAME 1`,
      `${z('mail')} A 1`,
      `${z('long')} TXT 1`,
      `${z('_sip._tcp')} SRV 1`,
      `${z('svc')} HTTPS 1`,
      `${z('_dns')} SVCB 1`,
      `${z('ptr')} PTR 1`,
      `${z('sub')} NS 1`,
      `${z('sub')} DS 1`,
      `${z('*.wild')} A 1`,
      `${z('xn--bcher-kva')} A 1`,
      `${z('conflict')} A 1`,
      `${z('api.dev')} A 1`,
    ].sort(),
  );

  const expectedSkips: [line: number, name: string | undefined, type: string | undefined, reason: RegExp][] = [
    [lineOf(lines, '@ IN SOA'), zone, 'SOA', /^SOA values are the zone's fields/],
    [lineOf(lines, '@        IN NS    ns1.'), zone, 'NS', /apex NS/],
    [lineOf(lines, '*.wc'), z('*.wc'), 'NS', /wildcard/],
    [lineOf(lines, 'conflict IN CNAME'), z('conflict'), 'CNAME', /CNAME cannot share its name with other records \(A exist/],
    [lineOf(lines, 'existing'), z('existing'), 'A', /the RRset already exists/],
    [lineOf(lines, 'outside'), undefined, undefined, /"outside\.example\.org" is outside the zone/],
    [lineOf(lines, 'badquote'), undefined, undefined, /unterminated quoted string/],
    [lineOf(lines, 'badttl'), undefined, undefined, /"1x" is not a TTL/],
    [lineOf(lines, 'geo'), z('geo.dev'), 'LOC', /^unsupported record type$/],
    [lineOf(lines, 'opaque'), z('opaque.dev'), 'TYPE99', /^unsupported record type$/],
    [lineOf(lines, 'bad      IN A'), z('bad.dev'), 'A', /^A address must be an IPv4 address.*999\.1\.1\.1/],
    [lineOf(lines, 'badmx'), z('badmx.dev'), 'MX', /^MX preference must be an integer/],
  ];
  expectedSkips.sort((x, y) => x[0] - y[0]);
  assert.deepEqual(
    response.body.skipped.map((s) => [s.line, s.name, s.type]),
    expectedSkips.map(([line, name, type]) => [line, name, type]),
    JSON.stringify(response.body.skipped, null, 1),
  );
  response.body.skipped.forEach((skip, index) => assert.match(skip.reason, expectedSkips[index]![3], JSON.stringify(skip)));

  // The RRsets, read back: canonical content; names in RDATA absolute without a trailing dot.
  const expected: [name: string, type: string, ttl: number, content: unknown[][]][] = [
    ['@', 'A', 3600, [['192.0.2.1']]],
    ['@', 'AAAA', 3600, [['2001:db8::1']]],
    ['@', 'MX', 3600, [[10, z('mail')], [20, 'mx.backup.example']]],
    ['@', 'TXT', 3600, [['v=spf1 mx -all']]],
    ['@', 'CAA', 3600, [[0, 'issue', 'letsencrypt.org']]],
    ['www', 'CNAME', 600, [[zone]]],
    ['mail', 'A', 3600, [['192.0.2.25']]],
    ['long', 'TXT', 3600, [['part one, part two: "quoted" café']]],
    ['_sip._tcp', 'SRV', 3600, [[10, 5, 5060, z('sip')]]],
    ['svc', 'HTTPS', 3600, [[1, '.', ['alpn', 'h3', 'h2'], ['port', 443], ['ipv4hint', '192.0.2.1'], ['ipv6hint', '2001:db8::1']]]],
    ['_dns', 'SVCB', 3600, [[1, 'doh.example.net', ['alpn', 'h2'], ['dohpath', '/dns-query{?dns}']]]],
    ['ptr', 'PTR', 3600, [['host.example.net']]],
    ['sub', 'NS', 3600, [['ns1.provider.example']]],
    ['sub', 'DS', 3600, [[12345, 13, 2, `${'AB'.repeat(16)}${'CD'.repeat(16)}`]]],
    ['*.wild', 'A', 3600, [['192.0.2.99']]],
    ['xn--bcher-kva', 'A', 3600, [['192.0.2.77']]],
    ['conflict', 'A', 3600, [['192.0.2.7']]],
    ['existing', 'A', 300, [['192.0.2.200']]],
    ['api.dev', 'A', 300, [['192.0.2.50']]],
  ];
  for (const [name, type, ttl, content] of expected) {
    const read = await dns.get(zone, z(name), type);
    assert.equal(read.status, 200, `${name} ${type}: ${read.text}`);
    assert.equal(read.body.ttl, ttl, `${name} ${type} ttl`);
    assert.deepEqual(read.body.resource_records.map((r) => r.content), content, `${name} ${type}`);
  }
  for (const [name, type] of [['conflict', 'CNAME'], ['bad.dev', 'A'], ['badmx.dev', 'MX'], ['*.wc', 'NS'], ['outside.example.org', 'A'], ['badttl', 'A'], ['badquote', 'TXT']] as const) {
    assert.equal((await dns.get(zone, z(name), type)).status, 404, `${name} ${type} should not exist`);
  }
  // The apex NS and the SOA values are the zone's own.
  assert.deepEqual(await dns.contents(zone, zone, 'NS'), [['ns1.edgeplane.invalid'], ['ns2.edgeplane.invalid']]);
  const fields = await dns.zone(zone);
  assert.equal(fields['refresh'], 3600);
  assert.equal(fields['primary_server'], 'ns1.edgeplane.invalid');
  // One change for the whole import.
  assert.equal(fields['serial'], serialBefore + 1);
}

for (const engine of engines()) {
  describe(`DNS records and zone files (${engine})`, () => {
    let service: Service;
    let dns: DnsClient;
    const zone = 'example.com';
    before(async () => {
      service = await startService({ engine });
      dns = dnsClient(service.url, bearer((await login(service.url, adminEmail, adminPassword)).access));
      await dns.createZone(zone);
    });
    after(() => service.dispose());

    for (const type of types) {
      test(`${type}: valid content is stored in its canonical form`, async () => {
        const name = `v-${type.toLowerCase()}`;
        if (type === 'DS') assert.equal((await dns.put(zone, name, 'NS', [['ns1.provider.example.']])).status, 200);
        for (const [input, canonical] of validContent[type] ?? []) {
          const written = await dns.put(zone, name, type, [input]);
          assert.equal(written.status, 200, `${JSON.stringify(input)}: ${written.text}`);
          assert.equal(written.body.name, `${name}.${zone}`);
          assert.equal(written.body.type, type);
          assert.deepEqual(written.body.resource_records.map((r: { content: unknown }) => r.content), [canonical], JSON.stringify(input));
          assert.deepEqual(await dns.contents(zone, name, type), [canonical], `read back ${JSON.stringify(input)}`);
        }
        if (type === 'TXT') assert.ok(validContent['TXT']!.some(([input]) => Buffer.byteLength(String(input[0])) === 600), 'a 600-octet TXT');
      });

      test(`${type}: invalid content is a 400 naming the record's index`, async () => {
        const name = `i-${type.toLowerCase()}`;
        if (type === 'DS') assert.equal((await dns.put(zone, name, 'NS', [['ns1.provider.example.']])).status, 200);
        const good = validContent[type]![0]![0];
        const bad = invalidContent[type] ?? [];
        assert.ok(bad.length >= 3);
        for (const content of bad) {
          const fields = assertInvalid(await dns.put(zone, name, type, [good, content]), ['resource_records[1].content']);
          assert.match(fields['resource_records[1].content']!, new RegExp(`^${type} `), JSON.stringify(content));
        }
        assert.equal((await dns.get(zone, name, type)).status, 404, 'nothing was stored');
      });
    }

    test('every bad record of a PUT is reported, each with its index', async () => {
      assertInvalid(await dns.put(zone, 'many-bad', 'MX', [[10, 'a.example'], ['x', 'b.example'], [20, 'c.example'], [30]]), [
        'resource_records[1].content',
        'resource_records[3].content',
      ]);
      assertInvalid(await dns.put(zone, 'many-bad', 'MX', [{ content: 'mail.example' as unknown as unknown[] }]), ['resource_records[0].content']);
    });

    test('nothing is half-written: a PUT with a bad record stores nothing and keeps the serial', async () => {
      let serial = await dns.serial(zone);
      // A new RRset.
      assertInvalid(await dns.put(zone, 'half', 'A', [['192.0.2.1'], ['192.0.2.256']]), ['resource_records[1].content']);
      assert.equal((await dns.get(zone, 'half', 'A')).status, 404);
      assert.equal(await dns.serial(zone), serial);
      // An existing RRset keeps its records.
      assert.equal((await dns.put(zone, 'half', 'A', [['192.0.2.1'], ['192.0.2.2']])).status, 200);
      assert.equal(await dns.serial(zone), (serial += 1), 'a good PUT is one change');
      assertInvalid(await dns.put(zone, 'half', 'A', [['192.0.2.3'], ['nope']], 60), ['resource_records[1].content']);
      const kept = await dns.get(zone, 'half', 'A');
      assert.equal(kept.body.ttl, 300);
      assert.deepEqual(kept.body.resource_records.map((r) => r.content), [['192.0.2.1'], ['192.0.2.2']]);
      assert.equal(await dns.serial(zone), serial);
      // A conflict found inside the change rolls it back too.
      assert.equal((await dns.put(zone, 'half-alias', 'CNAME', [['half.example.com.']])).status, 200);
      serial += 1;
      assertError(await dns.put(zone, 'half-alias', 'TXT', [['x']]), 409, 'conflict');
      assert.equal((await dns.get(zone, 'half-alias', 'TXT')).status, 404);
      assert.equal(await dns.serial(zone), serial);
    });

    test('CNAME: never at the apex, never beside other data; replacing it is fine', async () => {
      assertError(await dns.put(zone, '@', 'CNAME', [['elsewhere.example.']]), 400, 'invalid_input');
      assertError(await dns.put(zone, 'example.com.', 'CNAME', [['elsewhere.example.']]), 400, 'invalid_input');
      assert.equal((await dns.get(zone, zone, 'CNAME')).status, 404);

      assert.equal((await dns.put(zone, 'has-a', 'A', [['192.0.2.1']])).status, 200);
      assertError(await dns.put(zone, 'has-a', 'CNAME', [['elsewhere.example.']]), 409, 'conflict');
      assert.equal((await dns.get(zone, 'has-a', 'CNAME')).status, 404);

      assert.equal((await dns.put(zone, 'alias', 'CNAME', [['one.example.']])).status, 200);
      assertError(await dns.put(zone, 'alias', 'A', [['192.0.2.1']]), 409, 'conflict');
      assertError(await dns.put(zone, 'alias', 'TXT', [['text']]), 409, 'conflict');
      const replaced = await dns.put(zone, 'alias', 'CNAME', [['Two.Example.']]);
      assert.equal(replaced.status, 200, replaced.text);
      assert.deepEqual(await dns.contents(zone, 'alias', 'CNAME'), [['two.example.']]);
      // Once the CNAME is gone, other data may take the name.
      assert.deepEqual((await dns.del(zone, 'alias', 'CNAME')).body, {});
      assert.equal((await dns.put(zone, 'alias', 'A', [['192.0.2.1']])).status, 200);
      // A wildcard owner may hold a CNAME.
      const wild = await dns.put(zone, '*.cdn', 'CNAME', [['edge.example.net.']]);
      assert.equal(wild.status, 200, wild.text);
      assert.equal(wild.body.name, '*.cdn.example.com');
    });

    test('owner names: relative, absolute, case, wildcards, IDN, label length, outside the zone', async () => {
      const owner = async (name: string) => {
        const written = await dns.put(zone, name, 'TXT', [['owner test']]);
        assert.equal(written.status, 200, `${name}: ${written.text}`);
        return written.body.name as string;
      };
      assert.equal(await owner('www'), 'www.example.com');
      assert.equal(await owner('www.example.com'), 'www.example.com');
      assert.equal(await owner('www.example.com.'), 'www.example.com');
      assert.equal(await owner('Upper.Example.COM.'), 'upper.example.com');
      assert.equal(await owner('@'), 'example.com');
      assert.equal(await owner('example.com.'), 'example.com');
      assert.equal(await owner('*'), '*.example.com');
      assert.equal(await owner('*.example.com'), '*.example.com');
      assert.equal(await owner('*.wild'), '*.wild.example.com');
      assert.equal(await owner('_acme-challenge.www'), '_acme-challenge.www.example.com');
      assert.equal(await owner('bücher'), 'xn--bcher-kva.example.com');
      assert.equal(await owner('a'.repeat(63)), `${'a'.repeat(63)}.example.com`);
      // Without a trailing dot a name outside the zone is relative to it.
      assert.equal(await owner('www.example.org'), 'www.example.org.example.com');
      // Every spelling reads the same RRset.
      for (const spelling of ['www', 'WWW.example.com', 'www.example.com.']) {
        assert.deepEqual(await dns.contents(zone, spelling, 'txt'), [['owner test']], spelling);
      }
      assert.deepEqual(await dns.contents(zone, 'xn--bcher-kva', 'TXT'), [['owner test']]);
      assert.deepEqual(await dns.contents(zone, 'BÜCHER.example.com', 'TXT'), [['owner test']]);

      for (const name of ['a.*', 'a.*.example.com', '*a', 'a*.example.com', '**', 'a'.repeat(64), 'a..b', '-a', 'a b', 'www.example.org.']) {
        const refused = await dns.put(zone, name, 'TXT', [['owner test']]);
        assertError(refused, 400, 'invalid_input');
        assert.equal(typeof refused.body.fields?.name, 'string', `${name}: ${refused.text}`);
      }
      assertError(await dns.put(zone, 'www', 'SOA', [['x']]), 400, 'invalid_input');
      assertError(await dns.put(zone, 'www', 'LOC', [['x']]), 400, 'invalid_input');
    });

    test('NS and DS: no wildcard NS; DS only at a delegation; the NS under a DS and the apex NS stay', async () => {
      assertError(await dns.put(zone, '*', 'NS', [['ns1.provider.example.']]), 400, 'invalid_input');
      assertError(await dns.put(zone, '*.deleg', 'NS', [['ns1.provider.example.']]), 400, 'invalid_input');
      const ds = [[12345, 13, 2, 'ab'.repeat(32)]];
      assertError(await dns.put(zone, '@', 'DS', ds), 400, 'invalid_input');
      assertError(await dns.put(zone, 'no-ns', 'DS', ds), 400, 'invalid_input');
      assert.equal((await dns.put(zone, 'no-ns', 'A', [['192.0.2.1']])).status, 200);
      assertError(await dns.put(zone, 'no-ns', 'DS', ds), 400, 'invalid_input');
      assert.equal((await dns.get(zone, 'no-ns', 'DS')).status, 404);

      assert.equal((await dns.put(zone, 'deleg', 'NS', [['ns1.provider.example.'], ['ns2.provider.example.']])).status, 200);
      assert.equal((await dns.put(zone, 'deleg', 'DS', ds)).status, 200);
      assertError(await dns.del(zone, 'deleg', 'NS'), 409, 'conflict');
      assert.equal((await dns.get(zone, 'deleg', 'NS')).status, 200);
      const deleted = await dns.del(zone, 'deleg', 'DS');
      assert.equal(deleted.status, 200, deleted.text);
      assert.deepEqual(deleted.body, {});
      assert.equal((await dns.del(zone, 'deleg', 'NS')).status, 200);
      assert.equal((await dns.get(zone, 'deleg', 'NS')).status, 404);
      assertError(await dns.del(zone, 'deleg', 'NS'), 404);

      const serial = await dns.serial(zone);
      assertError(await dns.del(zone, '@', 'NS'), 409, 'conflict');
      assertError(await dns.del(zone, 'example.com', 'NS'), 409, 'conflict');
      assert.equal((await dns.contents(zone, '@', 'NS')).length, 2);
      assert.equal(await dns.serial(zone), serial);
    });

    test('names of 101-253 octets are usable; longer ones are a 400', async () => {
      const long = `${'a'.repeat(60)}.${'b'.repeat(60)}`; // 121 octets; 133 with the zone
      const written = await dns.put(zone, long, 'A', [['192.0.2.1']]);
      assert.equal(written.status, 200, written.text);
      assert.equal(written.body.name, `${long}.example.com`);
      const tooLong = Array.from({ length: 4 }, () => 'c'.repeat(61)).join('.'); // 247 + 12 = 259 octets
      const refused = await dns.put(zone, tooLong, 'A', [['192.0.2.1']]);
      assertError(refused, 400, 'invalid_input');
    });

    describe('zone-file import', () => {
      test('a JSON {content} import creates the supported RRsets and reports each skipped entry', async () => {
        const target = 'imp-json.test';
        await dns.createZone(target);
        assert.equal((await dns.put(target, 'existing', 'A', [['192.0.2.200']])).status, 200);
        const serial = await dns.serial(target);
        await checkImport(dns, target, await dns.importJson(target, importFile(target).join('\n')), serial);
      });

      test('a text/plain import (CRLF line ends) gives the same result', async () => {
        const target = 'imp-text.test';
        await dns.createZone(target);
        assert.equal((await dns.put(target, 'existing', 'A', [['192.0.2.200']])).status, 200);
        const serial = await dns.serial(target);
        const imported = await dns.importRaw(target, `${importFile(target).join('\r\n')}\r\n`, 'text/plain; charset=utf-8');
        await checkImport(dns, target, imported, serial);
        // A second import finds every RRset in place.
        const again = await dns.importJson(target, importFile(target).join('\n'));
        assert.equal(again.status, 200, again.text);
        assert.deepEqual(again.body.created, []);
        assert.equal(again.body.skipped.filter((s) => s.reason === 'the RRset already exists').length, 19);
      });

      test('wrong content types are 415; an empty zone file is 400', async () => {
        const target = 'imp-bad.test';
        await dns.createZone(target);
        const serial = await dns.serial(target);
        assertError(await dns.importRaw(target, '<zone/>', 'application/xml'), 415);
        assertError(await dns.importRaw(target, 'www IN A 192.0.2.1\n', 'text/csv'), 415);
        assertError(await dns.importJson(target, ''), 400, 'invalid_input');
        assertError(await dns.importRaw(target, '', 'text/plain'), 400, 'invalid_input');
        assertError(await dns.importRaw(target, ' \n\t\n', 'text/plain'), 400, 'invalid_input');
        assertError(await dns.importRaw(target, JSON.stringify({ zone: 'www IN A 192.0.2.1' }), 'application/json'), 400, 'invalid_input');
        assertError(await dns.importJson('missing.test', 'www IN A 192.0.2.1\n'), 404);
        assert.equal(await dns.serial(target), serial);
        assert.deepEqual((await dns.rrsets(target)).map((r) => r.type), ['NS']);
      });

      test('relative names in RDATA follow $ORIGIN', async () => {
        const target = 'origin.test';
        await dns.createZone(target);
        const imported = await dns.importJson(target, `$ORIGIN sub.${target}.\nwww 300 IN CNAME host\n@ 300 IN MX 10 mail\n`);
        assert.equal(imported.status, 200, imported.text);
        assert.deepEqual(await dns.contents(target, `www.sub.${target}`, 'CNAME'), [[`host.sub.${target}`]]);
        assert.deepEqual(await dns.contents(target, `sub.${target}`, 'MX'), [[10, `mail.sub.${target}`]]);
      });

      test('a DS written before its NS is imported', async () => {
        const target = 'ds-order.test';
        await dns.createZone(target);
        const imported = await dns.importJson(target, `sub 300 IN DS 1 8 2 ${'AB'.repeat(32)}\nsub 300 IN NS ns1.provider.example.\n`);
        assert.equal(imported.status, 200, imported.text);
        assert.deepEqual(imported.body.skipped, []);
        assert.deepEqual(await dns.contents(target, 'sub', 'DS'), [[1, 8, 2, 'AB'.repeat(32)]]);
      });
    });

    describe('zone-file export', () => {
      const target = 'rt.test';
      let raw = '';
      let original: RrsetView[] = [];
      let reimport: ImportResult | undefined;
      const isApexNs = (rrset: RrsetView) => rrset.name === target && rrset.type === 'NS';

      before(async () => {
        await dns.createZone(target);
        const writes: [string, string, RecordInput[], number?][] = [
          ['@', 'A', [['192.0.2.1']]],
          ['@', 'AAAA', [['2001:DB8::1']]],
          ['@', 'MX', [[10, 'mail.rt.test.'], [20, 'mx.bücher.example']]],
          ['@', 'TXT', [['v=spf1 mx -all'], ['say "hi" \\ ☃']]],
          ['@', 'CAA', [[0, 'issue', 'letsencrypt.org'], [128, 'iodef', 'mailto:sec@rt.test']]],
          ['mail', 'A', [['192.0.2.25']], 3600],
          ['sip', 'AAAA', [['2001:db8::5060']]],
          ['www', 'CNAME', [['rt.test.']]],
          ['long', 'TXT', [['é'.repeat(300)]]],
          ['_sip._tcp', 'SRV', [[10, 5, 5060, 'sip.rt.test.'], [20, 0, 5060, 'sip.rt.test']]],
          ['svc', 'HTTPS', [validContent['HTTPS']![0]![0], [2, 'svc.rt.test', ['alpn', 'h 2']]]],
          ['_dns', 'SVCB', [[1, 'doh.example.net.', ['alpn', 'h2'], ['dohpath', '/dns-query{?dns}']]]],
          ['ptr', 'PTR', [['host.example.net.']]],
          ['sub', 'NS', [['ns1.provider.example.'], ['ns2.provider.example']], 3600],
          ['sub', 'DS', [[12345, 13, 2, 'ab'.repeat(32)]], 3600],
          ['*.wild', 'A', [['192.0.2.99']]],
          ['bücher', 'A', [['192.0.2.77']]],
          ['dis', 'A', [{ content: ['192.0.2.3'], enabled: false }, { content: ['192.0.2.4'] }]],
        ];
        for (const [name, type, records, ttl] of writes) {
          const written = await dns.put(target, name, type, records, ttl);
          assert.equal(written.status, 200, `${name} ${type}: ${written.text}`);
        }
        original = await dns.rrsets(target);
        raw = await dns.exportZone(target);
      });

      test('the export is a BIND zone file: header, SOA first, then the apex NS, one line per enabled record', async () => {
        const fields = await dns.zone(target);
        const lines = raw.split('\n');
        assert.ok(raw.endsWith('\n'));
        assert.equal(lines[0], '; Zone rt.test, exported by edgeplane');
        assert.equal(lines[1], '$ORIGIN rt.test.');
        assert.equal(lines[2], '$TTL 300');
        assert.equal(
          lines[3],
          `@\t300\tIN\tSOA\tns1.edgeplane.invalid. hostmaster.rt.test. ${fields['serial']} 3600 600 1209600 300`,
        );
        assert.deepEqual(lines.slice(4, 6), ['@\t86400\tIN\tNS\tns1.edgeplane.invalid.', '@\t86400\tIN\tNS\tns2.edgeplane.invalid.']);
        assert.equal(lines.filter((line) => /\tSOA\t/.test(line)).length, 1);
        for (const line of [
          '@\t300\tIN\tA\t192.0.2.1',
          '@\t300\tIN\tAAAA\t2001:db8::1',
          '@\t300\tIN\tMX\t10 mail.rt.test.',
          '@\t300\tIN\tMX\t20 mx.xn--bcher-kva.example.',
          '@\t300\tIN\tTXT\t"v=spf1 mx -all"',
          '@\t300\tIN\tTXT\t"say \\"hi\\" \\\\ \\226\\152\\131"',
          '@\t300\tIN\tCAA\t0 issue "letsencrypt.org"',
          '@\t300\tIN\tCAA\t128 iodef "mailto:sec@rt.test"',
          'mail\t3600\tIN\tA\t192.0.2.25',
          'www\t300\tIN\tCNAME\trt.test.',
          '_sip._tcp\t300\tIN\tSRV\t10 5 5060 sip.rt.test.',
          '_sip._tcp\t300\tIN\tSRV\t20 0 5060 sip.rt.test.',
          'svc\t300\tIN\tHTTPS\t1 xn--bcher-kva.example. mandatory=alpn,port alpn=h3,h2 no-default-alpn port=443 ipv4hint=192.0.2.1,192.0.2.2 ech=AEX+/w== ipv6hint=2001:db8::1',
          'svc\t300\tIN\tHTTPS\t2 svc.rt.test. alpn="h 2"',
          '_dns\t300\tIN\tSVCB\t1 doh.example.net. alpn=h2 dohpath=/dns-query{?dns}',
          'ptr\t300\tIN\tPTR\thost.example.net.',
          'sub\t3600\tIN\tNS\tns1.provider.example.',
          `sub\t3600\tIN\tDS\t12345 13 2 ${'AB'.repeat(32)}`,
          '*.wild\t300\tIN\tA\t192.0.2.99',
          'xn--bcher-kva\t300\tIN\tA\t192.0.2.77',
          'dis\t300\tIN\tA\t192.0.2.4',
        ]) {
          assert.ok(lines.includes(line), `missing line ${JSON.stringify(line)} in\n${raw}`);
        }
        // Disabled records are not served, so not exported.
        assert.ok(!raw.includes('192.0.2.3'));
        // 600 octets of TXT: three strings of 255, 255 and 90 octets, each octet outside ASCII as \DDD.
        const long = lines.find((line) => line.startsWith('long\t'));
        const strings = /^long\t300\tIN\tTXT\t"((?:\\\d{3})+)" "((?:\\\d{3})+)" "((?:\\\d{3})+)"$/.exec(long ?? '');
        assert.ok(strings, `long TXT line: ${long}`);
        assert.deepEqual(strings.slice(1).map((s) => s.length / 4), [255, 255, 90]);
        // One line per enabled record, SOA and apex NS included, plus the three header lines.
        const records = original.reduce((sum, rrset) => sum + rrset.resource_records.filter((r) => r.enabled).length, 0);
        assert.equal(lines.length - 1, 3 + 1 + records);
        // After the apex NS, owners in DNS order: the apex first.
        const owners = lines.slice(6, -1).map((line) => line.split('\t')[0]);
        assert.equal(owners.lastIndexOf('@'), owners.filter((owner) => owner === '@').length - 1, owners.join(' '));
      });

      test('export → import into a fresh zone gives the same RRsets (apex NS and SOA aside)', async () => {
        await dns.deleteZone(target);
        await dns.createZone(target);
        const imported = await dns.importJson(target, raw);
        assert.equal(imported.status, 200, imported.text);
        reimport = imported.body;
        const skippedTypes = imported.body.skipped.map((s) => s.type);
        assert.ok(skippedTypes.includes('SOA') && skippedTypes.includes('NS'), JSON.stringify(imported.body.skipped));
        // The DS is checked by the next test; every other RRset must come back as it was.
        const notDs = (rrset: RrsetView) => isApexNs(rrset) || rrset.type === 'DS';
        assert.deepEqual(rrsetLines(await dns.rrsets(target), notDs), rrsetLines(original, notDs));
        assert.deepEqual(
          imported.body.skipped.filter((s) => s.type !== 'DS').map((s) => s.type),
          ['SOA', 'NS'],
        );
      });

      test('the DS survives the export → import round trip', async () => {
        assert.ok(reimport, 'the round trip ran');
        assert.deepEqual(reimport.skipped.map((s) => s.type), ['SOA', 'NS'], JSON.stringify(reimport.skipped));
        assert.deepEqual(await dns.contents(target, 'sub', 'DS'), [[12345, 13, 2, 'AB'.repeat(32)]]);
      });

      test('the export passes kzonecheck or named-checkzone', { skip: checker === undefined ? 'neither kzonecheck (knot) nor named-checkzone (bind9) is on the PATH' : false }, async () => {
        assert.ok(checker);
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-zone-'));
        try {
          const file = path.join(dir, 'rt.test.zone');
          fs.writeFileSync(file, raw);
          await assert.doesNotReject(run(checker.name, checker.args(target, file)), `${checker.name} refused:\n${raw}`);
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
        }
      });
    });

    test('concurrent writes commit in batches, counted at /metrics by way: guarded or unread on PostgreSQL, locked on SQLite', async () => {
      const batches = async () => {
        const text = (await call(service.url, 'GET', '/metrics')).text;
        const count = (way: string) => Number(new RegExp(`^edgeplane_rrset_batches_total\\{way="${way}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
        return { guarded: count('guarded') + count('unread'), locked: count('locked') };
      };
      const before = await batches();
      const serial = await dns.serial(zone);
      const written = await Promise.all(Array.from({ length: 8 }, (_, i) => dns.put(zone, `batched${String(i)}`, 'A', [[`192.0.2.${String(i + 1)}`]])));
      assert.deepEqual(written.map((w) => w.status), Array(8).fill(200));
      assert.equal(await dns.serial(zone), serial + 8);
      const after = await batches();
      const guarded = after.guarded - before.guarded;
      const locked = after.locked - before.locked;
      assert.ok(guarded + locked >= 1 && guarded + locked <= 8, JSON.stringify({ before, after }));
      assert.equal(engine === 'postgres' ? locked : guarded, 0, JSON.stringify({ before, after }));
      assert.deepEqual(await dns.contents(zone, 'batched7', 'A'), [['192.0.2.8']]);
    });
  });
}
