// GCRA of one node at its boundaries, on a clock the test drives, and the bound on buckets held.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { localCounters } from '../../../src/security/proxy/rate/local-counters.ts';

function clocked(options: { maxKeys?: number } = {}) {
  let time = 1000;
  const counters = localCounters({ ...options, now: () => time });
  return { counters, advance: (ms: number) => (time += ms) };
}

test('value requests pass at once, the next waits 1/value s, then one more passes', () => {
  for (const value of [1, 3, 10, 100_000]) {
    const { counters, advance } = clocked();
    for (let i = 0; i < value; i++) assert.equal(counters.take('k', value, value), 0, `request ${i + 1} of ${value}`);
    const wait = counters.take('k', value, value);
    assert.ok(Math.abs(wait - 1 / value) < 1e-9, `wait ${wait} for ${value}/s`);
    advance(1000 / value - 0.01);
    assert.ok(counters.take('k', value, value) > 0, 'not quite yet');
    advance(0.01);
    assert.equal(counters.take('k', value, value), 0, 'one more after 1/value s');
    assert.ok(counters.take('k', value, value) > 0, 'and only one');
  }
});

test('a steady client at the rate is never refused; refused requests are not counted', () => {
  const { counters, advance } = clocked();
  for (let i = 0; i < 5; i++) counters.take('k', 5, 5);
  for (let i = 0; i < 50; i++) {
    assert.ok(counters.take('k', 5, 5) > 0);
    advance(200);
    assert.equal(counters.take('k', 5, 5), 0, `request at ${i}`);
  }
  advance(1000);
  for (let i = 0; i < 5; i++) assert.equal(counters.take('k', 5, 5), 0, 'a full bucket after a second of silence');
});

test('buckets are separate per key', () => {
  const { counters } = clocked();
  assert.equal(counters.take('a', 1, 1), 0);
  assert.ok(counters.take('a', 1, 1) > 0);
  assert.equal(counters.take('b', 1, 1), 0);
});

test('a flood of distinct keys holds at most maxKeys buckets; stale ones go first', () => {
  const { counters, advance } = clocked({ maxKeys: 1000 });
  assert.equal(counters.take('steady', 1, 1), 0);
  for (let i = 0; i < 5000; i++) {
    assert.equal(counters.take(`flood-${i}`, 1, 1), 0);
    assert.ok(counters.size <= 1000, `size ${counters.size}`);
  }
  // Every bucket is full again a second later: when the Map is full, they all go at once.
  advance(1001);
  for (let i = 0; ; i++) {
    const before = counters.size;
    assert.equal(counters.take(`late-${i}`, 1, 1), 0);
    if (counters.size > before) continue;
    assert.equal(counters.size, i + 1, 'only the buckets taken since are left');
    break;
  }
});

test('an empty bucket keeps its place while the Map is trimmed of stale buckets', () => {
  const { counters, advance } = clocked({ maxKeys: 10 });
  for (let i = 0; i < 9; i++) counters.take(`old-${i}`, 1, 1);
  advance(2000);
  assert.equal(counters.take('recent', 1, 1), 0);
  // The stale ones make room; 'recent' is still counted.
  for (let i = 0; i < 5; i++) counters.take(`new-${i}`, 1, 1);
  assert.ok(counters.take('recent', 1, 1) > 0);
});
