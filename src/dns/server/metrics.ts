// DNS metrics: queries by transport, type and rcode, answer latency, response cache hits. Label
// values come from small fixed sets, so the series stay bounded whatever clients send.
import { Counter, Histogram, type Registry } from 'prom-client';

const typeNames = new Map([
  [1, 'A'], [2, 'NS'], [5, 'CNAME'], [6, 'SOA'], [12, 'PTR'], [15, 'MX'], [16, 'TXT'], [28, 'AAAA'],
  [33, 'SRV'], [43, 'DS'], [48, 'DNSKEY'], [64, 'SVCB'], [65, 'HTTPS'], [257, 'CAA'], [255, 'ANY'],
]);
const rcodeNames = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED'];

export interface DnsMetrics {
  /** `started`: performance.now() when the query arrived. */
  answered(transport: 'udp' | 'tcp', reply: Buffer | undefined, started: number): void;
  cache(hit: boolean): void;
}

/** The QTYPE of the question in a reply: after the 12-octet header and the (uncompressed) QNAME. */
function questionType(reply: Buffer): number {
  let at = 12;
  while (at < reply.length && (reply[at] ?? 0) !== 0) at += 1 + (reply[at] ?? 0);
  return at + 3 <= reply.length ? reply.readUInt16BE(at + 1) : 0;
}

export function dnsMetrics(registry: Registry): DnsMetrics {
  const queries = new Counter({
    name: 'edgeplane_dns_queries_total',
    help: 'DNS queries answered, by transport, query type and response code',
    labelNames: ['transport', 'qtype', 'rcode'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'edgeplane_dns_answer_duration_seconds',
    help: 'Time to build an answer, from the parsed datagram to the encoded reply',
    labelNames: ['transport'] as const,
    buckets: [0.000005, 0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.005],
    registers: [registry],
  });
  const cache = new Counter({
    name: 'edgeplane_dns_cache_lookups_total',
    help: 'Response cache lookups by result (hit, miss); the hit ratio is hit / (hit + miss)',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  // Label lookups cost more than the increments: children are bound once per label set and reused.
  const timers = { udp: latency.labels('udp'), tcp: latency.labels('tcp') };
  const counters = new Map<string, Counter.Internal>();
  const counter = (transport: string, qtype: string, rcode: string) => {
    const key = `${transport} ${qtype} ${rcode}`;
    let child = counters.get(key);
    if (child === undefined) {
      child = queries.labels(transport, qtype, rcode);
      counters.set(key, child);
    }
    return child;
  };
  const hits = cache.labels('hit');
  const misses = cache.labels('miss');
  return {
    answered: (transport, reply, started) => {
      timers[transport].observe((performance.now() - started) / 1000);
      if (reply === undefined) {
        counter(transport, 'none', 'DROPPED').inc();
        return;
      }
      const code = (reply[3] ?? 0) & 0xf;
      counter(transport, typeNames.get(questionType(reply)) ?? 'OTHER', rcodeNames[code] ?? `RCODE${String(code)}`).inc();
    },
    cache: (hit) => (hit ? hits : misses).inc(),
  };
}
