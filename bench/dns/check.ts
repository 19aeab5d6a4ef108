// Before measuring, a sample of the query file is asked one by one and each server's answers are
// compared with what the generated zone says they must be: a server answering something else (an
// error, a truncated or empty answer) would otherwise look fast.
import type packet from 'dns-packet';
import { ask, rcodeOf } from './dns-client.ts';
import { encodeQuery, subnets, type Query } from './queries.ts';
import { address4, address6, benchZone, cnameTarget, geoAnswers, hasPickers, kindOf } from './zone.ts';

/** IPv6 in one spelling (WHATWG's, RFC 5952), so differently compressed forms compare equal. */
function normalAddress(text: string): string {
  return text.includes(':') ? (URL.parse(`http://[${text}]/`)?.hostname.slice(1, -1) ?? text) : text;
}

/** rcode, AA and the answer records as sorted text: what must match for one query. */
export function describeAnswer(reply: packet.DecodedPacket | undefined): string {
  if (reply === undefined) return 'no reply';
  const answers = (reply.answers ?? []).map((a) => {
    const data = 'data' in a && typeof a.data === 'string' ? a.data.toLowerCase().replace(/\.$/, '') : '?';
    return `${a.name.toLowerCase()} ${a.type} ${a.type === 'AAAA' ? normalAddress(data) : data}`;
  });
  const aa = ((reply.flags ?? 0) & (1 << 10)) !== 0;
  return `${rcodeOf(reply)}${aa ? ' aa' : ''}: ${answers.sort().join(', ')}`;
}

/** The answer the generated zone calls for; `pickers`: the geodns variant (edgeplane in scenario 2). */
export function expectedAnswer(query: Query, pickers: boolean): string {
  const match = /^host(\d+)\./.exec(query.name);
  if (match === null) return 'NXDOMAIN aa: ';
  const i = Number(match[1]);
  const country = subnets.find((s) => s.address === query.subnet)?.country;
  const a = (n: number) => {
    const geo = pickers && hasPickers(n) && (country === 'US' || country === 'DE') ? geoAnswers[country](n) : address4(n);
    return `host${n}.${benchZone} A ${geo}`;
  };
  if (query.type === 'AAAA') return `NOERROR aa: host${i}.${benchZone} AAAA ${normalAddress(address6(i))}`;
  if (kindOf(i) === 'cname') {
    const target = cnameTarget(i);
    return `NOERROR aa: ${[`host${i}.${benchZone} CNAME host${target}.${benchZone}`, a(target)].sort().join(', ')}`;
  }
  return `NOERROR aa: ${a(i)}`;
}

export interface CheckResult {
  checked: number;
  /** "query: got … expected …", the first few. */
  mismatches: string[];
  mismatchCount: number;
}

export async function checkAnswers(port: number, sample: Query[], pickers: boolean): Promise<CheckResult> {
  const mismatches: string[] = [];
  let mismatchCount = 0;
  for (const [index, query] of sample.entries()) {
    const got = describeAnswer(await ask(port, encodeQuery(query, index & 0xffff)));
    const want = expectedAnswer(query, pickers);
    if (got === want) continue;
    mismatchCount++;
    if (mismatches.length < 3) mismatches.push(`${query.name} ${query.type}${query.subnet === undefined ? '' : ` ECS ${query.subnet}/24`}: got "${got}", expected "${want}"`);
  }
  return { checked: sample.length, mismatches, mismatchCount };
}
