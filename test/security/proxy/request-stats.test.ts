// What the proxy's request statistics take from the threads' counters at each write
// (src/security/proxy/request-stats.ts); through real requests and the store:
// test/e2e/proxy-statistics.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CounterDeltas, requestsMetric, type ThreadCounters } from '../../../src/security/proxy/request-stats.ts';

const counters = (values: [resource: string, outcome: string, value: number][]): ThreadCounters => [
  { name: requestsMetric, values: values.map(([resource, outcome, value]) => ({ labels: { resource, outcome }, value })) },
  { name: 'edgeplane_other_total', values: [{ labels: { resource: '1', outcome: 'passed' }, value: 99 }] },
];

test('per thread, what each counter grew by; summed over threads per resource and outcome; a counter that went down starts again', () => {
  const deltas = new CounterDeltas();
  assert.deepEqual(deltas.take([counters([['1', 'passed', 5]]), counters([['1', 'passed', 2], ['none', 'passed', 7]])], 60), [{ resource_id: 1, bucket: 60, outcome: 'passed', count: 7 }]);
  const next = deltas.take([counters([['1', 'passed', 8], ['1', 'blacklist', 1]]), counters([['1', 'passed', 1]])], 120);
  assert.deepEqual(
    next.sort((a, b) => a.outcome.localeCompare(b.outcome)),
    [
      { resource_id: 1, bucket: 120, outcome: 'blacklist', count: 1 },
      // Thread 0 grew by 3; thread 1's counter went from 2 to 1: it started again, and holds 1 new.
      { resource_id: 1, bucket: 120, outcome: 'passed', count: 4 },
    ],
  );
  assert.deepEqual(deltas.take([counters([['1', 'passed', 8], ['1', 'blacklist', 1]]), counters([['1', 'passed', 1]])], 180), []);
});

test('a thread gone (undefined) counts nothing, and the one started in its place counts from 0, even past where the other was', () => {
  const deltas = new CounterDeltas();
  deltas.take([counters([['1', 'passed', 5]]), counters([['1', 'passed', 10]])], 60);
  // Thread 1 ended: nothing of it this time.
  assert.deepEqual(deltas.take([counters([['1', 'passed', 6]]), undefined], 120), [{ resource_id: 1, bucket: 120, outcome: 'passed', count: 1 }]);
  // Its replacement has counted 12 (more than the 10 the ended one had): all 12 are new.
  assert.deepEqual(deltas.take([counters([['1', 'passed', 6]]), counters([['1', 'passed', 12]])], 180), [{ resource_id: 1, bucket: 180, outcome: 'passed', count: 12 }]);
});
