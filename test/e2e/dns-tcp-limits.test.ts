// DNS over TCP is bounded (RFC 7766 §6), through the real server: a client dripping a byte at a
// time is closed after the idle timeout (only complete queries reset it); a flood of connections
// from one address gets at most the per-client cap, and the cap in total holds across DNS threads;
// clients pipelining queries for large answers (or zone transfers) without reading make the server
// buffer next to nothing and are closed; through all of it UDP, TCP from others and the HTTP API
// keep answering.
//
// The TCP listener never touches the store, so the tests of the listener alone run on SQLite; the
// flood test runs on both engines, since the API it checks needs descriptors for its own store
// connections (PostgreSQL) while the DNS server holds many.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { ask, buildQuery, decode, tcpExchange, udpExchange } from '../support/dns-client.ts';
import { engines } from '../support/engines.ts';
import { bearer, call, login } from '../support/http.ts';
import { onPath } from '../support/knot.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';
import { waitFor } from '../support/wait.ts';

const run = promisify(execFile);
const frame = (message: Buffer) => Buffer.concat([Buffer.from([message.length >> 8, message.length & 255]), message]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A connection that tells when the server closed it (FIN or reset); one reset at accept resolves closed. */
interface Client {
  socket: net.Socket;
  closed: () => boolean;
  replies: Buffer[];
}

function connect(port: number, options: { localAddress?: string; read?: boolean } = {}): Promise<Client> {
  const socket = net.connect({ port, host: '127.0.0.1', ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }) });
  const client: Client = { socket, closed: () => socket.closed || socket.readableEnded, replies: [] };
  socket.on('error', () => undefined);
  if (options.read === false) socket.pause();
  else {
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
        client.replies.push(pending.subarray(2, 2 + pending.readUInt16BE(0)));
        pending = pending.subarray(2 + pending.readUInt16BE(0));
      }
    });
  }
  return new Promise((resolve) => {
    socket.once('connect', () => resolve(client));
    socket.once('close', () => resolve(client));
  });
}

/** Whether the server keeps a new connection from `localAddress` and answers on it, or resets it. */
async function admitted(port: number, localAddress: string, keep: Client[]): Promise<boolean> {
  const client = await connect(port, { localAddress });
  client.socket.write(frame(buildQuery('tcp.test', 'SOA')));
  await waitFor(() => client.replies.length > 0 || client.closed(), 5000);
  keep.push(client);
  return client.replies.length > 0;
}

/** A GET on a new connection (no pooled keep-alive one): whether the API still accepts. */
function freshGet(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: false, timeout: 5000 }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('timeout', () => request.destroy(new Error('no answer in 5 s')));
    request.on('error', reject);
  });
}

async function metrics(service: Service): Promise<string> {
  return (await call(service.url, 'GET', '/metrics')).text;
}

function metric(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? 0 : Number(line.split(' ')[1]);
}

/** Waits until the server counts `count` open TCP connections, at most 15 s. */
async function waitForOpen(service: Service, count: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const open = metric(await metrics(service), 'edgeplane_dns_tcp_connections');
    if (open === count) return;
    assert.ok(Date.now() < deadline, `the server still has ${String(open)} TCP connections open`);
    await sleep(100);
  }
}

/** UDP, TCP from an address no test client uses, and the API on a new connection all answer. */
async function assertServing(service: Service, label: string): Promise<void> {
  assert.equal(decode(await udpExchange(service.dnsPort, buildQuery('tcp.test', 'SOA'))).rcode, 'NOERROR', `${label}: UDP`);
  const [overTcp] = await tcpExchange(service.dnsPort, [buildQuery('tcp.test', 'SOA')], { localAddress: '127.0.0.99' });
  assert.equal(decode(overTcp!).rcode, 'NOERROR', `${label}: TCP`);
  assert.equal(await freshGet(`${service.url}/metrics`), 200, `${label}: HTTP API`);
}

async function createZone(service: Service): Promise<(method: string, path: string, body?: unknown) => ReturnType<typeof call>> {
  const auth = bearer((await login(service.url, adminEmail, adminPassword)).access);
  const api = (method: string, path: string, body?: unknown) => call(service.url, method, path, { auth, body });
  assert.equal((await api('POST', '/dns/v2/zones', { name: 'tcp.test' })).status, 200);
  // About 16 KiB of TXT: the large answer, and a zone whose transfer takes two messages.
  const big = Array.from({ length: 64 }, (_, i) => ({ content: [`${String(i).padStart(2, '0')}${'x'.repeat(248)}`] }));
  const written = await api('PUT', '/dns/v2/zones/tcp.test/big.tcp.test/TXT', { ttl: 60, resource_records: big });
  assert.equal(written.status, 200, written.text);
  return api;
}

