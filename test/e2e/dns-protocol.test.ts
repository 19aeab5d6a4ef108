// EDNS details probed as RFC 8906 suggests, through the real server over UDP and TCP: unknown EDNS
// flags are cleared (only DO and CO, RFC 9824, come back); Extended DNS Errors (RFC 8914) say why a
// query is refused or failed; DNS COOKIEs (RFC 7873, RFC 9018) round-trip, are accepted by another
// node sharing the secret, rotated secrets still pass, forged ones get BADCOOKIE, and a client with a
// valid cookie is never rate limited while a spoofed flood still is.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import packet from 'dns-packet';
import { decode, tcpExchange, udpBurst, udpExchange } from '../support/dns-client.ts';
import { bearer, call, login } from '../support/http.ts';
import { onPath } from '../support/knot.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';

const run = promisify(execFile);

interface Probe {
  id?: number;
  type?: string;
  /** EDNS header flags word (DO is 0x8000); undefined: no EDNS at all. */
  flags?: number;
  options?: { code: number; data: Buffer }[];
}

function query(name: string, probe: Probe = {}): Buffer {
  const edns = probe.flags !== undefined || probe.options !== undefined;
  return packet.encode({
    type: 'query',
    id: probe.id ?? 4242,
    questions: [{ name, type: (probe.type ?? 'A') as packet.RecordType, class: 'IN' }],
    additionals: edns ? [{ type: 'OPT', name: '.', udpPayloadSize: 1232, flags: probe.flags ?? 0, options: probe.options ?? [] } as unknown as packet.Answer] : [],
  });
}

interface Opt {
  flags: number;
  extendedRcode: number;
  options: { code: number; data: Buffer }[];
}

function optOf(reply: Buffer): Opt | undefined {
  return (decode(reply).additionals ?? []).find((a) => a.type === 'OPT') as unknown as Opt | undefined;
}

/** The full RCODE: the header's four bits and the OPT's eight above them. */
function rcodeOf(reply: Buffer): number {
  return (reply.readUInt16BE(2) & 0xf) | ((optOf(reply)?.extendedRcode ?? 0) << 4);
}

/** The Extended DNS Error of a reply: info code and text. */
function edeOf(reply: Buffer): { code: number; text: string } | undefined {
  const option = optOf(reply)?.options.find((o) => o.code === 15);
  return option === undefined ? undefined : { code: option.data.readUInt16BE(0), text: option.data.subarray(2).toString('utf8') };
}

function cookieOf(reply: Buffer): Buffer | undefined {
  return optOf(reply)?.options.find((o) => o.code === 10)?.data;
}

const cookie = (data: Buffer) => ({ code: 10, data });
const client = Buffer.from('2464c4abcf10c957', 'hex');
const secretA = '00112233445566778899aabbccddeeff';
const secretB = 'ffeeddccbbaa99887766554433221100';
const perSecond = 5;

async function zoneWithRecord(service: Service, zone: string): Promise<string> {
  const auth = bearer((await login(service.url, adminEmail, adminPassword)).access);
  assert.equal((await call(service.url, 'POST', '/dns/v2/zones', { auth, body: { name: zone } })).status, 200);
  const body = { ttl: 60, resource_records: [{ content: ['192.0.2.1'] }] };
  assert.equal((await call(service.url, 'PUT', `/dns/v2/zones/${zone}/www.${zone}/A`, { auth, body })).status, 200);
  return auth;
}

