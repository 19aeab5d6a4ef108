// RDATA in wire form. The expected octets never come from our own encoder: dns-packet writes and reads
// them for the types it knows; for HTTPS and SVCB, which it does not know, they are the test vectors
// of RFC 9460 Appendix D or written out by hand from §2.2 and §7.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import packet from 'dns-packet';
import { a } from '../../src/dns/rrtypes/a.ts';
import { aaaa } from '../../src/dns/rrtypes/aaaa.ts';
import { caa } from '../../src/dns/rrtypes/caa.ts';
import { cname } from '../../src/dns/rrtypes/cname.ts';
import { ds } from '../../src/dns/rrtypes/ds.ts';
import { https } from '../../src/dns/rrtypes/https.ts';
import { mx } from '../../src/dns/rrtypes/mx.ts';
import { ns } from '../../src/dns/rrtypes/ns.ts';
import { ptr } from '../../src/dns/rrtypes/ptr.ts';
import type { RecordType, ZoneToken } from '../../src/dns/rrtypes/record-type.ts';
import { srv } from '../../src/dns/rrtypes/srv.ts';
import { svcb } from '../../src/dns/rrtypes/svcb.ts';
import { txt } from '../../src/dns/rrtypes/txt.ts';

const zone = 'example.com';

function wire(type: RecordType, content: unknown[]): Buffer {
  return type.toWire(type.parse(content, zone));
}

// A response header (ID 0, QR set) with one answer and no other records.
const header = Buffer.from('000080000000000100000000', 'hex');
// Owner "." (one octet), then TYPE, CLASS, TTL: where the RDLENGTH of the single answer sits.
const rdlengthOffset = header.length + 1 + 8;

/** dns-packet's reading of `rdata`, placed in a response as the RDATA of one record of `type`. */
function packetDecode(type: RecordType, rdata: Buffer): unknown {
  const record = Buffer.alloc(11);
  record.writeUInt16BE(type.code, 1);
  record.writeUInt16BE(1, 3);
  record.writeUInt16BE(rdata.length, 9);
  const message = Buffer.concat([header, record, rdata]);
  const [answer] = packet.decode(message).answers ?? [];
  assert.equal(packet.decode.bytes, message.length, 'the RDATA is read to its end and no further');
  assert.ok(answer !== undefined && 'data' in answer);
  return answer.data;
}

/** The RDATA dns-packet writes for one answer. */
function packetEncode(answer: packet.Answer): Buffer {
  return packet.encode({ type: 'response', answers: [answer] }).subarray(rdlengthOffset + 2);
}

/** Our RDATA for `content` is what dns-packet writes for `answer`, and dns-packet reads `answer.data` back from it. */
function agrees(type: RecordType, content: unknown[], answer: packet.Answer): void {
  assert.ok('data' in answer);
  const ours = wire(type, content);
  assert.deepEqual(packetDecode(type, ours), answer.data, JSON.stringify(content));
  assert.deepEqual(ours, packetEncode(answer), JSON.stringify(content));
}

const hex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ''), 'hex');

