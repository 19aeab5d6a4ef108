// The name arithmetic behind generated NSEC records, as properties over random names: the
// canonical order of RFC 4034 §6.1, and the predecessor/successor of RFC 4470 §3.1, which must leave
// no room for another name between them and the name they surround. Also the NSEC type bitmap.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareNames } from '../../src/dns/dnssec/canonical-order.ts';
import { nextSibling, predecessor, successor } from '../../src/dns/dnssec/epsilon.ts';
import { typeBitmap } from '../../src/dns/dnssec/type-bitmap.ts';
import { nameFromLabels, nameLabels, wireLength } from '../../src/dns/wire/name.ts';
import { seededRandom } from '../support/prng.ts';

const random = seededRandom(0x5ec);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
// Octets at the edges that matter: 0, the letters' borders ('@' '[' and their case), digits, 0xff.
const octets = [0x00, 0x01, 0x2d, 0x2e, 0x30, 0x39, 0x40, 0x41, 0x5a, 0x5b, 0x5c, 0x5f, 0x60, 0x61, 0x62, 0x7a, 0x7b, 0xfe, 0xff];
const label = (max = 4): Buffer => Buffer.from(Array.from({ length: 1 + Math.floor(random() * max) }, () => pick(octets)));
const zone = [Buffer.from('example'), Buffer.from('test')];

/** A random name in the zone: usually short, sometimes near the 255-octet limit. */
function randomName(): Buffer[] {
  const labels = Array.from({ length: Math.floor(random() * 4) }, () => label());
  if (random() < 0.15) while (wireLength([...labels, ...zone]) < 230) labels.unshift(label(random() < 0.5 ? 63 : 8));
  const name = [...labels, ...zone];
  while (wireLength(name) > 255) name.shift();
  return name;
}

/** Names close to `name`: its ancestors, children, siblings with an octet changed, added or removed. */
function around(name: Buffer[]): Buffer[][] {
  const out: Buffer[][] = [];
  for (let i = 0; i < 40; i++) {
    const at = Math.floor(random() * Math.max(1, name.length - zone.length));
    const copy: Buffer[] = name.map((l) => Buffer.from(l));
    const target: Buffer = copy[at] ?? Buffer.from('x');
    const roll = random();
    if (roll < 0.25) copy[at] = Buffer.concat([target, Buffer.from([pick(octets)])]);
    else if (roll < 0.5 && target.length > 1) copy[at] = target.subarray(0, target.length - 1);
    else if (roll < 0.75) target[Math.floor(random() * target.length)] = pick(octets);
    else copy.unshift(label());
    out.push(copy);
  }
  return [...out, name.slice(1), [Buffer.from([0]), ...name]].filter(valid);
}

const valid = (name: Buffer[]) => wireLength(name) <= 255 && name.every((l) => l.length >= 1 && l.length <= 63);
const isDescendant = (x: Buffer[], of: Buffer[]) => x.length > of.length && compareNames(x.slice(x.length - of.length), of) === 0;
const show = (name: Buffer[]) => JSON.stringify(nameFromLabels(name));

test('the predecessor sorts just before the name, the successor just after: no other name fits between', () => {
  for (let trial = 0; trial < 3000; trial++) {
    const name = randomName();
    const before = predecessor(name);
    const after = successor(name);
    const sibling = nextSibling(name);
    assert.ok(before && after && sibling);
    for (const edge of [before, after, sibling]) assert.ok(valid(edge), `malformed neighbour of ${show(name)}: ${show(edge)}`);
    assert.ok(compareNames(before, name) < 0, `${show(before)} < ${show(name)}`);
    assert.ok(compareNames(name, after) < 0, `${show(name)} < ${show(after)}`);
    assert.ok(compareNames(name, sibling) < 0, `${show(name)} < ${show(sibling)}`);
    for (const other of [...around(name), ...around(before), ...around(after), ...around(sibling)]) {
      if (compareNames(other, name) === 0) continue;
      assert.ok(!(compareNames(before, other) < 0 && compareNames(other, name) < 0), `${show(other)} lies between ${show(before)} and ${show(name)}`);
      assert.ok(!(compareNames(name, other) < 0 && compareNames(other, after) < 0), `${show(other)} lies between ${show(name)} and ${show(after)}`);
      // Only the name's own descendants sort before its next sibling.
      if (compareNames(name, other) < 0 && compareNames(other, sibling) < 0) assert.ok(isDescendant(other, name), `${show(other)} is not below ${show(name)}`);
    }
  }
});

test('canonical order: letters compare without case, a name sorts before its descendants', () => {
  const names = ['example', 'a.example', 'yljkjljk.a.example', 'Z.a.example', 'zABC.a.EXAMPLE', 'z.example', '\\001.z.example', '*.z.example', '\\200.z.example'];
  const labels = names.map((n) => nameLabels(n.replace(/\\(\d{3})/g, (_, d: string) => String.fromCharCode(Number(d))).toLowerCase()));
  // RFC 4034 §6.1's own example, in its order.
  for (let i = 1; i < labels.length; i++) assert.ok(compareNames(labels[i - 1] ?? [], labels[i] ?? []) < 0, `${names[i - 1] ?? ''} < ${names[i] ?? ''}`);
  assert.equal(compareNames(nameLabels('abc.example'), [Buffer.from('ABC'), Buffer.from('example')]), 0);
});

test('the predecessor of a first child is its parent; uppercase octets are skipped both ways', () => {
  assert.equal(nameFromLabels(predecessor(nameLabels('\u0000.example')) ?? []), 'example');
  // 'A'..'Z' sort as 'a'..'z': the octet before '[' is '@', the one after '@' is '['.
  const before = predecessor([Buffer.from('['), Buffer.from('example')]) ?? [];
  assert.equal(before.at(-2)?.[0], 0x40);
  const full = [Buffer.alloc(63, 0x40), Buffer.alloc(63, 0x62), Buffer.alloc(63, 0x62), Buffer.alloc(61, 0x62)];
  assert.equal(wireLength(full), 255);
  assert.equal(successor(full)?.[0]?.at(-1), 0x5b);
});

test('type bitmaps: windows in order, trailing zero octets left out (RFC 4034 §4.1.2 example)', () => {
  // A MX RRSIG NSEC TYPE1234 → the RFC's example bitmap.
  const expected = Buffer.from('0006400100000003041b000000000000000000000000000000000000000000000000000020', 'hex');
  assert.deepEqual(typeBitmap([1, 15, 46, 47, 1234]), expected);
  assert.deepEqual(typeBitmap([]), Buffer.alloc(0));
});
