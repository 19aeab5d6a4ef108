// The C heap's free pages given back (src/c-heap.ts, native/c_heap.c), in a process of its own: memory
// freed between allocations that stay alive remains resident until trimCHeap, which returns it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';

const code = `
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
const { trimCHeap } = await import(process.argv[1]);
const anonMiB = () => Number(/RssAnon:\\s+(\\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
// About 100 MB of small buffers (each its own malloc), one in 16 kept: the rest is freed in the middle
// of the arena, which free() alone does not give back.
let buffers = Array.from({ length: 100_000 }, () => Buffer.allocUnsafeSlow(1000).fill(1));
const kept = buffers.filter((_, i) => i % 16 === 0);
buffers = undefined;
for (let i = 0; i < 3; i++) { globalThis.gc(); await sleep(100); }
const freed = anonMiB();
trimCHeap();
console.log(JSON.stringify({ freed, trimmed: anonMiB(), kept: kept.length }));
`;

test('trimCHeap returns the free pages between live allocations', { skip: process.platform !== 'linux' }, () => {
  const output = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', code, new URL('../src/c-heap.ts', import.meta.url).href], { encoding: 'utf8' });
  const { freed, trimmed } = JSON.parse(output) as { freed: number; trimmed: number };
  assert.ok(freed - trimmed >= 40, `resident ${freed.toFixed(0)} MiB before the trim, ${trimmed.toFixed(0)} MiB after`);
});
