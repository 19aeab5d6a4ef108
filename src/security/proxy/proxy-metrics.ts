// The proxy's Prometheus metrics, one set per proxy thread (in the registry the thread is given; the
// role sums the threads'): requests by resource and outcome, the origins' latency by resource, and
// what the listeners turned away. Labels come from bounded sets only: a resource's id (never a host
// name a client sent), outcomes the proxy's own steps name, the two listeners, fixed reasons.
//
// Per request, counting is a Map lookup and an increment, and timing an origin a bucket search in a
// Float64Array: prom-client's own Counter.inc and Histogram.observe with labels cost 0.3 and 0.9 µs
// here (a request's whole CPU budget is some tens of µs); prom-client sees the totals when scraped.
import { Counter, Gauge, type Histogram, type Registry } from 'prom-client';
import type { Refusal } from '../../net/connection-admission.ts';
import type { GuardEvents, ProxyProtocolError } from './connection-guard.ts';
import type { ClientErrorReason } from './server-limits.ts';

export type ListenerName = 'http' | 'https';

/** The resource label of a request no resource took (an unknown host, a request refused before routing). */
export const noResource = 'none';

export interface ProxyMetrics {
  /**
   * A request ended. `outcome`: `passed` (forwarded and answered by the origin), `origin_error`, or
   * the reason of the proxy's own answer (`blacklist`, `geo`, `rate_limit`, `redirect`, ...).
   * `originSeconds`: how long the origin took, for a forwarded request.
   */
  request(resource: number | undefined, outcome: string, originSeconds?: number): void;
  /** The WAF matched a request of a resource over its threshold: once per category its matched rules belong to. */
  waf(resource: number, categories: readonly string[], action: 'blocked' | 'logged'): void;
  /** Drops the series of a resource that is no longer served. */
  forget(resource: number): void;
  /** What a listener's connection guard reports. */
  connections(listener: ListenerName): GuardEvents;
  clientError(listener: ListenerName, reason: ClientErrorReason): void;
  /** Access log lines dropped because its destination did not keep up. */
  accessLogDropped(lines: number): void;
  /** Where the attack gauges are read from when scraped: each resource's watch (mitigation/attack-watch.ts). */
  attackStates(read: () => Iterable<AttackState>): void;
}

/** One resource's attack watch as the gauges show it. */
export interface AttackState {
  resource: number;
  underAttack: boolean;
  /** Requests a second at which mitigation engages now. */
  threshold: number;
}

/** Seconds: from a fast origin on the same network to the slowest an API answer should take. */
const buckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** A reason a step may name: anything else (a bug) is counted as `other` rather than as a new series. */
const outcomeLabel = /^[a-z][a-z0-9_]{0,31}$/;

/** Adds `n` to a count kept in a map. */
const count = <K>(counts: Map<K, number>, key: K, n = 1): void => {
  counts.set(key, (counts.get(key) ?? 0) + n);
};

interface ResourceFigures {
  outcomes: Map<string, number>;
  /** WAF matches by `category action` (categories are rule-category.ts's fixed set). */
  waf: Map<string, number>;
  /** Observations per bucket (not cumulative), the +Inf bucket, then their sum. */
  latency: Float64Array;
}

