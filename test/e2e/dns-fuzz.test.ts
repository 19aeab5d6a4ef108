// Malformed and random input against the DNS server: thousands of UDP packets from a seeded PRNG
// (set DNS_FUZZ_SEED to reproduce a failure), each checked against what may come back, with a valid
// query answered correctly over UDP and TCP every 500 packets; then hostile TCP framing.
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import packet from 'dns-packet';
import { buildQuery, decode, tcpExchange, udpExchange } from '../support/dns-client.ts';
import { dnsClient } from '../support/dns-records.ts';
import { bearer, call, login } from '../support/http.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';
import { seededRandom } from '../support/prng.ts';

const zone = 'fuzz.test';
const seed = Number(process.env['DNS_FUZZ_SEED'] ?? 20240611);
const packetCount = Number(process.env['DNS_FUZZ_PACKETS'] ?? 10_000);
const timeBudgetMs = 30_000;
const batchSize = 50;

const rcodeFormErr = 1;
const rcodeServFail = 2;
const rcodeNotImp = 4;

/** What may come back for a packet. */
type Expect =
  | 'none' // never answered (QR set, shorter than a header)
  | 'formerr' // malformed with a readable header: FORMERR or nothing
  | 'notimp' // a well-formed query with an opcode other than QUERY
  | 'answer' // a well-formed query: answered, NOERROR or NXDOMAIN
  | 'any'; // random: whatever comes back must be a sane response

interface Fuzzed {
  kind: string;
  bytes: Buffer;
  expect: Expect;
}

function encodeName(name: string): Buffer {
  if (name === '' || name === '.') return Buffer.from([0]);
  return Buffer.concat([...name.split('.').map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, 'latin1')])), Buffer.from([0])]);
}

function header(id: number, flags: number, counts: [number, number, number, number]): Buffer {
  const b = Buffer.alloc(12);
  b.writeUInt16BE(id, 0);
  b.writeUInt16BE(flags, 2);
  counts.forEach((count, i) => b.writeUInt16BE(count, 4 + 2 * i));
  return b;
}

function question(name: string, qtype = 1, qclass = 1): Buffer {
  const tail = Buffer.alloc(4);
  tail.writeUInt16BE(qtype, 0);
  tail.writeUInt16BE(qclass, 2);
  return Buffer.concat([encodeName(name), tail]);
}

/** An OPT pseudo-record with the given RDATA (and rdlength, which may lie). */
function opt(rdata: Buffer, rdlength = rdata.length, udpSize = 1232): Buffer {
  const b = Buffer.alloc(11);
  b[0] = 0;
  b.writeUInt16BE(41, 1);
  b.writeUInt16BE(udpSize, 3);
  b.writeUInt16BE(rdlength, 9);
  return Buffer.concat([b, rdata]);
}

function ecs(family: number, source: number, scope: number, address: Buffer): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt16BE(8, 0);
  b.writeUInt16BE(4 + address.length, 2);
  b.writeUInt16BE(family, 4);
  b[6] = source;
  b[7] = scope;
  return Buffer.concat([b, address]);
}

const names = ['www.fuzz.test', 'fuzz.test', 'nope.fuzz.test', 'a.wild.fuzz.test', 'host.sub.fuzz.test', 'WwW.FuZz.TeSt', 'mail.fuzz.test', 'www.example.com'];
const types = [1, 2, 5, 6, 15, 16, 28, 33, 43, 255, 65280];

