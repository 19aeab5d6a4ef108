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

// Memory, CPU, event loop and GC figures belong to the process, and their collectors (a GC observer,
// an event loop delay monitor) are never released: they are collected once however many services the
// process starts (tests start many), and every service's registry includes them.
let processMetrics: Registry | undefined;

export function createMetrics(): Metrics {
  if (processMetrics === undefined) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics, prefix: 'edgeplane_' });
  }
  // A registry of this service's own, holding the process's figures from the start.
  const registry = Registry.merge([processMetrics]);
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