export function proxyMetrics(registry: Registry): ProxyMetrics {
  const figures = new Map<string, ResourceFigures>();
  const figuresOf = (resource: string): ResourceFigures => {
    let found = figures.get(resource);
    if (found === undefined) {
      found = { outcomes: new Map(), waf: new Map(), latency: new Float64Array(buckets.length + 2) };
      figures.set(resource, found);
    }
    return found;
  };
  new Counter({
    name: 'edgeplane_proxy_requests_total',
    help: 'Requests the proxy ended, by resource id and outcome: passed, origin_error, or the reason of the proxy\'s own answer',
    labelNames: ['resource', 'outcome'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [resource, { outcomes }] of figures) {
        for (const [outcome, value] of outcomes) this.inc({ resource, outcome }, value);
      }
    },
  });
  registry.registerMetric(originHistogram(figures));
  new Counter({
    name: 'edgeplane_proxy_waf_matches_total',
    help: 'Requests the WAF found over its anomaly threshold, by resource id, rule category (sqli, xss, lfi, rfi, rce, php, protocol, scanner, ...) and action (blocked, logged); a request counts once in each category it matched',
    labelNames: ['resource', 'category', 'action'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [resource, { waf }] of figures) {
        for (const [key, value] of waf) {
          const [category = 'other', action = 'blocked'] = key.split(' ');
          this.inc({ resource, category, action }, value);
        }
      }
    },
  });
  // Per connection, as per request: counted here, handed to prom-client when scraped (a flood's
  // connections come and go by the thousand a second, and prom-client hashes the labels per call).
  /** Connections refused, by `listener reason`; connections open, by listener. */
  const refusals = new Map<string, number>();
  const opened = new Map<ListenerName, number>();
  new Counter({
    name: 'edgeplane_proxy_connections_refused_total',
    help: 'Connections reset at accept, over the cap in total (max_clients) or for their client (max_per_client)',
    labelNames: ['listener', 'reason'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [key, value] of refusals) {
        const [listener = 'http', reason = 'max_clients'] = key.split(' ');
        this.inc({ listener, reason }, value);
      }
    },
  });
  const proxyProtocolErrors = new Counter({
    name: 'edgeplane_proxy_protocol_errors_total',
    help: 'Connections closed for a PROXY protocol header that was malformed or not complete within the header timeout',
    labelNames: ['listener', 'reason'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'edgeplane_proxy_connections',
    help: 'Client connections open, by listener',
    labelNames: ['listener'] as const,
    registers: [registry],
    collect() {
      for (const [listener, value] of opened) this.set({ listener }, value);
    },
  });
  const clientErrors = new Counter({
    name: 'edgeplane_proxy_client_errors_total',
    help: 'Connections the HTTP server closed before a request reached the proxy: header timeout (408), header too large (431), malformed or ambiguous request (400)',
    labelNames: ['listener', 'reason'] as const,
    registers: [registry],
  });
  const dropped = new Counter({
    name: 'edgeplane_proxy_access_log_dropped_total',
    help: 'Access log lines dropped because the log destination did not keep up',
    registers: [registry],
  });
  let attackStates: () => Iterable<AttackState> = () => [];
  /** A gauge by resource read from the attack watches when scraped. */
  const attackGauge = (name: string, help: string, value: (state: AttackState) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['resource'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const state of attackStates()) this.set({ resource: String(state.resource) }, value(state));
      },
    });
  attackGauge('edgeplane_proxy_under_attack', 'Proxy threads whose automatic mitigation is on for the resource (it is under attack: docs/proxy.md)', (s) => (s.underAttack ? 1 : 0));
  attackGauge(
    'edgeplane_proxy_attack_threshold_rps',
    'Requests a second to the resource at which automatic mitigation engages now, summed over the proxy threads (each watches its own connections)',
    (s) => s.threshold,
  );
  return {
    attackStates(read) {
      attackStates = read;
    },
    request(resource, outcome, originSeconds) {
      const { outcomes, latency } = figuresOf(resource === undefined ? noResource : String(resource));
      const label = outcomeLabel.test(outcome) ? outcome : 'other';
      count(outcomes, label);
      if (originSeconds === undefined) return;
      let bucket = 0;
      while (bucket < buckets.length && originSeconds > (buckets[bucket] ?? 0)) bucket++;
      latency[bucket] = (latency[bucket] ?? 0) + 1;
      latency[buckets.length + 1] = (latency[buckets.length + 1] ?? 0) + originSeconds;
    },
    waf(resource, categories, action) {
      const { waf } = figuresOf(String(resource));
      for (const category of categories) {
        const key = `${outcomeLabel.test(category) ? category : 'other'} ${action}`;
        count(waf, key);
      }
    },
    forget(resource) {
      figures.delete(String(resource));
    },
    connections(listener) {
      return {
        refused: (reason: Refusal) => count(refusals, `${listener} ${reason}`),
        proxyProtocolError: (reason: ProxyProtocolError) => proxyProtocolErrors.inc({ listener, reason }),
        open: (delta) => count(opened, listener, delta),
      };
    },
    clientError(listener, reason) {
      clientErrors.inc({ listener, reason });
    },
    accessLogDropped(lines) {
      dropped.inc(lines);
    },
  };
}

/**
 * edgeplane_proxy_origin_seconds as prom-client would expose a Histogram (its _bucket, _sum and
 * _count series), built from the figures when scraped: a metric object of the registry's own shape.
 */
function originHistogram(figures: Map<string, ResourceFigures>): Histogram {
  const name = 'edgeplane_proxy_origin_seconds';
  const help = 'Seconds from sending a request to the origin to its answer\'s headers (its latency), by resource id';
  const metric = {
    name,
    help,
    type: 'histogram',
    aggregator: 'sum',
    get: () => {
      const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
      for (const [resource, { latency }] of figures) {
        // A resource whose requests were all answered by the proxy itself has no latency series.
        if (latency.every((value) => value === 0)) continue;
        let count = 0;
        for (let bucket = 0; bucket <= buckets.length; bucket++) {
          count += latency[bucket] ?? 0;
          values.push({ metricName: `${name}_bucket`, labels: { le: buckets[bucket] ?? '+Inf', resource }, value: count });
        }
        values.push({ metricName: `${name}_sum`, labels: { resource }, value: latency[buckets.length + 1] ?? 0 });
        values.push({ metricName: `${name}_count`, labels: { resource }, value: count });
      }
      return Promise.resolve({ name, help, type: 'histogram', aggregator: 'sum', values });
    },
    reset: () => undefined,
  };
  return metric as unknown as Histogram;
}
