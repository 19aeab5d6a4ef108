// RRset use cases. Every write goes through commitZoneChange (serial, webhook, change feed), the
// writes of one zone that arrive together in one transaction (rrset-batch.ts), and checks the rules
// that involve other RRsets of the zone: CNAME alone at its name and never at the apex, DS only at
// delegation points, the apex NS kept.
import type { Principal } from '../accounts/principal.ts';
import { conflict, invalid } from '../errors.ts';
import { findRrset, listRrsets as listRrsetRows, withRecords, type RrsetOrder } from '../store/rrsets.ts';
import type { ZoneRow } from '../store/zones.ts';
import { callerZone, recordNotFound, zonePathName } from './access.ts';
import { checkNeighbours, type Target } from './neighbours.ts';
import type { DnsContext } from './context.ts';
import { NameError, ownerName } from './names.ts';
import { commitRrsetWrite } from './rrset-batch.ts';
import { recordType } from './rrtypes/index.ts';
import { validateRrsetBody, type ValidRrset } from './rrset-input.ts';
import { rrsetView } from './views.ts';


/** The caller's zone (404 when it is not theirs), and the RRset's name and type in it. */
export async function rrsetTarget(ctx: DnsContext, caller: Principal, zonePath: string, namePath: string, typePath: string): Promise<Target & { zone: ZoneRow }> {
  const zone = await callerZone(ctx.store.db, caller, zonePath);
  return { ...namedTarget(zone, namePath, typePath), zone };
}

/**
 * The RRset's name and type in the zone named by the path, without reading the zone: writes read it
 * in their transaction (rrset-batch.ts), where a zone that is not the caller's answers 404.
 */
function writeTarget(zonePath: string, namePath: string, typePath: string): Target {
  return namedTarget({ name: zonePathName(zonePath) }, namePath, typePath);
}

function namedTarget(zone: Pick<ZoneRow, 'name'>, namePath: string, typePath: string): Target {
  const type = recordType(typePath);
  if (type === undefined) {
    const hint = typePath.toUpperCase() === 'SOA' ? '; SOA values are the zone\'s fields (PUT /dns/v2/zones/{name})' : '';
    throw invalid(`unsupported record type "${typePath}"${hint}`, { type: 'unsupported record type' });
  }
  try {
    return { zone, name: ownerName(namePath, zone.name), type };
  } catch (e) {
    if (e instanceof NameError) throw invalid(`invalid RRset name: ${e.message}`, { name: e.message });
    throw e;
  }
}

function stored(valid: ValidRrset, t: Target) {
  return {
    name: t.name,
    type: t.type.type,
    ttl: valid.ttl,
    meta: JSON.stringify(valid.meta),
    pickers: valid.pickers === null ? null : JSON.stringify(valid.pickers),
    healthcheck: isHealthchecked(valid) ? 1 : 0,
    records: valid.records.map((r) => ({ content: JSON.stringify(r.content), enabled: r.enabled ? 1 : 0, meta: JSON.stringify(r.meta) })),
  };
}

/** A dynamic RRset whose answers depend on health checks. */
function isHealthchecked(valid: ValidRrset): boolean {
  const healthPicker = valid.pickers?.some((p) => p.type === 'healthcheck' || p.type === 'is_healthy') ?? false;
  return valid.pickers !== null && (healthPicker || valid.meta['failover'] !== undefined);
}

export async function getRrset(ctx: DnsContext, caller: Principal, zonePath: string, namePath: string, typePath: string) {
  const t = await rrsetTarget(ctx, caller, zonePath, namePath, typePath);
  const row = await findRrset(ctx.store.db, t.zone.id, t.name, t.type.type);
  if (row === undefined) throw recordNotFound();
  const [rrset] = await withRecords(ctx.store.db, [row]);
  return rrsetView(rrset ?? { ...row, records: [] }, ctx.config.compat);
}

/** POST creates (409 when it exists); PUT creates or replaces. Both answer 200 with the RRset. */
export async function writeRrset(
  ctx: DnsContext,
  caller: Principal,
  path: { zone: string; name: string; type: string },
  body: Record<string, unknown>,
  mode: 'create' | 'upsert',
) {
  const t = writeTarget(path.zone, path.name, path.type);
  const valid = validateRrsetBody(body, t.type, t.zone.name);
  return commitRrsetWrite(ctx, { name: t.zone.name, accountId: caller.accountId }, [t.name], (_zone, here) => {
    const existing = here.find((r) => r.type === t.type.type);
    if (existing && mode === 'create') throw conflict(`RRset ${t.name} ${t.type.type} already exists; use PUT to change it`);
    checkNeighbours(t, here.map((r) => r.type));
    return {
      write: { upsert: stored(valid, t), existing },
      outcome: (rrset) => {
        if (rrset === undefined) throw new Error(`RRset ${t.name} ${t.type.type} was not written`);
        // One view: the answer's, and the webhook's without the warnings (which concern the request).
        const view = rrsetView(rrset, ctx.config.compat, valid.warnings);
        const hooked = valid.warnings.length === 0 ? view : { ...view, warning: '', warnings: [] };
        return {
          result: view,
          changedNames: [t.name],
          rrsetsAfter: [...here.filter((r) => r !== existing), rrset],
          rrsetChanges: { created: existing ? [] : [hooked], updated: existing ? [hooked] : [], deleted: [] },
        };
      },
    };
  });
}

export async function deleteRrset(ctx: DnsContext, caller: Principal, zonePath: string, namePath: string, typePath: string): Promise<void> {
  const t = writeTarget(zonePath, namePath, typePath);
  if (t.type.type === 'NS' && t.name === t.zone.name) throw conflict('the apex NS RRset cannot be deleted; replace it with PUT');
  await commitRrsetWrite(ctx, { name: t.zone.name, accountId: caller.accountId }, [t.name], (_zone, here) => {
    const row = here.find((r) => r.type === t.type.type);
    if (row === undefined) throw recordNotFound();
    if (t.type.type === 'NS' && here.some((r) => r.type === 'DS')) {
      throw conflict(`delete the DS RRset at ${t.name} before its NS`);
    }
    return {
      write: { delete: row },
      outcome: () => ({
        result: undefined,
        changedNames: [t.name],
        rrsetsAfter: here.filter((r) => r !== row),
        rrsetChanges: { created: [], updated: [], deleted: [rrsetView(row, ctx.config.compat)] },
      }),
    };
  });
}

export interface RrsetListQuery {
  offset: number;
  limit: number | undefined;
  orderBy: RrsetOrder;
  direction: 'asc' | 'desc';
  types: string[];
}

export async function listRrsets(ctx: DnsContext, caller: Principal, zonePath: string, query: RrsetListQuery) {
  const zone = await callerZone(ctx.store.db, caller, zonePath);
  const { rrsets, total } = await listRrsetRows(ctx.store.db, zone.id, { types: query.types }, query);
  return { rrsets: rrsets.map((r) => rrsetView(r, ctx.config.compat)), total_amount: total };
}
