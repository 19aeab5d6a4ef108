// The process's Prometheus registry, shared by the roles it runs and served by the API at /metrics.
import { Registry, collectDefaultMetrics } from 'prom-client';

export function createRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'edgeplane_' });
  return registry;
}
