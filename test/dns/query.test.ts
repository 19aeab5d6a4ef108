// Reading names off the wire: ASCII case folded, other octets untouched, dots inside labels kept apart.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { QueryError, readName } from '../../src/dns/server/query.ts';

const wire = (...labels: Buffer[]) => Buffer.concat([...labels.flatMap((l) => [Buffer.from([l.length]), l]), Buffer.from([0])]);

test('names are lower-cased in ASCII only and a dot inside a label cannot split it', () => {
  assert.equal(readName(wire(Buffer.from('WwW'), Buffer.from('Example'), Buffer.from('COM')), 0).name, 'www.example.com');
  // 0xC0 (À in latin1) is not an ASCII letter: it stays as it is.
  assert.equal(readName(wire(Buffer.from([0xc0, 0x41]), Buffer.from('com')), 0).name, '\u00c0a.com');
  assert.equal(readName(wire(Buffer.from('a.B'), Buffer.from('com')), 0).name, 'a\\.b.com');
  assert.deepEqual(readName(wire(Buffer.from('plain'), Buffer.from('name')), 0), { name: 'plain.name', next: 12 });
});

test('compression pointers: followed backwards; forward ones, names past 255 octets and other malformed names are the caller\'s error', () => {
  const com = wire(Buffer.from('com'));
  // "example" then a pointer back to "com" at 0: the name is read through it, and goes on after the pointer.
  const message = Buffer.concat([com, Buffer.from([7]), Buffer.from('example'), Buffer.from([0xc0, 0])]);
  assert.deepEqual(readName(message, com.length), { name: 'example.com', next: message.length });
  const refused = (bytes: Buffer, reason: RegExp) => assert.throws(() => readName(bytes, 0), (e: unknown) => e instanceof QueryError && reason.test(e.message));
  refused(Buffer.from([0xc0, 0]), /does not point backwards/);
  refused(Buffer.from([0xc0, 2, 0]), /does not point backwards/);
  refused(Buffer.from([3, 0x61]), /label runs past/);
  refused(Buffer.from([0x40, 0]), /unknown label type/);
  refused(Buffer.from([0xc0]), /pointer runs past/);
  // 255 octets in all, the root's included, is the most a name may have.
  const labels = (count: number, last: number) => [...Array.from({ length: count }, () => Buffer.alloc(63, 0x61)), Buffer.alloc(last, 0x62)];
  assert.equal(readName(wire(...labels(3, 61)), 0).name.length, 3 * 64 + 61);
  refused(wire(...labels(3, 62)), /longer than 255/);
});
