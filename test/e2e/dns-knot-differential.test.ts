// Our authoritative DNS server against Knot DNS: one zone built through our API, exported, loaded
// into knotd, and the same query bytes sent to both. Per pair we compare the RCODE (with the EDNS
// extended bits), AA and TC, the question section byte for byte, OPT (version, DO, payload size),
// and per section the set of (owner lower-cased, type, class, TTL, RDATA); order inside a section
// is free. Where the two legitimately differ, the case says why and leaves out only that aspect.
// DIFF_DUMP=1 prints both summaries of every case.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import packet from 'dns-packet';
import { tcpExchange, udpExchange } from '../support/dns-client.ts';
import { dnsClient } from '../support/dns-records.ts';
import { bearer, call, login } from '../support/http.ts';
import { onPath, startKnot, type Knot } from '../support/knot.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';

const zone = 'diff.test';
const knotd = onPath('knotd');
const ci = process.env['CI'] !== undefined && process.env['CI'] !== '';
if (knotd === undefined && !ci) {
  console.error(
    '\n**********************************************************************\n' +
      '* knotd (Debian package "knot") is not installed: the Knot DNS       *\n' +
      '* differential suite is SKIPPED. Install it to run these tests.      *\n' +
      '**********************************************************************\n',
  );
}

interface QueryCase {
  label: string;
  name: string;
  /** A type name dns-packet knows, or a number. */
  type: string | number;
  qclass?: number;
  opcode?: number;
  /** EDNS: payload size, DO bit, version. Absent: no OPT. */
  edns?: { size: number; do?: boolean; version?: number };
  tcp?: boolean;
  /** Aspects not compared, each with the reason in a comment where the case is listed. */
  ignore?: Aspect[];
  /** With 'answer' ignored: Knot's answer must still be a subset of ours. */
  answerCoversKnot?: boolean;
  /** A known difference that is our bug: reported, not failed. */
  todo?: string;
}

type Aspect = 'rcode' | 'aa' | 'tc' | 'question' | 'opt' | 'answer' | 'authority' | 'additional';

/** The query's bytes: built by dns-packet, then qtype, qclass and opcode set on the wire. */
function queryBytes(c: QueryCase, id: number): Buffer {
  const additionals = c.edns
    ? [{ type: 'OPT', name: '.', udpPayloadSize: c.edns.size, ednsVersion: c.edns.version ?? 0, flags: c.edns.do === true ? packet.DNSSEC_OK : 0, options: [] } as unknown as packet.Answer]
    : [];
  const bytes = packet.encode({ type: 'query', id, flags: 0, questions: [{ name: c.name, type: 'A', class: 'IN' }], additionals });
  const nameEnd = endOfName(bytes, 12);
  bytes.writeUInt16BE(typeof c.type === 'number' ? c.type : typeNumber(c.type), nameEnd);
  bytes.writeUInt16BE(c.qclass ?? 1, nameEnd + 2);
  if (c.opcode !== undefined) bytes.writeUInt16BE((bytes.readUInt16BE(2) & ~0x7800) | (c.opcode << 11), 2);
  return bytes;
}

/** The offset after an uncompressed name (question names are never compressed). */
function endOfName(message: Buffer, start: number): number {
  let at = start;
  while ((message[at] ?? 0) !== 0) at += 1 + (message[at] ?? 0);
  return at + 1;
}

function typeNumber(name: string): number {
  const probe = packet.encode({ type: 'query', id: 0, flags: 0, questions: [{ name: 'x', type: name as packet.RecordType, class: 'IN' }] });
  return probe.readUInt16BE(12 + 3);
}

interface Summary {
  rcode: number;
  aa: boolean;
  tc: boolean;
  question: string;
  opt: string;
  answer: string[];
  authority: string[];
  additional: string[];
}

/** Types whose RDATA holds names: compared without case (Knot compresses them against the 0x20 question). */
const nameTypes = new Set(['CNAME', 'NS', 'PTR', 'MX', 'SRV', 'SOA', 'DNAME']);

function canonical(record: packet.Answer): string {
  const json = JSON.stringify((record as { data?: unknown }).data ?? null, (_key, value: unknown) => {
    if (value !== null && typeof value === 'object' && (value as { type?: unknown }).type === 'Buffer') {
      return Buffer.from((value as { data: number[] }).data).toString('hex');
    }
    return value;
  });
  const data = nameTypes.has(record.type) ? json.toLowerCase() : json;
  return `${record.name.toLowerCase()} ${record.type} ${(record as { class?: string }).class ?? ''} ${(record as { ttl?: number }).ttl ?? ''} ${data}`;
}

