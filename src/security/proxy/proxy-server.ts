// One proxy thread: its host table, its two listeners and what its resources share (thread-deps.ts).
// The role's main thread runs one and each worker thread another (proxy-role.ts).
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { ListenAddress } from '../../config.ts';
import { openGeo } from '../../geo/geoip.ts';
import { HostTable } from './host-table.ts';
import { closableServer, httpListener, httpsListener, listenShared } from './listeners.ts';
import type { ResourcePolicy } from './policy.ts';
import { proxyMetrics } from './proxy-metrics.ts';
import { localCounters } from './rate/local-counters.ts';
import { requestPipeline } from './request-pipeline.ts';
import type { ProxySettings, ThreadDeps } from './thread-deps.ts';

export interface ProxyThreadOptions {
  httpListen: ListenAddress;
  httpsListen: ListenAddress;
  settings: ProxySettings;
  cookieSecret: Buffer;
  geoipDb: string | undefined;
  /** The resources at start. */
  policies: ResourcePolicy[];
  logger: Logger;
  metrics: Registry;
}

/** What one thread's host table is told: these policies replace theirs, `gone` go; `full`: nothing else stays. */
export interface PolicyUpdate {
  policies: ResourcePolicy[];
  gone: number[];
  full: boolean;
}

export interface ProxyServer {
  httpPort: number;
  httpsPort: number;
  apply(update: PolicyUpdate): Promise<void>;
  stop(): Promise<void>;
}

export async function startProxyServer(options: ProxyThreadOptions): Promise<ProxyServer> {
  const deps: ThreadDeps = {
    geo: await openGeo({ mmdbPath: options.geoipDb }),
    counters: localCounters(),
    cookieSecret: options.cookieSecret,
    settings: options.settings,
    metrics: proxyMetrics(options.metrics),
    logger: options.logger,
  };
  const table = new HostTable(deps);
  await table.apply(options.policies, [], true);
  const plain = httpListener(requestPipeline(table, deps, false));
  const secure = httpsListener(table, requestPipeline(table, deps, true));
  const closers = [closableServer(plain), closableServer(secure)];
  const stop = async () => {
    await Promise.all(closers.map((close) => close()));
    await table.close();
    await deps.counters.close();
  };
  try {
    const httpPort = await listenShared(plain, options.httpListen);
    const httpsPort = await listenShared(secure, options.httpsListen);
    return { httpPort, httpsPort, apply: (u) => table.apply(u.policies, u.gone, u.full), stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