describe('A and AAAA', () => {
  test('A is the 4 address octets', () => {
    for (const address of ['192.0.2.1', '0.0.0.0', '255.255.255.255']) {
      agrees(a, [address], { type: 'A', name: '.', data: address });
    }
    assert.deepEqual(wire(a, ['10.20.30.40']), hex('0a141e28'));
  });

  test('AAAA is the 16 address octets, whatever the written form', () => {
    const cases: [address: string, packetForm: string][] = [
      ['::', '::'],
      ['::1', '::1'],
      ['2001:db8::1', '2001:db8::1'],
      ['2001:db8::', '2001:db8::'],
      ['fe80::1:2', 'fe80::1:2'],
      ['1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8'],
      ['2001:0DB8:0000:0000:0000:FF00:0042:8329', '2001:db8::ff00:42:8329'],
      ['::ffff:192.0.2.1', '::ffff:c000:201'],
      ['::ffff:c000:201', '::ffff:c000:201'],
    ];
    for (const [address, packetForm] of cases) agrees(aaaa, [address], { type: 'AAAA', name: '.', data: packetForm });
    assert.deepEqual(wire(aaaa, ['::ffff:192.0.2.1']), hex('00000000 00000000 0000ffff c0000201'));
    assert.deepEqual(wire(aaaa, ['::']), Buffer.alloc(16));
  });

  test('AAAA: 2,000 random addresses, runs of zero groups anywhere, written in full and read back as their octets', () => {
    // A seeded generator: the same addresses every run. Each group is zero half the time, so the
    // canonical form compresses runs at every position, and a tenth are IPv4-mapped.
    let seed = 42;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
    for (let n = 0; n < 2000; n++) {
      const octets = Buffer.alloc(16);
      for (let g = 0; g < 8; g++) if (next() % 2 === 0) octets.writeUInt16BE(next() % 0x10000, g * 2);
      if (n % 10 === 0) octets.set([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]);
      const full = Array.from({ length: 8 }, (_, g) => octets.readUInt16BE(g * 2).toString(16)).join(':');
      assert.deepEqual(wire(aaaa, [full]), octets, full);
    }
  });
});

describe('names', () => {
  test('CNAME, NS and PTR are one uncompressed name, lower case, with or without the trailing dot', () => {
    const expected = hex('03 777777 07 6578616d706c65 03 636f6d 00');
    for (const type of [cname, ns, ptr]) {
      for (const name of ['www.example.com', 'www.example.com.', 'WWW.Example.COM', 'WWW.Example.COM.']) {
        agrees(type, [name], { type: type.type as 'CNAME' | 'NS' | 'PTR', name: '.', data: 'www.example.com' });
        assert.deepEqual(wire(type, [name]), expected, `${type.type} ${name}`);
      }
    }
    agrees(ptr, ['1.2.0.192.in-addr.arpa.'], { type: 'PTR', name: '.', data: '1.2.0.192.in-addr.arpa' });
    agrees(cname, ['_acme-challenge.Example.com'], { type: 'CNAME', name: '.', data: '_acme-challenge.example.com' });
  });

  test('upper case is lowered even in content that did not come through parse()', () => {
    assert.deepEqual(ns.toWire(['NS1.EXAMPLE.NET.']), hex('03 6e7331 07 6578616d706c65 03 6e6574 00'));
  });

  test('an IDN is written as its A-labels', () => {
    agrees(cname, ['Bücher.example.'], { type: 'CNAME', name: '.', data: 'xn--bcher-kva.example' });
  });

  test('MX is the preference and the exchange; "." is the root, one zero octet', () => {
    agrees(mx, [10, 'Mail.Example.com.'], { type: 'MX', name: '.', data: { preference: 10, exchange: 'mail.example.com' } });
    agrees(mx, ['65535', 'mx.example.net'], { type: 'MX', name: '.', data: { preference: 65535, exchange: 'mx.example.net' } });
    agrees(mx, [0, '.'], { type: 'MX', name: '.', data: { preference: 0, exchange: '.' } });
    assert.deepEqual(wire(mx, [0, '.']), hex('0000 00'));
  });

  test('SRV is priority, weight, port and target', () => {
    agrees(srv, [10, 60, 5060, 'SIP.example.com.'], {
      type: 'SRV',
      name: '.',
      data: { priority: 10, weight: 60, port: 5060, target: 'sip.example.com' },
    });
    agrees(srv, [0, 0, 0, '.'], { type: 'SRV', name: '.', data: { priority: 0, weight: 0, port: 0, target: '.' } });
    assert.deepEqual(wire(srv, [1, 2, 443, '.']), hex('0001 0002 01bb 00'));
  });
});

