// The proxy's HMAC-SHA256 with precomputed keyed states gives createHmac's bytes, for every key
// length (short, a block, longer than a block: hashed first) and message (empty, long, non-ASCII).
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { hmacSha256 } from '../../../src/security/proxy/steps/keyed-mac.ts';

test('hmacSha256 equals createHmac, repeatedly under one key and across key lengths', () => {
  for (const keyLength of [0, 1, 32, 63, 64, 65, 200]) {
    const key = randomBytes(keyLength);
    for (const message of ['', 'seed|1|192.0.2.1|1764000000', 'é€😀', 'x'.repeat(1000), randomBytes(300).toString('latin1')]) {
      const expected = createHmac('sha256', key).update(message).digest('hex');
      assert.equal(hmacSha256(key, message).toString('hex'), expected, `key ${String(keyLength)} bytes, message ${String(message.length)} chars`);
      assert.equal(hmacSha256(key, message).toString('hex'), expected, 'the same again: the keyed states are copied, never consumed');
    }
  }
});
