// The PROXY protocol header read on its own (HAProxy's proxy-protocol.txt, v1 text and v2 binary):
// the client each family names, LOCAL and UNKNOWN leaving the socket's peer, and everything
// malformed, truncated or oversized refused rather than waited for.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { maxV2Length, readProxyHeader, type ProxyHeader } from '../../../src/security/proxy/proxy-protocol.ts';

const v2Signature = Buffer.from('0d0a0d0a000d0a515549540a', 'hex');

/** A v2 header: version/command byte, family/transport byte, then the address block and TLVs. */
function v2(versionCommand: number, familyTransport: number, block: Buffer): Buffer {
  const length = Buffer.alloc(2);
  length.writeUInt16BE(block.length);
  return Buffer.concat([v2Signature, Buffer.from([versionCommand, familyTransport]), length, block]);
}

function inet4(source: number[], sourcePort: number): Buffer {
  const ports = Buffer.alloc(4);
  ports.writeUInt16BE(sourcePort, 0);
  ports.writeUInt16BE(443, 2);
  return Buffer.concat([Buffer.from(source), Buffer.from([10, 0, 0, 1]), ports]);
}

function inet6(source: string, sourcePort: number): Buffer {
  const ports = Buffer.alloc(4);
  ports.writeUInt16BE(sourcePort, 0);
  ports.writeUInt16BE(443, 2);
  return Buffer.concat([Buffer.from(source, 'hex'), Buffer.alloc(16, 1), ports]);
}

const read = (bytes: string | Buffer): ProxyHeader => readProxyHeader(typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes);
const reason = (header: ProxyHeader) => (header.state === 'invalid' ? header.reason : `not refused: ${header.state}`);

describe('PROXY protocol version 1', () => {
  test('TCP4 and TCP6 name the client; the length is the line with its CRLF, whatever follows', () => {
    assert.deepEqual(read('PROXY TCP4 192.0.2.10 198.51.100.1 51234 80\r\nGET / HTTP/1.1\r\n'), {
      state: 'complete',
      length: 45,
      source: { address: '192.0.2.10', port: 51234 },
    });
    assert.deepEqual(read('PROXY TCP6 2001:DB8:0:0:0:0:0:5 2001:db8::1 65535 443\r\n'), { state: 'complete', length: 55, source: { address: '2001:db8::5', port: 65535 } });
    // A dual-stack balancer's IPv4 client, IPv4-mapped: the client is the IPv4 address.
    assert.deepEqual(read('PROXY TCP6 ::ffff:192.0.2.7 ::ffff:198.51.100.1 1 2\r\n'), {
      state: 'complete',
      length: 53,
      source: { address: '192.0.2.7', port: 1 },
    });
  });

  test('UNKNOWN: the rest of the line is ignored, the socket peer stays the client', () => {
    assert.deepEqual(read('PROXY UNKNOWN\r\n'), { state: 'complete', length: 15, source: undefined });
    assert.deepEqual(read('PROXY UNKNOWN ffff::1 ffff::2 1 2\r\nrest'), { state: 'complete', length: 35, source: undefined });
  });

  test('partial while the bytes so far can still be a header', () => {
    for (const prefix of ['P', 'PROXY', 'PROXY ', 'PROXY TCP4 192.0.2.10 198.51.100.1 51234 80', 'PROXY TCP4 192.0.2.10 198.51.100.1 51234 80\r']) {
      assert.equal(read(prefix).state, 'partial', prefix);
    }
  });

  test('malformed lines are refused', () => {
    const bad = {
      'another protocol': 'GET / HTTP/1.1\r\n',
      'lower case': 'proxy TCP4 192.0.2.10 198.51.100.1 1 2\r\n',
      'unknown family': 'PROXY TCP5 192.0.2.10 198.51.100.1 1 2\r\n',
      'IPv6 under TCP4': 'PROXY TCP4 2001:db8::1 198.51.100.1 1 2\r\n',
      'IPv4 under TCP6': 'PROXY TCP6 192.0.2.10 2001:db8::1 1 2\r\n',
      'leading zero in an address': 'PROXY TCP4 192.0.2.010 198.51.100.1 1 2\r\n',
      'a name for an address': 'PROXY TCP4 example.com 198.51.100.1 1 2\r\n',
      'zone index': 'PROXY TCP6 fe80::1%eth0 2001:db8::1 1 2\r\n',
      'port over 65535': 'PROXY TCP4 192.0.2.10 198.51.100.1 65536 2\r\n',
      'port with a leading zero': 'PROXY TCP4 192.0.2.10 198.51.100.1 080 2\r\n',
      'negative port': 'PROXY TCP4 192.0.2.10 198.51.100.1 -1 2\r\n',
      'missing port': 'PROXY TCP4 192.0.2.10 198.51.100.1 1\r\n',
      'extra field': 'PROXY TCP4 192.0.2.10 198.51.100.1 1 2 3\r\n',
      'two spaces': 'PROXY TCP4  192.0.2.10 198.51.100.1 1 2\r\n',
      'bare LF': 'PROXY TCP4 192.0.2.10 198.51.100.1 1 2\n',
    };
    for (const [what, line] of Object.entries(bad)) assert.equal(read(line).state, 'invalid', what);
    assert.match(reason(read('PROXY TCP4 192.0.2.10 198.51.100.1 1 2\n')), /does not end with CRLF/);
  });

  test('a line without its CRLF within 107 bytes is refused, not waited for', () => {
    assert.equal(read(`PROXY UNKNOWN ${'x'.repeat(92)}`).state, 'partial', '106 bytes');
    assert.match(reason(read(`PROXY UNKNOWN ${'x'.repeat(93)}`)), /longer than 107 bytes/);
    assert.equal(read(`PROXY UNKNOWN ${'x'.repeat(91)}\r\n`).state, 'complete', '107 bytes with the CRLF');
    assert.match(reason(read(`PROXY UNKNOWN ${'x'.repeat(92)}\r\n`)), /longer than 107 bytes/);
  });
});

