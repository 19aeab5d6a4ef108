// Replies kept whole by the response cache: which queries may be answered from them, what is taken
// from the query (ID, RD, CD, the question's letter case), what keeps them apart, and what drops them.
// The server as a whole (kept replies equal the parsing path's, byte for byte) is in
// test/e2e/dns-kept-replies.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import packet from 'dns-packet';
import { ResponseCache, type CachedAnswer } from '../../src/dns/server/response-cache.ts';
import { buildQuery, decode, type QueryOptions } from '../support/dns-client.ts';

const answer: CachedAnswer = { zone: 1, authoritative: true, truncated: false, rcode: 0, counts: [1, 0, 0], body: Buffer.alloc(0), ede: undefined };

/** A reply to `query` as the server would write it: the question echoed, one A record. */
function replyTo(query: Buffer, address = '192.0.2.1'): Buffer {
  const decoded = decode(query);
  const reply = packet.encode({
    type: 'response',
    id: decoded.id,
    flags: packet.AUTHORITATIVE_ANSWER | ((decoded.flags ?? 0) & (packet.RECURSION_DESIRED | packet.CHECKING_DISABLED)),
    questions: decoded.questions,
    answers: [{ type: 'A', name: decoded.questions?.[0]?.name ?? '', ttl: 300, data: address }],
    additionals: decoded.additionals,
  });
  // dns-packet writes its own question: put the query's back, byte for byte (0x20 case).
  query.copy(reply, 12, 12, 12 + questionLength(query));
  return reply;
}

function questionLength(message: Buffer): number {
  let at = 12;
  while (message[at] !== 0) at += 1 + (message[at] ?? 0);
  return at + 5 - 12;
}

/** What the parsing path does for an untailored answer: answers from the cache, then `learn`. */
function answerFromCache(cache: ResponseCache, query: Buffer, udp: boolean, address?: string): Buffer {
  assert.equal(cache.reply(query, udp), undefined);
  cache.set(`key ${String(Math.random())}`, answer);
  const reply = replyTo(query, address);
  cache.learn(reply);
  return reply;
}

const query = (name: string, options: QueryOptions = {}) => buildQuery(name, 'A', { udpSize: 1232, ...options });

test('a kept reply answers the same query with its ID, RD, CD and letter case', () => {
  const cache = new ResponseCache();
  cache.sync(1, 0);
  const first = query('www.example.test', { id: 1 });
  const learned = answerFromCache(cache, first, true);
  assert.deepEqual(cache.reply(first, true), learned);

  const again = query('WwW.ExAmPlE.TeSt', { id: 4242, recursionDesired: true });
  again[3] = (again[3] ?? 0) | 0x10;
  const reply = cache.reply(again, true);
  assert.ok(reply);
  assert.equal(reply.readUInt16BE(0), 4242);
  assert.equal(reply.readUInt16BE(2), 0x8000 | packet.AUTHORITATIVE_ANSWER | packet.RECURSION_DESIRED | packet.CHECKING_DISABLED);
  assert.deepEqual(reply.subarray(12, 12 + questionLength(again)), again.subarray(12, 12 + questionLength(again)));
  assert.deepEqual(reply.subarray(12 + questionLength(again)), learned.subarray(12 + questionLength(first)));
});

test('only replies the parsing path took from the cache are kept: tailored answers never are', () => {
  const cache = new ResponseCache();
  cache.sync(1, 0);
  const tailored = query('geo.example.test');
  assert.equal(cache.reply(tailored, true), undefined);
  cache.learn(replyTo(tailored));
  assert.equal(cache.reply(tailored, true), undefined);
});

test('queries with EDNS options (ECS), several records or compressed names always take the parsing path', () => {
  const cache = new ResponseCache();
  cache.sync(1, 0);
  const plain = query('www.example.test');
  answerFromCache(cache, plain, true);
  const variants: Buffer[] = [
    query('www.example.test', { subnet: { address: '192.0.2.0', prefix: 24 } }),
    Buffer.concat([plain, Buffer.from([0])]),
    plain.subarray(0, plain.length - 1),
  ];
  const twoQuestions = Buffer.from(plain);
  twoQuestions.writeUInt16BE(2, 4);
  variants.push(twoQuestions);
  const answerCount = Buffer.from(plain);
  answerCount.writeUInt16BE(1, 6);
  variants.push(answerCount);
  // The same question with its name as a pointer to itself.
  const pointer = Buffer.concat([plain.subarray(0, 12), Buffer.from([0xc0, 12]), plain.subarray(12 + questionLength(plain) - 4)]);
  variants.push(pointer);
  for (const [index, variant] of variants.entries()) {
    for (let round = 0; round < 2; round++) {
      assert.equal(cache.reply(variant, true), undefined, `variant ${String(index)}`);
      cache.set('k', answer);
      cache.learn(replyTo(plain));
    }
  }
});

test('transport, DO bit, payload size and EDNS presence keep replies apart', () => {
  const cache = new ResponseCache();
  cache.sync(1, 0);
  const name = 'www.example.test';
  const variants = [
    { bytes: query(name), udp: true },
    { bytes: query(name), udp: false },
    { bytes: query(name, { dnssecOk: true }), udp: true },
    { bytes: query(name, { udpSize: 4096 }), udp: true },
    { bytes: buildQuery(name, 'A'), udp: true },
    { bytes: buildQuery(name, 'AAAA', { udpSize: 1232 }), udp: true },
  ];
  const replies = variants.map((v, i) => answerFromCache(cache, v.bytes, v.udp, `192.0.2.${String(i + 1)}`));
  for (const [i, v] of variants.entries()) assert.deepEqual(cache.reply(v.bytes, v.udp), replies[i]);
});

test('a zone change drops kept replies', () => {
  const cache = new ResponseCache();
  cache.sync(1, 0);
  const q = query('www.example.test');
  answerFromCache(cache, q, true);
  cache.sync(1, 0);
  assert.ok(cache.reply(q, true));
  cache.sync(2, 0);
  assert.equal(cache.reply(q, true), undefined);
});

test('twenty thousand kept replies are all found again', () => {
  const cache = new ResponseCache();
  cache.sync(1, 0);
  const queries = Array.from({ length: 20_000 }, (_, i) => query(`host${String(i)}.example.test`));
  for (const q of queries) answerFromCache(cache, q, true);
  assert.equal(queries.filter((q) => cache.reply(q, true) === undefined).length, 0);
});

test('kept replies are bounded: the oldest are overwritten', () => {
  const cache = new ResponseCache();
  cache.sync(1, 0);
  const first = query('n0.example.test');
  answerFromCache(cache, first, true);
  // 1,100 replies of 8 KiB (TCP) fill more than the 8 MiB kept.
  const keep = (i: number) => {
    const q = query(`n${String(i)}.example.test`);
    assert.equal(cache.reply(q, false), undefined);
    cache.set(`n${String(i)}`, answer);
    cache.learn(Buffer.concat([replyTo(q), Buffer.alloc(8192)]));
  };
  for (let i = 1; i <= 1100; i++) keep(i);
  assert.equal(cache.reply(first, true), undefined);
  assert.equal(cache.reply(query('n1.example.test'), false), undefined);
  assert.equal(cache.reply(query('n1100.example.test'), false)?.length, replyTo(query('n1100.example.test')).length + 8192);
});
