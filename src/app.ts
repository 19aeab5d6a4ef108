// Builds and starts the service: store, migrations, first administrator, HTTP API; stops it
// gracefully on SIGTERM/SIGINT (stop accepting, finish in-flight requests, close the store).
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { bootstrapFirstAccount } from './accounts/accounts.ts';
import { accessTokens } from './accounts/jwt.ts';
import { loadOrCreateKey } from './crypto/key-file.ts';
import { loginLimiter } from './accounts/login-limiter.ts';
import { generatePassword } from './accounts/passwords.ts';
import type { Config } from './config.ts';
import { sealer } from './crypto/sealed.ts';
import type { DnsContext } from './dns/context.ts';
import { ChangeFeed } from './events/change-feed.ts';
import { startWebhookDelivery, type WebhookDelivery } from './events/webhook-delivery.ts';
import { buildHttpServer } from './http/server.ts';
import { openStore, type Store } from './store/database.ts';
import { migrateToLatest } from './store/migrate.ts';

export interface Service {
  url: string;
  stop(): Promise<void>;
}

export async function startService(config: Config, logger: Logger): Promise<Service> {
  const store = openStore(config);
  let http: FastifyInstance | undefined;
  let webhooks: WebhookDelivery | undefined;
  try {
    const applied = await migrateToLatest(store);
    if (applied.length > 0) logger.info({ migrations: applied }, 'store migrated');
    await bootstrap(config, store);
    const key = loadOrCreateKey(config.dataDir, 'jwt-signing.key', config.jwtSecret);
    const delivery = startWebhookDelivery({ db: store.db, logger, allowPrivate: config.webhookAllowPrivate });
    webhooks = delivery;
    const dns: DnsContext = {
      store,
      config,
      sealer: sealer(loadOrCreateKey(config.dataDir, 'secret.key', config.secretKey)),
      changes: new ChangeFeed(),
      wakeWebhooks: () => delivery.wake(),
    };
    http = await buildHttpServer({
      config,
      store,
      logger,
      accessTokens: accessTokens(key, config.accessTokenTtlSeconds),
      loginLimiter: loginLimiter(),
      dns,
    });
    await http.listen({ host: config.apiListen.host, port: config.apiListen.port });
  } catch (e) {
    await http?.close();
    await webhooks?.stop();
    await store.close();
    throw e;
  }
  const address = http.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.apiListen.port;
  const host = config.apiListen.host.includes(':') ? `[${config.apiListen.host}]` : config.apiListen.host;
  const url = `http://${host}:${port}`;
  logger.info({ url, engine: store.engine, compat: config.compat }, `API listening on ${url}; log in with POST ${url}/iam/auth/jwt/login`);

  const server = http;
  const delivery = webhooks;
  return {
    url,
    stop: async () => {
      await server.close();
      await delivery.stop();
      await store.close();
    },
  };
}

/** First start on an empty store: create the operators' account and tell how to log in. */
async function bootstrap(config: Config, store: Store): Promise<void> {
  const password = config.adminPassword ?? generatePassword();
  if (!(await bootstrapFirstAccount(store.db, config.adminEmail, password))) return;
  // Printed once, outside the JSON log, so the generated password never lands in log storage.
  const how = config.adminPassword === undefined
    ? `with the generated password ${password} (shown only this once)`
    : 'with the password from EDGEPLANE_ADMIN_PASSWORD';
  process.stdout.write(`\nedgeplane: created the first administrator ${config.adminEmail}; log in ${how}.\n\n`);
}

export function stopOnSignals(service: Service, logger: Logger): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    service.stop().then(
      () => process.exit(0),
      (e: unknown) => {
        logger.error({ err: e }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