function generator(random: () => number) {
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T>(list: readonly T[]): T => list[int(list.length)] as T;
  const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => int(256)));
  const id = () => int(65536);
  const valid = (): Buffer => {
    const edns = random() < 0.5;
    const parts = [header(id(), random() < 0.5 ? 0x0100 : 0, [1, 0, 0, edns ? 1 : 0]), question(pick(names), pick(types))];
    if (edns) parts.push(opt(Buffer.alloc(0), 0, pick([0, 512, 1232, 4096, 65535])));
    return Buffer.concat(parts);
  };
  const nameEnd = (query: Buffer) => {
    let at = 12;
    while ((query[at] ?? 0) !== 0) at += 1 + (query[at] ?? 0);
    return at + 1;
  };

  const kinds: (() => Fuzzed)[] = [
    () => ({ kind: 'short header', bytes: bytes(int(12)), expect: 'none' }),
    () => {
      const qd = pick([0, 2, 65535]);
      const q = question(pick(names));
      const parts = [header(id(), 0, [qd, 0, 0, 0])];
      if (qd !== 0) parts.push(q);
      if (qd === 2 && random() < 0.5) parts.push(question(pick(names)));
      return { kind: `qdcount ${qd}`, bytes: Buffer.concat(parts), expect: 'formerr' };
    },
    () => {
      const query = valid();
      // Cut inside the name or inside qtype/qclass.
      const cut = 12 + int(nameEnd(query) + 4 - 12);
      return { kind: 'truncated question', bytes: query.subarray(0, cut), expect: 'formerr' };
    },
    () => {
      const h = header(id(), 0, [1, 0, 0, 0]);
      const tail = question('', 1, 1).subarray(1);
      const variant = int(4);
      let name: Buffer;
      if (variant === 0) name = Buffer.from([0xc0, 12]); // at itself
      else if (variant === 1) name = Buffer.from([0xc0 | int(64), 200 + int(56)]); // past the end
      else if (variant === 2) name = Buffer.from([3, 0x77, 0x77, 0x77, 0xc0, 12]); // a label, then back to the start: a loop
      else name = Buffer.concat([Buffer.from([0xc0, 12 + 2 + 4]), tail, Buffer.from([0xc0, 12])]); // forward to a pointer that points back
      return { kind: `compression pointer ${['self', 'past end', 'loop', 'forward loop'][variant] ?? ''}`, bytes: Buffer.concat([h, name, variant === 3 ? Buffer.alloc(0) : tail]), expect: 'formerr' };
    },
    () => {
      const label = Buffer.from([10 + int(50), 0x61, 0x62]);
      return { kind: 'label past the end', bytes: Buffer.concat([header(id(), 0, [1, 0, 0, 0]), Buffer.from([3, 0x77, 0x77, 0x77]), label]), expect: 'formerr' };
    },
    () => {
      const reserved = pick([0x40, 0x80]) | int(64);
      const name = Buffer.concat([Buffer.from([3, 0x77, 0x77, 0x77, reserved, int(256)]), encodeName('fuzz.test')]);
      return { kind: `reserved label type 0x${(reserved & 0xc0).toString(16)}`, bytes: Buffer.concat([header(id(), 0, [1, 0, 0, 0]), name, Buffer.from([0, 1, 0, 1])]), expect: 'formerr' };
    },
    () => {
      const section = int(3);
      const counts: [number, number, number, number] = [1, 0, 0, 0];
      counts[1 + section] = 1;
      const record = Buffer.concat([encodeName('x.fuzz.test'), Buffer.from([0, 1, 0, 1, 0, 0, 0, 60, 0xff, 0xff]), bytes(int(20))]);
      return { kind: 'huge rdlength', bytes: Buffer.concat([header(id(), 0, counts), question('www.fuzz.test'), record]), expect: 'formerr' };
    },
    () => {
      const variant = int(3);
      let rdata: Buffer;
      if (variant === 0) rdata = Buffer.from([0, 10, 0, 200, 1, 2, 3]); // option longer than OPT
      else if (variant === 1) rdata = Buffer.from([0, 10]); // half an option header
      else rdata = Buffer.from([0, 10, 0, 2, 1, 2, 0, 8]); // a good option, then a truncated one
      const record = random() < 0.5 ? opt(rdata) : opt(rdata, rdata.length + 1 + int(100));
      return { kind: 'OPT with bad option lengths', bytes: Buffer.concat([header(id(), 0, [1, 0, 0, 1]), question('www.fuzz.test'), record]), expect: 'formerr' };
    },
    () => {
      const variant = int(5);
      const option = [
        () => ecs(pick([0, 3, 7, 65535]), 24, 0, Buffer.from([192, 0, 2])), // bad family
        () => ecs(1, 33 + int(200), 0, Buffer.from([192, 0, 2, 1, 0])), // prefix past 32
        () => ecs(1, 24, 1 + int(255), Buffer.from([192, 0, 2])), // scope in a query
        () => ecs(1, 24, 0, Buffer.from([192, 0, 2, 1])), // one address octet too many
        () => ecs(2, 129 + int(100), 0, Buffer.alloc(16)), // IPv6 prefix past 128
      ][variant]!();
      return { kind: `malformed ECS ${variant}`, bytes: Buffer.concat([header(id(), 0, [1, 0, 0, 1]), question('www.fuzz.test'), opt(option)]), expect: 'formerr' };
    },
    () => {
      const query = valid();
      query[2] = (query[2] ?? 0) | 0x80;
      return { kind: 'QR set', bytes: query, expect: 'none' };
    },
    () => {
      const query = valid();
      const opcode = 1 + int(15);
      query.writeUInt16BE((query.readUInt16BE(2) & ~0x7800) | (opcode << 11), 2);
      return { kind: 'opcode', bytes: query, expect: 'notimp' };
    },
    () => {
      const h = header(id(), 0, [1, 0, 0, 2]);
      return { kind: 'two OPT records', bytes: Buffer.concat([h, question('www.fuzz.test'), opt(Buffer.alloc(0)), opt(Buffer.alloc(0))]), expect: 'formerr' };
    },
    () => ({ kind: 'random bytes', bytes: bytes(int(600)), expect: 'any' }),
    () => {
      // A random header over a valid question: random counts, flags, opcode.
      const query = valid();
      bytes(12).copy(query, 0);
      return { kind: 'random header', bytes: query, expect: 'any' };
    },
    () => {
      const query = valid();
      const flips = 1 + int(4);
      for (let i = 0; i < flips; i++) {
        const at = int(query.length);
        query[at] = (query[at] ?? 0) ^ (1 << int(8));
      }
      return { kind: 'bit flips', bytes: query, expect: 'any' };
    },
    () => ({ kind: 'valid', bytes: valid(), expect: 'answer' }),
  ];
  return (): Fuzzed => {
    const fuzzed = pick(kinds)();
    // Whatever the kind, a packet with QR set must go unanswered.
    if (fuzzed.bytes.length >= 3 && ((fuzzed.bytes[2] ?? 0) & 0x80) !== 0) return { ...fuzzed, expect: 'none' };
    if (fuzzed.bytes.length < 12) return { ...fuzzed, expect: 'none' };
    return fuzzed;
  };
}

