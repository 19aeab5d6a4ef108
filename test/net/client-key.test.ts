// Per-client keys: IPv4 by address, IPv6 by /64, IPv4-mapped IPv6 as IPv4.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import ipaddr from 'ipaddr.js';
import { clientKey, clientOctets } from '../../src/net/client-key.ts';

test('an IPv4 address is its own key, also when it arrives IPv4-mapped', () => {
  assert.equal(clientKey('192.0.2.1'), '192.0.2.1');
  assert.equal(clientKey('::ffff:192.0.2.1'), '192.0.2.1');
  assert.notEqual(clientKey('192.0.2.1'), clientKey('192.0.2.2'));
});

test('IPv6 addresses of one /64 share a key; another /64 has its own', () => {
  const key = clientKey('2001:db8:1:2::5');
  assert.equal(key, '2001:db8:1:2::/64');
  assert.equal(clientKey('2001:db8:1:2:ffff:ffff:ffff:ffff'), key);
  assert.equal(clientKey('2001:DB8:1:2:0:0:0:1'), key, 'spelling does not matter');
  assert.notEqual(clientKey('2001:db8:1:3::5'), key);
  assert.notEqual(clientKey('2001:db9:1:2::5'), key);
  assert.equal(clientKey('::1'), '::/64');
  assert.equal(clientKey('fe80::1%eth0'), 'fe80::/64');
});

test('what is not an address is kept as is', () => {
  assert.equal(clientKey(''), '');
  assert.equal(clientKey('unix-socket'), 'unix-socket');
});

test('the octets of one client: an IPv4 address (mapped or not) or an IPv6 /64', () => {
  assert.deepEqual(clientOctets('192.0.2.1'), [192, 0, 2, 1]);
  assert.deepEqual(clientOctets('::ffff:192.0.2.1'), [192, 0, 2, 1]);
  assert.deepEqual(clientOctets('2001:db8:1:2::1'), clientOctets('2001:db8:1:2:ffff:ffff:ffff:9'));
  assert.notDeepEqual(clientOctets('2001:db8:1:2::1'), clientOctets('2001:db8:1:3::1'));
  assert.equal(clientOctets('2001:db8:1:2::1').length, 8);
});

test('IPv4 addresses read without ipaddr.js give the octets it gives, and whatever it reads otherwise is left to it', () => {
  const byIpaddr = (address: string): number[] => {
    if (!ipaddr.isValid(address)) return [];
    const bytes = ipaddr.process(address).toByteArray();
    return bytes.length === 4 ? bytes : bytes.slice(0, 8);
  };
  const samples = [
    '0.0.0.0', '255.255.255.255', '127.1.3.250', '10.0.0.1', '::ffff:10.0.0.1', '::ffff:255.255.255.255',
    '256.0.0.1', '1.2.3', '1.2.3.4.5', '1..2.3', '.1.2.3', '1.2.3.', '01.2.3.4', '1.2.3.04', '0x7f.0.0.1', '1.2.3.4 ', ' 1.2.3.4',
    '1234.1.1.1', '1.2.3.-4', '::ffff:1.2.3', '::ffff:', '::ffff:0x1.2.3.4', '2130706433', '127.1', '::1', '',
  ];
  let seed = 7;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (let i = 0; i < 2000; i++) samples.push(Array.from({ length: 4 }, () => String(Math.floor(random() * 300))).join('.'));
  for (const address of samples) assert.deepEqual(clientOctets(address), byIpaddr(address), address);
});
