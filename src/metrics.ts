// The process's Prometheus metrics, shared by the roles it runs and served by the API at /metrics.
// DNS worker threads count their queries in registries of their own; their figures are summed in.
import { AggregatorRegistry, Registry, collectDefaultMetrics, type MetricObjectWithValues, type MetricValue } from 'prom-client';

type MetricsJson = MetricObjectWithValues<MetricValue<string>>[];

export interface Metrics {
  registry: Registry;
  /** Adds a source of further figures (worker threads' registries) summed into the output. */
  addSource(source: () => Promise<MetricsJson[]>): void;
  /** The Prometheus text of everything. */
  text(): Promise<string>;
  contentType: string;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'edgeplane_' });
  const sources: (() => Promise<MetricsJson[]>)[] = [];
  return {
    registry,
    addSource: (source) => sources.push(source),
    text: async () => {
      if (sources.length === 0) return registry.metrics();
      const all = [await registry.getMetricsAsJSON(), ...(await Promise.all(sources.map((s) => s()))).flat()] as MetricsJson[];
      return AggregatorRegistry.aggregate(all).metrics();
    },
    contentType: registry.contentType,
  };
}