function summarize(reply: Buffer): Summary {
  const decoded = packet.decode(reply);
  const flags = reply.readUInt16BE(2);
  const opt = (decoded.additionals ?? []).find((r) => r.type === 'OPT') as { extendedRcode: number; ednsVersion: number; flags: number; udpPayloadSize: number } | undefined;
  // The end of the question section: decode the one name, then qtype and qclass.
  let question = '';
  if (reply.readUInt16BE(4) === 1) {
    const end = endOfName(reply, 12) + 4;
    question = reply.subarray(12, end).toString('hex');
  }
  return {
    rcode: (flags & 0xf) | ((opt?.extendedRcode ?? 0) << 4),
    aa: (flags & 0x0400) !== 0,
    tc: (flags & 0x0200) !== 0,
    question,
    opt: opt === undefined ? 'none' : `version ${opt.ednsVersion} DO ${(opt.flags & packet.DNSSEC_OK) !== 0} payload ${opt.udpPayloadSize}`,
    answer: (decoded.answers ?? []).map(canonical).sort(),
    authority: (decoded.authorities ?? []).map(canonical).sort(),
    additional: (decoded.additionals ?? []).filter((r) => r.type !== 'OPT').map(canonical).sort(),
  };
}

async function exchange(port: number, bytes: Buffer, tcp: boolean): Promise<Buffer> {
  if (!tcp) return udpExchange(port, bytes);
  const [reply] = await tcpExchange(port, [bytes]);
  if (reply === undefined) throw new Error('no TCP answer');
  return reply;
}

const aspects: Aspect[] = ['rcode', 'aa', 'tc', 'question', 'opt', 'answer', 'authority', 'additional'];

function differences(knot: Summary, ours: Summary, ignore: Aspect[] = []): string[] {
  const out: string[] = [];
  for (const aspect of aspects) {
    if (ignore.includes(aspect)) continue;
    const k = knot[aspect];
    const o = ours[aspect];
    if (JSON.stringify(k) === JSON.stringify(o)) continue;
    if (Array.isArray(k) && Array.isArray(o)) {
      const onlyKnot = k.filter((x) => !o.includes(x));
      const onlyOurs = o.filter((x) => !k.includes(x));
      out.push(`${aspect}: only Knot [${onlyKnot.join(' | ')}], only ours [${onlyOurs.join(' | ')}]`);
    } else {
      out.push(`${aspect}: Knot ${JSON.stringify(k)}, ours ${JSON.stringify(o)}`);
    }
  }
  return out;
}

const longText = 'x'.repeat(300);
const n = (label: string) => (label === '' ? zone : `${label}.${zone}`);

