// How the DNS server moves UDP datagrams (src/dns/server/udp.ts): in batches through the native addon
// (recvmmsg/sendmmsg, Linux) or one by one through Node's dgram. Both serve the same answers, to the
// right sender, from IPv4 and IPv6 sources; on Linux the default is batched, so a CI run where the
// addon did not build fails here instead of quietly measuring dgram.
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { after, before, describe, test } from 'node:test';
import { addressesIn, buildQuery, decode, udpBurst, udpExchange } from '../support/dns-client.ts';
import { bearer, call, login } from '../support/http.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';

/** Sends every message from one socket without waiting and collects the replies by ID. */
async function burst(family: 4 | 6, port: number, messages: Buffer[], timeoutMs?: number): Promise<Map<number, Buffer>> {
  const replies = await udpBurst(port, messages, { family, ...(timeoutMs === undefined ? {} : { timeoutMs }) });
  return new Map(replies.map((reply) => [reply.readUInt16BE(0), reply]));
}

const addresses = (reply: Buffer) => addressesIn(decode(reply));

for (const io of ['batched', 'dgram'] as const) {
  // Batched UDP exists on Linux only; elsewhere the batched half has nothing to run.
  const skip = io === 'batched' && process.platform !== 'linux' ? 'batched UDP needs Linux' : false;
  describe(`UDP ${io}`, { skip }, () => {
    let service: Service;

    before(async () => {
      // Dual stack: IPv4 sources arrive as IPv4-mapped IPv6 addresses.
      service = await startService({ engine: 'sqlite', env: { EDGEPLANE_DNS_UDP_IO: io, EDGEPLANE_DNS_LISTEN: '[::]:0' } });
      const auth = bearer((await login(service.url, adminEmail, adminPassword)).access);
      const api = (method: string, path: string, body?: unknown) => call(service.url, method, path, { auth, body });
      assert.equal((await api('POST', '/dns/v2/zones', { name: 'io.test' })).status, 200);
      const put = async (name: string, body: unknown) => assert.equal((await api('PUT', `/dns/v2/zones/io.test/${name}/A`, body)).status, 200);
      for (let i = 0; i < 40; i++) await put(`h${String(i)}.io.test`, { ttl: 60, resource_records: [{ content: [`192.0.2.${String(i)}`] }] });
      // The `ip` picker reads the source address the listener reports.
      await put('who.io.test', {
        ttl: 60,
        pickers: [{ type: 'ip' }],
        resource_records: [
          { content: ['198.51.100.4'], meta: { ip: ['127.0.0.0/8'] } },
          { content: ['198.51.100.6'], meta: { ip: ['::1/128'] } },
        ],
      });
    });
    after(() => service.dispose());

    test(`the DNS server reports ${io} UDP`, () => {
      assert.match(service.output(), new RegExp(`"udp_io":"${io}"`));
    });

    // More than one batch (64) at once, and within what the kernel's default socket buffers hold.
    test('a burst of 100 queries from one socket is answered in full, each reply to its own query', async () => {
      const messages = Array.from({ length: 100 }, (_, id) => buildQuery(`h${String(id % 40)}.io.test`, 'A', { id, udpSize: 1232 }));
      const replies = await burst(4, service.dnsPort, messages);
      assert.equal(replies.size, 100);
      for (const [id, reply] of replies) {
        assert.equal(decode(reply).questions?.[0]?.name, `h${String(id % 40)}.io.test`);
        assert.deepEqual(addresses(reply), [`192.0.2.${String(id % 40)}`]);
      }
    });

    test('senders interleaved on several sockets each get their own replies', async () => {
      const results = await Promise.all(
        [0, 1, 2, 3].map((n) => burst(n % 2 === 0 ? 4 : 6, service.dnsPort, Array.from({ length: 50 }, (_, id) => buildQuery(`h${String(n * 10 + (id % 10))}.io.test`, 'A', { id })))),
      );
      results.forEach((replies, n) => {
        assert.equal(replies.size, 50);
        for (const [id, reply] of replies) assert.deepEqual(addresses(reply), [`192.0.2.${String(n * 10 + (id % 10))}`]);
      });
    });

    test('the source address reaches the pickers, from IPv4 and from IPv6', async () => {
      const query = buildQuery('who.io.test', 'A', { id: 7 });
      assert.deepEqual(addresses((await burst(4, service.dnsPort, [query])).get(7) ?? Buffer.alloc(0)), ['198.51.100.4']);
      assert.deepEqual(addresses((await burst(6, service.dnsPort, [query])).get(7) ?? Buffer.alloc(0)), ['198.51.100.6']);
    });

    test('a datagram of 5,000 octets and a truncated header do not stop the server', async () => {
      const huge = Buffer.concat([buildQuery('h1.io.test', 'A', { id: 1 }), Buffer.alloc(5000)]);
      const replies = await burst(4, service.dnsPort, [huge, Buffer.from([0, 2, 0]), buildQuery('h2.io.test', 'A', { id: 3 })], 1000);
      // Batched: longer than the 4,096-octet slot, dropped unread. dgram: the query is read and
      // answered, the octets after it ignored.
      if (io === 'batched') assert.equal(replies.get(1), undefined);
      else assert.deepEqual(addresses(replies.get(1) ?? Buffer.alloc(0)), ['192.0.2.1']);
      assert.deepEqual(addresses(replies.get(3) ?? Buffer.alloc(0)), ['192.0.2.2']);
      assert.deepEqual(addresses(await udpExchange(service.dnsPort, buildQuery('h5.io.test', 'A'))), ['192.0.2.5']);
    });

    test('stopping the service frees the UDP port', async () => {
      const port = service.dnsPort;
      assert.equal(await service.stop(), 0);
      const socket = dgram.createSocket('udp6');
      await new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        socket.bind(port, '::', resolve);
      });
      socket.close();
    });
  });
}
