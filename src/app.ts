// Builds and starts the service's roles: store and migrations, the DNS server, the protection proxy,
// the HTTP API with the first administrator and webhook delivery; stops it
// gracefully on SIGTERM/SIGINT (stop accepting, finish in-flight requests, close the store).
// Nothing here is process-wide: several services may run in one process (the tests do).
import type { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { Counter } from 'prom-client';
import { createMetrics, type Metrics } from './metrics.ts';
import { bootstrapFirstAccount } from './accounts/accounts.ts';
import { accessTokens } from './accounts/jwt.ts';
import { loadOrCreateKey } from './crypto/key-file.ts';
import { loginLimiter } from './accounts/login-limiter.ts';
import { passwordHasher, type PasswordHasher } from './accounts/password-hasher.ts';
import { generatePassword } from './accounts/passwords.ts';
import type { Config } from './config.ts';
import { sealer } from './crypto/sealed.ts';
import type { DnsContext } from './dns/context.ts';
import { reportOwnershipConflicts } from './dns/ownership-report.ts';
import { ChangeFeed, type ResourceChange } from './events/change-feed.ts';
import type { SecurityContext } from './security/context.ts';
import { startWebhookDelivery } from './events/webhook-delivery.ts';
import { startDnsRole } from './dns/server/workers.ts';
import { startProxyRole, type ProxyRole } from './security/proxy/proxy-role.ts';
import { tcpLimits } from './dns/server/tcp-limits.ts';
import { derivedCookieSecret } from './dns/server/cookies.ts';
import { buildHttpServer } from './http/server.ts';
import { resolverMaxInFlight, stubResolver } from './dns/client/resolver.ts';
import { openStore, type Store } from './store/database.ts';
import { migrateToLatest } from './store/migrate.ts';
import { loadGeoData } from './geo/geoip.ts';

export interface Service {
  /** The API's base URL, when this process runs the api role. */
  url: string | undefined;
  /** The DNS port (UDP and TCP), when this process runs the dns role. */
  dnsPort: number | undefined;
  /** The protection proxy's ports, when this process runs the proxy role. */
  proxyHttpPort: number | undefined;
  proxyHttpsPort: number | undefined;
  stop(): Promise<void>;
}

/** Each started part's stop, run in reverse order of starting. */
type Stop = () => Promise<void>;

interface Shared {
  changes: ChangeFeed;
  resourceChanges: ChangeFeed<ResourceChange>;
  metrics: Metrics;
  secretKey: Uint8Array;
  output: Writable;
}

async function startApi(config: Config, store: Store, logger: Logger, shared: Shared, stops: Stop[]): Promise<string> {
  const { changes, resourceChanges, metrics } = shared;
  const passwords = passwordHasher({ concurrency: config.passwordHashConcurrency, queue: config.passwordHashQueue }, metrics.registry);
  await bootstrap(config, store, passwords, shared.output);
  await reportOwnershipConflicts(store.db, logger, config.zoneAllowReserved);
  const key = loadOrCreateKey(config.dataDir, 'jwt-signing.key', config.jwtSecret);
  const delivery = startWebhookDelivery({ db: store.db, logger, allowPrivate: config.webhookAllowPrivate });
  stops.push(() => delivery.stop());
  const secrets = sealer(shared.secretKey);
  const resolver = config.resolver === undefined ? undefined : stubResolver(config.resolver, { timeoutMs: config.resolverTimeoutMs, maxInFlight: resolverMaxInFlight });
  const batches = new Counter({
    name: 'edgeplane_rrset_batches_total',
    help: 'RRset write batches committed, by way: guarded (PostgreSQL: one statement after an unlocked read), unread (PostgreSQL: one statement planned on the zone as this process last wrote it) or locked (a transaction holding the zone; on PostgreSQL when neither could)',
    labelNames: ['way'],
    registers: [metrics.registry],
  });
  const dns: DnsContext = { store, config, sealer: secrets, changes, wakeWebhooks: () => delivery.wake(), countBatch: (way) => batches.inc({ way }), resolver };
  const security: SecurityContext = { store, config, sealer: secrets, changes: resourceChanges };
  const http = await buildHttpServer({
    config,
    store,
    logger,
    accessTokens: accessTokens(key, config.accessTokenTtlSeconds),
    loginLimiter: loginLimiter(),
    passwords,
    dns,
    security,
    metrics,
  });
  // Stopping the HTTP server first lets in-flight requests finish before anything below goes.
  stops.push(() => http.close());
  await http.listen({ host: config.apiListen.host, port: config.apiListen.port });
  const address = http.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.apiListen.port;
  const host = config.apiListen.host.includes(':') ? `[${config.apiListen.host}]` : config.apiListen.host;
  const url = `http://${host}:${port}`;
  // A wildcard address is not one to open in a browser: the console is offered on loopback.
  const local = ['0.0.0.0', '::'].includes(config.apiListen.host) ? `http://127.0.0.1:${port}` : url;
  logger.info({ url, engine: store.engine, compat: config.compat }, `API listening on ${url}; web console at ${local}/console/`);
  return url;
}

/**
 * `output` is where the service writes what is not a log line (the first administrator's password)
 * and where its DNS worker threads log; `logger` should write there too.
 */
export async function startService(config: Config, logger: Logger, output: Writable = process.stdout): Promise<Service> {
  const store = openStore(config, logger);
  const stops: Stop[] = [() => store.close()];
  // Every part is stopped, the store last, even when one fails to stop: the first failure is thrown after.
  const stopAll = async () => {
    const failures: unknown[] = [];
    for (const stop of stops.reverse()) await stop().catch((e: unknown) => failures.push(e));
    if (failures.length > 0) throw failures[0];
  };
  try {
    const applied = await migrateToLatest(store);
    if (applied.length > 0) logger.info({ migrations: applied }, 'store migrated');
    const changes = new ChangeFeed((e) => logger.error({ err: e }, 'a subscriber failed on a committed zone change'));
    const metrics = createMetrics();
    const api = config.roles.includes('api');
    // The API seals private keys with it, and the DNS server opens the zones' DNSSEC keys.
    const secretKey = loadOrCreateKey(config.dataDir, 'secret.key', config.secretKey);
    // Once per process, for every DNS and proxy thread: each works on the same shared bytes.
    const geo = config.roles.includes('dns') || config.roles.includes('proxy') ? await loadGeoData({ mmdbPath: config.geoipDb }) : undefined;
    // DNS first: its zones are loaded before the API can change them.
    let dnsPort: number | undefined;
    if (geo !== undefined && config.roles.includes('dns')) {
      const dns = await startDnsRole({
        store,
        listen: config.dnsListen,
        logger,
        changes: api ? changes : undefined,
        metrics: metrics.registry,
        workers: config.dnsWorkers,
        notify: config.dnsNotify,
        healthcheckAllowPrivate: config.healthcheckAllowPrivate,
        healthcheckThresholds: { fall: config.healthcheckFall, rise: config.healthcheckRise },
        healthcheckTestIntervalMs: config.testHealthcheckIntervalMs,
        heartbeat: config.testThreadHeartbeat,
        dataDir: config.dataDir,
        logLevel: config.logLevel,
        output,
        geo,
        settings: {
          databaseUrl: config.databaseUrl,
          secretKey,
          udpIo: config.dnsUdpIo,
          transferAllow: config.dnsTransferAllow,
          tsigKeys: config.dnsTsigKeys,
          nsid: config.dnsNsid,
          cookieSecrets: config.dnsCookieSecrets ?? [derivedCookieSecret(secretKey)],
          catalog: config.dnsCatalog,
          rrl: { perSecond: config.dnsRrl, slip: config.dnsRrlSlip },
          stats: { flushSeconds: config.statsFlushSeconds, retentionDays: config.statsRetentionDays },
          applyFaults: config.testApplyFaults,
          tcp: tcpLimits({
            maxClients: config.dnsTcpMaxClients,
            maxPerClient: config.dnsTcpMaxPerClient,
            idleTimeoutMs: config.dnsTcpIdleTimeoutSeconds * 1000,
            maxPipelined: config.dnsTcpMaxPipelined,
          }),
        },
      });
      metrics.addSource(() => dns.workerMetrics());
      stops.push(() => dns.stop());
      dnsPort = dns.port;
    }
    const resourceChanges = new ChangeFeed<ResourceChange>((e) => logger.error({ err: e }, 'a subscriber failed on a committed resource change'));
    // The proxy too serves what the store holds before the API can change it.
    let proxy: ProxyRole | undefined;
    if (geo !== undefined && config.roles.includes('proxy')) {
      proxy = await startProxyRole({
        store,
        sealer: sealer(secretKey),
        secretKey,
        config,
        geo,
        logger,
        metrics,
        logLevel: config.logLevel,
        output,
        resourceChanges: api ? resourceChanges : undefined,
        zoneChanges: api ? changes : undefined,
      });
      stops.push(() => proxy?.stop() ?? Promise.resolve());
    }
    const url = api ? await startApi(config, store, logger, { changes, resourceChanges, metrics, secretKey, output }, stops) : undefined;
    return { url, dnsPort, proxyHttpPort: proxy?.httpPort, proxyHttpsPort: proxy?.httpsPort, stop: stopAll };
  } catch (e) {
    await stopAll();
    throw e;
  }
}

/** First start on an empty store: create the operators' account and tell how to log in. */
async function bootstrap(config: Config, store: Store, passwords: PasswordHasher, output: Writable): Promise<void> {
  const password = config.adminPassword ?? generatePassword();
  if (!(await bootstrapFirstAccount(store.db, passwords, config.adminEmail, password))) return;
  // Printed once, outside the JSON log, so the generated password never lands in log storage.
  const how = config.adminPassword === undefined
    ? `with the generated password ${password} (shown only this once)`
    : 'with the password from EDGEPLANE_ADMIN_PASSWORD';
  output.write(`\nedgeplane: created the first administrator ${config.adminEmail}; log in ${how}.\n\n`);
}

/** Stops the service as a signal asks; resolves to the exit code the process should end with. */
export async function shutDown(service: Service, logger: Logger, signal: string): Promise<number> {
  logger.info({ signal }, 'shutting down');
  try {
    await service.stop();
    return 0;
  } catch (e) {
    logger.error({ err: e }, 'shutdown failed');
    return 1;
  }
}

export function stopOnSignals(service: Service, logger: Logger): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    void shutDown(service, logger, signal).then((code) => process.exit(code));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
