// RDATA read off the wire into the fields the API shows, in presentation form (names fully qualified
// with their trailing dot, TXT and CAA values quoted, DS digests in upper-case hex): for the types the lookup offers and those
// an answer to them may carry (CNAME). Other types come out in RFC 3597's generic form.
import ipaddr from 'ipaddr.js';
import { quoteOctets } from '../rrtypes/presentation-text.ts';
import { typeCode } from '../wire/type-codes.ts';
import { MessageError, rdataOf, readName, type Reply, type ResourceRecord } from './message.ts';

/** The owner or a name in RDATA, as presentation text: `www.example.com.`, `.` for the root. */
export const presentationName = (name: string): string => (name === '' ? '.' : `${name}.`);

function nameAt(reply: Reply, offset: number, end: number): { name: string; next: number } {
  const read = readName(reply.bytes, offset);
  if (read.next > end) throw new MessageError('name runs past its RDATA');
  return read;
}

function need(data: Buffer, length: number): void {
  if (data.length < length) throw new MessageError('RDATA is too short for its type');
}

/** TXT: its character-strings (RFC 1035 §3.3.14), each quoted as a zone file writes it. */
function characterStrings(data: Buffer): string[] {
  const strings: string[] = [];
  for (let i = 0; i < data.length; ) {
    const length = data[i] ?? 0;
    if (i + 1 + length > data.length) throw new MessageError('character-string runs past its RDATA');
    strings.push(quoteOctets(data.subarray(i + 1, i + 1 + length)));
    i += 1 + length;
  }
  return strings;
}

/** One record's RDATA as its fields, as strings. Throws MessageError for RDATA its type cannot hold. */
export function rdataFields(reply: Reply, record: ResourceRecord): string[] {
  const data = rdataOf(reply, record);
  const end = record.rdataOffset + record.rdataLength;
  switch (record.type) {
    case typeCode.a:
    case typeCode.aaaa: {
      if (data.length !== (record.type === typeCode.a ? 4 : 16)) throw new MessageError('address of the wrong length');
      return [ipaddr.fromByteArray([...data]).toString()];
    }
    case typeCode.ns:
    case typeCode.cname:
    case typeCode.ptr:
      return [presentationName(nameAt(reply, record.rdataOffset, end).name)];
    case typeCode.mx: {
      need(data, 3);
      return [String(data.readUInt16BE(0)), presentationName(nameAt(reply, record.rdataOffset + 2, end).name)];
    }
    case typeCode.srv: {
      need(data, 7);
      const target = nameAt(reply, record.rdataOffset + 6, end).name;
      return [String(data.readUInt16BE(0)), String(data.readUInt16BE(2)), String(data.readUInt16BE(4)), presentationName(target)];
    }
    case typeCode.txt:
      return characterStrings(data);
    case typeCode.caa: {
      need(data, 2);
      const tagLength = data[1] ?? 0;
      need(data, 2 + tagLength);
      return [String(data[0]), data.toString('latin1', 2, 2 + tagLength), quoteOctets(data.subarray(2 + tagLength))];
    }
    case typeCode.ds: {
      need(data, 5);
      return [String(data.readUInt16BE(0)), String(data[2]), String(data[3]), data.toString('hex', 4).toUpperCase()];
    }
    case typeCode.soa: {
      const mname = nameAt(reply, record.rdataOffset, end);
      const rname = nameAt(reply, mname.next, end);
      if (rname.next + 20 !== end) throw new MessageError('SOA RDATA of the wrong length');
      const numbers = [0, 4, 8, 12, 16].map((at) => String(reply.bytes.readUInt32BE(rname.next + at)));
      return [presentationName(mname.name), presentationName(rname.name), ...numbers];
    }
    default:
      return ['\\#', String(data.length), ...(data.length > 0 ? [data.toString('hex').toUpperCase()] : [])];
  }
}
