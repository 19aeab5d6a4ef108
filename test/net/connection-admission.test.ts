// The connection caps on their own (the DNS TCP listener's and the proxy's): the cap in total and per
// client (what counts as one client: test/net/client-key.test.ts), places given back, two admissions
// on the same shared counters (as two threads hold them), and a client admitted after its connection.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConnectionAdmission, sharedCaps, type Place, type Refusal } from '../../src/net/connection-admission.ts';

const limits = (maxClients: number, maxPerClient: number) => sharedCaps({ maxClients, maxPerClient });

/** 'admitted', or the refusal. */
const verdict = (result: Place | Refusal) => (typeof result === 'string' ? result : 'admitted');

function place(result: Place | Refusal): Place {
  assert.notEqual(typeof result, 'string', 'admitted');
  return result as Place;
}

test('per client: the cap, whatever the address within its /64; other clients are not counted with it', () => {
  const admission = new ConnectionAdmission(limits(100, 2));
  const verdicts = ['2001:db8::1', '2001:db8::2', '2001:db8::ffff:3', '2001:db8:0:1::1', '192.0.2.1', '::ffff:192.0.2.1', '192.0.2.1'].map((a) => verdict(admission.admit(a)));
  assert.deepEqual(verdicts, ['admitted', 'admitted', 'max_per_client', 'admitted', 'admitted', 'admitted', 'max_per_client']);
});

test('in total: the cap over every admission sharing the counters; places are given back on release', () => {
  const shared = limits(3, 10);
  // Two DNS threads: each its own admission over the same SharedArrayBuffer.
  const [one, two] = [new ConnectionAdmission(shared), new ConnectionAdmission(shared)];
  const first = place(one.admit('192.0.2.1'));
  assert.deepEqual([verdict(two.admit('192.0.2.2')), verdict(one.admit('192.0.2.3')), verdict(two.admit('192.0.2.4')), verdict(one.admit('192.0.2.1'))], ['admitted', 'admitted', 'max_clients', 'max_clients']);
  one.release(first);
  assert.deepEqual([verdict(two.admit('192.0.2.4')), verdict(one.admit('192.0.2.5'))], ['admitted', 'max_clients']);
});

test('a refusal for one client leaves the total as it was', () => {
  const admission = new ConnectionAdmission(limits(3, 1));
  const kept = place(admission.admit('192.0.2.1'));
  for (let i = 0; i < 10; i++) assert.equal(verdict(admission.admit('192.0.2.1')), 'max_per_client');
  assert.deepEqual(['192.0.2.2', '192.0.2.3', '192.0.2.4'].map((a) => verdict(admission.admit(a))), ['admitted', 'admitted', 'max_clients']);
  admission.release(kept);
  assert.equal(verdict(admission.admit('192.0.2.1')), 'admitted');
});

test('a connection counted in total first, its client once known (a PROXY protocol header): the same caps', () => {
  const admission = new ConnectionAdmission(limits(3, 1));
  assert.deepEqual([admission.open(), admission.open()], [true, true]);
  const client = admission.admitClient('2001:db8::1');
  assert.notEqual(client, 'max_per_client');
  assert.equal(admission.admitClient('2001:db8::2'), 'max_per_client', 'same /64');
  // The refused one still holds its place in total until it closes.
  assert.equal(verdict(admission.admit('192.0.2.1')), 'admitted');
  assert.equal(admission.open(), false);
  admission.close();
  assert.equal(admission.open(), true);
  admission.releaseClient(client as Place);
  assert.notEqual(admission.admitClient('2001:db8::2'), 'max_per_client');
});
