// Prometheus metrics at /metrics: requests by route and status, and a latency histogram.
import type { FastifyInstance } from 'fastify';
import { Counter, Histogram } from 'prom-client';
import type { Metrics } from '../metrics.ts';

export function registerMetrics(app: FastifyInstance, metrics: Metrics): void {
  const { registry } = metrics;
  const labelNames = ['method', 'route', 'status_code'] as const;
  const requests = new Counter({
    name: 'edgeplane_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code',
    labelNames,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'edgeplane_http_request_duration_seconds',
    help: 'Time from receiving a request to sending its response',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });

  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, never the raw URL: one label value per route keeps the series bounded.
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status_code: String(reply.statusCode),
    };
    requests.inc(labels);
    latency.observe(labels, reply.elapsedTime / 1000);
  });

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    return reply.type(metrics.contentType).send(await metrics.text());
  });
}