const cases: QueryCase[] = [
  // The apex.
  { label: 'apex SOA', name: zone, type: 'SOA' },
  { label: 'apex NS (addresses of in-zone name servers in additional)', name: zone, type: 'NS' },
  { label: 'apex A', name: zone, type: 'A' },
  { label: 'apex AAAA', name: zone, type: 'AAAA' },
  { label: 'apex MX (exchange addresses in additional)', name: zone, type: 'MX' },
  { label: 'apex TXT', name: zone, type: 'TXT' },
  { label: 'apex CAA', name: zone, type: 'CAA' },
  { label: 'apex DS (no parent hosted: NODATA from the zone)', name: zone, type: 'DS' },
  { label: 'apex PTR (NODATA)', name: zone, type: 'PTR' },
  // Plain names.
  { label: 'www A', name: n('www'), type: 'A' },
  { label: 'www AAAA (NODATA)', name: n('www'), type: 'AAAA' },
  { label: 'in-zone name server A', name: n('ns1'), type: 'A' },
  { label: 'TXT longer than 255 octets', name: n('long'), type: 'TXT' },
  { label: 'SRV (target address in additional)', name: n('_sip._tcp'), type: 'SRV' },
  { label: 'unknown qtype 65280 at an existing name (NODATA)', name: n('www'), type: 65280 },
  { label: 'NXDOMAIN below an existing name', name: n('nope.www'), type: 'A' },
  { label: 'NXDOMAIN with an unknown qtype', name: n('nope.www'), type: 65280 },
  // CNAMEs.
  { label: 'CNAME chain of 3 to an A', name: n('chain1'), type: 'A' },
  { label: 'CNAME chain asked for CNAME', name: n('chain1'), type: 'CNAME' },
  { label: 'CNAME chain ending in NODATA', name: n('chain1'), type: 'AAAA' },
  { label: 'CNAME chain to an MX', name: n('chain3'), type: 'MX' },
  { label: 'CNAME to an external name', name: n('ext'), type: 'A' },
  { label: 'CNAME loop a → b → a', name: n('loop-a'), type: 'A' },
  { label: 'CNAME to a name that does not exist (NXDOMAIN, RFC 6604)', name: n('dangle'), type: 'A' },
  { label: 'CNAME to a wildcard', name: n('to-wild'), type: 'A' },
  { label: 'CNAME into the delegation', name: n('to-sub'), type: 'A' },
  { label: 'NXDOMAIN below a CNAME', name: n('x.chain1'), type: 'A' },
  // Difference: chain length. Knot stops after 5 CNAMEs, we after 16 (the resolver follows the rest
  // either way); Knot's part of the chain must be a prefix of ours. Without EDNS our 16 CNAMEs
  // (names in RDATA uncompressed) no longer fit 512 octets and we answer TC; Knot's 5 fit.
  { label: 'CNAME chain of 20', name: n('hop1'), type: 'A', edns: { size: 1232 }, ignore: ['answer'], answerCoversKnot: true },
  { label: 'wildcard CNAME', name: n('foo.wc'), type: 'A' },
  { label: 'wildcard CNAME asked for CNAME', name: n('foo.wc'), type: 'CNAME' },
  { label: 'a 250-octet name that does not exist', name: n(Array.from({ length: 4 }, () => 'a'.repeat(59)).join('.')), type: 'A' },
  // Wildcards.
  { label: 'wildcard A', name: n('anything.wild'), type: 'A' },
  { label: 'wildcard TXT', name: n('anything.wild'), type: 'TXT' },
  { label: 'wildcard NODATA', name: n('anything.wild'), type: 'AAAA' },
  { label: 'wildcard covering two labels', name: n('a.b.wild'), type: 'A' },
  { label: 'the wildcard owner itself', name: n('*.wild'), type: 'A' },
  { label: 'existing name under the wildcard', name: n('exists.wild'), type: 'A' },
  { label: 'existing name under the wildcard, NODATA (no wildcard)', name: n('exists.wild'), type: 'TXT' },
  { label: 'NXDOMAIN below the existing name under the wildcard', name: n('below.exists.wild'), type: 'A' },
  { label: 'apex wildcard A', name: n('random'), type: 'A' },
  { label: 'apex wildcard NODATA', name: n('random'), type: 'MX' },
  // Empty non-terminals.
  { label: 'ENT (NODATA)', name: n('ent'), type: 'A' },
  { label: 'name under the ENT', name: n('x.ent'), type: 'A' },
  { label: 'ENT blocks the apex wildcard (NXDOMAIN)', name: n('y.ent'), type: 'A' },
  // The delegation.
  { label: 'NS at the cut (referral)', name: n('sub'), type: 'NS' },
  { label: 'A at the cut (referral)', name: n('sub'), type: 'A' },
  { label: 'below the cut (referral)', name: n('host.sub'), type: 'A' },
  { label: 'the glue name (referral)', name: n('ns.sub'), type: 'A' },
  { label: 'DS at the cut (answered by the parent)', name: n('sub'), type: 'DS' },
  { label: 'DS below the cut (referral)', name: n('host.sub'), type: 'DS' },
  { label: 'SOA at the cut (referral)', name: n('sub'), type: 'SOA' },
  // Difference: in a truncated answer Knot keeps what fit (here the NS RRset and one glue record);
  // we send the question alone. Both set TC, and a client discards the rest (RFC 2181 §9).
  { label: 'referral with 16 in-domain NS: glue does not fit 512 octets', name: n('www.bigsub'), type: 'A', ignore: ['authority', 'additional'] },
  // Difference: Knot compresses the names inside NS RDATA (and glue owners against them), so this
  // referral fits 1232 octets (about 1,200); we write RDATA names uncompressed (about 1,950 octets)
  // and answer TC with the question alone. Correct, but it costs the resolver a TCP retry.
  { label: 'referral with 16 in-domain NS, EDNS 1232', name: n('www.bigsub'), type: 'A', edns: { size: 1232 }, ignore: ['tc', 'authority', 'additional'] },
  { label: 'referral with 16 in-domain NS over TCP', name: n('www.bigsub'), type: 'A', tcp: true },
  { label: 'DS at a cut without DS (NODATA from the parent)', name: n('nods'), type: 'DS' },
  { label: 'MX whose exchange lies below a cut (its glue in additional)', name: n('mxsub'), type: 'MX' },
  { label: 'SRV whose target is a CNAME', name: n('_cname._tcp'), type: 'SRV' },
  // Truncation.
  { label: '40 A without EDNS: TC', name: n('big'), type: 'A' },
  { label: '40 A with EDNS 1232: fits', name: n('big'), type: 'A', edns: { size: 1232 } },
  { label: '100 A with EDNS 1232: TC', name: n('huge'), type: 'A', edns: { size: 1232 } },
  { label: '100 A with EDNS 4096: capped at 1232, TC', name: n('huge'), type: 'A', edns: { size: 4096 } },
  { label: '40 A with EDNS 512', name: n('big'), type: 'A', edns: { size: 512 } },
  { label: '100 A over TCP', name: n('huge'), type: 'A', tcp: true },
  { label: '40 A over TCP', name: n('big'), type: 'A', tcp: true },
  // Case.
  { label: '0x20 case echoed: www', name: 'WwW.DiFf.TeSt', type: 'A' },
  { label: '0x20 case: CNAME chain', name: 'cHaIn1.DIFF.test', type: 'A' },
  { label: '0x20 case: wildcard', name: 'AnYtHiNg.WiLd.DiFf.TeSt', type: 'A' },
  { label: '0x20 case: NXDOMAIN', name: 'NoPe.WWW.diff.TEST', type: 'A' },
  { label: '0x20 case: referral', name: 'HoSt.SuB.dIfF.tEsT', type: 'A' },
  // EDNS.
  { label: 'EDNS: OPT', name: n('www'), type: 'A', edns: { size: 1232 } },
  { label: 'EDNS: OPT with DO', name: n('www'), type: 'A', edns: { size: 1232, do: true } },
  { label: 'EDNS: OPT with DO on NXDOMAIN', name: n('nope.www'), type: 'A', edns: { size: 1232, do: true } },
  { label: 'EDNS: version 1 → BADVERS', name: n('www'), type: 'A', edns: { size: 1232, version: 1 } },
  { label: 'EDNS: payload size below 512', name: n('www'), type: 'A', edns: { size: 100 } },
  // Classes, opcodes, zones we do not host.
  { label: 'class CH', name: n('www'), type: 'A', qclass: 3 },
  { label: 'class CH TXT at a name we host', name: n('www'), type: 'TXT', qclass: 3 },
  // Difference: Knot answers QCLASS ANY (255) from its IN data (NOERROR, AA, the A RRset); we serve
  // class IN only and answer REFUSED, as for every class other than IN.
  { label: 'class ANY', name: n('www'), type: 'A', qclass: 255, ignore: ['rcode', 'aa', 'answer'] },
  { label: 'outside any hosted zone', name: 'www.example.com', type: 'A' },
  { label: 'the root', name: '.', type: 'NS' },
  { label: 'the parent of the zone', name: 'test', type: 'SOA' },
  { label: 'opcode STATUS (2) → NOTIMP', name: n('www'), type: 'A', opcode: 2 },
  // Difference: Knot implements NOTIFY and UPDATE and answers NOTAUTH (not allowed from this
  // client); we implement QUERY only and answer NOTIMP.
  { label: 'opcode NOTIFY (4)', name: zone, type: 'SOA', opcode: 4, ignore: ['rcode'] },
  { label: 'opcode UPDATE (5)', name: zone, type: 'SOA', opcode: 5, ignore: ['rcode'] },
  // Difference: zone transfers over UDP. Knot answers AXFR NOTIMP and IXFR NOTAUTH; we answer
  // REFUSED to both (we do not serve transfers at all).
  { label: 'AXFR over UDP', name: zone, type: 'AXFR', ignore: ['rcode'] },
  { label: 'IXFR over UDP', name: zone, type: 'IXFR', ignore: ['rcode'] },
  // Difference: a question for the OPT meta-type. Knot treats it as any unknown type (NOERROR, AA,
  // SOA in authority); we answer FORMERR (OPT is not a type one can ask for, RFC 6891 §6.1.1).
  { label: 'qtype OPT in the question', name: n('www'), type: 41, ignore: ['rcode', 'aa', 'authority'] },
  // Difference: the reserved qtype 0. Knot answers NOTIMP without AA and without SOA; we treat it as
  // any other type the name does not have (NOERROR, AA, SOA in authority: NODATA).
  { label: 'qtype 0', name: n('www'), type: 0, ignore: ['rcode', 'aa', 'authority'] },
  { label: 'qtype RRSIG in an unsigned zone', name: n('www'), type: 'RRSIG' },
  // ANY (RFC 8482): over UDP both answer one RRset of the node (the same one here: A sorts first).
  { label: 'ANY at the apex over UDP', name: zone, type: 'ANY' },
  { label: 'ANY at www over UDP', name: n('www'), type: 'ANY' },
  { label: 'ANY at a wildcard over UDP', name: n('anything.wild'), type: 'ANY' },
  { label: 'ANY at an ENT', name: n('ent'), type: 'ANY' },
  { label: 'ANY at a CNAME', name: n('chain1'), type: 'ANY' },
  { label: 'ANY below the cut (referral)', name: n('host.sub'), type: 'ANY' },
  { label: 'ANY at a name that does not exist', name: n('nope.www'), type: 'ANY' },
  // Difference: over TCP Knot still answers ANY with one RRset; we give the whole node. Knot's RRset
  // must be among ours.
  { label: 'ANY at the apex over TCP', name: zone, type: 'ANY', tcp: true, ignore: ['answer'], answerCoversKnot: true },
  { label: 'ANY at www over TCP', name: n('www'), type: 'ANY', tcp: true },
];

