// The stub client the resolver endpoints use, against a scripted server on real UDP and TCP sockets:
// replies with the wrong id, question or source port are ignored; malformed replies (pointer loops,
// names and RDATA running past the end, bad RDATA lengths, garbage over TCP) fail fast as 502;
// truncated replies are asked again over TCP; the in-flight cap and the timeout hold.
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import packet from 'dns-packet';
import { rdataFields } from '../../src/dns/client/rdata.ts';
import { stubResolver } from '../../src/dns/client/resolver.ts';
import { typeCode } from '../../src/dns/wire/type-codes.ts';
import { ApiError } from '../../src/errors.ts';
import { freePort } from '../support/free-port.ts';

/** The question section of a query: from its header to after QTYPE and QCLASS. */
function questionOf(query: Buffer): Buffer {
  let at = 12;
  while ((query[at] ?? 0) !== 0) at += 1 + (query[at] ?? 0);
  return query.subarray(12, at + 5);
}

/** A reply header (QR, RD, RA, `rcode`) with the query's id and question, then `rest` as its sections. */
function rawReply(query: Buffer, counts: [number, number, number], rest: Buffer, options: { id?: number; flags?: number } = {}): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(options.id ?? query.readUInt16BE(0), 0);
  header.writeUInt16BE(options.flags ?? 0x8180, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(counts[0], 6);
  header.writeUInt16BE(counts[1], 8);
  header.writeUInt16BE(counts[2], 10);
  return Buffer.concat([header, questionOf(query), rest]);
}

/** An answer record owned by the question's name (a pointer to offset 12) with `rdata`. */
function answerRecord(type: number, rdata: Buffer): Buffer {
  const fixed = Buffer.alloc(12);
  fixed.writeUInt16BE(0xc00c, 0);
  fixed.writeUInt16BE(type, 2);
  fixed.writeUInt16BE(1, 4);
  fixed.writeUInt32BE(60, 6);
  fixed.writeUInt16BE(rdata.length, 10);
  return Buffer.concat([fixed, rdata]);
}

const aReply = (query: Buffer, address: string, id?: number) => {
  const decoded = packet.decode(query);
  return packet.encode({
    type: 'response',
    id: id ?? decoded.id,
    flags: packet.RECURSION_DESIRED | packet.RECURSION_AVAILABLE,
    questions: decoded.questions,
    answers: [{ type: 'A', name: decoded.questions?.[0]?.name ?? '', ttl: 60, data: address }],
  });
};

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof ApiError, String(e));
    return e;
  }
  assert.fail('expected a rejection');
}

