// DNS messages as a stub client writes and reads them (RFC 1035 §4.1): one question out with an EDNS
// OPT record (RFC 6891), and a reply's header and sections back. Every read is bounds checked and
// anything malformed throws MessageError: a reply comes from the network and is never trusted.
import { canonicalWireName, readWireName } from '../wire/name.ts';
import { typeCode } from '../wire/type-codes.ts';

export class MessageError extends Error {}

const classIn = 1;

export interface ResourceRecord {
  /** Owner in the server's text form: lower case, no trailing dot ('' for the root). */
  name: string;
  type: number;
  ttl: number;
  /** Where the RDATA starts in the message (names inside it may point back into the message). */
  rdataOffset: number;
  rdataLength: number;
}

export interface Reply {
  /** The whole message, which RDATA offsets refer to. */
  bytes: Buffer;
  id: number;
  flags: number;
  rcode: number;
  truncated: boolean;
  question: { name: string; type: number } | undefined;
  answers: ResourceRecord[];
  authority: ResourceRecord[];
  additional: ResourceRecord[];
}

const flagQr = 0x8000;
const flagTc = 0x0200;
const flagRd = 0x0100;
/** The EDNS payload size we advertise: DNS Flag Day 2020's, which avoids IP fragmentation. */
export const udpPayloadSize = 1232;

/** A query for `name` (text form, no trailing dot) and `type`, recursion desired, with EDNS. */
export function encodeQuery(id: number, name: string, type: number): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(flagRd, 2);
  header.writeUInt16BE(1, 4); // one question
  header.writeUInt16BE(1, 10); // the OPT record
  const tail = Buffer.alloc(4 + 11);
  tail.writeUInt16BE(type, 0);
  tail.writeUInt16BE(classIn, 2);
  // OPT: root owner, type 41, class = payload size, TTL = extended RCODE/version/flags 0, no options.
  tail.writeUInt16BE(typeCode.opt, 5);
  tail.writeUInt16BE(udpPayloadSize, 7);
  return Buffer.concat([header, canonicalWireName(name), tail]);
}

/** Reads a possibly compressed name at `offset`; `next` is where the record goes on. */
export function readName(bytes: Buffer, offset: number): { name: string; next: number } {
  return readWireName(bytes, offset, MessageError);
}

function readRecords(bytes: Buffer, count: number, offset: number): { records: ResourceRecord[]; next: number } {
  const records: ResourceRecord[] = [];
  let position = offset;
  for (let i = 0; i < count; i++) {
    const { name, next } = readName(bytes, position);
    if (next + 10 > bytes.length) throw new MessageError('record header runs past the end of the message');
    const type = bytes.readUInt16BE(next);
    const ttl = bytes.readUInt32BE(next + 4);
    const rdataLength = bytes.readUInt16BE(next + 8);
    const rdataOffset = next + 10;
    if (rdataOffset + rdataLength > bytes.length) throw new MessageError('RDATA runs past the end of the message');
    // RFC 2181 §8: a TTL with the top bit set is read as zero.
    records.push({ name, type, ttl: ttl > 0x7fffffff ? 0 : ttl, rdataOffset, rdataLength });
    position = rdataOffset + rdataLength;
  }
  return { records, next: position };
}

export function decodeReply(bytes: Buffer): Reply {
  if (bytes.length < 12) throw new MessageError('message is shorter than its header');
  const flags = bytes.readUInt16BE(2);
  if ((flags & flagQr) === 0) throw new MessageError('message is not a response');
  const questions = bytes.readUInt16BE(4);
  if (questions > 1) throw new MessageError('response holds more than one question');
  let position = 12;
  let question: Reply['question'];
  if (questions === 1) {
    const { name, next } = readName(bytes, position);
    if (next + 4 > bytes.length) throw new MessageError('question runs past the end of the message');
    question = { name, type: bytes.readUInt16BE(next) };
    position = next + 4;
  }
  const answers = readRecords(bytes, bytes.readUInt16BE(6), position);
  const authority = readRecords(bytes, bytes.readUInt16BE(8), answers.next);
  const additional = readRecords(bytes, bytes.readUInt16BE(10), authority.next);
  return {
    bytes,
    id: bytes.readUInt16BE(0),
    flags,
    rcode: flags & 0xf,
    truncated: (flags & flagTc) !== 0,
    question,
    answers: answers.records,
    authority: authority.records,
    additional: additional.records.filter((r) => r.type !== typeCode.opt),
  };
}

/** The RDATA of a record, as a slice of its message. */
export function rdataOf(reply: Reply, record: ResourceRecord): Buffer {
  return reply.bytes.subarray(record.rdataOffset, record.rdataOffset + record.rdataLength);
}
