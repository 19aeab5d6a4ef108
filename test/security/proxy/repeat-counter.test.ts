// The bot challenge's count of challenges served per client (mitigation/repeat-counter.ts): a key
// past its limit stays past until about five seconds go by without it, other keys are not dragged
// along, and a steady trickle under the limit never crosses it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RepeatCounter } from '../../../src/security/proxy/mitigation/repeat-counter.ts';

test('a key asked for faster than the limit is past it, stays past while it keeps asking, and is let go after some quiet seconds', () => {
  const counter = new RepeatCounter();
  const t = 1_000_000;
  const results = Array.from({ length: 6 }, () => counter.past('10.0.0.1', 4, t));
  assert.deepEqual(results, [false, false, false, false, true, true], 'the fifth within a second is past 4');
  // One request every four seconds keeps it past: it never had five quiet seconds.
  for (let s = 4; s <= 40; s += 4) assert.equal(counter.past('10.0.0.1', 4, t + s), true, `at +${String(s)} s`);
  // Six quiet seconds: 255 halved six times is 3.
  assert.equal(counter.past('10.0.0.1', 4, t + 46), false, 'let go');
});

test('a steady two a second stays under a limit of 6 (it reads about 4); eight a second crosses it', () => {
  const counter = new RepeatCounter();
  const t = 2_000_000;
  let crossed = false;
  for (let s = 0; s < 60; s++) for (let i = 0; i < 2; i++) crossed ||= counter.past('browser', 6, t + s);
  assert.equal(crossed, false, 'two a second settles at about 4, under 6');
  let flooded = false;
  for (let s = 0; s < 10; s++) for (let i = 0; i < 8; i++) flooded ||= counter.past('script', 6, t + 100 + s);
  assert.equal(flooded, true);
});

test('thousands of keys past the limit leave almost every other key alone', () => {
  const counter = new RepeatCounter();
  const t = 3_000_000;
  for (let k = 0; k < 5000; k++) for (let i = 0; i < 10; i++) counter.past(`198.51.${String(k >> 8)}.${String(k & 255)}`, 4, t);
  let wronglyPast = 0;
  for (let k = 0; k < 5000; k++) if (counter.past(`203.0.${String(k >> 8)}.${String(k & 255)}`, 4, t)) wronglyPast++;
  // Both cells of a fresh key must be among the 5,000 saturated ones of 65,536 in each row: about 0.6% of keys.
  assert.ok(wronglyPast < 5000 * 0.02, `fresh keys wrongly past: ${String(wronglyPast)} of 5,000`);
});
