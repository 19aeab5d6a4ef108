// When a managed certificate is renewed and how long a failed resource waits: the rules on their own.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { test } from 'node:test';
import type { TlsPolicy } from '../../../src/security/proxy/policy.ts';
import { backoffMs, certificateNeed, renewBeforeSeconds, wantedNames } from '../../../src/security/proxy/tls/acme-renewal.ts';
import { selfSignedCertificate } from '../../support/certificates.ts';

const day = 86_400;

function tlsFor(names: string[], days: number): TlsPolicy {
  const now = new Date();
  const pair = selfSignedCertificate(names[0]!, { sans: names, notBefore: now, notAfter: new Date(now.getTime() + days * day * 1000) });
  return { kind: 'le', chain: pair.crt, key: pair.key, expires: Math.floor(new X509Certificate(pair.crt).validToDate.getTime() / 1000) };
}

test('the renewal window: a third of the lifetime, at most 30 days; half of it under 10 days', () => {
  const window = (days: number) => renewBeforeSeconds(new X509Certificate(tlsFor(['a.example'], days).chain)) / day;
  assert.equal(Math.round(window(90)), 30);
  assert.equal(Math.round(window(365)), 30);
  assert.equal(Math.round(window(45)), 15);
  assert.equal(Math.round(window(6)), 3);
});

test('a certificate is needed when there is none, when it is within its window, or when it lacks a held name', () => {
  const tls = tlsFor(['a.example', 'www.a.example'], 90);
  const now = Date.now() / 1000;
  assert.equal(certificateNeed(undefined, ['a.example'], now), 'first');
  assert.equal(certificateNeed(tls, ['a.example', 'www.a.example'], now), undefined);
  assert.equal(certificateNeed(tls, ['a.example'], now), undefined, 'a name given up needs no new certificate');
  assert.equal(certificateNeed(tls, ['a.example', 'm.a.example'], now), 'names');
  assert.equal(certificateNeed(tls, ['a.example'], now + 59 * day), undefined);
  assert.equal(certificateNeed(tls, ['a.example'], now + 61 * day), 'expiring');
  assert.equal(certificateNeed(tls, ['a.example'], now, 91 * day), 'expiring', 'a window longer than the lifetime: due at once');
});

test('backoff doubles from the base up to the cap; at most 100 names, the name first', () => {
  assert.deepEqual([1, 2, 3, 4].map((n) => backoffMs(n, 600_000, 86_400_000)), [600_000, 1_200_000, 2_400_000, 4_800_000]);
  assert.equal(backoffMs(20, 600_000, 86_400_000), 86_400_000);
  const hosts = Array.from({ length: 101 }, (_, i) => `h${String(i)}.example`);
  assert.deepEqual(wantedNames(hosts), hosts.slice(0, 100));
});