describe('TXT', () => {
  /** The UTF-8 octets of `text` cut every 255 octets, as dns-packet reads the character-strings. */
  function strings(text: string): Buffer[] {
    const octets = Buffer.from(text, 'utf8');
    const result: Buffer[] = [];
    for (let start = 0; start < octets.length; start += 255) result.push(octets.subarray(start, start + 255));
    return result.length === 0 ? [Buffer.alloc(0)] : result;
  }

  test('texts of 0, 1, 255, 256 and 600 octets', () => {
    const cases: [text: string, lengths: number[]][] = [
      ['', [0]],
      ['a', [1]],
      ['x'.repeat(255), [255]],
      ['y'.repeat(256), [255, 1]],
      ['z'.repeat(600), [255, 255, 90]],
    ];
    for (const [text, lengths] of cases) {
      agrees(txt, [text], { type: 'TXT', name: '.', data: strings(text) });
      assert.deepEqual(strings(text).map((string) => string.length), lengths);
      assert.equal(wire(txt, [text]).length, text.length + lengths.length);
    }
    assert.deepEqual(wire(txt, ['']), hex('00'));
    assert.deepEqual(wire(txt, ['hi']), hex('02 6869'));
  });

  test('UTF-8 octets, cut on octets even inside a character', () => {
    agrees(txt, ['héllo wörld ✓ "quoted" \\'], { type: 'TXT', name: '.', data: strings('héllo wörld ✓ "quoted" \\') });
    // 200 × "é" is 400 octets: the first string ends on the first octet of the 128th character.
    const text = 'é'.repeat(200);
    agrees(txt, [text], { type: 'TXT', name: '.', data: strings(text) });
    const rdata = wire(txt, [text]);
    assert.deepEqual([rdata[0], rdata[255], rdata[256], rdata[257]], [255, 0xc3, 145, 0xa9]);
  });
});

describe('CAA', () => {
  test('flags, tag length, tag and value', () => {
    agrees(caa, [0, 'issue', 'letsencrypt.org'], {
      type: 'CAA',
      name: '.',
      data: { flags: 0, tag: 'issue', value: 'letsencrypt.org', issuerCritical: false },
    });
    agrees(caa, [128, 'IODEF', 'mailto:security@example.com'], {
      type: 'CAA',
      name: '.',
      data: { flags: 128, tag: 'iodef', value: 'mailto:security@example.com', issuerCritical: true },
    });
    agrees(caa, ['0', 'issuewild', 'ca.example.net; account=ünï'], {
      type: 'CAA',
      name: '.',
      data: { flags: 0, tag: 'issuewild', value: 'ca.example.net; account=ünï', issuerCritical: false },
    });
  });

  test('an empty value is no octets at all after the tag', () => {
    agrees(caa, [0, 'issue', ''], { type: 'CAA', name: '.', data: { flags: 0, tag: 'issue', value: '', issuerCritical: false } });
    assert.deepEqual(wire(caa, [0, 'issue', '']), hex('00 05 6973737565'));
  });
});

describe('DS', () => {
  test('key tag, algorithm, digest type and the digest octets', () => {
    const sha256 = '2BB183AF5F22588179A53B0A98631FAD1A292118B6A3A25B4CAF5F8C5A1B2C3D';
    agrees(ds, [60485, 13, 2, sha256], {
      type: 'DS',
      name: '.',
      data: { keyTag: 60485, algorithm: 13, digestType: 2, digest: Buffer.from(sha256, 'hex') },
    });
    const sha1 = '2bb183af5f22588179a53b0a98631fad1a292118';
    agrees(ds, ['1', '5', '1', `${sha1.slice(0, 20)} ${sha1.slice(20)}`], {
      type: 'DS',
      name: '.',
      data: { keyTag: 1, algorithm: 5, digestType: 1, digest: Buffer.from(sha1, 'hex') },
    });
    assert.deepEqual(wire(ds, [258, 8, 99, 'A0ff']), hex('0102 08 63 a0ff'));
  });
});

