// Automatic mitigation on a clock the test drives: when a resource counts as under attack (a rate
// jump over its learned usual rate, or its origin failing), when it is calm again, and whom it sheds.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AttackWatch, type AttackPhase } from '../../../src/security/proxy/mitigation/attack-watch.ts';
import { HeavyHitters } from '../../../src/security/proxy/mitigation/heavy-hitters.ts';
import { Tarpit } from '../../../src/security/proxy/mitigation/tarpit.ts';

const options = { minRate: 100, rateFactor: 5, errorRatio: 0.5, holdMs: 10_000, shedShare: 0.05 };

/** Drives a watch second by second: `perSecond` requests each second (spread over it), from `client(i)`. */
function run(watch: AttackWatch, from: number, seconds: number, perSecond: number, onRequest?: (at: number, i: number) => void): number {
  for (let s = 0; s < seconds; s++) {
    for (let i = 0; i < perSecond; i++) {
      const now = from + s * 1000 + (i * 1000) / perSecond;
      watch.arrived(now);
      onRequest?.(now, i);
    }
  }
  return from + seconds * 1000;
}

describe('attack watch', () => {
  test('a jump to five times the learned rate, above the minimum, engages; it releases a hold after the last such second', () => {
    const phases: AttackPhase[] = [];
    const watch = new AttackWatch(options, (phase) => phases.push(phase));
    let now = run(watch, 0, 20, 40);
    assert.equal(watch.underAttack, false);
    assert.ok(Math.abs(watch.threshold - 200) < 10, `learned 40/s: engages at 5 × 40 = 200/s (threshold ${String(watch.threshold)})`);
    now = run(watch, now, 10, 150);
    assert.equal(watch.underAttack, false, '150/s is above the minimum but under 5 × the usual rate');
    now = run(watch, now, 10, 600);
    assert.equal(watch.underAttack, true);
    assert.deepEqual(phases, ['under_attack']);
    // Calm again: still on within the hold, off after it.
    now = run(watch, now, 9, 40);
    assert.equal(watch.underAttack, true, 'held');
    run(watch, now, 10, 40);
    assert.equal(watch.underAttack, false);
    assert.deepEqual(phases, ['under_attack', 'calm']);
    // The attack did not raise the usual rate.
    assert.ok(watch.threshold < 300, `threshold ${String(watch.threshold)}`);
  });

  test("a flood engages within its first second, as soon as the second so far makes a second's worth at the threshold", () => {
    const watch = new AttackWatch(options);
    const now = run(watch, 0, 10, 20);
    // Learned 20/s: the threshold is max(100, 5 × 20) = 100/s. 19 requests in each tenth of a second
    // (just under twice a tenth's worth): the second's 100th request engages, in its sixth tenth.
    let engagedAt = -1;
    for (let i = 0; i < 600 && engagedAt < 0; i++) if (watch.arrived(now + Math.floor(i / 19) * 100 + (i % 19))) engagedAt = i + 1;
    assert.equal(engagedAt, 100, "at the 100th request of the second");
    // Seconds just under the threshold never engage.
    const ramp = new AttackWatch(options);
    run(ramp, run(ramp, 0, 10, 20), 10, 99);
    assert.equal(ramp.underAttack, false, 'ten seconds at 99/s: under the threshold');
  });

  test("a flood whose sources send at once engages at twice a tenth of a second's worth, not a second's", () => {
    const watch = new AttackWatch(options);
    const now = run(watch, 0, 10, 20);
    // Threshold 100/s: 20 requests within one tenth of a second engage, 10 ms in at 2,000/s.
    let engagedAt = -1;
    for (let i = 0; i < 600 && engagedAt < 0; i++) if (watch.arrived(now + 100 + i * 0.5)) engagedAt = i + 1;
    assert.equal(engagedAt, 20, 'at the 20th request of the tenth');
    // 19 at once (a burst of a page and its assets, say) does not.
    const burst = new AttackWatch(options);
    const later = run(burst, 0, 10, 20) + 100;
    for (let i = 0; i < 19; i++) burst.arrived(later + i * 0.1);
    assert.equal(burst.underAttack, false);
  });

  test('below the minimum rate nothing engages, however steep the jump', () => {
    const watch = new AttackWatch(options);
    const now = run(watch, 0, 10, 1);
    run(watch, now, 10, 90);
    assert.equal(watch.underAttack, false);
  });

  test('an origin failing half the forwarded requests engages without any rate jump', () => {
    const watch = new AttackWatch(options);
    run(watch, 0, 10, 10, (at, i) => watch.forwarded(i % 2 === 0, at));
    assert.equal(watch.underAttack, true);
    // A few failures among few requests mean nothing.
    const quiet = new AttackWatch(options);
    run(quiet, 0, 10, 1, (at) => quiet.forwarded(true, at));
    assert.equal(quiet.underAttack, false, 'fewer than 20 forwarded requests in the window');
  });

  test('under attack, the heavy sources are shed and the light ones are not, among thousands of addresses', () => {
    const watch = new AttackWatch(options);
    const now = run(watch, 0, 10, 20);
    let shedHeavy = 0;
    let shedLight = 0;
    let lightSeen = 0;
    // 2,000/s: half from two heavy clients, half from 5,000 rotating addresses, and a polite client at 2/s.
    run(watch, now, 10, 2000, (_at, i) => {
      if (!watch.underAttack) return;
      if (i % 2 === 0) {
        if (watch.heavy(i % 4 === 0 ? 'heavy-a' : 'heavy-b')) shedHeavy++;
      } else if (i % 1000 === 1) {
        lightSeen++;
        if (watch.heavy('polite')) shedLight++;
      } else if (watch.heavy(`rotating-${String(i * 7919 % 5000)}`)) shedLight++;
    });
    assert.equal(watch.underAttack, true);
    assert.ok(shedHeavy > 8000, `heavy requests shed: ${String(shedHeavy)}`);
    assert.equal(shedLight, 0, 'no light client shed');
    assert.ok(lightSeen > 0);
  });
});

