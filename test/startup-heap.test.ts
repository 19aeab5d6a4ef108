// Giving back the heap start-up grew (src/startup-heap.ts), in a thread of its own: the young
// generation shrinks, and no `gc` function is left to the application or to threads started later.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';

const code = `
const { getHeapSpaceStatistics } = require('node:v8');
const { parentPort, workerData } = require('node:worker_threads');
const young = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
import(workerData).then(async ({ releaseStartupHeap }) => {
  // Objects that survive young collections, as loading the application makes: V8 grows the young generation.
  let kept = [];
  for (let i = 0; i < 2000000; i++) kept.push({ i });
  const grown = young();
  kept = undefined;
  await releaseStartupHeap();
  parentPort.postMessage({ grown, released: young(), gc: typeof globalThis.gc });
});`;

const run = (source: string, data?: string) =>
  new Promise<Record<string, unknown>>((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData: data });
    worker.once('message', (m: Record<string, unknown>) => void worker.terminate().then(() => resolve(m)));
    worker.once('error', reject);
  });

test('the young generation start-up grew is given back, and gc stays hidden', async () => {
  const { grown, released, gc } = await run(code, new URL('../src/startup-heap.ts', import.meta.url).href);
  const MiB = 1024 * 1024;
  assert.ok(Number(grown) >= 8 * MiB, `grown to ${String(grown)}`);
  assert.ok(Number(released) <= 2 * MiB, `released to ${String(released)}`);
  assert.equal(gc, 'undefined');
  const later = await run(`require('node:worker_threads').parentPort.postMessage({ gc: typeof globalThis.gc })`);
  assert.equal(later['gc'], 'undefined', 'a thread started afterwards has no gc either');
});
