// Protected resources repository. A resource is written whole; its list entries keep their ids
// when their data is unchanged, so clients that GET, edit and PUT back see stable ids.
import type { Selectable } from 'kysely';
import type { Db } from './database.ts';
import type { ResourceAccessListsTable, ResourceAliasesTable, ResourceOriginsTable, ResourceRateRulesTable, ResourcesTable } from './schema.ts';

export type ResourceRow = Selectable<ResourcesTable>;
export type AliasRow = Selectable<ResourceAliasesTable>;
export type OriginRow = Selectable<ResourceOriginsTable>;
export type RateRuleRow = Selectable<ResourceRateRulesTable>;
export type AccessListRow = Selectable<ResourceAccessListsTable>;

export interface ResourceDetails {
  aliases: AliasRow[];
  origins: OriginRow[];
  rules: RateRuleRow[];
  lists: AccessListRow[];
}

export interface ResourceLists {
  aliases: string[];
  origins: { origin_data: string; origin_weight: number; origin_mode: string }[];
  rules: { method: string; path: string; value: number; test_cookie: boolean }[];
  blacklists: string[];
  whitelists: string[];
}

export function findAccountResource(db: Db, accountId: number, id: number): Promise<ResourceRow | undefined> {
  return db.selectFrom('resources').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

export function listAccountResources(db: Db, accountId: number): Promise<ResourceRow[]> {
  return db.selectFrom('resources').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}

/** Every resource of every account: the proxy serves them all. */
export function listAllResources(db: Db): Promise<ResourceRow[]> {
  return db.selectFrom('resources').selectAll().orderBy('id').execute();
}

export function listResourcesById(db: Db, ids: number[]): Promise<ResourceRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('resources').selectAll().where('id', 'in', ids).orderBy('id').execute();
}

export async function resourceDetails(db: Db, ids: number[]): Promise<Map<number, ResourceDetails>> {
  const details = new Map<number, ResourceDetails>(ids.map((id) => [id, { aliases: [], origins: [], rules: [], lists: [] }]));
  if (ids.length === 0) return details;
  const [aliases, origins, rules, lists] = await Promise.all([
    db.selectFrom('resource_aliases').selectAll().where('resource_id', 'in', ids).orderBy('position').execute(),
    db.selectFrom('resource_origins').selectAll().where('resource_id', 'in', ids).orderBy('position').execute(),
    db.selectFrom('resource_rate_rules').selectAll().where('resource_id', 'in', ids).orderBy('position').execute(),
    db.selectFrom('resource_access_lists').selectAll().where('resource_id', 'in', ids).orderBy('position').execute(),
  ]);
  for (const a of aliases) details.get(a.resource_id)?.aliases.push(a);
  for (const o of origins) details.get(o.resource_id)?.origins.push(o);
  for (const r of rules) details.get(r.resource_id)?.rules.push(r);
  for (const l of lists) details.get(l.resource_id)?.lists.push(l);
  return details;
}

