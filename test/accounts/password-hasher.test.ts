// The bounded password hasher: at most `concurrency` hashes run, `queue` wait, the rest are refused
// at once with a 429 carrying Retry-After; refusals are counted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { ApiError } from '../../src/errors.ts';
import { passwordHasher } from '../../src/accounts/password-hasher.ts';

test('hashes and verifies; an unknown user (no stored hash) is false after the same work', async () => {
  const hasher = passwordHasher({ concurrency: 1, queue: 4 });
  const stored = await hasher.hash('correct horse battery');
  assert.match(stored, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  assert.equal(await hasher.verify('correct horse battery', stored), true);
  assert.equal(await hasher.verify('wrong horse battery', stored), false);
  assert.equal(await hasher.verify('correct horse battery', undefined), false);
});

test('beyond concurrency + queue a hash is refused at once, and accepted again once they drain', async () => {
  const registry = new Registry();
  const hasher = passwordHasher({ concurrency: 1, queue: 2 }, registry);
  const stored = await hasher.hash('correct horse battery');
  let finished = 0;
  const accepted = [1, 2, 3].map(async () => {
    const valid = await hasher.verify('correct horse battery', stored);
    finished++;
    return valid;
  });

  const refused = await Promise.allSettled([hasher.verify('correct horse battery', stored), hasher.hash('another one')]);
  assert.equal(finished, 0, 'refused without waiting for any accepted hash');
  for (const outcome of refused) {
    assert.equal(outcome.status, 'rejected');
    const error: unknown = outcome.reason;
    assert.ok(error instanceof ApiError);
    assert.equal(error.status, 429);
    assert.equal(error.code, 'too_many_requests');
    assert.equal(error.headers['retry-after'], '1');
  }
  const waiting = await registry.getSingleMetric('edgeplane_password_hashes_waiting')?.get();
  assert.equal(waiting?.values[0]?.value, 2);

  assert.deepEqual(await Promise.all(accepted), [true, true, true]);
  assert.equal(await hasher.verify('correct horse battery', stored), true, 'accepted again');
  const refusals = await registry.getSingleMetric('edgeplane_password_hashes_refused_total')?.get();
  assert.equal(refusals?.values[0]?.value, 2);
});
