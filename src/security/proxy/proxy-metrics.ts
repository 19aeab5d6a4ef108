// The proxy's Prometheus metrics, per resource.
import { Counter, type Registry } from 'prom-client';

export interface ProxyMetrics {
  /** One request ended: `outcome` is passed, origin_error, or the reason an answer gave (blacklist, geo, ...). */
  request(resourceId: number, outcome: string): void;
}

export function proxyMetrics(registry: Registry): ProxyMetrics {
  const requests = new Counter({
    name: 'edgeplane_proxy_requests_total',
    help: 'Requests the protection proxy finished, by resource and outcome (passed, origin_error, or why it answered itself)',
    labelNames: ['resource', 'outcome'] as const,
    registers: [registry],
  });
  return {
    request: (resourceId, outcome) => requests.inc({ resource: String(resourceId), outcome }),
  };
}