export function insertResource(db: Db, row: Omit<ResourceRow, 'id'>): Promise<ResourceRow> {
  return db.insertInto('resources').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateResource(db: Db, id: number, row: Partial<Omit<ResourceRow, 'id' | 'account_id' | 'created_at'>>): Promise<void> {
  await db.updateTable('resources').set(row).where('id', '=', id).execute();
}

export async function deleteResource(db: Db, id: number): Promise<void> {
  await db.deleteFrom('resources').where('id', '=', id).execute();
}

/** The host names each of these resources holds (resource_hosts), as `${id} ${hostname}`. */
export async function heldHosts(db: Db, ids: number[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('resource_hosts').select(['resource_id', 'hostname']).where('resource_id', 'in', ids).execute();
  return new Set(rows.map((r) => `${r.resource_id} ${r.hostname}`));
}

/**
 * Takes these host names from the resources of other accounts than `accountId` that hold them
 * (the names fell inside a zone of `accountId`): the resources stay, without the names.
 */
export async function releaseHostsToAccount(db: Db, accountId: number, hostnames: string[]): Promise<void> {
  if (hostnames.length === 0) return;
  await db
    .deleteFrom('resource_hosts')
    .where('hostname', 'in', hostnames)
    .where('resource_id', 'in', (eb) => eb.selectFrom('resources').select('id').where('account_id', '!=', accountId))
    .execute();
}

/** Every held host name with its resource and account: the start-up report of ownership conflicts reads them all. */
export function allHeldHosts(db: Db): Promise<{ hostname: string; resource_id: number; account_id: number }[]> {
  return db
    .selectFrom('resource_hosts')
    .innerJoin('resources', 'resources.id', 'resource_hosts.resource_id')
    .select(['resource_hosts.hostname', 'resource_hosts.resource_id', 'resources.account_id'])
    .orderBy('resource_hosts.hostname')
    .execute();
}

/** Pairs new entries with old ones of the same key, in order; unpaired old ones are returned too. */
function pair<T, O>(entries: T[], old: O[], key: (t: T) => string, oldKey: (o: O) => string) {
  const pool = Map.groupBy(old, oldKey);
  const paired = entries.map((entry) => ({ entry, kept: pool.get(key(entry))?.shift() }));
  return { paired, removed: [...pool.values()].flat() };
}

/** Writes the host names and lists; a host name held by another resource fails on the primary key. */
export async function replaceLists(db: Db, resourceId: number, name: string, lists: ResourceLists, old: ResourceDetails): Promise<void> {
  await db.deleteFrom('resource_hosts').where('resource_id', '=', resourceId).execute();
  await db
    .insertInto('resource_hosts')
    .values([name, ...lists.aliases].map((hostname) => ({ hostname, resource_id: resourceId })))
    .execute();

  const aliases = pair(lists.aliases, old.aliases, (a) => a, (o) => o.alias_data);
  for (const [position, { entry, kept }] of aliases.paired.entries()) {
    if (kept) await db.updateTable('resource_aliases').set({ position }).where('id', '=', kept.id).execute();
    else await db.insertInto('resource_aliases').values({ resource_id: resourceId, position, alias_data: entry }).execute();
  }
  const origins = pair(lists.origins, old.origins, (o) => o.origin_data, (o) => o.origin_data);
  for (const [position, { entry, kept }] of origins.paired.entries()) {
    if (kept) await db.updateTable('resource_origins').set({ ...entry, position }).where('id', '=', kept.id).execute();
    else await db.insertInto('resource_origins').values({ ...entry, resource_id: resourceId, position }).execute();
  }
  const entries = [...lists.blacklists.map((data) => ({ kind: 'black', data })), ...lists.whitelists.map((data) => ({ kind: 'white', data }))];
  const access = pair(entries, old.lists, (e) => `${e.kind} ${e.data}`, (o) => `${o.kind} ${o.data}`);
  for (const [position, { entry, kept }] of access.paired.entries()) {
    if (kept) await db.updateTable('resource_access_lists').set({ position }).where('id', '=', kept.id).execute();
    else await db.insertInto('resource_access_lists').values({ ...entry, resource_id: resourceId, position }).execute();
  }
  const gone = { aliases: aliases.removed.map((a) => a.id), origins: origins.removed.map((o) => o.id), lists: access.removed.map((l) => l.id) };
  if (gone.aliases.length > 0) await db.deleteFrom('resource_aliases').where('id', 'in', gone.aliases).execute();
  if (gone.origins.length > 0) await db.deleteFrom('resource_origins').where('id', 'in', gone.origins).execute();
  if (gone.lists.length > 0) await db.deleteFrom('resource_access_lists').where('id', 'in', gone.lists).execute();

  // Rate rules carry no id: they are simply rewritten.
  await db.deleteFrom('resource_rate_rules').where('resource_id', '=', resourceId).execute();
  if (lists.rules.length > 0) {
    await db
      .insertInto('resource_rate_rules')
      .values(lists.rules.map((r, position) => ({ ...r, test_cookie: r.test_cookie ? 1 : 0, resource_id: resourceId, position })))
      .execute();
  }
}
