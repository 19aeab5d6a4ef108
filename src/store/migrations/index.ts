// The ordered list of schema versions. A migration is never edited once released: add a new one.
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { Engine } from '../database.ts';
import type { MigrationContext } from './context.ts';
import * as accounts from './0001_accounts.ts';
import * as dns from './0002_dns.ts';
import * as security from './0003_security.ts';
import * as healthcheckIndex from './0004_healthcheck_index.ts';
import * as zoneCatalog from './0005_zone_catalog.ts';
import * as hostClaims from './0006_host_claims.ts';
import * as zoneVersions from './0007_zone_versions.ts';
import * as revokedSessions from './0008_revoked_sessions.ts';
import * as acme from './0009_acme.ts';
import * as queryCounts from './0010_query_counts.ts';
import * as proxyRequestCounts from './0011_proxy_request_counts.ts';
import * as failoverLog from './0012_failover_log.ts';
import * as zoneJournal from './0013_zone_journal.ts';
import * as networkMappings from './0014_network_mappings.ts';
import * as journalSizeIndex from './0015_journal_size_index.ts';
import * as journalFrom from './0016_journal_from.ts';

type Step = (db: Kysely<unknown>, context: MigrationContext) => Promise<void>;

const steps: Record<string, Step> = {
  '0001_accounts': accounts.up,
  '0002_dns': dns.up,
  '0003_security': security.up,
  '0004_healthcheck_index': healthcheckIndex.up,
  '0005_zone_catalog': zoneCatalog.up,
  '0006_host_claims': hostClaims.up,
  '0007_zone_versions': zoneVersions.up,
  '0008_revoked_sessions': revokedSessions.up,
  '0009_acme': acme.up,
  '0010_query_counts': queryCounts.up,
  '0011_proxy_request_counts': proxyRequestCounts.up,
  '0012_failover_log': failoverLog.up,
  '0013_zone_journal': zoneJournal.up,
  '0014_network_mappings': networkMappings.up,
  '0015_journal_size_index': journalSizeIndex.up,
  '0016_journal_from': journalFrom.up,
};

export function migrations(engine: Engine): Record<string, Migration> {
  // SQLite's INTEGER PRIMARY KEY is its rowid alias: it auto-increments, but reuses the highest id
  // after a delete unless AUTOINCREMENT is asked for. PostgreSQL sequences never go back.
  const context: MigrationContext =
    engine === 'sqlite'
      ? { engine, id: 'integer', key: (c) => c.primaryKey().autoIncrement() }
      : { engine, id: 'serial', key: (c) => c.primaryKey() };
  return Object.fromEntries(
    Object.entries(steps).map(([name, up]) => [name, { up: (db: Kysely<unknown>) => up(db, context) }]),
  );
}