describe('DNS over TCP: slow clients and the idle timeout', () => {
  let service: Service;

  before(async () => {
    service = await startService({ engine: 'sqlite', env: { EDGEPLANE_DNS_TCP_IDLE_TIMEOUT: '2', EDGEPLANE_DNS_TRANSFER_ALLOW: '127.0.0.1' } });
    await createZone(service);
  });
  after(() => service.dispose());

  test('a client dripping one byte every 500 ms is closed after the idle timeout, stray bytes notwithstanding', async () => {
    const query = frame(buildQuery('tcp.test', 'SOA'));
    const client = await connect(service.dnsPort);
    const started = Date.now();
    let at = 0;
    while (!client.closed() && Date.now() - started < 15_000) {
      // The message would be complete after about 15 s; the timeout is 2 s.
      client.socket.write(query.subarray(at, ++at));
      await sleep(500);
    }
    assert.ok(client.closed(), 'still open after 15 s of dripping');
    assert.ok(at < query.length, 'the server waited for the whole message');
    assert.deepEqual(client.replies, []);
    client.socket.destroy();
  });

  test('frames too short to be a query (two zero octets every 500 ms) do not keep a connection open', async () => {
    const client = await connect(service.dnsPort);
    const started = Date.now();
    while (!client.closed() && Date.now() - started < 15_000) {
      client.socket.write(Buffer.from([0, 0]));
      await sleep(500);
    }
    assert.ok(client.closed(), 'still open after 15 s of empty frames');
    client.socket.destroy();
  });

  test('complete queries keep a connection open past the idle timeout; a quiet one is closed', async () => {
    const client = await connect(service.dnsPort);
    for (let id = 0; id < 10; id++) {
      client.socket.write(frame(buildQuery('tcp.test', 'SOA', { id })));
      await sleep(500);
      assert.ok(!client.closed(), `closed after ${id + 1} queries, 500 ms apart`);
    }
    assert.deepEqual(client.replies.map((r) => decode(r).id), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await waitFor(() => client.closed(), 10_000);
    const text = await metrics(service);
    assert.ok(metric(text, 'edgeplane_dns_tcp_timeouts_total{reason="idle"}') >= 2, text);
  });

  test('a query followed by the client closing its side is still answered', async () => {
    const client = await connect(service.dnsPort);
    client.socket.end(frame(buildQuery('big.tcp.test', 'TXT', { id: 77 })));
    await waitFor(() => client.closed(), 5000);
    assert.equal(client.replies.length, 1);
    assert.equal(decode(client.replies[0]!).answers?.length, 64);
  });

  test('kdig over TCP and an AXFR still work', { skip: onPath('kdig') === undefined ? 'kdig is not installed' : false }, async () => {
    const { stdout } = await run('kdig', ['@127.0.0.1', '-p', String(service.dnsPort), '+tcp', '+short', 'big.tcp.test', 'TXT']);
    assert.equal(stdout.trim().split('\n').length, 64);
    const transfer = await run('kdig', ['@127.0.0.1', '-p', String(service.dnsPort), 'AXFR', 'tcp.test', '+nocomments', '+nostats', '+noheader']);
    const types = transfer.stdout.split('\n').filter((line) => line.trim() !== '' && !line.startsWith(';')).map((line) => line.split(/\s+/)[3]);
    assert.deepEqual([types[0], types.at(-1), types.filter((t) => t === 'TXT').length], ['SOA', 'SOA', 64]);
  });
});

describe('DNS over TCP: clients that do not read', () => {
  let service: Service;

  before(async () => {
    service = await startService({ engine: 'sqlite', env: { EDGEPLANE_DNS_TCP_IDLE_TIMEOUT: '2', EDGEPLANE_DNS_TRANSFER_ALLOW: '127.0.0.1' } });
    await createZone(service);
  });
  after(() => service.dispose());

  test('4 clients pipelining 4,400 queries for a 16 KiB answer, and 2 pipelining transfers, none reading: memory stays, they are closed', async () => {
    const rss = async () => metric(await metrics(service), 'edgeplane_process_resident_memory_bytes') / 2 ** 20;
    const baseline = await rss();
    const txt = frame(buildQuery('big.tcp.test', 'TXT'));
    const axfr = frame(buildQuery('tcp.test', 'AXFR'));
    await Promise.all([txt, txt, txt, txt, axfr, axfr].map(async (query) => {
      const client = await connect(service.dnsPort, { read: false });
      // Answered in full, that would be some 74 MB for each client.
      client.socket.write(Buffer.concat(Array.from({ length: 4400 }, () => query)));
    }));
    await sleep(1500);
    const during = await rss();
    // Unbounded, the replies took about 500 MB here and kept it; bounded, a few MB at most.
    assert.ok(during - baseline < 120, `resident set grew from ${baseline.toFixed(0)} to ${during.toFixed(0)} MiB`);
    await assertServing(service, 'while 6 clients do not read');
    // A client that does not read does not notice the server closed it: the server's count tells.
    await waitForOpen(service, 0);
    const text = await metrics(service);
    assert.ok(metric(text, 'edgeplane_dns_tcp_timeouts_total{reason="unread"}') >= 6, text);
    assert.equal(metric(text, 'edgeplane_dns_tcp_connections'), 0);
    const afterwards = await rss();
    assert.ok(afterwards - baseline < 120, `resident set ${afterwards.toFixed(0)} MiB after, ${baseline.toFixed(0)} before`);
    await assertServing(service, 'after');
  });
});

for (const engine of engines()) {
  describe(`DNS over TCP: a flood of connections (${engine})`, () => {
    let service: Service;

    before(async () => {
      service = await startService({ engine, env: { EDGEPLANE_DNS_TCP_IDLE_TIMEOUT: '2' } });
      await createZone(service);
    });
    after(() => service.dispose());

    test('1,100 connections dripping from one address: 64 (the default per client) are kept until idle, the rest reset at once', async () => {
      const clients: Client[] = [];
      for (let i = 0; i < 1100; i++) clients.push(await connect(service.dnsPort));
      // Each drips a query an octet at a time, all but its last one.
      const query = frame(buildQuery('tcp.test', 'SOA'));
      let at = 0;
      const drip = setInterval(() => {
        if (at >= query.length - 1) return;
        const octet = query.subarray(at, ++at);
        for (const client of clients) if (!client.closed()) client.socket.write(octet);
      }, 500);
      try {
        await waitFor(() => clients.filter((c) => !c.closed()).length <= 64, 5000);
        assert.equal(clients.filter((c) => !c.closed()).length, 64);
        await assertServing(service, 'during the flood');
        await waitFor(() => clients.every((c) => c.closed()), 10_000);
      } finally {
        clearInterval(drip);
        for (const client of clients) client.socket.destroy();
      }
      const text = await metrics(service);
      assert.equal(metric(text, 'edgeplane_dns_tcp_refused_total{reason="max_per_client"}'), 1036, text);
      assert.ok(metric(text, 'edgeplane_dns_tcp_timeouts_total{reason="idle"}') >= 64, text);
      // The address is welcome again.
      assert.equal((await ask(service.dnsPort, 'tcp.test', 'SOA', { tcp: true })).packet.rcode, 'NOERROR');
      await assertServing(service, 'after the flood');
    });
  });
}

describe('DNS over TCP: the caps hold across DNS threads', () => {
  let service: Service;

  before(async () => {
    service = await startService({
      engine: 'sqlite',
      env: { EDGEPLANE_DNS_WORKERS: '2', EDGEPLANE_DNS_TCP_MAX_CLIENTS: '10', EDGEPLANE_DNS_TCP_MAX_PER_CLIENT: '4' },
    });
    await createZone(service);
  });
  after(() => service.dispose());

  test('10 in total, 4 per address, whichever thread the kernel hands each connection', async () => {
    const kept: Client[] = [];
    try {
      const verdicts: Record<string, boolean[]> = {};
      for (const address of ['127.0.0.1', '127.0.0.2', '127.0.0.3', '127.0.0.4']) {
        verdicts[address] = [];
        for (let i = 0; i < 5; i++) verdicts[address].push(await admitted(service.dnsPort, address, kept));
      }
      assert.deepEqual(verdicts, {
        '127.0.0.1': [true, true, true, true, false],
        '127.0.0.2': [true, true, true, true, false],
        '127.0.0.3': [true, true, false, false, false],
        '127.0.0.4': [false, false, false, false, false],
      });
      const text = await metrics(service);
      assert.equal(metric(text, 'edgeplane_dns_tcp_connections'), 10, text);
      assert.equal(metric(text, 'edgeplane_dns_tcp_refused_total{reason="max_per_client"}'), 2, text);
      assert.equal(metric(text, 'edgeplane_dns_tcp_refused_total{reason="max_clients"}'), 8, text);
      assert.equal(decode(await udpExchange(service.dnsPort, buildQuery('tcp.test', 'SOA'))).rcode, 'NOERROR');
      // Places are given back when connections close.
      for (const client of kept.splice(0)) client.socket.destroy();
      await waitForOpen(service, 0);
      assert.ok(await admitted(service.dnsPort, '127.0.0.4', kept));
    } finally {
      for (const client of kept) client.socket.destroy();
    }
  });
});
