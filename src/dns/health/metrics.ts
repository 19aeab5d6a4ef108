// Health check metrics at /metrics: the checked records by state, and the probes made.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Protocol } from './failover.ts';

export interface HealthStates {
  up: number;
  down: number;
  /** Records with a check that is not run: private addresses, no ping, over the cap. */
  unchecked: number;
}

export interface HealthMetrics {
  probed(protocol: Protocol, up: boolean): void;
}

export function healthMetrics(registry: Registry, states: () => HealthStates): HealthMetrics {
  new Gauge({
    name: 'edgeplane_healthcheck_records',
    help: 'Records with a health check in this DNS process, by state (unchecked: the check is not run)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const { up, down, unchecked } = states();
      this.set({ state: 'up' }, up);
      this.set({ state: 'down' }, down);
      this.set({ state: 'unchecked' }, unchecked);
    },
  });
  const probes = new Counter({
    name: 'edgeplane_healthcheck_probes_total',
    help: 'Health check probes made, by protocol and result',
    labelNames: ['protocol', 'result'] as const,
    registers: [registry],
  });
  return { probed: (protocol, up) => probes.inc({ protocol, result: up ? 'up' : 'down' }) };
}
