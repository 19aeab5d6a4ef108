// Choosing an origin and passive health, on their own: nginx's smooth weighted round robin (its
// exact sequence), backups only when no primary is available, `down` never, ip_hash stickiness and
// how few clients move when an origin goes, and the max_fails/fail_timeout window with its probe.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { OriginMode } from '../../../src/security/proxy/policy.ts';
import { Balancer, type Peer } from '../../../src/security/proxy/origins/balancer.ts';
import { PassiveHealth } from '../../../src/security/proxy/origins/passive-health.ts';

const health = { maxFails: 1, failTimeoutMs: 1000 };

function peers(...specs: Array<[number, OriginMode]>): Peer[] {
  return specs.map(([weight, mode]) => ({ weight, mode, health: new PassiveHealth(health, specs.length > 1) }));
}

const names = (balancer: Balancer, count: number, client = '192.0.2.1', now = 0) =>
  Array.from({ length: count }, () => 'abcdefgh'[balancer.pick(client, undefined, now)] ?? '-').join('');

describe('smooth weighted round robin', () => {
  test('weights 5:1:1 give nginx\'s sequence a a b a c a a, over and over', () => {
    const balancer = new Balancer(peers([5, 'primary'], [1, 'primary'], [1, 'primary']), false);
    assert.equal(names(balancer, 14), 'aabacaaaabacaa');
  });

  test('shares follow the weights over many picks, and equal weights alternate', () => {
    const balancer = new Balancer(peers([3, 'primary'], [2, 'primary'], [1, 'primary']), false);
    const counts = { a: 0, b: 0, c: 0 } as Record<string, number>;
    for (const name of names(balancer, 6000)) counts[name] = (counts[name] ?? 0) + 1;
    assert.deepEqual(counts, { a: 3000, b: 2000, c: 1000 });
    assert.equal(names(new Balancer(peers([1, 'primary'], [1, 'primary']), false), 6), 'ababab');
  });

  test('down is never chosen; backups only when every primary is out; none left gives -1', () => {
    const list = peers([1, 'primary'], [1, 'down'], [1, 'backup'], [1, 'primary']);
    const balancer = new Balancer(list, false);
    assert.equal(names(balancer, 4), 'adad');
    list[0]!.health.failed(0);
    assert.equal(names(balancer, 3), 'ddd');
    list[3]!.health.failed(0);
    assert.equal(names(balancer, 3), 'ccc', 'the backup takes over');
    list[2]!.health.failed(0);
    assert.equal(balancer.pick('192.0.2.1', undefined, 0), -1);
  });

  test('a retry skips the origins already tried', () => {
    const balancer = new Balancer(peers([1, 'primary'], [1, 'primary'], [1, 'backup']), false);
    assert.equal(balancer.pick('192.0.2.1', [0], 0), 1);
    assert.equal(balancer.pick('192.0.2.1', [0, 1], 0), 2);
    assert.equal(balancer.pick('192.0.2.1', [0, 1, 2], 0), -1);
  });
});

