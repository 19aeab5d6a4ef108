// Network mappings (/dns/v2/network-mappings, the provider's): an account's named lists of
// networks with tags. Created, listed, read by id or name, replaced (the name stays), deleted, and
// imported from YAML documents all at once or not at all. Every use case is the caller's account's
// only: another account's mapping is not found, its names are free to reuse.
import { sql } from 'kysely';
import { parseAllDocuments } from 'yaml';
import type { Principal } from '../accounts/principal.ts';
import { conflict, invalid, notFound, type FieldErrors } from '../errors.ts';
import type { Db, Engine } from '../store/database.ts';
import { isUniqueViolation } from '../store/errors.ts';
import {
  countNetworkMappings,
  deleteNetworkMapping,
  findNetworkMapping,
  insertNetworkMapping,
  listNetworkMappings,
  updateNetworkMapping,
  type NetworkMappingListFilter,
  type NetworkMappingRow,
} from '../store/network-mappings.ts';
import type { DnsContext } from './context.ts';
import { nameProblem, validateNetworkMapping, type MappingEntry } from './network-mapping-input.ts';
import { parseJson } from './views.ts';

export const maxMappingsPerAccount = 100;
/** YAML aliases a document may expand: stops a "billion laughs" document from growing in memory. */
const maxAliasCount = 100;

export interface NetworkMappingView {
  id: number;
  name: string;
  mapping: MappingEntry[];
}

const mappingNotFound = () => notFound('network mapping is not found');

const view = (row: NetworkMappingRow): NetworkMappingView => ({ id: row.id, name: row.name, mapping: parseJson<MappingEntry[]>(row.mapping) });

/** An arbitrary constant of our own, the first key of pg_advisory_xact_lock(int, int); the account id is the second. */
const mappingsLockClass = 0x4e4d;

/** Serialises an account's mapping creations so that two cannot both pass the count (SQLite: see name-ownership.ts). */
async function lockAccountMappings(tx: Db, engine: Engine, accountId: number): Promise<void> {
  if (engine === 'postgres') await sql`select pg_advisory_xact_lock(${sql.lit(mappingsLockClass)}, ${accountId}::int)`.execute(tx);
}

function checked(body: unknown, path = ''): { name: string | undefined; mapping: MappingEntry[] } {
  const fields: FieldErrors = {};
  const input = validateNetworkMapping(body, fields, path);
  if (Object.keys(fields).length > 0) throw invalid('invalid network mapping', fields);
  return input;
}

/** Creates the mappings in one transaction: all of them, or none when one fails. */
async function createAll(ctx: DnsContext, caller: Principal, mappings: { name: string; mapping: MappingEntry[] }[]): Promise<number[]> {
  const at = new Date().toISOString();
  try {
    return await ctx.store.db.transaction().execute(async (tx) => {
      await lockAccountMappings(tx, ctx.store.engine, caller.accountId);
      if ((await countNetworkMappings(tx, caller.accountId)) + mappings.length > maxMappingsPerAccount) {
        throw conflict(`an account holds at most ${String(maxMappingsPerAccount)} network mappings`);
      }
      const ids: number[] = [];
      for (const m of mappings) {
        if ((await findNetworkMapping(tx, caller.accountId, { name: m.name })) !== undefined) throw conflict(`a network mapping named ${m.name} exists`);
        ids.push(await insertNetworkMapping(tx, caller.accountId, m.name, JSON.stringify(m.mapping), at));
      }
      return ids;
    });
  } catch (e) {
    // Two requests creating one name at once: the unique constraint decides.
    if (isUniqueViolation(e)) throw conflict('a network mapping with this name exists');
    throw e;
  }
}

export async function createNetworkMapping(ctx: DnsContext, caller: Principal, body: unknown): Promise<{ id: number }> {
  const { name, mapping } = checked(body);
  if (name === undefined) throw invalid('invalid network mapping', { name: 'required' });
  const [id] = await createAll(ctx, caller, [{ name, mapping }]);
  return { id: id as number };
}

export async function listAccountNetworkMappings(ctx: DnsContext, caller: Principal, filter: NetworkMappingListFilter): Promise<{ network_mappings: NetworkMappingView[]; total_amount: number }> {
  const { rows, total } = await listNetworkMappings(ctx.store.db, caller.accountId, filter);
  return { network_mappings: rows.map(view), total_amount: total };
}

export async function readNetworkMapping(ctx: DnsContext, caller: Principal, by: { id: number } | { name: string }): Promise<NetworkMappingView> {
  if ('name' in by && nameProblem(by.name) !== undefined) throw mappingNotFound();
  const row = await findNetworkMapping(ctx.store.db, caller.accountId, by);
  if (row === undefined) throw mappingNotFound();
  return view(row);
}

/** Replaces the entries; the name cannot change (a name sent must be the mapping's). */
export async function replaceNetworkMapping(ctx: DnsContext, caller: Principal, id: number, body: unknown): Promise<void> {
  const { name, mapping } = checked(body);
  const row = await findNetworkMapping(ctx.store.db, caller.accountId, { id });
  if (row === undefined) throw mappingNotFound();
  if (name !== undefined && name !== row.name) throw invalid('the name of a network mapping cannot be changed', { name: `must be ${row.name} or absent` });
  if (!(await updateNetworkMapping(ctx.store.db, caller.accountId, id, JSON.stringify(mapping), new Date().toISOString()))) throw mappingNotFound();
}

export async function removeNetworkMapping(ctx: DnsContext, caller: Principal, id: number): Promise<void> {
  if (!(await deleteNetworkMapping(ctx.store.db, caller.accountId, id))) throw mappingNotFound();
}

/** Creates one mapping per YAML document (`---` between them), all or none. */
export async function importNetworkMappings(ctx: DnsContext, caller: Principal, text: string): Promise<{ success: true }> {
  const documents = parseAllDocuments(text);
  if (!Array.isArray(documents)) throw invalid('the YAML file is empty', { body: 'must hold at least one network mapping' });
  if (documents.length > maxMappingsPerAccount) throw invalid('too many documents', { body: `at most ${String(maxMappingsPerAccount)} network mappings` });
  const fields: FieldErrors = {};
  const mappings: { name: string; mapping: MappingEntry[] }[] = [];
  const names = new Set<string>();
  for (const [i, document] of documents.entries()) {
    const path = `documents[${String(i)}]`;
    const [error] = document.errors;
    if (error !== undefined) {
      fields[path] = `not YAML: ${error.message.split('\n')[0] ?? ''}`;
      continue;
    }
    let value: unknown;
    try {
      value = document.toJS({ maxAliasCount });
    } catch (e) {
      fields[path] = e instanceof Error ? e.message : 'not YAML';
      continue;
    }
    // An empty document (a trailing `---`) holds no mapping.
    if (value === null || value === undefined) continue;
    const input = validateNetworkMapping(value, fields, path);
    if (input.name === undefined) {
      fields[`${path}.name`] ??= 'required';
      continue;
    }
    if (names.has(input.name)) fields[`${path}.name`] = `${input.name} is named twice`;
    names.add(input.name);
    mappings.push({ name: input.name, mapping: input.mapping });
  }
  if (Object.keys(fields).length > 0) throw invalid('invalid network mappings; none imported', fields);
  if (mappings.length === 0) throw invalid('the YAML file is empty', { body: 'must hold at least one network mapping' });
  await createAll(ctx, caller, mappings);
  return { success: true };
}
