// Reading names off the wire: ASCII case folded, other octets untouched, dots inside labels kept apart.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readName } from '../../src/dns/server/query.ts';

const wire = (...labels: Buffer[]) => Buffer.concat([...labels.flatMap((l) => [Buffer.from([l.length]), l]), Buffer.from([0])]);

test('names are lower-cased in ASCII only and a dot inside a label cannot split it', () => {
  assert.equal(readName(wire(Buffer.from('WwW'), Buffer.from('Example'), Buffer.from('COM')), 0).name, 'www.example.com');
  // 0xC0 (À in latin1) is not an ASCII letter: it stays as it is.
  assert.equal(readName(wire(Buffer.from([0xc0, 0x41]), Buffer.from('com')), 0).name, '\u00c0a.com');
  assert.equal(readName(wire(Buffer.from('a.B'), Buffer.from('com')), 0).name, 'a\\.b.com');
  assert.deepEqual(readName(wire(Buffer.from('plain'), Buffer.from('name')), 0), { name: 'plain.name', next: 12 });
});
