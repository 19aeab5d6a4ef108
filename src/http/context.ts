// What the HTTP layer needs from the rest of the service, built once at start.
import type { FastifyBaseLogger } from 'fastify';
import type { Metrics } from '../metrics.ts';
import type { AccessTokens } from '../accounts/jwt.ts';
import type { LoginLimiter } from '../accounts/login-limiter.ts';
import type { PasswordHasher } from '../accounts/password-hasher.ts';
import type { Config } from '../config.ts';
import type { DnsContext } from '../dns/context.ts';
import type { SecurityContext } from '../security/context.ts';
import type { Store } from '../store/database.ts';

export interface AppContext {
  config: Config;
  store: Store;
  logger: FastifyBaseLogger;
  accessTokens: AccessTokens;
  loginLimiter: LoginLimiter;
  passwords: PasswordHasher;
  dns: DnsContext;
  security: SecurityContext;
  metrics: Metrics;
}
