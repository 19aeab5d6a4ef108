// TSIG on its own: what verifyRequest says of requests signed now, long ago, with an unknown key or
// altered on the way. Interoperability (Knot DNS, kdig) is tested in test/e2e/dns-transfer.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildQuery } from '../support/dns-client.ts';
import { parseTsigKey, signRequest, tsigError, verifyRequest } from '../../src/dns/server/tsig.ts';

const key = parseTsigKey(`xfr-key:hmac-sha256:${Buffer.from('a shared secret of 32 octets....').toString('base64')}`);
const other = parseTsigKey(`other:hmac-sha512:${Buffer.from('another secret of 32 octets.....').toString('base64')}`);
const query = buildQuery('example.com', 'AXFR', { id: 4321 });

test('a request signed now with a known key verifies', () => {
  const result = verifyRequest(signRequest(query, key), [other, key]);
  assert.ok(result.ok);
  assert.equal(result.request.key.name, 'xfr-key');
});

test('unknown key, altered message, or a time outside the fudge', () => {
  assert.deepEqual(verifyRequest(signRequest(query, key), [other]), { ok: false, error: tsigError.badKey, keyName: 'xfr-key' });
  const altered = signRequest(query, key);
  altered[13] = (altered[13] ?? 0) ^ 0x20;
  assert.deepEqual(verifyRequest(altered, [key]), { ok: false, error: tsigError.badSig, keyName: 'xfr-key' });
  const anHourAgo = signRequest(query, key, Date.now() - 3_600_000);
  assert.deepEqual(verifyRequest(anHourAgo, [key]), { ok: false, error: tsigError.badTime, keyName: 'xfr-key' });
  assert.deepEqual(verifyRequest(query, [key]), { ok: false, error: undefined });
  assert.deepEqual(verifyRequest(Buffer.concat([signRequest(query, key).subarray(0, 40)]), [key]), { ok: false, error: undefined });
});

test('keys are checked when configured: name, algorithm, secret length', () => {
  assert.throws(() => parseTsigKey('k:hmac-md5:c2VjcmV0c2VjcmV0c2VjcmV0'), /algorithm must be/);
  assert.throws(() => parseTsigKey('k:hmac-sha256:c2hvcnQ='), /at least 16 octets/);
  assert.throws(() => parseTsigKey('bad name:hmac-sha256:c2VjcmV0c2VjcmV0c2VjcmV0'), /not a key name/);
});
