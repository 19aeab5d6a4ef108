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

/**
 * What a signed answer must hold beyond the unsigned one: an RRSIG for every RRset of the answer, and
 * for a negative answer an NSEC with its RRSIG. Undefined when it does; otherwise what is missing.
 */
function missingSignatures(reply: packet.DecodedPacket): string | undefined {
  const answers = reply.answers ?? [];
  const covered = new Set(answers.filter((a) => a.type === 'RRSIG').map((a) => (a as { data: { typeCovered: string } }).data.typeCovered));
  const unsigned = [...new Set(answers.filter((a) => a.type !== 'RRSIG').map((a) => a.type))].filter((t) => !covered.has(t));
  if (unsigned.length > 0) return `unsigned ${unsigned.join(' ')}`;
  const authority = (reply.authorities ?? []).map((a) => a.type);
  if (answers.length === 0 && !(authority.includes('NSEC') && authority.includes('RRSIG'))) return 'no NSEC proof';
  return undefined;
}

/** A compact denial (RFC 9824): NOERROR with an NSEC whose bitmap has NXNAME (type 128). */
function isCompactDenial(reply: packet.DecodedPacket): boolean {
  return (reply.answers ?? []).length === 0 && (reply.authorities ?? []).some((a) => a.type === 'NSEC' && (a as { data: { rrtypes: string[] } }).data.rrtypes.includes('UNKNOWN_128'));
}

/** rcode, AA and the answer records as sorted text: what must match for one query. `signed`: signatures required, not listed. */
export function describeAnswer(reply: packet.DecodedPacket | undefined, signed = false): string {
  if (reply === undefined) return 'no reply';
  if (signed) {
    const missing = missingSignatures(reply);
    if (missing !== undefined) return missing;
  }
  const answers = (reply.answers ?? []).filter((a) => a.type !== 'RRSIG').map((a) => {
    const data = 'data' in a && typeof a.data === 'string' ? a.data.toLowerCase().replace(/\.$/, '') : '?';
    return `${a.name.toLowerCase()} ${a.type} ${a.type === 'AAAA' ? normalAddress(data) : data}`;
  });
  const aa = ((reply.flags ?? 0) & (1 << 10)) !== 0;
  const rcode = signed && isCompactDenial(reply) ? 'NXDOMAIN' : rcodeOf(reply);
  return `${rcode}${aa ? ' aa' : ''}: ${answers.sort().join(', ')}`;
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
    const got = describeAnswer(await ask(port, encodeQuery(query, index & 0xffff)), query.dnssecOk === true);
    const want = expectedAnswer(query, pickers);
    if (got === want) continue;
    mismatchCount++;
    if (mismatches.length < 3) mismatches.push(`${query.name} ${query.type}${query.subnet === undefined ? '' : ` ECS ${query.subnet}/24`}: got "${got}", expected "${want}"`);
  }
  return { checked: sample.length, mismatches, mismatchCount };
}