describe('ip_hash', () => {
  const clients = Array.from({ length: 400 }, (_, i) => `198.51.${String(i % 200)}.${String(i % 250)}`);

  test('a client keeps its origin; IPv4 by its /24, IPv6 by its whole address', () => {
    const balancer = new Balancer(peers([1, 'primary'], [1, 'primary'], [1, 'primary']), true);
    for (const client of clients.slice(0, 50)) {
      const first = balancer.pick(client, undefined, 0);
      for (let i = 0; i < 5; i++) assert.equal(balancer.pick(client, undefined, 0), first);
      assert.equal(balancer.pick(client.replace(/\.\d+$/, '.251'), undefined, 0), first, 'same /24, same origin');
    }
    const spread = new Set(clients.map((client) => balancer.pick(client, undefined, 0)));
    assert.equal(spread.size, 3, 'clients spread over every origin');
    const v6 = Array.from({ length: 64 }, (_, i) => `2001:db8::${i.toString(16)}`);
    assert.ok(new Set(v6.map((client) => balancer.pick(client, undefined, 0))).size > 1, 'IPv6 hashes on the whole address');
    for (const client of v6) assert.equal(balancer.pick(client, undefined, 0), balancer.pick(client, undefined, 0));
  });

  test('when an origin goes out only its clients move, and they come back with it', () => {
    const list = peers([1, 'primary'], [1, 'primary'], [1, 'primary']);
    const balancer = new Balancer(list, true);
    const before = clients.map((client) => balancer.pick(client, undefined, 0));
    list[1]!.health.failed(0);
    const during = clients.map((client) => balancer.pick(client, undefined, 1));
    for (const [i, origin] of before.entries()) {
      if (origin === 1) assert.notEqual(during[i], 1);
      else assert.equal(during[i], origin, `client ${clients[i]!} stays where it was`);
    }
    list[1]!.health.answered(2000);
    assert.deepEqual(clients.map((client) => balancer.pick(client, undefined, 3000)), before);
  });

  test('a down origin keeps its place in the table (only its clients move); backups hash too', () => {
    const three = new Balancer(peers([1, 'primary'], [1, 'primary'], [1, 'primary']), true);
    const withDown = new Balancer(peers([1, 'primary'], [1, 'down'], [1, 'primary']), true);
    for (const client of clients) {
      const origin = three.pick(client, undefined, 0);
      if (origin !== 1) assert.equal(withDown.pick(client, undefined, 0), origin);
    }
    const list = peers([1, 'primary'], [1, 'backup'], [1, 'backup']);
    const balancer = new Balancer(list, true);
    list[0]!.health.failed(0);
    for (const client of clients.slice(0, 20)) {
      const backup = balancer.pick(client, undefined, 0);
      assert.ok(backup === 1 || backup === 2);
      assert.equal(balancer.pick(client, undefined, 0), backup);
    }
  });
});

describe('passive health', () => {
  test('max_fails failures within fail_timeout take an origin out for fail_timeout', () => {
    const origin = new PassiveHealth({ maxFails: 3, failTimeoutMs: 100 }, true);
    origin.failed(0);
    origin.failed(50);
    assert.ok(origin.available(60), 'two failures of three');
    origin.failed(150);
    assert.ok(origin.available(160), 'the first failure left the window: the count started again at 150');
    origin.failed(160);
    origin.failed(170);
    assert.ok(!origin.available(171), 'three failures within 100 ms');
    assert.ok(!origin.available(269));
    assert.ok(origin.available(270), 'out for fail_timeout after the last failure');
  });

  test('after the window one probe goes; its answer gives the origin back, its failure keeps it out', () => {
    const origin = new PassiveHealth({ maxFails: 1, failTimeoutMs: 100 }, true);
    origin.failed(0);
    assert.ok(!origin.available(50));
    assert.ok(origin.available(100));
    origin.chosen(100);
    assert.ok(!origin.available(101), 'one probe at a time');
    origin.failed(110);
    assert.ok(!origin.available(209), 'the probe failed: out again');
    origin.chosen(210);
    origin.answered(210);
    assert.ok(origin.available(211), 'the probe was answered: given back');
    origin.chosen(212);
    assert.ok(origin.available(213), 'an available origin is not held for a probe');
  });

  test('an answer to a request sent before the origin went out does not give it back', () => {
    const origin = new PassiveHealth({ maxFails: 1, failTimeoutMs: 100 }, true);
    origin.failed(10);
    origin.answered(5);
    assert.ok(!origin.available(20));
  });

  test('max_fails 0, or a lone origin, is never taken out', () => {
    const off = new PassiveHealth({ maxFails: 0, failTimeoutMs: 100 }, true);
    const lone = new PassiveHealth({ maxFails: 1, failTimeoutMs: 100 }, false);
    for (let i = 0; i < 5; i++) {
      off.failed(i);
      lone.failed(i);
    }
    assert.ok(off.available(5));
    assert.ok(lone.available(5));
  });
});