describe('PROXY protocol version 2', () => {
  test('PROXY over TCP/IPv4 and TCP/IPv6 names the client; TLVs are skipped', () => {
    const four = v2(0x21, 0x11, Buffer.concat([inet4([192, 0, 2, 10], 51234), Buffer.from([0x04, 0x00, 0x02, 0xab, 0xcd])]));
    assert.deepEqual(read(Buffer.concat([four, Buffer.from('GET /')])), { state: 'complete', length: four.length, source: { address: '192.0.2.10', port: 51234 } });
    const six = v2(0x21, 0x21, inet6('20010db8000000010000000000000005', 443));
    assert.deepEqual(read(six), { state: 'complete', length: 16 + 36, source: { address: '2001:db8:0:1::5', port: 443 } });
    const mapped = v2(0x21, 0x21, inet6('00000000000000000000ffffc0000207', 1));
    assert.deepEqual(read(mapped), { state: 'complete', length: 52, source: { address: '192.0.2.7', port: 1 } });
  });

  test('LOCAL (the balancer\'s own health check), UNSPEC and UNIX leave the socket peer as the client', () => {
    assert.deepEqual(read(v2(0x20, 0x00, Buffer.alloc(0))), { state: 'complete', length: 16, source: undefined });
    // LOCAL with an address block: the block is ignored.
    assert.deepEqual(read(v2(0x20, 0x11, inet4([192, 0, 2, 10], 1))), { state: 'complete', length: 28, source: undefined });
    assert.deepEqual(read(v2(0x21, 0x00, Buffer.alloc(0))), { state: 'complete', length: 16, source: undefined });
    assert.deepEqual(read(v2(0x21, 0x31, Buffer.alloc(216))), { state: 'complete', length: 232, source: undefined });
  });

  test('partial until the signature, the fixed part and the declared length have arrived', () => {
    const whole = v2(0x21, 0x11, inet4([192, 0, 2, 10], 1));
    for (const length of [1, 5, 12, 15, 16, 27]) assert.equal(read(whole.subarray(0, length)).state, 'partial', String(length));
    assert.equal(read(whole).state, 'complete');
  });

  test('malformed headers are refused', () => {
    assert.match(reason(read(Buffer.from('0d0a0d0a000d0a5155495400', 'hex'))), /no PROXY protocol header/);
    assert.match(reason(read(v2(0x11, 0x11, inet4([192, 0, 2, 10], 1)))), /another version/);
    assert.match(reason(read(v2(0x22, 0x11, inet4([192, 0, 2, 10], 1)))), /neither LOCAL nor PROXY/);
    assert.match(reason(read(v2(0x21, 0x41, Buffer.alloc(12)))), /family is unknown/);
    assert.match(reason(read(v2(0x21, 0x12, inet4([192, 0, 2, 10], 1)))), /not a stream/);
    assert.match(reason(read(v2(0x21, 0x11, Buffer.alloc(11)))), /shorter than its family needs/);
    assert.match(reason(read(v2(0x21, 0x21, Buffer.alloc(35)))), /shorter than its family needs/);
  });

  test('a declared length over the bound is refused at once, before its bytes arrive', () => {
    const header = v2(0x21, 0x11, inet4([192, 0, 2, 10], 1));
    header.writeUInt16BE(maxV2Length - 16 + 1, 14);
    assert.match(reason(read(header.subarray(0, 16))), /longer than 4096 bytes/);
    header.writeUInt16BE(0xffff, 14);
    assert.equal(read(header.subarray(0, 16)).state, 'invalid');
  });
});
