// What the DNS use cases need, built once at start.
import type { Config } from '../config.ts';
import type { Sealer } from '../crypto/sealed.ts';
import type { ChangeFeed } from '../events/change-feed.ts';
import type { Resolver } from './client/resolver.ts';
import type { Store } from '../store/database.ts';

export interface DnsContext {
  store: Store;
  config: Pick<Config, 'compat' | 'nameservers' | 'zoneAllowReserved' | 'webhookAllowPrivate' | 'dnsJournalVersions' | 'dnsJournalBytes'>;
  sealer: Sealer;
  changes: ChangeFeed;
  /** Asks the webhook worker to look at the outbox now. */
  wakeWebhooks(): void;
  /** The operator's resolver for delegation checks and lookups; absent: none configured (or not an API process). */
  resolver?: Resolver | undefined;
}
