// Replies the server keeps whole and sends again for a repeated query (src/dns/server/response-cache.ts)
// must be exactly what parsing the query would give. A query with an EDNS option the server ignores
// (one from the local/experimental range, RFC 6891 §9) never takes the kept replies, so its reply is
// the reference: the same bytes are expected for the same query without the option.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import packet from 'dns-packet';
import { engines } from '../support/engines.ts';
import { buildQuery, decode, tcpExchange, udpExchange, type QueryOptions } from '../support/dns-client.ts';
import { bearer, call, login } from '../support/http.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';

const ignoredOption = Buffer.from([0xfd, 0xe9, 0, 0]);

/** The query with `ignoredOption` in its OPT record (the last 11 octets of a query dns-packet built). */
function withIgnoredOption(query: Buffer): Buffer {
  const withOption = Buffer.concat([query, ignoredOption]);
  withOption.writeUInt16BE(ignoredOption.length, query.length - 2);
  return withOption;
}

/** Mixed letter case, RD and CD set, another ID: what a kept reply must take from the query. */
function variant(name: string, type: string, options: QueryOptions): Buffer {
  const mixed = name.replace(/[a-z]/g, (letter: string, at: number) => (at % 2 === 0 ? letter.toUpperCase() : letter));
  const query = buildQuery(mixed, type, { ...options, recursionDesired: true, id: 0x5a5a });
  query[3] = (query[3] ?? 0) | 0x10;
  return query;
}

const addresses = (reply: Buffer) => decode(reply).answers?.map((a) => ('data' in a ? a.data : undefined));

function questionLength(message: Buffer): number {
  let at = 12;
  while (message[at] !== 0) at += 1 + (message[at] ?? 0);
  return at + 5 - 12;
}