async function buildZone(service: Service, auth: string): Promise<string> {
  const dns = dnsClient(service.url, auth);
  await dns.createZone(zone);
  const put = async (name: string, type: string, records: unknown[][], ttl = 3600) => {
    const written = await dns.put(zone, name, type, records, ttl);
    assert.equal(written.status, 200, `${name} ${type}: ${written.text}`);
  };
  await put('ns1', 'A', [['192.0.2.53']]);
  await put('ns1', 'AAAA', [['2001:db8::53']]);
  await put('ns2', 'A', [['192.0.2.54']]);
  await put('@', 'A', [['192.0.2.1']], 300);
  await put('@', 'AAAA', [['2001:db8::1']], 300);
  await put('@', 'MX', [[10, 'mail.diff.test.'], [20, 'mail2.diff.test.'], [30, 'mx.example.net.']]);
  await put('@', 'TXT', [['v=spf1 -all'], ['hello world']]);
  await put('@', 'CAA', [[0, 'issue', 'letsencrypt.org'], [128, 'iodef', 'mailto:ops@diff.test']]);
  await put('mail', 'A', [['192.0.2.25']]);
  await put('mail', 'AAAA', [['2001:db8::25']]);
  await put('mail2', 'AAAA', [['2001:db8::26']]);
  await put('www', 'A', [['192.0.2.80'], ['192.0.2.81']], 120);
  await put('long', 'TXT', [[longText]]);
  await put('_sip._tcp', 'SRV', [[10, 5, 5061, 'sip.diff.test.'], [20, 0, 5060, 'sip.example.net.']]);
  await put('sip', 'A', [['192.0.2.60']]);
  await put('chain1', 'CNAME', [['chain2.diff.test.']], 60);
  await put('chain2', 'CNAME', [['chain3.diff.test.']], 70);
  await put('chain3', 'CNAME', [['diff.test.']], 80);
  await put('ext', 'CNAME', [['www.example.net.']]);
  await put('loop-a', 'CNAME', [['loop-b.diff.test.']]);
  await put('loop-b', 'CNAME', [['loop-a.diff.test.']]);
  await put('dangle', 'CNAME', [['gone.www.diff.test.']]);
  await put('to-wild', 'CNAME', [['target.wild.diff.test.']]);
  await put('to-sub', 'CNAME', [['host.sub.diff.test.']]);
  for (let i = 1; i <= 20; i++) await put(`hop${i}`, 'CNAME', [[i === 20 ? 'www.diff.test.' : `hop${i + 1}.diff.test.`]]);
  await put('*.wc', 'CNAME', [['www.diff.test.']]);
  await put('bigsub', 'NS', Array.from({ length: 16 }, (_, i) => [`name-server-${i}.bigsub.diff.test.`]));
  for (let i = 0; i < 16; i++) {
    await put(`name-server-${i}.bigsub`, 'A', [[`192.0.2.${160 + i}`]]);
    await put(`name-server-${i}.bigsub`, 'AAAA', [[`2001:db8::${160 + i}`]]);
  }
  await put('*.wild', 'A', [['192.0.2.99']]);
  await put('*.wild', 'TXT', [['wildcard text']]);
  await put('exists.wild', 'A', [['192.0.2.100']]);
  await put('x.ent', 'A', [['192.0.2.7']]);
  await put('*', 'A', [['192.0.2.200']]);
  await put('sub', 'NS', [['ns.sub.diff.test.'], ['ns1.diff.test.']], 86400);
  await put('ns.sub', 'A', [['192.0.2.153']], 86400);
  await put('sub', 'DS', [[12345, 13, 2, '2BB183AF5F22588179A53B0A98631FAD1A292118F6D7A7E0E0E3D1B9C1D2F0A1']], 86400);
  await put('nods', 'NS', [['ns.example.net.']], 86400);
  await put('mxsub', 'MX', [[10, 'ns.sub.diff.test.']]);
  await put('_cname._tcp', 'SRV', [[0, 0, 443, 'chain3.diff.test.']]);
  await put('big', 'A', Array.from({ length: 40 }, (_, i) => [`10.0.0.${i + 1}`]));
  await put('huge', 'A', Array.from({ length: 100 }, (_, i) => [`10.0.1.${i + 1}`]));
  const exported = await call<{ raw_zone: string }>(service.url, 'GET', `/dns/v2/zones/${zone}/export`, { auth });
  assert.equal(exported.status, 200, exported.text);
  return exported.body.raw_zone;
}

