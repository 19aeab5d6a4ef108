// Parsing a query off the wire (RFC 1035 §4, RFC 6891 EDNS, RFC 7871 ECS). Every read is bounds
// checked; anything malformed throws QueryError and the server answers FORMERR or drops it.
import { readWireName } from '../wire/name.ts';
import { typeCode } from '../wire/type-codes.ts';
import { cookieOption } from './cookies.ts';

export class QueryError extends Error {}

export interface ClientSubnet {
  family: 1 | 2;
  sourcePrefix: number;
  /** The address bytes as sent (source prefix rounded up to octets). */
  address: Buffer;
}

export interface Edns {
  udpSize: number;
  version: number;
  dnssecOk: boolean;
  /** CO, Compact Answers OK (RFC 9824 §4): the client takes NXDOMAIN with compact denial. */
  compactOk: boolean;
  clientSubnet: ClientSubnet | undefined;
  /** The ECS option was present but malformed: RFC 7871 §7.1.2 wants FORMERR. */
  badClientSubnet: boolean;
  /** The client asks for the server's identifier (RFC 5001). */
  nsid: boolean;
  /** DNS COOKIEs (RFC 7873): the client's 8 octets and, once it has one, our server cookie. */
  cookie: { client: Buffer; server: Buffer | undefined } | undefined;
  /** A COOKIE option of a length RFC 7873 §5.2.2 does not allow: FORMERR. */
  badCookie: boolean;
}

export interface Query {
  id: number;
  opcode: number;
  /** Header flags word as received (RD, CD are echoed). */
  flags: number;
  /** The question's name, lower case, no trailing dot ('' for the root). */
  name: string;
  qtype: number;
  qclass: number;
  /** The question section exactly as received, for the byte-for-byte echo (0x20 case). */
  questionBytes: Buffer;
  edns: Edns | undefined;
}

const ecsOption = 8;
const nsidOption = 3;

/** Reads a possibly compressed name; returns it (lower case) and the offset after it in place. */
export function readName(message: Buffer, start: number): { name: string; next: number } {
  return readWireName(message, start, QueryError);
}

function skipRecord(message: Buffer, start: number): number {
  const { next } = readName(message, start);
  if (next + 10 > message.length) throw new QueryError('truncated resource record');
  const rdlength = message.readUInt16BE(next + 8);
  const end = next + 10 + rdlength;
  if (end > message.length) throw new QueryError('RDATA runs past the message');
  return end;
}

function readClientSubnet(data: Buffer): ClientSubnet | undefined {
  if (data.length < 4) return undefined;
  const family = data.readUInt16BE(0);
  const sourcePrefix = data[2] ?? 0;
  const scopePrefix = data[3] ?? 0;
  const address = data.subarray(4);
  const maxPrefix = family === 1 ? 32 : family === 2 ? 128 : -1;
  // RFC 7871 §6: SCOPE must be 0 in queries; the address holds exactly ceil(source/8) octets.
  if (maxPrefix < 0 || sourcePrefix > maxPrefix || scopePrefix !== 0 || address.length !== Math.ceil(sourcePrefix / 8)) return undefined;
  return { family: family as 1 | 2, sourcePrefix, address: Buffer.from(address) };
}

function readOpt(message: Buffer, start: number): { edns: Edns; end: number } {
  const { name, next } = readName(message, start);
  if (name !== '') throw new QueryError('OPT owner must be the root');
  if (next + 10 > message.length) throw new QueryError('truncated OPT');
  const udpSize = message.readUInt16BE(next + 2);
  const version = message[next + 5] ?? 0;
  const dnssecOk = ((message[next + 6] ?? 0) & 0x80) !== 0;
  const compactOk = ((message[next + 6] ?? 0) & 0x40) !== 0;
  const rdlength = message.readUInt16BE(next + 8);
  const end = next + 10 + rdlength;
  if (end > message.length) throw new QueryError('OPT RDATA runs past the message');
  let clientSubnet: ClientSubnet | undefined;
  let badClientSubnet = false;
  let nsid = false;
  let cookie: Edns['cookie'];
  let badCookie = false;
  for (let at = next + 10; at < end; ) {
    if (at + 4 > end) throw new QueryError('truncated EDNS option');
    const code = message.readUInt16BE(at);
    const length = message.readUInt16BE(at + 2);
    if (at + 4 + length > end) throw new QueryError('EDNS option runs past OPT');
    if (code === ecsOption) {
      clientSubnet = readClientSubnet(message.subarray(at + 4, at + 4 + length));
      badClientSubnet = clientSubnet === undefined;
    }
    if (code === nsidOption) nsid = true;
    if (code === cookieOption) {
      // A client cookie is 8 octets; a server cookie after it 8 to 32 (RFC 7873 §4).
      if (length === 8 || (length >= 16 && length <= 40)) {
        const data = message.subarray(at + 4, at + 4 + length);
        cookie = { client: Buffer.from(data.subarray(0, 8)), server: length === 8 ? undefined : Buffer.from(data.subarray(8)) };
      } else badCookie = true;
    }
    at += 4 + length;
  }
  return { edns: { udpSize, version, dnssecOk, compactOk, clientSubnet, badClientSubnet, nsid, cookie, badCookie }, end };
}

/** Parses a query. Throws QueryError for malformed input (the header is then still usable). */
export function parseQuery(message: Buffer): Query {
  if (message.length < 12) throw new QueryError('shorter than a header');
  const id = message.readUInt16BE(0);
  const flags = message.readUInt16BE(2);
  const opcode = (flags >> 11) & 0xf;
  const qdcount = message.readUInt16BE(4);
  const ancount = message.readUInt16BE(6);
  const nscount = message.readUInt16BE(8);
  const arcount = message.readUInt16BE(10);
  if (qdcount !== 1) throw new QueryError('a query holds exactly one question');
  const { name, next } = readName(message, 12);
  if (next + 4 > message.length) throw new QueryError('truncated question');
  const qtype = message.readUInt16BE(next);
  const qclass = message.readUInt16BE(next + 2);
  const questionBytes = message.subarray(12, next + 4);
  let offset = next + 4;
  for (let i = 0; i < ancount + nscount; i++) offset = skipRecord(message, offset);
  let edns: Edns | undefined;
  for (let i = 0; i < arcount; i++) {
    const { next: typeAt } = readName(message, offset);
    if (typeAt + 2 <= message.length && message.readUInt16BE(typeAt) === typeCode.opt) {
      if (edns !== undefined) throw new QueryError('more than one OPT record');
      const opt = readOpt(message, offset);
      edns = opt.edns;
      offset = opt.end;
    } else {
      offset = skipRecord(message, offset);
    }
  }
  return { id, opcode, flags, name, qtype, qclass, questionBytes, edns };
}
