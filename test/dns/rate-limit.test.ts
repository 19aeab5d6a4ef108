// The response rate limit on its own, on a clock the test moves: bucket size and refill, the slip,
// what counts as one client network and as one answer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import packet from 'dns-packet';
import { ResponseRateLimit, truncated } from '../../src/dns/server/rate-limit.ts';

const reply = (name: string, rcode: 'NOERROR' | 'NXDOMAIN' = 'NOERROR') =>
  packet.encode({
    type: 'response',
    id: 1,
    flags: rcode === 'NXDOMAIN' ? 3 : 0,
    questions: [{ name, type: 'A', class: 'IN' }],
    answers: rcode === 'NXDOMAIN' ? [] : [{ name, type: 'A', ttl: 60, data: '192.0.2.1' }],
  });

test('a full bucket, then every second reply slips and the others drop; it refills with time', () => {
  let now = 0;
  const limit = new ResponseRateLimit(3, 2, () => now);
  const www = reply('www.example.com');
  const verdicts = Array.from({ length: 10 }, () => limit.verdict('192.0.2.10', www));
  assert.deepEqual(verdicts, ['sent', 'sent', 'sent', 'dropped', 'slipped', 'dropped', 'slipped', 'dropped', 'slipped', 'dropped']);
  now = 1;
  assert.deepEqual(Array.from({ length: 4 }, () => limit.verdict('192.0.2.10', www)), ['sent', 'sent', 'sent', 'slipped']);
});

test('one network is an IPv4 /24 (mapped or not) or an IPv6 /56; each answer has its own bucket, negative ones share one', () => {
  const limit = new ResponseRateLimit(1, 0, () => 0);
  assert.equal(limit.verdict('192.0.2.10', reply('a.example')), 'sent');
  assert.equal(limit.verdict('::ffff:192.0.2.200', reply('a.example')), 'dropped');
  assert.equal(limit.verdict('192.0.3.10', reply('a.example')), 'sent');
  assert.equal(limit.verdict('192.0.2.10', reply('b.example')), 'sent');
  assert.equal(limit.verdict('192.0.2.10', reply('x1.example', 'NXDOMAIN')), 'sent');
  assert.equal(limit.verdict('192.0.2.10', reply('x2.example', 'NXDOMAIN')), 'dropped');
  assert.equal(limit.verdict('2001:db8:0:1::1', reply('a.example')), 'sent');
  assert.equal(limit.verdict('2001:db8:0:1:ffff::2', reply('a.example')), 'dropped');
  assert.equal(limit.verdict('2001:db8:0:100::1', reply('a.example')), 'sent');
});

test('a truncated reply is the header and question with TC set and nothing else', () => {
  const cut = packet.decode(truncated(reply('www.example.com')));
  assert.equal((cut.flags ?? 0) & 0x200, 0x200);
  assert.deepEqual(cut.questions, [{ name: 'www.example.com', type: 'A', class: 'IN' }]);
  assert.equal((cut.answers ?? []).length, 0);
});
