// The WAF's inspection budget (budget.ts) on this thread's real clocks: wall time that passes while
// the thread does not run (Atomics.wait stands for the operating system running something else) does
// not spend it; CPU the thread spends does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Budget, threadCpuMs } from '../../../src/security/proxy/waf/budget.ts';

/** Blocks the thread for `ms` without spending CPU. */
const pause = (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

test('wall time the thread does not run moves the deadline on; the budget is spent by CPU the thread spends', async () => {
  new Budget(performance.now(), 40); // starts the thread's CPU samples
  await sleep(120);
  const started = performance.now();
  const budget = new Budget(started, 40);
  assert.equal(budget.over(), false);
  pause(80);
  assert.equal(budget.over(), false, 'paused twice the budget, having spent almost none of it');
  assert.ok(budget.deadline > performance.now(), 'the deadline moved on by what is left of the budget');
  const cpuAt = threadCpuMs();
  let checks = 0;
  while (!budget.over()) {
    checks++;
    if (threadCpuMs() - cpuAt > 1000) assert.fail('not over after a second of CPU');
  }
  assert.ok(checks > 0);
  assert.ok(threadCpuMs() - cpuAt <= 40 + 5, 'over within the budget of CPU spent after the pause');
  // The CPU since the sample before the inspection counts too: a millisecond or two, idle.
  assert.ok(performance.now() - started >= 80 + 30, 'over no sooner than the pause and (about) the budget of CPU');
});

test('an unbounded budget is never over', () => {
  const budget = new Budget(performance.now(), Infinity);
  pause(5);
  assert.equal(budget.over(), false);
});