test("heavy hitters: among many more clients than counters, every one over a counter's share is counted, none overstated", () => {
  // Space-Saving's guarantees, without decay: a client sending more than total ÷ capacity holds a
  // counter, and what a counter says is sure never exceeds what its client sent.
  const capacity = 32;
  const hitters = new HeavyHitters(capacity);
  const sent = new Map<string, number>();
  let seed = 7;
  const random = () => (seed = (Math.imul(seed, 48271) >>> 0) % 2147483647) / 2147483647;
  const sureOf = new Map<string, number>();
  for (let i = 0; i < 50_000; i++) {
    // A few heavy clients among 5,000 light ones.
    const client = random() < 0.3 ? `heavy-${String(Math.floor(random() * 5))}` : `light-${String(Math.floor(random() * 5000))}`;
    sent.set(client, (sent.get(client) ?? 0) + 1);
    sureOf.set(client, hitters.add(client));
  }
  for (const [client, sure] of sureOf) assert.ok(sure <= (sent.get(client) ?? 0), `${client}: sure ${String(sure)} of ${String(sent.get(client))}`);
  for (let h = 0; h < 5; h++) {
    const client = `heavy-${String(h)}`;
    const sure = hitters.add(client);
    assert.ok(sure > 50_000 / capacity / 2, `${client} is counted: ${String(sure)} sure of ${String(sent.get(client))}`);
  }
  hitters.decay();
  assert.ok(hitters.total < 25_010);
});

test('heavy hitters: bounded, and never overstate a client', () => {
  const hitters = new HeavyHitters(8);
  for (let i = 0; i < 1000; i++) hitters.add(`one-off-${String(i)}`);
  for (let i = 0; i < 100; i++) hitters.add('steady');
  // The steady client is counted surely for what it sent after taking a counter (at most 100).
  const sure = hitters.add('steady');
  assert.ok(sure <= 101 && sure > 50, `steady: ${String(sure)}`);
  assert.equal(hitters.add('newcomer'), 1, 'a newcomer inherits a count, never a sure one');
  hitters.decay();
  assert.ok(hitters.total < 700);
});

test('tarpit: each held request runs once its delay has passed, in order; past its capacity, or with no delay, nothing is held', async () => {
  const tarpit = new Tarpit(60, 3);
  const ran: string[] = [];
  const started = performance.now();
  const times: number[] = [];
  for (const name of ['a', 'b', 'c']) assert.equal(tarpit.hold(() => { ran.push(name); times.push(performance.now() - started); }), true);
  assert.equal(tarpit.hold(() => ran.push('d')), false, 'full');
  assert.equal(tarpit.held, 3);
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.equal(ran.length, 0, 'not before the delay');
  assert.equal(tarpit.hold(() => ran.push('still full')), false);
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.deepEqual(ran, ['a', 'b', 'c']);
  assert.ok(times.every((t) => t >= 59), `after 60 ms: ${times.join(', ')}`);
  assert.equal(tarpit.held, 0);
  assert.equal(tarpit.hold(() => ran.push('e')), true, 'room again');
  tarpit.clear();
  await new Promise((resolve) => setTimeout(resolve, 90));
  assert.deepEqual(ran, ['a', 'b', 'c'], 'cleared: dropped, never run');
  assert.equal(new Tarpit(0, 10).hold(() => undefined), false, 'no delay: answered at once');
});