/** Problems with one reply to one fuzzed packet; empty when it is acceptable. */
function judge(fuzzed: Fuzzed, reply: Buffer | undefined): string[] {
  const problems: string[] = [];
  if (reply === undefined) {
    if (fuzzed.expect === 'answer' || fuzzed.expect === 'notimp') problems.push('no answer to a well-formed query');
    return problems;
  }
  if (fuzzed.expect === 'none') return ['answered a packet that must be dropped'];
  if (reply.length < 12) return [`a reply of ${reply.length} octets`];
  const flags = reply.readUInt16BE(2);
  const rcode = flags & 0xf;
  if ((flags & 0x8000) === 0) problems.push('reply without QR');
  if (reply.readUInt16BE(0) !== fuzzed.bytes.readUInt16BE(0)) problems.push('reply ID differs');
  if (((flags >> 11) & 0xf) !== ((fuzzed.bytes.readUInt16BE(2) >> 11) & 0xf)) problems.push('opcode not echoed');
  if (rcode === rcodeServFail) problems.push('SERVFAIL: the handler threw');
  if (reply.length > 1232) problems.push(`a UDP reply of ${reply.length} octets`);
  let decoded: packet.Packet | undefined;
  try {
    decoded = decode(reply);
  } catch (e) {
    problems.push(`reply does not decode: ${String(e)}`);
  }
  const hasOpt = (decoded?.additionals ?? []).some((r) => r.type === 'OPT');
  if (decoded !== undefined && !hasOpt && reply.length > 512) problems.push(`a reply of ${reply.length} octets without EDNS`);
  if (fuzzed.expect === 'formerr' && rcode !== rcodeFormErr) problems.push(`RCODE ${rcode}, expected FORMERR`);
  if (fuzzed.expect === 'notimp' && rcode !== rcodeNotImp) problems.push(`RCODE ${rcode}, expected NOTIMP`);
  if (fuzzed.expect === 'answer' && ![0, 3, 5].includes(rcode)) problems.push(`RCODE ${rcode} to a well-formed query`);
  return problems;
}

function openSocket(): Promise<dgram.Socket> {
  const socket = dgram.createSocket('udp4');
  return new Promise((resolve) => socket.bind(0, '127.0.0.1', () => resolve(socket)));
}

/**
 * Sends a batch, one socket per packet, then a valid query from one more socket: the server reads
 * datagrams in order and answers each before reading the next, so once that answer is in, every
 * answer to the batch has been sent. A short grace lets their delivery finish.
 */
