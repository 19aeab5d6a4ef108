// Who the client is behind trusted proxies: X-Forwarded-For is believed only from a trusted peer,
// walked from the right to the first address that is not a trusted proxy; whatever a client wrote
// to the left of that never decides.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clientAddress, trustedNetworks } from '../../../src/security/proxy/client-address.ts';

const trusted = trustedNetworks(['10.0.0.0/8', '2001:db8:ffff::/48', '192.0.2.1']);

test('no trusted networks, or an untrusted peer: the peer, whatever its X-Forwarded-For says', () => {
  assert.equal(clientAddress('203.0.113.9', '198.51.100.1', []), '203.0.113.9');
  assert.equal(clientAddress('203.0.113.9', '198.51.100.1', trusted), '203.0.113.9');
  assert.equal(clientAddress('2001:db8:1::1', '198.51.100.1', trusted), '2001:db8:1::1');
  assert.equal(clientAddress('10.1.2.3', undefined, trusted), '10.1.2.3', 'a trusted peer without the header');
});

test('a trusted peer: the rightmost address that is not trusted', () => {
  assert.equal(clientAddress('10.0.0.5', '198.51.100.1', trusted), '198.51.100.1');
  // The client wrote a forged first hop; the balancer appended the address it saw.
  assert.equal(clientAddress('10.0.0.5', '1.1.1.1, 198.51.100.1', trusted), '198.51.100.1');
  // Two trusted hops in a row (a CDN's edge, then our balancer).
  assert.equal(clientAddress('10.0.0.5', '1.1.1.1, 198.51.100.1, 10.9.9.9, 192.0.2.1', trusted), '198.51.100.1');
  assert.equal(clientAddress('2001:db8:ffff:1::1', '2001:DB8:0:0:0:0:0:77, 2001:db8:ffff::2', trusted), '2001:db8::77');
  // Repeated header lines, as node:http joins them.
  assert.equal(clientAddress('10.0.0.5', '1.1.1.1,198.51.100.2', trusted), '198.51.100.2');
});

test('every hop trusted: the leftmost', () => {
  assert.equal(clientAddress('10.0.0.5', '10.0.0.7, 10.0.0.6', trusted), '10.0.0.7');
});

test('ports and brackets are taken off; IPv4-mapped IPv6 is the IPv4 address', () => {
  assert.equal(clientAddress('10.0.0.5', '198.51.100.1:4711', trusted), '198.51.100.1');
  assert.equal(clientAddress('10.0.0.5', '[2001:db8::9]:443', trusted), '2001:db8::9');
  assert.equal(clientAddress('10.0.0.5', '::ffff:198.51.100.3', trusted), '198.51.100.3');
  assert.equal(clientAddress('10.0.0.5', '::FFFF:C633:6404', trusted), '198.51.100.4');
});

test('a hop that is not an address ends the walk at the trusted hop that passed it on', () => {
  assert.equal(clientAddress('10.0.0.5', 'unknown', trusted), '10.0.0.5');
  assert.equal(clientAddress('10.0.0.5', '198.51.100.1, garbage, 10.0.0.9', trusted), '10.0.0.9');
  assert.equal(clientAddress('10.0.0.5', '', trusted), '10.0.0.5');
  assert.equal(clientAddress('10.0.0.5', 'fe80::1%eth0', trusted), '10.0.0.5', 'a zone index names an interface');
  assert.equal(clientAddress('10.0.0.5', '198.51.100.1.5', trusted), '10.0.0.5');
});

test('a header of thousands of trusted hops is looked at only so far', () => {
  const hops = ['198.51.100.1', ...new Array<string>(5000).fill('10.0.0.1')].join(',');
  assert.equal(clientAddress('10.0.0.5', hops, trusted), '10.0.0.1');
});
