// Per-client keys: IPv4 by address, IPv6 by /64, IPv4-mapped IPv6 as IPv4.
import assert from 'node:assert/strict';
import { test } from 'node:test';
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
