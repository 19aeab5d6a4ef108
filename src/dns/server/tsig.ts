// TSIG (RFC 8945): shared-key HMAC signatures on zone transfers and NOTIFY, with the keys of
// EDGEPLANE_DNS_TSIG_KEYS. A transfer request must carry a valid signature by one of them; every
// message of the transfer is signed in turn, each MAC chained to the one before (§5.3.1).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalWireName } from '../wire/name.ts';
import { typeCode } from '../wire/type-codes.ts';
import { readName } from './query.ts';

export interface TsigKey {
  /** Lower case, no trailing dot. */
  name: string;
  algorithm: 'hmac-sha256' | 'hmac-sha512';
  secret: Buffer;
}

const classAny = 255;
const fudgeSeconds = 300;
export const tsigError = { badSig: 16, badKey: 17, badTime: 18 } as const;
const hashOf = { 'hmac-sha256': 'sha256', 'hmac-sha512': 'sha512' } as const;

/** `name:algorithm:base64-secret` → a key; throws a message naming what is wrong. */
export function parseTsigKey(text: string): TsigKey {
  const [name = '', algorithm = '', secret = ''] = text.split(':');
  if (!/^[a-z0-9][a-z0-9._-]*$/i.test(name)) throw new Error(`"${name}" is not a key name`);
  if (algorithm !== 'hmac-sha256' && algorithm !== 'hmac-sha512') throw new Error(`key ${name}: algorithm must be hmac-sha256 or hmac-sha512`);
  const bytes = Buffer.from(secret, 'base64');
  if (bytes.length < 16) throw new Error(`key ${name}: the secret must be base64 of at least 16 octets`);
  return { name: name.toLowerCase().replace(/\.$/, ''), algorithm, secret: bytes };
}

export interface SignedRequest {
  key: TsigKey;
  /** The request's MAC: the first reply's MAC covers it. */
  mac: Buffer;
}

export type Verification = { ok: true; request: SignedRequest } | { ok: false; error: number; keyName: string } | { ok: false; error: undefined };

interface TsigRecord {
  /** Where the TSIG record starts: the message before it is what was signed. */
  start: number;
  keyName: string;
  algorithm: string;
  timeSigned: number;
  fudge: number;
  mac: Buffer;
  originalId: number;
  error: number;
  other: Buffer;
}

/** The TSIG record ending the message (the last additional record), if there is one. */
function findTsig(message: Buffer): TsigRecord | undefined {
  const counts = [message.readUInt16BE(4), message.readUInt16BE(6), message.readUInt16BE(8), message.readUInt16BE(10)];
  let at = 12;
  for (let i = 0; i < (counts[0] ?? 0); i++) at = readName(message, at).next + 4;
  const records = (counts[1] ?? 0) + (counts[2] ?? 0) + (counts[3] ?? 0);
  let last = -1;
  for (let i = 0; i < records; i++) {
    last = at;
    const { next } = readName(message, at);
    at = next + 10 + message.readUInt16BE(next + 8);
  }
  if (last < 0 || (counts[3] ?? 0) === 0) return undefined;
  const { name: keyName, next } = readName(message, last);
  if (message.readUInt16BE(next) !== typeCode.tsig) return undefined;
  const rdata = next + 10;
  const { name: algorithm, next: afterAlgorithm } = readName(message, rdata);
  const timeSigned = message.readUIntBE(afterAlgorithm, 6);
  const fudge = message.readUInt16BE(afterAlgorithm + 6);
  const macSize = message.readUInt16BE(afterAlgorithm + 8);
  const mac = message.subarray(afterAlgorithm + 10, afterAlgorithm + 10 + macSize);
  const after = afterAlgorithm + 10 + macSize;
  const otherSize = message.readUInt16BE(after + 4);
  return { start: last, keyName, algorithm, timeSigned, fudge, mac, originalId: message.readUInt16BE(after), error: message.readUInt16BE(after + 2), other: message.subarray(after + 6, after + 6 + otherSize) };
}

/** TSIG variables (§4.3.3): key name, class, TTL, algorithm, times, error, other data. */
function variables(key: TsigKey, timeSigned: number, fudge: number, error: number, other: Buffer): Buffer {
  const name = canonicalWireName(key.name);
  const algorithm = canonicalWireName(key.algorithm);
  const fixed = Buffer.alloc(2 + 4 + 6 + 2 + 2 + 2);
  fixed.writeUInt16BE(classAny, 0);
  fixed.writeUInt32BE(0, 2);
  fixed.writeUIntBE(timeSigned, 6, 6);
  fixed.writeUInt16BE(fudge, 12);
  fixed.writeUInt16BE(error, 14);
  fixed.writeUInt16BE(other.length, 16);
  return Buffer.concat([name, fixed.subarray(0, 6), algorithm, fixed.subarray(6), other]);
}

/** The message as it was before its TSIG record was added: without it, ARCOUNT one less, the original ID. */
function unsigned(message: Buffer, record: TsigRecord): Buffer {
  const copy = Buffer.from(message.subarray(0, record.start));
  copy.writeUInt16BE(record.originalId, 0);
  copy.writeUInt16BE(copy.readUInt16BE(10) - 1, 10);
  return copy;
}

