// Protected resource use cases: create, read, list, replace (PUT) and delete, scoped to the caller's
// account. Every write is one transaction and ends with a change event for the protection proxy.
import type { Principal } from '../accounts/principal.ts';
import { ApiError, conflict, invalid, notFound } from '../errors.ts';
import { notifyResourceChange, type ResourceChange } from '../events/change-feed.ts';
import { deleteAcmeAttempt } from '../store/acme.ts';
import type { Db } from '../store/database.ts';
import { isUniqueViolation } from '../store/errors.ts';
import {
  deleteResource as deleteResourceRow,
  findAccountResource,
  insertResource,
  listAccountResources,
  replaceLists,
  resourceDetails,
  updateResource as updateResourceRow,
  type ResourceDetails,
  type ResourceRow,
} from '../store/resources.ts';
import { storedChainCovers, validateCertificate } from './certificate.ts';
import type { SecurityContext } from './context.ts';
import { claimHosts, hostClaims, releasedHosts } from './host-ownership.ts';
import { validateResource, type ResourceInput } from './resource-input.ts';
import { resourceView } from './views.ts';

const emptyDetails: ResourceDetails = { aliases: [], origins: [], rules: [], lists: [] };
/** The sealing context of a resource's TLS private key: a sealed key opens only for its resource. */
export const tlsKeyContext = (id: number) => `tls-key:${String(id)}`;

export function resourceNotFound(): ApiError {
  return notFound('resource is not found');
}

/** A custom certificate must cover the resource's name; aliases it does not cover show alias_ssl_expire 0. */
const notCovering = (name: string) => invalid(`the certificate does not cover ${name}`, { service_ssl_crt: `does not cover the resource name ${name}` });

/** The TLS columns after this write: kept, cleared, marked for Let's Encrypt, or a checked custom pair. */
function tlsColumns(ctx: SecurityContext, input: ResourceInput, current: ResourceRow | undefined, resourceId: number) {
  const tls = input.tls;
  if (tls.type === 'keep') {
    // A renamed resource keeps its certificate only when that covers the new name.
    const renamed = current !== undefined && current.name !== input.name;
    if (renamed && current.ssl_type === 'custom' && current.ssl_crt !== null && !storedChainCovers(current.ssl_crt, input.name)) throw notCovering(input.name);
    return {};
  }
  if (tls.type === 'none') return { ssl_type: null, ssl_crt: null, ssl_key_sealed: null, ssl_expire: 0 };
  // A resource that already asks for a managed certificate keeps the one it was issued: a client
  // that GETs and PUTs back must not send the proxy back to the CA (and HTTPS down meanwhile).
  if (tls.type === 'le') return current?.ssl_type === 'le' ? {} : { ssl_type: 'le', ssl_crt: null, ssl_key_sealed: null, ssl_expire: 0 };
  const crt = tls.crt ?? current?.ssl_crt ?? undefined;
  if (crt === undefined) throw invalid('a custom certificate needs service_ssl_crt', { service_ssl_crt: 'required with ssl_type "custom"' });
  // A renewed certificate for the same key may be sent without the key again.
  const key = tls.key ?? (current?.ssl_key_sealed ? ctx.sealer.open(current.ssl_key_sealed, tlsKeyContext(resourceId)).toString() : undefined);
  if (key === undefined) throw invalid('a custom certificate needs service_ssl_key', { service_ssl_key: 'required with ssl_type "custom"' });
  const valid = validateCertificate(crt, key);
  if (!valid.covers(input.name)) throw notCovering(input.name);
  return { ssl_type: 'custom', ssl_crt: valid.chain, ssl_key_sealed: ctx.sealer.seal(Buffer.from(key), tlsKeyContext(resourceId)), ssl_expire: valid.expiresAt };
}

async function write(ctx: SecurityContext, work: (tx: Db) => Promise<number>): Promise<number> {
  try {
    const change: ResourceChange = { resourceId: 0, deleted: false };
    const id = await ctx.store.db.transaction().execute(async (tx) => {
      change.resourceId = await work(tx);
      await notifyResourceChange(tx, ctx.store.engine, change);
      return change.resourceId;
    });
    await ctx.changes.publish(change);
    return id;
  } catch (e) {
    if (isUniqueViolation(e)) throw conflict('the name or an alias is already protected by another resource');
    throw e;
  }
}

