// What managed certificates keep in the store (migration 0009_acme): the ACME account of each
// directory, pending HTTP-01 challenges, failed attempts per resource, and the issuing lease.
// Times are ISO 8601 strings, compared as text like every other time in the store.
import type { Selectable } from 'kysely';
import type { Db } from './database.ts';
import type { AcmeAccountsTable, AcmeAttemptsTable, AcmeChallengesTable } from './schema.ts';

export type AcmeAccountRow = Selectable<AcmeAccountsTable>;
export type AcmeChallengeRow = Selectable<AcmeChallengesTable>;
export type AcmeAttemptRow = Selectable<AcmeAttemptsTable>;

export function findAcmeAccount(db: Db, directory: string): Promise<AcmeAccountRow | undefined> {
  return db.selectFrom('acme_accounts').selectAll().where('directory', '=', directory).executeTakeFirst();
}

/** Keeps the first account made for a directory: the row as stored after the write. */
export async function insertAcmeAccount(db: Db, row: AcmeAccountRow): Promise<AcmeAccountRow> {
  await db.insertInto('acme_accounts').values(row).onConflict((oc) => oc.column('directory').doNothing()).execute();
  const stored = await findAcmeAccount(db, row.directory);
  if (stored === undefined) throw new Error('the ACME account row vanished');
  return stored;
}

export async function setAcmeAccountUrl(db: Db, directory: string, url: string): Promise<void> {
  await db.updateTable('acme_accounts').set({ url }).where('directory', '=', directory).execute();
}

export async function insertAcmeChallenges(db: Db, rows: AcmeChallengeRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('acme_challenges').values(rows).execute();
}

export async function deleteAcmeChallenges(db: Db, tokens: string[]): Promise<void> {
  if (tokens.length > 0) await db.deleteFrom('acme_challenges').where('token', 'in', tokens).execute();
}

/** Drops challenges past their expiry (an issuer that died mid-order); resolves to the resources that had some. */
export async function deleteExpiredAcmeChallenges(db: Db, now: string): Promise<number[]> {
  const rows = await db.deleteFrom('acme_challenges').where('expires_at', '<=', now).returning('resource_id').execute();
  return [...new Set(rows.map((r) => r.resource_id))];
}

/** The unexpired challenges of these resources. */
export async function acmeChallengesOf(db: Db, resourceIds: number[], now: string): Promise<Map<number, AcmeChallengeRow[]>> {
  const byResource = new Map<number, AcmeChallengeRow[]>();
  if (resourceIds.length === 0) return byResource;
  const rows = await db.selectFrom('acme_challenges').selectAll().where('resource_id', 'in', resourceIds).where('expires_at', '>', now).orderBy('token').execute();
  for (const row of rows) byResource.set(row.resource_id, [...(byResource.get(row.resource_id) ?? []), row]);
  return byResource;
}

export function listAcmeAttempts(db: Db): Promise<AcmeAttemptRow[]> {
  return db.selectFrom('acme_attempts').selectAll().execute();
}

export async function saveAcmeAttempt(db: Db, row: AcmeAttemptRow): Promise<void> {
  const { resource_id: _id, ...changes } = row;
  await db.insertInto('acme_attempts').values(row).onConflict((oc) => oc.column('resource_id').doUpdateSet(changes)).execute();
}

export async function deleteAcmeAttempt(db: Db, resourceId: number): Promise<void> {
  await db.deleteFrom('acme_attempts').where('resource_id', '=', resourceId).execute();
}

/**
 * Takes or extends the named lease for `holder` until `until`, unless another holder has it and it
 * has not expired: true when `holder` has it now. One statement, so two nodes never both win.
 */
export async function takeLease(db: Db, name: string, holder: string, now: string, until: string): Promise<boolean> {
  await db.insertInto('acme_lease').values({ name, holder: '', expires_at: now }).onConflict((oc) => oc.column('name').doNothing()).execute();
  const result = await db
    .updateTable('acme_lease')
    .set({ holder, expires_at: until })
    .where('name', '=', name)
    .where((eb) => eb.or([eb('holder', '=', holder), eb('expires_at', '<=', now)]))
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** Gives the lease up, if `holder` has it, so another node need not wait for it to expire. */
export async function releaseLease(db: Db, name: string, holder: string): Promise<void> {
  await db.updateTable('acme_lease').set({ holder: '', expires_at: new Date(0).toISOString() }).where('name', '=', name).where('holder', '=', holder).execute();
}

/** Ids of the resources asking for a managed certificate. */
export async function managedResourceIds(db: Db): Promise<number[]> {
  const rows = await db.selectFrom('resources').select('id').where('ssl_type', '=', 'le').orderBy('id').execute();
  return rows.map((r) => r.id);
}

/**
 * Stores a certificate ACME issued for a resource, if the resource still asks for a managed one
 * (its owner may have switched to a custom certificate meanwhile): true when it was stored.
 */
export async function storeManagedCertificate(db: Db, resourceId: number, columns: { ssl_crt: string; ssl_key_sealed: string; ssl_expire: number; updated_at: string }): Promise<boolean> {
  const result = await db.updateTable('resources').set(columns).where('id', '=', resourceId).where('ssl_type', '=', 'le').executeTakeFirst();
  return result.numUpdatedRows === 1n;
}