describe('stub resolver client', () => {
  let port: number;
  let udp: dgram.Socket;
  let intruder: dgram.Socket;
  let tcp: net.Server;
  const server = () => ({ host: '127.0.0.1', port });
  const resolver = (timeoutMs = 400, maxInFlight = 8) => stubResolver(server(), { timeoutMs, maxInFlight });

  before(async () => {
    port = await freePort();
    udp = dgram.createSocket('udp4');
    intruder = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => udp.bind(port, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => intruder.bind(0, '127.0.0.1', resolve));
    udp.on('message', (query, from) => {
      const send = (bytes: Buffer, socket = udp) => socket.send(bytes, from.port, from.address);
      const name = packet.decode(query).questions?.[0]?.name ?? '';
      const label = name.split('.')[0];
      if (label === 'spoof') {
        send(aReply(query, '198.51.100.66', query.readUInt16BE(0) ^ 1));
        setTimeout(() => send(aReply(query, '192.0.2.1')), 20);
      } else if (label === 'intruder') {
        send(aReply(query, '198.51.100.66'), intruder);
        setTimeout(() => send(aReply(query, '192.0.2.2')), 20);
      } else if (label === 'question') {
        const other = Buffer.from(aReply(query, '198.51.100.66'));
        // The same id, another question name: "question" becomes "questiom".
        other[12 + 8] = 'm'.charCodeAt(0);
        send(other);
      } else if (label === 'loop') {
        // The answer's owner at offset N is a pointer to N itself.
        const offset = 12 + questionOf(query).length;
        send(rawReply(query, [1, 0, 0], Buffer.from([0xc0 | (offset >> 8), offset & 0xff, 0, 1, 0, 1, 0, 0, 0, 60, 0, 0])));
      } else if (label === 'pastend') {
        send(rawReply(query, [1, 0, 0], answerRecord(typeCode.a, Buffer.from([192, 0, 2, 1])).subarray(0, 14)));
      } else if (label === 'shorta') {
        send(rawReply(query, [1, 0, 0], answerRecord(typeCode.a, Buffer.from([192, 0, 2]))));
      } else if (label === 'badmx') {
        // MX whose exchange name runs past its RDATA into the next bytes.
        send(rawReply(query, [1, 0, 0], Buffer.concat([answerRecord(typeCode.mx, Buffer.from([0, 10, 3, 0x61, 0x62])), Buffer.from([0x63, 0])])));
      } else if (label === 'servfail' || label === 'refused') {
        send(rawReply(query, [0, 0, 0], Buffer.alloc(0), { flags: label === 'servfail' ? 0x8182 : 0x8185 }));
      } else if (label === 'trunc' || label === 'tcpgarbage') {
        send(rawReply(query, [0, 0, 0], Buffer.alloc(0), { flags: 0x8380 }));
      }
      // "silent": no reply at all.
    });
    tcp = net.createServer((socket) => {
      socket.once('data', (chunk: Buffer) => {
        const query = chunk.subarray(2);
        const name = packet.decode(query).questions?.[0]?.name ?? '';
        const reply = name.startsWith('trunc.') ? aReply(query, '192.0.2.3') : Buffer.from('\x00\x0anot a dns', 'latin1');
        const length = Buffer.alloc(2);
        length.writeUInt16BE(reply.length, 0);
        socket.end(name.startsWith('trunc.') ? Buffer.concat([length, reply]) : reply);
      });
    });
    await new Promise<void>((resolve) => tcp.listen(port, '127.0.0.1', resolve));
  });
  after(() => {
    udp.close();
    intruder.close();
    tcp.close();
  });

  const addressOf = async (name: string) => {
    const reply = await resolver().query(name, typeCode.a);
    return reply.answers.map((r) => rdataFields(reply, r)[0]);
  };

  test('a reply with another id, or from another port, is ignored: the real one that follows is taken', async () => {
    assert.deepEqual(await addressOf('spoof.test'), ['192.0.2.1']);
    assert.deepEqual(await addressOf('intruder.test'), ['192.0.2.2']);
  });

  test('a reply to another question is ignored: the query times out (504) within its bound', async () => {
    const started = Date.now();
    const error = await rejection(resolver().query('question.test', typeCode.a));
    assert.equal(error.status, 504);
    assert.equal(error.code, 'resolver_timeout');
    assert.ok(Date.now() - started < 1000);
  });

  test('malformed replies fail at once with 502', async () => {
    const why: Record<string, RegExp> = {
      'loop.test': /pointer does not point backwards/,
      'pastend.test': /RDATA runs past the end/,
      'shorta.test': /address of the wrong length/,
      'badmx.test': /name runs past its RDATA/,
    };
    for (const [name, reason] of Object.entries(why)) {
      const started = Date.now();
      const error = await rejection(resolver(2000).query(name, name === 'badmx.test' ? typeCode.mx : typeCode.a));
      assert.equal(error.status, 502, `${name}: ${error.message}`);
      assert.equal(error.code, 'resolver_failed');
      assert.match(error.message, reason);
      assert.ok(Date.now() - started < 1000, `${name} waited for the timeout`);
    }
  });

  test('SERVFAIL and REFUSED are 502s naming the RCODE', async () => {
    for (const rcode of ['SERVFAIL', 'REFUSED']) {
      const error = await rejection(resolver().query(`${rcode.toLowerCase()}.test`, typeCode.a));
      assert.equal(error.status, 502);
      assert.equal(error.code, 'resolver_failed');
      assert.match(error.message, new RegExp(rcode));
    }
  });

  test('a truncated reply is asked again over TCP; garbage there is a 502', async () => {
    assert.deepEqual(await addressOf('trunc.test'), ['192.0.2.3']);
    const error = await rejection(resolver().query('tcpgarbage.test', typeCode.a));
    assert.equal(error.status, 502, error.message);
  });

  test('queries in flight are capped: over the cap, 429 at once', async () => {
    const capped = resolver(300, 2);
    const waiting = [capped.query('silent.test', typeCode.a), capped.query('silent.test', typeCode.a)].map((p) => p.catch((e: unknown) => e));
    const error = await rejection(capped.query('silent.test', typeCode.a));
    assert.equal(error.status, 429);
    assert.equal(((await waiting[0]) as ApiError).status, 504);
    await waiting[1];
    // The slots are free again once those end.
    assert.equal((await rejection(capped.query('silent.test', typeCode.a))).status, 504);
  });
});
