// The SOA RDATA built from a zone's fields (src/dns/server/soa-rdata.ts), read back as RFC 1035 §3.3.13
// lays it out: each zone's own names and timers, whatever other zones were built in between (the
// names' wire form is kept per pair of fields).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { soaRdata } from '../../src/dns/server/soa-rdata.ts';

type Fields = Parameters<typeof soaRdata>[0];

/** The RDATA's two names (as dotted text, labels as sent) and its five numbers. */
function read(rdata: Buffer): { mname: string[]; rname: string[]; numbers: number[] } {
  let at = 0;
  const name = () => {
    const labels: string[] = [];
    for (let length = rdata[at++] ?? 0; length > 0; length = rdata[at++] ?? 0) {
      labels.push(rdata.toString('latin1', at, at + length));
      at += length;
    }
    return labels;
  };
  const mname = name();
  const rname = name();
  const numbers = [0, 1, 2, 3, 4].map((i) => rdata.readUInt32BE(at + 4 * i));
  assert.equal(rdata.length, at + 20, 'nothing after the five numbers');
  return { mname, rname, numbers };
}

const zone = (primary: string, contact: string, serial: number): Fields => ({ primary_server: primary, contact, serial, refresh: 3600, retry: 600, expiry: 1209600, nx_ttl: 300 });

describe('SOA RDATA', () => {
  test('names and timers of each zone, with zones of other names built in between', () => {
    const a = zone('ns1.example.net.', 'host.master@example.org', 2026112801);
    const b = zone('NS2.Example.COM', 'dns-admin.example.com', 4294967295);
    for (let round = 0; round < 3; round++) {
      assert.deepEqual(read(soaRdata({ ...a, serial: a.serial + round })), {
        mname: ['ns1', 'example', 'net'],
        rname: ['host.master', 'example', 'org'],
        numbers: [a.serial + round, 3600, 600, 1209600, 300],
      });
      assert.deepEqual(read(soaRdata(b)), { mname: ['ns2', 'example', 'com'], rname: ['dns-admin', 'example', 'com'], numbers: [4294967295, 3600, 600, 1209600, 300] });
    }
  });

  test('a contact that changes is served as changed, past the count of pairs kept', () => {
    for (let n = 0; n < 1100; n++) {
      const { rname } = read(soaRdata(zone('ns.example.net', `admin${String(n)}@example.org`, n)));
      assert.deepEqual(rname, [`admin${String(n)}`, 'example', 'org']);
    }
    assert.deepEqual(read(soaRdata(zone('ns.example.net', 'admin0@example.org', 1))).rname, ['admin0', 'example', 'org']);
  });

  test('two built alike are separate buffers: changing one leaves the other', () => {
    const first = soaRdata(zone('ns.example.net', 'a@example.org', 7));
    const second = soaRdata(zone('ns.example.net', 'a@example.org', 7));
    first.fill(0);
    assert.deepEqual(read(second).numbers, [7, 3600, 600, 1209600, 300]);
  });
});
