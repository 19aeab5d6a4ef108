// Worker threads reading the application's modules from the compile cache (src/compile-cache.ts):
// one started with `workerEnv` imports TypeScript without loading a stripper (amaro) of its own; one
// started without it does load one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { enableCompileCache, workerEnv } from '../src/compile-cache.ts';

const module = new URL('../src/within.ts', import.meta.url).href;
const code = `import(${JSON.stringify(module)}).then(() =>
  require('node:worker_threads').parentPort.postMessage(process.moduleLoadList.some((m) => m.includes('amaro'))));`;

const loadsStripper = (env: NodeJS.ProcessEnv) =>
  new Promise<boolean>((resolve, reject) => {
    const worker = new Worker(code, { eval: true, env });
    worker.once('message', (loaded: boolean) => void worker.terminate().then(() => resolve(loaded)));
    worker.once('error', reject);
  });

test('a worker started with workerEnv imports TypeScript without a stripper of its own', async () => {
  enableCompileCache();
  // Stripped here, into the cache (if an earlier run has not put it there already).
  await import(module);
  assert.equal(await loadsStripper(workerEnv()), false);
  assert.equal(await loadsStripper(process.env), true, 'without the cache it strips for itself');
});
