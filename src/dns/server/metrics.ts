// DNS metrics: queries by transport, type and rcode, answer latency, response cache hits, TCP
// connections open, refused and timed out. Label
// values come from small fixed sets, so the series stay bounded whatever clients send.
//
// Per query, counting is an increment in a typed array; prom-client sees the totals only when the
// metrics are collected. Latency is timed on one query in `sampleEvery` per transport (the first
// one included): the histogram is a sample of the distribution, its _count is not the number of
// queries (edgeplane_dns_queries_total is). Timing and observing every query were a large share of
// the CPU time of a query answered from the cache.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { TcpEvents } from './tcp.ts';

type TransportName = 'udp' | 'tcp';

const typeNames = new Map([
  [1, 'A'], [2, 'NS'], [5, 'CNAME'], [6, 'SOA'], [12, 'PTR'], [15, 'MX'], [16, 'TXT'], [28, 'AAAA'],
  [33, 'SRV'], [43, 'DS'], [48, 'DNSKEY'], [64, 'SVCB'], [65, 'HTTPS'], [257, 'CAA'], [255, 'ANY'],
]);
/** RCODE mnemonics (RFC 1035, 2136, 8490) of the header's four bits. */
const rcodeNames = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED', 'YXDOMAIN', 'YXRRSET', 'NXRRSET', 'NOTAUTH', 'NOTZONE', 'DSOTYPENI'];
/** `NXDOMAIN` for 3; a code without a mnemonic as `RCODE<n>`. */
export const rcodeName = (code: number): string => rcodeNames[code] ?? `RCODE${String(code)}`;
const sampleEvery = 64;

/** Slot of each named QTYPE (by QTYPE), 0 for OTHER, so a count is one indexed increment. */
const typeLabels = ['OTHER', ...typeNames.values()];
/** The QTYPE of each slot (0 for OTHER): what the per-zone statistics store (query-stats.ts). */
export const slotTypes = [0, ...typeNames.keys()];
const codeOfType = new Map([...typeNames].map(([code, name]) => [name, code]));
/** The code of a type counted on its own (`AAAA` → 28); undefined for the others. */
export const countedTypeCode = (name: string): number | undefined => codeOfType.get(name);
/** The name a QTYPE is counted under (`28` → AAAA, 0 or an uncounted type → OTHER). */
export const countedTypeName = (qtype: number): string => typeNames.get(qtype) ?? 'OTHER';
/** The types counted on their own, by name. */
export const countedTypeNames: readonly string[] = [...typeNames.values()];
const typeSlots = new Uint8Array(Math.max(...typeNames.keys()) + 1);
for (const [index, qtype] of [...typeNames.keys()].entries()) typeSlots[qtype] = index + 1;
export const rcodeSlots = 16;
const transports: readonly TransportName[] = ['udp', 'tcp'];
/** Per transport: one slot per type and rcode, then one for dropped queries. */
const transportSlots = typeLabels.length * rcodeSlots + 1;

export interface DnsMetrics {
  /** performance.now() when this query is one to time, otherwise -1. */
  start(transport: TransportName): number;
  /**
   * `started`: what `start` returned for this query. Gives the reply's slot, its QTYPE's slot times
   * `rcodeSlots` plus its RCODE (the statistics count in the same slots), or -1 for no reply.
   */
  answered(transport: TransportName, reply: Buffer | undefined, started: number): number;
  cache(hit: boolean): void;
  /** A UDP reply over the rate limit (rate-limit.ts), sent truncated or dropped. */
  rateLimited(action: 'slipped' | 'dropped'): void;
  /** TCP connections (tcp.ts): counted per connection, not per query. */
  tcp: TcpEvents;
}

/** The QTYPE of the question in a reply: after the 12-octet header and the (uncompressed) QNAME. */
function questionType(reply: Buffer): number {
  let at = 12;
  while (at < reply.length && (reply[at] ?? 0) !== 0) at += 1 + (reply[at] ?? 0);
  return at + 3 <= reply.length ? reply.readUInt16BE(at + 1) : 0;
}