describe('DNS server against Knot DNS', { skip: knotd === undefined && !ci ? 'knotd is not installed (Debian package "knot")' : false }, () => {
  /** The service the zone was built through, stopped; `service` answers on its data. */
  let built: Service | undefined;
  let service: Service | undefined;
  let knot: Knot | undefined;
  let zoneText = '';

  before(async () => {
    if (knotd === undefined) throw new Error('CI is set but knotd is not on the PATH: install the Debian package "knot"');
    built = await startService({ engine: 'sqlite', env: { EDGEPLANE_NAMESERVERS: 'ns1.diff.test,ns2.diff.test' } });
    const auth = bearer((await login(built.url, adminEmail, adminPassword)).access);
    zoneText = await buildZone(built, auth);
    knot = await startKnot([{ name: zone, text: zoneText }]);
    // Restarted with two DNS threads: the zone is answered from the image the main thread loads it
    // into at start and the worker shares (zone-image.ts), as a large zone is in production.
    await built.stop();
    service = await built.sibling({ EDGEPLANE_DNS_WORKERS: '2' });
  });
  after(async () => {
    await knot?.stop();
    await service?.stop();
    await built?.dispose();
  });

  let id = 0x1000;
  for (const c of cases) {
    test(c.label, c.todo === undefined ? {} : { todo: c.todo }, async () => {
      const bytes = queryBytes(c, id++);
      const tcp = c.tcp === true;
      const knotReply = await exchange(knot!.port, bytes, tcp);
      const ourReply = await exchange(service!.dnsPort, bytes, tcp);
      const k = summarize(knotReply);
      const o = summarize(ourReply);
      if (process.env['DIFF_DUMP'] !== undefined) console.log(JSON.stringify({ case: c.label, knot: k, ours: o }, null, 1));
      assert.equal(ourReply.readUInt16BE(0), bytes.readUInt16BE(0), 'ID echoed');
      assert.equal(ourReply.readUInt16BE(2) & 0x8000, 0x8000, 'QR set');
      if (!tcp) assert.ok(ourReply.length <= (c.edns ? 1232 : 512), `UDP answer of ${ourReply.length} octets`);
      assert.deepEqual(differences(k, o, c.ignore), [], `${c.label}\nzone:\n${zoneText}`);
      if (c.answerCoversKnot === true) {
        assert.ok(k.answer.length > 0);
        assert.deepEqual(k.answer.filter((r) => !o.answer.includes(r)), [], 'Knot answered records we did not');
      }
    });
  }
});
