// The compiled address set against what the entries mean: single addresses, CIDR edges, IPv6,
// IPv4-mapped IPv6 on both sides, merging, and 1,000 random CIDRs against a naive check.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import ipaddr from 'ipaddr.js';
import { compileAddressSet } from '../../../src/security/proxy/steps/address-set.ts';
import { seededRandom } from '../../support/prng.ts';

test('addresses and the edges of IPv4 ranges', () => {
  const set = compileAddressSet(['192.0.2.7', '10.0.0.0/8', '198.51.100.128/25', '0.0.0.0/32', '255.255.255.255']);
  for (const inside of ['192.0.2.7', '10.0.0.0', '10.255.255.255', '10.1.2.3', '198.51.100.128', '198.51.100.255', '0.0.0.0', '255.255.255.255']) {
    assert.equal(set.has(inside), true, inside);
  }
  for (const outside of ['192.0.2.6', '192.0.2.8', '9.255.255.255', '11.0.0.0', '198.51.100.127', '199.0.0.0', '0.0.0.1', '255.255.255.254']) {
    assert.equal(set.has(outside), false, outside);
  }
});

test('IPv6 ranges, their edges, and what is not an address', () => {
  const set = compileAddressSet(['2001:db8::/32', '2001:db9::1', 'fe80::/10', '::1']);
  for (const inside of ['2001:db8::', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', '2001:db8:1::5', '2001:db9::1', 'fe80::1', 'febf:ffff::1', '::1']) {
    assert.equal(set.has(inside), true, inside);
  }
  for (const outside of ['2001:db7:ffff:ffff:ffff:ffff:ffff:ffff', '2001:db9::', '2001:db9::2', 'fec0::', '::2', '::', '', 'nonsense', '1.2.3', '2001:db8::1::1']) {
    assert.equal(set.has(outside), false, outside);
  }
});

test('IPv4-mapped IPv6 is IPv4 on both sides; other IPv6 networks hold no IPv4 address', () => {
  const set = compileAddressSet(['::ffff:192.0.2.0/120', '198.51.100.9', '::/0']);
  assert.equal(set.has('192.0.2.200'), true);
  assert.equal(set.has('::ffff:192.0.2.200'), true);
  assert.equal(set.has('::ffff:c000:2c8'), true);
  assert.equal(set.has('::ffff:198.51.100.9'), true);
  assert.equal(set.has('192.0.3.1'), false);
  assert.equal(set.has('2001:db8::1'), true, '::/0 holds every IPv6 address');
  assert.equal(compileAddressSet(['::/0']).has('203.0.113.1'), false, '::/0 holds no IPv4 address');
});

test('overlapping and adjacent entries merge; host bits are ignored', () => {
  const set = compileAddressSet(['10.0.0.0/24', '10.0.1.0/24', '10.0.0.128/25', '10.0.2.5/23', '192.0.2.1/24']);
  assert.equal(set.ranges, 2);
  assert.equal(set.has('10.0.3.255'), true);
  assert.equal(set.has('10.0.4.0'), false);
  assert.equal(set.has('192.0.2.255'), true);
  assert.equal(compileAddressSet([]).ranges, 0);
  assert.equal(compileAddressSet([]).has('10.0.0.1'), false);
});

test('an entry that is not an address or CIDR is refused, naming it', () => {
  for (const bad of ['10.0.0.0/33', '2001:db8::/129', 'example.com', '10.0.0.0/', '10.0.0.0/-1', '', '1.2.3.4/8x']) {
    assert.throws(() => compileAddressSet([bad]), new RegExp(`"${bad.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}"`), bad);
  }
});

test('1,000 random CIDRs of both families answer as a naive check does', () => {
  const random = seededRandom(12);
  const byte = () => Math.floor(random() * 256);
  const v4 = () => [byte(), byte(), byte(), byte()].join('.');
  // Addresses near a few prefixes, so that ranges nest and overlap and lookups land inside them.
  const v6 = () => `2001:db8:${(byte() & 3).toString(16)}${byte().toString(16)}:${byte().toString(16)}::${byte().toString(16)}`;
  const entries: string[] = [];
  for (let i = 0; i < 1000; i++) {
    if (random() < 0.5) entries.push(`${v4()}/${8 + Math.floor(random() * 25)}`);
    else entries.push(`${v6()}/${32 + Math.floor(random() * 97)}`);
  }
  const networks = entries.map((entry) => ipaddr.parseCIDR(entry));
  const naive = (address: string) => {
    const parsed = ipaddr.process(address);
    return networks.some(([network, prefix]) => network.kind() === parsed.kind() && parsed.match(network, prefix));
  };
  const set = compileAddressSet(entries);
  let hits = 0;
  for (let i = 0; i < 20_000; i++) {
    const address = random() < 0.5 ? v4() : v6();
    const expected = naive(address);
    if (expected) hits++;
    assert.equal(set.has(address), expected, address);
  }
  assert.ok(hits > 1000 && hits < 19_000, `a fair mix of hits and misses (${hits})`);
});
