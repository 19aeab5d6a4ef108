// The ordered list of schema versions. A migration is never edited once released: add a new one.
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { Engine } from '../database.ts';
import * as accounts from './0001_accounts.ts';
import * as dns from './0002_dns.ts';
import * as security from './0003_security.ts';

export interface MigrationContext {
  /** Column type of an auto-increment integer key on this engine. */
  id: 'integer' | 'serial';
}

type Step = (db: Kysely<unknown>, context: MigrationContext) => Promise<void>;

const steps: Record<string, Step> = {
  '0001_accounts': accounts.up,
  '0002_dns': dns.up,
  '0003_security': security.up,
};

export function migrations(engine: Engine): Record<string, Migration> {
  // SQLite's INTEGER PRIMARY KEY is its rowid alias and so auto-increments by itself.
  const context: MigrationContext = { id: engine === 'sqlite' ? 'integer' : 'serial' };
  return Object.fromEntries(
    Object.entries(steps).map(([name, up]) => [name, { up: (db: Kysely<unknown>) => up(db, context) }]),
  );
}
