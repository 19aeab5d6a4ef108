// Which names can be zones (public suffixes, single labels, special-use names) and which hosted zone
// owns a name, as pure functions; the HTTP and DNS behaviour is in test/e2e/name-ownership.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { canonicalName } from '../../src/dns/names.ts';
import { ownerAmong, selfAndAncestors } from '../../src/dns/name-ownership.ts';
import { ownsNamesBelow, reservedNameProblem } from '../../src/dns/reserved-names.ts';

describe('reserved names', () => {
  test('single labels, public suffixes of both sections and special-use names are not zones', () => {
    const reserved: [string, RegExp][] = [
      ['com', /single label/],
      ['example', /single label/],
      ['co.uk', /public suffix .*ICANN/],
      ['xn--55qx5d.cn', /public suffix/], // 公司.cn
      ['b.ck', /public suffix/], // *.ck
      ['github.io', /public suffix .*private/],
      ['s3.amazonaws.com', /public suffix .*private/],
      ['in-addr.arpa', /public suffix/],
      ['localhost', /special-use/],
      ['foo.localhost', /below "localhost"/],
      ['x.invalid', /special-use/],
      ['printer.local', /special-use/],
      ['abc.onion', /special-use/],
      ['router.home.arpa', /special-use/],
      ['corp.internal', /special-use/],
      ['10.in-addr.arpa', /special-use/],
      ['5.10.in-addr.arpa', /below "10.in-addr.arpa"/],
      ['20.172.in-addr.arpa', /special-use/],
      ['1.168.192.in-addr.arpa', /special-use/],
      ['127.in-addr.arpa', /special-use/],
      ['100.100.in-addr.arpa', /special-use/],
      ['d.f.ip6.arpa', /special-use/],
      ['8.b.d.0.1.0.0.2.ip6.arpa', /special-use/],
      [`1.${'0.'.repeat(31)}ip6.arpa`, /special-use/],
    ];
    for (const [name, why] of reserved) assert.match(reservedNameProblem(name) ?? 'allowed', why, name);
    for (const name of ['b.example', 'example.com', 'b.test', 'foo.github.io', 'www.ck', 'bbc.co.uk', 'xn--bcher-kva.example', '15.172.in-addr.arpa', '1.in-addr.arpa', '_dmarc.example.com', 'a.b.c.example.net']) {
      assert.equal(reservedNameProblem(name), undefined, name);
    }
  });

  test('the canonical form decides: case, a trailing dot and U-labels do not slip past', () => {
    for (const input of ['COM.', 'Co.Uk', '公司.cn', 'LOCALHOST.', 'Printer.LOCAL.', 'GitHub.IO']) {
      assert.notEqual(reservedNameProblem(canonicalName(input)), undefined, input);
    }
  });

  test('EDGEPLANE_ZONE_ALLOW_RESERVED takes reserved names only, canonicalised', () => {
    assert.deepEqual(loadConfig({}).zoneAllowReserved, []);
    assert.deepEqual(loadConfig({ EDGEPLANE_ZONE_ALLOW_RESERVED: 'Example., github.io,公司.cn' }).zoneAllowReserved, ['example', 'github.io', 'xn--55qx5d.cn']);
    assert.throws(() => loadConfig({ EDGEPLANE_ZONE_ALLOW_RESERVED: 'github.io,b.example' }), /EDGEPLANE_ZONE_ALLOW_RESERVED.*"b.example" is not a public suffix/s);
    assert.throws(() => loadConfig({ EDGEPLANE_ZONE_ALLOW_RESERVED: 'bad..name' }), /EDGEPLANE_ZONE_ALLOW_RESERVED/);
  });
});

describe('who owns a name', () => {
  test('a name and its ancestors, the name first', () => {
    assert.deepEqual(selfAndAncestors('www.b.example'), ['www.b.example', 'b.example', 'example']);
    assert.deepEqual(selfAndAncestors('com'), ['com']);
  });

  test('the closest zone at or above the name decides; a zone at a reserved name owns only its apex', () => {
    const zones = new Map([['b.example', 2], ['child.b.example', 2], ['github.io', 1], ['b.github.io', 3], ['legacy.com', 4], ['com', 5]]);
    assert.deepEqual(ownerAmong('www.b.example', zones), { accountId: 2, zone: 'b.example' });
    assert.deepEqual(ownerAmong('b.example', zones), { accountId: 2, zone: 'b.example' });
    assert.deepEqual(ownerAmong('x.child.b.example', zones), { accountId: 2, zone: 'child.b.example' });
    assert.equal(ownerAmong('c.example', zones), undefined);
    assert.deepEqual(ownerAmong('github.io', zones), { accountId: 1, zone: 'github.io' });
    assert.equal(ownerAmong('other.github.io', zones), undefined);
    assert.deepEqual(ownerAmong('www.b.github.io', zones), { accountId: 3, zone: 'b.github.io' });
    // A zone at a public suffix made before the rules (com) owns nothing below it.
    assert.equal(ownerAmong('www.elsewhere.com', zones), undefined);
    assert.deepEqual(ownerAmong('www.legacy.com', zones), { accountId: 4, zone: 'legacy.com' });
    assert.equal(ownsNamesBelow('com'), false);
    assert.equal(ownsNamesBelow('b.example'), true);
  });
});
