// What the DNS use cases need, built once at start.
import type { Config } from '../config.ts';
import type { Sealer } from '../crypto/sealed.ts';
import type { ChangeFeed } from '../events/change-feed.ts';
import type { Resolver } from './client/resolver.ts';
import type { Store } from '../store/database.ts';

/**
 * How an RRset write batch was committed: one guarded statement (PostgreSQL) after a read of the
 * zone, or `unread`, planned on the zone as this process last wrote it; or a transaction locking the zone.
 */
export type BatchWay = 'guarded' | 'unread' | 'locked';

export interface DnsContext {
  store: Store;
  config: Pick<Config, 'compat' | 'nameservers' | 'zoneAllowReserved' | 'webhookAllowPrivate' | 'dnsJournalVersions' | 'dnsJournalBytes'>;
  sealer: Sealer;
  changes: ChangeFeed;
  /** Asks the webhook worker to look at the outbox now. */
  wakeWebhooks(): void;
  /** Counts an RRset write batch committed, by the way it was (rrset-batch.ts); summed at /metrics. */
  countBatch(way: BatchWay): void;
  /** The operator's resolver for delegation checks and lookups; absent: none configured (or not an API process). */
  resolver?: Resolver | undefined;
}