async function sendBatch(port: number, batch: Fuzzed[]): Promise<(Buffer | undefined)[]> {
  const sockets = await Promise.all(batch.map(() => openSocket()));
  const replies: (Buffer | undefined)[] = batch.map(() => undefined);
  const extra: string[] = [];
  sockets.forEach((socket, i) =>
    socket.on('message', (message) => {
      if (replies[i] === undefined) replies[i] = message;
      else extra.push(`packet ${i} answered twice`);
    }),
  );
  try {
    for (const [i, fuzzed] of batch.entries()) sockets[i]!.send(fuzzed.bytes, port, '127.0.0.1');
    const sentinel = await udpExchange(port, buildQuery('www.fuzz.test', 'A'), 3000);
    assert.equal(sentinel.readUInt16BE(2) & 0xf, 0, 'the sentinel query is answered NOERROR');
    await new Promise((resolve) => setTimeout(resolve, 10));
  } finally {
    await Promise.all(sockets.map((socket) => new Promise<void>((resolve) => socket.close(() => resolve()))));
  }
  assert.deepEqual(extra, []);
  return replies;
}

async function assertHealthy(port: number, label: string): Promise<void> {
  for (const tcp of [false, true]) {
    const query = buildQuery('www.fuzz.test', 'A', { udpSize: 1232 });
    const reply = tcp ? (await tcpExchange(port, [query]))[0]! : await udpExchange(port, query);
    const decoded = decode(reply);
    assert.equal(decoded.id, query.readUInt16BE(0), `${label}: ID over ${tcp ? 'TCP' : 'UDP'}`);
    assert.equal(rcodeOf(reply), 0, `${label}: RCODE over ${tcp ? 'TCP' : 'UDP'}`);
    assert.equal(decoded.flag_aa, true, `${label}: AA over ${tcp ? 'TCP' : 'UDP'}`);
    assert.deepEqual(
      (decoded.answers ?? []).map((a) => [a.name, a.type, data(a)]),
      [['www.fuzz.test', 'A', '192.0.2.1']],
      `${label}: answer over ${tcp ? 'TCP' : 'UDP'}`,
    );
  }
}

/** A TCP connection that collects framed replies; `closed` resolves when the server closes it. */
function tcpConnection(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  const replies: Buffer[] = [];
  let pending = Buffer.alloc(0);
  let waiters: (() => void)[] = [];
  let isClosed = false;
  const wake = () => {
    const current = waiters;
    waiters = [];
    current.forEach((w) => w());
  };
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
      replies.push(pending.subarray(2, 2 + pending.readUInt16BE(0)));
      pending = pending.subarray(2 + pending.readUInt16BE(0));
    }
    wake();
  });
  socket.on('error', () => undefined);
  socket.on('close', () => {
    isClosed = true;
    wake();
  });
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return {
    socket,
    replies,
    connected,
    isClosed: () => isClosed,
    write: (data: Buffer) => new Promise<void>((resolve) => socket.write(data, () => resolve())),
    /** Waits until `condition` holds or the connection closes, at most `timeoutMs`. */
    until: async (condition: () => boolean, timeoutMs = 3000) => {
      const deadline = Date.now() + timeoutMs;
      while (!condition() && !isClosed && Date.now() < deadline) {
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, Math.max(1, deadline - Date.now()));
        });
      }
      return condition();
    },
  };
}

/** The RDATA of a decoded record (dns-packet's types leave it off OPT). */
const data = (record: packet.Answer): unknown => (record as { data?: unknown }).data;
const rcodeOf = (reply: Buffer) => reply.readUInt16BE(2) & 0xf;

const frame = (message: Buffer) => Buffer.concat([Buffer.from([message.length >> 8, message.length & 255]), message]);