for (const engine of engines()) {
  describe(`DNS kept replies (${engine})`, () => {
    let service: Service;
    let api: (method: string, path: string, body?: unknown) => ReturnType<typeof call>;
    const exchange = async (query: Buffer, tcp: boolean) => (tcp ? (await tcpExchange(service.dnsPort, [query]))[0] : await udpExchange(service.dnsPort, query)) ?? Buffer.alloc(0);
    const put = async (name: string, type: string, body: unknown) => {
      const response = await api('PUT', `/dns/v2/zones/kept.test/${name}/${type}`, body);
      assert.equal(response.status, 200, response.text);
    };

    before(async () => {
      service = await startService({ engine });
      const auth = bearer((await login(service.url, adminEmail, adminPassword)).access);
      api = (method, path, body) => call(service.url, method, path, { auth, body });
      assert.equal((await api('POST', '/dns/v2/zones', { name: 'kept.test' })).status, 200);
      await put('www', 'A', { ttl: 120, resource_records: [{ content: ['192.0.2.1'] }, { content: ['192.0.2.2'] }] });
      await put('alias', 'CNAME', { resource_records: [{ content: ['www.kept.test.'] }] });
      await put('kept.test', 'MX', { resource_records: [{ content: [10, 'mail.kept.test.'] }] });
      await put('mail', 'A', { resource_records: [{ content: ['192.0.2.25'] }] });
      await put('big', 'TXT', { resource_records: Array.from({ length: 12 }, (_, i) => ({ content: [`${String(i).padStart(2, '0')} ${'x'.repeat(60)}`] })) });
      await put('geo', 'A', {
        pickers: [{ type: 'geodns', strict: false }],
        resource_records: [
          { content: ['192.0.2.101'], meta: { countries: ['US'] } },
          { content: ['192.0.2.103'], meta: { default: true } },
        ],
      });
    });
    after(() => service.dispose());

    test('a repeated query gets the bytes parsing it would give, with its own ID, RD, CD and letter case', async () => {
      const names = ['www', 'alias', 'kept.test', 'big', 'nope', 'mail'].map((n) => (n === 'kept.test' ? n : `${n}.kept.test`));
      const types = ['A', 'AAAA', 'MX', 'TXT', 'SOA'];
      const ednsOptions: QueryOptions[] = [{ udpSize: 1232 }, { udpSize: 4096, dnssecOk: true }, { udpSize: 512 }];
      let compared = 0;
      for (const tcp of [false, true]) {
        for (const name of names) {
          for (const type of types) {
            for (const options of [{}, ...ednsOptions]) {
              const label = `${name} ${type} ${JSON.stringify(options)} ${tcp ? 'TCP' : 'UDP'}`;
              const first = await exchange(buildQuery(name, type, { ...options, id: 1 }), tcp);
              assert.deepEqual(await exchange(buildQuery(name, type, { ...options, id: 1 }), tcp), first, label);
              const query = variant(name, type, options);
              const reply = await exchange(query, tcp);
              const length = questionLength(query);
              assert.equal(reply.readUInt16BE(0), 0x5a5a, label);
              assert.equal(reply.readUInt16BE(2), first.readUInt16BE(2) | 0x0110, `${label}: RD and CD echoed`);
              assert.deepEqual(reply.subarray(4, 12), first.subarray(4, 12), label);
              assert.deepEqual(reply.subarray(12, 12 + length), query.subarray(12, 12 + length), `${label}: the question byte for byte`);
              assert.deepEqual(reply.subarray(12 + length), first.subarray(12 + length), label);
              if (Object.keys(options).length > 0) {
                assert.deepEqual(reply, await exchange(withIgnoredOption(query), tcp), `${label}: as parsed`);
                compared++;
              }
            }
          }
        }
      }
      assert.equal(compared, 2 * names.length * types.length * ednsOptions.length);
    });

    test('queries with a client subnet are never answered from a reply kept for another requester', async () => {
      const plain = () => udpExchange(service.dnsPort, buildQuery('www.kept.test', 'A', { udpSize: 1232 }));
      await plain();
      await plain();
      const fromUs = buildQuery('www.kept.test', 'A', { udpSize: 1232, subnet: { address: '8.8.8.0', prefix: 24 } });
      const opt = decode(await udpExchange(service.dnsPort, fromUs)).additionals?.find((a) => a.type === 'OPT') as unknown as { options: { code: number; scopePrefixLength?: number }[] };
      assert.equal(opt.options.find((o) => o.code === 8)?.scopePrefixLength, 0, 'the ECS option is echoed, scope 0 for a static RRset');

      const geo = async (subnet?: { address: string; prefix: number }) =>
        addresses(await udpExchange(service.dnsPort, buildQuery('geo.kept.test', 'A', { udpSize: 1232, ...(subnet ? { subnet } : {}) })));
      for (let round = 0; round < 3; round++) {
        assert.deepEqual(await geo({ address: '8.8.8.0', prefix: 24 }), ['192.0.2.101']);
        assert.deepEqual(await geo(), ['192.0.2.103'], 'from 127.0.0.1: no country, the default');
        assert.deepEqual(await geo({ address: '193.0.6.0', prefix: 24 }), ['192.0.2.103']);
      }
    });

    test('a change through the API is in the very next reply, over UDP and TCP', async () => {
      const ask = (tcp: boolean) => exchange(buildQuery('fresh.kept.test', 'A', { udpSize: 1232, id: 7 }), tcp);
      await put('fresh', 'A', { resource_records: [{ content: ['192.0.2.77'] }] });
      for (const tcp of [false, true]) {
        await ask(tcp);
        assert.deepEqual(addresses(await ask(tcp)), ['192.0.2.77']);
      }
      await put('fresh', 'A', { resource_records: [{ content: ['192.0.2.78'] }] });
      for (const tcp of [false, true]) assert.deepEqual(addresses(await ask(tcp)), ['192.0.2.78']);
      assert.equal((await api('DELETE', '/dns/v2/zones/kept.test/fresh/A')).status, 200);
      for (const tcp of [false, true]) {
        const gone = decode(await ask(tcp));
        assert.equal(gone.rcode, 'NXDOMAIN');
        assert.equal(gone.answers?.length, 0);
      }
      assert.equal((await api('PATCH', '/dns/v2/zones/kept.test/disable')).status, 200);
      assert.equal(decode(await ask(false)).rcode, 'REFUSED');
      assert.equal((await api('PATCH', '/dns/v2/zones/kept.test/enable')).status, 200);
      assert.equal(addresses(await exchange(buildQuery('www.kept.test', 'A', { udpSize: 1232 }), false))?.length, 2);
    });

    test('other opcodes and malformed queries still get NOTIMP and FORMERR after the same query was answered', async () => {
      const query = buildQuery('www.kept.test', 'A', { udpSize: 1232 });
      await udpExchange(service.dnsPort, query);
      await udpExchange(service.dnsPort, query);
      const status = Buffer.from(query);
      status[2] = ((status[2] ?? 0) & 0x87) | (2 << 3);
      assert.equal(((await udpExchange(service.dnsPort, status))[3] ?? 0) & 0xf, 4);
      const badVersion = Buffer.from(query);
      badVersion[badVersion.length - 5] = 1;
      const badVersionReply = await udpExchange(service.dnsPort, badVersion);
      assert.equal(((badVersionReply[3] ?? 0) & 0xf) + 16 * (badVersionReply[badVersionReply.length - 11 + 5] ?? 0), 16, 'BADVERS');
      const truncated = query.subarray(0, query.length - 1);
      assert.equal(((await udpExchange(service.dnsPort, truncated))[3] ?? 0) & 0xf, 1);
      assert.equal(packet.decode(await udpExchange(service.dnsPort, query)).answers?.length, 2);
    });
  });
}