describe('DNS protocol details', () => {
  let node: Service;
  let auth: string;

  before(async () => {
    // Thread 0 (and any worker) fails to load broken.test for good: its names fail, not refused.
    node = await startService({
      engine: 'sqlite',
      env: { EDGEPLANE_DNS_COOKIE_SECRET: secretA, EDGEPLANE_TEST_FAIL_APPLY: '0:broken.test:999,1:broken.test:999,2:broken.test:999' },
    });
    auth = await zoneWithRecord(node, 'proto.test');
  });
  after(() => node.dispose());

  test('unknown EDNS flags are cleared; DO and CO are echoed; over UDP and TCP', async () => {
    for (const flags of [0x0001, 0x0080, 0x2000, 0x7fff & ~0x4000]) {
      for (const reply of [await udpExchange(node.dnsPort, query('www.proto.test', { flags })), (await tcpExchange(node.dnsPort, [query('www.proto.test', { flags })]))[0] ?? Buffer.alloc(0)]) {
        assert.equal(optOf(reply)?.flags, 0, `flags ${flags.toString(16)} cleared`);
        assert.equal(decode(reply).answers?.length, 1);
      }
    }
    const both = await udpExchange(node.dnsPort, query('www.proto.test', { flags: 0xffff }));
    assert.equal(optOf(both)?.flags, 0xc000, 'DO and CO, nothing else');
  });

  test('Extended DNS Errors: not authoritative, disabled zone, transfer prohibited, zone not loaded; none without EDNS', async () => {
    const outside = await udpExchange(node.dnsPort, query('www.elsewhere.example', { flags: 0 }));
    assert.equal(rcodeOf(outside), 5);
    assert.deepEqual(edeOf(outside), { code: 20, text: '' });
    assert.equal(optOf(await udpExchange(node.dnsPort, query('www.elsewhere.example')))?.options, undefined, 'no OPT without EDNS');

    const axfr = (await tcpExchange(node.dnsPort, [query('proto.test', { type: 'AXFR', flags: 0 })]))[0] ?? Buffer.alloc(0);
    assert.equal(rcodeOf(axfr), 5);
    assert.deepEqual(edeOf(axfr), { code: 18, text: 'zone transfer not allowed' });

    await zoneWithRecord(node, 'off.test');
    assert.equal((await call(node.url, 'PATCH', '/dns/v2/zones/off.test/disable', { auth })).status, 200);
    const disabled = await udpExchange(node.dnsPort, query('www.off.test', { flags: 0 }));
    assert.equal(rcodeOf(disabled), 5);
    assert.deepEqual(edeOf(disabled), { code: 20, text: 'zone disabled' });
    assert.equal((await call(node.url, 'PATCH', '/dns/v2/zones/off.test/enable', { auth })).status, 200);
    assert.equal(decode(await udpExchange(node.dnsPort, query('www.off.test', { flags: 0 }))).answers?.length, 1);
    assert.equal((await call(node.url, 'DELETE', '/dns/v2/zones/off.test', { auth })).status, 200);
    assert.deepEqual(edeOf(await udpExchange(node.dnsPort, query('www.off.test', { flags: 0 }))), { code: 20, text: '' }, 'a deleted zone is not ours');

    assert.equal((await call(node.url, 'POST', '/dns/v2/zones', { auth, body: { name: 'broken.test' } })).status, 200);
    const broken = await udpExchange(node.dnsPort, query('www.broken.test', { flags: 0 }));
    assert.equal(rcodeOf(broken), 2);
    assert.deepEqual(edeOf(broken), { code: 14, text: 'zone not loaded' });
  });

  test('kdig shows the Extended DNS Error', { skip: onPath('kdig') === undefined ? 'kdig is not installed (Debian: knot-dnsutils)' : false }, async () => {
    const { stdout } = await run('kdig', ['@127.0.0.1', '-p', String(node.dnsPort), '+edns', 'www.elsewhere.example', 'A']);
    assert.match(stdout, /EDE: 20 \(Not Authoritative\)/);
  });

  test('a client cookie gets a server cookie; sent back, it is valid and kept; over TCP too', async () => {
    const first = cookieOf(await udpExchange(node.dnsPort, query('www.proto.test', { options: [cookie(client)] })));
    assert.ok(first !== undefined && first.length === 24 && first.subarray(0, 8).equals(client), 'client cookie echoed with a 16-octet server cookie');
    assert.equal(first[8], 1, 'RFC 9018 version 1');
    const again = await udpExchange(node.dnsPort, query('www.proto.test', { options: [cookie(first)] }));
    assert.equal(rcodeOf(again), 0);
    assert.equal(decode(again).answers?.length, 1);
    assert.ok(cookieOf(again)?.equals(first), 'a fresh valid cookie is handed back as it was');
    const overTcp = (await tcpExchange(node.dnsPort, [query('www.proto.test', { options: [cookie(client)] })]))[0] ?? Buffer.alloc(0);
    assert.equal(cookieOf(overTcp)?.subarray(0, 8).toString('hex'), client.toString('hex'));
  });

  test('a forged server cookie gets BADCOOKIE with a fresh one over UDP, an answer over TCP; a malformed one FORMERR', async () => {
    const forged = Buffer.concat([client, Buffer.from('01000000', 'hex'), Buffer.alloc(4), Buffer.alloc(8, 0xab)]);
    forged.writeUInt32BE(Math.floor(Date.now() / 1000), 12);
    const bad = await udpExchange(node.dnsPort, query('www.proto.test', { options: [cookie(forged)] }));
    assert.equal(rcodeOf(bad), 23, 'BADCOOKIE');
    assert.equal(decode(bad).answers?.length, 0);
    const fresh = cookieOf(bad);
    assert.ok(fresh !== undefined && !fresh.equals(forged));
    const retried = await udpExchange(node.dnsPort, query('www.proto.test', { options: [cookie(fresh)] }));
    assert.equal(decode(retried).answers?.length, 1, 'the client asks again with the fresh cookie and is answered');
    const overTcp = (await tcpExchange(node.dnsPort, [query('www.proto.test', { options: [cookie(forged)] })]))[0] ?? Buffer.alloc(0);
    assert.equal(decode(overTcp).answers?.length, 1);
    for (const length of [5, 12, 41]) {
      const malformed = await udpExchange(node.dnsPort, query('www.proto.test', { options: [cookie(Buffer.alloc(length, 1))] }));
      assert.equal(rcodeOf(malformed), 1, `a ${String(length)}-octet COOKIE is FORMERR`);
    }
  });

  test('dig +cookie shows the server cookie as good', { skip: onPath('dig') === undefined ? 'dig is not installed (Debian: bind9-dnsutils)' : false }, async () => {
    const { stdout } = await run('dig', ['@127.0.0.1', '-p', String(node.dnsPort), '+cookie', 'www.proto.test', 'A']);
    assert.match(stdout, /; COOKIE: [0-9a-f]{16}[0-9a-f]{32} \(good\)/);
  });

  describe('a second node', () => {
    let second: Service;
    before(async () => {
      // Rotated: B makes cookies with its new secret and still accepts the one A uses; B limits UDP answers.
      second = await startService({ engine: 'sqlite', env: { EDGEPLANE_DNS_COOKIE_SECRET: `${secretB},${secretA}`, EDGEPLANE_DNS_RRL: String(perSecond), EDGEPLANE_DNS_RRL_SLIP: '2' } });
      await zoneWithRecord(second, 'proto.test');
    });
    after(() => second.dispose());

    test("accepts the first node's cookie when it shares the secret; the first refuses one made with a secret it lacks", async () => {
      const fromA = cookieOf(await udpExchange(node.dnsPort, query('www.proto.test', { options: [cookie(client)] }))) ?? Buffer.alloc(0);
      const atB = await udpExchange(second.dnsPort, query('www.proto.test', { options: [cookie(fromA)] }));
      assert.equal(rcodeOf(atB), 0);
      assert.equal(decode(atB).answers?.length, 1);
      const fromB = cookieOf(atB) ?? Buffer.alloc(0);
      assert.ok(!fromB.equals(fromA), 'B hands back a cookie made with its current secret');
      assert.equal(rcodeOf(await udpExchange(second.dnsPort, query('www.proto.test', { options: [cookie(fromB)] }))), 0);
      assert.equal(rcodeOf(await udpExchange(node.dnsPort, query('www.proto.test', { options: [cookie(fromB)] }))), 23);
    });

    test('a client with a valid cookie is not rate limited; a spoofed flood is, and is told why', async () => {
      const served = cookieOf(await udpExchange(second.dnsPort, query('www.proto.test', { options: [cookie(client)] }))) ?? Buffer.alloc(0);
      const verified = await udpBurst(second.dnsPort, Array.from({ length: 40 }, (_, id) => query('www.proto.test', { id, options: [cookie(served)] })), { timeoutMs: 1000 });
      assert.equal(verified.filter((reply) => decode(reply).answers?.length === 1).length, 40, 'all 40 answered in full');
      const spoofed = await udpBurst(second.dnsPort, Array.from({ length: 40 }, (_, id) => query('www.proto.test', { id, flags: 0 })), { timeoutMs: 1000 });
      const full = spoofed.filter((reply) => decode(reply).answers?.length === 1);
      const slipped = spoofed.filter((reply) => (reply.readUInt16BE(2) & 0x200) !== 0);
      assert.ok(full.length <= perSecond + 4, `${String(full.length)} answered in full`);
      assert.ok(slipped.length > 0);
      assert.deepEqual(edeOf(slipped[0] ?? Buffer.alloc(0)), { code: 0, text: 'rate limited, retry over TCP' });
    });
  });
});
