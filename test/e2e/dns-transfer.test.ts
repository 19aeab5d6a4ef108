// Zone transfers and NOTIFY with a real secondary: Knot DNS transfers a zone from edgeplane, is told
// of every change and follows it; kdig reads the transfer itself. Only listed addresses may transfer.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { addressesIn, ask, buildQuery, decode, tcpExchange, udpExchange } from '../support/dns-client.ts';
import { bearer, call, login } from '../support/http.ts';
import { freePort } from '../support/free-port.ts';
import { onPath, startKnotCatalogConsumer, startKnotSecondary, type Knot } from '../support/knot.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';

const run = promisify(execFile);
const knotMissing = onPath('knotd') === undefined || onPath('kdig') === undefined ? 'knotd and kdig are not installed (Debian: knot, knot-dnsutils)' : false;

/** One TCP query from `localAddress`; the first reply message. */
async function tcpFrom(localAddress: string, port: number, message: Buffer): Promise<Buffer> {
  return (await tcpExchange(port, [message], { localAddress }))[0] ?? Buffer.alloc(0);
}

/** The addresses `port` answers for `name` (A), sorted. */
async function addresses(port: number, name: string): Promise<string[]> {
  return addressesIn((await ask(port, name, 'A')).packet);
}

describe('zone transfers and NOTIFY', { skip: knotMissing }, () => {
  let service: Service;
  let secondary: Knot | undefined;
  let knotPort: number;
  let api: (method: string, path: string, body?: unknown) => ReturnType<typeof call>;
  const put = async (name: string, type: string, body: unknown) => {
    const response = await api('PUT', `/dns/v2/zones/xfr.test/${name}/${type}`, body);
    assert.equal(response.status, 200, response.text);
  };

  before(async () => {
    knotPort = await freePort();
    service = await startService({
      engine: 'sqlite',
      env: { EDGEPLANE_DNS_TRANSFER_ALLOW: '127.0.0.1, ::1', EDGEPLANE_DNS_NOTIFY: `127.0.0.1:${String(knotPort)}`, EDGEPLANE_DNS_WORKERS: '2' },
    });
    const auth = bearer((await login(service.url, adminEmail, adminPassword)).access);
    api = (method, path, body) => call(service.url, method, path, { auth, body });
    assert.equal((await api('POST', '/dns/v2/zones', { name: 'xfr.test' })).status, 200);
    await put('www.xfr.test', 'A', { ttl: 300, resource_records: [{ content: ['192.0.2.1'] }] });
    await put('xfr.test', 'MX', { ttl: 300, resource_records: [{ content: [10, 'mail.xfr.test.'] }] });
    await put('alias.xfr.test', 'CNAME', { ttl: 300, resource_records: [{ content: ['www.xfr.test.'] }] });
    // A secondary cannot pick per query: it gets every record.
    await put('geo.xfr.test', 'A', { ttl: 300, pickers: [{ type: 'first_n', limit: 1 }], resource_records: [{ content: ['192.0.2.10'] }, { content: ['192.0.2.11'] }] });
    // Enough names for a transfer of several messages.
    const lines = Array.from({ length: 3000 }, (_, i) => `host${String(i)}.xfr.test. 300 IN A 198.51.${String(Math.floor(i / 250))}.${String(i % 250)}`);
    const imported = await api('POST', '/dns/v2/zones/xfr.test/import', { content: `${lines.join('\n')}\n` });
    assert.equal(imported.status, 200, imported.text);
    assert.equal((await api('PATCH', '/dns/v2/zones/xfr.test/dnssec', { enabled: true })).status, 200);
    secondary = await startKnotSecondary(knotPort, 'xfr.test', service.dnsPort);
  });
  after(async () => {
    await secondary?.stop();
    await service.dispose();
  });

  test('the secondary serves what the API holds, every record of an RRset with pickers included', async () => {
    const port = secondary?.port ?? 0;
    assert.deepEqual(await addresses(port, 'www.xfr.test'), ['192.0.2.1']);
    assert.deepEqual(await addresses(port, 'geo.xfr.test'), ['192.0.2.10', '192.0.2.11']);
    assert.deepEqual(await addresses(port, 'host2999.xfr.test'), ['198.51.11.249']);
    const soa = async (p: number) => (await ask(p, 'xfr.test', 'SOA')).packet.answers?.find((a) => a.type === 'SOA');
    assert.deepEqual(await soa(port), await soa(service.dnsPort));
  });

  test('a change made through the API reaches the secondary through NOTIFY', async () => {
    await put('www.xfr.test', 'A', { ttl: 300, resource_records: [{ content: ['192.0.2.99'] }] });
    const deadline = Date.now() + 10_000;
    while ((await addresses(secondary?.port ?? 0, 'www.xfr.test'))[0] !== '192.0.2.99') {
      assert.ok(Date.now() < deadline, `the secondary never followed:\n${secondary?.log() ?? ''}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.match(secondary?.log() ?? '', /notify, incoming/i);
  });

  test('kdig AXFR: the SOA at both ends, every stored record once, no DNSSEC records', async () => {
    const { stdout } = await run('kdig', ['@127.0.0.1', '-p', String(service.dnsPort), 'AXFR', 'xfr.test', '+nocomments', '+nostats', '+noheader']);
    const records = stdout.split('\n').filter((line) => line.trim() !== '' && !line.startsWith(';'));
    const types = records.map((line) => line.split(/\s+/)[3]);
    assert.equal(types[0], 'SOA');
    assert.equal(types.at(-1), 'SOA');
    assert.equal(types.filter((t) => t === 'SOA').length, 2);
    // 3,000 imported, www, MX, CNAME, two at geo, the apex NS pair.
    assert.equal(records.length, 2 + 3000 + 1 + 1 + 1 + 2 + 2);
    for (const type of ['DNSKEY', 'RRSIG', 'NSEC', 'CDS', 'CDNSKEY']) assert.ok(!types.includes(type), type);
  });

  test('IXFR from a serial the journal never had gets the whole zone; AXFR over UDP is refused', async () => {
    const { stdout } = await run('kdig', ['@127.0.0.1', '-p', String(service.dnsPort), 'IXFR=1', 'xfr.test', '+nocomments', '+nostats', '+noheader']);
    assert.ok(stdout.split('\n').filter((line) => /\sA\s/.test(line)).length >= 3000);
    const udp = decode(await udpExchange(service.dnsPort, buildQuery('xfr.test', 'AXFR')));
    assert.equal(udp.rcode, 'REFUSED');
  });

  test('addresses not listed are refused, and so are names that are not a zone', async () => {
    const refused = decode(await tcpFrom('127.0.0.2', service.dnsPort, buildQuery('xfr.test', 'AXFR')));
    assert.equal(refused.rcode, 'REFUSED');
    assert.equal((refused.answers ?? []).length, 0);
    const notZone = decode(await tcpFrom('127.0.0.1', service.dnsPort, buildQuery('www.xfr.test', 'AXFR')));
    assert.equal(notZone.rcode, 'REFUSED');
  });
});

describe('zone transfers signed with TSIG', { skip: knotMissing }, () => {
  const key = { name: 'xfr-key', algorithm: 'hmac-sha256', secret: Buffer.from('a shared secret of 32 octets....').toString('base64') };
  let service: Service;
  let secondary: Knot | undefined;
  let api: (method: string, path: string, body?: unknown) => ReturnType<typeof call>;
  const kdig = (...args: string[]) => run('kdig', ['@127.0.0.1', '-p', String(service.dnsPort), ...args, '+nocomments', '+nostats']).then(
      (r) => r.stdout + r.stderr,
      (e: unknown) => ((e as { stdout?: string }).stdout ?? '') + ((e as { stderr?: string }).stderr ?? ''),
    );

  before(async () => {
    const knotPort = await freePort();
    service = await startService({
      engine: 'sqlite',
      env: {
        EDGEPLANE_DNS_TRANSFER_ALLOW: '127.0.0.1',
        EDGEPLANE_DNS_NOTIFY: `127.0.0.1:${String(knotPort)}`,
        EDGEPLANE_DNS_TSIG_KEYS: `${key.name}:${key.algorithm}:${key.secret}`,
      },
    });
    const auth = bearer((await login(service.url, adminEmail, adminPassword)).access);
    api = (method, path, body) => call(service.url, method, path, { auth, body });
    assert.equal((await api('POST', '/dns/v2/zones', { name: 'tsig.test' })).status, 200);
    assert.equal((await api('PUT', '/dns/v2/zones/tsig.test/www.tsig.test/A', { ttl: 300, resource_records: [{ content: ['192.0.2.7'] }] })).status, 200);
    secondary = await startKnotSecondary(knotPort, 'tsig.test', service.dnsPort, key);
  });
  after(async () => {
    await secondary?.stop();
    await service.dispose();
  });

  test('a secondary with the key transfers, and follows the signed NOTIFY', async () => {
    assert.deepEqual(await addresses(secondary?.port ?? 0, 'www.tsig.test'), ['192.0.2.7']);
    assert.equal((await api('PUT', '/dns/v2/zones/tsig.test/www.tsig.test/A', { ttl: 300, resource_records: [{ content: ['192.0.2.8'] }] })).status, 200);
    const deadline = Date.now() + 10_000;
    while ((await addresses(secondary?.port ?? 0, 'www.tsig.test'))[0] !== '192.0.2.8') {
      assert.ok(Date.now() < deadline, `the secondary never followed:\n${secondary?.log() ?? ''}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });

  test('kdig: signed with the key it transfers; unsigned it is refused; with another secret BADSIG', async () => {
    const signed = await kdig('-y', `${key.algorithm}:${key.name}:${key.secret}`, 'AXFR', 'tsig.test');
    assert.match(signed, /www\.tsig\.test\.\s+300\s+IN\s+A\s+192\.0\.2\.[78]/);
    assert.match(signed, /xfr-key\.\s+0\s+ANY\s+TSIG\s+hmac-sha256\./);
    assert.doesNotMatch(signed, /failed|BADSIG|NOTAUTH/i);
    const unsigned = await kdig('AXFR', 'tsig.test');
    assert.doesNotMatch(unsigned, /IN\s+A\s+192/);
    assert.match(unsigned, /error 'REFUSED'/);
    const wrong = await kdig('-y', `${key.algorithm}:${key.name}:${Buffer.from('another secret of 32 octets.....').toString('base64')}`, 'AXFR', 'tsig.test');
    assert.doesNotMatch(wrong, /IN\s+A\s+192/);
    assert.match(wrong, /error 'BADSIG'/);
    assert.match(service.output(), /zone transfer refused: TSIG/);
  });
});

describe('a catalog zone for secondaries (RFC 9432)', { skip: knotMissing }, () => {
  const catalog = 'catalog.edgeplane.invalid';
  let service: Service;
  let consumer: Knot | undefined;
  let api: (method: string, path: string, body?: unknown) => ReturnType<typeof call>;
  const knotAnswers = async (name: string) => (await ask(consumer?.port ?? 0, name, 'A')).packet;

  before(async () => {
    const knotPort = await freePort();
    service = await startService({
      engine: 'sqlite',
      env: {
        EDGEPLANE_DNS_TRANSFER_ALLOW: '127.0.0.1', EDGEPLANE_DNS_NOTIFY: `127.0.0.1:${String(knotPort)}`, EDGEPLANE_DNS_CATALOG: catalog, EDGEPLANE_DNS_WORKERS: '2',
        // A name below .invalid is no zone unless allowed; allowed here so that a zone of the catalog's name can be tried.
        EDGEPLANE_ZONE_ALLOW_RESERVED: catalog,
      },
    });
    const auth = bearer((await login(service.url, adminEmail, adminPassword)).access);
    api = (method, path, body) => call(service.url, method, path, { auth, body });
    assert.equal((await api('POST', '/dns/v2/zones', { name: 'first.test' })).status, 200);
    consumer = await startKnotCatalogConsumer(knotPort, catalog, service.dnsPort);
  });
  after(async () => {
    await consumer?.stop();
    await service.dispose();
  });

  /** Polls the consumer until `check` passes, for up to 15 s. */
  const eventually = async (what: string, check: () => Promise<boolean>) => {
    const deadline = Date.now() + 15_000;
    while (!(await check())) {
      assert.ok(Date.now() < deadline, `${what}:\n${consumer?.log() ?? ''}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  test('a zone created through the API is served by the consumer; a deleted one goes', async () => {
    assert.equal((await api('POST', '/dns/v2/zones', { name: 'added.test' })).status, 200);
    assert.equal((await api('PUT', '/dns/v2/zones/added.test/www.added.test/A', { ttl: 60, resource_records: [{ content: ['192.0.2.44'] }] })).status, 200);
    await eventually('the consumer never served added.test', async () => {
      const answer = await knotAnswers('www.added.test');
      return answer.answers?.some((a) => a.type === 'A' && a.data === '192.0.2.44') === true;
    });
    const first = await knotAnswers('first.test');
    assert.notEqual(first.rcode, 'REFUSED', 'the zone there before the consumer started is served too');
    assert.equal((await api('DELETE', '/dns/v2/zones/added.test')).status < 300, true);
    await eventually('the consumer kept serving added.test', async () => (await knotAnswers('www.added.test')).rcode === 'REFUSED');
  });

  test('queries see the catalog\'s SOA, never its members; its transfer lists them', async () => {
    const soa = await ask(service.dnsPort, catalog, 'SOA');
    assert.equal(soa.packet.rcode, 'NOERROR');
    assert.equal((soa.packet.answers ?? []).length, 1);
    const ptr = await ask(service.dnsPort, `version.${catalog}`, 'TXT');
    assert.equal(ptr.packet.rcode, 'NOERROR');
    const { stdout } = await run('kdig', ['@127.0.0.1', '-p', String(service.dnsPort), 'AXFR', catalog, '+nocomments', '+nostats']);
    const member = /^(z\d+\.zones\.catalog\.edgeplane\.invalid\.)\s+0\s+IN\s+PTR\s+first\.test\.$/m.exec(stdout);
    assert.ok(member, stdout);
    assert.equal((await ask(service.dnsPort, member[1] ?? '', 'PTR')).packet.rcode, 'NXDOMAIN');
  });

  test('a zone created with the catalog\'s name is never served in its place', async () => {
    assert.equal((await api('POST', '/dns/v2/zones', { name: catalog })).status, 200);
    const injected = await api('PUT', `/dns/v2/zones/${catalog}/z1.zones.${catalog}/PTR`, { ttl: 0, resource_records: [{ content: ['victim.example.'] }] });
    assert.equal(injected.status, 200, injected.text);
    const { stdout } = await run('kdig', ['@127.0.0.1', '-p', String(service.dnsPort), 'AXFR', catalog, '+nocomments', '+nostats']);
    assert.doesNotMatch(stdout, /victim/);
    assert.match(stdout, /IN\s+SOA\s+invalid\. invalid\./);
  });
});