export function dnsMetrics(registry: Registry): DnsMetrics {
  const counts = new Float64Array(transports.length * transportSlots);
  const lookups = { hit: 0, miss: 0 };
  new Counter({
    name: 'edgeplane_dns_queries_total',
    help: 'DNS queries answered, by transport, query type and response code',
    labelNames: ['transport', 'qtype', 'rcode'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [t, transport] of transports.entries()) {
        const base = t * transportSlots;
        const dropped = counts[base + transportSlots - 1] ?? 0;
        if (dropped > 0) this.inc({ transport, qtype: 'none', rcode: 'DROPPED' }, dropped);
        for (let slot = 0; slot < transportSlots - 1; slot++) {
          const value = counts[base + slot] ?? 0;
          if (value === 0) continue;
          const code = slot % rcodeSlots;
          const qtype = typeLabels[Math.floor(slot / rcodeSlots)] ?? 'OTHER';
          this.inc({ transport, qtype, rcode: rcodeName(code) }, value);
        }
      }
    },
  });
  const latency = new Histogram({
    name: 'edgeplane_dns_answer_duration_seconds',
    help: `Time to build an answer, from the parsed datagram to the encoded reply; one query in ${String(sampleEvery)} is timed`,
    labelNames: ['transport'] as const,
    buckets: [0.000005, 0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.005],
    registers: [registry],
  });
  new Counter({
    name: 'edgeplane_dns_cache_lookups_total',
    help: 'Response cache lookups by result (hit, miss); the hit ratio is hit / (hit + miss)',
    labelNames: ['result'] as const,
    registers: [registry],
    collect() {
      this.reset();
      if (lookups.hit > 0) this.inc({ result: 'hit' }, lookups.hit);
      if (lookups.miss > 0) this.inc({ result: 'miss' }, lookups.miss);
    },
  });
  const limited = new Counter({
    name: 'edgeplane_dns_rate_limited_total',
    help: 'UDP replies over the response rate limit, by what became of them (slipped: sent truncated; dropped)',
    labelNames: ['action'] as const,
    registers: [registry],
  });
  const refused = new Counter({
    name: 'edgeplane_dns_tcp_refused_total',
    help: 'TCP connections turned away at accept, by the limit they met (max_clients: all the process may hold; max_per_client: one client address or IPv6 /64)',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const timedOut = new Counter({
    name: 'edgeplane_dns_tcp_timeouts_total',
    help: 'TCP connections the server closed after the idle timeout, by what they were doing (idle: no query in that time; unread: replies their client did not read)',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const open = new Gauge({
    name: 'edgeplane_dns_tcp_connections',
    help: 'TCP connections open',
    registers: [registry],
  });
  const timers = { udp: latency.labels('udp'), tcp: latency.labels('tcp') };
  const untilTimed = { udp: 1, tcp: 1 };
  return {
    start: (transport) => {
      if (--untilTimed[transport] > 0) return -1;
      untilTimed[transport] = sampleEvery;
      return performance.now();
    },
    answered: (transport, reply, started) => {
      if (started >= 0) timers[transport].observe((performance.now() - started) / 1000);
      const base = transport === 'udp' ? 0 : transportSlots;
      if (reply === undefined) {
        counts[base + transportSlots - 1] = (counts[base + transportSlots - 1] ?? 0) + 1;
        return -1;
      }
      const qtype = questionType(reply);
      const slot = (qtype < typeSlots.length ? (typeSlots[qtype] ?? 0) : 0) * rcodeSlots + ((reply[3] ?? 0) & 0xf);
      counts[base + slot] = (counts[base + slot] ?? 0) + 1;
      return slot;
    },
    cache: (hit) => {
      if (hit) lookups.hit++;
      else lookups.miss++;
    },
    rateLimited: (action) => limited.inc({ action }),
    tcp: {
      refused: (reason) => refused.inc({ reason }),
      timedOut: (reason) => timedOut.inc({ reason }),
      open: (delta) => open.inc(delta),
    },
  };
}
