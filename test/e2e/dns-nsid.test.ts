// NSID (RFC 5001): with EDGEPLANE_DNS_NSID set, a query that asks gets the server's identifier in its
// OPT record, on every path (answers from the cache, refusals, TCP, beside an ECS echo); one that
// does not ask gets none.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import packet from 'dns-packet';
import { buildQuery, decode, tcpExchange, udpExchange } from '../support/dns-client.ts';
import { bearer, call, login } from '../support/http.ts';
import { onPath } from '../support/knot.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';

const run = promisify(execFile);

/** A query with the NSID option (and ECS when given), built by dns-packet. */
function nsidQuery(name: string, subnet?: string): Buffer {
  const options: unknown[] = [{ code: 3, data: Buffer.alloc(0) }];
  if (subnet !== undefined) options.push({ code: 'CLIENT_SUBNET', family: 1, sourcePrefixLength: 24, scopePrefixLength: 0, ip: subnet });
  return packet.encode({
    type: 'query',
    id: 77,
    questions: [{ name, type: 'A', class: 'IN' }],
    additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232, options } as unknown as packet.Answer],
  });
}

/** The EDNS options of a reply, by code: their data as text (NSID) or the option itself. */
function options(reply: Buffer): Map<number, { data?: Buffer }> {
  const opt = (decode(reply).additionals ?? []).find((a) => a.type === 'OPT') as { options?: { code: number; data?: Buffer }[] } | undefined;
  return new Map((opt?.options ?? []).map((o) => [o.code, o]));
}

describe('NSID', () => {
  let service: Service;

  before(async () => {
    service = await startService({ engine: 'sqlite', env: { EDGEPLANE_DNS_NSID: 'ns1.example', EDGEPLANE_DNS_WORKERS: '2' } });
    const auth = bearer((await login(service.url, adminEmail, adminPassword)).access);
    assert.equal((await call(service.url, 'POST', '/dns/v2/zones', { auth, body: { name: 'nsid.test' } })).status, 200);
    const body = { ttl: 60, resource_records: [{ content: ['192.0.2.1'] }] };
    assert.equal((await call(service.url, 'PUT', '/dns/v2/zones/nsid.test/www.nsid.test/A', { auth, body })).status, 200);
  });
  after(() => service.dispose());

  test('asked for, it comes back on answers (also from the cache), refusals, TCP and beside ECS', async () => {
    for (const reply of [
      await udpExchange(service.dnsPort, nsidQuery('www.nsid.test')),
      await udpExchange(service.dnsPort, nsidQuery('www.nsid.test')),
      await udpExchange(service.dnsPort, nsidQuery('elsewhere.example')),
      (await tcpExchange(service.dnsPort, [nsidQuery('www.nsid.test')]))[0] ?? Buffer.alloc(0),
    ]) {
      assert.equal(options(reply).get(3)?.data?.toString(), 'ns1.example');
    }
    const both = options(await udpExchange(service.dnsPort, nsidQuery('www.nsid.test', '8.8.8.0')));
    assert.equal(both.get(3)?.data?.toString(), 'ns1.example');
    assert.ok(both.has(8), 'the ECS echo is there too');
  });

  test('not asked for, none is sent', async () => {
    const reply = await udpExchange(service.dnsPort, buildQuery('www.nsid.test', 'A', { udpSize: 1232 }));
    assert.equal(options(reply).size, 0);
  });

  test('kdig +nsid shows it', { skip: onPath('kdig') === undefined ? 'kdig is not installed (Debian: knot-dnsutils)' : false }, async () => {
    const { stdout } = await run('kdig', ['@127.0.0.1', '-p', String(service.dnsPort), '+nsid', 'www.nsid.test', 'A']);
    assert.match(stdout, /NSID: 6E73312E6578616D706C65 "ns1.example"/);
  });
});
