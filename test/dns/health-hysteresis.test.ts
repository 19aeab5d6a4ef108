// The thresholds between probe results and a record's state (health/hysteresis.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { afterProbe, type Hysteresis } from '../../src/dns/health/hysteresis.ts';

const thresholds = { fall: 3, rise: 2 };
const run = (start: Hysteresis, results: boolean[]) => results.map((r) => (start = afterProbe(start, r, thresholds)).up);

test('a record without a state takes its first result at once', () => {
  assert.deepEqual(afterProbe({ up: undefined, streak: 0 }, false, thresholds), { up: false, streak: 0 });
  assert.deepEqual(afterProbe({ up: undefined, streak: 0 }, true, thresholds), { up: true, streak: 0 });
});

test('up goes down on the third failure in a row; a pass in between starts the count again', () => {
  assert.deepEqual(run({ up: true, streak: 0 }, [false, false, false]), [true, true, false]);
  assert.deepEqual(run({ up: true, streak: 0 }, [false, false, true, false, false, false]), [true, true, true, true, true, false]);
});

test('down comes back on the second pass in a row', () => {
  assert.deepEqual(run({ up: false, streak: 0 }, [true, false, true, true]), [false, false, false, true]);
});

test('thresholds of 1 follow every result', () => {
  let state: Hysteresis = { up: true, streak: 0 };
  for (const r of [false, true, false]) {
    state = afterProbe(state, r, { fall: 1, rise: 1 });
    assert.equal(state.up, r);
  }
});
