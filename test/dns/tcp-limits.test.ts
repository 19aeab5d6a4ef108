// The TCP connection caps on their own: the cap in total and per client (what counts as one client:
// test/net/client-key.test.ts), places given back, and two admissions on the same shared counters
// (as two DNS threads hold them).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TcpAdmission, tcpLimits, type Place, type Refusal } from '../../src/dns/server/tcp-limits.ts';

const limits = (maxClients: number, maxPerClient: number) => tcpLimits({ maxClients, maxPerClient, idleTimeoutMs: 10_000, maxPipelined: 100 });

/** 'admitted', or the refusal. */
const verdict = (result: Place | Refusal) => (typeof result === 'string' ? result : 'admitted');

function place(result: Place | Refusal): Place {
  assert.notEqual(typeof result, 'string', 'admitted');
  return result as Place;
}

test('per client: the cap, whatever the address within its /64; other clients are not counted with it', () => {
  const admission = new TcpAdmission(limits(100, 2));
  const verdicts = ['2001:db8::1', '2001:db8::2', '2001:db8::ffff:3', '2001:db8:0:1::1', '192.0.2.1', '::ffff:192.0.2.1', '192.0.2.1'].map((a) => verdict(admission.admit(a)));
  assert.deepEqual(verdicts, ['admitted', 'admitted', 'max_per_client', 'admitted', 'admitted', 'admitted', 'max_per_client']);
});

test('in total: the cap over every admission sharing the counters; places are given back on release', () => {
  const shared = limits(3, 10);
  // Two DNS threads: each its own admission over the same SharedArrayBuffer.
  const [one, two] = [new TcpAdmission(shared), new TcpAdmission(shared)];
  const first = place(one.admit('192.0.2.1'));
  assert.deepEqual([verdict(two.admit('192.0.2.2')), verdict(one.admit('192.0.2.3')), verdict(two.admit('192.0.2.4')), verdict(one.admit('192.0.2.1'))], ['admitted', 'admitted', 'max_clients', 'max_clients']);
  one.release(first);
  assert.deepEqual([verdict(two.admit('192.0.2.4')), verdict(one.admit('192.0.2.5'))], ['admitted', 'max_clients']);
});

test('a refusal for one client leaves the total as it was', () => {
  const admission = new TcpAdmission(limits(3, 1));
  const kept = place(admission.admit('192.0.2.1'));
  for (let i = 0; i < 10; i++) assert.equal(verdict(admission.admit('192.0.2.1')), 'max_per_client');
  assert.deepEqual(['192.0.2.2', '192.0.2.3', '192.0.2.4'].map((a) => verdict(admission.admit(a))), ['admitted', 'admitted', 'max_clients']);
  admission.release(kept);
  assert.equal(verdict(admission.admit('192.0.2.1')), 'admitted');
});
