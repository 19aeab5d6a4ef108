// The allocation-free address parser against the forms Node and resolvers produce, and what is not an address.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ipv4, ipv6, notAddress, parseAddress } from '../../src/geo/address.ts';

const parsed = (text: string) => {
  const words = new Uint32Array(4);
  const family = parseAddress(text, words);
  return { family, words: family === ipv4 ? [words[0]] : family === ipv6 ? [...words] : [] };
};

test('IPv4 is one word', () => {
  assert.deepEqual(parsed('8.8.4.4'), { family: ipv4, words: [0x08080404] });
  assert.deepEqual(parsed('255.255.255.255'), { family: ipv4, words: [0xffffffff] });
  assert.deepEqual(parsed('0.0.0.0'), { family: ipv4, words: [0] });
});

test('IPv6 is four words, with :: anywhere, any case, a zone ignored', () => {
  assert.deepEqual(parsed('2001:4860:4860::8888'), { family: ipv6, words: [0x20014860, 0x48600000, 0, 0x8888] });
  assert.deepEqual(parsed('2001:DB8:0:0:1:0:0:1'), { family: ipv6, words: [0x20010db8, 0, 0x10000, 1] });
  assert.deepEqual(parsed('::'), { family: ipv6, words: [0, 0, 0, 0] });
  assert.deepEqual(parsed('::1'), { family: ipv6, words: [0, 0, 0, 1] });
  assert.deepEqual(parsed('fe80::'), { family: ipv6, words: [0xfe800000, 0, 0, 0] });
  assert.deepEqual(parsed('fe80::1%eth0'), { family: ipv6, words: [0xfe800000, 0, 0, 1] });
  assert.deepEqual(parsed('1:2:3:4:5:6:7::'), { family: ipv6, words: [0x10002, 0x30004, 0x50006, 0x70000] });
  assert.deepEqual(parsed('64:ff9b::192.0.2.33'), { family: ipv6, words: [0x64ff9b, 0, 0, 0xc0000221] });
});

test('IPv4-mapped IPv6 is the IPv4 address', () => {
  assert.deepEqual(parsed('::ffff:8.8.8.8'), { family: ipv4, words: [0x08080808] });
  assert.deepEqual(parsed('::FFFF:808:808'), { family: ipv4, words: [0x08080808] });
  assert.deepEqual(parsed('0:0:0:0:0:ffff:8.8.8.8'), { family: ipv4, words: [0x08080808] });
});

test('a range of a larger text', () => {
  const words = new Uint32Array(4);
  assert.equal(parseAddress('1.0.0.0,1.0.0.255,13335', words, 8, 17), ipv4);
  assert.equal(words[0], 0x010000ff);
  assert.equal(parseAddress('x,2001::,y', words, 2, 8), ipv6);
  assert.deepEqual([...words], [0x20010000, 0, 0, 0]);
});

test('anything else is not an address', () => {
  for (const text of ['', 'hello', '1.2.3', '1.2.3.4.5', '256.0.0.1', '1..2.3', '1.2.3.', ' 1.2.3.4', '1.2.3.4 ', '1234.1.1.1',
    ':', ':::', '1::2::3', ':1::', '1:', '12345::', 'g::1', '1:2:3:4:5:6:7:8:9', '1:2:3:4:5:6:7', '1:2:3:4:5:6:7:8::',
    '::ffff:1.2.3', '::ffff:1.2.3.4:5', '1:2:3:4:5:6:7:1.2.3.4', '%eth0', 'example.com']) {
    assert.equal(parseAddress(text, new Uint32Array(4)), notAddress, text);
  }
});
