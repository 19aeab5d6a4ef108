// The origins of one resource as a proxy thread holds them: the balancer, each origin's passive
// health and its connection pools. Made from the policy whenever the resource changes; the set it
// replaces is closed (its pools finish the requests in flight, then close their connections).
import type { ResourcePolicy } from '../policy.ts';
import { Balancer, type Peer } from './balancer.ts';
import { OriginPools, defaultPoolOptions, type PoolOptions } from './origin-pools.ts';
import { PassiveHealth, defaultHealth, type HealthOptions } from './passive-health.ts';

export interface TunnelOptions {
  /** A WebSocket (or other upgraded connection) with no byte either way for this long is closed. */
  tunnelIdleTimeoutMs: number;
}

const defaultTunnel: TunnelOptions = { tunnelIdleTimeoutMs: 300_000 };

/** Everything tunable about origins; every field has a default (tests make the windows short). */
export type OriginOptions = PoolOptions & HealthOptions & TunnelOptions;

export interface OriginDeps {
  settings: { allowPrivateOrigins: boolean; origins?: Partial<OriginOptions> | undefined };
}

export class OriginSet {
  readonly #balancer: Balancer;
  readonly #peers: Peer[];
  readonly #pools: OriginPools[];
  /** `service_https2http`: HTTPS clients' requests go to the origins over plain HTTP. */
  readonly httpsToHttp: boolean;
  readonly tunnelIdleTimeoutMs: number;

  constructor(policy: ResourcePolicy, options: OriginOptions) {
    const live = policy.origins.filter((origin) => origin.mode !== 'down').length;
    this.#peers = policy.origins.map((origin) => ({ weight: origin.weight, mode: origin.mode, health: new PassiveHealth(options, live > 1) }));
    this.#pools = policy.origins.map((origin) => new OriginPools(origin, policy.hosts[0], options));
    this.#balancer = new Balancer(this.#peers, policy.settings.service_iphash === 1);
    this.httpsToHttp = policy.settings.service_https2http === 1;
    this.tunnelIdleTimeoutMs = options.tunnelIdleTimeoutMs;
  }

  /** The origin for a request from `client` (see Balancer.pick), marked as chosen; -1: none available. */
  pick(client: string, tried: readonly number[] | undefined, now: number): number {
    return this.#balancer.pick(client, tried, now);
  }

  pools(index: number): OriginPools {
    const pools = this.#pools[index];
    if (pools === undefined) throw new RangeError(`no origin ${String(index)}`);
    return pools;
  }

  /** A request sent to origin `index` got no answer (connection refused, timed out, cut). */
  failed(index: number, now: number): void {
    this.#peers[index]?.health.failed(now);
  }

  /** Origin `index` answered a request sent at `sentAt`. */
  answered(index: number, sentAt: number): void {
    this.#peers[index]?.health.answered(sentAt);
  }

  async close(): Promise<void> {
    await Promise.all(this.#pools.map((pools) => pools.close()));
  }
}

export function compileOrigins(policy: ResourcePolicy, deps: OriginDeps): OriginSet {
  const options: OriginOptions = { ...defaultPoolOptions, ...defaultHealth, ...defaultTunnel, ...deps.settings.origins, allowPrivateOrigins: deps.settings.allowPrivateOrigins };
  return new OriginSet(policy, options);
}
