// Per-zone query counters of a DNS thread (src/dns/server/query-stats.ts) and the provider's
// granularity strings (src/statistics/range.ts). The counts through real queries and the store:
// test/e2e/dns-statistics.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { durationSeconds } from '../../src/statistics/range.ts';
import { rcodeSlots, slotTypes } from '../../src/dns/server/metrics.ts';
import { QueryStats } from '../../src/dns/server/query-stats.ts';

const slotOf = (qtype: number, rcode: number) => slotTypes.indexOf(qtype) * rcodeSlots + rcode;

test('counts by zone, type and rcode; taking them starts again from zero; no zone and no reply count for nothing', () => {
  const stats = new QueryStats();
  for (let i = 0; i < 3; i++) stats.count(7, slotOf(1, 0));
  stats.count(7, slotOf(28, 3));
  stats.count(9, slotOf(0, 0));
  stats.count(0, slotOf(1, 5));
  stats.count(7, -1);
  const rows = stats.take(1_800_000_000).sort((a, b) => a.zone_id - b.zone_id || a.qtype - b.qtype);
  assert.deepEqual(rows, [
    { zone_id: 7, bucket: 1_800_000_000, qtype: 1, rcode: 0, count: 3 },
    { zone_id: 7, bucket: 1_800_000_000, qtype: 28, rcode: 3, count: 1 },
    { zone_id: 9, bucket: 1_800_000_000, qtype: 0, rcode: 0, count: 1 },
  ]);
  assert.deepEqual(stats.take(1_800_000_060), []);
});

test('granularity: Go durations, in seconds; anything else is undefined', () => {
  const cases: [string, number | undefined][] = [
    ['5m', 300], ['1h', 3600], ['1.5h', 5400], ['2h45m', 9900], ['90s', 90], ['300ms', 0.3],
    ['', undefined], ['h', undefined], ['5', undefined], ['1h30', undefined], ['-1h', undefined], ['1d', undefined],
  ];
  for (const [text, seconds] of cases) assert.equal(durationSeconds(text), seconds, text);
});