describe('HTTPS and SVCB', () => {
  /** Whitespace-separated words and "quoted strings" (the vectors use no escapes). */
  function tokens(text: string): ZoneToken[] {
    return [...text.matchAll(/"([^"]*)"|[^\s"]+/g)].map(([word, quoted]) => (quoted === undefined ? { value: word, quoted: false } : { value: quoted, quoted: true }));
  }

  function fromPresentation(type: RecordType, rdata: string): Buffer {
    return type.toWire(type.parse(type.fromText(tokens(rdata), zone), zone));
  }

  // RFC 9460 Appendix D: presentation form (the RDATA only) and the wire form printed beside it. Left
  // out: the key667 value with \210 (content holds text, and U+00D2 is two octets in UTF-8) and the alpn
  // ids with "," or "\" (parse() refuses them).
  const vectors: [name: string, rdata: string, wire: string][] = [
    ['D.1, AliasMode', '0 foo.example.com.', '0000 03666f6f 076578616d706c65 03636f6d 00'],
    ['D.2, the simple "use the ownername" form', '1 .', '0001 00'],
    ['D.2, only a port', '16 foo.example.com. port=53', '0010 03666f6f 076578616d706c65 03636f6d 00  0003 0002 0035'],
    ['D.2, an unregistered key with an unquoted value', '1 foo.example.com. key667=hello', '0001 03666f6f 076578616d706c65 03636f6d 00  029b 0005 68656c6c6f'],
    [
      'D.2, two quoted IPv6 hints',
      '1 foo.example.com. ipv6hint="2001:db8::1,2001:db8::53:1"',
      '0001 03666f6f 076578616d706c65 03636f6d 00  0006 0020 20010db8000000000000000000000001 20010db8000000000000000000530001',
    ],
    [
      'D.2, an IPv6 hint in IPv4-mapped presentation form',
      '1 example.com. ipv6hint="2001:db8:ffff:ffff:ffff:ffff:198.51.100.100"',
      '0001 076578616d706c65 03636f6d 00  0006 0010 20010db8ffffffffffffffffc6336464',
    ],
    [
      'D.2, values and mandatory keys unsorted in presentation form',
      '16 foo.example.org. alpn=h2,h3-19 mandatory=ipv4hint,alpn ipv4hint=192.0.2.1',
      '0010 03666f6f 076578616d706c65 036f7267 00  0000 0004 0001 0004  0001 0009 02 6832 05 68332d3139  0004 0004 c0000201',
    ],
  ];

  for (const [name, rdata, expected] of vectors) {
    test(`RFC 9460 ${name}`, () => {
      assert.deepEqual(fromPresentation(svcb, rdata), hex(expected));
      assert.deepEqual(fromPresentation(https, rdata), hex(expected), 'HTTPS has the same RDATA');
    });
  }

  test('the other parameters, written out from RFC 9460 §7 and RFC 9461', () => {
    const target = '03737663 076578616d706c65 03636f6d 00'; // svc.example.com
    assert.deepEqual(
      wire(https, [1, 'SVC.Example.com', ['alpn', 'h2'], ['no-default-alpn'], ['ech', 'AAEC/w=='], ['dohpath', '/q{?dns}']]),
      hex(`0001 ${target}  0001 0003 02 6832  0002 0000  0005 0004 000102ff  0007 0008 2f717b3f646e737d`),
    );
    assert.deepEqual(
      wire(svcb, [2, 'svc.example.com.', ['ipv4hint', '192.0.2.1', '198.51.100.2'], ['mandatory', 'key65535', 'port'], ['port', 443], ['KEY65535']]),
      hex(`0002 ${target}  0000 0004 0003 ffff  0003 0002 01bb  0004 0008 c0000201 c6336402  ffff 0000`),
    );
    assert.deepEqual(wire(https, [1, '.', ['key9', 'é']]), hex('0001 00  0009 0002 c3a9'));
  });

  test('the target is lower case and absolute with or without the dot', () => {
    const expected = hex('0000 03666f6f 076578616d706c65 03636f6d 00');
    for (const target of ['foo.example.com', 'FOO.Example.COM.']) assert.deepEqual(wire(https, [0, target]), expected);
  });
});