function lists(input: ResourceInput) {
  return { aliases: input.aliases, origins: input.origins, rules: input.rules, blacklists: input.blacklists, whitelists: input.whitelists };
}

async function view(ctx: SecurityContext, resource: ResourceRow, shape: 'single' | 'list') {
  const all = await resourceDetails(ctx.store.db, [resource.id]);
  const released = await releasedHosts(ctx.store.db, [resource], all);
  return resourceView(resource, all.get(resource.id) ?? emptyDetails, released.get(resource.id) ?? [], ctx.config.publicIpv4, shape, ctx.config.wafMode);
}

export async function createResource(ctx: SecurityContext, caller: Principal, body: Record<string, unknown>) {
  const input = validateResource(body);
  const now = new Date().toISOString();
  const id = await write(ctx, async (tx) => {
    await claimHosts(tx, ctx.store.engine, caller.accountId, hostClaims(input.name, input.aliases));
    const row = await insertResource(tx, {
      account_id: caller.accountId,
      name: input.name,
      settings: JSON.stringify(input.settings),
      ssl_type: null,
      ssl_crt: null,
      ssl_key_sealed: null,
      ssl_expire: 0,
      created_at: now,
      updated_at: now,
    });
    const tls = tlsColumns(ctx, input, undefined, row.id);
    if (Object.keys(tls).length > 0) await updateResourceRow(tx, row.id, tls);
    await replaceLists(tx, row.id, input.name, lists(input), emptyDetails);
    return row.id;
  });
  return getResource(ctx, caller, id);
}

export async function getResource(ctx: SecurityContext, caller: Principal, id: number) {
  const resource = await findAccountResource(ctx.store.db, caller.accountId, id);
  if (resource === undefined) throw resourceNotFound();
  return view(ctx, resource, 'single');
}

export async function listResources(ctx: SecurityContext, caller: Principal) {
  const resources = await listAccountResources(ctx.store.db, caller.accountId);
  const details = await resourceDetails(ctx.store.db, resources.map((r) => r.id));
  const released = await releasedHosts(ctx.store.db, resources, details);
  return resources.map((r) => resourceView(r, details.get(r.id) ?? emptyDetails, released.get(r.id) ?? [], ctx.config.publicIpv4, 'list', ctx.config.wafMode));
}

export async function replaceResource(ctx: SecurityContext, caller: Principal, id: number, body: Record<string, unknown>) {
  const current = await findAccountResource(ctx.store.db, caller.accountId, id);
  if (current === undefined) throw resourceNotFound();
  const input = validateResource(body);
  const tls = tlsColumns(ctx, input, current, id);
  await write(ctx, async (tx) => {
    await claimHosts(tx, ctx.store.engine, caller.accountId, hostClaims(input.name, input.aliases));
    const old = (await resourceDetails(tx, [id])).get(id) ?? emptyDetails;
    await updateResourceRow(tx, id, { name: input.name, settings: JSON.stringify(input.settings), ...tls, updated_at: new Date().toISOString() });
    await replaceLists(tx, id, input.name, lists(input), old);
    // Turned (back) to a managed certificate: ordered at once, whatever failed before.
    if ('ssl_type' in tls && tls.ssl_type === 'le') await deleteAcmeAttempt(tx, id);
    return id;
  });
  return getResource(ctx, caller, id);
}

export async function deleteResource(ctx: SecurityContext, caller: Principal, id: number): Promise<void> {
  const current = await findAccountResource(ctx.store.db, caller.accountId, id);
  if (current === undefined) throw resourceNotFound();
  const change: ResourceChange = { resourceId: id, deleted: true };
  await ctx.store.db.transaction().execute(async (tx) => {
    await deleteResourceRow(tx, id);
    await notifyResourceChange(tx, ctx.store.engine, change);
  });
  await ctx.changes.publish(change);
}
