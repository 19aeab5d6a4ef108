// A zone view over a shared image against the same zone held whole per thread: random zones, then
// random changes on top, must read the same by name, by existence (empty non-terminals included),
// by size and in a transfer's walk. And the image itself, taken by another thread, reads the same.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import type { ServedRrset } from '../../src/dns/server/served-rrset.ts';
import { ZoneImage, ZoneImageBuilder } from '../../src/dns/server/zone-image.ts';
import { rrsetsOf, ZoneView, type ZoneHead, type ZoneNode } from '../../src/dns/server/zone-view.ts';
import { seededRandom } from '../support/prng.ts';

const apex = 'z.test';
const head: ZoneHead = { id: 1, name: apex, serial: 1, version: 1, soaRdata: Buffer.from('soa'), negativeTtl: 60, signer: undefined };

const labels = ['a', 'b', 'c', '*', 'd\u00e9'];
/** Every name of up to three labels under the apex, from a few labels: deep enough for empty non-terminals. */
const universe: string[] = [apex];
for (const x of labels) {
  universe.push(`${x}.${apex}`);
  for (const y of labels) {
    universe.push(`${y}.${x}.${apex}`);
    for (const z of labels) universe.push(`${z}.${y}.${x}.${apex}`);
  }
}

function randomNode(next: () => number): ServedRrset[] {
  const pick = next();
  if (pick < 0.15) return [];
  const value = () => String.fromCharCode(...Array.from({ length: 4 }, () => Math.floor(next() * 256)));
  const count = 1 + Math.floor(next() * 3);
  const a: ServedRrset = { type: 1, ttl: 300, rdata: count === 1 ? value() : Array.from({ length: count }, value), names: undefined, pickers: null };
  if (pick < 0.5) return [a];
  if (pick < 0.65) return [{ type: 5, ttl: 60, rdata: value(), names: `t${value().length}.${apex}`, pickers: null }];
  if (pick < 0.75) return [{ ...a, pickers: { chain: [], records: [{ index: 0, match: {} as never, up: true }] } }];
  return [a, { type: 15, ttl: 120, rdata: [value(), value()], names: [`mx1.${apex}`, `mx2.${apex}`], pickers: null }];
}

/** A node as text, to compare a decoded one with the object it was made from. */
function shown(node: ZoneNode | undefined): string {
  return node === undefined ? '-' : JSON.stringify(rrsetsOf(node).map((r) => [r.type, r.ttl, r.rdata, r.names ?? null, r.pickers === null]));
}

/** The same zone as an image and what stays per thread (loadZone()'s way), and held whole. */
function zones(next: () => number): { imaged: ZoneView; whole: ZoneView } {
  const builder = new ZoneImageBuilder(apex);
  const own: [string, ServedRrset[]][] = [];
  const whole = new ZoneView(head);
  for (const name of universe) {
    if (next() < 0.5) continue;
    const node = randomNode(next);
    whole.setNode(name, node);
    if (name === apex || !builder.add(name, node)) own.push([name, node]);
  }
  // Across threads the image is its shared memory: a reader made from the data alone must do.
  const imaged = new ZoneView(head, new ZoneImage(builder.finish().data));
  for (const [name, node] of own) imaged.setNode(name, node);
  return { imaged, whole };
}

function assertSame(imaged: ZoneView, whole: ZoneView, context: string): void {
  for (const name of universe) {
    assert.equal(shown(imaged.node(name)), shown(whole.node(name)), `${context}: node ${name}`);
    assert.equal(imaged.exists(name), whole.exists(name), `${context}: exists ${name}`);
  }
  assert.equal(imaged.size, whole.size, `${context}: size`);
  const walk = (view: ZoneView) => [...view.entries()].map(([name, node]) => `${name} ${shown(node)}`);
  const imagedWalk = walk(imaged);
  assert.equal(imagedWalk[0]?.split(' ')[0], apex, `${context}: the apex first`);
  assert.deepEqual(imagedWalk.sort(), walk(whole).sort(), `${context}: entries`);
}

describe('zone image', () => {
  test('a view over an image reads as the zone held whole, before and after random changes', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const next = seededRandom(seed);
      const { imaged, whole } = zones(next);
      assertSame(imaged, whole, `seed ${String(seed)} as loaded`);
      for (let step = 0; step < 40; step++) {
        const name = universe[Math.floor(next() * universe.length)] ?? apex;
        const node = randomNode(next);
        imaged.setNode(name, node);
        whole.setNode(name, node);
      }
      assertSame(imaged, whole, `seed ${String(seed)} after changes`);
    }
  });

  test('a walk begun before changes shows the zone as it was when begun', () => {
    const { imaged } = zones(seededRandom(7));
    const before = [...imaged.entries()].map(([name, node]) => `${name} ${shown(node)}`);
    const walk = imaged.entries();
    for (const name of universe) imaged.setNode(name, []);
    assert.deepEqual([...walk].map(([name, node]) => `${name} ${shown(node)}`), before);
  });

  test('names the image cannot hold (RRsets with pickers, names beyond latin1) stay per thread', () => {
    const builder = new ZoneImageBuilder(apex);
    const a: ServedRrset = { type: 1, ttl: 1, rdata: 'abcd', names: undefined, pickers: null };
    assert.equal(builder.add(`x.${apex}`, [a]), true);
    assert.equal(builder.add(`\u4e2d.${apex}`, [a]), false);
    assert.equal(builder.add(`p.${apex}`, [{ ...a, pickers: { chain: [], records: [] } }]), false);
    assert.equal(builder.add(`e.${apex}`, []), false);
    const image = builder.finish();
    assert.equal(image.names, 1);
    assert.ok(image.find(`x.${apex}`) >= 0);
    assert.equal(image.find(`p.${apex}`), -1);
    // The apex is an empty non-terminal in the image: one name with data below it.
    const at = image.find(apex);
    assert.ok(at >= 0 && !image.hasData(at));
    assert.equal(image.below(at), 1);
  });

  test('the root zone: every name ends with its (empty) name, and the apex itself is found', () => {
    const builder = new ZoneImageBuilder('');
    builder.add('com', [{ type: 2, ttl: 1, rdata: 'ns', names: 'a.gtld', pickers: null }]);
    const image = builder.finish();
    const root = image.find('');
    assert.ok(root >= 0 && !image.hasData(root));
    assert.equal(image.below(root), 1);
    assert.ok(image.hasData(image.find('com')));
  });

  test('another thread reads the same shared bytes, not a copy', async () => {
    const builder = new ZoneImageBuilder(apex);
    builder.add(`www.${apex}`, [{ type: 1, ttl: 300, rdata: '\u00c0\u0000\u0002\u0001', names: undefined, pickers: null }]);
    const { data } = builder.finish();
    const source = `
      const { parentPort, workerData } = require('node:worker_threads');
      parentPort.postMessage(Buffer.from(workerData.data).includes(Buffer.from('www.z.test', 'latin1')));
    `;
    const worker = new Worker(source, { eval: true, workerData: data });
    const seen = await new Promise((resolve, reject) => worker.once('message', resolve).once('error', reject));
    await worker.terminate();
    assert.equal(seen, true);
    assert.ok(data.data instanceof SharedArrayBuffer && data.index instanceof SharedArrayBuffer);
  });
});
