// What a node makes of a NOTIFY on the change channels (src/events/change-feed.ts): the notices the
// nodes send read back as the changes they stand for, and a payload of another shape (anyone who can
// connect to the database may NOTIFY) is refused rather than applied as a change.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChangeFeed, changeNotice, noticeOrigin, resourceChangeFromNotice, zoneChangeFromNotice, type ZoneChange } from '../../src/events/change-feed.ts';

const sent = (change: ZoneChange) => zoneChangeFromNotice(JSON.parse(changeNotice(change, 'node-a').payload));

test('a zone change notice reads back as the change, without what was handed to this process only', () => {
  const names: ZoneChange = { zoneId: 7, zone: 'example.com', serial: 2026112801, version: 41, previous: 40, deleted: false, names: ['www.example.com'] };
  assert.deepEqual(sent({ ...names, written: { zone: {} as never, rrsets: [] } }), names);
  const whole: ZoneChange = { zoneId: 7, zone: 'example.com', serial: 0, version: 42, previous: undefined, deleted: true, names: undefined };
  assert.deepEqual(sent(whole), whole);
  // Past NOTIFY's payload limit, the names are left out: the zone is read whole.
  const many = { ...names, names: Array.from({ length: 400 }, (_, i) => `host-${String(i)}.example.com`) };
  assert.deepEqual(sent(many), { ...names, names: undefined });
  // As PostgreSQL sends it, through jsonb (a space after every comma and colon), the payload is
  // larger: names that fit written compactly (7,600 octets of the 7,900 allowed) are left out too.
  const near = { ...names, names: Array.from({ length: 400 }, (_, i) => `h${String(4000 + i)}.grown.test`) };
  assert.ok(JSON.stringify(near).length < 7900);
  assert.deepEqual(sent(near), { ...names, names: undefined });
  const fewer = { ...names, names: near.names.slice(0, 350) };
  assert.deepEqual(sent(fewer), fewer);
});

test('a notice names the feed it came from, so a process passes over its own', () => {
  const [one, two] = [new ChangeFeed(() => undefined), new ChangeFeed(() => undefined)];
  assert.notEqual(one.origin, two.origin);
  const change: ZoneChange = { zoneId: 1, zone: 'example.com', serial: 1, version: 1, deleted: false };
  assert.equal(noticeOrigin(JSON.parse(changeNotice(change, one.origin).payload)), one.origin);
  const many = { ...change, names: Array.from({ length: 400 }, (_, i) => `host-${String(i)}.example.com`) };
  assert.equal(noticeOrigin(JSON.parse(changeNotice(many, one.origin).payload)), one.origin);
  for (const other of [null, 'x', {}, { origin: 5 }]) assert.notEqual(noticeOrigin(other), one.origin);
});

test('a zone change notice of another shape is refused', () => {
  const good = { zoneId: 7, zone: 'example.com', serial: 1, version: 2, deleted: false };
  assert.ok(zoneChangeFromNotice(good) !== undefined);
  for (const bad of [null, 'x', 5, [], {}, { ...good, zoneId: '7' }, { ...good, zoneId: -1 }, { ...good, zone: 5 }, { ...good, version: 1.5 }, { ...good, deleted: 'no' }, { ...good, previous: 'x' }, { ...good, names: 'www' }, { ...good, names: [1] }, { ...good, serial: 2 ** 60 }])
    assert.equal(zoneChangeFromNotice(bad), undefined, JSON.stringify(bad));
});

test('a resource change notice reads back; another shape is refused', () => {
  assert.deepEqual(resourceChangeFromNotice({ resourceId: 3, deleted: true }), { resourceId: 3, deleted: true });
  for (const bad of [null, {}, { resourceId: '3', deleted: true }, { resourceId: 3 }, { resourceId: -3, deleted: false }, [3, true]]) assert.equal(resourceChangeFromNotice(bad), undefined, JSON.stringify(bad));
});