describe('DNS server under malformed and random input', () => {
  let service: Service;
  let auth: string;

  before(async () => {
    service = await startService({ engine: 'sqlite' });
    auth = bearer((await login(service.url, adminEmail, adminPassword)).access);
    const dns = dnsClient(service.url, auth);
    await dns.createZone(zone);
    for (const [name, type, records] of [
      ['www', 'A', [['192.0.2.1']]],
      ['mail', 'A', [['192.0.2.25']]],
      ['@', 'MX', [[10, 'mail.fuzz.test.']]],
      ['@', 'TXT', [['fuzz']]],
      ['*.wild', 'A', [['192.0.2.99']]],
      ['sub', 'NS', [['ns.sub.fuzz.test.']]],
      ['ns.sub', 'A', [['192.0.2.53']]],
      ['big', 'A', Array.from({ length: 100 }, (_, i) => [`10.0.0.${i}`])],
    ] as const) {
      const written = await dns.put(zone, name, type, records as unknown as unknown[][]);
      assert.equal(written.status, 200, written.text);
    }
    // Signed, so that queries with the DO bit also run through signing and generated denial.
    const signed = await call(service.url, 'PATCH', `/dns/v2/zones/${zone}/dnssec`, { auth, body: { enabled: true } });
    assert.equal(signed.status, 200, signed.text);
    await assertHealthy(service.dnsPort, 'before fuzzing');
  });
  after(() => service.dispose());

  test(`${packetCount} fuzzed UDP packets (seed ${seed})`, async () => {
    const next = generator(seededRandom(seed));
    const started = Date.now();
    const failures: string[] = [];
    const tally = new Map<string, { sent: number; answered: number; rcodes: Set<number> }>();
    let sent = 0;
    while (sent < packetCount && Date.now() - started < timeBudgetMs) {
      const batch = Array.from({ length: Math.min(batchSize, packetCount - sent) }, next);
      const replies = await sendBatch(service.dnsPort, batch);
      for (const [i, fuzzed] of batch.entries()) {
        const count = tally.get(fuzzed.kind) ?? { sent: 0, answered: 0, rcodes: new Set<number>() };
        count.sent += 1;
        const reply = replies[i];
        if (reply !== undefined) {
          count.answered += 1;
          if (reply.length >= 4) count.rcodes.add(reply.readUInt16BE(2) & 0xf);
        }
        tally.set(fuzzed.kind, count);
        const problems = judge(fuzzed, replies[i]);
        if (problems.length > 0 && failures.length < 20) {
          failures.push(`#${sent + i} ${fuzzed.kind} [${fuzzed.bytes.toString('hex')}] → ${replies[i]?.toString('hex') ?? 'no answer'}: ${problems.join('; ')}`);
        }
      }
      sent += batch.length;
      if (sent % 500 === 0) await assertHealthy(service.dnsPort, `after ${sent} packets`);
    }
    await assertHealthy(service.dnsPort, `after all ${sent} packets`);
    const summary = [...tally].map(([kind, c]) => `${kind}: ${c.sent} sent, ${c.answered} answered (RCODE ${[...c.rcodes].sort((a, b) => a - b).join(', ')})`).join('\n');
    console.log(`seed ${seed}: ${sent} packets in ${Date.now() - started} ms\n${summary}`);
    assert.ok(sent >= 1000, `only ${sent} packets within the time budget`);
    assert.deepEqual(failures, [], `seed ${seed} (DNS_FUZZ_SEED reproduces)`);
  });

  test('TCP: a length prefix of 65535, then the connection closes', async () => {
    for (const prefix of [Buffer.from([0xff, 0xff]), Buffer.concat([Buffer.from([0xff, 0xff]), Buffer.alloc(1000, 0x41)]), Buffer.from([0x00])]) {
      const connection = tcpConnection(service.dnsPort);
      await connection.connected;
      await connection.write(prefix);
      connection.socket.end();
      await connection.until(() => false, 200);
      assert.deepEqual(connection.replies, []);
      connection.socket.destroy();
    }
    await assertHealthy(service.dnsPort, 'after incomplete TCP frames');
  });

  test('TCP: garbage frames, then a valid query on the same connection', async () => {
    const random = seededRandom(seed ^ 0x5eed);
    const garbage: Buffer[] = [
      Buffer.alloc(0),
      Buffer.from([1, 2, 3]),
      Buffer.from(Array.from({ length: 11 }, () => 0xff)),
      Buffer.concat([header(0x1111, 0, [1, 0, 0, 0]), Buffer.from([0xc0, 12, 0, 1, 0, 1])]), // pointer loop
      Buffer.concat([header(0x2222, 0, [2, 0, 0, 0]), question('www.fuzz.test')]), // qdcount 2
      Buffer.concat([header(0x3333, 0x8000, [1, 0, 0, 0]), question('www.fuzz.test')]), // QR set
      ...Array.from({ length: 20 }, () => Buffer.from(Array.from({ length: 12 + Math.floor(random() * 300) }, () => Math.floor(random() * 256) & 0x7f))),
    ];
    const connection = tcpConnection(service.dnsPort);
    await connection.connected;
    await connection.write(Buffer.concat(garbage.map(frame)));
    const valid = buildQuery('www.fuzz.test', 'A', { id: 0xabcd });
    await connection.write(frame(valid));
    const answered = await connection.until(() => connection.replies.some((r) => r.readUInt16BE(0) === 0xabcd));
    connection.socket.destroy();
    for (const reply of connection.replies) {
      assert.equal(reply.readUInt16BE(2) & 0x8000, 0x8000, 'every reply has QR');
      assert.notEqual(reply.readUInt16BE(2) & 0xf, rcodeServFail, 'no SERVFAIL');
      assert.notEqual(reply.readUInt16BE(0), 0x3333, 'a message with QR set is not answered');
    }
    for (const id of [0x1111, 0x2222]) {
      const reply = connection.replies.find((r) => r.readUInt16BE(0) === id);
      assert.equal(reply === undefined ? rcodeFormErr : reply.readUInt16BE(2) & 0xf, rcodeFormErr, `FORMERR (or nothing) for 0x${id.toString(16)}`);
    }
    // Closing the connection on garbage is allowed (RFC 7766 §6.2.4); we keep it open and answer.
    assert.ok(answered || connection.isClosed(), 'the valid query was answered, or the server closed the connection');
    if (answered) {
      const reply = connection.replies.find((r) => r.readUInt16BE(0) === 0xabcd)!;
      const decoded = decode(reply);
      assert.equal(rcodeOf(reply), 0);
      assert.deepEqual((decoded.answers ?? []).map(data), ['192.0.2.1']);
    }
    await assertHealthy(service.dnsPort, 'after TCP garbage');
  });

  test('TCP: 100 pipelined queries on one connection are all answered', async () => {
    const queries = Array.from({ length: 100 }, (_, i) =>
      i % 3 === 0 ? buildQuery('www.fuzz.test', 'A', { id: i }) : i % 3 === 1 ? buildQuery(`n${i}.nope.www.fuzz.test`, 'A', { id: i }) : buildQuery('big.fuzz.test', 'A', { id: i }),
    );
    const replies = await tcpExchange(service.dnsPort, queries);
    assert.equal(replies.length, 100);
    const byId = new Map(replies.map((r) => [r.readUInt16BE(0), r]));
    for (let i = 0; i < 100; i++) {
      const raw = byId.get(i);
      assert.ok(raw, `answer ${i}`);
      const reply = decode(raw);
      if (i % 3 === 0) assert.deepEqual((reply.answers ?? []).map(data), ['192.0.2.1']);
      else if (i % 3 === 1) assert.equal(rcodeOf(raw), 3, 'NXDOMAIN');
      else assert.equal((reply.answers ?? []).length, 100, 'the whole RRset over TCP');
    }
  });

  test('TCP: queries written one byte at a time are reassembled', async () => {
    const queries = [buildQuery('www.fuzz.test', 'A', { id: 7 }), buildQuery('nope.fuzz.test', 'A', { id: 8, udpSize: 1232 }), buildQuery('big.fuzz.test', 'A', { id: 9 })];
    const connection = tcpConnection(service.dnsPort);
    await connection.connected;
    const bytes = Buffer.concat(queries.map(frame));
    for (let at = 0; at < bytes.length; at++) {
      await connection.write(bytes.subarray(at, at + 1));
      if (at % 8 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    assert.ok(await connection.until(() => connection.replies.length === 3), `got ${connection.replies.length} of 3 answers`);
    connection.socket.destroy();
    const [www, nope, big] = connection.replies.map((r) => decode(r));
    assert.deepEqual([www?.id, nope?.id, big?.id], [7, 8, 9]);
    assert.deepEqual((www?.answers ?? []).map(data), ['192.0.2.1']);
    assert.equal(rcodeOf(connection.replies[1]!), 3, 'NXDOMAIN');
    assert.equal((big?.answers ?? []).length, 100);
  });

  test('the service survived: no handler failure logged, the API still answers', async () => {
    await assertHealthy(service.dnsPort, 'at the end');
    const output = service.output();
    assert.doesNotMatch(output, /DNS query failed/);
    assert.doesNotMatch(output, /uncaught|unhandled/i);
    assert.doesNotMatch(output, /"level":(50|60)/);
    const read = await call(service.url, 'GET', `/dns/v2/zones/${zone}`, { auth });
    assert.equal(read.status, 200, read.text);
  });
});
