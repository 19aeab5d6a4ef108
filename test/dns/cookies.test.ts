// DNS COOKIEs (cookies.ts) against the test vectors of RFC 9018 Appendix A, and the rules for how
// long a server cookie is good; the SERVFAIL reply (respond.ts `failure`) with its Extended DNS Error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkCookies, derivedCookieSecret, makeServerCookie, parseCookieSecrets } from '../../src/dns/server/cookies.ts';
import { SigningError } from '../../src/dns/dnssec/signer.ts';
import { failure } from '../../src/dns/server/respond.ts';
import { buildQuery, decode } from '../support/dns-client.ts';

const secret = Buffer.from('e5e973e5a6b2a43f48e7dc849e37bfcf', 'hex');
const client = Buffer.from('2464c4abcf10c957', 'hex');
const source = '198.51.100.100';
const learned = 1559731985;

test('RFC 9018 A.1 and A.2: the server cookie learned, then renewed', () => {
  assert.equal(makeServerCookie(secret, client, source, learned)?.toString('hex'), '010000005cf79f111f8130c3eee29480');
  assert.equal(makeServerCookie(secret, client, source, 1559734385)?.toString('hex'), '010000005cf7a871d4a564a1442aca77');
  assert.equal(makeServerCookie(secret, client, `::ffff:${source}`, learned)?.toString('hex'), '010000005cf79f111f8130c3eee29480', 'IPv4-mapped is IPv4');
});

test('a server cookie is good for an hour, renewed after half of it, and only for its client and address', () => {
  const cookie = makeServerCookie(secret, client, source, learned) ?? Buffer.alloc(0);
  const at = (now: number, from = source, secrets = [secret]) => checkCookies(secrets, client, cookie, from, now);
  assert.equal(at(learned + 10)?.verdict, 'valid');
  assert.ok(at(learned + 10)?.option.subarray(12).equals(cookie), 'young: handed back as it is');
  assert.equal(at(learned + 1900)?.verdict, 'valid');
  assert.ok(!at(learned + 1900)?.option.subarray(12).equals(cookie), 'past half an hour: a fresh one');
  assert.equal(at(learned + 3601)?.verdict, 'invalid');
  assert.equal(at(learned - 301)?.verdict, 'invalid', 'more than 5 minutes ahead');
  assert.equal(at(learned + 10, '198.51.100.101')?.verdict, 'invalid');
  assert.equal(at(learned + 10, source, [Buffer.alloc(16, 7), secret])?.verdict, 'valid', 'a rotated-out secret is still accepted');
  assert.equal(at(learned + 10, source, [Buffer.alloc(16, 7)])?.verdict, 'invalid');
  assert.equal(checkCookies([secret], client, undefined, source, learned)?.verdict, 'new');
  assert.equal(checkCookies([secret], client, Buffer.alloc(24, 1), source, learned)?.verdict, 'invalid', 'not ours: wrong length and version');
});

test('secrets: 32 hex digits each, up to four; derived from the secret key alike on every node', () => {
  assert.equal(parseCookieSecrets('e5e973e5a6b2a43f48e7dc849e37bfcf, 00112233445566778899aabbccddeeff').length, 2);
  for (const bad of ['', 'xyz', 'e5e973e5a6b2a43f', `${'ab'.repeat(16)},`.repeat(5)]) assert.throws(() => parseCookieSecrets(bad));
  const key = Buffer.alloc(32, 3);
  assert.ok(derivedCookieSecret(key).equals(derivedCookieSecret(Buffer.from(key))));
  assert.equal(derivedCookieSecret(key).length, 16);
  assert.ok(!derivedCookieSecret(key).equals(derivedCookieSecret(Buffer.alloc(32, 4))));
});

test('a failed answer is SERVFAIL with the question and an Extended DNS Error naming a signing failure', () => {
  const ede = (reply: Buffer | undefined) => {
    const opt = (decode(reply ?? Buffer.alloc(0)).additionals ?? []).find((a) => a.type === 'OPT') as unknown as { options: { code: number; data: Buffer }[] } | undefined;
    const data = opt?.options.find((o) => o.code === 15)?.data;
    return data === undefined ? undefined : `${String(data.readUInt16BE(0))} ${data.subarray(2).toString()}`;
  };
  const signed = failure(buildQuery('www.example.com', 'A', { udpSize: 1232, dnssecOk: true }), new SigningError('no key'));
  assert.equal(decode(signed ?? Buffer.alloc(0)).rcode, 'SERVFAIL');
  assert.equal(decode(signed ?? Buffer.alloc(0)).questions?.[0]?.name, 'www.example.com');
  assert.equal(ede(signed), '0 DNSSEC signing failed');
  assert.equal(ede(failure(buildQuery('www.example.com', 'A', { udpSize: 1232 }), new Error('bug'))), '0 internal error');
  const plain = failure(buildQuery('www.example.com', 'A'), new Error('bug'));
  assert.equal(decode(plain ?? Buffer.alloc(0)).rcode, 'SERVFAIL');
  assert.equal(ede(plain), undefined, 'no EDNS, no OPT');
  assert.equal(decode(failure(Buffer.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 63]), new Error('bug')) ?? Buffer.alloc(0)).rcode, 'SERVFAIL', 'unparsable: the header alone');
  assert.equal(failure(Buffer.from([1, 2, 3]), new Error('bug')), undefined);
});
