// The query file: dnsperf's binary input (-B, RFC 1035 TCP framing: a 2-byte length, then the message),
// so each query can carry its own EDNS options. Every query has EDNS (UDP size 1232, as resolvers
// send today); a share of them also carry EDNS Client Subnet. Seeded, so every run sends the same.
import packet from 'dns-packet';
import { benchZone, kindOf, type Kind } from './zone.ts';
import { seededRandom } from '../../test/support/prng.ts';

export interface Mix {
  /** A for a name with an A record. */
  a: number;
  /** AAAA for a dual-stack name. */
  aaaa: number;
  /** A for a CNAME name (the answer is the CNAME and the target's A). */
  cname: number;
  /** A for a name that does not exist. */
  nxdomain: number;
}

export const defaultMix: Mix = { a: 0.6, aaaa: 0.15, cname: 0.1, nxdomain: 0.15 };

/** Client subnets (/24) and the country the shipped GeoIP data puts them in. */
export const subnets = [
  { country: 'US', address: '8.8.8.0' },
  { country: 'DE', address: '193.99.144.0' },
  { country: 'JP', address: '133.242.0.0' }, // no record for JP: the default (plain) record
] as const;

export interface Query {
  name: string;
  type: 'A' | 'AAAA';
  /** The ECS address, when the query carries one. */
  subnet: string | undefined;
  kind: keyof Mix;
  /** The DO bit: a signed zone answers with signatures and proofs. */
  dnssecOk?: boolean;
}

export function generateQueries(names: number, count: number, ecsShare: number, seed = 1): Query[] {
  const next = seededRandom(seed);
  const byKind = new Map<Kind, number[]>([['a', []], ['dual', []], ['cname', []]]);
  for (let i = 0; i < names; i++) byKind.get(kindOf(i))!.push(i);
  const aNames = [...byKind.get('a')!, ...byKind.get('dual')!];
  const pick = (list: number[]) => list[Math.floor(next() * list.length)]!;
  const queries: Query[] = [];
  for (let q = 0; q < count; q++) {
    const r = next();
    let query: Omit<Query, 'subnet'>;
    if (r < defaultMix.a) query = { name: `host${pick(aNames)}.${benchZone}`, type: 'A', kind: 'a' };
    else if (r < defaultMix.a + defaultMix.aaaa) query = { name: `host${pick(byKind.get('dual')!)}.${benchZone}`, type: 'AAAA', kind: 'aaaa' };
    else if (r < defaultMix.a + defaultMix.aaaa + defaultMix.cname) query = { name: `host${pick(byKind.get('cname')!)}.${benchZone}`, type: 'A', kind: 'cname' };
    else query = { name: `nx${Math.floor(next() * 1e9)}.${benchZone}`, type: 'A', kind: 'nxdomain' };
    const subnet = next() < ecsShare ? subnets[Math.floor(next() * subnets.length)]!.address : undefined;
    queries.push({ ...query, subnet });
  }
  return queries;
}

export function encodeQuery(query: Query, id = 0): Buffer {
  return packet.encode({
    id,
    type: 'query',
    flags: 0, // RD clear: what a resolver sends to an authoritative server
    questions: [{ name: query.name, type: query.type, class: 'IN' }],
    additionals: [
      {
        type: 'OPT',
        name: '.',
        udpPayloadSize: 1232,
        extendedRcode: 0,
        ednsVersion: 0,
        flags: query.dnssecOk === true ? packet.DNSSEC_OK : 0,
        flag_do: query.dnssecOk === true,
        options: query.subnet === undefined ? [] : [{ code: 8, family: 1, sourcePrefixLength: 24, scopePrefixLength: 0, ip: query.subnet }],
      },
    ],
  });
}

/** The dnsperf -B file content. */
export function binaryQueryFile(queries: Query[]): Buffer {
  const parts: Buffer[] = [];
  for (const query of queries) {
    const message = encodeQuery(query);
    const length = Buffer.alloc(2);
    length.writeUInt16BE(message.length);
    parts.push(length, message);
  }
  return Buffer.concat(parts);
}