const hmac = (key: TsigKey, parts: Buffer[]) => {
  const h = createHmac(hashOf[key.algorithm], key.secret);
  for (const part of parts) h.update(part);
  return h.digest();
};

const macLength = (mac: Buffer) => {
  const size = Buffer.alloc(2);
  size.writeUInt16BE(mac.length);
  return size;
};

/**
 * Checks a request's TSIG against `keys`. `error: undefined`: the request has no TSIG at all (or
 * one that cannot be read); otherwise the RFC 8945 error to answer with.
 */
export function verifyRequest(message: Buffer, keys: readonly TsigKey[], now = Date.now()): Verification {
  let record: TsigRecord | undefined;
  try {
    record = findTsig(message);
  } catch {
    return { ok: false, error: undefined };
  }
  if (record === undefined) return { ok: false, error: undefined };
  const key = keys.find((k) => k.name === record.keyName && k.algorithm === record.algorithm);
  if (key === undefined) return { ok: false, error: tsigError.badKey, keyName: record.keyName };
  const expected = hmac(key, [unsigned(message, record), variables(key, record.timeSigned, record.fudge, record.error, record.other)]);
  if (record.mac.length !== expected.length || !timingSafeEqual(record.mac, expected)) return { ok: false, error: tsigError.badSig, keyName: key.name };
  if (Math.abs(Math.floor(now / 1000) - record.timeSigned) > record.fudge) return { ok: false, error: tsigError.badTime, keyName: key.name };
  return { ok: true, request: { key, mac: Buffer.from(record.mac) } };
}

/** The TSIG record for a message: key name, type, class, TTL, RDATA. */
function tsigRecord(key: TsigKey, id: number, timeSigned: number, mac: Buffer, error: number): Buffer {
  const algorithm = canonicalWireName(key.algorithm);
  const rdata = Buffer.alloc(algorithm.length + 10 + mac.length + 6);
  algorithm.copy(rdata, 0);
  let at = algorithm.length;
  rdata.writeUIntBE(timeSigned, at, 6);
  rdata.writeUInt16BE(fudgeSeconds, at + 6);
  rdata.writeUInt16BE(mac.length, at + 8);
  mac.copy(rdata, at + 10);
  at += 10 + mac.length;
  rdata.writeUInt16BE(id, at);
  rdata.writeUInt16BE(error, at + 2);
  rdata.writeUInt16BE(0, at + 4);
  const head = Buffer.alloc(10);
  head.writeUInt16BE(typeCode.tsig, 0);
  head.writeUInt16BE(classAny, 2);
  head.writeUInt32BE(0, 4);
  head.writeUInt16BE(rdata.length, 8);
  return Buffer.concat([canonicalWireName(key.name), head, rdata]);
}

/** `message` with its TSIG record appended and ARCOUNT raised. */
export function appendTsig(message: Buffer, record: Buffer): Buffer {
  const out = Buffer.concat([message, record]);
  out.writeUInt16BE(out.readUInt16BE(10) + 1, 10);
  return out;
}

/**
 * Signs the messages of one reply in order, each as it is asked for: the first over the request's
 * MAC, each next over the MAC before it with only the timers as variables (RFC 8945 §5.3.1).
 */
export function* signReplies(messages: Iterable<Buffer>, request: SignedRequest, now = Date.now()): Generator<Buffer> {
  const timeSigned = Math.floor(now / 1000);
  let prior = request.mac;
  let index = 0;
  for (const message of messages) {
    const timers = Buffer.alloc(8);
    timers.writeUIntBE(timeSigned, 0, 6);
    timers.writeUInt16BE(fudgeSeconds, 6);
    const mac = hmac(request.key, [macLength(prior), prior, message, index === 0 ? variables(request.key, timeSigned, fudgeSeconds, 0, Buffer.alloc(0)) : timers]);
    prior = mac;
    index++;
    yield appendTsig(message, tsigRecord(request.key, message.readUInt16BE(0), timeSigned, mac, 0));
  }
}

/** A request signed with `key` (NOTIFY): the MAC over the message and the variables. */
export function signRequest(message: Buffer, key: TsigKey, now = Date.now()): Buffer {
  const timeSigned = Math.floor(now / 1000);
  const mac = hmac(key, [message, variables(key, timeSigned, fudgeSeconds, 0, Buffer.alloc(0))]);
  return appendTsig(message, tsigRecord(key, message.readUInt16BE(0), timeSigned, mac, 0));
}

/** An unsigned TSIG record carrying an error (BADKEY, BADSIG: the reply cannot be signed), §5.3.2. */
export function errorRecord(keyName: string, algorithm: TsigKey['algorithm'], id: number, error: number, now = Date.now()): Buffer {
  return tsigRecord({ name: keyName, algorithm, secret: Buffer.alloc(0) }, id, Math.floor(now / 1000), Buffer.alloc(0), error);
}

